"""The training run: teacher games, then iterations of (self-play, training, evaluation).

Everything a run needs to continue is one checkpoint file, ``OUT/checkpoint.pt``, written
atomically (a temporary file, fsync, rename) after every batch of games and every
``checkpoint_every`` training steps (at most once per ``checkpoint_seconds``): the model
and optimizer, the replay buffer (its game records), the teacher lines read, the held-out
games, the random generators' states, the iteration, phase and step, and the history the
plots draw. A run killed at any moment (kill -9 included) continues from there with
``resume=True``.

Outputs in ``OUT``: ``<game>.npz`` (the latest weights, for :func:`hexstones.ai.net.read_network`;
``weights-<i>.npz`` per iteration), ``loss.svg`` and ``strength.svg`` (held-out policy
agreement with the teacher and value accuracy per iteration), ``history.json``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from hexstones.ai.net import Network, default_config, init_params, load_network, read_network
from hexstones.core.layout import geometry
from hexstones.games import game_class
from hexstones.games.observation import F_LEGAL, F_SPECIAL_LEGAL
from hexstones.session import Resign
from hexstones.studies import tournament
from hexstones.train.data import (
    Positions,
    ReplayBuffer,
    point_sources,
    positions_of,
    read_records,
    relabel_balance,
    turn,
)
from hexstones.train.model import TorchNet, to_network, torch_index
from hexstones.train.plots import series_plot
from hexstones.train.selfplay import selfplay_game
from hexstones.train.teacher import balance_bounds, teacher_game

CHECKPOINT = "checkpoint.pt"
# Loss weights: the score margin is in units of 10 points (Huber), ownership per point.
SCORE_WEIGHT = 0.5
OWNERSHIP_WEIGHT = 0.5
# Within each iteration the learning rate falls from --lr to this share of it (a cosine):
# the last steps settle the weights instead of leaving them where the last big step threw them.
LR_FLOOR = 0.1


# The settings a resumed run takes from the command that resumes it.
RESUMABLE = ("iterations", "device", "backend", "workers", "ray_address", "checkpoint_seconds",
             "symmetry_weight", "balance_range", "relabel_share", "resign", "resign_check")


@dataclass
class Settings:
    game: str
    sizes: list[int]
    out: str
    iterations: int = 3
    seed: int = 0
    device: str = "cpu"
    backend: str = "local"
    workers: int | None = None
    ray_address: str | None = None
    games: int = 16               # self-play games per iteration (the sizes in turn)
    simulations: int = 64         # PUCT simulations per self-play move
    steps: int = 400              # training steps per iteration
    batch: int = 64
    lr: float = 2e-3
    weight_decay: float = 1e-4
    buffer_games: int = 4000      # the replay buffer keeps the latest self-play games
    teacher_share: float = 0.5    # of each batch, from teacher games (when there are both)
    policy_power: float = 1.0     # policy target: the visits to this power, normalised
    symmetry_weight: float = 4.0  # loss weight of the value's disagreement between two
    # symmetries of each position (0: off): with augmentation alone Droched 5's value varied
    # by 0.23 (std over the 12 turns of random positions); 1 000 steps with this term, 0.12.
    teacher_dir: str | None = None  # where <game>-<size>.jsonl teacher games are read
    teacher_games: int = 0        # teacher games to generate per size first (into OUT/teacher)
    teacher_iterations: int = 800  # classic MCTS iterations per teacher move
    holdout_every: int = 10       # every n-th teacher game is held out for evaluation
    checkpoint_every: int = 100   # training steps between checkpoints,
    checkpoint_seconds: float = 60.0  # and at least this long, and at least 9 times as
    # long as the last one took to write (so checkpoints cost at most a tenth of the run):
    # a checkpoint holds every teacher game (about 60 KB each), 3 000 of them take 14 s
    channels: int | None = None
    blocks: int | None = None
    init: str | None = None       # start from these weights (a .npz, or "shipped") not random
    # [low, high]: each new game's balance (komi, prison stones) drawn evenly from it; None:
    # the default, varied by up to 6 either way in 70 % of the games (teacher.game_options)
    balance_range: list[int] | None = None
    # Share of the training positions of finished games given another komi from the balance
    # range, their value and score targets those of that komi (data.relabel_balance); only
    # where the balance is a komi.
    relabel_share: float = 0.0
    # [below, turns]: a self-play game ends when the mover's search gives it a win chance
    # below ``below`` on ``turns`` of its turns in a row (hexstones.session.Resign); None: never.
    # Every ``resign_check``-th game of an iteration is played out, noting who would have
    # resigned, so the totals can tell how often a resignation would have been wrong.
    resign: list[Any] | None = None
    resign_check: int = 10
    command: str = ""

    def check(self) -> None:
        game_class(self.game)  # a clear error for an unknown game
        cls = game_class(self.game)
        for size in self.sizes:
            cls.check_size(size)
        if not self.sizes:
            raise ValueError("give at least one board size")
        for name in ("iterations", "steps", "batch", "buffer_games", "holdout_every",
                     "checkpoint_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, not {getattr(self, name)}")
        for name in ("games", "simulations", "teacher_games", "teacher_iterations",
                     "checkpoint_seconds"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative, not {getattr(self, name)}")
        if not 0.0 < self.policy_power <= 8.0:
            raise ValueError(f"policy_power must be in (0, 8], not {self.policy_power}")
        if self.symmetry_weight < 0:
            raise ValueError(f"symmetry_weight must not be negative, not {self.symmetry_weight}")
        if not 0.0 <= self.teacher_share <= 1.0:
            raise ValueError(f"teacher_share must be in [0, 1], not {self.teacher_share}")
        if not 0.0 <= self.relabel_share <= 1.0:
            raise ValueError(f"relabel_share must be in [0, 1], not {self.relabel_share}")
        if self.relabel_share > 0 and not cls.balance.offsets_score:
            raise ValueError(f"{cls.title}'s balance ({cls.balance.label}) is not a komi: "
                             f"a final position cannot be scored with another, so there is "
                             f"nothing to relabel")
        if self.balance_range is not None:
            balance = cls.balance
            low, high = (balance.check(v, cls.title) for v in self.balance_range)
            if low > high:
                raise ValueError(f"the balance range {low}:{high} is empty (give LOW:HIGH)")
        if self.resign is not None:
            if len(self.resign) != 2:
                raise ValueError(f"resign is [below, turns], not {self.resign!r}")
            Resign(self.resign[0], self.resign[1], self.resign_check).checked()
        if self.device.startswith("cuda") and not torch.cuda.is_available():
            raise ValueError("--device cuda: no CUDA device is available to torch here")

    @property
    def teacher_path(self) -> Path:
        return Path(self.teacher_dir) if self.teacher_dir else Path(self.out) / "teacher"


class Progress:
    """One status line, rewritten at most every ``every`` seconds (a plain printer)."""

    def __init__(self, stream=None, every: float = 2.0):
        self.stream = stream or sys.stderr
        self.every = every
        self.last = 0.0

    def show(self, text: str, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self.last >= self.every:
            self.last = now
            print(text, file=self.stream, flush=True)


def write_atomic(path: Path, write: Callable[[Any], None], mode: str = "wb") -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, mode) as f:
        write(f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# -- workers (module-level functions: they travel to processes and Ray) ---------------

def _teacher_task(task: dict[str, Any]) -> dict[str, Any]:
    return teacher_game(task["game"], task["size"], task["iterations"], task["seed"],
                        balance_range=task["balance_range"])


def _selfplay_task(task: dict[str, Any]) -> dict[str, Any]:
    network = Network(task["config"], task["params"], trained=True)
    return selfplay_game(network, task["game"], task["size"], task["simulations"], task["seed"],
                         balance_range=task["balance_range"], resign=task.get("resign"),
                         play_out=bool(task.get("play_out")))


# -- the run ----------------------------------------------------------------------

class Trainer:
    def __init__(self, settings: Settings, progress: Progress | None = None,
                 resume_changes: set[str] | None = None):
        self.resume_changes = resume_changes  # see train()
        self.s = settings
        self.out = Path(settings.out)
        self.progress = progress or Progress()
        self.saved_at, self.save_cost = time.monotonic(), 0.0  # the last checkpoint
        self.started_from: dict[str, Any] | None = None  # the weights of --init, if any

    # state ---------------------------------------------------------------------------

    def fresh_state(self) -> None:
        s = self.s
        changes = {k: v for k, v in (("channels", s.channels), ("blocks", s.blocks)) if v}
        self.config = default_config(s.game, **changes)
        torch.manual_seed(s.seed)
        if s.init:  # the shape is the starting network's (--channels/--blocks must agree)
            start = starting_network(s.init, s.game, changes)
            self.config, params = dict(start.config), start.params
            self.started_from = {"weights": s.init, "their_command": start.meta.get("command")}
        else:
            params = init_params(self.config, s.seed)
        self.model = TorchNet(self.config, params).to(s.device)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=s.lr,
                                           weight_decay=s.weight_decay)
        self.buffer = ReplayBuffer(s.buffer_games, s.teacher_share)
        self.holdout: list[dict[str, Any]] = []
        self.teacher_read: dict[str, int] = {}
        self.rng = np.random.default_rng(s.seed)
        self.iteration, self.phase, self.step, self.games_done = 0, "data", 0, 0
        self.seeds_drawn = 0  # this iteration's self-play seeds handed out (games_done + lost)
        self.history: dict[str, list[dict[str, Any]]] = {"loss": [], "eval": []}
        self.totals = {"teacher_games": 0, "selfplay_games": 0, "positions": 0, "steps": 0}
        self.resumes: list[str] = []

    def save(self) -> None:
        state = {
            "version": 1, "settings": dataclasses.asdict(self.s), "config": self.config,
            "iteration": self.iteration, "phase": self.phase, "step": self.step,
            "games_done": self.games_done, "seeds_drawn": self.seeds_drawn, "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(), "buffer": self.buffer.state(),
            "holdout": self.holdout, "teacher_read": self.teacher_read,
            "rng": {"numpy": self.rng.bit_generator.state, "torch": torch.get_rng_state(),
                    "python": random.getstate()},
            "history": self.history, "totals": self.totals, "resumes": self.resumes,
            "started_from": self.started_from}
        began = time.monotonic()
        write_atomic(self.out / CHECKPOINT, lambda f: torch.save(state, f))
        self.saved_at = time.monotonic()
        self.save_cost = self.saved_at - began

    def load(self) -> None:
        path = self.out / CHECKPOINT
        state = torch.load(path, map_location="cpu", weights_only=False)
        saved = Settings(**state["settings"])
        if saved.game != self.s.game:
            raise ValueError(f"{path} trains {saved.game}, not {self.s.game}")
        # What the command line may change on a resume: how long, where it runs (of these,
        # only the ones it set: a resume without --iterations keeps the run's own).
        for name in RESUMABLE:
            if self.resume_changes is None or name in self.resume_changes:
                setattr(saved, name, getattr(self.s, name))
        resumed_with = self.s.command
        self.s = saved
        self.config = state["config"]
        self.model = TorchNet(self.config, init_params(self.config, 0)).to(self.s.device)
        self.model.load_state_dict(state["model"])
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.s.lr,
                                           weight_decay=self.s.weight_decay)
        self.optimizer.load_state_dict(state["optimizer"])
        self.progress.show(f"resuming: rebuilding the buffer from {len(state['buffer']['records'])} "
                           "games", force=True)
        self.buffer = ReplayBuffer.from_state(state["buffer"])
        self.holdout = state["holdout"]
        self.teacher_read = state["teacher_read"]
        self.rng = np.random.default_rng()
        self.rng.bit_generator.state = state["rng"]["numpy"]
        torch.set_rng_state(state["rng"]["torch"])
        random.setstate(state["rng"]["python"])
        self.iteration, self.phase = state["iteration"], state["phase"]
        self.step, self.games_done = state["step"], state["games_done"]
        self.seeds_drawn = state.get("seeds_drawn", self.games_done)
        self.history, self.totals = state["history"], state["totals"]
        self.resumes = state.get("resumes", []) + [resumed_with]
        self.started_from = state.get("started_from")

    # phases ----------------------------------------------------------------------------

    def network(self, trained: bool = True) -> Network:
        meta = {"command": self.s.command, "resumed_with": self.resumes,
                "seed": self.s.seed, "iterations": self.iteration,
                "teacher_games": self.totals["teacher_games"],
                "selfplay_games": self.totals["selfplay_games"],
                "positions": self.totals["positions"], "training_steps": self.totals["steps"],
                "sizes": self.s.sizes}
        if self.started_from:
            meta["started_from"] = self.started_from
        return to_network(self.model, trained, meta)

    def run_tasks(self, tasks, worker_fn, on_result) -> None:
        tournament.run_tasks(tasks, backend=self.s.backend, workers=self.s.workers,
                             ray_address=self.s.ray_address, worker_fn=worker_fn,
                             on_result=on_result)

    def generate_teacher_games(self) -> None:
        self.s.teacher_path.mkdir(parents=True, exist_ok=True)
        for size in self.s.sizes:
            self._teacher_games_of(size)

    def _teacher_games_of(self, size: int) -> None:
        """Play the missing teacher games of one side, appending each as it ends (a
        killed run loses only the games being played)."""
        s = self.s
        path = s.teacher_path / f"{s.game}-{size}.jsonl"
        have = len(read_records(path)) if path.exists() else 0
        tasks = [{"game": s.game, "size": size, "iterations": s.teacher_iterations,
                  "seed": s.seed * 1_000_003 + size * 10_007 + i, "balance_range": s.balance_range}
                 for i in range(have, s.teacher_games)]
        start, made = time.monotonic(), 0

        def keep(record):
            nonlocal made
            with open(path, "a") as f:
                f.write(json.dumps(record) + "\n")
            made += 1
            rate = made / max(time.monotonic() - start, 1e-9)
            self.progress.show(f"teacher games {s.game} {size}: {have + made}/{s.teacher_games}"
                               f" ({rate:.3f} games/s)", force=made == len(tasks))
        if tasks:
            self.run_tasks(tasks, _teacher_task, keep)

    def read_teacher(self) -> int:
        added = 0
        for size in self.s.sizes:
            path = self.s.teacher_path / f"{self.s.game}-{size}.jsonl"
            if not path.exists():
                continue
            seen = self.teacher_read.get(str(path), 0)
            for j, record in enumerate(read_records(path, seen), start=seen):
                if record.get("game") != self.s.game or record.get("size") != size:
                    raise ValueError(f"{path} line {j + 1} is not a {self.s.game} game of side {size}")
                if j % self.s.holdout_every == self.s.holdout_every - 1:
                    self.holdout.append(record)
                else:
                    self.totals["positions"] += self.buffer.add(record)
                    self.totals["teacher_games"] += 1
                    added += 1
                self.teacher_read[str(path)] = j + 1
        return added

    def selfplay(self) -> None:
        s = self.s
        net = self.network()
        chunk = max(2, 2 * (s.workers or os.cpu_count() or 1))
        start = time.monotonic()
        played_here = 0
        while self.games_done < s.games:
            first, drawn = self.games_done, self.seeds_drawn
            count = min(chunk, s.games - first)
            tasks = [{"game": s.game, "size": s.sizes[(first + i) % len(s.sizes)],
                      "simulations": s.simulations, "config": net.config, "params": net.params,
                      "balance_range": s.balance_range,
                      "seed": s.seed * 1_000_003 + self.iteration * 100_003 + drawn + i}
                     | self._resign_fields(drawn + i) for i in range(count)]
            records: list[dict[str, Any]] = []
            try:
                self.run_tasks(tasks, _selfplay_task, records.append)
            except tournament.Interrupted as stop:
                # Keep the games that ended (a chunk can be hours of play); their seeds
                # and those of the games cut short are not handed out again.
                self._keep_selfplay(stop.records, count)
                raise KeyboardInterrupt from None
            self._keep_selfplay(records, count)
            played_here += count
            rate = played_here / max(time.monotonic() - start, 1e-9)
            self.progress.show(f"iteration {self.iteration}: self-play {self.games_done}/{s.games} "
                               f"games ({rate:.3f} games/s, buffer {self.buffer.positions} positions"
                               f"{self._resign_summary()})", force=True)

    def _resign_fields(self, index: int) -> dict[str, Any]:
        """The resignation fields of an iteration's ``index``-th self-play task."""
        s = self.s
        if s.resign is None:
            return {}
        return Resign(s.resign[0], s.resign[1], s.resign_check).fields(index)

    def _resign_summary(self) -> str:
        t = self.totals
        if not t.get("resigned") and not t.get("checked"):
            return ""
        return (f"; resigned {t['resigned']}; of the games played out, {t['checked']} ended by "
                f"the rules after a player would have resigned, who won {t['resigner_won']}")

    def _keep_selfplay(self, records: list[dict[str, Any]], drawn: int) -> None:
        """Add finished self-play games to the buffer and checkpoint; ``drawn`` seeds were used."""
        for record in records:
            self.totals["positions"] += self.buffer.add(record)
            self._count_resignation(record)
        self.totals["selfplay_games"] += len(records)
        self.games_done += len(records)
        self.seeds_drawn += drawn
        self.save()

    def _count_resignation(self, record: dict[str, Any]) -> None:
        """Totals of the resignation check (AlphaZero's): resigned games; played-out games
        where a player would have resigned that the rules decided (not the move limit),
        and how many of those that player won."""
        for name in ("resigned", "checked", "resigner_won"):
            self.totals.setdefault(name, 0)
        if record.get("resigned"):
            self.totals["resigned"] += 1
        would = record.get("would_resign")
        if would and not record.get("adjudicated"):
            self.totals["checked"] += 1
            self.totals["resigner_won"] += record.get("winner") == would["color"]

    def losses(self, batch: Positions, size: int, paired: bool = False) -> dict[str, torch.Tensor]:
        """The loss terms of ``batch``; ``paired``: its second half is its first half turned
        by another symmetry, and ``symmetry`` is how far their values disagree."""
        dev = self.s.device
        t = {name: torch.from_numpy(np.ascontiguousarray(getattr(batch, name))).to(dev)
             for name in ("features", "policy", "policy_weight", "value", "score", "ownership",
                          "score_weight")}
        logits, value, score, ownership = self.model(t["features"], self._index(size))
        weight = t["policy_weight"]
        target = policy_target(t["policy"], self.s.policy_power)
        # Over the legal moves only, as the search reads the policy: no capacity is spent
        # on pushing occupied points down.
        legal = legal_mask(t["features"]) | (target > 0)
        log_p = F.log_softmax(logits.masked_fill(~legal, -1e9), dim=1)
        policy = -(target * log_p).sum(1)
        out = {"policy": (policy * weight).sum() / weight.sum().clamp(min=1),
               "value": F.mse_loss(value, t["value"])}
        if score is not None:
            # Only over positions whose game ended by the rules (a resigned game has no
            # final score or ownership to learn).
            known = t["score_weight"]
            count = known.sum().clamp(min=1)
            out["score"] = (F.smooth_l1_loss(score / 10, t["score"] / 10, reduction="none")
                            * known).sum() / count
            out["ownership"] = (F.mse_loss(ownership, t["ownership"], reduction="none").mean(1)
                                * known).sum() / count
        if paired:
            first, second = value.chunk(2)
            out["symmetry"] = F.mse_loss(first, second)
        return out

    def paired(self, batch: Positions, size: int) -> Positions:
        """``batch`` followed by itself turned by one more random symmetry (not the identity),
        for the symmetry term: the same positions, seen turned, should get the same value."""
        k = int(self.rng.integers(1, 12))
        return Positions.concat([batch, turn(batch, point_sources(self.s.game, size)[k])])

    def _index(self, size: int) -> torch.Tensor:
        cache = self.__dict__.setdefault("_indices", {})
        if size not in cache:
            cache[size] = torch_index(geometry(size).nbr, self.s.device)
        return cache[size]

    def train_steps(self) -> None:
        s = self.s
        self.model.train()
        start, done_here = time.monotonic(), 0
        sums: dict[str, float] = {}
        while self.step < s.steps:
            for group in self.optimizer.param_groups:
                group["lr"] = learning_rate(s.lr, self.step, s.steps)
            size, batch = self.buffer.sample(self.rng, s.batch, s.game)
            if s.relabel_share > 0:
                batch = relabel_balance(batch, self.rng, *balance_bounds(s.game, s.balance_range),
                                        s.relabel_share)
            paired = s.symmetry_weight > 0
            parts = self.losses(self.paired(batch, size) if paired else batch, size, paired)
            total = parts["policy"] + parts["value"]
            if "score" in parts:
                total = total + SCORE_WEIGHT * parts["score"] + OWNERSHIP_WEIGHT * parts["ownership"]
            if paired:
                total = total + s.symmetry_weight * parts["symmetry"]
            self.optimizer.zero_grad()
            total.backward()
            self.optimizer.step()
            self.step += 1
            self.totals["steps"] += 1
            done_here += 1
            for name, value in parts.items():
                sums[name] = sums.get(name, 0.0) + float(value.detach())
            sums["total"] = sums.get("total", 0.0) + float(total.detach())
            sums["n"] = sums.get("n", 0.0) + 1
            if self.step % 20 == 0 or self.step == s.steps:
                n = sums.pop("n")
                entry: dict[str, Any] = {"step": self.totals["steps"], "iteration": self.iteration}
                entry |= {k: v / n for k, v in sums.items()}
                self.history["loss"].append(entry)
                sums = {}
                rate = done_here * s.batch / max(time.monotonic() - start, 1e-9)
                self.progress.show(
                    f"iteration {self.iteration}: train step {self.step}/{s.steps} loss "
                    f"{entry['total']:.3f} (" + ", ".join(f"{k} {entry[k]:.3f}" for k in parts)
                    + f") {rate:.0f} positions/s", force=self.step == s.steps)
            if (self.step % s.checkpoint_every == 0 and self.step < s.steps
                    and time.monotonic() - self.saved_at
                    >= max(s.checkpoint_seconds, 9.0 * self.save_cost)):
                self.save()

    def evaluate(self) -> dict[str, Any]:
        return {"iteration": self.iteration} | heldout_figures(self.network(), self.holdout)

    def write_outputs(self) -> None:
        net = self.network()
        write_atomic(self.out / f"{self.s.game}.npz", net.save)
        write_atomic(self.out / f"weights-{self.iteration}.npz", net.save)
        losses = self.history["loss"]
        if losses:
            # a term may be missing from some entries (--symmetry-weight changed on a resume)
            names = [k for k in dict.fromkeys(k for e in losses for k in e)
                     if k not in ("step", "iteration")]
            svg = series_plot({k: ([e["step"] for e in losses if k in e],
                                   [e[k] for e in losses if k in e]) for k in names},
                              title=f"{self.s.game}: training loss", x_label="training step",
                              y_label="loss")
            write_atomic(self.out / "loss.svg", lambda f: f.write(svg), "w")
        evals = [e for e in self.history["eval"] if e.get("positions")]
        if evals:
            svg = series_plot({k: ([e["iteration"] for e in evals], [e[k] for e in evals])
                               for k in ("policy_top1", "value_accuracy")},
                              title=f"{self.s.game}: held-out teacher games", x_label="iteration",
                              y_label="share")
            write_atomic(self.out / "strength.svg", lambda f: f.write(svg), "w")
        text = json.dumps({"history": self.history, "totals": self.totals}, indent=1)
        write_atomic(self.out / "history.json", lambda f: f.write(text), "w")

    def run(self) -> Network:
        s = self.s
        s.check()
        self.out.mkdir(parents=True, exist_ok=True)
        if s.teacher_games:
            self.generate_teacher_games()
        while self.iteration < s.iterations:
            if self.phase == "data":
                added = self.read_teacher()
                if added:
                    self.progress.show(f"iteration {self.iteration}: {added} teacher games read "
                                       f"({len(self.holdout)} held out)", force=True)
                # Iteration 0 learns from the teacher games alone where there are any
                # (a resumed iteration 0 goes on with the self-play games it lacks).
                if self.iteration > 0 or self.totals["teacher_games"] == 0:
                    if s.games:
                        self.selfplay()
                if len(self.buffer.records) == 0:
                    raise ValueError("no games to learn from: give teacher games or self-play games")
                self.phase, self.step = "train", 0
                self.save()
            self.train_steps()
            found = self.evaluate()
            self.history["eval"].append(found)
            if found.get("positions"):
                self.progress.show(
                    f"iteration {self.iteration}: held out {found['positions']} positions: "
                    f"policy top-1 {found['policy_top1']:.3f}, value accuracy "
                    f"{found['value_accuracy']:.3f}", force=True)
            self.iteration += 1
            self.phase, self.step, self.games_done, self.seeds_drawn = "data", 0, 0, 0
            self.write_outputs()
            self.save()
        return self.network()


