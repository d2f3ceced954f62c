"""The part of a game object that keeps its position in a core state (plain Python glue:
the rules themselves run in the kernels)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from hexstones.core.common import board_at
from hexstones.core.common import undo as _undo
from hexstones.core.layout import (
    M_PLY,
    M_TO_MOVE,
    R_FULL,
    capacity_of,
    geometry,
    grow_state,
)

if TYPE_CHECKING:
    from hexstones.board import Board

COLOR_NAME = {1: "black", 2: "white"}


class CoreBacked:
    """Mixin for :class:`hexstones.games.base.Game` subclasses whose rules are a core
    kernel module (``kernels``): the position lives in ``self._st``."""

    kernels: Any = None  # the hexstones.core.<game> module
    # set by Game.__init__ (declared for the type checker)
    size: int
    board: Board
    moves: list[str]

    def _attach(self, st) -> None:
        self._st = st
        self._geo = geometry(self.size)
        self._legal_numbers: list[int] | None = None

    # -- position ------------------------------------------------------------------

    @property
    def _board_cells(self) -> np.ndarray:
        return self._st[0]

    @property
    def _meta(self) -> np.ndarray:
        return self._st[1]

    @property
    def to_move(self) -> str:
        return COLOR_NAME[int(self._st[1][M_TO_MOVE])]

    def stone_at(self, point: str) -> str | None:
        return COLOR_NAME.get(int(self._st[0][self.board.point(point)]))

    def stones(self) -> dict[str, str]:
        names = self.board.names
        return {names[p]: COLOR_NAME[int(c)] for p, c in enumerate(self._st[0]) if c}

    def core_state(self):
        """A copy of the core state (for playouts and search)."""
        return tuple(a.copy() for a in self._st)

    # -- moves ---------------------------------------------------------------------

    def _core_play(self, number: int) -> int:
        """Play move ``number`` in the kernels; returns the reason code (0 = played)."""
        code = self.kernels.play(self._geo, self._st, number)
        if code == R_FULL:
            self._st = grow_state(self._st, 2 * capacity_of(self._st))
            code = self.kernels.play(self._geo, self._st, number)
        if code == 0:
            self._legal_numbers = None
        return code

    def _core_undo(self) -> None:
        _undo(self._geo, self._st)
        self._legal_numbers = None

    def undo(self) -> str:
        """Take back the last move and return it."""
        from hexstones.games.base import IllegalMove

        if not self.moves:
            raise IllegalMove("no move to take back")
        self._core_undo()
        return self.moves.pop()

    def _core_legal(self) -> list[int]:
        if self._legal_numbers is None:
            if int(self._st[1][M_PLY]) + 2 >= capacity_of(self._st):
                self._st = grow_state(self._st, 2 * capacity_of(self._st))
            out = np.empty(self.board.num_points + 1, np.int32)
            n = self.kernels.legal_moves(self._geo, self._st, out)
            self._legal_numbers = [int(m) for m in out[:n]]
        return self._legal_numbers

    def _row(self, ply: int) -> np.ndarray:
        """The board after ``ply`` moves."""
        return board_at(self._st, ply)

    def copy(self):
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.moves = list(self.moves)
        twin._st = tuple(a.copy() for a in self._st)
        twin._legal_numbers = None
        return twin
