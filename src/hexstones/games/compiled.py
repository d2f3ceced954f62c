"""What compiled code above ``games/`` reads of a core state, and the states it works in.

Code that runs the kernels itself (the AI's searches, the network's features, the RL
environments) takes core states from the game (``game.compiled()``,
:class:`hexstones.games.engine.Compiled`) and from the builders here, and reads what a
position holds beyond its stones through the accessors here: never the core's meta slot
numbers or its state-building functions, which are the core's layout and may change
with it. The accessors are compiled and inlined into their callers (the same machine
code as reading the slot there), so a kernel of the search pays nothing for them.

A compiled module that uses them compiles this file into itself: it lists this file
among the sources of its numba cache (:func:`hexstones.core.cache.drop_stale_cache`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from hexstones.core.layout import (
    M_BOARD_ROW,
    M_GAME,
    M_LAST,
    M_PASSES,
    M_PLY,
    M_PRISON,
    M_SPECIAL,
    M_TO_MOVE,
    Geometry,
    State,
    allocate_state,
)

__all__ = ["SOURCE", "Geometry", "State", "ply", "to_move", "last_move", "game_of",
           "special_holder", "passes", "prison", "last_move_at", "to_move_at", "board_row_at",
           "ply_of", "board_rows", "batch_parts", "state_at", "state_at_py"]

# This file, for the numba cache checks of the compiled modules that inline it.
SOURCE = Path(__file__).resolve()


# -- what a position holds beyond its stones (compiled, inlined) -------------------------

@njit(cache=True, inline="always")
def ply(st):
    """Moves played: the state after them is history row ``ply(st)``."""
    return st.meta[M_PLY]


@njit(cache=True, inline="always")
def to_move(st):
    """The side to move: 1 black, 2 white."""
    return st.meta[M_TO_MOVE]


@njit(cache=True, inline="always")
def last_move(st):
    """The last move played (-1 none)."""
    return st.meta[M_LAST]


@njit(cache=True, inline="always")
def game_of(st):
    """The game id the state belongs to (opaque: for the dispatchers)."""
    return st.meta[M_GAME]


@njit(cache=True, inline="always")
def special_holder(st):
    """Who holds the game's one-off privilege: Keil's button, Dehil's first pass (1 black,
    2 white, 0 nobody; always 0 in Droched)."""
    return st.meta[M_SPECIAL]


@njit(cache=True, inline="always")
def passes(st):
    """Consecutive passes just played (0 in Droched, which has no pass)."""
    return st.meta[M_PASSES]


@njit(cache=True, inline="always")
def prison(st, color):
    """Stones of colour ``color`` (1, 2) in the prison (0 in games without one)."""
    return st.meta[M_PRISON + color - 1]


@njit(cache=True, inline="always")
def last_move_at(st, row):
    """The last move before the position of history row ``row`` (-1 none)."""
    return st.hist_meta[row, M_LAST]


@njit(cache=True, inline="always")
def to_move_at(st, row):
    """The side to move in the position of history row ``row`` (1 black, 2 white)."""
    return st.hist_meta[row, M_TO_MOVE]


@njit(cache=True, inline="always")
def board_row_at(st, row):
    """The history row that holds the board of the position of row ``row`` (a move that
    leaves the board as it was stores no board of its own)."""
    return st.hist_meta[row, M_BOARD_ROW]


# -- the same from Python ----------------------------------------------------------------

def ply_of(state: State) -> int:
    """Moves played in ``state``."""
    return int(state.meta[M_PLY])


def board_rows(state: State) -> np.ndarray:
    """For each position of ``state``'s history, the history row that holds its board
    (:func:`board_row_at`), first move to last."""
    return state.hist_meta[:ply_of(state) + 1, M_BOARD_ROW]


# -- many states side by side (the RL environments' batches) -----------------------------

def batch_parts(size: int, capacity: int, count: int) -> list[tuple[np.ndarray, tuple]]:
    """The arrays of ``count`` empty states of side ``size`` stacked along a first axis,
    as ``(template, shape)`` per slot of the state tuple: an array of ``shape`` holds the
    slot of every state, each equal to ``template`` (a fresh state's). :func:`state_at`
    hands the kernels state ``i`` as views of them (every view C-contiguous, the same
    array types as a single state)."""
    return [(a, (count,) + a.shape) for a in allocate_state(size, capacity)]


@njit(cache=True, inline="always")
def state_at(batch, i):
    """State ``i`` of a batch (a :class:`State` of stacked arrays): views into its arrays."""
    return State(batch.board[i], batch.meta[i], batch.hist_hash[i], batch.hist_board[i],
                 batch.hist_meta[i], batch.hist_move[i], batch.work[i], batch.stamp[i],
                 batch.table[i], batch.hist_slot[i])


def state_at_py(batch: State, i: int) -> State:
    """:func:`state_at` from Python."""
    return State(*(a[i] for a in batch))
