"""Teacher games for expert iteration: the classic MCTS plays itself and every move's
root visit counts are kept (the policy targets of the first iteration).

The balance (komi, prison stones) is varied around the game's default, so that the value
head learns it as an input. A game record is the dict :mod:`.data` reads.
"""

from __future__ import annotations

import random
from typing import Any

import hexstones
from hexstones.ai import mcts
from hexstones.games import game_class

# Plies at the start where the move is drawn in proportion to the visits (variety).
SAMPLE_PLIES = 8
# Balance drawn within this distance of the default, in this share of the games.
BALANCE_SPREAD = 6
BALANCE_VARIED = 0.7


def game_options(game_name: str, rng: random.Random) -> dict[str, Any]:
    """The start options of a training game: the balance varied around its default."""
    balance = game_class(game_name).balance
    low = max(balance.minimum, balance.default - BALANCE_SPREAD)
    high = min(balance.maximum, balance.default + BALANCE_SPREAD)
    varied = rng.random() < BALANCE_VARIED
    return {balance.option: rng.randint(low, high) if varied else balance.default}


def finish_record(game, record: dict[str, Any]) -> dict[str, Any]:
    outcome = game.outcome()
    record["winner"] = outcome.winner if outcome else None
    record["score"] = outcome.score if outcome else None
    return record


def teacher_game(game_name: str, size: int, iterations: int, seed: int,
                 sample_plies: int = SAMPLE_PLIES) -> dict[str, Any]:
    """One game of the classic MCTS against itself, ``iterations`` a move."""
    rng = random.Random(seed)
    options = game_options(game_name, rng)
    game = hexstones.new_game(game_name, size=size, **options)
    moves: list[str] = []
    visits: list[list[list[Any]]] = []
    limit = 6 * game.board.num_points
    while not game.is_over and len(moves) < limit:
        legal = game.legal_moves()
        if len(legal) == 1:
            move, children = legal[0], [[legal[0], 1]]
        else:
            found = mcts.search(game, iterations=iterations, seed=rng.randrange(2**31),
                                reuse=False, analysis=False)
            children = [[m, int(v)] for m, v, _ in found.children if v > 0]
            if len(moves) < sample_plies:
                move = rng.choices([c[0] for c in children], weights=[c[1] for c in children])[0]
            else:
                move = children[0][0]
        visits.append(children)
        game.play(move)
        moves.append(move)
    record = {"game": game_name, "size": size, "options": options, "seed": seed,
              "iterations": iterations, "moves": moves, "visits": visits, "by": "mcts"}
    return finish_record(game, record)
