"""Game clocks: the time control a game is played under, and the clock that applies it.

Pure values, no wall clock: every operation takes ``now``, a float of seconds on whatever
clock the caller trusts (the server's ``time.time()``, a test's counter), and a step
returns a new :class:`Clock`, leaving this one as it was (like :class:`KomiPie`).

**Time controls** (:class:`TimeControl`; the text form is what URLs and the lobby carry,
:meth:`TimeControl.parse` reads it, :attr:`TimeControl.text` writes it,
:meth:`TimeControl.describe` says it to people):

``none`` (:class:`Untimed`), "no time limit"
    No clock: nobody loses on time and no game is aborted for a slow first move.
``fischer:BASE:INC`` (:class:`Fischer`, as lichess), "5+3"
    Each side starts with BASE seconds (15 s to 3 h) and spends its own time while it is
    to move; each move made adds INC seconds (0 to 3 min). Shown as minutes + seconds a
    move.
``byoyomi:MAIN:PERIODS:SECONDS`` (:class:`ByoYomi`, Japanese byo-yomi as online-go.com),
"10 min + 5x30 s"
    MAIN seconds of main time (0 to 3 h), then PERIODS periods (1 to 30) of SECONDS each
    (5 s to 10 min). Once the main time is spent, every move must be made within a
    period: a move made within it keeps the period (the next turn has a whole one
    again); a turn that overruns a period uses it up and goes on in the next; using up
    the last one is losing on time. Main time never comes back.
``days:N`` (:class:`Correspondence`, a capped bank as Little Golem's), "3 days a move"
    Each side's bank starts at N days (1 to 14); the side to move spends its bank, and
    each move made adds N days, up to a cap of :attr:`Correspondence.CAP_MOVES` moves'
    worth, 5N days. Whoever answers quickly saves time for a hard move later, but no
    more than five moves' worth, so a game never stalls for months on one move. (Little
    Golem adds 36 hours up to 240, about 6.7 moves' worth; a round number of moves says
    the same more simply.) A move made in time always leaves at least N days.

Malformed or out-of-bounds values raise :class:`BadStep` saying what is wrong; the
bounds are the classes' attributes.

**The clock** (:class:`Clock`):

- :meth:`Clock.new` makes it, :meth:`Clock.start` starts it when the game starts (both
  seats taken), with the first mover to move.
- Each side's first move is free: it spends none of that side's time and adds nothing,
  but it must be made within ``first_move_deadline`` seconds of that turn's start (by
  default :attr:`TimeControl.first_move_seconds`: 60 s for live games, the days of one
  move for correspondence, none for ``none``). Past that deadline the game is
  *aborted*, not lost: nobody really played it (:meth:`Clock.abort_at`,
  :meth:`Clock.aborted`). From each side's second move on, its own time runs.
- :meth:`Clock.moved` ("this colour moved now") is all the clock knows of moves: a
  placement, a pass, Keil's button, Droched's release and each step of the komi pie are
  one move each to it. Moves alternate: the mover's time stops, the opponent's starts.
- A flag falls when the running side's time is spent: exactly at :meth:`Clock.flag_at`,
  from which instant :meth:`Clock.fallen` names that colour (never earlier). A move at
  or after that instant is refused (:class:`NotNow`).
- :meth:`Clock.pause` and :meth:`Clock.resume` stop and restart all time (a vacation in
  a correspondence game): paused time counts for nobody, not even against the first-move
  deadline. Nobody moves while the clock is paused.
- :meth:`Clock.handed` passes the turn without a move (moves taken back by agreement):
  the running side is charged its turn's time, earning nothing; no time is given back.
- :meth:`Clock.deadline` is the next instant the game ends by the clock if nobody moves
  (a flag, or an abort), for a server to wake at.
- :meth:`Clock.stop` when the game ends otherwise (resignation, the rules' end): each side
  keeps what it has left, and no time runs any more.
- Stored as :meth:`Clock.to_dict` (JSON); :meth:`Clock.from_dict` refuses damaged data
  with a ValueError that says what is damaged.

A ``now`` earlier than the clock's last event (a wall clock stepped back) counts as that
event's instant: time never runs backwards on a clock.
"""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from hexstones.games import BLACK, COLORS, other
from hexstones.games.spec import shown
from hexstones.session.errors import BadStep, NotNow

