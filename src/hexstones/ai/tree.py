"""Compiled Monte-Carlo tree search on the game kernels of :mod:`hexstones.core`.

(The Python driver, budgets, tree reuse and results, is :mod:`hexstones.ai.mcts`; this
file holds only compiled code, so that editing the driver never forces a recompile.)

The tree lives in flat arrays (one slot per node; a node's children are a contiguous
block), and whole batches of iterations run in one compiled call: no Python runs per
simulation. Each iteration

1. rewinds a work state to the root (the kernel's undo, move by move),
2. descends by UCT, or with knowledge by UCT blended with RAVE (all-moves-as-first
   values shared between sibling moves), playing each move with the kernel; a child
   whose move the kernel refuses is marked illegal and skipped from then on (children are
   created for every empty point and the special move, and checked lazily: cheaper than
   computing all legal moves at every expansion),
3. expands a leaf once it has been visited ``expand_visits`` times,
4. plays out: with knowledge the game's own policy playout (``policy_playout`` of each
   game's core module, see :mod:`hexstones.ai.policies`), else uniformly random legal
   moves (the plain UCT baseline),
5. backs up the result (and RAVE statistics for every move of the simulation).

The search knows no game: it holds the game id of ``game.compiled()`` as an opaque value
and passes it to the dispatchers of :mod:`hexstones.core.dispatch`, which also say what
the game's policy asks of the search (``search_biases``, ``learns_replies``).

Between moves the tree is kept: when the game has advanced by moves that are in the
tree, their node becomes the new root (:func:`advance_root`, driven by
:class:`hexstones.ai.result.TreeCache`).
"""

from __future__ import annotations

import math
import pathlib
from typing import NamedTuple

import numpy as np
from numba import njit

from hexstones.core.cache import core_sources, drop_stale_cache

# This search compiles the core kernels into itself (hexstones.core.cache).
_HERE = pathlib.Path(__file__).resolve().parent
drop_stale_cache(_HERE, core_sources() + [_HERE / n for n in ("policies.py", "tree.py")]
                 + [_HERE.parent / "games" / "compiled.py"],
                 "tree-sources.sha256", ("tree.*.nb[ic]", "policies.*.nb[ic]"))

from hexstones.ai.policies import learn_replies  # noqa: E402  (after the cache check on purpose)
from hexstones.core import dispatch as K  # noqa: E402
from hexstones.core.common import copy_into, draw, empty_points, rand_below, surrounded  # noqa: E402
from hexstones.core.layout import (  # noqa: E402
    BIAS_BORDER,
    BIAS_OWN_EYE,
    OK,
    R_FULL,
)
from hexstones.games import compiled as G  # noqa: E402

# Node flags.
ILLEGAL = 1
TERMINAL = 2

# params slots
P_C_UCT, P_C_RAVE, P_RAVE_BIAS, P_EXPAND, P_FPU, P_BORDER, P_EYE = range(7)
DEFAULT_PARAMS = np.array([0.7, 0.15, 0.02, 2.0, 1.1, 0.05, 1.0])
# stats slots (``stats`` of run_iterations): score sums and counts, and simulations done
STAT_BLACK, STAT_WHITE, STAT_SCORED, STAT_SIMS = range(4)
# counters slots
C_USED, C_ROOT = range(2)


class Tree(NamedTuple):
    """The search tree: one slot per node; a node's children are a contiguous block."""

    move: np.ndarray          # int32: the move into the node (0..P)
    first_child: np.ndarray   # int32: the first child's slot (-1: not expanded)
    num_children: np.ndarray  # int32
    visits: np.ndarray        # int32
    wins: np.ndarray          # float32: for the player who made the move
    rave_visits: np.ndarray   # int32
    rave_wins: np.ndarray     # float32
    flags: np.ndarray         # int8: ILLEGAL, TERMINAL
    counters: np.ndarray      # int64[4]: slots C_*


# The dtypes of Tree's per-node arrays, in its order (then the int64 counters).
NODE_DTYPES = (np.int32, np.int32, np.int32, np.int32, np.float32, np.int32, np.float32, np.int8)


def allocate_nodes(kind, dtypes, capacity: int, counters: int):
    """A tree of NamedTuple ``kind`` (this search's :class:`Tree`, or the network search's)
    with room for ``capacity`` nodes: a zeroed array of each of ``dtypes`` (its per-node
    fields, in order), then ``counters`` int64 slots."""
    return kind(*(np.zeros(capacity, dtype) for dtype in dtypes), np.zeros(counters, np.int64))


def allocate_tree(capacity: int) -> Tree:
    return allocate_nodes(Tree, NODE_DTYPES, capacity, 4)


@njit(cache=True, nogil=True)
def clear_node(tree, c):
    """Node ``c`` of a tree, this search's or the network search's, made unexpanded and
    unvisited: the fields both trees have (each tree clears its own values after)."""
    tree.first_child[c] = -1
    tree.num_children[c] = 0
    tree.visits[c] = 0
    tree.flags[c] = 0


