"""Fair shares: how long another person waits for the AI while others load the server.

Real ``hexstones serve`` processes (tests/serving.py), each on a new SQLite file, its AI
ready (the kernels compiled ahead, as a first start does): one for the rest and the
analyses, a new one for the AI games. The figure is one person's AI reply: a
new game of Keil, side 7, level 3, the AI playing first, from creating it (``POST
/api/games``) until its state no longer waits for the AI; each time a new person (a
session of its own). Measured ``--replies`` times in each of three phases:

* ``rest``: nothing else runs;
* ``analyses``: ``--analyses`` other sessions each run an analysis of ``--iterations``
  iterations a position (``POST /api/games/<id>/analysis {"action": "start", ...}``) of a
  game of Keil on side 5 after 10 random moves;
* ``ai_games``: one other person plays ``--games`` games against the AI at level
  ``--level`` on side ``--size`` (the largest Keil side if that one is not offered), the AI
  playing first, and answers each of its moves at once with a random legal move, so that
  all its games keep asking the AI.

One JSON line per phase: the reply times in seconds, the places in line the measured games
showed while they waited (``ai_queue`` of the state), and the load average before and
after (the machine may be shared: the figures move with what else runs).

    python benchmarks/fair_shares.py [--replies 3] [--analyses 20] [--iterations 200000]
                                     [--games 30] [--level 10] [--size 13]

(with hexstones installed, e.g. the project's .venv, or PYTHONPATH=src)
"""

from __future__ import annotations

import argparse
import contextlib
import http.cookiejar
import json
import os
import random
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import hexstones
from hexstones.games import game_specs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from serving import Server  # noqa: E402

READY_S = 900  # bound for the AI's first compile on a busy machine
REPLY_S = 1800  # bound for one reply under load: generous, only against a hang


class Person:
    """A browser: its own cookies (its session) on the server at ``url``."""

    def __init__(self, url: str):
        self.url = url
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def call(self, path: str, body: dict | None = None) -> dict:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, headers={"Content-Type": "application/json"},
                                         method="GET" if body is None else "POST")
        with self.opener.open(request, timeout=600) as answer:
            return json.load(answer)


def ai_reply(url: str) -> tuple[float, list[int]]:
    """Seconds until a new person's AI plays its first move, and the places shown meanwhile."""
    person = Person(url)
    start = time.monotonic()
    game = person.call("/api/games", {"game": "keil", "size": 7, "opponent": "ai", "level": 3, "color": "white"})
    places: list[int] = []
    while True:
        state = person.call(f"/api/games/{game['id']}")
        if state["ai_error"]:
            raise RuntimeError(state["ai_error"])
        if state["waiting_for"] != "ai":
            return time.monotonic() - start, places
        if state.get("ai_queue") and (not places or places[-1] != state["ai_queue"]):
            places.append(state["ai_queue"])
        if time.monotonic() - start > REPLY_S:
            raise RuntimeError(f"no reply in {REPLY_S} s")
        time.sleep(0.05)


def measure(phase: str, url: str, replies: int, **facts) -> dict:
    load_before = os.getloadavg()
    times, places = [], []
    for _ in range(replies):
        seconds, seen = ai_reply(url)
        times.append(round(seconds, 2))
        places.append(seen)
    line = {"phase": phase, "reply_s": times, "places_seen": places, **facts,
            "load_before": [round(x, 2) for x in load_before],
            "load_after": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}
    print(json.dumps(line), flush=True)
    return line


def start_analyses(url: str, sessions: int, iterations: int, rng: random.Random) -> list[tuple[Person, str]]:
    running = []
    for _ in range(sessions):
        person = Person(url)
        game = hexstones.new_game("keil", size=5)
        for _ in range(10):
            game.play(rng.choice([m for m in game.legal_moves() if m[1:].isdigit()]))
        created = person.call("/api/games", {"game": "keil", "size": 5})
        for move in game.moves:
            person.call(f"/api/games/{created['id']}/moves", {"move": move})
        person.call(f"/api/games/{created['id']}/analysis", {"action": "start", "iterations": iterations})
        running.append((person, created["id"]))
    return running


def play_ai_games(url: str, games: int, level: int, size: int, rng: random.Random,
                  created: threading.Event, stop: threading.Event) -> None:
    """One person's ``games`` games against the AI (``created`` set once all are), each
    answered at once while ``stop`` is unset."""
    person = Person(url)
    ids = [person.call("/api/games", {"game": "keil", "size": size, "opponent": "ai", "level": level,
                                      "color": "white"})["id"] for _ in range(games)]
    created.set()
    while not stop.is_set():
        for gid in ids:
            if stop.is_set():
                return
            state = person.call(f"/api/games/{gid}")
            if state["human_turn"] and not state["over"]:
                points = [m for m in state["legal"] if m[1:].isdigit()] or state["legal"]
                person.call(f"/api/games/{gid}/moves", {"move": rng.choice(points), "ply": state["move_count"]})
        stop.wait(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replies", type=int, default=3)
    parser.add_argument("--analyses", type=int, default=20)
    parser.add_argument("--iterations", type=int, default=200_000)
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--level", type=int, default=10)
    parser.add_argument("--size", type=int, default=13)
    args = parser.parse_args()
    low, high = game_specs()["keil"]["sizes"]
    size = args.size if low <= args.size <= high else high
    rng = random.Random(1)
    # Each load on a server of its own: a stopped analysis lets its position's search run
    # on to its end (up to minutes at 200,000 iterations), which would weigh on the next.
    with tempfile.TemporaryDirectory(prefix="fair-shares-") as folder:
        with serving(Path(folder) / "analyses") as url:
            measure("rest", url, args.replies)
            start_analyses(url, args.analyses, args.iterations, rng)
            time.sleep(3)  # the analyses under way
            measure("analyses", url, args.replies, sessions=args.analyses, iterations=args.iterations)
        with serving(Path(folder) / "ai_games") as url:
            created, stop = threading.Event(), threading.Event()
            player = threading.Thread(target=play_ai_games, daemon=True,
                                      args=(url, args.games, args.level, size, rng, created, stop))
            player.start()
            assert created.wait(REPLY_S), "the games were not created"
            time.sleep(3)  # their AI moves under way
            measure("ai_games", url, args.replies, games=args.games, level=args.level, size=size)
            stop.set()
            player.join(60)


@contextlib.contextmanager
def serving(folder: Path):
    """A new server on a new database in ``folder``, its AI ready; its address."""
    folder.mkdir()
    server = Server(str(folder / "games.db"), folder / "server.log")
    server.start()
    try:
        deadline = time.monotonic() + READY_S
        while Person(server.url).call("/api/ai")["warming"] is not None:  # the AI's compile
            assert time.monotonic() < deadline, "the AI was not ready"
            time.sleep(1)
        yield server.url
    finally:
        server.stop()

if __name__ == "__main__":
    main()
