"""Keil kernels (RULES.md section 2). Move P is the special move: the button while nobody
has taken it, a pass afterwards (exactly one of the two is ever legal)."""

from __future__ import annotations

from numba import njit

from hexstones.core.common import (  # noqa: F401  (undo, copy_into: part of the interface)
    commit, copy_into, empty_points, new_stamp, rand_below, repeats, reserve_stamps, undo,
)
from hexstones.core.layout import (
    M_DEAD, M_KOMI, M_PASSES, M_PLY, M_REMOVED, M_SPECIAL, M_TO_MOVE,
    OK, R_FULL, R_GAME_OVER, R_NOT_A_MOVE, R_OCCUPIED, R_REPETITION, R_SUICIDE,
    W_BUF, W_CAND, W_LABEL, W_MARKS, W_MASK,
)


@njit(cache=True, _nrt=False)
def linked(board, nbr, p, d):
    """Whether ``p`` and its neighbour in direction ``d`` are linked: a common neighbour
    holds the same content as one of them."""
    q = nbr[p, d]
    a = board[p]
    b = board[q]
    c = nbr[p, d - 1 if d > 0 else 5]
    if c >= 0:
        x = board[c]
        if x == a or x == b:
            return True
    c = nbr[p, d + 1 if d < 5 else 0]
    if c >= 0:
        x = board[c]
        if x == a or x == b:
            return True
    return False


@njit(cache=True, _nrt=False)
def flood_group(board, nbr, marks, base, stamp, buf, off, start):
    """Walk the group of the stone on ``start`` (marking stones with ``stamp``, listing
    them in ``buf`` from ``off``). Returns -1 as soon as a liberty shows up, else the end
    of the list: then ``buf[off:end]`` is the whole liberty-less group. A stone marked by
    an earlier walk of this batch (``base <= mark < stamp``) belongs to a group that was
    stopped at a liberty, so reaching it also means a liberty."""
    color = board[start]
    marks[start] = stamp
    buf[off] = start
    head = off
    tail = off + 1
    while head < tail:
        p = buf[head]
        head += 1
        for d in range(6):
            q = nbr[p, d]
            if q < 0:
                continue
            bq = board[q]
            if bq == color:
                mq = marks[q]
                if mq == stamp:
                    continue
                if mq >= base and linked(board, nbr, p, d):
                    return -1
            elif bq != 0:
                continue
            if not linked(board, nbr, p, d):
                continue
            if bq == 0:
                return -1
            marks[q] = stamp
            buf[tail] = q
            tail += 1
    return tail


