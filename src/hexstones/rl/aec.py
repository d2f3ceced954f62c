"""The PettingZoo AEC environment: one game, agents ``"black"`` and ``"white"``.

Behaves like PettingZoo's ``classic`` board games, which wrap their raw env in
``TerminateIllegalWrapper`` (an illegal action ends the game, the mover's reward -1),
``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``: :func:`env` returns a
:class:`CheckedEnv`, :class:`raw_env` with those three wrappers' checks built in. (The
generic wrappers reach the raw env's attributes through ``__getattr__``, some thirty
times a step: about 30 µs a step, more than twice the raw env's own.) The game runs in
the compiled core (a :class:`~hexstones.rl.vector.Batch` of one), so a step is one
compiled call.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils.env import AECIterable, AECIterator
from pettingzoo.utils.env_logger import EnvLogger

from hexstones.games import BLACK, WHITE, Game
from hexstones.games.observation import other_view
from hexstones.rl.vector import Batch

AGENTS = (BLACK, WHITE)


def env(game: str | Game = "keil", size: int | None = None, **kwargs) -> CheckedEnv:
    """A PettingZoo AEC env of ``game`` that behaves as PettingZoo's board games wrapped
    in their usual wrappers do (a :class:`CheckedEnv`).

    ``size`` and the game's options (``komi``, ``prison``, ``handicap``) as ``new_game``
    takes them; ``max_moves`` (move count at which a game is truncated) and
    ``render_mode`` (``"ansi"``) as :class:`raw_env` takes them.
    """
    return CheckedEnv(game, size, **kwargs)


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
        self._games.step_one(action)  # ValueError on an illegal action
        self._after_move(agent)

    def _after_move(self, agent: str) -> None:
        """The rewards, ends and next agent once ``agent``'s move is played."""
        g = self._games
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


# What OrderEnforcingWrapper keeps from being read before the first reset.
_AFTER_RESET = frozenset({"rewards", "terminations", "truncations", "infos",
                          "agent_selection", "num_agents", "agents"})


class CheckedEnv(raw_env):
    """:class:`raw_env` with the checks of PettingZoo's board-game wrappers built in, as
    :func:`env` returns it. Like ``raw_env`` wrapped in:

    * ``TerminateIllegalWrapper(illegal_reward=-1)``: an illegal action (an action
      number that is not legal now) ends the game: PettingZoo's illegal-move warning,
      reward -1 to the agent who made it, 0 to the other, both agents terminated and
      truncated;
    * ``AssertOutOfBoundsWrapper``: an action that is not in the action space (not a
      whole number from 0 to ``num_actions - 1``; ``None`` only from a finished agent)
      raises AssertionError (bools are not actions);
    * ``OrderEnforcingWrapper``: ``step``, ``observe``, ``render``, ``state`` and
      ``agent_iter`` before the first ``reset`` raise AssertionError, reading ``agents``,
      ``agent_selection``, ``rewards``, ``terminations``, ``truncations``, ``infos`` or
      ``num_agents`` before it raises AttributeError; ``step`` once every agent is done
      warns and does nothing; a loop over ``agent_iter`` must step or reset each time.

    Its ``unwrapped`` is itself.
    """

    def __init__(self, game: str | Game = "keil", size: int | None = None, **kwargs):
        super().__init__(game, size, **kwargs)
        del self.agents  # read before reset: OrderEnforcingWrapper's AttributeError
        self._has_reset = False
        self._has_updated = False
        self._num_actions = self._games.num_actions

    def __getattr__(self, name: str):
        # Only reached when the ordinary lookup fails: free on every other access.
        if name in _AFTER_RESET and not self.__dict__.get("_has_reset", False):
            raise AttributeError(f"{name} cannot be accessed before reset")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._has_reset = True
        self._has_updated = True
        super().reset(seed, options)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return super().observe(agent)

    def render(self) -> str | None:
        if not self._has_reset:
            EnvLogger.error_render_before_reset()
        return super().render()

    def state(self) -> np.ndarray:
        if not self._has_reset:
            EnvLogger.error_state_before_reset()
        return super().state()

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _CheckedIterable(self, max_iter)

    def step(self, action) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        self._has_updated = True
        if not self.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        dead = self.terminations[agent] or self.truncations[agent]
        if not (type(action) is int and 0 <= action < self._num_actions) and not (
                action is None and dead or self._in_space(action)):
            raise AssertionError("action is not in action space")
        if dead:
            self._was_dead_step(action)
        elif self._games.is_legal(0, action):
            self._games.step_legal(action)
            self._after_move(agent)
        else:
            self._end_by_illegal(agent)

    def _in_space(self, action) -> bool:
        return not isinstance(action, (bool, np.bool_)) \
            and self.action_spaces[AGENTS[0]].contains(action)

    def _end_by_illegal(self, agent: str) -> None:
        """TerminateIllegalWrapper's ending: the offender loses, the game ends."""
        EnvLogger.warn_on_illegal_move()
        self._cumulative_rewards[agent] = 0.0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = -1.0
        self._accumulate_rewards()
        self._deads_step_first()


class _CheckedIterable(AECIterable):
    def __iter__(self) -> AECIterator:
        return _CheckedIterator(self.env, self.max_iter)


class _CheckedIterator(AECIterator):
    """OrderEnforcingWrapper's iterator: each agent it yields must be stepped (or the
    env reset) before the next."""

    def __next__(self) -> str:
        agent = super().__next__()
        if not self.env._has_updated:
            raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")
        self.env._has_updated = False
        return agent
