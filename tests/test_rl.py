"""hexstones.rl: the PettingZoo AEC env, the vector env and the observation maps agree
with the game API move for move (same actions, masks, planes and results)."""

from __future__ import annotations

import gc
import warnings

import numba
import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from pettingzoo.test import api_test  # noqa: E402

import hexstones  # noqa: E402
from hexstones import rl  # noqa: E402
from hexstones.board import get_board  # noqa: E402
from hexstones.games import observation as O  # noqa: E402

# The games and starts the agreement tests run: every game, a non-default balance, and
# Droched's handicap start (White moves first).
STARTS = [
    ("keil", {"size": 3}),
    ("keil", {"size": 4, "komi": -2}),
    ("dehil", {"size": 3}),
    ("dehil", {"size": 4, "komi": 3}),
    ("droched", {"size": 3}),
    ("droched", {"size": 4, "prison": 2, "handicap": ["d4"]}),
]
START_IDS = [f"{name}-{'-'.join(f'{k}{v}' for k, v in opts.items())}" for name, opts in STARTS]

# api_test's warnings that every PettingZoo board game with a dict observation (go_v5,
# chess) also gets, and the one our agent names (black, white) get.
KNOWN_WARNINGS = (
    "Observation space for each agent probably should be",
    "We recommend agents to be named in the format",
    "Observation is not a NumPy array",
)


def agent_index(color: str) -> int:
    return rl.aec.AGENTS.index(color)


@pytest.mark.parametrize("name,options", [
    ("keil", {}), ("dehil", {}), ("droched", {}),
    ("droched", {"size": 5, "prison": 1, "handicap": ["c3", "g5"]}),
])
def test_pettingzoo_api_test(name, options):
    gc.collect()  # earlier tests' unclosed sockets would warn in here when collected
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(rl.env(name, **options), num_cycles=300)
    # A ResourceWarning is the garbage collector closing some other test's leftovers,
    # whenever it happens to run; it says nothing about the env.
    unexpected = [str(w.message) for w in caught
                  if not str(w.message).startswith(KNOWN_WARNINGS)
                  and not issubclass(w.category, ResourceWarning)]
    assert unexpected == []


def test_observation_space_and_mask_of_a_fresh_game():
    game = hexstones.new_game("keil", size=3)
    env = rl.env("keil", size=3)
    env.reset()
    assert env.agent_selection == "black"
    obs = env.observe("black")
    assert obs["observation"].shape == (5, 5, rl.NUM_PLANES)
    assert obs["observation"].dtype == np.float32
    assert obs["action_mask"].dtype == np.int8
    assert obs["action_mask"].tolist() == [1] * game.num_actions  # every point, the button
    assert env.observe("white")["action_mask"].tolist() == [0] * game.num_actions
    on_board = obs["observation"][..., O.F_ONES]
    # Row r, column c holds point (c, r): 19 cells of a 5x5 grid, |c - r| <= 2.
    assert on_board.sum() == 19
    assert on_board[0, 3] == 0 and on_board[3, 0] == 0 and on_board[2, 4] == 1


def test_embedding_puts_point_c_r_at_row_r_column_c():
    board = get_board(4)
    rows, cols = rl.embedding(4)
    for p, (c, r) in enumerate(board.coords):
        assert (rows[p], cols[p]) == (r, c)
    game = hexstones.new_game("keil", size=4)
    game.play("c5")  # column c (2), row 5 (4)
    planes = rl.observe(game)  # seen by White, to move
    assert planes[4, 2, O.F_OPP] == 1 and planes[..., O.F_OPP].sum() == 1


