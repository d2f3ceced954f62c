"""Online play under load: bot players on 127.0.0.1 play many games against each other
through real ``hexstones serve`` processes, on SQLite and on PostgreSQL, in the same run.

    python benchmarks/online.py [--loads 200x15,200x2] [--seconds 60] [--size 7]
                                [--rounds 2] [--lines sqlite,postgresql,postgresql-2]
                                [--postgres URL] [--clock none,fischer:60:0]
                                [--flags 20] [--flag-clock fischer:15:0]
                                [--bot-games 0,40] [--bot-level 2]
    python benchmarks/online.py --games 200 --think 15 ...   (one load)

(with hexstones installed, e.g. the .venv of .ci/run, or PYTHONPATH=src)

Each line starts its servers (``sqlite``: one process owning a new file; ``postgresql``:
one process on a new database of a throwaway PostgreSQL cluster, as the tests start it
(tests/pg.py), or of ``--postgres``; ``postgresql-2``: two processes on one database, the
first player of each game on the first, the second on the second, as a proxy without
sticky sessions would spread them). Then the games of a load (``GAMESxTHINK``: 200x2 is
200 games at once, 2 s on average between a game's moves) are played, each by two
bot players as two browsers would: their own cookies (sessions), the first creates a game
against a friend and the second joins it with the invitation, and each keeps the game's
live WebSocket open. A move is: the player to move sends ``POST /api/games/<id>/moves`` (a
random legal point), its opponent's WebSocket hears of it, and the opponent fetches the
state (``GET /api/games/<id>``), as the page does. Three times per move, from sending it:
``move`` (the mover has its answer), ``heard`` (the opponent's WebSocket has the event),
``seen`` (the opponent has the new state: the move is on the other screen). Between moves a
game pauses for a time drawn from an exponential distribution of mean ``--think`` seconds
(the offered load is about games / think moves a second; the default loads are 200x15,
about 13 moves a second, and 200x2, about 100); a finished game starts anew. The first
``--warmup`` seconds are not counted; every line stops by itself after ``--seconds``.
The loads and lines are measured in turns, ``--rounds`` times, each time on new servers
and a new database, so that load coming and going on a shared machine weighs on every
line alike; one JSON line per load, line and round, then one per load and line over all
rounds, then one per load setting the lines side by side with the targets.

Each JSON line: moves, moves/s, p50/p90/p99/max in ms of each time, refused moves, the
servers' and the bots' CPU milliseconds per move (measured over the counted seconds
only: the warm-up's new games and connections are left out), the load average before
and after (the machine is shared: the figures move with what else runs), the machine's
CPUs, and whether the targets are met: at most 3 ms of server CPU a move, and the
mover's p99 under 50 ms at about 100 moves a second on a 2-core machine.

The bots behave as browsers do where it costs the server: each keeps its connection open
while idle (as a browser does, minutes), so a move is not a new connection.

Clocks. ``--clock`` (a time control as a new game's choice ``clock`` takes it, e.g.
``fischer:60:0``; default none: games without a clock) creates every game of the loads
with that clock, so that the move times and the CPU a move are measured with the server
stepping a clock at each move (and watching the deadlines). Several, comma separated,
``none`` for no clock (``--clock none,fischer:60:0``), measure each load with each in
turn, as the lines are: then each load with a clock is set beside its peer without one
(``vs_no_clock``: the ratios of the CPU a move and of the mover's p50 / p99). A game whose
pauses run a side's time out ends on time like one whose first move came after 60 s
(aborted): the next move is refused (409, in ``refused``) and the game starts anew; a
clock much longer than ``--seconds`` keeps that away. ``--flags N`` adds N games per load
with a clock, line and round, played beside the load's games, that end on time on
purpose: each is created with
``--flag-clock`` (a Fischer clock, default ``fischer:15:0``, the shortest there is), both
first moves are played (free of the clock: their times count among the moves), then nobody
moves. The flag falls at a known instant: the state the first player fetches after the
second move says ``clock.flag_in``; the instant is the time that fetch was sent plus
``flag_in`` (the server's clock is this machine's: the instant is at most that fetch's
round trip early: a delay measured is too long by at most that). Then each player, as its
page would, waits for the game's WebSocket event (``change: time``) and fetches the state
until it shows the game over, ``result.reason`` ``time`` (each fetch that does not yet is
counted, ``stale_fetches``); a page asks for the state itself as well once its own
countdown is out, the bots do not: the figures are what the server's own ending and push
give. The games start spread over the counted part so that their flags fall while the
load runs (when ``--seconds`` leaves room: the warm-up, BASE and 5 s). On each line:
``flag_to_heard`` and ``flag_to_seen`` in ms for each player (two a game), and
``flag_to_both`` for each game (until the later of its two players has the result), with
the target: both pages show the result within 1 s of the flag (p99; over a few dozen
games, about the worst of them). On
``postgresql-2`` the two players are on different processes: one ends the game, the
other's page hears of it through PostgreSQL.

Bots. ``--bot-games N`` plays N of each load's games against the server's AI accounts
(``level2-bot`` with ``--bot-level 2``) instead of between two players: a player signs up
an account, challenges the bot (which accepts at once), and plays black against it, each
move as in the other games; the bot's answer is the AI's, thought on the server's AI
processes beside everything else. Those games' moves are left out of ``move``, ``heard``
and ``seen`` (the figures of the games between people, with the targets); ``bot_answer``
is, for each of the player's moves, the time from the move's answer until the player's
WebSocket has the bot's reply (the AI's thinking at its level included), and ``bot_games``
and ``bot_moves`` count them. The CPU a move counts every move, the bots' included
(their thinking is in the AI processes, which are not measured). Several, comma separated
(``--bot-games 0,40``), measure each load with each in turn, and set the load with bots
beside its peer without (``vs_no_bots``: the ratios, as ``vs_no_clock``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import ssl
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the tests' real servers: serving.py, pg.py


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of a process and its waited-for children."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


@contextmanager
def postgres_database(url: str | None):
    """A new database: on ``url``'s server, or on a throwaway cluster (tests/pg.py)."""
    with ExitStack() as stack:
        if url is None:
            from pg import server_binaries, throwaway_cluster

            binaries = server_binaries()
            if binaries is None:
                raise SystemExit("no PostgreSQL server programs: install postgresql or pass --postgres URL")
            # fsync on: each commit waits for the disk, as SQLite's do (synchronous=FULL)
            url = stack.enter_context(throwaway_cluster(binaries, durable=True)).url()
        import psycopg

        name = f"hexstones_bench_{os.getpid()}_{time.monotonic_ns()}"
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}")
        try:
            yield url.rsplit("/", 1)[0] + "/" + name
        finally:
            with psycopg.connect(url, autocommit=True) as admin:
                admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


