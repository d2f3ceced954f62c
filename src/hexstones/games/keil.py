"""Keil (docs/rules.md section 2): Go on the triangular grid, with linking.

Two adjacent points are linked iff one of their common neighbours has the same content
as one of them. Groups, liberties and territories all follow links, not plain adjacency.
The rules run in the compiled kernels of :mod:`hexstones.core.keil`; this module is the
game API around them (names, messages, analysis).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hexstones.core import keil as kernels
from hexstones.core.layout import R_GAME_OVER, R_OCCUPIED, R_REPETITION, R_SUICIDE
from hexstones.games.base import IllegalMove
from hexstones.games.compiled import ply_of
from hexstones.games.counted import CountedGame
from hexstones.games.engine import COLOR_NAME
from hexstones.games.spec import BALANCE_LIMIT, Balance, Overlay, ScorePart


@dataclass(frozen=True)
class KeilState:
    cells: tuple[int, ...]
    to_move: str
    button: str | None  # who took the button, if anyone
    passes: int  # consecutive passes just played
    captured: tuple[int, ...] = ()  # points emptied by the last move


class KeilGame(CountedGame):
    name = "keil"
    title = "Keil"
    summary = "Go with linking on the triangular grid; territory and a button."
    default_size = 7
    app_sizes = (5, 7, 9)
    special_moves = ("button", "pass")
    special_help = {
        "button": "Take the button: worth half a point, once per game; no pass before it is taken",
        "pass": "Pass: two passes in a row end the game (only after the button is taken)",
    }
    balance = Balance("komi", "komi for White", "komi", -BALANCE_LIMIT, BALANCE_LIMIT, 6,
                      "points for White", offsets_score=True, study_range=(0, 10), fair=((5, 4),))
    score_parts = (ScorePart("stones", "stones"), ScorePart("territory", "territory"),
                   ScorePart("komi", "komi"), ScorePart("button", "button"))
    overlays = (Overlay("territory", "Territories and their owners"),
                Overlay("groups", "Groups and their liberties"))
    final_overlay = "territory"
    sgf_number = 901
    kernels = kernels
    reasons = {
        R_OCCUPIED: "{move} is occupied",
        R_SUICIDE: "{move} is suicide: after captures the placed stone's group would have no "
                   "liberty",
        R_REPETITION: "{move} repeats a position {mover} had at the end of an earlier turn "
                      "(repetition rule)",
        R_GAME_OVER: "the game is over (two passes in a row); {move!r} cannot be played",
    }

    def __init__(self, size: int = 7, komi: int = 6):
        super().__init__(size, komi)

    def special_move(self) -> str:
        # Action P is the button while nobody has taken it, a pass from then on.
        return "button" if self.button is None else "pass"

    # -- turns ---------------------------------------------------------------------

    @property
    def button(self) -> str | None:
        """Who took the button, or None."""
        return self.special_holder

    def _check_move(self, move: str) -> None:
        super()._check_move(move)
        if move == "button" and self.button is not None:
            raise IllegalMove(f"the button was already taken by {self.button}")
        if move == "pass" and self.button is None:
            raise IllegalMove("no pass before the button is taken: take the button or place a stone")

    # -- state, score and analysis --------------------------------------------------

    @property
    def state(self) -> KeilState:
        """The position as plain values (a snapshot)."""
        return KeilState(tuple(int(c) for c in self._board_cells), self.to_move, self.button,
                         self.passes, tuple(self._captured()))

    def _captured(self) -> list[int]:
        ply = ply_of(self._st)
        if ply == 0:
            return []
        before, after = self._row(ply - 1), self._row(ply)
        return [int(p) for p in np.flatnonzero((before != 0) & (after == 0))]

    def _territories(self) -> list[tuple[list[int], str | None]]:
        P = self.board.num_points
        region_of = np.empty(P, np.int32)
        owner = np.empty(P, np.int32)
        count = kernels.territories(self._geo, self._st, region_of, owner)
        regions: list[list[int]] = [[] for _ in range(count)]
        for p in range(P):
            if region_of[p] >= 0:
                regions[region_of[p]].append(p)
        return [(points, COLOR_NAME.get(int(owner[r]))) for r, points in enumerate(regions)]

    @property
    def last_captured(self) -> list[str]:
        """Points whose stones the last move captured."""
        return [self.board.names[p] for p in self._captured()]

    def groups(self) -> list[dict[str, Any]]:
        """Every group: its colour, points and liberties (point names)."""
        P = self.board.num_points
        names = self.board.names
        group_of = np.empty(P, np.int32)
        liberties = np.zeros((P, P), np.int8)
        count = kernels.groups_and_liberties(self._geo, self._st, group_of, liberties)
        found = []
        for g in range(count):
            points = np.flatnonzero(group_of == g)
            found.append({"color": COLOR_NAME[int(self._board_cells[points[0]])],
                          "points": [names[p] for p in points],
                          "liberties": [names[p] for p in np.flatnonzero(liberties[g])]})
        return found

    def links(self, points: list[str]) -> list[tuple[str, str]]:
        """Neighbouring pairs among ``points`` that are linked (docs/rules.md 2.1)."""
        index, names = self.board.index, self.board.names
        members = {index[p] for p in points}
        nbr = self._geo.nbr
        cells = self._board_cells
        return [(names[i], names[int(nbr[i, d])]) for i in sorted(members) for d in range(6)
                if nbr[i, d] > i and int(nbr[i, d]) in members and kernels.linked(cells, nbr, i, d)]

    def territories(self) -> list[dict[str, Any]]:
        """Every territory: its points and owner (None when neutral)."""
        names = self.board.names
        return [{"points": [names[p] for p in region], "owner": owner}
                for region, owner in self._territories()]

    def analysis(self) -> dict[str, Any]:
        return {
            "groups": self.groups(),
            "territories": self.territories(),
            "score": self.score(),
            "score_details": self.score_details(),
            "button": self.button,
            "captured": self.last_captured,
        }
