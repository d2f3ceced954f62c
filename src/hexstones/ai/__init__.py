"""AI players: Monte-Carlo tree search, strength levels, and the komi pie.

Where the network plays a game's board side (the shipped weights on the sides of
:data:`hexstones.ai.levels.NETWORK_PLAYS`, or a network a person chose), the search is the
network-guided PUCT search (:mod:`hexstones.ai.puct`, results say ``engine`` "net") at the
levels that play it; otherwise the classic compiled search (numba, tree in arrays,
:mod:`hexstones.ai.mcts`) built on the game kernels of :mod:`hexstones.core`; a game
without compiled kernels falls back to the plain-Python search of
:mod:`hexstones.ai.pysearch`, which speaks only the game API. All three return a
:class:`hexstones.ai.result.SearchResult`; which search a level plays is decided in
:mod:`hexstones.ai.levels`.

* :func:`choose_move` -- a move for the side to move.
* :func:`analyze` -- win rate, best moves, principal variation, expected score, ownership.
* :func:`propose_komi`, :func:`choose_side` -- the two halves of the komi pie.

Budgets: ``iterations`` (deterministic for a given ``seed``: use it in tests) and/or
``seconds`` (wall clock); with neither, ``level`` decides (default full strength).
"""

from __future__ import annotations

import random
from typing import Any

from hexstones.ai.levels import (
    FULL_STRENGTH,
    LEVELS,
    Level,
    describe,
    engine_of,
    get_level,
    may_play_network,
)
from hexstones.games import Game, other

__all__ = ["choose_move", "choose_turn", "analyze", "propose_komi", "choose_side", "LEVELS", "Level",
           "get_level", "search", "engine_for", "level_guide"]

# Analysis lists this many best moves.
TOP_MOVES = 10
# Playouts behind each group's chance of ending in the prison (games with a prison).
PRISON_PLAYOUTS = 200
# Below this win rate (the search's, for its best move) a move after the opponent's pass
# is given up for the pass that ends the game: see settle().
HOPELESS = 0.05
# A best move with at least this win rate (the mover's) wins, and in a game the last to act
# wins the move played is one that brings the end nearer: see finish().
WON = 0.95
# finish() weighs the moves given at least this share of the best move's visits.
FINISH_SHARE = 0.1


def _check_budget(seconds, iterations) -> None:
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                or not seconds > 0):
        raise ValueError(f"seconds must be a positive number, not {seconds!r}")
    if iterations is not None and (isinstance(iterations, bool) or not isinstance(iterations, int)
                                   or iterations < 1):
        raise ValueError(f"iterations must be a whole number of at least 1, not {iterations!r}")


ENGINES = ("auto", "net", "mcts")


def search(game: Game, *, seconds: float | None = None, iterations: int | None = None,
           seed: int | None = None, knowledge: bool = True, reuse: bool = True,
           reuse_key=None, analysis: bool = True, engine: str = "auto"):
    """Run the best available search on ``game``; return a
    :class:`hexstones.ai.result.SearchResult`.

    ``engine``: "auto" (the network search where it plays the game's side by default:
    :func:`hexstones.ai.puct.plays_by_default`, else the classic search), "net" (the
    network search; ValueError without weights) or "mcts" (the classic search). With the
    network ``iterations`` counts simulations.
    ``knowledge=False`` is the plain UCT baseline (uniform random playouts, no RAVE; never
    the network). With ``reuse`` the compiled searches keep their tree for the next move
    of the same game; ``reuse_key`` names the player, so that two AIs in one process never
    share a tree.
    """
    if not isinstance(game, Game):
        raise TypeError(f"expected a hexstones game, not {type(game).__name__}")
    _check_budget(seconds, iterations)
    if game.is_over:
        raise ValueError("the game is over: there is nothing to search")
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if knowledge and engine != "mcts" and _net_plays(game, engine):
        from hexstones.ai import puct

        if seconds is None and iterations is None:
            iterations = FULL_STRENGTH.net_sims
            seconds = FULL_STRENGTH.max_seconds
        return puct.search(game, seconds=seconds, iterations=iterations, seed=seed, reuse=reuse,
                           reuse_key=reuse_key, analysis=analysis)
    if seconds is None and iterations is None:
        iterations = FULL_STRENGTH.iterations
        seconds = FULL_STRENGTH.max_seconds
    from hexstones.ai import mcts

    if mcts.supports(game):
        return mcts.search(game, seconds=seconds, iterations=iterations, seed=seed,
                           knowledge=knowledge, reuse=reuse, reuse_key=reuse_key,
                           analysis=analysis)
    from hexstones.ai import pysearch

    return pysearch.search(game, seconds=seconds, iterations=iterations, seed=seed)


