"""Live updates: every open page of a game hears of each change over a WebSocket.

``/api/games/<id>/live`` sends ``{"version": n}`` when it opens and after each change
of the game (a move, an undo, a seat taken, the AI's reply); the page then fetches the
state it shows (its own view: the position it reviews, its overlays). A page that loses
the connection reconnects by itself and fetches the state again, so it catches up
after a network loss or a server restart. A ping every :data:`PING_SECONDS` keeps
proxies from closing a quiet connection and finds dead ones.

:class:`Hub` passes the changes from the threads that make them (requests in worker
threads, the AI's answers) to the event loop of each open connection, with the same
interface as a broker between processes: ``publish(game_id, event)`` and
``subscribe(game_id)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from typing import Any

PING_SECONDS = 25.0
QUEUE_LIMIT = 64  # events a slow page may fall behind by; older ones are dropped (it refetches)


class Hub:
    """In-process publish/subscribe of game events, safe to publish from any thread."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Queue]]] = {}
        self._lock = threading.Lock()

    def publish(self, game_id: str, event: dict[str, Any]) -> None:
        with self._lock:
            targets = list(self._subscribers.get(game_id, ()))
        for loop, queue in targets:
            with contextlib.suppress(RuntimeError):  # that loop has closed: its page is gone
                loop.call_soon_threadsafe(_offer, queue, event)

    @contextlib.asynccontextmanager
    async def subscription(self, game_id: str) -> AsyncIterator[asyncio.Queue]:
        """A queue of ``game_id``'s events for as long as the context lasts."""
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(QUEUE_LIMIT)
        entry = (asyncio.get_running_loop(), queue)
        with self._lock:
            self._subscribers.setdefault(game_id, set()).add(entry)
        try:
            yield entry[1]
        finally:
            with self._lock:
                subs = self._subscribers.get(game_id)
                if subs is not None:
                    subs.discard(entry)
                    if not subs:
                        del self._subscribers[game_id]

    async def subscribe(self, game_id: str) -> AsyncIterator[dict[str, Any]]:
        async with self.subscription(game_id) as queue:
            while True:
                yield await queue.get()

    def watchers(self, game_id: str) -> int:
        with self._lock:
            return len(self._subscribers.get(game_id, ()))


def _offer(queue: asyncio.Queue, event: dict[str, Any]) -> None:
    if queue.full():  # the page is behind: it needs only the latest version
        queue.get_nowait()
    queue.put_nowait(event)


async def serve_updates(websocket, hub: Hub, game_id: str, current: dict[str, Any]) -> None:
    """Send ``current`` and then each event of ``game_id`` until the page goes away."""
    from starlette.websockets import WebSocketDisconnect

    async with hub.subscription(game_id) as queue:
        await websocket.accept()

        async def drain() -> None:  # the page says nothing; its messages are read and dropped
            with contextlib.suppress(WebSocketDisconnect):
                while True:
                    message = await websocket.receive()
                    if message["type"] == "websocket.disconnect":
                        return

        listener = asyncio.create_task(drain())
        try:
            await websocket.send_json(current)
            while True:
                getter = asyncio.create_task(queue.get())
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
