"""The AI's analysis of a position as SGF text: the private property ``XA`` (docs/sgf.md).

One ``XA`` per node: the analysis of the position after that node (the root: before the
first move). Its value is lines of a key and its values, separated by spaces::

    black 0.5230                   Black's chance of winning (0 to 1)
    engine compiled 3000           the engine and its search iterations
    score 31.5 33                  expected final score, Black and White (games with a score)
    moves d4 1200 0.5510 e5 800 0.5200    best moves: move, visits, win rate of the side to move
    pv d4 e5 f6                    principal variation
    ownership 12 -100 0 ...        each point in board order, -100 White .. +100 Black
    prison 0.3100 black c3 d4      one group per line: chance of the prison, colour, points

Only ``black`` is required. Reading checks everything (numbers, names, counts) against
the game at that position and raises ValueError saying what is wrong; the bounds below
keep a hostile record from costing more than its length.
"""

from __future__ import annotations

import math
import re
from typing import Any

from hexstones.games import COLORS, Game

PROPERTY = "XA"
MAX_TEXT = 16_384  # characters of one node's analysis: far more than the writer makes
MAX_MOVES = 50  # best moves listed
MAX_PV = 200  # moves of a principal variation
MAX_GROUPS = 1_000  # prison lines
_NUMBER = re.compile(r"^[+-]?[0-9]{1,12}(?:\.[0-9]{1,12})?$")
_WHOLE = re.compile(r"^[0-9]{1,12}$")
_WORD = re.compile(r"^[a-z0-9_.-]{1,40}$")


def _rate(value: float) -> str:
    return f"{value:.4f}"


def _real(value: float) -> str:
    return f"{value:g}" if float(value).is_integer() else f"{value:.2f}"


def format_analysis(game: Game, data: dict[str, Any]) -> str:
    """The ``XA`` value for ``data`` (see :func:`parse_analysis` for the keys) of the
    position of ``game``."""
    lines = [f"black {_rate(data['black_win'])}"]
    if data.get("engine") or data.get("iterations"):
        lines.append(f"engine {data.get('engine') or 'unknown'} {int(data.get('iterations') or 0)}")
    score = data.get("expected_score")
    if score:
        lines.append(f"score {_real(score['black'])} {_real(score['white'])}")
    if data.get("moves"):
        lines.append("moves " + " ".join(f"{m['move']} {int(m['visits'])} {_rate(m['win_rate'])}"
                                          for m in data["moves"][:MAX_MOVES]))
    if data.get("pv"):
        lines.append("pv " + " ".join(data["pv"][:MAX_PV]))
    ownership = data.get("ownership")
    if ownership:
        lines.append("ownership " + " ".join(str(round(100 * ownership.get(p, 0.0)))
                                             for p in game.board.names))
    for group in (data.get("prison_chance") or [])[:MAX_GROUPS]:
        lines.append(f"prison {_rate(group['chance'])} {group['color']} {' '.join(group['points'])}")
    return "\n".join(lines)


