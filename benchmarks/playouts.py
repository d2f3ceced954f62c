"""Random-playout speed of the compiled core, against OpenSpiel's Go in the same run.

    python benchmarks/playouts.py [--seconds 3] [--no-openspiel]

Prints one JSON line per game and side (Keil 5/7/9, Dehil 7/9/11, Droched 7/9/11), then
OpenSpiel Go 9x9 and 11x11 random playouts driven through its Python API (``pip install
open_spiel``, the ``bench`` extra), then the ratios. Rates are per second of this
process's CPU time, pinned to one core, after a warm-up (compile time is not counted:
the first-run compile and the import time are printed separately): the whole run's rate
and the best slice of at least 0.25 s, as timeit reports its best repeat (on a shared
machine the other load can only slow a slice down). The lines are measured in turns, a
slice each, not one after another: load that comes and goes during the run then weighs
on every line alike, and the ratios between them keep still (measured one after another,
Droched's ratio to Keil moved between 0.42 and 0.63 from run to run).
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


class HexstonesLine:
    """Random playouts of one game and side, measured a slice at a time."""

    def __init__(self, playouts, game: str, size: int):
        self.playouts, self.game, self.size = playouts, game, size
        self.games = self.moves = 0
        self.spent = 0.0
        self.slices: list[tuple[int, float]] = []
        self.batch, self.seed = 1, 0

    def step(self) -> None:
        """Play batches for at least SLICE CPU seconds (batches double until one lasts
        that long: Keil's games take microseconds, Droched's up to a tenth of a second)."""
        took_here = 0.0
        while took_here < SLICE:
            start = time.process_time()
            stats = self.playouts(self.game, self.batch, seed=self.seed, size=self.size)
            took = time.process_time() - start
            took_here += took
            self.spent += took
            self.games += stats["games"]
            self.moves += stats["moves"]
            self.slices.append((stats["moves"], took))
            self.seed += 1
            if took < SLICE:
                self.batch *= 2

    def result(self) -> dict:
        return {"engine": "hexstones", "game": self.game, "size": self.size,
                **rates(self.games, self.moves, self.spent, self.slices)}


class OpenSpielLine:
    """OpenSpiel's Go, uniformly random legal actions through its Python API."""

    def __init__(self, pyspiel, size: int):
        self.pyspiel, self.size = pyspiel, size
        self.game = pyspiel.load_game("go", {"board_size": size, "komi": 7.5})
        self.rng = random.Random(0)
        self.games = self.moves = 0
        self.spent = 0.0
        self.slices: list[tuple[int, float]] = []

    def step(self) -> None:
        start = time.process_time()
        moves = 0
        while time.process_time() - start < SLICE:
            state = self.game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(self.rng.choice(state.legal_actions()))
                moves += 1
            self.games += 1
        took = time.process_time() - start
        self.spent += took
        self.moves += moves
        self.slices.append((moves, took))

    def result(self) -> dict:
        return {"engine": "open_spiel " + getattr(self.pyspiel, "__version__", ""),
                "game": "go", "size": self.size,
                **rates(self.games, self.moves, self.spent, self.slices),
                "note": "uniformly random legal actions (pass included) via the Python API"}


def measure_in_turns(lines: list, seconds: float) -> None:
    """Give each line a slice in turn until every one has had ``seconds`` of CPU time;
    a progress line per round goes to stderr."""
    rounds = 0
    while any(line.spent < seconds for line in lines):
        for line in lines:
            if line.spent < seconds:
                line.step()
        rounds += 1
        done = min(sum(min(line.spent, seconds) for line in lines) / (seconds * len(lines)), 1)
        print(f"\rround {rounds}: {done:4.0%} of the measuring time", end="",
              file=sys.stderr, flush=True)
    print(file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per line")
    parser.add_argument("--no-openspiel", action="store_true")
    args = parser.parse_args()
    cpu = pin_to_one_core()

    start = time.perf_counter()
    import hexstones
    from hexstones import playouts
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

    ours = {(game, size): HexstonesLine(playouts, game, size) for game, size in CONFIGS}
    theirs = {}
    if not args.no_openspiel:
        try:
            import pyspiel
        except ImportError:
            print(json.dumps({"engine": "open_spiel", "error": "pyspiel not installed "
                              "(pip install open_spiel)"}), flush=True)
        else:
            theirs = {size: OpenSpielLine(pyspiel, size) for size in (9, 11)}
    measure_in_turns([*ours.values(), *theirs.values()], args.seconds)
    results = {key: line.result() for key, line in ours.items()}
    peers = {size: line.result() for size, line in theirs.items()}
    for line in [*results.values(), *peers.values()]:
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
