"""``hexstones match ENGINE1 ENGINE2``: two GTP engines play N games; report the result."""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import signal
import sys

HELP = "play two GTP engines against each other"
DESCRIPTION = (
    'Play GAMES games between two GTP engines (each a command line, e.g. "hexstones gtp --game keil '
    '--level 3"), colours alternating, the first engine black in game 1. This program is the referee:'
    " an illegal move, a failed command or a silent engine loses the game."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    from hexstones.commands import add_game_options
    from hexstones.games import GAME_NAMES

    p.add_argument("engine1", help="command that starts the first engine")
    p.add_argument("engine2", help="command that starts the second engine")
    p.add_argument("--game", choices=GAME_NAMES, default="keil", help="the game (default keil)")
    add_game_options(p)
    p.add_argument("--games", type=int, default=2, help="number of games (default 2)")
    p.add_argument("--first-game", type=int, default=1, metavar="N",
                   help="start at game N, to continue a stopped match: games N to GAMES are "
                        "played, colours as in the whole match (default 1)")
    p.add_argument("--max-moves", type=int, default=2000,
                   help="stop a game without result after this many moves (default 2000)")
    p.add_argument("--timeout", type=float, default=60.0,
                   help="seconds an engine may take for one answer (default 60; its first "
                        "genmove, which may compile its search, at least 600)")
    p.add_argument("--adjudicate", metavar="BELOW[:TURNS]",
                   help="end a game once both engines, asked after each of their moves "
                        "(kata-analyze), gave the same side a win chance of at most BELOW for "
                        "their last TURNS moves each (default 3); that side loses. Engines "
                        "without kata-analyze play every game out")
    p.add_argument("--adjudicate-seconds", type=float, default=0.2, metavar="S",
                   help="how long each such analysis runs (default 0.2)")
    p.add_argument("--openings", metavar="MOVES[:SEED]",
                   help="start each pair of games (1 and 2, 3 and 4, ...) from its own MOVES "
                        "random placements, the colours swapped between the two, so that "
                        "engines that always play the same game still play different ones; "
                        "SEED (default 1) draws the openings")
    p.add_argument("--sgf-dir", type=pathlib.Path, help="write each game's SGF record here")
    p.add_argument("--out", type=pathlib.Path, metavar="FILE",
                   help="keep the match in FILE (the --json report), rewritten as each game "
                        "ends: a match stopped in any way, even killed, keeps the games that "
                        "ended. Refused if FILE exists, unless with --resume")
    p.add_argument("--resume", action="store_true",
                   help="continue the match kept in --out FILE after its last game: the same "
                        "engine commands, game, options and --games; the report covers the "
                        "whole match")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


def parse_adjudication(text: str, seconds: float):
    """The :class:`~hexstones.session.Adjudication` that ``--adjudicate BELOW[:TURNS]``
    and ``--adjudicate-seconds`` ask for; ValueError for a malformed or out-of-range value."""
    from hexstones.commands.tournament import parse_resign
    from hexstones.session import Adjudication

    adjudicate = Adjudication(*parse_resign(text, "--adjudicate"), seconds)
    adjudicate.check()
    return adjudicate


def parse_openings(text: str):
    """The :class:`~hexstones.protocol.match.Openings` that ``--openings MOVES[:SEED]`` asks
    for; ValueError for a malformed or out-of-range value."""
    from hexstones.protocol.match import Openings

    moves, _, seed = text.partition(":")
    try:
        openings = Openings(int(moves), int(seed) if seed else 1)
    except ValueError:
        raise ValueError(f"--openings takes MOVES or MOVES:SEED, whole numbers, not {text!r}") from None
    openings.check()
    return openings


def run(args: argparse.Namespace) -> int:
    from hexstones.commands import game_options
    from hexstones.protocol.match import MatchResult, MatchStopped, play_match

    def fail(message: str) -> int:
        print(f"hexstones match: {message}", file=sys.stderr)
        return 2

    if args.games < 1:
        return fail(f"--games must be at least 1, not {args.games}")
    if args.max_moves < 1:
        return fail(f"--max-moves must be at least 1, not {args.max_moves}")
    if not args.timeout > 0:
        return fail(f"--timeout must be positive, not {args.timeout}")
    try:
        options = game_options(args.game, args)
        adjudicate = (None if args.adjudicate is None
                      else parse_adjudication(args.adjudicate, args.adjudicate_seconds))
        openings = None if args.openings is None else parse_openings(args.openings)
    except ValueError as exc:
        return fail(str(exc))
    earlier = None
    if args.resume:
        if args.out is None:
            return fail("--resume continues the match kept in --out FILE: name the file")
        if args.first_game != 1:
            return fail("--resume starts after the record's last game: leave out --first-game")
        try:
            earlier = MatchResult.from_json(json.loads(args.out.read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:  # json's errors are ValueErrors
            return fail(f"cannot continue the match in {args.out}: {exc}")
    elif args.out is not None and args.out.exists():
        return fail(f"{args.out} exists: --resume continues the match kept there, or name "
                    f"another file")
    if args.out is not None and not args.out.absolute().parent.is_dir():
        return fail(f"cannot write {args.out}: no folder {args.out.absolute().parent}")
    if args.sgf_dir is not None:
        try:
            args.sgf_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return fail(f"cannot create {args.sgf_dir}: {exc}")

    def keep(match, stopped: bool | None = None) -> None:
        """Write the match to --out, whole or not at all (a new file, then renamed)."""
        data = match.to_json() if stopped is None else {**match.to_json(), "stopped": stopped}
        partial = args.out.with_name(args.out.name + ".partial")
        partial.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        os.replace(partial, args.out)

    # On a terminal a line redrawn after each move shows the game under way (a game between
    # strong engines can take many minutes); a log gets only the line of each ended game.
    live = sys.stderr.isatty()
    clear = "\r\033[K" if live else ""

    def moved(number: int, game) -> None:
        print(f"{clear}game {number}, move {len(game.moves)}: {game.moves[-1]}",
              end="", file=sys.stderr, flush=True)

    def report(outcome, match) -> None:
        if args.sgf_dir is not None:
            (args.sgf_dir / f"game-{outcome.number:03d}.sgf").write_text(outcome.sgf, encoding="utf-8")
        if args.out is not None:
            keep(match)
        score = match.score()
        # Progress on stderr in either mode: a long match printing JSON shows it too.
        print(f"{clear}game {outcome.number}: {outcome.text or 'no result'} ({outcome.reason}, "
              f"{len(outcome.moves)} moves); engine 1 has {score['points']:g} of {score['games']}",
              file=sys.stderr, flush=True)

    def stop(signum, frame) -> None:
        raise KeyboardInterrupt

    # Ctrl-C, or a kill (SIGTERM), stops the match with the games that ended reported; a
    # match started in the background (`&`) would otherwise ignore SIGINT.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, stop)
    stopped = False
    try:
        match = play_match((args.engine1, args.engine2), game=args.game, games=args.games,
                           options=options, max_moves=args.max_moves, timeout=args.timeout,
                           on_game=report, first_game=args.first_game, adjudicate=adjudicate,
                           earlier=earlier, on_move=moved if live else None, openings=openings)
    except ValueError as exc:
        return fail(str(exc))
    except MatchStopped as exc:
        match, stopped = exc.match, True
        print(clear, end="", file=sys.stderr)  # the game under way is dropped: so is its line
    except KeyboardInterrupt:
        print("hexstones match: stopped before the engines were ready", file=sys.stderr)
        return 130
    if match is earlier:
        print(f"hexstones match: the match in {args.out} has all its {args.games} games",
              file=sys.stderr)
    elif adjudicate is not None and match.adjudicated_by is None:
        unable = " and ".join(f"engine {k + 1}" for k in (0, 1) if not match.analysts[k])
        print(f"hexstones match: no game was adjudicated: {unable} does not know kata-analyze",
              file=sys.stderr)
    if args.out is not None:
        keep(match, stopped)
    if args.json:
        print(json.dumps({**match.to_json(), "stopped": stopped}, indent=1))
    else:
        print(match.summary())
    if stopped:
        last = match.games[-1].number if match.games else args.first_game - 1
        rest = "--resume" if args.out is not None else f"--first-game {last + 1}"
        print(f"hexstones match: stopped after game {last} of {args.games}; "
              f"{rest} plays the rest", file=sys.stderr)
        return 130
    return 0
