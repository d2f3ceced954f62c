"""The browser app: FastAPI routes over :mod:`hexstones.web.live` and the static front end.

Pages: ``/`` (new game, stored games, load SGF), ``/new?...`` (a link that creates a game
and redirects to it; opened from another site, a page that asks first), ``/game/<id>`` (the
game), ``/rules`` and ``/rules/<game>`` (the rules with boards to try; their examples are
``static/rules/<game>.json``, judged by ``POST /api/position``). JSON API under ``/api``;
every refusal is an HTTP error whose ``detail`` (a string) says what and why, and changes
nothing: a request is checked whole (body, parameters, overlays) before anything is done.

A request body is at most :data:`MAX_BODY` bytes (413 beyond, refused while it is being
read); the work of a request (replays, SGF parsing, drawing) runs in worker threads, never
on the event loop, so one request cannot stall the others.
"""

from __future__ import annotations

import json
import logging
import threading
from contextlib import asynccontextmanager
from functools import lru_cache
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware.gzip import GZipMiddleware

from hexstones import games
from hexstones.web import seats, view
from hexstones.web.answer import StateAnswer
from hexstones.web.errors import WebError, only_known, shown, valid_text, whole
from hexstones.web.live import LIVE_GAMES, Live, Tables
from hexstones.web.online import People, install
from hexstones.web.position import position
from hexstones.web.security import Guard, opened_here
from hexstones.web.setup import DEFAULT_LEVEL, parse_setup
from hexstones.web.spec import game_specs, overlay_legends
from hexstones.web.store import Store

STATIC = Path(__file__).parent / "static"
GZIP_FROM = 1400  # bytes: smaller answers fit one packet as they are
MAX_BODY = 1024 * 1024  # bytes: an SGF record of a game far longer than any played in the app
MAX_PLAYER_NAME = 100  # characters of a player's name kept from an imported record
MAX_JSON_DEPTH = 8  # nesting levels: no request of the API needs more than 2
log = logging.getLogger("hexstones.web")


