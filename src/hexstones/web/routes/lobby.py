"""The lobby (:mod:`hexstones.web.lobby`): its pages (``/lobby``, a seek's or challenge's
waiting page ``/seek/<id>``, the live public games ``/watch``), the seeks' API (list, make,
withdraw, accept), the challenges' (make, list, accept, decline, withdraw), the games to
watch, and their live updates."""

from __future__ import annotations

import contextlib
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, WebSocket
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection

from hexstones.web import seats
from hexstones.web.accounts import COOKIE
from hexstones.web.deps import PeopleDep, Person, TablesDep
from hexstones.web.errors import WebError
from hexstones.web.inputs import EMPTY_BODY, NO_PARAMS, JSONBody
from hexstones.web.live_ws import serve_updates
from hexstones.web.lobby import LOBBY_TOPIC, OPEN, Lobby, lobby_of, seek_topic, watch_list
from hexstones.web.online import People
from hexstones.web.pages import page
from hexstones.web.spec import game_specs

router = APIRouter()


async def get_lobby(conn: HTTPConnection) -> Lobby:
    """The app's lobby."""
    return lobby_of(conn.app)


LobbyDep = Annotated[Lobby, Depends(get_lobby)]


# -- pages ---------------------------------------------------------------------------------------

@router.get("/lobby", dependencies=[NO_PARAMS], include_in_schema=False)
def lobby_page():
    return page("lobby.html", games=game_specs())


@router.get("/watch", dependencies=[NO_PARAMS], include_in_schema=False)
def watch_page():
    return page("watch.html")


# The page of an unknown seek is a 404.
@router.get("/seek/{seek_id}", dependencies=[NO_PARAMS], include_in_schema=False)
def seek_page(seek_id: str, lobby: LobbyDep):
    lobby.get(seek_id)
    return page("seek.html")


# -- the API -------------------------------------------------------------------------------------

@router.get("/api/seeks", dependencies=[NO_PARAMS])
def list_seeks(who: Person, lobby: LobbyDep):
    """The open seeks, newest first (``yours``: made by the person asking)."""
    return {"seeks": lobby.listing(who)}


@router.post("/api/seeks", status_code=201)
def make_seek(data: Annotated[dict[str, Any], Depends(JSONBody(any_known=True))], request: Request,
              people: PeopleDep, lobby: LobbyDep):
    # seek_choices names an unknown choice; a browser without a session gets one (as /new does)
    seek = lobby.make(people.session(request), data)
    return seek.public(people.who(request))


@router.get("/api/seeks/{seek_id}", dependencies=[NO_PARAMS])
def get_seek(seek_id: str, who: Person, lobby: LobbyDep):
    lobby.sweep()
    return lobby.get(seek_id).public(who)


@router.delete("/api/seeks/{seek_id}", dependencies=[EMPTY_BODY])
def withdraw_seek(seek_id: str, who: Person, lobby: LobbyDep):
    return lobby.withdraw(seek_id, who).public(who)


ACCEPT_BODY = JSONBody("name")


@router.post("/api/seeks/{seek_id}/accept")
def accept_seek(seek_id: str, data: Annotated[dict[str, Any], Depends(ACCEPT_BODY)], request: Request,
                people: PeopleDep, lobby: LobbyDep):
    """Take the other seat of the seek's game, which starts at once; without an account,
    as a guest under ``name`` (or the name this browser has), as joining an invitation.
    A challenge's is taken by the player challenged alone."""
    return accepted(seek_id, data, request, people, lobby)


def accepted(seek_id: str, data: dict[str, Any], request: Request, people: People, lobby: Lobby) -> dict[str, Any]:
    """Accept the seek (or challenge) for the person asking: the game it started."""
    who = people.who(request)
    lobby.acceptable(seek_id, who)  # refused before any session is made
    if who is None or not who.user:
        name = data.get("name") if data.get("name") not in (None, "") else (who.name if who else None)
        who, token = people.accounts.become_guest(who, name or "guest")
        people.give(request, who, token)
    game_id = lobby.accept(seek_id, who)
    people.seated(request, game_id)
    return {"game": game_id, "url": f"/game/{game_id}", "seek": lobby.get(seek_id).public(who)}


