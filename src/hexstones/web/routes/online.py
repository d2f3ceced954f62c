"""Play between two people online: invitations, joining a game, takebacks, and the live
updates of a game and of a person's games (WebSockets)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, WebSocket
from starlette.concurrency import run_in_threadpool

from hexstones.session import TakebackAsk, takebacks
from hexstones.web import seats, view
from hexstones.web.accounts import COOKIE
from hexstones.web.broker import game_topic
from hexstones.web.deps import Invitation, LiveGame, PeopleDep, Person, TablesDep, invited
from hexstones.web.errors import Phrase, WebError, choice, refusing
from hexstones.web.inputs import NO_PARAMS, JSONBody
from hexstones.web.live_ws import serve_updates
from hexstones.web.online import People
from hexstones.web.spec import spec_of

router = APIRouter()



JOIN_BODY = JSONBody("secret", "name")


async def join_secret(data: Annotated[dict[str, Any], Depends(JOIN_BODY)]) -> str:
    """The invitation's secret a join gives (a 400 without one)."""
    secret = data.get("secret")
    if not isinstance(secret, str) or len(secret) > 100:
        raise WebError(400, "give the invitation's secret: {\"secret\": ...}")
    return secret


TAKEBACK_BODY = JSONBody("action", "overlays")


async def takeback_action(data: Annotated[dict[str, Any], Depends(TAKEBACK_BODY)]) -> str:
    """What a takeback request does (a 400 for anything but one of takebacks.ACTIONS)."""
    return choice(data.get("action"), "action", takebacks.ACTIONS, "request")


@router.get("/api/invitations/{game_id}/{secret}", dependencies=[NO_PARAMS])
def invitation(live: Invitation, who: Person):
    setup = live.setup
    role = seats.open_role(setup)
    return {"game": live.record.game, "title": spec_of(live.record.game)["title"],
            "size": live.game.size, "inviter": setup.owner.name if setup.owner else None, "open": role is not None,
            "color": role if role in ("black", "white") else None, "pie": role in ("proposer", "chooser"),
            "you": who.public() if who else None, "playing": seats.is_player(setup, who)}


@router.post("/api/games/{game_id}/join")
def join(game_id: str, data: Annotated[dict[str, Any], Depends(JOIN_BODY)],
         secret: Annotated[str, Depends(join_secret)], request: Request, tables: TablesDep, people: PeopleDep):
    live = invited(tables, game_id, secret)
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
        who, token = people.accounts.become_guest(who, name)
        people.give(request, who, token)
    with live.lock:
        setup = live.setup
        if seats.is_player(setup, who):
            return people.personal(request, live, view.state(live))  # already seated
        role = seats.open_role(setup)
        if role is None:  # taken meanwhile
            raise WebError(409, "both seats of this game are taken: you can watch it")
        seated = setup.replace(seats=dict(setup.seats or {}, **{role: seats.holder(who)}))
        seats.check_rated_seats(seated)
        tables.change_setup(live, seated)
        people.seated(request, game_id)
        return people.personal(request, live, view.state(live))


@router.post("/api/games/{game_id}/takeback")
def takeback(data: Annotated[dict[str, Any], Depends(TAKEBACK_BODY)],
             action: Annotated[str, Depends(takeback_action)], live: LiveGame, request: Request,
             tables: TablesDep, people: PeopleDep):
    show = view.view_request(live.record.game, None, data.get("overlays"))
    who = people.who(request)
    with live.lock:
        setup = live.setup
        mine = seats.require_player(setup, who, Phrase("ask for or answer a takeback"))
        if not setup.friend_game:
            raise WebError(409, "a takeback is asked between two people online: here, use undo")
        if setup.against_ai:
            raise WebError(409, "the AI's accounts do not take moves back")
        session = live.session
        pending = TakebackAsk.pending(setup.takeback, session)
        if action == "request":
            with refusing():
                asked = takebacks.ask(session, mine, pending)
            tables.change_setup(live, setup.replace(takeback=asked))
            return people.personal(request, live, view.state(live, show))
        with refusing():
            answered = takebacks.answer(session, mine, pending, action)
        tables.change_setup(live, setup.replace(takeback=None))
        if action != "accept":
            return people.personal(request, live, view.state(live, show))
        answer = tables.undo(live, show, until=answered.by)
        return people.personal(request, live, answer)


CONDITIONAL_BODY = JSONBody("lines", "overlays")


@router.put("/api/games/{game_id}/conditional")
def set_conditional(data: Annotated[dict[str, Any], Depends(CONDITIONAL_BODY)], live: LiveGame, request: Request,
                    tables: TablesDep, people: PeopleDep):
    """The asker's conditional moves in a game between two people: ``lines``, each the
    opponent's move, the answer, and so on; ``[]`` takes them away."""
    if "lines" not in data:
        raise WebError(400, 'give the lines: {"lines": [["e5", "d4"], ...]} (the opponent\'s move, '
                            'then your answer, and so on; [] takes them away)')
    show = view.view_request(live.record.game, None, data.get("overlays"))
    who = people.who(request)
    with live.lock:
        setup = live.setup
        mine = seats.require_player(setup, who, Phrase("leave conditional moves"))
        if not setup.friend_game or not mine:
            raise WebError(409, "conditional moves are for a game between two people online")
        if setup.pie is not None and setup.pie.pending:
            raise WebError(409, "the komi pie comes first: conditional moves answer moves on the board")
        return people.personal(request, live, tables.set_conditional(live, mine[0], data["lines"], show))


@router.websocket("/api/games/{game_id}/live")
async def live_updates(websocket: WebSocket, game_id: str, tables: TablesDep):
    try:
        live = await run_in_threadpool(tables.get, game_id)
    except WebError as exc:
        await websocket.close(code=4404, reason=exc.message[:120])
        return
    await serve_updates(websocket, tables.store.broker, [game_topic(game_id)],
                        {"game": game_id, "moves": len(live.game.moves)})


@router.websocket("/api/my-games/live")
async def my_games_updates(websocket: WebSocket, tables: TablesDep, people: PeopleDep):
    """Each change of the games the person plays (listed when the page connects), and
    ``{"change": "seated"}`` when they start or join another: the page then connects
    again, to hear that game too."""
    who = await run_in_threadpool(people.accounts.identify, websocket.cookies.get(COOKIE))
    rows = await run_in_threadpool(tables.list)
    mine = [row["id"] for row in rows if seats.is_player(row["setup"], who)]
    topics = [game_topic(g) for g in mine] + (People.topics(who) if who is not None else [])
    await serve_updates(websocket, tables.store.broker, topics, {"games": len(mine)})
