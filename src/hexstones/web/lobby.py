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
seek) and which the app's time keeper runs each :data:`SWEEP_SECONDS`: no seek a
person can see or accept is one its maker left. A correspondence seek (``days:N``) stays
until it is taken or withdrawn. A seek taken or withdrawn is deleted :data:`FORGET_AFTER`
after it was made (when a new seek is made).

Each change is announced when it commits: on :data:`LOBBY_TOPIC` (the lobby pages refetch
the list) and on the seek's :func:`seek_topic` (its waiting pages). The events name the seek
only; a seek's game is told to its maker alone (:meth:`Seek.public`), so a private game's
address does not reach the lobby. Times are the app's clock (``AppSettings.clock``).

A **challenge** is a seek addressed to one account (``to_user``, found by its name): it is
not listed in the lobby, only to the person challenged (who alone may accept or decline
it: 403 for anyone else) and to its maker (who may withdraw it). Accepting it is a seek's
accept (one conditional update decides). It does not go when its maker leaves (``live`` is
0, as for a correspondence seek) but expires :data:`CHALLENGE_SECONDS` after it was made
(a sweep closes it). Its changes are announced on :data:`LOBBY_TOPIC` only when taken (a
game started: the watch pages refetch), and always on its :func:`seek_topic` and on the
:func:`~hexstones.web.broker.user_topic` of both people, whose lobby and start pages hear
``{"change": "challenge", "seek": id}`` when one arrives.

:func:`watch_list` is the live public games, for the watch page.

The table is made by the migration r0007_seeks.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import random
import secrets
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
from hexstones.web.accounts import Identity, name_key
from hexstones.web.bots import Bots
from hexstones.web.broker import user_topic
from hexstones.web.errors import Phrase, WebError, choice, only_known, shown
from hexstones.web.game_setup import GameSetup, Holder
from hexstones.web.i18n import gettext
from hexstones.web.live import Tables
from hexstones.web.online import People
from hexstones.web.ratings import Ratings
from hexstones.web.rows import column_text
from hexstones.web.setup import CHOICES, NewGame, parse_setup
from hexstones.web.spec import balance_of, spec_of
from hexstones.web.texts import control_text
from hexstones.web.view import clock_view

log = logging.getLogger("hexstones.web")

MAX_OPEN = 5  # open seeks one person may hold at once
STALE_SECONDS = 60.0  # a live seek not seen this long is withdrawn (its server process died)
GRACE_SECONDS = 10.0  # after the maker's last waiting page closed: a reload keeps the seek
HEARTBEAT_SECONDS = 3.0  # between beats of an open waiting page: well within the grace
SWEEP_SECONDS = 10.0  # between the time keeper's sweeps in a process
FORGET_AFTER = 7 * 86400  # a seek taken or withdrawn is deleted this long after it was made
CHALLENGE_SECONDS = 86400.0  # an open challenge expires this long after it was made
BOTS_AFTER_SECONDS = 30.0  # a seek open to the AI's accounts ("bots") waits this long for a person
LOBBY_TOPIC = "lobby"
SEEK_CHOICES = tuple(c for c in CHOICES if c not in ("opponent", "level"))
OPEN, TAKEN, WITHDRAWN, DECLINED, EXPIRED = "open", "taken", "withdrawn", "declined", "expired"

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
    sa.Column("to_user", sa.Text),  # a challenge: the id of the account challenged; NULL: a seek
    sa.Column("to_name", sa.Text),  # a challenge: that account's name
)
_c = seeks_table.c


def seek_topic(seek_id: str) -> str:
    return f"seek:{seek_id}"


def maker_key(holder: Holder) -> str:
    """Whose seeks count together: an account's (any of its sessions), or one session's."""
    return f"user:{holder.user}" if holder.user else f"session:{holder.session}"


