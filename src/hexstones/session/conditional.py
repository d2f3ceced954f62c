"""Conditional moves: "if they play X, I answer Y", a few plies deep, the correspondence
player's way of not waiting days for a forced reply.

A player waiting for the opponent's move leaves :class:`Conditional` lines: each line is
the opponent's move, this player's answer, the opponent's next move, the next answer, and
so on (an even number of moves, at most :data:`MAX_PLIES`). Several lines may start
alike; they must not answer the same opponent move two ways. :func:`checked` plays every
line on a copy of the game and refuses one with an illegal move, saying which.

When the opponent moves, :meth:`Conditional.after` gives the answer to play at once (None:
no line expected that move) and the lines left, each shortened by the two moves played;
every line that expected another move is cancelled: the game left it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hexstones.games import Game, IllegalMove
from hexstones.games.spec import shown
from hexstones.session.errors import BadStep, NotNow

MAX_PLIES = 12  # moves in one line: six exchanges, deeper than anyone plans by post
MAX_LINES = 40  # lines one player keeps in one game
MAX_MOVE_TEXT = 16  # characters of one move's name


@dataclass(frozen=True)
class Conditional:
    """One player's conditional lines in one game (each a tuple of move names, the
    opponent's first)."""

    lines: tuple[tuple[str, ...], ...] = ()

    def after(self, move: str) -> tuple[str | None, Conditional]:
        """The answer to the opponent's ``move`` (None: no line expected it) and the lines
        that go on past it, each without the two moves just played."""
        following = [line for line in self.lines if line[0] == move]
        if not following:
            return None, Conditional()
        answer = following[0][1]
        return answer, Conditional(tuple(line[2:] for line in following if len(line) > 2))

    def to_list(self) -> list[list[str]]:
        return [list(line) for line in self.lines]


def read_lines(data: Any) -> tuple[tuple[str, ...], ...]:
    """Lines as a request gives them (a list of lists of move names), checked for shape;
    BadStep saying what is wrong."""
    if not isinstance(data, list) or len(data) > MAX_LINES:
        raise BadStep(f"conditional moves are a list of at most {MAX_LINES} lines, each a list of "
                      f"moves, not {shown(data)}")
    lines = []
    for number, line in enumerate(data, 1):
        if (not isinstance(line, list) or not all(isinstance(m, str) and 0 < len(m) <= MAX_MOVE_TEXT for m in line)):
            raise BadStep(f"line {number} must be a list of move names, not {shown(line)}")
        if not line or len(line) % 2 or len(line) > MAX_PLIES:
            raise BadStep(f"line {number} must be pairs of moves, the opponent's then yours (2 to "
                          f"{MAX_PLIES} moves), not {len(line)} move{'s' if len(line) != 1 else ''}")
        lines.append(tuple(m.strip().lower() for m in line))
    return tuple(dict.fromkeys(lines))  # the same line twice is one line


def checked(game: Game, player: str, lines: Sequence[Sequence[str]]) -> Conditional:
    """``player``'s conditional lines for ``game`` as it stands (the opponent to move),
    each played out on a copy: NotNow if it is not the opponent's turn, BadStep naming the
    first illegal move, a line that goes past the game's end, or two answers to one move."""
    if game.is_over:
        raise NotNow("the game is over: there is nothing to answer")
    if game.to_move == player:
        raise NotNow("it is your turn: conditional moves answer the opponent's next move, so "
                     "play yours first")
    answers: dict[tuple[str, ...], str] = {}
    kept = []
    for number, line in enumerate(lines, 1):
        trial = game.copy()
        names = []
        for ply, move in enumerate(line):
            if trial.is_over:
                raise BadStep(f"line {number} goes on after the game would be over (move {ply + 1})")
            try:
                trial.play(move)
            except IllegalMove as exc:
                whose = "the opponent's" if ply % 2 == 0 else "your"
                raise BadStep(f"line {number}: {whose} move {shown(move)} is illegal there: {exc}") from None
            names.append(trial.moves[-1])  # the engine's spelling of the move
            if ply % 2 == 1:
                before = tuple(names[:-1])
                if answers.setdefault(before, names[-1]) != names[-1]:
                    raise BadStep(f"line {number} answers {' '.join(before)} with {names[-1]}, another "
                                  f"line with {answers[before]}: one answer to each move")
        kept.append(tuple(names))
    return Conditional(tuple(kept))
