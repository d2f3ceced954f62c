"""Many games stepped together by one compiled call: :class:`VectorEnv`.

The games live in stacked numpy arrays (one core state per env, see
:func:`hexstones.rl._kernels.allocate_batch`); ``step`` plays every env's action, writes
its observation, legal mask and outcome in one numba call that runs the envs in parallel
(``prange``) on the core's own kernels. :class:`Batch` is that engine; the AEC env drives
a batch of one.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from numba import njit, prange

from hexstones.games import Game, game_class, new_game
from hexstones.rl import _kernels as K
from hexstones.rl.planes import (
    BALANCE,
    IS_WHITE,
    NUM_PLANES,
    ON_BOARD,
    OPPONENT,
    OPPONENT_PRISON,
    OPPONENT_SPECIAL,
    OWN,
    OWN_PRISON,
    OWN_SPECIAL,
    PASSES,
    embedding,
    grid_side,
    observation_bounds,
)

# Batches of at least this many envs are stepped on every core.
PARALLEL_FROM = 256


def default_max_moves(num_points: int) -> int:
    """The default move cap: 4 moves a point. Nearly every uniformly random Keil and Dehil
    game ends well before it; random Droched games, which run for tens of thousands of
    moves, are cut (truncated) there."""
    return 4 * num_points


# -- the compiled engine ----------------------------------------------------------------

@njit(cache=True, inline="always")
def _observe_env(gid, geo, st, i, rows, cols, balance, num_points, obs, masks, legal, counts,
                 to_move):
    """Write env ``i``'s legal moves, mask and observation (seen by the player to move)."""
    n = K.legal_moves(gid, geo, st, legal[i])
    counts[i] = n
    mask = masks[i]
    mask[:] = 0
    for k in range(n):
        mask[legal[i, k]] = 1
    X = K.to_move(st)
    Y = 3 - X
    to_move[i] = X - 1
    holder = K.special_holder(st)
    white = 1.0 if X == 2 else 0.0
    own_special = 1.0 if holder == X else 0.0
    opp_special = 1.0 if holder == Y else 0.0
    passes = np.float32(K.passes(st))
    # Divided as observe() divides (float64, then stored as float32): the same bits.
    own_prison = K.prison(st, X) / num_points
    opp_prison = K.prison(st, Y) / num_points
    board = K.board_of(st)
    o = obs[i]
    for p in range(board.shape[0]):
        cell = o[rows[p], cols[p]]
        v = board[p]
        cell[OWN] = 1.0 if v == X else 0.0
        cell[OPPONENT] = 1.0 if v == Y else 0.0
        cell[ON_BOARD] = 1.0
        cell[IS_WHITE] = white
        cell[OWN_SPECIAL] = own_special
        cell[OPPONENT_SPECIAL] = opp_special
        cell[PASSES] = passes
        cell[OWN_PRISON] = own_prison
        cell[OPPONENT_PRISON] = opp_prison
        cell[BALANCE] = balance
    return n


@njit(cache=True, inline="always")
def _step_env(i, gid, geo, batch, start, actions, pending, max_moves, rows, cols, balance,
              num_points, obs, masks, legal, counts, rewards, terminated, truncated, to_move):
    st = K.state_at(batch, i)
    if pending[i]:
        # Next-step autoreset: the env ended last step; its action is ignored.
        K.copy_into(st, start)
        pending[i] = False
        _observe_env(gid, geo, st, i, rows, cols, balance, num_points, obs, masks, legal,
                     counts, to_move)
        rewards[i] = 0.0
        terminated[i] = False
        truncated[i] = False
        return
    mover = K.to_move(st)
    K.play(gid, geo, st, actions[i])
    _observe_env(gid, geo, st, i, rows, cols, balance, num_points, obs, masks, legal, counts,
                 to_move)
    rewards[i] = 0.0
    terminated[i] = False
    truncated[i] = False
    if K.is_over(gid, geo, st):
        rewards[i] = 1.0 if K.winner(gid, geo, st) == mover else -1.0
        terminated[i] = True
        pending[i] = True
    elif K.ply(st) >= max_moves:
        truncated[i] = True
        pending[i] = True


