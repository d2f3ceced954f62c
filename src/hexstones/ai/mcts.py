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
    C_ROOT, C_USED, DEFAULT_PARAMS, ILLEGAL, P_EXPAND, STAT_BLACK, STAT_SCORED, STAT_SIMS,
    STAT_WHITE, advance_root, allocate_tree, reset_tree, run_iterations,
)
from hexstones.core import dispatch  # isort: skip
from hexstones.core.common import seed_rng
from hexstones.core.layout import M_PLY, allocate_state, capacity_of, default_capacity
from hexstones.core.state import grow_state
from hexstones.games.engine import CoreBacked

MAX_NODES = 1_500_000


def supports(game) -> bool:
    """Whether ``game`` has compiled kernels (the door :meth:`compiled` of its API)."""
    return isinstance(game, CoreBacked)


def state_for(game, door=None):
    """The core state of ``game``'s position and history (a copy, from ``door``, the
    game's :meth:`compiled`, if given), with room for long playouts."""
    st = (door or game.compiled()).state
    room = max(default_capacity(game.size), len(game.moves) + 4 * game.board.num_points + 64)
    return grow_state(st, room) if capacity_of(st) < room else st


class TreeCache:
    """A search tree kept for the next move of the same game by the same player."""

    def __init__(self, game, capacity: int):
        self.kind = type(game)
        self.size = game.size
        self.options = dict(game.options)
        self.moves: list[str] = list(game.moves)
        self.tree = self.new_tree(capacity)

    @staticmethod
    def new_tree(capacity: int):
        tree = allocate_tree(capacity)
        reset_tree(tree)
        return tree

    def reusable_for(self, game) -> bool:
        if type(game) is not self.kind or game.options != self.options:
            return False
        # Only a game that has moved on (a later position of the same game) reuses the
        # tree: searching the same position again starts afresh, so that a given seed
        # and budget always give the same answer for the same game history.
        if len(game.moves) <= len(self.moves) or game.moves[: len(self.moves)] != self.moves:
            return False
        for move in game.moves[len(self.moves):]:
            if not advance_root(self.tree, game.action_of(move)):
                return False
        self.moves = list(game.moves)
        # Most of a full tree belongs to abandoned branches: start afresh then.
        return self.tree.counters[C_USED] < 0.6 * len(self.tree.move)


# Kept trees, most recent last: two, so that two AIs playing each other in one
# process (a tournament game) both keep theirs.
_CACHE: dict = {}
KEPT_TREES = 2
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
    """Search ``game``'s position; returns a :class:`hexstones.ai.pysearch.SearchResult`.

    ``analysis=False`` skips the expected score and ownership (a little faster: for
    choosing a move)."""
    if not supports(game):
        raise ValueError(f"no compiled kernels for {game.name}")
    door = game.compiled()
    gid, geo, P = door.game_id, door.geometry, door.num_points
    root_st = state_for(game, door)
    work = allocate_state(game.size, capacity_of(root_st))  # run_iterations copies the root in
    key = cache_key(game, knowledge, reuse_key)
    cache = _CACHE.pop(key, None) if reuse else None
    if cache is None or not cache.reusable_for(game):
        cache = TreeCache(game, _capacity(game, iterations))
    if reuse:
        while len(_CACHE) >= KEPT_TREES:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = cache
    tree = cache.tree
    if seed is None:
        seed = int.from_bytes(os.urandom(8), "little")
    rng = seed_rng(seed)
    params = DEFAULT_PARAMS if params is None else np.asarray(params, dtype=np.float64)
    capacity_rows = work.hist_hash.shape[0] - 1
    max_ply = min(capacity_rows - 1, int(root_st.meta[M_PLY]) + playout_moves(gid, P, knowledge))
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


def principal_variation(game, tree, root, children, longest: int = 30) -> list[str]:
    """Follow the most visited child from ``root`` (``children(tree, node)``: tuples of
    move number, visits, win rate, slot, best first), naming moves on a scratch game."""
    pv: list[str] = []
    scratch = game.copy()
    node = root
    while len(pv) < longest:
        kids = children(tree, node)
        if not kids:
            break
        m, _, _, c = kids[0]
        name = scratch.move_of(m)
        try:
            scratch.play(name)
        except Exception:  # noqa: BLE001  (a pv is advice; stop at any disagreement)
            break
        pv.append(name)
        node = c
    return pv


def _result(game, tree, stats, own, done, elapsed):
    from hexstones.ai.pysearch import SearchResult

    root = int(tree.counters[C_ROOT])
    children = _children(tree, root)
    named = [(game.move_of(m), v, w) for m, v, w, _ in children]
    total = sum(v for _, v, _, _ in children)
    root_win = sum(w * v for _, v, w, _ in children) / total if total else 0.5
    pv = principal_variation(game, tree, root, _children)
    sims = max(stats[STAT_SIMS], 1)
    scored = stats[STAT_SCORED]
    result = SearchResult(
        root_to_move=game.to_move, children=named, pv=pv, iterations=done,
        playouts=int(stats[STAT_SIMS]), seconds=elapsed, root_win_rate=root_win,
        black_score=stats[STAT_BLACK] / scored if scored else None,
        white_score=stats[STAT_WHITE] / scored if scored else None,
        ownership=[float(x) / sims for x in own],
    )
    result.engine = "compiled"
    return result
