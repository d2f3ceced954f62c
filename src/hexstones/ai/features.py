"""The network's inputs: one row of features per board point, seen by the side to move.

:func:`write_features` reads a core state (``game.compiled()``: the :class:`State` and
:class:`Geometry` named tuples of :mod:`hexstones.core.layout`) and is compiled, so the
search can encode its leaves inside its own compiled loop. :func:`features_of` is the
same through the game API. The rules are never restated: legal moves come from the
game's kernel through :mod:`hexstones.core.dispatch`, the rules' state (special holder,
passes, prison) through the accessors of :mod:`hexstones.games.compiled`.

Every feature is per point (``out[p, f]``); the global ones (side to move, special
holder, passes, prison, balance, board size) are written on every point, so the network
reads them through its convolutions and its global pooling alike. The features are
colour-relative: "own" is the side to move's.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from hexstones.core import dispatch
from hexstones.core.layout import geometry
from hexstones.games import compiled as G

FEATURES = (
    "own stone",           # 1 where the side to move has a stone
    "opponent stone",      # 1 where the opponent has a stone
    "legal placement",     # 1 where the side to move may play (the kernels' legal moves)
    "on edge",             # 1 on the board's sides
    "on board",            # 1 everywhere (off-board neighbours read 0: the edge is seen)
    "to move is white",    # 1 if the side to move plays White
    "own special",         # 1 if the side to move holds the one-time privilege (Keil's
                           # button, Dehil's first pass)
    "opponent special",    # 1 if the opponent holds it
    "passes",              # consecutive passes just played / 2
    "special legal",       # 1 if the special move (button, pass, release) is legal
    "own prison",          # the side to move's stones in the prison / 10 (Droched)
    "opponent prison",     # the opponent's / 10
    "balance",             # the game's balance value (komi, prison stones) / 10
    "balance for mover",   # the balance with the sign of the side to move: + for White
                           # to move, - for Black (a komi for White is for the mover if White)
    "last move",           # 1 on the point of the last move
    "board size",          # (sqrt(P) - 10) / 5, the board's size for size-independent play
)
NUM_FEATURES = len(FEATURES)
(F_OWN, F_OPP, F_LEGAL, F_EDGE, F_ONES, F_WHITE, F_OWN_SPECIAL, F_OPP_SPECIAL, F_PASSES,
 F_SPECIAL_LEGAL, F_OWN_PRISON, F_OPP_PRISON, F_BALANCE, F_BALANCE_MOVER, F_LAST,
 F_SIZE) = range(NUM_FEATURES)

BALANCE_SCALE = 10.0
PRISON_SCALE = 10.0


@njit(cache=True)
def write_features(geo, st, balance, out):
    """Write the features of the position in ``st`` into ``out`` (float32 ``[P, C]``),
    seen by the side to move; ``balance`` is the game's balance value in points.
    ``st``'s scratch rows are used (the legal-move test); its position is unchanged."""
    board = st.board
    P = board.shape[0]
    me = G.to_move(st)
    you = 3 - me
    legal = np.empty(P + 1, np.int32)
    count = dispatch.legal_moves(G.game_of(st), geo, st, legal)
    special_legal = 0.0
    out[:, :] = 0.0
    for i in range(count):
        a = legal[i]
        if a < P:
            out[a, F_LEGAL] = 1.0
        else:
            special_legal = 1.0
    holder = G.special_holder(st)
    size_value = (math.sqrt(P) - 10.0) / 5.0
    white = 1.0 if me == 2 else 0.0
    for p in range(P):
        c = board[p]
        if c == me:
            out[p, F_OWN] = 1.0
        elif c == you:
            out[p, F_OPP] = 1.0
        out[p, F_EDGE] = 1.0 if geo.on_edge[p] else 0.0
        out[p, F_ONES] = 1.0
        out[p, F_WHITE] = white
        out[p, F_OWN_SPECIAL] = 1.0 if holder == me else 0.0
        out[p, F_OPP_SPECIAL] = 1.0 if holder == you else 0.0
        out[p, F_PASSES] = G.passes(st) * 0.5
        out[p, F_SPECIAL_LEGAL] = special_legal
        out[p, F_OWN_PRISON] = G.prison(st, me) / PRISON_SCALE
        out[p, F_OPP_PRISON] = G.prison(st, you) / PRISON_SCALE
        out[p, F_BALANCE] = balance / BALANCE_SCALE
        out[p, F_BALANCE_MOVER] = (balance if me == 2 else -balance) / BALANCE_SCALE
        out[p, F_SIZE] = size_value
    last = G.last_move(st)
    if 0 <= last < P:
        out[last, F_LAST] = 1.0


def features_of(game) -> np.ndarray:
    """float32 ``[P, NUM_FEATURES]``: the features of ``game``'s position (game API)."""
    found = game.compiled()
    out = np.empty((found.num_points, NUM_FEATURES), np.float32)
    write_features(found.geometry, found.state, float(game.balance_value), out)
    return out


def geometry_of(game) -> np.ndarray:
    """The neighbour table ``int32[P, 6]`` (-1 off the board) the network convolves over."""
    return geometry(game.size).nbr


def balances_of(features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(balance, white)`` of each position of ``features`` (``[N, P, C]``): the balance
    value its features were written with (whole numbers) and whether White was to move."""
    balance = np.rint(features[:, 0, F_BALANCE] * BALANCE_SCALE).astype(np.int64)
    return balance, features[:, 0, F_WHITE] > 0.5


def set_balances(features: np.ndarray, rows: np.ndarray, balance: np.ndarray) -> None:
    """Rewrite, in place, the balance features of positions ``rows`` of ``features``
    (``[N, P, C]``) as :func:`write_features` writes them for the balance values
    ``balance`` (one per row); every other feature is independent of the balance."""
    # Divided in float64 and then rounded, as write_features does: the same bits.
    value = (np.asarray(balance, np.float64) / BALANCE_SCALE).astype(np.float32)[:, None]
    white = features[rows, 0, F_WHITE][:, None] > 0.5
    features[rows, :, F_BALANCE] = value
    features[rows, :, F_BALANCE_MOVER] = np.where(white, value, -value)
