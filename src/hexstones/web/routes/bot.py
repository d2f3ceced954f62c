"""Bots: an account marked a bot and its tokens (``/api/account/bot``,
``/api/account/tokens...``, from the account page, signed in), and the bot API that its
program speaks with a token (``/api/bot/...``; docs/app.md, "Bots").

The bot API reuses the app's routes where they exist, with the token in place of a
cookie: ``POST /api/challenges/<id>/accept`` and ``.../decline``, ``POST
/api/games/<id>/moves``, ``POST /api/games/<id>/resign``, ``GET /api/games/<id>``. What
is its own: the event stream (:mod:`hexstones.web.bot_events`) and a game's state as a
program needs it.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse

from hexstones.web import seats
from hexstones.web.accounts import Identity
from hexstones.web.bot_events import bot_state, events
from hexstones.web.deps import LiveGame, PeopleDep, Person, TablesDep
from hexstones.web.errors import WebError
from hexstones.web.inputs import EMPTY_BODY, NO_PARAMS, JSONBody

router = APIRouter()


def bot_program(who: Person) -> Identity:
    """Who asks, if it is a bot's program: a 401 without a token (the bot API takes no cookie)."""
    if who is None or who.token is None:
        raise WebError(401, "the bot API takes a bot account's token: send 'Authorization: Bearer TOKEN' "
                            "(made on the bot account's page)")
    return who


BotProgram = Annotated[Identity, Depends(bot_program)]


# -- the account page ----------------------------------------------------------------------------

@router.post("/api/account/bot")
def mark_bot(data: Annotated[dict[str, Any], Depends(JSONBody("confirm"))], who: Person, people: PeopleDep,
             tables: TablesDep):
    """Make the signed-in account a bot, for good (``confirm``: its name as written); only
    an account that has played no game."""
    someone = seats.require_someone(who)
    played = any(seats.is_player(row["setup"], someone) for row in tables.list())
    people.bot_accounts.mark(who, data.get("confirm"), played)
    return {"bot": True, "name": someone.name}


@router.get("/api/account/tokens", dependencies=[NO_PARAMS])
def list_tokens(who: Person, people: PeopleDep):
    """The bot account's tokens, newest first (never the tokens themselves)."""
    return {"tokens": people.bot_accounts.tokens(who)}


@router.post("/api/account/tokens", status_code=201)
def make_token(data: Annotated[dict[str, Any], Depends(JSONBody("label"))], who: Person, people: PeopleDep):
    """A new token of the bot account: ``token`` is in this answer only, never again."""
    return people.bot_accounts.make_token(who, data.get("label"))


@router.delete("/api/account/tokens/{token_id}", dependencies=[EMPTY_BODY])
def revoke_token(token_id: str, who: Person, people: PeopleDep):
    """Revoke a token: it stops working at once."""
    return people.bot_accounts.revoke(who, token_id)


# -- the bot API ---------------------------------------------------------------------------------

@router.get("/api/bot/events", dependencies=[NO_PARAMS])
def bot_events(request: Request, who: BotProgram):
    """The bot's events, one JSON object a line, kept open (:mod:`hexstones.web.bot_events`)."""
    # A reverse proxy (nginx) would hold the lines back to fill its buffer: this one it passes at once.
    return StreamingResponse(events(request.app, who), media_type="application/x-ndjson",
                             headers={"X-Accel-Buffering": "no"})


@router.get("/api/bot/games/{game_id}", dependencies=[NO_PARAMS])
def bot_game(live: LiveGame, who: BotProgram):
    """One of the bot's games as its events give it (:func:`~hexstones.web.bot_events.bot_state`)."""
    state = bot_state(live, who)
    if not state["colors"]:
        raise WebError(403, "this bot holds no seat in this game: the bot API gives its own games")
    return state
