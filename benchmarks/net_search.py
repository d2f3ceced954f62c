"""Speed of the network-guided search, with the classic search measured in the same run.

    python benchmarks/net_search.py [--game keil] [--size 5] [--seconds 5] [--cores 1,2]

For each core count (the process and its children pinned with ``taskset`` to the first
N cores, numpy's BLAS threads set to N), prints:

* network evaluations/s at batch 1 and at the search's batch (and 4x that), by numpy's
  forward pass (``Network.evaluate``) and by the compiled one the search uses
  (``compiled_``), on the game's shipped network (or a random one of the same shape
  where none ships: the same arithmetic);
* simulations/s of the full network search (one searcher per core, leaf batches of
  ``puct.BATCH``), from an early-game position;
* iterations/s of the classic MCTS from the same position (its peer).

Each rate also comes per second of the process's CPU time (``_per_cpu_s``): on a shared,
loaded machine the wall-clock rates say more about the load than the code. (With two
searchers the CPU-time rate adds both threads' time: the parallel gain shows only in the
wall-clock rates.)

Compiling happens first and is not timed. Figures: docs/ai.md and benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time


def position(game_name: str, size: int):
    import hexstones

    game = hexstones.new_game(game_name, size=size)
    legal = game.legal_moves()
    for i in range(4):  # a few opening moves, the same every run
        game.play(legal[(7 * i + size) % len(legal)])
        legal = game.legal_moves()
    return game


def measure(game_name: str, size: int, seconds: float) -> dict:
    import numpy as np

    from hexstones.ai import mcts, puct
    from hexstones.ai.net import load_network, random_network
    from hexstones.games.observation import NUM_FEATURES, features_of

    game = position(game_name, size)
    net = load_network(game_name)
    shipped = net is not None
    if net is None:
        net = random_network(game_name)
    nbr = game.compiled().geometry.nbr
    P = game.board.num_points
    one = features_of(game)[None]
    out: dict = {"game": game_name, "size": size, "network": repr(net), "shipped": shipped,
                 "cores": len(os.sched_getaffinity(0)), "batch": puct.BATCH}
    for batch in (1, puct.BATCH, 4 * puct.BATCH):
        features = np.repeat(one, batch, axis=0).reshape(batch, P, NUM_FEATURES)
        # numpy's forward pass (Network.evaluate) and the compiled one, which the search uses
        for prefix, evaluate in (("", net.evaluate), ("compiled_", net.evaluate_compiled)):
            evaluate(features, nbr)
            done, start, cpu = 0, time.perf_counter(), time.process_time()
            while time.perf_counter() - start < seconds / 6:
                evaluate(features, nbr)
                done += batch
            out[f"{prefix}evals_per_s_batch_{batch}"] = round(done / (time.perf_counter() - start))
            out[f"{prefix}evals_per_cpu_s_batch_{batch}"] = round(
                done / (time.process_time() - cpu))
    puct.search(game, iterations=2 * puct.BATCH, network=net, reuse=False)  # compile
    cpu = time.process_time()
    result = puct.search(game, seconds=seconds, network=net, reuse=False)
    cpu = time.process_time() - cpu
    out["net_sims_per_s"] = round(result.iterations / result.seconds)
    out["net_sims_per_cpu_s"] = round(result.iterations / cpu)
    out["net_evals_per_s"] = round(result.playouts / result.seconds)
    out["net_searchers"] = result.threads
    out["net_mean_batch"] = round(result.iterations / max(result.batches, 1), 1)
    mcts.search(game, iterations=64, reuse=False)  # compile
    cpu = time.process_time()
    classic = mcts.search(game, seconds=seconds, reuse=False, analysis=False)
    cpu = time.process_time() - cpu
    out["classic_iterations_per_s"] = round(classic.iterations / classic.seconds)
    out["classic_iterations_per_cpu_s"] = round(classic.iterations / cpu)
    out["classic_over_net_sims"] = round(out["classic_iterations_per_s"] / out["net_sims_per_s"], 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="keil")
    ap.add_argument("--size", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--cores", default="1,2", help="core counts to measure, e.g. 1,2,8")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inner:
        print(json.dumps(measure(args.game, args.size, args.seconds)))
        return
    available = sorted(os.sched_getaffinity(0))
    rows = []
    for n in (int(c) for c in args.cores.split(",")):
        if n > len(available):
            print(f"skipping {n} cores: this process may use {len(available)}", file=sys.stderr)
            continue
        cpus = ",".join(str(c) for c in available[:n])
        env = dict(os.environ, OMP_NUM_THREADS=str(n), OPENBLAS_NUM_THREADS=str(n),
                   MKL_NUM_THREADS=str(n))
        cmd = ["taskset", "-c", cpus, sys.executable, __file__, "--inner", "--game", args.game,
               "--size", str(args.size), "--seconds", str(args.seconds)]
        print(f"measuring on {n} core(s) ({cpus}) ...", file=sys.stderr, flush=True)
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        row = json.loads(done.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(json.dumps(row))
    if rows:
        print(f"load average: {os.getloadavg()[0]:.2f} (the machine is shared: compare "
              "figures of one run only)")
        keys = [k for k in rows[0] if "_per_" in k]
        print(f"{'figure':34s}" + "".join(f"{r['cores']:>10d} core" for r in rows))
        for k in dict.fromkeys(keys):
            print(f"{k:34s}" + "".join(f"{r[k]:>15}" for r in rows))


if __name__ == "__main__":
    main()
