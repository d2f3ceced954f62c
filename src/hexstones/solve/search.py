"""The solver's driver: tables, budgets, progress, the root's moves and the checkpoint.

The compiled search is :mod:`hexstones.solve.kernel`; this file holds only Python, so
that editing it never forces a recompile.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

# kernel first: importing it drops numba cache files made stale by edited kernels.
from hexstones.solve.kernel import (  # isort: skip
    C_ABORTED, C_BUDGET, C_HITS, C_NODES, C_STORES, C_TOO_MUCH_HISTORY, COUNTERS, INF,
    MAX_RELEVANT, NEED,
    Frame, allocate_table, image, record_row, search,
)
from hexstones.core import dispatch
from hexstones.games import BLACK, Game
from hexstones.games.engine import CoreBacked, has_kernels

# Table keys are exact signed 64-bit words: two stone masks of P bits and four bits more.
MAX_POINTS = 29
DEFAULT_TABLE_BITS = 22  # 4 Mi slots of 128 bytes: 512 MB
# Nodes between progress reports: the search stops there and starts again from its root,
# the table holding every subtree it finished, so the restart costs little.
CHUNK_NODES = 2_000_000
# The longest line the search follows beyond its root (its recursion depth). Dehil's
# lines end within 2 plies a point; Keil's, with captures, can run on for thousands.
LINE_PLIES = 600


class TooDeep(RuntimeError):
    """A line of play ran longer than the search can follow (LINE_PLIES)."""


class Unsupported(ValueError):
    """A position this solver does not handle (no score, or too big a board)."""


def check_solvable(game: Game) -> None:
    if not has_kernels(game):
        raise Unsupported(f"{game.title} has no compiled kernels to search")
    if game.score() is None:
        raise Unsupported(f"{game.title} has no score: the solver computes score margins")
    if game.board.num_points > MAX_POINTS:
        raise Unsupported(f"side {game.size} has {game.board.num_points} points; the solver's "
                          f"exact position words hold at most {MAX_POINTS} (side 3)")


def _chunk_images(perm: np.ndarray) -> np.ndarray:
    """``out[s, c, v]``: the image under symmetry ``s`` of the points ``8c + j`` for the set
    bits ``j`` of ``v``."""
    syms, P = perm.shape
    chunks = (P + 7) // 8
    out = np.zeros((syms, chunks, 256), np.int64)
    for s in range(syms):
        for c in range(chunks):
            for v in range(256):
                m = 0
                for j in range(8):
                    p = 8 * c + j
                    if v >> j & 1 and p < P:
                        m |= 1 << int(perm[s, p])
                out[s, c, v] = m
    return out


@dataclass
class Counts:
    """What a solver has done so far."""

    nodes: int = 0
    hits: int = 0
    stores: int = 0
    unstored: int = 0  # results not stored: their relevant history was too long
    seconds: float = 0.0


class Solver:
    """Perfect-play values of positions of one game's side and komi, sharing one table.

    ``value(game)`` is Black's final score minus White's under play that maximises each
    player's own margin, from ``game``'s position and history (komi and the half point
    included, as the game scores). ``progress(counts)`` is called every ``chunk`` nodes.
    """

    def __init__(self, game: Game, table_bits: int = DEFAULT_TABLE_BITS,
                 progress: Callable[[Counts], None] | None = None, chunk: int = CHUNK_NODES):
        check_solvable(game)
        self.name, self.options = game.name, dict(game.options)
        perm = np.ascontiguousarray(game.action_symmetries()[:, :-1], dtype=np.int32)
        P = perm.shape[1]
        inverse = np.array([next(k for k in range(12)
                                 if all(perm[k, perm[s, p]] == p for p in range(P)))
                            for s in range(12)], np.int32)
        self.perm, self.inverse, self.chunks = perm, inverse, _chunk_images(perm)
        self.rank = np.zeros((2, P + 1), np.int64)
        self.table = allocate_table(table_bits)
        self.counters = np.zeros(COUNTERS, np.int64)
        self.progress, self.chunk = progress, chunk
        self.counts = Counts()
        # Load (or compile) the search now, so that no count of time includes it.
        gid, geo, st, frame = self._start(game)
        self.counters[C_BUDGET] = 0
        search(gid, geo, st, -INF, INF, self.table, frame, self.counters)
        self.counters[:] = 0

    def _frame(self, rows: int) -> Frame:
        P = self.perm.shape[1]
        return Frame(self.perm, self.inverse, self.chunks, np.zeros(rows, np.int64),
                     np.zeros(rows, np.int64), np.zeros(rows, np.int64),
                     np.zeros((rows, P + 1), np.int32), self.rank, np.zeros(2, np.float64),
                     np.zeros((rows, 4, max(NEED, MAX_RELEVANT)), np.int64))

    def _start(self, game: Game):
        """The search state of ``game`` and a frame holding its history's positions."""
        if game.name != self.name or dict(game.options) != self.options:
            raise ValueError("a solver answers for the game and options it was made for")
        if not isinstance(game, CoreBacked):
            raise Unsupported(f"{game.title} has no compiled kernels to search")
        door = game.compiled().with_room(len(game.moves) + LINE_PLIES)
        gid, geo, st = door.game_id, door.geometry, door.state
        frame = self._frame(door.room + 1)
        # Replay the history on a copy to record each row's position.
        actions = [int(dispatch.undo(gid, geo, st)) for _ in range(door.ply)][::-1]
        record_row(st, frame, 0)
        for row, action in enumerate(actions, 1):
            if dispatch.play(gid, geo, st, action) != 0:
                raise RuntimeError("replaying the game's own history failed")
            record_row(st, frame, row)
        return gid, geo, st, frame

    def value(self, game: Game) -> float:
        """Black's perfect-play margin (points) from ``game``'s position."""
        return self.bounded(game, -INF, INF)

    def bounded(self, game: Game, above: float, below: float) -> float:
        """Black's margin from ``game``'s position where it lies strictly between ``above``
        and ``below`` (points; half points count); else a bound on the far side of the
        one it passes (fail-soft: at most ``above``, or at least ``below``)."""
        gid, geo, st, frame = self._start(game)
        sign = 1 if game.to_move == BLACK else -1
        lo, hi = sorted((_half(above, sign), _half(below, sign)))
        return sign * self._run(gid, geo, st, frame, lo, hi) / 2

    def _run(self, gid, geo, st, frame, alpha: int, beta: int) -> int:
        counters = self.counters
        began = time.perf_counter()
        while True:
            counters[C_BUDGET] = counters[C_NODES] + self.chunk
            v = int(search(gid, geo, st, alpha, beta, self.table, frame, counters))
            aborted = int(counters[C_ABORTED])
            self._update(time.perf_counter() - began)
            began = time.perf_counter()
            if aborted == 2:
                raise TooDeep(f"a line of play ran longer than {LINE_PLIES} plies: out of reach "
                              "for this search")
            if not aborted:
                return v
            if self.progress is not None:
                self.progress(self.counts)

    def _update(self, seconds: float) -> None:
        c = self.counters
        self.counts.nodes = int(c[C_NODES])
        self.counts.hits = int(c[C_HITS])
        self.counts.stores = int(c[C_STORES])
        self.counts.unstored = int(c[C_TOO_MUCH_HISTORY])
        self.counts.seconds += seconds

    # -- the root's moves ------------------------------------------------------------

    def move_classes(self, game: Game) -> list[list[str]]:
        """The legal moves of ``game``, in classes of moves that the symmetries fixing the
        whole history (every position so far) send onto each other: one value each."""
        _, _, _, frame = self._start(game)
        rows = len(game.moves) + 1
        fixing = [s for s in range(12)
                  if all(image(self.chunks, s, frame.black[t]) == frame.black[t]
                         and image(self.chunks, s, frame.white[t]) == frame.white[t]
                         for t in range(rows))]
        images = game.action_symmetries()
        legal = game.legal_moves()
        seen: set[str] = set()
        classes = []
        for move in legal:
            if move in seen:
                continue
            a = game.action_of(move)
            members = sorted({game.move_of(int(images[s, a])) for s in fixing},
                             key=legal.index)
            seen.update(members)
            classes.append(members)
        return classes


