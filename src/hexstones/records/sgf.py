"""SGF records of Keil, Dehil and Droched games (the conventions are in docs/sgf.md).

``write_sgf(game, **info)`` gives the text of a record; ``read_record(text)`` gives a
:class:`GameRecord` (the game with its moves replayed, plus the record's information,
comments and any properties we do not interpret); ``read_sgf(text)`` gives just the game.
Anything wrong in a record raises :class:`SGFError` (a ``ValueError``) saying where.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from hexstones.core.layout import MAX_CAPACITY
from hexstones.games import GAME_NAMES, Game, IllegalMove, Outcome, game_class, new_game
from hexstones.records import sgf_analysis
from hexstones.records.sgf_syntax import Node, SGFError, format_property, reader as sgf_reader

# SGF has no registered game numbers for these games: each game class names a private
# one outside the registered range, so that Go programs refuse the file rather than
# misread it.
GAME_NUMBERS = {name: game_class(name).sgf_number for name in GAME_NAMES}
GAME_OF_NUMBER = {str(v): k for k, v in GAME_NUMBERS.items()}
# The SGF property of each new_game option but the size (SZ); HA goes with AB.
PROPERTY_OF_OPTION = {"komi": "KM", "prison": "PR", "handicap": "AB"}
OPTION_WORDS = {"komi": "komi", "prison": "black stones in the prison", "handicap": "handicap stones"}
APPLICATION = "hexstones"

# Game-information keys (as write_sgf takes them) and their SGF properties, in the
# order they are written.
INFO_PROPERTIES = {
    "black": "PB", "white": "PW", "black_rank": "BR", "white_rank": "WR",
    "black_team": "BT", "white_team": "WT", "date": "DT", "event": "EV", "round": "RO",
    "place": "PC", "rules": "RU", "time": "TM", "overtime": "OT", "game_name": "GN",
    "game_comment": "GC", "opening": "ON", "annotator": "AN", "source": "SO",
    "user": "US", "copyright": "CP", "result": "RE",
}
PROPERTY_INFO = {v: k for k, v in INFO_PROPERTIES.items()}
# Properties this module writes itself or interprets; everything else is kept verbatim.
STRUCTURAL = {"FF", "CA", "AP", "GM", "HG", "SZ", "KM", "PR", "HA", "AB", "PL", "C", "B", "W",
              sgf_analysis.PROPERTY}

_RESULT = re.compile(r"^([BW])\+(R|Resign|T|Time|F|Forfeit|([0-9]+(?:\.[0-9]+)?))?$", re.IGNORECASE)
# An SGF Real (ASCII digits: float() takes other scripts' digits too).
_REAL = re.compile(r"^[+-]?[0-9]{1,30}(?:\.[0-9]{1,30})?$")
# ASCII digits only (int() takes other scripts' digits too); the game API checks the range.
_INTEGER = re.compile(r"^[+-]?[0-9]{1,30}$")
COLOR_OF_PROPERTY = {"B": "black", "W": "white"}
PROPERTY_OF_COLOR = {"black": "B", "white": "W"}


@dataclass
class GameRecord:
    """A game with what its record says about it.

    ``info`` maps keys of :data:`INFO_PROPERTIES` to text (``result`` is the SGF RE value,
    e.g. ``"B+R"`` for a resignation). ``comments`` maps a move number to the comment on
    that move (0: the comment before the first move). ``extra`` maps a move number (0: the
    root) to properties this module does not interpret, written back unchanged.
    ``analysis`` maps a move number (0: the start) to the AI's analysis of the position
    after that move (private property ``XA``, :mod:`hexstones.records.sgf_analysis`).
    """

    game: Game
    info: dict[str, str] = field(default_factory=dict)
    comments: dict[int, str] = field(default_factory=dict)
    extra: dict[int, dict[str, list[str]]] = field(default_factory=dict)
    analysis: dict[int, dict[str, Any]] = field(default_factory=dict)

    @property
    def winner(self) -> str | None:
        """The winner by the rules if the game is over, else by the recorded result."""
        outcome = self.game.outcome()
        if outcome is not None:
            return outcome.winner
        match = _RESULT.match(self.info.get("result", ""))
        return COLOR_OF_PROPERTY[match.group(1).upper()] if match else None

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended: by the rules, or by a recorded resignation or loss on time
        (None for an unfinished game, a forfeit or a result without a reason)."""
        outcome = self.game.outcome()
        if outcome is not None:
            return outcome
        match = _RESULT.match(self.info.get("result", "").strip())
        if not match or not match.group(2) or match.group(3) is not None:
            return None
        loser = "white" if match.group(1).upper() == "B" else "black"
        reason = match.group(2)[0].upper()
        if reason == "R":
            return Outcome.resignation(loser)
        return Outcome.on_time(loser) if reason == "T" else None

    def to_sgf(self) -> str:
        return _write(self)


