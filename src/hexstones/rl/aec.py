"""The PettingZoo AEC environment: one game, agents ``"black"`` and ``"white"``.

Built like PettingZoo's ``classic`` board games: :func:`env` wraps :class:`raw_env` in
``TerminateIllegalWrapper`` (an illegal action ends the game, the mover's reward -1),
``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``. The game runs in the compiled
core (a :class:`~hexstones.rl.vector.Batch` of one), so a step is one compiled call.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from hexstones.games import BLACK, WHITE, Game
from hexstones.rl.planes import other_view
from hexstones.rl.vector import Batch

AGENTS = (BLACK, WHITE)


def env(game: str | Game = "keil", size: int | None = None, **kwargs) -> AECEnv:
    """A PettingZoo AEC env of ``game`` with PettingZoo's usual board-game wrappers.

    ``size`` and the game's options (``komi``, ``prison``, ``handicap``) as ``new_game``
    takes them; ``max_moves`` (move count at which a game is truncated) and
    ``render_mode`` (``"ansi"``) as :class:`raw_env` takes them.
    """
    found = raw_env(game, size, **kwargs)
    found = wrappers.TerminateIllegalWrapper(found, illegal_reward=-1)
    found = wrappers.AssertOutOfBoundsWrapper(found)
    return wrappers.OrderEnforcingWrapper(found)


class raw_env(AECEnv):  # noqa: N801  (PettingZoo's name for the unwrapped env)
    """One game of Keil, Dehil or Droched for two agents, ``"black"`` and ``"white"``.

    Observations: ``{"observation": float32 [2n-1, 2n-1, planes], "action_mask": int8
    [num_actions]}``, the planes seen by the observing agent (docs/rl.md); the mask is all
    zeros for the agent not to move. Actions are the game API's action numbers. The agent
    to move is the game's (Droched's handicap games start with White). Rewards: +1 to the
    winner and -1 to the loser at the end, else 0; no game has draws. A game that reaches
    ``max_moves`` moves is truncated (both agents, reward 0).
    """

    metadata: dict[str, Any] = {"name": "hexstones_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, game: str | Game = "keil", size: int | None = None, *,
                 max_moves: int | None = None, render_mode: str | None = None, **options):
        super().__init__()
        modes: list[str] = self.metadata["render_modes"]
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode is one of {self.metadata['render_modes']} or None, "
                             f"not {render_mode!r}")
        self._games = Batch(game, size, 1, max_moves, options)
        g = self._games
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"hexstones_{g.start_game.name}_v0")
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        space = gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(g.observation_low, g.observation_high,
                                                dtype=np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (g.num_actions,), np.int8),
        })
        self.observation_spaces = {a: space for a in AGENTS}
        action_space = gymnasium.spaces.Discrete(g.num_actions)
        self.action_spaces = {a: action_space for a in AGENTS}
        self._no_mask = np.zeros(g.num_actions, np.int8)
        self._started = False

    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    @property
    def max_moves(self) -> int:
        return self._games.max_moves

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game (from the start position: ``seed`` and ``options`` change
        nothing, the game has no chance in it)."""
        self._games.reset()
        self._started = True
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos: dict[str, dict] = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[int(self._games.to_move[0])]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        g = self._games
        planes = g.observations[0]
        mover = AGENTS[int(g.to_move[0])]
        if agent == mover:
            seen = planes.copy()
            over = self.terminations.get(agent) or self.truncations.get(agent)
            mask = self._no_mask.copy() if over else g.masks[0].copy()
        else:
            seen = other_view(planes)
            mask = self._no_mask.copy()
        return {"observation": seen, "action_mask": mask}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        g = self._games
        g.step_one(action)  # ValueError on an illegal action
        self._cumulative_rewards[agent] = 0.0
        other = AGENTS[1 - AGENTS.index(agent)]
        if g.terminated[0]:
            reward = float(g.rewards[0])
            self.rewards = {agent: reward, other: -reward}
            self.terminations = {a: True for a in AGENTS}
        else:
            self.rewards = {a: 0.0 for a in AGENTS}
            if g.truncated[0]:
                self.truncations = {a: True for a in AGENTS}
        self.agent_selection = AGENTS[int(g.to_move[0])]
        self._accumulate_rewards()

    def game(self) -> Game:
        """The position as a game object of the game API (its moves replayed)."""
        found = self._games.start_game.copy()
        for action in self._games.actions_played(0):
            found.play(found.move_of(action))
        return found

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode (choose 'ansi')")
            return None
        return str(self.game())

    def close(self) -> None:
        pass

