"""Observations: the encoder's features on a square grid, the masks, the 12 symmetries.

An observation is the position's features of :mod:`hexstones.games.observation` (the
network's inputs, one row per point) with each point's row at its cell of a square
grid. The embedding: point ``(c, r)`` of :attr:`hexstones.board.Board.coords` (column
``c``, row ``r``, both ``0 .. 2n-2``) sits at row ``r``, column ``c`` of a
``(2n-1) x (2n-1)`` grid. The six neighbours of a point are the grid cells at offsets (in
``(dc, dr)``) ``(1,0), (1,1), (0,1), (-1,0), (-1,-1), (0,-1)``: a 3x3 window minus two
corners. The cells with ``|c - r| > n-1`` are off the board and hold 0 in every plane.

:func:`observe` computes the planes of any game object through the game API; the
compiled environments write the same planes from the core state with the encoder's
compiled writer, and the tests hold the two to each other.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from hexstones.board import get_board
from hexstones.games import Game
from hexstones.games.observation import (
    BALANCE_SCALE,
    F_BALANCE,
    F_BALANCE_MOVER,
    F_OPP_PRISON,
    F_OWN_PRISON,
    F_SIZE,
    FEATURES,
    NUM_FEATURES,
    features_of,
)

# The planes (last axis of an observation) are the encoder's features, seen by the
# observer: the player to move in the vector env, the agent observing in the AEC env.
PLANES = FEATURES
NUM_PLANES = NUM_FEATURES


@cache
def embedding(size: int) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, cols)``: int32 arrays giving the grid cell of each point, in board order."""
    coords = get_board(size).coords
    rows = np.array([r for _, r in coords], np.int32)
    cols = np.array([c for c, _ in coords], np.int32)
    rows.setflags(write=False)
    cols.setflags(write=False)
    return rows, cols


def grid_side(size: int) -> int:
    return 2 * size - 1


def observation_bounds(game_cls: type[Game], size: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-cell, per-plane lower and upper bounds of an observation (for Box spaces)."""
    n = grid_side(size)
    low = np.zeros((n, n, NUM_PLANES), np.float32)
    high = np.ones((n, n, NUM_PLANES), np.float32)
    high[..., F_OWN_PRISON] = high[..., F_OPP_PRISON] = np.inf
    # Divided as the encoder divides (float64, then stored as float32): the same bits.
    lowest, highest = game_cls.balance.minimum, game_cls.balance.maximum
    low[..., F_BALANCE] = min(0.0, lowest / BALANCE_SCALE)
    high[..., F_BALANCE] = max(0.0, highest / BALANCE_SCALE)
    low[..., F_BALANCE_MOVER] = min(0.0, lowest / BALANCE_SCALE, -highest / BALANCE_SCALE)
    high[..., F_BALANCE_MOVER] = max(0.0, highest / BALANCE_SCALE, -lowest / BALANCE_SCALE)
    board_size = (np.sqrt(get_board(size).num_points) - 10.0) / 5.0
    low[..., F_SIZE] = min(0.0, board_size)
    high[..., F_SIZE] = max(0.0, board_size)
    return low, high


# -- planes through the game API ------------------------------------------------------

def observe(game: Game, observer: str | None = None) -> np.ndarray:
    """The planes of ``game``'s position seen by ``observer`` (default: the player to
    move), a float32 array ``[2n-1, 2n-1, NUM_PLANES]``: the encoder's features
    (:func:`hexstones.games.observation.features_of`) on the grid, 0 off the board."""
    features = features_of(game, observer)
    n = grid_side(game.size)
    rows, cols = embedding(game.size)
    planes = np.zeros((n, n, NUM_PLANES), np.float32)
    planes[rows, cols] = features
    return planes


def action_mask(game: Game) -> np.ndarray:
    """int8 ``[num_actions]``: 1 for each legal action of the game API."""
    mask = np.zeros(game.num_actions, np.int8)
    mask[game.legal_actions()] = 1
    return mask


# -- symmetries -----------------------------------------------------------------------

class Symmetries:
    """The board's 12 symmetries as index maps, for data augmentation.

    Symmetry ``k`` is :attr:`hexstones.board.Board.symmetries` ``[k]`` (0 the identity).
    ``action_images[k, a]`` is the action that ``a`` becomes (``game.action_symmetries()``;
    the special move stays); ``cell_images[k, i]`` is the grid cell (flat index
    ``row * (2n-1) + col``) that cell ``i`` becomes, off-board cells staying put. The
    ``*_sources`` arrays are the inverse maps, used to turn by gathering:
    ``turn_observation(obs, k)`` and ``turn_actions(values, k)`` work on any leading
    batch axes, and turn planes and action vectors (masks, policies) alike.
    """

    def __init__(self, size: int, action_images: np.ndarray):
        board = get_board(size)
        n = grid_side(size)
        rows, cols = embedding(size)
        flat = rows.astype(np.intp) * n + cols
        self.size = size
        self.action_images = np.asarray(action_images, np.intp)
        if self.action_images.shape != (12, board.num_points + 1):
            raise ValueError(f"action maps are [12, {board.num_points + 1}], "
                             f"not {self.action_images.shape}")
        cells = np.tile(np.arange(n * n, dtype=np.intp), (12, 1))
        for k in range(12):
            cells[k, flat] = flat[self.action_images[k, :board.num_points]]
        self.cell_images = cells
        self.cell_sources = np.argsort(cells, axis=1)
        self.action_sources = np.argsort(self.action_images, axis=1)
        for table in (self.action_images, self.cell_images, self.cell_sources,
                      self.action_sources):
            table.setflags(write=False)

    def __len__(self) -> int:
        return 12

    def turn_observation(self, obs: np.ndarray, k: int) -> np.ndarray:
        """Observation(s) ``[..., 2n-1, 2n-1, planes]`` turned by symmetry ``k``."""
        n = grid_side(self.size)
        shape = obs.shape
        flat = obs.reshape(shape[:-3] + (n * n, shape[-1]))
        return flat[..., self.cell_sources[k], :].reshape(shape)

    def turn_actions(self, values: np.ndarray, k: int) -> np.ndarray:
        """Per-action vector(s) ``[..., num_actions]`` turned by symmetry ``k``."""
        return values[..., self.action_sources[k]]

    def turn_action(self, action: int, k: int) -> int:
        return int(self.action_images[k, action])


def symmetries(game: Game) -> Symmetries:
    """The 12 symmetries of ``game``'s board (its action maps from the game API)."""
    return Symmetries(game.size, game.action_symmetries())