TARGET_P99_MS = 50  # the mover's answer, 99th percentile, at ~100 moves/s on a 2-core machine
TARGET_CPU_MS = 3  # the servers' CPU a move, all processes together
DEFAULT_LOADS = "200x15,200x2"  # ~13 moves/s (a quiet server) and ~100 moves/s (a busy one)
TARGET_FLAG_MS = 1000  # a flag falling to both players' pages showing the result, 99th percentile
DEFAULT_FLAG_CLOCK = "fischer:15:0"  # the shortest Fischer clock: the flagged games' flag falls 15 s on


class Tally:
    def __init__(self, counting_from: float):
        self.counting_from = counting_from
        self.times: dict[str, list[float]] = {"move": [], "heard": [], "seen": []}
        self.bot_answers: list[float] = []  # seconds from a move's answer to the bot's reply heard
        self.bot_games = 0
        self.refused: dict[int, int] = {}
        self.games = 0
        # The flagged games (--flags): per game, each player's seconds from the flag to its
        # WebSocket event and to its fetch showing the result; and what went wrong instead.
        self.flags: list[dict[str, list[float]]] = []
        self.flag_problems: dict[str, int] = {}
        self.stale_fetches = 0

    def move(self, started: float, move: float, heard: float, seen: float) -> None:
        if started >= self.counting_from:
            for name, took in (("move", move), ("heard", heard), ("seen", seen)):
                self.times[name].append(took)

    def bot_answer(self, started: float, answer: float) -> None:
        if started >= self.counting_from:
            self.bot_answers.append(answer)

    def refuse(self, started: float, status: int) -> None:
        if started >= self.counting_from:
            self.refused[status] = self.refused.get(status, 0) + 1

    def flag_problem(self, what: str) -> None:
        self.flag_problems[what] = self.flag_problems.get(what, 0) + 1


TLS = ssl.create_default_context()  # made once: httpx would build one per client (slow)


