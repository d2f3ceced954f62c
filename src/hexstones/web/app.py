"""The browser app: the FastAPI application over :mod:`hexstones.web.live` and the static
front end, with its middleware, its answers to refusals and its start and stop.

Pages: ``/`` (new game, stored games, load SGF), ``/new?...`` (a link that creates a game
and redirects to it; opened from another site, a page that asks first), ``/game/<id>`` (the
game), ``/rules`` and ``/rules/<game>`` (the rules with boards to try; their examples are
``static/rules/<game>.json``, judged by ``POST /api/position``). JSON API under ``/api``;
every refusal is an HTTP error whose ``detail`` (a string) says what and why, and changes
nothing: a request is checked whole (body, parameters, overlays) before anything is done.
The routes are :mod:`hexstones.web.routes`, one router per resource.

A request body is at most :data:`MAX_BODY` bytes (413 beyond, refused while it is being
read); the work of a request (replays, SGF parsing, drawing) runs in worker threads, never
on the event loop, so one request cannot stall the others.
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware.gzip import GZipMiddleware

from hexstones.web import texts
from hexstones.web.accounts import COOKIE as SESSION_COOKIE
from hexstones.web.analysis import Analyses, AnalysisStore
from hexstones.web.bots import Bots
from hexstones.web.chat import Chat
from hexstones.web.errors import WebError
from hexstones.web.i18n import Language
from hexstones.web.live import LIVE_GAMES, Tables
from hexstones.web.lobby import Lobby
from hexstones.web.mail import Mailer, MailSettings, Notices
from hexstones.web.middleware import AnswerErrors, BodyLimit, NoStore
from hexstones.web.online import People
from hexstones.web.pages import STATIC, refusal, start_pages
from hexstones.web.play_path import PlayPath
from hexstones.web.ratings import Ratings
from hexstones.web.routes import ROUTERS
from hexstones.web.security import Guard
from hexstones.web.settings import AppSettings
from hexstones.web.store import Store
from hexstones.web.tournaments import Tournaments
from hexstones.web.vacations import Vacations

GZIP_FROM = 1400  # bytes: smaller answers fit one packet as they are
MAX_BODY = 1024 * 1024  # bytes: an SGF record of a game far longer than any played in the app
log = logging.getLogger("hexstones.web")


def create_app(db_path: str, *, ai_processes: int = 2, warm_ai: bool = False,
               origins: frozenset[str] = frozenset(), games_per_minute: int | None = None,
               live_games: int = LIVE_GAMES, clock: Callable[[], float] = time.time,
               mail: MailSettings | None = None) -> FastAPI:
    """The app, storing its games in the SQLite file ``db_path`` (created if missing) or the
    PostgreSQL database it names (``postgresql://...``, shared with other servers);
    the AI thinks in up to ``ai_processes`` other processes, which with ``warm_ai`` start
    at once and compile the kernels ahead (``hexstones serve`` does; tests need not).
    ``origins``: the addresses (``https://example.org``) the app is reached at besides
    its Host header's, behind a proxy that rewrites it; requests from any other site
    that would change something are refused. ``games_per_minute``: the new games one
    person may start in a minute (None: no limit); ``live_games``: the games kept in memory;
    ``clock``: the time the app's rules read (tests give one they control); ``mail``: the
    SMTP server that sends the email notices of correspondence games (None: no email).

    ValueError (one line naming the file) if the database cannot be used: in use by
    another server, empty, damaged. A stored game that cannot be read is logged and skipped.
    """
    return build_app(AppSettings(db_path, ai_processes=ai_processes, warm_ai=warm_ai, origins=origins,
                              games_per_minute=games_per_minute, live_games=live_games, clock=clock,
                              mail=mail))


def build_app(settings: AppSettings) -> FastAPI:
    """The app of ``settings`` (:func:`create_app`): its games, people and analyses on
    ``app.state``, its middleware, its answers to refusals and its routes."""
    store = Store(settings.db_path)
    tables = Tables(store, ai_processes=settings.ai_processes, warm_ai=settings.warm_ai,
                    live_games=settings.live_games, clock=settings.clock)
    try:
        problems = tables.fill_in_finished()
    except BaseException:
        tables.close()
        store.close()
        raise
    analyses = Analyses(AnalysisStore(store), tables.ai_call, tables.get, background=tables.ai_call_in_background)
    for problem in problems:
        log.warning("%s: %s; this game is skipped", settings.db_path, problem)
    try:
        people = People(tables, settings.games_per_minute, settings.clock)
    except BaseException:
        tables.close()
        store.close()
        raise

    app = FastAPI(title="hexstones", lifespan=lifespan)
    app.state.settings = settings
    app.state.tables = tables
    app.state.store = store
    app.state.problems = problems
    app.state.analyses = analyses
    app.state.people = people
    app.state.vacations = Vacations(tables, settings.clock)
    app.state.ratings = Ratings(tables, settings.clock)
    app.state.bots = Bots(tables, settings.clock)
    app.state.lobby = Lobby(tables, settings.clock, app.state.ratings, app.state.bots)
    app.state.tournaments = Tournaments(tables, settings.clock, app.state.ratings, app.state.bots)
    app.state.chat = Chat(store, settings.clock)
    app.state.notices = Notices(tables, None if settings.mail is None else Mailer(settings.mail), settings.clock)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    # A state answer is ~50 KB (the board's SVG), ~6 KB compressed at level 1 in 0.1 ms: a
    # remote player's page gets it 8x sooner. No secret shares an answer with input an
    # attacker could vary across requests, and the SameSite cookie keeps other sites' requests
    # anonymous, so compression reveals nothing (BREACH).
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_FROM, compresslevel=1)
    # A move and a state fetch, without the routing; their answers compress themselves.
    app.add_middleware(PlayPath)
    app.add_middleware(AnswerErrors)
    app.add_middleware(NoStore)
    app.add_middleware(BodyLimit, limit=MAX_BODY)
    app.add_middleware(Guard, origins=settings.origins)

    async def remember_language(scope: dict, language: str) -> None:
        token = Request(scope).cookies.get(SESSION_COOKIE)
        if token:
            await run_in_threadpool(people.remember_language, token, language)

    # Outermost: refusals are in the request's language too.
    app.add_middleware(Language, remember=remember_language)
    app.add_exception_handler(WebError, web_error)  # type: ignore[arg-type]
    app.add_exception_handler(HTTPException, http_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, validation_error)  # type: ignore[arg-type]
    app.state.start_pages = start_pages()  # made once per language
    for router in ROUTERS:
        app.include_router(router)
    return app


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """The app's start and stop: games that were waiting for the AI when the server stopped
    get their turn back, and the games' clocks are watched (a game ends on time with no page
    open); at the stop, the analyses, the games and their store close."""
    state = app.state
    state.tables.keep_time()
    for row in state.store.list():
        if not row["setup"].against_ai or row["finished"]:
            continue  # no AI to wake: leave it on disk until someone opens it
        try:
            await run_in_threadpool(state.tables.get, row["id"])
        except WebError as exc:
            log.warning("%s", exc.message)
    # What start-up made (the rules' kernels, the templates, the catalogues) lives as long
    # as the server: out of the garbage collector's passes, which a move's many small
    # objects start often.
    gc.freeze()
    yield
    if state.notices.mailer is not None:
        state.notices.mailer.close()
    state.analyses.close()
    state.tables.close()
    state.store.close()


async def web_error(request: Request, exc: WebError) -> Response:
    return refusal(request, exc.status, texts.error_text(exc.template, exc.values, exc.message, exc.phrases))


async def http_error(request: Request, exc: HTTPException) -> Response:
    return refusal(request, exc.status_code, str(exc.detail))


async def validation_error(request: Request, exc: RequestValidationError) -> Response:
    # One error shape everywhere: a sentence, not FastAPI's list.
    problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
    return refusal(request, 400, f"bad request: {problems}")
