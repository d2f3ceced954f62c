"""Online play under load: bot players on 127.0.0.1 play many games against each other
through real ``hexstones serve`` processes, on SQLite and on PostgreSQL, in the same run.

    python benchmarks/online.py [--loads 200x15,200x2] [--seconds 60] [--size 7]
                                [--rounds 2] [--lines sqlite,postgresql,postgresql-2]
                                [--postgres URL]
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
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import ssl
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
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


class Tally:
    def __init__(self, counting_from: float):
        self.counting_from = counting_from
        self.times: dict[str, list[float]] = {"move": [], "heard": [], "seen": []}
        self.refused: dict[int, int] = {}
        self.games = 0

    def move(self, started: float, move: float, heard: float, seen: float) -> None:
        if started >= self.counting_from:
            for name, took in (("move", move), ("heard", heard), ("seen", seen)):
                self.times[name].append(took)

    def refuse(self, started: float, status: int) -> None:
        if started >= self.counting_from:
            self.refused[status] = self.refused.get(status, 0) + 1


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


async def bot(n: int, bases: list[str], size: int, think: float, stop_at: float, tally: Tally) -> None:
    """Two players of one game after another until ``stop_at``: the first through bases[0],
    the second through bases[-1]."""
    rng = random.Random(n)
    ann, bea = browser(bases[0]), browser(bases[-1])
    try:
        await asyncio.sleep(rng.uniform(0, think))  # the games do not all start at once
        while time.perf_counter() < stop_at:
            r = await send(ann, "POST", "/api/games", {"game": "keil", "size": size, "opponent": "friend",
                                                       "color": "black"})
            r.raise_for_status()
            state = r.json()
            gid, secret = state["id"], state["invite"].rsplit("/", 1)[1]
            r = await send(bea, "POST", f"/api/games/{gid}/join", {"secret": secret, "name": f"bot {n}"})
            r.raise_for_status()
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


@dataclass(frozen=True)
class Load:
    games: int
    think: float  # seconds between a game's moves, on average

    @property
    def name(self) -> str:
        return f"{self.games}x{self.think:g}"


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
    await asyncio.gather(*(bot(n, bases, args.size, load.think, stop_at, tally) for n in range(load.games)))
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
    return Run(processes, tally, args.seconds - args.warmup, server_cpu, bot_cpu, [load_before, load_after])


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
    return result


def side_by_side(load: Load, summaries: dict[str, dict]) -> dict:
    """One line for a load: each line's CPU a move and the mover's p50 / p99, and the targets."""
    return {"load": load.name, "offered_moves_per_s": round(load.games / load.think, 1),
            "targets": {"server_cpu_ms_per_move": TARGET_CPU_MS, "move_p99_ms": TARGET_P99_MS},
            **{line: {"moves_per_s": r["moves_per_s"], "server_cpu_ms_per_move": r["server_cpu_ms_per_move"],
                      "move_p50_ms": r["move"]["p50"], "move_p99_ms": r["move"]["p99"],
                      "meets_targets": r["server_cpu_ms_per_move"] <= TARGET_CPU_MS
                      and r["move"]["p99"] < TARGET_P99_MS}
               for line, r in summaries.items()}}


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
    args = p.parse_args()
    if args.loads is None:
        one = args.games is not None or args.think is not None
        args.loads = f"{args.games or 200}x{args.think or 15:g}" if one else DEFAULT_LOADS
    elif args.games is not None or args.think is not None:
        p.error("give --loads, or --games and --think, not both")
    try:
        loads = parse_loads(args.loads)
    except ValueError as exc:
        p.error(str(exc))
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
        print(json.dumps({"round": "all", "side_by_side": side_by_side(
            load, {line: summary(line, runs[load, line], load) for line in lines})}), flush=True)


if __name__ == "__main__":
    main()
