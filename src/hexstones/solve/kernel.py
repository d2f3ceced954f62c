"""The compiled part of the solver: fail-soft alpha-beta (negamax) on the game kernels,
with a transposition table keyed by the position up to the board's 12 symmetries and
guarded against the graph-history interaction (see :mod:`hexstones.solve` for why the
values are exact).

The search reaches the rules only through the game API's door, as :mod:`hexstones.ai.tree`
does: the game id, geometry and a state copy of ``game.compiled_for_search()``, the
dispatchers of :mod:`hexstones.core.dispatch` (play, undo, is over, score) and the
accessors of :mod:`hexstones.games.compiled`.

Positions are exact words, not hashes (side 3: 19 points): a board is two stone masks,
``black | white << P``, and the table key adds the side to move, the passes just played
and who holds the special move (Keil's button, Dehil's first pass). A *history code* is
the board of one history row with the special move's "taken" bit (part of the position
the repetition rule compares) and the row's parity (which player's turn ended there).
"""

from __future__ import annotations

import pathlib
from typing import NamedTuple

import numpy as np
from numba import njit

from hexstones.core.cache import core_sources, drop_stale_cache

# This search compiles the core kernels into itself (hexstones.core.cache).
_HERE = pathlib.Path(__file__).resolve().parent
drop_stale_cache(_HERE, core_sources() + [_HERE / "kernel.py"]
                 + [_HERE.parent / "games" / "compiled.py"],
                 "solve-sources.sha256", ("kernel.*.nb[ic]",))

from hexstones.core import dispatch as K  # noqa: E402  (after the cache check on purpose)
from hexstones.core.layout import OK, R_FULL, R_REPETITION  # noqa: E402
from hexstones.games import compiled as G  # noqa: E402

# Values are in half points (the button's and the first pass's half point), from the
# side to move's point of view; INF is beyond any score.
INF = 30000
# History codes a table entry may hold (its relevant history, see _relevant).
MAX_RELEVANT = 8
# counters slots
C_NODES, C_BUDGET, C_ABORTED, C_HITS, C_STORES, C_TOO_MUCH_HISTORY, C_ENDS = range(7)
COUNTERS = 8
# The tested-position intersection of a search: for each row parity, black mask, white
# mask and the "special move taken" bit (see _negamax).
NEED = 6


# A table slot: one row of 16 words (two cache lines; a bucket is two slots side by side,
# the first kept for the larger search, the second always replaced).
T_KEY = 0       # position key + 1 (0: free)
T_INFO = 1      # lower + INF | (upper + INF) << 16 | (move + 1) << 32 | count << 48
T_WORK = 2      # nodes the storing search took
T_NEED = 3      # the tested-position intersection, canonical frame, one word per parity:
                # black | white << P | taken << 2P
T_RELEVANT = 5  # the relevant history codes, sorted (T_RELEVANT .. + count - 1)
T_WORDS = 16


def allocate_table(bits: int) -> np.ndarray:
    return np.zeros((1 << bits, T_WORDS), np.int64)


class Frame(NamedTuple):
    """Symmetries and the search's own record of the history's positions."""

    perm: np.ndarray     # int32[12, P]: symmetry s sends point p to perm[s, p]
    inverse: np.ndarray  # int32[12]: the symmetry that undoes s
    chunks: np.ndarray   # int64[12, C, 256]: mask images under s, 8 points at a time
    black: np.ndarray    # int64[R]: black mask of history row t
    white: np.ndarray    # int64[R]: white mask of history row t
    taken: np.ndarray    # int64[R]: 1 if the special move was taken by row t
    order: np.ndarray    # int32[R, P + 1]: move lists, one row per ply
    rank: np.ndarray     # int64[2, P + 1]: history heuristic, per colour
    score: np.ndarray    # float64[2]: scratch for the kernels' score
    scratch: np.ndarray  # int64[R, 4, max(NEED, MAX_RELEVANT)]: per-ply work rows


@njit(cache=True, inline="always")
def image(chunks, s, mask):
    """The stone mask ``mask`` under symmetry ``s``."""
    out = np.int64(0)
    c = 0
    while mask != 0:
        out |= chunks[s, c, mask & 255]
        mask >>= 8
        c += 1
    return out


