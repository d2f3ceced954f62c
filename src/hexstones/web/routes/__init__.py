"""The app's routes, one router per resource; :func:`hexstones.web.create_app` includes
them in the order of :data:`ROUTERS`.

* :mod:`.pages`: the HTML pages (``/``, ``/new``, ``/game/<id>``, ``/rules...``,
  ``/account``, ``/invite/...``);
* :mod:`.accounts`: ``/api/account...`` (accounts, guests, signing in and out, vacations,
  email notices);
* :mod:`.players`: ``/api/players/<name>`` (ratings);
* :mod:`.archive`: the finished games (``/games``, ``/api/archive``) and a player's games
  as one SGF collection (``/api/players/<name>/games.sgf``);
* :mod:`.online`: invitations, joining, takebacks, the live updates' WebSockets;
* :mod:`.chat`: the chat beside a game between two people online
  (``/api/games/<id>/chat...``) and its live updates;
* :mod:`.lobby`: the lobby of seeks (``/lobby``, ``/seek/<id>``, ``/api/seeks...``) and
  its live updates;
* :mod:`.bot`: bot accounts' tokens (``/api/account/tokens...``) and the bot API
  (``/api/bot/...``);
* :mod:`.tournaments`: Swiss and round robin tournaments (``/tournaments``,
  ``/api/tournaments...``);
* :mod:`.meta`: what the pages ask before a game (``/api/spec``, ``/api/levels``,
  ``/api/ai``, ``/api/position``);
* :mod:`.games`: ``/api/games...`` (list, create, play, name, delete...), SVG, SGF,
  ``/api/import``;
* :mod:`.analysis`: ``/api/games/<id>/analysis...`` and the hint.

Each route takes what it needs as dependencies (:mod:`hexstones.web.deps`,
:mod:`hexstones.web.inputs`). Every refusal is a :class:`~hexstones.web.errors.WebError`
whose message says what and why, and changes nothing: a request is checked whole (body,
parameters, overlays) before anything is done. The work of a request (replays, SGF
parsing, drawing) runs in worker threads (routes and dependencies that may take time are
plain functions, which FastAPI runs so), never on the event loop.
"""

from fastapi import APIRouter

from hexstones.web.routes.accounts import router as accounts_router
from hexstones.web.routes.analysis import router as analysis_router
from hexstones.web.routes.archive import router as archive_router
from hexstones.web.routes.bot import router as bot_router
from hexstones.web.routes.chat import router as chat_router
from hexstones.web.routes.games import router as games_router
from hexstones.web.routes.lobby import router as lobby_router
from hexstones.web.routes.meta import router as meta_router
from hexstones.web.routes.online import router as online_router
from hexstones.web.routes.pages import router as pages_router
from hexstones.web.routes.players import router as players_router
from hexstones.web.routes.tournaments import router as tournaments_router

# The API's routes keep this order in the OpenAPI description; /rules/text comes before
# /rules/{name} within the pages.
ROUTERS: tuple[APIRouter, ...] = (pages_router, accounts_router, online_router, chat_router, lobby_router,
                                  bot_router, players_router, archive_router, tournaments_router, meta_router,
                                  games_router, analysis_router)

__all__ = ["ROUTERS"]
