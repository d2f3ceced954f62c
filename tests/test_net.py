"""The network: its inputs, its numpy evaluation, its agreement with the training module
(PyTorch), the board's symmetries, the shipped weights, and a tiny training run."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from numba import njit

import hexstones
from hexstones.ai.net import (
    NetOutput,
    geometry_of,
    load_network,
    random_network,
    read_network,
    shipped_sides,
)
from hexstones.games import GAME_NAMES, game_class, observation as fx

ROOT = Path(__file__).resolve().parents[1]


def _torch():
    """torch, or a skip that says why (the ``train`` extra; CI installs it)."""
    return pytest.importorskip("torch", reason="PyTorch is the 'train' extra: pip install 'hexstones[train]'")


def _played(name: str, size: int, plies: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    game = hexstones.new_game(name, size=size)
    for _ in range(plies):
        if game.is_over:
            break
        moves = game.legal_moves()
        game.play(moves[int(rng.integers(len(moves)))])
    return game


# -- features ------------------------------------------------------------------------

@pytest.mark.parametrize("name", GAME_NAMES)
def test_features_read_the_position_for_the_side_to_move(name):
    game = _played(name, 4, 9)
    f = fx.features_of(game)
    P = game.board.num_points
    assert f.shape == (P, fx.NUM_FEATURES) and f.dtype == np.float32
    index = game.board.index
    for point, color in game.stones().items():
        mine = color == game.to_move
        assert f[index[point], fx.F_OWN] == (1 if mine else 0)
        assert f[index[point], fx.F_OPP] == (0 if mine else 1)
    assert f[:, fx.F_OWN].sum() + f[:, fx.F_OPP].sum() == len(game.stones())
    legal = set(game.legal_actions())
    assert set(np.flatnonzero(f[:, fx.F_LEGAL])) == {a for a in legal if a < P}
    assert (f[:, fx.F_SPECIAL_LEGAL] == (1 if P in legal else 0)).all()
    assert (f[:, fx.F_WHITE] == (1 if game.to_move == "white" else 0)).all()
    assert f[:, fx.F_LAST].sum() == (1 if game.moves[-1] not in game.special_moves else 0)
    # the next position is seen by the other side: the stones swap planes
    before = f
    move = game.legal_moves()[0]
    game.play(move)
    after = fx.features_of(game)
    assert after[:, fx.F_WHITE][0] != before[:, fx.F_WHITE][0]
    assert after[:, fx.F_OPP].sum() >= before[:, fx.F_OWN].sum() - 6  # captures aside


def test_features_carry_the_balance_and_the_rules_state():
    for name in GAME_NAMES:
        cls = game_class(name)
        option = cls.balance.option
        low = fx.features_of(hexstones.new_game(name, size=4, **{option: 0}))
        high = fx.features_of(hexstones.new_game(name, size=4, **{option: 5}))
        assert (high[:, fx.F_BALANCE] == 0.5).all() and (low[:, fx.F_BALANCE] == 0).all()
    game = hexstones.new_game("keil", size=4)
    game.play(game.special_moves[0])  # Black takes the button: White to move sees the opponent hold it
    f = fx.features_of(game)
    assert f[0, fx.F_OPP_SPECIAL] == 1 and f[0, fx.F_OWN_SPECIAL] == 0


@pytest.mark.parametrize("name", GAME_NAMES)
def test_features_seen_by_the_other_player(name):
    """The network sees the side to move's view; the other player's (the RL envs' agent
    not to move) is ``other_view`` of it, bit for bit, and only the observer's columns
    change."""
    game = _played(name, 4, 11, seed=4)
    mover = fx.features_of(game)
    assert fx.features_of(game, game.to_move).tobytes() == mover.tobytes()
    other = fx.features_of(game, hexstones.games.other(game.to_move))
    assert fx.other_view(mover).tobytes() == other.tobytes()
    assert fx.other_view(other).tobytes() == mover.tobytes()
    np.testing.assert_array_equal(other[:, fx.F_OWN], mover[:, fx.F_OPP])
    np.testing.assert_array_equal(other[:, fx.F_WHITE], 1 - mover[:, fx.F_WHITE])
    np.testing.assert_array_equal(other[:, fx.F_BALANCE_MOVER], -mover[:, fx.F_BALANCE_MOVER])
    same = [fx.F_LEGAL, fx.F_EDGE, fx.F_ONES, fx.F_PASSES, fx.F_SPECIAL_LEGAL, fx.F_BALANCE,
            fx.F_LAST, fx.F_SIZE]
    np.testing.assert_array_equal(other[:, same], mover[:, same])
    with pytest.raises(ValueError, match="observer"):
        fx.features_of(game, "red")


def test_write_features_is_callable_from_compiled_code():
    @njit
    def encode_after(gid, geo, st, move, balance, out):
        fx.write_features(geo, st, balance, out)

    game = _played("dehil", 4, 5)
    door = game.compiled()
    out = np.empty((door.num_points, fx.NUM_FEATURES), np.float32)
    encode_after(door.game_id, door.geometry, door.state, 0, 2.0, out)
    expected = fx.features_of(game)
    expected[:, fx.F_BALANCE] = 0.2
    expected[:, fx.F_BALANCE_MOVER] = 0.2 if game.to_move == "white" else -0.2
    assert np.array_equal(out, expected)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_features_turn_with_the_board(name):
    from hexstones.train.data import Positions, point_sources, turn

    game = _played(name, 4, 10, seed=3)
    f = fx.features_of(game)
    sources = point_sources(name, 4)
    images = game.action_symmetries()
    for k in range(12):
        turned = hexstones.new_game(name, size=4)
        for move in game.moves:
            a = game.action_of(move)
            turned.play(turned.move_of(int(images[k, a])))
        got = turn(Positions(f[None], np.zeros((1, f.shape[0] + 1), np.float32),
                             np.ones(1, np.float32), np.zeros(1, np.float32),
                             np.zeros(1, np.float32), np.zeros((1, f.shape[0]), np.float32),
                             np.zeros(1, np.float32)),
                   sources[k]).features[0]
        assert np.array_equal(got, fx.features_of(turned)), k


# -- the network ---------------------------------------------------------------------

@pytest.mark.parametrize("name", GAME_NAMES)
def test_one_network_evaluates_every_side(name):
    net = random_network(name, seed=1)
    assert not net.trained and net.game == name
    for size in (3, 5):
        games = [_played(name, size, n, seed=n) for n in (0, 3, 6)]
        feats = np.stack([fx.features_of(g) for g in games])
        out = net.evaluate(feats, geometry_of(games[0]))
        assert isinstance(out, NetOutput)
        P = games[0].board.num_points
        assert out.policy_logits.shape == (3, P + 1) and out.policy_logits.dtype == np.float32
        assert out.value.shape == (3,) and (np.abs(out.value) <= 1).all()
        assert np.isfinite(out.policy_logits).all()
        if game_class(name).has_score:
            assert out.score.shape == (3,) and out.ownership.shape == (3, P)
            assert (np.abs(out.ownership) <= 1).all()
        else:
            assert out.score is None and out.ownership is None
        compiled = net.evaluate_compiled(feats, geometry_of(games[0]))
        for a, b in zip(out, compiled):
            assert (a is None and b is None) or np.allclose(a, b, atol=1e-4)
        # a batch is its positions evaluated one by one
        one = net.evaluate(feats[1:2], geometry_of(games[0]))
        assert np.allclose(one.policy_logits[0], out.policy_logits[1], atol=1e-5)
        assert abs(one.value[0] - out.value[1]) < 1e-5


@pytest.mark.parametrize("channels", [5, 6, 32])
def test_the_compiled_forward_pass_is_numpys_at_every_width(channels):
    """The compiled pass (what the search calls) works its matrix products in blocks of
    two rows by four columns: widths and board sides that leave remainders agree too."""
    net = random_network("keil", seed=2, channels=channels)
    for size in (3, 4):
        games = [_played("keil", size, n, seed=n) for n in (1, 5, 9)]
        feats = np.stack([fx.features_of(g) for g in games])
        numpy_out = net.evaluate(feats, geometry_of(games[0]))
        compiled = net.evaluate_compiled(feats, geometry_of(games[0]))
        for a, b in zip(numpy_out, compiled, strict=True):
            assert np.allclose(a, b, atol=1e-4)


def test_bad_features_are_refused():
    net = random_network("keil")
    game = hexstones.new_game("keil", size=3)
    nbr = geometry_of(game)
    with pytest.raises(ValueError, match="features are"):
        net.evaluate(np.zeros((1, 5, fx.NUM_FEATURES), np.float32), nbr)
    with pytest.raises(ValueError, match="features are"):
        net.evaluate(np.zeros((1, nbr.shape[0], 3), np.float32), nbr)


def test_weights_round_trip_through_a_file(tmp_path):
    net = random_network("droched", seed=4)
    net.meta["command"] = "test"
    net.save(tmp_path / "n.npz")
    back = read_network(tmp_path / "n.npz")
    assert back.config == net.config and back.meta == net.meta and not back.trained
    game = _played("droched", 5, 7)
    f = fx.features_of(game)[None]
    a, b = net.evaluate(f, geometry_of(game)), back.evaluate(f, geometry_of(game))
    assert np.array_equal(a.policy_logits, b.policy_logits) and np.array_equal(a.value, b.value)


def test_unknown_game_has_no_network():
    with pytest.raises(ValueError):
        load_network("chess")


def _shipped():
    """Every shipped network: a game's own, and those of one board side: (name, side, net)."""
    found = [(name, side, load_network(name, side)) for name in GAME_NAMES
             for side in [None, *shipped_sides(name)]]
    return [entry for entry in found if entry[2] is not None]