def result_text(game: Game) -> str | None:
    """The SGF RE value the rules give (``B+2.5``; ``W+`` in a game without a score), or
    None if not over."""
    outcome = game.outcome()
    if outcome is None:
        return None
    margin = outcome.margin
    return PROPERTY_OF_COLOR[outcome.winner] + "+" + ("" if margin is None else f"{margin:g}")


def _check_result(game: Game, text: str) -> str | None:
    """Why ``text`` (an RE value) contradicts ``game``, or None if it fits."""
    match = _RESULT.match(text.strip())
    outcome = game.outcome()
    if outcome is None:
        return None  # an unfinished game may end by resignation, time, forfeit, ...
    expected = result_text(game)
    if not match:
        return f"the moves end the game ({expected}), but the result says {text!r}"
    if COLOR_OF_PROPERTY[match.group(1).upper()] != outcome.winner:
        return f"the result says {text!r} but the moves give {expected}"
    if match.group(2) and match.group(3) is None:
        return f"the result says {text!r} but the game ended by the rules: {expected}"
    if match.group(3) is not None:
        if outcome.margin is None:
            return f"the result says {text!r} but {game.title} has no score"
        if float(match.group(3)) != outcome.margin:
            return f"the result says {text!r} but the moves give {expected}"
    return None


def write_sgf(game: Game, *, comments: dict[int, str] | None = None, players=None,
              resigned: str | None = None, analysis: dict[int, dict[str, Any]] | None = None,
              **info: str | None) -> str:
    """The SGF text of ``game``.

    ``info``: any key of :data:`INFO_PROPERTIES` (``black``, ``white``, ``date``,
    ``event``, ``result``, ...). ``players``: ``(black, white)`` names. ``resigned``:
    the colour that resigned (result ``B+R``/``W+R``). ``comments``: move number -> text
    (0: before the first move). ``analysis``: move number -> the AI's analysis of the
    position after it (:func:`hexstones.records.sgf_analysis.compact` form). The result of
    a finished game comes from the rules. Information given as None is left out.
    """
    known = {k: v for k, v in info.items() if v is not None}  # None: not known, not written
    if players is not None:
        if isinstance(players, dict):
            players = (players.get("black"), players.get("white"))
        if isinstance(players, str) or len(players) != 2:
            raise ValueError(f"players must be (black, white) names, not {players!r}")
        for key, name in zip(("black", "white"), players):
            if name is not None:
                known.setdefault(key, name)
    if resigned is not None:
        if resigned not in PROPERTY_OF_COLOR:
            raise ValueError(f"resigned must be 'black' or 'white', not {resigned!r}")
        if game.is_over:
            raise ValueError("a finished game cannot end by resignation")
        winner = "white" if resigned == "black" else "black"
        known["result"] = PROPERTY_OF_COLOR[winner] + "+R"
    return _write(GameRecord(game, dict(known), dict(comments or {}), analysis=dict(analysis or {})))


