"""Keil (docs/rules.md section 2): Go on the triangular grid, with linking.

Two adjacent points are linked iff one of their common neighbours has the same content
as one of them. Groups, liberties and territories all follow links, not plain adjacency.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hexstones.games.base import BLACK, WHITE, Game, IllegalMove, other

EMPTY, BLACK_STONE, WHITE_STONE = 0, 1, 2
STONE = {BLACK: BLACK_STONE, WHITE: WHITE_STONE}
COLOR = {BLACK_STONE: BLACK, WHITE_STONE: WHITE}


@dataclass(frozen=True)
class KeilState:
    cells: tuple[int, ...]
    to_move: str
    button: str | None  # who took the button, if anyone
    passes: int  # consecutive passes just played
    captured: tuple[int, ...] = ()  # points emptied by the last move


class KeilGame(Game):
    name = "keil"
    default_size = 7
    special_moves = ("button", "pass")

    def __init__(self, size: int = 7, komi: int = 6):
        super().__init__(size)
        if isinstance(komi, bool) or not isinstance(komi, int):
            if isinstance(komi, float) and komi.is_integer():
                komi = int(komi)
            else:
                raise ValueError(f"Keil's komi must be a whole number, not {komi!r}")
        self.komi = komi
        self._states = [KeilState((EMPTY,) * self.board.num_points, BLACK, None, 0)]

    # -- rules: linking ------------------------------------------------------------

    def _linked(self, cells, p: int, q: int) -> bool:
        cp, cq = cells[p], cells[q]
        return any(cells[k] == cp or cells[k] == cq for k in self.board.common_neighbours(p, q))

    def _group(self, cells, start: int) -> set[int]:
        color = cells[start]
        group, todo = {start}, [start]
        while todo:
            p = todo.pop()
            for q in self.board.neighbours[p]:
                if q not in group and cells[q] == color and self._linked(cells, p, q):
                    group.add(q)
                    todo.append(q)
        return group

    def _liberties(self, cells, group) -> set[int]:
        return {
            q
            for p in group
            for q in self.board.neighbours[p]
            if cells[q] == EMPTY and self._linked(cells, p, q)
        }

    def _groups(self, cells, color_code: int | None = None) -> list[set[int]]:
        seen: set[int] = set()
        groups = []
        for p, c in enumerate(cells):
            if c != EMPTY and p not in seen and (color_code is None or c == color_code):
                g = self._group(cells, p)
                seen |= g
                groups.append(g)
        return groups

    def _territories(self, cells) -> list[tuple[set[int], str | None]]:
        seen: set[int] = set()
        found = []
        for p, c in enumerate(cells):
            if c != EMPTY or p in seen:
                continue
            region = self._group(cells, p)  # empty points link through empty neighbours
            seen |= region
            bordering = {
                cells[q]
                for e in region
                for q in self.board.neighbours[e]
                if cells[q] != EMPTY and self._linked(cells, e, q)
            }
            owner = COLOR[bordering.pop()] if len(bordering) == 1 else None
            found.append((region, owner))
        return found

    # -- rules: turns --------------------------------------------------------------

    @property
    def state(self) -> KeilState:
        return self._states[-1]

    @property
    def to_move(self) -> str:
        return self.state.to_move

    @property
    def is_over(self) -> bool:
        return self.state.passes >= 2

    def _repeats(self, mover: str, cells, button_taken: bool) -> bool:
        # Positions at the end of each of mover's earlier turns: states after their moves.
        for before, after in zip(self._states, self._states[1:]):
            if before.to_move == mover and after.cells == cells and (after.button is not None) == button_taken:
                return True
        return False

    def _place(self, point: int) -> KeilState:
        s = self.state
        if s.cells[point] != EMPTY:
            raise IllegalMove(f"{self.board.names[point]} is occupied")
        mine = STONE[s.to_move]
        cells = list(s.cells)
        cells[point] = mine
        captured = [
            p
            for g in self._groups(cells, 3 - mine)
            if not self._liberties(cells, g)
            for p in g
        ]
        for p in captured:
            cells[p] = EMPTY
        if not self._liberties(cells, self._group(cells, point)):
            raise IllegalMove(
                f"{self.board.names[point]} is suicide: after captures the placed stone's "
                "group would have no liberty"
            )
        new_cells = tuple(cells)
        if self._repeats(s.to_move, new_cells, s.button is not None):
            raise IllegalMove(
                f"{self.board.names[point]} repeats a position {s.to_move} had at the end of "
                "an earlier turn (repetition rule)"
            )
        return KeilState(new_cells, other(s.to_move), s.button, 0, tuple(sorted(captured)))

    def _next_state(self, move: str) -> KeilState:
        s = self.state
        if self.is_over:
            raise IllegalMove(f"the game is over (two passes in a row); {move!r} cannot be played")
        if move == "button":
            if s.button is not None:
                raise IllegalMove(f"the button was already taken by {s.button}")
            return KeilState(s.cells, other(s.to_move), s.to_move, 0)
        if move == "pass":
            if s.button is None:
                raise IllegalMove("no pass before the button is taken: take the button or place a stone")
            return KeilState(s.cells, other(s.to_move), s.button, s.passes + 1)
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

    def legal_moves(self) -> list[str]:
        if self.is_over:
            return []
        legal = []
        for p, name in enumerate(self.board.names):
            if self.state.cells[p] == EMPTY:
                try:
                    self._place(p)
                except IllegalMove:
                    continue
                legal.append(name)
        legal.append("button" if self.state.button is None else "pass")
        return legal

    # -- score and analysis --------------------------------------------------------

    def score_details(self) -> dict[str, dict[str, float]]:
        """Each player's score split into stones, territory, komi and button."""
        cells = self.state.cells
        details = {
            color: {"stones": sum(1 for c in cells if c == STONE[color]), "territory": 0,
                    "komi": self.komi if color == WHITE else 0,
                    "button": 0.5 if self.state.button == color else 0}
            for color in (BLACK, WHITE)
        }
        for region, owner in self._territories(cells):
            if owner is not None:
                details[owner]["territory"] += len(region)
        return details

    def score(self) -> dict[str, float]:
        return {color: float(sum(parts.values())) for color, parts in self.score_details().items()}

    def result(self) -> dict[str, Any] | None:
        if not self.is_over:
            return None
        score = self.score()
        winner = BLACK if score[BLACK] > score[WHITE] else WHITE
        return {"winner": winner, "score": score}

    def stone_at(self, point: str) -> str | None:
        return COLOR.get(self.state.cells[self.board.point(point)])

    @property
    def options(self) -> dict[str, Any]:
        return {"size": self.size, "komi": self.komi}

    @property
    def button(self) -> str | None:
        """Who took the button, or None."""
        return self.state.button

    @property
    def last_captured(self) -> list[str]:
        """Points whose stones the last move captured."""
        return [self.board.names[p] for p in self.state.captured]

    def groups(self) -> list[dict[str, Any]]:
        """Every group: its colour, points and liberties (point names)."""
        names = self.board.names
        cells = self.state.cells
        return [
            {"color": COLOR[cells[min(g)]],
             "points": [names[p] for p in sorted(g)],
             "liberties": [names[p] for p in sorted(self._liberties(cells, g))]}
            for g in self._groups(cells)
        ]

    def territories(self) -> list[dict[str, Any]]:
        """Every territory: its points and owner (None when neutral)."""
        names = self.board.names
        return [
            {"points": [names[p] for p in sorted(region)], "owner": owner}
            for region, owner in self._territories(self.state.cells)
        ]

    def analysis(self) -> dict[str, Any]:
        return {
            "groups": self.groups(),
            "territories": self.territories(),
            "score": self.score(),
            "score_details": self.score_details(),
            "button": self.button,
            "captured": self.last_captured,
        }
