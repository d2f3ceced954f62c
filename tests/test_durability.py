"""Nothing acknowledged is lost, nothing is left behind: the real server, killed and damaged.

The real server (``hexstones serve`` in a subprocess, a real SQLite file) is killed with
SIGKILL at seeded random moments (while moves are being played, during a level-10 AI
search) and started again on the same file: every move it acknowledged is there, and no
process it started (AI workers, multiprocessing's resource tracker) outlives it. Then the
file is damaged as disks and people damage files: start-up says in one line what is wrong
with which file, and one bad game does not keep the others from being served.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import serving

WAIT = 120  # seconds: a bound for conditions that come much sooner


class Server(serving.Server):
    """``hexstones serve`` on ``db``, which a test kills and calls like a browser would."""

    def __init__(self, db: Path):
        super().__init__(str(db), db.with_suffix(".log"))
        self.cookie = ""  # a browser's session cookie: kept like a browser keeps it

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def call(self, method: str, path: str, body: dict | None = None, timeout: float = 60):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, body=None if body is None else json.dumps(body),
                         headers={"Content-Type": "application/json", "Cookie": self.cookie})
            r = conn.getresponse()
            if r.getheader("set-cookie"):
                self.cookie = r.getheader("set-cookie").split(";")[0]
            return r.status, json.loads(r.read() or b"null")
        finally:
            conn.close()


def children(pid: int) -> set[int]:
    """The processes whose parent is ``pid``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited; only its entry waits to be reaped


def wait_all_gone(pids: set[int], bound: float = 30) -> None:
    deadline = time.monotonic() + bound
    while any(alive(p) for p in pids):
        assert time.monotonic() < deadline, f"still running {bound}s after the server died: " \
            f"{[p for p in pids if alive(p)]}"
        time.sleep(0.1)


def start_ai_search(server: Server) -> tuple[str, set[int]]:
    """A game in which the AI (level 10) moves first; returns it once the AI's processes run."""
    status, game = server.call("POST", "/api/games", {"game": "keil", "size": 9, "opponent": "ai",
                                                      "level": 10, "color": "white"})
    assert status == 201 and game["ai_thinking"]
    deadline = time.monotonic() + WAIT
    while len(children(server.proc.pid)) < 2:  # a worker and the resource tracker at least
        assert time.monotonic() < deadline, "no AI worker started"
        time.sleep(0.05)
    return game["id"], children(server.proc.pid)


@pytest.mark.slow
def test_ai_workers_exit_when_the_server_is_killed(tmp_path):
    server = Server(tmp_path / "games.db")
    server.start()
    try:
        _, started = start_ai_search(server)
        time.sleep(0.5)  # into the search (the assertion does not rest on it)
        server.kill()
        wait_all_gone(started)
    finally:
        server.stop()


