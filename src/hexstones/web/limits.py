"""Fair shares: how much one person may ask of the server in a while, and whose turn it is.

:class:`TakingTurns` gives people's tasks for a shared resource in turns, person by person.
:class:`RateLimit` counts what each key (a session, an address) did in the last ``window``
seconds and refuses more than ``limit`` with a 429 that says when to try again. Counts live
in this process's memory, bounded in size (the oldest keys go first): a limit of one
process's work, not a record anyone keeps.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from typing import Any

from hexstones.web.errors import WebError

MAX_KEYS = 10_000  # keys remembered at once


class RateLimit:
    """At most ``limit`` of a thing per ``window`` seconds for each key.

    ``refusal`` is the 429's template (a catalogue entry, marked with ``N_``), with the
    places ``{limit}``, ``{window}`` (the seconds) and ``{seconds}`` (how long to wait):
    "too many new games: at most {limit} a minute; try again in {seconds} s"."""

    def __init__(self, limit: int, window: float, refusal: str, clock: Callable[[], float] = time.monotonic):
        self.limit, self.window, self.refusal = limit, window, refusal
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
                    wait = max(1, math.ceil(times[0] + self.window - now))
                    window = f"{self.window:g}"
                    raise WebError(429, self.refusal, limit=self.limit, window=window, seconds=wait)
            for key in keys:
                self._seen.setdefault(key, deque()).append(now)
                self._seen.move_to_end(key)
            while len(self._seen) > MAX_KEYS:
                self._seen.popitem(last=False)


class TakingTurns:
    """People's tasks for a shared resource (the AI's processes): at most ``slots`` running
    at once; when one ends, the next task is that of the waiting person served least
    recently, so one person's thirty games wait their turns behind another's one.

    Background tasks (:meth:`add_background`: the analyses' positions) start only when no
    person's task waits, at most ``background_slots`` at once, so that a move someone waits
    for never queues behind more than that."""

    def __init__(self, slots: int, background_slots: int = 1):
        self.slots = slots
        self.background_slots = min(background_slots, slots)
        self._busy = 0
        self._background: deque[Callable[[], Any]] = deque()
        self._busy_background = 0
        self._queues: dict[str, deque[tuple[Hashable, Callable[[], Any]]]] = {}
        self._served: OrderedDict[str, int] = OrderedDict()  # person -> when last served
        self._ticks = 0
        self._lock = threading.Lock()

    def add(self, person: str, start: Callable[[], Any], key: Hashable = None) -> None:
        """Run ``start()`` in its turn; it returns a Future (whose end frees the slot) or None
        (nothing started). ``key`` names the task for :meth:`place`."""
        with self._lock:
            self._queues.setdefault(person, deque()).append((key, start))
        self._next()

    def add_background(self, start: Callable[[], Any]) -> None:
        """Run ``start()`` (as for :meth:`add`) when a slot is free and no person's task waits."""
        with self._lock:
            self._background.append(start)
        self._next()

    def waiting(self) -> int:
        with self._lock:
            return sum(len(q) for q in self._queues.values())

    def place(self, key: Hashable) -> int:
        """The place in line of the waiting task added with ``key``: 1 for the next to start;
        0 if none waits (it runs, it ended, or there is none).

        Exact for the order the tasks will be taken in if no other task is added: rounds of
        the waiting people, least recently served first (ties: the first to ask), one task
        each a round. A task added later by a person served less recently goes ahead of it,
        so a place can grow as well as shrink."""
        if key is None:  # tasks added without a key cannot be told apart
            return 0
        with self._lock:
            order = sorted(self._queues, key=lambda p: self._served.get(p, -1))  # stable, as min() picks
            for rank, person in enumerate(order):
                index = next((i for i, (k, _) in enumerate(self._queues[person]) if k == key), None)
                if index is None:
                    continue
                # Ahead of it: the person's own earlier tasks, and the tasks of every other
                # person in the rounds before its own (and in its own round, of those before it).
                ahead = index + sum(min(len(self._queues[other]), index + 1 if r < rank else index)
                                    for r, other in enumerate(order) if other != person)
                return ahead + 1
        return 0

    def _next(self) -> None:
        while True:
            with self._lock:
                if self._busy >= self.slots:
                    return
                background = not self._queues
                if background:
                    if not self._background or self._busy_background >= self.background_slots:
                        return
                    start = self._background.popleft()
                    self._busy_background += 1
                else:
                    person = min(self._queues, key=lambda p: self._served.get(p, -1))  # first asked wins ties
                    queue = self._queues[person]
                    _, start = queue.popleft()
                    if not queue:
                        del self._queues[person]
                    self._ticks += 1
                    self._served[person] = self._ticks
                    self._served.move_to_end(person)
                    while len(self._served) > MAX_KEYS:
                        self._served.popitem(last=False)
                self._busy += 1
            try:
                future = start()
            except BaseException:
                self._free(background)
                raise
            if future is None:
                self._free(background, go_on=False)
                continue
            future.add_done_callback(lambda _, background=background: self._free(background))

    def _free(self, background: bool, go_on: bool = True) -> None:
        with self._lock:
            self._busy -= 1
            if background:
                self._busy_background -= 1
        if go_on:
            self._next()