MINUTE, HOUR, DAY = 60, 3600, 86400
FORMS = "'none', 'fischer:BASE:INC', 'byoyomi:MAIN:PERIODS:SECONDS' or 'days:N'"
# Numbers of the text forms: ASCII digits only (str.isdigit would take other scripts' digits).
_DIGITS = re.compile(r"[0-9]+")
_MAX_DIGITS = 12  # far past every bound; longer is refused before int() reads it


def duration(seconds: int) -> str:
    """Whole ``seconds`` as a person reads them: "45 s", "10 min", "1 min 30 s", "3 h",
    "2 days 4 h"."""
    days, rest = divmod(seconds, DAY)
    hours, rest = divmod(rest, HOUR)
    minutes, secs = divmod(rest, MINUTE)
    parts = [f"{days} day{'s' if days != 1 else ''}"] if days else []
    parts += [f"{hours} h"] if hours else []
    parts += [f"{minutes} min"] if minutes else []
    if secs or not parts:
        parts.append(f"{secs} s")
    return " ".join(parts)


@dataclass(frozen=True)
class TimeLeft:
    """One side's time as its turn begins: ``seconds`` (under byo-yomi, its main time)
    and the byo-yomi ``periods`` it has left (0 under the other controls)."""

    seconds: float
    periods: int = 0


SPENT = TimeLeft(0.0, 0)  # a side whose flag fell


