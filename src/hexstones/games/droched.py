"""Droched (docs/rules.md section 4): Go on hexagonal cells where life is a bridge to the border.

A group lives while the empty cells reachable from its stones through empty cells touch at
least two of the board's 12 border features (6 corners, 6 edges without their corners).
After a placement, enemy groups on broken bridges go to the prison, then friendly ones. A
turn may instead release one enemy stone from the prison. Whoever cannot act loses.
The rules run in the compiled kernels of :mod:`hexstones.core.droched`; this module is
the game API around them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hexstones.core import droched as kernels
from hexstones.core.layout import (
    M_PRISON,
    M_TO_MOVE,
    R_LONE_PRISONER,
    R_OCCUPIED,
    R_PRISON_EMPTY,
    R_REPETITION,
    geometry,
)
from hexstones.core.state import start_state
from hexstones.games.base import BLACK, WHITE, Game, IllegalMove, other
from hexstones.games.compiled import ply_of
from hexstones.games.engine import COLOR_NAME, STONE_CODE, CoreBacked
from hexstones.games.spec import BALANCE_LIMIT, Balance, Outcome, Overlay

RELEASE = "release"


@dataclass(frozen=True)
class DrochedState:
    cells: tuple[int, ...]  # 0 empty, 1 black, 2 white, in board order
    to_move: str
    prison_black: int  # black stones in the prison (White may release them)
    prison_white: int
    released_black: int  # black stones released from the prison: out of the game
    released_white: int
    imprisoned: tuple[int, ...] = ()  # points whose stones the last move sent to prison


def _group_facts(geo, st, num_points: int) -> list[tuple[list[int], int, int]]:
    """(points, colour code, reached-feature mask) of every group, in board order."""
    group_of = np.empty(num_points, np.int32)
    reach = np.zeros(num_points, np.int32)
    count = kernels.group_bridges(geo, st, group_of, reach)
    points: list[list[int]] = [[] for _ in range(count)]
    for p, g in enumerate(group_of.tolist()):
        if g >= 0:
            points[g].append(p)
    cells = st.board
    return [(pts, int(cells[pts[0]]), int(reach[g])) for g, pts in enumerate(points)]


def _two_or_more(mask: int) -> bool:
    return mask & (mask - 1) != 0


class DrochedGame(CoreBacked, Game):
    name = "droched"
    title = "Droched"
    summary = "Hexagonal cells; groups on broken bridges go to prison. Last to act wins."
    default_size = 9
    app_sizes = (5, 7, 9)
    special_moves = (RELEASE,)
    special_help = {
        RELEASE: "Release: instead of placing, take one enemy stone out of the prison "
                 "(and out of the game)",
    }
    board_kind = "cells"
    balance = Balance("prison", "black stones in the prison", "prison stones", 0, BALANCE_LIMIT,
                      0, "black stones in the prison at the start", offsets_score=False,
                      study_range=(0, 4), fair=((5, 7), (7, 0), (9, 0)))
    has_score = False
    last_to_act_wins = True
    overlays = (Overlay("groups", "Groups"),
                Overlay("bridges", "Groups on bridges / broken bridges"))
    final_overlay = "bridges"
    option_names = ("size", "prison", "handicap")
    sgf_number = 903
    kernels = kernels
    reasons = {
        R_PRISON_EMPTY: "no release: the prison holds no {opponent} stone for {mover} to release",
        R_OCCUPIED: "{move} is occupied",
        R_LONE_PRISONER: "{move} is suicide: the placed stone would be the only stone to go to "
                         "the prison",
        R_REPETITION: "{move} repeats the board {mover} left at the end of an earlier turn "
                      "(repetition rule)",
    }

    def __init__(self, size: int = 9, prison: int = 0, handicap=()):
        super().__init__(size)
        self.initial_prison = self.balance.check(prison, self.title)
        prison = self.initial_prison
        self.handicap: tuple[str, ...] = self._check_handicap(handicap)
        index = self.board.index
        self._attach(start_state("droched", self.size, prison=prison,
                                 handicap=tuple(index[n] for n in self.handicap)))
        # A handicap start is nobody's turn: the start board is no history row >= 1, so
        # the repetition rule never counts it.

    def _check_handicap(self, handicap) -> tuple[str, ...]:
        if isinstance(handicap, str):
            handicap = handicap.replace(",", " ").split()
        if not isinstance(handicap, (list, tuple)):
            raise ValueError(
                f"Droched's handicap option is a list of points like ['d4', 'f6'], not {handicap!r}"
            )
        names = []
        for point in handicap:
            try:
                names.append(self.board.names[self.board.point(point)])
            except ValueError as exc:
                raise ValueError(f"bad handicap point: {exc}") from None
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"handicap points must differ: {', '.join(repeated)} given twice")
        names.sort(key=self.board.index.__getitem__)
        if names:
            trial = start_state("droched", self.size, capacity=1,
                                handicap=tuple(self.board.index[n] for n in names))
            for points, _, reach in _group_facts(geometry(self.size), trial, self.board.num_points):
                if not _two_or_more(reach):
                    label = " ".join(self.board.names[p] for p in points)
                    raise ValueError(
                        f"handicap stones {label} would start on a broken bridge (their empty "
                        "paths reach fewer than two border features): choose other points"
                    )
        return tuple(names)

    # -- turns ---------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        if self._legal_numbers is not None:
            return not self._legal_numbers
        self._make_room()
        return bool(kernels.is_over(self._geo, self._st))

    def play(self, move: str) -> None:
        move = self.normalize_move(move)
        P = self.board.num_points
        code = self._core_play(P if move == RELEASE else self.board.index[move])
        if code:
            if self.is_over:
                raise IllegalMove(
                    f"the game is over ({self.to_move} has no legal action; "
                    f"{other(self.to_move)} won); {move!r} cannot be played"
                )
            raise IllegalMove(self._reason(move, code))
        self.moves.append(move)

    def legal_moves(self) -> list[str]:
        P = self.board.num_points
        names = self.board.names
        return [names[m] if m < P else RELEASE for m in self._core_legal()]

    def outcome(self) -> Outcome | None:
        if not self.is_over:
            return None
        # The player to move cannot act: the one who took the last action wins.
        return Outcome(other(self.to_move), "no legal action")

    def score(self) -> None:
        return None  # Droched has no score, only a last action

    # -- inspection ----------------------------------------------------------------

    @property
    def state(self) -> DrochedState:
        """The position as plain values (a snapshot)."""
        prison, released = self.prison, self.released
        return DrochedState(
            tuple(int(c) for c in self._board_cells), self.to_move,
            prison[BLACK], prison[WHITE], released[BLACK], released[WHITE],
            tuple(self._imprisoned()),
        )

    @property
    def options(self) -> dict[str, Any]:
        return {"size": self.size, "prison": self.initial_prison, "handicap": list(self.handicap)}

    @property
    def prison(self) -> dict[str, int]:
        """Stones of each colour now in the prison."""
        meta = self._st.meta
        return {c: int(meta[M_PRISON + STONE_CODE[c] - 1]) for c in (BLACK, WHITE)}

    @property
    def released(self) -> dict[str, int]:
        """Stones of each colour released from the prison (out of the game): a release by
        one player takes a stone of the other colour out."""
        ply = ply_of(self._st)
        P = self.board.num_points
        moves = self._st.hist_move[1:ply + 1]
        movers = self._st.hist_meta[:ply, M_TO_MOVE]  # the player to move before each move
        releasers = movers[moves == P]
        return {c: int(np.count_nonzero(releasers == 3 - STONE_CODE[c])) for c in (BLACK, WHITE)}

    def _imprisoned(self) -> list[int]:
        out = np.empty(self.board.num_points, np.int32)
        n = kernels.imprisoned_points(self._geo, self._st, out)
        return [int(p) for p in out[:n]]

    @property
    def last_imprisoned(self) -> list[str]:
        """Points whose stones the last move sent to the prison."""
        names = self.board.names
        return [names[p] for p in self._imprisoned()]

    def groups(self) -> list[dict[str, Any]]:
        """Every group: colour, points, whether it is on a bridge, the border features reached."""
        names, feature_names = self.board.names, self.board.feature_names
        return [
            {
                "color": COLOR_NAME[code],
                "points": [names[p] for p in points],
                "on_bridge": _two_or_more(reach),
                "features": [feature_names[f] for f in range(12) if reach >> f & 1],
            }
            for points, code, reach in _group_facts(self._geo, self._st, self.board.num_points)
        ]

    def analysis(self) -> dict[str, Any]:
        return {
            "groups": self.groups(),
            "prison": self.prison,
            "released": self.released,
            "last_imprisoned": self.last_imprisoned,
        }