def _write(record: GameRecord) -> str:
    game, info = record.game, dict(record.info)
    unknown = sorted(set(info) - set(INFO_PROPERTIES))
    if unknown:
        raise ValueError(f"unknown game information {', '.join(map(repr, unknown))}: "
                         f"use {', '.join(INFO_PROPERTIES)}")
    for key, value in info.items():
        if not isinstance(value, str):
            raise ValueError(f"game information {key!r} must be text, not {value!r}")
    for number, text in record.comments.items():
        if not isinstance(number, int) or not 0 <= number <= len(game.moves):
            raise ValueError(f"comment on move {number!r}: the game has moves 1 to {len(game.moves)}")
        if not isinstance(text, str):
            raise ValueError(f"the comment on move {number} must be text, not {text!r}")
    for number in record.analysis:
        if not isinstance(number, int) or not 0 <= number <= len(game.moves):
            raise ValueError(f"analysis of move {number!r}: the game has moves 0 to {len(game.moves)}")
    analysis_text = _analysis_texts(record)
    computed = result_text(game)
    if "result" in info:
        problem = _check_result(game, info["result"])
        if problem:
            raise ValueError(problem)
    elif computed is not None:
        info["result"] = computed

    root: list[tuple[str, list[str]]] = [
        ("FF", ["4"]), ("CA", ["UTF-8"]), ("AP", [f"{APPLICATION}:{_version()}"]),
        ("GM", [str(game.sgf_number)]), ("HG", [game.name]), ("SZ", [str(game.size)]),
    ]
    options = dict(game.options)
    options.pop("size", None)
    for option in ("komi", "prison"):
        if option in options:
            root.append((PROPERTY_OF_OPTION[option], [str(options.pop(option))]))
    if "handicap" in options:
        handicap = options.pop("handicap")
        points = list(handicap or ())
        if points:
            root += [("HA", [str(len(points))]), ("AB", [str(p) for p in points]), ("PL", ["W"])]
    if options:
        raise ValueError(f"cannot record option(s) {', '.join(sorted(options))} of {game.name}")
    root += [(prop, [info[key]]) for key, prop in INFO_PROPERTIES.items() if key in info]
    if 0 in record.comments:
        root.append(("C", [record.comments[0]]))
    if 0 in analysis_text:
        root.append((sgf_analysis.PROPERTY, [analysis_text[0]]))
    root += list(record.extra.get(0, {}).items())

    lines = ["(;" + "".join(format_property(k, v) for k, v in root)]
    nodes = []
    # Every move of all three games is one turn, so colours alternate from the first player.
    color = new_game(game.name, **game.options).to_move
    for number, move in enumerate(game.moves, start=1):
        props = [(PROPERTY_OF_COLOR[color], [move])]
        color = "white" if color == "black" else "black"
        if number in record.comments:
            props.append(("C", [record.comments[number]]))
        if number in analysis_text:
            props.append((sgf_analysis.PROPERTY, [analysis_text[number]]))
        props += list(record.extra.get(number, {}).items())
        nodes.append(";" + "".join(format_property(k, v) for k, v in props))
    # Ten moves a line keeps records readable and diffs small.
    for start in range(0, len(nodes), 10):
        lines.append("".join(nodes[start:start + 10]))
    return "\n".join(lines) + ")\n"


def _analysis_texts(record: GameRecord) -> dict[int, str]:
    """The XA value of each analysed position (positions rebuilt by undoing from the end)."""
    if not record.analysis:
        return {}
    texts = {}
    position = record.game.copy()
    for number in range(len(position.moves), -1, -1):
        if number in record.analysis:
            texts[number] = sgf_analysis.format_analysis(position, record.analysis[number])
        if number:
            position.undo()
    return texts


def _version() -> str:
    import hexstones

    return hexstones.__version__


def _single(node: Node, ident: str, move: int | None = None) -> str:
    values = node.properties[ident]
    if len(values) != 1:
        raise SGFError(f"property {ident} takes one value, not {len(values)}",
                       line=node.line, column=node.column, move=move)
    return values[0]


def _integer(node: Node, ident: str, what: str) -> int:
    text = _single(node, ident).strip()
    if not _INTEGER.match(text):
        raise SGFError(f"{ident}[{text}]: {what} must be a whole number",
                       line=node.line, column=node.column)
    return int(text)


# How much a record may hold, decided by the game it sets up, so that a read refuses a
# flood of nodes or characters in time proportional to these bounds (the reader stops at
# them; it never builds what lies beyond).
#
# Moves: random Droched games are the longest of the three games (releases and the
# no-repetition rule keep a nearly full board going): the longest of 200 random games
# reached 5.2 P**2 moves at side 3 and 3.0 at side 5, of 60 at side 7 2.7, of 20 at
# side 9 1.6 (P points). MOVES_PER_SQUARED_POINT P**2 leaves ten times that room at
# least; each black stone in the prison at the start may add a release and a reply.
# No history holds more than MAX_CAPACITY moves.
MOVES_PER_SQUARED_POINT = 60
# Characters: the root node and the comments of the whole record get INFORMATION_CHARACTERS;
# each move node gets CHARACTERS_PER_MOVE (``;B[release]`` with spacing is under 16).
INFORMATION_CHARACTERS = 1 << 20
CHARACTERS_PER_MOVE = 16
# Variations and further game trees: checked, never kept or played (hexstones writes
# none); this many nodes at most.
SIDE_NODES = 1 << 16


def longest_game(game: Game) -> int:
    """The most moves a record of ``game``'s setup may hold (see MOVES_PER_SQUARED_POINT)."""
    points = game.board.num_points
    prison = game.options.get("prison", 0)
    return min(MAX_CAPACITY, MOVES_PER_SQUARED_POINT * points * points + 2 * prison)


def longest_record(game: Game) -> int:
    """The most characters a record of ``game``'s setup may hold."""
    return INFORMATION_CHARACTERS + CHARACTERS_PER_MOVE * longest_game(game)


