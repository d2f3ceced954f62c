"""The komi pie (RULES.md section 5) from the AI's own estimates.

Keil and Dehil: the AI searches the empty board with komi 0; the mean final margin of its
playouts (Black minus White) is its estimate of what the first move is worth, and the
whole number nearest it is the komi it proposes. Droched: the balance is a number of black
stones in the prison; the AI proposes the count whose estimated Black win rate is nearest
50%. As second player it takes the colour its search of the starting position favours.
"""

from __future__ import annotations

from functools import lru_cache

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


def propose_komi(game_name: str, size: int, *, iterations: int | None = None, seed: int = 0) -> int:
    name = _check(game_name, size)
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
                seed: int = 0) -> str:
    name = _check(game_name, size)
    if isinstance(komi, bool) or not isinstance(komi, int):
        raise ValueError(f"the proposed balance must be a whole number, not {komi!r}")
    cls = game_class(name)
    cls.balance.check(komi, cls.title)
    rate = _black_win_rate(name, size, komi, iterations, seed)[0]
    return BLACK if rate > 0.5 else WHITE
