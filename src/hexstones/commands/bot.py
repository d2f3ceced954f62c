"""``hexstones bot``: a GTP engine plays as a bot account on a hexstones server (docs/app.md,
"Bots").

The command starts the engine, opens the bot's event stream (``GET /api/bot/events``, with
its token) and answers what it hears: a challenge within its limits is accepted, any other
declined (the reason printed); in each of its games, on its turn, it sets the engine's board
to the game's (``boardsize``, ``clear_board``, ``komi``, the moves with ``play``), asks
``genmove`` (after ``time_left``, if the engine lists it) and posts the move. When the
connection drops (the server restarts) it reconnects, waiting longer after each failure; the
new stream tells it again of every open challenge and unfinished game.

One engine process serves every game, one ``genmove`` at a time: most engines (``hexstones
gtp`` included) keep one board, so switching games replays the other game's moves, which
costs little beside a search; and a bot account plays one game at a time by default
(``--concurrent``). An engine that fails mid-game (dies, errs, answers no move in time)
resigns that game and is started afresh for the next.

Only the standard library speaks HTTP here: the command needs nothing the package does not.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import queue
import signal
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any

HELP = "play a GTP engine as a bot account on a hexstones server"
DESCRIPTION = (
    "Run a GTP engine (hexstones gtp, or any other) as a bot account on a hexstones server: it "
    "accepts challenges within its limits, plays its games on their clocks and reconnects when the "
    "server restarts. The account is marked a bot and its token made on its account page; see "
    "docs/app.md, 'Bots'. Example: hexstones bot --server https://hex.example.org --token TOKEN -- "
    "hexstones gtp --game keil --level 4"
)
TOKEN_VARIABLE = "HEXSTONES_BOT_TOKEN"
STREAM_SILENCE = 35.0  # seconds without a byte (keep-alives come every 10 s) before the stream counts as lost
RETRY_FIRST, RETRY_MOST = 1.0, 30.0  # seconds between reconnections: doubling from the first to the most
HTTP_SECONDS = 30.0  # a request's answer


class Refused(Exception):
    """The server refused a request; ``status`` and its sentence."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


class Unreachable(Exception):
    """No answer from the server (it is down, restarting, or the network is)."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    from hexstones.games import GAME_NAMES

    p.add_argument("--server", required=True, metavar="URL", help="the server's address, e.g. http://127.0.0.1:8000")
    p.add_argument("--token", default=None,
                   help=f"the bot account's token (default: the {TOKEN_VARIABLE} environment variable, "
                        f"which unlike a command line other users of the machine cannot read)")
    p.add_argument("--games", default=None, metavar="GAME,...",
                   help=f"the games it accepts, of {', '.join(GAME_NAMES)} (default: the game the engine "
                        f"names with gogui-rules_game_id, or every game if it names none)")
    p.add_argument("--sizes", default=None, metavar="MIN-MAX",
                   help="the board sides it accepts, e.g. 3-7 or 5 (default: any)")
    p.add_argument("--max-games", type=int, default=None, metavar="N",
                   help="stop once N games have ended (default: play until Ctrl-C)")
    p.add_argument("--concurrent", type=int, default=1, metavar="N",
                   help="games at once (default 1): a challenge beyond is declined")
    p.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS",
                   help="the longest an engine's answer may take before it counts as failed (default 120)")
    p.add_argument("engine", nargs=argparse.REMAINDER, metavar="-- COMMAND",
                   help="the engine's command line, after --")


@dataclass
class Limits:
    """The challenges a bot accepts."""

    games: tuple[str, ...]
    sizes: tuple[int, int] | None
    concurrent: int
    max_games: int | None

    def refusal(self, challenge: dict[str, Any], playing: int, started: int) -> str | None:
        """Why a challenge is declined (None: it is accepted)."""
        if challenge.get("game") not in self.games:
            return f"it plays {', '.join(self.games)} only"
        size = challenge.get("size")
        if self.sizes is not None and not (isinstance(size, int) and self.sizes[0] <= size <= self.sizes[1]):
            low, high = self.sizes
            return f"it plays board sides {low} to {high} only" if low != high else f"it plays board side {low} only"
        if challenge.get("pie"):
            return "it plays a fixed balance, not the komi pie"
        if (challenge.get("options") or {}).get("handicap"):
            return "it plays no handicap games (GTP tells an engine of no handicap stones here)"
        if self.max_games is not None and started >= self.max_games:
            return "it takes no more games"
        if playing >= self.concurrent:
            return f"it is playing {playing} game{'s' if playing != 1 else ''}: challenge it again later"
        return None


def parse_sizes(text: str | None) -> tuple[int, int] | None:
    """``--sizes``: ``MIN-MAX`` or one side; ValueError saying what is wrong."""
    if text is None:
        return None
    low, _, high = text.partition("-")
    try:
        sizes = (int(low), int(high or low))
    except ValueError:
        raise ValueError(f"--sizes is MIN-MAX or one side, such as 3-7 or 5, not {text!r}") from None
    if not 1 <= sizes[0] <= sizes[1]:
        raise ValueError(f"--sizes needs 1 <= MIN <= MAX, not {text!r}")
    return sizes


# -- the server --------------------------------------------------------------------------------------


class Server:
    """The bot API of one server, as one bot account (its token)."""

    def __init__(self, url: str, token: str) -> None:
        parts = urllib.parse.urlsplit(url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"--server is an http:// or https:// address, not {url!r}")
        self.url = f"{parts.scheme}://{parts.netloc}{parts.path}"
        self.parts = parts
        self.headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """The JSON answer of one request; Refused (with the server's sentence), Unreachable."""
        data = None if body is None else json.dumps(body).encode()
        headers = dict(self.headers, **({"Content-Type": "application/json"} if data is not None else {}))
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=HTTP_SECONDS) as answer:
                return json.loads(answer.read() or b"{}")
        except urllib.error.HTTPError as exc:
            raise Refused(exc.code, _detail(exc.read(), exc.code)) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            raise Unreachable(str(getattr(exc, "reason", exc))) from None

    def events(self):
        """The event stream's lines, each a JSON object (keep-alives skipped), until it ends:
        Refused, Unreachable (also after STREAM_SILENCE without a byte)."""
        parts = self.parts
        kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        connection = kind(parts.hostname or "", parts.port, timeout=STREAM_SILENCE)
        try:
            try:
                connection.request("GET", f"{parts.path}/api/bot/events", headers=self.headers)
                answer = connection.getresponse()
            except (OSError, http.client.HTTPException) as exc:
                raise Unreachable(str(exc) or type(exc).__name__) from None
            if answer.status != 200:
                raise Refused(answer.status, _detail(answer.read(), answer.status))
            while True:
                try:
                    raw = answer.readline()
                except (OSError, http.client.HTTPException) as exc:
                    raise Unreachable(str(exc) or "the connection broke") from None
                if not raw:
                    raise Unreachable("the server closed the stream")
                if raw.strip():
                    yield json.loads(raw)
        finally:
            connection.close()