def read_record(text: str) -> GameRecord:
    """The one game in SGF ``text``, with its information and comments.

    Raises :class:`SGFError` naming the line and column (syntax, properties) or the move
    number (a move the rules forbid). A record longer than any game of its setup may be
    (:func:`longest_game`, :func:`longest_record`) is refused before it is read through.
    """
    reader = sgf_reader(text)
    reader.limit = INFORMATION_CHARACTERS
    reader.why = "the root node of a record must end within them"
    nodes = reader.collection(keep=False)
    root = next(nodes)
    game = _set_up(root)
    longest = longest_game(game)
    side = f"a {game.title} game of side {game.size}"
    reader.why = f"{side} holds at most {longest} moves"
    reader.max_nodes = longest + 1  # and the root
    reader.max_side_nodes = SIDE_NODES
    reader.limit = longest_record(game)
    if len(text) > reader.limit:
        raise SGFError(f"the record has {len(text)} characters; {side} needs at most "
                       f"{reader.limit} (at most {longest} moves)")
    record = _root_record(game, root)
    for number, node in enumerate(nodes, start=1):
        _replay(record, number, node)
    if len(reader.tree_heads) != 1:
        line, column = reader.tree_heads[1]
        raise SGFError(f"the text holds {len(reader.tree_heads)} game trees; read them one at a time",
                       line=line, column=column)
    if "result" in record.info:
        problem = _check_result(game, record.info["result"])
        if problem:
            raise SGFError(problem, line=root.line, column=root.column)
    return record


def _set_up(root: Node) -> Game:
    """The game the root node sets up."""
    where = {"line": root.line, "column": root.column}
    props = root.properties

    for ident in ("B", "W"):
        if ident in props:
            raise SGFError(f"the root node holds the game's setup, not a move ({ident})", **where)
    if "FF" in props and _single(root, "FF").strip() not in ("1", "2", "3", "4"):
        raise SGFError(f"FF[{_single(root, 'FF')}] is not an SGF file format (1-4)", **where)
    name = _game_name(root)
    cls = game_class(name)
    for option, ident in PROPERTY_OF_OPTION.items():
        if (ident in props or option == "handicap" and "HA" in props) and option not in cls.option_names:
            owners = " and ".join(game_class(n).title for n in GAME_NAMES
                                  if option in game_class(n).option_names)
            balance = cls.balance
            raise SGFError(f"{ident} ({OPTION_WORDS[option]}) belongs to {owners}, not {cls.title}, "
                           f"whose balance is {PROPERTY_OF_OPTION[balance.option]} ({balance.label})",
                           **where)
    options: dict[str, Any] = {}
    if "SZ" in props:
        options["size"] = _integer(root, "SZ", "the board side SZ")
    if "KM" in props:
        komi_text = _single(root, "KM").strip()
        komi = float(komi_text) if _REAL.match(komi_text) else None
        if komi is None or not komi.is_integer():
            raise SGFError(f"KM[{komi_text[:40]}]: {cls.title}'s komi must be a whole number", **where)
        options["komi"] = int(komi_text.split(".")[0])  # exact: the game API checks the bounds
    if "PR" in props:
        options["prison"] = _integer(root, "PR", "the number of black stones in the prison PR")
    if "AB" in props or "HA" in props:
        points = [p.strip().lower() for p in props.get("AB", [])]
        if "HA" in props and _integer(root, "HA", "the handicap HA") != len(points):
            raise SGFError(f"HA[{_single(root, 'HA')[:40]}] but AB lists {len(points)} stones", **where)
        if points:
            options["handicap"] = points
    for ident in ("AW", "AE"):
        if ident in props:
            raise SGFError(f"setup property {ident} is not part of these games (only AB handicap stones)",
                           **where)
    try:
        game = new_game(name, **options)
    except (ValueError, TypeError) as exc:
        raise SGFError(f"cannot set up {name}: {exc}", **where) from None
    if "PL" in props:
        player = _single(root, "PL").strip().upper()
        if COLOR_OF_PROPERTY.get(player) != game.to_move:
            raise SGFError(f"PL[{player[:40]}]: in this game {game.to_move} plays first", **where)
    return game


def _root_record(game: Game, root: Node) -> GameRecord:
    """A record of ``game`` (no move yet) with the root node's information."""
    record = GameRecord(game)
    for ident, values in root.properties.items():
        if ident in PROPERTY_INFO:
            record.info[PROPERTY_INFO[ident]] = _single(root, ident)
        elif ident == "C":
            record.comments[0] = _single(root, "C")
        elif ident == sgf_analysis.PROPERTY:
            _read_analysis(record, 0, root)
        elif ident not in STRUCTURAL:
            record.extra.setdefault(0, {})[ident] = list(values)
    return record


