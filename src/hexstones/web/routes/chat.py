"""The chat beside a game between two people online (:mod:`hexstones.web.chat`): its
messages, a new one, a player's switches, and its live updates."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, WebSocket
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection

from hexstones.web.chat import Chat, Seat, chat_of, chat_topic, message_text
from hexstones.web.deps import LiveGame, PeopleDep, TablesDep
from hexstones.web.errors import WebError, shown, whole
from hexstones.web.inputs import JSONBody, Params
from hexstones.web.live_ws import serve_updates

router = APIRouter()


async def get_chat(conn: HTTPConnection) -> Chat:
    """The app's chats."""
    return chat_of(conn.app)


ChatDep = Annotated[Chat, Depends(get_chat)]

SINCE_PARAMS = Params("since")
MESSAGE_BODY = JSONBody("text")
SETTINGS_BODY = JSONBody("spectators_may_write", "mute")


async def since_id(params: Annotated[dict[str, str], Depends(SINCE_PARAMS)]) -> int:
    """The ``since`` parameter: the id of the last message the page has (0 without one)."""
    since = whole(params.get("since", "0"), "since")
    if since < 0:
        raise WebError(400, "since must be a message's id (0 or more), not {value}", value=since)
    return min(since, 2**31 - 1)  # past every id; a larger number is no integer the database takes


async def new_text(data: Annotated[dict[str, Any], Depends(MESSAGE_BODY)]) -> str:
    """The checked text of a new message (a 400 saying what is wrong)."""
    return message_text(data.get("text"))


async def switches(data: Annotated[dict[str, Any], Depends(SETTINGS_BODY)]) -> dict[str, bool | None]:
    """The switches a change sets (None: left as it is); a 400 for none, or one not true or false."""
    if not data:
        raise WebError(400, "say what to change: {\"spectators_may_write\": true or false} "
                            "or {\"mute\": true or false}")
    for name, value in data.items():
        if not isinstance(value, bool):
            raise WebError(400, "{name} must be true or false, not {value}", name=name, value=shown(value))
    return {"spectators_may_write": data.get("spectators_may_write"), "mute": data.get("mute")}


@router.get("/api/games/{game_id}/chat")
def read_chat(since: Annotated[int, Depends(since_id)], live: LiveGame, request: Request,
              people: PeopleDep, chat: ChatDep):
    """The messages the asker may see (after ``since``), and what they may do."""
    return chat.read(live.record.id, live.setup, people.who(request), since)


@router.post("/api/games/{game_id}/chat", status_code=201)
def send_message(text: Annotated[str, Depends(new_text)], live: LiveGame, request: Request,
                 people: PeopleDep, chat: ChatDep):
    return chat.send(live.record.id, live.setup, people.who(request), text)


@router.post("/api/games/{game_id}/chat/settings")
def change_settings(changes: Annotated[dict[str, bool | None], Depends(switches)], live: LiveGame,
                    request: Request, people: PeopleDep, chat: ChatDep):
    """A player's own switch "let spectators write", and their mute of the other seat."""
    return chat.settle(live.record.id, live.setup, people.who(request), **changes)


@router.websocket("/api/games/{game_id}/chat/live")
async def chat_updates(websocket: WebSocket, game_id: str, tables: TablesDep):
    """A message when it opens and at each new message or change of switches; the page
    then fetches what it may see (4404: no such game; 4409: a game with no chat)."""
    try:
        live = await run_in_threadpool(tables.get, game_id)
        Seat.of(live.setup, None)
    except WebError as exc:
        await websocket.close(code=4000 + exc.status, reason=exc.message[:120])
        return
    await serve_updates(websocket, tables.store.broker, [chat_topic(game_id)], {"chat": game_id})