def _net_plays(game: Game, engine: str) -> bool:
    """Whether the network search plays ``game`` (``engine`` "auto" or "net")."""
    from hexstones.ai import puct

    if engine == "auto":
        return puct.plays_by_default(game)
    if puct.supports(game):
        return True
    raise ValueError(f"no network weights for {game.name}: the network search cannot play it")


def engine_for(game: Game | None, level: int | None = None) -> str:
    """The search ``choose_move`` plays ``game`` with at ``level`` (None: full strength),
    "net" or "mcts", as :func:`hexstones.ai.levels.engine_of` decides (the shipped weights:
    :data:`hexstones.ai.levels.NETWORK_PLAYS`); the network search's modules load only for
    a level that may play it (``game`` may be None for the others)."""
    lv = get_level(level) if level is not None else FULL_STRENGTH
    if not may_play_network(lv):
        return "mcts"
    if game is None:
        raise ValueError(f"level {lv.number} may play a network: which one depends on the game")
    from hexstones.ai import puct

    return engine_of(lv, *puct.default_player(game))


def level_guide(game: Game | None, numbers=None) -> list[dict[str, Any]]:
    """Levels 1-10 (or those of ``numbers``) as they play ``game`` (its game and board
    side): for each, ``level``, ``engine`` (:func:`engine_for`), ``seconds`` (its time
    cap) and ``text`` (a few words for a person choosing an opponent). Only a level that
    may play the network looks at the game (and loads the network search's modules), so
    ``game`` may be None where ``numbers`` holds none of those (levels 1-8)."""
    guide = []
    for number in LEVELS if numbers is None else numbers:
        level = get_level(number)
        engine = engine_for(game, number)
        guide.append({"level": number, "engine": engine, "seconds": level.max_seconds,
                      "text": describe(level, engine == "net")})
    return guide


def _budget_for(level: Level | None, seconds, iterations, net: bool):
    if seconds is not None or iterations is not None:
        return seconds, iterations
    level = level or FULL_STRENGTH
    return level.max_seconds, (level.net_sims if net else level.iterations)


def choose_move(game: Game, *, seconds: float | None = None, iterations: int | None = None,
                seed: int | None = None, level: int | None = None) -> str:
    """A move for the side to move in ``game`` (``game`` is not changed).

    ``level`` (1-10) sets the playing strength; an explicit ``seconds``/``iterations``
    overrides its budget but keeps its style (knowledge, randomness).
    """
    return choose_turn(game, seconds=seconds, iterations=iterations, seed=seed, level=level)[0]


def choose_turn(game: Game, *, seconds: float | None = None, iterations: int | None = None,
                seed: int | None = None, level: int | None = None) -> tuple[str, float | None]:
    """:func:`choose_move`, with the search's win chance for the side to move (its root
    value; None where no search ran: a single legal move, a pass that wins), for a player
    that resigns (GTP's ``--resign``)."""
    lv = get_level(level) if level is not None else None
    _check_budget(seconds, iterations)
    if not isinstance(game, Game):
        raise TypeError(f"expected a hexstones game, not {type(game).__name__}")
    legal = game.legal_moves()
    if not legal:
        raise ValueError("the game is over: there is no move to choose")
    if len(legal) == 1:
        return legal[0], None
    if pass_wins(game, legal):
        return "pass", None
    engine = engine_for(game, level)
    secs, iters = _budget_for(lv, seconds, iterations, engine == "net")
    result = search(game, seconds=secs, iterations=iters, seed=seed,
                    knowledge=lv.knowledge if lv else True, engine=engine,
                    reuse_key=("choose_move", level, secs, iters), analysis=False)
    if not result.children:
        return random.Random(seed).choice(legal), None
    rate = result.root_win_rate
    temperature = lv.temperature if lv else 0.0
    if temperature > 0:
        rng = random.Random(None if seed is None else seed ^ 0x5EED)
        weights = [visits ** (1.0 / temperature) for _, visits, _ in result.children]
        return rng.choices([m for m, _, _ in result.children], weights=weights)[0], rate
    return best_move(game, result.children, legal), rate


