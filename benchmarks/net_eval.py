"""Network evaluations per second on one core: numpy, the compiled (numba) forward pass,
and PyTorch (when installed), at batch 1 and a larger batch, in the same run.

    python benchmarks/net_eval.py [--game keil] [--sizes 5,7,9] [--batch 32] [--seconds 2]
                                  [--weights shipped|random]
    python benchmarks/net_eval.py --shapes 4x32,6x48 [--sizes 5] [--batch 8]

Every evaluator is held to one thread (the search runs one per core); rates are per
second of the process's own CPU time. Compiling and
torch's first call happen first and are not timed. Also times ``write_features`` (the
encoding of one position from a core state), which a search pays per leaf too.

``--shapes BLOCKSxCHANNELS,...`` instead compares networks of those shapes (random
weights: the same arithmetic as trained ones) through ``Network.evaluate``, what the
search calls, at batch 1 and ``--batch`` (the search's is 8), each against the first.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import hexstones  # noqa: E402
from hexstones.ai.net import geometry_of, load_network, random_network  # noqa: E402
from hexstones.games.observation import NUM_FEATURES, features_of, write_features  # noqa: E402

try:
    from hexstones.train.model import torch_index
except ImportError:  # no PyTorch: numpy and numba only
    torch_index = None


def rate(fn, seconds: float) -> float:
    """Calls per second of this process's own CPU time (the machine is shared: wall-clock
    rates would measure the neighbours)."""
    fn()
    n, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        fn()
        n += 1
    return n / (time.process_time() - start)


def positions(name: str, size: int, count: int) -> np.ndarray:
    rng = np.random.default_rng(size)
    out = []
    for _ in range(count):
        game = hexstones.new_game(name, size=size)
        for _ in range(int(rng.integers(0, 2 * size * size))):
            if game.is_over:
                break
            moves = game.legal_moves()
            game.play(moves[int(rng.integers(len(moves)))])
        out.append(features_of(game))
    return np.stack(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="keil")
    ap.add_argument("--sizes", default="5,7,9")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--weights", choices=("shipped", "random"), default="shipped")
    ap.add_argument("--shapes", help="compare network shapes, e.g. 4x32,6x48")
    a = ap.parse_args()
    if a.shapes:
        compare_shapes(a.game, [int(s) for s in a.sizes.split(",")], a.shapes, a.batch, a.seconds)
        return
    net = load_network(a.game) if a.weights == "shipped" else None
    net = net or random_network(a.game)
    print(f"{net}; one thread; positions/s (higher is better)")
    try:
        import torch

        from hexstones.train.model import torch_net
        torch.set_num_threads(1)
        tnet = torch_net(net).eval()
    except ImportError:
        torch = tnet = None
    for size in [int(s) for s in a.sizes.split(",")]:
        measure(net, tnet, torch, a.game, size, a.batch, a.seconds)


def measure(net, tnet, torch, name: str, size: int, batch_size: int, seconds: float) -> None:
    game = hexstones.new_game(name, size=size)
    nbr = geometry_of(game)
    feats = positions(name, size, batch_size)
    door = game.compiled()
    out = np.empty((door.num_points, NUM_FEATURES), np.float32)
    enc = rate(lambda: write_features(door.geometry, door.state, 0.0, out), seconds)
    row = {}
    labels = ("batch 1", f"batch {batch_size}")
    idx = torch_index(nbr) if torch is not None else None

    def run_torch(b):
        with torch.no_grad():
            tnet(torch.from_numpy(b), idx)
    for label, batch in zip(labels, (feats[:1], feats)):
        B = len(batch)
        row[("numpy", label)] = B * rate(lambda b=batch: net.evaluate_numpy(b, nbr), seconds)
        row[("numba", label)] = B * rate(lambda b=batch: net.evaluate_compiled(b, nbr), seconds)
        if torch is not None:
            row[("torch", label)] = B * rate(lambda b=batch: run_torch(b), seconds)
    print(f"\nside {size} ({door.num_points} points); write_features {enc:,.0f}/s")
    for label in labels:
        base = row[("numpy", label)]
        parts = [f"{k} {row[(k, label)]:8,.0f}/s ({row[(k, label)] / base:4.2f}x numpy)"
                 for k in ("numpy", "numba", "torch") if (k, label) in row]
        print(f"  {label:>9}: " + "   ".join(parts))


def compare_shapes(name: str, sizes: list[int], shapes: str, batch_size: int, seconds: float) -> None:
    nets = []
    for shape in shapes.split(","):
        blocks, channels = (int(x) for x in shape.lower().split("x"))
        nets.append(random_network(name, blocks=blocks, channels=channels))
    print("one thread; positions/s of Network.evaluate (higher is better)")
    for size in sizes:
        game = hexstones.new_game(name, size=size)
        nbr = geometry_of(game)
        feats = positions(name, size, batch_size)
        print(f"\nside {size}")
        base: dict[int, float] = {}
        for net in nets:
            parts = []
            for batch in (feats[:1], feats):
                got = len(batch) * rate(lambda b=batch, n=net, g=nbr: n.evaluate(b, g), seconds)
                base.setdefault(len(batch), got)
                parts.append(f"batch {len(batch)}: {got:8,.0f}/s ({got / base[len(batch)]:4.2f}x)")
            print(f"  {net.config['blocks']} x {net.config['channels']:<3} "
                  f"({sum(p.size for p in net.params.values()):,} parameters)  " + "   ".join(parts))


if __name__ == "__main__":
    main()
