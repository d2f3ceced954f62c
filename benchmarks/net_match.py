"""Strength of the network-guided search: GTP matches, each engine pinned to its own core.

    python benchmarks/net_match.py --baseline "/tmp/venv-dcd/bin/hexstones gtp" \\
        [--game keil --size 5] [--games 40] [--seconds 1] [--net-seconds 1]

Plays ``hexstones match`` (this package's referee, :mod:`hexstones.protocol.match`)
between

* the candidate: this checkout's ``hexstones gtp --level 10 --seconds S`` (the network
  search where the game has weights: shipped, or ``$HEXSTONES_NETWORK_DIR/<game>.npz``),
  pinned with ``taskset`` to one core;
* the baseline: any GTP engine command (the issue's: the classic search as at commit
  dcd32dc, installed in its own venv: ``git worktree add /tmp/dcd32dc dcd32dc``, then
  ``python3.11 -m venv /tmp/venv-dcd && /tmp/venv-dcd/bin/pip install -e /tmp/dcd32dc``),
  given ``--game``, ``--size`` and ``--seconds``, pinned to another core;

colours alternating, and prints the candidate's win rate with its 95% Wilson interval and
the Elo difference (with the interval's ends as Elo). ``--baseline self`` plays the
candidate at ``--seconds`` against itself at ``--net-seconds`` (the scaling figure:
4 s against 1 s). Progress goes to stderr game by game; ``--out`` keeps the JSON, rewritten
after every game. Stopped early (Ctrl-C, SIGINT or SIGTERM: some Droched games run to
hundreds of moves), the match ends after the games already played, and these are
summarised, written and recorded as a match of that many games (``stopped_after``).
``--resume`` continues the match kept in ``--out`` after its last game (colours keep
alternating; a match already over is only summarised, and recorded with
``--record-into``); ``--first-game N --prior-points P`` continues one whose first N-1
games were not kept, the candidate having scored P in them (counted in the summary as
``prior_games`` / ``prior_points``).

``--adjudicate BELOW[:TURNS]`` has the referee end a game that both engines agree is lost
(:class:`hexstones.session.Adjudication`): with ``--resign`` for the candidate it
keeps Droched games, which the side ahead does not hurry, to a few hundred moves.

``--record-into WEIGHTS.npz`` writes the match into that network file's metadata (under
``matches``, by board side), and says whether the match is won (the 95% interval's lower
end above 50%) against a baseline other than ``self``. A won match is the evidence for
shipping the weights on that side: the levels and the analysis play them there by
default once the side is named in ``NETWORK_PLAYS`` (:mod:`hexstones.ai.levels`), which
the metadata does not change.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import sys
import time


def elo_of(share: float) -> float:
    """The Elo difference, finite (about +-2400) at a clean sweep, for the JSON."""
    from hexstones.studies.elo import elo_difference

    return elo_difference(min(max(share, 1e-6), 1 - 1e-6))


def main() -> None:
    from hexstones.commands.match import parse_adjudication, parse_openings
    from hexstones.protocol.match import play_match
    from hexstones.studies.elo import wilson_interval

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", required=True,
                    help="the baseline's GTP command (without --game/--size/--seconds), or 'self'")
    ap.add_argument("--game", default="keil")
    ap.add_argument("--size", type=int, default=5)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seconds", type=float, default=1.0, help="the baseline's time a move")
    ap.add_argument("--net-seconds", type=float, default=1.0, help="the candidate's time a move")
    ap.add_argument("--level", type=int, default=10, help="the candidate's level")
    ap.add_argument("--resign", metavar="BELOW[:TURNS]",
                    help="the candidate resigns a lost game (hexstones gtp --resign); give the "
                         "baseline's own in --baseline")
    ap.add_argument("--adjudicate", metavar="BELOW[:TURNS]",
                    help="the referee ends a game once both engines, asked after each of their "
                         "moves (kata-analyze), gave one side at most BELOW for TURNS moves each "
                         "(hexstones match --adjudicate)")
    ap.add_argument("--adjudicate-seconds", type=float, default=0.2,
                    help="each of those analyses' time (default 0.2)")
    ap.add_argument("--openings", metavar="MOVES[:SEED]",
                    help="each pair of games starts from its own random placements "
                         "(hexstones match --openings)")
    ap.add_argument("--cores", default="0,1", help="the two cores: candidate's, baseline's")
    ap.add_argument("--out", help="write the match's JSON here")
    ap.add_argument("--resume", action="store_true",
                    help="continue the match kept in --out after its last game")
    ap.add_argument("--first-game", type=int, default=1,
                    help="the first game's number (a match whose earlier games were not kept)")
    ap.add_argument("--prior-points", type=float, default=0.0,
                    help="the candidate's points in the games before --first-game")
    ap.add_argument("--record-into", metavar="WEIGHTS",
                    help="record the match in this network file's metadata (see above)")
    args = ap.parse_args()
    core_a, core_b = args.cores.split(",")
    adjudicate = openings = None
    try:
        if args.adjudicate:
            adjudicate = parse_adjudication(args.adjudicate, args.adjudicate_seconds)
        if args.openings:
            openings = parse_openings(args.openings)
    except ValueError as exc:
        ap.error(str(exc))
    # The candidate plays the network: the shipped weights unless a folder is named (chosen
    # so, they play levels 9 and 10 on every side, not only where ai.levels.NETWORK_PLAYS
    # names the side).
    from hexstones.ai.net import weights_path

    os.environ.setdefault("HEXSTONES_NETWORK_DIR", str(weights_path(args.game).parent))
    where = f"--game {args.game} --size {args.size}"
    candidate = (f"taskset -c {core_a} {shlex.quote(sys.executable)} -m hexstones.cli gtp {where} "
                 f"--level {args.level} --seconds {args.net_seconds}")
    if args.resign:
        candidate += f" --resign {shlex.quote(args.resign)}"
    if args.baseline == "self":
        baseline = (f"taskset -c {core_b} {shlex.quote(sys.executable)} -m hexstones.cli gtp "
                    f"{where} --level {args.level} --seconds {args.seconds}")
    else:
        baseline = f"taskset -c {core_b} {args.baseline} {where} --seconds {args.seconds}"
    print(f"candidate: {candidate}\nbaseline:  {baseline}", file=sys.stderr)
    start = time.time()
    from hexstones.protocol.match import MatchResult

    done = MatchResult(("candidate", "baseline"), (candidate, baseline))
    prior_games, prior_points = args.first_game - 1, args.prior_points
    earlier_minutes = 0.0  # the kept games' time, when resumed
    if args.resume:
        if not args.out or not os.path.exists(args.out):
            ap.error("--resume needs the --out file of the match to continue")
        kept = load_match(args.out, done)
        prior_games, prior_points = kept.get("prior_games", 0), kept.get("prior_points", 0.0)
        earlier_minutes = kept.get("minutes", 0.0)
    if not 0 <= prior_points <= prior_games:
        ap.error("--prior-points must be between 0 and the number of games before --first-game")
    first_game = prior_games + len(done.games) + 1
    if first_game > args.games and not args.resume:
        ap.error(f"the match has its {args.games} games already")

    def summarise() -> dict:
        games = prior_games + len(done.games)
        won = prior_points + done.wins(0) + 0.5 * done.unfinished
        low, high = wilson_interval(won, games)
        share = won / games
        return {
            "game": args.game, "size": args.size, "games": games, "candidate_points": won,
            "win_rate": round(share, 3), "ci95": [round(low, 3), round(high, 3)],
            "elo": round(elo_of(share)), "elo_ci95": [round(elo_of(low)), round(elo_of(high))],
            "candidate": candidate, "baseline": baseline,
            "minutes": round(earlier_minutes + (time.time() - start) / 60, 1),
            "network_dir": os.environ.get("HEXSTONES_NETWORK_DIR"),
            **({"adjudication": adjudicate._asdict(),
                "adjudicated": sum(1 for g in done.games if g.reason == "adjudication")}
               if adjudicate else {}),
            **({"openings": openings._asdict()} if openings else {}),
            **({"prior_games": prior_games, "prior_points": prior_points} if prior_games else {}),
        }

    def write_out(summary: dict) -> None:
        if args.out:
            with open(args.out + ".tmp", "w", encoding="utf-8") as f:
                json.dump({"summary": summary, "match": done.to_json()}, f, indent=1)
            os.replace(args.out + ".tmp", args.out)

    def report(outcome, match) -> None:
        done.games.append(outcome)
        summary = summarise()
        print(f"game {outcome.number}/{args.games}: {outcome.text or 'no result'} "
              f"({outcome.reason}, {len(outcome.moves)} moves); candidate "
              f"{summary['candidate_points']:g} of {summary['games']}, "
              f"{time.time() - start:.0f} s", file=sys.stderr, flush=True)
        write_out(summary)

    def stop(signum, frame) -> None:
        raise KeyboardInterrupt

    # A match started in the background ignores SIGINT unless asked; SIGTERM stops it too.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, stop)
    try:
        if first_game > args.games:  # resumed when over (to --record-into it): nothing to play
            raise KeyboardInterrupt
        # Long enough for a first move that compiles (the engines' numba caches warm).
        play_match((candidate, baseline), game=args.game, games=args.games,
                   options={"size": args.size}, timeout=900.0,
                   names=("candidate", "baseline"), on_game=report, first_game=first_game,
                   adjudicate=adjudicate, openings=openings)
        stopped = False
    except KeyboardInterrupt:
        stopped = True
        if not done.games:
            print("stopped before the first game ended: nothing to report", file=sys.stderr)
            sys.exit(130)
    summary = summarise()
    if stopped and summary["games"] < args.games:
        summary["stopped_after"] = summary["games"]
    print(json.dumps(summary))
    write_out(summary)
    if args.record_into:
        record_match(args.record_into, summary, " ".join(shlex.quote(a) for a in sys.argv),
                     against_classic=args.baseline != "self")


def load_match(path: str, into) -> dict:
    """Read the games of the match kept in ``path`` into ``into`` (a MatchResult labelled
    candidate / baseline); return the file's summary."""
    from hexstones.protocol.match import MatchResult

    with open(path, encoding="utf-8") as f:
        kept = json.load(f)
    into.games.extend(MatchResult.from_json(kept["match"]).games)
    return kept["summary"]


def record_match(path: str, summary: dict, command: str, against_classic: bool) -> None:
    """Write the match into the metadata of the network file ``path``, and say whether it
    is won against another engine: the evidence for naming the side in
    ``hexstones.ai.levels.NETWORK_PLAYS``, which decides where shipped weights play."""
    from hexstones.ai.net import read_network

    network = read_network(path)
    size = int(summary["size"])
    record = {key: summary[key] for key in ("games", "candidate_points", "win_rate", "ci95",
                                            "elo", "elo_ci95", "baseline", "minutes")}
    record["command"] = "python " + command
    for key in ("stopped_after", "prior_games", "prior_points", "adjudication", "adjudicated",
                "openings"):
        if key in summary:
            record[key] = summary[key]
    network.meta.setdefault("matches", {})[str(size)] = record
    won = against_classic and summary["ci95"][0] > 0.5
    network.save(path)
    print(f"recorded in {path}: side {size}, "
          + (f"won: name side {size} in hexstones.ai.levels.NETWORK_PLAYS to play it there "
             "by default" if won else "not a won match"),
          file=sys.stderr)


if __name__ == "__main__":
    main()
