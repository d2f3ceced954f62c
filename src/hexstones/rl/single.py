"""A Gymnasium single-agent environment: one player against a chosen opponent.

The game is a game object of the game API (the opponents of :mod:`hexstones.ai` search
game objects); observations are :func:`hexstones.rl.observe`'s planes, seen by the agent.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np

from hexstones.games import BLACK, COLORS, Game
from hexstones.rl.planes import action_mask, observation_bounds, observe
from hexstones.rl.vector import _new_game, default_max_moves

Opponent = Callable[[Game, np.random.Generator], str]


def make_opponent(spec: str | Opponent) -> Opponent:
    """An opponent from ``spec``: ``"random"`` (a uniformly random legal move),
    ``"mcts:N"`` (:func:`hexstones.ai.choose_move` with ``iterations=N``), ``"level:K"``
    (the AI at level K, 1-10), or a function ``(game, rng) -> move``."""
    if callable(spec):
        return spec
    text = spec.strip().lower() if isinstance(spec, str) else None
    if text == "random":
        return _random_move
    found = re.fullmatch(r"(mcts|level):(\d+)", text or "")
    if found:
        kind, number = found.group(1), int(found.group(2))
        if kind == "mcts" and number >= 1:
            return lambda game, rng: _ai_move(game, rng, iterations=number)
        if kind == "level" and 1 <= number <= 10:
            return lambda game, rng: _ai_move(game, rng, level=number)
    raise ValueError(f"an opponent is 'random', 'mcts:N' (N >= 1 iterations), 'level:K' "
                     f"(K from 1 to 10) or a function (game, rng) -> move, not {spec!r}")


def _random_move(game: Game, rng: np.random.Generator) -> str:
    legal = game.legal_moves()
    return legal[int(rng.integers(len(legal)))]


def _ai_move(game: Game, rng: np.random.Generator, **budget) -> str:
    from hexstones import ai

    return ai.choose_move(game, seed=int(rng.integers(2**31)), **budget)


class SingleAgentEnv(gymnasium.Env):
    """``game`` (a name, or a game object to start from) played by the agent as ``color``
    (``"black"``, ``"white"`` or ``"random"``: drawn at each reset) against ``opponent``
    (see :func:`make_opponent`).

    Observations are the planes seen by the agent (``Box``, float32 ``[2n-1, 2n-1,
    planes]``); actions are the game API's action numbers (``Discrete(num_actions)``);
    ``info["action_mask"]`` (int8) marks the legal ones, as does :meth:`action_masks`.
    Reward +1 / -1 when the game ends, else 0; a game that reaches ``max_moves`` moves
    (both players' moves) is truncated. An illegal action raises ValueError and changes
    nothing. ``render_mode="ansi"``: :meth:`render` returns the board as text.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, game: str | Game = "keil", size: int | None = None, *,
                 opponent: str | Opponent = "random", color: str = BLACK,
                 max_moves: int | None = None, render_mode: str | None = None, **options):
        self._start = _new_game(game, size, options)
        self._opponent = make_opponent(opponent)
        if color not in (*COLORS, "random"):
            raise ValueError(f"the agent's color is 'black', 'white' or 'random', not {color!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode is 'ansi' or None, not {render_mode!r}")
        self.render_mode = render_mode
        self._color_choice = color
        start_moves = len(self._start.moves)
        P = self._start.board.num_points
        if max_moves is None:
            max_moves = start_moves + default_max_moves(P)
        if isinstance(max_moves, bool) or not isinstance(max_moves, (int, np.integer)) \
                or max_moves <= start_moves:
            raise ValueError(f"max_moves (the move count at which a game is cut) is a whole "
                             f"number above the start's {start_moves} moves, not {max_moves!r}")
        self.max_moves = int(max_moves)
        low, high = observation_bounds(type(self._start), self._start.size)
        self.observation_space = gymnasium.spaces.Box(low, high, dtype=np.float32)
        self.action_space = gymnasium.spaces.Discrete(self._start.num_actions)
        self.game: Game = self._start.copy()
        self.color = BLACK if color == "random" else color

    def _outcome(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        game = self.game
        outcome = game.outcome()
        reward = 0.0 if outcome is None else (1.0 if outcome.winner == self.color else -1.0)
        truncated = outcome is None and len(game.moves) >= self.max_moves
        mask = action_mask(game) if outcome is None and not truncated \
            else np.zeros(game.num_actions, np.int8)
        info = {"action_mask": mask, "to_move": game.to_move}
        return observe(game, self.color), reward, outcome is not None, truncated, info

    def _opponent_turns(self) -> None:
        game = self.game
        while game.to_move != self.color and not game.is_over \
                and len(game.moves) < self.max_moves:
            game.play(self._opponent(game, self.np_random))

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """A new game from the start position (``options`` are unused)."""
        super().reset(seed=seed)
        if self._color_choice == "random":
            self.color = COLORS[int(self.np_random.integers(2))]
        self.game = self._start.copy()
        self._opponent_turns()
        observation, _, _, _, info = self._outcome()
        return observation, info

    def step(self, action):
        game = self.game
        if game.is_over or len(game.moves) >= self.max_moves:
            raise RuntimeError("the game has ended: call reset()")
        legal = game.legal_actions()
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) \
                or int(action) not in legal:
            raise ValueError(f"action {action!r} is not legal now (legal: {legal})")
        game.play(game.move_of(int(action)))
        self._opponent_turns()
        return self._outcome()

    def action_masks(self) -> np.ndarray:
        """The legal actions now, as a bool array (the convention of maskable agents)."""
        return action_mask(self.game).astype(bool)

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode (choose 'ansi')")
            return None
        return str(self.game)

