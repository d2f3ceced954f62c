"""Self-play games of a network, in the game-record format of :mod:`.data`.

The search is the product's network search, :func:`hexstones.ai.puct.search`, with the
network being trained; variety comes from the first moves, drawn in proportion to the
visits (:func:`.teacher.play_record`).
"""

from __future__ import annotations

from typing import Any

from hexstones.ai import puct
from hexstones.ai.net import Network
from hexstones.ai.training.teacher import SAMPLE_PLIES, Children, play_record


def selfplay_game(network: Network, game_name: str, size: int, simulations: int, seed: int,
                  sample_plies: int = SAMPLE_PLIES) -> dict[str, Any]:
    """One game of ``network`` against itself, ``simulations`` simulations a move."""
    def search(game, rng) -> Children:
        found = puct.search(game, iterations=max(1, simulations), network=network, reuse=False,
                            analysis=False, threads=1)
        return [[m, int(v)] for m, v, _ in found.children if v > 0]
    return play_record(game_name, size, seed, search, sample_plies, by="selfplay",
                       simulations=simulations)
