"""``hexstones solve GAME --size 3``: the perfect-play value of a position (side 3)."""

from __future__ import annotations

import argparse
import math
import sys
import time

HELP = "perfect play: the exact value of a position and of each move"
DESCRIPTION = ("Solve a position exactly: Black's final score minus White's when both maximise "
               "their margin (komi and the half point included), the margin after each legal "
               "move (one search per class of symmetric moves), the best moves, nodes and "
               "time. Keil and Dehil on side 3.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    from hexstones.commands import add_game

    add_game(p, options=True)
    p.add_argument("--moves", default="",
                   help="moves played before the position to solve, comma separated")
    p.add_argument("--checkpoint", help="JSON file of the moves solved so far: an interrupted "
                                        "run given the same file resumes where it stopped")
    p.add_argument("--table-bits", type=int, default=22,
                   help="log2 of the transposition table's slots (default 22: 512 MB; each "
                        "one more doubles it)")
    p.add_argument("--value-only", action="store_true",
                   help="stop once the value is known: a move shown to be no better than the "
                        "best keeps a bound instead of its exact margin")
    p.add_argument("--quiet", action="store_true", help="no progress lines on standard error")


def run(args: argparse.Namespace) -> int:
    from hexstones.commands import game_options
    from hexstones.games import IllegalMove, new_game
    from hexstones.solve import TooDeep, Unsupported, solve

    try:
        game = new_game(args.game, **game_options(args.game, args))
        for move in (m.strip() for m in args.moves.split(",")):
            if move:
                game.play(move)
        if not 10 <= args.table_bits <= 30:
            raise ValueError(f"--table-bits must be from 10 to 30, not {args.table_bits}")
    except (ValueError, IllegalMove) as exc:
        print(f"hexstones solve: {exc}", file=sys.stderr)
        return 2

    def progress(line: str) -> None:
        if not args.quiet:
            print(f"[{time.strftime('%H:%M:%S')}] {line}", file=sys.stderr, flush=True)

    try:
        solution = solve(game, table_bits=args.table_bits, checkpoint=args.checkpoint,
                         progress=progress, every_move=not args.value_only)
    except (Unsupported, TooDeep, ValueError) as exc:
        print(f"hexstones solve: {exc}", file=sys.stderr)
        return 2
    komi = getattr(game, "komi", 0)
    print(game)
    print(f"value: {solution.value:+g} (Black's score minus White's, komi {komi} included)")
    if solution.to_move is not None:
        print(f"best: {', '.join(solution.best)}")
        for members in solution.classes:
            print(f"  {' '.join(members)}: {solution.move_value(members[0])}")
    # At komi k the value is this one plus the game's komi minus k.
    at_zero = solution.value + komi
    print(f"Black wins with komi {math.floor(at_zero)} or less, White with "
          f"{math.ceil(at_zero)} or more")
    print(f"nodes: {solution.nodes:,}  time: {solution.seconds:.1f} s")
    return 0
