"""Array layouts shared by every kernel: the geometry tuple, the state tuple, reason codes.

Everything here is plain numpy; the compiled kernels index these arrays with the
constants below (module-level ints are compile-time constants for numba).
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

from hexstones.board import get_board

# -- game ids ---------------------------------------------------------------------
KEIL, DEHIL, DROCHED = 0, 1, 2
GAME_IDS = {"keil": KEIL, "dehil": DEHIL, "droched": DROCHED}

# -- cell contents (board int8) -------------------------------------------------------
EMPTY, BLACK, WHITE = 0, 1, 2

# -- meta slots (int64) -----------------------------------------------------------------
M_PLY = 0          # moves played so far; the state after them is history row M_PLY
M_TO_MOVE = 1      # 1 black, 2 white
M_PASSES = 2       # consecutive passes just played (Keil, Dehil)
M_SPECIAL = 3      # Keil: who took the button (0 nobody); Dehil: who passed first (0 nobody)
M_KOMI = 4         # Keil, Dehil: White's komi (whole number)
M_PRISON = 5       # Droched: M_PRISON + c - 1 = stones of colour c in the prison (slots 5, 6)
M_DEAD = 7         # Keil: M_DEAD + c - 1 = "colour c may have a liberty-less group" (slots 7, 8)
                   # Droched: slot 7 = "some group may be on a broken bridge" (start position)
M_REMOVED = 9      # stones removed from the board by the last move (captures / prison)
M_OVER = 10        # Droched cache: -1 unknown, 0 not over, 1 over (Keil/Dehil: unused)
M_GAME = 11        # game id
M_LAST = 12        # last move played (-1 none)
M_BOARD_ROW = 13   # the history row that holds this position's board (moves that leave
                   # the board as it was, a release or a pass, store no board of their own)
META_SIZE = 16

# -- reason codes returned by play (0 = played) ------------------------------------------
OK = 0
R_NOT_A_MOVE = 1      # move number outside 0..P
R_OCCUPIED = 2        # placement on a stone
R_GAME_OVER = 3       # the game has ended
R_SUICIDE = 4         # Keil: the placed stone's group has no liberty after captures
R_REPETITION = 5      # Keil, Droched: repeats a position at the end of an earlier own turn
R_TRIANGLE = 6        # Dehil: a triangle pattern of the mover's colour is not allowed
R_PRISON_EMPTY = 7    # Droched release with no enemy stone in the prison
R_LONE_PRISONER = 8   # Droched: the placed stone is the only stone that went to the prison
R_FULL = 9            # the history arrays are full (grow them and try again)

REASON_NAMES = {
    OK: "ok", R_NOT_A_MOVE: "not a move", R_OCCUPIED: "occupied", R_GAME_OVER: "game over",
    R_SUICIDE: "suicide", R_REPETITION: "repetition", R_TRIANGLE: "forbidden triangle",
    R_PRISON_EMPTY: "prison empty", R_LONE_PRISONER: "lone prisoner", R_FULL: "history full",
}

# -- search biases a game's policy asks the search for (bit flags: ``SEARCH_BIASES`` of
# each game module, read through ``dispatch.search_biases``) --------------------------------
BIAS_OWN_EYE = 1   # a child on a point whose every neighbour holds the mover's stone waits
                   # (the policy playouts never play there, so it has no RAVE value)
BIAS_BORDER = 2    # a child on a border point (``feature >= 0``) waits while the board is open



class Geometry(NamedTuple):
    """The geometry of one board side (read only, shared): see :func:`geometry`."""

    nbr: np.ndarray        # int32[P, 6]
    on_edge: np.ndarray    # int8[P]
    feature: np.ndarray    # int8[P]
    zobrist: np.ndarray    # uint64[3, P]
    zextra: np.ndarray     # uint64[4]
    tri: np.ndarray        # int32[T, 3]
    near_tri: np.ndarray   # int32[P, K]
    ring_nbr: np.ndarray   # int32[P, 6]
    ring_edge: np.ndarray  # int64[P]


class State(NamedTuple):
    """A game position with its history, mutated in place by the kernels (the table in
    :mod:`hexstones.core`); numba compiles attribute reads like ``st.board`` to the same
    code as reading a plain tuple's slot."""

    board: np.ndarray       # int8[P]
    meta: np.ndarray        # int64[META_SIZE], slots M_*
    hist_hash: np.ndarray   # uint64[C + 1]
    hist_board: np.ndarray  # int8[C + 1, P]
    hist_meta: np.ndarray   # int64[C + 1, META_SIZE]
    hist_move: np.ndarray   # int32[C + 1]
    work: np.ndarray        # int32[WORK_ROWS, 6P + 8], rows W_*
    stamp: np.ndarray       # int64[1]
    table: np.ndarray       # uint64[T]
    hist_slot: np.ndarray   # int32[C + 1]


# -- state tuple positions (for code that indexes a state by number) ------------------
(S_BOARD, S_META, S_HIST_HASH, S_HIST_BOARD, S_HIST_META, S_HIST_MOVE, S_WORK, S_STAMP,
 S_TABLE, S_HIST_SLOT) = (State._fields.index(name) for name in State._fields)
# rows of the int32 work array (scratch, never part of the position; rows hold 6P+8)
(W_MARKS, W_BUF, W_BUF2, W_LABEL, W_MASK, W_CAND, W_DEG, W_FILL, W_DISC, W_LOW, W_SPLIT,
 W_SNODE, W_SEDGE, W_NODEG, W_GROUP, W_AREAS, W_ADJ, W_RING) = range(18)
