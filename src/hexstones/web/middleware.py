"""The app's own ASGI middleware: an unexpected error's plain 500, ``Cache-Control:
no-store`` on the API's answers, the request body's size limit.

Each answers what it refuses itself, with a JSON ``detail`` like every refusal of the app.
"""

from __future__ import annotations

import json
import logging

from hexstones.web.errors import shown

log = logging.getLogger("hexstones.web")


async def send_detail(send, status: int, detail: str, close: bool = False) -> None:
    """Send a whole JSON answer ``{"detail": detail}`` (with ``Connection: close`` if ``close``)."""
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
            await send_detail(send, 500, f"internal error ({type(exc).__name__}: {shown(str(exc))}); "
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
            return await send_detail(send, 413 if declared.isdigit() else 400,
                                     refusal if declared.isdigit() else "bad Content-Length", close=True)
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                return await send_detail(send, 413, refusal, close=True)
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