def _half(points: float, sign: int) -> int:
    """A margin for Black in points as the search's half points for the side to move."""
    if abs(points) >= INF:
        return int(math.copysign(INF, sign * points))
    return int(round(2 * sign * points))


@dataclass
class Solution:
    """A solved position: Black's margin, each class of legal moves' margin (``lower`` ..
    ``upper``: equal once exact; a class shown not to be better than the best stays a
    bound when only the value was asked for), the best moves, and the work done."""

    game: str
    options: dict[str, Any]
    moves: list[str]
    to_move: str | None
    value: float
    classes: list[list[str]] = field(default_factory=list)
    lower: dict[str, float] = field(default_factory=dict)
    upper: dict[str, float] = field(default_factory=dict)
    best: list[str] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0

    def move_value(self, move: str) -> str:
        """The margin after ``move``, or its bound, as text."""
        lo, hi = self.lower[move], self.upper[move]
        if lo == hi:
            return f"{lo:+g}"
        return f">= {lo:+g}" if hi >= INF else f"<= {hi:+g}"


def _checkpoint_key(game: Game) -> dict[str, Any]:
    return {"game": game.name, "options": dict(game.options), "moves": list(game.moves)}


def _centre_first(game: Game, classes: list[list[str]]) -> list[list[str]]:
    """Classes of moves, placements on points with the most neighbours first (a guess at the
    best move, which makes the other classes' searches cheaper), the special move last."""
    board = game.board

    def rank(members: list[str]) -> tuple[int, int]:
        index = board.index.get(members[0])
        if index is None:
            return (1, 0)
        return (0, -len(board.neighbours[index]))

    return sorted(classes, key=rank)