def best_move(game: Game, children: list, legal: list[str]) -> str:
    """The move to play from a search's ``children`` (move, visits, the mover's win rate;
    most visited first): the most visited, unless :func:`finish` or :func:`settle` says
    otherwise."""
    best, _, best_rate = children[0]
    return finish(game, children) or settle(game, best, legal, best_rate)


def finish(game: Game, children: list) -> str | None:
    """In a game the last player to act wins (``game.last_to_act_wins``: Droched), every
    move of a won position looks won to the search, which then has no reason to end the
    game: the network search, winning, alternated releases with placements that sent its
    own stones to the prison (spare releases for the loser), and a person who never
    resigns got a game of hundreds of moves that did not end. So there, when the most
    visited move wins at least :data:`WON`, the move played is, of the moves that the
    search gives at least ``WON`` and at least :data:`FINISH_SHARE` of the best move's
    visits, the one after which the opponent has the fewest legal actions (ties: the more
    visited); the game ends when they have none. None elsewhere."""
    if not game.last_to_act_wins or not children or children[0][2] < WON:
        return None
    least_visits = FINISH_SHARE * children[0][1]
    best, fewest = None, None
    for move, visits, rate in children:
        if rate < WON or visits < least_visits:
            continue
        trial = game.copy()
        trial.play(move)
        left = len(trial.legal_moves())
        if fewest is None or left < fewest:
            best, fewest = move, left
    return best


def settle(game: Game, move: str, legal: list[str], win_rate: float | None = None) -> str:
    """``move``, or "pass" where going on cannot help: the opponent has just passed, a
    pass now ends the game (lost for the mover: :func:`pass_wins` passes a won one before
    any search), and either ``move`` leaves the count as it is (``game.score()``: a fill
    of one's own territory; the opponent can pass again and end the game with the same
    count) or the search gives ``move`` less than :data:`HOPELESS` of a win
    (``win_rate``, the mover's). Such a move only keeps a person who wants the game over
    waiting. A move that changes the count is not given up on
    the count alone: it may begin what the count does not show yet (a Dehil chain costs
    a point a stone until it partitions the board and they all count for the mover), and
    giving it up made the AI pass into lost games its search was winning."""
    if move == "pass" or "pass" not in legal or not game.moves or game.moves[-1] != "pass":
        return move
    now = game.score()
    if now is None:
        return move
    ends = game.copy()
    ends.play("pass")
    if not ends.is_over:
        return move
    if win_rate is not None and win_rate < HOPELESS:
        return "pass"
    after = game.copy()
    after.play(move)
    later = after.score()
    me, them = game.to_move, other(game.to_move)
    if later is None or later[me] - later[them] != now[me] - now[them]:
        return move
    return "pass"


def pass_wins(game: Game, legal: list[str]) -> bool:
    """Whether the opponent has just passed and a pass now ends the game with a win for
    the side to move, by the game's own result. Then the search is not asked: every move
    wins, and it used to answer pass after pass by filling its own territory (nothing to
    gain there, and a person who wants the game over passes again and again)."""
    if "pass" not in legal or not game.moves or game.moves[-1] != "pass":
        return False
    trial = game.copy()
    trial.play("pass")
    outcome = trial.outcome()
    return trial.is_over and outcome is not None and outcome.winner == game.to_move


