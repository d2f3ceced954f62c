"""Building, growing and copying states (plain Python: runs once per game or per growth)."""

from __future__ import annotations

import numpy as np

from hexstones.board import get_board
from hexstones.core.common import rebuild_table
from hexstones.core.layout import (
    BLACK,
    DROCHED,
    GAME_IDS,
    M_DEAD,
    M_GAME,
    M_KOMI,
    M_LAST,
    M_OVER,
    M_PLY,
    M_PRISON,
    M_TO_MOVE,
    MAX_CAPACITY,
    WHITE,
    State,
    allocate_state,
    capacity_of,
    default_capacity,
    geometry,
    side_of,
)


def start_state(game: str, size: int, *, komi: int = 0, prison: int = 0,
                handicap: tuple[int, ...] = (), capacity: int | None = None):
    """The state before the first move. ``handicap`` lists point indices of black stones
    (Droched; White then moves first). Values must already be validated by the caller."""
    gid = GAME_IDS[game]
    get_board(size)  # validates the side
    capacity = default_capacity(size) if capacity is None else capacity
    st = allocate_state(size, capacity)
    board, meta = st.board, st.meta
    zobrist = geometry(size).zobrist
    meta[M_GAME] = gid
    meta[M_TO_MOVE] = BLACK
    meta[M_KOMI] = komi
    meta[M_LAST] = -1
    meta[M_OVER] = -1
    h = np.uint64(0)
    if gid == DROCHED:
        meta[M_PRISON + BLACK - 1] = prison
        for p in handicap:
            board[p] = BLACK
            h ^= zobrist[BLACK, p]
        if handicap:
            meta[M_TO_MOVE] = WHITE
            meta[M_DEAD] = 1  # check every group's bridge on the first placement
    st.hist_hash[0] = h
    st.hist_board[0] = board
    st.hist_meta[0] = meta
    return st


def empty_like(state: State) -> State:
    """An empty state of ``state``'s board side and history room (for kernels that copy a
    position into it themselves)."""
    return allocate_state(side_of(state), capacity_of(state))


def grow_state(state: State, capacity: int | None = None) -> State:
    """A copy of ``state`` with room for ``capacity`` moves (None: twice its room; history
    kept), or for ``MAX_CAPACITY`` if that is less and still more than the state has."""
    size = side_of(state)
    if capacity is None:
        capacity = 2 * capacity_of(state)
    if capacity > MAX_CAPACITY > capacity_of(state):
        capacity = MAX_CAPACITY
    bigger = allocate_state(size, capacity)
    rows = int(state.meta[M_PLY]) + 1
    bigger.board[:] = state.board
    bigger.meta[:] = state.meta
    for name in ("hist_hash", "hist_board", "hist_meta", "hist_move"):
        getattr(bigger, name)[:rows] = getattr(state, name)[:rows]
    rebuild_table(bigger)
    return bigger


def copy_state(state):
    """An independent copy of ``state`` (every array copied)."""
    return State(*(a.copy() for a in state))
