"""The komi pie (docs/rules.md section 5) from the AI's own estimates.

At full strength (levels 9-10, or no level) the AI proposes the fair balance on record
for the side (``Balance.fair_at``: what hundreds of self-play games found even, docs/komi.md)
where there is one. Otherwise it estimates. Keil and Dehil: the AI searches the empty board
with komi 0; the mean final margin of its playouts (Black minus White) is its estimate of
what the first move is worth, and the whole number nearest it is the komi it proposes.
Droched: the balance is a number of black stones in the prison; the AI proposes the count
whose estimated Black win rate is nearest 50%. As second player it takes the colour its
search of the starting position favours.
"""

from __future__ import annotations

from functools import lru_cache

from hexstones.ai.levels import get_level
from hexstones.games import BLACK, WHITE, game_class, new_game

# Searches for the pie use a fixed seed so that the same question gets the same answer.
# A few seconds per search on side 7-9 (Droched runs one per prison count it tries).
COMPILED_ITERATIONS = 5_000
PYTHON_ITERATIONS = 150
# A balance counted in stones (Droched's prison): never propose more than this many per
# board side.
MAX_COUNT_PER_SIDE = 2


def _check(game_name: str, size: int) -> str:
    cls = game_class(game_name)  # ValueError for an unknown game
    cls.check_size(size)
    return cls.name


def effort(level: int | None) -> int | None:
    """Search iterations for the pie's estimates at AI ``level``: 20 times the level's move
    budget, at most the AI's default (a level-1 AI answers at once; None: the default)."""
    if level is None:
        return None
    return min(COMPILED_ITERATIONS, get_level(level).iterations * 20)


def _on_record(name: str, size: int, iterations: int | None, level: int | None) -> int | None:
    """The fair balance on record for the side where the AI proposes from it: at full
    strength (no level, or a level that may play a network: 9 and 10) and when no search
    budget was asked for; else None (then it estimates)."""
    if iterations is not None:
        return None
    if level is not None and get_level(level).net_sims is None:
        return None
    return game_class(name).balance.fair_at(size)


def _default_iterations(game) -> int:
    from hexstones.ai import mcts

    return COMPILED_ITERATIONS if mcts.supports(game) else PYTHON_ITERATIONS


@lru_cache(maxsize=64)
def _black_win_rate(name: str, size: int, balance: int, iterations: int | None, seed: int):
    from hexstones.ai import search

    game = new_game(name, size=size, **{game_class(name).balance.option: balance})
    result = search(game, iterations=iterations or _default_iterations(game), seed=seed,
                    reuse=False)
    return result.root_win_rate, result.black_score, result.white_score  # Black moves first


def propose_komi(game_name: str, size: int, *, iterations: int | None = None, seed: int = 0,
                 level: int | None = None) -> int:
    name = _check(game_name, size)
    fair = _on_record(name, size, iterations, level)
    if fair is not None:
        return fair
    if iterations is None:
        iterations = effort(level)
    if not game_class(name).balance.offsets_score:
        best_k, best_gap = 0, None
        for k in range(MAX_COUNT_PER_SIDE * size + 1):
            rate = _black_win_rate(name, size, k, iterations, seed)[0]
            gap = abs(rate - 0.5)
            if best_gap is None or gap < best_gap:
                best_k, best_gap = k, gap
            if rate < 0.5:
                break  # a larger count only helps White further
        return best_k
    _, black, white = _black_win_rate(name, size, 0, iterations, seed)
    margin = black - white  # komi 0: White's score has no komi in it
    return int(round(margin))


def choose_side(game_name: str, size: int, komi: int, *, iterations: int | None = None,
                seed: int = 0, level: int | None = None) -> str:
    name = _check(game_name, size)
    if iterations is None:
        iterations = effort(level)
    if isinstance(komi, bool) or not isinstance(komi, int):
        raise ValueError(f"the proposed balance must be a whole number, not {komi!r}")
    cls = game_class(name)
    cls.balance.check(komi, cls.title)
    rate = _black_win_rate(name, size, komi, iterations, seed)[0]
    return BLACK if rate > 0.5 else WHITE
