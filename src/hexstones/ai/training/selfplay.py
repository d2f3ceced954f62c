"""Self-play games of a network, in the game-record format of :mod:`.data`.

The search here is a stopgap for training only: a small PUCT in Python over the compiled
kernels (``dispatch.play`` / ``undo``), one network evaluation per leaf, Dirichlet noise
at the root, moves drawn by visits in the opening. The product's network search is
``hexstones.ai.puct``; self-play moves to it once it exists.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hexstones.ai.features import NUM_FEATURES, write_features
from hexstones.ai.net import Network
from hexstones.ai.training.teacher import SAMPLE_PLIES, Children, play_record
from hexstones.core import dispatch
from hexstones.core.layout import BLACK as BLACK_CODE, M_TO_MOVE, OK

C_PUCT = 1.5
DIRICHLET_ALPHA = 0.3
NOISE_SHARE = 0.25


class _Node:
    __slots__ = ("mover", "actions", "prior", "visits", "total", "children")

    def __init__(self, mover: int, actions: np.ndarray, prior: np.ndarray):
        self.mover = 1.0 if mover == BLACK_CODE else -1.0  # +1 Black to move, -1 White
        self.actions = actions
        self.prior = prior
        self.visits = np.zeros(len(actions), np.float64)
        self.total = np.zeros(len(actions), np.float64)  # values for the node's mover
        self.children: dict[int, _Node | None] = {}


class _Search:
    def __init__(self, network: Network, gid: int, geo, st, balance: float):
        self.network, self.gid, self.geo, self.st = network, gid, geo, st
        self.balance = balance
        P = st.board.shape[0]
        self.legal = np.empty(P + 1, np.int32)
        self.feats = np.empty((1, P, NUM_FEATURES), np.float32)

    def expand(self) -> tuple[_Node | None, float]:
        """A node for the position in ``st`` and its value for Black (+1 a Black win)."""
        gid, geo, st = self.gid, self.geo, self.st
        mover = st.meta[M_TO_MOVE]
        if dispatch.is_over(gid, geo, st):
            won = dispatch.winner(gid, geo, st)
            return None, 0.0 if won == 0 else (1.0 if won == BLACK_CODE else -1.0)
        count = dispatch.legal_moves(gid, geo, st, self.legal)
        actions = self.legal[:count].copy()
        write_features(geo, st, self.balance, self.feats[0])
        out = self.network.evaluate(self.feats, geo.nbr)
        logits = out.policy_logits[0, actions].astype(np.float64)
        prior = np.exp(logits - logits.max())
        sign = 1.0 if mover == BLACK_CODE else -1.0
        return _Node(mover, actions, prior / prior.sum()), sign * float(out.value[0])

    def simulate(self, root: _Node) -> None:
        gid, geo, st = self.gid, self.geo, self.st
        path: list[tuple[_Node, int]] = []
        node = root
        while True:
            n = node.visits.sum()
            q = np.where(node.visits > 0, node.total / np.maximum(node.visits, 1), 0.0)
            u = C_PUCT * node.prior * math.sqrt(n + 1) / (1 + node.visits)
            i = int(np.argmax(q + u))
            a = int(node.actions[i])
            if dispatch.play(gid, geo, st, a) != OK:  # history full: count as a draw
                black_value, played = 0.0, False
            else:
                played = True
            path.append((node, i))
            if not played:
                break
            if a in node.children:
                child = node.children[a]
                if child is None:  # a finished game
                    _, black_value = self.expand()
                    break
                node = child
                continue
            child, black_value = self.expand()
            node.children[a] = child
            break
        for parent, i in path:
            parent.visits[i] += 1
            parent.total[i] += black_value * parent.mover
        for _ in range(len(path) - (0 if played else 1)):
            dispatch.undo(gid, geo, st)


def selfplay_game(network: Network, game_name: str, size: int, simulations: int, seed: int,
                  sample_plies: int = SAMPLE_PLIES) -> dict[str, Any]:
    """One game of the network against itself, ``simulations`` PUCT simulations a move."""
    nrng = np.random.default_rng(seed)

    def search(game: Any, rng) -> Children:
        door = game.compiled()
        found = _Search(network, door.game_id, door.geometry, door.state, float(game.balance_value))
        root, _ = found.expand()
        noise = nrng.dirichlet([DIRICHLET_ALPHA] * len(root.actions))
        root.prior = (1 - NOISE_SHARE) * root.prior + NOISE_SHARE * noise
        for _ in range(simulations):
            found.simulate(root)
        order = np.argsort(-root.visits, kind="stable")
        return [[game.move_of(int(root.actions[i])), int(root.visits[i])]
                for i in order if root.visits[i] > 0]
    return play_record(game_name, size, seed, search, sample_plies, by="selfplay",
                       simulations=simulations)
