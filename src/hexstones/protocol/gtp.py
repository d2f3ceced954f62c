"""A GTP version 2 engine for Keil, Dehil and Droched (conventions in docs/gtp.md).

Vertices are docs/rules.md points (``a1`` ... ) and the words ``pass``, ``button``,
``release``; ``boardsize n`` means a hexhex board of side ``n``. Besides the standard
commands the engine speaks GoGui's ``gogui-rules_*`` commands, so that rule-agnostic
programs can drive these games, and ``kata-analyze``, which streams ``info`` lines until
the next command arrives.
"""

from __future__ import annotations

import io
import queue
import random
import re
import sys
import threading
from collections.abc import Callable
from typing import Any, BinaryIO, TextIO

import hexstones
from hexstones.games import Game, IllegalMove, new_game

PROTOCOL_VERSION = "2"
ENGINE_NAME = "hexstones"
_COLORS = {"b": "black", "black": "black", "w": "white", "white": "white"}
_ID = re.compile(r"^([0-9]+)\s*(.*)$")
# A number as GTP writes one (ASCII: float() takes other scripts' digits too).
_NUMBER = re.compile(r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")
# Who answers genmove: the AI, or uniformly random legal moves (a baseline opponent).
PLAYERS = ("ai", "random")


# What the reader thread queues for a line past MAX_LINE_BYTES.
_TOO_LONG: Any = object()


class GTPError(Exception):
    """A command that fails: the engine answers ``? message`` and carries on."""


def clean_line(raw: str) -> str:
    """GTP preprocessing: drop control characters (but tab, which becomes a space) and
    comments after ``#``; strip."""
    text = "".join(" " if ch == "\t" else ch for ch in raw if ch == "\t" or ord(ch) >= 32 and ord(ch) != 127)
    return text.split("#", 1)[0].strip()


def _color(word: str) -> str:
    color = _COLORS.get(word.lower())
    if color is None:
        raise GTPError(f"invalid color {_shown(word)}: use b, w, black or white")
    return color


def _shown(text: str, limit: int = 40) -> str:
    """``repr(text)``, cut short: an answer never echoes a long input back."""
    shown = repr(text)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def _one_line(text: str) -> str:
    """A GTP response may not hold an empty line: drop them."""
    return "\n".join(line for line in text.splitlines() if line.strip())


class Engine:
    """The engine's state and commands, independent of input and output."""

    def __init__(self, game: str = "keil", *, level: int | None = None, seconds: float | None = None,
                 iterations: int | None = None, seed: int | None = None, player: str = "ai",
                 resign: tuple[float, int] | None = None, **options: Any):
        """``options``: the new game's, as ``new_game`` takes them (``size``, ``komi``, ...).
        ``resign`` (below, turns): genmove answers ``resign`` once the search has given the
        engine's colour a win chance below ``below`` on ``turns`` of its genmoves in a row
        (the AI player only)."""
        if player not in PLAYERS:
            raise ValueError(f"player must be one of {', '.join(PLAYERS)}, not {player!r}")
        if resign is not None:
            if player != "ai":
                raise ValueError("only the AI player resigns: its search gives a win chance")
            from hexstones.session import Resign

            Resign(*resign).checked()
        self.resign = resign
        self.player = player
        self.game: Game = new_game(game, **options)  # ValueError on a bad option: caller reports
        self.level, self.seconds, self.iterations, self.seed = level, seconds, iterations, seed
        self._new_watch()
        if level is not None:
            from hexstones.ai import get_level

            get_level(level)
        # each returns the answer text; kata-analyze returns its settings for the streaming
        self.commands: dict[str, Callable[[list[str]], Any]] = {
            "protocol_version": lambda a: PROTOCOL_VERSION,
            "name": lambda a: ENGINE_NAME,
            "version": lambda a: hexstones.__version__,
            "known_command": self.cmd_known_command,
            "list_commands": lambda a: "\n".join(self.commands),
            "quit": lambda a: "",
            "boardsize": self.cmd_boardsize,
            "clear_board": self.cmd_clear_board,
            "komi": self.cmd_komi,
            "play": self.cmd_play,
            "genmove": self.cmd_genmove,
            "undo": self.cmd_undo,
            "showboard": self.cmd_showboard,
            "final_score": self.cmd_final_score,
            "loadsgf": self.cmd_loadsgf,
            "printsgf": self.cmd_printsgf,
            "gogui-rules_game_id": lambda a: self.game.name,
            "gogui-rules_board_size": lambda a: str(self.game.size),
            "gogui-rules_board": lambda a: "\n" + self.game.picture(),
            "gogui-rules_legal_moves": lambda a: " ".join(self.game.legal_moves()),
            "gogui-rules_side_to_move": lambda a: self.game.to_move,
            "gogui-rules_final_result": self.cmd_final_result,
            "gogui-analyze_commands": self.cmd_analyze_commands,
            "kata-analyze": self.cmd_kata_analyze_check,
        }

    # -- commands ---------------------------------------------------------------------

    def cmd_known_command(self, args: list[str]) -> str:
        self._arity(args, 1, "known_command COMMAND")
        return "true" if args[0] in self.commands else "false"

    def _arity(self, args: list[str], count: int, usage: str) -> None:
        if len(args) != count:
            raise GTPError(f"usage: {usage}")

    def _rebuild(self, **changes: Any) -> None:
        """A new game with changed options and the same moves; nothing changes on failure."""
        options = {**self.game.options, **changes}
        try:
            game = new_game(self.game.name, **options)
            for move in self.game.moves:
                game.play(move)
        except IllegalMove as exc:
            raise GTPError(f"the moves played so far are not legal with that setting: {exc}") from None
        except ValueError as exc:
            raise GTPError(str(exc)) from None
        self.game = game

    def _new_watch(self) -> None:
        """Forget the win chances of earlier genmoves (a new game)."""
        from hexstones.session import ResignWatch

        self.watch = ResignWatch(self.resign)

    def cmd_boardsize(self, args: list[str]) -> str:
        self._arity(args, 1, "boardsize SIDE")
        if not re.fullmatch(r"[0-9]{1,3}", args[0]):
            raise GTPError(f"boardsize takes a whole number (the hexhex side), not {_shown(args[0])}")
        try:
            self.game = new_game(self.game.name, **{**self.game.options, "size": int(args[0])})
        except ValueError as exc:
            raise GTPError(f"unacceptable size: {exc}") from None
        self._new_watch()
        return ""

    def cmd_clear_board(self, args: list[str]) -> str:
        self._arity(args, 0, "clear_board")
        self.game = new_game(self.game.name, **self.game.options)
        self._new_watch()
        return ""

    def cmd_komi(self, args: list[str]) -> str:
        # Our convention: komi sets the game's balance (Droched: the stones in the prison).
        self._arity(args, 1, "komi VALUE")
        text = args[0]
        if not _NUMBER.match(text) or len(text) > 40:
            raise GTPError(f"komi takes a number, not {_shown(text)}")
        value: int | float = int(text) if text.lstrip("+-").isdigit() else float(text)
        self._rebuild(**{self.game.balance.option: value})  # the game API checks it
        return ""

    def cmd_play(self, args: list[str]) -> str:
        self._arity(args, 2, "play COLOR VERTEX")
        color = _color(args[0])
        move = args[1].lower()
        if move == "resign":
            raise GTPError("resign is not a move of the rules: the game record ends instead")
        if self.game.is_over:
            raise GTPError("illegal move: the game is over")
        if color != self.game.to_move:
            raise GTPError(f"illegal move: it is {self.game.to_move}'s turn, not {color}'s")
        try:
            self.game.play(move)
        except IllegalMove as exc:
            raise GTPError(f"illegal move: {exc}") from None
        return ""

    def cmd_genmove(self, args: list[str]) -> str:
        self._arity(args, 1, "genmove COLOR")
        color = _color(args[0])
        if self.game.is_over:
            raise GTPError("the game is over: there is no move to generate")
        if color != self.game.to_move:
            raise GTPError(f"it is {self.game.to_move}'s turn, not {color}'s")
        if self.player == "random":
            move = random.Random(self._next_seed()).choice(self.game.legal_moves())
        else:
            from hexstones import ai

            move, win_rate = ai.choose_turn(self.game, seconds=self.seconds,
                                            iterations=self.iterations, seed=self._next_seed(),
                                            level=self.level)
            if self.watch.resigns(color, len(self.game.moves), win_rate):
                return "resign"  # the game stays as it is: the controller ends it
        self.game.play(move)
        return move

    def _next_seed(self) -> int | None:
        # Deterministic for a given --seed, yet different from move to move.
        return None if self.seed is None else self.seed + len(self.game.moves)

    def cmd_undo(self, args: list[str]) -> str:
        self._arity(args, 0, "undo")
        if not self.game.moves:
            raise GTPError("cannot undo: no move has been played")
        self.game.undo()
        return ""

    def cmd_showboard(self, args: list[str]) -> str:
        self._arity(args, 0, "showboard")
        return "\n" + str(self.game)

    def cmd_final_score(self, args: list[str]) -> str:
        self._arity(args, 0, "final_score")
        from hexstones.records import result_text

        text = result_text(self.game)
        if text is not None:
            return text
        score = self.game.score() if self.game.has_score else None
        if score is None:
            raise GTPError(f"the game is not over, and {self.game.title} has no score")
        # Keil and Dehil: the score if the game ended now (a win by half a point at least).
        diff = score["black"] - score["white"]
        return ("B+" if diff > 0 else "W+") + f"{abs(diff):g}"

    def cmd_final_result(self, args: list[str]) -> str:
        outcome = self.game.outcome()
        return "unknown" if outcome is None else outcome.winner

    def cmd_loadsgf(self, args: list[str]) -> str:
        if len(args) not in (1, 2):
            raise GTPError("usage: loadsgf FILE [MOVE_NUMBER]")
        from hexstones.records import SGFError, read_sgf

        try:
            with open(args[0], encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise GTPError(f"cannot read {args[0]}: {exc}") from None
        try:
            game = read_sgf(text)
        except SGFError as exc:
            raise GTPError(str(exc)) from None
        if len(args) == 2:
            if not re.fullmatch(r"[0-9]{1,6}", args[1]) or int(args[1]) < 1:
                raise GTPError(f"move number must be a whole number from 1, not {_shown(args[1])}")
            # GTP: the position before move MOVE_NUMBER is played.
            while len(game.moves) >= int(args[1]):
                game.undo()
        self.game = game
        self._new_watch()
        return ""

    def cmd_printsgf(self, args: list[str]) -> str:
        if len(args) > 1:
            raise GTPError("usage: printsgf [FILE]")
        from hexstones.records import write_sgf

        text = write_sgf(self.game, black=ENGINE_NAME, white=ENGINE_NAME)
        if args:
            try:
                with open(args[0], "w", encoding="utf-8") as handle:
                    handle.write(text)
            except OSError as exc:
                raise GTPError(f"cannot write {args[0]}: {exc}") from None
            return ""
        return "\n" + text

    def cmd_analyze_commands(self, args: list[str]) -> str:
        return "\n".join([
            "string/Game/gogui-rules_game_id",
            "string/Side to move/gogui-rules_side_to_move",
            "string/Legal moves/gogui-rules_legal_moves",
            "string/Final result/gogui-rules_final_result",
            "string/Board/gogui-rules_board",
            "string/Final score/final_score",
        ])

    # -- kata-analyze -------------------------------------------------------------------

    def cmd_kata_analyze_check(self, args: list[str]) -> dict[str, Any]:
        """Parse ``kata-analyze [COLOR] [INTERVAL] [key value]...``; the streaming is the
        server's job. Returns the settings."""
        settings: dict[str, Any] = {"interval": 1.0, "ownership": False, "maxmoves": None}
        rest = list(args)
        if rest and rest[0].lower() in _COLORS:
            color = _color(rest.pop(0))
            if not self.game.is_over and color != self.game.to_move:
                raise GTPError(f"can only analyze for the side to move ({self.game.to_move})")
        if rest and re.fullmatch(r"[0-9]{1,6}", rest[0]):
            settings["interval"] = int(rest.pop(0)) / 100
        if len(rest) % 2:
            raise GTPError("usage: kata-analyze [COLOR] [INTERVAL] [interval N] [ownership true|false] "
                           "[maxmoves N]")
        for key, value in zip(rest[::2], rest[1::2]):
            if key == "interval" and re.fullmatch(r"[0-9]{1,6}", value):
                settings["interval"] = int(value) / 100
            elif key == "ownership" and value in ("true", "false"):
                settings["ownership"] = value == "true"
            elif key == "maxmoves" and re.fullmatch(r"[0-9]{1,6}", value) and int(value) > 0:
                settings["maxmoves"] = int(value)
            elif key in ("minmoves", "rootInfo", "ownershipStdev", "movesOwnership", "pvVisits"):
                continue  # accepted for compatibility with KataGo front ends, not reported
            else:
                raise GTPError(f"bad kata-analyze option {key} {value}")
        if self.game.is_over:
            raise GTPError("the game is over: there is nothing to analyze")
        settings["interval"] = max(settings["interval"], 0.05)
        return settings

    def analysis_line(self, settings: dict[str, Any], seconds: float) -> str:
        """One ``info`` line in the style of KataGo's kata-analyze."""
        from hexstones import ai

        data = ai.analyze(self.game, seconds=seconds, seed=self._next_seed())
        mover = self.game.to_move
        parts = []
        moves = data["moves"][: settings["maxmoves"]] if settings["maxmoves"] else data["moves"]
        pv = list(data.get("pv") or [])
        for order, entry in enumerate(moves):
            # The principal variation belongs to the move it starts with; others stand alone.
            line_pv = pv if pv and pv[0] == entry["move"] else [entry["move"]]
            parts.append(f"info move {entry['move']} visits {entry['visits']} "
                         f"winrate {entry['win_rate']:.4f} order {order} pv {' '.join(line_pv)}")
        text = " ".join(parts)
        ownership = data.get("ownership")
        if settings["ownership"] and ownership is not None:  # Droched: the AI gives none
            # KataGo style: from the side to move's point of view, +1 theirs, -1 the opponent's.
            sign = 1 if mover == "black" else -1
            values = [f"{sign * ownership[name]:.3f}" for name in self.game.board.names]
            text += " ownership " + " ".join(values)
        return text


# A command line longer than this is refused unread (GTP commands are a few words).
MAX_LINE_BYTES = 1 << 16
MAX_ERROR_CHARS = 300
_LEADING_ID = re.compile(rb"^\s*(\d+)")


class Server:
    """Reads commands from ``infile``, answers on ``outfile`` (GTP framing).

    Both are used as bytes where they have a ``buffer`` (``sys.stdin``, ``sys.stdout``),
    whatever the locale's encoding: a line that is not UTF-8 text gets ``?`` and the
    engine carries on; answers are UTF-8.
    """

    def __init__(self, engine: Engine, infile: TextIO | BinaryIO, outfile: TextIO | BinaryIO):
        self.engine = engine
        self.infile, self.outfile = infile, outfile
        self.lines: queue.Queue[str | bytes | None] = queue.Queue()

    def _read(self) -> None:
        # A thread, so that a streaming analysis notices the next command at once.
        source = getattr(self.infile, "buffer", self.infile)
        try:
            while True:
                raw = source.readline(MAX_LINE_BYTES + 1)
                if not raw:
                    break
                if len(raw) > MAX_LINE_BYTES:
                    while raw and raw[-1:] not in (b"\n", "\n"):
                        raw = source.readline(MAX_LINE_BYTES + 1)  # skip the rest of the line
                    raw = _TOO_LONG
                self.lines.put(raw)
        finally:
            self.lines.put(None)  # whatever happened, the engine stops waiting

    def write(self, text: str) -> None:
        out: Any = self.outfile
        if isinstance(out, io.TextIOBase):
            sink = getattr(out, "buffer", None)
            if sink is None:  # a text stream only (StringIO)
                out.write(text)
                out.flush()
                return
            out.flush()
            out = sink
        out.write(text.encode("utf-8", "backslashreplace"))
        out.flush()

    def respond(self, ok: bool, ident: str, body: str) -> None:
        if not ok and len(body) > MAX_ERROR_CHARS:  # an error never echoes a long input back
            body = body[: MAX_ERROR_CHARS - 3] + "..."
        # Multi-line answers that start with a newline (boards, SGF) begin on the next line.
        if body.startswith("\n"):
            body = "\n" + _one_line(body)
        elif body:
            body = " " + _one_line(body)
        self.write(f"{'=' if ok else '?'}{ident}{body}\n\n")

    def decode(self, raw: str | bytes) -> str | None:
        """The line as text, or None after answering ``?`` if it is not text."""
        if raw is _TOO_LONG:
            self.respond(False, "", f"the command is longer than {MAX_LINE_BYTES} bytes")
            return None
        if isinstance(raw, str):
            return raw
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            match = _LEADING_ID.match(raw)
            ident = match.group(1).decode("ascii") if match else ""
            self.respond(False, ident, f"the command is not UTF-8 text (byte {exc.start + 1} "
                                       f"is {raw[exc.start]:#04x})")
            return None

    def serve(self) -> int:
        threading.Thread(target=self._read, daemon=True).start()
        while True:
            raw = self.lines.get()
            if raw is None:
                return 0
            text = self.decode(raw)
            if text is None:
                continue
            line = clean_line(text)
            if not line:
                continue
            ident = ""
            match = _ID.match(line)
            if match:
                ident, line = match.group(1), match.group(2)
            words = line.split()
            if not words:
                self.respond(False, ident, "empty command")
                continue
            name, args = words[0], words[1:]
            command = self.engine.commands.get(name)
            if command is None:
                self.respond(False, ident, f"unknown command {_shown(name)}")
                continue
            try:
                result = command(args)
            except GTPError as exc:
                self.respond(False, ident, str(exc))
                continue
            except ValueError as exc:  # e.g. a budget the AI refuses: report, never crash
                self.respond(False, ident, str(exc))
                continue
            except Exception as exc:  # a bug must not take the engine down mid-game
                print(f"hexstones gtp: internal error in {name}: {exc!r}", file=sys.stderr)
                self.respond(False, ident, f"internal error in {name}: {exc}")
                continue
            if name == "kata-analyze":
                self.stream_analysis(ident, result)
                continue
            self.respond(True, ident, result)
            if name == "quit":
                return 0

    def stream_analysis(self, ident: str, settings: dict[str, Any]) -> None:
        self.write(f"={ident}\n")
        while self.lines.empty():
            try:
                line = self.engine.analysis_line(settings, settings["interval"])
            except Exception as exc:  # end the response cleanly; the engine carries on
                print(f"hexstones gtp: analysis stopped: {exc!r}", file=sys.stderr)
                break
            self.write(line + "\n")
        self.write("\n")


def serve(engine: Engine, infile: TextIO | BinaryIO = sys.stdin,
          outfile: TextIO | BinaryIO = sys.stdout) -> int:
    return Server(engine, infile, outfile).serve()
