"""The board of any of the three games as an SVG picture (server-side).

Used by the browser app (the page inserts this SVG and makes its points clickable) and
by the command line. Points lie on the triangular lattice: ``(c, r)`` is drawn at
``x = (2c - r) * s/2``, ``y = -r * s*sqrt(3)/2`` (row 1 at the bottom, as in docs/rules.md), so
that the six neighbours of docs/rules.md section 1 are the six nearest points. Keil and Dehil
draw the lattice lines with stones on the points; Droched draws each point as a
hexagonal cell.

Every point is one ``<g>`` element with ``data-point="<name>"``, and while it holds a
stone, ``data-stone="black"`` or ``"white"``: the app and its tests find points by these.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from html import escape

from hexstones.games.base import BLACK, WHITE, Game

OVERLAYS = ("territory", "groups", "partitions", "bridges")  # every overlay drawn here

SPACING = 40.0  # distance between neighbouring points, in SVG units
ROW_HEIGHT = SPACING * math.sqrt(3) / 2
MARGIN = 34.0
# Stones on a lattice's points, or inside hexagonal cells (times SPACING); board colours.
STONE_RADIUS = {"points": 0.44, "cells": 0.40}
BOARD_FILL = {"points": "#e2bd72", "cells": "#d9c7a1"}
# Distinct colours for telling groups apart in the group overlays.
MINUS = "\u2212"
DASHED = ' stroke-dasharray="5 3"'
GROUP_PALETTE = ("#d62828", "#1d6fd6", "#2a9d3f", "#b5179e", "#e07a00", "#0f9aa8", "#7b4fc9", "#8a6d00")


def _fmt(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


class _Layout:
    """Point positions of one board in SVG coordinates (a margin around the lattice)."""

    def __init__(self, game: Game, coordinates: bool):
        board = game.board
        self.board = board
        raw = [((2 * c - r) * SPACING / 2, -r * ROW_HEIGHT) for c, r in board.coords]
        margin = MARGIN + (18 if coordinates else 0)
        min_x = min(x for x, _ in raw) - margin
        min_y = min(y for _, y in raw) - margin
        self.width = max(x for x, _ in raw) - min_x + margin
        self.height = max(y for _, y in raw) - min_y + margin
        self.xy = [(x - min_x, y - min_y) for x, y in raw]

    def at(self, name: str) -> tuple[float, float]:
        return self.xy[self.board.index[name]]


def _position(game: Game, move_number: int | None) -> tuple[Game, Game | None]:
    """The game at ``move_number`` moves, and the game one move earlier (None at move 0).

    Games are copied, never changed; undo is cheap in every engine, replay is not.
    """
    total = len(game.moves)
    if move_number is None:
        move_number = total
    if isinstance(move_number, bool) or not isinstance(move_number, int):
        raise ValueError(f"move_number must be a whole number, not {move_number!r}")
    if not 0 <= move_number <= total:
        raise ValueError(f"move_number must be from 0 to {total} (the moves played), not {move_number}")
    if move_number == 0:
        at = game if total == 0 else _undone(game, total)
        return at, None
    at = game if move_number == total else _undone(game, total - move_number)
    before = _undone(at, 1)
    return at, before


def _undone(game: Game, count: int) -> Game:
    g = game.copy()
    for _ in range(count):
        g.undo()
    return g


@dataclass(frozen=True)
class _Frame:
    """What every picture of one board shares, drawn once: the opening tag up to the move
    number, the background (board, lattice lines, coordinates), and each point as it
    looks empty, with a black stone and with a white one."""

    layout: _Layout
    opening: str
    label: str
    background: str
    points: tuple[dict[str | None, str], ...]  # by point index: {None, BLACK, WHITE} -> its <g>


_FRAMES: dict[tuple[str, int, bool], _Frame] = {}


def _frame(game: Game, coordinates: bool) -> _Frame:
    """The board's frame (made on first use; the same for every position of the board)."""
    key = (game.name, game.size, coordinates)
    frame = _FRAMES.get(key)
    if frame is None:
        frame = _FRAMES[key] = _draw_frame(game, coordinates)  # a race draws it twice: same result
    return frame