BROWSER_KEEP_ALIVE_S = 300  # a browser keeps an idle connection open about this long (Chrome)


def browser(base: str) -> httpx.AsyncClient:
    """One bot's browser: its own cookies, one keep-alive connection, kept while idle as a
    browser keeps it (httpx alone closes it after 5 s: a new connection for every move)."""
    return httpx.AsyncClient(base_url=base, timeout=60, verify=TLS,
                             limits=httpx.Limits(max_connections=1, max_keepalive_connections=1,
                                                 keepalive_expiry=BROWSER_KEEP_ALIVE_S))


async def send(client: httpx.AsyncClient, method: str, path: str, body: dict | None = None) -> httpx.Response:
    """A request, sent again once if the server had closed the idle keep-alive connection
    (a browser opens a new one then)."""
    for attempt in (1, 2):
        try:
            return await client.request(method, path, json=body)
        except (httpx.ReadError, httpx.RemoteProtocolError):
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def live(client: httpx.AsyncClient, gid: str):
    """The game's live WebSocket, as ``client``'s page opens it (its cookies, its origin)."""
    from websockets.asyncio.client import connect

    base = str(client.base_url).rstrip("/")
    cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
    return connect(base.replace("http://", "ws://") + f"/api/games/{gid}/live", origin=base,
                   additional_headers={"Cookie": cookie}, open_timeout=60)


async def hear(ws, moves: int) -> None:
    """Wait for the event saying the game has ``moves`` moves (older events are skipped)."""
    while True:
        event = json.loads(await asyncio.wait_for(ws.recv(), 60))
        if event.get("moves") == moves:
            return


def new_game(size: int, clock: str | None) -> dict:
    """The body of a new game against a friend, the first player black; with ``clock``."""
    body: dict = {"game": "keil", "size": size, "opponent": "friend", "color": "black"}
    if clock is not None:
        body["clock"] = clock
    return body


async def open_game(ann: httpx.AsyncClient, bea: httpx.AsyncClient, n: int, body: dict) -> tuple[str, dict]:
    """``ann`` creates a game, ``bea`` joins it with the invitation: its id and first state."""
    r = await send(ann, "POST", "/api/games", body)
    r.raise_for_status()
    state = r.json()
    gid, secret = state["id"], state["invite"].rsplit("/", 1)[1]
    r = await send(bea, "POST", f"/api/games/{gid}/join", {"secret": secret, "name": f"bot {n}"})
    r.raise_for_status()
    return gid, state


async def bot(n: int, bases: list[str], size: int, think: float, stop_at: float, tally: Tally,
              clock: str | None = None) -> None:
    """Two players of one game after another until ``stop_at``: the first through bases[0],
    the second through bases[-1]; each game with ``clock`` (None: without one)."""
    rng = random.Random(n)
    ann, bea = browser(bases[0]), browser(bases[-1])
    try:
        await asyncio.sleep(rng.uniform(0, think))  # the games do not all start at once
        while time.perf_counter() < stop_at:
            gid, state = await open_game(ann, bea, n, new_game(size, clock))
            tally.games += 1
            async with live(ann, gid) as ann_ws, live(bea, gid) as bea_ws:
                players = [(ann, ann_ws), (bea, bea_ws)]
                for _, ws in players:
                    await hear(ws, 0)
                ply = 0
                while time.perf_counter() < stop_at and not state["over"]:
                    (mover, _), (opponent, opponent_ws) = players[ply % 2], players[1 - ply % 2]
                    points = [m for m in state["legal"] if m != "pass"]
                    move = rng.choice(points) if points else "pass"
                    started = time.perf_counter()
                    r = await send(mover, "POST", f"/api/games/{gid}/moves", {"move": move, "ply": ply})
                    moved = time.perf_counter() - started
                    if r.status_code != 200:
                        tally.refuse(started, r.status_code)
                        break  # a new game
                    ply += 1
                    await hear(opponent_ws, ply)
                    heard = time.perf_counter() - started
                    state = (await send(opponent, "GET", f"/api/games/{gid}")).json()
                    tally.move(started, moved, heard, time.perf_counter() - started)
                    pause = min(rng.expovariate(1 / think), 4 * think)
                    await asyncio.sleep(min(pause, max(0.0, stop_at - time.perf_counter())))  # not past the stop
    finally:
        for client in (ann, bea):
            await client.aclose()


