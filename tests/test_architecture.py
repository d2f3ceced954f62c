"""The layer rule that import contracts cannot see: above ``games/`` nothing switches on a
game's name. Per-game facts live in the game classes (docs/architecture.md)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import hexstones

PACKAGE = Path(hexstones.__file__).resolve().parent
NAMES = set(hexstones.GAME_NAMES)
# The layers that own per-game facts and may name games.
OWNERS = ("games", "core")


def _above_games(suffix: str) -> list[Path]:
    return sorted(p for p in PACKAGE.rglob(f"*{suffix}")
                  if p.relative_to(PACKAGE).parts[0] not in OWNERS)


def _name_literals(node: ast.AST) -> list[str]:
    found = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and sub.value in NAMES:
            found.append(sub.value)
    return found


def name_switches(source: str) -> list[tuple[int, str]]:
    """Comparisons with a game's name (``==``, ``!=``, ``in``) and dicts keyed by game
    names, with their line numbers."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            literals = _name_literals(node)
            if literals:
                found.append((node.lineno, f"compares with {literals[0]!r}"))
        elif isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
            if NAMES & set(keys):
                found.append((node.lineno, "a table keyed by game names"))
    return found


def test_the_scan_finds_a_switch():
    assert name_switches('if game.name == "droched":\n    pass\n') == [(1, "compares with 'droched'")]
    assert name_switches('LABELS = {"keil": 1, "dehil": 2}\n')[0][1] == "a table keyed by game names"
    assert name_switches('def f(game="keil"):\n    return game\n') == []


def test_nothing_above_games_switches_on_a_game_name():
    offenders = [f"{path.relative_to(PACKAGE)}:{line}: {what}"
                 for path in _above_games(".py")
                 for line, what in name_switches(path.read_text())]
    assert offenders == []


def test_the_front_end_takes_game_facts_from_the_server():
    pattern = re.compile("[\"'](" + "|".join(sorted(NAMES)) + ")[\"']")
    offenders = [f"{path.relative_to(PACKAGE)}:{n}: {line.strip()}"
                 for path in _above_games(".js")
                 for n, line in enumerate(path.read_text().splitlines(), 1)
                 if pattern.search(line)]
    assert offenders == []
