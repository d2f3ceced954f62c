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


# The core's state-building functions and its layout of a state's slots: above ``games/``
# a core state comes from the game (``game.compiled()``, ``hexstones.games.compiled``) and
# what it holds beyond its stones is read through the accessors there.
STATE_BUILDERS = {"allocate_state", "start_state", "grow_state", "copy_state", "rebuild_table",
                  "State", "META_SIZE"}
SLOT_NAME = re.compile(r"^(M|S|W)_[A-Z_]+$")  # meta slots, state tuple positions, work rows
CORE_LAYOUT_MODULES = {"hexstones.core.layout", "hexstones.core.state"}


def core_state_uses(source: str) -> list[tuple[int, str]]:
    """Imports of the core's state builders or slot constants, imports of the modules that
    hold them, and subscripts of a state's meta arrays, with their line numbers."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("hexstones.core"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if alias.name in STATE_BUILDERS or SLOT_NAME.match(alias.name):
                    found.append((node.lineno, f"imports {alias.name} from {node.module}"))
                elif full in CORE_LAYOUT_MODULES:
                    found.append((node.lineno, f"imports the module {full}"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in CORE_LAYOUT_MODULES:
                    found.append((node.lineno, f"imports the module {alias.name}"))
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
                and node.value.attr in ("meta", "hist_meta") \
                and not (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
            found.append((node.lineno, f"reads a state's {node.value.attr} by slot"))
    return found


def test_the_scan_finds_core_state_uses():
    assert core_state_uses("from hexstones.core.layout import M_PLY, capacity_of\n") == [
        (1, "imports M_PLY from hexstones.core.layout")]
    assert core_state_uses("from hexstones.core.state import grow_state\n")[0][1] \
        == "imports grow_state from hexstones.core.state"
    assert core_state_uses("from hexstones.core import layout\n")[0][1] \
        == "imports the module hexstones.core.layout"
    assert core_state_uses("import hexstones.core.state\n")[0][1] \
        == "imports the module hexstones.core.state"
    assert core_state_uses("x = st.meta[0]\n") == [(1, "reads a state's meta by slot")]
    assert core_state_uses("x = st.hist_meta[:5, 13]\n") == [(1, "reads a state's hist_meta by slot")]
    assert core_state_uses('x = network.meta["seed"]\n') == []
    assert core_state_uses("from hexstones.core import dispatch\n") == []


def test_nothing_above_games_builds_core_states_or_reads_their_slots():
    offenders = [f"{path.relative_to(PACKAGE)}:{line}: {what}"
                 for path in _above_games(".py")
                 for line, what in core_state_uses(path.read_text())]
    assert offenders == []
