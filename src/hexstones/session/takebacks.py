"""A takeback asked of the opponent, between two people playing online: one asks, the
other accepts or declines, the asker may cancel. Moves played since the asking make the
request void (it was meant for an earlier position).

Against the AI, or two people at one screen, a takeback needs nobody's consent:
:meth:`hexstones.session.Session.takeback` does it at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hexstones.games import other
from hexstones.session.errors import NotNow, NotYours
from hexstones.session.turns import Session

ACTIONS = ("request", "accept", "decline", "cancel")


@dataclass(frozen=True)
class TakebackAsk:
    """``by`` asked to take back their last move when the game was at move ``ply``.
    Stored as :meth:`to_dict` (``{"by", "ply"}``)."""

    by: str
    ply: int

    @staticmethod
    def pending(asked: TakebackAsk | None, session: Session) -> TakebackAsk | None:
        """The request ``asked`` if it is still for the position now (else None: moves
        were played since)."""
        if asked is None or asked.ply != len(session.game.moves):
            return None
        return asked

    def to_dict(self) -> dict[str, Any]:
        return {"by": self.by, "ply": self.ply}


def ask(session: Session, mine: list[str], pending: TakebackAsk | None) -> TakebackAsk:
    """The request of the player holding the colours ``mine`` (NotNow if they have nothing
    to take back, or a request is already waiting)."""
    if session.ended_early is not None:
        raise NotNow(f"the game is over: {session.ended_early}")
    if not mine:
        raise NotNow("the colours are not decided yet: nothing to take back")
    color, count = mine[0], len(session.game.moves)
    if count == 0 or (count == 1 and session.game.to_move == color):
        raise NotNow("you have no move to take back")
    if pending is not None:
        raise NotNow("a takeback is already asked: wait for the answer")
    return TakebackAsk(color, count)


def answer(session: Session, mine: list[str], pending: TakebackAsk | None, action: str) -> TakebackAsk:
    """Check that the player holding ``mine`` may ``action`` ("accept", "decline",
    "cancel") the request ``pending``; returns it. Accepted, the caller takes back moves
    to its asker's last one (:meth:`Session.takeback` with ``until``)."""
    if session.ended_early is not None:
        raise NotNow(f"the game is over: {session.ended_early}")
    if pending is None:
        raise NotNow("no takeback is asked")
    if action == "cancel":
        if pending.by not in mine:
            raise NotYours("only who asked may cancel a takeback")
    elif other(pending.by) not in mine:
        raise NotYours("only the opponent of who asked may answer a takeback")
    return pending