def seek_choices(data: dict[str, Any], kind: str = "seek") -> tuple[dict[str, Any], NewGame]:
    """A seek's (or a challenge's: ``kind``) choices, checked as its game's would be, and the
    game they make; a 400 saying what is wrong (an opponent, an unknown choice, a choice the
    game refuses)."""
    if "opponent" in data:
        if kind == "seek":
            raise WebError(400, "a seek's opponent is whoever accepts it: leave out opponent")
        raise WebError(400, "a challenge's opponent is the player named in 'to': leave out opponent")
    only_known(data, (*SEEK_CHOICES, "bots") if kind == "seek" else SEEK_CHOICES, f"{kind} choice")
    choices = dict(data)
    if "bots" in choices and not isinstance(choices["bots"], bool):  # a seek's own choice, not its game's
        choices["bots"] = choice(choices["bots"], "bots", ("yes", "no", "1", "0", "true", "false"),
                                 "no") in ("yes", "1", "true")
    return choices, parse_setup({**game_choices(data), "opponent": "friend"})


def game_choices(choices: dict[str, Any]) -> dict[str, Any]:
    """A seek's choices that its game takes: all but the seek's own (``bots``)."""
    return {key: value for key, value in choices.items() if key != "bots"}


def person_topic(holder: Holder) -> str:
    """Where a person's open pages hear of their seeks and games: their account's topic,
    or their session's (:meth:`People.topics`)."""
    return People.topics(Identity(holder.session or "", holder.user, holder.name))[0]



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
    to_user: str | None = None  # a challenge: the account challenged
    to_name: str | None = None

    @property
    def challenge(self) -> bool:
        return self.to_user is not None

    @property
    def kind(self) -> str:
        return "challenge" if self.challenge else "seek"

    @property
    def bots(self) -> bool:
        """Whether the AI's accounts may take it when no person has (``bots`` choice)."""
        return bool(self.choices.get("bots"))

    @classmethod
    def of_row(cls, row: Any) -> Seek:
        maker = Holder.from_dict(json.loads(column_text(row["maker"])), "maker") or Holder()
        return cls(column_text(row["id"]), maker, column_text(row["game"]), json.loads(column_text(row["choices"])),
                   column_text(row["status"]), column_text(row["game_id"]), bool(row["live"]), float(row["created"]),
                   column_text(row["to_user"]), column_text(row["to_name"]))

    def topics(self) -> list[str]:
        """Where its changes are told: its waiting pages; a challenge's two people's pages."""
        if not self.challenge:
            return [seek_topic(self.id)]
        return [seek_topic(self.id), person_topic(self.maker), user_topic(self.to_user or "")]

    def public(self, who: Identity | None) -> dict[str, Any]:
        """What anyone may see of it (``text``: all it offers, in words); ``game_id`` (the
        game it started) only to its maker (and to a challenge's player challenged)."""
        _, new = seek_choices(self.choices, self.kind)
        options, setup = new.options, new.setup
        balance = balance_of(new.game)
        control = setup.time_control
        mine = seats.holds(self.maker, who)
        to_you = self.challenge and who is not None and who.user == self.to_user
        # In the request's language (English, the bots' and the API's, by default).
        balance_text = (gettext("komi pie") if setup.pie is not None
                        else f"{gettext(balance['short'])} {options[balance['option']]}")
        color = None if setup.pie is not None else str(self.choices.get("color") or "random").strip().lower()
        clock_text = control_text(control.describe()) if control is not None else gettext("no time limit")
        board = gettext("%(game)s, board side %(size)s") % {"game": spec_of(new.game)["title"], "size": options["size"]}
        words = [board, balance_text, clock_text,
                 gettext("rated") if setup.rated else gettext("casual"),
                 gettext("public") if setup.public else gettext("private")]
        if color != "random" and color is not None:
            said = gettext(color) if color in (BLACK, WHITE) else color
            words.append(gettext("the maker plays %(color)s") % {"color": said})
        if self.bots:
            after = f"{BOTS_AFTER_SECONDS:.0f}"
            words.append(gettext("the AI takes it if nobody has in %(seconds)s s") % {"seconds": after})
        return {
            "id": self.id, "game": new.game, "title": spec_of(new.game)["title"], "size": options["size"],
            "options": options, "pie": setup.pie is not None,
            "balance": balance_text, "color": color,
            "clock": control.text if control is not None else "none", "clock_text": clock_text,
            "correspondence": isinstance(control, Correspondence), "rated": setup.rated,
            "public": setup.public, "maker": self.maker.name, "yours": mine, "status": self.status,
            "game_id": self.game_id if mine or to_you else None, "created": self.created,
            "text": ", ".join(words), "challenge": self.challenge, "to": self.to_name, "to_you": to_you,
            "expires": self.created + CHALLENGE_SECONDS if self.challenge else None, "bots": self.bots,
        }


