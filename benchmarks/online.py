"""Online play under load: bot clients on 127.0.0.1 play many games at once through real
``hexstones serve`` processes, on SQLite and on PostgreSQL, in the same run.

    python benchmarks/online.py [--games 200] [--seconds 30] [--think 2.0] [--size 7]
                                [--lines sqlite,postgresql,postgresql-2] [--postgres URL]

Each line starts its servers (``sqlite``: one process owning a new file; ``postgresql``:
one process on a new database of a throwaway PostgreSQL cluster, as the tests start it
(tests/pg.py), or of ``--postgres``; ``postgresql-2``: two processes on one database, Black's
moves sent to the first and White's to the second, as a proxy without sticky sessions
would), and ``--games`` bots, each with its own keep-alive connection, play Keil games of
side ``--size`` (a new game when one ends): a random legal point, then a pause drawn from an
exponential distribution of mean ``--think`` seconds (so the offered load is about
games / think moves a second). A move's round trip is from sending ``POST
/api/games/<id>/moves`` to its answer (the new state, with the legal moves). The first
``--warmup`` seconds are not counted. Every line stops by itself after ``--seconds``.

Prints one JSON line per line: moves, moves/s, round trip p50/p90/p99/max in ms, refused
moves, the servers' and the bots' CPU seconds per move, and the load average before and
after (the machine is shared: figures move with what else runs).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
WAIT = 180  # seconds: a bound for a server to start


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of a process and its waited-for children."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


@contextmanager
def server(db: str, log: Path):
    """``hexstones serve`` on a free port; yields its base URL and pid."""
    port = free_port()
    env = dict(os.environ, PYTHONUNBUFFERED="1",
               PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "hexstones.cli", "serve", "--port", str(port),
                                 "--db", db], stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + WAIT
        while "playing at" not in log.read_text():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start: {log.read_text()}")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}", proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def postgres_database(url: str | None):
    """A new database: on ``url``'s server, or on a throwaway cluster (tests/pg.py)."""
    with ExitStack() as stack:
        if url is None:
            sys.path.insert(0, str(ROOT / "tests"))
            from pg import server_binaries, throwaway_cluster

            binaries = server_binaries()
            if binaries is None:
                raise SystemExit("no PostgreSQL server programs: install postgresql or pass --postgres URL")
            url = stack.enter_context(throwaway_cluster(binaries)).url()
        import psycopg

        name = f"hexstones_bench_{os.getpid()}_{time.monotonic_ns()}"
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}")
        try:
            yield url.rsplit("/", 1)[0] + "/" + name
        finally:
            with psycopg.connect(url, autocommit=True) as admin:
                admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


class Tally:
    def __init__(self, counting_from: float):
        self.counting_from = counting_from
        self.round_trips: list[float] = []
        self.refused: dict[int, int] = {}
        self.games = 0

    def move(self, started: float, took: float, status: int) -> None:
        if started < self.counting_from:
            return
        if status == 200:
            self.round_trips.append(took)
        else:
            self.refused[status] = self.refused.get(status, 0) + 1


async def bot(n: int, bases: list[str], size: int, think: float, stop_at: float, tally: Tally) -> None:
    """One player's client: plays games until ``stop_at``, Black through bases[0] and White
    through bases[-1]."""
    rng = random.Random(n)
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    clients = [httpx.AsyncClient(base_url=base, limits=limits, timeout=60) for base in bases]
    try:
        await asyncio.sleep(rng.uniform(0, think))  # the bots do not all start at once
        while time.perf_counter() < stop_at:
            r = await clients[0].post("/api/games", json={"game": "keil", "size": size, "opponent": "human"})
            r.raise_for_status()
            state = r.json()
            gid = state["id"]
            tally.games += 1
            while time.perf_counter() < stop_at and not state["over"]:
                points = [m for m in state["legal"] if m != "pass"]
                move = rng.choice(points) if points else "pass"
                ply = len(state["moves"])
                client = clients[ply % 2]
                started = time.perf_counter()
                r = await client.post(f"/api/games/{gid}/moves", json={"move": move, "ply": ply})
                tally.move(started, time.perf_counter() - started, r.status_code)
                if r.status_code == 200:
                    state = r.json()
                else:
                    state = (await client.get(f"/api/games/{gid}")).json()
                await asyncio.sleep(min(rng.expovariate(1 / think), 4 * think))
    finally:
        for client in clients:
            await client.aclose()


