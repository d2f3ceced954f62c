"""Chat beside a game between two people online: the players write, spectators read.

Only a game against a friend (its setup has seats) has a chat; a game at one screen or
against the AI is refused with a 409. The players write; a spectator (anyone with the
game's address who holds no seat) reads, and writes only while both players allow it:
each seat has its own switch "let spectators write" (``spectators_may_write``). A player
may mute the other seat: its messages are then left out of what that player is shown
(they stay stored; unmuting shows them again; the muting is the muter's alone).

A message is text of 1 to :data:`MAX_TEXT` characters, one or more lines (spaces around
it trimmed, line ends as ``\\n``); a person sends at most :data:`RATE_LIMIT` messages in
:data:`RATE_WINDOW` seconds (a 429 beyond). Its ``id`` counts the game's messages from 1:
each new one is numbered under the game's row lock, so two server processes on one
PostgreSQL database never take the same number, and a database copied elsewhere
(``hexstones db copy``) goes on numbering after its last message (a serial column's
sequence would not travel). Times are the app's clock (``AppSettings.clock``).

Each change is announced when it commits, on the game's :func:`chat_topic` (not the game's
own topic: a message must not make every page refetch the game): ``{"chat": id, "message":
n}`` for a new message, ``{"chat": id, "change": "settings"}`` for a switch or a mute. The
events carry no text; each page then asks for what it may see. The tables are made by the
migration r0008_chat; a deleted game's chat goes with it (``ON DELETE CASCADE``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from hexstones.web import seats
from hexstones.web.accounts import Identity
from hexstones.web.errors import WebError, shown
from hexstones.web.game_setup import GameSetup, Holder
from hexstones.web.i18n import N_
from hexstones.web.limits import RateLimit
from hexstones.web.rows import column_text
from hexstones.web.store import LOCK_GAME, Store

MAX_TEXT = 500  # characters of one message
MAX_SHOWN = 200  # the newest messages one answer holds
RATE_LIMIT, RATE_WINDOW = 10, 10.0  # messages one person may send, per this many seconds
SPECTATOR = "spectator"  # the role of a message written by someone who holds no seat
# Control characters other than a line break or a tab are refused: they show as nothing,
# or move the text about.
_CONTROLS = {chr(c) for c in range(32) if chr(c) not in "\n\t"} | {chr(127)}

# The tables as the queries see them; the migration makes them, with their foreign keys.
_metadata = sa.MetaData()
messages_table = sa.Table(
    "chat_messages", _metadata,
    sa.Column("game_id", sa.Text, primary_key=True),
    sa.Column("id", sa.Integer, primary_key=True),  # 1, 2, ... within the game
    sa.Column("author", sa.Text, nullable=False),  # JSON: Holder.to_dict of who wrote it
    sa.Column("role", sa.Text, nullable=False),  # the author's seat, or "spectator"
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("sent", sa.Float, nullable=False),
)
settings_table = sa.Table(
    "chat_settings", _metadata,
    sa.Column("game_id", sa.Text, primary_key=True),
    sa.Column("role", sa.Text, primary_key=True),  # a seat of the game: black, white, proposer, chooser
    sa.Column("spectators_may_write", sa.Integer, nullable=False),
    sa.Column("mute", sa.Integer, nullable=False),  # 1: this seat's player hides the other seat's messages
)
_m, _s = messages_table.c, settings_table.c


def chat_topic(game_id: str) -> str:
    return f"chat:{game_id}"


def message_text(value: Any) -> str:
    """``value`` as a message's text (see the module); a 400 saying what is wrong."""
    if not isinstance(value, str):
        raise WebError(400, 'the message\'s text must be a string: {"text": "..."}, not {value}', value=shown(value))
    text = value.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        raise WebError(400, "the message is empty: write some text before sending it")
    if len(text) > MAX_TEXT:
        raise WebError(400, "the message has {length} characters, more than the {most} "
                            "one message may hold: shorten it or send it in parts", length=len(text), most=MAX_TEXT)
    if any(c in _CONTROLS for c in text):
        raise WebError(400, "the message holds a control character: send plain text (line breaks "
                            "and tabs are fine)")
    return text



@dataclass(frozen=True)
class Seat:
    """Where a person stands in a game's chat: their seat (None: a spectator) and the
    game's seats (two roles: colours, or the komi pie's proposer and chooser)."""

    role: str | None
    roles: tuple[str, ...]

    @classmethod
    def of(cls, setup: GameSetup, who: Identity | None) -> Seat:
        """``who``'s place in the game's chat; a 409 for a game that has none."""
        if setup.seats is None:
            raise WebError(409, "this game has no chat: a chat is between two people playing online, "
                                "not at one screen or against the AI")
        role = next((r for r, seat in setup.seats.items() if seats.holds(seat, who)), None)
        return cls(role, tuple(setup.seats))

    @property
    def opponent(self) -> str | None:
        return next((r for r in self.roles if r != self.role), None) if self.role else None