@njit(cache=True, _nrt=False)
def play(geo, st, move):
    """Play ``move`` for the player to move; returns OK or a reason code (state unchanged)."""
    nbr, zob, zextra = geo[0], geo[3], geo[4]
    board, meta, hh = st[0], st[1], st[2]
    P = board.shape[0]
    if meta[M_PASSES] >= 2:
        return R_GAME_OVER
    if move < 0 or move > P:
        return R_NOT_A_MOVE
    ply = meta[M_PLY]
    if ply + 1 >= hh.shape[0]:
        return R_FULL
    X = meta[M_TO_MOVE]
    Y = 3 - X
    h = hh[ply]
    if move == P:
        if meta[M_SPECIAL] == 0:
            meta[M_SPECIAL] = X
            h ^= zextra[0]
            meta[M_PASSES] = 0
        else:
            meta[M_PASSES] += 1
        meta[M_REMOVED] = 0
        commit(st, move, h)
        return OK
    if board[move] != 0:
        return R_OCCUPIED
    work = st[6]
    marks = work[W_MARKS]
    buf = work[W_BUF]
    board[move] = X
    h ^= zob[X, move]
    reserve_stamps(st, P + 16)
    base = new_stamp(st)
    stamp = base
    ncap = 0
    if meta[M_DEAD + Y - 1] != 0:
        # Y may have liberty-less groups anywhere (left by its own last placement).
        for q in range(P):
            if board[q] == Y and marks[q] < base:
                stamp = new_stamp(st)
                end = flood_group(board, nbr, marks, base, stamp, buf, ncap, q)
                if end >= 0:
                    ncap = end
    else:
        # Only enemy groups touching the placed stone can have lost a liberty.
        for d in range(6):
            q = nbr[move, d]
            if q >= 0 and board[q] == Y and marks[q] < base:
                stamp = new_stamp(st)
                end = flood_group(board, nbr, marks, base, stamp, buf, ncap, q)
                if end >= 0:
                    ncap = end
    for i in range(ncap):
        board[buf[i]] = 0
        h ^= zob[Y, buf[i]]
    stamp = new_stamp(st)
    if flood_group(board, nbr, marks, stamp, stamp, buf, ncap, move) >= 0:
        board[move] = 0
        for i in range(ncap):
            board[buf[i]] = Y
        return R_SUICIDE
    if repeats(st, h, M_SPECIAL):
        board[move] = 0
        for i in range(ncap):
            board[buf[i]] = Y
        return R_REPETITION
    # Another own group touching the stone may now lack liberties: it stays, and the
    # opponent's next placement removes it (flag makes that placement look everywhere).
    dead_x = meta[M_DEAD + X - 1]
    if dead_x == 0:
        base = new_stamp(st)
        for d in range(6):
            q = nbr[move, d]
            if q >= 0 and board[q] == X and marks[q] < base and not linked(board, nbr, move, d):
                stamp = new_stamp(st)
                if flood_group(board, nbr, marks, base, stamp, buf, ncap, q) >= 0:
                    dead_x = 1
                    break
    meta[M_DEAD + X - 1] = dead_x
    meta[M_DEAD + Y - 1] = 0
    meta[M_PASSES] = 0
    meta[M_REMOVED] = ncap
    commit(st, move, h)
    return OK


@njit(cache=True, _nrt=False)
def is_over(geo, st):
    return st[1][M_PASSES] >= 2


@njit(cache=True, _nrt=False)
def legal_moves(geo, st, out):
    """Write every legal move (points ascending, then P) into ``out``; return the count."""
    board, meta = st[0], st[1]
    P = board.shape[0]
    if meta[M_PASSES] >= 2:
        return 0
    n = 0
    for p in range(P):
        if board[p] == 0 and play(geo, st, p) == OK:
            out[n] = p
            n += 1
            undo(geo, st)
    out[n] = P
    return n + 1


@njit(cache=True, _nrt=False)
def territories(geo, st, region_of, owner_of_region):
    """Label territories: ``region_of[p]`` region number of empty ``p`` (-1 for stones),
    ``owner_of_region[r]`` 0 nobody, 1 black, 2 white. Returns the region count."""
    nbr = geo[0]
    board = st[0]
    P = board.shape[0]
    buf = st[6][W_BUF]
    for p in range(P):
        region_of[p] = -1
    regions = 0
    for p in range(P):
        if board[p] != 0 or region_of[p] >= 0:
            continue
        region_of[p] = regions
        buf[0] = p
        head = 0
        tail = 1
        seen = 0
        while head < tail:
            e = buf[head]
            head += 1
            for d in range(6):
                q = nbr[e, d]
                if q < 0 or not linked(board, nbr, e, d):
                    continue
                bq = board[q]
                if bq == 0:
                    if region_of[q] < 0:
                        region_of[q] = regions
                        buf[tail] = q
                        tail += 1
                else:
                    seen |= 1 << bq
        owner_of_region[regions] = 1 if seen == 2 else (2 if seen == 4 else 0)
        regions += 1
    return regions


