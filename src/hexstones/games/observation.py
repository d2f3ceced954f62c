"""The one encoder of a position: a row of features per board point, seen by one side.

Every learner reads a position through it (OpenSpiel's "observer", one per game, used by
every algorithm): the network (:mod:`hexstones.ai.net`, fed by the PUCT search and by
training) reads the rows per point, the learning environments of :mod:`hexstones.rl`
read the same rows scattered into a square grid (``docs/rl.md``).

:func:`write_features` is compiled, so that the search encodes its leaves inside its own
compiled loop; :func:`write_seen` is its core, for compiled callers that have the legal
moves already (the RL environments' step, from its action mask) or want the rows placed
elsewhere (the grid); :func:`features_of` is the same through the game API, seen by
either player. The rules are never restated:
legal moves come from the game's kernel through :mod:`hexstones.core.dispatch`, the
rules' state (special holder, passes, prison) through the accessors of
:mod:`hexstones.games.compiled`.

Every feature is per point (``out[p, f]``); the global ones (the observer's colour,
special holder, passes, prison, balance, board size) are written on every point, so a
network reads them through its convolutions and its global pooling alike. The features
are relative to the *observer*: "own" is the observer's. The network's observer is
always the side to move; an environment may observe a position for the other player
(:func:`other_view`). The shipped networks were trained on these exact values: a change
of any column's meaning or scale is a change of their inputs.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from numba import njit

from hexstones.core import dispatch
from hexstones.core.cache import core_sources, drop_stale_cache
from hexstones.games import compiled as G
from hexstones.games.base import BLACK, COLORS

# The writers compile the core's legal moves and the accessors of games/compiled.py into
# themselves: their cache goes when any of those sources changes (hexstones.core.cache).
SOURCE = Path(__file__).resolve()
drop_stale_cache(SOURCE.parent, core_sources() + [G.SOURCE, SOURCE],
                 "observation-sources.sha256", ("observation.*.nb[ic]",))

FEATURES = (
    "own stone",           # 1 where the observer has a stone
    "opponent stone",      # 1 where the opponent has a stone
    "legal placement",     # 1 where the player to move may play (the kernels' legal moves)
    "on edge",             # 1 on the board's sides
    "on board",            # 1 everywhere (off-board neighbours read 0: the edge is seen)
    "observer is white",   # 1 if the observer plays White (the network's: White to move)
    "own special",         # 1 if the observer holds the one-time privilege (Keil's
                           # button, Dehil's first pass)
    "opponent special",    # 1 if the opponent holds it
    "passes",              # consecutive passes just played / 2
    "special legal",       # 1 if the special move (button, pass, release) is legal
    "own prison",          # the observer's stones in the prison / 10 (Droched)
    "opponent prison",     # the opponent's / 10
    "balance",             # the game's balance value (komi, prison stones) / 10
    "balance for observer",  # the balance with the observer's sign: + for White, - for
                           # Black (a komi for White is for the observer if White)
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
def write_seen(geo, st, balance, me, legal, out, rows):
    """Write the features of the position in ``st`` seen by colour ``me`` (1 black,
    2 white) into ``out`` (float32 ``[R, C]``): point ``p``'s in row ``rows[p]``, or row
    ``p`` where ``rows`` is None; other rows are left as they are. ``legal`` is the
    position's legal actions as a mask (``[P + 1]``, non-zero where legal, the special
    move last: the kernels' legal moves, as the RL environments' action mask holds
    them); ``balance`` is the game's balance value in points."""
    board = st.board
    P = board.shape[0]
    you = 3 - me
    holder = G.special_holder(st)
    one = np.float32(1.0)
    zero = np.float32(0.0)
    # Each value computed in float64 and stored as float32, as the network was trained.
    white = np.float32(1.0 if me == 2 else 0.0)
    own_special = np.float32(1.0 if holder == me else 0.0)
    opp_special = np.float32(1.0 if holder == you else 0.0)
    passes = np.float32(G.passes(st) * 0.5)
    special_legal = one if legal[P] != 0 else zero
    own_prison = np.float32(G.prison(st, me) / PRISON_SCALE)
    opp_prison = np.float32(G.prison(st, you) / PRISON_SCALE)
    balance_value = np.float32(balance / BALANCE_SCALE)
    balance_mine = np.float32((balance if me == 2 else -balance) / BALANCE_SCALE)
    size_value = np.float32((math.sqrt(P) - 10.0) / 5.0)
    on_edge = geo.on_edge
    for p in range(P):
        r = p if rows is None else rows[p]
        c = board[p]
        out[r, F_OWN] = one if c == me else zero
        out[r, F_OPP] = one if c == you else zero
        out[r, F_LEGAL] = one if legal[p] != 0 else zero
        out[r, F_EDGE] = one if on_edge[p] else zero
        out[r, F_ONES] = one
        out[r, F_WHITE] = white
        out[r, F_OWN_SPECIAL] = own_special
        out[r, F_OPP_SPECIAL] = opp_special
        out[r, F_PASSES] = passes
        out[r, F_SPECIAL_LEGAL] = special_legal
        out[r, F_OWN_PRISON] = own_prison
        out[r, F_OPP_PRISON] = opp_prison
        out[r, F_BALANCE] = balance_value
        out[r, F_BALANCE_MOVER] = balance_mine
        out[r, F_LAST] = zero
        out[r, F_SIZE] = size_value
    last = G.last_move(st)
    if 0 <= last < P:
        out[last if rows is None else rows[last], F_LAST] = one