def _agree_with_game_api(name, options, num_envs, steps, seed, max_moves=None):
    env = rl.VectorEnv(name, num_envs=num_envs, max_moves=max_moves, **options)
    cap = env.max_moves
    games = [hexstones.new_game(name, **options) for _ in range(num_envs)]
    aec = rl.env(name, max_moves=max_moves, **options)
    aec.reset()
    obs, infos = env.reset(seed=seed)
    done = np.zeros(num_envs, bool)
    ends = 0
    for _ in range(steps):
        actions = env.sample_legal_actions().copy()
        movers = [g.to_move for g in games]
        for i, game in enumerate(games):
            if done[i]:
                games[i] = hexstones.new_game(name, **options)
            else:
                assert actions[i] in game.legal_actions()
                game.play(game.move_of(int(actions[i])))
        if done[0]:
            aec.reset()
        else:
            aec.step(int(actions[0]))
        obs, rewards, terminated, truncated, infos = env.step(actions)
        for i, game in enumerate(games):
            assert infos["to_move"][i] == agent_index(game.to_move)
            np.testing.assert_array_equal(obs[i], rl.observe(game), err_msg=f"env {i}")
            mask = infos["action_mask"][i]
            np.testing.assert_array_equal(mask, rl.action_mask(game))
            assert [game.move_of(int(a)) for a in np.flatnonzero(mask)] == game.legal_moves()
            if done[i]:
                assert not terminated[i] and not truncated[i] and rewards[i] == 0
                continue
            outcome = game.outcome()
            assert terminated[i] == (outcome is not None)
            assert truncated[i] == (outcome is None and len(game.moves) >= cap)
            expected = 0 if outcome is None else (1 if outcome.winner == movers[i] else -1)
            assert rewards[i] == expected
            ends += bool(terminated[i] or truncated[i])
        # The AEC env played env 0's actions: the same planes for both agents, the same
        # mask for the agent to move, the same result.
        game = games[0]
        assert aec.agent_selection == game.to_move
        for agent in rl.aec.AGENTS:
            seen = aec.observe(agent)
            np.testing.assert_array_equal(seen["observation"], rl.observe(game, agent))
            live = agent == game.to_move and not (terminated[0] or truncated[0])
            expected_mask = rl.action_mask(game) if live else np.zeros(game.num_actions)
            np.testing.assert_array_equal(seen["action_mask"], expected_mask)
        if not done[0]:
            assert aec.terminations[game.to_move] == bool(terminated[0])
            assert aec.truncations[game.to_move] == bool(truncated[0])
            if terminated[0]:
                winner = game.outcome().winner
                assert aec.rewards == {winner: 1.0, hexstones.games.other(winner): -1.0}
        done = terminated | truncated
    return ends


@pytest.mark.parametrize("name,options", STARTS, ids=START_IDS)
def test_vector_env_aec_env_and_game_api_agree(name, options):
    ends = _agree_with_game_api(name, options, num_envs=3, steps=150, seed=7, max_moves=60)
    assert ends >= 3  # games ended and were reset along the way


def test_default_cap_leaves_dehil_games_to_the_rules():
    # A Dehil game never removes a stone, so it ends within P placements and a few
    # passes: far under the default cap of 4 moves a point, which only cuts long games.
    env = rl.VectorEnv("dehil", size=3, num_envs=16)
    assert env.max_moves == 4 * 19 == rl.default_max_moves(19)
    env.reset(seed=1)
    terminated_total = truncated_total = 0
    for _ in range(300):
        _, _, terminated, truncated, _ = env.step(env.sample_legal_actions())
        terminated_total += terminated.sum()
        truncated_total += truncated.sum()
    assert terminated_total >= 16 * 5 and truncated_total == 0


def test_illegal_action_ends_the_game_as_terminate_illegal_wrapper_does(caplog):
    env = rl.env("keil", size=3)
    env.reset()
    env.step(env.unwrapped._games.start_game.action_of("b2"))
    assert env.agent_selection == "white"
    env.step(get_board(3).index["b2"])  # occupied
    assert "Illegal move made" in caplog.text
    assert all(env.terminations.values())
    assert env.rewards == {"white": -1.0, "black": 0.0}
    # The raw env refuses it with a clear error and stays as it was.
    raw = rl.raw_env("keil", size=3)
    raw.reset()
    raw.step(get_board(3).index["b2"])
    before = raw.observe("white")
    with pytest.raises(ValueError, match="not legal"):
        raw.step(get_board(3).index["b2"])
    with pytest.raises(ValueError, match="not an action"):
        raw.step(20 + 1)
    after = raw.observe("white")
    np.testing.assert_array_equal(before["observation"], after["observation"])
    np.testing.assert_array_equal(before["action_mask"], after["action_mask"])
    assert raw.agent_selection == "white" and not any(raw.terminations.values())


def _wrapped_as_pettingzoo_does(name, **options):
    from pettingzoo.utils import wrappers

    found = wrappers.TerminateIllegalWrapper(rl.raw_env(name, **options), illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(found))


