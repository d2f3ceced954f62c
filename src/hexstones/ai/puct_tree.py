"""Compiled part of the network-guided search (PUCT, AlphaZero style, with leaf batching).

(The Python driver, budgets, threads, tree reuse and results, is :mod:`hexstones.ai.puct`;
this file holds only compiled code, so that editing the driver never forces a recompile.)

The tree lives in flat arrays like the classic search's (:mod:`hexstones.ai.tree`): one
slot per node, a node's children a contiguous block. A search step is two compiled
calls with one network evaluation between them:

1. :func:`select_leaves` descends from the root up to ``B`` times, each time by PUCT
   with a virtual loss on the path taken (so that the next descent of the same batch
   goes elsewhere), playing the moves with the kernels; at each leaf it writes the
   network's features (:func:`hexstones.games.observation.write_features`) into row ``b`` of
   the batch and the leaf's legal moves (the kernel's). A leaf where the game is over
   gets its exact result from the kernels instead, and needs no network.
2. the driver evaluates the batch with the network, once;
3. :func:`expand_and_backup` gives each evaluated leaf its children (the legal moves,
   with the network's priors: a softmax over the legal moves' logits) and backs up every
   leaf's value (and score margin) along its path, removing the virtual loss.

Values are in [-1, 1]; a node keeps them for the player who made the move into it. The
search knows no game: the game id of ``game.compiled()`` goes to the dispatchers of
:mod:`hexstones.core.dispatch`. The functions release the GIL, so that several searchers
of one tree (threads of the driver, taking turns at the tree under a lock) overlap their
tree work with each other's network evaluations.
"""

from __future__ import annotations

import math
import pathlib
from typing import NamedTuple

import numpy as np
from numba import njit

from hexstones.core.cache import core_sources, drop_stale_cache

# This search compiles the core kernels and the feature encoder into itself.
_HERE = pathlib.Path(__file__).resolve().parent
drop_stale_cache(_HERE, core_sources() + [_HERE / n for n in ("puct_tree.py", "policies.py", "tree.py")]
                 + [_HERE.parent / "games" / n for n in ("compiled.py", "observation.py")],
                 "puct-sources.sha256", ("puct_tree.*.nb[ic]",))

from hexstones.ai.policies import learn_replies  # noqa: E402
from hexstones.ai.tree import allocate_nodes, clear_node, reset_root, rewind  # noqa: E402
from hexstones.core import dispatch as K  # noqa: E402
from hexstones.core.layout import OK  # noqa: E402
from hexstones.games import compiled as G  # noqa: E402
from hexstones.games.observation import write_features  # noqa: E402  (after the cache check on purpose)

# Node flags (1 is the classic tree's ILLEGAL, never set here: a node's children are the
# legal moves; the classic tree's advance_root, which the tree cache uses, reads it).
TERMINAL = 2
PENDING = 4  # a leaf of the batch in flight: its evaluation has not come back yet

# params slots
P_C_PUCT, P_FPU, P_SCORE_WEIGHT, P_SCORE_SCALE, P_ROOT_FPU, P_MIX = range(6)
# P_MIX: the share of a leaf's value that comes from one policy playout from the leaf (the
# classic search's, to the end of the game) rather than from the network's value head
# (AlphaGo's mixing; 0: the network alone, as AlphaZero).
DEFAULT_PARAMS = np.array([1.5, 0.25, 0.1, 4.0, 0.1, 0.0])
# counters slots
C_USED, C_ROOT = range(2)
# leaf kinds (``kind`` of select_leaves)
LEAF_NET, LEAF_EXACT = 0, 1


class PuctTree(NamedTuple):
    """The search tree: one slot per node; a node's children are a contiguous block."""

    move: np.ndarray          # int32: the move into the node (0..P)
    first_child: np.ndarray   # int32: the first child's slot (-1: not expanded)
    num_children: np.ndarray  # int32
    visits: np.ndarray        # int32: values backed up through the node
    virtual: np.ndarray       # int32: descents in flight through the node (virtual losses)
    value_sum: np.ndarray     # float64: value for the player who made the move into it
    score_sum: np.ndarray     # float64: score margin for that player (games with a score)
    prior: np.ndarray         # float32: the network's probability of the move into it
    flags: np.ndarray         # int8: TERMINAL, PENDING
    counters: np.ndarray      # int64[2]: slots C_*


# The dtypes of PuctTree's per-node arrays, in its order (then the int64 counters).
NODE_DTYPES = (np.int32, np.int32, np.int32, np.int32, np.int32, np.float64, np.float64,
               np.float32, np.int8)


def allocate_tree(capacity: int) -> PuctTree:
    tree = allocate_nodes(PuctTree, NODE_DTYPES, capacity, 2)
    tree.first_child[:] = -1
    return tree


