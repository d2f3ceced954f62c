"""Compiling ahead: the kernels the app uses are compiled (or loaded from numba's cache)
when the server starts, not on the first click.

On a fresh install nothing is cached yet, and compiling the rules and the search takes a
minute or more of CPU (over three minutes of wall clock on a loaded 2-core machine): the
AI's first reply used to wait for it with "The AI is thinking..." shown. Each AI worker
process now runs :func:`compile_all` in a thread as it starts and reports each step done;
the page shows the progress while it lasts. Until the compiled search is ready, a worker
answers a move with the plain-Python search (:mod:`hexstones.ai.pysearch`, over the
rules' kernels, which are compiled first), so the first reply comes in seconds. The
server process warms its own rules kernels (:func:`exercise_rules`) in a background
thread once a worker has filled the cache (loading it takes about a second).
"""

from __future__ import annotations

import gc
from collections.abc import Callable

import hexstones
from hexstones.games import GAME_NAMES
from hexstones.svg import board_svg

WARM_SIZE = 3  # the smallest board: the machine code is the same for every side
WARM_MOVES = 12  # moves played on it, so that captures, undo and scoring are compiled too


def steps() -> list[tuple[str, str]]:
    """The warm-up's steps, in order: (game, "rules" or "search"). Every game's rules come
    first: they compile in seconds, and with them the plain-Python search can answer
    while the compiled search (the long part) is still compiling."""
    return [(name, "rules") for name in GAME_NAMES] + [(name, "search") for name in GAME_NAMES]


def exercise_rules(name: str) -> None:
    """Run what a page of game ``name`` asks of the rules: moves, legal moves, undo, the
    score, and the board with every overlay (which compiles the analysis)."""
    game = hexstones.new_game(name, size=WARM_SIZE)
    overlays = [o.name for o in game.overlays]
    for _ in range(WARM_MOVES):
        legal = game.legal_moves()
        if not legal or game.is_over:
            break
        game.play(legal[len(game.moves) * 7 % len(legal)])
        game.score()
        game.score_details()
        game.outcome()
    board_svg(game, overlays=overlays, move_number=len(game.moves) // 2)
    copy = game.copy()
    while copy.moves:
        copy.undo()


def settle_memory() -> None:
    """Once the server has loaded what it serves with (the app, the compiled kernels):
    collect, then freeze what is left out of the garbage collector's sight. The loaded
    modules (numba and LLVM's above all) are a few hundred thousand objects that live
    as long as the process; without this every full collection walked them all, a pause
    of 150-270 ms for every request in flight on a 2-core machine, a few times a minute."""
    gc.collect()
    gc.freeze()


def exercise_search(name: str) -> None:
    """Compile the AI's searches (both playout kinds: levels 1-2 play without knowledge;
    and the network search where the levels play it: not for weights that do not play by
    default, which the app never uses)."""
    from hexstones.ai import mcts, puct

    game = hexstones.new_game(name, size=WARM_SIZE)
    mcts.warm_up(game)
    if puct.plays_by_default(game, any_side=True):  # the warm-up board's side is not the one played
        puct.warm_up(game)


def compile_all(report: Callable[[int, int], None]) -> None:
    """Every step of :func:`steps`; ``report(done, total)`` after each."""
    todo = steps()
    for done, (name, part) in enumerate(todo, start=1):
        (exercise_rules if part == "rules" else exercise_search)(name)
        report(done, len(todo))