def analyze(game: Game, *, seconds: float | None = None, iterations: int | None = None,
            seed: int | None = None, prison_playouts: int = PRISON_PLAYOUTS) -> dict[str, Any]:
    """The AI's view of the position, as JSON-ready data.

    Games with a prison (``game.prison is not None``) get ``prison_chance`` too: one entry
    per group on the board, ``{"points", "color", "chance"}``, the fraction of
    ``prison_playouts`` full-strength playouts (seeded by ``seed``) in which the group
    goes to the prison (:func:`hexstones.games.engine.stone_losses`).

    Keys: ``win_rate`` (side to move), ``moves`` (best first: move, visits, win_rate for
    the side to move), ``pv`` (principal variation), ``iterations``, ``playouts``,
    ``seconds``, ``engine`` ("net" when the network guided the search, "compiled" for the
    classic search, "python" for the plain-Python one); for Keil and Dehil also
    ``expected_score`` (mean final score, komi included) and ``ownership`` (point -> -1
    white .. +1 black). With the network, the score is its margin estimate averaged over
    the search (also given as ``score_lead``, Black's lead), the two totals split around
    the position's present total, and the ownership its ownership head averaged over the
    evaluated leaves; ``playouts`` counts network evaluations.
    """
    _check_budget(seconds, iterations)
    result = search(game, seconds=seconds, iterations=iterations, seed=seed, reuse=False)
    out: dict[str, Any] = {
        "game": game.name,
        "size": game.size,
        "to_move": result.root_to_move,
        "engine": result.engine,
        "iterations": result.iterations,
        "playouts": result.playouts,
        "seconds": round(result.seconds, 4),
        "win_rate": result.root_win_rate,
        "moves": [{"move": m, "visits": v, "win_rate": w}
                  for m, v, w in result.children[:TOP_MOVES]],
        "pv": list(result.pv),
    }
    if result.score_lead is not None:
        out["score_lead"] = result.score_lead
    if result.black_score is not None and result.ownership is not None:
        out["expected_score"] = {"black": result.black_score, "white": result.white_score}
        out["ownership"] = {name: result.ownership[i] for i, name in enumerate(game.board.names)}
    if game.prison is not None:
        out["prison_chance"] = prison_chances(game, prison_playouts, 0 if seed is None else seed)
    return out


def prison_chances(game: Game, playouts: int, seed: int = 0) -> list[dict[str, Any]]:
    """Each group on the board with its chance of going to the prison (see :func:`analyze`)."""
    from hexstones.games.engine import stone_losses

    losses = stone_losses(game, playouts, seed)
    stones = game.stones()
    parent = {p: p for p in losses}

    def root(p: str) -> str:
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    for a, b in game.links(list(losses)):
        if stones[a] == stones[b]:
            parent[root(a)] = root(b)
    groups: dict[str, list[str]] = {}
    for p in losses:  # board order
        groups.setdefault(root(p), []).append(p)
    return [{"points": points, "color": stones[points[0]], "chance": round(losses[points[0]], 4)}
            for points in groups.values()]


def propose_komi(game_name: str, size: int, *, iterations: int | None = None,
                 seed: int = 0, level: int | None = None) -> int:
    """The komi (Droched: black stones in the prison) the AI at ``level`` (None: full
    strength) proposes as first player, so that either colour is an even game: at full
    strength (levels 9-10) the fair value on record for the side where there is one
    (docs/komi.md), else its own estimate, from a search of the level's effort
    (``iterations`` to set it; a search is then always run)."""
    from hexstones.ai.pie import propose_komi as _propose

    return _propose(game_name, size, iterations=iterations, seed=seed, level=level)


def choose_side(game_name: str, size: int, komi: int, *, iterations: int | None = None,
                seed: int = 0, level: int | None = None) -> str:
    """The colour the AI at ``level`` (None: full strength) takes as second player, given
    the proposed komi: the one its search of the starting position favours."""
    from hexstones.ai.pie import choose_side as _choose

    return _choose(game_name, size, komi, iterations=iterations, seed=seed, level=level)
