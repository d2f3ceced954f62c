"""Steps per second of the RL environments, against PettingZoo's Go in the same run.

    python benchmarks/rl_env.py [--seconds 2] [--envs 1,64,1024] [--no-go]

Every line steps games with observations on and uniformly random legal actions, drawn
from the masks the environment returns:

* ``go_v5``: PettingZoo's ``classic.go_v5`` at 9x9 (it imports pygame: the ``bench`` extra),
  an AEC loop: ``env.last()``, a random action among the mask's ones, ``env.step``;
* ``aec``: ``hexstones.rl.env`` for Keil 7, Dehil 9, Droched 9, the same loop (the env
  that behaves as go_v5's three PettingZoo wrappers make it, the checks built in);
  ``aec raw``: ``hexstones.rl.raw_env``; ``aec pz-wrapped`` (Keil): ``raw_env`` in
  PettingZoo's three wrappers, as ``env()`` was built before;
* ``vector``: ``hexstones.rl.VectorEnv`` with 1, 64 and 1024 envs, ``env.step(
  env.sample_legal_actions())`` (a step of N envs counts N steps), on one thread (the
  default); for Keil also ``all threads`` (``parallel=True``) at the largest count.
  Before they are measured the vector envs play up to their move cap (at most SETTLE
  seconds), so that their games are at every stage, not all at the start;
* ``floor``: a compiled loop that does nothing but write the observation planes of N
  settled games (no rules, no masks, no actions): the encoder's writer on each game's
  state and action mask, as a step calls it, on one thread (and on every core at the
  largest count): what a step cannot go below.

Rates are steps per wall-clock second after a warm-up that compiles and loads the
kernels; ``cpu_per_step_us`` is the process's CPU time a step (every thread's). The
lines are measured in turns, a slice of at least SLICE seconds each, so load that comes
and goes on a shared machine weighs on every line alike; each line's best slice is
printed too. Prints one JSON line per line, then the ratios to go_v5: of the rates, and
of the CPU time a step (on a shared machine the steadier figure), with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

SLICE = 0.25
SETTLE = 5.0
GAMES = [("keil", 7), ("dehil", 9), ("droched", 9)]


class Line:
    def __init__(self, label: str, run_slice):
        self.label = label
        self.run_slice = run_slice          # () -> steps done in one short burst
        self.steps = 0
        self.wall = self.cpu = 0.0
        self.best = 0.0

    def measure(self) -> None:
        steps, wall0, cpu0 = 0, time.perf_counter(), time.process_time()
        while time.perf_counter() - wall0 < SLICE:
            steps += self.run_slice()
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        self.steps += steps
        self.wall += wall
        self.cpu += cpu
        self.best = max(self.best, steps / wall)

    def result(self) -> dict:
        return {"line": self.label, "steps": self.steps, "seconds": round(self.wall, 2),
                "steps_per_s": round(self.steps / self.wall),
                "best_slice_steps_per_s": round(self.best),
                "cpu_per_step_us": round(1e6 * self.cpu / self.steps, 3)}


def aec_burst(env, rng, burst: int = 64):
    """``burst`` steps of an AEC env with random legal actions (resetting at the end)."""
    def run() -> int:
        for _ in range(burst):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.reset()
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
        return burst
    return run


def vector_burst(env, steps: int):
    def run() -> int:
        for _ in range(steps):
            env.step(env.sample_legal_actions())
        return steps * env.num_envs
    return run


def floor_burst(env, steps: int, parallel: bool = False):
    """``steps`` calls of a compiled loop that writes the observation planes of every env
    of the vector env ``env`` (the encoder's writer on each env's state and action mask,
    as a step writes them) and nothing else."""
    from numba import njit, prange

    from hexstones.rl import _kernels as K, vector as V

    @njit
    def write(arena, i):
        _, geo, batch, envs = V._unpack(arena)
        obs, masks, cell, balance = envs[4], envs[5], envs[15], envs[16]
        st = K.state_at(batch, i)
        K.write_seen(geo, st, balance[0], K.to_move(st), masks[i], obs[i], cell)

    def loop(arena, num_envs):
        for i in prange(num_envs):
            write(arena, i)

    kernel = njit(parallel=parallel)(loop)
    arena = env._games._arena

    def run() -> int:
        for _ in range(steps):
            kernel(arena, env.num_envs)
        return steps * env.num_envs
    return run


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds a line, about")
    parser.add_argument("--envs", default="1,64,1024", help="vector env sizes")
    parser.add_argument("--no-go", action="store_true", help="skip PettingZoo's go_v5")
    parser.add_argument("--threads", type=int, default=None,
                        help="numba threads for the vector env (default: one per core)")
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.envs.split(",")]

    started = time.perf_counter()
    import numba

    from hexstones import rl
    if args.threads:
        numba.set_num_threads(args.threads)
    lines: list[Line] = []
    rng = np.random.default_rng(0)
    if not args.no_go:
        try:
            from pettingzoo.classic import go_v5
        except ImportError as exc:
            print(f"go_v5 unavailable ({exc}): pip install pygame (the bench extra)",
                  file=sys.stderr)
        else:
            go = go_v5.env(board_size=9)
            go.reset(seed=0)
            lines.append(Line("go_v5 9x9 aec", aec_burst(go, rng, 16)))
    settling = []
    for name, size in GAMES:
        aec = rl.env(name, size=size)
        aec.reset(seed=0)
        lines.append(Line(f"{name} {size} aec", aec_burst(aec, rng)))
        raw = rl.raw_env(name, size=size)
        raw.reset(seed=0)
        lines.append(Line(f"{name} {size} aec raw", aec_burst(raw, rng)))
        if name == GAMES[0][0]:
            from pettingzoo.utils import wrappers
            wrapped = wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(
                wrappers.TerminateIllegalWrapper(rl.raw_env(name, size=size), -1)))
            wrapped.reset(seed=0)
            lines.append(Line(f"{name} {size} aec pz-wrapped", aec_burst(wrapped, rng)))
        variants = [(n, False, "") for n in counts]
        if name == GAMES[0][0]:
            variants.append((max(counts), True, " all threads"))
        for n, parallel, label in variants:
            vec = rl.VectorEnv(name, size, n, parallel=parallel)
            vec.reset(seed=0)
            settling.append(vec)
            lines.append(Line(f"{name} {size} vector x{n}{label}",
                              vector_burst(vec, max(1, 256 // n))))
        if name == GAMES[0][0]:
            for n in counts:  # the settled games of a vector env of n envs
                vec = rl.VectorEnv(name, size, n, parallel=False)
                vec.reset(seed=1)
                settling.append(vec)
                lines.append(Line(f"{name} {size} floor x{n}", floor_burst(vec, max(1, 256 // n))))
            lines.append(Line(f"{name} {size} floor x{n} all threads",
                              floor_burst(vec, max(1, 256 // n), parallel=True)))
    for line in lines:  # warm-up: compile or load every kernel
        line.run_slice()
    for vec in settling:
        settle_until = time.perf_counter() + SETTLE
        for _ in range(vec.max_moves):
            if time.perf_counter() > settle_until:
                break
            vec.step(vec.sample_legal_actions())
    print(json.dumps({"setup_seconds": round(time.perf_counter() - started, 1),
                      "cores": len(os.sched_getaffinity(0)),
                      "numba_threads": numba.get_num_threads(),
                      "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
                      "load_average": [round(x, 2) for x in os.getloadavg()]}))
    rounds = max(1, round(args.seconds / SLICE))
    for _ in range(rounds):
        for line in lines:
            line.measure()
    results = {line.label: line.result() for line in lines}
    for found in results.values():
        print(json.dumps(found))
    go = results.get("go_v5 9x9 aec")
    if go:
        ratios = {label: round(r["steps_per_s"] / go["steps_per_s"], 1)
                  for label, r in results.items() if not label.startswith("go_v5")}
        print(json.dumps({"ratio_to_go_v5": ratios}))
        # On a shared machine the CPU time a step says more than the wall-clock rate.
        ratios = {label: round(go["cpu_per_step_us"] / r["cpu_per_step_us"], 1)
                  for label, r in results.items() if not label.startswith("go_v5")}
        print(json.dumps({"cpu_ratio_to_go_v5": ratios,
                          "load_average": [round(x, 2) for x in os.getloadavg()]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
