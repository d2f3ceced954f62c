"""The bot API's event stream: what a bot account's program hears, one JSON object a line.

``GET /api/bot/events`` (a bot's token only) answers ``application/x-ndjson`` and stays
open. Its lines, each a JSON object with a ``type``:

* ``connected``: first, with the account's ``name`` and ``keep_alive`` (seconds between
  keep-alive lines);
* ``challenge``: an open challenge to the bot (each one open when the stream opens, then
  each as it arrives), as ``GET /api/challenges/<id>`` gives it;
* ``challenge_closed``: a challenge to it was withdrawn, expired, declined or taken
  (``id``, ``status``);
* ``game_start``: a game in which the bot holds a seat (each one unfinished when the stream
  opens, then each as it starts), ``game``: its :func:`bot_state`;
* ``game_state``: a move, a resignation, a clock's flag... in one of those games: its
  state after the change (only when the moves, the side to move or the end changed);
* ``game_end``: one of them ended (``game``: its last state);
* ``revoked``: the token was revoked meanwhile (looked at with each keep-alive): the
  stream ends.

An empty line every :data:`KEEP_ALIVE_SECONDS` keeps proxies from closing a quiet stream;
a client that hears nothing for three times that should reconnect. The stream ends when
the server stops (:func:`end_streams`): the program reconnects, and the new stream
tells it again of every open challenge and unfinished game, so nothing is lost between two.

The events come from the store's broker (:mod:`hexstones.web.broker`): the bot's account
topic (its challenges, its new games) and each of its games' topics; each event is a hint,
and the line sent is read from the game itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.concurrency import run_in_threadpool

from hexstones.web import seats, view
from hexstones.web.accounts import Identity
from hexstones.web.broker import game_topic, user_topic
from hexstones.web.errors import WebError
from hexstones.web.live import Live, Tables
from hexstones.web.lobby import OPEN, lobby_of
from hexstones.web.spec import balance_of

log = logging.getLogger("hexstones.web")

KEEP_ALIVE_SECONDS = 10.0


def bot_state(live: Live, who: Identity) -> dict[str, Any]:
    """A game as a bot's program needs it: the moves in the game API's move text, whose
    turn, the bot's colours, the balance, the clock (:func:`hexstones.web.view.clock_view`)
    and, once over, the result."""
    with live.lock:
        game, setup = live.game, live.setup
        mine = seats.colors_of(setup, who)
        over = live.over
        pie_pending = live.pie_pending
        to_move = None if over or pie_pending else game.to_move
        your_turn = to_move is not None and to_move in mine
        result = view.outcome(live)
        option = balance_of(live.record.game)["option"]
        players = {c: (None if (seat := seats.seat_of(setup, c)) is None else seat.name or "a guest")
                   for c in seats.COLORS}
        return {
            "id": live.record.id, "url": f"/game/{live.record.id}", "game": live.record.game, "size": game.size,
            "options": dict(live.record.options),
            "balance": {"option": option, "value": live.record.options.get(option)},
            "rated": setup.rated, "players": players, "colors": mine, "pie_pending": pie_pending,
            "moves": list(game.moves), "move_count": len(game.moves), "to_move": to_move, "your_turn": your_turn,
            "legal": game.legal_moves() if your_turn else [], "special_moves": list(game.special_moves),
            "clock": view.clock_view(live), "over": over,
            "result": None if result is None else result.to_dict(), "end": view.end_text(live, result),
        }


def bots_games(tables: Tables, who: Identity) -> list[str]:
    """The unfinished games in which ``who`` holds a seat, oldest first."""
    rows = [row for row in tables.list() if not row["finished"] and row["setup"].friend_game
            and seats.colors_of(row["setup"], who)]
    return [row["id"] for row in reversed(rows)]


class Streams:
    """The open event streams of one app: ended together when the server stops (else
    the server would wait for them to close before it stops)."""

    def __init__(self) -> None:
        self.stopping = asyncio.Event()


def streams_of(app: Any) -> Streams:
    streams = getattr(app.state, "bot_streams", None)
    if streams is None:
        streams = app.state.bot_streams = Streams()
    return streams


def end_streams(app: Any) -> None:
    """End every open event stream of ``app`` (the server is stopping)."""
    streams_of(app).stopping.set()


def line(event: dict[str, Any]) -> bytes:
    return (json.dumps(event, separators=(",", ":")) + "\n").encode()


async def events(app: Any, who: Identity) -> AsyncIterator[bytes]:
    """The lines of ``who``'s event stream (see the module), until the server stops."""
    tables: Tables = app.state.tables
    lobby = lobby_of(app)
    broker = tables.store.broker
    stopping = streams_of(app).stopping
    people = app.state.people
    hints: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()
    games: dict[str, tuple[Any, ...]] = {}  # the games told of: what their last line said
    challenges: set[str] = set()
    heard: dict[str, tuple[Any, asyncio.Task[None]]] = {}  # topic -> its subscription and forwarding task

    async def listen(topic: str) -> None:
        subscription = broker.subscribe(topic)
        sub = await subscription.__aenter__()

        async def forward() -> None:
            while True:
                hints.put_nowait((topic, await sub.get()))

        heard[topic] = (subscription, asyncio.create_task(forward()))

    async def unlisten(topic: str) -> None:
        subscription, task = heard.pop(topic)
        task.cancel()
        await subscription.__aexit__(None, None, None)

    async def game_line(game_id: str) -> bytes | None:
        """The line to send for ``game_id`` now: a start, a state, an end (None: nothing new)."""
        before = games.get(game_id)
        if before is not None and before[2]:
            return None  # its end was told
        if game_topic(game_id) not in heard:  # before the state is read: no move between the two is missed
            await listen(game_topic(game_id))
        try:
            live = await run_in_threadpool(tables.get, game_id)
            state = await run_in_threadpool(bot_state, live, who)
        except WebError as exc:  # deleted, or unreadable: nothing to play there
            log.warning("bot %s: game %s: %s", who.name, game_id, exc.message)
            return None
        if not state["colors"]:
            await unlisten(game_topic(game_id))
            return None
        seen = (state["move_count"], state["to_move"], state["over"], state["pie_pending"])
        if before == seen:
            return None
        kind = "game_start" if before is None else "game_end" if state["over"] else "game_state"
        games[game_id] = seen
        if state["over"]:  # nothing more will be told of it
            await unlisten(game_topic(game_id))
        return line({"type": kind, "game": state})

    async def challenge_line(seek_id: str) -> bytes | None:
        try:
            seek = await run_in_threadpool(lobby.get, seek_id)
        except WebError:
            return None
        if not seek.challenge or seek.to_user != who.user:
            return None
        if seek.status == OPEN and seek_id not in challenges:
            challenges.add(seek_id)
            return line({"type": "challenge", "challenge": seek.public(who)})
        if seek.status != OPEN and seek_id in challenges:
            challenges.discard(seek_id)
            return line({"type": "challenge_closed", "id": seek_id, "status": seek.status})
        return None

    async def everything() -> list[bytes]:
        """A line for each open challenge and each game not told yet (at the start, and
        after the broker may have lost events)."""
        found = await run_in_threadpool(lobby.challenges, who)
        lines = [b for c in reversed(found["to_you"]) if (b := await challenge_line(c["id"])) is not None]
        for game_id in await run_in_threadpool(bots_games, tables, who):
            if (b := await game_line(game_id)) is not None:
                lines.append(b)
        return lines

    async def told(hint_topic: str, hint: dict[str, Any]) -> list[bytes]:
        """The lines an event of the broker makes."""
        if hint.get("resync"):
            return await everything()
        lines: list[bytes | None] = []
        if hint_topic.startswith("game:"):
            lines.append(await game_line(hint_topic[len("game:"):]))
        elif "seek" in hint:
            lines.append(await challenge_line(str(hint["seek"])))
            if hint.get("change") == "taken":  # the game it started (a challenge the bot made, say)
                with contextlib.suppress(WebError):
                    seek = await run_in_threadpool(lobby.get, str(hint["seek"]))
                    if seek.game_id is not None:
                        lines.append(await game_line(seek.game_id))
        elif "game" in hint:  # a game the bot now plays (it accepted, or made one)
            lines.append(await game_line(str(hint["game"])))
        return [b for b in lines if b is not None]

    stop = asyncio.create_task(stopping.wait())
    try:
        await listen(user_topic(who.user or ""))
        yield line({"type": "connected", "name": who.name, "keep_alive": KEEP_ALIVE_SECONDS})
        for b in await everything():
            yield b
        beat = time.monotonic() + KEEP_ALIVE_SECONDS  # the next keep-alive, and look at the token
        while True:
            getter = asyncio.create_task(hints.get())
            done, _ = await asyncio.wait({getter, stop}, timeout=max(0.0, beat - time.monotonic()),
                                         return_when=asyncio.FIRST_COMPLETED)
            if stop in done:
                getter.cancel()
                return
            if getter in done:
                for b in await told(*getter.result()):
                    yield b
            else:
                getter.cancel()
            if time.monotonic() >= beat:  # also in a busy stream: a revoked token ends it
                beat = time.monotonic() + KEEP_ALIVE_SECONDS
                if not await run_in_threadpool(people.bot_accounts.working, who.token):
                    yield line({"type": "revoked"})
                    return
                yield b"\n"
    finally:
        stop.cancel()
        for topic in list(heard):
            await unlisten(topic)
