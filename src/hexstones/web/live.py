"""Games being played: the rules (hexstones engines), the players, the AI in the background.

A :class:`Live` game is rebuilt from its stored record and kept in memory; every change
goes through :class:`Tables`, which writes it to the store first-class (so a restart
loses nothing), bumps the game's ``version`` and, when it is then the AI's turn, hands
the AI's work to a pool of processes: no page request ever waits for the AI.
"""

from __future__ import annotations

import copy
import logging
import multiprocessing
import random
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

import hexstones
from hexstones.games import GAME_NAMES, BLACK, WHITE, Game, IllegalMove, game_class, other
from hexstones.svg import board_svg
from hexstones.web.store import Store, StoredGame

log = logging.getLogger("hexstones.web")

LEVELS = range(1, 11)
DEFAULT_LEVEL = 3
# The balance that the komi pie decides: Keil and Dehil a komi for White, Droched a
# number of black stones in the prison (RULES.md section 5).
BALANCE_OPTION = {"keil": "komi", "dehil": "komi", "droched": "prison"}


class WebError(Exception):
    """A request the app refuses: ``status`` is the HTTP status, the message says why."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def _whole(value: Any, what: str) -> int:
    """``value`` (an int or the text of one) as an int, or a WebError naming ``what``."""
    if isinstance(value, bool):
        raise WebError(400, f"{what} must be a whole number, not {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise WebError(400, f"{what} must be a whole number, not {value!r}")


def parse_setup(params: dict[str, Any]) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """Check the new-game choices; return (game name, new_game options, setup).

    Choices (all optional but ``game``): ``size``, ``opponent`` ("human" or "ai"),
    ``level`` (1-10), ``color`` (the person's colour against the AI: "black", "white"
    or "random"), ``komi`` (Droched: black stones in the prison), ``pie`` ("off", "you":
    the person proposes the balance, "ai": the AI proposes), ``handicap`` (Droched:
    points, comma separated). Every problem is a WebError 400 saying what and why.
    """
    known = {"game", "size", "opponent", "level", "color", "komi", "pie", "handicap"}
    unknown = sorted(set(params) - known)
    if unknown:
        raise WebError(400, f"unknown new-game choice {', '.join(map(repr, unknown))}: "
                            f"the choices are {', '.join(sorted(known))}")
    name = str(params.get("game") or "").strip().lower()
    if name not in GAME_NAMES:
        raise WebError(400, f"unknown game {params.get('game')!r}: choose one of {', '.join(GAME_NAMES)}")
    cls = game_class(name)
    size = _whole(params.get("size", cls.default_size), "size")
    opponent = str(params.get("opponent", "human")).strip().lower()
    if opponent not in ("human", "ai"):
        raise WebError(400, f"opponent must be 'human' (same screen) or 'ai', not {opponent!r}")
    level = _whole(params.get("level", DEFAULT_LEVEL), "level")
    if level not in LEVELS:
        raise WebError(400, f"level must be from {LEVELS[0]} to {LEVELS[-1]}, not {level}")
    color = str(params.get("color", BLACK)).strip().lower()
    if color == "random":
        color = random.choice((BLACK, WHITE))
    if color not in (BLACK, WHITE):
        raise WebError(400, f"color must be 'black', 'white' or 'random', not {color!r}")
    pie = str(params.get("pie", "off")).strip().lower()
    if pie in ("", "0", "no", "false"):
        pie = "off"
    if pie not in ("off", "you", "ai"):
        raise WebError(400, f"pie must be 'off' (a fixed komi), 'you' (you propose) or 'ai' (the AI proposes), not {pie!r}")
    if pie == "ai" and opponent != "ai":
        raise WebError(400, "pie=ai needs opponent=ai: with two people at the screen, use pie=you")

    options: dict[str, Any] = {"size": size}
    balance = BALANCE_OPTION[name]
    if params.get("komi") not in (None, ""):
        if pie != "off":
            raise WebError(400, "give either a fixed komi or the komi pie, not both")
        options[balance] = _whole(params["komi"], "komi" if balance == "komi" else "komi (prison stones)")
    handicap = params.get("handicap")
    if handicap not in (None, "", []):
        if name != "droched":
            raise WebError(400, f"handicap stones are a Droched option; {name} has none")
        points = handicap if isinstance(handicap, list) else str(handicap).replace(" ", "").split(",")
        options["handicap"] = [p for p in points if p]
    try:
        options = dict(hexstones.new_game(name, **options).options)  # checked, defaults filled in
    except (ValueError, TypeError) as exc:
        raise WebError(400, f"bad option: {exc}") from None

    if pie == "off":
        players = {BLACK: "human", WHITE: "human"}
        if opponent == "ai":
            players = {color: "human", other(color): "ai"}
        pie_state = None
    else:
        players = None  # decided by the pie
        pie_state = {"proposer": "human" if pie == "you" else "ai", "stage": "propose", "komi": None,
                     "chooser_color": None}
    setup = {"opponent": opponent, "level": level if opponent == "ai" else None,
             "players": players, "pie": pie_state}
    return name, options, setup


@dataclass
class Live:
    """One game in memory: the record, the engine's game, and the AI's bookkeeping."""

    record: StoredGame
    game: Game
    version: int = 0
    ai_busy: bool = False
    ai_error: str | None = None
    lock: threading.RLock = field(default_factory=threading.RLock)

    @property
    def setup(self) -> dict[str, Any]:
        return self.record.setup

    @property
    def pie(self) -> dict[str, Any] | None:
        return self.setup.get("pie")

    @property
    def pie_pending(self) -> bool:
        return self.pie is not None and self.pie["stage"] != "done"

    @property
    def over(self) -> bool:
        return self.record.resigned is not None or self.game.is_over

    def result(self) -> dict[str, Any] | None:
        if self.record.resigned is not None:
            return {"winner": other(self.record.resigned), "by": "resignation",
                    "resigned": self.record.resigned}
        result = self.game.result()
        if result is None:
            return None
        result = dict(result)
        result["by"] = "score" if "score" in result else "last action"
        return result

    def player(self, color: str) -> str | None:
        players = self.setup.get("players")
        return players[color] if players else None

    def ai_to_act(self) -> str | None:
        """What the AI must do now: "propose", "choose", "move" or None."""
        if self.setup.get("opponent") != "ai" or self.record.resigned is not None:
            return None
        pie = self.pie
        if pie is not None and pie["stage"] != "done":
            if pie["stage"] == "propose" and pie["proposer"] == "ai":
                return "propose"
            if pie["stage"] == "choose" and pie["proposer"] == "human":
                return "choose"
            return None
        if not self.game.is_over and self.player(self.game.to_move) == "ai":
            return "move"
        return None


def _new_pool(processes: int) -> ProcessPoolExecutor:
    # The AI runs in other processes: a compiled search may hold its process's GIL for
    # seconds, which in a thread would stall every page request. "spawn": forking a
    # server that runs threads is unsafe.
    return ProcessPoolExecutor(max_workers=processes, mp_context=multiprocessing.get_context("spawn"))


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


def replay(record: StoredGame) -> Game:
    """The engine's game for a stored record (its moves replayed and checked)."""
    try:
        game = hexstones.new_game(record.game, **record.options)
    except (ValueError, TypeError) as exc:
        raise WebError(500, f"stored game {record.id} has bad options {record.options}: {exc}") from None
    for ply, move in enumerate(record.moves):
        try:
            game.play(move)
        except IllegalMove as exc:
            raise WebError(500, f"stored game {record.id} cannot be replayed: move {ply + 1} "
                                f"({move!r}) is illegal: {exc}") from None
    return game