async def against_a_bot(n: int, bases: list[str], size: int, think: float, stop_at: float, tally: Tally,
                        level: int, clock: str | None = None) -> None:
    """A player against the AI's account of ``level`` (``--bot-games``), game after game until
    ``stop_at``: signed up as an account, it challenges the bot, which accepts at once; it
    plays black, each move timed as in :func:`bot` but into ``tally.bot_answer``: from the
    move's answer until its WebSocket has the bot's reply."""
    rng = random.Random(10_000 + n)
    player = browser(bases[n % len(bases)])
    try:
        r = await send(player, "POST", "/api/account/signup",
                       {"name": f"bench-{n}-{secrets.token_hex(3)}", "password": secrets.token_hex(12)})
        r.raise_for_status()
        await asyncio.sleep(rng.uniform(0, think))
        while time.perf_counter() < stop_at:
            body = {key: value for key, value in new_game(size, clock).items() if key != "opponent"}
            body["to"] = f"level{level}-bot"
            r = await send(player, "POST", "/api/challenges", body)
            r.raise_for_status()
            gid = r.json()["game_id"]
            tally.bot_games += 1
            async with live(player, gid) as ws:
                await hear(ws, 0)
                state = (await send(player, "GET", f"/api/games/{gid}")).json()
                ply = 0
                while time.perf_counter() < stop_at and not state["over"]:
                    points = [m for m in state["legal"] if m != "pass"]
                    started = time.perf_counter()
                    r = await send(player, "POST", f"/api/games/{gid}/moves",
                                   {"move": rng.choice(points) if points else "pass", "ply": ply})
                    answered = time.perf_counter()
                    if r.status_code != 200:
                        tally.refuse(started, r.status_code)
                        break
                    state = r.json()
                    if state["over"]:
                        break
                    ply += 2
                    await hear(ws, ply)
                    tally.bot_answer(started, time.perf_counter() - answered)
                    state = (await send(player, "GET", f"/api/games/{gid}")).json()
                    pause = min(rng.expovariate(1 / think), 4 * think)
                    await asyncio.sleep(min(pause, max(0.0, stop_at - time.perf_counter())))
    finally:
        await player.aclose()


async def flagged(n: int, bases: list[str], size: int, clock: str, start_in: float, tally: Tally) -> None:
    """One game that ends on time (``--flags``): after ``start_in`` seconds, two players
    (through bases[0] and bases[-1], as in :func:`bot`) create it with ``clock``, play
    both first moves, then wait without moving for the flag; each player's delay from the
    flag to its WebSocket event and to its fetch of the result goes into ``tally.flags``.
    What goes wrong is counted in ``tally.flag_problems``, not raised: the load goes on."""
    rng = random.Random(-1 - n)
    ann, bea = browser(bases[0]), browser(bases[-1])
    try:
        await asyncio.sleep(start_in)
        gid, state = await open_game(ann, bea, n, new_game(size, clock))
        async with live(ann, gid) as ann_ws, live(bea, gid) as bea_ws:
            players = [(ann, ann_ws), (bea, bea_ws)]
            for _, ws in players:
                await hear(ws, 0)
            for ply in (0, 1):  # each side's first move, free of the clock, as in bot()
                (mover, _), (opponent, opponent_ws) = players[ply], players[1 - ply]
                points = [m for m in state["legal"] if m != "pass"]
                started = time.perf_counter()
                r = await send(mover, "POST", f"/api/games/{gid}/moves", {"move": rng.choice(points), "ply": ply})
                moved = time.perf_counter() - started
                if r.status_code != 200:
                    tally.refuse(started, r.status_code)
                    tally.flag_problem(f"first move refused ({r.status_code})")
                    return
                await hear(opponent_ws, ply + 1)
                heard = time.perf_counter() - started
                asked = time.time()  # this fetch's answer says when the flag falls
                state = (await send(opponent, "GET", f"/api/games/{gid}")).json()
                tally.move(started, moved, heard, time.perf_counter() - started)
            timing = state.get("clock") or {}
            if timing.get("running") != "black" or timing.get("first_move") or timing.get("flag_in") is None:
                tally.flag_problem("no clock running for black after both first moves")
                return
            flag_at = asked + timing["flag_in"]  # at most the fetch's round trip early

            async def result(client: httpx.AsyncClient, ws) -> tuple[float, float] | None:
                """Seconds from the flag until the event, and until the fetch showing the result."""
                deadline = flag_at + 60
                while True:
                    event = json.loads(await asyncio.wait_for(ws.recv(), max(1.0, deadline - time.time())))
                    if event.get("change") == "time":
                        break
                heard = time.time() - flag_at
                while True:
                    r = await send(client, "GET", f"/api/games/{gid}")
                    shown = r.json() if r.status_code == 200 else {"over": False, "status": r.text[:80]}
                    if shown["over"] or time.time() > deadline:
                        break
                    tally.stale_fetches += 1  # the event came before this process had the result
                    await asyncio.sleep(0.02)
                seen = time.time() - flag_at
                outcome = shown.get("result") or {}
                if not shown["over"] or outcome.get("reason") != "time" or outcome.get("winner") != "white":
                    tally.flag_problem(f"not black's flag: {shown.get('status')!r}")
                    return None
                return heard, seen

            found = await asyncio.gather(*(result(client, ws) for client, ws in players))
            if all(f is not None for f in found):
                tally.flags.append({"heard": [f[0] for f in found], "seen": [f[1] for f in found]})
    except TimeoutError:
        tally.flag_problem("no answer or event within 60 s")
    except Exception as exc:  # a refused request, a closed WebSocket: counted, the load goes on
        tally.flag_problem(f"{type(exc).__name__}: {str(exc)[:80]}")
    finally:
        for client in (ann, bea):
            await client.aclose()


