"""Vacations: days a signed-in player takes away from correspondence play.

Each account has :data:`DAYS_A_YEAR` days a calendar year (UTC). While a player is away,
the clock of each of their correspondence games (``days:N``) stands still whenever it is
their turn: paused the moment they go, or the moment the opponent moves into their turn,
and started again when they come back. The opponent's own time is untouched: they still
move when it is theirs. A vacation ends when its days are over (the time keeper's
thread, :meth:`Vacations.watch`) or when the player ends it; each day begun counts as a
day taken. Live games (Fischer, byo-yomi) never stand still.

The rows live in the games database (table ``vacations``, migration r0009).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from hexstones.session import Correspondence
from hexstones.web import seats
from hexstones.web.errors import WebError, shown, whole
from hexstones.web.game_setup import GameSetup
from hexstones.web.live import Tables
from hexstones.web.rows import Rows, column_text

DAYS_A_YEAR = 30
DAY = 86400
WATCH_SECONDS = 2.0  # how often (real time) the time keeper looks for vacations that are over
AWAY_READ_SECONDS = 1.0  # how old (real time) this process's list of who is away may be



def _year(now: float) -> int:
    return datetime.fromtimestamp(now, UTC).year


class Vacations:
    """The accounts' vacations, and what they do to the clocks of ``tables``."""

    def __init__(self, tables: Tables, clock: Callable[[], float] = time.time) -> None:
        self.tables = tables
        self.db = Rows(tables.store)
        self.now = clock
        self._looked = -math.inf
        self._away: set[str] = set()  # accounts away, as this process last read them
        self._read_at = -math.inf
        tables.away = self.away_in
        tables.watchers.append(self.watch)

    # -- questions --------------------------------------------------------------------------

    def _row(self, user: str) -> dict[str, Any] | None:
        rows = self.db.query("SELECT started, until, year, used FROM vacations WHERE user_id = :u", {"u": user})
        return rows[0] if rows else None

    def status(self, user: str) -> dict[str, Any]:
        """``away`` (and ``until``, seconds since the epoch) and the days ``left`` this year."""
        now = self.now()
        row = self._row(user)
        used = 0 if row is None or row["year"] != _year(now) else int(row["used"])
        away = row is not None and row["started"] is not None
        return {"away": away, "until": row["until"] if away and row else None,
                "days_left": max(0, DAYS_A_YEAR - used), "days_a_year": DAYS_A_YEAR}

    def away_in(self, setup: GameSetup, color: str) -> bool:
        """Whether the player of ``color`` in a game with ``setup`` is away now (read from
        the database at most every :data:`AWAY_READ_SECONDS`: every process sees a vacation
        begin)."""
        seat = seats.seat_of(setup, color)
        if seat is None or not seat.user:
            return False
        if time.monotonic() - self._read_at > AWAY_READ_SECONDS:
            rows = self.db.query("SELECT user_id FROM vacations WHERE started IS NOT NULL AND until > :now",
                                 {"now": self.now()})
            self._away = {column_text(r["user_id"]) for r in rows}
            self._read_at = time.monotonic()
        return seat.user in self._away

    # -- steps ------------------------------------------------------------------------------

    def start(self, user: str, days: Any) -> dict[str, Any]:
        """``user`` goes away for ``days`` whole days from now (a 400 beyond what is left
        this year, a 409 if already away); their correspondence clocks stop on their turn."""
        days = whole(days, "days")
        now = self.now()
        with self.db.transaction() as rows:
            found = rows.query("SELECT started, year, used FROM vacations WHERE user_id = :u", {"u": user})
            row = found[0] if found else None
            if row is not None and row["started"] is not None:
                raise WebError(409, "you are on vacation already: end it first to take another")
            used = 0 if row is None or row["year"] != _year(now) else int(row["used"])
            left = DAYS_A_YEAR - used
            if not 1 <= days <= left:
                raise WebError(400, "a vacation is 1 to {left} days (you have {left} of {year} "
                                    "left this year), not {value}", left=left, year=DAYS_A_YEAR, value=shown(days))
            values = {"u": user, "started": now, "until": now + days * DAY, "year": _year(now), "used": used}
            if row is None:
                rows.execute("INSERT INTO vacations (user_id, started, until, year, used) "
                             "VALUES (:u, :started, :until, :year, :used)", values)
            else:
                rows.execute("UPDATE vacations SET started = :started, until = :until, year = :year, "
                             "used = :used WHERE user_id = :u", values)
        self._read_at = -math.inf
        self._hold(user, True)
        return self.status(user)

    def end(self, user: str) -> dict[str, Any]:
        """``user`` is back (a 409 if not away): the days begun count, their clocks run."""
        if not self._close(user, only_if_over=False):
            raise WebError(409, "you are not on vacation")
        return self.status(user)

    def _close(self, user: str, only_if_over: bool) -> bool:
        """End ``user``'s vacation (``only_if_over``: only if its days are over); whether
        this call ended it (one process does, when several notice)."""
        now = self.now()
        with self.db.transaction() as rows:
            found = rows.query("SELECT started, until, year, used FROM vacations WHERE user_id = :u", {"u": user})
            if not found or found[0]["started"] is None:
                return False
            row = found[0]
            if only_if_over and row["until"] > now:
                return False
            taken = math.ceil(max(0.0, min(now, row["until"]) - row["started"]) / DAY - 1e-9) or 1
            used = (int(row["used"]) if row["year"] == _year(row["started"]) else 0) + taken
            rows.execute("UPDATE vacations SET started = NULL, until = NULL, year = :year, used = :used "
                         "WHERE user_id = :u", {"u": user, "year": _year(row["started"]),
                                                 "used": min(used, DAYS_A_YEAR)})
        self._read_at = -math.inf
        self._hold(user, False)
        return True

    def _hold(self, user: str, away: bool) -> None:
        """Stop or restart the correspondence clocks of ``user``'s games that run for them."""
        for row in self.tables.list():
            setup: GameSetup = row["setup"]
            if row["finished"] or not isinstance(setup.time_control, Correspondence):
                continue
            for color in ("black", "white"):
                seat = seats.seat_of(setup, color)
                if seat is not None and seat.user == user:
                    try:
                        self.tables.hold_clock(row["id"], color, away)
                    except WebError:
                        pass  # changed meanwhile by another process: its move paused it, or not

    def watch(self) -> None:
        """End the vacations whose days are over (every :data:`WATCH_SECONDS` at most)."""
        if time.monotonic() - self._looked < WATCH_SECONDS:
            return
        self._looked = time.monotonic()
        now = self.now()
        for row in self.db.query("SELECT user_id FROM vacations WHERE started IS NOT NULL AND until <= :now",
                                 {"now": now}):
            self._close(column_text(row["user_id"]), only_if_over=True)