def _draw_frame(game: Game, coordinates: bool) -> _Frame:
    name = game.name
    kind = game.board_kind
    board = game.board
    layout = _Layout(game, coordinates)
    radius = STONE_RADIUS[kind] * SPACING
    opening = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="hexboard game-{name}" '
        f'viewBox="0 0 {_fmt(layout.width)} {_fmt(layout.height)}" '
        f'width="{_fmt(layout.width)}" height="{_fmt(layout.height)}" '
        f'data-game="{name}" data-size="{game.size}"'
    )
    out: list[str] = []
    add = out.append
    add(
        "<defs>"
        '<radialGradient id="hs-black" cx="35%" cy="30%" r="70%">'
        '<stop offset="0" stop-color="#6b6b6b"/><stop offset="0.5" stop-color="#222"/>'
        '<stop offset="1" stop-color="#000"/></radialGradient>'
        '<radialGradient id="hs-white" cx="35%" cy="30%" r="75%">'
        '<stop offset="0" stop-color="#ffffff"/><stop offset="0.7" stop-color="#ececec"/>'
        '<stop offset="1" stop-color="#b9b9b9"/></radialGradient>'
        "</defs>"
    )
    add(f'<rect class="bg" x="0" y="0" width="{_fmt(layout.width)}" height="{_fmt(layout.height)}" '
        f'rx="14" fill="{BOARD_FILL[kind]}"/>')

    # A lattice of points (Keil, Dehil): one stroke per pair of neighbours, all in one path
    # (a third of the size of a line element each, in every state a game sends).
    if kind == "points":
        strokes = []
        for i, nbrs in enumerate(board.neighbours):
            x1, y1 = layout.xy[i]
            for j in nbrs:
                if j > i:
                    x2, y2 = layout.xy[j]
                    strokes.append(f"M{_fmt(x1)} {_fmt(y1)}L{_fmt(x2)} {_fmt(y2)}")
        add(f'<path class="grid" d="{"".join(strokes)}" fill="none" stroke="#5b4321" stroke-width="1.3" '
            f'stroke-linecap="round"/>')

    if coordinates:
        out.extend(_coordinate_labels(game, layout))

    hex_r = SPACING / math.sqrt(3)
    points = []
    for pname in board.names:
        x, y = layout.at(pname)
        if kind == "cells":
            corners = " ".join(
                f"{_fmt(x + hex_r * math.cos(math.radians(90 + 60 * k)))},"
                f"{_fmt(y + hex_r * math.sin(math.radians(90 + 60 * k)))}"
                for k in range(6)
            )
            ground = f'<polygon class="cell" points="{corners}" fill="#efe3c6" stroke="#7a6544" stroke-width="1.2"/>'
        else:
            ground = f'<circle class="hit" cx="{_fmt(x)}" cy="{_fmt(y)}" r="{_fmt(SPACING / 2)}" fill="transparent"/>'
        drawn: dict[str | None, str] = {
            None: (f'<g class="pt empty" data-point="{pname}"><title>{pname}</title>{ground}'
                   f'<circle class="ghost" cx="{_fmt(x)}" cy="{_fmt(y)}" r="{_fmt(radius)}" fill="none" '
                   f'stroke="none"/></g>')}
        for color in (BLACK, WHITE):
            drawn[color] = (
                f'<g class="pt" data-point="{pname}" data-stone="{color}"><title>{pname}</title>{ground}'
                f'<circle class="stone stone-{color}" cx="{_fmt(x)}" cy="{_fmt(y)}" r="{_fmt(radius)}" '
                f'fill="url(#hs-{color})" stroke="{"#000" if color == BLACK else "#777"}" stroke-width="1"/></g>')
        points.append(drawn)
    return _Frame(layout, opening, escape(game.title), "".join(out), tuple(points))