def create_app(db_path: str, *, ai_processes: int = 2, warm_ai: bool = False,
               origins: frozenset[str] = frozenset(), games_per_minute: int | None = None,
               live_games: int = LIVE_GAMES) -> FastAPI:
    """The app, storing its games in the SQLite file ``db_path`` (created if missing) or the
    PostgreSQL database it names (``postgresql://...``, shared with other servers);
    the AI thinks in up to ``ai_processes`` other processes, which with ``warm_ai`` start
    at once and compile the kernels ahead (``hexstones serve`` does; tests need not).
    ``origins``: the addresses (``https://example.org``) the app is reached at besides
    its Host header's, behind a proxy that rewrites it; requests from any other site
    that would change something are refused. ``games_per_minute``: the new games one
    person may start in a minute (None: no limit); ``live_games``: the games kept in memory.

    ValueError (one line naming the file) if the database cannot be used: in use by
    another server, empty, damaged. A stored game that cannot be read is logged and skipped.
    """
    store = Store(db_path)
    tables = Tables(store, ai_processes=ai_processes, warm_ai=warm_ai, live_games=live_games)
    try:
        problems = tables.fill_in_finished()
    except BaseException:
        tables.close()
        store.close()
        raise
    from hexstones.web.analysis import Analyses, AnalysisStore, add_routes as add_analysis_routes

    analyses = Analyses(AnalysisStore(store), tables.ai_call, tables.get, background=tables.ai_call_in_background)
    for problem in problems:
        log.warning("%s: %s; this game is skipped", db_path, problem)
    try:
        people = People(tables, games_per_minute)
    except BaseException:
        tables.close()
        store.close()
        raise

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        # Games that were waiting for the AI when the server stopped get their turn back.
        for row in store.list():
            if row["setup"].get("opponent") != "ai" or row["finished"]:
                continue  # no AI to wake: leave it on disk until someone opens it
            try:
                await run_in_threadpool(tables.get, row["id"])
            except WebError as exc:
                log.warning("%s", exc.message)
        yield
        analyses.close()
        tables.close()
        store.close()

    app = FastAPI(title="hexstones", lifespan=lifespan)
    app.state.tables = tables
    app.state.store = store
    app.state.problems = problems
    app.state.analyses = analyses
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    # A state answer is ~50 KB (the board's SVG), ~6 KB compressed at level 1 in 0.1 ms: a
    # remote player's page gets it 8x sooner. No secret shares an answer with input an
    # attacker could vary across requests, and the SameSite cookie keeps other sites' requests
    # anonymous, so compression reveals nothing (BREACH).
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_FROM, compresslevel=1)
    app.add_middleware(AnswerErrors)
    app.add_middleware(NoStore)
    app.add_middleware(BodyLimit, limit=MAX_BODY)
    app.add_middleware(Guard, origins=origins)

    @app.exception_handler(WebError)
    async def web_error(request: Request, exc: WebError):
        return _refusal(request, exc.status, exc.message)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException):
        return _refusal(request, exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError):
        # One error shape everywhere: a sentence, not FastAPI's list.
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        return _refusal(request, 400, f"bad request: {problems}")

    async def body(request: Request, known: tuple[str, ...] | None) -> dict[str, Any]:
        """The request's JSON object (with only ``known`` fields unless None: the caller
        checks them); a 400 saying why if not."""
        query(request, ())
        raw = await request.body()
        if not raw.strip():
            return {}
        try:
            data = json.loads(raw, parse_constant=_no_constant)
        except RecursionError:
            raise WebError(400, f"the request body nests deeper than {MAX_JSON_DEPTH} levels") from None
        except ValueError:
            raise WebError(400, "the request body is not valid JSON") from None
        if _depth(data) > MAX_JSON_DEPTH:
            raise WebError(400, f"the request body nests deeper than {MAX_JSON_DEPTH} levels")
        if not isinstance(data, dict):
            raise WebError(400, f"the request body must be a JSON object, not {type(data).__name__}")
        valid_text(data)
        if known is not None:
            only_known(data, known, "field")
        return data

    who = people.who
    reading_records = threading.Lock()

    def held(request: Request, live: Live) -> dict:
        """The game's setup once the request's person may be its owner (an old game)."""
        people.take_unowned(live, who(request))
        return live.setup

    install(app, people, body, query)

    # -- pages ------------------------------------------------------------------------

    start_page = _filled_start_page((STATIC / "index.html").read_text())

    @app.get("/", include_in_schema=False)
    def index():
        return HTMLResponse(start_page, headers={"Cache-Control": "no-cache"})

    @app.get("/new", include_in_schema=False)
    def new(request: Request):
        params = query(request, None)
        if not opened_here(request.headers):
            parse_setup(params)  # a bad link says what is wrong here too
            return _start_page(params)  # another site's link, image or frame creates nothing
        answer = tables.create(params, claim=people.claim(request))
        people.seated(request, answer["id"])
        return RedirectResponse(f"/game/{answer['id']}", status_code=303)

    @app.get("/game/{game_id}", include_in_schema=False)
    def game_page(game_id: str, request: Request):
        query(request, ("at",))
        tables.get(game_id)  # 404 for an unknown id
        return FileResponse(STATIC / "game.html", headers={"Cache-Control": "no-cache"})

    @app.get("/rules", include_in_schema=False)
    def rules_index(request: Request):
        query(request, ())
        return FileResponse(STATIC / "rules.html", headers={"Cache-Control": "no-cache"})

    @app.get("/rules/text", include_in_schema=False)
    def rules_text(request: Request):
        """The exact rules, every reading of the designers' texts fixed (docs/rules.md)."""
        query(request, ())
        return FileResponse(STATIC / "rules" / "rules.md", media_type="text/plain; charset=utf-8",
                            headers={"Cache-Control": "no-cache"})

    @app.get("/rules/{name}", include_in_schema=False)
    def rules_page(name: str, request: Request):
        query(request, ())
        if name not in games.GAME_NAMES:
            raise WebError(404, f"no rules page for {shown(name)}: the games are {', '.join(games.GAME_NAMES)}")
        return FileResponse(STATIC / "rules.html", headers={"Cache-Control": "no-cache"})

    # -- API ------------------------------------------------------------------------------

    @app.get("/api/spec")
    def spec(request: Request):
        query(request, ())
        specs = game_specs()
        return {"games": specs, "legends": {name: overlay_legends(name) for name in specs}}

    @app.get("/api/levels")
    def levels(request: Request):
        name, options, _ = parse_setup(query(request, ("game", "size")))
        return {"game": name, "size": options["size"], "levels": _level_guide(name, options["size"])}

    @app.get("/api/ai")
    def ai_state(request: Request):
        query(request, ())
        return {"warming": tables.ai_readiness()}

    @app.post("/api/position")
    async def judge_position(request: Request):
        data = await body(request, None)  # position() names an unknown field
        return await run_in_threadpool(position, data)

    @app.get("/api/games")
    def list_games(request: Request):
        """The games of the person asking (``games``) and others' public games (``watch``)."""
        query(request, ())
        person = who(request)
        rows, watch = [], []
        for row in tables.list():
            if not seats.is_player(row["setup"], person):
                if row["setup"].get("public"):
                    watch.append(seats.list_row(row, person))
                continue
            to_move = None
            if seats.is_friend_game(row["setup"]) and not row["finished"]:
                try:
                    live = tables.get(row["id"])
                    to_move = None if live.over or live.pie_pending else live.game.to_move
                except WebError:
                    pass  # listed as it is stored; opening it says what is wrong
            rows.append(seats.list_row(row, person, to_move))
        return {"games": rows, "watch": watch}

    @app.post("/api/games", status_code=201)
    async def create_game(request: Request):
        data = await body(request, None)  # parse_setup names an unknown choice

        def work():
            live_answer = tables.create(data, claim=people.claim(request))
            people.seated(request, live_answer["id"])
            return people.personal(request, tables.get(live_answer["id"]), live_answer)
        return await run_in_threadpool(work)

    @app.post("/api/games/remove-empty")
    async def remove_empty(request: Request):
        await body(request, ())
        person = seats.require_someone(who(request))

        def work():
            mine = [row["id"] for row in tables.list()
                    if row["move_count"] == 0 and seats.holds(row["setup"].get("owner"), person)]
            for game_id in mine:
                tables.delete(game_id)
            return mine
        return {"deleted": await run_in_threadpool(work)}

    @app.delete("/api/games/{game_id}")
    async def delete_game(game_id: str, request: Request):
        await body(request, ())

        def work():
            live = tables.get(game_id)
            seats.require_owner(held(request, live), who(request), "delete it")
            tables.delete(game_id)
        await run_in_threadpool(work)
        return {"deleted": game_id}

    @app.post("/api/games/{game_id}/name")
    async def name_game(game_id: str, request: Request):
        data = await body(request, ("name", "overlays"))
        if "name" not in data:
            raise WebError(400, "give the name: {\"name\": \"Sunday game\"} (\"\" takes it away)")

        def work():
            live = tables.get(game_id)
            show = view.view_request(live.record.game, None, data.get("overlays"))
            seats.require_owner(held(request, live), who(request), "name it")
            return people.personal(request, live, tables.rename(live, data["name"], show))
        return await run_in_threadpool(work)

    @app.get("/api/games/{game_id}")
    def get_game(game_id: str, request: Request):
        params = query(request, ("at", "overlays", "since", "server"))
        live = tables.get(game_id)
        show = view.view_request(live.record.game, params.get("at"), params.get("overlays"))
        since_text = params.get("since")
        since = None if since_text in (None, "") else whole(since_text, "since")
        server = params.get("server")
        with live.lock:
            # Versions count within one copy of the game (``server``): another process's copy,
            # or this one's after a restart, may be at the same number with other moves.
            if since is not None and since == live.version and server in (None, people.server(live)):
                return {"id": game_id, "version": live.version, "unchanged": True,
                        "ai_thinking": live.ai_busy,
                        "ai_queue": view.ai_queue(live),
                        "ai_warming": live.ai_readiness() if live.against_ai else None}
            answer = people.personal(request, live, view.state(live, show))
        return plain_json(answer)

    @app.post("/api/games/{game_id}/moves")
    async def play(game_id: str, request: Request):
        data = await body(request, ("move", "ply", "overlays"))
        if "move" not in data:
            raise WebError(400, "give the move: {\"move\": \"e5\"} (a point, or a word like 'pass')")

        def work():
            live = tables.get(game_id)
            show = view.view_request(live.record.game, None, data.get("overlays"))
            setup = held(request, live)
            with live.lock:  # the seat is checked against the side to move of this very play
                if not live.over and not live.pie_pending:
                    seats.require_color(setup, who(request), live.game.to_move, "play this move")
                elif not seats.is_player(setup, who(request)):
                    seats.require_player(setup, who(request), "play")
                answer = people.personal(request, live, tables.play(live, data["move"], data.get("ply"), show))
            return plain_json(answer)
        return await run_in_threadpool(work)

    @app.post("/api/games/{game_id}/undo")
    async def undo(game_id: str, request: Request):
        data = await body(request, ("ply", "overlays"))

        def work():
            live = tables.get(game_id)
            show = view.view_request(live.record.game, None, data.get("overlays"))
            setup = held(request, live)
            seats.require_player(setup, who(request), "take a move back")
            if seats.is_friend_game(setup):
                raise WebError(409, "between two people a move is taken back when the opponent "
                                    "agrees: ask for a takeback")
            seats.require_owner(setup, who(request), "take a move back")
            return people.personal(request, live, tables.undo(live, show, ply=data.get("ply")))
        return await run_in_threadpool(work)

    @app.post("/api/games/{game_id}/resign")
    async def resign(game_id: str, request: Request):
        data = await body(request, ("color", "overlays"))

        def work():
            live = tables.get(game_id)
            show = view.view_request(live.record.game, None, data.get("overlays"))
            setup = held(request, live)
            person = who(request)
            mine = seats.require_player(setup, person, "resign")
            color = data.get("color")
            with live.lock:
                if seats.is_friend_game(setup) and color in (None, "") and mine:
                    color = mine[0]
                if color in ("black", "white"):
                    seats.require_color(setup, person, color, "resign")
                return people.personal(request, live, tables.resign(live, color, show))
        return await run_in_threadpool(work)

    @app.post("/api/games/{game_id}/pie")
    async def pie(game_id: str, request: Request):
        data = await body(request, ("komi", "color", "overlays"))

        def work():
            live = tables.get(game_id)
            show = view.view_request(live.record.game, None, data.get("overlays"))
            setup = held(request, live)
            person = seats.require_someone(who(request))
            with live.lock:
                pie = live.pie
                step = "propose" if pie is not None and pie.stage == "propose" else "choose"
                if pie is not None and pie.pending and step not in seats.pie_roles(setup, person):
                    raise WebError(403, f"only the player who {'proposes' if step == 'propose' else 'chooses'} "
                                        f"may {step} in this komi pie")
                return people.personal(request, live, tables.pie(live, data.get("komi"), data.get("color"), show))
        return await run_in_threadpool(work)

    @app.get("/api/games/{game_id}/svg")
    def svg(game_id: str, request: Request):
        params = query(request, ("at", "overlays"))
        live = tables.get(game_id)
        show = view.view_request(live.record.game, params.get("at"), params.get("overlays"))
        with live.lock:
            answer = view.state(live, show)
        return Response(answer["svg"], media_type="image/svg+xml")

    @app.get("/api/games/{game_id}/sgf")
    def sgf(game_id: str, request: Request):
        from hexstones.records import write_sgf

        query(request, ())
        live = tables.get(game_id)
        with live.lock:
            players = live.setup.get("players") or {}
            recorded = live.setup.get("names") or {}  # from an imported record
            names = tuple(
                f"hexstones AI level {live.setup.get('level')}" if players.get(c) == "ai"
                else recorded.get(c) or "Human"
                for c in ("black", "white")
            )
            try:
                text = write_sgf(live.game, players=names, resigned=live.record.resigned,
                                 analysis=analyses.for_record(live))
            except ValueError as exc:
                raise WebError(500, f"cannot write this game as SGF: {exc}") from None
        filename = f"{live.record.game}-{live.record.id}.sgf"
        return Response(text, media_type="application/x-go-sgf",
                        headers={"Content-Disposition": f'attachment; filename="{filename}"'})

    @app.post("/api/import", status_code=201)
    async def import_sgf(request: Request):
        data = await body(request, ("sgf", "opponent", "color", "level"))
        text = data.get("sgf")
        if not isinstance(text, str) or not text.strip():
            raise WebError(400, "give the SGF text: {\"sgf\": \"(;GM[...]...)\"}")

        def work():
            from hexstones.records import SGFError, read_record

            # One record read at a time (a big one is seconds of CPU): the others queue,
            # and the rest of the server keeps its share of the processor.
            with reading_records:
                try:
                    record = read_record(text)
                except (SGFError, ValueError, OverflowError, RecursionError) as exc:
                    raise WebError(400, f"cannot read this SGF: {exc}") from None
            loaded = record.game
            names = {c: record.info[c][:MAX_PLAYER_NAME] for c in ("black", "white") if record.info.get(c)}
            answer = tables.create_from_moves(loaded.name, dict(loaded.options), list(loaded.moves), data,
                                              names, claim=people.claim(request))
            analyses.put_record(answer["id"], record.analysis)
            people.seated(request, answer["id"])
            return answer
        return await run_in_threadpool(work)

    add_analysis_routes(app, tables, analyses, body, query, people)
    return app


