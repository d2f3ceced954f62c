"""The archive of finished games (:mod:`hexstones.web.archive`): its page ``/games``, its
search ``/api/archive`` and a player's games as one SGF collection
(``/api/players/<name>/games.sgf``)."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from hexstones.web.archive import SEARCH_PARAMS, archive_of, parse_search
from hexstones.web.deps import PeopleDep, Person, TablesDep
from hexstones.web.errors import WebError, shown
from hexstones.web.inputs import NO_PARAMS, Params
from hexstones.web.pages import page
from hexstones.web.spec import game_specs

router = APIRouter()


@router.get("/games", include_in_schema=False)
def archive_page(params: Annotated[dict[str, str], Depends(Params(*SEARCH_PARAMS))]):
    # The page's script runs the search of its address: a bad one is said there.
    return page("games.html", games=game_specs())


@router.get("/api/archive")
def search_archive(params: Annotated[dict[str, str], Depends(Params(*SEARCH_PARAMS))], request: Request,
                   people: PeopleDep, who: Person):
    """The finished games the person asking may see (public ones, and their own), newest
    first, :data:`~hexstones.web.archive.PAGE_SIZE` a page: ``{games: [{id, url, game,
    title, size, name, players: [{color, name, rating}], clock, rated, public, result:
    {winner, reason, text}, ended, moves}], page, per_page, more}``. Parameters (all
    optional): ``player`` (an account's name), ``game``, ``size``, ``result`` (black,
    white, resignation, time, rules, aborted), ``from`` and ``to`` (UTC days, YYYY-MM-DD,
    both included), ``page``."""
    search = parse_search(params, people.accounts.named)
    return archive_of(request.app).search(search, who)


@router.get("/api/players/{name}/games.sgf", dependencies=[NO_PARAMS])
def player_games_sgf(name: str, request: Request, people: PeopleDep, tables: TablesDep, who: Person):
    """The account's finished games the person asking may see (its newest 500), one SGF
    collection, newest first (``X-Games``: how many)."""
    found = people.accounts.named(name)
    if found is None:
        raise WebError(404, "no player named {name}", name=shown(name))
    user, written = found
    text, count = archive_of(request.app).collection(user, who, tables)
    filename = f"hexstones-{written}-games.sgf"
    ascii_name = "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in filename)
    return Response(text, media_type="application/x-go-sgf", headers={
        "Content-Disposition": f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(filename)}",
        "X-Games": str(count)})
