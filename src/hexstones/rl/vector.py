"""Many games stepped together by one compiled call: :class:`VectorEnv`.

The games live in stacked numpy arrays (one core state per env, see
:func:`hexstones.rl._kernels.batch_parts`), all parts of one byte array; ``step`` plays every env's action, writes
its observation, legal mask and outcome in one numba call that runs the envs in parallel
(``prange``) on the core's own kernels. :class:`Batch` is that engine; the AEC env drives
a batch of one.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from numba import get_num_threads, njit, parallel_chunksize, prange

from hexstones.games import Game, game_class, new_game
from hexstones.rl import _kernels as K
from hexstones.rl.planes import NUM_PLANES, embedding, grid_side, observation_bounds


def default_max_moves(num_points: int) -> int:
    """The default move cap: 4 moves a point. Nearly every uniformly random Keil and Dehil
    game ends well before it; random Droched games, which run for tens of thousands of
    moves, are cut (truncated) there."""
    return 4 * num_points


# -- the compiled engine ----------------------------------------------------------------
# A batch lives in one byte array, the arena: every state, the geometry, the actions and
# every output are parts of it at 64-byte aligned offsets, and a step is one compiled
# call with the arena as its only argument. (numba unboxes each array argument on every
# call, some 0.3 µs an array and several µs a tuple of them: the forty arrays of a step
# cost 6-7 µs a call before.) The arena starts with int64 words: the header below, then
# for each part its offset and up to three dimensions.

# Parts (their index in the arena's table); geometry and state in their tuples' order.
(_NBR, _ON_EDGE, _FEATURE, _ZOBRIST, _ZEXTRA, _TRI, _NEAR_TRI, _RING_NBR, _RING_EDGE,
 _BOARD, _META, _HIST_HASH, _HIST_BOARD, _HIST_META, _HIST_MOVE, _WORK, _STAMP, _TABLE,
 _HIST_SLOT,
 _ACTIONS, _PENDING, _LEGAL, _COUNTS, _OBS, _MASKS, _REWARDS, _TERMINATED, _TRUNCATED,
 _TO_MOVE, _RNGS, _SAMPLED, _RINGS, _SEEN, _LEFT, _CELL, _BALANCE) = range(36)
_NUM_PARTS = 36
_GID, _MAX_MOVES, _NUM_ENVS = range(3)  # header words
_HEADER = 3
_TABLE_WORDS = _HEADER + 4 * _NUM_PARTS
# _BALANCE: float64 [the game's balance value], for the encoder


@njit(cache=True, inline="always")
def _part1(arena, head, k, dtype):
    at = _HEADER + 4 * k
    return K.carve(arena, head[at], (head[at + 1],), dtype)


@njit(cache=True, inline="always")
def _part2(arena, head, k, dtype):
    at = _HEADER + 4 * k
    return K.carve(arena, head[at], (head[at + 1], head[at + 2]), dtype)


@njit(cache=True, inline="always")
def _part3(arena, head, k, dtype):
    at = _HEADER + 4 * k
    return K.carve(arena, head[at], (head[at + 1], head[at + 2], head[at + 3]), dtype)


@njit(cache=True, inline="always")
def _unpack(arena):
    """The arena's parts: (header, geometry, the stacked states (env ``num_envs`` is the
    start position), and the env arrays as a tuple)."""
    head = K.carve(arena, 0, (_TABLE_WORDS,), np.int64)
    geo = K.Geometry(
        _part2(arena, head, _NBR, np.int32), _part1(arena, head, _ON_EDGE, np.int8),
        _part1(arena, head, _FEATURE, np.int8), _part2(arena, head, _ZOBRIST, np.uint64),
        _part1(arena, head, _ZEXTRA, np.uint64), _part2(arena, head, _TRI, np.int32),
        _part2(arena, head, _NEAR_TRI, np.int32), _part2(arena, head, _RING_NBR, np.int32),
        _part1(arena, head, _RING_EDGE, np.int64))
    batch = K.State(
        _part2(arena, head, _BOARD, np.int8), _part2(arena, head, _META, np.int64),
        _part2(arena, head, _HIST_HASH, np.uint64), _part3(arena, head, _HIST_BOARD, np.int8),
        _part3(arena, head, _HIST_META, np.int64), _part2(arena, head, _HIST_MOVE, np.int32),
        _part3(arena, head, _WORK, np.int32), _part2(arena, head, _STAMP, np.int64),
        _part2(arena, head, _TABLE, np.uint64), _part2(arena, head, _HIST_SLOT, np.int32))
    envs = (
        _part1(arena, head, _ACTIONS, np.int64), _part1(arena, head, _PENDING, np.bool_),
        _part2(arena, head, _LEGAL, np.int16), _part1(arena, head, _COUNTS, np.int32),
        _part3(arena, head, _OBS, np.float32), _part2(arena, head, _MASKS, np.int8),
        _part1(arena, head, _REWARDS, np.float32), _part1(arena, head, _TERMINATED, np.bool_),
        _part1(arena, head, _TRUNCATED, np.bool_), _part1(arena, head, _TO_MOVE, np.int8),
        _part2(arena, head, _RNGS, np.uint64), _part1(arena, head, _SAMPLED, np.int64),
        _part2(arena, head, _RINGS, np.int16), _part2(arena, head, _SEEN, np.int8),
        _part2(arena, head, _LEFT, np.uint8), _part1(arena, head, _CELL, np.int64),
        _part1(arena, head, _BALANCE, np.float64))
    return head, geo, batch, envs


@njit(cache=True, inline="always")
def _observe_env(gid, geo, st, i, envs):
    """Write env ``i``'s legal moves, mask and observation (seen by the player to move:
    the encoder's features, written at each point's grid cell, its legal planes from the
    mask)."""
    (_, _, legal, counts, obs, masks, _, _, _, to_move, _, _, rings, _, left, cell,
     balance) = envs
    n = K.legal_moves_tracked(gid, geo, st, legal[i], rings[i], left[i])
    counts[i] = n
    mask = masks[i]
    for k in range(mask.shape[0]):
        mask[k] = 0
    moves = legal[i]
    for k in range(n):
        mask[moves[k]] = 1
    X = K.to_move(st)
    to_move[i] = X - 1
    K.write_seen(geo, st, balance[0], X, mask, obs[i], cell)
    return n


@njit(cache=True, inline="always")
def _step_env(i, gid, geo, batch, max_moves, envs):
    (actions, pending, _, _, _, _, rewards, terminated, truncated, _, _, _, rings, seen,
     left, _, _) = envs
    st = K.state_at(batch, i)
    rewards[i] = 0.0
    terminated[i] = False
    truncated[i] = False
    if pending[i]:
        # Next-step autoreset: the env ended last step; its action is ignored. The start
        # position is the batch's last state, with its ring codes and departures.
        start = actions.shape[0]
        K.copy_into(st, K.state_at(batch, start))
        P = rings.shape[1]
        for p in range(P):
            rings[i, p] = rings[start, p]
            seen[i, p] = seen[start, p]
        for p in range(left.shape[1]):
            left[i, p] = left[start, p]
        pending[i] = False
        _observe_env(gid, geo, st, i, envs)
        return
    mover = K.to_move(st)
    K.play(gid, geo, st, actions[i])
    K.track_board(geo, seen[i], K.board_of(st), rings[i], left[i])
    _observe_env(gid, geo, st, i, envs)
    if K.is_over(gid, geo, st):
        rewards[i] = 1.0 if K.winner(gid, geo, st) == mover else -1.0
        terminated[i] = True
        pending[i] = True
    elif K.ply(st) >= max_moves:
        truncated[i] = True
        pending[i] = True


# The whole step of a batch is one compiled call: it checks every action first and
# returns the first env whose action is not legal without changing anything, else -1
# once every env has stepped.

@njit(cache=True)
def _step_serial(arena):
    head, geo, batch, envs = _unpack(arena)
    bad = _first_bad_action(envs)
    if bad >= 0:
        return bad
    gid = head[_GID]
    max_moves = head[_MAX_MOVES]
    for i in range(head[_NUM_ENVS]):
        _step_env(i, gid, geo, batch, max_moves, envs)
    return -1


@njit(cache=True)
def _check_actions(arena):
    return _first_bad_action(_unpack(arena)[3])


@njit(cache=True)
def _step_envs(arena, first, last):
    """Step envs ``first .. last - 1`` (their actions checked)."""
    head, geo, batch, envs = _unpack(arena)
    gid = head[_GID]
    max_moves = head[_MAX_MOVES]
    for i in range(first, last):
        _step_env(i, gid, geo, batch, max_moves, envs)


PARALLEL_FROM = 64  # envs from which a step runs on every core by default (measured: docs/rl.md)

# Envs a parallel step hands a thread at a time: with numba's chunk size 1 (set around
# the call: inside it the kernel could not be cached) the threads take chunks as they
# come free, and on a shared machine one may lose its core for a while.
_CHUNK = 32


@njit(cache=True, parallel=True)
def _step_chunks(arena):
    # The arena's parts are carved in each chunk: numba's parallel loops do not take
    # the tuples of arrays that the engine passes around.
    bad = _check_actions(arena)
    if bad >= 0:
        return bad
    count = K.carve(arena, 0, (_TABLE_WORDS,), np.int64)[_NUM_ENVS]
    chunks = (count + _CHUNK - 1) // _CHUNK
    for c in prange(chunks):
        _step_envs(arena, c * _CHUNK, min(count, (c + 1) * _CHUNK))
    return -1


def _step_parallel(arena):
    """The step on every core (the compiled ``_step_chunks``, chunks taken as they come)."""
    with parallel_chunksize(1):
        return _step_chunks(arena)


@njit(cache=True, inline="always")
def _first_bad_action(envs):
    """The first env whose action is not one of its legal moves (envs about to be reset
    take any action), or -1."""
    actions, pending, legal, counts = envs[0], envs[1], envs[2], envs[3]
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
def _sample_legal(arena):
    # Serial: a few nanoseconds an env, less than waking the threads would cost.
    _, _, _, envs = _unpack(arena)
    pending, legal, counts, rngs, out = envs[1], envs[2], envs[3], envs[10], envs[11]
    for i in range(out.shape[0]):
        if pending[i] or counts[i] == 0:
            out[i] = 0
        else:
            out[i] = legal[i, K.rand_below(rngs[i], counts[i])]


class _Arena:
    """The byte layout of a batch's arena (see the compiled engine): ``add`` places a
    part, ``allocate`` makes the arena and ``part`` views a part from Python."""

    def __init__(self) -> None:
        self.parts: list[tuple[int, np.dtype, tuple[int, ...]]] = []
        self.size = 8 * _TABLE_WORDS

    def add(self, k: int, dtype, shape: tuple[int, ...]) -> None:
        assert k == len(self.parts) and 1 <= len(shape) <= 3
        self.size = -(-self.size // 64) * 64
        dtype = np.dtype(dtype)
        self.parts.append((self.size, dtype, tuple(int(d) for d in shape)))
        self.size += dtype.itemsize * int(np.prod(shape))

    def allocate(self, header: list[int]) -> np.ndarray:
        assert len(self.parts) == _NUM_PARTS and len(header) == _HEADER
        raw = np.zeros(self.size + 64, np.uint8)
        shift = -raw.ctypes.data % 64
        self.arena = raw[shift:shift + self.size]
        table = self.arena[:8 * _TABLE_WORDS].view(np.int64)
        table[:_HEADER] = header
        for k, (offset, _, shape) in enumerate(self.parts):
            table[_HEADER + 4 * k:_HEADER + 4 * k + 1 + len(shape)] = (offset,) + shape
        return self.arena

    def part(self, k: int) -> np.ndarray:
        offset, dtype, shape = self.parts[k]
        size = dtype.itemsize * int(np.prod(shape))
        return self.arena[offset:offset + size].view(dtype).reshape(shape)


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
                 max_moves: int | None, options: dict[str, Any],
                 parallel: bool | None = None):
        if parallel is not None and parallel not in (True, False):
            raise ValueError(f"parallel is None (chosen by the batch size), True or False, not {parallel!r}")
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
        n, N, A, P = grid_side(self.size), self.num_envs, self.num_actions, self.num_points
        layout = _Arena()
        for k, a in enumerate(door.geometry):
            layout.add(k, a.dtype, a.shape)
        # Two rows beyond the cap: the kernels try moves from the last position. One
        # state more than envs: the last is the start position.
        for k, (template, shape) in enumerate(
                K.batch_parts(self.size, self.max_moves + 2, N + 1), _BOARD):
            layout.add(k, template.dtype, shape)
        # Legal lists and ring codes (12 bits) as int16: actions number at most 470 (side
        # 13, the largest board), and a step at 1024 envs reads and writes half the bytes.
        for k, dtype, shape in (
                (_ACTIONS, np.int64, (N,)), (_PENDING, np.bool_, (N,)),
                (_LEGAL, np.int16, (N, A)), (_COUNTS, np.int32, (N,)),
                (_OBS, np.float32, (N, n * n, NUM_PLANES)), (_MASKS, np.int8, (N, A)),
                (_REWARDS, np.float32, (N,)), (_TERMINATED, np.bool_, (N,)),
                (_TRUNCATED, np.bool_, (N,)), (_TO_MOVE, np.int8, (N,)),
                (_RNGS, np.uint64, (N, 1)), (_SAMPLED, np.int64, (N,)),
                (_RINGS, np.int16, (N + 1, P)), (_SEEN, np.int8, (N + 1, P)),
                (_LEFT, np.uint8, (N + 1, 2 * P)), (_CELL, np.int64, (P,)),
                (_BALANCE, np.float64, (1,))):
            layout.add(k, dtype, shape)
        self._arena = layout.allocate([door.game_id, self.max_moves, N])
        for k, a in enumerate(door.geometry):
            layout.part(k)[...] = a
        self._batch = K.State(*(layout.part(k) for k in range(_BOARD, _HIST_SLOT + 1)))
        layout.part(_HIST_MOVE)[...] = -1  # as a fresh state's: no move
        start = K.state_at_py(self._batch, N)
        K.copy_into_py(start, door.state)
        self._start = start
        layout.part(_RINGS)[N] = K.ring_codes(door.geometry, start.board)
        layout.part(_SEEN)[N] = start.board
        layout.part(_LEFT)[N] = K.departures(door.state)
        rows, cols = embedding(self.size)
        layout.part(_CELL)[...] = rows.astype(np.int64) * n + cols
        layout.part(_BALANCE)[...] = float(self.start_game.balance_value)
        self.observations = layout.part(_OBS).reshape(N, n, n, NUM_PLANES)
        self.masks = layout.part(_MASKS)
        self.rewards = layout.part(_REWARDS)
        self.terminated = layout.part(_TERMINATED)
        self.truncated = layout.part(_TRUNCATED)
        self.to_move = layout.part(_TO_MOVE)     # 0 black, 1 white: whose observation
        self._legal = layout.part(_LEGAL)
        self._counts = layout.part(_COUNTS)
        self._pending = layout.part(_PENDING)
        self._rngs = layout.part(_RNGS)
        self._rngs[:] = 1
        self._actions = layout.part(_ACTIONS)
        self._sampled = layout.part(_SAMPLED)
        # A parallel step wakes the threads and waits for the last one every step: on free
        # cores it repays that from PARALLEL_FROM envs (2 cores: 1.7-2.1x at 64-1024 envs);
        # on cores other busy processes share, one thread can win (docs/rl.md), hence the
        # choice stays the caller's.
        if parallel is None:
            parallel = self.num_envs >= PARALLEL_FROM and get_num_threads() > 1
        self.parallel = bool(parallel)
        self._step = _step_parallel if parallel else _step_serial
        self.observation_low, self.observation_high = observation_bounds(self.game_class,
                                                                         self.size)

    def seed(self, seed: int | None) -> None:
        """Seed the random-action generators (env ``i`` from ``seed`` and ``i``)."""
        root = np.random.SeedSequence(seed)
        words = root.generate_state(2 * self.num_envs, np.uint64).reshape(self.num_envs, 2)
        self._rngs[:, 0] = words[:, 0] | np.uint64(1)  # never the all-zero xorshift state

    def reset(self) -> None:
        self._pending[:] = True
        self._step(self._arena)  # envs being reset take any action

    def step(self, actions) -> None:
        """Play ``actions`` (one per env; any value for envs being reset). A bad action
        raises ValueError and changes nothing."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise ValueError(f"actions are {self.num_envs} whole numbers (one per env), "
                             f"not an array of shape {actions.shape} and type {actions.dtype}")
        self._actions[:] = actions
        bad = self._step(self._arena)
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
        if self._step(self._arena) >= 0:
            self._illegal(0, int(action))

    def step_legal(self, action: int) -> None:
        """:meth:`step_one` for a caller that has checked that ``action`` is legal (the
        kernel checks it again)."""
        self._actions[0] = action
        if self._step(self._arena) >= 0:
            self._illegal(0, int(action))

    def _illegal(self, i: int, action: int):
        if not 0 <= action < self.num_actions:
            raise ValueError(f"env {i}: action {action} is not an action: actions run from 0 "
                             f"to {self.num_actions - 1}")
        legal = self._legal[i, :self._counts[i]].tolist()
        raise ValueError(f"env {i}: action {action} is not legal in this position (legal: "
                         f"{legal})")

    def is_legal(self, i: int, action: int) -> bool:
        """Whether ``action`` (an action number) is legal in env ``i`` now (not for an env
        being reset)."""
        return bool(self.masks[i, action])

    def sample_legal(self) -> np.ndarray:
        """A uniformly random legal action for every env (0 for envs being reset); the
        array is rewritten by the next call."""
        _sample_legal(self._arena)
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

    ``parallel``: step the envs on every core (numba's threads, 32 envs at a time) or on
    one thread; by default (None) on every core from :data:`PARALLEL_FROM` envs. On cores
    that other busy processes share, one thread can be faster (``parallel=False``). The
    results are the same either way.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, game: str | Game = "keil", size: int | None = None, num_envs: int = 1,
                 *, max_moves: int | None = None, parallel: bool | None = None, **options):
        self._games = Batch(game, size, num_envs, max_moves, options, parallel)
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