@njit(cache=True, nogil=True)
def reset_root(tree):
    """Empty a tree, this search's or the network search's, down to an unvisited root
    (its own values are the caller's to clear)."""
    clear_node(tree, 0)
    tree.counters[C_USED] = 1
    tree.counters[C_ROOT] = 0


@njit(cache=True, nogil=True)
def rewind(gid, geo, work, ply):
    """Take ``work`` back to history row ``ply`` by the kernel's own undo (it also keeps
    the state's position table right): one row copy per move."""
    while G.ply(work) > ply:
        K.undo(gid, geo, work)


@njit(cache=True)
def reset_tree(tree):
    reset_root(tree)
    tree.wins[0] = 0.0


@njit(cache=True)
def uniform_playout(gid, geo, st, rng, max_ply, cand):
    """Uniformly random legal moves to the end: the first legal move of a random order
    of (empty points + the special move) is uniform over the legal moves. ``cand`` is
    scratch space for P + 1 moves."""
    board = st.board
    P = board.shape[0]
    while not K.is_over(gid, geo, st):
        if G.ply(st) >= max_ply:
            return 0
        n = empty_points(board, cand)
        cand[n] = P
        n += 1
        moved = False
        while n > 0:
            m = draw(rng, cand, n)
            n -= 1
            code = K.play(gid, geo, st, m)
            if code == OK:
                moved = True
                break
            if code == R_FULL:
                return 0
        if not moved:
            break
    return K.winner(gid, geo, st)


@njit(cache=True)
def _select(tree, node, rng, knowledge, params, border, penalty, board, nbr, X, eye_penalty):
    first, nchild = tree.first_child[node], tree.num_children[node]
    visits, wins, flags = tree.visits, tree.wins, tree.flags
    rvisits, rwins = tree.rave_visits, tree.rave_wins
    log_n = math.log(visits[node] + 1.0)
    best = -1e300
    chosen = -1
    start = rand_below(rng, nchild) if nchild > 0 else 0
    for k in range(nchild):
        c = first + (start + k) % nchild
        if flags[c] & ILLEGAL:
            continue
        n = visits[c]
        if knowledge:
            rv = rvisits[c]
            q = wins[c] / n if n > 0 else params[P_FPU]
            if rv > 0:
                beta = rv / (rv + n + rv * n * params[P_RAVE_BIAS])
                q = (1.0 - beta) * q + beta * (rwins[c] / rv)
            val = q + params[P_C_RAVE] * math.sqrt(log_n / (n + 1.0))
            m = tree.move[c]
            if m < border.shape[0] and border[m] >= 0:
                val -= penalty / (n + 1.0)
            if eye_penalty > 0.0 and m < board.shape[0] and surrounded(board, nbr, m, X):
                val -= eye_penalty / (n + 1.0)
        elif n == 0:
            val = 1e200
        else:
            val = wins[c] / n + params[P_C_UCT] * math.sqrt(log_n / n)
        if val > best:
            best = val
            chosen = c
    return chosen


@njit(cache=True)
def _descend_one(gid, geo, work, tree, node, rng, knowledge, params, biases):
    """Play the best legal child of ``node``; -1 if it has none (or history is full).
    ``biases``: the game's ``BIAS_*`` flags (used with ``knowledge``)."""
    penalty = 0.0
    eye_penalty = 0.0
    if knowledge and biases & BIAS_OWN_EYE:
        # The playouts never fill their own eye, so such a child has no RAVE value and
        # would get the first-play urgency, ahead of every move the playouts rate; let it
        # wait for them instead (it can still be worth a point late in the game).
        eye_penalty = params[P_EYE]
    if knowledge and biases & BIAS_BORDER:
        # A placement on the border is worse than one inside while the board is open: a
        # bias that fades with the empty cells and the child's own visits.
        board = work.board
        empties = 0
        for p in range(board.shape[0]):
            empties += board[p] == 0
        penalty = params[P_BORDER] * empties / board.shape[0]
    while True:
        c = _select(tree, node, rng, knowledge, params, geo.feature, penalty, work.board, geo.nbr,
                    G.to_move(work), eye_penalty)
        if c < 0:
            return -1
        code = K.play(gid, geo, work, tree.move[c])
        if code == OK:
            return c
        if code == R_FULL:
            return -1
        tree.flags[c] |= ILLEGAL


