"""Compiled helpers every game kernel uses: history, undo, copying, stamps, random numbers."""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from hexstones.core.layout import (
    M_BOARD_ROW,
    M_LAST,
    M_PLY,
    M_TO_MOVE,
    ROW_BITS,
    W_MARKS,
)

_STAMP_LIMIT = 2**31 - 2
_U12 = np.uint64(12)
_U25 = np.uint64(25)
_U27 = np.uint64(27)
_U32 = np.uint64(32)
_MULT = np.uint64(2685821657736338717)
# A position-table entry is one word: the hash's high bits and the history row in the
# low ROW_BITS (0 = a free slot). One load per probe instead of two (keys and rows in
# separate arrays): the probe waits on memory in long games. A match of the high bits is
# confirmed on the board, as a full hash match was.
_ROW_MASK = np.uint64((1 << ROW_BITS) - 1)
_KEY_MASK = ~_ROW_MASK


def prefetch(array, index):
    """Start loading ``array[index]`` into the cache; changes no result. Compiled, it is
    LLVM's prefetch (for reading, kept in all cache levels), built into the caller and
    cached with it; in plain Python (NUMBA_DISABLE_JIT) it does nothing."""


# Not inline="always": numba's inlining of this overload into ``play`` dropped a later
# store (the history's move row); LLVM inlines the call anyway.
@overload(prefetch)
def _compiled_prefetch(array, index):
    return lambda array, index: _llvm_prefetch(array, index)