def _outcome_of(env, call):
    """What ``call(env)`` does: its result or the type of error it raises, then the
    env's state as PettingZoo exposes it."""
    try:
        result = call(env)
    except (AssertionError, AttributeError, ValueError) as exc:
        result = type(exc).__name__
    if isinstance(result, dict):  # an observation
        result = {k: v.tolist() for k, v in result.items()}
    elif isinstance(result, tuple):  # last()
        result = ({k: v.tolist() for k, v in result[0].items()},) + result[1:]
    try:
        seen = (env.agents, env.agent_selection, env.rewards, env._cumulative_rewards,
                env.terminations, env.truncations)
    except AttributeError as exc:
        seen = str(exc)
    return result, seen


@pytest.mark.parametrize("name,options", [("keil", {"size": 3}), ("dehil", {"size": 3}),
                                          ("droched", {"size": 3})])
def test_env_behaves_as_pettingzoos_three_wrappers_around_the_raw_env(name, options):
    # env() builds the wrappers' checks into the env class: the same results, errors and
    # states as raw_env wrapped in PettingZoo's wrappers, call for call, through games
    # with legal, illegal and out-of-range actions, None, and calls out of order.
    rng = np.random.default_rng(5)
    checked, wrapped = rl.env(name, **options), _wrapped_as_pettingzoo_does(name, **options)
    A = checked.action_space("black").n
    assert not isinstance(checked.unwrapped, type(wrapped))
    before_reset = [lambda e: e.agents, lambda e: e.agent_selection, lambda e: e.rewards,
                    lambda e: e.num_agents, lambda e: e.observe("black"), lambda e: e.step(0),
                    lambda e: next(iter(e.agent_iter())), lambda e: e.render(),
                    lambda e: e.state()]
    for call in before_reset:
        assert _outcome_of(checked, call) == _outcome_of(wrapped, call)
    results, illegal_ends = [], 0
    for _ in range(12):  # games
        for e in (checked, wrapped):
            e.reset()
        for _ in range(200):
            obs = checked.observe(checked.agent_selection) if checked.agents else None
            legal = [] if obs is None else np.flatnonzero(obs["action_mask"]).tolist()
            r = rng.random()
            if legal and r < 0.9:
                action = int(rng.choice(legal))
            elif r < 0.94:
                action = int(rng.integers(A))  # maybe illegal
            elif r < 0.96:
                action = None
            elif r < 0.98:
                action = A + int(rng.integers(3))  # out of range
            else:
                action = -1
            call = (lambda e, a=action: e.step(a)) if rng.random() < 0.95 else \
                (lambda e: e.last())
            found = _outcome_of(checked, call)
            assert found == _outcome_of(wrapped, call), action
            results.append(found[0])
            illegal_ends += bool(checked.agents) and checked.rewards.get(
                checked.agent_selection) == -1.0 and all(checked.truncations.values())
            if not checked.agents:
                break
    # Every case came up: errors of both kinds, games ended by an illegal action.
    assert {"AssertionError", "ValueError"} <= set(map(str, results)) and illegal_ends >= 2
    # agent_iter: each agent must be stepped before the next.
    for e in (checked, wrapped):
        e.reset()
        loop = iter(e.agent_iter())
        next(loop)
        with pytest.raises(AssertionError, match="need to call step"):
            next(loop)


def test_droched_handicap_game_starts_with_white():
    env = rl.env("droched", size=5, handicap=["c3", "g5"], prison=2)
    env.reset()
    assert env.agent_selection == "white"
    seen = env.observe("white")["observation"]
    game = hexstones.new_game("droched", size=5, handicap=["c3", "g5"], prison=2)
    np.testing.assert_array_equal(seen, rl.observe(game))
    assert seen[..., O.F_OPP].sum() == 2  # the two black stones
    assert seen[2, 2, O.F_OWN_PRISON] == 0 and seen[2, 2, O.F_OPP_PRISON] == np.float32(2 / 10)
    assert seen[2, 2, O.F_WHITE] == 1
    np.testing.assert_array_equal(rl.other_view(seen), env.observe("black")["observation"])


