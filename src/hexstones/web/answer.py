"""A game's state on the wire, its board's picture encoded once.

The SVG is most of a state answer (46 of 54 KB on Keil side 7), and a move shows one
picture twice: in the mover's answer and in the opponent's fetch that follows. So
:class:`StateAnswer` writes the JSON with ``svg`` first and keeps, per picture, that
beginning encoded, compressed (a raw deflate ended on a byte boundary) and its CRC-32
(:func:`encoded`, a bounded cache); each answer then encodes and compresses only the rest
of the state (a few KB) and joins the two into one gzip stream. The JSON holds the same
keys and values as ``JSONResponse``'s; only their order differs.
"""

from __future__ import annotations

import json
import struct
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

V = TypeVar("V")

LEVEL = 1  # zlib's fastest: ~8x smaller at a fraction of a millisecond, as the app's GZip middleware
MAX_ENCODED_BYTES = 16 * 1024 * 1024  # pictures kept encoded: ~300 of Keil 7, far more than a move needs
GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x04\xff"  # deflate, no name, no time, fastest, unknown OS


class Bounded(Generic[V]):
    """A least recently used cache holding values of ``size(value)`` units up to ``limit``
    in all (the oldest go first; a value alone over the limit is not kept). Thread-safe."""

    def __init__(self, limit: int, size: Callable[[V], int]):
        self.limit, self.size = limit, size
        self._items: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            self._items.move_to_end(key)
            return item[0]

    def found(self, key: Hashable, make: Callable[[], V]) -> V:
        """The value kept for ``key``, or ``make()``'s, then kept (made outside the lock: two
        threads may both make it, with the same result)."""
        value = self.get(key)
        if value is None:
            value = make()
            self.put(key, value)
        return value

    def put(self, key: Hashable, value: V) -> None:
        units = self.size(value)
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._held -= old[1]
            if units > self.limit:
                return
            self._items[key] = (value, units)
            self._held += units
            while self._held > self.limit:
                _, (_, gone) = self._items.popitem(last=False)
                self._held -= gone

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._held = 0

    def __len__(self) -> int:
        return len(self._items)

    @property
    def held(self) -> int:
        return self._held


@dataclass(frozen=True)
class Encoded:
    """One picture as the beginning of an answer: ``head`` is ``{"svg":"..."`` in UTF-8,
    ``deflated`` the same compressed (raw deflate, not final, ending on a byte boundary:
    more blocks may follow), ``crc`` its CRC-32."""

    head: bytes
    deflated: bytes
    crc: int


_ENCODED: Bounded[Encoded] = Bounded(MAX_ENCODED_BYTES, lambda e: len(e.head) + len(e.deflated))


def encoded(svg: str) -> Encoded:
    """``svg`` as an answer's beginning, made once while it is among the recent ones."""
    def make() -> Encoded:
        head = b'{"svg":' + _dumps(svg)
        compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
        return Encoded(head, compressor.compress(head) + compressor.flush(zlib.Z_SYNC_FLUSH), zlib.crc32(head))

    return _ENCODED.found(svg, make)


def _dumps(value: Any) -> bytes:
    """As ``JSONResponse`` writes JSON."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")).encode()


class StateAnswer(Response):
    """A JSON answer holding a game's state (``svg`` a string); sent compressed to a client
    that accepts gzip, which the app's GZip middleware then passes on as it is."""

    media_type = "application/json"

    def __init__(self, content: dict[str, Any], status_code: int = 200):
        svg = content.get("svg")
        if isinstance(svg, str):
            rest = _dumps({k: v for k, v in content.items() if k != "svg"})
            self._head: Encoded | None = encoded(svg)
            self._tail = b"}" if rest == b"{}" else b"," + rest[1:]
        else:
            self._head, self._tail = None, _dumps(content)
        super().__init__(None, status_code)

    def render(self, content: Any) -> bytes:
        return self._tail if self._head is None else self._head.head + self._tail

    def gzipped(self) -> bytes:
        """The body as one gzip member: the picture's cached blocks, then the rest's."""
        if self._head is None:
            return zlib.compress(self.body, LEVEL, wbits=16 + zlib.MAX_WBITS)
        compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
        blocks = compressor.compress(self._tail) + compressor.flush()
        crc = zlib.crc32(self._tail, self._head.crc)
        return b"".join((GZIP_HEADER, self._head.deflated, blocks,
                         struct.pack("<II", crc, len(self.body) & 0xFFFFFFFF)))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # "gzip" anywhere in Accept-Encoding: the GZip middleware's own test.
        if "gzip" not in Headers(scope=scope).get("accept-encoding", ""):
            return await super().__call__(scope, receive, send)
        body = self.gzipped()
        headers = [(k, v) for k, v in self.raw_headers if k != b"content-length"]
        headers += [(b"content-length", str(len(body)).encode()), (b"content-encoding", b"gzip"),
                    (b"vary", b"Accept-Encoding")]
        await send({"type": "http.response.start", "status": self.status_code, "headers": headers})
        await send({"type": "http.response.body", "body": body})
