"""Strength levels 1-10 for the app and the command line.

A level is a search budget plus how much game knowledge the search uses. Each level
searches at least twice as much as the level below (iterations 2-5x, time caps 2x),
which in Monte-Carlo search is enough for the stronger level to win clearly more than
60% of games (measured figures: docs/ai.md). Levels 1-3 also pick their move at random
in proportion to visits, so that a beginner can win; level 10 is the full search with a
few seconds per move.

Where a game's network plays by default (:func:`hexstones.ai.puct.plays_by_default`:
shipped weights that won a match against the classic search on that side), levels 9 and
10 play the network-guided search (:mod:`hexstones.ai.puct`) with ``net_sims``
simulations and the same time caps (in practice the caps end their searches); levels
1-8 keep the classic search. Why there: the network search runs 10-25x fewer simulations
a second than the classic one runs iterations, so at a small budget it is the weaker
(measured on Keil 5 with the first trained weights: classic level 5, 800 iterations, beat
the network search at 48 simulations in every game), while at equal time (1 s a move)
the network search with the shipped Keil weights won 34 of 40 games against the classic
one, and level 9 beat level 8 in 6 of 8 games with earlier weights (docs/ai.md). A
stronger network will let the network levels reach lower. Weights may name the levels
that play them (:data:`LEVELS_KEY`): Droched's name only level 10,
since twice the time did not make its network search a clearly stronger player (level 10
won 8 of 16 against level 9), so level 9 plays the classic search there. Without weights
every level is the classic search.

This file is the one place that decides which engine plays a level: the table
:data:`LEVELS` (budgets, knowledge, which levels may play a network) and
:func:`engine_of` with the rules it reads from a network's record (:data:`DEFAULT_KEY`,
:data:`LEVELS_KEY`); which network a game and side play with (the shipped weights, the
folder of ``$HEXSTONES_NETWORK_DIR``, a network installed for a test or a match) is
:func:`hexstones.ai.puct.network_for`.
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
    # Simulations of the network-guided search, used where the game has shipped weights
    # (None: this level plays the classic search everywhere).
    net_sims: int | None = None


# The time cap halves from level to level down from level 10's 7 s. A level's search is
# its iterations or its cap, whichever ends first, and the iteration budgets grow at least
# 2x a level too, so every level searches at least twice as much as the level below in
# every game and on every side, however fast the search runs there. (With caps that grew
# slower than the budgets, slow searches - Droched on side 9 runs about 180 iterations a
# second - hit the caps of several levels alike: levels 4 and 5 were one player there.)
TOP_SECONDS = 7.0


def _cap(number: int) -> float:
    return TOP_SECONDS / 2 ** (10 - number)


LEVELS: dict[int, Level] = {
    lv.number: lv
    for lv in (
        Level(1, 12, _cap(1), False, 1.0),
        Level(2, 60, _cap(2), False, 0.25),
        Level(3, 150, _cap(3), True, 0.25),
        Level(4, 300, _cap(4), True, 0.0),
        Level(5, 800, _cap(5), True, 0.0),
        Level(6, 2000, _cap(6), True, 0.0),
        Level(7, 5000, _cap(7), True, 0.0),
        Level(8, 12000, _cap(8), True, 0.0),
        Level(9, 30000, _cap(9), True, 0.0, net_sims=30000),
        Level(10, 1_000_000, _cap(10), True, 0.0, net_sims=1_000_000),
    )
}

FULL_STRENGTH = LEVELS[10]


def get_level(level: int) -> Level:
    if isinstance(level, bool) or not isinstance(level, int) or level not in LEVELS:
        raise ValueError(f"AI level must be a whole number from 1 to 10, not {level!r}")
    return LEVELS[level]


# -- which engine plays a level ----------------------------------------------------------
# A level plays the network search ("net") where all of these hold, else the classic
# search ("mcts"):
# 1. it may play a network: ``net_sims`` in the table above (levels 9 and 10), with knowledge;
# 2. the game's network for the board side plays by default (``puct.plays_by_default``):
#    someone chose it (``$HEXSTONES_NETWORK_DIR``, ``puct.install_network``), or its
#    weights record a won match against the classic search on that side (DEFAULT_KEY);
# 3. its weights' record does not leave the level to the classic search (LEVELS_KEY).

# The key of a network's metadata that makes it the default player: set on shipped
# weights only once the network search has beaten the classic search with them in a
# match at equal time (benchmarks/net_match.py). Weights without it play only when asked
# for (the net: players, engine="net"), so that no level gets weaker than the classic
# search it replaces. Its value: true (every board side), or the list of the sides where
# the network won (a network trained on side 5 alone has not earned side 7).
DEFAULT_KEY = "plays_by_default"

# The key of a network's metadata that names the levels, of those that may play a network
# (``Level.net_sims``: 9 and 10), that play it where it plays by default (absent: all of
# them). Where twice the time does not make a network's search a clearly stronger player
# (Droched's: docs/ai.md, "Each level against the level below"), its weights leave level 9
# to the classic search, so that each level still beats the one below it.
LEVELS_KEY = "network_levels"


def default_on(meta: dict, size: int | None) -> bool:
    """Whether weights with metadata ``meta`` play side ``size`` by default (None: some side)."""
    flag = meta.get(DEFAULT_KEY)
    if isinstance(flag, list):
        return bool(flag) if size is None else size in flag
    return flag is True


def network_plays_level(meta: dict, number: int) -> bool:
    """Whether weights with metadata ``meta``, where they play by default, play level
    ``number``: their :data:`LEVELS_KEY` names it, or they have none."""
    levels = meta.get(LEVELS_KEY)
    if levels is None:
        return True
    if not isinstance(levels, list) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in levels):
        raise ValueError(f"the network's {LEVELS_KEY} is a list of level numbers, not {levels!r}")
    return number in levels


def may_play_network(level: Level) -> bool:
    """Whether ``level`` plays the network search where a network has earned it (rule 1)."""
    return level.net_sims is not None and level.knowledge


def engine_of(level: Level, record: dict | None) -> str:
    """The search that plays ``level``, "net" or "mcts", by the rules above: ``record`` is
    the metadata of the network that plays the game by default on the board side (rule 2:
    :func:`hexstones.ai.puct.default_record`), None where none does."""
    if not may_play_network(level) or record is None:
        return "mcts"
    return "net" if network_plays_level(record, level.number) else "mcts"


def describe(level: Level, network: bool) -> str:
    """What ``level`` plays, in a few words for a person choosing an opponent (``network``:
    whether it plays the network search there, :func:`hexstones.ai.engine_for`)."""
    if network:
        what = "the trained network's search"
    elif level.knowledge:
        what = "the search with the game's knowledge"
    else:
        what = "a plain search"
    if level.temperature >= 1:
        what += ", its moves drawn by chance"
    elif level.temperature > 0:
        what += ", now and then not its best move"
    top = ": the strongest" if level is FULL_STRENGTH else ""
    return f"{what}, at most {level.max_seconds:.2g} s a move{top}"
