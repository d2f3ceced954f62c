"""Training positions from game records, the replay buffer, the 12 symmetries.

A game record (the teacher's and self-play's share the format) is a dict with ``game``,
``size``, ``options``, ``moves`` (move names) and ``visits`` (per ply, ``[move, visits]``
pairs of the searcher's root). Replaying it through the game API gives, for every ply,
the features seen by the side to move and the targets: the visit distribution (policy),
the result for the mover (value: +1 win, -1 loss, 0 draw), the final score margin for the
mover and the final ownership (+1 the mover's) in games with a score. A game that did not
end by the rules (a resignation, the move limit) takes its result from the record's
``winner`` and has no score or ownership targets (``score_weight`` 0).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

import hexstones
from hexstones.games import BLACK, WHITE, Game
from hexstones.games.observation import NUM_FEATURES, balances_of, features_of, set_balances

TARGETS = ("features", "policy", "policy_weight", "value", "score", "ownership", "score_weight")


@dataclass
class Positions:
    """Training positions of one board side (arrays with the same first axis)."""

    features: np.ndarray       # float32[N, P, C]
    policy: np.ndarray         # float32[N, P+1], sums to 1 (or 0 where policy_weight is 0)
    policy_weight: np.ndarray  # float32[N]: 0 where the mover had a single legal move
    value: np.ndarray          # float32[N]
    score: np.ndarray          # float32[N] (0 in games without a score)
    ownership: np.ndarray      # float32[N, P] (0 in games without a score)
    score_weight: np.ndarray   # float32[N]: 1 where score and ownership are targets (the
    # game ended by the rules with a score), else 0

    def __len__(self) -> int:
        return len(self.value)

    @staticmethod
    def empty(num_points: int) -> Positions:
        P = num_points
        return Positions(np.zeros((0, P, NUM_FEATURES), np.float32), np.zeros((0, P + 1), np.float32),
                         np.zeros(0, np.float32), np.zeros(0, np.float32), np.zeros(0, np.float32),
                         np.zeros((0, P), np.float32), np.zeros(0, np.float32))

    @staticmethod
    def concat(parts: list[Positions]) -> Positions:
        return Positions(*(np.concatenate([getattr(p, t) for p in parts]) for t in TARGETS))

    def take(self, index) -> Positions:
        return Positions(*(getattr(self, t)[index] for t in TARGETS))


def game_of(record: dict[str, Any]) -> Game:
    return hexstones.new_game(record["game"], size=record["size"], **record.get("options", {}))


def final_ownership(game: Game) -> dict[str, str]:
    """The owner of every point of a finished game: its stones and its territories."""
    owner = dict(game.stones())
    for area in game.territories():
        if area.get("owner") in (BLACK, WHITE):
            for point in area["points"]:
                owner[point] = area["owner"]
    return owner


def positions_of(record: dict[str, Any]) -> Positions:
    """Replay a record through the game API and return its positions with targets.
    A record whose moves are not legal is an error (ValueError from the game)."""
    game = game_of(record)
    P = game.board.num_points
    feats, pols, weights, movers = [], [], [], []
    for move, visits in zip(record["moves"], record["visits"]):
        feats.append(features_of(game))
        pol = np.zeros(P + 1, np.float32)
        for name, count in visits:
            pol[game.action_of(name)] += count
        total = pol.sum()
        weights.append(1.0 if len(visits) > 1 and total > 0 else 0.0)
        pols.append(pol / total if total > 0 else pol)
        movers.append(game.to_move)
        game.play(move)
    n = len(feats)
    if n == 0:
        return Positions.empty(P)
    outcome = game.outcome()
    # Not ended by the rules: the record says who won (a resignation), or nobody.
    winner = outcome.winner if outcome else record.get("winner")
    value = np.array([0.0 if winner is None else (1.0 if winner == m else -1.0) for m in movers],
                     np.float32)
    score = np.zeros(n, np.float32)
    ownership = np.zeros((n, P), np.float32)
    score_weight = np.zeros(n, np.float32)
    if game.has_score and outcome is not None and outcome.score:
        score_weight[:] = 1.0
        margin = outcome.score[BLACK] - outcome.score[WHITE]
        score = np.array([margin if m == BLACK else -margin for m in movers], np.float32)
        black_view = np.zeros(P, np.float32)
        index = game.board.index
        for point, color in final_ownership(game).items():
            black_view[index[point]] = 1.0 if color == BLACK else -1.0
        ownership = np.stack([black_view if m == BLACK else -black_view for m in movers])
    return Positions(np.stack(feats), np.stack(pols), np.array(weights, np.float32), value,
                     score, ownership.astype(np.float32), score_weight)


def relabel_balance(positions: Positions, rng: np.random.Generator, low: int, high: int,
                    share: float) -> Positions:
    """The positions with ``share`` of those of finished games given another komi, drawn
    evenly from ``low .. high``: their balance features as that komi writes them, and
    their value and score targets what the same final position would have scored with it
    (the margin moves by the difference of the two komi, the winner by its sign).

    Only for games whose balance is a komi (``Balance.offsets_score``). So a value head
    learns what komi is worth from every game, whatever komi it was played at: a network
    trained on games at komi 0 to 12 alone reads a komi below 0 as nothing it has seen
    (Keil 7's self-play at komi -10 .. -1 lost nearly every game for Black). The policy
    target stays the one searched at the game's own komi. Rewrites ``positions``'
    arrays (a sampled batch's copies) and returns it."""
    n = len(positions)
    rows = np.flatnonzero((positions.score_weight > 0) & (rng.random(n) < share))
    if len(rows) == 0:
        return positions
    balance, white = balances_of(positions.features[rows])
    new = rng.integers(low, high + 1, len(rows))
    # A komi is White's: k more of it lowers Black's margin by k and raises White's.
    shift = np.where(white, new - balance, balance - new).astype(np.float32)
    margin = positions.score[rows] + shift
    positions.score[rows] = margin
    positions.value[rows] = np.sign(margin)
    set_balances(positions.features, rows, new)
    return positions


def read_records(path, skip: int = 0) -> list[dict[str, Any]]:
    """The records of a JSON-lines file after its first ``skip`` lines; a line being
    written (no newline yet) is left for later."""
    records = []
    with open(path) as f:
        for i, line in enumerate(f):
            if i < skip:
                continue
            if not line.endswith("\n"):
                break
            records.append(json.loads(line))
    return records


# -- symmetries --------------------------------------------------------------------

@cache
def point_sources(game_name: str, size: int) -> np.ndarray:
    """``int[12, P+1]``: turned by symmetry ``k``, action ``a`` holds what action
    ``sources[k, a]`` held (the game's ``action_symmetries``, inverted)."""
    images = hexstones.new_game(game_name, size=size).action_symmetries()
    sources = np.argsort(images, axis=1)
    sources.setflags(write=False)
    return sources


def turn(positions: Positions, sources: np.ndarray) -> Positions:
    """The positions turned by the symmetry whose source map is ``sources`` (``[P+1]``).
    Every feature is per point, so a feature plane turns as a point vector does."""
    pts = sources[:-1]
    return Positions(positions.features[:, pts], positions.policy[:, sources],
                     positions.policy_weight, positions.value, positions.score,
                     positions.ownership[:, pts], positions.score_weight)


# -- replay buffer -----------------------------------------------------------------

def is_selfplay(record: dict[str, Any]) -> bool:
    """Whether a record is a self-play game of the network (else a teacher game: the
    classic search's, whoever wrote the file)."""
    return record.get("by") == "selfplay"


class ReplayBuffer:
    """Every teacher game and the latest ``capacity`` self-play games (records), with
    their positions by board side.

    Teacher games never leave: they are the expert's moves, and a run's self-play games
    soon outnumber them. A batch draws ``teacher_share`` of its positions from teacher
    games while the buffer holds both kinds (so self-play cannot drown them), the rest
    from self-play games.

    The records are the buffer's state (small, JSON-ready: what a checkpoint keeps); the
    positions are computed from them, again on a resume."""

    def __init__(self, capacity: int, teacher_share: float = 0.5):
        if not 0.0 <= teacher_share <= 1.0:
            raise ValueError(f"teacher_share must be in [0, 1], not {teacher_share}")
        self.capacity = capacity
        self.teacher_share = teacher_share
        self.records: list[dict[str, Any]] = []
        self._parts: list[tuple[int, Positions]] = []
        self._joined: dict[int, tuple[Positions, np.ndarray]] = {}
        self.added = 0  # games ever added: the buffer position a resume continues at

    def add(self, record: dict[str, Any]) -> int:
        """Add a game; returns its positions' count."""
        positions = positions_of(record)
        self.records.append(record)
        self._parts.append((record["size"], positions))
        self.added += 1
        if is_selfplay(record) and sum(map(is_selfplay, self.records)) > self.capacity:
            oldest = next(i for i, r in enumerate(self.records) if is_selfplay(r))
            del self.records[oldest], self._parts[oldest]
        self._joined = {}
        return len(positions)

    @property
    def positions(self) -> int:
        return sum(len(p) for _, p in self._parts)

    def by_size(self) -> dict[int, tuple[Positions, np.ndarray]]:
        """Per side: its positions, and which of them come from teacher games."""
        if not self._joined:
            sizes = sorted({size for size, _ in self._parts})
            for size in sizes:
                mine = [(p, is_selfplay(r)) for (s, p), r in zip(self._parts, self.records)
                        if s == size]
                teacher = np.concatenate([np.full(len(p), not selfplay) for p, selfplay in mine])
                self._joined[size] = (Positions.concat([p for p, _ in mine]), teacher)
        return self._joined

    def sample(self, rng: np.random.Generator, batch: int, game_name: str) -> tuple[int, Positions]:
        """A batch from one side (chosen in proportion to its positions), ``teacher_share``
        of it from teacher games where the side has both kinds, each position turned by a
        random one of the 12 symmetries."""
        joined = self.by_size()
        sizes = sorted(joined)
        counts = np.array([len(joined[s][0]) for s in sizes], float)
        size = sizes[rng.choice(len(sizes), p=counts / counts.sum())]
        have, teacher = joined[size]
        from_teacher = np.flatnonzero(teacher)
        from_selfplay = np.flatnonzero(~teacher)
        if len(from_teacher) and len(from_selfplay):
            n_teacher = int(round(batch * self.teacher_share))
            index = np.concatenate([rng.choice(from_teacher, n_teacher),
                                    rng.choice(from_selfplay, batch - n_teacher)])
        else:
            index = rng.integers(0, len(have), batch)
        picked = have.take(index)
        sources = point_sources(game_name, size)
        ks = rng.integers(0, 12, batch)
        parts = [turn(picked.take(ks == k), sources[k]) for k in range(12) if np.any(ks == k)]
        return size, Positions.concat(parts)

    def state(self) -> dict[str, Any]:
        return {"capacity": self.capacity, "teacher_share": self.teacher_share,
                "added": self.added, "records": list(self.records)}

    @staticmethod
    def from_state(state: dict[str, Any]) -> ReplayBuffer:
        buf = ReplayBuffer(state["capacity"], state.get("teacher_share", 0.5))
        for record in state["records"]:
            buf.add(record)
        buf.added = state["added"]
        return buf