def _detail(body: bytes, status: int) -> str:
    try:
        return str(json.loads(body)["detail"])
    except (ValueError, KeyError, TypeError):
        return f"HTTP {status}"


# -- the engine --------------------------------------------------------------------------------------


class Engine:
    """The GTP engine, one board shared by the games: it is set to a game's before each
    genmove (only the new moves are played when it was on that game already)."""

    def __init__(self, command: list[str], timeout: float) -> None:
        from hexstones.protocol.match import GTPClient

        self.command, self.timeout = command, timeout
        self.client = GTPClient(command, timeout=timeout)
        listed = self.client.send("list_commands").split()
        self.commands = set(listed)
        self.name = self.client.send("name").strip() if "name" in self.commands else command[0]
        self.game_id: str | None = None
        self.moves: list[str] = []
        self.plays = ("gogui-rules_game_id" in self.commands
                      and self.client.send("gogui-rules_game_id").strip().lower()) or None

    def restart(self) -> None:
        from hexstones.protocol.match import GTPClient

        self.close()
        self.client = GTPClient(self.command, timeout=self.timeout)
        self.game_id, self.moves = None, []

    def genmove(self, state: dict[str, Any], colors: list[str], color: str, clock: tuple[float, int] | None) -> str:
        """The engine's move for ``color`` in the game of ``state`` (``colors``: who played
        each of its moves); EngineFailure when it fails."""
        moves = state["moves"]
        if self.game_id != state["id"] or moves[:len(self.moves)] != self.moves:
            self.game_id, self.moves = None, []
            self.client.send(f"boardsize {state['size']}")
            self.client.send("clear_board")
            balance = state.get("balance") or {}
            if balance.get("value") is not None:
                self.client.send(f"komi {balance['value']}")  # our convention: komi sets the balance
            self.game_id = state["id"]
        for k in range(len(self.moves), len(moves)):
            self.client.send(f"play {colors[k]} {moves[k]}")
            self.moves.append(moves[k])
        if clock is not None and "time_left" in self.commands:
            seconds, stones = clock
            self.client.send(f"time_left {color} {max(0, int(seconds))} {stones}")
        move = self.client.send(f"genmove {color}").strip().lower()
        if move != "resign":
            self.moves.append(move)
        return move

    def close(self) -> None:
        self.client.close()  # sends quit, then ends it if it does not go


