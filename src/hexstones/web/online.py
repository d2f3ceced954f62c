"""Online play's people: who asks, and the sessions the app hands out.

:class:`People` ties the accounts and the seats to requests: who asks (the session
cookie), and a session for a browser that needs one (it starts a game, joins one). The
routes (:mod:`hexstones.web.routes`) ask it who may act; accounts, invitations, takebacks
and live updates are the routes of :mod:`hexstones.web.routes.accounts` and
:mod:`hexstones.web.routes.online`.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any

from fastapi import Request

from hexstones.web import seats
from hexstones.web.accounts import COOKIE, SESSION_DAYS, Accounts, Identity
from hexstones.web.bot_accounts import BotAccounts, is_bearer
from hexstones.web.broker import user_topic
from hexstones.web.i18n import N_
from hexstones.web.limits import RateLimit
from hexstones.web.live import Live, Tables
from hexstones.web.rows import Rows


class People:
    """Who is asking, and the sessions the app hands out."""

    def __init__(self, tables: Tables, games_per_minute: int | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.tables = tables
        self.accounts = Accounts(Rows(tables.store), clock, broker=tables.store.broker)
        self.bot_accounts = BotAccounts(Rows(tables.store), clock)
        self.epoch = secrets.token_hex(4)
        # New games (and imports) a person may start in a minute; an address, ten people's.
        self.creation = None if games_per_minute is None else RateLimit(
            games_per_minute, 60, N_("too many new games: at most {limit} a minute; try again in {seconds} s"))
        self.creation_by_address = None if games_per_minute is None else RateLimit(
            10 * games_per_minute, 60,
            N_("too many new games from this address: at most {limit} a minute; try again in {seconds} s"))

    def who(self, request: Request) -> Identity | None:
        """The session of the request's cookie (None without one, or expired); with an
        ``Authorization: Bearer`` header, the bot account of its token instead (a 401 for a
        bad one). Another scheme is left alone: a proxy's Basic sign-in is no bot's."""
        state = request.state
        if not hasattr(state, "identity"):
            authorization = request.headers.get("authorization", "")
            state.identity = (self.bot_accounts.identify(authorization) if is_bearer(authorization)
                              else self.accounts.identify(request.cookies.get(COOKIE)))
        return state.identity

    def remember_language(self, token: str | None, language: str) -> None:
        """Keep ``language`` with the account the session cookie ``token`` is signed in to
        (nothing for a browser signed in to none)."""
        who = self.accounts.identify(token)
        if who is not None and who.user:
            self.accounts.set_language(who.user, language)

    def session(self, request: Request) -> Identity:
        """The request's session, made (a local player) if the browser has none."""
        who = self.who(request)
        if who is None:
            who, token = self.accounts.new_session()
            self.give(request, who, token)
        return who

    @staticmethod
    def topics(who: Identity) -> list[str]:
        """What a person's open lists of games hear of games they newly play: their
        account's topic when signed in (where :meth:`seated` tells), and their session's."""
        session = user_topic(f"session-{who.session}")
        return [user_topic(who.user), session] if who.user else [session]

    def seated(self, request: Request, game_id: str) -> None:
        """Tell the person's open "My games" pages of a game they now play (created, joined)."""
        who = self.who(request)
        if who is not None:
            self.tables.store.broker.publish(self.topics(who)[0], {"game": game_id, "change": "seated"})

    def give(self, request: Request, who: Identity, token: str | None) -> None:
        """The answer to ``request`` hands the browser ``token`` (None: keep its cookie)."""
        request.state.identity = who
        if token is not None:
            request.state.cookie = (token, SESSION_DAYS * 86400)

    def claim(self, request: Request):
        """The ``claim`` of Tables.create for a game this request starts (a 429 when the
        person, or their address, has started too many games in the last minute)."""
        who = self.session(request)
        if self.creation is not None and self.creation_by_address is not None:
            self.creation_by_address.take(request.client.host if request.client else "?")
            self.creation.take(who.user or who.session)
        return lambda setup, color: seats.claim(setup, who, color)

    def take_unowned(self, live: Live, who: Identity | None) -> None:
        """A game stored before seats existed goes to the first person who acts in it."""
        if live.setup.owner is not None or who is None:
            return
        with live.lock:
            if live.setup.owner is None:
                self.tables.change_setup(live, live.setup.replace(owner=seats.holder(who)))

    def personal(self, request: Request, live: Live, answer: dict[str, Any]) -> dict[str, Any]:
        """The state as the person asking sees it; ``server`` names the counter of its
        ``version`` (this process's copy of the game: a restart, or a reload after another
        process changed the game, starts a new one from 0)."""
        return dict(seats.personal(answer, live.setup, self.who(request)), server=self.server(live))

    def server(self, live: Live) -> str:
        """The name of ``live``'s versions' counter: this process and its copy of the game."""
        return f"{self.epoch}-{live.copy:x}"
