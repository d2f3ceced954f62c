"""Real servers for tests: ``hexstones serve`` in subprocesses, started and stopped as a
person would, and the browser the project drives (Debian's chromium through Playwright).

:class:`Servers` is one or more server processes on one database; a test of online play
takes it from the ``game_servers`` fixture of ``conftest.py`` (parametrized by the kind of
database: SQLite here, a PostgreSQL variant can add its own), so the same test runs
against each.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
START_SECONDS = 300  # bound for a server start under load: generous on purpose
# One AI worker (and one compile process) a test server: the suite runs two at once on two
# cores, and each process a server starts loads every kernel.
AI_PROCESSES = 1
WAIT_MS = 300_000  # bound for any wait on a page of the browser tests: generous on purpose


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving_in_this_process(app, log_level: str = "warning") -> Iterator[str]:
    """``app`` served by uvicorn (the app's real stack) in a thread of the test, which can
    then reach into it (its clock, its AI) while clients talk to it: its address."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level=log_level))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + START_SECONDS
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(60)


class Server:
    """One ``hexstones serve`` process on ``db`` (a file or a database URL), at a fixed port
    (a restart comes back at the same address, as it would for its players)."""

    def __init__(self, db: str, log: Path, port: int | None = None, extra: tuple[str, ...] = ()):
        self.db, self.log, self.extra = db, log, extra
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        seen = len(self.log.read_text()) if self.log.exists() else 0
        # Not NUMBA_DISABLE_JIT: uncompiled, the Droched core overflows and plays other rules
        # (seen: a replay of the server's game was refused). Compiled kernels are cached.
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        with open(self.log, "a") as out:  # a file, not a pipe nobody reads
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "hexstones.cli", "serve", "--port", str(self.port), "--db", self.db,
                 "--ai-processes", str(AI_PROCESSES), *self.extra], stdout=out, stderr=subprocess.STDOUT, text=True,
                env=env)
        deadline = time.monotonic() + START_SECONDS
        while True:
            if "playing at" in self.log.read_text()[seen:]:
                try:
                    with urllib.request.urlopen(self.url + "/api/spec", timeout=5):
                        return
                except OSError:
                    pass
            assert self.proc.poll() is None, "the server exited: " + self.log.read_text()
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Servers:
    """``processes`` servers on one database; ``urls[i]`` is the i-th one's address."""

    def __init__(self, db: str, folder: Path, processes: int = 1, extra: tuple[str, ...] = ()):
        self.servers = [Server(db, folder / f"server{i}.log", extra=extra) for i in range(processes)]

    @property
    def urls(self) -> list[str]:
        return [s.url for s in self.servers]

    def url(self, person: int) -> str:
        """The address person number ``person`` uses (people spread over the processes)."""
        return self.urls[person % len(self.urls)]

    def start(self) -> None:
        for s in self.servers:
            s.start()

    def stop(self) -> None:
        for s in self.servers:
            s.stop()

    def restart(self) -> None:
        self.stop()
        self.start()


class HandClock:
    """The time an app reads (``create_app(clock=...)``), standing still until the test
    moves it: nothing depends on how fast the machine is."""

    START = 1_800_000_000.0

    def __init__(self) -> None:
        self.now = self.START

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
