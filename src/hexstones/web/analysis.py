"""The analysis mode: the AI's view of every position of a game, computed in the background.

A job walks the positions of a game (the start, then after each move) and asks the AI's
worker pool (:mod:`hexstones.web.ai_pool`) for :func:`hexstones.ai.analyze` of each, one
position at a time, so that the AI's moves in other games keep their turn; a page polls
its progress. Each result is stored at once, with a key of the position (the game, its
options, the moves that lead there): reopening the game shows what is stored, and a job
started again computes only what is missing, stale (an undo changed the moves) or asked
for deeper. Stopping takes effect after the position being searched.

Storage is behind :class:`AnalysisStore`: its own table, ``analysis``, in the games
database (migration ``r0004_analysis``), through the store's transactions. The HTTP
routes are :mod:`hexstones.web.routes.analysis`; the page's side is ``static/analysis.js``.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import logging
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import CancelledError, TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

import hexstones
from hexstones.games import BLACK, WHITE
from hexstones.web.errors import WebError, shown, whole
from hexstones.web.store import Store, metadata

log = logging.getLogger("hexstones.web")

# A person's analysis searches each position DEFAULT_ITERATIONS times, or for at most
# DEFAULT_SECONDS (Droched's long playouts: see docs/app.md for the figures); "deeper"
# gives DEEPER_FACTOR times both. A request may name its iterations (then no time
# limit: the same answer every time), at most MAX_ITERATIONS.
DEFAULT_ITERATIONS = 3000
DEFAULT_SECONDS = 2.0
DEEPER_FACTOR = 4
HINT_ITERATIONS = 3000
MAX_ITERATIONS = 200_000
PRISON_PLAYOUTS = 50  # playouts behind Droched's prison chances (about 1 s on side 7)
HINT_MOVES = 3  # candidates the hint shows
# A move is a mistake when it costs its player at least this much chance of winning;
# the page lists each player's worst ones.
MISTAKE_DROP = 0.1
MISTAKES_PER_PLAYER = 5
# Positions of analyses searched at once in the AI's pool (of two processes): the other
# process stays free for the AI's moves, which a person waits for at the board.
ANALYSIS_SLOTS = 1

# The table as the queries see it; migrations/versions/r0004_analysis.py makes it.
analysis_table = sa.Table(
    "analysis", metadata,
    sa.Column("game_id", sa.Text, primary_key=True),  # games.id, ON DELETE CASCADE
    sa.Column("ply", sa.Integer, primary_key=True),  # the position after this many moves
    sa.Column("position", sa.Text, nullable=False),  # key of the position: an undo makes a row stale
    sa.Column("data", sa.Text, nullable=False),  # JSON: records.sgf_analysis.compact form
)


def position_key(name: str, options: dict[str, Any], moves: list[str]) -> str:
    """Which position an analysis belongs to: the game, its options and the moves played."""
    text = json.dumps([name, options, moves], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class AnalysisStore:
    """Analyses by game and move number, in the ``analysis`` table of the games database,
    through the store's transactions (SQLite or PostgreSQL alike)."""

    def __init__(self, store: Store):
        self._store = store

    def get(self, game_id: str) -> dict[int, tuple[str, dict[str, Any]]]:
        """Move number -> (position key, analysis) of every stored row of the game."""
        t = analysis_table
        with self._store.transaction() as tx:
            rows = tx.connection.execute(sa.select(t.c.ply, t.c.position, t.c.data)
                                         .where(t.c.game_id == game_id)).all()
        found = {}
        for ply, key, data in rows:
            try:
                found[int(ply)] = (_text(key), json.loads(_text(data)))
            except (TypeError, ValueError):
                log.warning("game %s: the stored analysis of move %s is damaged; it is recomputed",
                            game_id, ply)
        return found

    def put(self, game_id: str, ply: int, key: str, data: dict[str, Any]) -> bool:
        """Store (or replace) one position's analysis; False if the game is gone."""
        t = analysis_table
        try:
            with self._store.transaction() as tx:
                tx.connection.execute(t.delete().where(t.c.game_id == game_id, t.c.ply == ply))
                tx.connection.execute(t.insert().values(game_id=game_id, ply=ply, position=key,
                                                        data=json.dumps(data)))
        except sa_exc.IntegrityError:
            return False
        return True