@dataclass(frozen=True)
class Load:
    games: int
    think: float  # seconds between a game's moves, on average
    clock: str | None = None  # the games' time control (--clock), None: no clock
    bots: int = 0  # of the games, those played against the AI's accounts (--bot-games)

    @property
    def name(self) -> str:
        return f"{self.games}x{self.think:g}" + (f" ({self.bots} against bots)" if self.bots else "")


def flag_games(load: Load, args) -> int:
    """The flagged games played beside ``load``: --flags beside a load with a clock."""
    return args.flags if load.clock is not None else 0


def parse_loads(text: str) -> list[Load]:
    loads = []
    for part in text.split(","):
        games, _, think = part.strip().partition("x")
        try:
            load = Load(int(games), float(think))
        except ValueError:
            raise ValueError(f"a load is GAMESxTHINK, e.g. 200x2, not {part!r}") from None
        if not 1 <= load.games <= 2000 or not 0 < load.think <= 600:
            raise ValueError(f"a load's games are 1 to 2000 and its think time above 0 s, not {part!r}")
        loads.append(load)
    return loads


async def play(bases: list[str], pids: list[int], load: Load, args) -> tuple[Tally, float, float]:
    """The load's games until ``--seconds``; with the servers' and the bots' CPU seconds
    over the counted part (from the end of the warm-up to the stop)."""
    start = time.perf_counter()
    tally = Tally(start + args.warmup)
    stop_at = start + args.seconds

    async def cpu_between() -> tuple[float, float]:
        await asyncio.sleep(args.warmup)
        server, bots = sum(cpu_seconds(p) for p in pids), time.process_time()
        await asyncio.sleep(max(0.0, stop_at - time.perf_counter()))
        return sum(cpu_seconds(p) for p in pids) - server, time.process_time() - bots

    cpu = asyncio.ensure_future(cpu_between())
    # The flagged games start spread over the counted part, their flags falling before the stop.
    room = max(0.0, args.seconds - args.warmup - args.flag_base - 5)
    rng = random.Random(load.games)
    flags = [flagged(k, bases, args.size, args.flag_clock, args.warmup + room * (k + rng.random()) / args.flags,
                     tally) for k in range(flag_games(load, args))]
    people = load.games - load.bots
    await asyncio.gather(*(bot(n, bases, args.size, load.think, stop_at, tally, load.clock)
                           for n in range(people)),
                         *(against_a_bot(n, bases, args.size, load.think, stop_at, tally, args.bot_level, load.clock)
                           for n in range(load.bots)), *flags)
    server_cpu, bot_cpu = await cpu
    return tally, server_cpu, bot_cpu


def percentile(values: list[float], q: float) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=1000, method="inclusive")[int(q * 10) - 1]


@dataclass
class Run:
    """What one line measured in one round."""
    servers: int
    tally: Tally
    counted: float  # seconds counted (after the warm-up)
    server_cpu: float  # CPU seconds of the servers and of the bots over the counted part
    bot_cpu: float
    load: list[float]  # the 1-minute load average before and after
    flags: int = 0  # flagged games started (--flags), with their clock
    flag_clock: str | None = None


