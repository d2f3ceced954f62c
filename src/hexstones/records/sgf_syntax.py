"""SGF syntax (FF[4]): text <-> a tree of nodes, with line and column for every error.

This layer knows nothing about the games; :mod:`hexstones.records.sgf` gives the
properties their meaning.
"""

from __future__ import annotations

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


class _Reader:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.line = 1
        self.column = 1

    def error(self, message: str) -> SGFError:
        return SGFError(message, line=self.line, column=self.column)

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def advance(self) -> str:
        ch = self.text[self.pos]
        self.pos += 1
        if ch == "\n":
            self.line += 1
            self.column = 1
        else:
            self.column += 1
        return ch

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.advance()

    def describe(self) -> str:
        ch = self.peek()
        return "the end of the text" if ch == "" else repr(ch)

    # Collection = GameTree { GameTree }
    def collection(self) -> list[GameTree]:
        if self.text.startswith("\ufeff"):  # a byte-order mark is not content
            self.advance()
        trees = []
        self.skip_space()
        while self.peek() == "(":
            trees.append(self.game_tree())
            self.skip_space()
        if not trees:
            raise self.error(f"expected '(' to start a game tree, found {self.describe()}")
        if self.peek() != "":
            raise self.error(f"unexpected {self.describe()} after the last game tree")
        return trees

    # GameTree = "(" Sequence { GameTree } ")"
    def game_tree(self) -> GameTree:
        # Iterative, with an explicit stack: deeply nested variations must not exhaust
        # Python's recursion limit.
        def open_tree() -> tuple[GameTree, int, int]:
            line, column = self.line, self.column
            self.advance()  # "("
            tree = GameTree()
            self.skip_space()
            if self.peek() != ";":
                raise self.error(f"a game tree starts with a node ';', found {self.describe()}")
            while self.peek() == ";":
                tree.nodes.append(self.node())
                self.skip_space()
            return tree, line, column

        top = open_tree()
        stack = [top]
        while True:
            tree, line, column = stack[-1]
            if self.peek() == "(":
                child = open_tree()
                tree.variations.append(child[0])
                stack.append(child)
                continue
            if self.peek() == "":
                raise SGFError("the game tree opened here is never closed with ')'", line=line, column=column)
            if self.peek() != ")":
                raise self.error(f"expected '(' or ')' after the nodes of a game tree, found {self.describe()}")
            self.advance()
            stack.pop()
            if not stack:
                return top[0]
            self.skip_space()

    # Node = ";" { Property }; Property = PropIdent PropValue { PropValue }
    def node(self) -> Node:
        node = Node(line=self.line, column=self.column)
        self.advance()  # ";"
        self.skip_space()
        while self.peek().isalpha():
            line, column = self.line, self.column
            start = self.pos
            while self.peek().isalpha():
                self.advance()
            ident = self.text[start:self.pos]
            if not (ident.isascii() and ident.isupper()):
                raise SGFError(f"property identifier {ident!r} must be upper-case letters A-Z",
                               line=line, column=column)
            if ident in node.properties:
                raise SGFError(f"property {ident} appears twice in one node", line=line, column=column)
            self.skip_space()
            if self.peek() != "[":
                raise self.error(f"property {ident} needs a value in [brackets], found {self.describe()}")
            values = []
            while self.peek() == "[":
                values.append(self.value())
                self.skip_space()
            node.properties[ident] = values
        return node

    def value(self) -> str:
        line, column = self.line, self.column
        self.advance()  # "["
        out: list[str] = []
        while True:
            if self.pos >= len(self.text):
                raise SGFError("a property value opened here is never closed with ']'",
                               line=line, column=column)
            ch = self.advance()
            if ch == "]":
                return "".join(out)
            if ch == "\\":
                if self.pos >= len(self.text):
                    continue  # the error above reports the unclosed value
                escaped = self.advance()
                if escaped in "\r\n":
                    # A soft line break: backslash-newline is removed (with \r\n or \n\r).
                    nxt = self.peek()
                    if nxt in "\r\n" and nxt != "" and nxt != escaped:
                        self.advance()
                    continue
                out.append(escaped)
            else:
                out.append(ch)


def parse(text: str) -> list[GameTree]:
    """Every game tree of an SGF collection; :class:`SGFError` with line and column."""
    if not isinstance(text, str):
        raise SGFError(f"an SGF record is text, not {type(text).__name__}")
    return _Reader(text).collection()


def escape(value: str) -> str:
    """``value`` as the inside of an SGF property value."""
    return value.replace("\\", "\\\\").replace("]", "\\]")


def format_property(ident: str, values: list[str]) -> str:
    return ident + "".join(f"[{escape(v)}]" for v in values)
