"""Strength levels 1-10 for the app and the command line.

A level is a search budget plus how much game knowledge the search uses. Each level
searches at least twice as much as the level below (iterations 2-5x, time caps 2x),
which in Monte-Carlo search is enough for the stronger level to win clearly more than
60% of games (measured figures: docs/ai.md). Levels 1-3 also pick their move at random
in proportion to visits, so that a beginner can win; level 10 is the full search with a
few seconds per move.

Where :data:`NETWORK_PLAYS` names a game's board side (its shipped weights won a match
against the classic search there), levels 9 and 10 play the network-guided search
(:mod:`hexstones.ai.puct`) with ``net_sims`` simulations and the same time caps (in
practice the caps end their searches); levels 1-8 keep the classic search. Why there: the
network search runs 10-25x fewer simulations a second than the classic one runs
iterations, so at a small budget it is the weaker (measured on Keil 5 with the first
trained weights: classic level 5, 800 iterations, beat the network search at 48
simulations in every game), while at equal time (1 s a move) the network search with the
shipped Keil weights won 34 of 40 games against the classic one, and level 9 beat level 8
in 6 of 8 games with earlier weights (docs/ai.md). A stronger network will let the network
levels reach lower. The table also names the levels per side: Droched's only level 10,
since twice the time did not make its network search a clearly stronger player (level 10
won 8 of 16 against level 9), so level 9 plays the classic search there. Every other game
and side plays the classic search at every level.

This file is the one place that decides which engine plays a level: the tables
:data:`LEVELS` (budgets, knowledge, which levels may play a network) and
:data:`NETWORK_PLAYS` (where the shipped weights play, and which levels), and
:func:`engine_of`. A network a person chose (the folder of ``$HEXSTONES_NETWORK_DIR``, a
network installed for a test or a match: :func:`hexstones.ai.puct.network_for`) plays
levels 9 and 10 on the sides it serves, or the levels its metadata names
(:data:`LEVELS_KEY`); :func:`hexstones.ai.puct.default_player` says which of the two plays a
game's side.
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
    # Simulations of the network-guided search, used where the network plays the level
    # (NETWORK_PLAYS, or a network a person chose; None: the classic search everywhere).
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


@dataclass(frozen=True)
class ShippedNetwork:
    """Where a game's shipped weights play: on ``sides`` of ``game``, the levels of
    ``levels`` (of those that may play a network, :func:`may_play_network`) play the network
    search with the weights file ``weights`` (``src/hexstones/ai/weights/``, the file that
    serves those sides: :func:`hexstones.ai.net.load_network`)."""

    game: str
    weights: str
    sides: tuple[int, ...]
    levels: tuple[int, ...]


# Which engine plays each network-capable level with the shipped weights, by game and board
# side: every side and level not named here plays the classic search. A side is named once
# the network search with those weights has beaten the classic search there in a match at
# equal time (1 s a move, benchmarks/net_match.py, the match kept in the weights' ``meta``
# under "matches"), so that no level gets weaker than the classic search it replaces. A
# level is left out where twice the time does not make the network search a clearly
# stronger player (Droched's: docs/ai.md, "Each level against the level below"), so that
# each level still beats the one below it.
NETWORK_PLAYS: tuple[ShippedNetwork, ...] = (
    ShippedNetwork("keil", "keil.npz", sides=(5, 7), levels=(9, 10)),
    ShippedNetwork("dehil", "dehil.npz", sides=(7, 9), levels=(9, 10)),
    ShippedNetwork("droched", "droched-5.npz", sides=(5,), levels=(10,)),
    ShippedNetwork("droched", "droched.npz", sides=(7, 9), levels=(10,)),
)


def shipped_play(game_name: str, side: int) -> ShippedNetwork | None:
    """The entry of :data:`NETWORK_PLAYS` for ``game_name`` on board side ``side``, or None
    where the shipped weights play no level there."""
    for entry in NETWORK_PLAYS:
        if entry.game == game_name and side in entry.sides:
            return entry
    return None


# The key of a network's metadata that names the levels, of those that may play a network
# (9 and 10), that play it: read only for weights a person chose
# (``$HEXSTONES_NETWORK_DIR``, ``puct.install_network``), which otherwise play both. The
# shipped weights' play is :data:`NETWORK_PLAYS` (the key in their metadata is a record
# of how they were shipped, read only where a person chooses those files).
LEVELS_KEY = "network_levels"


def network_plays_level(meta: dict, number: int) -> bool:
    """Whether a network a person chose, with metadata ``meta``, plays level ``number``:
    its :data:`LEVELS_KEY` names it, or it has none."""
    levels = meta.get(LEVELS_KEY)
    if levels is None:
        return True
    if not isinstance(levels, list) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in levels):
        raise ValueError(f"the network's {LEVELS_KEY} is a list of level numbers, not {levels!r}")
    return number in levels


def may_play_network(level: Level) -> bool:
    """Whether ``level`` may play the network search: it has ``net_sims`` (levels 9 and
    10) and the game's knowledge."""
    return level.net_sims is not None and level.knowledge


def engine_of(level: Level, shipped: ShippedNetwork | None, chosen: dict | None = None) -> str:
    """The search that plays ``level``, "net" or "mcts", given what plays the game's board
    side by default (:func:`hexstones.ai.puct.default_player`): ``chosen``, the metadata of a
    network a person chose (it plays every level that may play a network, or those its
    :data:`LEVELS_KEY` names); else ``shipped``, the side's entry of :data:`NETWORK_PLAYS`
    (it plays the levels the entry names); with neither, the classic search plays."""
    if not may_play_network(level):
        return "mcts"
    if chosen is not None:
        return "net" if network_plays_level(chosen, level.number) else "mcts"
    return "net" if shipped is not None and level.number in shipped.levels else "mcts"


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
