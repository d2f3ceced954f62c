"""The compiled core: the rules of Keil, Dehil and Droched as numba kernels over numpy arrays.

Every game module here (``hexstones.core.keil``, ``.dehil``, ``.droched``) provides the
same compiled functions with the same signatures, so generic ``@njit`` code (search,
playouts) can take a game's functions as arguments, or call the game-id dispatchers in
:mod:`hexstones.core.dispatch`.

Data
----
``geo`` -- the geometry of one board side, a named tuple :class:`Geometry
<hexstones.core.layout.Geometry>` from :func:`geometry(size)
<hexstones.core.layout.geometry>` (read only, shared): fields ``nbr, on_edge, feature,
zobrist, zextra, tri, near_tri, ring_nbr, ring_edge``; ``geo.nbr[p, d]`` is the neighbour
of point ``p`` in direction ``d`` (cyclic order, -1 off the board). Point numbers are
:class:`hexstones.board.Board`'s indices (``P = board.num_points``).

``st`` -- the state, a named tuple :class:`State <hexstones.core.layout.State>` from
:func:`start_state(game, size, ...) <hexstones.core.state.start_state>`, mutated in place
by the kernels (fields in this order; kernels read them by name, ``st.board``):

===========================  ==============================================================
 board      int8[P]          0 empty, 1 black, 2 white
 meta       int64[16]        slots ``M_*`` in :mod:`hexstones.core.layout`: ``M_PLY``
                             moves played, ``M_TO_MOVE`` 1/2, ``M_PASSES``, ``M_SPECIAL``
                             (Keil: who took the button; Dehil: who passed first),
                             ``M_KOMI``, ``M_PRISON`` (+c-1: Droched stones of colour c
                             in the prison), ``M_REMOVED`` (stones the last move
                             removed), ``M_LAST`` (last move)
 hist_hash  uint64[C+1]      Zobrist hash after t moves (board, + button for Keil)
 hist_board int8[C+1, P]     board after t moves, in row ``hist_meta[t, M_BOARD_ROW]``
                             (a move that leaves the board as it was stores none)
 hist_meta  int64[C+1, 16]   meta after t moves
 hist_move  int32[C+1]       the t-th move
 work       int32[18, 6P+8]  scratch rows ``W_*`` (not part of the position)
 stamp      int64[1]         scratch counter
 table      uint64[T]        position table: each entry the hash's high bits and a
                             history row (low 24 bits; 0 = free), linear probing
 hist_slot  int32[C+1]       the table slot of history row t
===========================  ==============================================================

``C`` is the capacity (moves the history holds); :func:`state.grow_state` makes a
bigger copy. Hashes are updated per move (xor of the changed stones), never recomputed;
a repetition is confirmed on the stored board when the hash matches, so it is exact.

Moves are ints: ``0 .. P-1`` a placement on that point, ``P`` the game's special move:

* Keil: the button while nobody has taken it, else pass (never both legal: the button
  is legal exactly until somebody takes it, a pass exactly from then on);
* Dehil: pass;
* Droched: release (remove one enemy stone from the prison).

Functions (all ``@njit(cache=True)``, identical signatures in each game module)
-------------------------------------------------------------------------------
``play(geo, st, move) -> int``
    Play ``move`` for the player to move. Returns ``OK`` (0) or a reason code
    (``R_*`` in :mod:`layout`: occupied, suicide, repetition, forbidden triangle, lone
    prisoner, prison empty, game over, not a move, history full); on a reason code the
    state is unchanged.
``undo(geo, st) -> int``
    Take back the last move (O(P): restores history row ply-1); returns it, -1 if none.
    (The same function for every game: :func:`hexstones.core.common.undo`.)
``legal_moves(geo, st, out) -> int``
    Write every legal move into ``out`` (int32, length >= P+1): points ascending, then
    ``P`` if the special move is legal; returns the count (0 once the game is over).
``is_over(geo, st) -> bool``
``winner(geo, st) -> int``
    1 black, 2 white once over, else 0. (Droched: the player who took the last action.)
``score(geo, st, out) -> bool``
    Writes (black, white) into ``out[0:2]`` as if the game ended now; False for Droched,
    which has no score.
``score_parts(geo, st, out) -> bool``
    Writes each player's score parts (row c-1 for colour c of ``out``, float64[2,
    SCORE_PARTS]) in the order of the game API's ``score_parts``; the score is made of
    them (the game API only labels them). False for Droched.
``playout(geo, st, rng, max_ply) -> int``
    Plays uniformly random moves under the playout policy below until the game ends or
    ``M_PLY`` reaches ``max_ply``; returns the winner, 0 if unfinished. ``rng`` is a
    uint64[1] xorshift64* state (:func:`common.seed_rng`); same seed, same game.
``copy_into(dst, src)`` (:mod:`common`)
    Copy a state into a preallocated one of the same side (history rows up to ply only).

The search's knowledge of each game lives here too, with the same names in each game
module: ``policy_playout(geo, st, rng, max_ply, cand, scores, reply)`` (the full-strength
playout), ``add_ownership``, ``policy_move_limit`` and the facts ``SEARCH_BIASES``,
``LEARNS_REPLIES``, ``POLICY_SCRATCH``; :mod:`hexstones.core.dispatch` switches on the
game id for code that holds one (the only place that does). Every random-game loop draws
with :func:`common.draw`.

Playout policy (the same in ``hexstones.playouts``)
---------------------------------------------------
Each turn the mover picks uniformly at random among their legal placements that do not
fill their own eye, and plays the special move only when no such placement is left:

* Keil: an eye of X is an empty point that is a one-point territory of X (no empty point
  linked to it, every stone linked to it is X's, at least one). With no placement left,
  X takes the button if nobody has, else passes; two passes in a row end the game.
* Dehil: an eye of X is an empty point whose every neighbour holds an X stone. With no
  placement left, X passes (the first pass earns the half point).
* Droched: uniformly random among all legal actions, release included (there is no pass;
  a player with no legal action loses).
"""

from hexstones.core.cache import CORE, core_sources, drop_stale_cache

drop_stale_cache(CORE, core_sources(), "core-sources.sha256")

from hexstones.core.layout import (  # noqa: E402  (after the cache check)
    BLACK,
    DEHIL,
    DROCHED,
    EMPTY,
    GAME_IDS,
    KEIL,
    OK,
    REASON_NAMES,
    WHITE,
    Geometry,
    State,
    allocate_state,
    default_capacity,
    geometry,
)
from hexstones.core.state import copy_state, grow_state, start_state  # noqa: E402

__all__ = [
    "BLACK", "WHITE", "EMPTY", "KEIL", "DEHIL", "DROCHED", "GAME_IDS", "OK", "REASON_NAMES",
    "Geometry", "State",
    "allocate_state", "copy_state", "default_capacity", "geometry", "grow_state", "start_state",
]
