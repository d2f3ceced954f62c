"""The search driver: budgets, tree reuse between moves, and results.

The compiled part (tree arrays, selection, RAVE, playouts) is :mod:`hexstones.ai.tree`.
A batch of iterations runs in one compiled call; Python only checks the clock between
batches.
"""

from __future__ import annotations

import json
import os
import time

import numpy as np

# tree first: importing it drops numba cache files made stale by edited kernels.
from hexstones.ai.tree import (  # isort: skip
    C_ROOT, DEFAULT_PARAMS, ILLEGAL, P_EXPAND, STAT_BLACK, STAT_SCORED, STAT_SIMS, STAT_WHITE,
    allocate_tree, reset_tree, run_iterations,
)
from hexstones.ai.result import (  # isort: skip
    Child, KeptTrees, SearchResult, TreeCache, principal_variation,
)
from hexstones.core import dispatch  # isort: skip
from hexstones.core.common import seed_rng
from hexstones.games.engine import has_kernels

MAX_NODES = 1_500_000


supports = has_kernels  # the classic search plays every game with compiled kernels


def state_for(game, door=None):
    """The core state of ``game``'s position and history (a copy, from ``door``, the
    game's :meth:`compiled`, if given), with room for long playouts
    (:meth:`hexstones.games.engine.CoreBacked.search_room`)."""
    return (door or game.compiled()).with_room(game.search_room()).state


def new_tree(capacity: int):
    """An empty classic tree with room for ``capacity`` nodes."""
    tree = allocate_tree(capacity)
    reset_tree(tree)
    return tree


# Kept trees, most recent last: two, so that two AIs playing each other in one
# process (a tournament game) both keep theirs.
KEPT_TREES = 2
_CACHE = KeptTrees(KEPT_TREES)
_WARM: set = set()


def warm_up(game) -> None:
    """Compile the search (first call in a process) so that later budgets are honest."""
    if not supports(game) or game.name in _WARM:
        return
    import hexstones

    fresh = hexstones.new_game(game.name, size=3)
    for knowledge in (True, False):
        search(fresh, iterations=2, seed=0, knowledge=knowledge, reuse=False)
    _WARM.add(game.name)


def _capacity(game, iterations) -> int:
    P1 = game.board.num_points + 1
    if iterations is not None:
        want = (iterations // max(int(DEFAULT_PARAMS[P_EXPAND]), 1) + 2) * P1 + P1
        return int(min(MAX_NODES, want))
    return MAX_NODES


def playout_moves(gid, num_points, knowledge) -> int:
    """How many moves beyond the root a simulation may run before it counts as undecided
    (with ``knowledge``, the game's policy playout says)."""
    if knowledge:
        return int(dispatch.policy_move_limit(gid, num_points))
    return 4 * num_points + 40


def cache_key(game, knowledge, reuse_key):
    """Which kept tree a search may reuse: same game and options, same player."""
    return (game.name, json.dumps(game.options, sort_keys=True), bool(knowledge), repr(reuse_key))


def kept_tree(game, knowledge=True, reuse_key=None):
    """The tree kept for this game and player, or None."""
    return _CACHE.get(cache_key(game, knowledge, reuse_key))


def search(game, *, seconds=None, iterations=None, seed=None, knowledge=True, reuse=True,
           reuse_key=None, params=None, analysis=True):
    """Search ``game``'s position; returns a :class:`hexstones.ai.result.SearchResult`.

    ``analysis=False`` skips the expected score and ownership (a little faster: for
    choosing a move)."""
    if not supports(game):
        raise ValueError(f"no compiled kernels for {game.name}")
    door = game.compiled_for_search()
    gid, geo, P = door.game_id, door.geometry, door.num_points
    root_st = door.state
    work = door.scratch()  # run_iterations copies the root in
    key = cache_key(game, knowledge, reuse_key)
    cache = _CACHE.take(key) if reuse else None
    if cache is None or not cache.reusable_for(game):
        cache = TreeCache(game, new_tree(_capacity(game, iterations)))
    if reuse:
        _CACHE.put(key, cache)
    tree = cache.tree
    if seed is None:
        seed = int.from_bytes(os.urandom(8), "little")
    rng = seed_rng(seed)
    params = DEFAULT_PARAMS if params is None else np.asarray(params, dtype=np.float64)
    capacity_rows = work.hist_hash.shape[0] - 1
    max_ply = min(capacity_rows - 1, door.ply + playout_moves(gid, P, knowledge))
    stats = np.zeros(4, np.float64)
    own = np.zeros(P, np.float64)
    path = np.zeros(capacity_rows + 2, np.int32)
    first_seen = np.full((2, P + 1), -1, np.int32)
    reply = np.full((2, P + 1), -1, np.int32)
    start = time.perf_counter()
    done = 0
    # At least 8 iterations, so that the root's moves have visits; after that, timed
    # batches are sized from the rate seen, down to one iteration, so that the lowest
    # levels' caps (hundredths of a second) are kept in slow games.
    chunk = 8
    while True:
        if iterations is not None and done >= iterations:
            break
        elapsed = time.perf_counter() - start
        if seconds is not None and done > 0 and elapsed >= seconds:
            break
        n = chunk if iterations is None else min(chunk, iterations - done)
        run_iterations(gid, geo, root_st, work, tree, rng, n, knowledge, params, max_ply,
                       stats, analysis, own, path, first_seen, reply)
        done += n
        if seconds is not None:
            # Batches of about 1/20 of the budget keep the overrun small.
            rate = done / max(time.perf_counter() - start, 1e-6)
            chunk = max(1, min(100_000, int(rate * seconds / 20)))
        else:
            chunk = 256
    elapsed = time.perf_counter() - start
    return _result(game, tree, stats, own, done, elapsed)


def _children(tree, node):
    first, count = tree.first_child[node], tree.num_children[node]
    if first < 0:
        return []
    out = []
    for c in range(first, first + count):
        if tree.flags[c] & ILLEGAL or tree.visits[c] == 0:
            continue
        visits = int(tree.visits[c])
        out.append((int(tree.move[c]), visits, float(tree.wins[c]) / visits, c))
    out.sort(key=lambda t: (-t[1], -t[2]))
    return out


def _result(game, tree, stats, own, done, elapsed):
    root = int(tree.counters[C_ROOT])
    children = _children(tree, root)
    named = [Child(game.move_of(m), v, w) for m, v, w, _ in children]
    total = sum(v for _, v, _, _ in children)
    root_win = sum(w * v for _, v, w, _ in children) / total if total else 0.5
    pv = principal_variation(game, tree, root, _children)
    sims = max(stats[STAT_SIMS], 1)
    scored = stats[STAT_SCORED]
    return SearchResult(
        root_to_move=game.to_move, children=named, pv=pv, iterations=done,
        playouts=int(stats[STAT_SIMS]), seconds=elapsed, root_win_rate=root_win,
        engine="compiled",
        black_score=stats[STAT_BLACK] / scored if scored else None,
        white_score=stats[STAT_WHITE] / scored if scored else None,
        ownership=[float(x) / sims for x in own],
    )
