"""Black's win rate by balance (komi, prison stones) in a training run's self-play games.

    python benchmarks/selfplay_balance.py RUN_DIR [--last N] [--size S]

Reads the replay buffer of ``RUN_DIR/checkpoint.pt`` (what ``hexstones train`` keeps; needs
PyTorch) and prints, for each balance the self-play games began with, the games, Black's
wins and win rate with its 95% Wilson interval, and the mean game length. The games are
noisy (root noise, the first moves drawn by visits) and played by the networks of every
iteration the buffer still holds (``--last N``: only its N newest games), so this is a
first look at what the balance does, not a fair-komi estimate.
"""

from __future__ import annotations

import argparse
from collections import defaultdict


def main() -> None:
    import torch

    from hexstones.studies.elo import wilson_interval

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="a hexstones train output folder")
    ap.add_argument("--last", type=int, default=0, help="only the N newest self-play games")
    ap.add_argument("--size", type=int, default=0, help="only games of this board side")
    args = ap.parse_args()
    state = torch.load(f"{args.run}/checkpoint.pt", map_location="cpu", weights_only=False)
    records = [r for r in state["buffer"]["records"] if r.get("by") == "selfplay"
               and (not args.size or r["size"] == args.size)]
    if args.last:
        records = records[-args.last:]
    if not records:
        raise SystemExit("no self-play games in that run's buffer")
    option = next(iter(records[0]["options"]))
    by_balance: dict[float, list[int]] = defaultdict(lambda: [0, 0, 0])
    for r in records:
        row = by_balance[r["options"][option]]
        row[0] += 1
        row[1] += r["winner"] == "black"
        row[2] += len(r["moves"])
    print(f"{records[0]['game']}, {len(records)} self-play games; {option}: games, Black wins, "
          f"Black's win rate (95% interval), mean moves")
    for value in sorted(by_balance):
        games, black, moves = by_balance[value]
        low, high = wilson_interval(black, games)
        print(f"{value:>6g}  {games:>5}  {black:>5}  {100 * black / games:5.1f} % "
              f"({100 * low:.0f}-{100 * high:.0f} %)  {moves / games:6.1f}")


if __name__ == "__main__":
    main()
