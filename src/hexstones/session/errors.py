"""What the session refuses: a step at the wrong time, or a step that is malformed.

Each front door shows them its own way (the web app answers 409 and 400, the terminal
prints them, the engine protocol answers ``?``); the message says what and why.
"""

from __future__ import annotations


class SessionError(Exception):
    """A step of a game the session refuses; the message says why."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class NotNow(SessionError):
    """A step that is well formed but not allowed now: the game is over, it is the other
    side's turn, the komi pie comes first, there is nothing to take back."""


class BadStep(SessionError, ValueError):
    """A step that is not allowed at all: a colour that is no colour, a balance the game
    does not have."""


class NotYours(SessionError):
    """A step the asker may not take: it belongs to another player (answering one's own
    takeback request, cancelling someone else's)."""
