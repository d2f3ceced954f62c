"""Dehil (docs/rules.md section 3): score groups that cut the board into partitions.

Groups use plain adjacency and there are no captures. A group "has partitions" when
taking its points out of the board leaves two or more connected areas. Placements are
limited only by the triangle rule (docs/rules.md 3.4): after a placement every triangle
pattern of the mover's colour must be allowed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from hexstones.board import Board, get_board
from hexstones.games.base import BLACK, WHITE, Game, IllegalMove, other

EMPTY, BLACK_STONE, WHITE_STONE = 0, 1, 2
STONE = {BLACK: BLACK_STONE, WHITE: WHITE_STONE}
COLOR = {BLACK_STONE: BLACK, WHITE_STONE: WHITE}



@dataclass(frozen=True)
class DehilState:
    cells: tuple[int, ...]
    to_move: str
    passes: int  # consecutive passes just played
    first_pass: str | None  # who passed first in the whole game, if anyone


@dataclass(frozen=True)
class _Shapes:
    """Triangle and hourglass shapes of one board, as point-index tuples."""

    triangles: tuple[tuple[int, int, int], ...]  # every lattice triangle, sorted points
    triangles_at: tuple[tuple[int, ...], ...]  # point -> indices of triangles holding it
    # point -> indices of triangles with a point within distance 2: the only triangles
    # whose allowedness a placement on that point can change (see _violation).
    triangles_near: tuple[tuple[int, ...], ...]
    # point -> (a, b, c, d): the point with a, b and with c, d forms two opposite triangles
    hourglasses_at: tuple[tuple[tuple[int, int, int, int], ...], ...]


@cache
def _shapes(size: int) -> _Shapes:
    board = get_board(size)
    found = set()
    for p in range(board.num_points):
        slots = board.neighbour_slots[p]
        for d in range(6):
            a, b = slots[d], slots[(d + 1) % 6]
            if a >= 0 and b >= 0:
                found.add(tuple(sorted((p, a, b))))
    triangles = tuple(sorted(found))
    at: list[list[int]] = [[] for _ in range(board.num_points)]
    for t, tri in enumerate(triangles):
        for p in tri:
            at[p].append(t)
    near = []
    for p in range(board.num_points):
        ball = {p} | set(board.neighbours[p])
        ball |= {r for q in list(ball) for r in board.neighbours[q]}
        near.append(tuple(sorted({t for q in ball for t in at[q]})))
    hourglasses = []
    for p in range(board.num_points):
        slots = board.neighbour_slots[p]
        shapes = []
        for d in range(3):  # d and d+3 describe the same hourglass
            quad = (slots[d], slots[d + 1], slots[d + 3], slots[(d + 4) % 6])
            if min(quad) >= 0:
                shapes.append(quad)
        hourglasses.append(tuple(shapes))
    return _Shapes(triangles, tuple(map(tuple, at)), tuple(near), tuple(hourglasses))


def _partition_count(board: Board, group: set[int]) -> int:
    """How many connected areas the board falls into once ``group``'s points are removed."""
    seen = set(group)
    areas = 0
    for start in range(board.num_points):
        if start in seen:
            continue
        areas += 1
        seen.add(start)
        todo = [start]
        while todo:
            p = todo.pop()
            for q in board.neighbours[p]:
                if q not in seen:
                    seen.add(q)
                    todo.append(q)
    return areas


