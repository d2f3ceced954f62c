"""Connections that do not hold the server: a request's head must arrive in time.

uvicorn's HTTP protocols start their keep-alive timer only after a first answer, so a
client that opens a connection and sends nothing, or half a request head (a WebSocket
handshake cut short, say), held a file descriptor for good: about a thousand of them
used up the process's open files, and nobody else could connect. :func:`timely_protocol`
closes a connection whose request head has not come whole ``head_timeout`` seconds after
it opened, or after the first bytes of a later request (between requests the keep-alive
timer rules). A WebSocket, once upgraded, is another protocol's (whose pings find dead
peers).

The protocol is uvicorn's httptools one (llhttp, in C): h11, in pure Python, spent about
a fifth of the server's CPU for a move reading heads and writing answers.
"""

from __future__ import annotations

import asyncio
import resource

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

HEAD_TIMEOUT = 10.0  # seconds for a request's head to arrive whole


def timely_protocol(head_timeout: float = HEAD_TIMEOUT) -> type[HttpToolsProtocol]:
    """uvicorn's httptools protocol with a time limit on each request's head."""

    class TimelyHttpToolsProtocol(HttpToolsProtocol):
        _head_timer: asyncio.TimerHandle | None = None

        def _wait_for_a_head(self) -> None:
            self._stop_waiting()
            self._head_timer = self.loop.call_later(head_timeout, self._too_slow)

        def _stop_waiting(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _too_slow(self) -> None:
            self._head_timer = None
            if self.transport.get_protocol() is self and not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._wait_for_a_head()

        def on_headers_complete(self) -> None:
            self._stop_waiting()  # the head came: the request is being answered
            super().on_headers_complete()

        def data_received(self, data: bytes) -> None:
            # The first bytes of a next request (an idle connection is the keep-alive
            # timer's): its head must now come whole in time.
            if (self.cycle is None or self.cycle.response_complete) and self._head_timer is None:
                self._wait_for_a_head()
            super().data_received(data)

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_waiting()
            super().connection_lost(exc)

    return TimelyHttpToolsProtocol


def raise_open_file_limit() -> int:
    """Let the process open as many files (connections) as the system allows it; the limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        return hard
    return soft