def _checked(label: str, value: Any, low: int, high: int, unit: str) -> None:
    """BadStep unless ``value`` is a whole number from ``low`` to ``high``; ``unit``:
    "s" (seconds, bounds shown as durations), "days" or "" (a count)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadStep(f"the {label} must be a whole number, not {shown(value)}")
    if low <= value <= high:
        return
    if unit == "s":
        raise BadStep(f"the {label} must be from {duration(low)} to {duration(high)}, "
                      f"not {value} s")
    raise BadStep(f"the {label} must be from {low} to {high}{' ' + unit if unit else ''}, "
                  f"not {value}")


class TimeControl(ABC):
    """How much time each side has (the module's docstring defines each kind). A value:
    :class:`Untimed`, :class:`Fischer`, :class:`ByoYomi` or :class:`Correspondence`.

    The rules a :class:`Clock` applies live here, one method each, so the clock never asks
    which kind it has: :meth:`start`, :meth:`until_flag`, :meth:`face`, :meth:`after_move`,
    :meth:`after_stop`."""

    TAG: ClassVar[str]
    FORM: ClassVar[str]  # the text form with its numbers' names: "fischer:BASE:INC"
    # Each number of the text form, in order: its field, what it is (for messages) and its
    # unit ("s", "days", or "" for a count).
    NUMBERS: ClassVar[tuple[tuple[str, str, str], ...]] = ()
    TIMED: ClassVar[bool] = True
    FIRST_MOVE_SECONDS: ClassVar[int | None] = 60  # live games: a minute for the first move

    @staticmethod
    def parse(text: Any) -> TimeControl:
        """The time control written ``text`` (``none``, ``fischer:BASE:INC``,
        ``byoyomi:MAIN:PERIODS:SECONDS``, ``days:N``); BadStep says what is wrong."""
        if not isinstance(text, str):
            raise BadStep(f"a time control is written {FORMS}, not {shown(text)}")
        tag, *numbers = text.split(":")
        kind = CONTROLS.get(tag)
        if kind is None:
            raise BadStep(f"a time control is written {FORMS}, not {shown(text)}")
        if numbers and not kind.NUMBERS:
            raise BadStep(f"'{tag}' takes no numbers: {shown(text)}")
        if len(numbers) != len(kind.NUMBERS):
            wanted = len(kind.NUMBERS)
            raise BadStep(f"{kind.FORM} has {wanted} number{'s' if wanted != 1 else ''} "
                          f"after '{tag}', not {len(numbers)}: {shown(text)}")
        values = []
        for (_, label, unit), number in zip(kind.NUMBERS, numbers):
            what = {"s": " of seconds", "days": " of days"}.get(unit, "")
            if not _DIGITS.fullmatch(number):
                raise BadStep(f"the {label} must be a whole number{what}, not {shown(number)} "
                              f"(in {shown(text)})")
            if len(number) > 1 and number.startswith("0"):  # one spelling per control
                raise BadStep(f"write the {label} without leading zeros, not {shown(number)}")
            if len(number) > _MAX_DIGITS:
                raise BadStep(f"the {label} is far too large: a number of {len(number)} digits")
            values.append(int(number))
        return kind(*values)

    @property
    def text(self) -> str:
        """The text form, as :meth:`parse` reads it."""
        return ":".join([self.TAG, *(str(getattr(self, name)) for name, _, _ in self.NUMBERS)])

    def __str__(self) -> str:
        return self.text

    @property
    def first_move_seconds(self) -> float | None:
        """Seconds each side has for its first move before the game is aborted (None:
        never aborted)."""
        return self.FIRST_MOVE_SECONDS

    @abstractmethod
    def describe(self) -> str:
        """The control for people, briefly: "5+3", "10 min + 5x30 s", "3 days a move"."""

    @abstractmethod
    def start(self) -> TimeLeft:
        """Each side's time as the game begins."""

    # A bank of seconds (Fischer, correspondence) by default; byo-yomi and no clock say
    # otherwise.
    def until_flag(self, left: TimeLeft) -> float | None:
        """Seconds from the start of a turn with ``left`` until its flag falls (None:
        never)."""
        return left.seconds

    def face(self, left: TimeLeft, elapsed: float) -> TimeLeft:
        """What the side's clock shows ``elapsed`` seconds into a turn that began with
        ``left`` (byo-yomi: its main time, then what is left of the current period);
        :data:`SPENT` once its flag fell."""
        return TimeLeft(max(0.0, left.seconds - elapsed))

    @abstractmethod
    def after_move(self, left: TimeLeft, spent: float) -> TimeLeft:
        """The side's time after a move made ``spent`` seconds into its turn (before its
        flag fell), with what the move earns."""

    @abstractmethod
    def after_stop(self, left: TimeLeft, spent: float) -> TimeLeft:
        """The side's time when the clock stops ``spent`` seconds into its turn: what the
        turn used, earning nothing."""

    @abstractmethod
    def damage(self, left: TimeLeft) -> str | None:
        """Why ``left`` cannot be a side's time under this control (None: it can)."""


@dataclass(frozen=True)
class Untimed(TimeControl):
    """``none``: no clock."""

    TAG: ClassVar[str] = "none"
    FORM: ClassVar[str] = "none"
    TIMED: ClassVar[bool] = False
    FIRST_MOVE_SECONDS: ClassVar[int | None] = None

    def describe(self) -> str:
        return "no time limit"

    def start(self) -> TimeLeft:
        return TimeLeft(0.0)

    def until_flag(self, left: TimeLeft) -> float | None:
        return None

    def face(self, left: TimeLeft, elapsed: float) -> TimeLeft:
        return left

    def after_move(self, left: TimeLeft, spent: float) -> TimeLeft:
        return left

    def after_stop(self, left: TimeLeft, spent: float) -> TimeLeft:
        return left

    def damage(self, left: TimeLeft) -> str | None:
        return None if left == TimeLeft(0.0) else "an untimed game keeps no time"


@dataclass(frozen=True)
class Fischer(TimeControl):
    """``fischer:BASE:INC``: ``base`` seconds each, ``increment`` seconds added per move."""

    base: int
    increment: int

    TAG: ClassVar[str] = "fischer"
    FORM: ClassVar[str] = "fischer:BASE:INC"
    NUMBERS: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("base", "base time", "s"), ("increment", "increment", "s"))
    MIN_BASE: ClassVar[int] = 15
    MAX_BASE: ClassVar[int] = 3 * HOUR
    MAX_INCREMENT: ClassVar[int] = 3 * MINUTE

    def __post_init__(self) -> None:
        _checked("base time", self.base, self.MIN_BASE, self.MAX_BASE, "s")
        _checked("increment", self.increment, 0, self.MAX_INCREMENT, "s")

    def describe(self) -> str:
        minutes, seconds = divmod(self.base, MINUTE)
        base = f"{minutes}:{seconds:02d}" if seconds else f"{minutes}"
        return f"{base}+{self.increment}"

    def start(self) -> TimeLeft:
        return TimeLeft(float(self.base))

    def after_move(self, left: TimeLeft, spent: float) -> TimeLeft:
        return TimeLeft(max(0.0, left.seconds - spent) + self.increment)

    def after_stop(self, left: TimeLeft, spent: float) -> TimeLeft:
        return self.face(left, spent)

    def damage(self, left: TimeLeft) -> str | None:
        return None if left.periods == 0 else "Fischer time has no periods"


