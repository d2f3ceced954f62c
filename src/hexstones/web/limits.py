"""Fair shares: how much one person may ask of the server in a while.

:class:`RateLimit` counts what each key (a session, an address) did in the last
``window`` seconds and refuses more than ``limit`` with a 429 that says when to try
again. Counts live in this process's memory, bounded in size (the oldest keys go first):
a limit of one process's work, not a record anyone keeps.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable

from hexstones.web.errors import WebError

MAX_KEYS = 10_000  # keys remembered at once


class RateLimit:
    """At most ``limit`` of ``what`` per ``window`` seconds for each key."""

    def __init__(self, limit: int, window: float, what: str, clock: Callable[[], float] = time.monotonic):
        self.limit, self.window, self.what = limit, window, what
        self._clock = clock
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, *keys: str) -> None:
        """Count one for each of ``keys``, or a 429 (counting nothing) if any is at its limit."""
        now = self._clock()
        with self._lock:
            for key in keys:
                times = self._seen.get(key)
                if times is None:
                    continue
                while times and times[0] <= now - self.window:
                    times.popleft()
                if len(times) >= self.limit:
                    wait = times[0] + self.window - now
                    raise WebError(429, f"too many {self.what}: at most {self.limit} a minute; "
                                        f"try again in {max(1, math.ceil(wait))} s")
            for key in keys:
                self._seen.setdefault(key, deque()).append(now)
                self._seen.move_to_end(key)
            while len(self._seen) > MAX_KEYS:
                self._seen.popitem(last=False)