class DehilGame(Game):
    name = "dehil"
    default_size = 9
    special_moves = ("pass",)

    def __init__(self, size: int = 9, komi: int = 0):
        super().__init__(size)
        if isinstance(komi, bool) or not isinstance(komi, int):
            if isinstance(komi, float) and komi.is_integer():
                komi = int(komi)
            else:
                raise ValueError(f"Dehil's komi must be a whole number (negative allowed), not {komi!r}")
        self.komi = komi
        self._shapes = _shapes(self.size)
        self._states = [DehilState((EMPTY,) * self.board.num_points, BLACK, 0, None)]

    # -- rules: groups and partitions ----------------------------------------------

    def _groups(self, cells) -> list[set[int]]:
        """Maximal sets of same-coloured stones joined by plain adjacency, in board order."""
        seen: set[int] = set()
        groups = []
        for start, color in enumerate(cells):
            if color == EMPTY or start in seen:
                continue
            group, todo = {start}, [start]
            while todo:
                p = todo.pop()
                for q in self.board.neighbours[p]:
                    if q not in group and cells[q] == color:
                        group.add(q)
                        todo.append(q)
            seen |= group
            groups.append(group)
        return groups

    # -- rules: the triangle restriction -------------------------------------------

    def _violation(self, cells, mine: int, near: int | None = None) -> str | None:
        """Why some triangle pattern of colour ``mine`` is not allowed, or None if all are.

        With ``near`` only triangles within distance 2 of that point are examined. A
        triangle's allowedness depends on the cells within distance 2 of its stones, so
        these are the only ones a placement on ``near`` can change; every other triangle
        was allowed already, because each player's placements keep all of their own
        triangles allowed and the opponent's stones never enter the condition.
        """
        shapes = self._shapes
        on_edge = self.board.on_edge
        names = self.board.names
        in_triangle: dict[int, bool] = {}

        def is_triangle(t: int) -> bool:
            a, b, c = shapes.triangles[t]
            return cells[a] == mine and cells[b] == mine and cells[c] == mine

        def supports(q: int) -> bool:
            # q is a friendly stone next to the stone that needs support.
            if q not in in_triangle:
                in_triangle[q] = any(is_triangle(t) for t in shapes.triangles_at[q])
            if not in_triangle[q]:
                return True
            return any(all(cells[x] == mine for x in quad) for quad in shapes.hourglasses_at[q])

        candidates = range(len(shapes.triangles)) if near is None else shapes.triangles_near[near]
        for t in candidates:
            if not is_triangle(t):
                continue
            tri = shapes.triangles[t]
            label = " ".join(names[p] for p in tri)
            edge = [p for p in tri if on_edge[p]]
            if len(edge) >= 2:
                return (
                    f"the {COLOR[mine]} triangle {label} would have {len(edge)} stones on the edge "
                    f"({', '.join(names[p] for p in edge)}); at most one may be"
                )
            unsupported = [
                p
                for p in tri
                if not on_edge[p]
                and not any(cells[q] == mine and supports(q) for q in self.board.neighbours[p])
            ]
            if unsupported:
                which = ", ".join(names[p] for p in unsupported)
                one = len(unsupported) == 1
                return (
                    f"in the {COLOR[mine]} triangle {label}, stone{'' if one else 's'} {which} "
                    f"{'is' if one else 'are'} not on the edge and lack{'s' if one else ''} a supporting "
                    f"stone (an adjacent {COLOR[mine]} stone that is in no triangle pattern or is the "
                    "center stone of an hourglass pattern)"
                )
        return None

    # -- rules: turns --------------------------------------------------------------

    @property
    def state(self) -> DehilState:
        return self._states[-1]

    @property
    def to_move(self) -> str:
        return self.state.to_move

    @property
    def is_over(self) -> bool:
        return self.state.passes >= 2

    @property
    def first_pass(self) -> str | None:
        """The player who passed first in the whole game (the half point), or None."""
        return self.state.first_pass

    def _place(self, point: int) -> DehilState:
        s = self.state
        name = self.board.names[point]
        if s.cells[point] != EMPTY:
            raise IllegalMove(f"{name} is occupied (by {COLOR[s.cells[point]]})")
        mine = STONE[s.to_move]
        cells = list(s.cells)
        cells[point] = mine
        reason = self._violation(cells, mine, near=point)
        if reason is not None:
            raise IllegalMove(f"{name} breaks the triangle rule: {reason}")
        return DehilState(tuple(cells), other(s.to_move), 0, s.first_pass)

    def _next_state(self, move: str) -> DehilState:
        s = self.state
        if self.is_over:
            raise IllegalMove(f"the game is over (two passes in a row); {move!r} cannot be played")
        if move == "pass":
            return DehilState(s.cells, other(s.to_move), s.passes + 1, s.first_pass or s.to_move)
        return self._place(self.board.index[move])

    def play(self, move: str) -> None:
        move = self.normalize_move(move)
        self._states.append(self._next_state(move))
        self.moves.append(move)

    def undo(self) -> str:
        if not self.moves:
            raise IllegalMove("no move to take back")
        self._states.pop()
        return self.moves.pop()

    def _placements(self) -> tuple[list[str], dict[str, str]]:
        """Legal points in board order, and the empty points the triangle rule forbids."""
        legal, forbidden = [], {}
        for p, name in enumerate(self.board.names):
            if self.state.cells[p] == EMPTY:
                try:
                    self._place(p)
                except IllegalMove as error:
                    forbidden[name] = str(error)
                    continue
                legal.append(name)
        return legal, forbidden

    def legal_moves(self) -> list[str]:
        if self.is_over:
            return []
        return self._placements()[0] + ["pass"]

    def forbidden_placements(self) -> dict[str, str]:
        """Empty points the player to move may not take, each with the triangle it breaks.

        Empty once the game is over (no placement is possible then for another reason).
        """
        if self.is_over:
            return {}
        return self._placements()[1]

    # -- score and analysis --------------------------------------------------------

    def _group_facts(self) -> list[tuple[set[int], int, int]]:
        """(points, colour code, number of areas) for every group, in board order."""
        cells = self.state.cells
        return [(g, cells[min(g)], _partition_count(self.board, g)) for g in self._groups(cells)]

    def groups(self) -> list[dict[str, Any]]:
        """Every group: colour, points, value and partitions (areas; 0 or 1 means none)."""
        names = self.board.names
        return [
            {"color": COLOR[code], "points": [names[p] for p in sorted(g)], "value": len(g),
             "partitions": areas, "has_partitions": areas >= 2}
            for g, code, areas in self._group_facts()
        ]

    def score_details(self) -> dict[str, dict[str, float]]:
        """Per player: ``plus`` (values of groups with partitions), ``minus`` (values of
        groups without, as a positive number), ``komi`` and ``first_pass`` (0.5 or 0);
        the score is plus - minus + komi + first_pass."""
        details = {
            color: {"plus": 0, "minus": 0, "komi": self.komi if color == WHITE else 0,
                    "first_pass": 0.5 if self.first_pass == color else 0}
            for color in (BLACK, WHITE)
        }
        for g, code, areas in self._group_facts():
            details[COLOR[code]]["plus" if areas >= 2 else "minus"] += len(g)
        return details

    def score(self) -> dict[str, float]:
        """The score if the game ended now."""
        return {
            color: float(d["plus"] - d["minus"] + d["komi"] + d["first_pass"])
            for color, d in self.score_details().items()
        }

    def result(self) -> dict[str, Any] | None:
        if not self.is_over:
            return None
        score = self.score()
        # Two passes end the game, so someone passed first: the half point rules out ties.
        winner = BLACK if score[BLACK] > score[WHITE] else WHITE
        return {"winner": winner, "score": score}

    def stone_at(self, point: str) -> str | None:
        return COLOR.get(self.state.cells[self.board.point(point)])

    @property
    def options(self) -> dict[str, Any]:
        return {"size": self.size, "komi": self.komi}

    def analysis(self) -> dict[str, Any]:
        return {
            "groups": self.groups(),
            "forbidden": self.forbidden_placements(),
            "score": self.score(),
            "score_details": self.score_details(),
            "first_pass": self.first_pass,
        }
