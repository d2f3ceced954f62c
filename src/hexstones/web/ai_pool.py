"""The AI's worker processes: a move, a komi proposal or a colour, computed off the server.

The AI runs in other processes: a compiled search may hold its process's GIL for
seconds, which in a thread would stall every page request. They are started with
"spawn" (forking a server that runs threads is unsafe), and each watches its parent:
when the server dies, even by ``kill -9``, its workers exit within a second or two
instead of searching on as orphans (and with them goes multiprocessing's resource
tracker, which lives as long as a process holds its pipe).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import hexstones

log = logging.getLogger("hexstones.web")

PARENT_CHECK_S = 0.5  # how often a worker looks whether the server is still there


def _watch_parent(parent: int) -> None:
    """Worker initializer: exit when the process that started this worker is gone.

    A thread polling ``os.getppid()`` rather than Linux's PR_SET_PDEATHSIG: that signal
    fires when the *thread* that forked the worker ends, and the pool starts workers from
    whichever server thread submits a task (threads that come and go).
    """
    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(0)
            time.sleep(PARENT_CHECK_S)

    threading.Thread(target=watch, name="hexstones-parent-watch", daemon=True).start()


def think(task: str, name: str, options: dict[str, Any], moves: list[str], level: int,
          komi: int | None) -> Any:
    """The AI's answer for one task (runs in an AI process): a move, a proposal, a colour."""
    from hexstones import ai

    # The pie's estimate takes the effort of the chosen level: a level-1 AI answers at
    # once, a strong one searches as long as the AI's own default.
    budget = _pie_iterations(level)
    if task == "propose":
        return int(ai.propose_komi(name, options["size"], iterations=budget))
    if task == "choose":
        return ai.choose_side(name, options["size"], komi, iterations=budget)
    game = hexstones.new_game(name, **options)
    for move in moves:
        game.play(move)
    return ai.choose_move(game, level=level)


def _pie_iterations(level: int) -> int | None:
    """Search iterations for the AI's komi-pie estimates at ``level`` (None: the AI's default)."""
    try:
        from hexstones.ai.levels import get_level
        from hexstones.ai.pie import COMPILED_ITERATIONS
    except ImportError:
        return None
    return min(COMPILED_ITERATIONS, get_level(level).iterations * 20)


class AIPool:
    """Up to ``processes`` AI workers; a pool that broke (a worker killed) is replaced."""

    def __init__(self, processes: int = 2):
        self.processes = processes
        self.closed = False
        self._lock = threading.Lock()
        self._pool = self._new()

    def _new(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self.processes,
                                   mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_watch_parent, initargs=(os.getpid(),))

    def submit(self, *job: Any) -> Future | None:
        """``think(*job)`` in a worker; None once the pool is closed."""
        with self._lock:
            if self.closed:
                return None
            try:
                return self._pool.submit(think, *job)
            except (BrokenProcessPool, RuntimeError) as exc:
                log.warning("the AI's process pool broke (%s); starting a new one", exc)
                self._pool = self._new()
                return self._pool.submit(think, *job)

    def close(self) -> None:
        """Stop the AI at once: a search in progress is abandoned (its game keeps its turn)."""
        with self._lock:
            self.closed = True
            workers = list((getattr(self._pool, "_processes", None) or {}).values())  # not public API
            self._pool.shutdown(wait=False, cancel_futures=True)
        for process in workers:
            if process.is_alive():
                process.terminate()
