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

def _inlined(read, name: str, doc: str):
    """``read`` compiled as the accessor ``name`` (``doc``: what it answers), inlined into
    its callers: its slot is a constant there, as if the caller read the slot itself."""
    read.__name__ = read.__qualname__ = name
    read.__doc__ = doc
    return njit(cache=True, inline="always")(read)


def _meta_reader(name: str, slot: int, doc: str):
    """An accessor of the position's meta slot ``slot``."""
    def read(st):
        return st.meta[slot]
    return _inlined(read, name, doc)


def _history_reader(name: str, slot: int, doc: str):
    """An accessor of meta slot ``slot`` of the position of a history row."""
    def read(st, row):
        return st.hist_meta[row, slot]
    return _inlined(read, name, doc)


ply = _meta_reader("ply", M_PLY, "Moves played: the state after them is history row ``ply(st)``.")
to_move = _meta_reader("to_move", M_TO_MOVE, "The side to move: 1 black, 2 white.")
last_move = _meta_reader("last_move", M_LAST, "The last move played (-1 none).")
game_of = _meta_reader("game_of", M_GAME,
                       "The game id the state belongs to (opaque: for the dispatchers).")
special_holder = _meta_reader(
    "special_holder", M_SPECIAL, "Who holds the game's one-off privilege: Keil's button, "
    "Dehil's first pass (1 black, 2 white, 0 nobody; always 0 in Droched).")
passes = _meta_reader("passes", M_PASSES,
                      "Consecutive passes just played (0 in Droched, which has no pass).")
last_move_at = _history_reader(
    "last_move_at", M_LAST, "The last move before the position of history row ``row`` (-1 none).")
to_move_at = _history_reader(
    "to_move_at", M_TO_MOVE,
    "The side to move in the position of history row ``row`` (1 black, 2 white).")
board_row_at = _history_reader(
    "board_row_at", M_BOARD_ROW, "The history row that holds the board of the position of row "
    "``row`` (a move that leaves the board as it was stores no board of its own).")


@njit(cache=True, inline="always")
def prison(st, color):
    """Stones of colour ``color`` (1, 2) in the prison (0 in games without one)."""
    return st.meta[M_PRISON + color - 1]


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
