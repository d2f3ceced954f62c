"""Dehil kernels (docs/rules.md section 3). Move P is a pass."""

from __future__ import annotations

import numpy as np
from numba import njit

from hexstones.core.common import (  # noqa: F401  (undo, copy_into: part of the interface)
    add_stone_ownership,
    commit,
    copy_into,
    draw,
    empty_points,
    surrounded,
    undo,
)
from hexstones.core.layout import (
    BIAS_OWN_EYE,
    DEHIL,
    M_KOMI,
    M_LAST,
    M_PASSES,
    M_PLY,
    M_REMOVED,
    M_SPECIAL,
    M_TO_MOVE,
    OK,
    R_FULL,
    R_GAME_OVER,
    R_NOT_A_MOVE,
    R_OCCUPIED,
    R_TRIANGLE,
    W_ADJ,
    W_AREAS,
    W_BUF,
    W_CAND,
    W_DEG,
    W_DISC,
    W_FILL,
    W_GROUP,
    W_LABEL,
    W_LOW,
    W_NODEG,
    W_SEDGE,
    W_SNODE,
    W_SPLIT,
)

GAME_ID = DEHIL  # this game's id for the dispatchers of hexstones.core.dispatch


@njit(cache=True, _nrt=False)
def in_triangle(board, nbr, f, X):
    """Whether the X stone on ``f`` belongs to a triangle pattern of X."""
    for d in range(6):
        a = nbr[f, d]
        b = nbr[f, d + 1 if d < 5 else 0]
        if a >= 0 and b >= 0 and board[a] == X and board[b] == X:
            return True
    return False


@njit(cache=True, _nrt=False)
def is_hourglass_center(board, nbr, f, X):
    """Whether the X stone on ``f`` is the centre of an hourglass: two opposite X triangles
    (f with neighbours d, d+1 and with d+3, d+4)."""
    for d in range(3):
        a = nbr[f, d]
        b = nbr[f, d + 1]
        c = nbr[f, d + 3]
        e = nbr[f, d + 4 if d < 2 else 0]
        if (a >= 0 and b >= 0 and c >= 0 and e >= 0 and board[a] == X and board[b] == X
                and board[c] == X and board[e] == X):
            return True
    return False


@njit(cache=True, _nrt=False)
def supported(board, nbr, v, X):
    """Whether ``v`` is adjacent to an X stone in no triangle or at an hourglass centre."""
    for d in range(6):
        f = nbr[v, d]
        if f >= 0 and board[f] == X:
            if not in_triangle(board, nbr, f, X) or is_hourglass_center(board, nbr, f, X):
                return True
    return False


@njit(cache=True, _nrt=False)
def triangle_allowed(board, nbr, on_edge, a, b, c, X):
    """The reading of docs/rules.md 3.4 for the X triangle a, b, c."""
    edge = on_edge[a] + on_edge[b] + on_edge[c]
    if edge > 1:
        return False
    if on_edge[a] == 0 and not supported(board, nbr, a, X):
        return False
    if on_edge[b] == 0 and not supported(board, nbr, b, X):
        return False
    if on_edge[c] == 0 and not supported(board, nbr, c, X):
        return False
    return True


@njit(cache=True, _nrt=False)
def placement_violation(geo, st, p, out):
    """Why a placement of the player to move on empty ``p`` breaks the triangle rule: 0 it
    does not, 1 a triangle would have two or more stones on the edge, 2 a triangle has
    unsupported stones. ``out[0:3]`` the first such triangle (in triangle order), ``out[3:6]``
    1 for each of its stones that is unsupported and not on the edge."""
    nbr, on_edge, tri, near = geo.nbr, geo.on_edge, geo.tri, geo.near_tri
    board = st.board
    X = st.meta[M_TO_MOVE]
    board[p] = X
    kind = 0
    for k in range(near.shape[1]):
        t = near[p, k]
        if t < 0:
            break
        a = tri[t, 0]
        b = tri[t, 1]
        c = tri[t, 2]
        if board[a] != X or board[b] != X or board[c] != X:
            continue
        out[0] = a
        out[1] = b
        out[2] = c
        if on_edge[a] + on_edge[b] + on_edge[c] > 1:
            kind = 1
            break
        for i in range(3):
            v = out[i]
            out[3 + i] = 1 if on_edge[v] == 0 and not supported(board, nbr, v, X) else 0
        if out[3] + out[4] + out[5] > 0:
            kind = 2
            break
    board[p] = 0
    return kind


