"""The door between the game API and the compiled core.

A game whose rules are a kernel module of :mod:`hexstones.core` keeps its position in a
core state (:class:`CoreBacked`). Code that calls the kernels itself (the AI's search,
the playouts below, later an RL environment or a network) gets what it needs from
:meth:`CoreBacked.compiled` and from the game API (the move codec), and from nothing
else: no game names, no module lookups, no private attributes.

``core/`` imports nothing from here or above: this module is the glue that knows both.
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

import numpy as np

from hexstones.board import Board
from hexstones.core.common import board_at, copy_into, seed_rng, undo as _undo
from hexstones.core.layout import (
    BLACK as BLACK_CODE,
    M_PASSES,
    M_SPECIAL,
    M_TO_MOVE,
    R_FULL,
    WHITE as WHITE_CODE,
    Geometry,
    State,
    capacity_of,
    default_capacity,
    geometry,
)
from hexstones.core.state import copy_state, empty_like, grow_state
from hexstones.games.base import BLACK, WHITE, Game, IllegalMove
from hexstones.games.compiled import ply_of
from hexstones.games.spec import ScorePart, other

# The one translation between the core's stone codes and the API's colour names.
COLOR_NAME = {BLACK_CODE: BLACK, WHITE_CODE: WHITE}
STONE_CODE = {BLACK: BLACK_CODE, WHITE: WHITE_CODE}


class Compiled(NamedTuple):
    """What a caller of the compiled kernels needs about one game position.

    ``game_id``: the game's id for the dispatchers of :mod:`hexstones.core.dispatch`
    (opaque: pass it on, never compare it); ``geometry``: the geometry tuple of the board
    side (shared by every game of that side: read only); ``state``: a copy of the game's
    core state, position and history (the caller's to change: the game is unaffected);
    ``num_points``: board points, which are actions ``0 .. num_points - 1``;
    ``num_actions``: ``num_points + 1`` (action ``num_points`` is the game's special move,
    see :mod:`hexstones.core`). Actions map to move names and back through the game.
    """

    game_id: int
    geometry: Geometry
    state: State
    num_points: int
    num_actions: int

    @property
    def ply(self) -> int:
        """Moves played in ``state`` (its history's last row)."""
        return ply_of(self.state)

    @property
    def room(self) -> int:
        """Moves ``state``'s history has room for."""
        return capacity_of(self.state)

    def with_room(self, moves: int) -> Compiled:
        """The same, with a state whose history has room for at least ``moves`` moves (a
        grown copy where it has less; this one where it has enough)."""
        if capacity_of(self.state) >= moves:
            return self
        return self._replace(state=grow_state(self.state, moves))

    def scratch(self, copy: bool = False) -> State:
        """A work state for the kernels: of the same side and room as ``state``, empty
        (for kernels that copy a root into it themselves) or, with ``copy``, holding
        ``state``'s position and history (copied as the kernels copy)."""
        work = empty_like(self.state)
        if copy:
            copy_into(work, self.state)
        return work


class CoreBacked:
    """Mixin for :class:`hexstones.games.base.Game` subclasses whose rules are a core
    kernel module (``kernels``): the position lives in ``self._st``."""

    kernels: Any = None  # the hexstones.core.<game> module
    # Why the kernels refuse a move, by their reason code (``R_*`` of
    # hexstones.core.layout), for a person: ``{move}``, ``{mover}`` (the colour to move)
    # and ``{opponent}`` are filled in (:meth:`_reason`).
    reasons: ClassVar[dict[int, str]] = {}
    # Set by Game, which every CoreBacked class also derives from.
    size: int
    board: Board
    moves: list[str]
    score_parts: ClassVar[tuple[ScorePart, ...]]

    def _attach(self, st) -> None:
        self._st = st
        self._geo = geometry(self.size)
        self._legal_numbers: list[int] | None = None

    # -- the door to the kernels ---------------------------------------------------

    def compiled(self) -> Compiled:
        """The game's id, geometry and a copy of its state, for code that calls the
        compiled kernels (see :class:`Compiled`). The copy holds the whole history, so
        the kernels' repetition rules and undo work on it as on the game."""
        P = self.board.num_points
        return Compiled(self.kernels.GAME_ID, self._geo, copy_state(self._st), P, P + 1)

    def search_room(self) -> int:
        """The history room a search's state needs from this position: a fresh game's, or
        the moves played and four a point more (its simulations play on to the end)."""
        return max(default_capacity(self.size), len(self.moves) + 4 * self.board.num_points + 64)

    def compiled_for_search(self) -> Compiled:
        """:meth:`compiled`, with the room :meth:`search_room` asks for."""
        return self.compiled().with_room(self.search_room())

    # -- position ------------------------------------------------------------------

    @property
    def _board_cells(self) -> np.ndarray:
        return self._st.board

    @property
    def special_holder(self) -> str | None:
        # The core keeps the holder of the one-time privilege (Keil's button, Dehil's
        # first pass) and the passes in the same meta slots for every game (0 in Droched).
        return COLOR_NAME.get(int(self._st.meta[M_SPECIAL]))

    @property
    def passes(self) -> int:
        return int(self._st.meta[M_PASSES])

    @property
    def to_move(self) -> str:
        return COLOR_NAME[int(self._st.meta[M_TO_MOVE])]

    def stone_at(self, point: str) -> str | None:
        return COLOR_NAME.get(int(self._st.board[self.board.point(point)]))

    def stones(self) -> dict[str, str]:
        names = self.board.names
        return {names[p]: COLOR_NAME[int(c)] for p, c in enumerate(self._st.board) if c}

    # -- score: computed by the kernels, only labelled here --------------------------

    def score(self) -> dict[str, float] | None:
        """The score if the game ended now (``None`` for games without a score)."""
        out = np.zeros(2, np.float64)
        if not self.kernels.score(self._geo, self._st, out):
            return None
        return {BLACK: float(out[0]), WHITE: float(out[1])}

    def score_details(self) -> dict[str, dict[str, float]] | None:
        """Each player's score split into the parts of ``score_parts`` (``None`` for games
        without a score); a part with sign -1 is given as a positive number. Whole
        numbers come as ints."""
        parts = np.zeros((2, self.kernels.SCORE_PARTS), np.float64)
        if not self.kernels.score_parts(self._geo, self._st, parts):
            return None
        return {color: {part.key: _plain(parts[code - 1, k])
                        for k, part in enumerate(self.score_parts)}
                for color, code in STONE_CODE.items()}

    # -- moves ---------------------------------------------------------------------

    def _core_play(self, number: int) -> int:
        """Play move ``number`` in the kernels; returns the reason code (0 = played)."""
        code = self.kernels.play(self._geo, self._st, number)
        if code == R_FULL:
            self._st = grow_state(self._st)
            code = self.kernels.play(self._geo, self._st, number)
        if code == 0:
            self._legal_numbers = None
        return code

    def _reason(self, move: str, code: int) -> str:
        """Why the kernels refused ``move`` with reason ``code`` (:data:`reasons`)."""
        text = self.reasons.get(code)
        if text is None:
            return f"{move} cannot be played (core reason {code})"
        return text.format(move=move, mover=self.to_move, opponent=other(self.to_move))

    def _core_undo(self) -> None:
        _undo(self._geo, self._st)
        self._legal_numbers = None

    def undo(self) -> str:
        """Take back the last move and return it."""
        if not self.moves:
            raise IllegalMove("no move to take back")
        self._core_undo()
        return self.moves.pop()

    def _make_room(self) -> None:
        """Kernels that try every placement need two free history rows."""
        if ply_of(self._st) + 2 >= capacity_of(self._st):
            self._st = grow_state(self._st)

    def _core_legal(self) -> list[int]:
        if self._legal_numbers is None:
            self._make_room()
            out = np.empty(self.board.num_points + 1, np.int32)
            n = self.kernels.legal_moves(self._geo, self._st, out)
            self._legal_numbers = [int(m) for m in out[:n]]
        return self._legal_numbers

    def _row(self, ply: int) -> np.ndarray:
        """The board after ``ply`` moves."""
        return board_at(self._st, ply)

    def copy(self):
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.moves = list(self.moves)
        twin._st = copy_state(self._st)
        twin._legal_numbers = None
        return twin


def has_kernels(game: Game) -> bool:
    """Whether ``game`` has compiled kernels (the door :meth:`CoreBacked.compiled`): the
    compiled searches play only such games."""
    return isinstance(game, CoreBacked)


def _plain(value: float) -> int | float:
    return int(value) if float(value).is_integer() else float(value)


def playouts(game: Game | str, count: int, seed: int = 0, **options: Any) -> dict[str, Any]:
    """Play ``count`` uniformly random games to the end from ``game`` and count the results.

    ``game`` is a game object (its current position and history are the start) or a game
    name, with ``options`` as :func:`hexstones.new_game` takes them (a new game). Same
    ``seed``, same result. Returns ``{"game", "size", "games", "moves", "wins": {"black",
    "white"}, "mean_length", "mean_score"}`` (``mean_score`` is ``None`` for Droched, which
    has no score; ``moves`` and ``mean_length`` count only moves made by the playouts).
    The playout policy (what "uniformly random" means when a pass or the button is
    available) is documented in :mod:`hexstones.core` and ``docs/engine.md``. Also
    reachable as ``hexstones.playouts``.
    """
    from hexstones.core import dispatch  # the three games' kernels: loaded on first use
    from hexstones.games import new_game

    if isinstance(game, str):
        game = new_game(game, **options)
    elif options:
        raise ValueError("options go with a game name, not with a game object")
    if not isinstance(game, Game):
        raise ValueError(f"playouts need a game object or a game name, not {game!r}")
    if not isinstance(game, CoreBacked):
        raise ValueError(f"{game.name} has no compiled kernels to play out")
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ValueError(f"count must be a whole number of games (0 or more), not {count!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be a whole number, not {seed!r}")
    door = game.compiled()
    gid, geo, root = door.game_id, door.geometry, door.state
    # The room a playout starts with depends on the position only, never on how much the
    # game object happened to hold: a playout that fills its history resumes in a bigger
    # one with a fresh candidate list, so the room changes the games drawn.
    st = grow_state(root, ply_of(root) + default_capacity(game.size))
    rng = seed_rng(seed)
    totals = np.zeros(5, np.int64)
    scores = np.zeros(4, np.float64)
    done, resume = 0, False
    while done < count:
        done = dispatch.run_playouts(gid, geo, root, st, rng, done, count, resume, totals,
                                     scores)
        if done < count:  # a long game filled the history: double it and carry on
            st = grow_state(st)
            resume = True
    games, scored = int(totals[0]), int(totals[4])
    return {
        "game": game.name,
        "size": game.size,
        "games": games,
        "moves": int(totals[1]),
        "wins": {"black": int(totals[2]), "white": int(totals[3])},
        "mean_length": float(totals[1]) / games if games else 0.0,
        "mean_score": ({"black": float(scores[0]) / scored, "white": float(scores[1]) / scored}
                       if scored else None),
    }


def stone_losses(game: Game, count: int, seed: int = 0) -> dict[str, float]:
    """For each stone now on the board, the fraction of ``count`` full-strength playouts
    (the search's own ``policy_playout``, played to the end) in which it leaves the board:
    taken off by the rules (in Droched, sent to the prison). Same ``seed``, same answer.

    A stone leaves only with its whole group, so the stones of one group share one value.
    """
    from hexstones.core import dispatch
    from hexstones.core.common import copy_into
    from hexstones.core.layout import M_BOARD_ROW

    if not isinstance(game, CoreBacked):
        raise ValueError(f"{game.name} has no compiled kernels to play out")
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"count must be a whole number of playouts (1 or more), not {count!r}")
    door = game.compiled()
    gid, geo, root = door.game_id, door.geometry, door.state
    start = root.board.copy()
    stones = np.flatnonzero(start)
    if game.is_over or not len(stones):
        return {}
    root_ply = ply_of(root)
    st = grow_state(root, root_ply + default_capacity(game.size))
    max_ply = capacity_of(st) - 1
    rng = seed_rng(seed)
    cand = np.zeros(int(dispatch.policy_buffer_size(door.num_points)), np.int32)
    pair = np.zeros(2, np.float64)
    reply = np.full((2, door.num_points + 1), -1, np.int32)
    left = np.zeros(len(stones), np.int64)
    for _ in range(count):
        copy_into(st, root)
        dispatch.policy_playout(gid, geo, st, rng, max_ply, cand, pair, reply)
        end = ply_of(st)
        rows = st.hist_meta[root_ply + 1:end + 1, M_BOARD_ROW]
        boards = st.hist_board[rows][:, stones]
        left += (boards != start[stones]).any(axis=0)
    names = game.board.names
    return {names[p]: float(n) / count for p, n in zip(stones, left)}
