"""Matches between two GTP engines (ours or anyone's that speaks our vertices).

The runner is the referee: it keeps its own game, asks the engine to move for the side
to move with ``genmove``, checks the move against the rules, and passes it to the other
engine with ``play``. An engine that answers ``resign`` loses; one that plays an illegal
move, refuses a legal one, fails a command or falls silent loses by forfeit.

Adjudication (optional, as computer-chess referees do it): after each move the referee
asks the engine that made it for a short ``kata-analyze``; once both engines, for the
last TURNS moves of each, gave the same side at most BELOW, that side loses. An engine
that does not know ``kata-analyze`` gives no opinion, and its games are played out.

Openings (optional, as engine testers use opening books): two deterministic engines play
the same game again and again, so that ten games can be two or three games repeated and
the match's interval claims more than it measured. With :class:`Openings`, each pair of
games (1 and 2, 3 and 4, ...) starts from its own few random placements, played by the
referee, with the colours swapped between the two games of the pair, so that an opening
that favours one colour favours each engine once.
"""

from __future__ import annotations

import math
import queue
import random
import shlex
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, NamedTuple

from hexstones.games import COLORS, Game, IllegalMove, Outcome, new_game, other
from hexstones.session import Adjudication


class Openings(NamedTuple):
    """Each pair of games starts from ``moves`` random placements (uniform over the empty
    points, none that ends the game), drawn from ``seed`` and the pair's number: the same
    openings for the same seed, whatever the engines."""

    moves: int
    seed: int = 1

    def check(self) -> None:
        for what, value, least in (("opening moves", self.moves, 1), ("opening seed", self.seed, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(f"the {what} must be a whole number of at least {least}, not {value!r}")

    def opening(self, game: Game, number: int) -> list[str]:
        """The opening of game ``number`` (1, 2, ...) of a match from ``game``'s start
        position (the games of a pair share it)."""
        rng = random.Random(f"{self.seed}/{(number + 1) // 2}")
        trial = game.copy()
        for _ in range(self.moves):
            placements = []
            for move in trial.legal_moves():
                if trial.board.is_point(move):
                    after = trial.copy()
                    after.play(move)
                    if not after.is_over:
                        placements.append(move)
            if not placements:
                break
            trial.play(rng.choice(placements))
        return list(trial.moves[len(game.moves):])


def _root_win_rate(info: str) -> float | None:
    """The win chance for the side to move that a kata-analyze ``info`` line gives: its
    moves' ``winrate`` weighted by their ``visits`` (a lone move's may rest on a handful
    of visits); None without visits."""
    words = info.split()
    visits = total = 0.0
    for k in range(len(words) - 1):
        if words[k] == "visits" and words[k + 2:k + 3] == ["winrate"] and k + 3 < len(words):
            try:
                n, w = float(words[k + 1]), float(words[k + 3])
            except ValueError:
                return None
            if not (n >= 0 and 0 <= w <= 1):
                return None
            visits, total = visits + n, total + n * w
    return total / visits if visits > 0 else None


class EngineFailure(Exception):
    """An engine that broke the protocol: died, timed out or answered an error."""


def engine_argv(command: str | list[str]) -> list[str]:
    """An engine command as the arguments it runs with (a string is split as a shell would)."""
    return shlex.split(command) if isinstance(command, str) else list(command)


def command_text(command: str | list[str]) -> str:
    """An engine command as one line, the same however it was quoted: as records keep it."""
    return shlex.join(engine_argv(command))


# An engine's first genmove may compile its search (numba's first run in a fresh install
# takes a minute or more on a busy machine; a match between two such engines forfeited
# its first game at the 60 s default): that answer may take this long at least.
FIRST_MOVE_SECONDS = 600.0


class GTPClient:
    """A GTP engine in a subprocess, spoken to over real pipes. Each answer must come
    within ``timeout`` seconds; the first ``genmove``'s within :data:`FIRST_MOVE_SECONDS`,
    if that is longer."""

    def __init__(self, command: str | list[str], *, timeout: float = 60.0,
                 env: dict[str, str] | None = None):
        self.argv = engine_argv(command)
        if not self.argv:
            raise ValueError("an engine command is needed, e.g. 'hexstones gtp --game keil'")
        self.timeout = timeout
        self.has_moved = False
        try:
            self.process = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True, encoding="utf-8", bufsize=1, env=env,
                # Its own session: a Ctrl-C at the terminal stops the referee, which then
                # closes the engine, instead of killing the engine mid-game (a forfeit).
                start_new_session=True)
        except OSError as exc:
            raise ValueError(f"cannot start engine {' '.join(self.argv)!r}: {exc}") from None
        # Popen opens both pipes when asked for PIPE, so neither is None.
        assert self.process.stdin is not None and self.process.stdout is not None
        self._stdin = self.process.stdin
        self._stdout = self.process.stdout
        self._lines: queue.Queue[str | None] = queue.Queue()
        # A reader thread lets every answer wait with a timeout instead of hanging forever.
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self._stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _line(self, timeout: float | None = None) -> str:
        limit = self.timeout if timeout is None else timeout
        try:
            line = self._lines.get(timeout=limit)
        except queue.Empty:
            raise EngineFailure(f"no answer within {limit:g} s") from None
        if line is None:
            raise EngineFailure("the engine exited")
        return line.rstrip("\r\n")

    def send(self, command: str) -> str:
        """The answer to ``command`` (its lines joined); EngineFailure on ``? message``."""
        self._write(command)
        first_move = command.startswith("genmove") and not self.has_moved
        limit = max(self.timeout, FIRST_MOVE_SECONDS) if first_move else self.timeout
        line = self._line(limit)
        while not line.strip():  # tolerate stray blank lines before an answer
            line = self._line(limit)
        self.has_moved = self.has_moved or first_move
        if line[:1] not in "=?":
            raise EngineFailure(f"not a GTP answer to {command!r}: {line!r}")
        status, body = line[0], line[1:].lstrip("0123456789").strip()
        lines = [body] if body else []
        while True:
            nxt = self._line()
            if not nxt.strip():
                break
            lines.append(nxt)
        answer = "\n".join(lines)
        if status == "?":
            raise EngineFailure(f"{command!r} failed: {answer}")
        return answer

    def win_rate(self, seconds: float) -> float | None:
        """The engine's win chance for the side to move, from ``kata-analyze`` run for about
        ``seconds`` (its moves' win rates weighted by visits); None when it gives none."""
        interval = max(1, round(seconds * 100))  # kata-analyze counts centiseconds
        self._write(f"kata-analyze interval {interval}")
        line = self._line()
        while not line.strip():
            line = self._line()
        if line[:1] == "?":  # refused (a finished game, say): the answer ends with a blank line
            while self._line().strip():
                pass
            return None
        if line[:1] != "=":
            raise EngineFailure(f"not a GTP answer to kata-analyze: {line!r}")
        first = self._line()  # the stream's first info line (blank: it ended without one)
        # Any command ends the stream; the engine answers it after the stream's blank line.
        # "name" cannot fail, and its answer is the first line that starts with = or ?.
        self._write("name")
        line = self._line()
        while line[:1] not in "=?":
            line = self._line()
        while self._line().strip():
            pass
        return _root_win_rate(first)

    def _write(self, command: str) -> None:
        try:
            self._stdin.write(command + "\n")
            self._stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise EngineFailure("the engine exited") from None

    def known(self, command: str) -> bool:
        try:
            return self.send(f"known_command {command}").strip() == "true"
        except EngineFailure:
            return False

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self._stdin.write("quit\n")
                self._stdin.flush()
                self._stdin.close()
                self.process.wait(timeout=5)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()


@dataclass
class GameOutcome:
    number: int
    black: int  # index of the engine playing black (0 or 1)
    white: int
    winner: str | None  # "black", "white", or None (stopped at the move limit)
    reason: str  # "rules", "resignation", "adjudication", "forfeit: ...", "move limit"
    result: str  # SGF RE value: "B+2.5", "W+R", "B+F", "B+" (adjudicated), "" (no result)
    moves: list[str] = field(default_factory=list)
    sgf: str = ""
    text: str = ""  # the result in words (Outcome.text), "" without one
    opening: int = 0  # how many of the first moves the referee played (Openings)

    @property
    def winner_engine(self) -> int | None:
        if self.winner is None:
            return None
        return self.black if self.winner == "black" else self.white

    def points(self, engine: int) -> float:
        """What the game gives ``engine`` (0 or 1): 1 for a win, a half for no result (the
        move limit), else 0."""
        return 0.5 if self.winner is None else float(self.winner_engine == engine)

    def to_json(self, names: tuple[str, ...]) -> dict[str, Any]:
        """The game as the match's JSON keeps it, each engine named by its label in ``names``
        (the SGF text is not kept: the moves are)."""
        return {"number": self.number, "black": names[self.black], "white": names[self.white],
                "winner": self.winner, "winner_engine": self.winner_engine, "reason": self.reason,
                "result": self.result, "text": self.text, "moves": self.moves,
                "opening": self.opening}

    @classmethod
    def from_json(cls, data: dict[str, Any], names: tuple[str, ...]) -> GameOutcome:
        """The game :meth:`to_json` wrote; ValueError for one it could not have written."""
        try:
            black, white = names.index(data["black"]), names.index(data["white"])
            number, winner, moves = data["number"], data["winner"], data["moves"]
            outcome = cls(number, black, white, winner, str(data["reason"]), str(data["result"]),
                          [str(m) for m in moves], text=str(data.get("text", "")),
                          opening=data.get("opening", 0))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a game of a match record: {exc!r}") from None
        if (isinstance(number, bool) or not isinstance(number, int) or number < 1
                or black == white or winner not in (*COLORS, None)
                or isinstance(outcome.opening, bool) or not isinstance(outcome.opening, int)
                or not 0 <= outcome.opening <= len(moves)):
            raise ValueError(f"not a game of a match record: {data!r:.200}")
        return outcome


@dataclass
class MatchResult:
    names: tuple[str, str]  # short labels, "engine 1" and "engine 2"
    commands: tuple[str, ...] = ("", "")
    players: tuple[str, ...] = ("", "")  # what the engines call themselves (GTP name, version)
    games: list[GameOutcome] = field(default_factory=list)
    adjudicated_by: Adjudication | None = None  # the rule, when both engines could be asked
    openings: Openings | None = None  # the games' random openings, if any
    analysts: tuple[bool, bool] = (False, False)  # which engines know kata-analyze
    # What a match continued from its record must agree with: the game's name, its options
    # (size, balance, ...) and the number of games the match was to have.
    game: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    scheduled: int = 0

    def wins(self, engine: int) -> int:
        return sum(1 for g in self.games if g.winner_engine == engine)

    @property
    def unfinished(self) -> int:
        return sum(1 for g in self.games if g.winner is None)

    def score(self) -> dict[str, Any] | None:
        """Engine 1's score (a game stopped at the move limit counts half to each): points,
        share, its 95 % Wilson interval and the Elo difference they mean (None where
        infinite, a clean sweep); None before any game."""
        from hexstones.studies.elo import elo_difference, wilson_interval

        played = len(self.games)
        if not played:
            return None
        points = sum(g.points(0) for g in self.games)
        share = points / played
        low, high = wilson_interval(points, played)

        def elo(x: float) -> float | None:
            value = elo_difference(x)
            return None if math.isinf(value) else round(value)

        return {"points": points, "games": played, "share": round(share, 3),
                "ci95": [round(low, 3), round(high, 3)],
                "elo": elo(share), "elo_ci95": [elo(low), elo(high)]}

    def summary(self) -> str:
        lines = [f"{self.names[k]}: {self.commands[k]} ({self.players[k]})" for k in (0, 1)]
        for g in self.games:
            winner = g.winner_engine
            outcome = f"{g.text}: {self.names[winner]} wins" if winner is not None else "no result"
            lines.append(f"game {g.number}: {self.names[g.black]} (black) vs {self.names[g.white]} "
                         f"(white): {outcome} ({g.reason}, {len(g.moves)} moves"
                         f"{f', the first {g.opening} the opening' if g.opening else ''})")
        total = len(self.games)
        for k in (0, 1):
            share = f" ({100 * self.wins(k) / total:.0f}%)" if total else ""
            lines.append(f"{self.names[k]}: {self.wins(k)} of {total} games{share}")
        if self.unfinished:
            lines.append(f"unfinished (move limit): {self.unfinished}")
        score = self.score()
        if score is not None:
            def elo(value: int | None, sweep: str) -> str:
                return sweep if value is None else f"{value:+d}"

            low, high = score["elo_ci95"]
            lines.append(
                f"{self.names[0]} scored {score['points']:g} of {score['games']} "
                f"({100 * score['share']:.0f}%, 95% interval {100 * score['ci95'][0]:.0f}-"
                f"{100 * score['ci95'][1]:.0f}%): Elo difference {elo(score['elo'], 'unbounded')} "
                f"({elo(low, '-inf')} to {elo(high, '+inf')})")
        rule = self.adjudicated_by
        if rule is not None:
            adjudicated = sum(1 for g in self.games if g.reason == "adjudication")
            lines.append(f"adjudicated: {adjudicated} (both engines at most {rule.below:.0%} for "
                         f"{rule.turns} turns each, kata-analyze {rule.seconds:g} s)")
        if self.openings is not None:
            lines.append(f"openings: {self.openings.moves} random placements for each pair of "
                         f"games, seed {self.openings.seed}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "engines": [{"label": self.names[k], "command": self.commands[k], "player": self.players[k]}
                        for k in (0, 1)],
            "wins": [self.wins(0), self.wins(1)],
            "unfinished": self.unfinished,
            "score": self.score(),
            "adjudication": self.adjudicated_by._asdict() if self.adjudicated_by else None,
            "openings": self.openings._asdict() if self.openings else None,
            "game": self.game, "options": self.options, "scheduled_games": self.scheduled,
            "games": [g.to_json(self.names) for g in self.games],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchResult:
        """The match :meth:`to_json` wrote (a record kept to continue it: ``play_match``'s
        ``earlier``); ValueError for a malformed one. Records written before the game, its
        options and the number of games were kept read with those left empty."""
        try:
            engines = data["engines"]
            names = (str(engines[0]["label"]), str(engines[1]["label"]))
            match = cls(names, tuple(str(e["command"]) for e in engines[:2]),
                        tuple(str(e.get("player", "")) for e in engines[:2]),
                        game=str(data.get("game", "")), options=dict(data.get("options") or {}),
                        scheduled=int(data.get("scheduled_games", 0)))
            rule = data.get("adjudication")
            if rule is not None:
                match.adjudicated_by = Adjudication(float(rule["below"]), int(rule["turns"]),
                                                    float(rule["seconds"]))
                match.analysts = (True, True)
            openings = data.get("openings")
            if openings is not None:
                match.openings = Openings(openings["moves"], openings["seed"])
                match.openings.check()
            match.games = [GameOutcome.from_json(g, names) for g in data["games"]]
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"not a match record: {exc}") from None
        numbers = [g.number for g in match.games]
        if numbers != sorted(set(numbers)):
            raise ValueError(f"not a match record: its games are numbered {numbers}")
        return match


