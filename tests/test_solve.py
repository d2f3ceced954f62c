"""The solver (hexstones.solve) against a plain minimax written over the public game API:
no table, no pruning, no symmetry, nothing shared with the solver but the game."""

from __future__ import annotations

import json
import math
import random

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

import hexstones
from hexstones.cli import main
from hexstones.solve import Solver, TooDeep, Unsupported, solve

# A small table: the positions here are a few hundred thousand nodes at most.
BITS = 16


def minimax(game) -> float:
    """Black's final score minus White's under margin-maximising play, by trying every
    legal move to the end of the game."""
    if game.is_over:
        score = game.score()
        return score["black"] - score["white"]
    values = []
    for move in game.legal_moves():
        game.play(move)
        values.append(minimax(game))
        game.undo()
    return max(values) if game.to_move == "black" else min(values)


def random_position(name: str, seed: int, empty: int, komi: int = 0):
    """A game reached by random placements (a pass now and then) until ``empty`` points
    are left, or None if the game ended first."""
    rng = random.Random(seed)
    game = hexstones.new_game(name, size=3, komi=komi)
    while 19 - len(game.stones()) > empty:
        moves = game.legal_moves()
        placements = [m for m in moves if m not in game.special_moves]
        if not placements or rng.random() < 0.1:
            game.play(game.special_move())
        else:
            game.play(rng.choice(placements))
        if game.is_over:
            return None
    return game


_SOLVERS: dict[tuple, Solver] = {}


def shared_solver(game) -> Solver:
    """One solver (one table) per game and options, shared by every test: a table entry
    made from one position and history is probed from others."""
    key = (game.name, tuple(sorted(game.options.items())))
    if key not in _SOLVERS:
        _SOLVERS[key] = Solver(game, table_bits=BITS)
    return _SOLVERS[key]


