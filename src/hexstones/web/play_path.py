"""The two requests of every move, answered on the event loop: the move (``POST
/api/games/<id>/moves``) and the state the other player's page fetches when it hears of it
(``GET /api/games/<id>``).

Why: for these requests the framework cost more than the game. On one core, per request,
FastAPI's routing and dependency solving took about 0.4 ms and the hop to a worker thread
and back about 0.2 ms (two thread switches and the GIL's hand-over), where a state fetch's
own work is about 0.3 ms and a move's about 1 ms.

How: :class:`PlayPath` is the innermost middleware. For one of these two routes (matched by
the routes' own paths and methods) and a game this process holds as stored
(:meth:`~hexstones.web.live.Tables.current`), it calls the route's own function, with what
its dependencies would have given, right here: the same checks in the same order, the same
answers and refusals. Every other request goes on to the routes, and so do these two for a
game that has to be read from the store first (a replay can take a while: a worker
thread's work, not the event loop's). What runs here waits on nothing long: the game's lock
is held for a move's write at most, and a write is one short transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from hexstones.web import inputs
from hexstones.web.errors import WebError
from hexstones.web.live import Live
from hexstones.web.routes import games


def _route(endpoint: Callable[..., Any]) -> APIRoute:
    return next(r for r in games.router.routes if isinstance(r, APIRoute) and r.endpoint is endpoint)


class PlayPath:
    """ASGI middleware: a move and a game's state, for a game held as stored, answered by
    their routes' functions without the framework's routing (see the module)."""

    def __init__(self, app: ASGIApp):
        self.app = app
        self.state_route, self.move_route = _route(games.get_game), _route(games.play)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            method = scope["method"]
            route = self.move_route if method == "POST" else self.state_route if method == "GET" else None
            if route is not None:
                path = scope["path"]
                root = scope.get("root_path", "")
                if root and path.startswith(root):
                    path = path[len(root):]
                found = route.path_regex.match(path)
                if found is not None:
                    live = scope["app"].state.tables.current(found["game_id"])
                    if live is not None:
                        return await self._answer(route, live, found["game_id"], scope, receive, send)
        await self.app(scope, receive, send)

    async def _answer(self, route: APIRoute, live: Live, game_id: str, scope: Scope, receive: Receive,
                      send: Send) -> None:
        request = Request(scope, receive)
        state = scope["app"].state
        response: Any
        try:
            if route is self.move_route:
                data = await games.move_body(await inputs.body(request, games.MOVE_FIELDS))
                response = games.play(data, live, request, state.tables, state.people)
            else:
                params = inputs.query(request, games.STATE_PARAMS)
                response = games.get_game(game_id, params, live, request, state.people)
        except WebError as exc:
            response = await scope["app"].exception_handlers[WebError](request, exc)
        if not isinstance(response, Response):
            response = games.plain_json(response)
        await response(scope, receive, send)
