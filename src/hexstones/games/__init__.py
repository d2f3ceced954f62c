"""The three games, one module each, behind one API (:mod:`hexstones.games.base`)."""

from __future__ import annotations

import importlib
from typing import Any

from hexstones.games.base import BLACK, COLORS, WHITE, Game, IllegalMove, other
from hexstones.games.spec import BALANCE_LIMIT, Balance, Outcome, Overlay, ScorePart

# Game name -> "module:Class"; modules load on first use.
GAME_CLASSES = {
    "keil": "hexstones.games.keil:KeilGame",
    "dehil": "hexstones.games.dehil:DehilGame",
    "droched": "hexstones.games.droched:DrochedGame",
}
GAME_NAMES = tuple(GAME_CLASSES)


def game_class(name: str) -> type[Game]:
    key = name.strip().lower() if isinstance(name, str) else None
    if key not in GAME_CLASSES:
        raise ValueError(f"unknown game {name!r}: choose one of {', '.join(GAME_NAMES)}")
    module, cls = GAME_CLASSES[key].split(":")
    return getattr(importlib.import_module(module), cls)


def new_game(name: str, **options) -> Game:
    """A new game of ``name`` ("keil", "dehil", "droched") with RULES.md defaults.

    Options: ``size`` for all; ``komi`` (Keil, Dehil); ``prison`` and ``handicap``
    (Droched). An unknown option or a bad value raises ValueError saying which.
    """
    cls = game_class(name)
    unknown = sorted(set(options) - set(cls.option_names), key=str)
    if unknown:
        raise ValueError(
            f"unknown option {', '.join(map(repr, unknown))} for {cls.name}: "
            f"it takes {', '.join(cls.option_names)}"
        )
    return cls(**options)


def check_options(name: str, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` for a new game of ``name``, checked and with the defaults filled in.

    The one check of options in the project (sizes, komi, prison stones, handicap): a
    wrong type or value raises ValueError saying what and why, in every front end alike.
    """
    if not isinstance(options, dict):
        raise ValueError(f"options are a mapping of option names to values, not {options!r}")
    return dict(new_game(name, **options).options)


def game_specs() -> dict[str, dict[str, Any]]:
    """Every game's facts (:meth:`Game.spec`), by name."""
    return {name: game_class(name).spec() for name in GAME_NAMES}


__all__ = [
    "BLACK", "WHITE", "COLORS", "Game", "IllegalMove", "other",
    "GAME_NAMES", "game_class", "new_game", "check_options", "game_specs",
    "BALANCE_LIMIT", "Balance", "Outcome", "Overlay", "ScorePart",
]