@njit(cache=True, _nrt=False)
def placement_allowed(geo, board, p, X):
    """With X's stone already on ``p``: whether every X triangle is allowed. Only triangles
    with a point within distance 2 of ``p`` can have changed (all were allowed before)."""
    nbr, on_edge, tri, near = geo.nbr, geo.on_edge, geo.tri, geo.near_tri
    if not in_triangle(board, nbr, p, X):
        # No new triangle, and no stone joins one (it would be a triangle with ``p``): every
        # supporter still supports, and ``p`` can only add support.
        return True
    for k in range(near.shape[1]):
        t = near[p, k]
        if t < 0:
            break
        a = tri[t, 0]
        b = tri[t, 1]
        c = tri[t, 2]
        if board[a] == X and board[b] == X and board[c] == X:
            if not triangle_allowed(board, nbr, on_edge, a, b, c, X):
                return False
    return True


# Inlined into each caller (the playout above all): a compiled call passes every array
# of the geometry and state tuples field by field, which cost 6-15 % of a playout.
@njit(cache=True, _nrt=False, inline="always")
def play(geo, st, move):
    """Play ``move`` for the player to move; returns OK or a reason code (state unchanged)."""
    board, meta, hh = st.board, st.meta, st.hist_hash
    P = board.shape[0]
    if meta[M_PASSES] >= 2:
        return R_GAME_OVER
    if move < 0 or move > P:
        return R_NOT_A_MOVE
    ply = meta[M_PLY]
    if ply + 1 >= hh.shape[0]:
        return R_FULL
    X = meta[M_TO_MOVE]
    h = hh[ply]
    if move == P:
        if meta[M_SPECIAL] == 0:
            meta[M_SPECIAL] = X
        meta[M_PASSES] += 1
        meta[M_REMOVED] = 0
        commit(st, move, h, False)
        return OK
    if board[move] != 0:
        return R_OCCUPIED
    board[move] = X
    if not placement_allowed(geo, board, move, X):
        board[move] = 0
        return R_TRIANGLE
    meta[M_PASSES] = 0
    meta[M_REMOVED] = 0
    commit(st, move, h ^ geo.zobrist[X, move], True)
    return OK


@njit(cache=True, _nrt=False)
def is_over(geo, st):
    return st.meta[M_PASSES] >= 2


@njit(cache=True, _nrt=False)
def legal_moves(geo, st, out):
    """Write every legal move (points ascending, then P) into ``out``; return the count."""
    board, meta = st.board, st.meta
    P = board.shape[0]
    if meta[M_PASSES] >= 2:
        return 0
    X = meta[M_TO_MOVE]
    n = 0
    for p in range(P):
        if board[p] == 0:
            board[p] = X
            if placement_allowed(geo, board, p, X):
                out[n] = p
                n += 1
            board[p] = 0
    out[n] = P
    return n + 1


@njit(cache=True, _nrt=False)
def legal_moves_tracked(geo, st, out, rings, left):
    """:func:`legal_moves` for a caller that keeps the ring code of every point in
    ``rings`` (see ``common.track_board``; ``left`` is not needed): a placement that
    joins no triangle of the mover's (one read of ``TRIANGLE_RING``, where
    ``placement_allowed`` walks the six neighbours) is allowed without more."""
    board, meta = st.board, st.meta
    P = board.shape[0]
    if meta[M_PASSES] >= 2:
        return 0
    X = meta[M_TO_MOVE]
    joins = TRIANGLE_RING[X - 1]
    n = 0
    for p in range(P):
        if board[p] == 0:
            legal = True
            if joins[rings[p]]:
                board[p] = X
                legal = placement_allowed(geo, board, p, X)
                board[p] = 0
            if legal:
                out[n] = p
                n += 1
    out[n] = P
    return n + 1


