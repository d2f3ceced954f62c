"""SGF syntax (FF[4]): text <-> a tree of nodes, with line and column for every error.

This layer knows nothing about the games; :mod:`hexstones.records.sgf` gives the
properties their meaning.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field


class SGFError(ValueError):
    """A malformed or illegal SGF record. Says where: line and column, or move number."""

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None,
                 move: int | None = None):
        self.reason = message
        self.line, self.column, self.move = line, column, move
        where = []
        if line is not None:
            where.append(f"line {line}, column {column}")
        if move is not None:
            where.append(f"move {move}")
        super().__init__(f"SGF {', '.join(where)}: {message}" if where else f"SGF: {message}")


@dataclass
class Node:
    """One SGF node: property identifier -> list of (unescaped) values, in file order."""

    properties: dict[str, list[str]] = field(default_factory=dict)
    line: int = 1
    column: int = 1


@dataclass
class GameTree:
    nodes: list[Node] = field(default_factory=list)
    variations: list[GameTree] = field(default_factory=list)

    def main_line(self) -> list[Node]:
        """The nodes of the first variation at every branch."""
        nodes, tree = list(self.nodes), self
        while tree.variations:
            tree = tree.variations[0]
            nodes.extend(tree.nodes)
        return nodes


# Whitespace (as str.isspace), a property identifier (letters, checked for A-Z after),
# and what ends a stretch of a property value.
_SPACE = re.compile(r"\s*")
_IDENT = re.compile(r"[^\W\d_]+")
_VALUE_STOP = re.compile(r"[\]\\]")


class _Reader:
    """A scanner over ``text`` that keeps the line and column of its position.

    It searches the text with compiled patterns and ``str`` methods, never a Python loop
    over characters. ``limit`` (a position) and ``max_nodes`` bound what a read may take:
    passing either raises :class:`SGFError` ending with ``why`` (set by the caller, who
    knows what a record may hold), so a read costs at most time proportional to them.
    """

    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.line = 1
        self.line_start = 0  # where the current line starts
        self.nodes = 0
        self.side_nodes = 0  # nodes off the first tree's main line
        self.limit: int | None = None
        self.max_nodes: int | None = None
        self.max_side_nodes: int | None = None
        self.why = ""
        self.trees: list[GameTree] = []  # the game trees read (kept only when asked)
        self.tree_heads: list[tuple[int, int]] = []  # line, column of each tree's first node

    @property
    def column(self) -> int:
        return self.pos - self.line_start + 1

    def error(self, message: str) -> SGFError:
        return SGFError(message, line=self.line, column=self.column)

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def move_to(self, pos: int) -> None:
        if self.limit is not None and pos > self.limit:
            pos = self.limit
            self._count_lines(pos)
            raise self.error(f"the record goes on past {self.limit} characters; {self.why}")
        self._count_lines(pos)

    def _count_lines(self, pos: int) -> None:
        newlines = self.text.count("\n", self.pos, pos)
        if newlines:
            self.line += newlines
            self.line_start = self.text.rfind("\n", self.pos, pos) + 1
        self.pos = pos

    def skip_space(self) -> None:
        match = _SPACE.match(self.text, self.pos)
        assert match is not None  # \s* matches the empty string at any position
        self.move_to(match.end())

    def describe(self) -> str:
        ch = self.peek()
        return "the end of the text" if ch == "" else repr(ch)

    # Collection = GameTree { GameTree }
    def collection(self, keep: bool) -> Iterator[Node]:
        """Read the whole collection, yielding the nodes of the first tree's main line (the
        first variation at every branch) as they are read. ``keep``: also keep every tree
        in ``self.trees``; without it, nodes off the main line are checked, never kept."""
        if self.text.startswith("\ufeff"):  # a byte-order mark is not content
            self.move_to(1)
        self.skip_space()
        while self.peek() == "(":
            yield from self.game_tree(keep, main=not self.tree_heads)
            self.skip_space()
        if not self.tree_heads:
            raise self.error(f"expected '(' to start a game tree, found {self.describe()}")
        if self.peek() != "":
            raise self.error(f"unexpected {self.describe()} after the last game tree")

    # GameTree = "(" Sequence { GameTree } ")"
    def game_tree(self, keep: bool, main: bool) -> Iterator[Node]:
        # Iterative, with an explicit stack: deeply nested variations must not exhaust
        # Python's recursion limit.
        on_main_line = main

        def open_tree() -> tuple[GameTree, int, int]:
            line, column = self.line, self.column
            self.move_to(self.pos + 1)  # "("
            self.skip_space()
            if self.peek() != ";":
                raise self.error(f"a game tree starts with a node ';', found {self.describe()}")
            return GameTree(), line, column

        def sequence(tree: GameTree) -> Iterator[Node]:
            while self.peek() == ";":
                node = self.node(on_main_line)
                if keep:
                    tree.nodes.append(node)
                if on_main_line:
                    yield node
                self.skip_space()

        top = open_tree()
        self.tree_heads.append((self.line, self.column))
        if keep:
            self.trees.append(top[0])
        yield from sequence(top[0])
        stack = [top]
        while True:
            tree, line, column = stack[-1]
            if self.peek() == "(":
                child = open_tree()
                if keep:
                    tree.variations.append(child[0])
                stack.append(child)
                yield from sequence(child[0])
                continue
            if self.peek() == "":
                raise SGFError("the game tree opened here is never closed with ')'", line=line, column=column)
            if self.peek() != ")":
                raise self.error(f"expected '(' or ')' after the nodes of a game tree, found {self.describe()}")
            self.move_to(self.pos + 1)
            on_main_line = False  # the main line ends where its innermost tree closes
            stack.pop()
            if not stack:
                return
            self.skip_space()

    # Node = ";" { Property }; Property = PropIdent PropValue { PropValue }
    def node(self, main: bool = True) -> Node:
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise self.error(f"the record holds more than {self.max_nodes} nodes; {self.why}")
        if not main:
            self.side_nodes += 1
            if self.max_side_nodes is not None and self.side_nodes > self.max_side_nodes:
                raise self.error(f"the record holds more than {self.max_side_nodes} nodes off its "
                                 f"main line; only the main line is read")
        node = Node(line=self.line, column=self.column)
        self.move_to(self.pos + 1)  # ";"
        self.skip_space()
        while True:
            match = _IDENT.match(self.text, self.pos)
            if not match:
                return node
            line, column = self.line, self.column
            ident = match.group()
            self.move_to(match.end())
            if not (ident.isascii() and ident.isupper()):
                raise SGFError(f"property identifier {ident[:20]!r} must be upper-case letters A-Z",
                               line=line, column=column)
            if ident in node.properties:
                raise SGFError(f"property {ident[:20]} appears twice in one node", line=line, column=column)
            self.skip_space()
            if self.peek() != "[":
                raise self.error(f"property {ident[:20]} needs a value in [brackets], found {self.describe()}")
            values = []
            while self.peek() == "[":
                values.append(self.value())
                self.skip_space()
            node.properties[ident] = values

    def value(self) -> str:
        line, column = self.line, self.column
        text, start = self.text, self.pos + 1  # after "["
        out: list[str] = []
        while True:
            stop = _VALUE_STOP.search(text, start)
            if stop is None or stop.end() == len(text) and stop.group() == "\\":
                raise SGFError("a property value opened here is never closed with ']'",
                               line=line, column=column)
            if self.limit is not None and stop.start() > self.limit:
                self.move_to(stop.start())  # raises, before the long value is copied
            out.append(text[start:stop.start()])
            if stop.group() == "]":
                self.move_to(stop.end())
                return "".join(out)
            escaped = text[stop.end()]
            start = stop.end() + 1
            if escaped in "\r\n":
                # A soft line break: backslash-newline is removed (with \r\n or \n\r).
                if start < len(text) and text[start] in "\r\n" and text[start] != escaped:
                    start += 1
            else:
                out.append(escaped)


def parse(text: str) -> list[GameTree]:
    """Every game tree of an SGF collection; :class:`SGFError` with line and column."""
    if not isinstance(text, str):
        raise SGFError(f"an SGF record is text, not {type(text).__name__}")
    reader = _Reader(text)
    for _ in reader.collection(keep=True):
        pass
    return reader.trees


def reader(text: str) -> _Reader:
    """A reader of ``text`` for :meth:`_Reader.collection` (``SGFError`` if not text)."""
    if not isinstance(text, str):
        raise SGFError(f"an SGF record is text, not {type(text).__name__}")
    return _Reader(text)


def escape(value: str) -> str:
    """``value`` as the inside of an SGF property value."""
    return value.replace("\\", "\\\\").replace("]", "\\]")


def format_property(ident: str, values: list[str]) -> str:
    return ident + "".join(f"[{escape(v)}]" for v in values)