@dataclass(frozen=True)
class ByoYomi(TimeControl):
    """``byoyomi:MAIN:PERIODS:SECONDS``: ``main`` seconds, then ``periods`` periods of
    ``period_seconds`` each."""

    main: int
    periods: int
    period_seconds: int

    TAG: ClassVar[str] = "byoyomi"
    FORM: ClassVar[str] = "byoyomi:MAIN:PERIODS:SECONDS"
    NUMBERS: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("main", "main time", "s"), ("periods", "number of periods", ""),
        ("period_seconds", "period", "s"))
    MAX_MAIN: ClassVar[int] = 3 * HOUR
    MIN_PERIODS: ClassVar[int] = 1
    MAX_PERIODS: ClassVar[int] = 30
    MIN_PERIOD: ClassVar[int] = 5
    MAX_PERIOD: ClassVar[int] = 10 * MINUTE

    def __post_init__(self) -> None:
        _checked("main time", self.main, 0, self.MAX_MAIN, "s")
        _checked("number of periods", self.periods, self.MIN_PERIODS, self.MAX_PERIODS, "")
        _checked("period", self.period_seconds, self.MIN_PERIOD, self.MAX_PERIOD, "s")

    def describe(self) -> str:
        periods = f"{self.periods}x{duration(self.period_seconds)}"
        return f"{duration(self.main)} + {periods}" if self.main else periods

    def start(self) -> TimeLeft:
        return TimeLeft(float(self.main), self.periods)

    def until_flag(self, left: TimeLeft) -> float | None:
        return left.seconds + left.periods * self.period_seconds

    def _periods_used(self, left: TimeLeft, spent: float) -> int:
        """Periods a turn of ``spent`` seconds used up (all of them: its flag fell)."""
        if spent < left.seconds:
            return 0
        return min(int((spent - left.seconds) // self.period_seconds), left.periods)

    def face(self, left: TimeLeft, elapsed: float) -> TimeLeft:
        if elapsed < left.seconds:
            return TimeLeft(left.seconds - elapsed, left.periods)
        used = self._periods_used(left, elapsed)
        if used >= left.periods:
            return SPENT
        into = elapsed - left.seconds - used * self.period_seconds
        return TimeLeft(max(0.0, self.period_seconds - into), left.periods - used)

    def after_move(self, left: TimeLeft, spent: float) -> TimeLeft:
        if spent < left.seconds:
            return TimeLeft(left.seconds - spent, left.periods)
        # a move made in time keeps at least the period it was made in
        return TimeLeft(0.0, max(1, left.periods - self._periods_used(left, spent)))

    def after_stop(self, left: TimeLeft, spent: float) -> TimeLeft:
        if spent < left.seconds:
            return TimeLeft(left.seconds - spent, left.periods)
        return TimeLeft(0.0, left.periods - self._periods_used(left, spent))

    def damage(self, left: TimeLeft) -> str | None:
        if left.seconds > self.main:
            return f"more main time than the control gives ({self.main} s)"
        if not 0 <= left.periods <= self.periods:
            return f"periods must be from 0 to {self.periods}"
        if left.seconds > 0 and left.periods != self.periods:
            return "periods are used only once the main time is spent"
        return None


@dataclass(frozen=True)
class Correspondence(TimeControl):
    """``days:N``: a bank of ``days`` days, each move adding ``days`` days up to
    :attr:`cap`."""

    days: int

    TAG: ClassVar[str] = "days"
    FORM: ClassVar[str] = "days:N"
    NUMBERS: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("days", "number of days per move", "days"),)
    MIN_DAYS: ClassVar[int] = 1
    MAX_DAYS: ClassVar[int] = 14
    CAP_MOVES: ClassVar[int] = 5  # the bank holds at most this many moves' days

    def __post_init__(self) -> None:
        _checked("number of days per move", self.days, self.MIN_DAYS, self.MAX_DAYS, "days")

    @property
    def per_move(self) -> int:
        """Seconds each move adds to the bank."""
        return self.days * DAY

    @property
    def cap(self) -> int:
        """The most seconds the bank holds."""
        return self.CAP_MOVES * self.per_move

    @property
    def first_move_seconds(self) -> float | None:
        return float(self.per_move)

    def describe(self) -> str:
        return f"{self.days} day{'s' if self.days != 1 else ''} a move"

    def start(self) -> TimeLeft:
        return TimeLeft(float(self.per_move))

    def after_move(self, left: TimeLeft, spent: float) -> TimeLeft:
        return TimeLeft(min(float(self.cap), max(0.0, left.seconds - spent) + self.per_move))

    def after_stop(self, left: TimeLeft, spent: float) -> TimeLeft:
        return self.face(left, spent)

    def damage(self, left: TimeLeft) -> str | None:
        if left.periods:
            return "correspondence time has no periods"
        if left.seconds > self.cap:
            return f"a bank over the cap of {self.cap} s"
        return None


CONTROLS: dict[str, type[TimeControl]] = {
    kind.TAG: kind for kind in (Untimed, Fischer, ByoYomi, Correspondence)}


def _seconds(seconds: float) -> str:
    return duration(int(seconds)) if seconds.is_integer() else f"{seconds:g} s"


def _instant(now: Any) -> float:
    if isinstance(now, bool) or not isinstance(now, int | float) or not math.isfinite(now):
        raise BadStep(f"a time is a finite number of seconds, not {shown(now)}")
    return float(now)


def _color(color: Any) -> str:
    if color not in COLORS:
        raise BadStep(f"a colour is 'black' or 'white', not {shown(color)}")
    return str(color)


@dataclass(frozen=True)
class Clock:
    """Both sides' time under ``control``. ``left``: each colour's time as its turn
    began (:class:`TimeLeft`); ``running``: the colour whose turn runs, since
    ``running_since`` (None before :meth:`start` and after :meth:`stop`);
    ``started_at``: when the game started; ``paused_at``: when the clock was paused
    (None while it runs); ``moves``: the moves made since the start (the first two, one
    per side, are free of the clock); ``first_move_deadline``: seconds each side has for
    its first move before the game is aborted (None: never aborted)."""

    control: TimeControl
    left: Mapping[str, TimeLeft]
    first_move_deadline: float | None
    started_at: float | None = None
    running: str | None = None
    running_since: float | None = None
    paused_at: float | None = None
    moves: int = 0

    @classmethod
    def new(cls, control: TimeControl, first_move_deadline: float | None = None) -> Clock:
        """A clock not started yet; ``first_move_deadline`` defaults to the control's
        :attr:`~TimeControl.first_move_seconds`."""
        deadline = control.first_move_seconds
        if deadline is not None:
            deadline = float(deadline)
        if first_move_deadline is not None:
            deadline = _instant(first_move_deadline)
            if deadline <= 0:
                raise BadStep(f"the first move's deadline must be positive, not {deadline} s")
        return cls(control, {color: control.start() for color in COLORS}, deadline)

    @property
    def started(self) -> bool:
        return self.started_at is not None

    @property
    def paused(self) -> bool:
        return self.paused_at is not None

    @property
    def opening(self) -> bool:
        """Whether the move due now is a side's first: free of the clock, but with a
        deadline."""
        return self.moves < len(COLORS)

    def _now(self, now: Any) -> float:
        """``now`` checked, and never before the clock's last event."""
        instant = _instant(now)
        events = [t for t in (self.started_at, self.running_since, self.paused_at) if t is not None]
        return max([instant, *events])

    def _elapsed(self, now: float) -> float:
        """Seconds of the running side's turn that count by ``now`` (none while its move
        is free)."""
        if self.running_since is None or self.opening:
            return 0.0
        until = self.paused_at if self.paused_at is not None else now
        return until - self.running_since

    def _refuse_unless_running(self, step: str) -> str:
        if not self.started:
            raise NotNow(f"the clock has not started: nobody can {step} yet")
        if self.running is None:
            raise NotNow(f"the clock is stopped: the game is over, nobody can {step}")
        return self.running

    # -- steps: each returns a new clock -----------------------------------------------

    def start(self, now: float, first: str = BLACK) -> Clock:
        """The clock as the game starts at ``now``, ``first`` to move."""
        now, first = self._now(now), _color(first)
        if self.started:
            raise NotNow("the clock has already started")
        return replace(self, started_at=now, running=first, running_since=now)

    def moved(self, color: str, now: float) -> Clock:
        """The clock after ``color`` moved at ``now``: its time charged (and earned), the
        opponent's running. NotNow if it is not ``color``'s turn on the clock, the clock
        is paused or stopped, or ``color``'s flag fell (or its first move's deadline
        passed) by ``now``."""
        now, color = self._now(now), _color(color)
        running = self._refuse_unless_running("move")
        if self.paused:
            raise NotNow("the clock is paused: resume it before moving")
        if color != running:
            raise NotNow(f"it is {running}'s turn on the clock, not {color}'s")
        abort_at = self.abort_at()
        if abort_at is not None and now >= abort_at:
            raise NotNow(f"too late: {color} did not make a first move within "
                         f"{_seconds(self.first_move_deadline or 0.0)}, so the game is aborted")
        flag_at = self.flag_at()
        if flag_at is not None and now >= flag_at:
            raise NotNow(f"too late: {color}'s flag fell {now - flag_at:.1f} s before this move")
        left = dict(self.left)
        if not self.opening:
            left[color] = self.control.after_move(left[color], self._elapsed(now))
        return replace(self, left=left, running=other(color), running_since=now,
                       moves=self.moves + 1)

    def handed(self, color: str, now: float) -> Clock:
        """The clock when the turn passes to ``color`` at ``now`` without a move (moves
        were taken back): the running side is charged what its turn used, earning
        nothing, and ``color``'s time runs from ``now``. NotNow as :meth:`moved`, if the
        running side's time is already up."""
        now, color = self._now(now), _color(color)
        running = self._refuse_unless_running("take moves back")
        if self.paused:
            raise NotNow("the clock is paused: resume it first")
        if self.fallen(now) is not None or self.aborted(now):
            raise NotNow("too late: the time is already up")
        if color == running:
            return self
        left = dict(self.left)
        if not self.opening:
            left[running] = self.control.after_stop(left[running], self._elapsed(now))
        return replace(self, left=left, running=color, running_since=now)

    def pause(self, now: float) -> Clock:
        """The clock paused at ``now``: no time counts until :meth:`resume`. NotNow if it
        does not run, is paused already, or a flag fell (or the abort deadline passed)."""
        now = self._now(now)
        self._refuse_unless_running("pause the clock")
        if self.paused:
            raise NotNow("the clock is already paused")
        if self.fallen(now) is not None or self.aborted(now):
            raise NotNow("too late to pause: the time is already up")
        return replace(self, paused_at=now)

    def resume(self, now: float) -> Clock:
        """The clock running again at ``now``, the pause counting for nobody."""
        now = self._now(now)
        if self.paused_at is None or self.running_since is None:
            raise NotNow("the clock is not paused")
        return replace(self, running_since=self.running_since + (now - self.paused_at),
                       paused_at=None)

    def stop(self, now: float) -> Clock:
        """The clock stopped at ``now`` (the game ended): the running side keeps what it
        had left then (nothing if its flag fell), earning nothing for the turn."""
        now = self._now(now)
        running = self._refuse_unless_running("stop the clock")
        left = dict(self.left)
        if self.fallen(now) == running:
            left[running] = SPENT
        elif not self.opening:
            left[running] = self.control.after_stop(left[running], self._elapsed(now))
        return replace(self, left=left, running=None, running_since=None, paused_at=None)

    # -- questions ---------------------------------------------------------------------

    def remaining(self, color: str, now: float) -> float | None:
        """The seconds ``color``'s clock shows at ``now``, never negative: all its time,
        or under byo-yomi its main time, then what is left of the current period (see
        :meth:`periods_left`). None: the game has no clock."""
        face = self._face(color, now)
        return face.seconds if self.control.TIMED else None

    def periods_left(self, color: str, now: float) -> int:
        """The byo-yomi periods ``color`` has at ``now``, the current one included (0
        under other controls)."""
        return self._face(color, now).periods

    def in_periods(self, color: str, now: float) -> bool:
        """Whether ``color``'s main time is spent by ``now`` and its clock shows a byo-yomi
        period (False under other controls)."""
        now, color = self._now(now), _color(color)
        if self.periods_left(color, now) == 0:
            return False
        elapsed = self._elapsed(now) if color == self.running else 0.0
        return elapsed >= self.left[color].seconds

    def _face(self, color: str, now: float) -> TimeLeft:
        now, color = self._now(now), _color(color)
        if self.fallen(now) == color:
            return SPENT
        elapsed = self._elapsed(now) if color == self.running else 0.0
        return self.control.face(self.left[color], elapsed)

    def flag_at(self) -> float | None:
        """The instant the running side's flag falls if it does not move: None when no
        time runs (no clock, not started, stopped, paused, or a first move)."""
        if self.running is None or self.running_since is None or self.paused or self.opening:
            return None
        until = self.control.until_flag(self.left[self.running])
        return None if until is None else self.running_since + until

    def fallen(self, now: float) -> str | None:
        """The colour whose flag fell by ``now`` (at or after :meth:`flag_at`; on a stopped
        clock, a side with no time left), or None."""
        now = self._now(now)
        if self.running is None:
            if not self.started or not self.control.TIMED:
                return None
            return next((c for c in COLORS if self.control.until_flag(self.left[c]) == 0), None)
        flag_at = self.flag_at()
        return self.running if flag_at is not None and now >= flag_at else None

    def abort_at(self) -> float | None:
        """The instant the game is aborted if the side to move makes no first move: None
        unless a first move is due (and the control has a deadline) and the clock runs."""
        if (self.running_since is None or self.paused or not self.opening
                or self.first_move_deadline is None):
            return None
        return self.running_since + self.first_move_deadline

    def deadline(self) -> float | None:
        """The next instant the game ends by the clock if nobody moves: a flag falls
        (:meth:`flag_at`) or a missed first move aborts it (:meth:`abort_at`); None while
        no time runs."""
        return self.flag_at() if self.abort_at() is None else self.abort_at()

    def aborted(self, now: float) -> bool:
        """Whether the first-move deadline passed by ``now``: the game is aborted, not lost."""
        now = self._now(now)
        abort_at = self.abort_at()
        return abort_at is not None and now >= abort_at

    # -- storage -----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The clock as JSON-ready data; :meth:`from_dict` reads it back equal."""
        return {
            "control": self.control.text,
            "seconds": {c: self.left[c].seconds for c in COLORS},
            "periods": {c: self.left[c].periods for c in COLORS},
            "first_move_deadline": self.first_move_deadline,
            "started_at": self.started_at,
            "running": self.running,
            "running_since": self.running_since,
            "paused_at": self.paused_at,
            "moves": self.moves,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Clock:
        """The clock stored as ``data`` (:meth:`to_dict`); ValueError if it is damaged."""
        return _read_clock(data)


KEYS = ("control", "seconds", "periods", "first_move_deadline", "started_at", "running",
        "running_since", "paused_at", "moves")


def _damaged(why: str) -> ValueError:
    return ValueError(f"damaged clock data: {why}")


def _number(data: Mapping[str, Any], key: str) -> float | None:
    value = data[key]
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _damaged(f"{key!r} must be a finite number or null, not {shown(value)}")
    return float(value)


def _per_color(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data[key]
    if not isinstance(value, Mapping) or set(value) != set(COLORS):
        raise _damaged(f"{key!r} must map 'black' and 'white' to their values, not {shown(value)}")
    return value


def _read_clock(data: Any) -> Clock:
    if not isinstance(data, Mapping):
        raise _damaged(f"a clock is an object, not {shown(data)}")
    missing = [k for k in KEYS if k not in data]
    unknown = sorted(str(k) for k in data if k not in KEYS)
    if missing or unknown:
        raise _damaged(f"missing {missing}, unknown {unknown}")
    if not isinstance(data["control"], str):
        raise _damaged(f"'control' must be text, not {shown(data['control'])}")
    try:
        control = TimeControl.parse(data["control"])
    except BadStep as error:
        raise _damaged(f"'control': {error.message}") from None

    seconds, periods = _per_color(data, "seconds"), _per_color(data, "periods")
    left = {}
    for color in COLORS:
        time, count = seconds[color], periods[color]
        if isinstance(time, bool) or not isinstance(time, int | float) or not (
                math.isfinite(time) and time >= 0):
            raise _damaged(f"{color}'s seconds must be a number, 0 or more, not {shown(time)}")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise _damaged(f"{color}'s periods must be a whole number, 0 or more, not {shown(count)}")
        left[color] = TimeLeft(float(time), count)
        why = control.damage(left[color])
        if why is not None:
            raise _damaged(f"{color}'s time under {control.text}: {why}")

    deadline = _number(data, "first_move_deadline")
    if deadline is not None and deadline <= 0:
        raise _damaged(f"'first_move_deadline' must be positive, not {deadline}")
    started_at, running_since = _number(data, "started_at"), _number(data, "running_since")
    paused_at, running, moves = _number(data, "paused_at"), data["running"], data["moves"]
    if running is not None and running not in COLORS:
        raise _damaged(f"'running' must be 'black', 'white' or null, not {shown(running)}")
    if isinstance(moves, bool) or not isinstance(moves, int) or moves < 0:
        raise _damaged(f"'moves' must be a whole number, 0 or more, not {shown(moves)}")

    if (running is None) != (running_since is None):
        raise _damaged("'running' and 'running_since' go together")
    if started_at is None and (running is not None or moves):
        raise _damaged("a clock not started has nothing running and no moves")
    if paused_at is not None and running_since is None:
        raise _damaged("only a running clock is paused")
    if started_at is not None and running_since is not None and running_since < started_at:
        raise _damaged("'running_since' is before the start")
    if paused_at is not None and running_since is not None and paused_at < running_since:
        raise _damaged("'paused_at' is before 'running_since'")
    if moves < len(COLORS) and any(left[c] != control.start() for c in COLORS):
        raise _damaged("time was spent before both sides made their free first move")
    return Clock(control, left, deadline, started_at, running, running_since, paused_at, moves)