# -- the bot ----------------------------------------------------------------------------------------


@dataclass
class Bot:
    server: Server
    engine: Engine
    limits: Limits
    out: Any = sys.stdout
    name: str = "the bot"
    games: dict[str, dict[str, Any]] = field(default_factory=dict)  # game id -> latest state, while it goes on
    answered: dict[str, int] = field(default_factory=dict)  # game id -> the move count its last move answered
    started: set[str] = field(default_factory=set)
    ended: int = 0

    def say(self, text: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {text}", file=self.out, flush=True)

    def handle(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "connected":
            self.name = event.get("name") or self.name
            self.say(f"connected to {self.server.url} as {self.name}")
            for game_id in list(self.games):  # one may have ended while the connection was down
                try:
                    self.game(self.server.call("GET", f"/api/bot/games/{game_id}"), "game_state")
                except Refused as exc:
                    self.games.pop(game_id, None)
                    self.say(f"game {game_id}: {exc.detail}")
        elif kind == "challenge":
            self.challenge(event["challenge"])
        elif kind == "revoked":
            self.say("the server says this bot's token was revoked")
        elif kind in ("game_start", "game_state", "game_end"):
            self.game(event["game"], kind)

    def challenge(self, challenge: dict[str, Any]) -> None:
        who = challenge.get("maker") or "a guest"
        why = self.limits.refusal(challenge, len(self.games), len(self.started))
        try:
            if why is None:
                answer = self.server.call("POST", f"/api/challenges/{challenge['id']}/accept", {})
                self.say(f"challenge from {who} ({challenge.get('text')}): accepted, game {answer.get('game')}")
            else:
                self.server.call("POST", f"/api/challenges/{challenge['id']}/decline", {})
                self.say(f"challenge from {who} ({challenge.get('text')}): declined, {why}")
        except Refused as exc:
            self.say(f"challenge from {who}: {exc.detail}")

    def game(self, state: dict[str, Any], kind: str) -> None:
        game_id = state["id"]
        if state["over"]:
            if self.games.pop(game_id, None) is not None or kind == "game_end":
                self.ended += 1
                self.say(f"game {game_id}: {state.get('end') or 'over'}")
            return
        if game_id not in self.games:
            them = [name for c, name in state["players"].items() if c not in state["colors"]]
            self.say(f"game {game_id}: {state['game']} side {state['size']}, {' and '.join(state['colors'])} "
                     f"against {them[0] if them else 'itself'}")
            self.started.add(game_id)
        self.games[game_id] = state
        if state["your_turn"] and self.answered.get(game_id) != state["move_count"]:
            self.move(state)

    def move(self, state: dict[str, Any]) -> None:
        from hexstones.games import IllegalMove, new_game
        from hexstones.protocol.match import EngineFailure

        game_id, color = state["id"], state["to_move"]
        received = time.monotonic()
        try:  # who played each move: the game API replays them (a handicap's first move is White's)
            local = new_game(state["game"], **state["options"])
            colors = []
            for move in state["moves"]:
                colors.append(local.to_move)
                local.play(move)
        except (ValueError, IllegalMove) as exc:
            self.say(f"game {game_id}: cannot follow it here ({exc}): resigning")
            self.resign(game_id)
            return
        try:
            move = self.engine.genmove(state, colors, color, self.time_left(state, color, received))
            if move != "resign":
                local.play(move)
        except (EngineFailure, IllegalMove) as exc:
            self.say(f"game {game_id}: the engine failed ({exc}): resigning, and starting it again")
            self.resign(game_id)
            self.engine.restart()
            return
        thought = time.monotonic() - received
        if move == "resign":
            self.say(f"game {game_id}: the engine resigns")
            self.resign(game_id)
            return
        try:
            self.server.call("POST", f"/api/games/{game_id}/moves", {"move": move, "ply": state["move_count"]})
            self.answered[game_id] = state["move_count"]
            self.say(f"game {game_id}: move {state['move_count'] + 1}, {color} {move} ({thought:.1f} s)")
        except Refused as exc:  # the game moved on meanwhile (a flag, a resignation): its events tell
            self.engine.game_id = None
            self.say(f"game {game_id}: {move} refused: {exc.detail}")

    @staticmethod
    def time_left(state: dict[str, Any], color: str, received: float) -> tuple[float, int] | None:
        """GTP's ``time_left`` for ``color``: (seconds, stones), 0 stones in main time, 1 in
        a byo-yomi period; None without a clock."""
        clock = state.get("clock")
        if not clock or color not in clock:
            return None
        side = clock[color]
        seconds = float(side["seconds"])
        if clock.get("running") == color:
            seconds -= time.monotonic() - received
        return seconds, 1 if side.get("in_periods") else 0

    def resign(self, game_id: str) -> None:
        try:
            self.server.call("POST", f"/api/games/{game_id}/resign", {})
        except Refused as exc:
            self.say(f"game {game_id}: resigning refused: {exc.detail}")

    @property
    def done(self) -> bool:
        return self.limits.max_games is not None and self.ended >= self.limits.max_games and not self.games


def listen(server: Server, events: queue.Queue, stop: threading.Event) -> None:
    """Read the event stream into ``events``, reconnecting after a loss (waiting twice as
    long after each failed try, up to RETRY_MOST); ``("fatal", sentence)`` when the server
    refuses the token."""
    wait = RETRY_FIRST
    while not stop.is_set():
        try:
            for event in server.events():
                if event.get("type") == "connected":
                    wait = RETRY_FIRST
                events.put(("event", event))
                if stop.is_set():
                    return
        except Refused as exc:
            events.put(("fatal", f"the server refused the bot ({exc.status}): {exc.detail}"))
            return
        except (Unreachable, ValueError) as exc:
            events.put(("lost", f"{exc}; reconnecting in {wait:g} s"))
        stop.wait(wait)
        wait = min(wait * 2, RETRY_MOST)


def run(args: argparse.Namespace) -> int:
    from hexstones.games import GAME_NAMES
    from hexstones.protocol.match import EngineFailure

    def fail(text: str, code: int = 2) -> int:
        print(f"hexstones bot: {text}", file=sys.stderr)
        return code

    command = args.engine[1:] if args.engine[:1] == ["--"] else args.engine
    if not command:
        return fail("give the engine's command after --, e.g. -- hexstones gtp --game keil")
    token = args.token or os.environ.get(TOKEN_VARIABLE)
    if not token:
        return fail(f"give the bot account's token: --token TOKEN, or the {TOKEN_VARIABLE} environment variable")
    try:
        sizes = parse_sizes(args.sizes)
        chosen = None if args.games is None else tuple(g.strip().lower() for g in args.games.split(",") if g.strip())
        for name in chosen or ():
            if name not in GAME_NAMES:
                raise ValueError(f"--games: no game {name!r}; the games are {', '.join(GAME_NAMES)}")
        if args.concurrent < 1 or (args.max_games is not None and args.max_games < 1):
            raise ValueError("--concurrent and --max-games are at least 1")
        server = Server(args.server, token)
    except ValueError as exc:
        return fail(str(exc))

    def stopped(signum, frame) -> None:
        raise KeyboardInterrupt

    # Ctrl-C, or a kill (SIGTERM), stops the bot and quits the engine (started in a session
    # of its own, so the terminal's Ctrl-C reaches the bot, not the engine mid-move).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, stopped)
    stop = threading.Event()
    engine = None
    try:
        try:
            engine = Engine(command, args.timeout)
        except (ValueError, EngineFailure) as exc:
            return fail(f"the engine: {exc}", 1)
        if chosen is None:
            chosen = (engine.plays,) if engine.plays in GAME_NAMES else tuple(GAME_NAMES)
        elif engine.plays is not None and any(g != engine.plays for g in chosen):
            return fail(f"the engine plays {engine.plays} only (gogui-rules_game_id), not all of --games {args.games}")
        bot = Bot(server, engine, Limits(chosen, sizes, args.concurrent, args.max_games))
        bot.say(f"engine {engine.name} ({' '.join(command)}) plays {', '.join(chosen)}")
        events: queue.Queue = queue.Queue()
        threading.Thread(target=listen, args=(server, events, stop), daemon=True).start()
        while not bot.done:
            try:
                what, item = events.get(timeout=1.0)
            except queue.Empty:
                continue
            if what == "fatal":
                return fail(item, 1)
            if what == "lost":
                bot.say(f"connection lost: {item}")
                continue
            try:
                bot.handle(item)
            except Unreachable as exc:  # the stream will be lost too: its reconnection tells everything again
                bot.say(f"the server did not answer ({exc}); waiting for it")
            except ValueError as exc:  # the engine could not be started again
                return fail(f"the engine: {exc}", 1)
        bot.say(f"{bot.ended} game{'s' if bot.ended != 1 else ''} played: stopping")
        return 0
    except KeyboardInterrupt:
        print("hexstones bot: stopped (games under way go on without it; their clocks run)", file=sys.stderr)
        return 130
    finally:
        stop.set()
        if engine is not None:
            engine.close()
