"""Dehil (docs/rules.md section 3): score groups that cut the board into partitions.

Groups use plain adjacency and there are no captures. A group "has partitions" when
taking its points out of the board leaves two or more connected areas. Placements are
limited only by the triangle rule (docs/rules.md 3.4): after a placement every triangle
pattern of the mover's colour must be allowed. The rules run in the compiled kernels of
:mod:`hexstones.core.dehil`; this module is the game API around them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hexstones.core import dehil as kernels
from hexstones.core.layout import R_OCCUPIED, R_TRIANGLE
from hexstones.games.counted import CountedGame
from hexstones.games.engine import COLOR_NAME
from hexstones.games.spec import BALANCE_LIMIT, Balance, Overlay, ScorePart


@dataclass(frozen=True)
class DehilState:
    cells: tuple[int, ...]
    to_move: str
    passes: int  # consecutive passes just played
    first_pass: str | None  # who passed first in the whole game, if anyone


class DehilGame(CountedGame):
    name = "dehil"
    title = "Dehil"
    summary = "No captures: groups that partition the board score, others count against."
    default_size = 9
    app_sizes = (7, 9, 11)
    special_moves = ("pass",)
    special_help = {
        "pass": "Pass: the first pass of the game earns half a point; two passes in a row end it",
    }
    balance = Balance("komi", "komi for White", "komi", -BALANCE_LIMIT, BALANCE_LIMIT, 0,
                      "points for White (may be negative)", offsets_score=True,
                      study_range=(-4, 4), fair=((7, 1), (9, 1)))
    score_parts = (ScorePart("plus", "groups with partitions"),
                   ScorePart("minus", "groups without partitions", -1),
                   ScorePart("komi", "komi"), ScorePart("first_pass", "first pass"))
    overlays = (Overlay("groups", "Groups and their values"),
                Overlay("partitions", "Groups with / without partitions"))
    final_overlay = "partitions"
    sgf_number = 902
    kernels = kernels

    def __init__(self, size: int = 9, komi: int = 0):
        super().__init__(size, komi)

    # -- turns ---------------------------------------------------------------------

    @property
    def state(self) -> DehilState:
        """The position as plain values (a snapshot)."""
        return DehilState(tuple(int(c) for c in self._board_cells), self.to_move,
                          self.passes, self.first_pass)

    @property
    def first_pass(self) -> str | None:
        """The player who passed first in the whole game (the half point), or None."""
        return self.special_holder

    def _violation(self, point: int) -> str:
        """The triangle-rule message for a placement of the player to move on ``point``."""
        names = self.board.names
        out = np.zeros(6, np.int32)
        kind = kernels.placement_violation(self._geo, self._st, point, out)
        if kind == 0:
            return ""
        color = self.to_move
        tri = [int(p) for p in out[:3]]
        label = " ".join(names[p] for p in tri)
        if kind == 1:
            edge = [p for p in tri if self.board.on_edge[p]]
            return (f"the {color} triangle {label} would have {len(edge)} stones on the edge "
                    f"({', '.join(names[p] for p in edge)}); at most one may be")
        unsupported = [p for p, flag in zip(tri, out[3:6]) if flag]
        which = ", ".join(names[p] for p in unsupported)
        one = len(unsupported) == 1
        return (
            f"in the {color} triangle {label}, stone{'' if one else 's'} {which} "
            f"{'is' if one else 'are'} not on the edge and lack{'s' if one else ''} a supporting "
            f"stone (an adjacent {color} stone that is in no triangle pattern or is the "
            "center stone of an hourglass pattern)"
        )

    def _reason(self, move: str, code: int) -> str:
        point = self.board.index[move]
        if code == R_OCCUPIED:
            return f"{move} is occupied (by {COLOR_NAME[int(self._board_cells[point])]})"
        if code == R_TRIANGLE:
            return f"{move} breaks the triangle rule: {self._violation(point)}"
        return super()._reason(move, code)

    def forbidden_placements(self) -> dict[str, str]:
        """Empty points the player to move may not take, each with the triangle it breaks.

        Empty once the game is over (no placement is possible then for another reason).
        """
        if self.is_over:
            return {}
        legal = set(self._core_legal())
        names = self.board.names
        return {
            names[p]: f"{names[p]} breaks the triangle rule: {self._violation(p)}"
            for p in range(self.board.num_points)
            if self._board_cells[p] == 0 and p not in legal
        }

    # -- score and analysis --------------------------------------------------------

    def _group_facts(self) -> list[tuple[list[int], int, int]]:
        """(points, colour code, number of areas) for every group, in board order."""
        P = self.board.num_points
        group_of = np.empty(P, np.int64)
        areas = np.zeros(P, np.int64)
        count = kernels.group_partitions(self._geo, self._st, group_of, areas)
        cells = self._board_cells
        facts = []
        for g in range(count):
            points = [int(p) for p in np.flatnonzero(group_of == g)]
            facts.append((points, int(cells[points[0]]), int(areas[g])))
        return facts

    def groups(self) -> list[dict[str, Any]]:
        """Every group: colour, points, value and partitions (areas; 0 or 1 means none)."""
        names = self.board.names
        return [
            {"color": COLOR_NAME[code], "points": [names[p] for p in g], "value": len(g),
             "partitions": areas, "has_partitions": areas >= 2}
            for g, code, areas in self._group_facts()
        ]

    def analysis(self) -> dict[str, Any]:
        return {
            "groups": self.groups(),
            "forbidden": self.forbidden_placements(),
            "score": self.score(),
            "score_details": self.score_details(),
            "first_pass": self.first_pass,
        }