def grow_tree(tree: PuctTree, capacity: int) -> PuctTree:
    """A copy of ``tree`` with room for ``capacity`` nodes: the same slots, so that paths
    chosen before (leaves in flight) stay valid in the copy."""
    bigger = allocate_tree(capacity)
    used = int(tree.counters[C_USED])
    for old, new in zip(tree[:-1], bigger[:-1]):  # every per-node array; then the counters
        new[:used] = old[:used]
    bigger.counters[:] = tree.counters
    return bigger


def node_bytes() -> int:
    """Memory of one node of the tree."""
    return sum(np.dtype(dtype).itemsize for dtype in NODE_DTYPES)


@njit(cache=True, nogil=True)
def reset_tree(tree):
    reset_root(tree)
    tree.virtual[0] = 0
    tree.value_sum[0] = 0.0
    tree.score_sum[0] = 0.0
    tree.prior[0] = 1.0


@njit(cache=True, nogil=True, inline="always")
def _utility(value_mean, score_mean, params):
    """What a player gets from a node: the value plus a small bonus for the score margin
    (KataGo's score utility: bounded, so the value decides and the score breaks ties)."""
    return value_mean + params[P_SCORE_WEIGHT] * (2.0 / math.pi) * math.atan(
        score_mean / params[P_SCORE_SCALE])


@njit(cache=True, nogil=True)
def _select_child(tree, node, is_root, params):
    """The child of ``node`` with the highest PUCT value; -1 if it has none. Descents in
    flight count as losses (virtual loss); an unvisited child is valued at its parent's
    value less a first-play reduction."""
    first, count = tree.first_child[node], tree.num_children[node]
    visits, virtual, vsum, ssum, prior = (tree.visits, tree.virtual, tree.value_sum,
                                          tree.score_sum, tree.prior)
    n_parent = visits[node] + virtual[node]
    # The parent's value for the player choosing here: the node's own is the opponent's.
    parent_q = 0.0
    if visits[node] > 0:
        parent_q = -_utility(vsum[node] / visits[node], ssum[node] / visits[node], params)
    fpu = parent_q - (params[P_ROOT_FPU] if is_root else params[P_FPU])
    sqrt_n = math.sqrt(max(n_parent, 1))
    c_puct = params[P_C_PUCT]
    best = -1e300
    chosen = -1
    for c in range(first, first + count):
        n = visits[c]
        vl = virtual[c]
        if n + vl == 0:
            q = fpu
        else:
            q_real = _utility(vsum[c] / n, ssum[c] / n, params) if n > 0 else fpu
            q = (q_real * n - vl) / (n + vl)
        val = q + c_puct * prior[c] * sqrt_n / (1.0 + n + vl)
        if val > best:
            best = val
            chosen = c
    return chosen


@njit(cache=True, nogil=True)
def _exact_value(gid, geo, st, score_buf):
    """The game's result for the side to move in the finished position ``st``: value
    (+1 win, -1 loss, 0 draw) and score margin (0 without a score)."""
    X = G.to_move(st)
    w = K.winner(gid, geo, st)
    value = 1.0 if w == X else (-1.0 if w == 3 - X else 0.0)
    margin = 0.0
    if K.score(gid, geo, st, score_buf):
        margin = score_buf[X - 1] - score_buf[2 - X]
    return value, margin