def measure(db: str, processes: int, folder: Path, load: Load, args) -> Run:
    from serving import Servers

    folder.mkdir()
    # The bots start hundreds of games from one address: no limit on new games a minute.
    servers = Servers(db, folder, processes=processes, extra=("--games-per-minute", "0"))
    try:
        servers.start()
        bases, pids = servers.urls, [s.proc.pid for s in servers.servers]
        for base in bases:  # the AI's workers compile ahead at start: their CPU is not a move's
            deadline = time.monotonic() + 600
            while httpx.get(base + "/api/ai", timeout=60).json().get("warming") and time.monotonic() < deadline:
                time.sleep(0.5)
        time.sleep(args.settle)  # then the server loads the rules' kernels too
        load_before = os.getloadavg()[0]
        tally, server_cpu, bot_cpu = asyncio.run(play(bases, pids, load, args))
        load_after = os.getloadavg()[0]
    finally:
        servers.stop()
    return Run(processes, tally, args.seconds - args.warmup, server_cpu, bot_cpu, [load_before, load_after],
               flag_games(load, args), args.flag_clock)


def summary(line: str, runs: list[Run], load: Load) -> dict:
    times = {name: [1000 * t for run in runs for t in run.tally.times[name]] for name in ("move", "heard", "seen")}
    moves = len(times["move"])
    refused: dict[int, int] = {}
    for run in runs:
        for status, n in run.tally.refused.items():
            refused[status] = refused.get(status, 0) + n
    result: dict = {"load": load.name, "line": line, "servers": runs[0].servers, "games_at_once": load.games,
                    "think_s": load.think, "offered_moves_per_s": round(load.games / load.think, 1),
                    "rounds": len(runs), "moves": moves,
                    "moves_per_s": round(moves / sum(r.counted for r in runs), 1)}
    for name, ms in times.items():
        result[name] = {"p50": round(percentile(ms, 50), 1), "p90": round(percentile(ms, 90), 1),
                        "p99": round(percentile(ms, 99), 1), "max": round(max(ms, default=float("nan")), 1)}
    result.update({"refused": refused,
                   "server_cpu_ms_per_move": round(1000 * sum(r.server_cpu for r in runs) / max(1, moves), 2),
                   "bots_cpu_ms_per_move": round(1000 * sum(r.bot_cpu for r in runs) / max(1, moves), 2),
                   "load_1min": [round(x, 2) for r in runs for x in r.load], "cpus": os.cpu_count()})
    result.update({f"server_cpu_at_most_{TARGET_CPU_MS}_ms": result["server_cpu_ms_per_move"] <= TARGET_CPU_MS,
                   f"move_p99_under_{TARGET_P99_MS}_ms": result["move"]["p99"] < TARGET_P99_MS})
    if load.clock is not None:
        result["clock"] = load.clock
    result["against_bots"] = load.bots
    answers = [a for run in runs for a in run.tally.bot_answers]
    if answers or any(run.tally.bot_games for run in runs):
        result.update({"bot_games": sum(run.tally.bot_games for run in runs), "bot_moves": len(answers),
                       "bot_answer": spread(answers)})
    if runs[0].flags:
        result["flags"] = flag_summary(runs)
        result[f"flag_to_both_p99_under_{TARGET_FLAG_MS}_ms"] = flags_meet_target(result["flags"])
    return result


def spread(seconds: list[float]) -> dict:
    ms = [1000 * s for s in seconds]
    return {"p50": round(percentile(ms, 50), 1), "p99": round(percentile(ms, 99), 1),
            "max": round(max(ms, default=float("nan")), 1)}


def flag_summary(runs: list[Run]) -> dict:
    """The flagged games over ``runs``: each player's delays from the flag to its event and
    to the result on its screen, each game's until both have it, and what went wrong."""
    games = [g for run in runs for g in run.tally.flags]
    problems: dict[str, int] = {}
    for run in runs:
        for what, n in run.tally.flag_problems.items():
            problems[what] = problems.get(what, 0) + n
    return {"clock": runs[0].flag_clock, "games": sum(r.flags for r in runs), "measured": len(games),
            "problems": problems, "stale_fetches": sum(r.tally.stale_fetches for r in runs),
            "flag_to_heard_ms": spread([t for g in games for t in g["heard"]]),
            "flag_to_seen_ms": spread([t for g in games for t in g["seen"]]),
            "flag_to_both_ms": spread([max(g["seen"]) for g in games])}