def board_svg(game: Game, *, overlays: Iterable[str] = (), move_number: int | None = None,
              coordinates: bool = True) -> str:
    """The position of ``game`` after ``move_number`` moves (default: now) as an SVG string.

    ``overlays`` is a subset of :data:`OVERLAYS`; an overlay that means nothing in this game
    (territory in Droched, say) draws nothing. The last move is marked, and stones that the
    last move removed (captured, imprisoned) are marked where they stood.
    """
    overlays = tuple(overlays)
    unknown = [o for o in overlays if o not in OVERLAYS]
    if unknown:
        raise ValueError(f"unknown overlay {', '.join(map(repr, unknown))}: choose from {', '.join(OVERLAYS)}")
    at, before = _position(game, move_number)
    kind = game.board_kind
    board = game.board
    frame = _frame(game, coordinates)
    layout = frame.layout
    stones = at.stones()
    radius = STONE_RADIUS[kind] * SPACING
    wanted = set(overlays) & {o.name for o in game.overlays}

    out: list[str] = []
    add = out.append
    add(
        f'{frame.opening} data-move-number="{len(at.moves)}" '
        f'data-to-move="{"" if at.is_over else at.to_move}" role="img" '
        f'aria-label="{frame.label} board, side {game.size}, after {len(at.moves)} moves">'
    )
    add(frame.background)

    if "territory" in wanted:
        add('<g class="overlay overlay-territory" pointer-events="none">')
        side = SPACING * 0.26
        for territory in at.territories():
            owner = territory.get("owner")
            if owner not in (BLACK, WHITE):
                continue
            fill, stroke = ("#111", "#111") if owner == BLACK else ("#fff", "#333")
            for p in territory["points"]:
                x, y = layout.at(p)
                add(f'<rect class="territory territory-{owner}" data-owner="{owner}" data-at="{p}" '
                    f'x="{_fmt(x - side / 2)}" y="{_fmt(y - side / 2)}" width="{_fmt(side)}" '
                    f'height="{_fmt(side)}" fill="{fill}" stroke="{stroke}" stroke-width="1"/>')
        add("</g>")

    # The points: hexagonal cells (Droched) or hit areas on the lattice, each with its stone.
    add('<g class="points">')
    out.extend(drawn[stones.get(pname)] for pname, drawn in zip(board.names, frame.points))
    add("</g>")

    # Marks: stones the last move removed, and the last move itself.
    if before is not None:
        add('<g class="marks" pointer-events="none">')
        old = before.stones()
        removed = sorted((p for p in old if p not in stones), key=board.index.__getitem__)
        arm = radius * 0.45
        for p in removed:
            x, y = layout.at(p)
            was = old[p]
            add(f'<g class="removed" data-removed="{p}" data-was="{was}">'
                f'<circle class="removed-ghost" cx="{_fmt(x)}" cy="{_fmt(y)}" r="{_fmt(radius)}" '
                f'fill="{"#000" if was == BLACK else "#fff"}" fill-opacity="0.25" stroke="#c0392b" '
                f'stroke-width="1.5" stroke-dasharray="4 3"/>'
                f'<path d="M{_fmt(x - arm)} {_fmt(y - arm)}L{_fmt(x + arm)} {_fmt(y + arm)}'
                f'M{_fmt(x - arm)} {_fmt(y + arm)}L{_fmt(x + arm)} {_fmt(y - arm)}" '
                f'stroke="#c0392b" stroke-width="2.4" stroke-linecap="round"/></g>')
        last = at.moves[-1]
        if board.is_point(last) and last in stones:
            x, y = layout.at(last)
            mark = "#fff" if stones[last] == BLACK else "#000"
            add(f'<circle class="last-move" data-last="{last}" cx="{_fmt(x)}" cy="{_fmt(y)}" '
                f'r="{_fmt(radius * 0.36)}" fill="none" stroke="{mark}" stroke-width="2.5"/>')
        add("</g>")

    if wanted & {"groups", "partitions", "bridges"}:
        out.extend(_group_overlays(at, layout, wanted, radius))

    add("</svg>")
    return "".join(out)


