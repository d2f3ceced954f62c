"""Game-id dispatch: one compiled entry point per kernel for code that holds a game id
(``KEIL``, ``DEHIL``, ``DROCHED``) instead of a game's functions. Same signatures as the
game modules, with the game id first.

This is the one place that switches on a game id: code above the core (the search) holds
the id as an opaque value (from ``game.compiled()``) and passes it here. Besides the
rules, each game module provides its search knowledge with the same names: its policy
playout, the ownership of a finished playout, the move limit of a policy playout, and
the facts ``SEARCH_BIASES`` (``BIAS_*`` of :mod:`layout`), ``LEARNS_REPLIES`` and
``POLICY_SCRATCH``."""

from __future__ import annotations

from numba import njit

from hexstones.core import dehil, droched, keil
from hexstones.core.common import copy_into as _copy_into, undo as _undo
from hexstones.core.layout import DEHIL, KEIL, M_PLY


@njit(cache=True)
def play(gid, geo, st, move):
    if gid == KEIL:
        return keil.play(geo, st, move)
    if gid == DEHIL:
        return dehil.play(geo, st, move)
    return droched.play(geo, st, move)


@njit(cache=True)
def undo(gid, geo, st):
    return _undo(geo, st)


@njit(cache=True)
def legal_moves(gid, geo, st, out):
    if gid == KEIL:
        return keil.legal_moves(geo, st, out)
    if gid == DEHIL:
        return dehil.legal_moves(geo, st, out)
    return droched.legal_moves(geo, st, out)


@njit(cache=True)
def legal_moves_tracked(gid, geo, st, out, rings, left):
    """``legal_moves`` for a caller that follows the game move by move with
    ``common.track_board`` (ring codes ``rings``, departures ``left``): the same moves."""
    if gid == KEIL:
        return keil.legal_moves_tracked(geo, st, out, rings, left)
    if gid == DEHIL:
        return dehil.legal_moves_tracked(geo, st, out, rings, left)
    return droched.legal_moves_tracked(geo, st, out, rings, left)


@njit(cache=True)
def is_over(gid, geo, st):
    if gid == KEIL:
        return keil.is_over(geo, st)
    if gid == DEHIL:
        return dehil.is_over(geo, st)
    return droched.is_over(geo, st)


@njit(cache=True)
def winner(gid, geo, st):
    if gid == KEIL:
        return keil.winner(geo, st)
    if gid == DEHIL:
        return dehil.winner(geo, st)
    return droched.winner(geo, st)


@njit(cache=True)
def score(gid, geo, st, out):
    if gid == KEIL:
        return keil.score(geo, st, out)
    if gid == DEHIL:
        return dehil.score(geo, st, out)
    return droched.score(geo, st, out)


@njit(cache=True)
def score_parts(gid, geo, st, out):
    if gid == KEIL:
        return keil.score_parts(geo, st, out)
    if gid == DEHIL:
        return dehil.score_parts(geo, st, out)
    return droched.score_parts(geo, st, out)


@njit(cache=True)
def playout(gid, geo, st, rng, max_ply):
    if gid == KEIL:
        return keil.playout(geo, st, rng, max_ply)
    if gid == DEHIL:
        return dehil.playout(geo, st, rng, max_ply)
    return droched.playout(geo, st, rng, max_ply)


@njit(cache=True)
def run_playouts(gid, geo, root, st, rng, first, count, resume, totals, scores):
    """Playouts ``first .. count-1`` from ``root`` (each into ``st``), adding to
    ``totals`` = [games, moves, black wins, white wins, games with a score] and
    ``scores`` = [black, white] sums. ``resume`` continues the game already in ``st``.
    Returns the index of a playout that stopped because ``st``'s history is full (the
    caller grows ``st`` and resumes it), else ``count``."""
    start_ply = root.meta[M_PLY]
    capacity = st.hist_hash.shape[0] - 1
    pair = scores[2:4]
    for i in range(first, count):
        if not resume:
            _copy_into(st, root)
        resume = False
        w = playout(gid, geo, st, rng, capacity)
        if w <= 0:
            return i
        totals[0] += 1
        totals[1] += st.meta[M_PLY] - start_ply
        totals[1 + w] += 1
        if score(gid, geo, st, pair):
            totals[4] += 1
            scores[0] += pair[0]
            scores[1] += pair[1]
    return count


@njit(cache=True)
def policy_playout(gid, geo, st, rng, max_ply, cand, scores, reply):
    """The game's full-strength playout: 1/2 the winner, 0 at ``max_ply`` (Keil: -1 when
    the history is full). ``cand`` is a scratch int32 buffer of at least
    :func:`policy_buffer_size` slots, ``scores`` a float64 scratch pair, ``reply`` the
    last-good-reply table int32 (2, P + 1) that the search keeps (see ``learns_replies``)."""
    if gid == KEIL:
        return keil.policy_playout(geo, st, rng, max_ply, cand, scores, reply)
    if gid == DEHIL:
        return dehil.policy_playout(geo, st, rng, max_ply, cand, scores, reply)
    return droched.policy_playout(geo, st, rng, max_ply, cand, scores, reply)


@njit(cache=True, inline="always")
def policy_buffer_size(num_points):
    """Slots of the policy playouts' scratch buffer ``cand``, for every game."""
    return num_points + max(keil.POLICY_SCRATCH, dehil.POLICY_SCRATCH, droched.POLICY_SCRATCH)


@njit(cache=True)
def policy_move_limit(gid, num_points):
    """Moves beyond the root after which a policy playout counts as undecided."""
    if gid == KEIL:
        return keil.policy_move_limit(num_points)
    if gid == DEHIL:
        return dehil.policy_move_limit(num_points)
    return droched.policy_move_limit(num_points)


@njit(cache=True)
def search_biases(gid):
    """The ``BIAS_*`` flags (:mod:`layout`) the game's policy asks the search for."""
    if gid == KEIL:
        return keil.SEARCH_BIASES
    if gid == DEHIL:
        return dehil.SEARCH_BIASES
    return droched.SEARCH_BIASES


@njit(cache=True)
def learns_replies(gid):
    """Whether the game's policy playout plays the last good reply (so the search must
    keep the reply table up to date)."""
    if gid == KEIL:
        return keil.LEARNS_REPLIES
    if gid == DEHIL:
        return dehil.LEARNS_REPLIES
    return droched.LEARNS_REPLIES


@njit(cache=True)
def add_ownership(gid, geo, st, own, region_of, owner_of_region):
    """Add +1 for each point Black owns at the end of a playout, -1 for White (stones, and
    in Keil territories; ``region_of`` int32[P], ``owner_of_region`` int32[P + 1]: scratch)."""
    if gid == KEIL:
        return keil.add_ownership(geo, st, own, region_of, owner_of_region)
    if gid == DEHIL:
        return dehil.add_ownership(geo, st, own, region_of, owner_of_region)
    return droched.add_ownership(geo, st, own, region_of, owner_of_region)
