"""Compiling ahead: the kernels the app uses are compiled (or loaded from numba's cache)
when the server starts, not on the first click.

On a fresh install nothing is cached, and the rules and the searches take minutes of CPU
to compile. The work is cut into parts (:func:`parts`: each game's rules, each game's
playouts, the search's moves, the search, the network search) that two compile
processes share, one a core: :class:`Plan` hands each the next part whose needs are
compiled, the rules of a game someone asked for first, and numba's disk cache passes a
finished part on. The AI's worker processes and the server process do not compile these
parts: each loads a finished part from the cache (a second at most). Numba compiles and
loads under one lock per process, so a worker that compiled the search itself held that
lock for minutes, and a move there that needed one more kernel waited for all of it.

Until a worker has loaded the compiled search it answers with the plain-Python search
(:mod:`hexstones.ai.pysearch`) over the rules' kernels, which come first, so that the
AI's first reply comes in seconds.
"""

from __future__ import annotations

import gc
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import hexstones
from hexstones.games import GAME_NAMES, IllegalMove, game_class
from hexstones.games.engine import CoreBacked
from hexstones.svg import board_svg

WARM_SIZE = 3  # the smallest board: the machine code is the same for every side
WARM_MOVES = 12  # moves played on it, so that captures, undo and scoring are compiled too


@dataclass(frozen=True)
class Part:
    """A part of the compile-ahead, compiled by one compile process."""

    name: str  # "dehil rules"
    label: str  # what the page says is compiling: "Dehil rules"
    cost: float  # seconds it compiles in (see RULES_COST): its weight in the progress
    run: Callable[[], None] = field(compare=False, repr=False)
    needs: tuple[str, ...] = ()  # parts it builds on (compiled before it, not again)
    loaded: bool = False  # whether the AI's workers load it (the rest is built into later parts)
    like: str | None = None  # a part whose compile time foretells this one's


# Compile seconds of each part, one after another in one process with nothing cached, on
# the project's 2-core machine while others used it (a load of 2-5): the weights of the
# progress fraction, which only needs them in proportion. A game's rules took 5-33 s and
# its playout 6-35 s; each game's count the same here (this layer names no game).
RULES_COST = 18.0
PLAYOUTS_COST = 17.0
SEARCH_MOVES_COST = 13.0
SEARCH_COST = 25.0
NETWORK_COST = 23.0


def rules_part(game: str) -> str:
    """The name of the part that compiles ``game``'s rules."""
    return f"{game} rules"


def parts() -> list[Part]:
    """The compile-ahead's parts, in the order they are started when nothing else decides
    (:class:`Plan`): every game's rules first (the plain search and the pages need them),
    then the search's moves, which both searches wait for, then the playouts."""
    rules = [Part(rules_part(name), f"{game_class(name).title} rules", RULES_COST,
                  partial(exercise_rules, name), loaded=True)
             for name in GAME_NAMES]
    # A game's playout shares little compiled code with its rules (Droched's compiled in
    # 31 s alone, 34 s after its rules): it need not wait for them. It takes about as long
    # as they did (measured: 11 s against 15, 6 against 5, 35 against 33).
    playouts = [Part(f"{name} playouts", f"{game_class(name).title} playouts", PLAYOUTS_COST,
                     partial(exercise_playouts, name), like=rules_part(name))
                for name in GAME_NAMES]
    # Both searches call every game's move and policy playout (the network's leaves mix
    # in a playout): compiled once, before them.
    search_needs = (*(part.name for part in playouts), "search moves")
    return [
        *rules,
        Part("search moves", "the search's moves", SEARCH_MOVES_COST, exercise_search_moves,
             tuple(part.name for part in rules)),
        *playouts,
        Part("search", "the search", SEARCH_COST, exercise_search, search_needs, loaded=True),
        Part("network search", "the network search", NETWORK_COST, exercise_network,
             search_needs, loaded=True),
    ]


