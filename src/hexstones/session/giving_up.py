"""When a player gives up before the rules end a game: resignation by a player's own win
chance, and adjudication by both engines' (as computer-chess referees do it).

Each is a rule checked like a game's options (``check``/``checked`` raise ValueError) and
watched as the game goes, one win chance a turn. Tournaments, training's self-play, the
engine protocol's resigning engine and ``hexstones match``'s referee use these.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from hexstones.games import BLACK, COLORS, WHITE, other


@dataclass(frozen=True)
class Resign:
    """When a player gives up a game: its search gives it a win chance below ``below``
    on ``turns`` of its turns in a row (after the sampled opening). Every ``check``-th game
    of a schedule is played out instead (the task's ``play_out``), its record noting who
    would have resigned when, so that a report can count the resignations the rules'
    result would have proved wrong (AlphaZero's check of its resignation threshold)."""

    below: float
    turns: int = 3
    check: int = 10  # 0: no game played out

    def fields(self, index: int) -> dict[str, Any]:
        """The task fields of the ``index``-th game of a schedule (counted per configuration)."""
        out: dict[str, Any] = {"resign": [self.below, self.turns]}
        if self.check and index % self.check == 0:
            out["play_out"] = True
        return out

    def checked(self) -> Resign:
        """Itself, once checked: a win chance strictly between 0 and 0.5, a whole number
        of turns of at least 1, of games between play-outs of at least 0."""
        if not isinstance(self.below, (int, float)) or isinstance(self.below, bool) \
                or not 0 < self.below < 0.5:
            raise ValueError(f"a resignation threshold is a win chance between 0 and 0.5, "
                             f"not {self.below!r}")
        for name, value, least in (("turns below it", self.turns, 1),
                                   ("the games between play-outs", self.check, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(f"{name} must be a whole number of at least {least}, "
                                 f"not {value!r}")
        return self


class ResignWatch:
    """A game's resignation as it goes: :meth:`resigns` is told each searched turn's win
    chance for the mover. ``resign``: a task's ``[below, turns]`` (None: nobody resigns);
    ``play_out``: note who would have resigned (``would_resign``, ``{"color", "ply"}``)
    and play on. One watch serves the tournament's games and training's self-play."""

    def __init__(self, resign: Sequence[float] | None, play_out: bool = False):
        self.resign = resign
        self.play_out = play_out
        self.low_turns = {BLACK: 0, WHITE: 0}
        self.resigned: str | None = None
        self.would_resign: dict[str, Any] | None = None

    def resigns(self, mover: str, ply: int, win_rate: float | None) -> bool:
        """Whether ``mover``, whose search gave it ``win_rate`` (None: no search ran) at
        ply ``ply``, resigns now. Leave out the sampled opening's turns."""
        if not self.resign or win_rate is None:
            return False
        below, turns = self.resign
        self.low_turns[mover] = self.low_turns[mover] + 1 if win_rate < below else 0
        if self.low_turns[mover] >= turns and self.would_resign is None:
            self.would_resign = {"color": mover, "ply": ply}
            if not self.play_out:
                self.resigned = mover
                return True
        return False

    def winner(self, by_rules: str | None) -> str | None:
        """The game's winner: the resigner's opponent; else ``by_rules`` (the rules' winner,
        or the count's in a game the move limit stopped); else, where that leaves none (a
        stopped Droched game), the player who would not have resigned (None: nobody
        would have)."""
        if self.resigned is not None:
            return other(self.resigned)
        if by_rules is not None:
            return by_rules
        return other(self.would_resign["color"]) if self.would_resign else None

    def note(self, record: dict[str, Any]) -> None:
        """Write ``resigned`` or ``would_resign`` into a game's record."""
        if self.resigned is not None:
            record["resigned"] = self.resigned
        elif self.would_resign is not None:
            record["would_resign"] = self.would_resign



class Adjudication(NamedTuple):
    """The referee ends a game once both engines, for the last ``turns`` moves of each, gave
    the same side a win chance of at most ``below``; each is asked after its own move, by
    ``kata-analyze`` for ``seconds``."""

    below: float
    turns: int = 3
    seconds: float = 0.2

    def check(self) -> None:
        if not 0 < self.below < 0.5:
            raise ValueError(f"the adjudication threshold is a win chance between 0 and 0.5, "
                             f"not {self.below!r}")
        if isinstance(self.turns, bool) or not isinstance(self.turns, int) or self.turns < 1:
            raise ValueError(f"adjudication needs at least 1 turn of each engine, not {self.turns!r}")
        if not 0 < self.seconds <= 60:
            raise ValueError(f"the adjudication's analysis takes more than 0 and at most 60 "
                             f"seconds, not {self.seconds!r}")

    def loser(self, opinions: list[tuple[str, float | None]]) -> str | None:
        """The side both engines have given up on, from ``opinions``: (the colour that just
        moved, its engine's win chance for the side now to move), one a move; or None."""
        # The last 2 * turns opinions, kept only if every one of them is known.
        recent = [(color, w) for color, w in opinions[-2 * self.turns:] if w is not None]
        if len(recent) < 2 * self.turns:
            return None
        for loser in COLORS:
            # The mover's engine judged the side to move, the mover's opponent.
            if all((w if color != loser else 1 - w) <= self.below for color, w in recent):
                return loser
        return None