@intrinsic
def _llvm_prefetch(typingctx, array, index):
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, args[0])
        address = cgutils.get_item_pointer(context, builder, array_type, view, [args[1]],
                                           wraparound=False)
        i32 = ir.IntType(32)
        byte_pointer = ir.IntType(8).as_pointer()
        function = builder.module.declare_intrinsic(
            "llvm.prefetch", [byte_pointer],
            ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]))
        builder.call(function, [builder.bitcast(address, byte_pointer), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, _nrt=False, inline="always")
def home_slot(table, h):
    """The slot where the probe for hash ``h`` starts (the table size is a power of 2)."""
    return np.int64(h & np.uint64(table.shape[0] - 1))


@njit(cache=True, _nrt=False, inline="always")
def prefetch_position(st, h):
    """Start loading the position-table slot ``repeats`` will read first for hash ``h``.
    In a long game the table outgrows the caches and that read waits on memory; started
    before a placement's bridge walks, the load overlaps them (Droched: 1.04-1.10x)."""
    table = st.table
    prefetch(table, home_slot(table, h))


@njit(cache=True, _nrt=False)
def reserve_stamps(st, count):
    """Make sure ``count`` more stamps fit before the limit (clearing marks if not): stamps
    then only grow within a move, so "marked since stamp s" is ``marks >= s``."""
    stamp = st.stamp
    if stamp[0] + count >= _STAMP_LIMIT:
        st.work[W_MARKS, :] = 0
        stamp[0] = 0


@njit(cache=True, _nrt=False)
def new_stamp(st):
    """A fresh mark value for the work marks row (no clearing needed between floods)."""
    stamp = st.stamp
    stamp[0] += 1
    return np.int32(stamp[0])


@njit(cache=True, _nrt=False)
def next_stamp(stamp, marks):
    """A fresh mark value for one walk outside ``play`` (from the counter ``stamp``,
    the state's ``st.stamp``, clearing ``marks`` when the counter is spent). Takes arrays,
    not the state tuple: passing a tuple costs more than a short walk."""
    if stamp[0] + 1 >= _STAMP_LIMIT:
        marks[:] = 0
        stamp[0] = 0
    stamp[0] += 1
    return np.int32(stamp[0])


@njit(cache=True, _nrt=False)
def table_insert(st, row):
    """Enter history row ``row`` (its hash) in the position table (linear probing).

    A row with the same hash as the row before it (a pass, the button, a Droched release:
    the board is unchanged) probes from just after that row's slot: every slot from the
    hash's home up to it is taken by rows at least as old, which stay while it stays, so
    the free slot found is the same. It matters: a random Droched game ends with
    thousands of releases on one board, and probing each from the home is quadratic."""
    table, hh = st.table, st.hist_hash
    mask = table.shape[0] - 1
    h = hh[row]
    if row >= 2 and hh[row - 1] == h:  # row 0 is never in the table
        i = (st.hist_slot[row - 1] + 1) & mask
    else:
        i = home_slot(table, h)
    while table[i] != 0:
        i = (i + 1) & mask
    table[i] = (h & _KEY_MASK) | np.uint64(row)
    st.hist_slot[row] = i


@njit(cache=True, _nrt=False)
def rebuild_table(st):
    """Refill the position table from history rows 1..ply (after growing a state)."""
    st.table[:] = 0
    for row in range(1, st.meta[M_PLY] + 1):
        table_insert(st, row)


@njit(cache=True, _nrt=False, inline="always")
def commit(st, move, h, board_changed):
    """Record the move just made: the board and meta are already updated, except the ply,
    side to move and last move, which this sets; ``h`` is the new position hash. A move
    that left the board as it was (``board_changed`` False: a pass, the button, a
    release) stores no board: its row points at the last row that has one. Half the
    moves of a random Droched game are releases."""
    board, meta, hh, hb = st.board, st.meta, st.hist_hash, st.hist_board
    hm, hmv = st.hist_meta, st.hist_move
    ply = meta[M_PLY] + 1
    meta[M_PLY] = ply
    meta[M_TO_MOVE] = 3 - meta[M_TO_MOVE]
    meta[M_LAST] = move
    hh[ply] = h
    # Element loops: numba's slice assignment is several times slower on short rows.
    if board_changed:
        meta[M_BOARD_ROW] = ply
        for i in range(board.shape[0]):
            hb[ply, i] = board[i]
    for i in range(meta.shape[0]):
        hm[ply, i] = meta[i]
    hmv[ply] = move
    table_insert(st, ply)


@njit(cache=True, _nrt=False)
def undo(geo, st):
    """Take back the last move; returns it, or -1 if no move was played."""
    meta = st.meta
    ply = meta[M_PLY]
    if ply == 0:
        return -1
    move = st.hist_move[ply]
    # The newest table entry: freeing its slot keeps every older probe chain intact.
    st.table[st.hist_slot[ply]] = 0
    board, hb, hm = st.board, st.hist_board, st.hist_meta
    row_after = meta[M_BOARD_ROW]
    for i in range(meta.shape[0]):
        meta[i] = hm[ply - 1, i]
    row = meta[M_BOARD_ROW]
    if row != row_after:  # else the move left the board as it was
        for i in range(board.shape[0]):
            board[i] = hb[row, i]
    return move


@njit(cache=True, inline="always")
def board_at(st, ply):
    """The board (a row of the history, not a copy) after ``ply`` moves."""
    return st.hist_board[st.hist_meta[ply, M_BOARD_ROW]]


@njit(cache=True, _nrt=False)
def copy_into(dst, src):
    """Make ``dst`` (a state of the same side, capacity >= src's ply) equal to ``src``."""
    rows = src.meta[M_PLY] + 1
    for row in range(1, dst.meta[M_PLY] + 1):
        dst.table[dst.hist_slot[row]] = 0
    P = src.board.shape[0]
    for i in range(P):
        dst.board[i] = src.board[i]
    M = src.meta.shape[0]
    for i in range(M):
        dst.meta[i] = src.meta[i]
    for row in range(rows):
        dst.hist_hash[row] = src.hist_hash[row]
        dst.hist_move[row] = src.hist_move[row]
        for i in range(P):
            dst.hist_board[row, i] = src.hist_board[row, i]
        for i in range(M):
            dst.hist_meta[row, i] = src.hist_meta[row, i]
    if dst.table.shape[0] == src.table.shape[0]:
        for row in range(1, rows):
            slot = src.hist_slot[row]
            dst.table[slot] = src.table[slot]
            dst.hist_slot[row] = slot
    else:
        for row in range(1, rows):
            table_insert(dst, row)


@njit(cache=True, _nrt=False)
def repeats(st, h, extra_slot):
    """Whether the position just made by the player to move (board ``st.board``, hash ``h``)
    equals the position at the end of one of their earlier turns. Turns alternate, so
    those are history rows ply-1, ply-3, ... >= 1, found through the position table.
    A hash match is confirmed on the board
    (and, if ``extra_slot`` >= 0, on whether that meta slot is non-zero: Keil's button)."""
    board, meta, hb, hm = st.board, st.meta, st.hist_board, st.hist_meta
    table = st.table
    P = board.shape[0]
    parity = (meta[M_PLY] + 1) & 1
    mask = table.shape[0] - 1
    i = home_slot(table, h)
    key = h & _KEY_MASK
    while True:
        e = table[i]
        if e == 0:
            break
        t = np.int64(e & _ROW_MASK)
        if (e & _KEY_MASK) == key and (t & 1) == parity:
            same = True
            if extra_slot >= 0:
                same = (hm[t, extra_slot] != 0) == (meta[extra_slot] != 0)
            if same:
                row = hm[t, M_BOARD_ROW]
                for k in range(P):
                    if hb[row, k] != board[k]:
                        same = False
                        break
            if same:
                return True
        i = (i + 1) & mask
    return False


@njit(cache=True, _nrt=False)
def ring_of(board, ring_nbr, ring_edge, p):
    """The ring code of ``p`` on ``board`` (geometry ``ring_nbr``, ``ring_edge``): the
    contents of its six neighbours, 2 bits each in direction order, 3 off the board."""
    r = ring_edge[p]
    for d in range(6):
        r |= np.int64(board[ring_nbr[p, d]]) << (2 * d)
    return r


@njit(cache=True, _nrt=False)
def track_board(geo, seen, board, rings, left):
    """Follow a game move by move for the ``*_tracked`` kernels: ``seen`` (int8[P]) is the
    board as this last saw it, now ``board``; for every point that changed, update the
    ring codes ``rings`` (int16 or int32 [P]: codes have 12 bits) of its neighbours, mark
    ``left[(c - 1) * P + p]`` if a stone of colour ``c`` left it, and copy it into
    ``seen``. Any rules, any mechanism
    (capture, prison): only the boards are compared."""
    nbr = geo.nbr
    P = board.shape[0]
    for p in range(P):
        was = seen[p]
        now = board[p]
        if was == now:
            continue
        seen[p] = now
        delta = np.int32(now - was)
        for d in range(6):
            q = nbr[p, d]
            if q >= 0:
                rings[q] += delta << (2 * ((d + 3) % 6))
        if was != 0:
            left[(was - 1) * P + p] = 1


@njit(cache=True, _nrt=False)
def rand_below(rng, n):
    """Uniform integer in [0, n) from the xorshift64* generator whose state is ``rng[0]``."""
    x = rng[0]
    x ^= x >> _U12
    x ^= x << _U25
    x ^= x >> _U27
    rng[0] = x
    r = (x * _MULT) >> _U32
    return np.int64((r * np.uint64(n)) >> _U32)


@njit(cache=True, _nrt=False, inline="always")
def draw(rng, cand, n):
    """One uniform draw from the candidates ``cand[:n]`` (n >= 1): the drawn one is
    swapped into ``cand[n - 1]`` and returned, so ``cand[:n - 1]`` holds the others for
    the turn's next draw. The draw of every random-game loop (the core playouts, the
    policy playouts, the search's uniform playout): same generator state, same draw."""
    i = rand_below(rng, n)
    p = cand[i]
    cand[i] = cand[n - 1]
    cand[n - 1] = p
    return p


def seed_rng(seed: int) -> np.ndarray:
    """A generator state for ``rand_below``: any integer seed, never the all-zero state."""
    mixed = (int(seed) * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) % 2**64
    return np.array([mixed or 1], dtype=np.uint64)


@njit(cache=True, _nrt=False)
def empty_points(board, out):
    """Write the empty points into ``out``; return their count. (Branch-free: whether a
    point is empty is unpredictable, and a mispredicted branch per point cost more than
    the rest of the loop.)"""
    n = 0
    for p in range(board.shape[0]):
        out[n] = p
        n += board[p] == 0
    return n


@njit(cache=True, _nrt=False)
def surrounded(board, nbr, p, X):
    """Whether every neighbour of ``p`` holds a stone of ``X`` (Dehil's own eye)."""
    for d in range(6):
        q = nbr[p, d]
        if q >= 0 and board[q] != X:
            return False
    return True


@njit(cache=True, _nrt=False)
def add_stone_ownership(board, own):
    """Add +1 to ``own[p]`` for a black stone on ``p``, -1 for a white one."""
    for p in range(board.shape[0]):
        b = board[p]
        if b == 1:
            own[p] += 1.0
        elif b == 2:
            own[p] -= 1.0
