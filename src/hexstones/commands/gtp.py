"""``hexstones gtp``: speak GTP version 2 on stdin/stdout (docs/gtp.md)."""

from __future__ import annotations

import argparse
import os
import sys

HELP = "run as a GTP engine on stdin/stdout"
DESCRIPTION = (
    "Speak the Go Text Protocol (version 2) on stdin/stdout for Keil, Dehil or Droched. Vertices are "
    "docs/rules.md points (a1 ...) and pass/button/release; boardsize N is the hexhex side. See "
    "docs/gtp.md."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    from hexstones.commands import add_game_options
    from hexstones.games import GAME_NAMES

    p.add_argument("--game", choices=GAME_NAMES, default="keil", help="the game (default keil)")
    add_game_options(p)
    p.add_argument("--level", type=int, help="AI strength 1-10 for genmove (default 10)")
    p.add_argument("--seconds", type=float, help="search time per genmove, overriding the level's")
    p.add_argument("--iterations", type=int, help="search iterations per genmove, overriding the level's")
    p.add_argument("--seed", type=int, help="random seed, for repeatable play")
    p.add_argument("--player", choices=("ai", "random"), default="ai",
                   help="who answers genmove: the AI (default) or uniformly random legal moves")
    p.add_argument("--resign", metavar="BELOW[:TURNS]",
                   help="genmove answers resign once the search has given the engine's colour "
                        "a win chance below BELOW (e.g. 0.05) on TURNS of its genmoves in a row "
                        "(default 3); default: never")


def make_engine(args: argparse.Namespace, command: str):
    """The engine the arguments ask for, or None after printing why (exit code 2)."""
    from hexstones.commands import check_budget, game_options
    from hexstones.commands.tournament import parse_resign
    from hexstones.protocol.gtp import Engine

    try:
        options = game_options(args.game, args)
        check_budget(args)
        resign = None if args.resign is None else parse_resign(args.resign)
        return Engine(args.game, **options, level=args.level, seconds=args.seconds,
                      iterations=args.iterations, seed=args.seed, player=args.player,
                      resign=resign)
    except ValueError as exc:
        print(f"hexstones {command}: {exc}", file=sys.stderr)
        return None


def run(args: argparse.Namespace) -> int:
    from hexstones.protocol.gtp import serve

    engine = make_engine(args, "gtp")
    if engine is None:
        return 2
    try:
        return serve(engine, sys.stdin, sys.stdout)
    except BrokenPipeError:
        # The controller closed our output (it quit or died): nobody is left to answer, so
        # stop quietly, and point stdout at /dev/null so the exit's flush cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