class MatchStopped(KeyboardInterrupt):
    """The match was interrupted (Ctrl-C) after it began; ``match`` holds the games that
    had ended, and the engines have been closed."""

    def __init__(self, match: MatchResult) -> None:
        super().__init__(f"the match was stopped after {len(match.games)} games")
        self.match = match


def _setup(client: GTPClient, game: Game) -> None:
    if client.known("gogui-rules_game_id"):
        theirs = client.send("gogui-rules_game_id").strip().lower()
        if theirs != game.name:
            raise EngineFailure(f"the engine plays {theirs!r}, not {game.name!r}")
    client.send(f"boardsize {game.size}")
    client.send("clear_board")
    client.send(f"komi {game.balance_value}")  # our convention: komi sets the balance (Droched: the prison)


def play_game(clients: tuple[GTPClient, GTPClient], black: int, game: Game, *, number: int,
              max_moves: int, adjudicate: Adjudication | None = None,
              analysts: tuple[bool, bool] = (False, False),
              on_move: Callable[[Game], None] | None = None,
              opening: list[str] | tuple[str, ...] = ()) -> GameOutcome:
    """One game, engine ``black`` (0 or 1) taking black; ``game`` is fresh and becomes the
    record. The referee plays the moves of ``opening`` first, telling both engines. With
    ``adjudicate``, engines whose ``analysts`` entry is true are asked for their judgement
    after each of their moves. ``on_move`` sees the game after each move both engines
    have taken."""
    from hexstones.records import result_text
    from hexstones.records.sgf import PROPERTY_OF_COLOR

    white = 1 - black
    by_color = {"black": black, "white": white}

    def lost(loser: str, reason: str, how: str, text: str) -> GameOutcome:
        """``loser`` lost the game before the rules ended it; ``how``: the SGF result's
        suffix (``R``, ``F``, or nothing for a win of no stated margin)."""
        winner = other(loser)
        return GameOutcome(number, black, white, winner, reason, PROPERTY_OF_COLOR[winner] + "+" + how,
                           list(game.moves), text=text)

    def forfeit(color: str, why: str) -> GameOutcome:
        return lost(color, f"forfeit by {color}: {why}", "F",
                    f"{other(color).capitalize()} wins: {color.capitalize()} forfeits")

    for color, k in by_color.items():
        try:
            _setup(clients[k], game)
        except EngineFailure as exc:
            return forfeit(color, f"setup failed: {exc}")

    def play_on() -> GameOutcome:
        """The game after the opening, to its end."""
        opinions: list[tuple[str, float | None]] = []
        while not game.is_over:
            if len(game.moves) >= max_moves:
                return GameOutcome(number, black, white, None, "move limit", "", list(game.moves))
            color = game.to_move
            mover, watcher = clients[by_color[color]], clients[by_color[other(color)]]
            try:
                move = mover.send(f"genmove {color}").strip().lower()
            except EngineFailure as exc:
                return forfeit(color, str(exc))
            if move == "resign":
                return lost(color, "resignation", "R", Outcome.resignation(color).text())
            try:
                game.play(move)
            except IllegalMove as exc:
                return forfeit(color, f"illegal move {move!r}: {exc}")
            try:
                watcher.send(f"play {color} {move}")
            except EngineFailure as exc:
                return forfeit(other(color), f"refused the legal move {move}: {exc}")
            if on_move is not None:
                on_move(game)
            if adjudicate is not None and all(analysts) and not game.is_over:
                try:
                    opinions.append((color, mover.win_rate(adjudicate.seconds)))
                except EngineFailure as exc:
                    return forfeit(color, f"analysis failed: {exc}")
                loser = adjudicate.loser(opinions)
                if loser is not None:
                    return lost(loser, "adjudication", "",
                                f"{other(loser).capitalize()} wins by adjudication: both engines gave "
                                f"{loser.capitalize()} at most {adjudicate.below:.0%} for "
                                f"{adjudicate.turns} turn{'s' if adjudicate.turns > 1 else ''} each")
        # The loop above ends only once the game is over, and a finished game has an outcome.
        outcome, result = game.outcome(), result_text(game)
        if outcome is None or result is None:
            raise RuntimeError(f"game {number} is over but its rules give no outcome")
        return GameOutcome(number, black, white, outcome.winner, "rules", result, list(game.moves),
                           text=outcome.text())

    played = 0
    for move in opening:
        color = game.to_move
        game.play(move)  # the referee's own move: an illegal one is its error, no forfeit
        for watching, k in by_color.items():
            try:
                clients[k].send(f"play {color} {move}")
            except EngineFailure as exc:
                outcome = forfeit(watching, f"refused the opening's legal move {move}: {exc}")
                outcome.opening = played + 1
                return outcome
        played += 1
        if on_move is not None:
            on_move(game)
    outcome = play_on()
    outcome.opening = played
    return outcome