def _triangle_ring_table() -> np.ndarray:
    """``TRIANGLE_RING[X - 1, ring]``: whether a stone of X on a point with ring code
    ``ring`` (``common.ring_of``) is in a triangle of X (``in_triangle``): two
    neighbours in consecutive directions hold X."""
    ring = np.arange(4096)
    field = [(ring >> (2 * d)) & 3 for d in range(6)]
    return np.array([np.any([(field[d] == X) & (field[(d + 1) % 6] == X) for d in range(6)],
                            axis=0) for X in (1, 2)], dtype=np.uint8)


TRIANGLE_RING = _triangle_ring_table()


@njit(cache=True, _nrt=False)
def group_partitions(geo, st, group_of, areas):
    """Label groups (``group_of[p]``, -1 empty) and count each one's areas: the connected
    parts the rest of the board falls into without it (2 or more: it has partitions).

    Every group, every other group and every empty region is contracted to one node (each
    is connected, so this keeps the connectivity of whatever is left when a group is taken
    out); a group has partitions iff its node is a cut vertex of that graph. One iterative
    Tarjan pass. Returns the group count."""
    nbr = geo.nbr
    board = st.board
    P = board.shape[0]
    work = st.work
    label = work[W_LABEL]
    queue = work[W_BUF]
    for p in range(P):
        label[p] = -1
    nodes = 0
    groups = 0
    for p in range(P):
        if label[p] >= 0:
            continue
        color = board[p]
        label[p] = nodes
        queue[0] = p
        head = 0
        tail = 1
        while head < tail:
            x = queue[head]
            head += 1
            for d in range(6):
                q = nbr[x, d]
                if q >= 0 and label[q] < 0 and board[q] == color:
                    label[q] = nodes
                    queue[tail] = q
                    tail += 1
        nodes += 1
    # Adjacency between nodes (CSR, duplicates harmless for cut vertices). All arrays
    # are work rows: the kernel allocates nothing (it runs inside NRT-free playouts).
    deg = work[W_DEG]
    for i in range(nodes + 1):
        deg[i] = 0
    for p in range(P):
        for d in range(6):
            q = nbr[p, d]
            if q >= 0 and label[q] != label[p]:
                deg[label[p] + 1] += 1
    for i in range(nodes):
        deg[i + 1] += deg[i]
    adj = work[W_ADJ]
    fill = work[W_FILL]
    for i in range(nodes):
        fill[i] = deg[i]
    for p in range(P):
        for d in range(6):
            q = nbr[p, d]
            if q >= 0 and label[q] != label[p]:
                adj[fill[label[p]]] = label[q]
                fill[label[p]] += 1
    disc = work[W_DISC]
    low = work[W_LOW]
    split = work[W_SPLIT]
    stack_node = work[W_SNODE]
    stack_edge = work[W_SEDGE]
    for i in range(nodes):
        disc[i] = -1
        low[i] = 0
        split[i] = 0
    # The board is connected: one DFS from node 0 reaches every node.
    disc[0] = 0
    low[0] = 0
    time = 1
    top = 0
    stack_node[0] = 0
    stack_edge[0] = deg[0]
    while top >= 0:
        v = stack_node[top]
        e = stack_edge[top]
        if e < deg[v + 1]:
            stack_edge[top] = e + 1
            u = adj[e]
            if disc[u] < 0:
                disc[u] = time
                low[u] = time
                time += 1
                top += 1
                stack_node[top] = u
                stack_edge[top] = deg[u]
            elif disc[u] < low[v]:
                low[v] = disc[u]
        else:
            top -= 1
            if top >= 0:
                parent = stack_node[top]
                if low[v] < low[parent]:
                    low[parent] = low[v]
                if low[v] >= disc[parent]:
                    split[parent] += 1
    # Renumber: groups only (empty regions are not groups).
    node_group = work[W_NODEG]
    for i in range(nodes):
        node_group[i] = -1
    for p in range(P):
        if board[p] != 0:
            node = label[p]
            if node_group[node] < 0:
                node_group[node] = groups
                # Children cut off by the node, plus (below the root) the part above it.
                areas[groups] = split[node] + (1 if node != 0 else 0)
                groups += 1
            group_of[p] = node_group[node]
        else:
            group_of[p] = -1
    return groups


