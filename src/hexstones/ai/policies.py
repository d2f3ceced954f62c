"""The search's side of the playout policies: the last-good-reply table it learns.

The game-aware playout policies themselves are each game's knowledge and live with its
rules in :mod:`hexstones.core` (``policy_playout`` of ``core.keil``, ``core.dehil``,
``core.droched``, reached through :func:`hexstones.core.dispatch.policy_playout`):

* Keil: the core playout, which never fills one's own eye (one-point territory).
* Dehil: pass after the opponent's pass when that wins; the last good reply; never fill
  one's own eye; prefer cut points, one's own or the opponent's.
* Droched: the last good reply unless it imprisons own stones; avoid self-imprisonment;
  prefer actions that send enemy stones to the prison.

Whether a move is legal, and what it does, is always the kernel's answer.
"""

from __future__ import annotations

from numba import njit

from hexstones.games import compiled as G


@njit(cache=True)
def learn_replies(st, from_ply, w, reply):
    """Last good reply with forgetting, from a simulation that ``w`` won: for each move
    after history row ``from_ply``, ``reply[c - 1, previous move]`` becomes the move if
    its player ``c`` won, and is cleared if it held that move and ``c`` lost."""
    hmv = st.hist_move
    P = st.board.shape[0]
    for ply in range(from_ply + 1, G.ply(st) + 1):
        prev = G.last_move_at(st, ply - 1)
        m = hmv[ply]
        if prev < 0 or m == P:
            continue
        c = G.to_move_at(st, ply - 1)
        if c == w:
            reply[c - 1, prev] = m
        elif reply[c - 1, prev] == m:
            reply[c - 1, prev] = -1