@njit(cache=True)
def record_row(st, frame, row):
    """Enter the position of ``st`` as history row ``row`` of ``frame``."""
    board = st.board
    b = np.int64(0)
    w = np.int64(0)
    for p in range(board.shape[0]):
        if board[p] == 1:
            b |= np.int64(1) << p
        elif board[p] == 2:
            w |= np.int64(1) << p
    frame.black[row] = b
    frame.white[row] = w
    frame.taken[row] = 1 if G.special_holder(st) != 0 else 0


@njit(cache=True, inline="always")
def _code(frame, s, t, P):
    """History row ``t`` as a history code under symmetry ``s``."""
    ch = frame.chunks
    return (image(ch, s, frame.black[t]) | (image(ch, s, frame.white[t]) << P)
            | (frame.taken[t] << (2 * P)) | (np.int64(t & 1) << (2 * P + 1)))


@njit(cache=True)
def _relevant(frame, ply, need, s, P, out):
    """The relevant history of a position at ``ply`` for the tested-position intersection
    ``need`` (identity frame): the distinct codes, under symmetry ``s``, of the rows
    1..ply that hold every stone (and the taken bit) ``need`` asks of their parity,
    sorted into ``out``. Returns their number, or -1 if there are more than fit."""
    n = 0
    for t in range(1, ply + 1):
        k = 3 * (t & 1)
        b, w, f = need[k], need[k + 1], need[k + 2]
        if (frame.black[t] & b) != b or (frame.white[t] & w) != w or (frame.taken[t] & f) != f:
            continue
        c = _code(frame, s, t, P)
        i = 0
        while i < n and out[i] < c:
            i += 1
        if i < n and out[i] == c:
            continue
        if n == out.shape[0]:
            return -1
        j = n
        while j > i:
            out[j] = out[j - 1]
            j -= 1
        out[i] = c
        n += 1
    return n


@njit(cache=True, inline="always")
def _slot(key, mask):
    h = key * np.int64(-7046029254386353131)  # 0x9E3779B97F4A7C15 as a signed word
    return ((h >> 24) & mask) & ~np.int64(1)


@njit(cache=True, inline="always")
def _pack_need(chunks, s, need, k, P):
    return (image(chunks, s, need[k]) | (image(chunks, s, need[k + 1]) << P)
            | (need[k + 2] << (2 * P)))


@njit(cache=True)
def _store(table, key, ply, frame, s, need, P, value, alpha, beta, move, work, counters):
    relevant = frame.scratch[ply, 0, :MAX_RELEVANT]
    n = _relevant(frame, ply, need, s, P, relevant)
    if n < 0:
        counters[C_TOO_MUCH_HISTORY] += 1
        return
    need0 = _pack_need(frame.chunks, s, need, 0, P)
    need1 = _pack_need(frame.chunks, s, need, 3, P)
    lower = -INF
    upper = INF
    if value <= alpha:
        upper = value
    elif value >= beta:
        lower = value
    else:
        lower = value
        upper = value
    base = _slot(key, table.shape[0] - 1)
    target = -1
    for i in (base, base + 1):
        row = table[i]
        if row[T_KEY] == key + 1:
            info = row[T_INFO]
            same = (info >> 48) == n and row[T_NEED] == need0 and row[T_NEED + 1] == need1
            for k in range(n):
                same = same and row[T_RELEVANT + k] == relevant[k]
            if same:  # the same conditions: keep both bounds
                lower = max(lower, (info & 0xFFFF) - INF)
                upper = min(upper, ((info >> 16) & 0xFFFF) - INF)
                work = max(work, row[T_WORK])
            target = i
            break
    if target < 0:
        target = base if work >= table[base, T_WORK] else base + 1
    row = table[target]
    row[T_KEY] = key + 1
    row[T_INFO] = ((lower + INF) | ((upper + INF) << 16) | (np.int64(move + 1) << 32)
                   | (np.int64(n) << 48))
    row[T_WORK] = work
    row[T_NEED] = need0
    row[T_NEED + 1] = need1
    for k in range(n):
        row[T_RELEVANT + k] = relevant[k]
    counters[C_STORES] += 1


