"""Teacher games for expert iteration: the classic MCTS plays itself and every move's
root visit counts are kept (the policy targets of the first iteration).

The balance (komi, prison stones) is varied around the game's default, so that the value
head learns it as an input. A game record is the dict :mod:`.data` reads.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import hexstones
from hexstones import ai
from hexstones.ai import mcts
from hexstones.games import game_class
from hexstones.session import ResignWatch

# Plies at the start where the move is drawn in proportion to the visits (variety).
SAMPLE_PLIES = 8
# Balance drawn within this distance of the default, in this share of the games.
BALANCE_SPREAD = 6
BALANCE_VARIED = 0.7


def game_options(game_name: str, rng: random.Random,
                 balance_range: tuple[int, int] | None = None) -> dict[str, Any]:
    """The start options of a training game: the balance varied around its default, or
    drawn evenly from ``balance_range`` (low, high) when one is given (a network that
    must know balances far from the default, as where the fair komi lies below it)."""
    balance = game_class(game_name).balance
    low, high = balance_bounds(game_name, balance_range)
    if balance_range is not None:
        return {balance.option: rng.randint(low, high)}
    varied = rng.random() < BALANCE_VARIED
    return {balance.option: rng.randint(low, high) if varied else balance.default}


def balance_bounds(game_name: str, balance_range: Sequence[int] | None = None) -> tuple[int, int]:
    """The lowest and highest balance a training game may start with: ``balance_range``
    when one is given, else the default's spread (within the game's limits)."""
    if balance_range is not None:
        low, high = balance_range
        return int(low), int(high)
    balance = game_class(game_name).balance
    return (max(balance.minimum, balance.default - BALANCE_SPREAD),
            min(balance.maximum, balance.default + BALANCE_SPREAD))


# [move name, visits, win rate for the mover] of a searcher's root, most visited first
# (records keep the move and the visits)
Children = list[list[Any]]
# A search's answer: the root's children and its win chance for the player to move (None:
# not known).
Searched = tuple[Children, float | None]


def play_record(game_name: str, size: int, seed: int, search: Callable[[Any, random.Random], Searched],
                sample_plies: int, balance_range: tuple[int, int] | None = None,
                resign: Sequence[float] | None = None, play_out: bool = False,
                **facts: Any) -> dict[str, Any]:
    """One self-play game as a record: ``search(game, rng)`` gives each move's root
    visits and win chance; the move is drawn by visits in the first ``sample_plies``
    plies, after them picked as the levels pick it (:func:`hexstones.ai.best_move`: the
    most visited, except where a won game is to be ended or a pass settles it).
    ``resign`` (``[below, turns]``) and ``play_out`` as the tournament's games take them
    (:class:`hexstones.session.ResignWatch`): a resigned game's record has
    ``resigned`` and no score; a game the move limit stops goes to the player who would
    not have resigned. ``facts`` (who searched, how much) go into the record."""
    rng = random.Random(seed)
    options = game_options(game_name, rng, balance_range)
    game = hexstones.new_game(game_name, size=size, **options)
    watch = ResignWatch(resign, play_out)
    moves: list[str] = []
    visits: list[Children] = []
    limit = 6 * game.board.num_points
    while not game.is_over and len(moves) < limit:
        legal = game.legal_moves()
        if len(legal) == 1:
            children: Children = [[legal[0], 1, 0.5]]
            win_rate: float | None = None
        else:
            children, win_rate = search(game, rng)
        sampled = len(moves) < sample_plies
        if sampled:
            names: list[str] = [c[0] for c in children]
            move = rng.choices(names, weights=[c[1] for c in children])[0]
        elif watch.resigns(game.to_move, len(moves), win_rate):
            break
        else:
            move = ai.best_move(game, children, legal)
        visits.append([[c[0], c[1]] for c in children])
        game.play(move)
        moves.append(move)
    outcome = game.outcome()
    record = {"game": game_name, "size": size, "options": options, "seed": seed, **facts,
              "moves": moves, "visits": visits,
              "winner": watch.winner(outcome.winner if outcome else None),
              "score": outcome.score if outcome else None,
              # stopped by the move limit (not by the rules, not by a resignation)
              "adjudicated": outcome is None and watch.resigned is None}
    if resign:
        record["resign"] = list(resign)
        if play_out:
            record["play_out"] = True
    watch.note(record)
    return record


def teacher_game(game_name: str, size: int, iterations: int, seed: int,
                 sample_plies: int = SAMPLE_PLIES,
                 balance_range: tuple[int, int] | None = None) -> dict[str, Any]:
    """One game of the classic MCTS against itself, ``iterations`` a move."""
    def search(game, rng: random.Random) -> Searched:
        found = mcts.search(game, iterations=iterations, seed=rng.randrange(2**31),
                            reuse=False, analysis=False)
        return [[m, int(v), w] for m, v, w in found.children if v > 0], found.root_win_rate
    return play_record(game_name, size, seed, search, sample_plies, balance_range, by="mcts",
                       iterations=iterations)