# The whole step of a batch is one compiled call (each call from Python costs a few
# microseconds for its two dozen arrays): it checks every action first and returns the
# first env whose action is not legal without changing anything, else -1 once every env
# has stepped.

@njit(cache=True, parallel=True)
def _step_parallel(gid, geo, batch, start, actions, pending, max_moves, rows, cols, balance,
                   num_points, obs, masks, legal, counts, rewards, terminated, truncated,
                   to_move):
    bad = _first_bad_action(actions, pending, legal, counts)
    if bad >= 0:
        return bad
    for i in prange(actions.shape[0]):
        _step_env(i, gid, geo, batch, start, actions, pending, max_moves, rows, cols, balance,
                  num_points, obs, masks, legal, counts, rewards, terminated, truncated,
                  to_move)
    return -1


@njit(cache=True)
def _step_serial(gid, geo, batch, start, actions, pending, max_moves, rows, cols, balance,
                 num_points, obs, masks, legal, counts, rewards, terminated, truncated,
                 to_move):
    bad = _first_bad_action(actions, pending, legal, counts)
    if bad >= 0:
        return bad
    for i in range(actions.shape[0]):
        _step_env(i, gid, geo, batch, start, actions, pending, max_moves, rows, cols, balance,
                  num_points, obs, masks, legal, counts, rewards, terminated, truncated,
                  to_move)
    return -1


@njit(cache=True, inline="always")
def _first_bad_action(actions, pending, legal, counts):
    """The first env whose action is not one of its legal moves (envs about to be reset
    take any action), or -1."""
    for i in range(actions.shape[0]):
        if pending[i]:
            continue
        a = actions[i]
        found = False
        for k in range(counts[i]):
            if legal[i, k] == a:
                found = True
                break
        if not found:
            return i
    return -1


@njit(cache=True)
def _sample_legal(legal, counts, pending, rngs, out):
    # Serial: a few nanoseconds an env, less than waking the threads would cost.
    for i in range(out.shape[0]):
        if pending[i] or counts[i] == 0:
            out[i] = 0
        else:
            out[i] = legal[i, K.rand_below(rngs[i], counts[i])]


def _new_game(game: str | Game, size: int | None, options: dict[str, Any]) -> Game:
    if isinstance(game, Game):
        if size is not None and size != game.size or options:
            raise ValueError("a game object brings its own size and options: pass none")
        return game.copy()
    if not isinstance(game, str):
        raise ValueError(f"a game is a name like 'keil' or a game object, not {game!r}")
    cls = game_class(game)
    return new_game(cls.name, size=cls.default_size if size is None else size, **options)


