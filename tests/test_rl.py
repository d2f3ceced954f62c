"""hexstones.rl: the PettingZoo AEC env, the vector env and the observation maps agree
with the game API move for move (same actions, masks, planes and results)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from pettingzoo.test import api_test  # noqa: E402

import hexstones  # noqa: E402
from hexstones import rl  # noqa: E402
from hexstones.board import get_board  # noqa: E402
from hexstones.rl import planes as P  # noqa: E402

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
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(rl.env(name, **options), num_cycles=300)
    unexpected = [str(w.message) for w in caught
                  if not str(w.message).startswith(KNOWN_WARNINGS)]
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
    on_board = obs["observation"][..., P.ON_BOARD]
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
    assert planes[4, 2, P.OPPONENT] == 1 and planes[..., P.OPPONENT].sum() == 1


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


def test_droched_handicap_game_starts_with_white():
    env = rl.env("droched", size=5, handicap=["c3", "g5"], prison=2)
    env.reset()
    assert env.agent_selection == "white"
    seen = env.observe("white")["observation"]
    game = hexstones.new_game("droched", size=5, handicap=["c3", "g5"], prison=2)
    np.testing.assert_array_equal(seen, rl.observe(game))
    assert seen[..., P.OPPONENT].sum() == 2  # the two black stones
    assert seen[2, 2, P.OWN_PRISON] == 0 and seen[2, 2, P.OPPONENT_PRISON] == np.float32(2 / 61)
    assert seen[2, 2, P.IS_WHITE] == 1
    np.testing.assert_array_equal(rl.other_view(seen), env.observe("black")["observation"])


def test_planes_of_the_rules_state():
    keil = hexstones.new_game("keil", size=3, komi=4)
    keil.play("button")
    keil.play("c3")
    keil.play("pass")
    seen = rl.observe(keil)  # White to move; Black took the button and just passed
    assert seen[2, 2, P.OPPONENT_SPECIAL] == 1 and seen[2, 2, P.OWN_SPECIAL] == 0
    assert seen[2, 2, P.PASSES] == 1 and seen[2, 2, P.BALANCE] == np.float32(4 / 19)
    dehil = hexstones.new_game("dehil", size=3)
    dehil.play("pass")
    seen = rl.observe(dehil, "black")
    assert seen[2, 2, P.OWN_SPECIAL] == 1 and seen[2, 2, P.PASSES] == 1
    assert seen[2, 2, P.IS_WHITE] == 0
    # Off-board cells are 0 in every plane.
    assert not seen[0, 4].any() and not seen[4, 0].any()


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
