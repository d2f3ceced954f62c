"""``hexstones tournament``: a round-robin between AI configurations, with Elo."""

from __future__ import annotations

import argparse
import json
import sys

HELP = "round-robin between AI configurations, with Elo ratings"
DESCRIPTION = (
    "Every pair of players meets --games times in each game (colours alternating). Players: level:N "
    "(1-10), mcts:ITERATIONS, uct:ITERATIONS (plain UCT baseline), net:SIMULATIONS (network search), "
    "mcts:SECONDSs, uct:SECONDSs, net:SECONDSs, random; a net: player may name its weights, "
    "net:400@runs/keil/weights-9.npz (to compare two networks)."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    from hexstones.commands import balance_value
    from hexstones.games import GAME_NAMES
    from hexstones.studies.tournament import BACKENDS

    p.add_argument("players", nargs="+", metavar="PLAYER", help="e.g. level:3 level:4 uct:2000")
    p.add_argument("--game", dest="games", action="append", choices=GAME_NAMES,
                   help="a game to play (repeat for several; default all three)")
    p.add_argument("--size", type=int, help="board side for every game (default: each game's)")
    p.add_argument("--komi", type=balance_value,
                   help="the balance for every game: Keil and Dehil a komi for White, Droched "
                        "black stones in the prison (default: each game's; write a negative "
                        "komi as --komi=-2; 'fair': each game's value found even between the "
                        "AI's players on the side, docs/komi.md)")
    p.add_argument("--games", dest="games_per_pair", type=int, default=10,
                   help="games per pair of players in each game (default 10)")
    p.add_argument("--backend", choices=BACKENDS, default="local",
                   help="local process pool (default), serial, or a Ray cluster")
    p.add_argument("--workers", type=int, help="parallel games (default: all local cores)")
    p.add_argument("--ray-address", help="address of a running Ray cluster (default: start a local one)")
    p.add_argument("--ladder", action="store_true",
                   help="only neighbours in the player list meet (e.g. each level and the next)")
    p.add_argument("--seed", type=int, default=0)
    add_sample_plies(p)
    add_resign(p)
    p.add_argument("--json", metavar="FILE", help="write every game and the standings as JSON")
    p.add_argument("--records", metavar="FILE.jsonl",
                   help="append each game to this file as it ends (JSON lines), and count the "
                        "games of this very tournament already there (same players, games, "
                        "options, seed and weights), playing only the rest: the same command "
                        "run again continues a tournament stopped in any way")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def add_sample_plies(p) -> None:
    """The ``--sample-plies`` option of the commands that play tournament games."""
    p.add_argument("--sample-plies", type=int, default=0, metavar="K",
                   help="draw each game's first K moves in proportion to the search's visits "
                        "(varies the games of a player whose search draws no random numbers, "
                        "such as net:SIMULATIONS; default 0)")


def add_resign(p) -> None:
    """The ``--resign`` options of the commands that play tournament games."""
    p.add_argument("--resign", metavar="BELOW[:TURNS]",
                   help="a player resigns when its search gives it a win chance below BELOW "
                        "(e.g. 0.05) on TURNS of its turns in a row (default 3); for mcts:, "
                        "uct: and net: players. Ends lost games that would run long (Droched's "
                        "prison fights) early")
    p.add_argument("--resign-check", type=int, default=10, metavar="N",
                   help="with --resign: play every Nth game out instead, noting who would have "
                        "resigned, to count the resignations the result proves wrong "
                        "(default 10; 0: none)")


def resign_of(args: argparse.Namespace):
    """The :class:`~hexstones.session.Resign` that ``--resign`` asks for, or None;
    ValueError for a malformed value (the ranges are checked with the players)."""
    from hexstones.session import Resign

    if args.resign is None:
        return None
    below, turns = parse_resign(args.resign)
    return Resign(below, turns, args.resign_check)


def parse_resign(text: str, option: str = "--resign") -> tuple[float, int]:
    """``BELOW[:TURNS]`` (``--resign``, ``hexstones match --adjudicate``) as (below, turns),
    turns 3 if not given; ValueError for a malformed value (the ranges are checked by
    ``Resign.checked`` and ``Adjudication.check``)."""
    below, _, turns = text.partition(":")
    try:
        return float(below), int(turns) if turns else 3
    except ValueError:
        raise ValueError(f"{option} takes BELOW or BELOW:TURNS, e.g. 0.05:3, not "
                         f"{text!r}") from None


def run(args: argparse.Namespace) -> int:
    from hexstones.commands import balance_of
    from hexstones.games import GAME_NAMES
    from hexstones.studies import tournament as t
    from hexstones.studies.komi import balance_option

    games = args.games or list(GAME_NAMES)
    options: dict[str, dict] = {g: {} for g in games}
    try:
        for g in games:
            if args.size is not None:
                options[g]["size"] = args.size
            if args.komi is not None:
                options[g][balance_option(g)] = balance_of(g, args.komi, args.size)
        tasks = t.schedule(args.players, games, games_per_pair=args.games_per_pair,
                           seed=args.seed, options=options, ladder=args.ladder,
                           sample_plies=args.sample_plies, resign=resign_of(args))
        if args.workers is not None and args.workers < 1:
            raise ValueError(f"--workers must be at least 1, not {args.workers}")
        earlier, left = t.played_before(args.records, tasks) if args.records else ([], tasks)
    except (ValueError, OSError) as exc:
        print(f"hexstones tournament: {exc}", file=sys.stderr)
        return 2
    players = [t.parse_player(p).spec for p in args.players]
    bar = None if args.no_progress or not left else t.Progress(len(left), players)
    played = play_rest("tournament", args, len(tasks), earlier, left, bar)
    if isinstance(played, int):
        return played
    records, interrupted = played
    summary = t.standings(records, players)
    print(t.format_table(summary), end="")
    if args.json:
        out = {"players": players, "games": records, "standings": summary}
        if interrupted:
            out["interrupted"] = interrupted
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=1)
    return INTERRUPTED if interrupted else 0