def test_planes_of_the_rules_state():
    keil = hexstones.new_game("keil", size=3, komi=4)
    keil.play("button")
    keil.play("c3")
    keil.play("pass")
    seen = rl.observe(keil)  # White to move; Black took the button and just passed
    assert seen[2, 2, O.F_OPP_SPECIAL] == 1 and seen[2, 2, O.F_OWN_SPECIAL] == 0
    assert seen[2, 2, O.F_PASSES] == 0.5 and seen[2, 2, O.F_BALANCE] == np.float32(4 / 10)
    assert seen[2, 2, O.F_BALANCE_MOVER] == np.float32(4 / 10)  # the komi is White's
    assert seen[..., O.F_LAST].sum() == 0  # the last move was a pass
    assert (seen[..., O.F_SPECIAL_LEGAL] == seen[..., O.F_ONES]).all()  # White may pass
    dehil = hexstones.new_game("dehil", size=3, komi=2)
    dehil.play("pass")
    seen = rl.observe(dehil, "black")
    assert seen[2, 2, O.F_OWN_SPECIAL] == 1 and seen[2, 2, O.F_PASSES] == 0.5
    assert seen[2, 2, O.F_WHITE] == 0 and seen[2, 2, O.F_BALANCE_MOVER] == np.float32(-2 / 10)
    # The legal placements are the player to move's (White's here), whoever observes.
    mask = rl.action_mask(dehil)
    rows, cols = rl.embedding(3)
    np.testing.assert_array_equal(seen[rows, cols, O.F_LEGAL], mask[:-1])
    # Off-board cells are 0 in every plane.
    assert not seen[0, 4].any() and not seen[4, 0].any()


@pytest.mark.parametrize("name,options", STARTS, ids=START_IDS)
def test_planes_are_the_networks_features_on_the_grid(name, options):
    """One encoder: an observation is the network's features (seen by the player to move)
    with each point's row at its cell, 0 elsewhere; seen by the other player it is
    ``other_view`` of them, bit for bit."""
    rng = np.random.default_rng(2)
    game = hexstones.new_game(name, **options)
    rows, cols = rl.embedding(game.size)
    off_board = np.ones((2 * game.size - 1,) * 2, bool)
    off_board[rows, cols] = False
    assert rl.PLANES == O.FEATURES and rl.NUM_PLANES == O.NUM_FEATURES
    for _ in range(30):
        planes = rl.observe(game)
        assert planes[rows, cols].tobytes() == O.features_of(game).tobytes()
        assert not planes[off_board].any()
        other = hexstones.games.other(game.to_move)
        assert rl.other_view(planes).tobytes() == rl.observe(game, other).tobytes()
        assert O.other_view(O.features_of(game)).tobytes() == O.features_of(game, other).tobytes()
        np.testing.assert_array_equal(rl.other_view(rl.observe(game, other)), planes)
        legal = game.legal_actions()
        if not legal:
            break
        game.play(game.move_of(int(rng.choice(legal))))
    with pytest.raises(ValueError, match="observer"):
        rl.observe(game, "red")


@pytest.mark.parametrize("kwargs,message", [
    ({"game": "go"}, "unknown game"),
    ({"game": "keil", "size": 2}, "board size"),
    ({"game": "keil", "komi": 0.5}, "komi"),
    ({"game": "droched", "handicap": ["z9"]}, "handicap"),
    ({"game": "keil", "max_moves": 0}, "max_moves"),
    ({"game": "keil", "color": "red"}, "unknown option"),
])
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        rl.env(**kwargs)
    with pytest.raises(ValueError, match=message):
        rl.VectorEnv(num_envs=2, **kwargs)


# -- the single-agent Gymnasium env ----------------------------------------------------

def test_single_agent_env_passes_gymnasiums_checker():
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checker's notes on unbounded Box planes
        check_env(rl.SingleAgentEnv("keil", size=3), skip_render_check=True)


@pytest.mark.parametrize("opponent", ["random", "mcts:8", "level:1"])
def test_single_agent_games_follow_the_game_api(opponent):
    env = rl.SingleAgentEnv("keil", size=3, opponent=opponent, color="white")
    rng = np.random.default_rng(3)
    for seed in range(2):
        obs, info = env.reset(seed=seed)
        assert len(env.game.moves) == 1  # Black, the opponent, has moved
        done = False
        while not done:
            game = env.game
            np.testing.assert_array_equal(obs, rl.observe(game, "white"))
            np.testing.assert_array_equal(info["action_mask"], rl.action_mask(game))
            np.testing.assert_array_equal(env.action_masks(), rl.action_mask(game) == 1)
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            played, expected = len(game.moves), game.move_of(action)
            obs, reward, terminated, truncated, info = env.step(action)
            assert game.moves[played] == expected
            done = terminated or truncated
        outcome = env.game.outcome()
        if terminated:
            assert reward == (1.0 if outcome.winner == "white" else -1.0)
            assert not info["action_mask"].any()
        with pytest.raises(RuntimeError, match="reset"):
            env.step(0)