def _text(value: Any) -> str:
    """A text column's value (SQLite hands the store its text as bytes)."""
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def analyse_position(name: str, options: dict[str, Any], moves: list[str], iterations: int,
                     seed: int, seconds: float | None = None) -> dict[str, Any]:
    """The stored form of the AI's analysis of one position (runs in an AI process), with
    ``budget``: the iterations asked for (a search cut short by ``seconds`` did fewer)."""
    from hexstones import ai
    from hexstones.records.sgf_analysis import compact

    game = hexstones.new_game(name, **options)
    for move in moves:
        game.play(move)
    if game.is_over:
        return compact(game, {})
    result = ai.analyze(game, iterations=iterations, seconds=seconds, seed=seed,
                        prison_playouts=PRISON_PLAYOUTS)
    return dict(compact(game, result), budget=iterations)


def _budget_of(data: dict[str, Any]) -> int:
    """The iterations an analysis was asked for (an imported one: those it did)."""
    return int(data.get("budget") or data.get("iterations") or 0)


@dataclass
class Job:
    """One game's analysis in progress (or as it was left)."""

    state: str = "running"  # queued (behind the person's other analysis), running, stopped, done, failed
    person: str = ""  # whose it is: a person runs one analysis at a time, the rest queue
    done: int = 0
    total: int = 0
    iterations: int = DEFAULT_ITERATIONS
    seconds: float | None = DEFAULT_SECONDS  # the time limit of each search (None: none)
    error: str | None = None
    current: int | None = None  # the move number being searched
    stop: threading.Event = field(default_factory=threading.Event)
    todo: list[tuple[int, int, float | None]] = field(default_factory=list)  # (ply, iterations, seconds)
    order: int = 0  # when it was asked for, among all jobs


class Turns:
    """The analyses' positions take turns in the AI's pool: at most ``slots`` at once, in the
    order asked, and a job asks again after each position (so every job moves on)."""

    def __init__(self, slots: int = ANALYSIS_SLOTS):
        self.slots = slots
        self._busy = 0
        self._queue: deque[Job] = deque()
        self._changed = threading.Condition()

    def take(self, job: Job) -> bool:
        """Wait for a turn; False (no turn taken) if the job is stopped meanwhile."""
        with self._changed:
            self._queue.append(job)
            while self._queue[0] is not job or self._busy >= self.slots:
                if job.stop.is_set():
                    self._queue.remove(job)
                    self._changed.notify_all()
                    return False
                self._changed.wait(0.2)
            self._queue.popleft()
            self._busy += 1
            self._changed.notify_all()
            return True

    def give_back(self) -> None:
        with self._changed:
            self._busy -= 1
            self._changed.notify_all()

    def ahead_of(self, job: Job) -> int:
        """How many positions of other analyses wait before ``job``'s next one."""
        with self._changed:
            return self._queue.index(job) if job in self._queue else 0