def starting_network(init: str, game: str, changes: dict[str, Any]) -> Network:
    """The weights a run starts from (``--init``): ``"shipped"`` (the game's shipped
    network) or a ``.npz`` file; refused unless it is a network of ``game`` that reads
    today's features and has the shape ``changes`` ask for (--channels, --blocks)."""
    if init == "shipped":
        net = load_network(game)
        if net is None:
            raise ValueError(f"--init shipped: no network ships for {game}")
    else:
        path = Path(init)
        if not path.is_file():
            raise ValueError(f"--init {init}: no such file")
        try:
            net = read_network(path)
        except (OSError, ValueError, KeyError) as exc:
            raise ValueError(f"--init {init}: not a network's weights ({exc})") from None
    if net.game != game:
        raise ValueError(f"--init {init}: a {net.game} network, not {game}")
    wanted = {k: v for k, v in default_config(game).items() if k in ("num_features", "has_score")}
    differ = [f"{k} {net.config.get(k)}, not {v}" for k, v in (wanted | changes).items()
              if net.config.get(k) != v]
    if differ:
        raise ValueError(f"--init {init}: another shape of network ({', '.join(differ)})")
    return net


def legal_mask(features: torch.Tensor) -> torch.Tensor:
    """``bool[B, P+1]``: the legal actions of each position, read from its features."""
    return torch.cat([features[:, :, F_LEGAL], features[:, :1, F_SPECIAL_LEGAL]], dim=1) > 0


