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
from collections.abc import Callable
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


def _start_worker(parent: int, progress: Any) -> None:
    """Worker initializer: watch the parent, then (with a ``progress`` queue) compile
    everything the AI and the rules need before taking a task, reporting each step as
    ``(pid, done, total)``: on a fresh install that is a minute or more of CPU, which the
    first click would otherwise wait for with no word of why."""
    _watch_parent(parent)
    if progress is None:
        _SEARCH_READY.set()
        return

    def warm() -> None:
        from hexstones.web import warmup

        def report(done: int, total: int) -> None:
            if warmup.steps()[done - 1][1] == "search":
                _SEARCH_READY.set()  # one search compile serves every game (its kernels dispatch)
            progress.put((os.getpid(), done, total))

        try:
            warmup.compile_all(report)
        except Exception as exc:  # noqa: BLE001  (a failed warm-up only costs time: the task compiles)
            log.warning("the AI's warm-up failed: %r", exc)
            progress.put((os.getpid(), -1, -1))
        _SEARCH_READY.set()

    # In a thread, so that a task can be answered meanwhile (by the Python search).
    threading.Thread(target=warm, name="hexstones-ai-warmup", daemon=True).start()


# Set in a worker once its compiled search is ready (at once without a warm-up).
_SEARCH_READY = threading.Event()
WARMING_SECONDS = 2.0  # the Python search's time for a move while the compiled one compiles


def _move_while_warming(game) -> str:
    """A move from the plain-Python search: weaker than the compiled one, but its rules'
    kernels compile in seconds, so the AI's first reply need not wait for the search's."""
    from hexstones import ai
    from hexstones.ai import pysearch

    legal = game.legal_moves()
    if len(legal) == 1:
        return legal[0]
    if ai.pass_wins(game, legal):
        return "pass"
    result = pysearch.search(game, seconds=WARMING_SECONDS)
    if not result.children:
        return legal[0]
    return ai.best_move(game, result.children, legal)


def _nothing() -> None:
    """A task that only makes the pool start a worker."""


def _warm_steps() -> list:
    from hexstones.web.warmup import steps

    return steps()


def think(task: str, name: str, options: dict[str, Any], moves: list[str], level: int,
          komi: int | None) -> Any:
    """The AI's answer for one task (runs in an AI process): a move, a proposal, a colour."""
    from hexstones import ai

    # The pie's answers are the chosen level's (ai.pie.effort).
    if task == "propose":
        return int(ai.propose_komi(name, options["size"], level=level))
    if task == "choose":
        return ai.choose_side(name, options["size"], komi, level=level)
    game = hexstones.new_game(name, **options)
    for move in moves:
        game.play(move)
    if not _SEARCH_READY.is_set():
        log.warning("the AI answers with its Python search while the compiled one compiles")
        return _move_while_warming(game)
    return ai.choose_move(game, level=level)


class AIPool:
    """Up to ``processes`` AI workers; a pool that broke (a worker killed) is replaced.

    With ``warm``, the workers start at once and compile ahead (:mod:`~hexstones.web.warmup`);
    :meth:`readiness` says how far they are, and ``on_ready`` is called (in a thread of
    this process) when the first worker is done.
    """

    def __init__(self, processes: int = 2, *, warm: bool = False,
                 on_ready: Callable[[], None] | None = None):
        self.processes = processes
        self.closed = False
        self._lock = threading.Lock()
        self._context = multiprocessing.get_context("spawn")
        self._progress = self._context.Queue() if warm else None
        self._steps: dict[int, tuple[int, int]] = {}  # worker pid -> (done, total)
        self._ready_since: float | None = None if warm else 0.0
        self._started = time.monotonic()
        self._on_ready = on_ready
        self._pool = self._new()
        if warm:
            threading.Thread(target=self._follow_progress, name="hexstones-ai-warmup",
                             daemon=True).start()
            for _ in range(processes):  # a pool starts a worker per waiting task
                self._pool.submit(_nothing)

    def _new(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self.processes, mp_context=self._context,
                                   initializer=_start_worker,
                                   initargs=(os.getpid(), self._progress))

    def _follow_progress(self) -> None:
        assert self._progress is not None
        while True:
            item = self._progress.get()
            if item is None:
                return
            pid, done, total = item
            with self._lock:
                self._steps[pid] = (done, total)
                first = self._ready_since is None and done == total
                if first:
                    self._ready_since = time.monotonic()
            if first:
                seconds = self._ready_since - self._started
                log.warning("hexstones: the AI is ready (compiled or loaded in %.1f s)", seconds)
                if self._on_ready is not None:
                    self._on_ready()

    def readiness(self) -> dict[str, Any] | None:
        """None once a worker has compiled everything; else ``{"done", "total", "seconds"}``
        for the furthest worker (steps of the warm-up, seconds since the server started)."""
        with self._lock:
            if self._ready_since is not None:
                return None
            done, total = max(self._steps.values(), default=(0, len(_warm_steps())))
            return {"done": done, "total": total,
                    "seconds": round(time.monotonic() - self._started, 1)}

    def submit(self, *job: Any) -> Future | None:
        """``think(*job)`` in a worker; None once the pool is closed."""
        return self.call(think, *job)

    def call(self, fn: Callable[..., Any], *args: Any) -> Future | None:
        """``fn(*args)`` in a worker (a module-level function: it is pickled by name);
        None once the pool is closed. The analysis mode hands its searches here."""
        with self._lock:
            if self.closed:
                return None
            try:
                return self._pool.submit(fn, *args)
            except (BrokenProcessPool, RuntimeError) as exc:
                log.warning("the AI's process pool broke (%s); starting a new one", exc)
                self._pool = self._new()
                return self._pool.submit(fn, *args)

    def close(self) -> None:
        """Stop the AI at once: a search in progress is abandoned (its game keeps its turn)."""
        with self._lock:
            self.closed = True
            if self._progress is not None:
                self._progress.put(None)  # ends the progress thread
            workers = list((getattr(self._pool, "_processes", None) or {}).values())  # not public API
            self._pool.shutdown(wait=False, cancel_futures=True)
        for process in workers:
            if process.is_alive():
                process.terminate()
