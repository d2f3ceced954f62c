"""Change announcements between the app's requests and its live pages, across processes.

Interface (what the rest of the app uses)::

    broker.publish(topic, event)              # from any thread; event: a small JSON object
    async with broker.subscribe(topic) as events:   # in the event loop
        async for event in events:            # each event published to topic, in order
            ...

Topics are strings: :func:`game_topic` (``"game:<id>"``: every stored change of one game),
:func:`user_topic` (``"user:<id>"``: for a person's list of games), or ``"*"`` (every
event, whatever its topic). An event is a hint, not the state: it says *that* something
changed (the store announces ``{"game": id, "revision": r, "moves": n, "change": what}``);
whoever receives it reads the rest from the database. So a subscriber that falls behind
loses only hints: its queue holds :data:`QUEUE_LIMIT` events and the oldest is dropped
beyond that, and after the broker lost its connection to the database (PostgreSQL) every
subscriber gets ``{"resync": True}`` (read everything again).

The store announces its writes itself, inside their transactions
(:meth:`hexstones.web.store.Store.transaction`): an event is delivered if and only if its
write committed.

Two brokers, chosen by the store's database:

- :class:`LocalBroker` (SQLite): one server process owns the file (the store's ``flock``),
  so every subscriber lives in that process and events go straight to their queues.
- :class:`PostgresBroker` (PostgreSQL): several server processes share one database.
  Events travel as ``NOTIFY hexstones, '<json>'`` (at most :data:`MAX_PAYLOAD` bytes:
  PostgreSQL's limit is 8000), and one thread per process ``LISTEN``\\ s and hands them to
  that process's subscribers, its own events included. Nothing another process needs is
  held only in one process's memory: the games are in the database, events only point at
  them.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

log = logging.getLogger("hexstones.web")

CHANNEL = "hexstones"  # the one PostgreSQL channel; the topic travels in the payload
MAX_PAYLOAD = 7999  # bytes of JSON: PostgreSQL refuses a NOTIFY payload of 8000 or more
QUEUE_LIMIT = 256  # events a subscriber may fall behind by before the oldest is dropped
ALL = "*"


def game_topic(game_id: str) -> str:
    return f"game:{game_id}"


def user_topic(user_id: str | int) -> str:
    return f"user:{user_id}"


def encode(topic: str, event: dict[str, Any]) -> str:
    """The payload of one event: compact JSON; ValueError if it is not small JSON."""
    if not isinstance(topic, str) or not topic or topic == ALL:
        raise ValueError(f"an event's topic is a non-empty name other than {ALL!r}, not {topic!r}")
    if not isinstance(event, dict):
        raise ValueError(f"an event is a JSON object, not {type(event).__name__}")
    payload = json.dumps({"topic": topic, "event": event}, separators=(",", ":"))
    if len(payload.encode()) > MAX_PAYLOAD:
        raise ValueError(f"an event is a small hint of at most {MAX_PAYLOAD} bytes of JSON, not "
                         f"{len(payload.encode())}: publish what changed, not the state")
    return payload


class Subscription:
    """The events of one topic for one subscriber, in the event loop it subscribed from."""

    def __init__(self, topic: str, loop: asyncio.AbstractEventLoop):
        self.topic = topic
        self.loop = loop
        self.dropped = 0  # events lost to a full queue (the oldest go first)
        self._queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    def _put(self, event: dict[str, Any]) -> None:  # in self.loop
        if self._queue.qsize() >= QUEUE_LIMIT:
            self._queue.get_nowait()
            self.dropped += 1
        self._queue.put_nowait(event)

    async def get(self) -> dict[str, Any]:
        return await self._queue.get()

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self._events()

    async def _events(self) -> AsyncIterator[dict[str, Any]]:
        while True:
            yield await self._queue.get()


class LocalBroker:
    """Events within one process (the SQLite store: one server owns the file)."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[Subscription]] = defaultdict(set)
        self._watchers: dict[str, list[Callable[[dict[str, Any]], None]]] = defaultdict(list)
        self._lock = threading.Lock()

    def watch(self, topic: str, callback: Callable[[dict[str, Any]], None]) -> None:
        """Call ``callback(event)`` in the delivering thread for every event of ``topic``
        (this process's and, through PostgreSQL, the others'), and ``callback({"resync":
        True})`` when events may have been lost: for what a process keeps in memory of
        what the database holds."""
        with self._lock:
            self._watchers[topic].append(callback)

    def publish(self, topic: str, event: dict[str, Any]) -> None:
        """Announce ``event`` on ``topic`` to every subscriber (from any thread)."""
        self._deliver(json.loads(encode(topic, event)))

    def _deliver(self, message: dict[str, Any]) -> None:
        topic, event = message["topic"], message["event"]
        with self._lock:
            targets = [*self._subscribers.get(topic, ()), *self._subscribers.get(ALL, ())]
            watchers = list(self._watchers.get(topic, ()))
        for callback in watchers:
            callback(dict(event))
        for sub in targets:
            self._hand(sub, dict(event) if sub.topic != ALL else {"topic": topic, **event})

    def _hand(self, sub: Subscription, event: dict[str, Any]) -> None:
        try:
            sub.loop.call_soon_threadsafe(sub._put, event)
        except RuntimeError:  # its event loop has closed: nobody is listening there
            self._drop(sub)

    def _drop(self, sub: Subscription) -> None:
        with self._lock:
            self._subscribers[sub.topic].discard(sub)
            if not self._subscribers[sub.topic]:
                del self._subscribers[sub.topic]

    def resync(self) -> None:
        """Tell every subscriber that events may have been lost: read everything again."""
        with self._lock:
            targets = [s for subs in self._subscribers.values() for s in subs]
            watchers = [callback for callbacks in self._watchers.values() for callback in callbacks]
        for callback in watchers:
            callback({"resync": True})
        for sub in targets:
            self._hand(sub, {"resync": True})

    @asynccontextmanager
    async def subscribe(self, topic: str) -> AsyncIterator[Subscription]:
        """The events of ``topic`` (``"*"``: all, each with its ``topic``) while in the block."""
        if not isinstance(topic, str) or not topic:
            raise ValueError(f"a topic is a non-empty name, not {topic!r}")
        sub = Subscription(topic, asyncio.get_running_loop())
        with self._lock:
            self._subscribers[topic].add(sub)
        try:
            yield sub
        finally:
            self._drop(sub)

    def subscribers(self, topic: str) -> int:
        with self._lock:
            return len(self._subscribers.get(topic, ()))

    def close(self) -> None:
        pass


