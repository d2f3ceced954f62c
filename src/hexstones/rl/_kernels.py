"""Every use of the compiled core by ``hexstones.rl``, in one place.

The environments reach the rules only through what is here: the door to a game's core
state, the game-id dispatchers of :mod:`hexstones.core.dispatch`, what a state holds
beyond its stones and the batches of states, from the game API's compiled side
(:mod:`hexstones.games.compiled`), and the encoder of a position's features
(:func:`hexstones.games.observation.write_seen`, the network's encoder). The rules
themselves are never restated in ``rl``: a move is ``dispatch.play``, a mask is
``dispatch.legal_moves_tracked`` (``legal_moves`` helped by what ``track_board`` keeps
from move to move), an end is ``dispatch.is_over`` and ``dispatch.winner``. When the
core's interface changes, this module is what adapts.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.core.imputils import impl_ret_untracked
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

from hexstones.core import dispatch
from hexstones.core.common import (
    copy_into as _copy_into,
    rand_below,  # noqa: F401  (the core's xorshift64*)
    ring_of,
    track_board,  # noqa: F401  (follows a board for legal_moves_tracked)
)
from hexstones.core.layout import OK  # noqa: F401  (re-exported: the "played" code)
from hexstones.games.compiled import (  # noqa: F401  (re-exported for the engine)
    Geometry,  # the engine builds geometry tuples of the arena's parts
    State,  # and the batch's state tuple of them
    batch_parts,
    board_rows,
    passes,
    ply,
    ply_of,
    prison,
    special_holder,
    state_at,
    state_at_py,
    to_move,
)
from hexstones.games.observation import write_seen  # noqa: F401  (the observations' writer)


class Door(NamedTuple):
    """What the environments need about a game to run it in the kernels."""

    game_id: int      # for the dispatchers (opaque: passed on, never compared)
    geometry: Geometry  # the geometry tuple of the side (shared, read only)
    state: State      # a copy of the game's core state (the caller's to change)
    num_points: int
    num_actions: int


def door(game) -> Door:
    """The compiled side of ``game`` (a game object of the game API), through its door
    ``game.compiled()``."""
    found = game.compiled()
    return Door(found.game_id, found.geometry, found.state, found.num_points, found.num_actions)


def ring_codes(geo, board: np.ndarray) -> np.ndarray:
    """The ring code of every point of ``board`` (int32[P]; see ``track_board``)."""
    return np.array([ring_of(board, geo.ring_nbr, geo.ring_edge, p)
                     for p in range(board.shape[0])], np.int32)


def departures(state) -> np.ndarray:
    """``left`` for ``track_board`` of a position with a history: uint8[2P], non-zero at
    ``(c - 1) * P + p`` if a stone of colour ``c`` left ``p`` in one of its moves."""
    P = state.board.shape[0]
    left = np.zeros(2 * P, np.uint8)
    boards = state.hist_board[board_rows(state)]
    for before, after in zip(boards[:-1], boards[1:], strict=True):
        for c in (1, 2):
            left[(c - 1) * P:c * P] |= (before == c) & (after != c)
    return left


@intrinsic
def carve(typingctx, arena, offset, shape, dtype):
    """``carve(arena, offset, shape, dtype)``: a C-ordered array of ``dtype`` and
    ``shape`` (a tuple) over the bytes of the uint8 array ``arena`` from byte ``offset``,
    a view valid while the caller holds ``arena`` (never returned). No checks: the caller's layout places every part
    inside the arena. A few instructions, where numba's ``view`` and ``reshape`` cost
    about 65 ns each (a step carves some forty arrays)."""
    if not isinstance(shape, types.UniTuple) or not isinstance(shape.dtype, types.Integer):
        return None
    element = dtype.instance_type
    ndim = shape.count
    result = types.Array(element, ndim, "C")

    def codegen(context, builder, signature, args):
        source = context.make_array(signature.args[0])(context, builder, args[0])
        out = context.make_array(result)(context, builder)
        intp = context.get_value_type(types.intp)
        dims = [context.cast(builder, d, shape.dtype, types.intp)
                for d in cgutils.unpack_tuple(builder, args[2], ndim)]
        itemsize = context.get_abi_sizeof(context.get_data_type(element))
        strides = [intp(itemsize)] * ndim
        for k in range(ndim - 2, -1, -1):
            strides[k] = builder.mul(strides[k + 1], dims[k + 1])
        start = context.cast(builder, args[1], signature.args[1], types.intp)
        data = builder.bitcast(builder.gep(source.data, [start]),
                               context.get_data_type(element).as_pointer())
        # No meminfo: the view is not reference counted (some forty atomic counts a step
        # less), so it must not outlive the call that holds ``arena``: the engine's views
        # never leave the compiled step.
        populate_array(out, data=data, shape=dims, strides=strides, itemsize=intp(itemsize),
                       meminfo=None, parent=None)
        return impl_ret_untracked(context, builder, result, out._getvalue())

    return result(arena, offset, shape, dtype), codegen


# -- the kernels (game id first) ------------------------------------------------------

play = dispatch.play
legal_moves = dispatch.legal_moves
legal_moves_tracked = dispatch.legal_moves_tracked
is_over = dispatch.is_over
winner = dispatch.winner


@njit(cache=True, inline="always")
def copy_into(dst, src):
    """Make ``dst`` equal to ``src`` (same side; ``dst`` has room for ``src``'s history)."""
    _copy_into(dst, src)


copy_into_py = _copy_into


# -- what a position holds beyond its stones: to_move, ply, special_holder, passes,
# prison (imported above, from the game API's compiled side) ----------------------------

@njit(cache=True, inline="always")
def board_of(st):
    """The board: 0 empty, 1 black, 2 white, by point."""
    return st.board


def actions_played(state, since: int) -> list[int]:
    """The moves of ``state``'s history after its first ``since`` moves."""
    return state.hist_move[since + 1:ply_of(state) + 1].tolist()
