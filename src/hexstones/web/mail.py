"""Email notices for correspondence play: "your move" and "your time runs low", for the
accounts that ask for them, sent through the SMTP server the app is given.

A player opts in on the account page (an address and which notices: :class:`Notices`,
table ``mail_preferences``, migration r0009); every notice carries a link that turns them
off (``/unsubscribe/<secret>``, also as a ``List-Unsubscribe`` header). Only
correspondence games (``days:N``) send notices: a live game is played with the page open.

* Your move: after each move of a correspondence game, to the player now to move.
* Your time runs low: once per turn, when less than a third of a move's days is left on
  the running side's clock (:data:`LOW_SHARE`); the time keeper's thread looks
  (:meth:`Notices.watch`), and table ``mail_sent`` makes it once however many server
  processes look.

Messages go out from a thread of their own (:class:`Mailer`): a move never waits for the
mail server, and a mail server that is down costs a line in the log, nothing else.
"""

from __future__ import annotations

import logging
import queue
import re
import secrets
import smtplib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

from hexstones.games import other
from hexstones.session import Correspondence
from hexstones.session.clock import duration
from hexstones.web import i18n, seats
from hexstones.web.errors import WebError, filled, shown
from hexstones.web.i18n import N_
from hexstones.web.live import Live, Tables
from hexstones.web.rows import Rows, column_text
from hexstones.web.spec import spec_of
from hexstones.web.texts import control_text

log = logging.getLogger("hexstones.web")

LOW_SHARE = 1 / 3  # of a move's days left on the clock: time to say so
WATCH_SECONDS = 2.0  # how often (real time) the time keeper looks for clocks running low
MAX_ADDRESS = 254  # characters of an email address (RFC 5321's path limit)
ADDRESS = re.compile(r"[^@\s<>\"',;]+@[^@\s<>\"',;]+\.[^@\s<>\"',;.]+")



@dataclass(frozen=True)
class MailSettings:
    """How the app sends mail: the SMTP server (``host``, ``port``, optional ``user`` and
    ``password``, ``starttls``), the ``sender`` address, and ``public_url``, the app's
    address as people reach it (the links in the messages)."""

    host: str
    port: int
    sender: str
    public_url: str
    user: str | None = None
    password: str | None = None
    starttls: bool = False


class Mailer:
    """Sends messages in a thread of its own, one at a time, in order."""

    def __init__(self, settings: MailSettings) -> None:
        self.settings = settings
        self._queue: queue.Queue[EmailMessage | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="hexstones-mail", daemon=True)
        self._thread.start()

    def send(self, to: str, subject: str, text: str, unsubscribe: str, footer: str) -> None:
        """Send ``text`` to ``to``, with ``footer`` (which holds the ``unsubscribe`` link)
        under the signature line."""
        message = EmailMessage()
        message["From"] = self.settings.sender
        message["To"] = to
        message["Subject"] = subject
        message["List-Unsubscribe"] = f"<{unsubscribe}>"
        message.set_content(f"{text}\n\n-- \n{footer}\n")
        self._queue.put(message)

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=30)

    def flush(self) -> None:
        """Wait until every message handed over so far has been sent (or failed)."""
        self._queue.join()

    def _run(self) -> None:
        while (message := self._queue.get()) is not None:
            s = self.settings
            try:
                with smtplib.SMTP(s.host, s.port, timeout=30) as smtp:
                    if s.starttls:
                        smtp.starttls()
                    if s.user:
                        smtp.login(s.user, s.password or "")
                    smtp.send_message(message)
            except (OSError, smtplib.SMTPException) as exc:
                log.warning("cannot send mail to %s through %s:%s: %s", message["To"], s.host, s.port, exc)
            finally:
                self._queue.task_done()