def test_shipped_weights_say_how_they_were_made():
    shipped = _shipped()
    assert shipped, "no network ships (src/hexstones/ai/weights/*.npz)"
    for name, side, net in shipped:
        assert net.trained and net.game == name
        assert net.meta["command"].startswith("hexstones train " + name)
        assert "seed" in net.meta and net.meta["teacher_games"] + net.meta["selfplay_games"] > 0
        if side is not None:  # a side's own weights learned that side
            assert side in net.meta["sizes"], (name, side)
        file = f"{name}.npz" if side is None else f"{name}-{side}.npz"
        path = ROOT / "src" / "hexstones" / "ai" / "weights" / file
        assert path.stat().st_size < 20 * 2**20


@pytest.mark.parametrize("which", ["random", "shipped"])
def test_torch_and_numpy_agree(which):
    torch = _torch()
    from hexstones.train.model import torch_index, torch_net

    nets = ([random_network(n, seed=7) for n in GAME_NAMES] if which == "random"
            else [net for _, _, net in _shipped()])
    assert nets
    for net in nets:
        for size in (4, 6):
            games = [_played(net.game, size, n, seed=n) for n in (0, 5, 12, 20)]
            feats = np.stack([fx.features_of(g) for g in games])
            nbr = geometry_of(games[0])
            want = net.evaluate(feats, nbr)
            with torch.no_grad():
                got = torch_net(net)(torch.from_numpy(feats), torch_index(nbr))
            for a, b in zip(want, got):
                if a is None:
                    assert b is None
                else:
                    assert np.allclose(a, b.numpy(), atol=1e-4), net.game


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_symmetrized_evaluation_is_exactly_symmetric(name):
    net = random_network(name, seed=9)
    game = _played(name, 4, 8, seed=1)
    images = game.action_symmetries()
    f = fx.features_of(game)
    P = f.shape[0]
    base = net.evaluate_symmetrized(f[None], geometry_of(game), images)
    plain = net.evaluate(f[None], geometry_of(game))
    assert not np.allclose(base.policy_logits, plain.policy_logits, atol=1e-4)  # it averages
    sources = np.argsort(images, axis=1)
    for k in range(12):
        out = net.evaluate_symmetrized(f[sources[k, :P]][None], geometry_of(game), images)
        assert np.allclose(out.policy_logits[0][images[k]], base.policy_logits[0], atol=1e-5)
        assert abs(out.value[0] - base.value[0]) < 1e-5
        if base.ownership is not None:
            assert np.allclose(out.ownership[0][images[k, :P]], base.ownership[0], atol=1e-5)
            assert abs(out.score[0] - base.score[0]) < 1e-4


