"""The kernel operations the search uses, and the one it adds (ownership).

The rules live in :mod:`hexstones.core`; its game-id dispatchers
(:mod:`hexstones.core.dispatch`) make one compiled entry point per operation for all
three games, which is what lets the search be one compiled function (cached on disk).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hexstones.core import dehil as _dehil
from hexstones.core import keil as _keil
from hexstones.core.dispatch import is_over, play, score, undo, winner  # noqa: F401
from hexstones.core.layout import DEHIL, DROCHED, GAME_IDS, KEIL, M_PLY, M_TO_MOVE, OK, R_FULL  # noqa: F401

keil_playout = _keil.playout
keil_territories = _keil.territories
dehil_fills_own_eye = _dehil.fills_own_eye


def available(game_id: int) -> bool:
    return game_id in GAME_IDS.values()


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