def play_match(commands: tuple[str, str], *, game: str = "keil", games: int = 2,
               options: dict[str, Any] | None = None, max_moves: int = 2000, timeout: float = 60.0,
               names: tuple[str, str] | None = None,
               on_game: Callable[[GameOutcome, MatchResult], None] | None = None,
               first_game: int = 1, adjudicate: Adjudication | None = None,
               earlier: MatchResult | None = None,
               on_move: Callable[[int, Game], None] | None = None,
               openings: Openings | None = None) -> MatchResult:
    """Games ``first_game`` to ``games`` between the engines started by ``commands``, colours
    alternating (the first engine takes black in games 1, 3, ...); a ``first_game`` above 1
    continues a match stopped before it. ``earlier``, the record of this match's first games
    (:meth:`MatchResult.from_json`), continues it after its last game, the result holding
    them too; it must name the same engine commands, game, options and number of games.
    ``adjudicate`` ends games both engines agree on (:class:`Adjudication`), when both know
    ``kata-analyze``. ``openings`` starts each pair of games from its own random opening
    (:class:`Openings`). ``on_game`` is called with each game as it ends and the match so far,
    ``on_move`` with the game's number and the game after each move.
    Interrupted (Ctrl-C) once the engines have started, it raises :class:`MatchStopped` with
    the games that had ended."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"the number of games must be a whole number of at least 1, not {games!r}")
    if isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 1:
        raise ValueError(f"the move limit must be a whole number of at least 1, not {max_moves!r}")
    if isinstance(first_game, bool) or not isinstance(first_game, int) or not 1 <= first_game <= games:
        raise ValueError(f"the first game must be a whole number from 1 to {games}, not {first_game!r}")
    if adjudicate is not None:
        adjudicate.check()
    if openings is not None:
        openings.check()
    options = dict(options or {})
    new_game(game, **options)  # a bad game or option fails here, before any engine starts
    if earlier is not None:
        if first_game != 1:
            raise ValueError("a match continued from its record starts after its last game, "
                             "not at a first game of its own")
        _check_same_match(earlier, commands, game, options, games, adjudicate, openings)
        first_game = earlier.games[-1].number + 1 if earlier.games else 1
        if first_game > games:  # over already: nothing to start
            return earlier
    clients: list[GTPClient] = []
    try:
        for command in commands:
            clients.append(GTPClient(command, timeout=timeout))
        for k, client in enumerate(clients):
            if client.known("gogui-rules_game_id"):
                theirs = client.send("gogui-rules_game_id").strip().lower()
                if theirs != game:
                    raise ValueError(f"engine {k + 1} plays {theirs}, not {game}: "
                                     f"{command_text(client.argv)}")
        match = MatchResult(names or ("engine 1", "engine 2"),
                            tuple(command_text(c.argv) for c in clients),
                            tuple(_player_name(c) for c in clients),
                            game=game, options=options, scheduled=games, openings=openings)
        if earlier is not None:
            match.games = list(earlier.games)
        analysts = (clients[0].known("kata-analyze"), clients[1].known("kata-analyze"))
        match.analysts = analysts
        match.adjudicated_by = adjudicate if adjudicate is not None and all(analysts) else None
        try:
            for number in range(first_game, games + 1):
                record = new_game(game, **options)
                opening = openings.opening(record, number) if openings is not None else []
                outcome = play_game((clients[0], clients[1]), (number - 1) % 2, record,
                                    number=number, max_moves=max_moves, adjudicate=adjudicate,
                                    analysts=analysts,
                                    on_move=None if on_move is None else partial(on_move, number),
                                    opening=opening)
                outcome.sgf = _record_text(record, outcome, match.players)
                match.games.append(outcome)
                if on_game:
                    on_game(outcome, match)
        except KeyboardInterrupt as exc:  # the games that ended stand: hand them over
            raise MatchStopped(match) from exc
        return match
    finally:
        for client in clients:
            client.close()


def _check_same_match(earlier: MatchResult, commands: tuple[str, str], game: str,
                      options: dict[str, Any], games: int, adjudicate: Adjudication | None,
                      openings: Openings | None) -> None:
    """ValueError unless the record ``earlier`` is of the match these arguments describe."""
    def differs(what: str, theirs: Any, ours: Any) -> None:
        raise ValueError(f"the record is of another match: its {what} {theirs!r}, not {ours!r}")

    if not earlier.game:
        raise ValueError("the record does not say which game and options it was played with "
                         "(written before matches kept them); continue it with a first game")
    if earlier.game != game:
        differs("game is", earlier.game, game)
    if earlier.options != options:
        differs("options are", earlier.options, options)
    if earlier.scheduled != games:
        differs("number of games is", earlier.scheduled, games)
    for k, command in enumerate(commands):
        ours = command_text(command)
        if earlier.commands[k] != ours:
            differs(f"engine {k + 1} is", earlier.commands[k], ours)
    if earlier.adjudicated_by is not None and earlier.adjudicated_by != adjudicate:
        differs("adjudication is", earlier.adjudicated_by, adjudicate)
    if earlier.openings != openings:
        differs("openings are", earlier.openings, openings)


def _player_name(client: GTPClient) -> str:
    try:
        return f"{client.send('name').strip()} {client.send('version').strip()}".strip()
    except EngineFailure:
        return command_text(client.argv)


def _record_text(game: Game, outcome: GameOutcome, names: tuple[str, ...]) -> str:
    from hexstones.records import write_sgf

    info: dict[str, Any] = {"black": names[outcome.black], "white": names[outcome.white], "event": "hexstones match",
            "round": str(outcome.number)}
    if not game.is_over and outcome.result:
        info["result"] = outcome.result
    return write_sgf(game, **info)