def attempt(step: Callable[[], None], what: str) -> None:
    """Run a step of the compile-ahead; a failure is logged and costs only time (whatever
    needs the code compiles it then)."""
    try:
        step()
    except Exception as exc:  # noqa: BLE001
        logging.getLogger("hexstones.web").warning("%s failed: %r", what, exc)


def run_part(name: str) -> None:
    """Compile part ``name``, or load it where numba's cache has it."""
    for part in parts():
        if part.name == name:
            part.run()
            return
    raise ValueError(f"no compile-ahead part named {name!r}")


class Plan:
    """Which part to compile next, and how far the whole is (not thread-safe: the caller
    holds a lock). ``clock``: seconds, for the progress of the parts being compiled."""

    def __init__(self, todo: list[Part] | None = None, clock: Callable[[], float] = time.monotonic):
        self.parts = parts() if todo is None else todo
        self._clock = clock
        self._started: dict[str, float] = {}  # running part -> when
        self._seconds: dict[str, float] = {}  # finished part -> how long it took
        self.failed: set[str] = set()
        self._preferred: list[str] = []  # games asked for, the latest first

    @property
    def finished(self) -> bool:
        return len(self._seconds) == len(self.parts)

    def is_done(self, name: str) -> bool:
        return name in self._seconds

    def prefer(self, game: str) -> None:
        """Compile ``game``'s rules before any other part not yet started."""
        if game in self._preferred:
            self._preferred.remove(game)
        self._preferred.insert(0, game)

    def _rank(self, index: int, part: Part) -> tuple[int, int, float, int]:
        for rank, game in enumerate(self._preferred):
            if part.name == rules_part(game):
                return rank, index, 0.0, index
        if part.like is None:
            return len(self._preferred), index, 0.0, index
        # Of the parts foretold by another, the longest first: the one whose foreteller
        # took longest (still compiling: the longest of all), so that the last part to
        # finish, which the searches wait for, starts early.
        first = min(i for i, p in enumerate(self.parts) if p.like is not None)
        took = math.inf if part.like in self._started else self._seconds.get(part.like, 0.0)
        return len(self._preferred), first, -took, index

    def take(self) -> Part | None:
        """The next part to compile (marked started): of those not started whose needs
        are compiled, the asked-for game's rules first, else the first in order (of the
        playouts, the longest first). None when none can start now."""
        ready = [(self._rank(i, part), part) for i, part in enumerate(self.parts)
                 if part.name not in self._started and part.name not in self._seconds
                 and all(need in self._seconds for need in part.needs)]
        if not ready:
            return None
        part = min(ready, key=lambda pair: pair[0])[1]
        self._started[part.name] = self._clock()
        return part

    def done(self, name: str, ok: bool = True) -> None:
        """Part ``name`` is compiled (``ok`` False: it failed, and compiles where it is used)."""
        start = self._started.pop(name, None)
        self._seconds[name] = 0.0 if start is None else self._clock() - start
        if not ok:
            self.failed.add(name)

    def give_back(self, name: str) -> None:
        """Part ``name`` was not compiled after all (its process died): to start again."""
        self._started.pop(name, None)

    def progress(self) -> dict:
        """``done`` and ``total`` parts, ``fraction`` of the work (parts weighed by their
        cost, a running part by its time so far against its cost at the pace of the parts
        done: it moves while a long part compiles) and ``compiling``, the running parts'
        labels."""
        now = self._clock()
        cost = {part.name: part.cost for part in self.parts}
        total = sum(cost.values()) or 1.0
        timed = [name for name in self._seconds if name not in self.failed and cost[name] > 0]
        spent = sum(self._seconds[name] for name in timed)
        pace = spent / sum(cost[name] for name in timed) if timed and spent > 0 else 1.0
        work = sum(cost[name] for name in self._seconds)
        for name, start in self._started.items():
            work += cost[name] * min(0.95, (now - start) / (cost[name] * pace or 1.0))
        return {"done": len(self._seconds), "total": len(self.parts),
                "fraction": round(min(1.0, work / total), 3),
                "compiling": [part.label for part in self.parts if part.name in self._started]}