@pytest.mark.slow  # a training run
def test_a_trained_network_is_nearly_symmetric():
    """The shipped networks learned from positions turned by all 12 symmetries; a turned
    position gets nearly the turned policy and nearly the same value."""
    for name, _, net in _shipped():
        from hexstones.train.data import point_sources

        size = net.meta["sizes"][0]
        game = _played(name, size, 12, seed=2)
        f = fx.features_of(game)
        sources = point_sources(name, size)
        P = f.shape[0]
        turned = np.stack([f[sources[k, :P]] for k in range(12)])
        out = net.evaluate(turned, geometry_of(game))
        legal = np.array(game.legal_actions())
        probs = []
        for k in range(12):
            logits = out.policy_logits[k][np.argsort(sources[k])][legal]  # back to the original
            p = np.exp(logits - logits.max())
            probs.append(p / p.sum())
        probs = np.array(probs)
        spread = 0.5 * np.abs(probs - probs.mean(0)).sum(1).max()  # total variation
        assert spread < 0.35, (name, spread)
        assert np.std(out.value) < 0.2, (name, out.value)


# -- training ------------------------------------------------------------------------

def _settings(out, iterations, **changes):
    from hexstones.train.loop import Settings

    base = dict(game="keil", sizes=[3], out=str(out), iterations=iterations, seed=5, games=2,
                simulations=8, steps=40, batch=16, lr=5e-3, workers=1, channels=8, blocks=1,
                teacher_games=4, teacher_iterations=30, holdout_every=4, checkpoint_every=10,
                checkpoint_seconds=0.0, command="test")
    base.update(changes)
    return Settings(**base)