async def play(bases: list[str], args) -> Tally:
    start = time.perf_counter()
    tally = Tally(start + args.warmup)
    stop_at = start + args.seconds
    await asyncio.gather(*(bot(n, bases, args.size, args.think, stop_at, tally) for n in range(args.games)))
    return tally


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=1000, method="inclusive")[int(q * 10) - 1] if len(values) > 1 else values[0]


def measure(line: str, dbs: list[str], folder: Path, args) -> dict:
    with ExitStack() as stack:
        started = [stack.enter_context(server(db, folder / f"{line}-{i}.log")) for i, db in enumerate(dbs)]
        bases, pids = [b for b, _ in started], [p for _, p in started]
        time.sleep(args.settle)  # the AI's workers compile ahead at start; let them finish
        load_before = os.getloadavg()
        server_cpu = sum(cpu_seconds(p) for p in pids)
        bot_cpu, wall = time.process_time(), time.perf_counter()
        tally = asyncio.run(play(bases, args))
        bot_cpu, wall = time.process_time() - bot_cpu, time.perf_counter() - wall
        server_cpu = sum(cpu_seconds(p) for p in pids) - server_cpu
        load_after = os.getloadavg()
    rts = [1000 * t for t in tally.round_trips]
    counted = args.seconds - args.warmup
    moves = len(rts)
    return {"line": line, "servers": len(dbs), "games_at_once": args.games, "games_started": tally.games,
            "moves": moves, "moves_per_s": round(moves / counted, 1),
            "p50_ms": round(percentile(rts, 50), 1), "p90_ms": round(percentile(rts, 90), 1),
            "p99_ms": round(percentile(rts, 99), 1), "max_ms": round(max(rts), 1),
            "refused": tally.refused,
            "server_cpu_ms_per_move": round(1000 * server_cpu / max(1, moves) * counted / args.seconds, 2),
            "bots_cpu_ms_per_move": round(1000 * bot_cpu / max(1, moves) * counted / args.seconds, 2),
            "seconds": round(wall, 1), "load_before": [round(x, 2) for x in load_before],
            "load_after": [round(x, 2) for x in load_after]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=200, help="games played at once (one bot each)")
    p.add_argument("--seconds", type=float, default=30.0, help="length of each line")
    p.add_argument("--warmup", type=float, default=5.0, help="seconds at the start not counted")
    p.add_argument("--think", type=float, default=2.0, help="mean pause between a game's moves (s)")
    p.add_argument("--size", type=int, default=7, help="Keil board side")
    p.add_argument("--settle", type=float, default=10.0, help="seconds to let servers settle")
    p.add_argument("--lines", default="sqlite,postgresql,postgresql-2")
    p.add_argument("--postgres", default=None, help="a PostgreSQL server's URL (else a throwaway one)")
    args = p.parse_args()
    if not 1 <= args.games <= 2000 or not 0 <= args.warmup < args.seconds <= 600:
        p.error("--games from 1 to 2000; --warmup below --seconds; --seconds at most 600")
    lines = args.lines.split(",")
    with tempfile.TemporaryDirectory(prefix="hexstones-bench-") as tmp:
        folder = Path(tmp)
        for line in lines:
            if line == "sqlite":
                result = measure(line, [str(folder / "games.db")], folder, args)
            elif line in ("postgresql", "postgresql-2"):
                with postgres_database(args.postgres) as url:
                    result = measure(line, [url] * (2 if line.endswith("-2") else 1), folder, args)
            else:
                p.error(f"no line {line!r}: sqlite, postgresql, postgresql-2")
            print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