class Tables:
    """Every live game, the store behind them, and the AI's thread pool."""

    def __init__(self, store: Store, ai_processes: int = 2):
        self.store = store
        self._games: dict[str, Live] = {}
        self._lock = threading.Lock()
        self._ai_processes = ai_processes
        self._pool = _new_pool(ai_processes)
        self._closed = False

    def close(self) -> None:
        """Stop the AI at once: a search in progress is abandoned (its game keeps its turn)."""
        self._closed = True
        processes = list(getattr(self._pool, "_processes", {}).values())  # not public API
        self._pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()

    # -- finding and creating games -------------------------------------------------

    def get(self, game_id: str) -> Live:
        with self._lock:
            live = self._games.get(game_id)
        if live is None:
            record = self.store.get(game_id) if isinstance(game_id, str) else None
            if record is None:
                raise WebError(404, f"no game with id {game_id!r}")
            fresh = Live(record, replay(record))
            with self._lock:
                live = self._games.setdefault(game_id, fresh)
        # A game the AI owes a turn (after a restart, say) gets one.
        self._schedule_ai(live)
        return live

    def create(self, params: dict[str, Any]) -> Live:
        name, options, setup = parse_setup(params)
        record = self.store.create(name, options, setup)
        return self._opened(record.id)

    def _opened(self, game_id: str) -> Live:
        live = self.get(game_id)
        with live.lock:
            self.store.update(game_id, summary=summary(live))
        return live

    def create_from_moves(self, name: str, options: dict[str, Any], moves: list[str],
                          params: dict[str, Any]) -> Live:
        """A new game continuing a loaded record (SGF): its options, moves and new players."""
        setup_params = {k: v for k, v in params.items() if k in ("opponent", "level", "color")}
        setup_params["game"] = name
        _, _, setup = parse_setup(setup_params)
        record = StoredGame("", name, dict(options), setup, list(moves))
        replay(record)  # refuse a record whose moves the engine does not accept
        record = self.store.create(name, options, setup, moves)
        return self._opened(record.id)

    def list(self) -> list[dict[str, Any]]:
        return self.store.list()

    # -- what a person does ---------------------------------------------------------

    def play(self, live: Live, move: Any, ply: Any = None) -> None:
        with live.lock:
            if not isinstance(move, str) or not move.strip():
                raise WebError(400, f"a move is a point like 'e5' or a word like 'pass', not {move!r}")
            if ply is not None and _whole(ply, "ply") != len(live.game.moves):
                raise WebError(409, f"this move was meant for move {_whole(ply, 'ply') + 1}, but the game "
                                    f"is at move {len(live.game.moves) + 1}: reload the game")
            self._check_can_play(live)
            if live.player(live.game.to_move) != "human":
                raise WebError(409, f"it is the AI's turn ({live.game.to_move}), not yours")
            self._apply(live, move)
        self._schedule_ai(live)

    def _check_can_play(self, live: Live) -> None:
        if live.record.resigned is not None:
            raise WebError(409, f"the game is over: {live.record.resigned} resigned")
        if live.game.is_over:
            raise WebError(409, "the game is over: no more moves can be played (undo to take moves back)")
        if live.pie_pending:
            raise WebError(409, "the komi pie comes first: the balance must be proposed and a colour chosen")

    def _apply(self, live: Live, move: str) -> None:
        """Play ``move`` (IllegalMove: 400 with the engine's reason) and store it."""
        game = live.game
        try:
            game.play(move)
        except IllegalMove as exc:
            raise WebError(400, str(exc)) from None
        try:
            self.store.add_move(live.record.id, len(game.moves) - 1, game.moves[-1], summary(live))
        except Exception:
            game.undo()  # unstored means unplayed
            raise
        live.record.moves = list(game.moves)
        live.version += 1

    def undo(self, live: Live) -> list[str]:
        """Take back the last move (against the AI: the person's last move and the AI's replies)."""
        with live.lock:
            if live.record.resigned is not None:
                raise WebError(409, f"the game is over: {live.record.resigned} resigned; nothing can be taken back")
            if not live.game.moves:
                raise WebError(409, "there is no move to take back")
            trial = live.game.copy()
            taken: list[str] = []
            while trial.moves:
                taken.append(trial.undo())
                if live.player(trial.to_move) == "human":
                    break
            else:
                if live.setup.get("opponent") == "ai":
                    raise WebError(409, "there is no move of yours to take back")
            live_game, live.game = live.game, trial
            try:
                self.store.truncate(live.record.id, len(trial.moves), summary(live))
            except Exception:
                live.game = live_game
                raise
            live.record.moves = list(trial.moves)
            live.version += 1  # an AI answer being computed is now stale and will be dropped
            live.ai_error = None
        self._schedule_ai(live)
        return list(reversed(taken))

    def resign(self, live: Live, color: Any = None) -> None:
        """``color`` (default: the person against the AI, else the side to move) resigns."""
        with live.lock:
            if live.over:
                raise WebError(409, "the game is already over")
            if live.pie_pending:
                raise WebError(409, "the colours are not decided yet (komi pie): nothing to resign")
            if color in (None, ""):
                color = live.game.to_move
                if live.setup.get("opponent") == "ai":
                    color = next(c for c in (BLACK, WHITE) if live.player(c) == "human")
            if color not in (BLACK, WHITE):
                raise WebError(400, f"color must be 'black' or 'white', not {color!r}")
            if live.player(color) != "human":
                raise WebError(409, f"{color} is played by the AI; only a person resigns")
            live.record.resigned = color
            try:
                self.store.update(live.record.id, resigned=color, summary=summary(live))
            except Exception:
                live.record.resigned = None
                raise
            live.version += 1

    def pie(self, live: Live, komi: Any = None, color: Any = None) -> None:
        """A person's step of the komi pie: propose ``komi``, or choose ``color``."""
        with live.lock:
            pie = live.pie
            if pie is None or pie["stage"] == "done":
                raise WebError(409, "this game has no komi pie pending")
            if pie["stage"] == "propose":
                if pie["proposer"] != "human":
                    raise WebError(409, "the AI proposes the balance in this game; wait for it")
                if komi is None:
                    raise WebError(400, "propose the balance: give 'komi'")
                value = _whole(komi, "komi")
                self._check_balance(live, value)
                pie.update(stage="choose", komi=value)
            else:
                if pie["proposer"] == "human" and live.setup.get("opponent") == "ai":
                    raise WebError(409, "the AI chooses the colour in this game; wait for it")
                if color not in (BLACK, WHITE):
                    raise WebError(400, f"choose a colour: 'black' or 'white', not {color!r}")
                self._finish_pie(live, chooser="human", color=color)
                return
            self.store.update(live.record.id, setup=live.setup)
            live.version += 1
        self._schedule_ai(live)

    def _check_balance(self, live: Live, value: int) -> None:
        options = dict(live.record.options, **{BALANCE_OPTION[live.record.game]: value})
        try:
            hexstones.new_game(live.record.game, **options)
        except (ValueError, TypeError) as exc:
            raise WebError(400, f"bad balance: {exc}") from None

    def _finish_pie(self, live: Live, chooser: str, color: str) -> None:
        """The chooser (``"human"`` or ``"ai"``) takes ``color``; the game can start."""
        pie = live.pie
        options = dict(live.record.options, **{BALANCE_OPTION[live.record.game]: pie["komi"]})
        game = hexstones.new_game(live.record.game, **options)
        if live.setup.get("opponent") == "ai":
            players = {color: chooser, other(color): "ai" if chooser == "human" else "human"}
        else:
            players = {BLACK: "human", WHITE: "human"}
        pie.update(stage="done", chooser_color=color)
        live.setup["players"] = players
        live.record.options = options
        live.game = game
        self.store.update(live.record.id, options=options, setup=live.setup, summary=summary(live))
        live.version += 1
        # The caller holds the lock; scheduling takes it again (re-entrant).
        self._schedule_ai(live)

    # -- the AI -----------------------------------------------------------------------

    def _schedule_ai(self, live: Live) -> None:
        with live.lock:
            if self._closed or live.ai_busy or live.ai_error:
                return
            task = live.ai_to_act()
            if task is None:
                return
            live.ai_busy = True
            version = live.version
            pie = live.pie or {}
            job = (task, live.record.game, dict(live.record.options), list(live.game.moves),
                   live.setup.get("level") or DEFAULT_LEVEL, pie.get("komi"))
            try:
                future = self._pool.submit(think, *job)
            except (BrokenProcessPool, RuntimeError) as exc:
                if self._closed:
                    return
                log.warning("the AI's process pool broke (%s); starting a new one", exc)
                self._pool = _new_pool(self._ai_processes)
                future = self._pool.submit(think, *job)
        future.add_done_callback(lambda f: self._ai_answer(live, task, version, f))

    def _ai_answer(self, live: Live, task: str, version: int, future) -> None:
        try:
            answer: Any = future.result()
        except Exception as exc:  # shown to the player; the game stays as it is
            with live.lock:
                live.ai_busy = False
                if self._closed or live.version != version:
                    return
                log.error("the AI failed in game %s: %r", live.record.id, exc)
                live.ai_error = f"the AI failed: {exc or type(exc).__name__}"
                live.version += 1
            return
        with live.lock:
            live.ai_busy = False
            if self._closed or live.version != version:  # the game changed meanwhile (undo): stale
                pass
            elif task == "move":
                try:
                    self._apply(live, answer)
                except Exception as exc:
                    live.ai_error = f"the AI chose {answer!r}, which was refused: {exc}"
                    live.version += 1
            elif task == "propose":
                try:
                    self._check_balance(live, answer)
                    live.pie.update(stage="choose", komi=answer)
                    self.store.update(live.record.id, setup=live.setup)
                    live.version += 1
                except Exception as exc:
                    live.ai_error = f"the AI proposed {answer!r}, which was refused: {exc}"
                    live.version += 1
            else:
                if answer not in (BLACK, WHITE):
                    live.ai_error = f"the AI chose the colour {answer!r}, which is no colour"
                    live.version += 1
                else:
                    self._finish_pie(live, chooser="ai", color=answer)
        self._schedule_ai(live)

    # -- what the page shows ----------------------------------------------------------

    def state(self, live: Live, at: Any = None, overlays: Any = ()) -> dict[str, Any]:
        with live.lock:
            game = live.game
            total = len(game.moves)
            if at in (None, ""):
                at = total
            at = _whole(at, "at")
            if not 0 <= at <= total:
                raise WebError(400, f"at must be a move number from 0 to {total}, not {at}")
            if isinstance(overlays, str):
                overlays = [o for o in overlays.split(",") if o]
            try:
                svg = board_svg(game, overlays=tuple(overlays), move_number=at)
            except ValueError as exc:
                raise WebError(400, str(exc)) from None
            result = live.result()
            to_move = None if live.over else game.to_move
            human_turn = (to_move is not None and not live.pie_pending
                          and live.player(to_move) == "human")
            state: dict[str, Any] = {
                "id": live.record.id,
                "game": live.record.game,
                "size": game.size,
                "options": dict(live.record.options),
                "opponent": live.setup.get("opponent"),
                "level": live.setup.get("level"),
                # Copies: the answer is serialized after the lock is released.
                "players": copy.deepcopy(live.setup.get("players")),
                "pie": copy.deepcopy(live.pie),
                "moves": list(game.moves),
                "move_count": total,
                "version": live.version,
                "at": at,
                "to_move": to_move,
                "over": live.over,
                "result": result,
                "human_turn": human_turn,
                "legal": game.legal_moves() if human_turn else [],
                "ai_thinking": live.ai_busy,
                "waiting_for": None if live.over else ("ai" if live.ai_to_act() else "human"),
                "ai_error": live.ai_error,
                "overlays_available": [o.name for o in game.overlays],
                "svg": svg,
                "special_moves": list(type(game).special_moves),
            }
            state.update(_balance_facts(game))
            state["status"] = status_text(live, state)
            return state