def test_single_agent_env_refuses_an_illegal_action_and_changes_nothing():
    env = rl.SingleAgentEnv("droched", size=3, handicap=["b2"], color="white")
    obs, info = env.reset(seed=0)
    assert env.game.moves == []  # White moves first in a handicap game
    occupied = get_board(3).index["b2"]
    assert info["action_mask"][occupied] == 0
    with pytest.raises(ValueError, match="not legal"):
        env.step(occupied)
    with pytest.raises(ValueError, match="not legal"):
        env.step(True)
    assert env.game.moves == []
    np.testing.assert_array_equal(env.reset(seed=0)[0], obs)


def test_single_agent_env_bad_arguments():
    with pytest.raises(ValueError, match="opponent"):
        rl.SingleAgentEnv("keil", opponent="mcts:0")
    with pytest.raises(ValueError, match="opponent"):
        rl.SingleAgentEnv("keil", opponent="level:11")
    with pytest.raises(ValueError, match="color"):
        rl.SingleAgentEnv("keil", color="red")
    with pytest.raises(ValueError, match="max_moves"):
        rl.SingleAgentEnv("keil", max_moves=-1)


def test_single_agent_env_truncates_at_the_cap():
    env = rl.SingleAgentEnv("droched", size=3, max_moves=6, color="random")
    env.reset(seed=5)
    ended = False
    for _ in range(6):
        action = int(np.flatnonzero(env.action_masks())[0])
        _, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            ended = True
            break
    assert ended and truncated and not terminated and len(env.game.moves) == 6
    assert reward == 0 and not info["action_mask"].any()


# -- the vector env ------------------------------------------------------------------

def test_vector_env_spaces_and_arrays():
    env = rl.VectorEnv("droched", size=3, num_envs=4)
    obs, infos = env.reset(seed=0)
    assert env.single_observation_space.shape == (5, 5, rl.NUM_PLANES)
    assert env.observation_space.shape == (4, 5, 5, rl.NUM_PLANES)
    assert env.single_action_space.n == 20
    assert env.observation_space.contains(obs)
    assert infos["action_mask"].shape == (4, 20) and infos["action_mask"].dtype == np.int8
    # The arrays are preallocated: the next step rewrites the same ones.
    again = env.step(env.sample_legal_actions())
    assert again[0] is obs and again[4]["action_mask"] is infos["action_mask"]


def test_truncation_and_next_step_autoreset():
    # Gymnasium's next-step autoreset: the step after an end returns the env's reset
    # observation with reward 0, not terminated, not truncated, ignoring its action.
    env = rl.VectorEnv("droched", size=3, num_envs=2, max_moves=4)
    start_obs, infos = env.reset(seed=3)
    start_obs, start_mask = start_obs.copy(), infos["action_mask"].copy()
    for move in range(1, 5):
        obs, rewards, terminated, truncated, infos = env.step(env.sample_legal_actions())
        assert not terminated.any()
        assert truncated.tolist() == [move == 4] * 2
        assert rewards.tolist() == [0, 0]
    final = obs.copy()
    assert not np.array_equal(final[0], start_obs[0])
    obs, rewards, terminated, truncated, infos = env.step(np.array([-7, 10**6]))
    assert not terminated.any() and not truncated.any() and rewards.tolist() == [0, 0]
    np.testing.assert_array_equal(obs, start_obs)
    np.testing.assert_array_equal(infos["action_mask"], start_mask)
    assert env.actions_played(0) == [] and env.actions_played(1) == []


