"""The facts of each game that the app shows, as the game API states them.

``GET /api/spec`` hands these to the front end, so that neither the pages nor the Python
code of the app switch on a game's name. They come from ``hexstones.games.game_specs()``.

Until that function lands on main, :func:`_spec_from_classes` builds the same dict from
what the game classes already declare plus the facts the app used to keep in its own
tables; it goes when the game API's spec is merged.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from hexstones import games


@lru_cache(maxsize=1)
def game_specs() -> dict[str, dict[str, Any]]:
    """Game name -> its spec (JSON-ready): title, sizes, balance, overlays, score parts."""
    if hasattr(games, "game_specs"):
        return games.game_specs()
    return {name: _spec_from_classes(name) for name in games.GAME_NAMES}


def spec_of(name: str) -> dict[str, Any]:
    return game_specs()[name]


def balance_of(name: str) -> dict[str, Any]:
    """``{"option", "label", "minimum", "maximum", "default", "note"}`` of game ``name``."""
    return spec_of(name)["balance"]


# -- until the game API's spec lands (see the module docstring) -------------------------

_OLD_FACTS: dict[str, dict[str, Any]] = {
    "keil": {
        "balance": {"option": "komi", "label": "komi", "minimum": -1_000_000, "maximum": 1_000_000,
                    "default": 6, "note": "points for White"},
        "overlays": [{"name": "territory", "label": "Territories and their owners"},
                     {"name": "groups", "label": "Groups and their liberties"}],
        "final_overlay": "territory", "has_score": True,
        "score_parts": ["stones", "territory", "komi", "button"],
    },
    "dehil": {
        "balance": {"option": "komi", "label": "komi", "minimum": -1_000_000, "maximum": 1_000_000,
                    "default": 0, "note": "points for White (may be negative)"},
        "overlays": [{"name": "groups", "label": "Groups and their values"},
                     {"name": "partitions", "label": "Groups with / without partitions"}],
        "final_overlay": "partitions", "has_score": True,
        "score_parts": ["plus", "minus", "komi", "first_pass"],
    },
    "droched": {
        "balance": {"option": "prison", "label": "prison stones", "minimum": 0, "maximum": 1_000_000,
                    "default": 0, "note": "black stones in the prison at the start"},
        "overlays": [{"name": "groups", "label": "Groups"},
                     {"name": "bridges", "label": "Groups on bridges / broken bridges"}],
        "final_overlay": "bridges", "has_score": False, "score_parts": [],
    },
}


def _spec_from_classes(name: str) -> dict[str, Any]:
    cls = games.game_class(name)
    return {
        "name": name, "title": name.capitalize(), "default_size": cls.default_size,
        "sizes": list(range(2, 27)), "app_sizes": list(range(3, 14)),
        "special_moves": list(cls.special_moves), **_OLD_FACTS[name],
    }


_OLD_PART_LABELS = {"plus": "groups with partitions", "minus": "groups without partitions"}


def score_part_label(name: str, part: str) -> str:
    """The readable name of a part of ``name``'s score (a key of ``score_details``)."""
    labels = spec_of(name).get("score_labels") or _OLD_PART_LABELS
    return labels.get(part, part.replace("_", " "))
