"""The facts of each game that the app shows, as the game API states them.

``GET /api/spec`` hands these to the front end, so that neither the pages nor the Python
code of the app switch on a game's name: they come from ``hexstones.games.game_specs()``.
"""

from __future__ import annotations

from functools import cache, lru_cache
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


# What each overlay's marks mean (the drawing is hexstones.svg's): (swatch, text) pairs.
# A swatch names a small picture the page draws; the group facts a game reports decide
# which lines of the groups legend apply, so no game is named here.
_LEGENDS: dict[str, list[tuple[str, str]]] = {
    "territory": [("square-black", "territory of Black: empty points that count for Black"),
                  ("square-white", "territory of White: empty points that count for White"),
                  ("none", "no square: an empty point that counts for nobody")],
    "partitions": [("ring-good", "green ring, +value: a group with partitions, its value counts for its player"),
                   ("ring-bad", "red dashed ring, \u2212value: a group without partitions, "
                                "its value counts against its player")],
    "bridges": [("ring-good", "green ring: a group on a bridge (its empty cells reach two border features)"),
                ("ring-bad", "red dashed ring, \u201cbroken\u201d: a group on a broken bridge, "
                             "which goes to the prison")],
}


@cache
def _group_facts(name: str) -> frozenset[str]:
    """The facts the game reports for a group (liberties, value, ...)."""
    import hexstones

    game = hexstones.new_game(name, size=3)
    game.play(next(m for m in game.legal_moves() if m not in game.special_moves))
    return frozenset(game.groups()[0])


def overlay_legends(name: str) -> dict[str, list[dict[str, str]]]:
    """Overlay name -> the legend of its marks, for game ``name``."""
    legends: dict[str, list[dict[str, str]]] = {}
    for overlay in spec_of(name)["overlays"]:
        key = overlay["name"]
        if key == "groups":
            facts = _group_facts(name)
            items = [("link", "a colour per group; its lines are the links that hold the group together")]
            if "liberties" in facts:
                items.append(("dot", "small dots of the group's colour: its liberties"))
                items.append(("label", "the number: how many liberties it has"))
            elif "value" in facts:
                items.append(("label", "the number: the group's value"))
        else:
            items = _LEGENDS.get(key, [])
        legends[key] = [{"swatch": swatch, "text": text} for swatch, text in items]
    return legends