@njit(cache=True)
def run_iterations(gid, geo, root_st, work, tree, rng, iterations, knowledge, params, max_ply,
                   stats, collect, own, path, first_seen, reply):
    """Run ``iterations`` MCTS iterations from ``root_st`` (unchanged). ``reply``: the
    playouts' last-good-reply table, int32 (2, P + 1), -1 for none."""
    moves, firsts, counts = tree.move, tree.first_child, tree.num_children
    visits, wins = tree.visits, tree.wins
    rvisits, rwins, flags, counters = tree.rave_visits, tree.rave_wins, tree.flags, tree.counters
    capacity = moves.shape[0]
    P = root_st.board.shape[0]
    root = counters[C_ROOT]
    root_ply = G.ply(root_st)
    R = G.to_move(root_st)
    expand_visits = params[P_EXPAND]
    score_buf = np.zeros(2, np.float64)
    region_of = np.empty(P, np.int32)
    owner_of_region = np.empty(P + 1, np.int32)
    cand = np.empty(K.policy_buffer_size(P), np.int32)  # playout scratch
    biases = K.search_biases(gid)
    learns = knowledge and K.learns_replies(gid)
    copy_into(work, root_st)
    for _ in range(iterations):
        rewind(gid, geo, work, root_ply)  # back to the root
        node = root
        depth = 0
        path[0] = node
        # Selection.
        while firsts[node] >= 0 and not (flags[node] & TERMINAL):
            c = _descend_one(gid, geo, work, tree, node, rng, knowledge, params, biases)
            if c < 0:
                flags[node] |= TERMINAL
                break
            node = c
            depth += 1
            path[depth] = node
        # Expansion.
        if firsts[node] < 0 and not (flags[node] & TERMINAL) and visits[node] >= expand_visits:
            if K.is_over(gid, geo, work):
                flags[node] |= TERMINAL
            elif counters[C_USED] + P + 1 <= capacity and depth + 2 < path.shape[0]:
                board = work.board
                base = counters[C_USED]
                n = 0
                for p in range(P + 1):
                    if p == P or board[p] == 0:
                        c = base + n
                        moves[c] = p
                        clear_node(tree, c)
                        wins[c] = 0.0
                        rvisits[c] = 0
                        rwins[c] = 0.0
                        n += 1
                firsts[node] = base
                counts[node] = n
                counters[C_USED] = base + n
                c = _descend_one(gid, geo, work, tree, node, rng, knowledge, params, biases)
                if c < 0:
                    flags[node] |= TERMINAL
                else:
                    node = c
                    depth += 1
                    path[depth] = node
        # Simulation.
        if knowledge:
            w = K.policy_playout(gid, geo, work, rng, max_ply, cand, score_buf, reply)
        else:
            w = uniform_playout(gid, geo, work, rng, max_ply, cand)
        # The score is needed to settle a simulation stopped at max_ply, and for analysis.
        has_score = False
        if w == 0 or collect:
            has_score = K.score(gid, geo, work, score_buf)
        if w == 0 and has_score:  # stopped at max_ply: the score as it stands decides
            w = 1 if score_buf[0] > score_buf[1] else 2
        stats[STAT_SIMS] += 1
        if learns and w > 0:
            learn_replies(work, root_ply, w, reply)
        if collect:
            if has_score:
                stats[STAT_BLACK] += score_buf[0]
                stats[STAT_WHITE] += score_buf[1]
                stats[STAT_SCORED] += 1
            K.add_ownership(gid, geo, work, own, region_of, owner_of_region)
        # Backpropagation: the node at depth d was entered by R's move if d is odd.
        visits[root] += 1
        for d in range(1, depth + 1):
            c = path[d]
            mover = R if d % 2 == 1 else 3 - R
            visits[c] += 1
            wins[c] += 1.0 if w == mover else (0.5 if w == 0 else 0.0)
        if knowledge:
            # RAVE: a child's move counts if its player played it at or after that point.
            hmv = work.hist_move
            length = G.ply(work) - root_ply
            for i in range(length):
                m = hmv[root_ply + 1 + i]
                color = R if i % 2 == 0 else 3 - R
                if m < P and first_seen[color - 1, m] < 0:
                    first_seen[color - 1, m] = i
            for d in range(depth + 1):
                n0 = path[d]
                if firsts[n0] < 0:
                    continue
                color = R if d % 2 == 0 else 3 - R
                value = 1.0 if w == color else (0.5 if w == 0 else 0.0)
                for c in range(firsts[n0], firsts[n0] + counts[n0]):
                    m = moves[c]
                    if m < P and first_seen[color - 1, m] >= d:
                        rvisits[c] += 1
                        rwins[c] += value
            for i in range(length):
                m = hmv[root_ply + 1 + i]
                if m < P:
                    first_seen[0, m] = -1
                    first_seen[1, m] = -1
    return counters[C_USED]


@njit(cache=True)
def advance_root(tree, move):
    """Make the child of the root for ``move`` the root; False if there is none."""
    root = tree.counters[C_ROOT]
    first = tree.first_child[root]
    if first < 0:
        return False
    for c in range(first, first + tree.num_children[root]):
        if tree.move[c] == move and not (tree.flags[c] & ILLEGAL):
            tree.counters[C_ROOT] = c
            return True
    return False
