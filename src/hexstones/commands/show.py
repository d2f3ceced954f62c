"""``hexstones show GAME``: print a game's empty board in the terminal."""

from __future__ import annotations

import argparse
import sys

HELP = "print a game's board in the terminal"
DESCRIPTION = "Print the starting position of a game as text."


def add_arguments(p: argparse.ArgumentParser) -> None:
    from hexstones.commands import add_game

    add_game(p)


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
