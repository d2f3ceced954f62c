"""Seats: who may act for which colour of a game, and what each person is shown.

A game's setup (:class:`hexstones.web.game_setup.GameSetup`) names who holds it (stored
with the game, so a change of seat is stored with the game's row):

* ``owner``: the session (and account) that created it. In a game at one screen or
  against the AI the owner holds every colour the AI does not play; only the owner
  renames or deletes a game.
* ``seats`` (games against a friend online): one holder per colour (``black``,
  ``white``), or, while a komi pie decides the colours, per role (``proposer``,
  ``chooser``); a seat not taken yet is None. ``invite`` is the secret of
  the invitation link that takes an open seat.

A :class:`~hexstones.web.game_setup.Holder` matches the same account (any of its
sessions) or, for a guest or a local player, the same session. Everyone else is a
spectator: they may watch (whoever has a game's address may), and act in nothing.

A game stored before seats existed has no owner: the first person to act in it takes it
(at ``hexstones serve`` on one's own machine that is the local player).
"""

from __future__ import annotations

import dataclasses
import secrets
from typing import Any

from hexstones.games import BLACK, WHITE, other
from hexstones.web.accounts import Identity
from hexstones.web.errors import WebError
from hexstones.web.game_setup import GameSetup, Holder
from hexstones.web.i18n import gettext

COLORS = (BLACK, WHITE)


def holder(who: Identity) -> Holder:
    return Holder(who.session, who.user, who.name)


def holds(seat: Holder | None, who: Identity | None) -> bool:
    if seat is None or who is None:
        return False
    if seat.user:
        return seat.user == who.user
    return seat.session == who.session


# -- a new game -------------------------------------------------------------------------------


def claim(setup: GameSetup, who: Identity, host_color: str | None) -> GameSetup:
    """The setup of a new game created by ``who``; a game against a friend gets its seats
    (``host_color``: the creator's colour, unless a komi pie decides) and an invitation."""
    setup = setup.replace(owner=holder(who))
    if setup.opponent == "friend":
        seats: dict[str, Holder | None]
        if setup.pie is not None:
            seats = {"proposer": holder(who), "chooser": None}
        else:
            color = host_color or BLACK
            seats = {color: holder(who), other(color): None}
        setup = setup.replace(seats=seats, invite=secrets.token_urlsafe(24))
    return setup


# -- who holds what -----------------------------------------------------------------------------


def role_of(setup: GameSetup, color: str) -> str | None:
    """The seat that plays ``color`` in a friend game: the colour's own, or the komi pie
    role that chose or was left it; None while the pie decides (or in another game)."""
    seats = setup.seats or {}
    if color in seats:
        return color
    pie = setup.pie
    if not seats or pie is None or pie.pending:
        return None
    return "chooser" if color == pie.chooser_color else "proposer"


def seat_of(setup: GameSetup, color: str) -> Holder | None:
    """The holder of ``color`` in a friend game (None before the komi pie decides or
    while the seat is open)."""
    role = role_of(setup, color)
    return None if role is None else (setup.seats or {})[role]


def colors_of(setup: GameSetup, who: Identity | None) -> list[str]:
    """The colours ``who`` may play for (AI colours are refused by the game itself)."""
    if setup.friend_game:
        return [c for c in COLORS if holds(seat_of(setup, c), who)]
    return list(COLORS) if holds(setup.owner, who) else []


def pie_roles(setup: GameSetup, who: Identity | None) -> list[str]:
    """The steps of the komi pie ``who`` may take: "propose", "choose"."""
    if setup.seats is not None:
        seats = setup.seats
        return [step for step, role in (("propose", "proposer"), ("choose", "chooser"))
                if holds(seats.get(role), who)]
    return ["propose", "choose"] if holds(setup.owner, who) else []


def open_role(setup: GameSetup) -> str | None:
    """The seat an invitation takes (a colour or a pie role), None if every seat is taken."""
    for role, seat in (setup.seats or {}).items():
        if seat is None:
            return role
    return None


def renamed(setup: GameSetup, who: Identity) -> GameSetup:
    """The setup with ``who``'s new guest name on the seats they hold as a guest."""
    def fresh(holder_: Holder | None) -> Holder | None:
        if holder_ is not None and holds(holder_, who) and not holder_.user:
            return dataclasses.replace(holder_, name=who.name)
        return holder_

    seats = None if setup.seats is None else {role: fresh(seat) for role, seat in setup.seats.items()}
    return setup.replace(owner=fresh(setup.owner), seats=seats)


def is_player(setup: GameSetup, who: Identity | None) -> bool:
    if holds(setup.owner, who):
        return True
    return any(holds(seat, who) for seat in (setup.seats or {}).values())


# -- refusals -----------------------------------------------------------------------------------


def require_someone(who: Identity | None) -> Identity:
    if who is None:
        raise WebError(401, "you are watching: to play, sign in or open the game's invitation link "
                            "(this browser has no session here, or it expired)")
    return who


