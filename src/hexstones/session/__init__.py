"""The game session: a game with its players, between the rules (:mod:`hexstones.games`)
and the front doors (the web app, the terminal game, the engine protocol, matches and
tournaments).

- :mod:`~hexstones.session.turns`: seats and whose turn it is, takebacks, resignation,
  the outcome (:class:`Session`, :func:`takeback`).
- :mod:`~hexstones.session.takebacks`: a takeback asked of the opponent online.
- :mod:`~hexstones.session.pie`: the komi pie's one state machine (:class:`KomiPie`).
- :mod:`~hexstones.session.giving_up`: resignation by win chance and adjudication
  (:class:`Resign`, :class:`ResignWatch`, :class:`Adjudication`).
- :mod:`~hexstones.session.clock`: time controls and the game clock (:class:`TimeControl`,
  :class:`Clock`).
- :mod:`~hexstones.session.rating`: Glicko-2 ratings (:class:`Rating`, :func:`rated`).
- :mod:`~hexstones.session.conditional`: conditional moves, a correspondence player's
  answers left in advance (:class:`Conditional`).

Each rule of play about people and turns lives here once; each front door shows the
session's refusals (:class:`NotNow`, :class:`BadStep`) its own way.
"""

from hexstones.session.clock import (
    ByoYomi,
    Clock,
    Correspondence,
    Fischer,
    TimeControl,
    TimeLeft,
    Untimed,
)
from hexstones.session.conditional import Conditional
from hexstones.session.errors import BadStep, NotNow, NotYours, SessionError
from hexstones.session.giving_up import Adjudication, Resign, ResignWatch
from hexstones.session.pie import AI, PERSON, KomiPie, balanced
from hexstones.session.rating import Rating, rated
from hexstones.session.takebacks import TakebackAsk
from hexstones.session.turns import Session, Takeback, takeback

__all__ = ["AI", "PERSON", "Adjudication", "BadStep", "ByoYomi", "Clock", "Correspondence",
           "Conditional", "Fischer", "KomiPie", "NotNow", "NotYours", "Rating", "Resign", "ResignWatch", "Session",
           "SessionError", "Takeback", "TakebackAsk", "TimeControl", "TimeLeft", "Untimed",
           "balanced", "rated", "takeback"]
