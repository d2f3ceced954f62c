"""Self-play games of a network, in the game-record format of :mod:`.data`.

The search is the product's network search, :func:`hexstones.ai.puct.search`, with the
network being trained, plus AlphaZero's exploration noise at the root of every move
(``ROOT_NOISE``): without it a search of a few dozen simulations visits little but the
network's favourite moves, so the visit counts the network learns from only repeat its
own policy back to it, and the games barely vary past the first moves. More variety
comes from the first moves, drawn in proportion to the visits (:func:`.teacher.play_record`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hexstones.ai import puct
from hexstones.ai.net import Network
from hexstones.train.teacher import SAMPLE_PLIES, Searched, play_record

# (share, alpha_total) of the root's Dirichlet noise (:func:`hexstones.ai.puct.search`):
# AlphaZero's share; KataGo's total concentration (about 10 spread over the legal moves).
ROOT_NOISE = (0.25, 10.0)


def selfplay_game(network: Network, game_name: str, size: int, simulations: int, seed: int,
                  sample_plies: int = SAMPLE_PLIES,
                  root_noise: tuple[float, float] | None = ROOT_NOISE,
                  balance_range: tuple[int, int] | None = None,
                  resign: Sequence[float] | None = None, play_out: bool = False) -> dict[str, Any]:
    """One game of ``network`` against itself, ``simulations`` simulations a move, with
    ``root_noise`` at every move's root (None: none); ``resign`` and ``play_out`` as
    :func:`.teacher.play_record` takes them."""
    def search(game, rng) -> Searched:
        found = puct.search(game, iterations=max(1, simulations), network=network, reuse=False,
                            analysis=False, threads=1, seed=rng.randrange(2**31),
                            root_noise=root_noise)
        return [[m, int(v), w] for m, v, w in found.children if v > 0], found.root_win_rate
    return play_record(game_name, size, seed, search, sample_plies, balance_range,
                       resign=resign, play_out=play_out, by="selfplay", simulations=simulations,
                       root_noise=list(root_noise) if root_noise else None)