class PostgresBroker(LocalBroker):
    """Events between every server process on one PostgreSQL database (LISTEN/NOTIFY).

    ``connect``: a function returning a new psycopg connection to the database; the
    listening thread keeps one open (and opens another, after a pause, if it is lost).
    ``notify(connection, topic, event)`` sends an event inside the caller's transaction.
    """

    RETRY_SECONDS = 1.0

    def __init__(self, connect, publish_engine) -> None:
        super().__init__()
        self._connect = connect
        self._engine = publish_engine  # SQLAlchemy engine for publish() outside a transaction
        self._stop = threading.Event()
        self._listening = threading.Event()
        self._connection = None
        self._thread = threading.Thread(target=self._listen, name="hexstones-listen", daemon=True)
        self._thread.start()
        if not self._listening.wait(30):
            raise ValueError("cannot LISTEN for the other servers' changes: no connection to the "
                             "database within 30 s")

    @staticmethod
    def notify(connection, topic: str, event: dict[str, Any]) -> None:
        """NOTIFY inside ``connection``'s transaction (a SQLAlchemy Connection): delivered
        at its commit, never if it rolls back."""
        from sqlalchemy import text

        connection.execute(text("SELECT pg_notify(:channel, :payload)"),
                           {"channel": CHANNEL, "payload": encode(topic, event)})

    def publish(self, topic: str, event: dict[str, Any]) -> None:
        encode(topic, event)  # refused before anything is sent
        with self._engine.begin() as connection:
            self.notify(connection, topic, event)

    def _listen(self) -> None:
        lost = False
        while not self._stop.is_set():
            try:
                connection = self._connect()
            except Exception as exc:  # noqa: BLE001  (the database is away: try again)
                log.warning("listening for changes: cannot connect (%s); retrying", exc)
                self._stop.wait(self.RETRY_SECONDS)
                continue
            try:
                self._connection = connection
                connection.execute(f"LISTEN {CHANNEL}")
                self._listening.set()
                if lost:  # events sent while no one listened here are gone
                    self.resync()
                while not self._stop.is_set():
                    for note in connection.notifies(timeout=0.5):
                        try:
                            self._deliver(json.loads(note.payload))
                        except (ValueError, KeyError, TypeError) as exc:
                            log.warning("a change notice that is not an event: %r (%s)",
                                        note.payload[:200], exc)
            except Exception as exc:  # noqa: BLE001
                if self._stop.is_set():
                    break
                log.warning("listening for changes: connection lost (%s); reconnecting", exc)
                lost = True
                self._stop.wait(self.RETRY_SECONDS)
            finally:
                self._connection = None
                try:
                    connection.close()
                except Exception:  # noqa: BLE001,S110  (closing a broken connection)
                    pass

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)
