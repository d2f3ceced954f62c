"""Online play under load: bot players on 127.0.0.1 play many games against each other
through real ``hexstones serve`` processes, on SQLite and on PostgreSQL, in the same run.

    python benchmarks/online.py [--games 200] [--seconds 60] [--think 15] [--size 7]
                                [--rounds 2] [--lines sqlite,postgresql,postgresql-2]
                                [--postgres URL]

(with hexstones installed, e.g. the .venv of .ci/run, or PYTHONPATH=src)

Each line starts its servers (``sqlite``: one process owning a new file; ``postgresql``:
one process on a new database of a throwaway PostgreSQL cluster, as the tests start it
(tests/pg.py), or of ``--postgres``; ``postgresql-2``: two processes on one database, the
first player of each game on the first, the second on the second, as a proxy without
sticky sessions would spread them). Then ``--games`` games are played at once, each by two
bot players as two browsers would: their own cookies (sessions), the first creates a game
against a friend and the second joins it with the invitation, and each keeps the game's
live WebSocket open. A move is: the player to move sends ``POST /api/games/<id>/moves`` (a
random legal point), its opponent's WebSocket hears of it, and the opponent fetches the
state (``GET /api/games/<id>``), as the page does. Three times per move, from sending it:
``move`` (the mover has its answer), ``heard`` (the opponent's WebSocket has the event),
``seen`` (the opponent has the new state: the move is on the other screen). Between moves a
game pauses for a time drawn from an exponential distribution of mean ``--think`` seconds
(the offered load is about games / think moves a second); a finished game starts anew.
The first ``--warmup`` seconds are not counted; every line stops by itself after
``--seconds``. The lines are measured in turns, ``--rounds`` times, each time on new
servers and a new database, so that load coming and going on a shared machine weighs on
every line alike; one JSON line per line and round, then one per line over all rounds.

Each JSON line: moves, moves/s, p50/p90/p99/max in ms of each time, refused
moves, the servers' and the bots' CPU milliseconds per move, the load average before
and after (the machine is shared: the figures move with what else runs), the machine's
CPUs, and whether the mover's p99 is under issue #21's target of 50 ms.

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


TARGET_P99_MS = 50  # issue #21: the mover's answer, 99th percentile, on a 2-core machine


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
                    await asyncio.sleep(min(rng.expovariate(1 / think), 4 * think))
    finally:
        for client in (ann, bea):
            await client.aclose()


async def play(bases: list[str], args) -> Tally:
    start = time.perf_counter()
    tally = Tally(start + args.warmup)
    stop_at = start + args.seconds
    await asyncio.gather(*(bot(n, bases, args.size, args.think, stop_at, tally) for n in range(args.games)))
    return tally


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


def measure(db: str, processes: int, folder: Path, args) -> Run:
    from serving import Servers

    folder.mkdir()
    servers = Servers(db, folder, processes=processes)
    try:
        servers.start()
        bases, pids = servers.urls, [s.proc.pid for s in servers.servers]
        time.sleep(args.settle)  # the AI's workers compile ahead at start; let them finish
        load_before = os.getloadavg()[0]
        server_cpu = sum(cpu_seconds(p) for p in pids)
        bot_cpu = time.process_time()
        tally = asyncio.run(play(bases, args))
        bot_cpu = time.process_time() - bot_cpu
        server_cpu = sum(cpu_seconds(p) for p in pids) - server_cpu
        load_after = os.getloadavg()[0]
    finally:
        servers.stop()
    counted = args.seconds - args.warmup
    share = counted / args.seconds  # the CPU of the counted part, taken as even over the line
    return Run(processes, tally, counted, server_cpu * share, bot_cpu * share, [load_before, load_after])


def summary(line: str, runs: list[Run], games: int) -> dict:
    times = {name: [1000 * t for run in runs for t in run.tally.times[name]] for name in ("move", "heard", "seen")}
    moves = len(times["move"])
    refused: dict[int, int] = {}
    for run in runs:
        for status, n in run.tally.refused.items():
            refused[status] = refused.get(status, 0) + n
    result: dict = {"line": line, "servers": runs[0].servers, "games_at_once": games,
                    "rounds": len(runs), "moves": moves,
                    "moves_per_s": round(moves / sum(r.counted for r in runs), 1)}
    for name, ms in times.items():
        result[name] = {"p50": round(percentile(ms, 50), 1), "p90": round(percentile(ms, 90), 1),
                        "p99": round(percentile(ms, 99), 1), "max": round(max(ms, default=float("nan")), 1)}
    result.update({"refused": refused,
                   "server_cpu_ms_per_move": round(1000 * sum(r.server_cpu for r in runs) / max(1, moves), 2),
                   "bots_cpu_ms_per_move": round(1000 * sum(r.bot_cpu for r in runs) / max(1, moves), 2),
                   "load_1min": [round(x, 2) for r in runs for x in r.load], "cpus": os.cpu_count(),
                   "move_p99_under_50_ms": result["move"]["p99"] < TARGET_P99_MS})
    return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=200, help="games played at once (two bot players each)")
    p.add_argument("--seconds", type=float, default=60.0, help="length of each line in each round")
    p.add_argument("--warmup", type=float, default=15.0, help="seconds at the start not counted")
    p.add_argument("--think", type=float, default=15.0, help="mean pause between a game's moves (s)")
    p.add_argument("--size", type=int, default=7, help="Keil board side")
    p.add_argument("--settle", type=float, default=15.0, help="seconds to let servers settle")
    p.add_argument("--rounds", type=int, default=2, help="the lines are measured in turns, this many times")
    p.add_argument("--lines", default="sqlite,postgresql,postgresql-2")
    p.add_argument("--postgres", default=None, help="a PostgreSQL server's URL (else a throwaway one)")
    args = p.parse_args()
    if not 1 <= args.games <= 2000 or not 0 <= args.warmup < args.seconds <= 600 or not 1 <= args.rounds <= 10:
        p.error("--games from 1 to 2000; --warmup below --seconds; --seconds at most 600; --rounds 1 to 10")
    lines = args.lines.split(",")
    if unknown := [line for line in lines if line not in ("sqlite", "postgresql", "postgresql-2")]:
        p.error(f"no line {unknown[0]!r}: sqlite, postgresql, postgresql-2")
    runs: dict[str, list[Run]] = {line: [] for line in lines}
    with tempfile.TemporaryDirectory(prefix="hexstones-bench-") as tmp:
        for round_ in range(args.rounds):
            for line in lines:
                folder = Path(tmp) / f"{line}-{round_}"
                if line == "sqlite":
                    run = measure(str(Path(tmp) / f"games-{round_}.db"), 1, folder, args)
                else:
                    with postgres_database(args.postgres) as url:
                        run = measure(url, 2 if line.endswith("-2") else 1, folder, args)
                runs[line].append(run)
                print(json.dumps({"round": round_ + 1, **summary(line, [run], args.games)}), flush=True)
    for line in lines:
        print(json.dumps({"round": "all", **summary(line, runs[line], args.games)}), flush=True)


if __name__ == "__main__":
    main()
