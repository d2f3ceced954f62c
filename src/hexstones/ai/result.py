"""What every search hands back, and the Python machinery the two compiled searches share.

* :class:`SearchResult` (with :class:`Child` records): the one result type of the three
  searches (:mod:`hexstones.ai.mcts`, :mod:`hexstones.ai.puct`,
  :mod:`hexstones.ai.pysearch`), every field declared and set when it is made;
* :func:`principal_variation`: the most visited line of a tree in arrays;
* :class:`TreeCache` and :class:`KeptTrees`: a tree kept for the next move of the same
  game by the same player, and the few a process keeps.

Plain Python: importing it compiles nothing (the plain-Python search uses it too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple


class Child(NamedTuple):
    """One move searched from the root."""

    move: str
    visits: int
    win_rate: float  # for the player who makes the move


@dataclass(frozen=True)
class SearchResult:
    """What a search found; the AI turns it into ``analyze``'s dict."""

    root_to_move: str
    children: list[Child]  # most visited first
    pv: list[str]  # principal variation
    iterations: int  # iterations (the network search: simulations)
    playouts: int  # playouts (the network search: network evaluations)
    seconds: float
    root_win_rate: float  # for the side to move
    engine: str  # "compiled" (classic search), "net" (network search), "python"
    black_score: float | None = None  # mean final score, games with a score
    white_score: float | None = None
    ownership: list[float] | None = None  # per point, +1 black .. -1 white
    score_lead: float | None = None  # Black's expected lead (the network search's estimate)
    batches: int | None = None  # network evaluations of leaf batches (network search)
    batch: int | None = None  # leaves per batch and searcher (network search)
    threads: int | None = None  # searchers (network search)


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


class TreeCache:
    """A search tree kept for the next move of the same game by the same player (and,
    for the network search, the same network)."""

    def __init__(self, game, tree, network: Any = None):
        self.kind = type(game)
        self.size = game.size
        self.options = dict(game.options)
        self.moves: list[str] = list(game.moves)
        self.tree = tree
        self.network = network

    def reusable_for(self, game, network: Any = None) -> bool:
        # The classic tree's advance_root serves both trees (same root fields).
        from hexstones.ai.tree import C_USED, advance_root

        if network is not self.network:
            return False
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


class KeptTrees:
    """The trees a search keeps between moves, by player, most recent last: ``keep`` of
    them, so that two AIs playing each other in one process (a tournament game) both
    keep theirs."""

    def __init__(self, keep: int = 2):
        self.keep = keep
        self._trees: dict[Any, TreeCache] = {}

    def __iter__(self):
        """The keys of the kept trees, oldest first."""
        return iter(list(self._trees))

    def __len__(self) -> int:
        return len(self._trees)

    def get(self, key) -> TreeCache | None:
        """The tree kept under ``key``, left in place, or None."""
        return self._trees.get(key)

    def take(self, key) -> TreeCache | None:
        """The tree kept under ``key``, taken out, or None."""
        return self._trees.pop(key, None)

    def put(self, key, cache: TreeCache) -> None:
        """Keep ``cache`` under ``key``, forgetting the oldest beyond ``keep``."""
        while len(self._trees) >= self.keep:
            self._trees.pop(next(iter(self._trees)))
        self._trees[key] = cache