EXAMPLES = settings(max_examples=50, deadline=None,
                         suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@EXAMPLES
@given(seed=st.integers(0, 10**6), empty=st.integers(3, 6), komi=st.integers(-2, 2))
def test_dehil_values_are_the_brute_force_values(seed, empty, komi):
    game = random_position("dehil", seed, empty, komi)
    assume(game is not None)
    assert shared_solver(game).value(game) == minimax(game.copy())


@EXAMPLES
@given(seed=st.integers(0, 10**6), empty=st.integers(4, 9), symmetry=st.integers(1, 11))
def test_a_symmetric_position_has_the_same_value(seed, empty, symmetry):
    game = random_position("dehil", seed, empty)
    assume(game is not None)
    image = hexstones.new_game("dehil", size=3)
    for move in game.moves:
        image.play(move if move in game.special_moves else game.board.transform(symmetry, move))
    # A fresh solver for the image: no table entry of the original's helps it.
    fresh = Solver(image, table_bits=BITS)
    assert fresh.value(image) == shared_solver(game).value(game)


def test_every_move_gets_its_brute_force_value():
    game = random_position("dehil", 7, 6)
    assert game is not None
    solution = solve(game, table_bits=BITS)
    expected = {}
    for move in game.legal_moves():
        child = game.copy()
        child.play(move)
        expected[move] = minimax(child)
    assert solution.lower == solution.upper == expected
    best = max(expected.values()) if game.to_move == "black" else min(expected.values())
    assert solution.value == best
    assert set(solution.best) == {m for m, v in expected.items() if v == best}
    assert sorted(m for c in solution.classes for m in c) == sorted(expected)


def test_the_value_alone_leaves_true_bounds():
    game = random_position("dehil", 11, 6)
    assert game is not None
    solution = solve(game, table_bits=BITS, every_move=False)
    assert solution.value == minimax(game.copy())
    for move in game.legal_moves():
        child = game.copy()
        child.play(move)
        assert solution.lower[move] <= minimax(child) <= solution.upper[move]


def test_komi_shifts_the_value_point_for_point():
    moves = random_position("dehil", 3, 6).moves
    values = []
    for komi in (-3, 0, 4):
        game = hexstones.new_game("dehil", size=3, komi=komi)
        for move in moves:
            game.play(move)
        values.append(Solver(game, table_bits=BITS).value(game) + komi)
    assert values[0] == values[1] == values[2]
    assert values[0] % 1 == 0.5  # the first pass's half point: no ties


def alphabeta(game, alpha: float, beta: float, budget: list[int]) -> float:
    """The side to move's margin by alpha-beta over the public game API, without a table
    (so the game's own history decides every repetition): the special move first, then
    the placements. Spends one of ``budget[0]`` per position; OverflowError when spent."""
    budget[0] -= 1
    if budget[0] < 0:
        raise OverflowError
    if game.is_over:
        score = game.score()
        margin = score["black"] - score["white"]
        return margin if game.to_move == "black" else -margin
    moves = game.legal_moves()
    best = -math.inf
    for move in sorted(moves, key=lambda m: m not in game.special_moves):
        game.play(move)
        value = -alphabeta(game, -beta, -max(alpha, best), budget)
        game.undo()
        if value > best:
            best = value
            if best >= beta:
                break
    return best


# Keil positions (points left empty, seed of random_position) whose whole game tree the
# table-less alpha-beta above gets through in 3000 positions: found by trying 60 seeds
# for each of 1 to 6 empty points. Most Keil positions of side 3 are beyond it: with
# captures, a line of play can run on for thousands of moves.
SMALL_KEIL = [(2, 8), (2, 25), (2, 29), (2, 55), (2, 58), (3, 8), (3, 55), (3, 57), (4, 8),
              (4, 18), (4, 40), (4, 55), (5, 18), (5, 55)]


def test_keil_values_are_the_values_of_a_search_without_a_table():
    solver = None
    for empty, seed in SMALL_KEIL:
        game = random_position("keil", seed, empty)
        assert game is not None
        margin = alphabeta(game.copy(), -math.inf, math.inf, [3000])
        expected = margin if game.to_move == "black" else -margin
        # One table for all of them: entries made under one history are probed under others.
        solver = solver or Solver(game, table_bits=BITS)
        assert solver.value(game) == expected, (empty, seed)


def test_a_finished_game_is_worth_its_score():
    game = hexstones.new_game("keil", size=3, komi=2)
    for move in ("c3", "button", "pass", "pass"):
        game.play(move)
    score = game.score()
    assert solve(game, table_bits=BITS).value == score["black"] - score["white"]


def test_keil_lines_beyond_the_search_depth_are_reported():
    game = hexstones.new_game("keil", size=3)
    for move in ("c3", "button", "b2", "d4", "c2"):
        game.play(move)
    with pytest.raises(TooDeep):
        Solver(game, table_bits=BITS, chunk=10**9).value(game)


def test_games_without_a_score_and_big_boards_are_refused():
    with pytest.raises(Unsupported):
        Solver(hexstones.new_game("droched", size=3))
    with pytest.raises(Unsupported):
        Solver(hexstones.new_game("dehil", size=4))


def test_an_interrupted_run_resumes_from_its_checkpoint(tmp_path):
    game = random_position("dehil", 5, 7)
    assert game is not None
    path = tmp_path / "solve.json"

    class Stop(Exception):
        pass

    def stop_after_two(line: str) -> None:
        if "class of" in line and len(json.loads(path.read_text())["solved"]) >= 2:
            raise Stop

    with pytest.raises(Stop):
        solve(game, table_bits=BITS, checkpoint=path, progress=stop_after_two)
    saved = json.loads(path.read_text())["solved"]
    assert len(saved) == 2
    resumed = solve(game, table_bits=BITS, checkpoint=path)
    whole = solve(game, table_bits=BITS)
    assert (resumed.value, resumed.lower, resumed.upper) == (whole.value, whole.lower, whole.upper)
    # Solved classes are read back, not searched again.
    again = Solver(game, table_bits=BITS)
    solve(game, checkpoint=path, solver=again)
    assert again.counts.nodes == 0
    other = hexstones.new_game("dehil", size=3)
    with pytest.raises(ValueError, match="another position"):
        solve(other, table_bits=BITS, checkpoint=path)


def test_the_command_prints_the_value_and_the_best_move(capsys):
    game = random_position("dehil", 7, 6)
    assert game is not None
    code = main(["solve", "dehil", "--size", "3", "--moves", ",".join(game.moves),
                 "--table-bits", str(BITS), "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    value = minimax(game.copy())
    assert f"value: {value:+g}" in out
    assert "best: " in out and "nodes: " in out
    assert main(["solve", "droched", "--size", "3", "--quiet"]) == 2
    assert main(["solve", "dehil", "--size", "3", "--moves", "a1,a1", "--quiet"]) == 2


def test_the_command_has_help(capsys):
    with pytest.raises(SystemExit) as done:
        main(["solve", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: hexstones solve") and "%%" not in out