def parse_analysis(game: Game, text: str) -> dict[str, Any]:
    """The analysis in an ``XA`` value, for the position of ``game``: ``black_win``,
    ``to_move`` (None once the game is over), ``win_rate`` (the side to move's, where one
    is to move), and as given ``engine``, ``iterations``, ``expected_score``, ``moves``,
    ``pv``, ``ownership``, ``prison_chance``. ValueError saying what is wrong."""
    if len(text) > MAX_TEXT:
        raise ValueError(f"the analysis has {len(text)} characters; at most {MAX_TEXT}")
    names = game.board.names
    words = set(names) | set(game.special_moves)
    legal = None if game.is_over else set(game.legal_moves())
    data: dict[str, Any] = {}
    seen: set[str] = set()
    for raw in text.splitlines():
        parts = raw.split()
        if not parts:
            continue
        key, values = parts[0].lower(), parts[1:]
        if key in seen and key != "prison":
            raise ValueError(f"the analysis gives {key!r} twice")
        seen.add(key)
        if key == "black":
            data["black_win"] = _probability(_one(key, values))
        elif key == "engine":
            if len(values) != 2 or not _WORD.match(values[0]) or not _WHOLE.match(values[1]):
                raise ValueError("engine takes a name and a whole number of iterations")
            data["engine"], data["iterations"] = values[0], int(values[1])
        elif key == "score":
            if not game.has_score or len(values) != 2:
                raise ValueError("score takes Black's and White's expected score, in a game with a score")
            data["expected_score"] = {"black": _number(values[0]), "white": _number(values[1])}
        elif key == "moves":
            if len(values) % 3 or not values or len(values) > 3 * MAX_MOVES:
                raise ValueError(f"moves takes up to {MAX_MOVES} triples: move, visits, win rate")
            data["moves"] = []
            for i in range(0, len(values), 3):
                move = values[i].lower()
                if legal is None or move not in legal:
                    raise ValueError(f"best move {move[:20]!r} is not a legal move of the position")
                if not _WHOLE.match(values[i + 1]):
                    raise ValueError(f"the visits of {move} must be a whole number")
                data["moves"].append({"move": move, "visits": int(values[i + 1]),
                                      "win_rate": _probability(values[i + 2])})
        elif key == "pv":
            if not values or len(values) > MAX_PV or any(v.lower() not in words for v in values):
                raise ValueError(f"pv takes up to {MAX_PV} moves of this game")
            if legal is None or values[0].lower() not in legal:
                raise ValueError("the pv must start with a legal move of the position")
            data["pv"] = [v.lower() for v in values]
        elif key == "ownership":
            if len(values) != len(names):
                raise ValueError(f"ownership takes one value per point ({len(names)}), not {len(values)}")
            own = {}
            for p, v in zip(names, values):
                if not re.match(r"^[+-]?[0-9]{1,3}$", v) or abs(int(v)) > 100:
                    raise ValueError(f"the ownership of {p} must be a whole number from -100 to 100")
                own[p] = int(v) / 100
            data["ownership"] = own
        elif key == "prison":
            if game.prison is None:
                raise ValueError(f"{game.title} has no prison")
            if len(values) < 3 or values[1] not in COLORS:
                raise ValueError("prison takes a chance, a colour and the group's points")
            groups = data.setdefault("prison_chance", [])
            if len(groups) >= MAX_GROUPS:
                raise ValueError(f"at most {MAX_GROUPS} prison groups")
            points = [v.lower() for v in values[2:]]
            stones = game.stones()
            if any(stones.get(p) != values[1] for p in points):
                raise ValueError(f"prison group {' '.join(points)[:60]}: not {values[1]} stones of the position")
            groups.append({"points": points, "color": values[1], "chance": _probability(values[0])})
        else:
            raise ValueError(f"unknown analysis line {key[:20]!r}")
    if "black_win" not in data:
        raise ValueError("the analysis must give Black's chance of winning: black 0.5")
    data["to_move"] = None if game.is_over else game.to_move
    if data["to_move"] is not None:
        black = data["black_win"]
        data["win_rate"] = black if data["to_move"] == "black" else round(1 - black, 4)
    return data


def _one(key: str, values: list[str]) -> str:
    if len(values) != 1:
        raise ValueError(f"{key} takes one value, not {len(values)}")
    return values[0]


def _number(text: str) -> float:
    if not _NUMBER.match(text):
        raise ValueError(f"{text[:20]!r} is not a number")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:20]!r} is not a finite number")
    return value


def _probability(text: str) -> float:
    value = _number(text)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{text[:20]!r} is not a chance from 0 to 1")
    return value


def compact(game: Game, analysis: dict[str, Any]) -> dict[str, Any]:
    """The analysis of ``game``'s position as records keep it: an :func:`hexstones.ai.analyze`
    answer cut to what a record holds and rounded as :func:`format_analysis` writes it (so
    a record read back gives the same data). A finished position (no search) is given
    as ``{"black_win": 1.0 or 0.0}`` from the rules' result."""
    names = game.board.names
    if game.is_over:
        outcome = game.outcome()
        data: dict[str, Any] = {"black_win": 1.0 if outcome and outcome.winner == "black" else 0.0,
                                "to_move": None}
        score = game.score()
        if score is not None:
            data["expected_score"] = dict(score)
        return data
    to_move = game.to_move
    win = round(float(analysis["win_rate"]), 4)
    black = win if to_move == "black" else round(1 - win, 4)
    data = {
        "black_win": black, "to_move": to_move,
        "win_rate": black if to_move == "black" else round(1 - black, 4),
        "engine": str(analysis.get("engine") or "unknown"),
        "iterations": int(analysis.get("iterations") or 0),
        "moves": [{"move": m["move"], "visits": int(m["visits"]), "win_rate": round(float(m["win_rate"]), 4)}
                  for m in analysis.get("moves", [])[:MAX_MOVES]],
        "pv": list(analysis.get("pv", []))[:MAX_PV],
    }
    score = analysis.get("expected_score")
    if score:
        data["expected_score"] = {c: float(_real(score[c])) for c in COLORS}
    own = analysis.get("ownership")
    if own:
        data["ownership"] = {p: round(100 * own.get(p, 0.0)) / 100 for p in names}
    groups = analysis.get("prison_chance")
    if groups:
        data["prison_chance"] = [{"points": list(g["points"]), "color": g["color"],
                                  "chance": round(float(g["chance"]), 4)} for g in groups[:MAX_GROUPS]]
    return data
