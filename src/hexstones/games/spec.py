"""What a game class declares about itself, the result object, and the one check of options.

Each game class states its facts once, as class attributes (as python-chess's variant
classes do): its name and title, the sides it is played on, its special moves, its
balance option, its overlays, the parts of its score. Every layer above ``games/`` asks the
game for these facts instead of comparing game names; :meth:`Game.spec` hands them to the
browser as JSON.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

BLACK = "black"
WHITE = "white"
COLORS = (BLACK, WHITE)

# The largest komi (either sign) and the most prison stones any game accepts. One bound
# for the game API, the web app, GTP and the SGF reader: every game the app accepts is
# written to SGF and read back, and the kernels' int64 counts never come near overflow.
BALANCE_LIMIT = 1_000_000


def other(color: str) -> str:
    return WHITE if color == BLACK else BLACK


def whole_number(value: Any, what: str) -> int:
    """``value`` as an int if it is a whole number (``6``, ``6.0``), else ValueError naming ``what``.

    Text is not a number here: parsing text is the caller's job (the web app, GTP, SGF).
    """
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be a whole number, not {shown(value)}")
    return int(value)


ECHO_LIMIT = 40  # characters of a refused value shown back in an error message


def shown(value: Any) -> str:
    """``repr(value)``, cut to :data:`ECHO_LIMIT` characters with the full length named:
    an error message never echoes a huge input back."""
    try:
        text = repr(value)
    except (RecursionError, ValueError):  # a structure too deep, an int too long to print
        return f"a {type(value).__name__}"
    if len(text) <= ECHO_LIMIT:
        return text
    return f"{text[:ECHO_LIMIT]}... ({len(text)} characters)"


@dataclass(frozen=True)
class Balance:
    """The option that balances the first player's advantage (docs/rules.md section 5).

    Keil and Dehil: ``komi``, points for White (a score margin). Droched, which has no
    score: ``prison``, black stones in the prison at the start, which White may release.
    """

    option: str      # the new_game option that holds it
    label: str       # what it is, for a person: "komi for White"
    short: str       # a word or two: "komi", "prison stones"
    minimum: int
    maximum: int
    default: int
    note: str        # one line of help
    # True: the balance offsets a final score margin (komi); False: it is a count that
    # only helps White as it grows (prison stones), searched upward by the komi pie.
    offsets_score: bool
    # The values a komi study tries when none are given: around the expected balance.
    study_range: tuple[int, int] = (0, 10)
    # (side, value): the balance at which the project's AI players, playing themselves,
    # win as often with either colour (self-play studies, docs/komi.md). A side is missing
    # where no study placed it. A fact measured about these players, not a rule.
    fair: tuple[tuple[int, int], ...] = ()

    def check(self, value: Any, title: str) -> int:
        """``value`` as this balance, or ValueError saying what and why."""
        value = whole_number(value, f"{title}'s {self.option}")
        if not self.minimum <= value <= self.maximum:
            raise ValueError(f"{title}'s {self.option} ({self.label}) must be from {self.minimum} "
                             f"to {self.maximum}, not {value}")
        return value

    def fair_at(self, size: int) -> int | None:
        """The balance found fair between the project's AI players on side ``size``, or
        None where no study placed one."""
        return dict(self.fair).get(size)

    def to_dict(self) -> dict[str, Any]:
        return {"option": self.option, "label": self.label, "short": self.short,
                "minimum": self.minimum, "maximum": self.maximum, "default": self.default,
                "note": self.note, "offsets_score": self.offsets_score,
                "study_range": list(self.study_range),
                "fair": {str(size): value for size, value in self.fair}}


@dataclass(frozen=True)
class Overlay:
    """A picture laid over the board that explains the position (groups, territory, ...)."""

    name: str
    label: str


@dataclass(frozen=True)
class ScorePart:
    """One part of a player's score; ``sign`` -1 for a part that counts against them."""

    key: str
    label: str
    sign: int = 1


@dataclass(frozen=True)
class Outcome:
    """How a game ended: the winner, the final score where the game has one, and why.

    ``reason`` is ``"score"`` (counted at the end), ``"no legal action"`` (Droched: the
    player to move cannot act), ``"resignation"`` or ``"time"``. No game has draws.
    """

    winner: str
    reason: str
    score: dict[str, float] | None = None

    REASONS = ("score", "no legal action", "resignation", "time")

    def __post_init__(self) -> None:
        if self.winner not in COLORS:
            raise ValueError(f"the winner is 'black' or 'white', not {shown(self.winner)}")
        if self.reason not in self.REASONS:
            raise ValueError(f"an outcome's reason is one of {', '.join(self.REASONS)}, "
                             f"not {shown(self.reason)}")

    @classmethod
    def resignation(cls, loser: str) -> Outcome:
        return cls(other(loser), "resignation")

    @classmethod
    def on_time(cls, loser: str) -> Outcome:
        return cls(other(loser), "time")

    @property
    def loser(self) -> str:
        return other(self.winner)

    @property
    def margin(self) -> float | None:
        """The winner's lead on the final score, or None without one."""
        if self.score is None:
            return None
        return abs(self.score[BLACK] - self.score[WHITE])

    def text(self) -> str:
        """The result in words: the one formatter every part of the project shows."""
        winner, loser = self.winner.capitalize(), self.loser.capitalize()
        if self.reason == "resignation":
            return f"{winner} wins: {loser} resigned"
        if self.reason == "time":
            return f"{winner} wins on time"
        if self.score is not None:
            s = self.score
            return f"{winner} wins by {self.margin:g} ({s[BLACK]:g} to {s[WHITE]:g})"
        return f"{winner} wins: {loser} has no legal action"

    def to_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {"winner": self.winner, "reason": self.reason, "text": self.text()}
        if self.score is not None:
            found["score"] = dict(self.score)
        return found
