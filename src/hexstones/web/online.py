"""Online play's routes: accounts, guests, invitations, takebacks, live updates, my games.

:class:`People` ties the accounts and the seats to requests: who asks (the session
cookie), and a session for a browser that needs one (it starts a game, joins one). The
game routes of :mod:`hexstones.web.app` ask it who may act; :func:`install` adds the
routes of this module.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import FileResponse
from starlette.concurrency import run_in_threadpool

from hexstones.games import other
from hexstones.web import seats, view
from hexstones.web.accounts import COOKIE, SESSION_DAYS, Accounts, Identity
from hexstones.web.broker import game_topic, user_topic
from hexstones.web.errors import WebError, choice
from hexstones.web.limits import RateLimit
from hexstones.web.live import Live, Tables
from hexstones.web.live_ws import serve_updates
from hexstones.web.rows import Rows
from hexstones.web.spec import spec_of

STATIC = Path(__file__).parent / "static"


class People:
    """Who is asking, and the sessions the app hands out."""

    def __init__(self, tables: Tables, games_per_minute: int | None = None) -> None:
        self.tables = tables
        self.accounts = Accounts(Rows(tables.store))
        self.epoch = secrets.token_hex(4)
        # New games (and imports) a person may start in a minute; an address, ten people's.
        self.creation = None if games_per_minute is None else RateLimit(games_per_minute, 60, "new games")
        self.creation_by_address = (None if games_per_minute is None
                                    else RateLimit(10 * games_per_minute, 60, "new games from this address"))

    def who(self, request: Request) -> Identity | None:
        """The session of the request's cookie (None without one, or expired)."""
        state = request.state
        if not hasattr(state, "identity"):
            state.identity = self.accounts.identify(request.cookies.get(COOKIE))
        return state.identity

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
        if "owner" in live.setup or who is None:
            return
        with live.lock:
            if "owner" not in live.setup:
                self.tables.change_setup(live, dict(live.setup, owner=seats.holder(who)))

    def personal(self, request: Request, live: Live, answer: dict[str, Any]) -> dict[str, Any]:
        """The state as the person asking sees it; ``server`` names the counter of its
        ``version`` (this process's copy of the game: a restart, or a reload after another
        process changed the game, starts a new one from 0)."""
        return dict(seats.personal(answer, live.setup, self.who(request)), server=self.server(live))

    def server(self, live: Live) -> str:
        """The name of ``live``'s versions' counter: this process and its copy of the game."""
        return f"{self.epoch}-{live.copy:x}"


