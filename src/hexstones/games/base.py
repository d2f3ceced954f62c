"""The one game API that every layer (app, AI, records, protocol) speaks.

A game is a sequence of positions: ``play`` appends one, ``undo`` drops the last. Each
game module subclasses :class:`Game` and supplies the rules; nothing outside a game module
looks at how a position is stored.
"""

from __future__ import annotations

import copy as _copy
from functools import cache
from typing import Any, ClassVar

import numpy as np

from hexstones.board import MAX_SIZE, MIN_SIZE, Board, get_board
from hexstones.games.spec import (
    BLACK,
    COLORS,
    WHITE,
    Balance,
    Outcome,
    Overlay,
    ScorePart,
    other,
    shown,
    whole_number,
)

STONE_CHARS = {BLACK: "X", WHITE: "O"}

__all__ = ["BLACK", "WHITE", "COLORS", "Game", "IllegalMove", "other", "whole_number"]


class IllegalMove(ValueError):
    """A move that the rules forbid or that is not a move at all; the game is unchanged."""


class Game:
    """Base class of Keil, Dehil and Droched games.

    Subclasses declare the facts below as class attributes and implement the abstract
    methods. Public names are the project's API: keep them.

    Actions: every move has an action number, ``0 .. P-1`` a placement on that point (in
    :class:`~hexstones.board.Board` order), ``P`` the game's special move (Keil: the button
    until it is taken, then pass; Dehil: pass; Droched: release). ``num_actions`` is
    ``P + 1``; :meth:`action_of` and :meth:`move_of` convert, and :meth:`action_symmetries`
    turns actions by the board's 12 symmetries.
    """

    # -- facts each game declares ----------------------------------------------------
    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    summary: ClassVar[str] = ""                              # one line: what the game is
    default_size: ClassVar[int] = 7
    sizes: ClassVar[range] = range(MIN_SIZE, MAX_SIZE + 1)   # sides the rules allow
    app_sizes: ClassVar[tuple[int, ...]] = ()                # sides the app offers first
    special_moves: ClassVar[tuple[str, ...]] = ()
    special_help: ClassVar[dict[str, str]] = {}              # what each special move does
    board_kind: ClassVar[str] = "points"                     # "points" of a grid or "cells"
    balance: ClassVar[Balance]
    has_score: ClassVar[bool] = True
    last_to_act_wins: ClassVar[bool] = False                 # a player with no legal action loses
    score_parts: ClassVar[tuple[ScorePart, ...]] = ()
    overlays: ClassVar[tuple[Overlay, ...]] = ()
    final_overlay: ClassVar[str] = ""                         # shown when the game ends
    option_names: ClassVar[tuple[str, ...]] = ("size",)
    sgf_number: ClassVar[int] = 0                              # the game's SGF GM[] number

    def __init__(self, size: int):
        self.size = self.check_size(size)
        self.board: Board = get_board(self.size)
        self.moves: list[str] = []

    @classmethod
    def check_size(cls, size: Any) -> int:
        """``size`` as a side this game is played on, or ValueError saying why."""
        size = whole_number(size, f"{cls.title}'s board size")
        if size not in cls.sizes:
            raise ValueError(f"{cls.title}'s board size must be from {cls.sizes[0]} to "
                             f"{cls.sizes[-1]}, not {size}")
        return size

    @classmethod
    def spec(cls) -> dict[str, Any]:
        """The game's facts as JSON-ready data (what the browser app builds its forms from)."""
        return {
            "name": cls.name, "title": cls.title, "summary": cls.summary,
            "default_size": cls.default_size,
            "sizes": [cls.sizes[0], cls.sizes[-1]], "app_sizes": list(cls.app_sizes),
            "special_moves": list(cls.special_moves), "special_help": dict(cls.special_help),
            "board_kind": cls.board_kind, "balance": cls.balance.to_dict(),
            "has_score": cls.has_score, "last_to_act_wins": cls.last_to_act_wins,
            "score_parts": [{"key": p.key, "label": p.label, "sign": p.sign} for p in cls.score_parts],
            "overlays": [{"name": o.name, "label": o.label} for o in cls.overlays],
            "final_overlay": cls.final_overlay, "options": list(cls.option_names),
            "sgf_number": cls.sgf_number,
        }

    @property
    def balance_value(self) -> int:
        """This game's balance: the komi, or the prison stones it started with."""
        return self.options[self.balance.option]

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

    def outcome(self) -> Outcome | None:
        """How the game ended (by the rules: a count or no legal action), else ``None``."""
        raise NotImplementedError

    def result(self) -> dict[str, Any] | None:
        """``{"winner": ..., "score": {...}}`` once the game is over, else ``None``
        (``score`` only in games that have one)."""
        outcome = self.outcome()
        if outcome is None:
            return None
        found: dict[str, Any] = {"winner": outcome.winner}
        if outcome.score is not None:
            found["score"] = outcome.score
        return found

    def score(self) -> dict[str, float] | None:
        """The score if the game ended now (``None`` for games without a score)."""
        raise NotImplementedError

    def score_details(self) -> dict[str, dict[str, float]] | None:
        """Each player's score split into the parts of ``score_parts`` (``None`` for
        games without a score). A part with sign -1 is given as a positive number."""
        return None

    @property
    def special_holder(self) -> str | None:
        """Who holds the game's one-time privilege (Keil: took the button; Dehil: passed
        first), or ``None``; games without one always say ``None``."""
        return None

    @property
    def passes(self) -> int:
        """Consecutive passes just played (0 in games without a pass)."""
        return 0

    @property
    def prison(self) -> dict[str, int] | None:
        """Stones of each colour in the prison, in games that have one (else ``None``)."""
        return None

    def stone_at(self, point: str) -> str | None:
        """``"black"``, ``"white"`` or ``None`` for the point called ``point``."""
        raise NotImplementedError

    @property
    def options(self) -> dict[str, Any]:
        """The options the game was created with, as ``new_game`` takes them."""
        raise NotImplementedError

    def groups(self) -> list[dict[str, Any]]:
        """Every group: its ``color`` and ``points``, with what the game adds (liberties,
        values and partitions, bridges)."""
        raise NotImplementedError

    def territories(self) -> list[dict[str, Any]]:
        """Every territory (points and owner) in games that count territory; else none."""
        return []

    def analysis(self) -> dict[str, Any]:
        """What the position is made of (groups, territories, ...), as JSON-ready data."""
        raise NotImplementedError

    # -- actions: the move codec -------------------------------------------------------

    @property
    def num_actions(self) -> int:
        """Action numbers run from 0 to ``num_actions - 1``: the points, then the special move."""
        return self.board.num_points + 1

    def action_of(self, move: str) -> int:
        """The action number of ``move`` (any spelling :meth:`normalize_move` accepts)."""
        move = self.normalize_move(move)
        if move in self.special_moves:
            return self.board.num_points
        return self.board.index[move]

    def move_of(self, action: int) -> str:
        """The move called by action number ``action`` in the current position."""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) \
                or not 0 <= action < self.num_actions:
            raise IllegalMove(f"an action is a whole number from 0 to {self.num_actions - 1}, "
                              f"not {action!r}")
        if action < self.board.num_points:
            return self.board.names[action]
        return self.special_move()

    def special_move(self) -> str:
        """The name action ``P`` has now (games with two special moves say which)."""
        return self.special_moves[0]

    def legal_actions(self) -> list[int]:
        """Every legal action number now, ascending (the special move last)."""
        return [self.action_of(m) for m in self.legal_moves()]

    def action_symmetries(self) -> np.ndarray:
        """An int array ``[12, num_actions]``: row ``k`` sends each action to its image
        under the board's symmetry ``k`` (row 0 the identity; the special move stays)."""
        return _action_symmetries(self.size)

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
            raise IllegalMove(f"a move is a point like 'e5' or a word, not {shown(move)}")
        text = move.strip().lower()
        if text in self.special_moves:
            return text
        if self.board.is_point(text):
            return text
        words = ", ".join(f"'{w}'" for w in self.special_moves)
        raise IllegalMove(
            f"{shown(move)} is not a move in {self.title}: moves are points a1 to "
            f"{self.board.names[-1]} on side {self.size}" + (f" or {words}" if words else "")
        )

    def links(self, points: list[str]) -> list[tuple[str, str]]:
        """The pairs of neighbouring points among ``points`` that connect one group: plain
        adjacency here; Keil, whose groups follow links, says otherwise."""
        index, names = self.board.index, self.board.names
        members = {index[p] for p in points}
        return [(names[i], names[j]) for i in sorted(members)
                for j in self.board.neighbours[i] if j > i and j in members]

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
        outcome = self.outcome()
        if outcome is not None:
            return outcome.text()
        return f"{self.to_move} to move"

    def copy(self) -> Game:
        return _copy.deepcopy(self)

    def __str__(self) -> str:
        return f"{self.picture()}\n{self.name} side {self.size}, move {len(self.moves)}: {self.status()}"

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"<{self.name} game: {opts}, {len(self.moves)} moves, {self.status()}>"


@cache
def _action_symmetries(size: int) -> np.ndarray:
    board = get_board(size)
    P = board.num_points
    table = np.empty((12, P + 1), np.int32)
    for k, image in enumerate(board.symmetries):
        table[k, :P] = image
        table[k, P] = P
    table.setflags(write=False)
    return table