@pytest.mark.slow
def test_a_tiny_training_run_learns_and_resumes(tmp_path):
    _torch()
    from hexstones.train import loop

    out = tmp_path / "run"
    loop.train(_settings(out, 1))
    state = loop.torch.load(out / loop.CHECKPOINT, weights_only=False)
    assert state["iteration"] == 1 and state["phase"] == "data"
    records = state["buffer"]["records"]
    assert len(records) == 3 and len(state["holdout"]) == 1  # 4 teacher games, 1 held out
    with pytest.raises(ValueError, match="--resume"):
        loop.train(_settings(out, 2))
    net = loop.train(_settings(out, 2), resume=True)
    state = loop.torch.load(out / loop.CHECKPOINT, weights_only=False)
    assert state["iteration"] == 2
    # the buffer went on from where it was: the same teacher games, then two self-play games
    kept = state["buffer"]["records"]
    assert kept[:3] == records and [r["by"] for r in kept[3:]] == ["selfplay", "selfplay"]
    assert state["totals"]["steps"] == 80
    losses = [e["total"] for e in state["history"]["loss"]]
    assert losses[-1] < losses[0]
    assert net.trained and read_network(out / "keil.npz").meta["iterations"] == 2
    assert (out / "loss.svg").read_text().startswith("<svg")
    assert [e["iteration"] for e in json.loads((out / "history.json").read_text())["history"]["eval"]] == [0, 1]


