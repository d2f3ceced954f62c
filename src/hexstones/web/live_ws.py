"""Live updates: every open page of a game hears of each change over a WebSocket.

``/api/games/<id>/live`` sends a message when it opens and one for each stored change of
the game (a move, an undo, a seat taken, the AI's reply: the store announces each write on
its broker, :mod:`hexstones.web.broker`, across server processes on PostgreSQL); the page
then fetches the state it shows (its own view: the position it reviews, its overlays).
A page that loses the connection reconnects by itself and fetches the state again, so it
catches up after a network loss or a server restart. A ping every :data:`PING_SECONDS`
keeps proxies from closing a quiet connection and finds dead ones.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

PING_SECONDS = 25.0


async def serve_updates(websocket, broker, topics: list[str], first: dict[str, Any]) -> None:
    """Send ``first``, then each event of ``topics`` on ``broker``, until the page goes away."""
    from starlette.websockets import WebSocketDisconnect

    async with contextlib.AsyncExitStack() as stack:
        subs = [await stack.enter_async_context(broker.subscribe(t)) for t in topics]
        await websocket.accept()
        merged: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

        async def forward(sub) -> None:
            while True:
                merged.put_nowait(await sub.get())

        async def drain() -> None:  # the page says nothing; its messages are read and dropped
            with contextlib.suppress(WebSocketDisconnect):
                while True:
                    message = await websocket.receive()
                    if message["type"] == "websocket.disconnect":
                        return

        tasks = [asyncio.create_task(forward(s)) for s in subs]
        listener = asyncio.create_task(drain())
        try:
            await websocket.send_json(first)
            while True:
                getter = asyncio.create_task(merged.get())
                done, _ = await asyncio.wait({getter, listener}, timeout=PING_SECONDS,
                                             return_when=asyncio.FIRST_COMPLETED)
                if listener in done:
                    getter.cancel()
                    return
                if getter in done:
                    await websocket.send_json(getter.result())
                else:
                    getter.cancel()
                    await websocket.send_json({"ping": True})
        except (WebSocketDisconnect, RuntimeError, OSError):
            return  # the connection is gone
        finally:
            listener.cancel()
            for task in tasks:
                task.cancel()