def query(request: Request, known: tuple[str, ...] | None) -> dict[str, str]:
    """The query parameters, each given once (and, unless ``known`` is None, only ``known``
    ones); a 400 naming a repeated or unknown one."""
    params: dict[str, str] = {}
    for key, value in request.query_params.multi_items():
        if key in params:
            raise WebError(400, f"the parameter {shown(key)} is given more than once: give it once")
        params[key] = value
    if known is not None:
        only_known(params, known, "parameter")
    return params


def plain_json(answer: dict[str, Any]) -> Response:
    """The answer as FastAPI would send it, without its encoder's walk over every value
    first (a game's state is plain JSON data already: that walk cost more than the rest
    of a move's answer), its board encoded and compressed once per picture."""
    return StateAnswer(answer)


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _depth(data: Any) -> int:
    """How deeply ``data`` nests lists and objects (iteratively: no recursion limit)."""
    deepest, todo = 0, [(data, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, level)
            if level <= MAX_JSON_DEPTH:
                todo.extend((x, level + 1) for x in item)
    return deepest


def _refusal(request: Request, status: int, message: str) -> Response:
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": message}, status_code=status)
    return _error_page(status, message)


@lru_cache(maxsize=64)
def _level_guide(name: str, size: int) -> list[dict[str, Any]]:
    """What each AI level plays on this game and side (:func:`hexstones.ai.level_guide`)."""
    from hexstones import ai

    return ai.level_guide(games.new_game(name, size=size))


GAME_CHOICES = "<!-- one choice per game -->"
LEVEL_NOTE = "<!-- what the level plays -->"


def _filled_start_page(page: str) -> str:
    """The start page with one choice per game (the first chosen) and what the default
    level plays there written in, so that the form has its final layout at the first
    paint: filled in by the script after ``/api/spec`` answered, they pushed what a
    person was aiming at down the page."""
    specs = game_specs()
    choices = "".join(
        f'<label><input type="radio" name="game" value="{escape(name)}"{" checked" if k == 0 else ""}>'
        f"<b>{escape(spec['title'])}</b><small>{escape(spec['summary'])}</small></label>"
        for k, (name, spec) in enumerate(specs.items()))
    from hexstones import ai

    # The default level's line: it never plays the network, so it needs no game (whose
    # kernels the server loads only once the AI's workers have compiled them).
    level, = ai.level_guide(None, [DEFAULT_LEVEL])
    for place in (GAME_CHOICES, LEVEL_NOTE):
        if place not in page:
            raise RuntimeError(f"static/index.html has no {place}")
    return page.replace(GAME_CHOICES, choices).replace(LEVEL_NOTE, escape(level["text"]))


def _start_page(params: dict[str, str]) -> HTMLResponse:
    """The page a game link from another site opens: what the game would be, and one link
    (of this site, so that following it creates the game) to start it."""
    shown_params = "".join(f"<li>{escape(k)}: {escape(v)}</li>" for k, v in params.items())
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><title>hexstones: start a game?</title>"
        "<link rel='stylesheet' href='/static/app.css'></head><body class='error-page'>"
        "<main><h1>Start a new game?</h1><p>A link from another site asks for a new game:</p>"
        f"<ul>{shown_params}</ul>"
        f"<p><a data-testid='start' href='/new?{escape(urlencode(params))}'>Start it</a> "
        "or <a href='/'>go to the start page</a>.</p></main></body></html>"
    )
    return HTMLResponse(page)