class Analyses:
    """Every game's analysis: jobs in threads of this process, searches in the AI pool.

    ``submit(fn, *args)`` hands a function to the AI's worker processes (a Future, or
    None once the pool is closed); ``background``, if given, does so for the analyses'
    positions, after the moves people wait for (a hint goes through ``submit``: its person
    waits); ``live_of(game_id)`` gives a game of the server.
    """

    def __init__(self, store: AnalysisStore, submit: Callable[..., Any], live_of: Callable[[str], Any],
                 background: Callable[..., Any] | None = None):
        self.store = store
        self._submit = submit
        self._background = background or submit
        self._live_of = live_of
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._finished = threading.Condition(self._lock)  # a job ended: the next may run
        self._turns = Turns()
        self._order = itertools.count()
        self._closed = False

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for job in self._jobs.values():
                job.stop.set()

    # -- what is known ------------------------------------------------------------------

    def _snapshot(self, live) -> tuple[str, dict[str, Any], list[str]]:
        with live.lock:
            return live.record.game, dict(live.record.options), list(live.game.moves)

    def stored(self, live) -> dict[int, dict[str, Any]]:
        """Move number -> analysis, for the positions of the game as it is now."""
        name, options, moves = self._snapshot(live)
        rows = self.store.get(live.record.id)
        return {ply: data for ply, (key, data) in rows.items()
                if ply <= len(moves) and key == position_key(name, options, moves[:ply])}

    def status(self, live) -> dict[str, Any]:
        """The job's progress and a line per analysed position (for the graph), the mistakes."""
        _, _, moves = self._snapshot(live)
        known = self.stored(live)
        with self._lock:
            job = self._jobs.get(live.record.id)
            progress = None if job is None else {
                "state": job.state, "done": job.done, "total": job.total, "current": job.current,
                "iterations": job.iterations, "error": job.error,
                "place": self._place(job) if job.state == "queued" else None}
        if job is not None and progress is not None and progress["state"] == "running":
            progress["waiting"] = self._turns.ahead_of(job)
        positions = []
        for ply in sorted(known):
            data = known[ply]
            score = data.get("expected_score")
            positions.append({
                "ply": ply, "black_win": data["black_win"],
                "score_lead": None if not score else round(score["black"] - score["white"], 2),
                "move": moves[ply - 1] if ply else None,
                "best": data["moves"][0]["move"] if data.get("moves") else None,
                "iterations": data.get("iterations", 0),
            })
        return {"id": live.record.id, "move_count": len(moves), "job": progress,
                "positions": positions, "mistakes": mistakes(known, moves, _first_player(live))}

    def position(self, live, ply: Any) -> dict[str, Any]:
        number = whole(ply, "ply")
        _, _, moves = self._snapshot(live)
        if not 0 <= number <= len(moves):
            raise WebError(400, "ply must be a move number from 0 to {last}, not {number}", last=len(moves),
                           number=number)
        data = self.stored(live).get(number)
        if data is None:
            raise WebError(404, "move {number} of game {game} is not analysed yet", number=number, game=live.record.id)
        shown_data = {k: v for k, v in data.items() if k != "budget"}
        return dict(shown_data, ply=number, played=moves[number] if number < len(moves) else None)

    # -- jobs -----------------------------------------------------------------------------

    def _place(self, job: Job) -> int:
        """A queued job's place among its person's analyses (1: the one running; the caller
        holds the lock)."""
        mine = [j for j in self._jobs.values() if j.person == job.person and j.state in ("queued", "running")]
        return 1 + sum(1 for j in mine if j is not job and (j.state == "running" or j.order < job.order))

    def start(self, live, iterations: Any = None, ply: Any = None, person: str = "") -> dict[str, Any]:
        """Analyse every position not yet analysed with ``iterations``; with ``ply``, that
        one position again, ``DEEPER_FACTOR`` times deeper than it was (first in line).
        ``person``: who asks (their analyses run one at a time, the others queued)."""
        budget, seconds = _budget(iterations)
        _, _, moves = self._snapshot(live)
        known = self.stored(live)
        todo: list[tuple[int, int, float | None]]
        if ply is not None:
            number = whole(ply, "ply")
            if not 0 <= number <= len(moves):
                raise WebError(400, "ply must be a move number from 0 to {last}, not {number}", last=len(moves),
                               number=number)
            before = _budget_of(known[number]) if number in known else budget
            todo = [(number, min(MAX_ITERATIONS, before * DEEPER_FACTOR),
                     None if seconds is None else seconds * DEEPER_FACTOR)]
        else:
            todo = [(n, budget, seconds) for n in range(len(moves) + 1)
                    if n not in known or _budget_of(known[n]) < budget and known[n].get("to_move")]
        with self._lock:
            if self._closed:
                raise WebError(503, "the server is stopping")
            job = self._jobs.get(live.record.id)
            joined = job is not None and job.state in ("queued", "running") and not job.stop.is_set()
            if job is not None and joined:
                if ply is not None:  # deeper goes first
                    job.todo[:0] = todo
                    job.total += 1
                else:  # the rest joins the queue
                    queued = {t[0] for t in job.todo} | {job.current}
                    extra = [t for t in todo if t[0] not in queued]
                    job.todo += extra
                    job.total += len(extra)
            else:
                job = Job(total=len(todo), iterations=budget, seconds=seconds, todo=todo, person=person,
                          order=next(self._order))
                if any(j.person == person and j.state in ("queued", "running") for j in self._jobs.values()):
                    job.state = "queued"
                self._jobs[live.record.id] = job
        # The status takes the lock itself: it is asked for only once the lock is let go.
        if not joined:
            threading.Thread(target=self._run, args=(live, job), name="hexstones-analysis",
                             daemon=True).start()
        return self.status(live)

    def stop(self, live) -> dict[str, Any]:
        with self._lock:
            job = self._jobs.get(live.record.id)
            if job is not None and job.state in ("queued", "running"):
                job.stop.set()
                self._finished.notify_all()
        return self.status(live)

    def _wait_for_the_persons_turn(self, job: Job) -> None:
        """A queued job waits until its person's earlier analyses have ended (or it is stopped)."""
        with self._lock:
            while job.state == "queued" and not job.stop.is_set():
                if self._place(job) == 1:
                    job.state = "running"
                    return
                self._finished.wait(0.5)

    def _run(self, live, job: Job) -> None:
        game_id = live.record.id
        self._wait_for_the_persons_turn(job)
        try:
            while True:
                with self._lock:  # the job ends in the same step that finds nothing left to do
                    if job.stop.is_set() or not job.todo:
                        self._finish(job)
                        return
                    ply, budget, seconds = job.todo.pop(0)
                    job.current = ply
                name, options, moves = self._snapshot(live)
                if ply > len(moves):  # taken back meanwhile
                    job.done += 1
                    continue
                data = self._search(job, (name, options, moves[:ply], budget, ply, seconds))
                if data is None:
                    break
                if not self.store.put(game_id, ply, position_key(name, options, moves[:ply]), data):
                    job.error = "the game was deleted"
                    break
                job.done += 1
        except Exception as exc:  # noqa: BLE001  (shown to the page; the server goes on)
            log.error("the analysis of game %s failed: %r", game_id, exc)
            job.error = f"the analysis failed: {exc or type(exc).__name__}"
        with self._lock:
            self._finish(job)

    def _finish(self, job: Job) -> None:
        """The job's last state (the caller holds the lock); the person's next may run."""
        job.current = None
        job.state = "failed" if job.error else "stopped" if job.stop.is_set() else "done"
        self._finished.notify_all()

    def _search(self, job: Job, args: tuple) -> dict[str, Any] | None:
        """One position's analysis from the pool, in its turn; None if stopped (or the pool
        closed)."""
        if not self._turns.take(job):
            return None
        try:
            future = self._background(analyse_position, *args)
        except BaseException:
            self._turns.give_back()
            raise
        if future is None:
            self._turns.give_back()
            job.stop.set()
            return None
        # The turn ends with the search, even one stopped (it finishes in its worker).
        future.add_done_callback(lambda _: self._turns.give_back())
        while True:
            try:
                return future.result(timeout=0.2)
            except FutureTimeout:
                if job.stop.is_set():
                    future.cancel()
                    return None
            except CancelledError:
                job.stop.set()
                return None

    async def hint(self, live) -> dict[str, Any]:
        """The AI's suggested moves for the person to move now (a game against the AI)."""
        with live.lock:
            if not live.against_ai:
                raise WebError(409, "hints are for games against the AI")
            if live.over or live.pie_pending or live.player(live.game.to_move) != "human":
                raise WebError(409, "there is no move of yours to hint at now")
        name, options, moves = self._snapshot(live)
        key = position_key(name, options, moves)
        stored = self.store.get(live.record.id).get(len(moves))
        if stored is not None and stored[0] == key and _budget_of(stored[1]) >= HINT_ITERATIONS:
            data = stored[1]
        else:
            future = self._submit(analyse_position, name, options, moves, HINT_ITERATIONS, len(moves),
                                  DEFAULT_SECONDS)
            if future is None:
                raise WebError(503, "the server is stopping")
            data = await asyncio.wrap_future(future)
            self.store.put(live.record.id, len(moves), key, data)
        return {"ply": len(moves), "moves": (data.get("moves") or [])[:HINT_MOVES],
                "win_rate": data.get("win_rate"), "to_move": data.get("to_move")}

    # -- records ----------------------------------------------------------------------------

    def for_record(self, live) -> dict[int, dict[str, Any]]:
        """The stored analysis in the form an SGF record takes."""
        return self.stored(live)

    def put_record(self, game_id: str, analysis: dict[int, dict[str, Any]]) -> None:
        """Store the analysis an imported record carried, for the game made from it."""
        if not analysis:
            return
        live = self._live_of(game_id)
        name, options, moves = self._snapshot(live)
        for ply, data in analysis.items():
            if 0 <= ply <= len(moves):
                self.store.put(game_id, ply, position_key(name, options, moves[:ply]), data)