def flags_meet_target(flags: dict) -> bool:
    """Every flagged game measured, and both pages showing the result within the target (p99)."""
    return (flags["measured"] == flags["games"] and not flags["problems"]
            and flags["flag_to_both_ms"]["p99"] < TARGET_FLAG_MS)


def side_by_side(load: Load, summaries: dict[str, dict], peers: dict[str, dict] | None = None,
                 against: str = "vs_no_clock") -> dict:
    """One line for a load: each line's CPU a move and the mover's p50 / p99, and the targets
    (with --flags: each line's flag-to-both-pages p50 / p99 / max too); with ``peers`` (the
    same load without a clock, measured in the same run), the ratios to them."""
    first = next(iter(summaries.values()))
    targets: dict = {"server_cpu_ms_per_move": TARGET_CPU_MS, "move_p99_ms": TARGET_P99_MS}
    if "flags" in first:
        targets["flag_to_both_p99_ms"] = TARGET_FLAG_MS
    found: dict = {"load": load.name, "offered_moves_per_s": round(load.games / load.think, 1)}
    if "clock" in first:
        found["clock"] = first["clock"]
    if load.bots:
        found["against_bots"] = load.bots
    found["targets"] = targets
    for line, r in summaries.items():
        row = {"moves_per_s": r["moves_per_s"], "server_cpu_ms_per_move": r["server_cpu_ms_per_move"],
               "move_p50_ms": r["move"]["p50"], "move_p99_ms": r["move"]["p99"]}
        meets = r["server_cpu_ms_per_move"] <= TARGET_CPU_MS and r["move"]["p99"] < TARGET_P99_MS
        if "flags" in r:
            both = r["flags"]["flag_to_both_ms"]
            row.update({"flag_to_both_p50_ms": both["p50"], "flag_to_both_p99_ms": both["p99"],
                        "flag_to_both_max_ms": both["max"],
                        "flags_measured": f"{r['flags']['measured']}/{r['flags']['games']}"})
            meets = meets and flags_meet_target(r["flags"])
        if "bot_answer" in r:
            row.update({"bot_answer_p50_ms": r["bot_answer"]["p50"], "bot_answer_p99_ms": r["bot_answer"]["p99"]})
        if peers is not None:
            peer = peers[line]
            row[against] = {
                "server_cpu_ms_per_move": ratio(r["server_cpu_ms_per_move"], peer["server_cpu_ms_per_move"]),
                "move_p50_ms": ratio(r["move"]["p50"], peer["move"]["p50"]),
                "move_p99_ms": ratio(r["move"]["p99"], peer["move"]["p99"])}
        found[line] = {**row, "meets_targets": meets}
    return found


