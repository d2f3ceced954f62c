"""The HTML pages: the start page, a game link (``/new``), a game, the rules, the
account, an invitation. None of them is part of the API's description."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse

from hexstones import games
from hexstones.web.deps import PeopleDep, TablesDep, invitation, live_game
from hexstones.web.errors import WebError, shown
from hexstones.web.i18n import current
from hexstones.web.inputs import NO_PARAMS, Params
from hexstones.web.lobby import lobby_of, seek_choices
from hexstones.web.pages import NO_CACHE, THEME_COLOR, ask_to_start_page, page, static_file
from hexstones.web.security import opened_here
from hexstones.web.setup import parse_setup

router = APIRouter(include_in_schema=False)


@router.get("/")
def index(request: Request):
    return HTMLResponse(request.app.state.start_pages[current()], headers=NO_CACHE)


@router.get("/new")
def new(params: Annotated[dict[str, str], Depends(Params(any_known=True))], request: Request,
        tables: TablesDep, people: PeopleDep):
    opponent = params["opponent"].strip().lower() if isinstance(params.get("opponent"), str) else None
    if opponent in ("seek", "challenge"):
        # A seek or a challenge, not a game: the lobby checks and keeps it.
        choices = {key: value for key, value in params.items() if key != "opponent"}
        to = choices.pop("to", None) if opponent == "challenge" else None  # a seek's "to" is refused
        if not opened_here(request.headers):
            seek_choices(choices, opponent)  # a bad link says what is wrong here too
            return ask_to_start_page(params)  # another site's link, image or frame offers nothing
        lobby = lobby_of(request.app)
        if opponent == "challenge":
            seek = lobby.challenge(people.session(request), to, choices)
        else:
            seek = lobby.make(people.session(request), choices)
        return RedirectResponse(f"/seek/{seek.id}", status_code=303)
    if not opened_here(request.headers):
        parse_setup(params)  # a bad link says what is wrong here too
        return ask_to_start_page(params)  # another site's link, image or frame creates nothing
    answer = tables.create(params, claim=people.claim(request))
    people.seated(request, answer["id"])
    return RedirectResponse(f"/game/{answer['id']}", status_code=303)


# The page of an unknown game, or a wrong invitation, is a 404.
@router.get("/game/{game_id}", dependencies=[Depends(Params("at")), Depends(live_game)])
def game_page():
    return page("game.html")


@router.get("/rules", dependencies=[NO_PARAMS])
def rules_index():
    return page("rules.html")


@router.get("/rules/text", dependencies=[NO_PARAMS])
def rules_text():
    """The exact rules, every reading of the designers' texts fixed (docs/rules.md)."""
    return static_file("rules", "rules.md", media_type="text/plain; charset=utf-8")


@router.get("/rules/{name}", dependencies=[NO_PARAMS])
def rules_page(name: str):
    if name not in games.GAME_NAMES:
        raise WebError(404, "no rules page for {name}: the games are {games}", name=shown(name),
                       games=", ".join(games.GAME_NAMES))
    return page("rules.html")


# What a browser needs to install the app (a phone's home screen, a desktop window).
MANIFEST = {
    "name": "hexstones: Keil, Dehil and Droched",
    "short_name": "hexstones",
    "description": "Play Keil, Dehil and Droched on the hexagonal board, against the AI or people.",
    "start_url": "/",
    "scope": "/",
    "display": "standalone",
    "background_color": "#f6f1e7",
    "theme_color": THEME_COLOR,
    "icons": [
        {"src": "/static/icon-192.png", "sizes": "192x192", "type": "image/png"},
        {"src": "/static/icon-512.png", "sizes": "512x512", "type": "image/png"},
        {"src": "/static/favicon.svg", "sizes": "any", "type": "image/svg+xml"},
    ],
}


@router.get("/manifest.webmanifest", dependencies=[NO_PARAMS])
def manifest():
    return JSONResponse(MANIFEST, media_type="application/manifest+json")


@router.get("/account", dependencies=[NO_PARAMS])
def account_page():
    return page("account.html")


@router.get("/invite/{game_id}/{secret}", dependencies=[NO_PARAMS, Depends(invitation)])
def invite_page():
    return page("invite.html")


@router.get("/unsubscribe/{token}", dependencies=[NO_PARAMS])
def unsubscribe_page(token: str, request: Request):
    """An email notice's unsubscribe link: a page that asks (a mail program opening the
    link to look at it must not unsubscribe anyone)."""
    if not request.app.state.notices.known(token):
        raise WebError(404, "this unsubscribe link is unknown (its account may be gone)")
    return page("unsubscribe.html")