def _error_page(status: int, message: str) -> HTMLResponse:
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><title>hexstones: error</title>"
        "<link rel='stylesheet' href='/static/app.css'></head><body class='error-page'>"
        f"<main><h1>{status}</h1><p data-testid='error'>{escape(message)}</p>"
        "<p><a href='/'>Back to the start page</a></p></main></body></html>"
    )
    return HTMLResponse(page, status_code=status)


async def _answer(send, status: int, detail: str, close: bool = False) -> None:
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class AnswerErrors:
    """ASGI middleware: an unexpected exception becomes a plain 500 with a ``detail``, and
    goes no further (uvicorn closes the client's connection when an exception reaches it,
    even after the 500 was sent: the next request on that kept-alive connection failed)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = False

        async def watched(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:
            log.exception("internal error answering %s %s", scope.get("method"), scope.get("path"))
            if started:
                return  # the answer is on its way; nothing more can be said
            await _answer(send, 500, f"internal error ({type(exc).__name__}: {shown(str(exc))}); "
                                     f"the server's log has the details")


class NoStore:
    """ASGI middleware: every answer of the API says ``Cache-Control: no-store``. Without
    it a browser going Back showed a game page from stale JSON (an empty board, a stale
    list of games), and the next click was refused as meant for another move."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not scope.get("path", "").startswith("/api/"):
            return await self.app(scope, receive, send)

        async def marked(message):
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"cache-control"]
                headers.append((b"cache-control", b"no-store"))
                message = dict(message, headers=headers)
            await send(message)

        await self.app(scope, receive, marked)


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes gets a 413 naming the limit,
    as soon as its declared length or the bytes received so far pass it (never more than
    ``limit`` bytes are held)."""

    def __init__(self, app, limit: int):
        self.app = app
        self.limit = limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        refusal = f"the request body is over the limit of {self.limit} bytes"
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            return await _answer(send, 413 if declared.isdigit() else 400,
                                 refusal if declared.isdigit() else "bad Content-Length", close=True)
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                return await _answer(send, 413, refusal, close=True)
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        whole_body = b"".join(chunks)
        delivered = False

        async def replay():
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": whole_body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
