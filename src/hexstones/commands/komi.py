"""``hexstones komi GAME --size N``: the fair-komi self-play study."""

from __future__ import annotations

import argparse
import json
import sys


def _komi_list(text: str) -> list[int]:
    """``0,2,4`` or a range ``0:10`` (inclusive) or ``0:10:2``."""
    try:
        if ":" in text:
            parts = [int(x) for x in text.split(":")]
            if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] < 1):
                raise ValueError
            step = parts[2] if len(parts) == 3 else 1
            values = list(range(parts[0], parts[1] + 1, step))
        else:
            values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give komi values as 0,2,4 or a range FIRST:LAST or FIRST:LAST:STEP") from None
    if not values:
        raise argparse.ArgumentTypeError(f"{text!r} holds no komi value")
    return values


def add_parser(sub) -> None:
    from hexstones.ai.tournament import BACKENDS
    from hexstones.games import GAME_NAMES

    p = sub.add_parser(
        "komi", help="self-play across komi values to find the fair komi",
        description="The same AI plays both colours at each komi (Droched: black stones in "
                    "the prison); prints Black's win rate per komi with 95% intervals and the "
                    "komi nearest 50%, and can write the table as JSON and a plot as SVG.")
    p.add_argument("game", choices=GAME_NAMES)
    p.add_argument("--size", type=int, help="board side (default: the game's)")
    p.add_argument("--komi", dest="komis", type=_komi_list,
                   help="komi values: 0,2,4 or FIRST:LAST[:STEP] (default: a range per game); "
                        "write negative ones as --komi=-4:4")
    p.add_argument("--games", type=int, default=20, help="games per komi value (default 20)")
    p.add_argument("--player", default="level:5", help="the AI playing both sides (default level:5)")
    p.add_argument("--backend", choices=BACKENDS, default="local")
    p.add_argument("--workers", type=int)
    p.add_argument("--ray-address")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", metavar="FILE", help="write the table as JSON")
    p.add_argument("--plot", metavar="FILE.svg", help="write win rate against komi as SVG")
    p.add_argument("--no-progress", action="store_true")


def run(args: argparse.Namespace) -> int:
    from hexstones.ai import komi_study as ks, tournament as t
    from hexstones.commands.tournament import INTERRUPTED, play_tasks
    from hexstones.games import game_class

    size = args.size if args.size is not None else game_class(args.game).default_size
    komis = args.komis or ks.default_komis(args.game)
    try:
        tasks = ks.study_tasks(args.game, size, komis, games_per_komi=args.games,
                               player=args.player, seed=args.seed)
        if args.workers is not None and args.workers < 1:
            raise ValueError(f"--workers must be at least 1, not {args.workers}")
    except ValueError as exc:
        print(f"hexstones komi: {exc}", file=sys.stderr)
        return 2
    progress = None if args.no_progress else t.Progress(len(tasks), [tasks[0]["black"]], black_wins=True)
    played = play_tasks("komi", args, tasks, progress)
    if isinstance(played, int):
        return played
    records, interrupted = played
    summary = ks.summarise(args.game, size, records)
    print(ks.format_table(summary), end="")
    if args.json:
        out = {k: v for k, v in summary.items() if k != "fair_row"}
        if interrupted:
            out["interrupted"] = interrupted
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=1)
    if args.plot:
        with open(args.plot, "w", encoding="utf-8") as fh:
            fh.write(ks.plot(summary))
    return INTERRUPTED if interrupted else 0
