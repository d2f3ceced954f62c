"""The AI's worker processes: a move, a komi proposal or a colour, computed off the server.

The AI runs in other processes: a compiled search may hold its process's GIL for
seconds, which in a thread would stall every page request. They are started with
"spawn" (forking a server that runs threads is unsafe), and each watches its parent:
when the server dies, even by ``kill -9``, its workers exit within a second or two
instead of searching on as orphans (and with them goes multiprocessing's resource
tracker, which lives as long as a process holds its pipe).

On a first start the kernels compile in two compile processes of their own
(:mod:`~hexstones.web.warmup`), not in the workers: numba compiles and loads under one
lock per process, so a worker compiling the search kept a move that needed one more
kernel waiting for minutes. A worker loads each compiled part it uses, and until it has
the search a level plays, answers with the plain-Python search.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import random
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import hexstones

log = logging.getLogger("hexstones.web")

PARENT_CHECK_S = 0.5  # how often a worker looks whether the server is still there


def watch_parent(parent: int) -> None:
    """Exit when the process that started this one is gone (the first step of a worker
    and of a compile process).

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


def _compile_parts(jobs: Any, reports: Any, parent: int) -> None:
    """A compile process: compile each part of the compile-ahead named on ``jobs`` until
    None comes, reporting ``("compiled", pid, name, seconds, error or None)`` on
    ``reports``; it asks for its first part with ``("helper", pid)``."""
    from hexstones.web import warmup

    watch_parent(parent)
    pid = os.getpid()
    reports.put(("helper", pid))
    while (name := jobs.get()) is not None:
        start = time.monotonic()
        error = None
        try:
            warmup.run_part(name)
        except Exception:  # noqa: BLE001  (a part that fails compiles where it is used)
            error = traceback.format_exc(limit=3)
        reports.put(("compiled", pid, name, round(time.monotonic() - start, 1), error))


# A worker's view of the compile-ahead (:mod:`~hexstones.web.warmup`), set by its
# initializer: the parts (name, whether a worker loads it) in the order of the pool's
# flags (1 compiled, 2 failed), where to report a part loaded, and the parts loaded here.
# Without a compile-ahead (_FLAGS None) everything compiles where it is first used.
_PARTS: list[tuple[str, bool]] = []
_FLAGS: Any = None
_REPORTS: Any = None
_LOADED: set[str] = set()
_LOAD_LOCK = threading.Lock()
WARMING_SECONDS = 2.0  # the Python search's time for a move while the compiled one compiles
RULES_WAIT_S = 300.0  # the longest a worker waits for a game's rules from the compile processes
LOAD_POLL_S = 0.2  # how often a worker looks for newly compiled parts


def _start_worker(parent: int, reports: Any, flags: Any) -> None:
    """Worker initializer: watch the parent, then (in a compile-ahead) load each part the
    AI uses as soon as the compile processes have it, in a thread, so that a task can be
    answered meanwhile (by the Python search until the compiled one is loaded)."""
    global _FLAGS, _REPORTS
    watch_parent(parent)
    if reports is None:
        return
    from hexstones.web import warmup

    _PARTS[:] = [(part.name, part.loaded) for part in warmup.parts()]
    _FLAGS, _REPORTS = flags, reports
    threading.Thread(target=_load_compiled, name="hexstones-ai-load", daemon=True).start()


def _load_compiled() -> None:
    wanted = [i for i, (_, loaded) in enumerate(_PARTS) if loaded]
    while wanted:
        for i in [i for i in wanted if _FLAGS[i]]:
            _load(_PARTS[i][0])
            wanted.remove(i)
        time.sleep(LOAD_POLL_S)


def _load(name: str) -> None:
    """Load part ``name`` of the compile-ahead into this process (once), and say so."""
    from hexstones.web import warmup

    with _LOAD_LOCK:
        if name in _LOADED:
            return
        warmup.attempt(lambda: warmup.run_part(name), f"the AI's loading of {name}")
        _LOADED.add(name)
    _REPORTS.put(("loaded", os.getpid(), name))


def _has(name: str) -> bool:
    """Whether part ``name`` is loaded here (always, without a compile-ahead)."""
    return _FLAGS is None or name in _LOADED


def _rules_for(game: str) -> None:
    """Have the rules of ``game`` loaded here before a task uses them: waiting for the
    compile processes (the server asked them for this game's rules first) rather than
    compiling them here, under this process's compile lock, a second time."""
    from hexstones.web import warmup

    name = warmup.rules_part(game)
    if _has(name):
        return
    index = [n for n, _ in _PARTS].index(name)
    deadline = time.monotonic() + RULES_WAIT_S
    while not _FLAGS[index] and time.monotonic() < deadline:
        time.sleep(0.05)
    _load(name)


def _move_while_warming(game, seconds: float = WARMING_SECONDS) -> str:
    """A move from the plain-Python search: weaker than the compiled one, but it needs only
    the rules' kernels, which compile first, so the AI's first reply need not wait for the
    search's. Its budget is wall clock: the search stops within a move of it."""
    from hexstones import ai
    from hexstones.ai import pysearch

    legal = game.legal_moves()
    if len(legal) == 1:
        return legal[0]
    if ai.pass_wins(game, legal):
        return "pass"
    result = pysearch.search(game, seconds=seconds)
    if not result.children:
        return random.choice(legal)
    return ai.best_move(game, result.children, legal)


