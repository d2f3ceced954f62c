"""Strength levels 1-10 for the app and the command line.

A level is a search budget plus how much game knowledge the search uses. Budgets grow
about 2.5 times per level, which in Monte-Carlo search is enough for the stronger level
to win clearly more than 60% of games (measured figures: docs/ai.md). Levels 1-3 also
pick their move at random in proportion to visits, so that a beginner can win; level 10
is the full search with a few seconds per move.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    number: int
    iterations: int
    max_seconds: float  # wall-clock cap used when the caller gives no budget
    knowledge: bool  # game-aware playouts and RAVE (False: plain UCT, random playouts)
    temperature: float  # 0: play the most visited move; >0: sample by visits ** (1/T)


LEVELS: dict[int, Level] = {
    lv.number: lv
    for lv in (
        Level(1, 12, 0.5, False, 1.0),
        Level(2, 60, 0.5, False, 0.25),
        Level(3, 150, 0.5, True, 0.25),
        Level(4, 300, 1.0, True, 0.0),
        Level(5, 800, 1.0, True, 0.0),
        Level(6, 2000, 1.5, True, 0.0),
        Level(7, 5000, 2.0, True, 0.0),
        # The caps grow 1.5x a level from level 7: where the caps bind (Droched runs
        # about 1 200 iterations a second on side 5) the iteration budgets do not set the
        # steps, and caps of 2 / 2.5 / 3 s made levels 7-9 nearly one player.
        Level(8, 12000, 3.0, True, 0.0),
        Level(9, 30000, 4.5, True, 0.0),
        Level(10, 1_000_000, 7.0, True, 0.0),
    )
}

FULL_STRENGTH = LEVELS[10]


def get_level(level: int) -> Level:
    if isinstance(level, bool) or not isinstance(level, int) or level not in LEVELS:
        raise ValueError(f"AI level must be a whole number from 1 to 10, not {level!r}")
    return LEVELS[level]
