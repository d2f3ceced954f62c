"""One compiled entry point per kernel operation, dispatching on the game id.

The rules live in :mod:`hexstones.core` (one module per game, same signatures); this
module only picks the module for a game id, so that the compiled search is one function
for all three games (which numba can cache on disk). A game whose kernels are not
present yet gets stubs that refuse every move, and :func:`available` says so.
"""

from __future__ import annotations

import importlib

import numpy as np
from numba import njit

from hexstones.core import layout as _layout

KEIL, DEHIL, DROCHED = _layout.KEIL, _layout.DEHIL, _layout.DROCHED
OK = _layout.OK
R_FULL = _layout.R_FULL
M_PLY, M_TO_MOVE = _layout.M_PLY, _layout.M_TO_MOVE


def _load(name):
    try:
        module = importlib.import_module(f"hexstones.core.{name}")
    except ImportError:
        return None
    needed = ("play", "is_over", "winner", "playout")
    return module if all(hasattr(module, f) for f in needed) else None


_MODULES = {KEIL: _load("keil"), DEHIL: _load("dehil"), DROCHED: _load("droched")}


def available(game_id: int) -> bool:
    return _MODULES.get(game_id) is not None


@njit(cache=True)
def _stub_play(geo, st, move):
    return _layout.R_NOT_A_MOVE


@njit(cache=True)
def _stub_bool(geo, st):
    return True


@njit(cache=True)
def _stub_winner(geo, st):
    return 0


@njit(cache=True)
def _stub_playout(geo, st, rng, max_ply):
    return 0


@njit(cache=True)
def _stub_score(geo, st, out):
    return False


@njit(cache=True)
def _stub_eye(board, nbr, p, X):
    return False


@njit(cache=True)
def _no_territory(geo, st, region_of, owner_of_region):
    return 0


def _fn(game_id, name, stub):
    module = _MODULES[game_id]
    return getattr(module, name, stub) if module is not None else stub


keil_play = _fn(KEIL, "play", _stub_play)
keil_over = _fn(KEIL, "is_over", _stub_bool)
keil_winner = _fn(KEIL, "winner", _stub_winner)
keil_playout = _fn(KEIL, "playout", _stub_playout)
keil_score = _fn(KEIL, "score", _stub_score)
keil_territories = _fn(KEIL, "territories", _no_territory)
dehil_play = _fn(DEHIL, "play", _stub_play)
dehil_over = _fn(DEHIL, "is_over", _stub_bool)
dehil_winner = _fn(DEHIL, "winner", _stub_winner)
dehil_score = _fn(DEHIL, "score", _stub_score)
dehil_fills_own_eye = _fn(DEHIL, "fills_own_eye", _stub_eye)
droched_play = _fn(DROCHED, "play", _stub_play)
droched_over = _fn(DROCHED, "is_over", _stub_bool)
droched_winner = _fn(DROCHED, "winner", _stub_winner)


@njit(cache=True)
def play(gid, geo, st, move):
    if gid == KEIL:
        return keil_play(geo, st, move)
    if gid == DEHIL:
        return dehil_play(geo, st, move)
    return droched_play(geo, st, move)


@njit(cache=True)
def is_over(gid, geo, st):
    if gid == KEIL:
        return keil_over(geo, st)
    if gid == DEHIL:
        return dehil_over(geo, st)
    return droched_over(geo, st)


@njit(cache=True)
def winner(gid, geo, st):
    if gid == KEIL:
        return keil_winner(geo, st)
    if gid == DEHIL:
        return dehil_winner(geo, st)
    return droched_winner(geo, st)


@njit(cache=True)
def score(gid, geo, st, out):
    """Write (black, white) into ``out``; False for a game without a score."""
    if gid == KEIL:
        return keil_score(geo, st, out)
    if gid == DEHIL:
        return dehil_score(geo, st, out)
    return False


@njit(cache=True)
def add_ownership(gid, geo, st, own, region_of, owner_of_region):
    """Add +1 for each point Black owns at the end of a playout, -1 for White: stones,
    and in Keil also territories."""
    board = st[0]
    P = board.shape[0]
    if gid == KEIL:
        keil_territories(geo, st, region_of, owner_of_region)
    for p in range(P):
        b = board[p]
        if b == 1:
            own[p] += 1.0
        elif b == 2:
            own[p] -= 1.0
        elif gid == KEIL and region_of[p] >= 0:
            o = owner_of_region[region_of[p]]
            if o == 1:
                own[p] += 1.0
            elif o == 2:
                own[p] -= 1.0
    return np.int64(0)