@pytest.mark.slow
def test_killed_at_random_moments_the_server_loses_no_acknowledged_move(tmp_path):
    rng = random.Random(20)
    server = Server(tmp_path / "games.db")
    acknowledged: dict[str, list[str]] = {}  # game id -> the moves the server answered 200 to
    ever_started: set[int] = set()
    try:
        for cycle in range(4):
            server.start()
            ever_started |= children(server.proc.pid)
            status, game = server.call("POST", "/api/games", {"game": "keil", "size": 5, "opponent": "human"})
            assert status == 201
            acknowledged[game["id"]] = []
            if cycle % 2:  # kill during an AI search as well as during moves
                _, workers = start_ai_search(server)
                ever_started |= workers
            stop_playing = threading.Event()
            errors: list[str] = []
            picks = random.Random(cycle)

            def play(gid: str, legal: list[str], stop_playing=stop_playing, picks=picks,
                     errors=errors) -> None:
                while not stop_playing.is_set():
                    points = [m for m in legal if m != "pass"]
                    try:
                        status, s = server.call("POST", f"/api/games/{gid}/moves",
                                                {"move": picks.choice(points), "ply": len(acknowledged[gid])})
                    except OSError:
                        return  # the server died mid-request: that move was not acknowledged
                    if status != 200 or s["moves"][:-1] != acknowledged[gid]:
                        errors.append(f"{status}: {s}")
                        return
                    acknowledged[gid].append(s["moves"][-1])
                    legal = s["legal"]
                    if s["over"]:
                        return

            player = threading.Thread(target=play, args=(game["id"], game["legal"]))
            player.start()
            target = rng.randint(1, 12)
            deadline = time.monotonic() + WAIT
            while len(acknowledged[game["id"]]) < target and player.is_alive():
                assert time.monotonic() < deadline
                time.sleep(0.002)
            ever_started |= children(server.proc.pid)
            server.kill()  # wherever the player is: before, in or after a request
            stop_playing.set()
            player.join(WAIT)
            assert errors == []
            wait_all_gone(ever_started)
    finally:
        server.stop()  # a failed cycle leaves no server behind
    server.start()
    try:
        for gid, moves in acknowledged.items():
            status, s = server.call("GET", f"/api/games/{gid}")
            assert status == 200
            # Every acknowledged move is stored; at most the one in flight may follow them.
            assert s["moves"][:len(moves)] == moves and len(s["moves"]) - len(moves) in (0, 1)
        ever_started |= children(server.proc.pid)
    finally:
        server.stop()
    wait_all_gone(ever_started)


# -- a damaged database ---------------------------------------------------------------------------


def make_database(path: Path, games: int = 6, cookies: dict | None = None) -> list[str]:
    """A games file with ``games`` finished-or-not games of a few moves, through the app
    (``cookies``, if given, gets the session cookie of the browser that played them)."""
    from fastapi.testclient import TestClient

    from hexstones.web import create_app

    ids = []
    with TestClient(create_app(str(path))) as client:
        for n in range(games):
            gid = client.post("/api/games", json={"game": "dehil", "size": 5, "opponent": "human",
                                                  "komi": n}).json()["id"]
            for mv in ["a1", "c3", "e5", "b2", "d4"][: n + 1]:
                assert client.post(f"/api/games/{gid}/moves", json={"move": mv}).status_code == 200
            ids.append(gid)
        if cookies is not None:
            cookies.update(client.cookies)
    with sqlite3.connect(path) as con:  # fold the write-ahead log into the file itself
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return ids


def serve_once(db: Path) -> subprocess.CompletedProcess:
    """Start ``hexstones serve`` on ``db``; return its output if it refuses to start."""
    proc = subprocess.Popen([sys.executable, "-m", "hexstones.cli", "serve", "--port", str(serving.free_port()),
                             "--db", str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=180)  # a refusal comes in seconds; a bound, not a speed
    except subprocess.TimeoutExpired:  # it started: that is not what these files should allow
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"the server started on a damaged database: {out} {err}")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def spoil(path: Path, offset: int, length: int, seed: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset:offset + length] = random.Random(seed).randbytes(length)
    path.write_bytes(bytes(data))


@pytest.mark.slow  # a server process per case
@pytest.mark.parametrize("where", ["page 2", "last page"])
def test_random_bytes_in_a_page_are_refused_in_one_line(tmp_path, where):
    db = tmp_path / "games.db"
    make_database(db)
    page = 4096
    pages = db.stat().st_size // page
    assert pages >= 3
    offset = page if where == "page 2" else (pages - 1) * page
    spoil(db, offset, page, seed=pages)
    damaged = db.read_bytes()
    result = serve_once(db)
    assert result.returncode != 0 and "playing at" not in result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(db) in lines[0] and "damaged" in lines[0], result.stderr
    assert db.read_bytes() == damaged  # refused, not "repaired" by writing into it


