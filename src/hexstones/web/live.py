"""Games being played: the rules (hexstones engines), the players, the AI in the background.

A :class:`Live` game is rebuilt from its stored record and kept in memory; every change
goes through :class:`Tables`, which checks the whole request first, writes the change to
the store before it counts (so a restart loses nothing and a refusal changes nothing),
bumps the game's ``version`` and, when it is then the AI's turn, hands the AI's work to
the worker pool (:mod:`hexstones.web.ai_pool`): no page request ever waits for the AI.

The other jobs live beside this module: new-game choices in :mod:`~hexstones.web.setup`,
the players, turns and komi pie in :mod:`hexstones.session`, the page's view in :mod:`~hexstones.web.view`,
persistence in :mod:`~hexstones.web.store`.
"""

from __future__ import annotations

import builtins
import itertools
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from dataclasses import dataclass, field
from typing import Any

import hexstones
from hexstones.games import BLACK, WHITE, Game, IllegalMove
from hexstones.session import Clock, Correspondence, KomiPie, NotNow, Session, balanced, conditional
from hexstones.web import seats, view
from hexstones.web.ai_pool import RULES_WAIT_S, AIPool
from hexstones.web.errors import WebError, refusing, shown, whole
from hexstones.web.game_setup import GameSetup
from hexstones.web.limits import TakingTurns
from hexstones.web.setup import DEFAULT_LEVEL, parse_setup
from hexstones.web.store import DamagedGame, Store, StoreConflict, StoredGame, Timed

log = logging.getLogger("hexstones.web")
Claim = Callable[[GameSetup, "str | None"], GameSetup]  # (setup, host's colour) -> setup

MAX_MOVE_TEXT = 16  # characters: longer than any point name or special move
MAX_NAME = 80  # characters of a game's name in the list
# Games kept in memory (each holds its position and history: about 150 KB on side 7); the
# least recently used beyond this are read from the database again when asked for.
LIVE_GAMES = 500


_COPIES = itertools.count()  # numbers each Live of this process: its versions' counter


@dataclass
class Live:
    """One game in memory: the record, the engine's game, and the AI's bookkeeping.
    The game's moves are ``game.moves`` alone: the record's, once replayed into it, are
    dropped, so that no second copy can fall behind. ``copy``: this copy's number, unique
    in the process (an ``id()`` would not do: a copy read again after another process
    changed the game may reuse the old one's address, and its versions start again from 0)."""

    record: StoredGame
    game: Game
    version: int = 0
    copy: int = field(default_factory=lambda: next(_COPIES))
    ai_busy: bool = False
    ai_error: str | None = None
    lock: threading.RLock = field(default_factory=threading.RLock)
    # How far the AI's compile-ahead is (None: ready); set by the Tables that hold the game.
    ai_readiness: Callable[[], dict[str, Any] | None] = lambda: None
    # The AI's task's place in line for its processes (0: running or none); set with the task.
    ai_place: Callable[[], int] = lambda: 0
    # The time the game's clock reads (the app's); set by the Tables that hold the game.
    now: Callable[[], float] = time.time

    def __post_init__(self) -> None:
        self.record.moves = []  # replayed into ``game``, the one copy kept

    @property
    def setup(self) -> GameSetup:
        return self.record.setup

    @property
    def pie(self) -> KomiPie | None:
        return self.setup.pie

    @property
    def pie_pending(self) -> bool:
        return self.session.pie_pending

    @property
    def against_ai(self) -> bool:
        return self.setup.against_ai

    @property
    def clock(self) -> Clock | None:
        """The game's clock (None: a game without one)."""
        return self.record.clock

    @property
    def session(self) -> Session:
        """The game with its players, as the rules of turns, takebacks and resignation see it."""
        setup = self.setup
        return Session(self.game, setup.players, self.pie, self.record.resigned, self.against_ai,
                       flagged=setup.flagged, aborted=setup.aborted)

    def time_up(self, now: float) -> bool:
        """Whether the game's clock ended it by ``now`` (a flag fell, or a first move was
        missed) and that is not stored yet."""
        clock = self.clock
        return (clock is not None and clock.running is not None
                and (clock.fallen(now) is not None or clock.aborted(now)))

    @property
    def over(self) -> bool:
        return self.session.over

    def player(self, color: str) -> str | None:
        return self.session.player(color)

    def ai_to_act(self) -> str | None:
        """What the AI must do now: "propose", "choose", "move" or None."""
        return self.session.ai_task()


