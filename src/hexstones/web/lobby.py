"""The lobby: seeks, a person's open offer of a game to anyone, so that people find an
opponent they do not know.

A seek holds the new-game choices of a game against a friend (:func:`seek_choices`: those of
:func:`hexstones.web.setup.parse_setup` less ``opponent`` and ``level``, checked as a game
would check them, so a seek never holds choices its game would refuse) and its maker's seat
holder. Whoever accepts it first gets the other seat of a new game that starts at once:
accepting is one conditional update of the seek's row (``status`` from open to taken), so
with several server processes on one PostgreSQL database one accept wins and the others
get a 409.

A person holds at most :data:`MAX_OPEN` open seeks. A live seek (any time control but
correspondence, or none) lasts while its maker waits for it: while one of the maker's
waiting pages (``/seek/<id>``) is open, its WebSocket beats every :data:`HEARTBEAT_SECONDS`
(``seen``); when the last one closes (``left``), the seek is withdrawn once
:data:`GRACE_SECONDS` pass without one (a reload keeps it), and a seek not seen for
:data:`STALE_SECONDS` (its server process died) is withdrawn too. Those withdrawals are made
by :meth:`Lobby.sweep`, which every look at the lobby runs first (a list, an accept, a new
seek) and which every open lobby or waiting page runs each :data:`SWEEP_SECONDS`: no seek a
person can see or accept is one its maker left. A correspondence seek (``days:N``) stays
until it is taken or withdrawn. A seek taken or withdrawn is deleted :data:`FORGET_AFTER`
after it was made (when a new seek is made).

Each change is announced when it commits: on :data:`LOBBY_TOPIC` (the lobby pages refetch
the list) and on the seek's :func:`seek_topic` (its waiting pages). The events name the seek
only; a seek's game is told to its maker alone (:meth:`Seek.public`), so a private game's
address does not reach the lobby. Times are the app's clock (``AppSettings.clock``).
The table is made by the migration r0007_seeks.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import secrets
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import anyio
import sqlalchemy as sa
from starlette.concurrency import run_in_threadpool

from hexstones.games import BLACK, WHITE, other
from hexstones.session import Correspondence
from hexstones.web import seats
from hexstones.web.accounts import Identity
from hexstones.web.errors import WebError, only_known, shown
from hexstones.web.game_setup import GameSetup, Holder
from hexstones.web.live import Tables
from hexstones.web.online import People
from hexstones.web.setup import CHOICES, NewGame, parse_setup
from hexstones.web.spec import balance_of, spec_of

log = logging.getLogger("hexstones.web")

MAX_OPEN = 5  # open seeks one person may hold at once
STALE_SECONDS = 60.0  # a live seek not seen this long is withdrawn (its server process died)
GRACE_SECONDS = 10.0  # after the maker's last waiting page closed: a reload keeps the seek
HEARTBEAT_SECONDS = 3.0  # between beats of an open waiting page: well within the grace
SWEEP_SECONDS = 10.0  # between sweeps while a lobby or waiting page is open in a process
FORGET_AFTER = 7 * 86400  # a seek taken or withdrawn is deleted this long after it was made
LOBBY_TOPIC = "lobby"
SEEK_CHOICES = tuple(c for c in CHOICES if c not in ("opponent", "level"))
OPEN, TAKEN, WITHDRAWN = "open", "taken", "withdrawn"

seeks_table = sa.Table(
    "seeks", sa.MetaData(),
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("maker", sa.Text, nullable=False),  # JSON: Holder.to_dict
    sa.Column("maker_key", sa.Text, nullable=False),  # "user:<id>" or "session:<id>"
    sa.Column("game", sa.Text, nullable=False),
    sa.Column("choices", sa.Text, nullable=False),  # JSON: the new-game choices, less the opponent
    sa.Column("status", sa.Text, nullable=False),
    sa.Column("game_id", sa.Text),
    sa.Column("live", sa.Integer, nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("seen", sa.Float, nullable=False),
    sa.Column("left", sa.Float),
)
_c = seeks_table.c


def seek_topic(seek_id: str) -> str:
    return f"seek:{seek_id}"


def maker_key(holder: Holder) -> str:
    """Whose seeks count together: an account's (any of its sessions), or one session's."""
    return f"user:{holder.user}" if holder.user else f"session:{holder.session}"


def seek_choices(data: dict[str, Any]) -> tuple[dict[str, Any], NewGame]:
    """A seek's choices, checked as its game's would be, and the game they make; a 400 saying
    what is wrong (an opponent, an unknown choice, a choice the game refuses)."""
    if "opponent" in data:
        raise WebError(400, "a seek's opponent is whoever accepts it: leave out opponent")
    only_known(data, SEEK_CHOICES, "seek choice")
    return dict(data), parse_setup({**data, "opponent": "friend"})


def _text(value: Any) -> Any:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


@dataclass(frozen=True)
class Seek:
    """One stored seek (see the module)."""

    id: str
    maker: Holder
    game: str
    choices: dict[str, Any]
    status: str
    game_id: str | None
    live: bool
    created: float

    @classmethod
    def of_row(cls, row: Any) -> Seek:
        maker = Holder.from_dict(json.loads(_text(row["maker"])), "maker") or Holder()
        return cls(_text(row["id"]), maker, _text(row["game"]), json.loads(_text(row["choices"])),
                   _text(row["status"]), _text(row["game_id"]), bool(row["live"]), float(row["created"]))

    def public(self, who: Identity | None) -> dict[str, Any]:
        """What anyone may see of it (``text``: all it offers, in words); ``game_id`` (the
        game it started) only to its maker."""
        _, new = seek_choices(self.choices)
        options, setup = new.options, new.setup
        balance = balance_of(new.game)
        control = setup.time_control
        mine = seats.holds(self.maker, who)
        balance_text = ("komi pie" if setup.pie is not None
                        else f"{balance['short']} {options[balance['option']]}")
        color = None if setup.pie is not None else str(self.choices.get("color") or "random").strip().lower()
        clock_text = control.describe() if control is not None else "no time limit"
        words = [f"{spec_of(new.game)['title']}, board side {options['size']}", balance_text, clock_text,
                 "rated" if setup.rated else "casual", "public" if setup.public else "private"]
        if color != "random" and color is not None:
            words.append(f"the maker plays {color}")
        return {
            "id": self.id, "game": new.game, "title": spec_of(new.game)["title"], "size": options["size"],
            "options": options, "pie": setup.pie is not None,
            "balance": balance_text, "color": color,
            "clock": control.text if control is not None else "none", "clock_text": clock_text,
            "correspondence": not self.live, "rated": setup.rated, "public": setup.public,
            "maker": self.maker.name, "yours": mine, "status": self.status,
            "game_id": self.game_id if mine else None, "created": self.created, "text": ", ".join(words),
        }


class Lobby:
    """The seeks of one app, in its games database (see the module)."""

    def __init__(self, tables: Tables, clock: Callable[[], float] = time.time) -> None:
        self.tables = tables
        self.store = tables.store
        self.clock = clock
        self._pages: dict[str, int] = {}  # seek id -> the maker's waiting pages open in this process
        self._last_sweep = float("-inf")  # time.monotonic() of this process's last periodic sweep

    # -- reading ------------------------------------------------------------------------

    def get(self, seek_id: str) -> Seek:
        """The seek ``seek_id`` (a 404 naming an unknown one)."""
        with self.store.reading() as connection:
            row = connection.execute(sa.select(seeks_table).where(_c.id == seek_id)).first()
        if row is None:
            raise WebError(404, f"no seek with id {shown(seek_id)}: check the link (a seek taken or "
                                f"withdrawn is forgotten after a week)")
        return Seek.of_row(row._mapping)

    def open_seeks(self) -> list[Seek]:
        """The open seeks, newest first, after a sweep (none its maker left is listed)."""
        self.sweep()
        with self.store.reading() as connection:
            rows = connection.execute(sa.select(seeks_table).where(_c.status == OPEN)
                                      .order_by(_c.created.desc(), _c.id)).all()
        return [Seek.of_row(row._mapping) for row in rows]

    def listing(self, who: Identity | None) -> list[dict[str, Any]]:
        """The open seeks as ``who`` sees them; one whose choices no longer make a game (a
        newer app's) is logged and left out."""
        shown_ = []
        for seek in self.open_seeks():
            try:
                shown_.append(seek.public(who))
            except WebError as exc:
                log.warning("seek %s is not listed: %s", seek.id, exc.message)
        return shown_

    # -- changing -----------------------------------------------------------------------

    def make(self, who: Identity, data: dict[str, Any]) -> Seek:
        """A new open seek of ``who`` (a 400 for a bad choice, a 409 beyond MAX_OPEN)."""
        choices, new = seek_choices(data)
        maker = seats.holder(who)
        live = not isinstance(new.setup.time_control, Correspondence)
        self.sweep()  # a seek its maker left counts no more
        now = self.clock()
        seek_id = secrets.token_hex(12)
        with self.store.transaction() as tx:
            tx.connection.execute(seeks_table.delete().where(_c.status != OPEN,
                                                             _c.created < now - FORGET_AFTER))
            held = tx.connection.execute(sa.select(sa.func.count()).select_from(seeks_table).where(
                _c.maker_key == maker_key(maker), _c.status == OPEN)).scalar() or 0
            if held >= MAX_OPEN:
                raise WebError(409, f"you have {held} open seeks, the most one person may hold at once: "
                                    f"withdraw one before making another")
            tx.connection.execute(seeks_table.insert().values(
                id=seek_id, maker=json.dumps(maker.to_dict()), maker_key=maker_key(maker), game=new.game,
                choices=json.dumps(choices), status=OPEN, game_id=None, live=int(live), created=now,
                seen=now, left=None))
            tx.announce(LOBBY_TOPIC, {"change": "open", "seek": seek_id})
            tx.announce(seek_topic(seek_id), {"change": "open", "seek": seek_id})
        return Seek(seek_id, maker, new.game, choices, OPEN, None, live, now)

    def withdraw(self, seek_id: str, who: Identity | None) -> Seek:
        """Withdraw an open seek: its maker only (403), a 409 once taken or withdrawn."""
        seek = self.get(seek_id)
        seats.require_someone(who)
        if not seats.holds(seek.maker, who):
            raise WebError(403, "only the person who made a seek may withdraw it")
        if not self._close(seek_id, WITHDRAWN, sa.true()):
            raise self._closed(seek_id)
        return self.get(seek_id)

    def acceptable(self, seek_id: str, who: Identity | None) -> Seek:
        """The seek, if ``who`` may accept it now: a 404 for an unknown one, a 409 for one's
        own, or one taken or withdrawn (checked before the accepter is given a session)."""
        self.sweep()
        seek = self.get(seek_id)
        if seats.holds(seek.maker, who):
            raise WebError(409, "this is your own seek: wait for someone to accept it, or withdraw it")
        if seek.status != OPEN:
            raise self._closed(seek_id)
        return seek

    def accept(self, seek_id: str, who: Identity) -> str:
        """``who`` accepts the seek: the id of the game it starts, both seats filled (the
        maker's colour, if random, is drawn now). Of two accepts at once, in this process or
        another, the first to update the seek's row wins; the other gets a 409 and its game
        is deleted."""
        seek = self.acceptable(seek_id, who)
        maker, accepter = seek.maker, seats.holder(who)
        choices = dict(seek.choices, opponent="friend")
        if choices.get("color") in (None, "random"):
            choices["color"] = random.choice((BLACK, WHITE))

        def claim(setup: GameSetup, host_color: str | None) -> GameSetup:
            if setup.pie is not None:
                held: dict[str, Holder | None] = {"proposer": maker, "chooser": accepter}
            else:
                color = host_color or BLACK
                held = {color: maker, other(color): accepter}
            return setup.replace(owner=maker, seats=held, invite=None)

        game_id = self.tables.create(choices, claim=claim)["id"]
        if not self._close(seek_id, TAKEN, sa.true(), game_id):
            try:
                self.tables.delete(game_id)  # the game of an accept that lost
            except WebError as exc:
                log.warning("the game %s of a lost accept stays: %s", game_id, exc.message)
            raise self._closed(seek_id)
        # The maker's open lists of games hear of it as if they had started it themselves.
        topic = People.topics(Identity(maker.session or "", maker.user, maker.name))[0]
        self.store.broker.publish(topic, {"game": game_id, "change": "seated"})
        return game_id

    def _close(self, seek_id: str, status: str, condition: Any, game_id: str | None = None) -> bool:
        """Move an open seek to ``status`` if ``condition`` holds, announcing it; whether
        this call did (False: it was no longer open, or the condition failed)."""
        with self.store.transaction() as tx:
            changed = tx.connection.execute(
                seeks_table.update().where(_c.id == seek_id, _c.status == OPEN, condition)
                .values(status=status, game_id=game_id)).rowcount
            if changed:
                for topic in (LOBBY_TOPIC, seek_topic(seek_id)):
                    tx.announce(topic, {"change": status, "seek": seek_id})
        return bool(changed)

    def _closed(self, seek_id: str) -> WebError:
        """The 409 for a seek that is no longer open, saying why."""
        status = self.get(seek_id).status
        if status == TAKEN:
            return WebError(409, "this seek is already taken: someone accepted it first")
        return WebError(409, "this seek was withdrawn: it is no longer open")

    # -- the maker's presence ---------------------------------------------------------------

    def sweep(self) -> list[str]:
        """Withdraw the live seeks whose maker left: the last waiting page closed more than
        GRACE_SECONDS ago, or none beat for STALE_SECONDS. The ids withdrawn (here)."""
        now = self.clock()
        gone = sa.and_(_c.live == 1, sa.or_(_c.seen < now - STALE_SECONDS,
                                            sa.and_(_c.left.is_not(None), _c.left < now - GRACE_SECONDS)))
        with self.store.reading() as connection:  # most sweeps find none: no write lock taken
            ids = [_text(i) for i in connection.execute(sa.select(_c.id).where(_c.status == OPEN, gone)).scalars()]
        return [seek_id for seek_id in ids if self._close(seek_id, WITHDRAWN, gone)]

    def beat(self, seek_id: str) -> None:
        """A waiting page of the maker is open: the seek is seen now, and not left."""
        with self.store.transaction() as tx:
            tx.connection.execute(seeks_table.update().where(_c.id == seek_id, _c.status == OPEN)
                                  .values(seen=self.clock(), left=None))

    def leave(self, seek_id: str) -> None:
        """The maker's last waiting page in this process closed: the grace starts (a page
        open elsewhere clears it with its next beat)."""
        with self.store.transaction() as tx:
            tx.connection.execute(seeks_table.update().where(_c.id == seek_id, _c.status == OPEN)
                                  .values(left=self.clock()))

    def sweep_now_and_then(self) -> None:
        """:meth:`sweep`, at most once every SWEEP_SECONDS in this process."""
        now = time.monotonic()
        if now - self._last_sweep >= SWEEP_SECONDS:
            self._last_sweep = now
            self.sweep()

    async def sweeping(self) -> None:
        """Sweep every SWEEP_SECONDS until cancelled (while a page is open here)."""
        while True:
            await self._quietly(self.sweep_now_and_then)
            await asyncio.sleep(SWEEP_SECONDS)

    @contextlib.asynccontextmanager
    async def maker_page(self, seek_id: str) -> AsyncIterator[None]:
        """While in the block, a waiting page of the seek's maker is open here: it beats
        every HEARTBEAT_SECONDS; when the last one here closes, the seek is left."""
        self._pages[seek_id] = self._pages.get(seek_id, 0) + 1

        async def beating() -> None:
            while True:
                await self._quietly(self.beat, seek_id)
                await self._quietly(self.sweep_now_and_then)
                await asyncio.sleep(HEARTBEAT_SECONDS)

        beats = asyncio.create_task(beating())
        try:
            yield
        finally:
            self._pages[seek_id] -= 1
            beats.cancel()
            # Shielded: a connection that ends by cancellation is left all the same.
            with anyio.CancelScope(shield=True):
                with contextlib.suppress(asyncio.CancelledError):
                    await beats  # a beat under way ends first: it would clear the leaving
                if not self._pages.get(seek_id):
                    self._pages.pop(seek_id, None)
                    await self._quietly(self.leave, seek_id)

    @staticmethod
    async def _quietly(fn: Callable[..., Any], *args: Any) -> None:
        """``fn(*args)`` in a worker thread; a failure (the database away) is logged: the
        next beat or sweep tries again."""
        try:
            await run_in_threadpool(fn, *args)
        except Exception as exc:  # noqa: BLE001
            log.warning("the lobby: %s failed (%s); trying again later", getattr(fn, "__name__", fn), exc)


_making = threading.Lock()


def lobby_of(app: Any) -> Lobby:
    """The app's lobby (``app.state.lobby``), made at its first use."""
    state = app.state
    lobby = getattr(state, "lobby", None)
    if lobby is None:
        with _making:
            lobby = getattr(state, "lobby", None)
            if lobby is None:
                lobby = state.lobby = Lobby(state.tables, state.settings.clock)
    return lobby