@njit(cache=True)
def _canonical(frame, st, ply, P):
    """The table key of ``st`` (the least board code over the 12 symmetries, with the side
    to move, the passes and the special holder) and the symmetry ``s`` giving it."""
    ch = frame.chunks
    b = frame.black[ply]
    w = frame.white[ply]
    canon = np.int64(-1)
    s = 0
    for k in range(12):
        c = image(ch, k, b) | (image(ch, k, w) << P)
        if canon < 0 or c < canon:
            canon = c
            s = k
    key = (canon | (np.int64(G.to_move(st) - 1) << (2 * P)) | (np.int64(G.passes(st)) << (2 * P + 1))
           | (np.int64(G.special_holder(st)) << (2 * P + 2)))
    return key, s


@njit(cache=True)
def _probe(table, key, frame, ply, s, P, alpha, beta, need, counters):
    """Look ``key`` up: ``(True, value, hint)`` where an entry valid under this history
    decides the value within ``(alpha, beta)`` (``need`` then holds the entry's rows),
    else ``(False, 0, hint)``; ``hint`` is the best move an entry recorded (-1: none)."""
    ch = frame.chunks
    back = frame.inverse[s]
    hint = -1
    base = _slot(key, table.shape[0] - 1)
    relevant = frame.scratch[ply, 0, :MAX_RELEVANT]
    entry_need = frame.scratch[ply, 1, :NEED]
    ones = (np.int64(1) << P) - 1
    for i in (base, base + 1):
        row = table[i]
        if row[T_KEY] != key + 1:
            continue
        info = row[T_INFO]
        m = ((info >> 32) & 0xFFFF) - 1
        if m >= 0:
            hint = frame.perm[back, m] if m < P else P
        for k in range(2):
            word = row[T_NEED + k]
            entry_need[3 * k] = image(ch, back, word & ones)
            entry_need[3 * k + 1] = image(ch, back, (word >> P) & ones)
            entry_need[3 * k + 2] = (word >> (2 * P)) & 1
        n = _relevant(frame, ply, entry_need, s, P, relevant)
        if n != (info >> 48):
            continue
        same = True
        for k in range(n):
            same = same and relevant[k] == row[T_RELEVANT + k]
        if not same:
            continue
        lower = (info & 0xFFFF) - INF
        upper = ((info >> 16) & 0xFFFF) - INF
        if lower >= beta or upper <= alpha or lower == upper:
            counters[C_HITS] += 1
            for k in range(NEED):
                need[k] = entry_need[k]
            if lower >= beta or lower == upper:
                return True, lower, hint
            return True, upper, hint
    return False, np.int64(0), hint


@njit(cache=True)
def _order_moves(frame, st, ply, X, hint, P):
    """The moves to try, into ``frame.order[ply]`` (returns how many): the table's best
    move, then the special move (a pass may end the game at once, and a cutoff there
    spares the long lines of placements and captures), then the placements by the history
    heuristic."""
    board = st.board
    order = frame.order[ply]
    rank = frame.rank[X - 1]
    n = 0
    if hint >= 0:
        order[0] = hint
        n = 1
    if hint != P:
        order[n] = P
        n += 1
    first = n
    for m in range(P):
        if m == hint or board[m] != 0:
            continue
        r = rank[m]
        j = n
        while j > first and rank[order[j - 1]] < r:
            order[j] = order[j - 1]
            j -= 1
        order[j] = m
        n += 1
    return n


@njit(cache=True)
def _refused_rows(frame, ply, X, m, need, parity):
    """Placement ``m`` was refused because the position after it is one of the mover's
    earlier ones: a history row. Every row it can be (X on m, the other stones as now less
    some of Y's: a placement removes only enemy stones in the games with a score) joins
    the intersection ``need``, the actual one among them."""
    b = frame.black[ply]
    w = frame.white[ply]
    mine = b if X == 1 else w
    theirs = w if X == 1 else b
    found = False
    for t in range(ply - 1, 0, -2):
        qx = frame.black[t] if X == 1 else frame.white[t]
        qy = frame.white[t] if X == 1 else frame.black[t]
        if (qx == (mine | (np.int64(1) << m)) and (qy & ~theirs) == 0
                and frame.taken[t] == frame.taken[ply]):
            need[parity] &= frame.black[t]
            need[parity + 1] &= frame.white[t]
            need[parity + 2] &= frame.taken[t]
            found = True
    if not found:  # cannot happen; stay exact regardless: all rows relevant
        need[parity] = 0
        need[parity + 1] = 0
        need[parity + 2] = 0