class _Classes:
    """The root's classes of moves and what is known of each (``done``, by the class's first
    move: Black's margin's bounds, nodes, seconds), kept in the checkpoint file."""

    def __init__(self, game: Game, solver: Solver, checkpoint: str | Path | None,
                 progress: Callable[[str], None] | None) -> None:
        self.game, self.solver, self.progress = game, solver, progress
        self.done: dict[str, Any] = {}
        self.path = Path(checkpoint) if checkpoint is not None else None
        if self.path is not None and self.path.exists():
            saved = json.loads(self.path.read_text())
            if saved.get("position") != _checkpoint_key(game):
                raise ValueError(f"{self.path} is the checkpoint of another position")
            self.done = saved.get("solved", {})
        self.sign = 1 if game.to_move == BLACK else -1
        self.classes = _centre_first(game, solver.move_classes(game))

    def save(self) -> None:
        if self.path is not None:
            tmp = self.path.with_suffix(self.path.suffix + ".tmp")
            tmp.write_text(json.dumps({"position": _checkpoint_key(self.game), "solved": self.done},
                                      indent=1))
            tmp.replace(self.path)

    def say(self, line: str) -> None:
        if self.progress is not None:
            self.progress(line)

    def search(self, members: list[str], above: float, below: float) -> None:
        """Search the class of ``members`` within (above, below), Black's margin."""
        solver, move = self.solver, members[0]
        child = self.game.copy()
        child.play(move)
        nodes0, seconds0 = solver.counts.nodes, solver.counts.seconds

        def report(counts: Counts) -> None:
            self.say(f"after {move}: {counts.nodes - nodes0:,} nodes, "
                     f"{counts.seconds - seconds0:.0f} s, "
                     f"{counts.nodes / max(counts.seconds, 1e-9):,.0f} nodes/s overall, "
                     f"table hits {counts.hits:,}, stores {counts.stores:,}")

        solver.progress = report
        v = solver.bounded(child, above, below)
        lo, hi = float(-INF), float(INF)
        entry = self.done.get(move, {"lower": lo, "upper": hi, "nodes": 0, "seconds": 0.0})
        if v <= above:
            hi = v
        elif v >= below:
            lo = v
        else:
            lo = hi = v
        entry.update(lower=max(lo, entry["lower"]), upper=min(hi, entry["upper"]),
                     nodes=entry["nodes"] + solver.counts.nodes - nodes0,
                     seconds=round(entry["seconds"] + solver.counts.seconds - seconds0, 3),
                     members=members)
        self.done[move] = entry
        self.save()
        self.say(f"{move} (class of {len(members)}): Black's margin "
                 f"{_bound_text(entry['lower'], entry['upper'])}, "
                 f"{entry['nodes']:,} nodes, {entry['seconds']:.1f} s")

    def best_so_far(self) -> float | None:
        """The best exact class value for the side to move (its own sign), None if none."""
        done = self.done
        exact = [self.sign * done[c[0]]["lower"] for c in self.classes
                 if c[0] in done and done[c[0]]["lower"] == done[c[0]]["upper"]]
        return max(exact) if exact else None

    def find_value(self) -> None:
        """The first class searched in full, each other one only shown to be no better than
        the best so far (searched in full where it is better)."""
        sign = self.sign
        for members in self.classes:
            best = self.best_so_far()
            entry = self.done.get(members[0])
            if best is None:
                if entry is None or entry["lower"] != entry["upper"]:
                    self.search(members, -INF, INF)
                continue
            if entry is not None and (entry["lower"] == entry["upper"]
                                      or sign * (entry["upper"] if sign > 0 else entry["lower"])
                                      <= best):
                continue
            # Better than the best? A null window at the best's margin says.
            edge = sign * best  # the best's margin for Black
            if sign > 0:
                self.search(members, edge, edge + 0.5)
            else:
                self.search(members, edge - 0.5, edge)
            entry = self.done[members[0]]
            if sign * (entry["lower"] if sign > 0 else entry["upper"]) > best:
                self.search(members, -INF, INF)

    def find_every_value(self) -> None:
        for members in self.classes:
            entry = self.done[members[0]]
            if entry["lower"] != entry["upper"]:
                self.search(members, -INF, INF)


