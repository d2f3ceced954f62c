"""Random-playout speed of the compiled core, against OpenSpiel's Go in the same run.

    python benchmarks/playouts.py [--seconds 3] [--no-openspiel]

Prints one JSON line per game and side (Keil 5/7/9, Dehil 7/9/11, Droched 7/9/11), then
OpenSpiel Go 9x9 and 11x11 random playouts driven through its Python API (``pip install
open_spiel``, the ``bench`` extra), then the ratios. Rates are per second of this
process's CPU time, pinned to one core, after a warm-up (compile time is not counted:
the first-run compile and the import time are printed separately): the whole run's rate
and the best slice of at least 0.25 s, as timeit reports its best repeat (on a shared
machine the other load can only slow a slice down).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

CONFIGS = [("keil", 5), ("keil", 7), ("keil", 9), ("dehil", 7), ("dehil", 9), ("dehil", 11),
           ("droched", 7), ("droched", 9), ("droched", 11)]


def pin_to_one_core() -> int | None:
    try:
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return cpu
    except (AttributeError, OSError):
        return None


# Rates are also taken per slice of at least SLICE CPU seconds; the best slice, as
# timeit reports the best of its repeats, is the figure least disturbed by whatever else
# the machine runs (on the shared 2-core VM whole-run rates move by 20-50 %).
SLICE = 0.25


def rates(games: int, moves: int, spent: float, slices: list[tuple[int, float]]) -> dict:
    best = max((m / t for m, t in slices if t >= SLICE), default=moves / spent)
    return {"games": games, "moves": moves, "cpu_seconds": round(spent, 3),
            "moves_per_s": round(moves / spent), "best_slice_moves_per_s": round(best),
            "slices": sum(1 for _, t in slices if t >= SLICE),
            "playouts_per_s": round(games / spent, 2), "mean_length": round(moves / games, 1)}


def measure_hexstones(playouts, game: str, size: int, seconds: float) -> dict:
    games = moves = 0
    spent = 0.0
    slices = []
    batch, seed = 1, 0
    while spent < seconds:
        start = time.process_time()
        stats = playouts(game, batch, seed=seed, size=size)
        took = time.process_time() - start
        spent += took
        games += stats["games"]
        moves += stats["moves"]
        slices.append((stats["moves"], took))
        seed += 1
        if took < SLICE:
            batch *= 2
    return {"engine": "hexstones", "game": game, "size": size,
            **rates(games, moves, spent, slices)}


def measure_openspiel(size: int, seconds: float) -> dict | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("go", {"board_size": size, "komi": 7.5})
    rng = random.Random(0)
    games = moves = 0
    slices = []
    start = time.process_time()
    slice_start, slice_moves = start, 0
    while time.process_time() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
            slice_moves += 1
        games += 1
        now = time.process_time()
        if now - slice_start >= SLICE:
            slices.append((slice_moves, now - slice_start))
            slice_start, slice_moves = now, 0
    spent = time.process_time() - start
    return {"engine": "open_spiel " + getattr(pyspiel, "__version__", ""), "game": "go",
            "size": size, **rates(games, moves, spent, slices),
            "note": "uniformly random legal actions (pass included) via the Python API"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per line")
    parser.add_argument("--no-openspiel", action="store_true")
    args = parser.parse_args()
    cpu = pin_to_one_core()

    start = time.perf_counter()
    import hexstones
    from hexstones.core.playouts import playouts
    import_s = time.perf_counter() - start
    start = time.perf_counter()
    for game in ("keil", "dehil", "droched"):
        playouts(game, 1, seed=0, size=5)  # compiles, or loads the cache
    warm_s = time.perf_counter() - start
    print(json.dumps({"hexstones": hexstones.__version__, "python": sys.version.split()[0],
                      "cpu": cpu, "import_seconds": round(import_s, 3),
                      "first_playouts_seconds": round(warm_s, 3),
                      "note": "first_playouts_seconds includes compiling unless cached"}),
          flush=True)

    results = {}
    for game, size in CONFIGS:
        line = measure_hexstones(playouts, game, size, args.seconds)
        results[(game, size)] = line
        print(json.dumps(line), flush=True)
    peers = {}
    if not args.no_openspiel:
        for size in (9, 11):
            line = measure_openspiel(size, args.seconds)
            if line is None:
                print(json.dumps({"engine": "open_spiel", "error": "pyspiel not installed "
                                  "(pip install open_spiel)"}), flush=True)
                break
            peers[size] = line
            print(json.dumps(line), flush=True)
    for key in ("moves_per_s", "best_slice_moves_per_s"):
        if peers:
            ratios = {f"{g}{s}_vs_go{p}": round(r[key] / peers[p][key], 2)
                      for (g, s), r in results.items() for p in peers}
            print(json.dumps({f"ratios_{key}": ratios}), flush=True)
        same_side = {}
        for game in ("dehil", "droched"):
            for size in (7, 9):
                if ("keil", size) in results:
                    same_side[f"{game}{size}_vs_keil{size}"] = round(
                        results[(game, size)][key] / results[("keil", size)][key], 2)
        print(json.dumps({f"ratios_to_keil_same_side_{key}": same_side}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
