"""Building start states (plain Python: runs once per game)."""

from __future__ import annotations

import numpy as np

from hexstones.board import get_board
from hexstones.core.layout import (
    BLACK,
    DROCHED,
    GAME_IDS,
    M_DEAD,
    M_GAME,
    M_KOMI,
    M_LAST,
    M_OVER,
    M_PRISON,
    M_TO_MOVE,
    S_BOARD,
    S_HIST_BOARD,
    S_HIST_HASH,
    S_HIST_META,
    S_META,
    WHITE,
    allocate_state,
    default_capacity,
    geometry,
)


def start_state(game: str, size: int, *, komi: int = 0, prison: int = 0,
                handicap: tuple[int, ...] = (), capacity: int | None = None):
    """The state before the first move. ``handicap`` lists point indices of black stones
    (Droched; White then moves first). Values must already be validated by the caller."""
    gid = GAME_IDS[game]
    get_board(size)  # validates the side
    capacity = default_capacity(size) if capacity is None else capacity
    st = allocate_state(size, capacity)
    board, meta = st[S_BOARD], st[S_META]
    zobrist = geometry(size)[3]
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
    st[S_HIST_HASH][0] = h
    st[S_HIST_BOARD][0] = board
    st[S_HIST_META][0] = meta
    return st