@njit(cache=True)
def _negamax(gid, geo, st, alpha, beta, table, frame, counters, need):
    """The value of ``st`` for the side to move (half points), fail-soft within
    ``(alpha, beta)``. Writes into ``need`` (int64[NEED]) the intersection, per row
    parity, of every position whose repetition test the search's result rests on (for
    each parity: black mask, white mask, taken bit); all ones where none."""
    P = st.board.shape[0]
    full = (np.int64(1) << P) - 1
    for k in range(0, NEED, 3):
        need[k] = full
        need[k + 1] = full
        need[k + 2] = 1
    counters[C_NODES] += 1
    start_nodes = counters[C_NODES]
    if start_nodes > counters[C_BUDGET]:
        counters[C_ABORTED] = 1
        return 0
    X = G.to_move(st)
    if K.is_over(gid, geo, st):
        counters[C_ENDS] += 1
        K.score(gid, geo, st, frame.score)
        v = np.int64(round(2.0 * (frame.score[0] - frame.score[1])))
        return v if X == 1 else -v
    ply = G.ply(st)
    key, s = _canonical(frame, st, ply, P)
    decided, value, hint = _probe(table, key, frame, ply, s, P, alpha, beta, need, counters)
    if decided:
        return value
    n = _order_moves(frame, st, ply, X, hint, P)
    order = frame.order[ply]
    rank = frame.rank[X - 1]
    child = frame.scratch[ply, 2, :NEED]
    alpha0 = alpha
    best = -INF
    best_move = -1
    parity = 3 * ((ply + 1) & 1)
    for i in range(n):
        m = order[i]
        code = K.play(gid, geo, st, m)
        if code == R_FULL:
            counters[C_ABORTED] = 2
            return 0
        if code == R_REPETITION:
            _refused_rows(frame, ply, X, m, need, parity)
            continue
        if code != OK:
            continue
        record_row(st, frame, ply + 1)
        if m < P:  # a placement: the position after it was tested for repetition
            need[parity] &= frame.black[ply + 1]
            need[parity + 1] &= frame.white[ply + 1]
            need[parity + 2] &= frame.taken[ply + 1]
        floor = max(alpha, best)
        if best_move < 0 or floor + 1 >= beta:
            v = -_negamax(gid, geo, st, -beta, -floor, table, frame, counters, child)
        else:
            # Principal variation search: show with a null window that the move is no
            # better than the best so far; search it in full only where it is.
            v = -_negamax(gid, geo, st, -floor - 1, -floor, table, frame, counters, child)
            if v > floor and v < beta and counters[C_ABORTED] == 0:
                for k in range(NEED):
                    need[k] &= child[k]
                v = -_negamax(gid, geo, st, -beta, -v, table, frame, counters, child)
        K.undo(gid, geo, st)
        if counters[C_ABORTED] != 0:
            return 0
        for k in range(NEED):
            need[k] &= child[k]
        if v > best:
            best = v
            best_move = m
            if v >= beta:
                rank[m] += counters[C_NODES] - start_nodes + 1
                break
    if best_move < 0:  # no legal action (Droched): the player to move has lost
        best = -INF + 1
    canon_move = -1
    if best_move >= 0:
        canon_move = frame.perm[s, best_move] if best_move < P else P
    _store(table, key, ply, frame, s, need, P, best, alpha0, beta, canon_move,
           counters[C_NODES] - start_nodes + 1, counters)
    return best


@njit(cache=True)
def search(gid, geo, st, alpha, beta, table, frame, counters):
    """:func:`_negamax` from ``st`` (its position recorded in ``frame`` up to its ply);
    ``counters[C_ABORTED]`` says whether it ran out of ``counters[C_BUDGET]`` nodes (1)
    or of history room (2), when the value means nothing."""
    need = np.empty(NEED, np.int64)
    counters[C_ABORTED] = 0
    return _negamax(gid, geo, st, alpha, beta, table, frame, counters, need)