WORK_ROWS = 18

_ZOBRIST_SEED = 0x4E5A_0B57


@cache
def geometry(size: int):
    """The :class:`Geometry` for side ``size`` (same layout for all three games):
    ``nbr[p, d]`` neighbour of ``p`` in direction ``d`` (cyclic order, -1 off the board);
    ``on_edge[p]`` 1 on a side; ``feature[p]`` Droched border feature 0-11 or -1;
    ``zobrist[c, p]`` the key of a stone of colour ``c`` on ``p`` (row 0 zero);
    ``zextra[0]`` the key of "the button has been taken";
    ``tri[t]`` the three points of triangle ``t``; ``near_tri[p]`` the triangles with a
    point within distance 2 of ``p`` (-1 padded), the ones a Dehil placement on ``p`` can
    make or unmake allowed;
    ``ring_nbr[p, d]`` as ``nbr`` with ``p`` itself for "off the board" and ``ring_edge[p]``
    3 in the 2-bit field of each off-board direction: together they read the contents of
    ``p``'s six neighbours as one number without a branch (see ``core.keil.ring_of``).
    """
    board = get_board(size)
    P = board.num_points
    nbr = np.array(board.neighbour_slots, dtype=np.int32).reshape(P, 6)
    on_edge = np.array(board.on_edge, dtype=np.int8)
    feature = np.array(board.feature_of, dtype=np.int8)
    rng = np.random.default_rng(_ZOBRIST_SEED + size)
    zobrist = rng.integers(0, 2**63, size=(3, P), dtype=np.int64).astype(np.uint64)
    zobrist = (zobrist << np.uint64(1)) ^ rng.integers(0, 2, size=(3, P), dtype=np.int64).astype(np.uint64)
    zobrist[0, :] = 0
    zextra = rng.integers(1, 2**63, size=4, dtype=np.int64).astype(np.uint64)
    # Triangles: {p, p+(1,0), p+(1,1)} and {p, p+(1,1), p+(0,1)} cover each exactly once;
    # each stored as sorted points, in sorted order (the order violations are reported in).
    tris = []
    for p in range(P):
        for d in (0, 1):
            a, b = nbr[p, d], nbr[p, d + 1]
            if a >= 0 and b >= 0:
                tris.append(tuple(sorted((p, int(a), int(b)))))
    tris.sort()
    tri = np.array(tris, dtype=np.int32).reshape(len(tris), 3)
    tris_of: list[list[int]] = [[] for _ in range(P)]
    for t, pts in enumerate(tris):
        for p in pts:
            tris_of[p].append(t)
    near = []
    for p in range(P):
        ball = {p}
        for _ in range(2):
            ball |= {q for x in ball for q in board.neighbours[x]}
        near.append(sorted({t for x in ball for t in tris_of[x]}))
    width = max(len(row) for row in near)
    near_tri = np.full((P, width), -1, dtype=np.int32)
    for p, row in enumerate(near):
        near_tri[p, : len(row)] = row
    ring_nbr = np.where(nbr >= 0, nbr, np.arange(P, dtype=np.int32)[:, None]).astype(np.int32)
    ring_edge = ((nbr < 0).astype(np.int64) * (3 << (2 * np.arange(6)))).sum(axis=1).astype(np.int64)
    return Geometry(nbr, on_edge, feature, zobrist, zextra, tri, near_tri, ring_nbr, ring_edge)


def default_capacity(size: int) -> int:
    """History rows a fresh state gets: enough for nearly every game; the API grows it."""
    P = 3 * size * (size - 1) + 1
    return 8 * P + 64


def side_of(state) -> int:
    """The board side of ``state``: the ``n`` whose board holds ``3n(n-1)+1`` points."""
    P = state.board.shape[0]
    return next(n for n in range(2, 64) if 3 * n * (n - 1) + 1 == P)


def table_size(capacity: int) -> int:
    """Slots of the position table: a power of two, at least twice the history rows."""
    return 1 << max(6, (2 * (capacity + 1) - 1).bit_length())


# History rows are numbered in the low ROW_BITS bits of a position-table entry.
ROW_BITS = 24
MAX_CAPACITY = (1 << ROW_BITS) - 2


def allocate_state(size: int, capacity: int):
    """An empty :class:`State` for side ``size`` with room for ``capacity`` moves."""
    if capacity > MAX_CAPACITY:
        raise ValueError(f"a game history holds at most {MAX_CAPACITY} moves, not {capacity}")
    P = 3 * size * (size - 1) + 1
    slots = table_size(capacity)
    return State(
        np.zeros(P, np.int8),                       # board
        np.zeros(META_SIZE, np.int64),              # meta
        np.zeros(capacity + 1, np.uint64),          # hist_hash[t]: hash after t moves
        np.zeros((capacity + 1, P), np.int8),       # hist_board[t]
        np.zeros((capacity + 1, META_SIZE), np.int64),  # hist_meta[t]
        np.full(capacity + 1, -1, np.int32),        # hist_move[t]: the t-th move (row 0 unused)
        np.zeros((WORK_ROWS, 6 * P + 8), np.int32),  # scratch
        np.zeros(1, np.int64),                      # flood-fill stamp counter
        np.zeros(slots, np.uint64),                 # position table: hash and history row
        np.zeros(capacity + 1, np.int32),           # hist_slot[t]: row t's table slot
    )


def capacity_of(state) -> int:
    return state.hist_hash.shape[0] - 1
