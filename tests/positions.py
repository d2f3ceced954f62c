"""Positions for the game tests: random games drawn from a seed, and a game's snapshot.

Plain functions, shared by the per-game tests (tests/test_keil.py, ...), the tests of the
game API that every game passes (tests/test_game_api.py) and the SGF tests.
"""

from __future__ import annotations

import random

import hexstones
from hexstones.core.common import board_at
from hexstones.core.layout import (
    M_PLY,
    M_TO_MOVE,
    ROW_BITS,
    S_HIST_HASH,
    S_HIST_META,
    S_TABLE,
)
from hexstones.games.base import BLACK, WHITE

# Each game's balance option and the values the property tests draw it from.
RANDOM_BALANCE = {"keil": ("komi", (-3, 8)), "dehil": ("komi", (-3, 3)), "droched": ("prison", (0, 2))}
DEHIL_PLACE_CHANCE = 0.93  # Dehil passes rarely, so that its games run long enough to build triangles


def play_randomly(game, rng: random.Random, moves: int):
    """``game`` after up to ``moves`` legal moves drawn uniformly by ``rng`` (fewer if it ends)."""
    for _ in range(moves):
        legal = game.legal_moves()
        if not legal:
            break
        game.play(rng.choice(legal))
    return game


def random_game(name: str, size: int, seed: int, moves: int, **options):
    """A new game of ``name`` (default options unless given), then ``moves`` random moves."""
    return play_randomly(hexstones.new_game(name, size=size, **options), random.Random(seed), moves)


def random_length_game(name: str, seed: int, max_moves: int = 40, size: int = 4):
    """A new game of ``name`` with fewer than ``max_moves`` random moves, the number drawn from
    the same seed."""
    rng = random.Random(seed)
    return play_randomly(hexstones.new_game(name, size=size), rng, rng.randrange(max_moves))


def varied_game(name: str, seed: int, size: int, length: int):
    """The property tests' random position: a random balance (``RANDOM_BALANCE``), then up
    to ``length`` random moves; Dehil passes only now and then."""
    rng = random.Random(seed)
    option, (low, high) = RANDOM_BALANCE[name]
    game = hexstones.new_game(name, size=size, **{option: rng.randint(low, high)})
    for _ in range(length):
        if game.is_over:
            break
        legal = game.legal_moves()
        if not legal:  # Droched: a player with no legal action has lost
            break
        if name == "dehil":
            placements = legal[:-1]
            game.play(rng.choice(placements) if placements and rng.random() < DEHIL_PLACE_CHANCE
                      else "pass")
        else:
            game.play(rng.choice(legal))
    return game


# What only some games show, beside the API every game has.
GAME_EXTRAS = ("button", "first_pass", "released", "last_imprisoned", "last_captured")


def snapshot(game) -> tuple:
    """Everything the game API shows about a game, and the state its position is stored as:
    two games with equal snapshots are the same game to every caller."""
    extras = tuple((a, getattr(game, a)) for a in GAME_EXTRAS if hasattr(game, a))
    return (list(game.moves), game.to_move, game.stones(), game.legal_moves(), game.is_over,
            game.score(), game.score_details(), game.result(), game.special_holder, game.passes,
            game.prison, game.analysis(), game.state, extras)


def turn_ends(game):
    """The boards the repetition rules count, as the core state records them: per player,
    how often each board ended one of their turns, plus the position table's entries
    (hash, history row), which must name exactly those rows."""
    state = game.compiled().state
    ply = int(state[1][M_PLY])
    ends = {BLACK: {}, WHITE: {}}
    for row in range(1, ply + 1):
        mover = BLACK if state[S_HIST_META][row - 1, M_TO_MOVE] == 1 else WHITE
        board = tuple(int(c) for c in board_at(state, row))
        ends[mover][board] = ends[mover].get(board, 0) + 1
    low = (1 << ROW_BITS) - 1
    entries = [int(e) for e in state[S_TABLE] if e != 0]
    table = sorted((e & ~low, e & low) for e in entries)
    assert table == sorted((int(state[S_HIST_HASH][row]) & ~low, row) for row in range(1, ply + 1))
    return ends