class Lobby:
    """The seeks of one app, in its games database (see the module)."""

    def __init__(self, tables: Tables, clock: Callable[[], float] = time.time,
                 ratings: Ratings | None = None, bots: Bots | None = None) -> None:
        self.tables = tables
        self.bots = bots  # the AI's accounts, which answer their challenges at once
        self.ratings = ratings  # the makers' ratings shown beside their seeks
        self.store = tables.store
        self.clock = clock
        self._pages: dict[str, int] = {}  # seek id -> the maker's waiting pages open in this process
        self._last_sweep = float("-inf")  # time.monotonic() of this process's last periodic sweep
        tables.watchers.append(self.sweep_now_and_then)  # run by the time keeper's thread

    # -- reading ------------------------------------------------------------------------

    def get(self, seek_id: str) -> Seek:
        """The seek ``seek_id`` (a 404 naming an unknown one)."""
        with self.store.reading() as connection:
            row = connection.execute(sa.select(seeks_table).where(_c.id == seek_id)).first()
        if row is None:
            raise WebError(404, "no seek or challenge with id {seek}: check the link (one "
                                "closed is forgotten after a week)", seek=shown(seek_id))
        return Seek.of_row(row._mapping)

    def get_challenge(self, seek_id: str) -> Seek:
        """The challenge ``seek_id`` (a 404 naming an unknown one, or a seek)."""
        seek = self.get(seek_id)
        if not seek.challenge:
            raise WebError(404, "{seek} is a seek, not a challenge: use /api/seeks/{id}", seek=shown(seek_id),
                           id=seek_id)
        return seek

    def open_seeks(self) -> list[Seek]:
        """The open seeks, newest first, after a sweep (none its maker left is listed)."""
        self.sweep()
        with self.store.reading() as connection:
            rows = connection.execute(sa.select(seeks_table).where(_c.status == OPEN, _c.to_user.is_(None))
                                      .order_by(_c.created.desc(), _c.id)).all()
        return [Seek.of_row(row._mapping) for row in rows]

    def listing(self, who: Identity | None) -> list[dict[str, Any]]:
        """The open seeks as ``who`` sees them; one whose choices no longer make a game (a
        newer app's) is logged and left out."""
        shown_ = []
        for seek in self.open_seeks():
            try:
                shown_.append(self._with_rating(seek, seek.public(who)))
            except WebError as exc:
                log.warning("seek %s is not listed: %s", seek.id, exc.message)
        return shown_

    def _with_rating(self, seek: Seek, shown_: dict[str, Any]) -> dict[str, Any]:
        """``shown_`` with ``maker_rating``: the maker's rating in the seek's game (None for a
        guest, who has none)."""
        rating = None
        if self.ratings is not None and seek.maker.user:
            rating = self.ratings.of(seek.maker.user)[shown_["game"]]
        return dict(shown_, maker_rating=rating)

    def challenges(self, who: Identity | None) -> dict[str, list[dict[str, Any]]]:
        """The open challenges to ``who`` (``to_you``) and made by them (``from_you``),
        newest first, after a sweep (none expired is listed)."""
        self.sweep()
        found: dict[str, list[dict[str, Any]]] = {"to_you": [], "from_you": []}
        if who is None:
            return found
        mine = sa.or_(_c.maker_key == maker_key(seats.holder(who)),
                      _c.to_user == who.user if who.user else sa.false())
        with self.store.reading() as connection:
            rows = connection.execute(sa.select(seeks_table).where(_c.status == OPEN, _c.to_user.is_not(None), mine)
                                      .order_by(_c.created.desc(), _c.id)).all()
        for row in rows:
            seek = Seek.of_row(row._mapping)
            try:
                shown_ = seek.public(who)
            except WebError as exc:
                log.warning("challenge %s is not listed: %s", seek.id, exc.message)
                continue
            found["to_you" if shown_["to_you"] else "from_you"].append(self._with_rating(seek, shown_))
        return found

    # -- changing -----------------------------------------------------------------------

    def make(self, who: Identity, data: dict[str, Any]) -> Seek:
        """A new open seek of ``who`` (a 400 for a bad choice, a 409 beyond MAX_OPEN)."""
        choices, new = seek_choices(data)
        if who.user:
            with self.store.reading() as connection:
                bot = connection.execute(sa.text("SELECT bot FROM users WHERE id = :id"), {"id": who.user}).scalar()
            if bot:  # a seek anyone takes would let its owner's own account play it, rated
                raise WebError(403, "a bot makes no seeks in the lobby: it plays the challenges people send it, "
                                    "and may challenge a player by name")
        live = not isinstance(new.setup.time_control, Correspondence)
        return self._insert(who, choices, new, live, None, None)

    def challenge(self, who: Identity, to: Any, data: dict[str, Any]) -> Seek:
        """A new open challenge of ``who`` to the account named ``to``: a 400 for a bad
        choice, no name or one's own, a 404 for an unknown name, a 409 beyond MAX_OPEN."""
        if not isinstance(to, str) or not to.strip():
            raise WebError(400, "give the name of the player to challenge: {\"to\": \"their name\", ...}")
        choices, new = seek_choices(data, "challenge")
        with self.store.reading() as connection:
            row = connection.execute(sa.text("SELECT id, name FROM users WHERE name_key = :key"),
                                     {"key": name_key(to.strip())[:400]}).first()
        if row is None:
            raise WebError(404, "no player named {name}: a challenge goes to the name of "
                                "an account, check its spelling", name=shown(to.strip()))
        user, name = column_text(row[0]), column_text(row[1])
        if user == who.user:
            raise WebError(400, "you cannot challenge yourself: name another player")
        seek = self._insert(who, choices, new, live=False, to_user=user, to_name=name)
        level = None if self.bots is None else self.bots.level_of(user)
        if level is not None and self.bots is not None:  # the AI's account answers at once
            bot = self.bots.identity(user)
            if self.bots.refusal(level, new) is None:
                self.accept(seek.id, bot)
            else:
                self.decline(seek.id, bot)
            seek = self.get(seek.id)
        return seek

    def _insert(self, who: Identity, choices: dict[str, Any], new: NewGame, live: bool,
                to_user: str | None, to_name: str | None) -> Seek:
        """Store a new open seek (or challenge, to ``to_user``) and announce it; a 403 for
        a rated one without an account (its game would refuse the maker's seat)."""
        kind = "challenge" if to_user is not None else "seek"
        if new.setup.rated and not who.user:
            if kind == "seek":
                raise WebError(403, "a rated game is between two accounts: sign in (or sign up) to make a rated "
                                    "seek, or make it casual")
            raise WebError(403, "a rated game is between two accounts: sign in (or sign up) to make a rated "
                                "challenge, or make it casual")
        game = new.game
        maker = seats.holder(who)
        self.sweep()  # a seek its maker left, or an expired challenge, counts no more
        now = self.clock()
        seek = Seek(secrets.token_hex(12), maker, game, choices, OPEN, None, live, now, to_user, to_name)
        with self.store.transaction() as tx:
            tx.connection.execute(seeks_table.delete().where(_c.status != OPEN,
                                                             _c.created < now - FORGET_AFTER))
            # Seeks and challenges count apart: many challenges do not stop a seek.
            of_kind = _c.to_user.is_not(None) if seek.challenge else _c.to_user.is_(None)
            held = tx.connection.execute(sa.select(sa.func.count()).select_from(seeks_table).where(
                _c.maker_key == maker_key(maker), _c.status == OPEN, of_kind)).scalar() or 0
            if held >= MAX_OPEN and seek.challenge:
                raise WebError(409, "you have {count} open challenges, the most one person may hold at "
                                    "once: withdraw one before making another", count=held)
            if held >= MAX_OPEN:
                raise WebError(409, "you have {count} open seeks, the most one person may hold at "
                                    "once: withdraw one before making another", count=held)
            tx.connection.execute(seeks_table.insert().values(
                id=seek.id, maker=json.dumps(maker.to_dict()), maker_key=maker_key(maker), game=game,
                choices=json.dumps(choices), status=OPEN, game_id=None, live=int(live), created=now,
                seen=now, left=None, to_user=to_user, to_name=to_name))
            event = {"change": "challenge" if seek.challenge else "open", "seek": seek.id}
            for topic in seek.topics() if seek.challenge else [LOBBY_TOPIC, seek_topic(seek.id)]:
                tx.announce(topic, event)
        return seek

    def withdraw(self, seek_id: str, who: Identity | None) -> Seek:
        """Withdraw an open seek: its maker only (403), a 409 once closed."""
        self.sweep()  # an expired challenge is told as such
        seek = self.get(seek_id)
        seats.require_someone(who)
        if not seats.holds(seek.maker, who):
            if seek.challenge:
                raise WebError(403, "only the person who made a challenge may withdraw it")
            raise WebError(403, "only the person who made a seek may withdraw it")
        if not self._close(seek, WITHDRAWN, sa.true()):
            raise self._closed(seek_id)
        return self.get(seek_id)

    def decline(self, seek_id: str, who: Identity | None) -> Seek:
        """The challenged person declines the challenge (401 without a session, 403 for
        anyone else, 409 once it is closed)."""
        self.sweep()
        seek = self.get_challenge(seek_id)
        seats.require_someone(who)
        self._require_challenged(seek, who, Phrase("decline"))
        if not self._close(seek, DECLINED, self._unexpired(seek)):
            raise self._closed(seek_id)
        return self.get(seek_id)

    @staticmethod
    def _require_challenged(seek: Seek, who: Identity | None, what: str) -> None:
        """A 403 unless ``who`` is signed in to the account the challenge goes to."""
        if who is None or not who.user or who.user != seek.to_user:
            raise WebError(403, "only {name}, the player challenged, may {what} this challenge", name=seek.to_name,
                           what=what)

    def _unexpired(self, seek: Seek) -> Any:
        """The condition under which the seek may close now: a challenge not yet expired."""
        return _c.created >= self.clock() - CHALLENGE_SECONDS if seek.challenge else sa.true()

    def acceptable(self, seek_id: str, who: Identity | None) -> Seek:
        """The seek, if ``who`` may accept it now: a 404 for an unknown one, a 409 for one's
        own, or one closed; a 403 for a rated one without an account; a challenge only by
        its player challenged (401, 403). Checked before the accepter is given a session."""
        self.sweep()
        seek = self.get(seek_id)
        if seek.challenge:
            self._require_challenged(seek, seats.require_someone(who), Phrase("accept"))
        if seats.holds(seek.maker, who):
            raise WebError(409, "this is your own seek: wait for someone to accept it, or withdraw it")
        if seek.status != OPEN:
            raise self._closed(seek_id)
        if (who is None or not who.user) and seek_choices(seek.choices, seek.kind)[1].setup.rated:
            raise WebError(403, "a rated game is between two accounts: sign in (or sign up) to accept this "
                                "seek, or accept a casual one")
        return seek

    def accept(self, seek_id: str, who: Identity) -> str:
        """``who`` accepts the seek: the id of the game it starts, both seats filled (the
        maker's colour, if random, is drawn now). Of two accepts at once, in this process or
        another, the first to update the seek's row wins; the other gets a 409 and its game
        is deleted."""
        seek = self.acceptable(seek_id, who)
        maker, accepter = seek.maker, seats.holder(who)
        choices = game_choices(seek.choices) | {"opponent": "friend"}
        if choices.get("color") in (None, "random"):
            choices["color"] = random.choice((BLACK, WHITE))

        def claim(setup: GameSetup, host_color: str | None) -> GameSetup:
            if setup.pie is not None:
                held: dict[str, Holder | None] = {"proposer": maker, "chooser": accepter}
            else:
                color = host_color or BLACK
                held = {color: maker, other(color): accepter}
            setup = setup.replace(owner=maker, seats=held, invite=None)
            return setup if self.bots is None else self.bots.seated(setup, accepter)

        game_id = self.tables.create(choices, claim=claim)["id"]
        if not self._close(seek, TAKEN, self._unexpired(seek), game_id):
            try:
                self.tables.delete(game_id)  # the game of an accept that lost
            except WebError as exc:
                log.warning("the game %s of a lost accept stays: %s", game_id, exc.message)
            raise self._closed(seek_id)
        # The maker's open lists of games hear of it as if they had started it themselves.
        self.store.broker.publish(person_topic(maker), {"game": game_id, "change": "seated"})
        return game_id

    def _close(self, seek: Seek, status: str, condition: Any, game_id: str | None = None) -> bool:
        """Move an open seek to ``status`` if ``condition`` holds, announcing it; whether
        this call did (False: it was no longer open, or the condition failed)."""
        with self.store.transaction() as tx:
            changed = tx.connection.execute(
                seeks_table.update().where(_c.id == seek.id, _c.status == OPEN, condition)
                .values(status=status, game_id=game_id)).rowcount
            if changed:
                # The lobby hears of every seek, and of a challenge only once it starts a game.
                lobby = [LOBBY_TOPIC] if not seek.challenge or status == TAKEN else []
                for topic in lobby + seek.topics():
                    tx.announce(topic, {"change": status, "seek": seek.id})
        return bool(changed)

    def _closed(self, seek_id: str) -> WebError:
        """The 409 for a seek that is no longer open, saying why."""
        seek = self.get(seek_id)
        if seek.status == TAKEN:
            if seek.challenge:
                return WebError(409, "this challenge is already accepted: its game has started")
            return WebError(409, "this seek is already taken: someone accepted it first")
        if seek.status == DECLINED:
            return WebError(409, "this challenge was declined: it is no longer open")
        if seek.status == EXPIRED:
            return WebError(409, "this challenge expired a day after it was made: it is no longer open")
        if seek.challenge:
            return WebError(409, "this challenge was withdrawn: it is no longer open")
        return WebError(409, "this seek was withdrawn: it is no longer open")

    # -- the maker's presence ---------------------------------------------------------------

    def sweep(self) -> list[str]:
        """Withdraw the live seeks whose maker left: the last waiting page closed more than
        GRACE_SECONDS ago, or none beat for STALE_SECONDS; and expire the challenges made
        more than CHALLENGE_SECONDS ago. The ids closed (here)."""
        now = self.clock()
        gone = sa.and_(_c.live == 1, sa.or_(_c.seen < now - STALE_SECONDS,
                                            sa.and_(_c.left.is_not(None), _c.left < now - GRACE_SECONDS)))
        expired = sa.and_(_c.to_user.is_not(None), _c.created < now - CHALLENGE_SECONDS)
        with self.store.reading() as connection:  # most sweeps find none: no write lock taken
            rows = connection.execute(sa.select(seeks_table).where(_c.status == OPEN, sa.or_(gone, expired))).all()
        closed = []
        for row in rows:
            seek = Seek.of_row(row._mapping)
            if self._close(seek, EXPIRED, expired) if seek.challenge else self._close(seek, WITHDRAWN, gone):
                closed.append(seek.id)
        return closed

    def offer_to_bots(self) -> None:
        """The open seeks that welcome the AI's accounts and waited BOTS_AFTER_SECONDS for
        a person: each taken by the bot nearest its maker's rating in its game of those
        that can keep its clock (none: it stays open). One accept wins, as anyone's."""
        if self.bots is None:
            return
        now = self.clock()
        with self.store.reading() as connection:
            rows = connection.execute(sa.select(seeks_table).where(
                _c.status == OPEN, _c.to_user.is_(None), _c.created <= now - BOTS_AFTER_SECONDS)).all()
        for row in rows:
            seek = Seek.of_row(row._mapping)
            if not seek.bots:
                continue
            _, new = seek_choices(seek.choices)
            maker_rating = None
            if seek.maker.user and self.ratings is not None:
                maker_rating = self.ratings.of(seek.maker.user)[new.game]["rating"]
            bot = self.bots.taker(new, maker_rating, self.ratings)
            if bot is None:
                continue
            try:
                self.accept(seek.id, self.bots.identity(bot))
            except WebError as exc:  # taken or withdrawn meanwhile
                log.info("seek %s: the AI did not take it: %s", seek.id, exc.message)

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
        """:meth:`sweep` and :meth:`offer_to_bots`, at most once every SWEEP_SECONDS in this
        process."""
        now = time.monotonic()
        if now - self._last_sweep >= SWEEP_SECONDS:
            self._last_sweep = now
            self.sweep()
            self.offer_to_bots()

    @contextlib.asynccontextmanager
    async def maker_page(self, seek_id: str) -> AsyncIterator[None]:
        """While in the block, a waiting page of the seek's maker is open here: it beats
        every HEARTBEAT_SECONDS; when the last one here closes, the seek is left."""
        self._pages[seek_id] = self._pages.get(seek_id, 0) + 1

        async def beating() -> None:
            while True:
                await self._quietly(self.beat, seek_id)
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