def _game_name(root: Node) -> str:
    where = {"line": root.line, "column": root.column}
    props = root.properties
    named = None
    if "HG" in props:
        named = _single(root, "HG").strip().lower()
        if named not in GAME_NAMES:
            raise SGFError(f"HG[{named[:40]}] is not a hexstones game: {', '.join(GAME_NAMES)}", **where)
    if "GM" in props:
        number = _single(root, "GM").strip()
        by_number = GAME_OF_NUMBER.get(number)
        if by_number is None:
            numbers = ", ".join(f"{game_class(n).title} {k}" for n, k in GAME_NUMBERS.items())
            raise SGFError(f"GM[{number[:40]}] is not a hexstones game ({numbers})", **where)
        if named is not None and named != by_number:
            raise SGFError(f"GM[{number}] is {by_number} but HG says {named}", **where)
        named = by_number
    if named is None:
        raise SGFError(f"the root node does not say which game: HG[{'|'.join(GAME_NAMES)}] or "
                       f"GM[{'|'.join(map(str, GAME_NUMBERS.values()))}]", **where)
    return named


def _replay(record: GameRecord, number: int, node: Node) -> None:
    game = record.game
    props = node.properties
    moves = [ident for ident in ("B", "W") if ident in props]
    if len(moves) != 1:
        raise SGFError("each node after the root holds exactly one move, B[...] or W[...]",
                       line=node.line, column=node.column, move=number)
    ident = moves[0]
    move = _single(node, ident, number).strip().lower()
    if move == "" and "pass" in game.special_moves:
        move = "pass"  # the usual SGF pass, B[] / W[]
    color = COLOR_OF_PROPERTY[ident]
    if game.is_over:
        raise SGFError(f"{ident}[{move}] after the end of the game", line=node.line,
                       column=node.column, move=number)
    if color != game.to_move:
        raise SGFError(f"{ident}[{move}]: it is {game.to_move}'s turn", line=node.line,
                       column=node.column, move=number)
    try:
        game.play(move)
    except IllegalMove as exc:
        raise SGFError(f"{ident}[{move}] is illegal: {exc}", line=node.line, column=node.column,
                       move=number) from None
    for key, values in props.items():
        if key == "C":
            record.comments[number] = _single(node, "C", number)
        elif key == sgf_analysis.PROPERTY:
            _read_analysis(record, number, node)
        elif key in PROPERTY_INFO or key in STRUCTURAL - {"B", "W"}:
            raise SGFError(f"property {key} belongs in the root node", line=node.line,
                           column=node.column, move=number)
        elif key not in ("B", "W"):
            record.extra.setdefault(number, {})[key] = list(values)


def _read_analysis(record: GameRecord, number: int, node: Node) -> None:
    text = _single(node, sgf_analysis.PROPERTY, number or None)
    try:
        record.analysis[number] = sgf_analysis.parse_analysis(record.game, text)
    except ValueError as exc:
        raise SGFError(f"{sgf_analysis.PROPERTY}: {exc}", line=node.line, column=node.column,
                       move=number or None) from None


def read_sgf(text: str) -> Game:
    """The game recorded in SGF ``text``, moves replayed (see :func:`read_record`)."""
    return read_record(text).game


def read_collection(text: str) -> list[GameRecord]:
    """Every game of an SGF collection (several game trees in one file, as the app's
    download of a player's games), in order, each tree read as :func:`read_record` reads
    one record; an error says which tree (its line and column are within that tree)."""
    reader = sgf_reader(text)
    if text.startswith("\ufeff"):  # a byte-order mark is not content
        reader.move_to(1)
    reader.skip_space()
    spans = []
    while reader.peek() == "(":
        start = reader.pos
        for _ in reader.game_tree(keep=False, main=True):
            pass
        spans.append((start, reader.pos))
        reader.skip_space()
    if not spans:
        raise reader.error(f"expected '(' to start a game tree, found {reader.describe()}")
    if reader.peek() != "":
        raise reader.error(f"unexpected {reader.describe()} after the last game tree")
    records = []
    for number, (start, end) in enumerate(spans, start=1):
        try:
            records.append(read_record(text[start:end]))
        except SGFError as exc:
            raise SGFError(f"game tree {number}: {exc.reason}", line=exc.line, column=exc.column,
                           move=exc.move) from None
    return records
