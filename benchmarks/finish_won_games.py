"""Does the AI finish the games it has won? Adjudicated games played on to their end.

    python benchmarks/finish_won_games.py benchmarks/matches/droched-7-net-vs-dcd32dc.json \\
        [--games 12] [--simulations 100] [--max-moves 762] [--json FILE]

A match the referee adjudicated (``hexstones match --adjudicate``) stopped when both
engines agreed who had won. This takes the first ``--games`` adjudicated games of a match
JSON (``benchmarks/net_match.py --out``), replays each up to its adjudication, and plays
it on with the game's network search (``--simulations`` a move, both sides, one searcher,
reproducible) until the rules end it or ``--max-moves`` moves have been played in all.
Each position is played on twice, the two runs differing only in how the move is picked
from the same search:

* ``most visited``: the search's most visited move (the peer: how the AI picked before
  ``ai.finish``);
* ``best_move``: :func:`hexstones.ai.best_move`, what the levels play (in a game the last
  player to act wins, a won position's move is the one that leaves the opponent the
  fewest actions).

Prints, for each: games ended by the rules, those won by the side the referee named,
and the moves played on (median, largest) to the end. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time


def play_on(game, simulations: int, max_moves: int, pick) -> tuple[str | None, int]:
    """Play ``game`` on (in place) to its end or ``max_moves`` moves in all; the winner
    (None: unfinished) and the moves played on."""
    from hexstones import ai

    start = len(game.moves)
    while not game.is_over and len(game.moves) < max_moves:
        legal = game.legal_moves()
        if len(legal) == 1:
            game.play(legal[0])
            continue
        result = ai.search(game, iterations=simulations, seed=len(game.moves), engine="net",
                           reuse_key=("finish_won_games", game.to_move), analysis=False)
        game.play(pick(game, result.children, legal))
    outcome = game.outcome() if game.is_over else None
    return (outcome.winner if outcome else None), len(game.moves) - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("match", help="a match JSON with adjudicated games (net_match.py --out)")
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--max-moves", type=int, default=762)
    parser.add_argument("--json", help="write the figures and each game's moves here")
    args = parser.parse_args(argv)

    import hexstones
    from hexstones import ai

    data = json.load(open(args.match))
    summary, match = data["summary"], data["match"]
    games = [g for g in match["games"] if g.get("reason") == "adjudication"][:args.games]
    if not games:
        print("no adjudicated games in", args.match, file=sys.stderr)
        return 1
    pickers = {
        "most visited": lambda game, children, legal: children[0][0],
        "best_move": ai.best_move,
    }
    report: dict = {"match": args.match, "game": summary["game"], "size": summary["size"],
                    "simulations": args.simulations, "max_moves": args.max_moves, "runs": {}}
    for label, pick in pickers.items():
        rows = []
        began = time.perf_counter()
        for g in games:
            game = hexstones.new_game(summary["game"], size=summary["size"])
            for move in g["moves"]:
                game.play(move)
            winner, played = play_on(game, args.simulations, args.max_moves, pick)
            rows.append({"number": g["number"], "verdict": g["winner"], "winner": winner,
                         "adjudicated_after": len(g["moves"]), "played_on": played,
                         "moves": game.moves[len(g["moves"]):]})
            print(f"{label}: game {g['number']}: referee {g['winner']}, played on {played} "
                  f"moves: {winner or 'unfinished'}", file=sys.stderr, flush=True)
        ended = [r for r in rows if r["winner"]]
        lengths = [r["played_on"] for r in ended]
        figures = {
            "games": len(rows), "ended": len(ended),
            "won_by_referees_side": sum(r["winner"] == r["verdict"] for r in ended),
            "median_moves_to_end": statistics.median(lengths) if lengths else None,
            "most_moves_to_end": max(lengths) if lengths else None,
            "minutes": round((time.perf_counter() - began) / 60, 1),
        }
        report["runs"][label] = {"figures": figures, "games": rows}
        print(f"{label:>13}: {figures['ended']} of {figures['games']} ended by the rules "
              f"({figures['won_by_referees_side']} won by the referee's side), moves to the "
              f"end: median {figures['median_moves_to_end']}, most "
              f"{figures['most_moves_to_end']}; {figures['minutes']} min")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
