"""The AI's levels against perfect play: how often each level's move keeps the position's
exact value, and how many points its mistakes give away.

    python benchmarks/solve_vs_ai.py [--game dehil] [--size 3] [--positions 20]
        [--stones 8] [--levels 1,3,5,7,9] [--seed 1] [--out solve_vs_ai.json]

Positions: ``--positions`` games of uniformly random placements (no passes) from the empty
board, stopped after ``--stones`` moves (positions that ended are skipped). Each is solved
with every legal move's exact value (:func:`hexstones.solve.solve`); then each level picks
a move (:func:`hexstones.ai.choose_move`, seeded), which is scored against the solution:
optimal if its value equals the position's, else the points it loses. A uniformly random
legal move is the peer measured in the same run. Progress goes to stderr position by
position; ``--out`` keeps the figures as JSON, rewritten after each position.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

import hexstones
from hexstones import ai
from hexstones.solve import solve


def positions(game: str, size: int, count: int, stones: int, seed: int):
    rng = random.Random(seed)
    made = 0
    while made < count:
        g = hexstones.new_game(game, size=size)
        for _ in range(stones):
            placements = [m for m in g.legal_moves() if m in g.board.index]
            if g.is_over or not placements:
                break
            g.play(rng.choice(placements))
        if g.is_over or len(g.moves) < stones:
            continue
        made += 1
        yield g


def loss(solution, move: str) -> float:
    """Points ``move`` gives away against the position's value, for the side to move."""
    sign = 1 if solution.to_move == "black" else -1
    return sign * (solution.value - solution.lower[move])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="dehil", choices=["dehil", "keil"])
    p.add_argument("--size", type=int, default=3)
    p.add_argument("--positions", type=int, default=20)
    p.add_argument("--stones", type=int, default=8)
    p.add_argument("--levels", default="1,3,5,7,9")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out")
    args = p.parse_args(argv)
    levels = [int(x) for x in args.levels.split(",")]
    players = ["random"] + [f"level {n}" for n in levels]
    tally = {name: {"moves": 0, "optimal": 0, "points_lost": 0.0} for name in players}
    rng = random.Random(args.seed)
    started = time.monotonic()
    solved_nodes = 0
    for k, game in enumerate(positions(args.game, args.size, args.positions, args.stones, args.seed), 1):
        solution = solve(game)
        solved_nodes += solution.nodes
        picks = {"random": rng.choice(game.legal_moves())}
        for n in levels:
            picks[f"level {n}"] = ai.choose_move(game, level=n, seed=args.seed + k)
        for name, move in picks.items():
            lost = loss(solution, move)
            entry = tally[name]
            entry["moves"] += 1
            entry["optimal"] += lost == 0
            entry["points_lost"] += lost
        print(f"position {k}/{args.positions} ({' '.join(game.moves)}): value {solution.value:+g}, "
              + ", ".join(f"{name} {m} ({-loss(solution, m):+g})" for name, m in picks.items())
              + f"; {time.monotonic() - started:.0f} s", file=sys.stderr)
        if args.out:
            with open(args.out, "w") as f:
                json.dump({"args": vars(args), "tally": tally, "solved_nodes": solved_nodes}, f, indent=1)
    print(f"{args.game} side {args.size}, {args.positions} positions after {args.stones} random "
          f"placements (seed {args.seed}); {solved_nodes:,} nodes solved")
    print(f"{'player':10} {'optimal moves':>14} {'points lost a move':>19}")
    for name in players:
        entry = tally[name]
        moves = max(entry["moves"], 1)
        print(f"{name:10} {entry['optimal'] / moves:>13.0%} {entry['points_lost'] / moves:>19.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