def _budget(iterations: Any) -> tuple[int, float | None]:
    """Iterations and time limit of each search: the default, or the iterations asked for."""
    if iterations in (None, ""):
        return DEFAULT_ITERATIONS, DEFAULT_SECONDS
    number = whole(iterations, "iterations")
    if not 1 <= number <= MAX_ITERATIONS:
        raise WebError(400, "iterations must be from 1 to {most}, not {value}", most=MAX_ITERATIONS,
                       value=shown(iterations))
    return number, None


def _first_player(live) -> str:
    return hexstones.new_game(live.record.game, **live.record.options).to_move


def mistakes(known: dict[int, dict[str, Any]], moves: list[str], first: str) -> list[dict[str, Any]]:
    """The moves that cost their player the most chance of winning (at least MISTAKE_DROP;
    each player's MISTAKES_PER_PLAYER worst), in the order played: ``{"ply", "color",
    "move", "drop"}``, ``ply`` the move's number (the position before it is ``ply - 1``)."""
    found: dict[str, list[dict[str, Any]]] = {BLACK: [], WHITE: []}
    color = first
    for ply in range(1, len(moves) + 1):
        before, after = known.get(ply - 1), known.get(ply)
        if before is not None and after is not None:
            mover = before.get("to_move") or color
            sign = 1 if mover == BLACK else -1
            drop = sign * (before["black_win"] - after["black_win"])
            if drop >= MISTAKE_DROP:
                found[mover].append({"ply": ply, "color": mover, "move": moves[ply - 1],
                                     "drop": round(drop, 4)})
        color = WHITE if color == BLACK else BLACK
    worst = [m for ms in found.values()
             for m in sorted(ms, key=lambda m: -m["drop"])[:MISTAKES_PER_PLAYER]]
    return sorted(worst, key=lambda m: m["ply"])


def open_to(live) -> None:
    """A 409 while the game is one between two people online and not over: its analysis
    would show the players the AI's moves."""
    with live.lock:
        if live.setup.friend_game and not live.over:
            raise WebError(409, "the analysis of a game between two people opens when the game is "
                                "over: until then it would show the players the AI's moves")