@pytest.mark.slow  # training runs
def test_a_resume_without_iterations_or_symmetry_weight_keeps_the_runs_own(tmp_path):
    _torch()
    from hexstones.train import loop

    out = tmp_path / "run"
    tiny = ["--size", "3", "--out", str(out), "--games", "2", "--simulations", "4", "--steps", "3",
            "--batch", "8", "--channels", "8", "--blocks", "1", "--backend", "serial"]
    run = [sys.executable, "-m", "hexstones.cli", "train", "keil", *tiny]
    done = subprocess.run([*run, "--iterations", "1", "--symmetry-weight", "0", "--balance=-3:-2",
                           "--relabel", "0.5"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    # Resumed with none: the run's 1 iteration, weight 0 and komi range stand (not the defaults).
    done = subprocess.run([*run, "--resume"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    state = loop.torch.load(out / loop.CHECKPOINT, weights_only=False)
    assert state["iteration"] == 1
    assert state["settings"]["iterations"] == 1 and state["settings"]["symmetry_weight"] == 0
    assert state["settings"]["balance_range"] == [-3, -2]
    assert state["settings"]["relabel_share"] == 0.5
    # Resumed with all four: they change, and the new games have the new komi.
    done = subprocess.run([*run, "--resume", "--iterations", "2", "--symmetry-weight", "1",
                           "--balance", "4:4", "--relabel", "0"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    state = loop.torch.load(out / loop.CHECKPOINT, weights_only=False)
    assert state["iteration"] == 2
    assert state["settings"]["iterations"] == 2 and state["settings"]["symmetry_weight"] == 1
    assert state["settings"]["relabel_share"] == 0
    komis = [r["options"]["komi"] for r in state["buffer"]["records"]]
    assert all(-3 <= k <= -2 for k in komis[:2]) and komis[2:] == [4, 4]
    # a range that is not one is refused before anything runs
    done = subprocess.run([*run, "--balance", "4"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "LOW:HIGH" in done.stderr


def test_a_balance_range_draws_each_training_games_balance_from_it(tmp_path):
    _torch()
    from hexstones.train.selfplay import selfplay_game
    from hexstones.train.teacher import game_options, teacher_game

    rng = random.Random(3)
    assert {game_options("keil", rng, (-3, -1))["komi"] for _ in range(200)} == {-3, -2, -1}
    default = [game_options("keil", rng)["komi"] for _ in range(200)]
    assert min(default) >= 0 and max(default) <= 12 and default.count(6) > 40  # 6 +- 6, 6 most
    prison = game_class("droched").balance.option
    net = random_network("droched", seed=2, channels=8, blocks=1)
    assert selfplay_game(net, "droched", 3, 4, seed=1, balance_range=(2, 2))["options"] == {prison: 2}
    assert teacher_game("dehil", 3, 10, seed=2, balance_range=(-2, -2))["options"] == {"komi": -2}
    with pytest.raises(ValueError, match=prison):  # below the balance's own minimum
        _settings(tmp_path, 1, game="droched", balance_range=[-1, 2]).check()
    with pytest.raises(ValueError, match="empty"):
        _settings(tmp_path, 1, balance_range=[3, 1]).check()


@pytest.mark.slow  # self-play and training
def test_a_resigned_self_play_game_teaches_its_winner_and_no_score(tmp_path):
    """``--resign``: a self-play game ends when the mover's search stays below the
    threshold; its positions take the value from the resignation and have no score or
    ownership targets, which the loss and the komi relabelling leave out. The game played
    out (the check) is the same game up to the resignation, and notes it."""
    _torch()
    from hexstones.train import loop
    from hexstones.train.data import Positions, positions_of, relabel_balance
    from hexstones.train.selfplay import selfplay_game

    net = random_network("droched", seed=1, channels=8, blocks=1)
    resigned = [selfplay_game(net, "droched", 4, 8, seed, resign=[0.45, 2]) for seed in (1, 2, 3)]
    assert all(r.get("resigned") in ("black", "white") for r in resigned)
    for record in resigned:
        game = hexstones.new_game("droched", size=4, **record["options"])
        for move in record["moves"]:
            game.play(move)
        assert not game.is_over and len(record["moves"]) == len(record["visits"]) < 6 * 37
        assert record["winner"] == ("white" if record["resigned"] == "black" else "black")
        assert record["resign"] == [0.45, 2] and "would_resign" not in record
        played_out = selfplay_game(net, "droched", 4, 8, record["seed"], resign=[0.45, 2],
                                   play_out=True)
        n = len(record["moves"])
        assert played_out["moves"][:n] == record["moves"] and len(played_out["moves"]) > n
        assert played_out["would_resign"] == {"color": record["resigned"], "ply": n}
        assert played_out["play_out"] and "resigned" not in played_out
        assert not record["adjudicated"]
        positions = positions_of(record)
        replay = hexstones.new_game("droched", size=4, **record["options"])
        movers = []
        for move in record["moves"]:
            movers.append(replay.to_move)
            replay.play(move)
        assert positions.value.tolist() == [1.0 if m == record["winner"] else -1.0 for m in movers]
        assert not positions.score_weight.any()

    # Keil: a finished game's positions carry the score; a resigned one's do not, and the
    # relabelling and the loss leave those out.
    def uniform(game, rng):
        return [[m, 1, 0.5] for m in game.legal_moves()], 0.0 if len(game.moves) >= 6 else 0.5

    from hexstones.train.teacher import play_record
    finished = positions_of(play_record("keil", 3, 4, uniform, 1000, (2, 2)))
    gave_up = play_record("keil", 3, 4, uniform, 0, (2, 2), resign=[0.1, 1])
    assert gave_up["resigned"] == "black" and len(gave_up["moves"]) == 6  # Black's 4th turn
    stopped = positions_of(gave_up)
    assert finished.score_weight.all() and not stopped.score_weight.any()
    before = Positions.concat([finished, stopped])  # concat copies: relabelling rewrites
    relabelled = relabel_balance(Positions.concat([finished, stopped]), np.random.default_rng(0),
                                 -7, -7, 1.0)
    n = len(finished)
    assert not np.array_equal(relabelled.features[:n], before.features[:n])
    for target in ("features", "value", "score"):
        assert np.array_equal(getattr(relabelled, target)[n:], getattr(before, target)[n:])
    trainer = loop.Trainer(_settings(tmp_path, 1, sizes=[3]))
    trainer.fresh_state()
    stopped.score[:] = 50.0  # were it counted, the score loss would change
    stopped.ownership[:] = 1.0
    with loop.torch.no_grad():
        alone = trainer.losses(finished, 3)
        mixed = trainer.losses(Positions.concat([finished, stopped]), 3)
    for term in ("score", "ownership"):
        assert float(mixed[term]) == pytest.approx(float(alone[term]), rel=1e-5), term


@pytest.mark.slow  # a training run
def test_a_training_run_with_resignation_counts_its_check(tmp_path):
    """``hexstones train --resign``: self-play games resign, every Nth is played out, and
    the totals count the check; bad values are refused before anything runs."""
    _torch()
    from hexstones.train import loop

    out = tmp_path / "run"
    loop.train(_settings(out, 2, game="droched", sizes=[4], games=4, teacher_games=0,
                         resign=[0.49, 1], resign_check=2))
    state = loop.torch.load(out / loop.CHECKPOINT, weights_only=False)
    records = state["buffer"]["records"]
    assert len(records) == 8 and state["settings"]["resign"] == [0.49, 1]
    # the first and third game of each iteration played out
    assert [bool(r.get("play_out")) for r in records] == [True, False, True, False] * 2
    totals = state["totals"]
    assert totals["resigned"] == sum("resigned" in r for r in records) > 0
    checked = [r for r in records if "would_resign" in r and not r["adjudicated"]]
    assert totals["checked"] == len(checked)
    assert totals["resigner_won"] == sum(r["winner"] == r["would_resign"]["color"] for r in checked)
    run = [sys.executable, "-m", "hexstones.cli", "train", "droched", "--size", "4",
           "--out", str(tmp_path / "other")]
    for bad, says in ((["--resign", "0.7"], "between 0 and 0.5"), (["--resign", "0.1:x"], "BELOW:TURNS"),
                      (["--resign", "0.1:0"], "at least 1"),
                      (["--resign", "0.1", "--resign-check", "-1"], "at least 0")):
        done = subprocess.run(run + bad, capture_output=True, text=True, timeout=300)
        assert done.returncode == 2 and says in done.stderr, (bad, done.stderr)
        assert not (tmp_path / "other").exists()


@pytest.mark.parametrize("game_name", ["keil", "dehil"])
def test_a_relabelled_position_is_the_same_game_scored_at_the_other_komi(game_name):
    from hexstones.train.data import positions_of, relabel_balance
    from hexstones.train.teacher import play_record

    def uniform(game, rng):  # a random game: every legal move one visit, no win chance
        return [[m, 1, 0.5] for m in game.legal_moves()], None

    rng = np.random.default_rng(5)
    for seed, komi, other in ((1, 2, -3), (2, -4, 5), (3, 0, 1), (4, 6, 6)):
        record = play_record(game_name, 3, seed, uniform, 1000, (komi, komi))
        assert record["winner"] is not None
        # Every position given komi ``other``: exactly what the same moves give at that komi
        # (features, value, score), however the winner changes.
        relabelled = relabel_balance(positions_of(record), rng, other, other, 1.0)
        replayed = positions_of(dict(record, options={"komi": other}))
        for target in ("features", "policy", "value", "score", "ownership"):
            assert np.array_equal(getattr(relabelled, target), getattr(replayed, target)), target
        assert np.array_equal(relabelled.value, np.sign(relabelled.score))
        # Share 0 changes nothing.
        assert np.array_equal(relabel_balance(positions_of(record), rng, other, other, 0.0).features,
                              positions_of(record).features)
    # Share 1/2: about half of them, each a whole komi in range.
    record = play_record(game_name, 4, 9, uniform, 1000, (0, 0))
    positions = positions_of(record)
    halves = relabel_balance(positions_of(record), rng, -9, 9, 0.5)
    komis, _ = fx.balances_of(halves.features)
    moved = komis != 0
    assert 0.25 * len(komis) < moved.sum() < 0.75 * len(komis)
    assert komis.min() >= -9 and komis.max() <= 9
    assert np.array_equal(halves.value[~moved], positions.value[~moved])
    # A game stopped before its end has no final score to move: its positions stay.
    unfinished = dict(record, moves=record["moves"][:6], visits=record["visits"][:6])
    cut = positions_of(unfinished)
    assert np.array_equal(relabel_balance(positions_of(unfinished), rng, -9, 9, 1.0).features,
                          cut.features)


def test_relabelling_is_refused_where_the_balance_is_not_a_komi(tmp_path):
    _torch()
    with pytest.raises(ValueError, match="not a komi"):
        _settings(tmp_path, 1, game="droched", relabel_share=0.5).check()
    with pytest.raises(ValueError, match="relabel_share"):
        _settings(tmp_path, 1, relabel_share=1.5).check()


@pytest.mark.slow  # training runs
def test_a_run_started_from_weights_begins_with_them_and_says_so(tmp_path):
    _torch()
    from hexstones.train import loop

    start = random_network("keil", seed=11, channels=8, blocks=1)
    start.meta["command"] = "hexstones train keil --size 3 (the earlier run)"
    path = tmp_path / "start.npz"
    start.save(path)
    out = tmp_path / "run"
    # lr 0: the weights cannot move, so the run's network is the one it started from
    net = loop.train(_settings(out, 1, init=str(path), lr=0.0, teacher_games=0, steps=2))
    for name, value in start.params.items():
        np.testing.assert_array_equal(net.params[name], value)
    assert net.meta["started_from"] == {"weights": str(path),
                                        "their_command": start.meta["command"]}
    assert read_network(out / "keil.npz").meta["started_from"]["weights"] == str(path)
    # a resumed run still says where it started
    net = loop.train(_settings(out, 2, init=str(path), lr=0.0, teacher_games=0, steps=2), resume=True)
    assert net.meta["started_from"]["weights"] == str(path)
    # the shipped network is a valid start too (its shape is the default)
    assert loop.starting_network("shipped", "keil", {}).game == "keil"

    (tmp_path / "junk.npz").write_bytes(b"not a network")
    random_network("dehil", channels=8, blocks=1).save(tmp_path / "dehil.npz")
    refused = {str(tmp_path / "missing.npz"): "no such file",
               str(tmp_path / "junk.npz"): "not a network",
               str(tmp_path / "dehil.npz"): "a dehil network, not keil"}
    for init, why in refused.items():
        bad = tmp_path / "refused"
        with pytest.raises(ValueError, match=why):
            loop.train(_settings(bad, 1, init=init, teacher_games=0))
        assert not bad.exists()  # refused before anything was written
    with pytest.raises(ValueError, match="another shape of network \\(channels 8, not 16\\)"):
        loop.train(_settings(tmp_path / "refused", 1, init=str(path), channels=16, teacher_games=0))
    assert not (tmp_path / "refused").exists()


@pytest.mark.slow  # training runs
def test_the_symmetry_term_measures_the_values_disagreement_and_training_shrinks_it(tmp_path):
    """``--symmetry-weight``: each batch is paired with itself turned by another symmetry,
    and the term is the squared difference of the two values, which its gradient shrinks."""
    torch = _torch()
    from hexstones.train import loop
    from hexstones.train.data import Positions, point_sources, turn

    trainer = loop.Trainer(_settings(tmp_path, 1, game="droched", sizes=[4]))
    trainer.fresh_state()
    feats = np.stack([fx.features_of(_played("droched", 4, plies, seed=plies)) for plies in range(2, 18)])
    n, P = feats.shape[:2]
    batch = Positions(feats, np.zeros((n, P + 1), np.float32), np.zeros(n, np.float32),
                      np.zeros(n, np.float32), np.zeros(n, np.float32), np.zeros((n, P), np.float32),
                      np.zeros(n, np.float32))
    pair = trainer.paired(batch, 4)
    np.testing.assert_array_equal(pair.features[:n], feats)
    sources = point_sources("droched", 4)
    turned_by = [k for k in range(12) if np.array_equal(turn(batch, sources[k]).features, pair.features[n:])]
    assert turned_by and 0 not in turned_by  # another symmetry, never the identity

    def term() -> float:
        with torch.no_grad():
            return float(trainer.losses(pair, 4, paired=True)["symmetry"])

    with torch.no_grad():
        _, value, _, _ = trainer.model(torch.from_numpy(pair.features), trainer._index(4))
    first, second = value.numpy()[:n], value.numpy()[n:]
    assert term() == pytest.approx(float(np.mean((first - second) ** 2)), rel=1e-4)
    assert term() > 0  # random weights are not symmetric
    before = term()
    optimizer = torch.optim.Adam(trainer.model.parameters(), lr=0.01)
    for _ in range(30):
        optimizer.zero_grad()
        trainer.losses(pair, 4, paired=True)["symmetry"].backward()
        optimizer.step()
    assert term() < 0.5 * before
    with pytest.raises(ValueError, match="symmetry_weight must not be negative"):
        loop.train(_settings(tmp_path / "bad", 1, symmetry_weight=-1.0))


@pytest.mark.slow
def test_training_killed_at_any_moment_resumes(tmp_path):
    """A real ``hexstones train`` process killed with SIGKILL once it has checkpointed
    mid-iteration; ``--resume`` goes on from the checkpoint to the end."""
    _torch()
    from hexstones.train import loop

    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "hexstones.cli", "train", "keil", "--size", "3", "--iterations", "2",
           "--out", str(out), "--seed", "3", "--games", "2", "--simulations", "8", "--steps", "400",
           "--batch", "8", "--workers", "1", "--channels", "8", "--blocks", "1",
           "--teacher-games", "3", "--teacher-iterations", "30", "--checkpoint-seconds", "0"]
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    checkpoint = out / loop.CHECKPOINT
    try:
        while proc.poll() is None:  # wait for a checkpoint written mid-training
            if checkpoint.exists():
                state = loop.torch.load(checkpoint, weights_only=False)
                if state["phase"] == "train" and state["step"] > 0:
                    break
            time.sleep(0.2)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait()
    before = loop.torch.load(checkpoint, weights_only=False)
    assert before["iteration"] == 0 and before["step"] > 0
    done = subprocess.run(cmd + ["--resume"], env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    after = loop.torch.load(checkpoint, weights_only=False)
    assert after["iteration"] == 2 and after["totals"]["steps"] == 800
    assert after["buffer"]["records"][:len(before["buffer"]["records"])] == before["buffer"]["records"]


@pytest.mark.slow  # self-play in a subprocess
def test_ctrl_c_during_self_play_keeps_the_games_that_ended(tmp_path, monkeypatch):
    """Ctrl-C in the middle of a chunk of self-play games: the games that ended go into
    the checkpoint, and the resumed run hands out no seed twice."""
    _torch()
    from hexstones.train import loop

    out = tmp_path / "run"
    real_task, calls = loop._selfplay_task, []

    def task_then_ctrl_c(task):
        calls.append(task["seed"])
        if len(calls) == 4:  # the second chunk's second game (chunks of 2): Ctrl-C in it
            raise KeyboardInterrupt
        return real_task(task)

    monkeypatch.setattr(loop, "_selfplay_task", task_then_ctrl_c)
    settings = _settings(out, 2, games=4, teacher_games=0, init=None)
    with pytest.raises(KeyboardInterrupt):
        loop.train(settings)
    state = loop.torch.load(out / loop.CHECKPOINT, weights_only=False)
    assert state["phase"] == "data" and state["games_done"] == 3  # the chunk's first game kept
    assert state["seeds_drawn"] == 4  # and the seed of the game cut short is not used again
    assert state["totals"]["selfplay_games"] == 3 and len(state["buffer"]["records"]) == 3
    monkeypatch.setattr(loop, "_selfplay_task", real_task)
    loop.train(settings, resume=True)
    done = loop.torch.load(out / loop.CHECKPOINT, weights_only=False)
    assert done["iteration"] == 2 and done["totals"]["selfplay_games"] == 8  # 3 + 1, then 4
    seeds = [r["seed"] for r in done["buffer"]["records"]]
    assert len(set(seeds)) == len(seeds) and set(calls[:3]) <= set(seeds)
    assert calls[3] not in seeds


def _record(size: int, balance: int, seed: int, by: str | None) -> dict:
    """A game of random legal moves as a training record (two 'searched' moves a ply)."""
    name = "keil"
    option = game_class(name).balance.option
    rng = np.random.default_rng(seed)
    game = hexstones.new_game(name, size=size, **{option: balance})
    moves, visits = [], []
    while not game.is_over and len(moves) < 30:
        legal = game.legal_moves()
        pick = [legal[int(i)] for i in rng.permutation(len(legal))[:2]]
        visits.append([[m, 3 - k] for k, m in enumerate(pick)])
        moves.append(pick[0])
        game.play(pick[0])
    record = {"game": name, "size": size, "options": {option: balance}, "moves": moves,
              "visits": visits}
    return record | ({"by": by} if by else {})


def test_the_buffer_keeps_teacher_games_and_feeds_them_their_share():
    """Self-play games beyond the capacity push out the oldest self-play game, never a
    teacher game; a batch draws teacher_share of its positions from teacher games."""
    _torch()
    from hexstones.train.data import ReplayBuffer

    buffer = ReplayBuffer(capacity=3, teacher_share=0.25)
    teacher = [_record(3, 1, seed, None) for seed in range(2)]
    selfplay = [_record(3, 9, 10 + seed, "selfplay") for seed in range(5)]
    for record in teacher + selfplay:
        buffer.add(record)
    assert buffer.records == teacher + selfplay[2:]
    assert ReplayBuffer.from_state(buffer.state()).records == buffer.records
    # The balance plane tells the kinds apart (komi 1 against 9), whatever the turn.
    rng = np.random.default_rng(0)
    for share, expected in ((0.25, 100), (1.0, 400), (0.0, 0)):
        buffer.teacher_share = share
        _, batch = buffer.sample(rng, 400, "keil")
        balance = batch.features[:, :, fx.F_BALANCE]
        assert len(batch) == 400 and np.allclose(balance, balance[:, :1])
        assert set(np.round(balance[:, 0] * fx.BALANCE_SCALE, 3)) <= {1.0, 9.0}
        assert int(np.isclose(balance[:, 0] * fx.BALANCE_SCALE, 1.0).sum()) == expected
    with pytest.raises(ValueError, match="teacher_share"):
        ReplayBuffer(capacity=3, teacher_share=1.5)


def test_the_learning_rate_falls_by_a_cosine_within_an_iteration():
    _torch()
    from hexstones.train.loop import LR_FLOOR, learning_rate

    rates = [learning_rate(2e-3, step, 100) for step in range(100)]
    assert rates[0] == pytest.approx(2e-3)
    assert all(a > b for a, b in zip(rates, rates[1:]))
    assert rates[-1] > LR_FLOOR * 2e-3 and learning_rate(2e-3, 100, 100) == pytest.approx(LR_FLOOR * 2e-3)
    assert rates[50] == pytest.approx((1 + LR_FLOOR) / 2 * 2e-3)


def test_selfplay_games_explore_with_root_noise():
    """Self-play searches with root noise by default (recorded in the game), the same
    game for the same seed, other visit counts than the plain search's."""
    _torch()
    from hexstones.train.data import positions_of
    from hexstones.train.selfplay import ROOT_NOISE, selfplay_game

    net = random_network("keil", seed=2, channels=8, blocks=1)
    noisy = selfplay_game(net, "keil", 3, 24, seed=4)
    assert noisy == selfplay_game(net, "keil", 3, 24, seed=4)
    assert noisy["root_noise"] == list(ROOT_NOISE) and noisy["by"] == "selfplay"
    plain = selfplay_game(net, "keil", 3, 24, seed=4, root_noise=None)
    assert plain["root_noise"] is None and plain["visits"] != noisy["visits"]
    assert len(positions_of(noisy)) == len(noisy["moves"]) > 0  # a legal game, replayed


def test_the_policy_loss_reads_the_legal_moves_and_a_sharpened_target():
    torch = _torch()
    from hexstones.train.loop import legal_mask, policy_target

    game = _played("keil", 4, 9, seed=3)
    mask = legal_mask(torch.from_numpy(fx.features_of(game)[None]))[0].numpy()
    assert sorted(np.flatnonzero(mask)) == sorted(game.legal_actions())
    visits = torch.tensor([[0.5, 0.25, 0.25, 0.0], [0.0, 0.0, 0.0, 0.0]])
    assert torch.equal(policy_target(visits, 1.0), visits)
    sharp = policy_target(visits, 2.0)
    assert torch.allclose(sharp[0], torch.tensor([4 / 6, 1 / 6, 1 / 6, 0.0]))
    assert torch.equal(sharp[1], visits[1])