def clock_text(seconds: float) -> str:
    """Time as a clock shows it (as clock.js writes it): m:ss, h:mm:ss, or days and hours."""
    whole = max(0, math.ceil(seconds - 1e-9))
    if whole >= 86400:
        days, hours = whole // 86400, whole % 86400 // 3600
        return f"{days} day{'' if days == 1 else 's'}" + (f" {hours} h" if hours else "")
    h, m, s = whole // 3600, whole % 3600 // 60, whole % 60
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def watch_list(tables: Tables) -> list[dict[str, Any]]:
    """The live public games (``setup.public``, not over), most recently played first, as
    the watch page lists them: the players' names by colour (by komi pie role while the pie
    decides), the move count, the colour to move (None while the pie decides) and the
    clock as it reads now (:func:`hexstones.web.view.clock_view`, and ``clock_text``: each
    colour's time in words; None untimed). A game
    that cannot be read is left out (opening it says what is wrong)."""
    listed = []
    for row in tables.list():
        setup = row["setup"]
        if not setup.public or row["finished"]:
            continue
        try:
            live = tables.get(row["id"])
        except WebError as exc:
            log.warning("game %s is not listed to watch: %s", row["id"], exc.message)
            continue
        with live.lock:
            if live.over:
                continue
            setup = live.setup
            if setup.friend_game:
                roles = [c for c in (BLACK, WHITE) if seats.role_of(setup, c) is not None] or list(setup.seats or {})
                held = {role: seats.seat_of(setup, role) if role in (BLACK, WHITE) else (setup.seats or {})[role]
                        for role in roles}
                players = {role: (None if h is None else h.name or gettext("a guest")) for role, h in held.items()}
            else:
                human = setup.owner.name if setup.owner is not None else None
                ai_colors = [c for c, p in (setup.players or {}).items() if p == "ai"]
                players = {c: gettext("AI level %(level)s") % {"level": setup.level_for(c)} if c in ai_colors
                           else (human or gettext("a guest"))
                           for c in (BLACK, WHITE)}
            to_move = None if live.pie_pending else live.game.to_move
            clock = clock_view(live)
            listed.append({
                "id": row["id"], "game": row["game"], "title": spec_of(row["game"])["title"],
                "size": row["options"]["size"], "name": setup.name, "players": players,
                "moves": len(live.game.moves), "to_move": to_move, "clock": clock, "clock_text": (
                    None if clock is None else {c: clock_text(clock[c]["seconds"]) for c in (BLACK, WHITE)}),
                "url": f"/game/{row['id']}",
            })
    return listed




def lobby_of(app: Any) -> Lobby:
    """The app's lobby (``app.state.lobby``, made with the app)."""
    return app.state.lobby
