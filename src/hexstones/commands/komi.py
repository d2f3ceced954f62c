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


HELP = "self-play across komi values to find the fair komi"
DESCRIPTION = (
    "The same AI plays both colours at each komi (Droched: black stones in the prison); prints "
    "Black's win rate per komi with 95% intervals and the komi nearest 50%, and can write the table "
    "as JSON and a plot as SVG."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    from hexstones.commands import add_game
    from hexstones.commands.tournament import add_resign, add_sample_plies
    from hexstones.studies.tournament import BACKENDS

    add_game(p)
    p.add_argument("--komi", dest="komis", type=_komi_list,
                   help="komi values: 0,2,4 or FIRST:LAST[:STEP] (default: a range per game); "
                        "write negative ones as --komi=-4:4")
    p.add_argument("--games", type=int, default=20, help="games per komi value (default 20)")
    p.add_argument("--player", help="the AI playing both sides (default level:5; with "
                                     "--report: the games of this player only)")
    add_sample_plies(p)
    add_resign(p)
    p.add_argument("--backend", choices=BACKENDS, default="local")
    p.add_argument("--workers", type=int)
    p.add_argument("--ray-address")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", metavar="FILE", help="write the table as JSON")
    p.add_argument("--plot", metavar="FILE.svg", help="write win rate against komi as SVG")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--records", metavar="FILE.jsonl",
                   help="append each finished game to this file as it ends, and count the "
                        "games already there (same game, size, komi and player; up to --games "
                        "at each komi), playing only the rest: a stopped study resumes where "
                        "it stopped, a longer one adds what it lacks; with --from-net: show "
                        "that file's games (a self-play study's) beside the curve")
    p.add_argument("--report", action="store_true",
                   help="play nothing: report the games already in --records (the table, "
                        "--json and --plot), at the --komi values given or every one there")
    net = p.add_argument_group(
        "the value head's fair komi (--from-net)",
        "Ask the game's network for Black's win chance at each komi of the range instead of "
        "playing games, and interpolate where it crosses 50%.")
    net.add_argument("--from-net", action="store_true",
                     help="the network's value at the start of a game at each komi")
    net.add_argument("--simulations", type=int,
                     help="with --from-net: the network search's root value after this many "
                          "simulations (reproducible) instead of one evaluation")
    net.add_argument("--force", action="store_true",
                     help="with --from-net: ask the network even on a side it was not trained on")


def run(args: argparse.Namespace) -> int:
    from hexstones.commands.tournament import INTERRUPTED, play_rest, resign_of
    from hexstones.games import game_class
    from hexstones.studies import komi as ks, tournament as t

    size = args.size if args.size is not None else game_class(args.game).default_size
    komis = args.komis or ks.default_komis(args.game)
    if args.from_net:
        return _from_net(args, size, komis)
    if args.report:
        return _report(args, size)
    args.player = args.player or "level:5"
    if args.simulations is not None or args.force:
        print("hexstones komi: --simulations and --force go with --from-net",
              file=sys.stderr)
        return 2
    try:
        tasks = ks.study_tasks(args.game, size, komis, games_per_komi=args.games,
                               player=args.player, seed=args.seed,
                               sample_plies=args.sample_plies, resign=resign_of(args))
        if args.workers is not None and args.workers < 1:
            raise ValueError(f"--workers must be at least 1, not {args.workers}")
        earlier = ks.read_records(args.records, tasks) if args.records else []
    except (ValueError, OSError) as exc:
        print(f"hexstones komi: {exc}", file=sys.stderr)
        return 2
    left = ks.left_to_play(tasks, earlier)
    bar = (None if args.no_progress or not left
           else t.Progress(len(left), [left[0]["black"]], black_wins=True))
    played = play_rest("komi", args, len(tasks), earlier, left, bar)
    if isinstance(played, int):
        return played
    records, interrupted = played
    _show(args, ks.summarise(args.game, size, records), interrupted)
    return INTERRUPTED if interrupted else 0


def _show(args: argparse.Namespace, summary: dict, interrupted: dict | None = None) -> None:
    """The study's table on stdout, and its ``--json`` and ``--plot`` files."""
    from hexstones.studies import komi as ks

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


def _from_net(args: argparse.Namespace, size: int, komis: list[int]) -> int:
    """The value head's curve; with ``--records``, a self-play study's games beside it."""
    from hexstones.studies import komi as ks, komi_net

    try:
        selfplay = None
        if args.records:
            games = ks.recorded_games(args.records, args.game, size, player=args.player)
            selfplay = ks.summarise(args.game, size, games)
        curve = komi_net.value_curve(args.game, size, komis, simulations=args.simulations,
                                     seed=args.seed, force=args.force)
    except (ValueError, OSError) as exc:  # NotTrained included
        print(f"hexstones komi: {exc}", file=sys.stderr)
        return 2
    print(komi_net.format_curve(curve), end="")
    if selfplay is not None:
        print(ks.format_table(selfplay), end="")
        curve["selfplay"] = {k: v for k, v in selfplay.items() if k != "fair_row"}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(curve, fh, indent=1)
    if args.plot:
        with open(args.plot, "w", encoding="utf-8") as fh:
            fh.write(komi_net.plot_curve(curve, selfplay))
    return 0


def _report(args: argparse.Namespace, size: int) -> int:
    """``--report``: the study's table, JSON and plot from its records file, no game played."""
    from hexstones.studies import komi as ks

    try:
        if not args.records:
            raise ValueError("--report reads the games of --records FILE.jsonl: name the file")
        games = ks.recorded_games(args.records, args.game, size, player=args.player,
                                  komis=args.komis)
    except (ValueError, OSError) as exc:
        print(f"hexstones komi: {exc}", file=sys.stderr)
        return 2
    _show(args, ks.summarise(args.game, size, games))
    return 0