def solve(game: Game, *, table_bits: int = DEFAULT_TABLE_BITS,
          checkpoint: str | Path | None = None,
          progress: Callable[[str], None] | None = None,
          chunk: int = CHUNK_NODES, solver: Solver | None = None,
          every_move: bool = True) -> Solution:
    """Solve ``game``'s position: its value and best moves, then (``every_move``) the exact
    value of every class of legal moves, one search each, the table shared.

    First the value: the first class searched in full, each other one only shown to be no
    better than the best so far (searched in full where it is better). Then, with
    ``every_move``, the classes left as bounds are searched in full.

    ``checkpoint``: a JSON file of the classes searched so far (their bounds); a run given
    the same file skips them. ``progress(line)`` gets a line of text now and then.
    """
    check_solvable(game)
    if solver is None:
        solver = Solver(game, table_bits=table_bits, chunk=chunk)
    solution = Solution(game.name, dict(game.options), list(game.moves),
                        None if game.is_over else game.to_move, 0.0)
    if game.is_over:
        score = game.score()
        assert score is not None
        solution.value = score[BLACK] - score["white"]
        return solution
    root = _Classes(game, solver, checkpoint, progress)
    solution.classes = classes = root.classes
    root.find_value()
    if every_move:
        root.find_every_value()
    done = root.done
    for members in classes:
        entry = done[members[0]]
        for m in members:
            solution.lower[m] = entry["lower"]
            solution.upper[m] = entry["upper"]
    best = root.best_so_far()
    assert best is not None
    solution.value = root.sign * best
    solution.best = [m for c in classes for m in c
                     if solution.lower[m] == solution.upper[m] == solution.value]
    # The work of every class's searches, this run's and any interrupted run's alike.
    solution.nodes = sum(int(done[c[0]]["nodes"]) for c in classes)
    solution.seconds = sum(float(done[c[0]]["seconds"]) for c in classes)
    return solution


def _bound_text(lower: float, upper: float) -> str:
    if lower == upper:
        return f"{lower:+g}"
    return f">= {lower:+g}" if upper >= INF else f"<= {upper:+g}"
