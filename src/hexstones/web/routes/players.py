"""Players: an account's profile (``/players/<name>``, ``/api/players/<name>``: its ratings,
one per game, their history and its recent games) and each game's leaderboard
(``/leaderboard/<game>``, ``/api/leaderboard/<game>``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request

from hexstones.games import GAME_NAMES, other
from hexstones.web import seats
from hexstones.web.archive import archive_of
from hexstones.web.deps import PeopleDep, Person, TablesDep
from hexstones.web.errors import WebError, shown
from hexstones.web.inputs import NO_PARAMS
from hexstones.web.pages import page
from hexstones.web.spec import spec_of
from hexstones.web.texts import control_text

router = APIRouter()

ACTIVE_DAYS = 90  # a leaderboard lists the players with a rated game this recent
RECENT_GAMES = 30  # games a profile lists


def _account(people, name: str) -> tuple[str, str]:
    found = people.accounts.named(name)
    if found is None:
        raise WebError(404, "no player named {name}", name=shown(name))
    return found


def _recent(tables, user: str, asker) -> list[dict[str, Any]]:
    """``user``'s latest games between two people online: their public ones, and to the
    player themselves all of them."""
    games = []
    for row in tables.list():
        setup = row["setup"]
        mine = [c for c in ("black", "white") if (seat := seats.seat_of(setup, c)) is not None and seat.user == user]
        if not mine or not (setup.public or seats.is_player(setup, asker)):
            continue
        opponent = seats.seat_of(setup, other(mine[0]))
        games.append({"id": row["id"], "game": row["game"], "title": spec_of(row["game"])["title"],
                      "size": row["options"].get("size"), "color": mine[0],
                      "opponent": opponent.name if opponent is not None else None,
                      "rated": setup.rated,
                      "clock": None if setup.time_control is None else control_text(setup.time_control.describe()),
                      "finished": bool(row["finished"]), "summary": row["summary"], "updated": row["updated"]})
        if len(games) == RECENT_GAMES:
            break
    return games


@router.get("/api/players/{name}", dependencies=[NO_PARAMS])
def player(name: str, request: Request, people: PeopleDep, tables: TablesDep, who: Person):
    """``{name, bot, ratings: {game: {rating, deviation, games, provisional}}, history: {game:
    [{game, at, rating, deviation}]}, games: [...]}``: the account's Glicko-2 rating in each
    game (1500 and a deviation of 350 before its first rated game), its rating after each
    rated game, and its latest games (public ones; all of them to the player); ``bot``: a
    program plays it (the AI's, or an outside engine's). ``record``: its wins, losses...
    in each game, and ``recent``: its latest finished games as the archive lists them,
    both over the games the person asking may see (:mod:`hexstones.web.archive`); a
    history point's ``game`` is null for a game they may not see."""
    user, written = _account(people, name)
    ratings = request.app.state.ratings
    history = {game: ratings.history(user, game) for game in GAME_NAMES}
    archive = archive_of(request.app)
    seen = archive.visible(sorted({p["game"] for points in history.values() for p in points}), who)
    history = {game: [dict(p, game=p["game"] if p["game"] in seen else None) for p in points]
               for game, points in history.items()}
    bot = people.bot_accounts.is_bot(user) or request.app.state.bots.level_of(user) is not None
    return {"name": written, "bot": bot, "ratings": ratings.of(user), "history": history,
            "games": _recent(tables, user, who), "record": archive.record(user, who),
            "recent": archive.recent(user, who)}


@router.get("/api/leaderboard/{game}", dependencies=[NO_PARAMS])
def leaderboard(game: str, request: Request):
    """The players of ``game`` with a rated game in the last :data:`ACTIVE_DAYS` days, best
    rating first (at most 100)."""
    if game not in GAME_NAMES:
        raise WebError(404, "no game {name}: the games are {games}", name=shown(game), games=", ".join(GAME_NAMES))
    since = request.app.state.settings.clock() - ACTIVE_DAYS * 86400
    return {"game": game, "title": spec_of(game)["title"], "active_days": ACTIVE_DAYS,
            "players": request.app.state.ratings.leaderboard(game, since)}


@router.get("/players/{name}", include_in_schema=False, dependencies=[NO_PARAMS])
def player_page(name: str, people: PeopleDep):
    _account(people, name)
    return page("player.html")


@router.get("/leaderboard/{game}", include_in_schema=False, dependencies=[NO_PARAMS, Depends(leaderboard)])
def leaderboard_page():
    return page("leaderboard.html")


@router.get("/api/bots", dependencies=[NO_PARAMS])
def bots(request: Request):
    """The AI's accounts and the outside engines' bot accounts (``outside``): ``{bots:
    [{name, level, bot, outside, seconds_a_move, ratings}]}``;
    challenge one by its name."""
    state = request.app.state
    return {"bots": state.bots.listing(state.ratings)}
