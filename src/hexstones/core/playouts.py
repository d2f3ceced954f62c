"""Random playouts on the compiled core, for researchers and for the AI.

``playouts(game, count, seed=0)`` plays ``count`` uniformly random games to the end from a
position and returns statistics. The playout policy (what "uniformly random" means when
a pass or the button is available) is documented in :mod:`hexstones.core` and
``docs/engine.md``. Also reachable as ``hexstones.playouts``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexstones.board import get_board
from hexstones.core.common import seed_rng
from hexstones.core.dispatch import play, run_playouts
from hexstones.core.layout import (
    GAME_IDS,
    M_PLY,
    OK,
    REASON_NAMES,
    capacity_of,
    default_capacity,
    geometry,
    grow_state,
)
from hexstones.core.state import start_state
from hexstones.games import Game, new_game


def core_state_of(game: Game):
    """A core state holding ``game``'s position and history (its moves replayed)."""
    if hasattr(game, "core_state"):
        return game.core_state()
    name = game.name
    opts = dict(game.options)
    board = get_board(game.size)
    handicap = tuple(board.point(p) for p in opts.get("handicap", ()) or ())
    st = start_state(name, game.size, komi=int(opts.get("komi", 0) or 0),
                     prison=int(opts.get("prison", 0) or 0), handicap=handicap,
                     capacity=max(len(game.moves) + 64, 2 * board.num_points))
    gid, geo = GAME_IDS[name], geometry(game.size)
    for i, move in enumerate(game.moves):
        code = play(gid, geo, st, board.index[move] if move in board.index else board.num_points)
        if code != OK:
            raise RuntimeError(
                f"the compiled core refuses move {i + 1} ({move!r}) of this {name} game: "
                f"{REASON_NAMES[code]}")
    return st


def playouts(game: Game | str, count: int, seed: int = 0, **options: Any) -> dict[str, Any]:
    """Play ``count`` uniformly random games to the end from ``game`` and count the results.

    ``game`` is a game object (its current position and history are the start) or a game
    name, with ``options`` as :func:`hexstones.new_game` takes them (a new game). Same
    ``seed``, same result. Returns ``{"game", "size", "games", "moves", "wins": {"black",
    "white"}, "mean_length", "mean_score"}`` (``mean_score`` is ``None`` for Droched, which
    has no score; ``moves`` and ``mean_length`` count only moves made by the playouts).
    """
    if isinstance(game, str):
        game = new_game(game, **options)
    elif options:
        raise ValueError("options go with a game name, not with a game object")
    if not isinstance(game, Game):
        raise ValueError(f"playouts need a game object or a game name, not {game!r}")
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ValueError(f"count must be a whole number of games (0 or more), not {count!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be a whole number, not {seed!r}")
    gid, geo = GAME_IDS[game.name], geometry(game.size)
    root = core_state_of(game)
    # The room a playout starts with depends on the position only, never on how much the
    # game object happened to hold: a playout that fills its history resumes in a bigger
    # one with a fresh candidate list, so the room changes the games drawn.
    st = grow_state(root, int(root[1][M_PLY]) + default_capacity(game.size))
    rng = seed_rng(seed)
    totals = np.zeros(4, np.int64)
    scores = np.zeros(4, np.float64)
    done, resume = 0, False
    while done < count:
        done = run_playouts(gid, geo, root, st, rng, done, count, resume, totals, scores)
        if done < count:  # a long game filled the history: double it and carry on
            st = grow_state(st, 2 * capacity_of(st))
            resume = True
    games = int(totals[0])
    has_score = game.name != "droched"
    return {
        "game": game.name,
        "size": game.size,
        "games": games,
        "moves": int(totals[1]),
        "wins": {"black": int(totals[2]), "white": int(totals[3])},
        "mean_length": float(totals[1]) / games if games else 0.0,
        "mean_score": ({"black": float(scores[0]) / games, "white": float(scores[1]) / games}
                       if has_score and games else None),
    }
