"""The app's pages: HTML made from the templates in ``templates/`` (one layout,
``base.html``, that every page extends), and how a refusal is answered.

A refusal of an ``/api/`` request is JSON (``{"detail": ...}``); of a page, an HTML page
saying the same.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jinja2
from fastapi.requests import Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response

from hexstones.web import i18n, texts
from hexstones.web.setup import DEFAULT_LEVEL
from hexstones.web.spec import game_specs

STATIC = Path(__file__).parent / "static"
TEMPLATES = Path(__file__).parent / "templates"
# Pages are checked again by the browser each time they are opened.
NO_CACHE = {"Cache-Control": "no-cache"}
# The header's colour (app.css), which a browser also paints around an installed app.
THEME_COLOR = "#2b2116"


@cache
def _templates() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             extensions=["jinja2.ext.i18n"])
    env.globals["theme_color"] = THEME_COLOR
    # The request's language is read at each call (i18n's context variable), so one
    # environment serves every language.
    env.install_gettext_callables(i18n.gettext, i18n.ngettext, newstyle=True)  # type: ignore[attr-defined]
    return env


def render(name: str, **values: Any) -> str:
    """Template ``name`` in the request's language (its scripts get the same catalogue)."""
    lang = i18n.current()
    return _templates().get_template(name).render(
        lang=lang, languages=i18n.names(),
        i18n_catalogue=None if lang == i18n.SOURCE else i18n.page_catalogue(lang), **values)


def page(name: str, status_code: int = 200, **values: Any) -> HTMLResponse:
    """The page of template ``name``."""
    return HTMLResponse(render(name, **values), status_code=status_code, headers=NO_CACHE)


def static_file(*parts: str, media_type: str | None = None) -> FileResponse:
    """A file of ``static/``, which the browser checks again each time it opens it."""
    return FileResponse(STATIC.joinpath(*parts), media_type=media_type, headers=NO_CACHE)


def refusal(request: Request, status: int, message: str) -> Response:
    """The answer to a refused request: JSON under ``/api/``, the error page elsewhere."""
    message = texts.refusal_text(message)  # a move the rules refuse, in the person's language
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": message}, status_code=status)
    return error_page(status, message)


def start_pages() -> dict[str, str]:
    """:func:`start_page` in each language, made once (the route picks the request's)."""
    pages = {}
    for lang in i18n.languages():
        with i18n.speaking(lang):
            pages[lang] = start_page()
    return pages


def start_page() -> str:
    """The start page with one choice per game (the first chosen) and what the default
    level plays there written in, so that the form has its final layout at the first
    paint: filled in by the script after ``/api/spec`` answered, they pushed what a
    person was aiming at down the page."""
    from hexstones import ai

    # The default level's line: it never plays the network, so it needs no game (whose
    # kernels the server loads only once the AI's workers have compiled them).
    level, = ai.level_guide(None, [DEFAULT_LEVEL])
    return render("index.html", games=game_specs(), level_note=texts.level_text(level["text"]))


def ask_to_start_page(params: dict[str, str]) -> HTMLResponse:
    """The page a game link from another site opens: what the game would be, and one link
    (of this site, so that following it creates the game) to start it."""
    return page("start-link.html", params=params, query=urlencode(params))


def error_page(status: int, message: str) -> HTMLResponse:
    """The page of a refused page request: the status and what was wrong."""
    return page("error.html", status, status=status, message=message)