def exercise_rules(name: str) -> None:
    """Run what a page of game ``name`` and the plain-Python search ask of the rules:
    moves, legal moves, refused moves (their reasons), undo, the score, and the board with
    every overlay (which compiles the analysis)."""
    game = hexstones.new_game(name, size=WARM_SIZE)
    overlays = [o.name for o in game.overlays]
    for _ in range(WARM_MOVES):
        legal = game.legal_moves()
        if not legal or game.is_over:
            break
        game.play(legal[len(game.moves) * 7 % len(legal)])
        game.score()
        game.score_details()
        game.outcome()
    _refused_moves(game)
    board_svg(game, overlays=overlays, move_number=len(game.moves) // 2)
    copy = game.copy()
    while copy.moves:
        copy.undo()


def _refused_moves(game) -> None:
    """Try every move that is not legal in ``game``'s position: a refusal's reason has its
    own kernels (Dehil's triangle rule), which a person's wrong click needs."""
    legal = set(game.legal_moves())
    for move in [*game.board.names, *game.special_moves]:
        if move not in legal:
            try:
                game.play(move)
            except IllegalMove:
                continue
            game.undo()


def exercise_playouts(name: str) -> None:
    """Compile game ``name``'s policy playout as the search calls it (the same argument
    types), so that the search's compile finds it in the cache."""
    import numpy as np

    from hexstones.ai import mcts
    from hexstones.core import dispatch
    from hexstones.core.common import seed_rng

    game = hexstones.new_game(name, size=WARM_SIZE)
    assert isinstance(game, CoreBacked)
    door = game.compiled()
    st = mcts.state_for(game, door)
    points = door.num_points
    cand = np.empty(dispatch.policy_buffer_size(points), np.int32)
    reply = np.full((2, points + 1), -1, np.int32)
    game.kernels.policy_playout(door.geometry, st, seed_rng(0), mcts.playout_moves(door.game_id, points, True),
                           cand, np.zeros(2, np.float64), reply)


def exercise_search_moves() -> None:
    """Compile the search's move for every game (``dispatch.play`` as the searches call it,
    a move number of int32): both searches build on it."""
    import numpy as np

    from hexstones.ai import mcts
    from hexstones.core import dispatch

    for name in GAME_NAMES:
        game = hexstones.new_game(name, size=WARM_SIZE)
        assert isinstance(game, CoreBacked)
        door = game.compiled()
        st = mcts.state_for(game, door)
        dispatch.play(door.game_id, door.geometry, st, np.int32(0))


def exercise_search(name: str = GAME_NAMES[0]) -> None:
    """Compile the classic search, both playout kinds (levels 1-2 play without knowledge):
    one compile serves every game (its kernels dispatch on the game)."""
    from hexstones.ai import mcts

    mcts.warm_up(hexstones.new_game(name, size=WARM_SIZE))


def exercise_network() -> None:
    """Compile the network search where the levels play it: not for weights that do not
    play by default, which the app never uses."""
    from hexstones.ai import puct

    for name in GAME_NAMES:
        game = hexstones.new_game(name, size=WARM_SIZE)
        if puct.plays_by_default(game, any_side=True):  # the warm-up board's side is not the one played
            puct.warm_up(game)


def settle_memory() -> None:
    """Once the server has loaded what it serves with (the app, the compiled kernels):
    collect, then freeze what is left out of the garbage collector's sight. The loaded
    modules (numba and LLVM's above all) are a few hundred thousand objects that live
    as long as the process; without this every full collection walked them all, a pause
    of 150-270 ms for every request in flight on a 2-core machine, a few times a minute."""
    gc.collect()
    gc.freeze()