class Batch:
    """The games of a vector env: states, observations, masks, outcomes, one call a step.

    ``game``: a game name (a new game with ``size`` and ``options``) or a game object,
    whose position every env starts from. The arrays below are rewritten in place by
    every :meth:`reset` and :meth:`step`.
    """

    def __init__(self, game: str | Game, size: int | None, num_envs: int,
                 max_moves: int | None, options: dict[str, Any]):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) \
                or num_envs < 1:
            raise ValueError(f"num_envs is a whole number of at least 1, not {num_envs!r}")
        self.start_game = _new_game(game, size, options)
        self.game_class = type(self.start_game)
        door = K.door(self.start_game)
        self.size = self.start_game.size
        self.num_envs = int(num_envs)
        self.num_points = door.num_points
        self.num_actions = door.num_actions
        start_ply = K.ply_of(door.state)
        if max_moves is None:
            max_moves = start_ply + default_max_moves(self.num_points)
        if isinstance(max_moves, bool) or not isinstance(max_moves, (int, np.integer)) \
                or max_moves <= start_ply:
            raise ValueError(f"max_moves (the move count at which a game is cut) is a whole "
                             f"number above the start's {start_ply} moves, not {max_moves!r}")
        self.max_moves = int(max_moves)
        self._gid = door.game_id
        self._geo = door.geometry
        # Two rows beyond the cap: the kernels try moves from the last position.
        self._batch = K.allocate_batch(self.size, self.max_moves + 2, self.num_envs)
        self._start = K.allocate_batch(self.size, self.max_moves + 2, 1)
        self._start = K.state_at_py(self._start, 0)
        K.copy_into_py(self._start, door.state)
        rows, cols = embedding(self.size)
        self._rows, self._cols = rows, cols
        self._balance = np.float32(self.start_game.balance_value / self.num_points)
        self._num_points = np.float64(self.num_points)
        n, N, A = grid_side(self.size), self.num_envs, self.num_actions
        self.observations = np.zeros((N, n, n, NUM_PLANES), np.float32)
        self.masks = np.zeros((N, A), np.int8)
        self.rewards = np.zeros(N, np.float32)
        self.terminated = np.zeros(N, np.bool_)
        self.truncated = np.zeros(N, np.bool_)
        self.to_move = np.zeros(N, np.int8)     # 0 black, 1 white: whose observation
        self._legal = np.zeros((N, A), np.int32)
        self._counts = np.zeros(N, np.int32)
        self._pending = np.zeros(N, np.bool_)
        self._rngs = np.ones((N, 1), np.uint64)
        self._actions = np.zeros(N, np.int64)
        self._sampled = np.zeros(N, np.int64)
        # A parallel step wakes the threads and waits for the last one every step: small
        # batches do not repay it (on the shared 2-core machine, 64 envs ran 7x faster
        # serially).
        self._step = _step_parallel if N >= PARALLEL_FROM else _step_serial
        self._args = (self._gid, self._geo, self._batch, self._start, self._actions,
                      self._pending, self.max_moves, self._rows, self._cols, self._balance,
                      self._num_points, self.observations, self.masks, self._legal,
                      self._counts, self.rewards, self.terminated, self.truncated,
                      self.to_move)
        self.observation_low, self.observation_high = observation_bounds(self.game_class,
                                                                         self.size)

    def seed(self, seed: int | None) -> None:
        """Seed the random-action generators (env ``i`` from ``seed`` and ``i``)."""
        root = np.random.SeedSequence(seed)
        words = root.generate_state(2 * self.num_envs, np.uint64).reshape(self.num_envs, 2)
        self._rngs[:, 0] = words[:, 0] | np.uint64(1)  # never the all-zero xorshift state

    def reset(self) -> None:
        self._pending[:] = True
        self._step(*self._args)  # envs being reset take any action

    def step(self, actions) -> None:
        """Play ``actions`` (one per env; any value for envs being reset). A bad action
        raises ValueError and changes nothing."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions are {self.num_envs} whole numbers (one per env), "
                             f"not an array of shape {actions.shape} and type {actions.dtype}")
        self._actions[:] = actions
        bad = self._step(*self._args)
        if bad >= 0:
            self._illegal(bad, int(self._actions[bad]))

    def step_one(self, action) -> None:
        """:meth:`step` for a batch of one (the AEC env's path, with less Python)."""
        if not self._pending[0]:
            if isinstance(action, (bool, np.bool_)) \
                    or not isinstance(action, (int, np.integer)):
                raise ValueError(f"an action is a whole number, not {action!r}")
            if not 0 <= action < self.num_actions:
                self._illegal(0, int(action))
        self._actions[0] = action
        if self._step(*self._args) >= 0:
            self._illegal(0, int(action))

    def _illegal(self, i: int, action: int):
        if not 0 <= action < self.num_actions:
            raise ValueError(f"env {i}: action {action} is not an action: actions run from 0 "
                             f"to {self.num_actions - 1}")
        legal = self._legal[i, :self._counts[i]].tolist()
        raise ValueError(f"env {i}: action {action} is not legal in this position (legal: "
                         f"{legal})")

    def sample_legal(self) -> np.ndarray:
        """A uniformly random legal action for every env (0 for envs being reset); the
        array is rewritten by the next call."""
        _sample_legal(self._legal, self._counts, self._pending, self._rngs, self._sampled)
        return self._sampled

    def legal_actions(self, i: int) -> list[int]:
        return self._legal[i, :self._counts[i]].tolist()

    def actions_played(self, i: int) -> list[int]:
        """The actions env ``i`` has played since its start position (for replays)."""
        return K.actions_played(K.state_at_py(self._batch, i), K.ply_of(self._start))

    @property
    def pending(self) -> np.ndarray:
        """Envs that ended on the last step and reset on the next."""
        return self._pending


# -- the Gymnasium vector env -----------------------------------------------------------

class VectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of ``game`` (a name, or a game object to start from), stepped
    together for self-play.

    Every env is one game; both players act through it in turn: ``step(actions)`` plays
    each env's action for the player to move there. Each observation is seen by the
    player to move in its env (``infos["to_move"]``: 0 black, 1 white); ``rewards`` is
    +1 / -1 for the player who made the move that ended a game (the other player gets the
    opposite), else 0. A game that reaches ``max_moves`` moves is truncated. Autoreset is
    Gymnasium's next-step mode: the step after an end resets that env (its action is
    ignored, reward 0, not terminated or truncated).

    ``reset`` and ``step`` return the same preallocated arrays every call, rewritten in
    place (copy what you keep): observations ``float32 [num_envs, 2n-1, 2n-1, planes]``,
    and ``infos["action_mask"]``, ``int8 [num_envs, num_actions]`` (also ``.action_masks``).
    An illegal action raises ValueError and changes nothing.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, game: str | Game = "keil", size: int | None = None, num_envs: int = 1,
                 *, max_moves: int | None = None, **options):
        self._games = Batch(game, size, num_envs, max_moves, options)
        g = self._games
        self.num_envs = g.num_envs
        self.size = g.size
        self.max_moves = g.max_moves
        self.single_observation_space = gymnasium.spaces.Box(
            g.observation_low, g.observation_high, dtype=np.float32)
        self.single_action_space = gymnasium.spaces.Discrete(g.num_actions)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, self.num_envs)
        self.action_space = gymnasium.spaces.MultiDiscrete(
            np.full(self.num_envs, g.num_actions, np.int64))
        self._infos = {"action_mask": g.masks, "to_move": g.to_move}
        self._reset_once = False

    @property
    def action_masks(self) -> np.ndarray:
        return self._games.masks

    @property
    def to_move(self) -> np.ndarray:
        return self._games.to_move

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start every env's game anew. ``seed`` seeds :meth:`sample_legal_actions` (the
        games themselves have no chance in them); ``options`` are unused."""
        if seed is not None or not self._reset_once:
            self._games.seed(seed)
            self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(seed)
        self._games.reset()
        self._reset_once = True
        return self._games.observations, self._infos

    def step(self, actions):
        if not self._reset_once:
            raise RuntimeError("call reset() before step()")
        g = self._games
        g.step(actions)
        return g.observations, g.rewards, g.terminated, g.truncated, self._infos

    def sample_legal_actions(self) -> np.ndarray:
        """A uniformly random legal action for every env (seeded by ``reset(seed=)``), an
        array rewritten by the next call."""
        if not self._reset_once:
            raise RuntimeError("call reset() before sampling actions")
        return self._games.sample_legal()

    def legal_actions(self, i: int) -> list[int]:
        """Env ``i``'s legal actions now."""
        return self._games.legal_actions(i)

    def actions_played(self, i: int) -> list[int]:
        """The actions env ``i``'s current game has played (replay them through the game
        API with ``game.play(game.move_of(a))``)."""
        return self._games.actions_played(i)

    def __repr__(self) -> str:
        g = self._games
        return (f"VectorEnv({g.start_game.name!r}, size={g.size}, num_envs={g.num_envs}, "
                f"max_moves={g.max_moves})")
