"""Tournaments (:mod:`hexstones.web.tournaments`): the list and the form that makes one
(``/tournaments``), a tournament's page with its crosstable and standings
(``/tournaments/<id>``), and the API: make, look, join, leave, add one of the AI's
accounts, start."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from starlette.requests import HTTPConnection

from hexstones.web.deps import Person
from hexstones.web.inputs import EMPTY_BODY, NO_PARAMS, JSONBody
from hexstones.web.pages import page
from hexstones.web.spec import game_specs
from hexstones.web.tournaments import Tournaments, tournaments_of

router = APIRouter()


async def get_tournaments(conn: HTTPConnection) -> Tournaments:
    """The app's tournaments."""
    return tournaments_of(conn.app)


TournamentsDep = Annotated[Tournaments, Depends(get_tournaments)]


# -- pages ---------------------------------------------------------------------------------------

@router.get("/tournaments", dependencies=[NO_PARAMS], include_in_schema=False)
def tournaments_page():
    return page("tournaments.html", games=game_specs())


# The page of an unknown tournament is a 404.
@router.get("/tournaments/{tournament_id}", dependencies=[NO_PARAMS], include_in_schema=False)
def tournament_page(tournament_id: str, tournaments: TournamentsDep):
    tournaments.get(tournament_id)
    return page("tournament.html")


# -- the API -------------------------------------------------------------------------------------

@router.get("/api/tournaments", dependencies=[NO_PARAMS])
def list_tournaments(tournaments: TournamentsDep):
    """``{upcoming, running, finished}``: the tournaments open to join, being played, and
    over (or cancelled), newest first."""
    return tournaments.listing()


@router.post("/api/tournaments", status_code=201)
def make_tournament(data: Annotated[dict[str, Any], Depends(JSONBody(any_known=True))], who: Person,
                    tournaments: TournamentsDep):
    """A new tournament, open to join: ``name``; ``system`` ("swiss", the default, or
    "round-robin"); ``rounds`` (Swiss, 1 to 20, 3 by default); ``max_players`` (2 to 64);
    ``starts_at`` (seconds since 1970; left out: its creator starts it); and its games'
    choices as a seek's: ``game``, ``size``, ``komi``, ``clock`` (required), ``rated``,
    ``public`` ("yes" by default). Only accounts make tournaments."""
    made = tournaments.create(who, data)
    return tournaments.view(made.id, who)


@router.get("/api/tournaments/{tournament_id}", dependencies=[NO_PARAMS])
def get_tournament(tournament_id: str, who: Person, tournaments: TournamentsDep):
    """The tournament: its choices and status, ``players``, ``rounds`` (each board's players,
    game and result, and the bye), ``standings`` and ``crosstable``; brought up to date first."""
    tournaments.get(tournament_id)
    tournaments.advance(tournament_id)
    return tournaments.view(tournament_id, who)


@router.post("/api/tournaments/{tournament_id}/join", dependencies=[EMPTY_BODY])
def join_tournament(tournament_id: str, who: Person, tournaments: TournamentsDep):
    """The account asking joins (before the start)."""
    tournaments.join(tournament_id, who)
    return tournaments.view(tournament_id, who)


@router.post("/api/tournaments/{tournament_id}/leave", dependencies=[EMPTY_BODY])
def leave_tournament(tournament_id: str, who: Person, tournaments: TournamentsDep):
    """The account asking leaves (before the start)."""
    tournaments.leave(tournament_id, who)
    return tournaments.view(tournament_id, who)


@router.post("/api/tournaments/{tournament_id}/bots")
def add_bot(tournament_id: str, data: Annotated[dict[str, Any], Depends(JSONBody("name"))], who: Person,
            tournaments: TournamentsDep):
    """The creator adds one of the AI's accounts (``name``: ``level2-bot`` ...), if its
    level can keep the tournament's clock."""
    tournaments.add_bot(tournament_id, who, data.get("name"))
    return tournaments.view(tournament_id, who)


@router.post("/api/tournaments/{tournament_id}/start", dependencies=[EMPTY_BODY])
def start_tournament(tournament_id: str, who: Person, tournaments: TournamentsDep):
    """The creator starts the tournament now (at least 2 players): round 1 is paired and
    its games start."""
    tournaments.start(tournament_id, who)
    return tournaments.view(tournament_id, who)
