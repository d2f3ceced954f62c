"""AI players. (Stand-in: a random legal move until the MCTS lands; same signatures.)"""

from __future__ import annotations

import random

from hexstones.games import Game

LEVELS = range(1, 11)


def choose_move(game: Game, *, seconds: float | None = None, iterations: int | None = None,
                seed: int | None = None, level: int | None = None) -> str:
    """A move for the side to move in ``game`` (``game`` is not changed)."""
    legal = game.legal_moves()
    if not legal:
        raise ValueError("the game is over: there is no move to choose")
    return random.Random(seed).choice(legal)


def propose_komi(game_name: str, size: int) -> int:
    """The komi (Droched: black stones in the prison) the AI proposes as first player."""
    return {"keil": 6, "dehil": 0, "droched": 0}[game_name]


def choose_side(game_name: str, size: int, komi: int) -> str:
    """The colour the AI takes as second player, given the proposed komi."""
    return "white" if komi >= propose_komi(game_name, size) else "black"