def test_termination_reward_then_autoreset():
    env = rl.VectorEnv("keil", size=3, num_envs=1)
    obs, infos = env.reset(seed=0)
    game = hexstones.new_game("keil", size=3)
    for move in ("b2", "button", "pass"):
        obs, rewards, terminated, truncated, infos = env.step([game.action_of(move)])
        game.play(move)
        assert not terminated[0]
    # White passes: two passes in a row end the game; the score decides.
    obs, rewards, terminated, truncated, infos = env.step([game.action_of("pass")])
    game.play("pass")
    assert terminated[0] and not truncated[0]
    assert rewards[0] == (1 if game.outcome().winner == "white" else -1)
    np.testing.assert_array_equal(obs[0], rl.observe(game))
    assert not infos["action_mask"].any()  # no legal action once over
    obs, rewards, terminated, truncated, infos = env.step([0])
    assert not terminated[0] and rewards[0] == 0
    np.testing.assert_array_equal(obs[0], rl.observe(hexstones.new_game("keil", size=3)))


def test_vector_env_refuses_illegal_actions_and_changes_nothing():
    env = rl.VectorEnv("keil", size=3, num_envs=3)
    env.reset(seed=0)
    b2 = get_board(3).index["b2"]
    env.step([b2, b2, b2])
    before = [a.copy() for a in (env._games.observations, env.action_masks, env.to_move)]
    with pytest.raises(ValueError, match=f"env 1: action {b2} is not legal"):
        env.step([1, b2, 1])
    with pytest.raises(ValueError, match="env 2: action 20 is not an action"):
        env.step([1, 1, 20])
    with pytest.raises(ValueError, match="3 whole numbers"):
        env.step([0, 0])
    with pytest.raises(ValueError, match="3 whole numbers"):
        env.step([0.0, 0.0, 0.0])
    for array, old in zip((env._games.observations, env.action_masks, env.to_move), before):
        np.testing.assert_array_equal(array, old)
    assert [env.actions_played(i) for i in range(3)] == [[b2]] * 3
    env.step([1, 1, 1])  # still playable, from the same position
    assert env.actions_played(0) == [b2, 1]


def test_random_legal_actions_are_legal_and_seeded():
    def run(seed):
        env = rl.VectorEnv("dehil", size=3, num_envs=8)
        env.reset(seed=seed)
        drawn = []
        for _ in range(40):
            actions = env.sample_legal_actions()
            for i in range(8):
                assert int(actions[i]) in env.legal_actions(i) or env._games.pending[i]
            drawn.append(actions.copy())
            env.step(actions)
        return np.array(drawn)

    first = run(11)
    np.testing.assert_array_equal(first, run(11))
    assert not np.array_equal(first, run(12))
    assert len({tuple(col) for col in first.T}) > 1  # the envs draw apart


def test_vector_env_starts_from_a_game_object():
    game = hexstones.new_game("keil", size=3)
    for move in ("b2", "c3", "button"):
        game.play(move)
    env = rl.VectorEnv(game, num_envs=2, max_moves=5)
    obs, infos = env.reset()
    np.testing.assert_array_equal(obs[1], rl.observe(game))
    np.testing.assert_array_equal(infos["action_mask"][0], rl.action_mask(game))
    with pytest.raises(ValueError, match="own size"):
        rl.VectorEnv(game, size=4)
    with pytest.raises(ValueError, match="above the start's 3 moves"):
        rl.VectorEnv(game, max_moves=3)


@pytest.mark.parametrize("name", ["keil", "dehil"])
def test_vector_env_from_a_game_with_captures_agrees_with_the_game_api(name):
    """The masks of a batch started from a position with a history: Keil's
    repetition test looks at the points stones left in that history too."""
    rng = np.random.default_rng(5)
    departed = 0
    for trial in range(6):
        start = hexstones.new_game(name, size=3)
        for _ in range(12 + 4 * trial):
            legal = [m for m in start.legal_moves() if m not in start.special_moves]
            if not legal:
                break
            start.play(legal[int(rng.integers(len(legal)))])
        departed += rl._kernels.departures(rl._kernels.door(start).state).any()
        env = rl.VectorEnv(start, num_envs=2, max_moves=len(start.moves) + 40)
        obs, infos = env.reset(seed=trial)
        for _ in range(60):
            obs, _, terminated, truncated, infos = env.step(env.sample_legal_actions())
            for i in range(2):
                game = start.copy()
                for action in env.actions_played(i):
                    game.play(game.move_of(action))
                np.testing.assert_array_equal(infos["action_mask"][i], rl.action_mask(game))
                np.testing.assert_array_equal(obs[i], rl.observe(game))
    assert name == "dehil" or departed >= 2  # Keil's starts had captures in them


