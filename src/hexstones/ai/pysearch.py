"""Monte-Carlo tree search in plain Python over the game API.

This is the reference search: it speaks only :class:`hexstones.games.Game` (play, undo,
legal_moves, result, score), so it works for every game, compiled kernels or not. It is
slow (hundreds of playouts per second), so the AI uses it only for a game that has no
compiled kernels yet, and the tests use it as an independent baseline.

Statistics are kept from the point of view of the player who made the move into a node,
so a parent picks the child with the best value for itself.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from hexstones.ai.result import Child, SearchResult
from hexstones.games import BLACK, WHITE, Game

CUT = "cut"  # a playout stopped by the deadline: the iteration does not count
_now = time.perf_counter  # the clock of the time budget (a test may set another)


@dataclass
class Node:
    move: str  # the move that led here ("" at the root, where none did)
    parent: Node | None
    mover: str | None  # who played ``move``
    to_move: str
    untried: list[str] | None = None  # legal moves not expanded yet (None: not computed)
    children: list[Node] = field(default_factory=list)
    visits: int = 0
    wins: float = 0.0  # for ``mover``
    terminal: bool = False


def _playout_winner(game: Game, rng: random.Random, max_moves: int, own_counts, scores,
                    deadline: float | None = None):
    """Play uniformly random legal moves until the end (or ``max_moves``); return
    (winner or None, number of moves played). Records final ownership and score. Past
    ``deadline`` (a time of :func:`_now`) it stops at once and returns (CUT, moves played)."""
    played = 0
    while not game.is_over and played < max_moves:
        if deadline is not None and _now() >= deadline:
            return CUT, played
        legal = game.legal_moves()  # a draw from them: no refused move is tried
        if not legal:
            break  # no legal move (Droched: the player to move has lost)
        game.play(legal[rng.randrange(len(legal))])
        played += 1
    winner = _winner(game)
    if own_counts is not None:
        for i, name in enumerate(game.board.names):
            color = game.stone_at(name)
            if color == BLACK:
                own_counts[i] += 1
            elif color == WHITE:
                own_counts[i] -= 1
    if scores is not None:
        score = game.score()
        if score is not None:
            scores[0] += score[BLACK]
            scores[1] += score[WHITE]
    return winner, played


def _winner(game: Game) -> str | None:
    result = game.result()
    if result is not None:
        return result["winner"]
    try:
        score = game.score()
    except NotImplementedError:
        score = None
    if score:
        return BLACK if score[BLACK] > score[WHITE] else WHITE
    return None  # unfinished game without a score: counted as half a win each


def search(game: Game, *, iterations: int | None = None, seconds: float | None = None,
           seed: int | None = None, exploration: float = 0.9) -> SearchResult:
    """UCT with uniformly random playouts from the position of ``game`` (left unchanged).
    ``seconds`` is wall clock, kept within a move: a playout still running when it is up
    is abandoned (so a slow game, or a call that waits, cannot hold the answer back)."""
    if game.is_over:
        raise ValueError("the game is over: there is nothing to search")
    if iterations is None and seconds is None:
        iterations = 200
    rng = random.Random(seed)
    work = game.copy()
    root = Node("", None, None, work.to_move)
    max_moves = 3 * game.board.num_points + 20
    own_counts = [0] * game.board.num_points
    scores = [0.0, 0.0]
    has_score = True
    start = _now()
    deadline = None if seconds is None else start + seconds
    done = 0
    while True:
        if iterations is not None and done >= iterations:
            break
        if deadline is not None and _now() >= deadline:
            break
        node, depth = root, 0
        # Selection: descend through fully expanded nodes by UCB1.
        while node.untried is not None and not node.untried and node.children:
            log_n = math.log(node.visits)
            node = max(node.children, key=lambda c: c.wins / c.visits
                       + exploration * math.sqrt(log_n / c.visits))
            work.play(node.move)
            depth += 1
        # Expansion.
        if node.untried is None:
            node.untried = work.legal_moves()
            rng.shuffle(node.untried)
            node.terminal = not node.untried
        expanded, child = node, None
        if node.untried:
            move = node.untried.pop()
            mover = work.to_move
            work.play(move)
            depth += 1
            child = Node(move, node, mover, work.to_move)
            node.children.append(child)
            node = child
        # Simulation.
        winner, played = _playout_winner(work, rng, max_moves, own_counts, scores, deadline)
        if winner is CUT:
            for _ in range(played + depth):
                work.undo()
            if child is not None and expanded.untried is not None:  # never visited: no statistics
                expanded.children.remove(child)
                expanded.untried.append(child.move)
            break
        try:
            has_score = has_score and work.score() is not None
        except NotImplementedError:
            has_score = False
        for _ in range(played + depth):
            work.undo()
        # Backpropagation.
        up: Node | None = node
        while up is not None:
            up.visits += 1
            if up.mover is not None:
                up.wins += 1.0 if winner == up.mover else 0.5 if winner is None else 0.0
            up = up.parent
        done += 1
    elapsed = _now() - start
    children = sorted((Child(c.move, c.visits, c.wins / c.visits) for c in root.children),
                      key=lambda t: (-t[1], -t[2]))
    pv, node = [], root
    while node.children:
        node = max(node.children, key=lambda c: c.visits)
        pv.append(node.move)
    total = sum(c.visits for c in root.children) or 1
    root_win = sum(c.wins for c in root.children) / total
    n = max(done, 1)
    return SearchResult(
        root_to_move=game.to_move, children=children, pv=pv, iterations=done, playouts=done,
        seconds=elapsed, root_win_rate=root_win, engine="python",
        black_score=scores[0] / n if has_score else None,
        white_score=scores[1] / n if has_score else None,
        ownership=[v / n for v in own_counts],
    )
