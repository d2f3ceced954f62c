"""The three games, one module each, behind one API (:mod:`hexstones.games.base`)."""

from __future__ import annotations

import importlib
import inspect

from hexstones.games.base import BLACK, COLORS, WHITE, Game, IllegalMove, other

# Game name -> "module:Class"; modules load on first use.
GAME_CLASSES = {
    "keil": "hexstones.games.keil:KeilGame",
    "dehil": "hexstones.games.dehil:DehilGame",
    "droched": "hexstones.games.droched:DrochedGame",
}
GAME_NAMES = tuple(GAME_CLASSES)


def game_class(name: str) -> type[Game]:
    key = name.strip().lower() if isinstance(name, str) else name
    if key not in GAME_CLASSES:
        raise ValueError(f"unknown game {name!r}: choose one of {', '.join(GAME_NAMES)}")
    module, cls = GAME_CLASSES[key].split(":")
    return getattr(importlib.import_module(module), cls)


def new_game(name: str, **options) -> Game:
    """A new game of ``name`` ("keil", "dehil", "droched") with docs/rules.md defaults.

    Options: ``size`` for all; ``komi`` (Keil, Dehil); ``prison`` and ``handicap``
    (Droched). An unknown option or a bad value raises ValueError saying which.
    """
    cls = game_class(name)
    accepted = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise ValueError(
            f"unknown option {', '.join(map(repr, unknown))} for {cls.name}: "
            f"it takes {', '.join(accepted)}"
        )
    return cls(**options)


__all__ = [
    "BLACK", "WHITE", "COLORS", "Game", "IllegalMove", "other",
    "GAME_NAMES", "game_class", "new_game",
]
