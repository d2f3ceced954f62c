"""The facts of each game that the app shows, as the game API states them.

``GET /api/spec`` hands these to the front end, so that neither the pages nor the Python
code of the app switch on a game's name: they come from ``hexstones.games.game_specs()``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from hexstones import games


@lru_cache(maxsize=1)
def game_specs() -> dict[str, dict[str, Any]]:
    """Game name -> its spec (JSON-ready): title, sizes, balance, overlays, score parts."""
    return games.game_specs()


def spec_of(name: str) -> dict[str, Any]:
    return game_specs()[name]


def balance_of(name: str) -> dict[str, Any]:
    """``{"option", "label", "short", "minimum", "maximum", "default", "note", ...}``."""
    return spec_of(name)["balance"]