def policy_target(visits: torch.Tensor, power: float) -> torch.Tensor:
    """The policy target from visit shares (rows sum to 1, or are all 0): the shares to
    ``power``, normalised (1: as they are; above 1: sharper, the searcher's exploration
    of poor moves counts less)."""
    if power == 1.0:
        return visits
    sharp = visits.clamp(min=0) ** power
    return sharp / sharp.sum(1, keepdim=True).clamp(min=1e-12)


def learning_rate(top: float, step: int, steps: int) -> float:
    """The learning rate of training step ``step`` (0-based) of an iteration of ``steps``:
    a cosine from ``top`` down to ``LR_FLOOR * top``."""
    floor = LR_FLOOR * top
    return floor + (top - floor) * 0.5 * (1.0 + math.cos(math.pi * step / max(steps, 1)))


def heldout_figures(net: Network, records: list[dict[str, Any]]) -> dict[str, Any]:
    """How ``net`` (numpy, as the product runs it) does on games it never trained on:
    policy top-1 agreement with the searcher's most visited move (among legal moves),
    value sign accuracy (decided games), policy cross-entropy and value squared error."""
    result: dict[str, Any] = {"positions": 0, "games": len(records)}
    if not records:
        return result
    agree = decided = right = n_pol = count = 0
    ce = sq = 0.0
    by_size: dict[int, list[Positions]] = {}
    for record in records:
        by_size.setdefault(record["size"], []).append(positions_of(record))
    for size, parts in by_size.items():
        pos = Positions.concat(parts)
        nbr = geometry(size).nbr
        for lo in range(0, len(pos), 256):
            chunk = pos.take(slice(lo, lo + 256))
            out = net.evaluate(chunk.features, nbr)
            legal = np.concatenate([chunk.features[:, :, F_LEGAL],
                                    chunk.features[:, :1, F_SPECIAL_LEGAL]], axis=1) > 0
            logits = np.where(legal, out.policy_logits, -np.inf)
            has = chunk.policy_weight > 0
            agree += int(np.sum((logits.argmax(1) == chunk.policy.argmax(1))[has]))
            n_pol += int(has.sum())
            shifted = logits - logits.max(1, keepdims=True)
            logp = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
            logp = np.where(legal, logp, 0.0)  # the targets are legal moves only
            ce += float(-np.sum((chunk.policy * logp)[has]))
            won = chunk.value != 0
            decided += int(won.sum())
            right += int(np.sum((np.sign(out.value) == np.sign(chunk.value))[won]))
            sq += float(np.sum((out.value - chunk.value) ** 2))
            count += len(chunk)
    return result | {"positions": count, "policy_top1": agree / max(n_pol, 1),
                     "policy_ce": ce / max(n_pol, 1), "value_accuracy": right / max(decided, 1),
                     "value_mse": sq / max(count, 1)}


def train(settings: Settings, resume: bool = False, progress: Progress | None = None,
          changes: set[str] | None = None) -> Network:
    """Run training as ``settings`` say, or with ``resume`` continue the run whose
    checkpoint is in ``settings.out`` (a fresh run if there is none); returns the net.
    A resumed run keeps its own settings but for those of :data:`RESUMABLE` that
    ``changes`` names (None: all of them)."""
    trainer = Trainer(settings, progress, resume_changes=changes)
    found = (Path(settings.out) / CHECKPOINT).exists()
    if found and not resume:
        raise ValueError(f"{settings.out} holds a training run: continue it with --resume, "
                         "or give another --out")
    if found:
        trainer.load()
    else:
        trainer.fresh_state()
    return trainer.run()


def configure_threads() -> None:
    """Torch's threads for the training steps, unless OMP_NUM_THREADS says: every core, up
    to 4. Self-play and training take turns (the workers wait while the network trains,
    which they never run with torch), so the steps need not leave cores to them: on 2
    cores, 2 threads train 1.4-1.5x the positions a second of 1."""
    if "OMP_NUM_THREADS" not in os.environ:
        torch.set_num_threads(max(1, min(4, os.cpu_count() or 1)))