class Chat:
    """The chats of one app's games, in its games database (see the module)."""

    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        self.sending = RateLimit(RATE_LIMIT, RATE_WINDOW, N_("too many chat messages: at most {limit} every "
                                                              "{window} s; try again in {seconds} s"))

    # -- reading ------------------------------------------------------------------------

    def read(self, game_id: str, setup: GameSetup, who: Identity | None, since: int = 0) -> dict[str, Any]:
        """What ``who`` sees of the game's chat: the newest MAX_SHOWN messages after
        ``since`` (a message id) less those of a seat they mute, ``last`` (the newest id
        stored, shown or not), and what they may do."""
        place = Seat.of(setup, who)
        with self.store.reading() as connection:
            switches = self._switches(connection, game_id)
            muted = place.opponent if place.role and self._on(switches, place.role, "mute") else None
            query = sa.select(messages_table).where(_m.game_id == game_id, _m.id > since)
            if muted is not None:
                query = query.where(_m.role != muted)
            rows = connection.execute(query.order_by(_m.id.desc()).limit(MAX_SHOWN)).all()
            last = connection.execute(sa.select(sa.func.max(_m.id)).where(_m.game_id == game_id)).scalar()
        allows = {role: self._on(switches, role, "spectators_may_write") for role in place.roles}
        open_to_spectators = all(allows.values())
        return {
            "messages": [self._shown(row._mapping, who) for row in reversed(rows)],
            "last": last or 0,
            "role": place.role,
            "player": place.role is not None,
            "can_write": place.role is not None or (open_to_spectators and who is not None),
            "spectators_may_write": open_to_spectators,
            "allows": allows,
            "mute": muted is not None,
        }

    @staticmethod
    def _switches(connection: sa.Connection, game_id: str) -> dict[str, Any]:
        """The game's rows of switches by seat."""
        return {column_text(row.role): row for row in connection.execute(
            sa.select(settings_table).where(_s.game_id == game_id))}

    @classmethod
    def _allows(cls, connection: sa.Connection, game_id: str, place: Seat) -> dict[str, bool]:
        """Whether each seat lets spectators write."""
        switches = cls._switches(connection, game_id)
        return {role: cls._on(switches, role, "spectators_may_write") for role in place.roles}

    @staticmethod
    def _on(switches: dict[str, Any], role: str, name: str) -> bool:
        row = switches.get(role)
        return bool(row is not None and getattr(row, name))

    @staticmethod
    def _shown(row: Any, who: Identity | None) -> dict[str, Any]:
        author = Holder.from_dict(json.loads(column_text(row["author"])), "author") or Holder()
        return {"id": row["id"], "author": author.name, "role": column_text(row["role"]),
                "you": seats.holds(author, who), "sent": row["sent"], "text": column_text(row["text"])}

    # -- changing -----------------------------------------------------------------------

    def send(self, game_id: str, setup: GameSetup, who: Identity | None, text: str) -> dict[str, Any]:
        """Store ``who``'s message (``text`` checked by :func:`message_text`), as they see it:
        a 401 without a session, a 403 for a spectator unless both players allow it, a 429
        beyond the rate limit."""
        place = Seat.of(setup, who)
        if who is None:
            raise WebError(401, "to write in the chat, this browser needs a session: sign in, or open "
                                "the game's invitation link (this browser has none here, or it expired)")
        author = seats.holder(who)
        now = self.clock()
        with self.store.transaction() as tx:
            self._lock(tx.connection, game_id)  # also: no switch turns off while this is checked
            if place.role is None and not all(self._allows(tx.connection, game_id, place).values()):
                raise WebError(403, "only the players write in this chat: spectators read, and may write "
                                    "only while both players allow it")
            self.sending.take(who.user or who.session)
            number = (tx.connection.execute(sa.select(sa.func.max(_m.id)).where(_m.game_id == game_id))
                      .scalar() or 0) + 1
            tx.connection.execute(messages_table.insert().values(
                game_id=game_id, id=number, author=json.dumps(author.to_dict()),
                role=place.role or SPECTATOR, text=text, sent=now))
            tx.announce(chat_topic(game_id), {"chat": game_id, "message": number})
        return {"id": number, "author": author.name, "role": place.role or SPECTATOR, "you": True,
                "sent": now, "text": text}

    def settle(self, game_id: str, setup: GameSetup, who: Identity | None,
               spectators_may_write: bool | None, mute: bool | None) -> dict[str, Any]:
        """Set the switches of ``who``'s own seat (None: left as they are), then what they
        see (:meth:`read`): a 401 without a session, a 403 for a spectator."""
        place = Seat.of(setup, who)
        seats.require_someone(who)
        if place.role is None:
            raise WebError(403, "only the players set the chat's switches: you are watching this game")
        changes = {name: int(value) for name, value in
                   (("spectators_may_write", spectators_may_write), ("mute", mute)) if value is not None}
        with self.store.transaction() as tx:
            self._lock(tx.connection, game_id)  # two first changes at once: one row made
            mine = sa.and_(_s.game_id == game_id, _s.role == place.role)
            if tx.connection.execute(sa.select(_s.role).where(mine)).first() is None:
                tx.connection.execute(settings_table.insert().values(
                    game_id=game_id, role=place.role, **{"spectators_may_write": 0, "mute": 0, **changes}))
            else:
                tx.connection.execute(settings_table.update().where(mine).values(**changes))
            tx.announce(chat_topic(game_id), {"chat": game_id, "change": "settings"})
        return self.read(game_id, setup, who)

    @staticmethod
    def _lock(connection: sa.Connection, game_id: str) -> None:
        """Lock the game's row until the commit (PostgreSQL; SQLite's writes take turns
        anyway); a 404 for a game deleted meanwhile."""
        if connection.execute(LOCK_GAME, {"game_id_": game_id}).first() is None:
            raise WebError(404, "no game with id {game}", game=shown(game_id))




def chat_of(app: Any) -> Chat:
    """The app's chats (``app.state.chat``, made with the app)."""
    return app.state.chat