@njit(cache=True, _nrt=False)
def score_pair(geo, st):
    """(black, white) scores as if the game ended now."""
    board, meta = st[0], st[1]
    P = board.shape[0]
    region_of = st[6][W_LABEL]
    owner = st[6][W_MASK]
    territories(geo, st, region_of, owner)
    black = 0.0
    white = 0.0
    for p in range(P):
        b = board[p]
        if b == 1:
            black += 1.0
        elif b == 2:
            white += 1.0
        else:
            o = owner[region_of[p]]
            if o == 1:
                black += 1.0
            elif o == 2:
                white += 1.0
    white += meta[M_KOMI]
    if meta[M_SPECIAL] == 1:
        black += 0.5
    elif meta[M_SPECIAL] == 2:
        white += 0.5
    return black, white


@njit(cache=True, _nrt=False)
def score(geo, st, out):
    """Write the score (black, white) into ``out[0:2]``; returns True (Keil has a score)."""
    black, white = score_pair(geo, st)
    out[0] = black
    out[1] = white
    return True


@njit(cache=True, _nrt=False)
def winner(geo, st):
    """1 black, 2 white once the game is over, else 0."""
    if st[1][M_PASSES] < 2:
        return 0
    black, white = score_pair(geo, st)
    return 1 if black > white else 2


@njit(cache=True, _nrt=False)
def fills_own_eye(board, nbr, p, X):
    """Playout policy: ``p`` is a one-point territory of ``X`` (no empty point linked to it,
    every linked stone X's, at least one)."""
    any_stone = False
    for d in range(6):
        q = nbr[p, d]
        if q < 0 or not linked(board, nbr, p, d):
            continue
        if board[q] != X:
            return False
        any_stone = True
    return any_stone


@njit(cache=True, _nrt=False)
def playout(geo, st, rng, max_ply):
    """Play uniformly random moves to the end under the playout policy (see core docs):
    a uniformly random legal placement that does not fill one's own eye, else move P
    (button, then pass). Returns the winner (1/2), 0 if ``max_ply`` was reached, -1
    if the history is full (grow the state and call again: the game continues)."""
    nbr = geo[0]
    board, meta = st[0], st[1]
    P = board.shape[0]
    cand = st[6][W_CAND]
    while meta[M_PASSES] < 2:
        if meta[M_PLY] >= max_ply:
            return 0
        X = meta[M_TO_MOVE]
        n = empty_points(board, cand)
        placed = False
        while n > 0:
            i = rand_below(rng, n)
            p = cand[i]
            n -= 1
            cand[i] = cand[n]
            if fills_own_eye(board, nbr, p, X):
                continue
            code = play(geo, st, p)
            if code == OK:
                placed = True
                break
            if code == R_FULL:
                return -1
        if not placed:
            if play(geo, st, P) != OK:  # only R_FULL can refuse the special move here
                return -1
    return winner(geo, st)


@njit(cache=True, _nrt=False)
def groups_and_liberties(geo, st, group_of, liberties):
    """Number the groups in board order of their first stone: ``group_of[p]`` (-1 for an
    empty point); ``liberties[g, q]`` = 1 iff empty ``q`` is linked to a stone of group
    ``g`` (``liberties`` zeroed by the caller). Returns the group count."""
    nbr = geo[0]
    board = st[0]
    P = board.shape[0]
    buf = st[6][W_BUF]
    for p in range(P):
        group_of[p] = -1
    groups = 0
    for p in range(P):
        color = board[p]
        if color == 0 or group_of[p] >= 0:
            continue
        group_of[p] = groups
        buf[0] = p
        head = 0
        tail = 1
        while head < tail:
            x = buf[head]
            head += 1
            for d in range(6):
                q = nbr[x, d]
                if q < 0 or not linked(board, nbr, x, d):
                    continue
                bq = board[q]
                if bq == 0:
                    liberties[groups, q] = 1
                elif bq == color and group_of[q] < 0:
                    group_of[q] = groups
                    buf[tail] = q
                    tail += 1
        groups += 1
    return groups