# -- symmetries ----------------------------------------------------------------------

def _turned_game(game, k):
    """``game`` replayed on the board turned by symmetry ``k`` (through the game API)."""
    board = game.board
    options = dict(game.options)
    if options.get("handicap"):
        options["handicap"] = [board.transform(k, p) for p in options["handicap"]]
    turned = hexstones.new_game(game.name, **options)
    for move in game.moves:
        turned.play(move if move in game.special_moves else board.transform(k, move))
    return turned


@pytest.mark.parametrize("name,options", STARTS, ids=START_IDS)
def test_symmetries_send_legal_moves_to_legal_moves_of_the_turned_position(name, options):
    rng = np.random.default_rng(5)
    game = hexstones.new_game(name, **options)
    sym = rl.symmetries(game)
    board = game.board
    for k in range(12):
        for p, point in enumerate(board.names):
            assert sym.turn_action(p, k) == board.index[board.transform(k, point)]
    assert sym.turn_action(game.num_actions - 1, 5) == game.num_actions - 1
    checked = 0
    for _ in range(12):
        legal = game.legal_actions()
        if not legal:
            break
        game.play(game.move_of(int(rng.choice(legal))))
        obs, mask = rl.observe(game), rl.action_mask(game)
        for k in range(12):
            turned = _turned_game(game, k)
            assert sorted(sym.turn_action(a, k) for a in game.legal_actions()) \
                == turned.legal_actions()
            np.testing.assert_array_equal(sym.turn_actions(mask, k), rl.action_mask(turned))
            np.testing.assert_array_equal(sym.turn_observation(obs, k), rl.observe(turned))
            checked += 1
    assert checked >= 12
    # Batches turn along their last axes; symmetry 0 is the identity.
    batch = np.stack([rl.observe(game)] * 3)
    np.testing.assert_array_equal(sym.turn_observation(batch, 0), batch)
    np.testing.assert_array_equal(sym.turn_observation(batch, 7)[2],
                                  sym.turn_observation(batch[2], 7))


# -- the example of docs/rl.md ----------------------------------------------------------

@pytest.mark.slow  # a training run
def test_the_documented_example_learns_to_beat_random_play():
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "rl.md").read_text()
    code = text.split("<!-- example -->\n```python\n", 1)[1].split("```", 1)[0]
    example = {"__name__": "docs_rl_example"}
    exec(compile(code, "docs/rl.md", "exec"), example)
    W = example["train"](iterations=20)
    untrained = example["play"](np.zeros_like(W), 512, seed=2)
    trained = example["play"](W, 512, seed=2, greedy=True)
    assert untrained < 0.6 and trained > 0.8


def test_a_parallel_batch_agrees_with_the_game_api():
    num_envs = 256  # eight chunks of 32 envs for the threads
    env = rl.VectorEnv("keil", size=3, num_envs=num_envs, parallel=True)
    assert env._games._step is rl.vector._step_parallel
    assert rl.VectorEnv("keil", size=3, num_envs=num_envs, parallel=False)._games._step \
        is rl.vector._step_serial
    by_default = rl.VectorEnv("keil", size=3, num_envs=num_envs)._games
    assert by_default.parallel is (numba.get_num_threads() > 1)  # every core from 64 envs
    assert rl.VectorEnv("keil", size=3, num_envs=rl.vector.PARALLEL_FROM - 1)._games.parallel is False
    obs, infos = env.reset(seed=4)
    for _ in range(25):
        obs, _, terminated, truncated, infos = env.step(env.sample_legal_actions())
    for i in range(0, num_envs, 17):
        game = hexstones.new_game("keil", size=3)
        for action in env.actions_played(i):
            game.play(game.move_of(action))
        if terminated[i] or truncated[i]:
            assert game.is_over or len(game.moves) >= env.max_moves
        np.testing.assert_array_equal(obs[i], rl.observe(game))
        np.testing.assert_array_equal(infos["action_mask"][i], rl.action_mask(game))


def test_parallel_is_true_or_false():
    with pytest.raises(ValueError, match="parallel is None .*, True or False"):
        rl.VectorEnv("keil", size=3, num_envs=2, parallel="yes")
