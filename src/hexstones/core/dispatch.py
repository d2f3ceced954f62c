"""Game-id dispatch: one compiled entry point per kernel for code that holds a game id
(``KEIL``, ``DEHIL``, ``DROCHED``) instead of a game's functions. Same signatures as the
game modules, with the game id first."""

from __future__ import annotations

from numba import njit

from hexstones.core import dehil, droched, keil
from hexstones.core.common import copy_into as _copy_into
from hexstones.core.common import undo as _undo
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
    ``scores`` = [black, white] sums. ``resume`` continues the game already in ``st``. Returns the index of a playout
    that stopped because ``st``'s history is full (the caller grows ``st`` and resumes it),
    else ``count``."""
    start_ply = root[1][M_PLY]
    capacity = st[2].shape[0] - 1
    pair = scores[2:4]
    for i in range(first, count):
        if not resume:
            _copy_into(st, root)
        resume = False
        w = playout(gid, geo, st, rng, capacity)
        if w <= 0:
            return i
        totals[0] += 1
        totals[1] += st[1][M_PLY] - start_ply
        totals[1 + w] += 1
        if score(gid, geo, st, pair):
            totals[4] += 1
            scores[0] += pair[0]
            scores[1] += pair[1]
    return count