# -- challenges ------------------------------------------------------------------------------------

@router.get("/api/challenges", dependencies=[NO_PARAMS])
def list_challenges(who: Person, lobby: LobbyDep):
    """The open challenges to the person asking (``to_you``) and made by them
    (``from_you``), newest first."""
    return lobby.challenges(who)


@router.post("/api/challenges", status_code=201)
def make_challenge(data: Annotated[dict[str, Any], Depends(JSONBody(any_known=True))], request: Request,
                   people: PeopleDep, lobby: LobbyDep):
    """Challenge the account named ``to`` to a game of the seek's choices; a browser
    without a session gets one (as /new does)."""
    choices = {key: value for key, value in data.items() if key != "to"}
    challenge = lobby.challenge(people.session(request), data.get("to"), choices)
    return challenge.public(people.who(request))


@router.get("/api/challenges/{seek_id}", dependencies=[NO_PARAMS])
def get_challenge(seek_id: str, who: Person, lobby: LobbyDep):
    lobby.sweep()
    return lobby.get_challenge(seek_id).public(who)


@router.post("/api/challenges/{seek_id}/accept", dependencies=[EMPTY_BODY])
def accept_challenge(seek_id: str, request: Request, people: PeopleDep, lobby: LobbyDep):
    """The player challenged takes their seat of the challenge's game, which starts at once."""
    lobby.get_challenge(seek_id)
    return accepted(seek_id, {}, request, people, lobby)


@router.post("/api/challenges/{seek_id}/decline", dependencies=[EMPTY_BODY])
def decline_challenge(seek_id: str, who: Person, lobby: LobbyDep):
    return lobby.decline(seek_id, who).public(who)


@router.delete("/api/challenges/{seek_id}", dependencies=[EMPTY_BODY])
def withdraw_challenge(seek_id: str, who: Person, lobby: LobbyDep):
    lobby.get_challenge(seek_id)
    return lobby.withdraw(seek_id, who).public(who)


# -- watching ---------------------------------------------------------------------------------------

@router.get("/api/watch", dependencies=[NO_PARAMS])
def list_watch(tables: TablesDep):
    """The live public games, most recently played first, with their clocks as they read now."""
    return {"games": watch_list(tables)}


# -- live updates --------------------------------------------------------------------------------

@router.websocket("/api/lobby/live")
async def lobby_updates(websocket: WebSocket, tables: TablesDep, people: PeopleDep):
    """A message at each seek made, taken or withdrawn, and at each change of the person's
    challenges (``{"change": "challenge"}``: one arrived); the page then fetches the lists."""
    who = await run_in_threadpool(people.accounts.identify, websocket.cookies.get(COOKIE))
    topics = [LOBBY_TOPIC] + (People.topics(who) if who is not None else [])
    await serve_updates(websocket, tables.store.broker, topics, {"lobby": True})


@router.websocket("/api/seeks/{seek_id}/live")
async def seek_updates(websocket: WebSocket, seek_id: str, tables: TablesDep, people: PeopleDep):
    """A message when it opens and at each change of the seek (taken, withdrawn, a
    challenge declined or expired); the page then fetches the seek. Open on its maker's
    browser, it keeps a live seek open."""
    lobby = lobby_of(websocket.app)
    try:
        seek = await run_in_threadpool(lobby.get, seek_id)
    except WebError as exc:
        await websocket.close(code=4404, reason=exc.message[:120])
        return
    who = await run_in_threadpool(people.accounts.identify, websocket.cookies.get(COOKIE))
    waiting = seek.status == OPEN and seek.live and seats.holds(seek.maker, who)
    async with lobby.maker_page(seek_id) if waiting else contextlib.nullcontext():
        await serve_updates(websocket, tables.store.broker, [seek_topic(seek_id)],
                            {"seek": seek_id, "status": seek.status})