class Notices:
    """The accounts' choices of notices, and the notices themselves (None ``mailer``: the
    app sends no mail; the choices are then refused)."""

    def __init__(self, tables: Tables, mailer: Mailer | None, clock: Callable[[], float] = time.time) -> None:
        self.tables = tables
        self.db = Rows(tables.store)
        self.mailer = mailer
        self.now = clock
        self._looked = -float("inf")
        if mailer is not None:
            tables.after_move.append(self.after_move)
            tables.watchers.append(self.watch)

    # -- the account's choices ----------------------------------------------------------------

    def preferences(self, user: str) -> dict[str, Any]:
        """What the account asked for (``available``: whether this server sends mail)."""
        rows = self.db.query("SELECT address, your_turn, low_time FROM mail_preferences WHERE user_id = :u",
                             {"u": user})
        row = rows[0] if rows else {"address": None, "your_turn": 0, "low_time": 0}
        return {"available": self.mailer is not None, "address": column_text(row["address"]),
                "your_turn": bool(row["your_turn"]), "low_time": bool(row["low_time"])}

    def choose(self, user: str, data: dict[str, Any]) -> dict[str, Any]:
        """Set the address and the notices (``your_turn``, ``low_time``: booleans)."""
        if self.mailer is None:
            raise WebError(409, "this server sends no email (it was started without --smtp)")
        address = data.get("address")
        wants = {key: data.get(key, False) for key in ("your_turn", "low_time")}
        for key, value in wants.items():
            if not isinstance(value, bool):
                raise WebError(400, "{name} is true or false, not {value}", name=key, value=shown(value))
        if not isinstance(address, str) or len(address) > MAX_ADDRESS or not ADDRESS.fullmatch(address.strip()):
            raise WebError(400, "give an email address such as ann@example.org, not {value}", value=shown(address))
        values = {"u": user, "address": address.strip(), "your_turn": int(wants["your_turn"]),
                  "low_time": int(wants["low_time"]), "token": secrets.token_urlsafe(24)}
        with self.db.transaction() as rows:
            if rows.query("SELECT 1 FROM mail_preferences WHERE user_id = :u", {"u": user}):
                rows.execute("UPDATE mail_preferences SET address = :address, your_turn = :your_turn, "
                             "low_time = :low_time WHERE user_id = :u", values)
            else:
                rows.execute("INSERT INTO mail_preferences (user_id, address, your_turn, low_time, token) "
                             "VALUES (:u, :address, :your_turn, :low_time, :token)", values)
        return self.preferences(user)

    def unsubscribe(self, token: str) -> bool:
        """Turn off every notice of the account whose link has ``token``; whether one had it."""
        with self.db.transaction() as rows:
            found = rows.query("SELECT user_id FROM mail_preferences WHERE token = :t", {"t": token})
            if not found:
                return False
            rows.execute("UPDATE mail_preferences SET your_turn = 0, low_time = 0 WHERE token = :t", {"t": token})
        return True

    def known(self, token: str) -> bool:
        return bool(self.db.query("SELECT 1 FROM mail_preferences WHERE token = :t", {"t": token}))

    # -- the notices ----------------------------------------------------------------------------

    def _recipient(self, live: Live, color: str, kind: str) -> tuple[str, str, str] | None:
        """The address, unsubscribe secret and language of ``color``'s player, if they want
        ``kind``."""
        seat = seats.seat_of(live.setup, color)
        if seat is None or not seat.user:
            return None
        rows = self.db.query(f"SELECT m.address, m.token, u.language FROM mail_preferences m "
                             f"JOIN users u ON u.id = m.user_id WHERE m.user_id = :u AND m.{kind} = 1",
                             {"u": seat.user})
        if not rows:
            return None
        language = i18n.known(column_text(rows[0]["language"])) if rows[0]["language"] is not None else None
        return column_text(rows[0]["address"]), column_text(rows[0]["token"]), language or i18n.SOURCE

    def _send(self, live: Live, color: str, kind: str, subject: str, text: str, left: float) -> None:
        """Send ``color``'s player the notice ``kind`` if they want it: ``subject`` and
        ``text`` (catalogue entries with {game} and {left}) in the language of their account."""
        to = self._recipient(live, color, kind)
        if to is None or self.mailer is None:
            return
        address, secret, language = to
        base = self.mailer.settings.public_url.rstrip("/")
        opponent = seats.seat_of(live.setup, other(color))
        values = {"title": spec_of(live.record.game)["title"], "size": str(live.game.size),
                  "name": opponent.name if opponent is not None and opponent.name else ""}
        with i18n.speaking(language):
            game = filled(i18n.gettext(N_("{title} (side {size}) against {name}") if values["name"]
                                       else N_("{title} (side {size})")), values)
            words = {"game": game, "left": control_text(duration(int(left)))}
            unsubscribe = f"{base}/unsubscribe/{secret}"
            footer = filled(i18n.gettext(N_("hexstones. To stop these emails: {link}")), {"link": unsubscribe})
            self.mailer.send(address, filled(i18n.gettext(subject), words),
                             f"{filled(i18n.gettext(text), words)}\n\n{base}/game/{live.record.id}", unsubscribe,
                             footer)

    def after_move(self, live: Live) -> None:
        """After a move of a correspondence game: tell the player now to move."""
        clock = live.clock
        if clock is None or not isinstance(clock.control, Correspondence) or live.over or clock.running is None:
            return
        left = clock.remaining(clock.running, self.now()) or 0.0
        self._send(live, clock.running, "your_turn", N_("Your move: {game}"),
                   N_("It is your move in {game}. Your clock: {left}."), left)

    def watch(self) -> None:
        """:meth:`look`, every :data:`WATCH_SECONDS` at most (the time keeper calls it often)."""
        if time.monotonic() - self._looked < WATCH_SECONDS:
            return
        self._looked = time.monotonic()
        self.look()

    def look(self) -> None:
        """Tell the players whose correspondence time runs low, once a turn."""
        now = self.now()
        horizon = now + Correspondence.MAX_DAYS * 86400 * LOW_SHARE
        rows = self.db.query("SELECT id FROM games WHERE finished = 0 AND deadline IS NOT NULL "
                             "AND deadline <= :horizon", {"horizon": horizon})
        for row in rows:
            try:
                live = self.tables.get(column_text(row["id"]))
            except WebError:
                continue
            with live.lock:
                clock = live.clock
                if (clock is None or not isinstance(clock.control, Correspondence) or clock.running is None
                        or live.over or clock.paused):
                    continue
                left = clock.remaining(clock.running, now) or 0.0
                if left <= 0 or left >= clock.control.per_move * LOW_SHARE:
                    continue
                try:  # once per turn, whichever server process gets here first
                    self.db.execute("INSERT INTO mail_sent (game_id, kind, ply, sent) VALUES (:g, 'low_time', :p, :t)",
                                    {"g": live.record.id, "p": len(live.game.moves), "t": now})
                except Rows.IntegrityError:
                    continue
                self._send(live, clock.running, "low_time", N_("Your time runs low: {game}"),
                           N_("Your clock in {game} shows {left}: move before it runs out."), left)
