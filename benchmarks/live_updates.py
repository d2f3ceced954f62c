"""How soon an open page hears of a move: a real ``hexstones serve`` on a new SQLite file,
one player posting moves, ``--watchers`` pages on the game's WebSocket.

    python benchmarks/live_updates.py [--moves 60] [--watchers 10] [--size 7]

For each move (a random legal point of Keil, one after the other), three times from the
moment the player sends ``POST /api/games/<id>/moves``:

* ``answer``: the player's answer arrives (the peer: what a page that polls after its own
  move would wait anyway);
* ``heard``: the last of the watchers' WebSockets delivers the change;
* ``shown``: that watcher's ``GET /api/games/<id>`` (what the page then fetches) returns.

Prints one JSON line: p50 / p90 / max in ms of each, and the ratio of ``shown`` to
``answer`` at the median; and the load average before and after (the machine is shared).
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
from pathlib import Path

import httpx
import websockets

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(folder: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), PYTHONUNBUFFERED="1")
    log = open(Path(folder) / "server.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "hexstones.cli", "serve", "--port", str(port),
                             "--db", str(Path(folder) / "games.db")], stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    while True:
        try:
            httpx.get(url + "/api/spec", timeout=2)
            return proc, url
        except httpx.HTTPError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the server did not start: " + (Path(folder) / "server.log").read_text()) from None
            time.sleep(0.1)


def pct(values: list[float], q: float) -> float:
    return round(sorted(values)[min(len(values) - 1, int(q * len(values)))] * 1000, 1)


async def run(url: str, moves: int, watchers: int, size: int) -> dict:
    player = httpx.AsyncClient(base_url=url, timeout=60)
    game = (await player.post("/api/games", json={"game": "keil", "size": size, "opponent": "human"})).json()
    gid = game["id"]
    ws_url = url.replace("http", "ws") + f"/api/games/{gid}/live"
    sockets = [await websockets.connect(ws_url) for _ in range(watchers)]
    for ws in sockets:
        await ws.recv()  # the greeting
    reader = httpx.AsyncClient(base_url=url, timeout=60)
    answer, heard, shown = [], [], []
    legal = game["legal"]
    rng = random.Random(1)
    for _ in range(moves):
        points = [m for m in legal if m not in ("pass", "button")]
        if not points:
            break
        move = rng.choice(points)
        start = time.perf_counter()

        async def hear(ws):
            while True:
                message = json.loads(await ws.recv())
                if "ping" not in message:
                    return time.perf_counter()

        listening = [asyncio.create_task(hear(ws)) for ws in sockets]
        r = await player.post(f"/api/games/{gid}/moves", json={"move": move})
        answer.append(time.perf_counter() - start)
        last = max(await asyncio.gather(*listening))
        heard.append(last - start)
        await reader.get(f"/api/games/{gid}")
        shown.append(time.perf_counter() - start)
        state = r.json()
        if state["over"]:
            break
        legal = state["legal"]
    for ws in sockets:
        await ws.close()
    await player.aclose()
    await reader.aclose()
    figures = {name: {"p50": pct(v, 0.5), "p90": pct(v, 0.9), "max": pct(v, 1.0)}
               for name, v in (("answer", answer), ("heard", heard), ("shown", shown))}
    figures["moves"] = len(answer)
    figures["watchers"] = watchers
    figures["shown/answer at p50"] = round(statistics.median(shown) / statistics.median(answer), 2)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--watchers", type=int, default=10)
    parser.add_argument("--size", type=int, default=7)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        proc, url = start_server(folder)
        try:
            figures = asyncio.run(run(url, args.moves, args.watchers, args.size))
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    figures["load average before, after"] = [round(load_before, 1), round(os.getloadavg()[0], 1)]
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