@njit(cache=True)
def legal_mask(gid, geo, st):
    """The legal actions of the position in ``st`` as :func:`write_seen` takes them:
    int8 ``[P + 1]``, 1 where legal (``st``'s scratch rows are used; its position is
    unchanged)."""
    P = st.board.shape[0]
    moves = np.empty(P + 1, np.int32)
    count = dispatch.legal_moves(gid, geo, st, moves)
    mask = np.zeros(P + 1, np.int8)
    for i in range(count):
        mask[moves[i]] = 1
    return mask


@njit(cache=True)
def write_features(geo, st, balance, out):
    """Write the features of the position in ``st`` into ``out`` (float32 ``[P, C]``),
    seen by the side to move: the network's inputs. ``balance`` is the game's balance
    value in points. ``st``'s scratch rows are used (the legal-move test); its position
    is unchanged."""
    write_seen(geo, st, balance, G.to_move(st), legal_mask(G.game_of(st), geo, st), out, None)


def features_of(game, observer: str | None = None) -> np.ndarray:
    """float32 ``[P, NUM_FEATURES]``: the features of ``game``'s position (game API), seen
    by ``observer`` (``"black"``, ``"white"``; default the player to move, as the
    network sees it)."""
    observer = game.to_move if observer is None else observer
    if observer not in COLORS:
        raise ValueError(f"the observer is 'black' or 'white', not {observer!r}")
    found = game.compiled()
    legal = legal_mask(found.game_id, found.geometry, found.state)
    out = np.empty((found.num_points, NUM_FEATURES), np.float32)
    write_seen(found.geometry, found.state, float(game.balance_value),
               1 if observer == BLACK else 2, legal, out, None)
    return out


# -- the other player's view -------------------------------------------------------------

# Seeing a position through the other player's eyes: the own/opponent columns swap,
# "observer is white" becomes "on board" minus itself and the balance for the observer
# changes sign; the rest (legal moves, passes, edge, balance, last move, size) are the
# position's, the same for both.
OTHER_VIEW = np.arange(NUM_FEATURES)
for _a, _b in ((F_OWN, F_OPP), (F_OWN_SPECIAL, F_OPP_SPECIAL), (F_OWN_PRISON, F_OPP_PRISON)):
    OTHER_VIEW[_a], OTHER_VIEW[_b] = _b, _a
OTHER_VIEW.setflags(write=False)


def other_view(features: np.ndarray) -> np.ndarray:
    """The features (``[..., NUM_FEATURES]``: rows per point, or a grid of them whose
    off-board cells are 0) of the same position seen by the other player, a new array:
    the bits :func:`write_seen` writes for that player."""
    seen = features[..., OTHER_VIEW]
    on_board = features[..., F_ONES]
    seen[..., F_WHITE] = on_board - features[..., F_WHITE]
    mine = features[..., F_BALANCE_MOVER]
    seen[..., F_BALANCE_MOVER] = np.where(on_board != 0, -mine, mine)  # 0 stays +0 off board
    return seen


# -- the balance columns ----------------------------------------------------------------

def balances_of(features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(balance, white)`` of each position of ``features`` (``[N, P, C]``, seen by the
    side to move): the balance value its features were written with (whole numbers) and
    whether White was to move."""
    balance = np.rint(features[:, 0, F_BALANCE] * BALANCE_SCALE).astype(np.int64)
    return balance, features[:, 0, F_WHITE] > 0.5


def set_balances(features: np.ndarray, rows: np.ndarray, balance: np.ndarray) -> None:
    """Rewrite, in place, the balance features of positions ``rows`` of ``features``
    (``[N, P, C]``) as :func:`write_seen` writes them for the balance values ``balance``
    (one per row); every other feature is independent of the balance."""
    # Divided in float64 and then rounded, as write_seen does: the same bits.
    value = (np.asarray(balance, np.float64) / BALANCE_SCALE).astype(np.float32)[:, None]
    white = features[rows, 0, F_WHITE][:, None] > 0.5
    features[rows, :, F_BALANCE] = value
    features[rows, :, F_BALANCE_MOVER] = np.where(white, value, -value)
