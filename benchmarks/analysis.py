"""The analysis mode's cost: seconds per position at the app's budgets, per game.

For each game, a mid-game position on side 7 (seeded random placements) is analysed as
the app's workers do it (``hexstones.web.analysis.analyse_position``) at the normal
budget (3000 iterations or at most 2 s) and the quick one (300 iterations); the peer,
measured in the same run, is one AI move at the default level 3 (``ai.choose_move``),
the work an AI game asks of the same workers. Wall-clock seconds, best of ``--repeat``.

    python benchmarks/analysis.py [--size 7] [--moves 30] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import random
import time

import hexstones
from hexstones import ai
from hexstones.web import analysis
from hexstones.web.setup import DEFAULT_LEVEL


def mid_game(name: str, size: int, moves: int, seed: int = 1):
    game = hexstones.new_game(name, size=size)
    rng = random.Random(seed)
    for _ in range(moves):
        points = [m for m in game.legal_moves() if m[1:].isdigit()]
        if game.is_over or not points:
            break
        game.play(rng.choice(points))
    return game


def best_of(repeat: int, fn) -> tuple[float, object]:
    """The fastest of ``repeat`` runs of ``fn``: (seconds, its answer)."""
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        answer = fn()
        runs.append((time.perf_counter() - start, answer))
    return min(runs, key=lambda run: run[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=7)
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"side {args.size}, after {args.moves} placements; seconds per position (best of {args.repeat})")
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'game':8} {'normal':>8} {'iters':>6} {'quick':>7} {'AI move':>8} {'normal/move':>12}")
    for name in hexstones.GAME_NAMES:
        measure(name, args)


def measure(name: str, args) -> None:
    game = mid_game(name, args.size, args.moves)
    named = (name, dict(game.options), list(game.moves))
    analysis.analyse_position(*named, 50, 0, None)  # compile or load the kernels first
    t_normal, found = best_of(args.repeat, lambda: analysis.analyse_position(
        *named, analysis.DEFAULT_ITERATIONS, 0, analysis.DEFAULT_SECONDS))
    t_quick, _ = best_of(args.repeat, lambda: analysis.analyse_position(*named, 300, 0, None))
    t_move, _ = best_of(args.repeat, lambda: ai.choose_move(game, level=DEFAULT_LEVEL, seed=0))
    print(f"{name:8} {t_normal:8.2f} {found['iterations']:6d} {t_quick:7.2f} {t_move:8.2f} "
          f"{t_normal / t_move:12.2f}", flush=True)

if __name__ == "__main__":
    main()