@njit(cache=True, nogil=True)
def select_leaves(gid, geo, root_st, work, tree, params, balance, max_leaves, features,
                  paths, depths, kinds, legal, num_legal, exact_value, exact_score, to_move,
                  rng, max_ply, cand, reply, rollout):
    """Choose up to ``max_leaves`` leaves (one per descent from the root, with virtual
    loss). Leaf ``b``: its path ``paths[b, :depths[b] + 1]``; ``kinds[b]`` LEAF_NET (its
    features in ``features[b]``, its legal moves ``legal[b, :num_legal[b]]``) or
    LEAF_EXACT (its result ``exact_value[b]``, ``exact_score[b]``, for the side to move
    there, ``to_move[b]``). Returns the number of leaves; stops early when descents keep
    reaching leaves already in the batch. ``paths`` and ``depths`` have room for
    ``max_leaves + max_leaves // 2 + 1`` rows (the rows after the leaves' are scratch).
    ``work`` holds the root's position or a later one of the same line (it is rewound
    with the kernel's undo). With ``params[P_MIX] > 0`` each network leaf also gets one
    policy playout (``rng``, ``max_ply``, scratch ``cand`` and the reply table ``reply`` as
    the classic search's), its result for the side to move in ``rollout[b]``."""
    flags, counters = tree.flags, tree.counters
    root = counters[C_ROOT]
    root_ply = G.ply(root_st)
    max_depth = paths.shape[1] - 1
    score_buf = np.zeros(2, np.float64)
    mix = params[P_MIX] > 0.0
    learns = K.learns_replies(gid)
    n = 0
    collisions = 0
    while n < max_leaves and collisions <= max_leaves // 2:
        rewind(gid, geo, work, root_ply)
        node = root
        depth = 0
        paths[n, 0] = node
        stuck = False
        while tree.first_child[node] >= 0 and not (flags[node] & TERMINAL):
            if depth >= max_depth:
                stuck = True
                break
            c = _select_child(tree, node, depth == 0, params)
            if c < 0:
                stuck = True
                break
            if K.play(gid, geo, work, tree.move[c]) != OK:  # history full: never in practice
                stuck = True
                break
            node = c
            depth += 1
            paths[n, depth] = node
        if stuck:
            break
        if flags[node] & PENDING:
            # A descent that ends on a leaf already in flight is no leaf of its own; its
            # path keeps a virtual loss until the batch is chosen, so that the next
            # descent goes elsewhere (its row after the batch's rows remembers it).
            row = max_leaves + collisions
            collisions += 1
            for d in range(depth + 1):
                paths[row, d] = paths[n, d]
                tree.virtual[paths[n, d]] += 1
            depths[row] = depth
            continue
        for d in range(depth + 1):
            tree.virtual[paths[n, d]] += 1
        depths[n] = depth
        to_move[n] = G.to_move(work)
        if not (flags[node] & TERMINAL) and K.is_over(gid, geo, work):
            flags[node] |= TERMINAL
        if flags[node] & TERMINAL:
            kinds[n] = LEAF_EXACT
            v, s = _exact_value(gid, geo, work, score_buf)
            exact_value[n] = v
            exact_score[n] = s
        else:
            count = K.legal_moves(gid, geo, work, legal[n])
            if count == 0:  # no move left though the game goes on: count it a draw
                flags[node] |= TERMINAL
                kinds[n] = LEAF_EXACT
                exact_value[n] = 0.0
                exact_score[n] = 0.0
            else:
                kinds[n] = LEAF_NET
                num_legal[n] = count
                write_features(geo, work, balance, features[n])
                flags[node] |= PENDING
                if mix:
                    # The next descent rewinds the playout's moves with the rest.
                    X = to_move[n]
                    w = K.policy_playout(gid, geo, work, rng, max_ply, cand, score_buf, reply)
                    if w <= 0 and K.score(gid, geo, work, score_buf):
                        w = 1 if score_buf[0] > score_buf[1] else 2
                    if w > 0 and learns:
                        learn_replies(work, root_ply, w, reply)
                    rollout[n] = 1.0 if w == X else (-1.0 if w == 3 - X else 0.0)
        n += 1
    for row in range(max_leaves, max_leaves + collisions):
        for d in range(depths[row] + 1):
            tree.virtual[paths[row, d]] -= 1
    return n


@njit(cache=True, nogil=True)
def expand_and_backup(tree, count, paths, depths, kinds, legal, num_legal, logits, values,
                      scores, exact_value, exact_score, rollout, params):
    """Expand the evaluated leaves of a batch (children: the legal moves, priors the
    softmax of the network's logits over them) and back up every leaf's value and score
    margin (both for the side to move at the leaf), removing the virtual losses. A leaf
    whose children do not fit in the tree stays a leaf (its value still counts)."""
    moves, firsts, counts = tree.move, tree.first_child, tree.num_children
    capacity = moves.shape[0]
    counters = tree.counters
    for b in range(count):
        depth = depths[b]
        leaf = paths[b, depth]
        if kinds[b] == LEAF_NET:
            v = (1.0 - params[P_MIX]) * values[b] + params[P_MIX] * rollout[b]
            s = scores[b]
            tree.flags[leaf] &= ~PENDING
            k = num_legal[b]
            if firsts[leaf] < 0 and counters[C_USED] + k <= capacity:
                base = counters[C_USED]
                top = -1e300
                for i in range(k):
                    top = max(top, logits[b, legal[b, i]])
                total = 0.0
                for i in range(k):
                    total += math.exp(logits[b, legal[b, i]] - top)
                for i in range(k):
                    c = base + i
                    moves[c] = legal[b, i]
                    clear_node(tree, c)
                    tree.virtual[c] = 0
                    tree.value_sum[c] = 0.0
                    tree.score_sum[c] = 0.0
                    tree.prior[c] = math.exp(logits[b, legal[b, i]] - top) / total
                counts[leaf] = k
                firsts[leaf] = base
                counters[C_USED] = base + k
        else:
            v = exact_value[b]
            s = exact_score[b]
        # The leaf's node holds values for the player who moved into it: the opponent of
        # the side to move there; the sign flips at every level up.
        sign = -1.0
        for d in range(depth, -1, -1):
            node = paths[b, d]
            tree.visits[node] += 1
            tree.virtual[node] -= 1
            tree.value_sum[node] += sign * v
            tree.score_sum[node] += sign * s
            sign = -sign