def ratio(a: float, b: float) -> float | None:
    return round(a / b, 2) if b else None


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--loads", default=None,
                   help=f"loads measured in turn, GAMESxTHINK comma separated: games at once, mean "
                        f"seconds between a game's moves (default {DEFAULT_LOADS}, or --games x --think)")
    p.add_argument("--games", type=int, default=None, help="one load: games played at once (default 200)")
    p.add_argument("--think", type=float, default=None,
                   help="one load: mean pause between a game's moves (s, default 15)")
    p.add_argument("--seconds", type=float, default=60.0, help="length of each line in each round")
    p.add_argument("--warmup", type=float, default=15.0, help="seconds at the start not counted")
    p.add_argument("--size", type=int, default=7, help="Keil board side")
    p.add_argument("--settle", type=float, default=15.0, help="seconds to let servers settle")
    p.add_argument("--rounds", type=int, default=2, help="the lines are measured in turns, this many times")
    p.add_argument("--lines", default="sqlite,postgresql,postgresql-2")
    p.add_argument("--postgres", default=None, help="a PostgreSQL server's URL (else a throwaway one)")
    p.add_argument("--clock", default=None,
                   help="the games' clock, a time control as a new game takes it, e.g. fischer:60:0; several "
                        "comma separated, 'none' for no clock, each load measured with each in turn, e.g. "
                        "none,fischer:60:0 (default: no clock)")
    p.add_argument("--flags", type=int, default=0,
                   help="games per load with a clock, line and round that end on time on purpose, beside "
                        "the load's, to time a flag falling to both pages showing the result (default 0)")
    p.add_argument("--flag-clock", default=DEFAULT_FLAG_CLOCK,
                   help=f"the flagged games' clock, fischer:BASE:INC (default {DEFAULT_FLAG_CLOCK})")
    p.add_argument("--bot-games", default="0",
                   help="games of each load played by a player against the AI's account of --bot-level "
                        "instead of between two players (default 0); several, comma separated, measure each "
                        "load with each in turn, e.g. 0,40, and set it beside its peer without bots")
    p.add_argument("--bot-level", type=int, default=2, help="the level of the bot accounts played (default 2)")
    args = p.parse_args()
    from hexstones.session.clock import Fischer, TimeControl

    clocks: list[str | None] = [None if c == "none" else c for c in (args.clock or "none").split(",")]
    try:
        for clock in clocks:
            if clock is not None:
                TimeControl.parse(clock)
        flag_control = TimeControl.parse(args.flag_clock)
    except ValueError as exc:
        p.error(f"--clock / --flag-clock: {exc}")
    if len(set(clocks)) != len(clocks):
        p.error("--clock: each clock once")
    if args.flags and clocks == [None]:
        p.error("--flags goes with --clock: the flagged games are played beside a load with a clock")
    if not isinstance(flag_control, Fischer):
        p.error(f"--flag-clock is a Fischer clock, fischer:BASE:INC, not {args.flag_clock!r}")
    args.flag_base = flag_control.base
    if not 0 <= args.flags <= 1000:
        p.error("--flags 0 to 1000")
    if args.loads is None:
        one = args.games is not None or args.think is not None
        args.loads = f"{args.games or 200}x{args.think or 15:g}" if one else DEFAULT_LOADS
    elif args.games is not None or args.think is not None:
        p.error("give --loads, or --games and --think, not both")
    try:
        bot_games = [int(n) for n in args.bot_games.split(",")]
        loads = [replace(load, clock=clock, bots=bots) for load in parse_loads(args.loads) for clock in clocks
                 for bots in bot_games]
    except ValueError as exc:
        p.error(str(exc))
    if any(not 0 <= load.bots <= load.games for load in loads) or len(set(bot_games)) != len(bot_games):
        p.error("--bot-games: each 0 up to each load's games, once")
    from hexstones.web.bots import BOT_LEVELS
    if args.bot_level not in BOT_LEVELS:
        p.error(f"--bot-level: one of {', '.join(map(str, BOT_LEVELS))}")
    if not 0 <= args.warmup < args.seconds <= 600 or not 1 <= args.rounds <= 10:
        p.error("--warmup below --seconds; --seconds at most 600; --rounds 1 to 10")
    lines = args.lines.split(",")
    if unknown := [line for line in lines if line not in ("sqlite", "postgresql", "postgresql-2")]:
        p.error(f"no line {unknown[0]!r}: sqlite, postgresql, postgresql-2")
    runs: dict[tuple[Load, str], list[Run]] = {(load, line): [] for load in loads for line in lines}
    with tempfile.TemporaryDirectory(prefix="hexstones-bench-") as tmp:
        for round_ in range(args.rounds):
            for k, load in enumerate(loads):
                for line in lines:
                    folder = Path(tmp) / f"{line}-{round_}-{k}"
                    if line == "sqlite":
                        run = measure(str(Path(tmp) / f"games-{round_}-{k}.db"), 1, folder, load, args)
                    else:
                        with postgres_database(args.postgres) as url:
                            run = measure(url, 2 if line.endswith("-2") else 1, folder, load, args)
                    runs[load, line].append(run)
                    print(json.dumps({"round": round_ + 1, **summary(line, [run], load)}), flush=True)
    for load in loads:
        for line in lines:
            print(json.dumps({"round": "all", **summary(line, runs[load, line], load)}), flush=True)
    for load in loads:
        # Its peer: the same load without bots, if measured; else without a clock.
        peer, against = (replace(load, bots=0), "vs_no_bots") if load.bots else (replace(load, clock=None),
                                                                                  "vs_no_clock")
        peers = ({line: summary(line, runs[peer, line], peer) for line in lines}
                 if peer != load and peer in loads else None)
        print(json.dumps({"round": "all", "side_by_side": side_by_side(
            load, {line: summary(line, runs[load, line], load) for line in lines}, peers, against)}), flush=True)


if __name__ == "__main__":
    main()