def install(app: FastAPI, people: People, body, query) -> None:
    """Add online play's routes to ``app`` (``body``, ``query``: app.py's request readers)."""
    tables = people.tables
    accounts = people.accounts

    def address(request: Request) -> str:
        return request.client.host if request.client else "?"

    # -- accounts ---------------------------------------------------------------------

    @app.get("/account", include_in_schema=False)
    def account_page(request: Request):
        query(request, ())
        return FileResponse(STATIC / "account.html", headers={"Cache-Control": "no-cache"})

    @app.get("/api/account")
    def account(request: Request):
        query(request, ())
        who = people.who(request)
        return {"signed_in": bool(who and who.user), **(who.public() if who else {"kind": None, "name": None})}

    @app.post("/api/account/signup", status_code=201)
    async def sign_up(request: Request):
        data = await body(request, ("name", "password"))
        who, token = await run_in_threadpool(accounts.sign_up, people.who(request), data.get("name"),
                                             data.get("password"))
        people.give(request, who, token)
        return who.public()

    @app.post("/api/account/signin")
    async def sign_in(request: Request):
        data = await body(request, ("name", "password"))
        who, token = await run_in_threadpool(accounts.sign_in, people.who(request), data.get("name"),
                                             data.get("password"), address(request))
        people.give(request, who, token)
        return who.public()

    @app.post("/api/account/signout")
    async def sign_out(request: Request):
        await body(request, ())
        who = people.who(request)
        if who is not None:
            await run_in_threadpool(accounts.sign_out, who)
        request.state.cookie = ("", 0)
        return {"signed_in": False}

    @app.post("/api/account/password")
    async def change_password(request: Request):
        data = await body(request, ("old", "new"))
        who = seats.require_someone(people.who(request))
        who, token = await run_in_threadpool(accounts.change_password, who, data.get("old"),
                                             data.get("new"), address(request))
        people.give(request, who, token)
        return who.public()

    @app.post("/api/account/guest")
    async def guest(request: Request):
        """Play as a guest under a name; the seats this browser holds as a guest show it."""
        data = await body(request, ("name",))

        def work():
            who, token = accounts.become_guest(people.who(request), data.get("name"))
            people.give(request, who, token)
            if who.user is None:
                for row in tables.list():
                    if not seats.is_player(row["setup"], who):
                        continue
                    live = tables.get(row["id"])
                    with live.lock:
                        setup = seats.renamed(live.setup, who)
                        if setup != live.setup:
                            tables.change_setup(live, setup)
            return who.public()
        return await run_in_threadpool(work)

    # -- invitations ------------------------------------------------------------------

    def invited(game_id: str, secret: str) -> Live:
        live = tables.get(game_id)
        real = live.setup.get("invite")
        if not isinstance(real, str) or not secrets.compare_digest(real.encode(), secret.encode()):
            raise WebError(404, "no such invitation: check the link you were sent")
        return live

    @app.get("/invite/{game_id}/{secret}", include_in_schema=False)
    def invite_page(game_id: str, secret: str, request: Request):
        query(request, ())
        invited(game_id, secret)
        return FileResponse(STATIC / "invite.html", headers={"Cache-Control": "no-cache"})

    @app.get("/api/invitations/{game_id}/{secret}")
    def invitation(game_id: str, secret: str, request: Request):
        query(request, ())
        live = invited(game_id, secret)
        who = people.who(request)
        setup = live.setup
        role = seats.open_role(setup)
        host = setup.get("owner") or {}
        return {"game": live.record.game, "title": spec_of(live.record.game)["title"],
                "size": live.game.size, "inviter": host.get("name"), "open": role is not None,
                "color": role if role in ("black", "white") else None, "pie": role in ("proposer", "chooser"),
                "you": who.public() if who else None, "playing": seats.is_player(setup, who)}

    @app.post("/api/games/{game_id}/join")
    async def join(game_id: str, request: Request):
        data = await body(request, ("secret", "name"))
        secret = data.get("secret")
        if not isinstance(secret, str) or len(secret) > 100:
            raise WebError(400, "give the invitation's secret: {\"secret\": ...}")

        def work():
            live = invited(game_id, secret)
            who = people.who(request)
            with live.lock:
                if seats.is_player(live.setup, who):
                    return people.personal(request, live, view.state(live))  # already seated
                if seats.open_role(live.setup) is None:  # refused before any session is made
                    raise WebError(409, "both seats of this game are taken: you can watch it")
            if who is None or not who.user:  # a guest under a name (this browser's session)
                if data.get("name") in (None, "") and who is not None and who.name:
                    name = who.name
                else:
                    name = data.get("name") or "guest"
                who, token = accounts.become_guest(who, name)
                people.give(request, who, token)
            with live.lock:
                setup = live.setup
                if seats.is_player(setup, who):
                    return people.personal(request, live, view.state(live))  # already seated
                role = seats.open_role(setup)
                if role is None:  # taken meanwhile
                    raise WebError(409, "both seats of this game are taken: you can watch it")
                seated = dict(setup["seats"], **{role: seats.holder(who)})
                tables.change_setup(live, dict(setup, seats=seated))
                people.seated(request, game_id)
                return people.personal(request, live, view.state(live))
        return await run_in_threadpool(work)

    # -- takebacks between two people -----------------------------------------------------

    @app.post("/api/games/{game_id}/takeback")
    async def takeback(game_id: str, request: Request):
        data = await body(request, ("action", "overlays"))
        action = choice(data.get("action"), "action", ("request", "accept", "decline", "cancel"), "request")

        def work():
            live = tables.get(game_id)
            show = view.view_request(live.record.game, None, data.get("overlays"))
            who = people.who(request)
            with live.lock:
                setup = live.setup
                mine = seats.require_player(setup, who, "ask for or answer a takeback")
                if not seats.is_friend_game(setup):
                    raise WebError(409, "a takeback is asked between two people online: here, use undo")
                if live.record.resigned is not None:
                    raise WebError(409, f"the game is over: {live.record.resigned} resigned")
                count = len(live.game.moves)
                pending = setup.get("takeback")
                if pending is not None and pending.get("ply") != count:
                    pending = None  # asked for an earlier position: moves were played since
                if action == "request":
                    if not mine:
                        raise WebError(409, "the colours are not decided yet: nothing to take back")
                    color = mine[0]
                    if count == 0 or (count == 1 and live.game.to_move == color):
                        raise WebError(409, "you have no move to take back")
                    if pending is not None:
                        raise WebError(409, "a takeback is already asked: wait for the answer")
                    tables.change_setup(live, dict(setup, takeback={"by": color, "ply": count}))
                    return people.personal(request, live, view.state(live, show))
                if pending is None:
                    raise WebError(409, "no takeback is asked")
                if action == "cancel":
                    if pending["by"] not in mine:
                        raise WebError(403, "only who asked may cancel a takeback")
                elif other(pending["by"]) not in mine:
                    raise WebError(403, "only the opponent of who asked may answer a takeback")
                cleared = {k: v for k, v in setup.items() if k != "takeback"}
                tables.change_setup(live, cleared)
                if action != "accept":
                    return people.personal(request, live, view.state(live, show))
                answer = tables.undo(live, show, until=pending["by"])
                return people.personal(request, live, answer)
        return await run_in_threadpool(work)

    # -- live updates -------------------------------------------------------------------

    @app.websocket("/api/games/{game_id}/live")
    async def live_updates(websocket: WebSocket, game_id: str):
        try:
            live = await run_in_threadpool(tables.get, game_id)
        except WebError as exc:
            await websocket.close(code=4404, reason=exc.message[:120])
            return
        await serve_updates(websocket, tables.store.broker, [game_topic(game_id)],
                            {"game": game_id, "moves": len(live.record.moves)})

    @app.websocket("/api/my-games/live")
    async def my_games_updates(websocket: WebSocket):
        """Each change of the games the person plays (listed when the page connects), and
        ``{"change": "seated"}`` when they start or join another: the page then connects
        again, to hear that game too."""
        who = await run_in_threadpool(accounts.identify, websocket.cookies.get(COOKIE))
        rows = await run_in_threadpool(tables.list)
        mine = [row["id"] for row in rows if seats.is_player(row["setup"], who)]
        topics = [game_topic(g) for g in mine] + (People.topics(who) if who is not None else [])
        await serve_updates(websocket, tables.store.broker, topics, {"games": len(mine)})

    app.state.people = people