def _coordinate_labels(game: Game, layout: _Layout) -> list[str]:
    """Row numbers left of each row; column letters below each column's lowest point."""
    board = game.board
    n = board.size
    parts = ['<g class="coords" font-family="sans-serif" font-size="13" fill="#4a3519" '
             'text-anchor="middle" dominant-baseline="central" pointer-events="none">']
    gap = SPACING * 0.85
    for r in range(board.span):
        c = max(0, r - (n - 1))
        x, y = layout.xy[board.index_of_coord[(c, r)]]
        parts.append(f'<text x="{_fmt(x - gap)}" y="{_fmt(y)}">{r + 1}</text>')
    # A column (fixed c) runs up and to the left, so its label sits down and to the right.
    dx, dy = gap * 0.5, gap * math.sqrt(3) / 2
    for c in range(board.span):
        r = max(0, c - (n - 1))
        x, y = layout.xy[board.index_of_coord[(c, r)]]
        parts.append(f'<text x="{_fmt(x + dx)}" y="{_fmt(y + dy)}">{chr(97 + c)}</text>')
    parts.append("</g>")
    return parts


def _rings(parts: list[str], layout: _Layout, points, radius: float, css: str, good: bool) -> None:
    """A ring around each of ``points``: green for a ``good`` group, red and dashed if not."""
    ring = "#1f9d3a" if good else "#d62828"
    for p in points:
        x, y = layout.at(p)
        parts.append(f'<circle class="{css}" data-at="{p}" cx="{_fmt(x)}" cy="{_fmt(y)}" '
                     f'r="{_fmt(radius + 2.5)}" fill="none" stroke="{ring}" stroke-width="3"'
                     f'{"" if good else DASHED}/>')


def _group_overlays(game: Game, layout: _Layout, wanted: set[str], radius: float) -> list[str]:
    board = game.board
    groups = game.groups()
    parts = ['<g class="overlay overlay-groups" pointer-events="none" font-family="sans-serif" '
             'text-anchor="middle" dominant-baseline="central">']
    labels: list[tuple[str, float, float, str, str]] = []
    for k, group in enumerate(groups):
        points = list(group.get("points", []))
        if not points:
            continue
        tint = GROUP_PALETTE[k % len(GROUP_PALETTE)]
        anchor = min(points, key=lambda p: (-board.coords[board.index[p]][1], board.index[p]))
        ax, ay = layout.at(anchor)
        label = None
        if "groups" in wanted:
            # The links that hold the group together, as the game defines them.
            for p, q in game.links(points):
                (x1, y1), (x2, y2) = layout.at(p), layout.at(q)
                parts.append(f'<line class="group-link" x1="{_fmt(x1)}" y1="{_fmt(y1)}" '
                             f'x2="{_fmt(x2)}" y2="{_fmt(y2)}" stroke="{tint}" stroke-width="4" '
                             f'stroke-opacity="0.8" stroke-linecap="round"/>')
            for lib in group.get("liberties", []):
                x, y = layout.at(lib)
                parts.append(f'<circle class="liberty" data-liberty-of="{anchor}" data-at="{lib}" '
                             f'cx="{_fmt(x)}" cy="{_fmt(y)}" r="{_fmt(radius * 0.22)}" fill="{tint}" '
                             f'stroke="#fff" stroke-width="1"/>')
            if "liberties" in group:
                label = str(len(group["liberties"]))
            elif "value" in group:
                label = str(group["value"])
        if "partitions" in wanted and "has_partitions" in group:
            good = bool(group["has_partitions"])
            label = ("+" if good else MINUS) + str(group.get("value", len(points)))
            _rings(parts, layout, points, radius, "has-partitions" if good else "no-partitions", good)
        if "bridges" in wanted and "on_bridge" in group:
            ok = bool(group["on_bridge"])
            _rings(parts, layout, points, radius, "on-bridge" if ok else "broken-bridge", ok)
            if not ok:
                label = "broken"
        if label is not None:
            labels.append((anchor, ax, ay, label, tint))
    # Labels last, so that no link line crosses them.
    for anchor, x, y, label, tint in labels:
        width = max(18.0, 7.5 * len(label) + 8)
        parts.append(f'<g class="group-label" data-group="{anchor}">'
                     f'<rect x="{_fmt(x - width / 2)}" y="{_fmt(y - 9)}" width="{_fmt(width)}" height="18" '
                     f'rx="9" fill="#fff" fill-opacity="0.92" stroke="{tint}" stroke-width="2"/>'
                     f'<text x="{_fmt(x)}" y="{_fmt(y + 0.5)}" font-size="12" font-weight="bold" '
                     f'fill="#111">{escape(label)}</text></g>')
    parts.append("</g>")
    return parts
