"""How a network does on teacher games it never trained on, against an untrained peer.

    python benchmarks/net_heldout.py GAME FILE.jsonl [FILE.jsonl ...] [--skip N] [--weights W.npz]

Reads teacher games (the JSON lines of ``hexstones train``'s teacher, ``OUT/teacher``),
skipping the first ``--skip`` of each file (the ones the network trained on), and prints
for the shipped network (or ``--weights``) and for a random network of the same shape:
policy top-1 agreement with the teacher's most visited move, policy cross-entropy
against the visit distribution, value sign accuracy on decided games and value squared
error. Needs the ``train`` extra (the figures are computed by the training module).
"""

from __future__ import annotations

import argparse

from hexstones.ai.net import load_network, random_network, read_network
from hexstones.ai.training.data import read_records
from hexstones.ai.training.loop import heldout_figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--skip", type=int, default=0)
    ap.add_argument("--weights")
    a = ap.parse_args()
    net = read_network(a.weights) if a.weights else load_network(a.game)
    if net is None:
        raise SystemExit(f"no network ships for {a.game}: give --weights")
    records = [r for path in a.files for r in read_records(path, a.skip)]
    peer = random_network(a.game, **{k: net.config[k] for k in ("channels", "blocks")})
    print(f"{len(records)} held-out games; {net}")
    for label, n in (("trained", net), ("random", peer)):
        f = heldout_figures(n, records)
        print(f"  {label:>8}: {f['positions']} positions, policy top-1 {f.get('policy_top1', 0):.3f}, "
              f"policy CE {f.get('policy_ce', 0):.3f}, value accuracy {f.get('value_accuracy', 0):.3f}, "
              f"value MSE {f.get('value_mse', 0):.3f}")


if __name__ == "__main__":
    main()
