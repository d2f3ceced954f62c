"""The app's HTML beside its static files: the start page filled in, the error page,
the page a game link from another site opens, and how a refusal is answered.

A refusal of an ``/api/`` request is JSON (``{"detail": ...}``); of a page, an HTML page
saying the same.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from urllib.parse import urlencode

from fastapi.requests import Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response

from hexstones.web.setup import DEFAULT_LEVEL
from hexstones.web.spec import game_specs

STATIC = Path(__file__).parent / "static"
GAME_CHOICES = "<!-- one choice per game -->"
LEVEL_NOTE = "<!-- what the level plays -->"


def static_page(*parts: str, media_type: str | None = None) -> FileResponse:
    """A file of ``static/`` as a page, which the browser checks again each time it opens it."""
    return FileResponse(STATIC.joinpath(*parts), media_type=media_type, headers={"Cache-Control": "no-cache"})


def refusal(request: Request, status: int, message: str) -> Response:
    """The answer to a refused request: JSON under ``/api/``, the error page elsewhere."""
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": message}, status_code=status)
    return error_page(status, message)


def filled_start_page(page: str) -> str:
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


def ask_to_start_page(params: dict[str, str]) -> HTMLResponse:
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


def error_page(status: int, message: str) -> HTMLResponse:
    """The page of a refused page request: the status and what was wrong."""
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><title>hexstones: error</title>"
        "<link rel='stylesheet' href='/static/app.css'></head><body class='error-page'>"
        f"<main><h1>{status}</h1><p data-testid='error'>{escape(message)}</p>"
        "<p><a href='/'>Back to the start page</a></p></main></body></html>"
    )
    return HTMLResponse(page, status_code=status)
