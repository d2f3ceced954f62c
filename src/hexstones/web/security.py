"""What every answer and every changing request goes through: security headers, the
cross-site check, the session cookie.

* Headers on every answer: a Content-Security-Policy with no inline script (scripts
  only from this site), ``frame-ancestors 'none'`` (no other page frames the app),
  ``nosniff``, no referrer (an invitation's secret never leaves in a Referer); HSTS where
  the app is reached over HTTPS (an ``https://`` origin, or a request that came so).
* A request that changes something (any method but GET, HEAD, OPTIONS) or opens a
  WebSocket is refused (403) when the browser says it comes from another site: an
  ``Origin`` other than this site's own (or one of ``origins``, for a site behind a
  proxy that rewrites the Host), or ``Sec-Fetch-Site: cross-site``. Browsers send
  ``Origin`` with every such request; a program without one (curl, a test) carries no
  victim's cookie. The session cookie is ``SameSite=Lax`` besides. A bot's program
  (``Authorization: Bearer``, :mod:`hexstones.web.bot_accounts`) passes as any program
  does: it sends no ``Origin``, and no page of another site can send that header (it needs
  a CORS preflight, never granted here).
* ``GET /new`` (a link that creates a game) creates one only when :func:`opened_here`:
  opened from another site, or as an image, a frame or a fetch, it answers a page that
  asks the person to start the game with one click.
* A route that gives the browser a session puts ``(token, max_age)`` in
  ``request.state.cookie``; the answer then carries the ``Set-Cookie`` (HTTP-only).
"""

from __future__ import annotations

import json
from typing import Any

from hexstones.web.accounts import COOKIE

CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
HEADER_NAMES = frozenset(name for name, _ in HEADERS)  # an answer's own are replaced
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
# Sent where the app is reached over HTTPS: browsers then never ask it over plain HTTP.
HSTS = (b"strict-transport-security", b"max-age=31536000")


def own_origin(scope: dict[str, Any]) -> str:
    headers = dict(scope.get("headers") or [])
    host = headers.get(b"host", b"").decode("latin-1")
    scheme = scope.get("scheme", "http")
    scheme = {"ws": "http", "wss": "https"}.get(scheme, scheme)
    return f"{scheme}://{host}"


def cross_site(scope: dict[str, Any], origins: frozenset[str]) -> str | None:
    """Why the request comes from another site, or None if it does not."""
    headers = dict(scope.get("headers") or [])
    origin = headers.get(b"origin")
    if origin is not None:
        text = origin.decode("latin-1").rstrip("/")
        if text != own_origin(scope) and text not in origins:
            return f"a request from another site ({text[:100]}) is refused"
    if headers.get(b"sec-fetch-site") == b"cross-site":
        return "a request from another site is refused"
    return None


def opened_here(headers) -> bool:
    """Whether a GET that would create something was opened by the person on this site:
    typed, bookmarked, or a link of one of its pages, as a page of its own (never an image,
    a frame or a fetch). Browsers say so in ``Sec-Fetch-Site`` and ``Sec-Fetch-Dest``;
    a request without them (an old browser, curl) is taken as opened here, and its cookie
    is ``SameSite=Lax`` besides."""
    site = headers.get("sec-fetch-site")
    dest = headers.get("sec-fetch-dest")
    return site in (None, "same-origin", "none") and dest in (None, "document")


def cookie_header(token: str, max_age: int, secure: bool) -> bytes:
    parts = [f"{COOKIE}={token}", "Path=/", "HttpOnly", "SameSite=Lax", f"Max-Age={max_age}"]
    if secure:
        parts.append("Secure")
    return "; ".join(parts).encode()


class Guard:
    """ASGI middleware: the headers, the cross-site refusal, the cookie (see the module)."""

    def __init__(self, app, origins: frozenset[str] = frozenset()):
        self.app = app
        self.origins = frozenset(o.rstrip("/") for o in origins)
        self.https = any(o.startswith("https://") for o in self.origins)

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        changing = scope["type"] == "websocket" or scope.get("method") not in SAFE_METHODS
        why = cross_site(scope, self.origins) if changing else None
        if why is not None:
            if scope["type"] == "websocket":
                return await send({"type": "websocket.close", "code": 4403, "reason": why[:120]})
            body = json.dumps({"detail": why}).encode()
            await send({"type": "http.response.start", "status": 403,
                        "headers": [(b"content-type", b"application/json"),
                                    (b"content-length", str(len(body)).encode()), *HEADERS]})
            return await send({"type": "http.response.body", "body": body})
        if scope["type"] == "websocket":
            return await self.app(scope, receive, send)
        state = scope.setdefault("state", {})

        async def marked(message):
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in HEADER_NAMES]
                headers += HEADERS
                if self.https or scope.get("scheme") == "https":
                    headers.append(HSTS)
                cookie = state.get("cookie")
                if cookie is not None:
                    token, max_age = cookie
                    headers.append((b"set-cookie", cookie_header(token, max_age, scope.get("scheme") == "https")))
                message = dict(message, headers=headers)
            await send(message)

        await self.app(scope, receive, marked)
