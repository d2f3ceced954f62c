"""Playouts per second on one core: the policy playouts and the full MCTS.

    python benchmarks/ai_playouts.py [--game keil] [--size 7] [--seconds 5]

Prints, for the chosen game and side, the rate of bare playouts from the empty board
(the game's policy playout, and uniformly random playouts), and the rate of MCTS
iterations (one playout each) with knowledge (RAVE + policy) and as plain UCT. Compiling
happens first and is not timed. The issue's target: 50,000 playouts/s on Keil side 7.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from numba import njit

import hexstones
from hexstones.ai import mcts
from hexstones.ai.tree import uniform_playout
from hexstones.core.common import copy_into, seed_rng
from hexstones.core.dispatch import policy_buffer_size, policy_playout
from hexstones.core.layout import M_PLY


# Not cached: numba's cache watches only this file, and a stale copy would time old
# policy code after policies.py changes (the package's own caches are dropped then).
@njit
def _bare_playouts(gid, geo, root, work, rng, n, knowledge, max_ply, cand):
    moves = 0
    scores = np.zeros(2, np.float64)
    reply = np.full((2, root.board.shape[0] + 1), -1, np.int32)  # nothing learnt: bare playouts
    for _ in range(n):
        copy_into(work, root)
        if knowledge:
            policy_playout(gid, geo, work, rng, max_ply, cand, scores, reply)
        else:
            uniform_playout(gid, geo, work, rng, max_ply, cand)
        moves += work.meta[M_PLY]
    return moves


def bare_rate(game, knowledge: bool, seconds: float) -> tuple[float, float]:
    door = game.compiled()
    gid, geo = door.game_id, door.geometry
    root = mcts.state_for(game)
    work = mcts.state_for(game)
    max_ply = work.hist_hash.shape[0] - 2
    rng = seed_rng(1)
    cand = np.empty(policy_buffer_size(door.num_points), np.int32)
    _bare_playouts(gid, geo, root, work, rng, 2, knowledge, max_ply, cand)  # compile
    done, moves, start = 0, 0, time.perf_counter()
    batch = 16
    while time.perf_counter() - start < seconds:
        moves += _bare_playouts(gid, geo, root, work, rng, batch, knowledge, max_ply, cand)
        done += batch
    elapsed = time.perf_counter() - start
    return done / elapsed, moves / done


def search_rate(game, knowledge: bool, seconds: float) -> float:
    mcts.search(game, iterations=4, seed=0, knowledge=knowledge, reuse=False)  # compile
    result = mcts.search(game, seconds=seconds, seed=1, knowledge=knowledge, reuse=False)
    return result.playouts / result.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="keil", choices=("keil", "dehil", "droched"))
    parser.add_argument("--size", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    parser.add_argument("--json", action="store_true", help="print JSON only")
    args = parser.parse_args()
    game = hexstones.new_game(args.game, size=args.size)
    figures = {"game": args.game, "size": args.size, "seconds_each": args.seconds}
    for label, knowledge in (("policy", True), ("uniform", False)):
        rate, length = bare_rate(game, knowledge, args.seconds)
        figures[f"{label}_playouts_per_s"] = round(rate, 1)
        figures[f"{label}_moves_per_playout"] = round(length, 1)
    figures["mcts_rave_policy_iterations_per_s"] = round(search_rate(game, True, args.seconds), 1)
    figures["mcts_plain_uct_iterations_per_s"] = round(search_rate(game, False, args.seconds), 1)
    if args.json:
        print(json.dumps(figures))
        return
    for key, value in figures.items():
        print(f"{key:>36}: {value}")


if __name__ == "__main__":
    main()
