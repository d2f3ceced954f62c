"""What the routes take from the app and from the request, as FastAPI dependencies.

The app's objects live on ``app.state`` (set by :func:`hexstones.web.create_app`): its
settings, the games (:class:`Tables`), their store, the people (:class:`People`) and the
analyses. A route names what it needs with the ``Annotated`` types below (``tables:
TablesDep``), and the game of its path with ``live: LiveGame``: looked up in a worker
thread (a game not in memory is replayed from the store), a 404 for an unknown id. The
games' and the people's dependencies work for WebSockets too.
"""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection, Request

from hexstones.web.accounts import Identity
from hexstones.web.analysis import Analyses
from hexstones.web.errors import WebError
from hexstones.web.game_setup import GameSetup
from hexstones.web.live import Live, Tables
from hexstones.web.mail import Notices
from hexstones.web.online import People
from hexstones.web.settings import AppSettings
from hexstones.web.store import Store
from hexstones.web.vacations import Vacations


async def get_settings(conn: HTTPConnection) -> AppSettings:
    """The app's settings."""
    return conn.app.state.settings


async def get_tables(conn: HTTPConnection) -> Tables:
    """The app's games."""
    return conn.app.state.tables


async def get_store(conn: HTTPConnection) -> Store:
    """The app's store of games."""
    return conn.app.state.store


async def get_people(conn: HTTPConnection) -> People:
    """The app's accounts and sessions: who asks."""
    return conn.app.state.people


async def get_analyses(conn: HTTPConnection) -> Analyses:
    """The app's analyses of games."""
    return conn.app.state.analyses


async def get_vacations(conn: HTTPConnection) -> Vacations:
    """The accounts' vacations from correspondence play."""
    return conn.app.state.vacations


async def get_notices(conn: HTTPConnection) -> Notices:
    """The email notices of correspondence play."""
    return conn.app.state.notices


SettingsDep = Annotated[AppSettings, Depends(get_settings)]
TablesDep = Annotated[Tables, Depends(get_tables)]
StoreDep = Annotated[Store, Depends(get_store)]
PeopleDep = Annotated[People, Depends(get_people)]
AnalysesDep = Annotated[Analyses, Depends(get_analyses)]
VacationsDep = Annotated[Vacations, Depends(get_vacations)]
NoticesDep = Annotated[Notices, Depends(get_notices)]


def live_game(game_id: str, tables: TablesDep) -> Live:
    """The game of the path's ``game_id`` (a 404 naming an unknown id)."""
    return tables.get(game_id)


LiveGame = Annotated[Live, Depends(live_game)]


def person(request: Request, people: PeopleDep) -> Identity | None:
    """Who asks: the session of the request's cookie (None without one, or expired)."""
    return people.who(request)


Person = Annotated[Identity | None, Depends(person)]


def held(people: People, request: Request, live: Live) -> GameSetup:
    """The game's setup once the request's person may be its owner (a game stored before
    seats existed goes to the first person who acts in it)."""
    people.take_unowned(live, people.who(request))
    return live.setup


def invited(tables: Tables, game_id: str, secret: str) -> Live:
    """The game whose invitation has this secret; a 404 for a wrong one."""
    live = tables.get(game_id)
    real = live.setup.invite
    if real is None or not secrets.compare_digest(real.encode(), secret.encode()):
        raise WebError(404, "no such invitation: check the link you were sent")
    return live


def invitation(game_id: str, secret: str, tables: TablesDep) -> Live:
    """The game of the path's invitation (``{game_id}/{secret}``); a 404 for a wrong one."""
    return invited(tables, game_id, secret)


Invitation = Annotated[Live, Depends(invitation)]
