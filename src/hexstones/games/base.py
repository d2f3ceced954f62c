"""The one game API that every layer (app, AI, records, protocol) speaks.

A game is a sequence of positions: ``play`` appends one, ``undo`` drops the last. Each
game module subclasses :class:`Game` and supplies the rules; nothing outside a game module
looks at how a position is stored.
"""

from __future__ import annotations

import copy as _copy
from typing import Any, ClassVar

from hexstones.board import Board, get_board

BLACK = "black"
WHITE = "white"
COLORS = (BLACK, WHITE)
STONE_CHARS = {BLACK: "X", WHITE: "O"}


def other(color: str) -> str:
    return WHITE if color == BLACK else BLACK


def whole_number(value, what: str) -> int:
    """``value`` as an int if it is a whole number (``6`` or ``6.0``), else ValueError naming ``what``."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be a whole number, not {value!r}")
    return value


class IllegalMove(ValueError):
    """A move that the rules forbid or that is not a move at all; the game is unchanged."""


class Game:
    """Base class of Keil, Dehil and Droched games.

    Subclasses set ``name``, ``special_moves`` and ``default_size`` and implement the
    abstract methods below. Public names are the project's API: keep them.
    """

    name: ClassVar[str] = ""
    default_size: ClassVar[int] = 7
    special_moves: ClassVar[tuple[str, ...]] = ()

    def __init__(self, size: int | None = None):
        self.size = self.default_size if size is None else size
        self.board: Board = get_board(self.size)
        self.moves: list[str] = []

    # -- the API every game provides ----------------------------------------------

    @property
    def to_move(self) -> str:
        """``"black"`` or ``"white"``: the player whose turn it is."""
        raise NotImplementedError

    @property
    def is_over(self) -> bool:
        raise NotImplementedError

    def legal_moves(self) -> list[str]:
        """Every legal move now: points in board order, then special moves."""
        raise NotImplementedError

    def play(self, move: str) -> None:
        """Play ``move``; raise :class:`IllegalMove` (game unchanged) if it is not legal."""
        raise NotImplementedError

    def undo(self) -> str:
        """Take back the last move and return it."""
        raise NotImplementedError

    def result(self) -> dict[str, Any] | None:
        """``{"winner": ..., "score": {...}}`` once the game is over, else ``None``."""
        raise NotImplementedError

    def score(self) -> dict[str, float] | None:
        """The score if the game ended now (``None`` for games without a score)."""
        raise NotImplementedError

    def stone_at(self, point: str) -> str | None:
        """``"black"``, ``"white"`` or ``None`` for the point called ``point``."""
        raise NotImplementedError

    @property
    def options(self) -> dict[str, Any]:
        """The options the game was created with, as ``new_game`` takes them."""
        raise NotImplementedError

    def analysis(self) -> dict[str, Any]:
        """What the position is made of (groups, territories, ...), as JSON-ready data."""
        raise NotImplementedError

    # -- shared behaviour ----------------------------------------------------------

    def is_legal(self, move: str) -> bool:
        try:
            normal = self.normalize_move(move)
        except IllegalMove:
            return False
        return normal in self.legal_moves()

    def normalize_move(self, move: str) -> str:
        """The canonical spelling of ``move``, or :class:`IllegalMove` if it is no move."""
        if not isinstance(move, str):
            raise IllegalMove(f"a move is a point like 'e5' or a word, not {move!r}")
        text = move.strip().lower()
        if text in self.special_moves:
            return text
        if self.board.is_point(text):
            return text
        words = ", ".join(f"'{w}'" for w in self.special_moves)
        raise IllegalMove(
            f"{move!r} is not a move in {self.name.capitalize()}: moves are points a1 to "
            f"{self.board.names[-1]} on side {self.size}" + (f" or {words}" if words else "")
        )

    def stones(self) -> dict[str, str]:
        """Every occupied point mapped to its stone's colour."""
        found = {}
        for name in self.board.names:
            color = self.stone_at(name)
            if color is not None:
                found[name] = color
        return found

    def picture(self) -> str:
        """The board as text: ``X`` black, ``O`` white, ``.`` empty."""
        marks = {self.board.index[p]: STONE_CHARS[c] for p, c in self.stones().items()}
        return self.board.render(marks)

    def status(self) -> str:
        result = self.result()
        if result is not None:
            text = f"{result['winner']} wins"
            if "score" in result:
                s = result["score"]
                text += f" ({s[BLACK]:g} to {s[WHITE]:g})"
            return text
        return f"{self.to_move} to move"

    def copy(self) -> Game:
        return _copy.deepcopy(self)

    def __str__(self) -> str:
        return f"{self.picture()}\n{self.name} side {self.size}, move {len(self.moves)}: {self.status()}"

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"<{self.name} game: {opts}, {len(self.moves)} moves, {self.status()}>"
