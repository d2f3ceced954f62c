"""The compiled core (hexstones.core): conformance, agreement with the plain-Python rules
on thousands of random positions, reason codes, history, and the playouts API."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as hyp

from hexstones.board import get_board
from hexstones.core import dehil, droched, keil
from hexstones.core.common import (
    board_at,
    copy_into,
    rand_below,
    rebuild_table,
    ring_of,
    seed_rng,
    track_board,
    undo,
)
from hexstones.core.layout import (
    M_DEAD,
    M_PLY,
    M_PRISON,
    M_REMOVED,
    M_SPECIAL,
    M_TO_MOVE,
    OK,
    R_GAME_OVER,
    R_LONE_PRISONER,
    R_NOT_A_MOVE,
    R_OCCUPIED,
    R_PRISON_EMPTY,
    R_REPETITION,
    R_SUICIDE,
    R_TRIANGLE,
    W_BUF,
    W_BUF2,
    W_MARKS,
    capacity_of,
    default_capacity,
    geometry,
)
from hexstones.core.state import copy_state, grow_state, start_state
from hexstones.games.engine import playouts

KERNELS = {"keil": keil, "dehil": dehil, "droched": droched}
CONFORMANCE = Path(__file__).parent / "conformance"
SPECIAL = {"keil": ("button", "pass"), "dehil": ("pass",), "droched": ("release",)}


def oracle_game(name, **options):
    """The plain-Python rules: tests/oracle once the games run on the core, else the
    plain engines in hexstones.games."""
    try:
        import importlib

        module = importlib.import_module(f"oracle.{name}")
        cls = next(v for k, v in vars(module).items() if k.lower() == f"{name}game")
        return cls(**options)
    except ImportError:
        from hexstones.games import new_game

        return new_game(name, **options)


def move_names(name, board, st, moves):
    """Core move numbers as the API spells them (Keil's move P: button until taken)."""
    P = board.num_points
    out = []
    for m in moves:
        if m < P:
            out.append(board.names[m])
        elif name == "keil":
            out.append("button" if st.meta[M_SPECIAL] == 0 else "pass")
        else:
            out.append(SPECIAL[name][0])
    return out


def move_number(board, move):
    return board.index[move] if move in board.index else board.num_points


def core_legal(name, st, size):
    board = get_board(size)
    out = np.empty(board.num_points + 1, np.int32)
    k = KERNELS[name].legal_moves(geometry(size), st, out)
    return move_names(name, board, st, out[:k])


def records(name):
    with open(CONFORMANCE / f"{name}.jsonl") as f:
        return [json.loads(line) for line in f]


# -- conformance through the kernels alone ------------------------------------------------

@pytest.mark.parametrize("name", ["keil", "dehil", "droched"])
def test_kernels_replay_every_conformance_record(name):
    kern = KERNELS[name]
    for rec in records(name):
        size, opts = rec["size"], rec["options"]
        board, geo = get_board(size), geometry(size)
        st = start_state(name, size, komi=opts.get("komi", 0), prison=opts.get("prison", 0),
                         handicap=tuple(board.point(p) for p in opts.get("handicap", ())))
        for i, move in enumerate(rec["moves"] + [None]):
            assert sorted(core_legal(name, st, size)) == rec["legal"][i], (name, size, i)
            if move is not None:
                assert kern.play(geo, st, move_number(board, move)) == OK
        result = rec.get("result")
        assert bool(kern.is_over(geo, st)) == (result is not None)
        if result is not None:
            assert kern.winner(geo, st) == (1 if result["winner"] == "black" else 2)
            score = np.zeros(2)
            if kern.score(geo, st, score):
                assert {"black": score[0], "white": score[1]} == result["score"]



# -- the fast legal moves against playing every move ---------------------------------------

def legal_by_playing(kern, geo, st):
    """Every move ``play`` accepts (each taken back): what ``legal_moves`` must list, in
    its order (points ascending, then P)."""
    found = []
    for move in range(st.board.shape[0] + 1):
        if kern.play(geo, st, move) == OK:
            found.append(move)
            undo(geo, st)
    return found


def walk_comparing_legal_moves(name, size, seed, length, options, seen=None,
                               ring_type=np.int32):
    """A random game of ``length`` moves (some taken back) whose every position's
    ``legal_moves`` is compared with :func:`legal_by_playing`, and so is
    ``legal_moves_tracked`` where the game has one (the walk followed by
    ``track_board``, undos too; ring codes of ``ring_type``). ``seen`` counts the
    placements that capture and those a repetition refuses, and in Keil the paths of the
    tracked mask (:func:`keil_mask_paths`)."""
    kern, geo = KERNELS[name], geometry(size)
    r = random.Random(seed)
    # Room for the whole walk: with the history full, ``play`` refuses every move.
    st = start_state(name, size, capacity=length + 8, **options)
    P = st.board.shape[0]
    out = np.empty(P + 1, np.int32)
    tracked = getattr(kern, "legal_moves_tracked", None)
    followed = st.board.copy()
    rings = np.array([ring_of(st.board, geo.ring_nbr, geo.ring_edge, p) for p in range(P)],
                     ring_type)
    left = np.zeros(2 * P, np.uint8)
    for _ in range(length):
        k = kern.legal_moves(geo, st, out)
        legal = out[:k].tolist()
        assert legal == legal_by_playing(kern, geo, st), (name, size, seed, st.meta[M_PLY])
        if tracked is not None:
            track_board(geo, followed, st.board, rings, left)
            k = tracked(geo, st, out, rings, left)
            assert out[:k].tolist() == legal, (name, size, seed, st.meta[M_PLY])
        if seen is not None:
            if name == "keil":
                keil_mask_paths(geo, st, rings, left, seen)
            if name == "droched":
                droched_mask_paths(geo, st, seen)
            for p in range(P):
                code = kern.play(geo, st, p) if st.board[p] == 0 else None
                if code == OK:
                    seen["capture"] += st.meta[M_REMOVED] > 0
                    undo(geo, st)
                seen["repetition"] += code == R_REPETITION
        if not legal:
            break
        if st.meta[M_PLY] and r.random() < 0.05:
            undo(geo, st)
            continue
        # The special move rarely (it ends Keil and Dehil games after two): long games.
        placements = legal[:-1] if legal[-1] == P else legal
        move = r.choice(placements) if placements and r.random() < 0.97 else r.choice(legal)
        assert kern.play(geo, st, move) == OK
    return seen


def keil_mask_paths(geo, st, rings, left, seen):
    """Count the placements of this Keil position by the path of the tracked mask that
    decides them (``keil._legal_moves``, ``rings`` and ``left`` as it takes them): of the
    empty points no stone of the mover has left, those whose stone has no liberty before
    captures: "suicide" (it captures nothing), "capture, ring" (its ring with the
    captured neighbours emptied gives it a liberty), "capture, played" (not: tried in
    full), and of those "capture, played, refused". Of the others, the placements that
    capture nothing and repeat a position ("repetition, quiet", which only the mask's
    probes of the position table refuse). (Where the opponent left a liberty-less group
    every placement is played; random games never get there.)"""
    board, meta = st.board, st.meta
    P = board.shape[0]
    X = int(meta[M_TO_MOVE])
    if meta[M_DEAD + 2 - X]:
        return
    table, marks, buf = keil.RING_TABLE, st.work[W_MARKS], st.work[W_BUF]
    for p in range(P):
        if board[p]:
            continue
        if left[(X - 1) * P + p]:
            if keil.captures_nothing(geo.nbr, geo.ring_nbr, table, rings, marks, st.stamp,
                                     buf, p, X):
                code = keil.play(geo, st, p)
                if code == OK:
                    undo(geo, st)
                seen["repetition, quiet"] += code == R_REPETITION
            continue
        if keil.stone_has_liberty(geo.nbr, table, rings, marks, st.stamp, buf, p, X):
            continue
        captured = keil.captured_around(geo.nbr, geo.ring_nbr, table, rings, marks, st.stamp,
                                        buf, p, X, False)
        after = int(rings[p])
        for d in range(6):
            if captured & (1 << d):
                after &= ~(3 << (2 * d))
        if captured == 0:
            seen["suicide"] += 1
        elif table[X, after] & keil.RING_LIB:
            seen["capture, ring"] += 1
        else:
            seen["capture, played"] += 1
            if keil.play(geo, st, p) == OK:
                undo(geo, st)
            else:  # the trial, not the ring, refuses it
                seen["capture, played, refused"] += 1


def droched_mask_paths(geo, st, seen):
    """Count the placements of this Droched position by what decides them in the mask
    (``droched._legal_moves``): "quiet" (``quiet_placement`` knows nobody goes to the
    prison), of those "quiet, repeats" (the position table refuses it), "lone prisoner"
    (known illegal), "played" (not known: tried in full) and of those "played, refused";
    and check each verdict against ``play``."""
    board, meta = st.board, st.meta
    if meta[M_DEAD]:
        return
    X = int(meta[M_TO_MOVE])
    droched.empty_forest(board, geo.nbr, geo.feature, st.work)
    verdicts = {int(p): droched.quiet_placement(board, geo.nbr, st.work, p, X)
                for p in np.flatnonzero(board == 0)}
    for p, known in verdicts.items():
        code = droched.play(geo, st, p)
        removed = int(st.meta[M_REMOVED])
        if code == OK:
            undo(geo, st)
        if known == droched.QUIET:
            assert code == R_REPETITION or (code == OK and removed == 0), (p, code)
            seen["quiet"] += 1
            seen["quiet, repeats"] += code == R_REPETITION
        elif known == droched.LONE_PRISONER:
            assert code == R_LONE_PRISONER, (p, code)
            seen["lone prisoner"] += 1
        else:
            seen["played"] += 1
            seen["played, refused"] += code != OK


def test_droched_mask_reaches_each_of_its_paths_on_larger_boards():
    """Random Droched games on sides 4, 6 and 9: every position's mask, tracked or not, is the
    moves ``play`` accepts, each verdict of ``quiet_placement`` is what ``play`` does,
    and the games reach each path of the mask (:func:`droched_mask_paths`)."""
    seen: Counter = Counter()
    for seed in range(6):
        walk_comparing_legal_moves("droched", (4, 6, 9)[seed % 3], seed, 150,
                                   {"prison": seed % 3}, seen)
    for path in ("quiet", "lone prisoner", "played", "played, refused"):
        assert seen[path] >= 3, seen


def test_droched_mask_refuses_a_quiet_placement_that_repeats_a_board():
    """The last path, rare in random walks: a placement that sends nobody to the prison
    but remakes a board its player left at an earlier turn (the stone on the point went
    to the prison since, and so did whatever took it)."""
    geo = geometry(3)
    st = start_state("droched", 3, prison=1)
    for move in [2, 16, 17, 7, 0, 9, 18, 15, 5, 3, 1, 4, 11, 12, 13, 11, 17, 5, 18, 0, 10,
                 2, 13, 8, 18, 18, 14, 17, 6, 1, 14, 7, 18, 13, 2, 12, 4, 11, 0, 10, 17, 8,
                 3, 0, 6, 9, 15, 5, 19, 0, 4, 16, 1, 14, 2, 17, 6, 0, 6, 3, 1, 18, 2, 19, 6,
                 1, 19, 15, 19, 6]:
        assert droched.play(geo, st, move) == OK
    seen: Counter = Counter()
    droched_mask_paths(geo, st, seen)
    assert seen["quiet, repeats"] >= 1, seen
    assert droched.play(geo, st, 2) == R_REPETITION
    out = np.empty(st.board.shape[0] + 1, np.int32)
    k = droched.legal_moves(geo, st, out)
    assert 2 not in out[:k] and out[:k].tolist() == legal_by_playing(droched, geo, st)


@settings(max_examples=30, deadline=None)
@given(seed=hyp.integers(0, 10**6), size=hyp.integers(3, 6), length=hyp.integers(1, 400),
           komi=hyp.integers(-3, 3))
def test_keil_legal_moves_are_the_moves_play_accepts(seed, size, length, komi):
    walk_comparing_legal_moves("keil", size, seed, length, {"komi": komi})


@settings(max_examples=30, deadline=None)
@given(seed=hyp.integers(0, 10**6), size=hyp.integers(3, 6), length=hyp.integers(1, 300))
def test_dehil_legal_moves_are_the_moves_play_accepts(seed, size, length):
    walk_comparing_legal_moves("dehil", size, seed, length, {})


@settings(max_examples=20, deadline=None)
@given(seed=hyp.integers(0, 10**6), size=hyp.integers(3, 5), length=hyp.integers(1, 300),
           prison=hyp.integers(0, 3))
def test_droched_legal_moves_are_the_moves_play_accepts(seed, size, length, prison):
    walk_comparing_legal_moves("droched", size, seed, length, {"prison": prison})


def test_keil_legal_move_walks_reach_captures_and_repetitions():
    """The cases where Keil's fast legal moves play a placement (a capture), or refuse
    one without playing it (a repetition), come up in random walks like those above."""
    seen: Counter = Counter()
    for seed in range(12):
        walk_comparing_legal_moves("keil", 3 + seed % 3, seed, 400, {}, seen)
    assert seen["capture"] >= 3 and seen["repetition"] >= 3, seen


def test_keil_tracked_mask_reaches_each_of_its_paths_on_larger_boards():
    """Random Keil games on sides 3 to 7 with ring codes as the vector env keeps them
    (int16): every position's tracked mask is the moves ``play`` accepts, and the games
    reach each path of the tracked mask (:func:`keil_mask_paths`) several times."""
    seen: Counter = Counter()
    for seed in range(10):
        walk_comparing_legal_moves("keil", 3 + seed % 5, seed, 300, {}, seen, np.int16)
    for seed in range(10, 30):  # side 3: where a placement that captures nothing repeats
        walk_comparing_legal_moves("keil", 3, seed, 400, {}, seen, np.int16)
    for path in ("suicide", "capture, ring", "capture, played", "capture, played, refused",
                 "capture", "repetition", "repetition, quiet"):
        assert seen[path] >= 3, seen

# -- core versus the plain-Python rules ----------------------------------------------------

def compare_random_walks(name, sizes, positions, seed, options=lambda r: {}):
    """Random games played in the core and the oracle side by side: at every position the
    legal moves, stones, game end, winner and score must agree; some moves are undone.
    Returns what the walks went through: the games they played to the end, by winner,
    and the moves they took back."""
    r = random.Random(seed)
    compared = 0
    walked = {"ended": {"black": 0, "white": 0}, "undone": 0}
    kern = KERNELS[name]
    while compared < positions:
        size = r.choice(sizes)
        opts = options(r)
        game = oracle_game(name, size=size, **opts)
        board, geo = get_board(size), geometry(size)
        st = start_state(name, size, komi=opts.get("komi", 0), prison=opts.get("prison", 0))
        for _ in range(120):
            legal = game.legal_moves()
            assert core_legal(name, st, size) == legal, (size, game.moves)
            core_stones = {board.names[p]: ("black" if c == 1 else "white")
                           for p, c in enumerate(st.board) if c}
            assert core_stones == game.stones()
            assert bool(kern.is_over(geo, st)) == game.is_over
            if name != "droched":
                s = np.zeros(2)
                kern.score(geo, st, s)
                assert {"black": s[0], "white": s[1]} == game.score()
            compared += 1
            if game.is_over:
                won = game.result()["winner"]
                assert kern.winner(geo, st) == (1 if won == "black" else 2)
                walked["ended"][won] += 1
                break
            if game.moves and r.random() < 0.06:
                assert move_names(name, board, st, [undo(geo, st)]) == [game.undo()]
                walked["undone"] += 1
                continue
            move = r.choice(legal)
            game.play(move)
            assert kern.play(geo, st, move_number(board, move)) == OK
    return walked


def test_keil_core_agrees_with_plain_rules_on_random_positions():
    walked = compare_random_walks("keil", [3, 4, 4, 5], 2000, seed=11,
                                  options=lambda r: {"komi": r.randint(-3, 8)})
    # The walks reach game ends won by each side (the winner and final score compared
    # there), and take moves back (undo compared against the oracle).
    assert min(walked["ended"].values()) >= 1 and walked["undone"] >= 50, walked


def test_dehil_core_agrees_with_plain_rules_on_random_positions():
    walked = compare_random_walks("dehil", [3, 4, 5, 6], 2500, seed=12,
                                  options=lambda r: {"komi": r.randint(-3, 3)})
    assert min(walked["ended"].values()) >= 1 and walked["undone"] >= 50, walked


def test_droched_core_agrees_with_plain_rules_on_random_positions():
    walked = compare_random_walks("droched", [3, 4, 5], 2500, seed=13,
                                  options=lambda r: {"prison": r.randint(0, 3)})
    assert min(walked["ended"].values()) >= 1 and walked["undone"] >= 50, walked


@pytest.mark.parametrize("size,prison,handicap,seed", [
    (3, 0, (), 2), (3, 2, (), 5), (4, 0, (), 4), (4, 1, ("b2", "f6"), 3), (5, 2, (), 2),
])
def test_droched_playouts_agree_with_plain_rules_to_the_end(size, prison, handicap, seed):
    """Random Droched games end on nearly full boards with long runs of releases, where
    the short walks above never go: replay whole playouts in the plain rules, comparing
    every legal move set and the winner, and check the position table against a plain
    rebuild (a release enters its row from the previous row's slot)."""
    board, geo = get_board(size), geometry(size)
    P = board.num_points
    points = tuple(board.point(p) for p in handicap)
    st = start_state("droched", size, prison=prison, handicap=points, capacity=20000)
    winner = droched.playout(geo, st, seed_rng(seed), 20000)
    ply = int(st.meta[M_PLY])
    moves = [int(m) for m in st.hist_move[1:ply + 1]]
    run = longest = 0
    for m in moves:
        run = run + 1 if m == P else 0
        longest = max(longest, run)
    assert longest >= 100  # the case this test is for
    rebuilt = copy_state(st)
    rebuild_table(rebuilt)
    assert np.array_equal(rebuilt.table, st.table)
    assert np.array_equal(rebuilt.hist_slot, st.hist_slot)
    game = oracle_game("droched", size=size, prison=prison, handicap=handicap)
    replay = start_state("droched", size, prison=prison, handicap=points, capacity=ply + 8)
    for m in moves:
        assert core_legal("droched", replay, size) == game.legal_moves()
        game.play(board.names[m] if m < P else "release")
        assert droched.play(geo, replay, m) == OK
    assert core_legal("droched", replay, size) == game.legal_moves() == []
    assert winner == (1 if game.result()["winner"] == "black" else 2)


def droched_game_trying_every_candidate(geo, st, rng, P):
    """The Droched playout spelt out with ``play`` alone: the kernel's list of empty
    points (as in the Keil and Dehil game below; stones sent to the prison join it, the
    enemy's first), the release drawn as one more candidate after them, and no draws once
    every empty point was refused on the same board by the same player (the release is
    then the only action). Returns the winner."""
    cand = [p for p in range(P) if st.board[p] == 0]
    refused = {1: (None, set()), 2: (None, set())}
    while True:
        X, Y = st.meta[M_TO_MOVE], 3 - st.meta[M_TO_MOVE]
        board = st.board.tobytes()
        if refused[X][0] != board:
            refused[X] = (board, set())
        seen = refused[X][1]
        points = 0 if seen >= set(cand) else len(cand)
        release = 1 if st.meta[M_PRISON + Y - 1] > 0 else 0
        prison_y = st.meta[M_PRISON + Y - 1]
        while points + release > 0:
            i = rand_below(rng, points + release)
            if i == points:
                m, release = P, 0
            else:
                points -= 1
                cand[i], cand[points] = cand[points], cand[i]
                m = cand[points]
            if droched.play(geo, st, m) == OK:
                if m < P:
                    cand[points] = cand[-1]
                    cand.pop()
                    enemy = st.meta[M_PRISON + Y - 1] - prison_y
                    cand.extend(int(q) for q in st.work[W_BUF][:enemy])
                    cand.extend(int(q) for q in st.work[W_BUF2][:st.meta[M_REMOVED] - enemy])
                break
            seen.add(m)
        else:
            return Y


@pytest.mark.parametrize("size,seed", [(4, 4), (5, 3)])
def test_droched_playout_is_the_game_drawn_trying_every_candidate(size, seed):
    """The playout skips placements it saw refused on the same board and stops drawing
    once all are: its game must be the one drawn by asking ``play`` about every candidate
    (games with long runs of releases)."""
    geo = geometry(size)
    P = get_board(size).num_points
    st = start_state("droched", size, capacity=20000)
    winner = droched.playout(geo, st, seed_rng(seed), 20000)
    ref = start_state("droched", size, capacity=20000)
    assert droched_game_trying_every_candidate(geo, ref, seed_rng(seed), P) == winner
    ply = ref.meta[M_PLY]
    assert ply > 1000 and st.meta[M_PLY] == ply
    assert np.array_equal(ref.hist_move[:ply + 1], st.hist_move[:ply + 1])


def game_trying_every_candidate(kernel, geo, st, rng, P):
    """The Keil and Dehil playout policy spelt out with ``play`` alone: draw empty points
    without replacement, pass over own eyes, play the first one ``play`` accepts, else
    move P. The list of empty points is the kernel's: kept from turn to turn, a draw
    swaps the drawn point with the last undrawn one, the placed point's slot takes the
    list's last point, and captured points (Keil; in the order ``play`` leaves them in
    the work buffer) join at the end. Returns the winner."""
    cand = [p for p in range(P) if st.board[p] == 0]
    while not kernel.is_over(geo, st):
        X = st.meta[M_TO_MOVE]
        n = len(cand)
        while n > 0:
            i = rand_below(rng, n)
            n -= 1
            cand[i], cand[n] = cand[n], cand[i]
            m = cand[n]
            if not kernel.fills_own_eye(st.board, geo.nbr, m, X) and kernel.play(geo, st, m) == OK:
                cand[n] = cand[-1]
                cand.pop()
                cand.extend(int(q) for q in st.work[W_BUF][:st.meta[M_REMOVED]])
                break
        else:
            assert kernel.play(geo, st, P) == OK
    return kernel.winner(geo, st)


@pytest.mark.parametrize("size,seed,opening", [(3, 1, 0), (4, 2, 0), (5, 3, 0), (5, 4, 9),
                                               (7, 5, 0), (7, 6, 25), (9, 7, 40)])
def test_keil_playout_is_the_game_drawn_trying_every_candidate(size, seed, opening):
    """The playout refuses eye-fills and certain suicides from ring codes it keeps move by
    move, without playing them: its game must be the one drawn by asking ``play`` about
    every candidate (from the empty board and from random openings)."""
    geo, P = geometry(size), get_board(size).num_points
    start = start_state("keil", size, capacity=8 * P + 64)
    rng = random.Random(seed)
    while start.meta[M_PLY] < opening:
        keil.play(geo, start, rng.randrange(P + 1))
    for game in range(3):
        st = start_state("keil", size, capacity=8 * P + 64)
        copy_into(st, start)
        winner = keil.playout(geo, st, seed_rng(seed * 10 + game), 10**6)
        ref = start_state("keil", size, capacity=8 * P + 64)
        copy_into(ref, start)
        assert game_trying_every_candidate(keil, geo, ref, seed_rng(seed * 10 + game), P) == winner
        ply = ref.meta[M_PLY]
        assert ply > opening + P // 2 and st.meta[M_PLY] == ply
        assert np.array_equal(ref.hist_move[:ply + 1], st.hist_move[:ply + 1])


@pytest.mark.parametrize("size,seed", [(4, 1), (5, 2), (7, 3)])
def test_dehil_playout_is_the_game_drawn_trying_every_candidate(size, seed):
    """The Dehil playout keeps its list of empty points from move to move: its game must
    be the one drawn by asking ``play`` about every candidate from the same list."""
    geo, P = geometry(size), get_board(size).num_points
    st = start_state("dehil", size, capacity=4 * P + 64)
    winner = dehil.playout(geo, st, seed_rng(seed), 10**6)
    ref = start_state("dehil", size, capacity=4 * P + 64)
    assert game_trying_every_candidate(dehil, geo, ref, seed_rng(seed), P) == winner
    ply = ref.meta[M_PLY]
    assert ply > P // 2 and st.meta[M_PLY] == ply
    assert np.array_equal(ref.hist_move[:ply + 1], st.hist_move[:ply + 1])


def test_keil_illegal_placements_among_random_positions_carry_the_oracle_reason():
    """Every empty point the oracle refuses is refused by the core with the same kind of
    reason (suicide vs repetition), on positions from random games."""
    r = random.Random(5)
    kinds = {R_SUICIDE: "suicide", R_REPETITION: "repeats"}
    seen = set()
    for _ in range(6):
        game = oracle_game("keil", size=4)
        board, geo = get_board(4), geometry(4)
        st = start_state("keil", 4, komi=6)
        for _ in range(50):
            legal = game.legal_moves()
            if not legal or game.is_over:
                break
            for p, name in enumerate(board.names):
                if st.board[p] == 0 and name not in legal:
                    code = keil.play(geo, st, p)
                    assert code in kinds
                    seen.add(code)
                    try:
                        game.copy().play(name)
                    except Exception as exc:  # noqa: BLE001 - the message is what we compare
                        assert kinds[code] in str(exc)
            move = r.choice(legal)
            game.play(move)
            assert keil.play(geo, st, move_number(board, move)) == OK
    assert R_SUICIDE in seen


# -- reason codes and docs/rules.md examples -----------------------------------------------------

def play_names(name, size, moves, **opts):
    board, geo = get_board(size), geometry(size)
    st = start_state(name, size, **opts)
    for m in moves:
        assert KERNELS[name].play(geo, st, move_number(board, m)) == OK, m
    return st, board, geo


def test_keil_reasons():
    st, board, geo = play_names("keil", 4, ["a1", "c3"])
    assert keil.play(geo, st, board.point("c3")) == R_OCCUPIED
    assert keil.play(geo, st, board.num_points + 1) == R_NOT_A_MOVE
    assert keil.play(geo, st, -1) == R_NOT_A_MOVE
    # docs/rules.md: a black stone on a1 has no liberty once white holds b2 -> captured by b2.
    st, board, geo = play_names("keil", 4, ["a1", "c3", "d4", "b2"])
    assert st.board[board.point("a1")] == 0
    st, board, geo = play_names("keil", 4, ["button", "pass", "pass"])
    assert keil.is_over(geo, st)
    assert keil.play(geo, st, board.point("d4")) == R_GAME_OVER


def test_dehil_reasons_follow_the_rules_examples():
    # b1 c1 c2: a triangle with two stones on the edge is never allowed.
    st, board, geo = play_names("dehil", 4, ["b1", "g7", "c1", "g6"])
    assert dehil.play(geo, st, board.point("c2")) == R_TRIANGLE
    # c2 d2 d3 alone: not allowed; with b2, e2 and e4 black as well, it is.
    st, board, geo = play_names("dehil", 4, ["c2", "a4", "d2", "g7"])
    assert dehil.play(geo, st, board.point("d3")) == R_TRIANGLE
    st, board, geo = play_names("dehil", 4, ["b2", "a4", "e2", "g7", "e4", "g6",
                                             "c2", "a3", "d2", "d7"])
    assert dehil.play(geo, st, board.point("d3")) == OK


def test_droched_reasons():
    st, board, geo = play_names("droched", 4, ["d4"])
    assert droched.play(geo, st, board.num_points) == R_PRISON_EMPTY
    st, board, geo = play_names("droched", 4, [], prison=2)
    assert droched.play(geo, st, board.num_points) == R_PRISON_EMPTY  # black to move
    assert droched.play(geo, st, board.point("d4")) == OK
    assert droched.play(geo, st, board.num_points) == OK  # white releases a black stone
    assert st.meta[M_PRISON] == 1
    # A white ring around d4, black to move: d4 would be the only prisoner.
    ring = ["e4", "e5", "d5", "c4", "c3", "d3"]
    moves = []
    for w in ring:
        moves += [{"e4": "a1", "e5": "g7", "d5": "a4", "c4": "d1", "c3": "g4", "d3": "d7"}[w], w]
    st, board, geo = play_names("droched", 4, moves)
    assert droched.play(geo, st, board.point("d4")) == R_LONE_PRISONER


# -- history: undo, copy, growth -------------------------------------------------------------

@pytest.mark.parametrize("name", ["keil", "dehil", "droched"])
def test_undo_copy_and_grow_keep_the_game(name):
    size = 5
    geo = geometry(size)
    root = start_state(name, size, capacity=40)
    rng = seed_rng(3)
    KERNELS[name].playout(geo, root, rng, 30)
    assert root.meta[M_PLY] == 30
    out_a = np.empty(70, np.int32)
    out_b = np.empty(70, np.int32)
    bigger = grow_state(root, 500)
    assert capacity_of(bigger) == 500
    copy = start_state(name, size, capacity=40)
    copy_into(copy, root)
    for st in (bigger, copy):
        assert np.array_equal(st.board, root.board)
        ka = KERNELS[name].legal_moves(geo, root, out_a)
        kb = KERNELS[name].legal_moves(geo, st, out_b)
        assert list(out_a[:ka]) == list(out_b[:kb])
    board_10 = board_at(root, 10).copy()
    for _ in range(20):
        undo(geo, bigger)
    assert bigger.meta[M_PLY] == 10 and np.array_equal(bigger.board, board_10)


@pytest.mark.parametrize("name", ["keil", "dehil", "droched"])
def test_each_history_row_records_its_move_hash_and_board(name):
    """The rows ``commit`` writes: the move, the hash of the board after it (recomputed
    from the board) and the board itself, as the game API played them. An error here
    once went unseen by the rules tests (a numba inlining fault dropped the move row)."""
    import hexstones

    game = hexstones.new_game(name, size=4)
    rnd = random.Random(5)
    for _ in range(25):
        legal = sorted(game.legal_moves())
        if not legal:
            break
        game.play(rnd.choice(legal))
    st = game.compiled().state
    ply = int(st.meta[M_PLY])
    assert ply == len(game.moves) > 10
    zob = geometry(4).zobrist
    replay = hexstones.new_game(name, size=4)
    for t in range(1, ply + 1):
        assert st.hist_move[t] == move_number(game.board, game.moves[t - 1])
        replay.play(game.moves[t - 1])
        board = board_at(st, t)
        assert np.array_equal(board, replay.compiled().state.board), t
        expected = np.uint64(0)
        for p, c in enumerate(board):
            expected ^= zob[c, p]
        if name == "keil" and st.hist_meta[t, M_SPECIAL]:
            expected ^= geometry(4).zextra[0]
        assert st.hist_hash[t] == expected, t


def test_repetition_is_seen_after_growing_and_copying():
    # Keil side 3: black a1 is captured by white b2; black cannot retake at once if that
    # repeats its own earlier position. Build a real repetition with the oracle's help.
    game = oracle_game("keil", size=4)
    r = random.Random(2)
    board, geo = get_board(4), geometry(4)
    st = start_state("keil", 4)
    found = False
    for _ in range(400):
        legal = game.legal_moves()
        if game.is_over:
            game = oracle_game("keil", size=4)
            st = start_state("keil", 4)
            continue
        for p, nm in enumerate(board.names):
            if st.board[p] == 0 and nm not in legal and keil.play(geo, st, p) == R_REPETITION:
                grown = grow_state(st, capacity_of(st) * 2)
                assert keil.play(geo, grown, p) == R_REPETITION
                fresh = start_state("keil", 4, capacity=capacity_of(st) * 3)
                copy_into(fresh, st)
                assert keil.play(geo, fresh, p) == R_REPETITION
                found = True
        if found:
            break
        move = r.choice(legal)
        game.play(move)
        assert keil.play(geo, st, move_number(board, move)) == OK
    assert found


# -- playouts ------------------------------------------------------------------------------

def test_playouts_same_seed_same_result_and_consistent_counts():
    a = playouts("keil", 40, seed=7, size=5)
    b = playouts("keil", 40, seed=7, size=5)
    c = playouts("keil", 40, seed=8, size=5)
    assert a == b
    assert a != c
    assert a["games"] == 40 == a["wins"]["black"] + a["wins"]["white"]
    assert a["mean_length"] == a["moves"] / 40
    assert a["mean_score"]["black"] > 0 and a["mean_score"]["white"] > 0


@pytest.mark.parametrize("name,size", [("keil", 4), ("dehil", 4), ("droched", 3)])
def test_playout_games_are_legal_games_with_the_reported_winner(name, size):
    """Replay playouts move by move in the plain rules: every move legal, same winner, and
    the policy held (Keil/Dehil: the special move only when no placement was left that
    does not fill an own eye)."""
    geo = geometry(size)
    board = get_board(size)
    rng = seed_rng(21)
    for _ in range(8):
        game = oracle_game(name, size=size)
        komi = game.options.get("komi", 0)
        st = start_state(name, size, komi=komi, capacity=20000)
        w = KERNELS[name].playout(geo, st, rng, 20000)
        assert w in (1, 2)
        replay = start_state(name, size, komi=komi, capacity=20000)
        for ply in range(1, st.meta[M_PLY] + 1):
            m = int(st.hist_move[ply])
            (move,) = move_names(name, board, replay, [m])
            if name != "droched" and m == board.num_points:
                placements = [x for x in game.legal_moves() if x in board.index]
                assert all(eye_of(name, board, replay, board.index[x]) for x in placements)
            game.play(move)  # raises IllegalMove if the playout broke a rule
            assert KERNELS[name].play(geo, replay, m) == OK
        assert game.is_over
        assert game.result()["winner"] == ("black" if w == 1 else "white")


def eye_of(name, board, st, p):
    X = st.meta[M_TO_MOVE]
    if name == "keil":
        return keil.fills_own_eye(st.board, geometry(board.size).nbr, p, X)
    return dehil.fills_own_eye(st.board, geometry(board.size).nbr, p, X)


def test_playouts_start_from_a_game_object_position():
    from hexstones.games import new_game

    game = new_game("keil", size=4, komi=2)
    for m in ["d4", "e5", "button"]:
        game.play(m)
    st = game.compiled().state
    assert st.meta[M_PLY] == 3
    stats = playouts(game, 30, seed=1)
    assert stats["games"] == 30 and stats["size"] == 4
    assert game.moves == ["d4", "e5", "button"]  # the game object is untouched


def test_playouts_do_not_depend_on_the_room_the_game_object_holds():
    """Same position, same seed, same result: a game whose history grew during a long
    game that was then taken back plays the same playouts as a fresh one. (Random Droched
    games on side 3 run hundreds of moves, past the room a fresh game starts with, so
    the playouts themselves grow their history.)"""
    from hexstones.games import new_game

    fresh = new_game("droched", size=3)
    grown = new_game("droched", size=3)
    rng = random.Random(3)
    while len(grown.moves) <= default_capacity(3):  # random games until a long one
        while grown.moves:
            grown.undo()
        while not grown.is_over:
            grown.play(rng.choice(grown.legal_moves()))
    while grown.moves:
        grown.undo()
    for seed in (1, 2):
        a, b = playouts(fresh, 12, seed=seed), playouts(grown, 12, seed=seed)
        assert a == b
        assert a["mean_length"] > default_capacity(3)


def test_playouts_refuse_bad_input():
    with pytest.raises(ValueError, match="count"):
        playouts("keil", -1)
    with pytest.raises(ValueError, match="unknown game"):
        playouts("chess", 3)
    with pytest.raises(ValueError, match="option"):
        playouts("keil", 3, colour="red")
    from hexstones.games import new_game

    with pytest.raises(ValueError, match="options go with a game name"):
        playouts(new_game("keil", size=4), 3, size=5)


def test_a_second_process_loads_compiled_kernels_from_the_cache():
    code = (
        "from hexstones.core import keil, dehil, droched\n"
        "from hexstones.core.state import start_state\n"
        "from hexstones.core.layout import geometry\n"
        "for m, g in ((keil, 'keil'), (dehil, 'dehil'), (droched, 'droched')):\n"
        "    m.play(geometry(4), start_state(g, 4), 0)\n"
        "    s = m.play.stats\n"
        "    print(sum(s.cache_hits.values()), sum(s.cache_misses.values()))\n"
    )
    exec(code, {})  # compiles here (writing the cache) unless already cached
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.split("\n")
    for line in filter(None, out):
        hits, misses = line.split()
        assert int(hits) >= 1 and int(misses) == 0


@pytest.mark.parametrize("name,sizes", [("keil", [3, 4, 4]), ("dehil", [3, 4, 5])])
def test_game_objects_on_the_core_match_the_oracle_api(name, sizes):
    """The public game objects (now on the core) and the plain oracles agree on analysis,
    result and every refusal message, along random games with undos."""
    from hexstones.games import IllegalMove, new_game

    r = random.Random(31)
    positions = 0
    while positions < 200:
        size = r.choice(sizes)
        komi = r.randint(-2, 6)
        game, plain = new_game(name, size=size, komi=komi), oracle_game(name, size=size, komi=komi)
        for _ in range(60):
            assert game.legal_moves() == plain.legal_moves()
            assert game.analysis() == plain.analysis()
            assert game.result() == plain.result()
            assert (game.to_move, game.is_over) == (plain.to_move, plain.is_over)
            positions += 1
            legal = plain.legal_moves()
            for move in [m for m in list(game.board.names) + list(game.special_moves) if m not in legal]:
                with pytest.raises(IllegalMove) as ours:
                    game.play(move)
                with pytest.raises(IllegalMove) as theirs:
                    plain.play(move)
                assert str(ours.value) == str(theirs.value)
            if not legal:
                break
            if game.moves and r.random() < 0.1:
                assert game.undo() == plain.undo()
                continue
            move = r.choice(legal)
            game.play(move)
            plain.play(move)


def test_uncompiled_kernels_play_the_same_rules():
    """Run as plain Python (NUMBA_DISABLE_JIT, e.g. to debug), the kernels must still
    replay the recorded games: fixed-width arithmetic must not depend on numba's typing."""
    import subprocess
    import sys

    script = (
        "import json, hexstones\n"
        "from pathlib import Path\n"
        "for name in hexstones.GAME_NAMES:\n"
        "    path = Path('tests/conformance') / f'{name}.jsonl'\n"
        "    rec = json.loads(path.read_text().splitlines()[0])\n"
        "    g = hexstones.new_game(name, size=rec['size'], **rec['options'])\n"
        "    for i, m in enumerate(rec['moves']):\n"
        "        assert sorted(g.legal_moves()) == rec['legal'][i], (name, i)\n"
        "        g.play(m)\n"
        "    assert g.result() == rec.get('result'), name\n"
        "print('ok')\n"
    )
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", script], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_a_history_longer_than_the_position_table_can_number_is_refused():
    from hexstones.core.layout import MAX_CAPACITY, allocate_state

    with pytest.raises(ValueError, match="at most"):
        allocate_state(3, MAX_CAPACITY + 1)
