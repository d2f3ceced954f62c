"""``hexstones show GAME``: print a game's empty board in the terminal."""

from __future__ import annotations

import argparse
import sys


def add_parser(sub) -> None:
    from hexstones.games import GAME_NAMES

    p = sub.add_parser("show", help="print a game's board in the terminal",
                       description="Print the starting position of a game as text.")
    p.add_argument("game", choices=GAME_NAMES)
    p.add_argument("--size", type=int, help="board side (3-13)")


def run(args: argparse.Namespace) -> int:
    import hexstones

    opts = {} if args.size is None else {"size": args.size}
    try:
        game = hexstones.new_game(args.game, **opts)
    except ValueError as exc:
        print(f"hexstones show: {exc}", file=sys.stderr)
        return 2
    print(game)
    return 0
