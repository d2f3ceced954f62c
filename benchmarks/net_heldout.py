"""How a network does on teacher games it never trained on, against an untrained peer.

    python benchmarks/net_heldout.py GAME FILE.jsonl [FILE.jsonl ...] [--skip N] [--every K]
        [--weights W.npz [--weights W2.npz ...]]

Reads teacher games (the JSON lines of ``hexstones train``'s teacher, ``OUT/teacher``),
skipping the first ``--skip`` of each file (the ones the network trained on) or, with
``--every K``, keeping only every K-th game (what a run with ``holdout_every`` K held
out), and prints for the shipped network (or each ``--weights``, on the same games) and
for a random network of the same shape as the first:
policy top-1 agreement with the teacher's most visited move, policy cross-entropy
against the visit distribution, value sign accuracy on decided games and value squared
error. Needs the ``train`` extra (the figures are computed by the training module).
"""

from __future__ import annotations

import argparse

from hexstones.ai.net import load_network, random_network, read_network
from hexstones.train.data import read_records
from hexstones.train.loop import heldout_figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--skip", type=int, default=0)
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--weights", action="append", default=[])
    a = ap.parse_args()
    nets = [(w, read_network(w)) for w in a.weights] or [("shipped", load_network(a.game))]
    if nets[0][1] is None:
        raise SystemExit(f"no network ships for {a.game}: give --weights")
    records = [r for path in a.files
               for j, r in enumerate(read_records(path, a.skip), start=a.skip)
               if j % a.every == a.every - 1]
    first = nets[0][1]
    peer = random_network(a.game, **{k: first.config[k] for k in ("channels", "blocks")})
    print(f"{len(records)} held-out games")
    for label, n in nets + [("random", peer)]:
        f = heldout_figures(n, records)
        print(f"  {label}: {f['positions']} positions, policy top-1 {f.get('policy_top1', 0):.3f}, "
              f"policy CE {f.get('policy_ce', 0):.3f}, value accuracy {f.get('value_accuracy', 0):.3f}, "
              f"value MSE {f.get('value_mse', 0):.3f}", flush=True)


if __name__ == "__main__":
    main()