def _pie_while_warming(task: str, name: str, size: int, komi: int | None) -> Any:
    """The komi pie's answer before the compiled search is loaded: as first player the fair
    balance on record for the side (else an estimate from the plain search's playouts, or
    the default balance); as second player the colour the plain search favours."""
    from hexstones.ai import pysearch
    from hexstones.games import BLACK, WHITE, game_class

    balance = game_class(name).balance
    if task == "propose":
        fair = balance.fair_at(size)
        if fair is not None:
            return fair
        if not balance.offsets_score:
            return balance.default
        empty = hexstones.new_game(name, size=size, **{balance.option: 0})
        result = pysearch.search(empty, seconds=WARMING_SECONDS)
        if result.black_score is None or result.white_score is None:
            return balance.default
        return max(balance.minimum, min(balance.maximum, round(result.black_score - result.white_score)))
    start = hexstones.new_game(name, size=size, **{balance.option: komi})
    return BLACK if pysearch.search(start, seconds=WARMING_SECONDS).root_win_rate > 0.5 else WHITE


def _with_searches(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` once both compiled searches are loaded here."""
    while not (_has("search") and _has("network search")):
        time.sleep(LOAD_POLL_S)
    return fn(*args)


def _nothing() -> None:
    """A task that only makes the pool start a worker."""


def think(task: str, name: str, options: dict[str, Any], moves: list[str], level: int,
          komi: int | None) -> Any:
    """The AI's answer for one task (runs in an AI process): a move, a proposal, a colour."""
    from hexstones import ai

    _rules_for(name)
    # The pie's answers are the chosen level's (ai.pie.effort).
    if task in ("propose", "choose"):
        if not (_has("search") and _has("network search")):
            return _pie_while_warming(task, name, options["size"], komi)
        if task == "propose":
            return int(ai.propose_komi(name, options["size"], level=level))
        if komi is None:
            raise ValueError("the proposed balance must be a whole number, not None")
        return ai.choose_side(name, options["size"], komi, level=level)
    game = hexstones.new_game(name, **options)
    for move in moves:
        game.play(move)
    if not _has("network search" if ai.engine_for(game, level) == "net" else "search"):
        log.warning("the AI answers with its Python search while the compiled one compiles")
        return _move_while_warming(game)
    return ai.choose_move(game, level=level)


class AIPool:
    """Up to ``processes`` AI workers; a pool that broke (a worker killed) is replaced.

    With ``warm``, the workers start at once, and ``compilers`` compile processes compile
    the kernels ahead (:mod:`~hexstones.web.warmup`), sharing out its parts, the rules of
    a game named to :meth:`prefer` first; each worker loads a part it uses once compiled.
    :meth:`readiness` says how far they are, ``on_compiled(part)`` is called (in a thread
    of its own) as each part is compiled, and :meth:`wait_compiled` waits for one.
    """

    def __init__(self, processes: int = 2, *, warm: bool = False,
                 on_compiled: Callable[[str], None] | None = None, compilers: int = 2):
        from hexstones.web import warmup

        self.processes = processes
        self.closed = False
        self._lock = threading.Lock()
        self._context = multiprocessing.get_context("spawn")
        self._plan = warmup.Plan() if warm else None
        names = [part.name for part in self._plan.parts] if self._plan else []
        self._index = {name: i for i, name in enumerate(names)}
        self._compiled = {name: threading.Event() for name in names}
        self._used = {part.name for part in self._plan.parts if part.loaded} if self._plan else set()
        # For the workers: 1 where a part is compiled, 2 where it failed (compiles on use).
        self._flags = self._context.RawArray("b", len(names)) if warm else None
        self._reports = self._context.Queue() if warm else None
        self._helpers: dict[int, tuple[Any, Any]] = {}  # compile process pid -> (process, its jobs)
        self._idle: set[int] = set()  # compile processes waiting for a part
        self._running: dict[int, str] = {}  # compile process pid -> its part
        self._loaded: dict[int, set[str]] = {}  # worker pid -> the parts it has loaded
        self._ready_since: float | None = None if warm else 0.0
        self._started = time.monotonic()
        self._on_compiled = on_compiled
        self._pool = self._new()
        if warm:
            for _ in range(compilers):
                jobs = self._context.Queue()
                process = self._context.Process(target=_compile_parts, daemon=True,
                                                args=(jobs, self._reports, os.getpid()),
                                                name="hexstones-compile")
                process.start()
                assert process.pid is not None  # a started process has its pid
                self._helpers[process.pid] = (process, jobs)
            threading.Thread(target=self._follow_progress, name="hexstones-ai-warmup",
                             daemon=True).start()
            for _ in range(processes):  # a pool starts a worker per waiting task
                self._pool.submit(_nothing)

    def _new(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self.processes, mp_context=self._context,
                                   initializer=_start_worker,
                                   initargs=(os.getpid(), self._reports, self._flags))

    def _follow_progress(self) -> None:
        assert self._reports is not None and self._plan is not None
        while True:
            try:
                item = self._reports.get(timeout=1.0)
            except queue.Empty:
                item = ("check", 0)
            if item is None:
                return
            compiled: list[str] = []
            with self._lock:
                kind, pid = item[0], item[1]
                if kind == "helper":
                    self._idle.add(pid)
                elif kind == "compiled":
                    _, _, name, seconds, error = item
                    if error:
                        log.warning("compiling %s failed (it compiles where it is used): %s", name, error)
                    self._done(name, error is None)
                    self._running.pop(pid, None)
                    self._idle.add(pid)
                    compiled.append(name)
                    log.info("hexstones: compiled %s in %.1f s", name, seconds)
                elif kind == "loaded":
                    self._loaded.setdefault(pid, set()).add(item[2])
                compiled += self._check_helpers()
                self._assign()
                first = (self._ready_since is None and self._plan.finished
                         and any(self._used <= parts for parts in self._loaded.values()))
                if first:
                    self._ready_since = time.monotonic()
            for name in compiled:
                if self._on_compiled is not None:
                    threading.Thread(target=self._on_compiled, args=(name,), daemon=True,
                                     name="hexstones-load").start()
            if first:
                seconds = time.monotonic() - self._started
                log.warning("hexstones: the AI is ready (compiled or loaded in %.1f s)", seconds)

    def _done(self, name: str, ok: bool) -> None:  # under the lock
        assert self._plan is not None and self._flags is not None
        self._plan.done(name, ok)
        self._flags[self._index[name]] = 1 if ok else 2
        self._compiled[name].set()

    def _check_helpers(self) -> list[str]:  # under the lock
        """Forget compile processes that died; with none left, give up the parts not
        compiled (they compile where they are used). Returns the parts given up."""
        assert self._plan is not None
        for pid, (process, _) in list(self._helpers.items()):
            if process.is_alive():
                continue
            del self._helpers[pid]
            self._idle.discard(pid)
            lost = self._running.pop(pid, None)
            if lost is not None:
                self._plan.give_back(lost)
            if process.exitcode:
                log.warning("a compile process of the AI's warm-up ended (exit code %s)", process.exitcode)
        if self._helpers or self._plan.finished:
            return []
        left = [part.name for part in self._plan.parts if not self._plan.is_done(part.name)]
        for name in left:
            self._done(name, False)
        return left

    def _assign(self) -> None:  # under the lock
        """Give each idle compile process the next part (or the end of the work)."""
        assert self._plan is not None
        for pid in sorted(self._idle):
            part = self._plan.take()
            if part is None:
                if not self._plan.finished:
                    return  # what is left waits for a part being compiled
                self._helpers[pid][1].put(None)
                self._idle.discard(pid)
                continue
            self._idle.discard(pid)
            self._running[pid] = part.name
            self._helpers[pid][1].put(part.name)

    def prefer(self, game: str) -> None:
        """Compile the rules of ``game`` (someone opened one) before any part not started."""
        if self._plan is None:
            return
        with self._lock:
            if not self._plan.finished:
                self._plan.prefer(game)

    def wait_compiled(self, name: str, timeout: float) -> bool:
        """Wait up to ``timeout`` s for part ``name`` of the compile-ahead (at once without
        one); whether it is compiled (or given up)."""
        event = self._compiled.get(name)
        return event is None or event.wait(timeout)

    def readiness(self) -> dict[str, Any] | None:
        """None once the compile-ahead is done and a worker has loaded all it uses; else
        ``{"done", "total", "fraction", "compiling", "seconds"}``: the parts compiled and
        their number, the share of the work done (it moves while a part compiles), the
        labels of the parts compiling now (none: the workers are loading them) and the
        seconds since the server started."""
        with self._lock:
            if self._ready_since is not None or self._plan is None:
                return None
            progress = self._plan.progress()
        progress["seconds"] = round(time.monotonic() - self._started, 1)
        return progress

    def submit(self, *job: Any) -> Future | None:
        """``think(*job)`` in a worker; None once the pool is closed."""
        return self.call(think, *job)

    def call(self, fn: Callable[..., Any], *args: Any) -> Future | None:
        """``fn(*args)`` in a worker (a module-level function: it is pickled by name);
        None once the pool is closed. The analysis mode hands its searches here: while the
        kernels compile ahead, such a call waits in the worker for the compiled searches
        rather than compile them a second time."""
        with self._lock:
            if self.closed:
                return None
            if fn is not think and self._ready_since is None:
                fn, args = _with_searches, (fn, *args)
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
            if self._reports is not None:
                self._reports.put(None)  # ends the progress thread
            workers = list((getattr(self._pool, "_processes", None) or {}).values())  # not public API
            workers += [process for process, _ in self._helpers.values()]
            self._pool.shutdown(wait=False, cancel_futures=True)
        for process in workers:
            if process.is_alive():
                process.terminate()