@pytest.mark.slow  # a server process
def test_one_bad_game_is_reported_and_skipped_and_the_others_are_served(tmp_path):
    db = tmp_path / "games.db"
    cookies: dict = {}
    ids = make_database(db, cookies=cookies)
    bad, good = ids[2], [i for i in ids if i not in (ids[2], ids[4], ids[5])]
    with sqlite3.connect(db) as con:
        con.execute("UPDATE games SET setup = '{\"opponent\": ' WHERE id = ?", (bad,))
        con.execute("UPDATE moves SET move = CAST(x'ff' AS TEXT) WHERE game_id = ? AND ply = 0", (ids[3],))
        # A setup of the wrong shape, a revision that is no number, a lone surrogate in a name.
        con.execute("UPDATE games SET setup = json_set(setup, '$.seats', 5) WHERE id = ?", (ids[4],))
        con.execute("UPDATE games SET revision = 'abc' WHERE id = ?", (ids[5],))
        con.execute("UPDATE games SET setup = json_set(setup, '$.name', json('\"\\ud800\"')) WHERE id = ?",
                    (good[0],))
        good = good[1:]
        bad_ones = [bad, ids[4], ids[5], ids[0]]
    server = Server(db)
    server.cookie = "; ".join(f"{k}={v}" for k, v in cookies.items())  # the games' player lists them
    server.start()
    try:
        log = server.log.read_text()
        assert f"game {bad}: setup is not valid JSON" in log and str(db) in log
        assert f"game {ids[4]}: the setup's seats is int" in log
        assert f"game {ids[5]}: its revision is 'abc'" in log or f"game {ids[5]}: its revision is b'abc'" in log
        assert f"game {ids[0]}: setup holds text that is not valid Unicode" in log
        status, listed = server.call("GET", "/api/games")
        assert status == 200
        assert sorted(g["id"] for g in listed["games"]) == sorted(good)
        status, s = server.call("GET", f"/api/games/{good[0]}")
        assert status == 200 and s["moves"] == ["a1", "c3"]
        for one in bad_ones:
            status, s = server.call("GET", f"/api/games/{one}")
            assert status == 500 and f"game {one}" in s["detail"], s
        status, s = server.call("GET", f"/api/games/{ids[3]}")  # listed; its moves are bad
        assert status == 500 and "UTF-8" in s["detail"]
    finally:
        server.stop()


@pytest.mark.slow  # a server process
def test_an_empty_file_is_never_taken_for_a_new_database(tmp_path):
    db = tmp_path / "games.db"
    make_database(db)
    db.write_bytes(b"")  # truncated to 0 bytes
    result = serve_once(db)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(db) in lines[0] and "empty file (0 bytes)" in lines[0]
    assert db.stat().st_size == 0


def test_a_database_of_the_first_schema_is_upgraded_in_place_keeping_every_game(tmp_path):
    from fastapi.testclient import TestClient

    from hexstones.web import create_app

    db = tmp_path / "games.db"
    ids = make_database(db, games=3)
    with sqlite3.connect(db) as con:  # back to schema 1, made before Alembic: no `finished`
        for (table,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                    "AND name NOT IN ('games', 'moves')").fetchall():
            con.execute(f"DROP TABLE {table}")  # alembic_version and the tables of later revisions
        con.execute("DROP INDEX games_deadline")
        for column in ("deadline", "clock", "revision"):  # added by later revisions
            con.execute(f"ALTER TABLE games DROP COLUMN {column}")
        con.execute("ALTER TABLE games DROP COLUMN finished")
        con.execute("UPDATE games SET resigned = 'white' WHERE id = ?", (ids[0],))
        con.execute("PRAGMA user_version = 0")
    app = create_app(str(db))
    with TestClient(app) as client:
        listed = {g["id"]: g for g in app.state.store.list()}  # (their owners' sessions were dropped)
        assert sorted(listed) == sorted(ids)
        assert [listed[i]["finished"] for i in ids] == [True, False, False]
        assert listed[ids[0]]["summary"] == "Black wins: White resigned"
        assert client.get(f"/api/games/{ids[2]}").json()["moves"] == ["a1", "c3", "e5"]