# The parts of a player's score, in the order of the game API's ``score_parts``: the
# stones of their groups with partitions (plus), of their groups without (minus, counted
# against them), komi (White) and the first pass's half point; the score is
# plus - minus + komi + first pass.
SCORE_PARTS = 4


@njit(cache=True, _nrt=False, inline="always")
def score_terms(geo, st):
    """Black's and White's score parts (two tuples, see SCORE_PARTS) as if the game
    ended now."""
    board, meta = st.board, st.meta
    P = board.shape[0]
    group_of = st.work[W_GROUP]
    areas = st.work[W_AREAS]
    group_partitions(geo, st, group_of, areas)
    black_plus = 0
    black_minus = 0
    white_plus = 0
    white_minus = 0
    for p in range(P):
        b = board[p]
        if b == 0:
            continue
        plus = areas[group_of[p]] >= 2
        if b == 1:
            black_plus += plus
            black_minus += not plus
        else:
            white_plus += plus
            white_minus += not plus
    first = meta[M_SPECIAL]
    return ((float(black_plus), float(black_minus), 0.0, 0.5 if first == 1 else 0.0),
            (float(white_plus), float(white_minus), float(meta[M_KOMI]),
             0.5 if first == 2 else 0.0))


@njit(cache=True, _nrt=False)
def score_parts(geo, st, out):
    """Write each player's score parts into ``out`` (float64[2, SCORE_PARTS], row c - 1
    for colour c) as if the game ended now; returns True (Dehil has a score)."""
    black, white = score_terms(geo, st)
    for k in range(SCORE_PARTS):
        out[0, k] = black[k]
        out[1, k] = white[k]
    return True


@njit(cache=True, _nrt=False)
def score_pair(geo, st):
    """(black, white) scores as if the game ended now, from their parts."""
    black, white = score_terms(geo, st)
    return (black[0] - black[1] + black[2] + black[3],
            white[0] - white[1] + white[2] + white[3])


@njit(cache=True, _nrt=False)
def score(geo, st, out):
    """Write the score (black, white) into ``out[0:2]``; returns True."""
    black, white = score_pair(geo, st)
    out[0] = black
    out[1] = white
    return True


@njit(cache=True, _nrt=False)
def winner(geo, st):
    if st.meta[M_PASSES] < 2:
        return 0
    black, white = score_pair(geo, st)
    return 1 if black > white else 2


# Playout policy: filling ``p`` fills X's own eye when every neighbour holds an X stone.
fills_own_eye = surrounded


@njit(cache=True, _nrt=False)
def playout(geo, st, rng, max_ply):
    """Random play to the end under the playout policy (a uniformly random legal placement
    that does not fill an own eye, else pass). Returns the winner, 0 if ``max_ply`` was
    reached, -1 if the history is full."""
    nbr = geo.nbr
    board, meta = st.board, st.meta
    P = board.shape[0]
    cand = st.work[W_CAND]
    # The empty points cand[:empties], kept from move to move instead of listed anew each
    # turn: a draw swaps two of them, the placed point leaves from the slot its draw put
    # it in (Dehil removes no stones, so none ever comes back).
    empties = empty_points(board, cand)
    while meta[M_PASSES] < 2:
        if meta[M_PLY] >= max_ply:
            return 0
        X = meta[M_TO_MOVE]
        n = empties
        placed = False
        while n > 0:
            p = draw(rng, cand, n)
            n -= 1
            if fills_own_eye(board, nbr, p, X):
                continue
            code = play(geo, st, p)
            if code == OK:
                empties -= 1
                cand[n] = cand[empties]
                placed = True
                break
            if code == R_FULL:
                return -1
        if not placed:
            if play(geo, st, P) != OK:  # only R_FULL can refuse the special move here
                return -1
    return winner(geo, st)


