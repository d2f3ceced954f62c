"""Where a Keil vector step's time goes: compiled loops over settled random games.

    python benchmarks/keil_mask_parts.py [--size 7] [--envs 1,64,1024] [--seconds 1]

For each batch size, a ``VectorEnv`` (one thread) is played with random legal actions up
to its move cap (at most SETTLE seconds), so that its games are at every stage, as
``rl_env.py`` settles them. Then, on snapshots of that batch (a few hundred steps apart),
compiled loops that take every env in turn, as a step does, time in CPU µs a call:

* ``step``: the whole vector step (random action, move, tracking, mask, planes);
* ``tracked``: ``legal_moves_tracked`` alone, on the snapshot's positions;
* ``mask``: a copy of it in its order (on points no stone of the mover has left: the
  ring lookup, the own walk, then for a stone without a liberty the capture test, the
  ring once the captures are off, a full ``place`` trial; elsewhere the capture test,
  the own test and a position-table probe);
* ``mask-*``: the copy with one part left out (its answer wrong, its time the mask's
  less that part's): ``no-probe``, ``no-trial`` (taken as legal), ``no-walk`` (own
  walks), ``no-capture-test`` (taken as capturing nothing), ``ring-table-only`` (all);

and counts a position: empty points, capture tests and the captures they find, own
walks, table probes, full ``place`` trials, and the share of positions where ``_quick``
is false (the opponent left a liberty-less group). With ``--parts``, the step's parts
too: compiled steps with one part done twice.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from functools import partial

import numpy as np
from numba import njit

from hexstones import rl
from hexstones.core import keil
from hexstones.core.common import next_stamp, repeats
from hexstones.core.keil import (
    RING_LIB,
    RING_SAME,
    RING_TABLE,
    captured_around,
    captures_nothing,
    group_has_liberty,
    ring_add,
    stone_has_liberty,
)
from hexstones.core.layout import M_PASSES, M_PLY, M_SPECIAL, M_TO_MOVE, OK, W_BUF, W_MARKS
from hexstones.rl import _kernels as K, vector as V

SETTLE = 5.0

# counters
(C_POS, C_SLOW, C_EMPTY, C_NO_ENEMY, C_CAPTEST, C_CAPTEST_DEEP, C_WALK, C_PROBE,
 C_TRIAL, C_LEGAL) = range(10)
COUNTERS = ["positions", "slow_positions", "empty_points", "no_enemy_neighbour_left",
            "capture_tests", "captures", "own_walks", "table_probes",
            "full_trials", "legal"]


def make_mask(probe=True, trial=True, walk=True, captest=True, count=False, real=False):
    """A loop over a batch's envs computing each one's mask: with ``real``, the kernel
    itself (through the dispatcher); else the copy below with the parts asked for."""
    @njit(inline="always")
    def mask(gid, geo, st, out, rings, left, counts):
        if real:
            return K.legal_moves_tracked(gid, geo, st, out, rings, left)
        nbr, ring_nbr, zob = geo.nbr, geo.ring_nbr, geo.zobrist
        board, meta = st.board, st.meta
        P = board.shape[0]
        if meta[M_PASSES] >= 2:
            return 0
        X = meta[M_TO_MOVE]
        quick = keil._quick(st)
        if count:
            counts[C_POS] += 1
            if not quick:
                counts[C_SLOW] += 1
        table = RING_TABLE
        work = st.work
        marks, buf, stamp = work[W_MARKS], work[W_BUF], st.stamp
        h = st.hist_hash[meta[M_PLY]]
        mine = (X - 1) * P
        n = 0
        for p in range(P):
            if board[p] != 0:
                continue
            if count:
                counts[C_EMPTY] += 1
            ring = rings[p]
            low = ring & 0x555
            high = (ring >> 1) & 0x555
            enemies = (low & ~high) if X == 2 else (high & ~low)
            nothing = True
            if quick and left[mine + p] == 0:
                # legal_moves_tracked's order: the own group's liberty first.
                links = table[X, ring]
                legal = (links & RING_LIB) != 0
                if not legal and links & RING_SAME:
                    if count:
                        counts[C_WALK] += 1
                    if walk:
                        legal = stone_has_liberty(nbr, table, rings, marks, stamp, buf, p, X)
                if not legal and enemies != 0:
                    if count:
                        counts[C_CAPTEST] += 1
                    captured = 0
                    if captest:
                        captured = captured_around(nbr, ring_nbr, table, rings, marks,
                                                   stamp, buf, p, X, False)
                    if captured:
                        if count:
                            counts[C_CAPTEST_DEEP] += 1
                        after = np.int64(ring)
                        for d in range(6):
                            if captured & (1 << d):
                                after &= ~(3 << (2 * d))
                        legal = (table[X, after] & RING_LIB) != 0
                        if not legal:
                            if count:
                                counts[C_TRIAL] += 1
                            if trial:
                                legal = keil.place(geo, st, p, rings, False, True) == OK
                if legal:
                    out[n] = p
                    n += 1
                continue
            if count and quick:
                if enemies == 0:
                    counts[C_NO_ENEMY] += 1
                else:
                    counts[C_CAPTEST] += 1
            if quick and enemies != 0:
                if captest:
                    nothing = captures_nothing(nbr, ring_nbr, table, rings, marks, stamp,
                                               buf, p, X)
                if count and not nothing:
                    counts[C_CAPTEST_DEEP] += 1
            if quick and nothing:
                legal = True
                if (table[X, ring] & RING_LIB) == 0:
                    if count:
                        counts[C_WALK] += 1
                    if walk:
                        ring_add(rings, nbr, p, X)
                        legal = group_has_liberty(nbr, table, rings, marks,
                                                  next_stamp(stamp, marks), buf, p, X)
                        ring_add(rings, nbr, p, -X)
                if legal:
                    if count:
                        counts[C_PROBE] += 1
                    if probe:
                        board[p] = X
                        legal = not repeats(st, h ^ zob[X, p], M_SPECIAL)
                        board[p] = 0
            else:
                if count:
                    counts[C_TRIAL] += 1
                legal = True
                if trial:
                    legal = keil.place(geo, st, p, rings, False, True) == OK
            if legal:
                out[n] = p
                n += 1
        if count:
            counts[C_LEGAL] += n
        out[n] = P
        return n + 1

    @njit
    def loop(arena, repeats_, counts):
        head, geo, batch, envs = V._unpack(arena)
        legal, rings, left = envs[2], envs[12], envs[14]
        pending = envs[1]
        gid = head[V._GID]
        N = head[V._NUM_ENVS]
        total = 0
        for _ in range(repeats_):
            for i in range(N):
                if pending[i]:
                    continue
                st = K.state_at(batch, i)
                total += mask(gid, geo, st, legal[i], rings[i], left[i], counts)
        return total

    return loop


VARIANTS = {
    "mask": make_mask(),
    "mask-no-probe": make_mask(probe=False),
    "mask-no-trial": make_mask(trial=False),
    "mask-no-walk": make_mask(walk=False),
    "mask-no-capture-test": make_mask(captest=False),
    "mask-ring-table-only": make_mask(probe=False, trial=False, walk=False, captest=False),
}
COUNT = make_mask(count=True)


tracked_mask_loop = make_mask(real=True)


def make_step(mask=0, planes=1, track=1, sample=1):
    """The vector step's work per env (no autoreset: envs whose games ended are skipped):
    a random legal action (``sample`` draws), the move, ``track`` board trackings, the
    mask and planes (``planes`` 1) or the mask alone (0), and ``mask`` more masks (the
    in-place cost of a part is the difference a second one makes)."""
    @njit
    def loop(arena, steps):
        head, geo, batch, envs = V._unpack(arena)
        actions, pending, legal, counts, rngs = envs[0], envs[1], envs[2], envs[3], envs[10]
        rings, seen, left = envs[12], envs[13], envs[14]
        gid = head[V._GID]
        N = head[V._NUM_ENVS]
        done = 0
        for _ in range(steps):
            for i in range(N):
                if pending[i] or counts[i] <= 1:
                    continue
                for _ in range(sample):
                    actions[i] = legal[i, K.rand_below(rngs[i], counts[i] - 1)]
                st = K.state_at(batch, i)
                K.play(gid, geo, st, actions[i])
                for _ in range(track):
                    K.track_board(geo, seen[i], K.board_of(st), rings[i], left[i])
                for _ in range(mask):
                    K.legal_moves_tracked(gid, geo, st, legal[i], rings[i], left[i])
                if planes:
                    V._observe_env(gid, geo, st, i, envs)
                else:
                    counts[i] = K.legal_moves_tracked(gid, geo, st, legal[i], rings[i], left[i])
                if K.is_over(gid, geo, st) or K.ply(st) >= head[V._MAX_MOVES]:
                    pending[i] = True
                done += 1
        return done
    return loop


STEPS = {"steps": make_step(), "steps+mask": make_step(mask=1),
         "steps+track": make_step(track=2), "steps+sample": make_step(sample=2),
         "steps-no-planes": make_step(planes=0)}


def run_steps(env, steps):
    for _ in range(steps):
        env.step(env.sample_legal_actions())


def cpu_per_call(fn, calls_per_run, seconds):
    fn()
    runs, t0 = 0, time.process_time()
    while time.process_time() - t0 < seconds:
        fn()
        runs += 1
    return 1e6 * (time.process_time() - t0) / (runs * calls_per_run)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=7)
    parser.add_argument("--envs", default="1,64,1024")
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds a figure")
    parser.add_argument("--snapshots", type=int, default=3)
    parser.add_argument("--parts", action="store_true", help="the step's parts too")
    args = parser.parse_args(argv)
    print(json.dumps({"load_average": [round(x, 2) for x in os.getloadavg()]}))
    for n in [int(x) for x in args.envs.split(",")]:
        env = rl.VectorEnv("keil", args.size, n, parallel=False)
        env.reset(seed=0)
        arena = env._games._arena
        until = time.perf_counter() + SETTLE
        for _ in range(env.max_moves):
            if time.perf_counter() > until:
                break
            env.step(env.sample_legal_actions())
        reps = max(1, 256 // n)
        sums: dict[str, float] = {}
        counts = np.zeros(len(COUNTERS), np.int64)
        scratch = np.zeros(len(COUNTERS), np.int64)
        for _ in range(args.snapshots):
            for _ in range(max(50, 2000 // n)):
                env.step(env.sample_legal_actions())
            live = int((~env._games.pending).sum())
            COUNT(arena, 1, counts)
            figures = {"tracked": cpu_per_call(partial(tracked_mask_loop, arena, reps, scratch),
                                               reps * live, args.seconds)}
            for name, fn in VARIANTS.items():
                figures[name] = cpu_per_call(partial(fn, arena, reps, scratch),
                                             reps * live, args.seconds)
            steps = max(1, 256 // n)
            figures["step"] = cpu_per_call(partial(run_steps, env, steps), steps * n,
                                           args.seconds)
            if args.parts:
                pending = env._games.pending
                for name, fn in STEPS.items():
                    # On a copy of the arena: the snapshot stays for the next figures.
                    saved = arena.copy()
                    cpu, done = 0.0, 0
                    fn(arena, 1)
                    arena[:] = saved
                    while cpu < args.seconds:
                        t0 = time.process_time()
                        done += fn(arena, 1)
                        cpu += time.process_time() - t0
                        if pending.mean() > 0.5:
                            arena[:] = saved
                    figures[name] = 1e6 * cpu / max(1, done)
                    arena[:] = saved
            for k, v in figures.items():
                sums[k] = sums.get(k, 0.0) + v / args.snapshots
        per_pos = {name: round(int(counts[k]) / max(1, int(counts[C_POS])), 3)
                   for k, name in enumerate(COUNTERS) if k != C_POS}
        per_pos["positions"] = int(counts[C_POS])
        print(json.dumps({"envs": n, "cpu_us": {k: round(v, 3) for k, v in sums.items()},
                          "per_position": per_pos}))
    print(json.dumps({"load_average": [round(x, 2) for x in os.getloadavg()]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