def require_color(setup: GameSetup, who: Identity | None, color: str, what: str) -> None:
    """A 401 without a session, a 403 unless ``who`` holds ``color``."""
    require_someone(who)
    mine = colors_of(setup, who)
    if color not in mine and mine:
        raise WebError(403, "only the player of {color} may {what}; you play {mine}", color=color, what=what,
                       mine=" and ".join(mine))
    if color not in mine:
        raise WebError(403, "only the player of {color} may {what}; you are watching", color=color, what=what)


def require_player(setup: GameSetup, who: Identity | None, what: str) -> list[str]:
    """``who``'s colours; a 401/403 unless they play in this game."""
    require_someone(who)
    mine = colors_of(setup, who)
    if not mine and not is_player(setup, who):
        raise WebError(403, "only the players may {what}: you are watching this game", what=what)
    return mine


def require_owner(setup: GameSetup, who: Identity | None, what: str) -> None:
    require_someone(who)
    if not holds(setup.owner, who):
        raise WebError(403, "only the player who started this game may {what}", what=what)


def check_rated_seats(setup: GameSetup) -> None:
    """A 403 unless every taken seat of a rated game is an account's, and no account holds
    two (a guest plays casual games only; nobody rates themselves)."""
    if not setup.rated:
        return
    taken = [seat for seat in (setup.seats or {}).values() if seat is not None]
    if any(not seat.user for seat in taken) or (setup.owner is not None and not setup.owner.user):
        raise WebError(403, "a rated game is between two accounts: sign in (or sign up) to play it, or "
                            "play it casual")
    users = [seat.user for seat in taken]
    if len(set(users)) < len(users):
        raise WebError(403, "a rated game needs two different accounts: nobody plays themselves")


# -- what a person is shown ---------------------------------------------------------------------


def public_seat(seat: Holder | None, who: Identity | None) -> dict[str, Any]:
    if seat is None:
        return {"open": True}
    return {"name": seat.name, "you": holds(seat, who)}


def public_seats(setup: GameSetup, who: Identity | None) -> dict[str, Any]:
    return {role: public_seat(seat, who) for role, seat in (setup.seats or {}).items()}


def personal(answer: dict[str, Any], setup: GameSetup, who: Identity | None) -> dict[str, Any]:
    """A game's state as ``who`` sees it: their colours, whose turn, the seats' names, the
    invitation (only to the player who started the game), a pending takeback."""
    mine = colors_of(setup, who)
    answer = dict(answer)
    to_move = answer.get("to_move")
    answer["you"] = mine
    answer["spectator"] = not is_player(setup, who)
    answer["me"] = who.public() if who is not None else None
    if answer.get("human_turn") and to_move not in mine:
        answer["human_turn"] = False
        answer["legal"] = []
    answer["pie_you"] = pie_roles(setup, who)
    if setup.friend_game:
        shown = answer["seats"] = public_seats(setup, who)
        for c in COLORS:  # a colour the komi pie gave to a role's seat
            role = role_of(setup, c)
            if c not in shown and role is not None:
                shown[c] = dict(shown[role])
        role = open_role(setup)
        answer["invite"] = (f"/invite/{answer['id']}/{setup.invite}"
                            if role is not None and holds(setup.owner, who) else None)
        answer["open_seat"] = role
        # One's own conditional moves, never the opponent's.
        answer["conditional"] = {c: lines.to_list() for c, lines in (setup.conditional or {}).items()
                                 if c in mine}
        takeback = setup.takeback
        answer["takeback"] = (takeback.to_dict()
                              if takeback and takeback.ply == answer.get("move_count") else None)
        if to_move and not answer.get("over") and role_of(setup, to_move) is not None:
            seat = seat_of(setup, to_move)
            if seat is not None:  # taken; else open
                tag = gettext("you") if holds(seat, who) else (seat.name or gettext("a guest"))
                answer["status"] = gettext("%(status)s (%(who)s)") % {"status": answer["status"], "who": tag}
            else:
                answer["status"] = gettext("%(status)s: waiting for a friend to join") % {"status": answer["status"]}
    return answer


def list_row(row: dict[str, Any], who: Identity | None, to_move: str | None = None) -> dict[str, Any]:
    """A stored game's line in the list, with nothing secret (no invitation, no sessions);
    ``your_turn`` in a game against a friend online (``to_move``: its side to move, None
    when it is over or the komi pie is pending)."""
    setup: GameSetup = row["setup"]
    shown = setup.shown()
    mine = colors_of(setup, who)
    your_turn = None
    if setup.friend_game:
        shown["seats"] = public_seats(setup, who)
        pie = setup.pie
        if pie is not None and pie.pending:
            your_turn = ("propose" if pie.stage == "propose" else "choose") in pie_roles(setup, who) \
                and open_role(setup) is None
        else:
            your_turn = to_move in mine and open_role(setup) is None
    return dict(row, setup=shown, you=mine, your_turn=your_turn)