# -- the search's knowledge: the policy playout and what it asks of the search ----------

SEARCH_BIASES = BIAS_OWN_EYE  # the policy playout never fills an own eye
LEARNS_REPLIES = True  # the policy playout plays the last good reply
# How many random non-cut candidates to pass over while looking for a cut point (16 with
# both colours' cut points: 92.5% against plain UCT in 160 games where 8 with own cut
# points only won 86%; docs/ai.md).
POLICY_LOOK = 16
POLICY_SCRATCH = 1 + POLICY_LOOK  # slots of ``cand`` the policy playout needs beyond P


@njit(cache=True, _nrt=False)
def policy_move_limit(num_points):
    """Moves beyond the root after which a policy playout counts as undecided."""
    return 4 * num_points + 40


@njit(cache=True)
def add_ownership(geo, st, own, region_of, owner_of_region):
    """Add +1 for each point Black owns at the end of a playout, -1 for White: stones."""
    add_stone_ownership(st.board, own)
    return np.int64(0)


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
def policy_playout(geo, st, rng, max_ply, cand, scores, reply):
    """The full-strength playout: pass after the opponent's pass when that wins; play the
    last good reply to the opponent's move (``reply``, learnt by the search from the
    simulations won) if it is legal; never fill one's own eye, and prefer cut points, one's
    own or the opponent's: a placement that joins walls (stones of one colour or the
    board's edge) so that the points around it fall into two or more separate arcs. Such
    a point is where a group can cut the board, and taking the opponent's first stops
    their cut; a lone stone without partitions scores against its owner.

    ``cand``: int32 scratch of P + POLICY_SCRATCH slots; ``scores``: float64 scratch pair.
    Returns the winner, 0 at ``max_ply`` or when the history is full."""
    nbr = geo.nbr
    board, meta = st.board, st.meta
    P = board.shape[0]
    deferred = cand[P + 1:]  # the buffer holds P + 1 + POLICY_LOOK slots
    while not is_over(geo, st):
        if meta[M_PLY] >= max_ply:
            return 0
        X = meta[M_TO_MOVE]
        if meta[M_PASSES] == 1:
            # The opponent has passed: pass too (ending the game) when that wins. Filling
            # the board instead would score groups no real game ends with.
            score(geo, st, scores)
            if scores[X - 1] > scores[2 - X]:
                play(geo, st, P)
                continue
        last = meta[M_LAST]
        if last >= 0:
            # The last good reply: X's answer to this move in a simulation X won.
            r = reply[X - 1, last]
            if r >= 0 and board[r] == 0 and not fills_own_eye(board, nbr, r, X):
                code = play(geo, st, r)
                if code == OK:
                    continue
                if code == R_FULL:
                    return 0
        n = empty_points(board, cand)
        placed = False
        nd = 0
        while n > 0:
            p = draw(rng, cand, n)
            n -= 1
            if fills_own_eye(board, nbr, p, X):
                continue
            if nd < POLICY_LOOK and not cut_point(board, nbr, p, X):
                deferred[nd] = p
                nd += 1
                continue
            code = play(geo, st, p)
            if code == OK:
                placed = True
                break
            if code == R_FULL:
                return 0
        for k in range(nd):
            if placed:
                break
            code = play(geo, st, deferred[k])
            if code == OK:
                placed = True
            elif code == R_FULL:
                return 0
        if not placed:
            if play(geo, st, P) != OK:
                return 0
    return winner(geo, st)
