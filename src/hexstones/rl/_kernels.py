"""Every use of the compiled core by ``hexstones.rl``, in one place.

The environments reach the rules only through what is here: the door to a game's core
state, the game-id dispatchers of :mod:`hexstones.core.dispatch`, and the meta slots of
:mod:`hexstones.core.layout`. The rules themselves are never restated in ``rl``: a move is
``dispatch.play``, a mask is ``dispatch.legal_moves``, an end is ``dispatch.is_over`` and
``dispatch.winner``. When the core's interface changes, this module is what adapts.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from hexstones.core import dispatch
from hexstones.core.common import (
    copy_into as _copy_into,
    rand_below,  # noqa: F401  (the core's xorshift64*)
)
from hexstones.core.layout import (
    M_PASSES,
    M_PLY,
    M_PRISON,
    M_SPECIAL,
    M_TO_MOVE,
    OK,  # noqa: F401  (re-exported: the "played" code)
    S_BOARD,
    S_HIST_BOARD,
    S_HIST_HASH,
    S_HIST_META,
    S_HIST_MOVE,
    S_HIST_SLOT,
    S_META,
    S_STAMP,
    S_TABLE,
    S_WORK,
    State,
    allocate_state,
)


class Door(NamedTuple):
    """What the environments need about a game to run it in the kernels."""

    game_id: int      # for the dispatchers (opaque: passed on, never compared)
    geometry: tuple   # the geometry tuple of the side (shared, read only)
    state: tuple      # a copy of the game's core state (the caller's to change)
    num_points: int
    num_actions: int


def door(game) -> Door:
    """The compiled side of ``game`` (a game object of the game API), through its door
    ``game.compiled()``."""
    found = game.compiled()
    return Door(found.game_id, found.geometry, found.state, found.num_points, found.num_actions)


def allocate_batch(size: int, capacity: int, count: int) -> tuple:
    """``count`` empty states of side ``size`` stacked along a first axis: one array per
    slot of the state tuple, so :func:`state_at` can hand the kernels env ``i``'s state
    as views (every view C-contiguous, the same array types as a single state)."""
    template = allocate_state(size, capacity)
    return tuple(np.broadcast_to(a, (count,) + a.shape).copy() for a in template)


@njit(cache=True, inline="always")
def state_at(batch, i):
    """Env ``i``'s state tuple: views into the stacked arrays of :func:`allocate_batch`."""
    return State(batch[S_BOARD][i], batch[S_META][i], batch[S_HIST_HASH][i],
                 batch[S_HIST_BOARD][i], batch[S_HIST_META][i], batch[S_HIST_MOVE][i],
                 batch[S_WORK][i], batch[S_STAMP][i], batch[S_TABLE][i],
                 batch[S_HIST_SLOT][i])


def state_at_py(batch, i: int) -> tuple:
    """:func:`state_at` from Python."""
    return State(*(a[i] for a in batch))


# -- the kernels (game id first) ------------------------------------------------------

play = dispatch.play
legal_moves = dispatch.legal_moves
is_over = dispatch.is_over
winner = dispatch.winner


@njit(cache=True, inline="always")
def copy_into(dst, src):
    """Make ``dst`` equal to ``src`` (same side; ``dst`` has room for ``src``'s history)."""
    _copy_into(dst, src)


copy_into_py = _copy_into


# -- what a position holds beyond its stones (meta slots) -------------------------------

@njit(cache=True, inline="always")
def board_of(st):
    """The board: 0 empty, 1 black, 2 white, by point."""
    return st[S_BOARD]


@njit(cache=True, inline="always")
def to_move(st):
    """1 black, 2 white."""
    return st[S_META][M_TO_MOVE]


@njit(cache=True, inline="always")
def ply(st):
    """Moves played."""
    return st[S_META][M_PLY]


@njit(cache=True, inline="always")
def special_holder(st):
    """Who holds the game's one-off privilege: Keil's button, Dehil's first pass (1 black,
    2 white, 0 nobody; always 0 in Droched)."""
    return st[S_META][M_SPECIAL]


@njit(cache=True, inline="always")
def passes(st):
    """Consecutive passes just played (0 in Droched, which has no pass)."""
    return st[S_META][M_PASSES]


@njit(cache=True, inline="always")
def prison(st, color):
    """Stones of colour ``color`` (1, 2) in the prison (0 in games without one)."""
    return st[S_META][M_PRISON + color - 1]


def ply_of(state) -> int:
    return int(state[S_META][M_PLY])


def actions_played(state, since: int) -> list[int]:
    """The moves of ``state``'s history after its first ``since`` moves."""
    return state[S_HIST_MOVE][since + 1:ply_of(state) + 1].tolist()