def replay(record: StoredGame, cached: Live | None = None) -> Game:
    """The engine's game for a stored record (its moves replayed and checked). With
    ``cached``, this process's copy of the game, whose moves the record continues (another
    server process stored a move): a copy of it plays only the new moves."""
    label = f"game {record.id}" if record.id else "the game"
    game = _continued(cached, record) if cached is not None else None
    if game is None:
        try:
            game = hexstones.new_game(record.game, **record.options)
        except (ValueError, TypeError, OverflowError) as exc:
            raise DamagedGame(f"{label} has bad options {shown(record.options)}: {exc}") from None
    for ply in range(len(game.moves), len(record.moves)):
        move = record.moves[ply]
        try:
            game.play(move)
        except IllegalMove as exc:
            raise DamagedGame(f"{label} cannot be replayed: move {ply + 1} "
                              f"({shown(move)}) is illegal: {exc}") from None
    return game


def _continued(cached: Live, record: StoredGame) -> Game | None:
    """A copy of ``cached``'s game if ``record`` continues it (same game and options, its
    moves first); None if not."""
    with cached.lock:
        played = cached.game.moves
        if (cached.record.game != record.game or cached.record.options != record.options
                or record.moves[:len(played)] != played):
            return None
        return cached.game.copy()


class Tables:
    """Every live game, the store behind them, and the AI's worker pool."""

    def __init__(self, store: Store, ai_processes: int = 2, *, warm_ai: bool = False,
                 live_games: int = LIVE_GAMES, clock: Callable[[], float] = time.time):
        self.store = store
        self.now = clock  # the time the games' clocks read
        self._games: OrderedDict[str, Live] = OrderedDict()  # least recently used first
        self._live_games = live_games
        self._lock = threading.Lock()
        # With warm_ai, compile processes compile the kernels ahead (as many as the AI's
        # processes, two at most: the cores the AI is given), and this process loads each
        # game's rules as soon as they are compiled, before a page needs them.
        self._ai = AIPool(ai_processes, warm=warm_ai, on_compiled=self._compiled if warm_ai else None,
                          compilers=max(1, min(2, ai_processes)))
        self._ai_turns = TakingTurns(max(1, ai_processes))
        self._rules_loaded: set[str] = set()
        self._keeping_time: threading.Event | None = None
        # Whether the player of a colour is away (a vacation): their correspondence clock
        # then stands still on their turn. Set by the app; nobody is away by default.
        self.away: Callable[[GameSetup, str], bool] = lambda setup, color: False
        # Told of every stored move (the caller holds the game's lock): notices by email.
        self.after_move: list[Callable[[Live], None]] = []
        # Told of every game that ended (the rules, a resignation, a flag, an abort), once
        # by the process that stored its end (the caller holds the game's lock): ratings.
        self.after_end: list[Callable[[Live], None]] = []
        # Run by the time keeper's thread each round, after the clocks (vacations ending,
        # low-time notices); each decides how often it does anything.
        self.watchers: list[Callable[[], None]] = []

    def ai_readiness(self) -> dict[str, Any] | None:
        """How far the AI's compile-ahead is (:meth:`AIPool.readiness`), None once ready."""
        return self._ai.readiness()

    def _compiled(self, part: str) -> None:
        """Part ``part`` of the compile-ahead is compiled: load a game's rules from the cache."""
        from hexstones.web import warmup

        game = next((name for name in hexstones.games.GAME_NAMES if warmup.rules_part(name) == part), None)
        if game is None:
            return
        warmup.attempt(lambda: warmup.exercise_rules(game), f"loading the {game} rules")
        with self._lock:
            self._rules_loaded.add(game)
            settled = len(self._rules_loaded) == len(hexstones.games.GAME_NAMES)
        if settled:
            warmup.settle_memory()

    def rules_for(self, name: str) -> None:
        """Before this process plays a game of ``name``: while the kernels compile ahead,
        have that game's rules compiled next and wait for them (loaded from the cache in a
        second), rather than compile them here too, a third compile on two cores."""
        from hexstones.web import warmup

        self._ai.prefer(name)
        self._ai.wait_compiled(warmup.rules_part(name), RULES_WAIT_S)

    def close(self) -> None:
        if self._keeping_time is not None:
            self._keeping_time.set()
        self._ai.close()

    def ai_call(self, fn: Callable[..., Any], *args: Any):
        """``fn(*args)`` in one of the AI's worker processes (a Future; None once closed)."""
        return self._ai.call(fn, *args)

    def ai_call_in_background(self, fn: Callable[..., Any], *args: Any) -> Future | None:
        """:meth:`ai_call` for work nobody waits on at the board (an analysis's position): it
        starts when no AI move waits, one such at a time, so a move never waits for more
        than one. A Future at once (None once closed); cancelling it before it starts
        leaves it unstarted."""
        if self._ai.closed:
            return None
        answer: Future = Future()

        def start():
            if answer.cancelled():
                return None
            future = self._ai.call(fn, *args)
            if future is None:
                answer.cancel()
                return None

            def settle(done: Future) -> None:
                try:
                    if done.cancelled():
                        answer.cancel()
                    elif done.exception() is not None:
                        answer.set_exception(done.exception())
                    else:
                        answer.set_result(done.result())
                except InvalidStateError:
                    pass  # cancelled meanwhile: the search ended unasked

            future.add_done_callback(settle)
            return future

        self._ai_turns.add_background(start)
        return answer

    # -- finding and creating games -------------------------------------------------

    def current(self, game_id: str) -> Live | None:
        """The game ``game_id`` if this process holds it and it is as stored (None if not:
        :meth:`get` reads it), with the AI's turn scheduled if it owes one. Reads nothing
        but, on a shared database, the game's revision."""
        live = self._held(game_id)[1]
        if live is not None:
            self._schedule_ai(live)
        return live

    def _held(self, game_id: str) -> tuple[Live | None, Live | None]:
        """This process's copy of the game (None: none), and the same if it is current."""
        with self._lock:
            cached = self._games.get(game_id)
            if cached is not None:
                self._games.move_to_end(game_id)
        if cached is None:
            return None, None
        # Under its lock: a write of this copy takes its new revision before letting go,
        # so the copy never looks stale to this process for its own write.
        with cached.lock:
            if self.store.stale(game_id, cached.record.revision):  # changed elsewhere
                return cached, None
        return cached, cached

    def get(self, game_id: str) -> Live:
        cached, live = self._held(game_id)
        if live is None:
            try:
                record = self.store.get(game_id)
                if record is None:
                    raise WebError(404, "no game with id {game}", game=shown(game_id))
                self.rules_for(record.game)
                fresh = Live(record, replay(record, cached), ai_readiness=self.ai_readiness, now=self.now)
            except DamagedGame as exc:
                raise WebError(500, "stored {reason}", reason=exc) from None
            with self._lock:
                live = self._games.get(game_id)
                # What is stored wins over the copy found stale, even at the same revision (a
                # write behind this server's back need not have raised it); a copy another
                # request put here meanwhile, read from the store as this one was, stays
                # unless older: two copies in use would each take moves the other misses.
                if (live is None or live.record.revision < fresh.record.revision
                        or (live is cached and live.record.revision == fresh.record.revision)):
                    live = self._games[game_id] = fresh
                    self._forget_old()
        # A game the AI owes a turn (after a restart, say) gets one.
        self._schedule_ai(live)
        return live

    def create(self, params: dict[str, Any], claim: Claim | None = None) -> dict[str, Any]:
        """A new game from the new-game choices; ``claim(setup, color)`` adds who holds it."""
        new = parse_setup(params)
        setup = new.setup if claim is None else claim(new.setup, new.host_color)
        return self._store_new(StoredGame("", new.game, new.options, setup, []))

    def create_from_moves(self, name: str, options: dict[str, Any], moves: list[str],
                          params: dict[str, Any], names: dict[str, str] | None = None,
                          claim: Claim | None = None) -> dict[str, Any]:
        """A new game continuing a loaded record (SGF): its options, moves and new players;
        ``names``: the record's player names by colour, kept for the list and the download."""
        setup_params = {k: v for k, v in params.items() if k in ("opponent", "level", "color")}
        setup_params["game"] = name
        new = parse_setup(setup_params)
        setup = new.setup.replace(names=dict(names)) if names else new.setup  # SGF PB, PW
        if claim is not None:
            setup = claim(setup, new.host_color)
        return self._store_new(StoredGame("", name, dict(options), setup, list(moves)))

    def change_setup(self, live: Live, setup: GameSetup) -> None:
        """Store ``setup`` as the game's (a seat taken, a takeback asked); the caller holds
        ``live.lock`` and has checked the change. The seat that fills the last open one
        starts the game's clock."""
        clock = live.clock
        timed = None
        if clock is not None and not clock.started and seats.open_role(setup) is None:
            timed = Timed(clock.start(self.now(), _first_on_clock(live.game, setup)), live.record.revision)
        self._stored(live, lambda: self.store.update(live.record.id, len(live.game.moves),
                                                     setup=setup, touch=False, timed=timed), timed)
        live.record.setup = setup
        live.version += 1

    def _new_clock(self, setup: GameSetup, game: Game) -> Clock | None:
        """The clock of a new game with ``setup``: started now if every seat is taken."""
        if setup.time_control is None:
            return None
        clock = Clock.new(setup.time_control)
        return clock.start(self.now(), _first_on_clock(game, setup)) if seats.open_role(setup) is None else clock

    # -- the clock ----------------------------------------------------------------------

    def _timed(self, live: Live, step: Callable[[Clock, float], Clock]) -> Timed | None:
        """A timed game's clock after ``step(clock, now)`` (a 409 if the clock refuses it:
        the time is up), with the revision it applies to; None if no clock runs."""
        clock = live.clock
        if clock is None or clock.running is None:
            return None
        try:
            return Timed(step(clock, self.now()), live.record.revision)
        except NotNow as exc:
            if clock.paused:  # the clock's words, "resume it", are not the player's to follow
                raise WebError(409, "this game's clock stands still while {color}'s player is away "
                                    "(a vacation): that player ends it to move on", color=clock.running) from None
            raise WebError(409, exc.message) from None

    def _check_time(self, live: Live) -> None:
        """Before a step in a timed game (the caller holds ``live.lock``): if its time ran
        out, the game ends on time (or is aborted) and the step is refused with a 409."""
        if not live.time_up(self.now()):
            return
        self._end_by_clock(live)
        if live.setup.aborted:
            raise WebError(409, "too late: the game was aborted, a first move was not made in time")
        raise WebError(409, "too late: {color} ran out of time ({result})", color=live.setup.flagged,
                       result=view.summary(live))

    def _end_by_clock(self, live: Live) -> None:
        """End the game whose time ran out (``live.time_up``): on time, or aborted if a
        first move was missed. Stored only if the game is still at the revision this copy
        holds: of several server processes noticing, one ends it (a 409 for the others)."""
        now = self.now()
        clock = live.clock
        assert clock is not None
        aborted = clock.aborted(now)
        setup = live.setup.replace(aborted=True) if aborted else live.setup.replace(flagged=clock.fallen(now))
        stopped = Timed(clock.stop(now), live.record.revision)
        before = live.record.setup
        live.record.setup = setup
        try:
            summary = view.summary(live)
            self._stored(live, lambda: self.store.update(
                live.record.id, len(live.game.moves), setup=setup, summary=summary, finished=True,
                timed=stopped, change="time"), stopped)
        except BaseException:
            live.record.setup = before
            raise
        live.version += 1
        self._tell(self.after_end, live)

    def settle_time(self) -> builtins.list[str]:
        """End every game whose time ran out (stored deadlines past); the ids of those this
        process ended."""
        ended = []
        for game_id in self.store.due(self.now()):
            try:
                live = self.get(game_id)
                with live.lock:
                    if live.time_up(self.now()):
                        self._end_by_clock(live)
                        ended.append(game_id)
            except WebError as exc:
                if exc.status != 409:  # 409: another process ended it, or a move came first
                    log.warning("cannot end game %s on time: %s", game_id, exc.message)
        return ended

    def hold_clock(self, game_id: str, color: str, away: bool) -> bool:
        """Stop (``away``) or restart the correspondence clock of ``game_id`` if it runs
        for ``color``: a player going on vacation, or back. Whether it changed."""
        live = self.get(game_id)
        with live.lock:
            clock = live.clock
            if (clock is None or clock.running != color or clock.paused == away or live.over
                    or not isinstance(clock.control, Correspondence) or live.time_up(self.now())):
                return False
            timed = Timed(clock.pause(self.now()) if away else clock.resume(self.now()), live.record.revision)
            self._stored(live, lambda: self.store.update(live.record.id, len(live.game.moves), touch=False,
                                                         timed=timed), timed)
            live.version += 1
            return True

    def keep_time(self, every: float = 0.2) -> None:
        """Look for games whose time ran out every ``every`` seconds (real time), in a thread
        of its own, until :meth:`close`: a game ends on time with nobody's page open, and
        after a restart."""
        if self._keeping_time is not None:
            return
        stop = self._keeping_time = threading.Event()

        def keep() -> None:
            while not stop.wait(every):
                for watch in (self.settle_time, *self.watchers):
                    try:
                        watch()
                    except Exception as exc:  # a database that went away: tried again next time
                        log.warning("the time keeper's %s failed: %s", getattr(watch, "__name__", watch), exc)

        threading.Thread(target=keep, name="hexstones-clocks", daemon=True).start()

    def _store_new(self, draft: StoredGame) -> dict[str, Any]:
        seats.check_rated_seats(draft.setup)
        self.rules_for(draft.game)
        try:
            game = replay(draft)  # refuse a record whose moves the engine does not accept
        except DamagedGame as exc:
            raise WebError(400, str(exc)) from None
        live = Live(draft, game)
        record = self.store.create(draft.game, draft.options, draft.setup, list(game.moves),
                                   view.summary(live), live.over, self._new_clock(draft.setup, game))
        live = Live(record, game, ai_readiness=self.ai_readiness, now=self.now)
        with self._lock:
            self._games[record.id] = live
            self._forget_old()
        self._schedule_ai(live)
        with live.lock:
            return view.state(live)

    def _forget_old(self) -> None:
        """Let the least recently used games beyond the bound go (the caller holds the lock).
        A game the AI is thinking in stays; one in use elsewhere is only a copy that goes:
        a write from it is still checked against the database."""
        for game_id in list(self._games)[: max(0, len(self._games) - self._live_games)]:
            if not self._games[game_id].ai_busy:
                del self._games[game_id]

    def list(self) -> list[dict[str, Any]]:
        return self.store.list()

    def rename(self, live: Live, name: Any, show: view.ViewRequest) -> dict[str, Any]:
        """Give the game a name for the list (an empty name takes it away)."""
        if not isinstance(name, str) or len(name) > MAX_NAME or any(ord(c) < 32 for c in name):
            raise WebError(400, "a game's name is text of at most {most} characters on one line, "
                                "not {value}", most=MAX_NAME, value=shown(name))
        with live.lock:
            setup = live.setup.replace(name=name.strip() or None)
            self._stored(live, lambda: self.store.update(live.record.id, None, setup=setup, touch=False))
            live.record.setup = setup
            live.version += 1
            return view.state(live, show)

    def delete(self, game_id: str) -> None:
        """Delete a stored game (404 if there is none); an AI answer on its way is dropped."""
        if self.store.get(game_id) is None:
            raise WebError(404, "no game with id {game}", game=shown(game_id))
        with self._lock:
            live = self._games.pop(game_id, None)
        if live is not None:
            with live.lock:
                live.version += 1  # a pending AI answer is now stale
                live.ai_error = "the game was deleted"  # and none is asked for again
        self.store.delete(game_id)

    def delete_empty(self) -> builtins.list[str]:
        """Delete every stored game with no move played (abandoned at the start); their ids."""
        empty = [row["id"] for row in self.store.list() if row["move_count"] == 0]
        for game_id in empty:
            self.delete(game_id)
        return empty

    def fill_in_finished(self) -> builtins.list[str]:
        """Store ``finished`` for games stored before it was a column (by replaying them);
        one line for each stored game that cannot be read or replayed, which is skipped."""
        problems = self.store.damaged()
        for row in self.store.list():
            if row["finished"] is not None:
                continue
            try:
                record = self.store.get(row["id"])
                if record is None:  # deleted meanwhile by another server
                    continue
                live = Live(record, replay(record))
            except DamagedGame as exc:
                problems.append(str(exc))
                continue
            self.store.update(record.id, None, finished=live.over, summary=view.summary(live),
                              touch=False)
        return problems

    # -- what a person does: every check first, then the change, then the answer -------

    def _stored(self, live: Live, write, timed: Timed | None = None) -> None:
        """Run the store write ``write()``; a conflict with the stored game is a 409. The
        copy in memory takes the game's new revision: its states then order after those of
        any copy read before (another server process's, or this one's before another's write);
        and ``timed``'s clock, the one the write stored."""
        try:
            revision = write()
        except StoreConflict as exc:
            raise WebError(409, "not stored: {reason}; reload the page", reason=exc) from None
        if revision is not None:
            live.record.revision = revision
        if timed is not None:
            live.record.clock = timed.clock

    def play(self, live: Live, move: Any, ply: Any, show: view.ViewRequest) -> dict[str, Any]:
        if not isinstance(move, str) or not move.strip() or len(move) > MAX_MOVE_TEXT:
            raise WebError(400, "a move is a point like 'e5' or a word like 'pass', not {value}", value=shown(move))
        if ply is not None:
            ply = whole(ply, "ply")
        with live.lock:
            if ply is not None and ply != len(live.game.moves):
                # Moves counted as the page counts them: "move N" is the position after N moves.
                raise WebError(409, "this move was meant for the position at move {ply}, but the "
                                    "game is at move {now} now", ply=ply, now=len(live.game.moves))
            self._check_time(live)
            with refusing():
                live.session.check_person_moves()
            self._apply(live, move)
            self._answer_conditionally(live)
            answer = view.state(live, show)
        self._schedule_ai(live)
        return answer

    def set_conditional(self, live: Live, color: str, lines: Any, show: view.ViewRequest) -> dict[str, Any]:
        """``color``'s conditional moves (:mod:`hexstones.session.conditional`): ``lines``
        replace the ones it had (an empty list takes them away), each checked on a copy of
        the game."""
        with live.lock:
            self._check_time(live)
            with refusing():
                live.session.check_can_play()
                found = conditional.checked(live.game, color, conditional.read_lines(lines))
            kept = dict(live.setup.conditional or {})
            if found.lines:
                kept[color] = found
            else:
                kept.pop(color, None)
            self.change_setup(live, live.setup.replace(conditional=kept or None))
            return view.state(live, show)

    def _answer_conditionally(self, live: Live) -> None:
        """After a move: the side now to move answers it at once if one of its conditional
        lines expected it (and the opponent's lines may answer that in turn); lines the game
        left are cancelled. An answer refused (its time ran out meanwhile) cancels the rest."""
        for _ in range(2 * conditional.MAX_PLIES):
            lines = (live.setup.conditional or {}).get(live.game.to_move)
            if lines is None or live.over or not live.game.moves:
                return
            color = live.game.to_move
            answer, rest = lines.after(live.game.moves[-1])
            kept = {c: v for c, v in (live.setup.conditional or {}).items() if c != color}
            if rest.lines:
                kept[color] = rest
            self.change_setup(live, live.setup.replace(conditional=kept or None))
            if answer is None:
                return
            try:
                self._apply(live, answer, answered=True)
            except WebError as exc:
                log.warning("game %s: %s's conditional answer %s was refused: %s", live.record.id, color,
                            answer, exc.message)
                self.change_setup(live, live.setup.replace(conditional=None))
                return

    def _apply(self, live: Live, move: str, answered: bool = False) -> None:
        """Play ``move`` (IllegalMove: 400 with the engine's reason) and store it;
        ``answered``: a conditional answer, made the instant the opponent moved, so a clock
        that stopped for its player's vacation runs again for it."""
        game = live.game
        mover = game.to_move
        try:
            game.play(move)
        except IllegalMove as exc:
            raise WebError(400, str(exc)) from None
        try:
            ended = game.is_over

            def step(clock: Clock, now: float) -> Clock:
                if answered and clock.paused:
                    clock = clock.resume(now)
                after = clock.moved(mover, now)
                if ended:
                    return after.stop(now)
                if isinstance(clock.control, Correspondence) and self.away(live.setup, game.to_move):
                    return after.pause(now)  # their turn waits for them to come back
                return after

            timed = self._timed(live, step)
            self._stored(live, lambda: self.store.add_move(
                live.record.id, len(game.moves) - 1, game.moves[-1], view.summary(live), live.over, timed), timed)
        except BaseException:
            game.undo()  # unstored means unplayed
            raise
        live.version += 1
        self._tell(self.after_move, live)
        if live.over:
            self._tell(self.after_end, live)

    @staticmethod
    def _tell(listeners: builtins.list[Callable[[Live], None]], live: Live) -> None:
        """Tell ``listeners`` of a stored change of ``live``: their failure is logged, never
        the change's (it is stored already)."""
        for told in listeners:
            try:
                told(live)
            except Exception as exc:
                log.warning("after a change of game %s: %r", live.record.id, exc)

    def undo(self, live: Live, show: view.ViewRequest, until: str | None = None,
             ply: Any = None) -> dict[str, Any]:
        """Take back the last move (against the AI: the person's last move and the AI's replies;
        with ``until``, a colour: the moves back to that colour's last one). With ``ply``, the
        move count the page showed: refused if a person's move was played since (another tab,
        a second click), so that an undo never takes back a move its sender has not seen; the
        AI's replies since take nothing more back (the undo goes past them anyway)."""
        if ply is not None:
            ply = whole(ply, "ply")
        with live.lock:
            self._check_time(live)
            with refusing():
                back = live.session.takeback(until, ply)
            trial = back.game
            had = len(live.game.moves)
            # No time is given back: the turn passes, the running side charged its time.
            timed = self._timed(live, lambda clock, now: (clock.handed(trial.to_move, now) if not trial.is_over
                                                          else clock))
            live_game, live.game = live.game, trial
            try:
                self._stored(live, lambda: self.store.truncate(
                    live.record.id, had, len(trial.moves), view.summary(live), live.over, timed), timed)
            except BaseException:
                live.game = live_game
                raise
            live.version += 1  # an AI answer being computed is now stale and will be dropped
            if live.setup.conditional:  # planned for a position that is gone
                self.change_setup(live, live.setup.replace(conditional=None))
            live.ai_error = None
            answer = dict(view.state(live, show), undone=list(reversed(back.taken)))
        self._schedule_ai(live)
        return answer

    def resign(self, live: Live, color: Any, show: view.ViewRequest) -> dict[str, Any]:
        """``color`` (default: the person against the AI, else the side to move) resigns."""
        with live.lock:
            self._check_time(live)
            with refusing():
                color = live.session.resigner(None if color == "" else color)
            timed = self._timed(live, lambda clock, now: clock.stop(now))
            live.record.resigned = color
            try:
                self._stored(live, lambda: self.store.update(
                    live.record.id, len(live.game.moves), resigned=color,
                    summary=view.summary(live), finished=True, timed=timed), timed)
            except BaseException:
                live.record.resigned = None
                raise
            live.version += 1
            self._tell(self.after_end, live)
            return view.state(live, show)

    def pie(self, live: Live, komi: Any, color: Any, show: view.ViewRequest) -> dict[str, Any]:
        """A person's step of the komi pie: propose ``komi``, or choose ``color``."""
        with live.lock, refusing():
            self._check_time(live)
            pie = live.session.pie_for_person()
            if pie.stage == "propose":
                if komi is None:
                    raise WebError(400, "propose the balance: give 'komi'")
                value = whole(komi, "komi")
                self._check_balance(live, value)
                self._store_pie(live, pie.propose(value))
            else:
                self._finish_pie(live, pie.choose(color))
            answer = view.state(live, show)
        self._schedule_ai(live)
        return answer

    def _store_pie(self, live: Live, pie: KomiPie) -> None:
        """The balance proposed: the proposer's move on the clock (black's, there: the
        pie's two steps are each side's first move)."""
        setup = live.setup.replace(pie=pie)
        timed = self._timed(live, lambda clock, now: clock.moved(BLACK, now))
        self._stored(live, lambda: self.store.update(live.record.id, len(live.game.moves), setup=setup,
                                                     timed=timed), timed)
        live.record.setup = setup
        live.version += 1

    def _check_balance(self, live: Live, value: Any) -> None:
        try:
            balanced(live.record.game, live.record.options, value)
        except (ValueError, TypeError, OverflowError) as exc:
            raise WebError(400, "bad balance: {reason}", reason=exc) from None

    def _finish_pie(self, live: Live, pie: KomiPie) -> None:
        """The pie is done (``pie.chooser_color`` chosen): the game starts with its balance."""
        options = balanced(live.record.game, live.record.options, pie.komi)
        game = hexstones.new_game(live.record.game, **options)
        setup = live.setup.replace(pie=pie, players=pie.players(live.against_ai))
        trial = Live(StoredGame(live.record.id, live.record.game, options, setup), game)
        # The chooser's move on the clock (white's): black, whoever it is now, moves next.
        timed = self._timed(live, lambda clock, now: clock.moved(WHITE, now))
        self._stored(live, lambda: self.store.update(
            live.record.id, 0, options=options, setup=setup, summary=view.summary(trial),
            finished=False, timed=timed), timed)
        live.record.options, live.record.setup, live.game = options, setup, game
        live.version += 1

    # -- the AI -----------------------------------------------------------------------

    def _schedule_ai(self, live: Live) -> None:
        with live.lock:
            if self._ai.closed or live.ai_busy or live.ai_error:
                return
            task = live.ai_to_act()
            if task is None:
                return
            version = live.version
            pie = live.pie
            job = (task, live.record.game, dict(live.record.options), list(live.game.moves),
                   live.setup.level_for(live.game.to_move) or DEFAULT_LEVEL, None if pie is None else pie.komi)
            live.ai_busy = True
            owner = live.setup.owner

        def start():
            with live.lock:
                if live.version != version:  # changed while it waited (an undo, a deletion)
                    live.ai_busy = False
                    return None
            future = self._ai.submit(*job)
            if future is None:
                with live.lock:
                    live.ai_busy = False
                return None
            future.add_done_callback(lambda f: self._ai_answer(live, task, version, f))
            return future

        # The AI's moves take turns by person: one person's many games cannot hold up another's.
        # The task is known by this copy of the game (at most one task each), whose page
        # shows its place while it waits.
        key = live.copy
        live.ai_place = lambda: self._ai_turns.place(key)
        self._ai_turns.add((owner and (owner.user or owner.session)) or live.record.id, start, key)

    def _ai_answer(self, live: Live, task: str, version: int, future) -> None:
        try:
            answer: Any = future.result()
        except BaseException as exc:  # shown to the player; the game stays as it is
            with live.lock:
                live.ai_busy = False
                if self._ai.closed or live.version != version:
                    return
                log.error("the AI failed in game %s: %r", live.record.id, exc)
                live.ai_error = f"the AI failed: {exc or type(exc).__name__}"
                live.version += 1
            return
        with live.lock:
            live.ai_busy = False
            if self._ai.closed or live.version != version:  # the game changed meanwhile (undo): stale
                return
            try:
                pie = live.pie
                if task == "move":
                    self._apply(live, answer)
                elif task == "propose" and pie is not None:
                    self._check_balance(live, answer)
                    self._store_pie(live, pie.propose(whole(answer, "the AI's proposal")))
                elif pie is not None:
                    self._finish_pie(live, pie.choose(answer))
            except Exception as exc:
                message = exc.message if isinstance(exc, WebError) else str(exc)
                live.ai_error = f"the AI's answer {shown(answer)} was refused: {message}"
                live.version += 1
        self._schedule_ai(live)


def _first_on_clock(game: Game, setup: GameSetup) -> str:
    """The colour whose time runs first: black's, for the komi pie's proposer (the pie's
    steps are each side's first move: the proposer's on black's clock, the chooser's on
    white's, after which black moves); else the side to move."""
    return BLACK if setup.pie is not None and setup.pie.pending else game.to_move
