"""Game-aware playout policies for the full-strength search.

These choose among moves; whether a move is legal, and what it does, is always the
kernel's answer (:mod:`hexstones.ai.kernels` -> :mod:`hexstones.core`).

* Keil: the core playout, which never fills one's own eye (one-point territory).
* Dehil: pass after the opponent's pass when that wins; play the last good reply to the
  opponent's move (learnt from the simulations won) if it is legal; never fill
  one's own eye (the core's test), and prefer cut points, one's own or the opponent's:
  a placement that joins walls (stones of one colour or the board's edge) so that the
  points around it fall into two or more separate arcs. Such a point is where a group
  can cut the board, and taking the opponent's first stops their cut; a lone stone
  without partitions scores against its owner.
* Droched: play the last good reply unless it imprisons own stones; avoid
  self-imprisonment: a placement after which own stones go to the prison is taken back
  and another tried (after four such placements the fourth is kept); prefer actions that
  send enemy stones to the prison (up to four quiet ones are tried while looking).
"""

from __future__ import annotations

from numba import njit

from hexstones.ai import kernels as K
from hexstones.core.common import empty_points, rand_below
from hexstones.core.layout import (
    M_LAST,
    M_OVER,
    M_PASSES,
    M_PLY,
    M_PRISON,
    M_TO_MOVE,
    OK,
    R_FULL,
)

# Dehil: how many random non-cut candidates to pass over while looking for a cut point
# (16 with both colours' cut points: 92.5% against plain UCT in 160 games where 8 with
# own cut points only won 86%; docs/ai.md).
DEHIL_LOOK = 16
# Droched: how many self-imprisoning placements to take back before playing one, and how
# many quiet actions (nobody imprisoned) to try while looking for one that imprisons enemy
# stones.
DROCHED_TRIES = 4
DROCHED_LOOK = 4


@njit(cache=True, inline="always")
def dehil_eye(board, nbr, p, X):
    return K.dehil_fills_own_eye(board, nbr, p, X)


@njit(cache=True)
def makes_cut(board, nbr, p, X):
    """Whether the neighbours of ``p`` that are neither X stones nor off the board form two
    or more separate arcs around ``p`` (so a stone on ``p`` joins separate walls)."""
    runs = 0
    last = nbr[p, 5]
    prev_wall = last < 0 or board[last] == X
    for d in range(6):
        q = nbr[p, d]
        wall = q < 0 or board[q] == X
        if not wall and prev_wall:
            runs += 1
        prev_wall = wall
    return runs >= 2


@njit(cache=True, inline="always")
def cut_point(board, nbr, p, X):
    """Whether a stone on ``p`` would join separate walls of either colour: X's own cut,
    or the opponent's, which X's stone there blocks."""
    return makes_cut(board, nbr, p, X) or makes_cut(board, nbr, p, 3 - X)


@njit(cache=True)
def dehil_playout(geo, st, rng, max_ply, cand, scores, reply):
    gid = K.DEHIL
    nbr = geo[0]
    board, meta = st[0], st[1]
    P = board.shape[0]
    deferred = cand[P + 1:]  # the buffer holds P + 1 + DEHIL_LOOK slots
    while not K.is_over(gid, geo, st):
        if meta[M_PLY] >= max_ply:
            return 0
        X = meta[M_TO_MOVE]
        if meta[M_PASSES] == 1:
            # The opponent has passed: pass too (ending the game) when that wins. Filling
            # the board instead would score groups no real game ends with.
            K.score(gid, geo, st, scores)
            if scores[X - 1] > scores[2 - X]:
                K.play(gid, geo, st, P)
                continue
        last = meta[M_LAST]
        if last >= 0:
            # The last good reply: X's answer to this move in a simulation X won.
            r = reply[X - 1, last]
            if r >= 0 and board[r] == 0 and not dehil_eye(board, nbr, r, X):
                code = K.play(gid, geo, st, r)
                if code == OK:
                    continue
                if code == R_FULL:
                    return 0
        n = empty_points(board, cand)
        placed = False
        nd = 0
        while n > 0:
            i = rand_below(rng, n)
            p = cand[i]
            n -= 1
            cand[i] = cand[n]
            if dehil_eye(board, nbr, p, X):
                continue
            if nd < DEHIL_LOOK and not cut_point(board, nbr, p, X):
                deferred[nd] = p
                nd += 1
                continue
            code = K.play(gid, geo, st, p)
            if code == OK:
                placed = True
                break
            if code == R_FULL:
                return 0
        for k in range(nd):
            if placed:
                break
            code = K.play(gid, geo, st, deferred[k])
            if code == OK:
                placed = True
            elif code == R_FULL:
                return 0
        if not placed:
            if K.play(gid, geo, st, P) != OK:
                return 0
    return K.winner(gid, geo, st)