def summary(live: Live) -> str:
    """The line the list of stored games shows: the result, or whose turn it is."""
    result = live.result()
    if result is None:
        return f"{live.game.to_move} to move"
    if result["by"] == "resignation":
        return f"{result['winner']} won ({result['resigned']} resigned)"
    if "score" in result:
        s = result["score"]
        return f"{result['winner']} won {s[BLACK]:g} to {s[WHITE]:g}"
    return f"{result['winner']} won"


def _balance_facts(game: Game) -> dict[str, Any]:
    facts: dict[str, Any] = {"score": game.score(), "score_details": None, "prison": game.prison}
    details = game.score_details()
    if details is not None:
        facts["score_details"] = {
            color: [{"part": part.key, "label": part.label, "value": part.sign * parts[part.key]}
                    for part in game.score_parts]
            for color, parts in details.items()
        }
    return facts


def status_text(live: Live, state: dict[str, Any]) -> str:
    """One line: whose turn it is, or the result."""
    result = state["result"]
    if result is not None:
        winner = result["winner"].capitalize()
        if result["by"] == "resignation":
            return f"{winner} wins: {result['resigned']} resigned"
        if "score" in result:
            s = result["score"]
            return f"{winner} wins by {abs(s[BLACK] - s[WHITE]):g} ({s[BLACK]:g} to {s[WHITE]:g})"
        return f"{winner} wins: {other(result['winner'])} has no legal action"
    pie = state["pie"]
    if pie is not None and pie["stage"] != "done":
        balance = "komi" if BALANCE_OPTION[state["game"]] == "komi" else "prison stones"
        ai_game = state["opponent"] == "ai"
        if pie["stage"] == "propose":
            if ai_game and pie["proposer"] == "ai":
                return f"Komi pie: the AI is proposing the {balance}"
            return f"Komi pie: propose the {balance}" if ai_game else f"Komi pie: first player, propose the {balance}"
        if ai_game and pie["proposer"] == "human":
            return f"Komi pie: the AI is choosing a colour ({balance} {pie['komi']})"
        return f"Komi pie: choose your colour ({balance} {pie['komi']})" if ai_game \
            else f"Komi pie: second player, choose a colour ({balance} {pie['komi']})"
    color = state["to_move"]
    who = ""
    if state["opponent"] == "ai":
        who = " (you)" if state["human_turn"] else " (AI)"
    if live.ai_error:
        return f"{color.capitalize()} to move{who}: {live.ai_error}"
    if state["ai_thinking"]:
        return f"{color.capitalize()} (AI) is thinking\u2026"
    return f"{color.capitalize()} to move{who}"
