"""The browser app: FastAPI routes over :mod:`hexstones.web.live` and the static front end.

Pages: ``/`` (new game, stored games, load SGF), ``/new?...`` (a link that creates a game
and redirects to it), ``/game/<id>`` (the game). JSON API under ``/api``; every refusal is
an HTTP error whose ``detail`` says what and why, and changes nothing.
"""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from html import escape
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from hexstones.web.live import Tables, WebError
from hexstones.web.store import Store

STATIC = Path(__file__).parent / "static"
DEFAULT_DB = "hexstones-games.db"
log = logging.getLogger("hexstones.web")


def create_app(db_path: str = DEFAULT_DB, *, ai_processes: int = 2) -> FastAPI:
    """The app, storing its games in the SQLite file ``db_path`` (created if missing);
    the AI thinks in up to ``ai_processes`` other processes."""
    store = Store(db_path)
    tables = Tables(store, ai_processes=ai_processes)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        # Games that were waiting for the AI when the server stopped get their turn back.
        for row in store.list():
            if row["setup"].get("opponent") != "ai" or row["resigned"] or " won" in row["summary"]:
                continue  # no AI to wake: leave it on disk until someone opens it
            try:
                live = tables.get(row["id"])
            except WebError as exc:
                log.warning("%s", exc.message)
                continue
            del live
        yield
        tables.close()
        store.close()

    app = FastAPI(title="hexstones", lifespan=lifespan)
    app.state.tables = tables
    app.state.store = store
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.exception_handler(WebError)
    async def web_error(request: Request, exc: WebError):
        if request.url.path.startswith("/api/"):
            return JSONResponse({"detail": exc.message}, status_code=exc.status)
        return _error_page(exc.status, exc.message)

    async def body(request: Request) -> dict[str, Any]:
        """The request's JSON object; a 400 saying why if it is not one."""
        raw = await request.body()
        if not raw.strip():
            return {}
        try:
            data = await request.json()
        except ValueError:
            raise WebError(400, "the request body is not valid JSON") from None
        if not isinstance(data, dict):
            raise WebError(400, f"the request body must be a JSON object, not {type(data).__name__}")
        return data

    # -- pages ------------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    def index():
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/new", include_in_schema=False)
    def new(request: Request):
        live = tables.create(dict(request.query_params))
        return RedirectResponse(f"/game/{live.record.id}", status_code=303)

    @app.get("/game/{game_id}", include_in_schema=False)
    def game_page(game_id: str):
        tables.get(game_id)  # 404 for an unknown id
        return FileResponse(STATIC / "game.html", headers={"Cache-Control": "no-cache"})

    # -- API ------------------------------------------------------------------------------

    @app.get("/api/games")
    def list_games():
        return {"games": tables.list()}

    @app.post("/api/games", status_code=201)
    async def create_game(request: Request):
        live = tables.create(await body(request))
        return tables.state(live)

    @app.get("/api/games/{game_id}")
    def get_game(game_id: str, at: str | None = None, overlays: str = "", since: int | None = None):
        live = tables.get(game_id)
        if since is not None and since == live.version:
            return {"id": game_id, "version": live.version, "unchanged": True,
                    "ai_thinking": live.ai_busy}
        return tables.state(live, at=at, overlays=overlays)

    @app.post("/api/games/{game_id}/moves")
    async def play(game_id: str, request: Request):
        live = tables.get(game_id)
        data = await body(request)
        if "move" not in data:
            raise WebError(400, "give the move: {\"move\": \"e5\"} (a point, or a word like 'pass')")
        tables.play(live, data["move"], data.get("ply"))
        return tables.state(live, overlays=data.get("overlays", ""))

    @app.post("/api/games/{game_id}/undo")
    async def undo(game_id: str, request: Request):
        live = tables.get(game_id)
        data = await body(request)
        taken = tables.undo(live)
        return dict(tables.state(live, overlays=data.get("overlays", "")), undone=taken)

    @app.post("/api/games/{game_id}/resign")
    async def resign(game_id: str, request: Request):
        live = tables.get(game_id)
        data = await body(request)
        tables.resign(live, data.get("color"))
        return tables.state(live, overlays=data.get("overlays", ""))

    @app.post("/api/games/{game_id}/pie")
    async def pie(game_id: str, request: Request):
        live = tables.get(game_id)
        data = await body(request)
        tables.pie(live, komi=data.get("komi"), color=data.get("color"))
        return tables.state(live)

    @app.get("/api/games/{game_id}/svg")
    def svg(game_id: str, at: str | None = None, overlays: str = ""):
        live = tables.get(game_id)
        state = tables.state(live, at=at, overlays=overlays)
        return Response(state["svg"], media_type="image/svg+xml")

    @app.get("/api/games/{game_id}/sgf")
    def sgf(game_id: str):
        from hexstones.records import write_sgf

        live = tables.get(game_id)
        with live.lock:
            players = live.setup.get("players") or {}
            names = tuple(
                f"hexstones AI level {live.setup.get('level')}" if players.get(c) == "ai" else "Human"
                for c in ("black", "white")
            )
            try:
                text = write_sgf(live.game, players=names, resigned=live.record.resigned)
            except ValueError as exc:
                raise WebError(500, f"cannot write this game as SGF: {exc}") from None
        filename = f"{live.record.game}-{live.record.id}.sgf"
        return Response(text, media_type="application/x-go-sgf",
                        headers={"Content-Disposition": f'attachment; filename="{filename}"'})

    @app.post("/api/import", status_code=201)
    async def import_sgf(request: Request):
        from hexstones.records import SGFError, read_sgf

        data = await body(request)
        text = data.get("sgf")
        if not isinstance(text, str) or not text.strip():
            raise WebError(400, "give the SGF text: {\"sgf\": \"(;GM[...]...)\"}")
        try:
            loaded = read_sgf(text)
        except (SGFError, ValueError) as exc:
            raise WebError(400, f"cannot read this SGF: {exc}") from None
        live = tables.create_from_moves(loaded.name, dict(loaded.options), list(loaded.moves), data)
        return tables.state(live)

    return app


def _error_page(status: int, message: str) -> HTMLResponse:
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><title>hexstones: error</title>"
        "<link rel='stylesheet' href='/static/app.css'></head><body class='error-page'>"
        f"<main><h1>{status}</h1><p data-testid='error'>{escape(message)}</p>"
        "<p><a href='/'>Back to the start page</a></p></main></body></html>"
    )
    return HTMLResponse(page, status_code=status)
