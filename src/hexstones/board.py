"""Hexhex board geometry shared by all three games.

A board of side ``n`` holds the points ``(c, r)`` with ``0 <= c, r <= 2n-2`` and
``|c - r| <= n-1`` (docs/rules.md section 1). Points are numbered in column-major order
(``a1, a2, ..., b1, ...``); every table here is indexed by that number, so the compiled
core can use the same tables as numpy arrays.
"""

from __future__ import annotations

from functools import cache

MIN_SIZE = 3
MAX_SIZE = 13

# The six neighbour directions in cyclic order: each is adjacent to the next.
DIRECTIONS = ((1, 0), (1, 1), (0, 1), (-1, 0), (-1, -1), (0, -1))


class Board:
    """The geometry of a hexhex board of side ``size`` (no stones: see the games)."""

    def __init__(self, size: int):
        if not isinstance(size, int) or isinstance(size, bool):
            raise ValueError(f"board size must be a whole number, not {size!r}")
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise ValueError(f"board size must be from {MIN_SIZE} to {MAX_SIZE}, not {size}")
        n = self.size = size
        self.span = 2 * n - 1
        self.coords: tuple[tuple[int, int], ...] = tuple(
            (c, r) for c in range(self.span) for r in range(self.span) if abs(c - r) <= n - 1
        )
        self.index_of_coord = {cr: i for i, cr in enumerate(self.coords)}
        self.names: tuple[str, ...] = tuple(f"{chr(97 + c)}{r + 1}" for c, r in self.coords)
        self.index: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        self.num_points = len(self.coords)

        # neighbour_slots[i][d] is the neighbour in direction d, or -1 off the board.
        self.neighbour_slots: tuple[tuple[int, ...], ...] = tuple(
            tuple(self.index_of_coord.get((c + dc, r + dr), -1) for dc, dr in DIRECTIONS)
            for c, r in self.coords
        )
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(
            tuple(j for j in slots if j >= 0) for slots in self.neighbour_slots
        )

        last = self.span - 1
        side_tests = (
            lambda c, r: c == 0,
            lambda c, r: r == 0,
            lambda c, r: c - r == n - 1,
            lambda c, r: c == last,
            lambda c, r: r == last,
            lambda c, r: r - c == n - 1,
        )
        # Sides in cyclic order around the board; side k and side k+1 meet at a corner.
        self.sides: tuple[frozenset[int], ...] = tuple(
            frozenset(i for i, (c, r) in enumerate(self.coords) if test(c, r)) for test in side_tests
        )
        corners = []
        for k in range(6):
            (corner,) = self.sides[k] & self.sides[(k + 1) % 6]
            corners.append(corner)
        self.corners: tuple[int, ...] = tuple(corners)
        self.on_edge: tuple[bool, ...] = tuple(
            any(i in side for side in self.sides) for i in range(self.num_points)
        )
        # Droched's 12 border features: features 0-5 are the corners, 6-11 the edges
        # (side k minus its two corners); feature_of[i] is -1 for an inner point.
        feature_of = [-1] * self.num_points
        for k, corner in enumerate(self.corners):
            feature_of[corner] = k
        for k, side in enumerate(self.sides):
            for i in side:
                if feature_of[i] == -1:
                    feature_of[i] = 6 + k
        self.feature_of: tuple[int, ...] = tuple(feature_of)
        self.feature_names: tuple[str, ...] = tuple(
            f"corner {self.names[c]}" for c in self.corners
        ) + tuple(
            "edge " + self._edge_label(k) for k in range(6)
        )
        self.symmetries: tuple[tuple[int, ...], ...] = self._symmetries()

    def _edge_label(self, k: int) -> str:
        inner = sorted(self.sides[k] - set(self.corners), key=lambda i: self.coords[i])
        first, last = self.names[inner[0]], self.names[inner[-1]]
        return first if first == last else f"{first}-{last}"

    # -- points ---------------------------------------------------------------------

    def point(self, name: str) -> int:
        """The index of the point called ``name``; ValueError naming the problem if none."""
        if not isinstance(name, str):
            raise ValueError(f"a point is written like 'e5', not {name!r}")
        try:
            return self.index[name.strip().lower()]
        except KeyError:
            raise ValueError(
                f"unknown point {name!r}: side {self.size} has points a1 to "
                f"{self.names[-1]} (column a-{chr(96 + self.span)}, row 1-{self.span})"
            ) from None

    def name(self, index: int) -> str:
        return self.names[index]

    def is_point(self, name: str) -> bool:
        return isinstance(name, str) and name.strip().lower() in self.index

    def are_adjacent(self, i: int, j: int) -> bool:
        return j in self.neighbours[i]

    def common_neighbours(self, i: int, j: int) -> tuple[int, ...]:
        """Points adjacent to both ``i`` and ``j`` (two inside, one along the edge)."""
        return _common_neighbours(self.size)[i].get(j, ())

    # -- symmetries -----------------------------------------------------------------

    def _symmetries(self) -> tuple[tuple[int, ...], ...]:
        # Centred axial coordinates: 60-degree rotation is (x, y) -> (x - y, x), and
        # swapping x and y is a reflection; together they give the 12 symmetries.
        n1 = self.size - 1
        maps = []
        for reflect in (False, True):
            for turns in range(6):
                perm = []
                for c, r in self.coords:
                    x, y = c - n1, r - n1
                    if reflect:
                        x, y = y, x
                    for _ in range(turns):
                        x, y = x - y, x
                    perm.append(self.index_of_coord[(x + n1, y + n1)])
                maps.append(tuple(perm))
        return tuple(maps)

    def transform(self, symmetry: int, name: str) -> str:
        """The image of point ``name`` under symmetry number ``symmetry`` (0-11, 0 = identity)."""
        return self.names[self.symmetries[symmetry][self.point(name)]]

    # -- pictures -------------------------------------------------------------------

    def render(self, marks: dict[int, str] | None = None, empty: str = ".") -> str:
        """A text picture in the layout of docs/rules.md: top row first, row numbers left.

        ``marks`` maps point indices to one-character marks; other points show ``empty``.
        """
        marks = marks or {}
        n = self.size
        width = len(str(self.span))
        lines = []
        for r in reversed(range(self.span)):
            cells = [
                marks.get(self.index_of_coord[(c, r)], empty)
                for c in range(self.span)
                if (c, r) in self.index_of_coord
            ]
            indent = " " * abs(r - (n - 1))
            line = f"{r + 1:>{width}} {indent}{' '.join(cells)}"
            if r < n - 1:
                # Columns run up and to the left from the bottom row and the lower-right
                # side: the letter of the column whose lowest point ends the row above
                # stands where that column would go on, one row down.
                line += f" {chr(97 + r + n)}"
            lines.append(line)
        bottom = " ".join(chr(97 + c) for c in range(n))
        lines.append(f"{'':>{width}} {' ' * (n - 1)}{bottom}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Board(size={self.size})"


@cache
def _common_neighbours(size: int) -> tuple[dict[int, tuple[int, ...]], ...]:
    board = get_board(size)
    table = []
    for i in range(board.num_points):
        slots = board.neighbour_slots[i]
        row = {}
        for d in range(6):
            j = slots[d]
            if j < 0:
                continue
            # In cyclic order the directions next to d reach the common neighbours.
            row[j] = tuple(k for k in (slots[(d - 1) % 6], slots[(d + 1) % 6]) if k >= 0)
        table.append(row)
    return tuple(table)


@cache
def get_board(size: int) -> Board:
    """The shared (immutable) geometry for side ``size``."""
    return Board(size)
