"""Observations: the board's embedding in a square grid, the planes, the 12 symmetries.

The embedding: point ``(c, r)`` of :attr:`hexstones.board.Board.coords` (column ``c``,
row ``r``, both ``0 .. 2n-2``) sits at row ``r``, column ``c`` of a ``(2n-1) x (2n-1)``
grid. The six neighbours of a point are the grid cells at offsets (in ``(dc, dr)``)
``(1,0), (1,1), (0,1), (-1,0), (-1,-1), (0,-1)``: a 3x3 window minus two corners. The
cells with ``|c - r| > n-1`` are off the board and hold 0 in every plane.

:func:`observe` computes the planes of any game object through the game API; the
compiled environments write the same planes from the core state, and the tests hold the
two to each other.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from hexstones.board import get_board
from hexstones.games import BLACK, WHITE, Game, other

# The planes (last axis of an observation), seen by the observer: the player to move in
# the vector env, the agent observing in the AEC env.
PLANES = (
    "own stones",              # 1 where the observer has a stone
    "opponent stones",         # 1 where the opponent has a stone
    "on board",                # 1 on every cell of the board
    "observer is white",       # 1 on every cell of the board if the observer plays White
    "own special",             # 1 if the observer holds the special privilege (Keil: took
                               # the button; Dehil: passed first)
    "opponent special",        # 1 if the opponent holds it
    "passes",                  # consecutive passes just played (0, 1; 2 once over)
    "own prison",              # observer's stones in the prison / P
    "opponent prison",         # opponent's stones in the prison / P
    "balance",                 # the game's balance option (komi, prison stones) / P
)
NUM_PLANES = len(PLANES)
(OWN, OPPONENT, ON_BOARD, IS_WHITE, OWN_SPECIAL, OPPONENT_SPECIAL, PASSES, OWN_PRISON,
 OPPONENT_PRISON, BALANCE) = range(NUM_PLANES)

# Seeing a position through the other player's eyes: the own/opponent planes swap and
# "observer is white" becomes "on board" minus itself.
OTHER_VIEW = np.array([OPPONENT, OWN, ON_BOARD, IS_WHITE, OPPONENT_SPECIAL, OWN_SPECIAL,
                       PASSES, OPPONENT_PRISON, OWN_PRISON, BALANCE], np.intp)


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
    P = get_board(size).num_points
    n = grid_side(size)
    low = np.zeros((n, n, NUM_PLANES), np.float32)
    high = np.ones((n, n, NUM_PLANES), np.float32)
    high[..., PASSES] = 2
    high[..., OWN_PRISON] = high[..., OPPONENT_PRISON] = np.inf
    low[..., BALANCE] = min(0.0, game_cls.balance.minimum / P)
    high[..., BALANCE] = max(0.0, game_cls.balance.maximum / P)
    return low, high


def other_view(planes: np.ndarray) -> np.ndarray:
    """The planes of the same position seen by the other player (a new array)."""
    seen = planes[..., OTHER_VIEW]
    seen[..., IS_WHITE] = planes[..., ON_BOARD] - planes[..., IS_WHITE]
    return seen


# -- planes through the game API ------------------------------------------------------

def rule_state(game: Game) -> tuple[str | None, int]:
    """``(holder, passes)``: who holds the game's one-time privilege (a colour or None)
    and the consecutive passes just played."""
    return game.special_holder, game.passes


def observe(game: Game, observer: str | None = None) -> np.ndarray:
    """The planes of ``game``'s position seen by ``observer`` (default: the player to
    move), a float32 array ``[2n-1, 2n-1, NUM_PLANES]`` computed through the game API."""
    observer = game.to_move if observer is None else observer
    if observer not in (BLACK, WHITE):
        raise ValueError(f"the observer is 'black' or 'white', not {observer!r}")
    board = game.board
    P = board.num_points
    n = grid_side(game.size)
    rows, cols = embedding(game.size)
    planes = np.zeros((n, n, NUM_PLANES), np.float32)
    index = board.index
    for name, color in game.stones().items():
        p = index[name]
        planes[rows[p], cols[p], OWN if color == observer else OPPONENT] = 1
    holder, passes = rule_state(game)
    prison = game.prison or {BLACK: 0, WHITE: 0}
    values = np.zeros(NUM_PLANES, np.float32)
    values[ON_BOARD] = 1
    values[IS_WHITE] = observer == WHITE
    values[OWN_SPECIAL] = holder == observer
    values[OPPONENT_SPECIAL] = holder == other(observer)
    values[PASSES] = passes
    values[OWN_PRISON] = prison[observer] / P
    values[OPPONENT_PRISON] = prison[other(observer)] / P
    values[BALANCE] = game.balance_value / P
    planes[rows, cols, ON_BOARD:] = values[ON_BOARD:]
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