# The shell's exit status for a command stopped by Ctrl-C (128 + SIGINT).
INTERRUPTED = 130


def play_rest(command: str, args: argparse.Namespace, scheduled: int, earlier: list, left: list,
              bar):
    """Play the tasks ``left`` of a run of ``scheduled`` games whose ``earlier`` ones were
    read from ``--records`` (where given, each game is appended there as it ends; ``bar``:
    the progress bar or None). Returns ``(records, interrupted)`` for the whole run, as
    :func:`play_tasks` does, or its exit status when there is nothing to report."""
    from hexstones.studies import tournament as t

    if earlier:
        print(f"hexstones {command}: {len(earlier)} games read from {args.records}, "
              f"{len(left)} left to play", file=sys.stderr)
    records, interrupted = list(earlier), None
    if left:
        progress = t.RecordWriter(args.records, bar) if args.records else bar
        played = play_tasks(command, args, left, progress)
        if isinstance(played, int):
            if not earlier:
                return played
            played = ([], {"games_finished": 0, "games_scheduled": len(left)})
        records += played[0]
        if played[1]:
            interrupted = {"games_finished": len(records), "games_scheduled": scheduled}
    return records, interrupted


def play_tasks(command: str, args: argparse.Namespace, tasks: list, progress):
    """Play the games of ``hexstones tournament`` or ``hexstones komi`` as ``args`` say.

    Returns ``(records, interrupted)``: on Ctrl-C the games finished so far, so that the
    command still reports and saves them, and ``interrupted`` says how many of how many
    (for the JSON output; None when every game was played). Returns an exit status
    instead when there is nothing to report: a backend that failed (1), or an interrupt
    before any game ended (130)."""
    from hexstones.studies import tournament as t

    try:
        records = t.run_tasks(tasks, backend=args.backend, workers=args.workers,
                              ray_address=args.ray_address,
                              on_result=progress.update if progress else None)
    except t.Interrupted as stop:
        if not stop.records:
            print(f"\nhexstones {command}: {stop}", file=sys.stderr)
            return INTERRUPTED
        print(f"\nhexstones {command}: {stop}; the results are of those games only",
              file=sys.stderr)
        return stop.records, {"games_finished": len(stop.records), "games_scheduled": stop.total}
    except RuntimeError as exc:
        print(f"hexstones {command}: {exc}", file=sys.stderr)
        return 1
    return records, None