@njit(cache=True)
def droched_playout(geo, st, rng, max_ply, cand, reply):
    gid = K.DROCHED
    board, meta = st[0], st[1]
    P = board.shape[0]
    # No is_over test per turn: it would try placements that the turn tries anyway.
    while True:
        if meta[M_PLY] >= max_ply:
            return 0
        X = meta[M_TO_MOVE]
        own_prison = meta[M_PRISON + X - 1]  # own stones in the prison before the move
        enemy_prison = meta[M_PRISON + 2 - X]
        last = meta[M_LAST]
        if last >= 0:
            # The last good reply (as in Dehil), unless it imprisons own stones.
            r = reply[X - 1, last]
            if r >= 0 and board[r] == 0:
                code = K.play(gid, geo, st, r)
                if code == R_FULL:
                    return 0
                if code == OK:
                    if meta[M_PRISON + X - 1] == own_prison:
                        continue
                    K.undo(gid, geo, st)
        n = empty_points(board, cand)
        cand[n] = P
        n += 1
        fallback = -1
        quiet = -1
        imprisoning = 0
        quiets = 0
        moved = False
        while n > 0:
            i = rand_below(rng, n)
            m = cand[i]
            n -= 1
            cand[i] = cand[n]
            code = K.play(gid, geo, st, m)
            if code == R_FULL:
                return 0
            if code != OK:
                continue
            if m < P and meta[M_PRISON + X - 1] > own_prison:
                # Own stones went to the prison: keep it only as a last resort, and stop
                # looking after a few such moves (late in a game most moves are like
                # this, and trying them all costs a whole board of kernel calls).
                imprisoning += 1
                if imprisoning >= DROCHED_TRIES:
                    moved = True
                    break
                if fallback < 0:
                    fallback = m
                K.undo(gid, geo, st)
                continue
            if m < P and meta[M_PRISON + 2 - X] > enemy_prison:
                moved = True  # enemy stones went to the prison: take it
                break
            # A quiet action: look a little further for one that imprisons enemy stones.
            # Without this, random games cycle (build, imprison, rebuild) for thousands
            # of moves; real games end when one side has taken the board.
            quiets += 1
            if quiets >= DROCHED_LOOK:
                moved = True
                break
            if quiet < 0:
                quiet = m
            K.undo(gid, geo, st)
        if not moved:
            if quiet >= 0:
                K.play(gid, geo, st, quiet)
            elif fallback < 0 or K.play(gid, geo, st, fallback) != OK:
                # Every action was tried and none is legal: X loses.
                meta[M_OVER] = 1
                return 3 - X


@njit(cache=True)
def learn_replies(st, from_ply, w, reply):
    """Last good reply with forgetting, from a simulation that ``w`` won: for each move
    after history row ``from_ply``, ``reply[c - 1, previous move]`` becomes the move if
    its player ``c`` won, and is cleared if it held that move and ``c`` lost."""
    hm, hmv = st[4], st[5]
    P = st[0].shape[0]
    for ply in range(from_ply + 1, st[1][M_PLY] + 1):
        prev = hm[ply - 1, M_LAST]
        m = hmv[ply]
        if prev < 0 or m == P:
            continue
        c = hm[ply - 1, M_TO_MOVE]
        if c == w:
            reply[c - 1, prev] = m
        elif reply[c - 1, prev] == m:
            reply[c - 1, prev] = -1


@njit(cache=True)
def policy_playout(gid, geo, st, rng, max_ply, cand, scores, reply):
    """The full-strength playout for game ``gid``: 1/2 the winner, 0 at ``max_ply``.
    ``cand`` is a scratch int32 buffer of at least :func:`buffer_size` slots, ``scores``
    a float64 scratch pair, ``reply`` the last-good-reply table (Dehil; see
    :func:`learn_replies`)."""
    if gid == K.KEIL:
        return K.keil_playout(geo, st, rng, max_ply)
    if gid == K.DEHIL:
        return dehil_playout(geo, st, rng, max_ply, cand, scores, reply)
    return droched_playout(geo, st, rng, max_ply, cand, reply)


@njit(cache=True, inline="always")
def buffer_size(num_points):
    """Slots of the playout scratch buffer ``cand`` (compiled, so the search sizes it too)."""
    return num_points + 1 + DEHIL_LOOK
