"""A stored game's setup, typed: who plays, against whom, the komi pie, who holds the seats.

The rules' options (size, komi, handicap) are the game's own (``StoredGame.options``);
the setup is everything around them that the app keeps with the game:

* ``opponent``: "human" (one screen), "ai" or "friend" (online); ``level``: the AI's.
* ``players``: who plays each colour, "human" or "ai" (None while a komi pie decides).
* ``pie``: the komi pie's stage (:class:`hexstones.session.KomiPie`), None without one.
* ``owner``: who created the game (renames and deletes it; holds every colour the AI
  does not play, except in a friend game); None for games stored before seats existed.
* ``seats`` (friend games only): the holder of each colour, or of each pie role
  ("proposer", "chooser") while the pie decides the colours; None for a seat not taken
  yet. ``invite``: the secret of the invitation link that takes an open seat.
* ``public``: listed to everyone; ``name``: the game's name in lists; ``names``: the
  player names of an imported record; ``takeback``: a takeback asked online.
* ``time_control``: the game's time control (:class:`hexstones.session.TimeControl`),
  None for a game without a clock (the clock itself is the game's ``clock``, stored
  beside the setup: it changes with every move); ``rated``: whether the game counts for
  the players' ratings; ``flagged``: the colour whose time ran out, ``aborted``: the game
  was called off because a first move was not made in time; ``conditional``: each
  colour's conditional moves (:class:`hexstones.session.Conditional`), secret from the
  opponent.
* ``kept``: stored fields this version does not know (an older or newer app's), written
  back unchanged.

Stored as JSON (:meth:`GameSetup.to_dict`, :meth:`GameSetup.from_dict`); reading one
checks every field's shape, so a damaged row is reported, not walked into.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from hexstones.session import BadStep, Conditional, KomiPie, TakebackAsk, TimeControl

OPPONENTS = ("human", "ai", "friend")


class DamagedSetup(ValueError):
    """A stored setup that is not one this app writes (says which field and why)."""


@dataclass(frozen=True)
class Holder:
    """Who holds a seat: an account (``user``, any of its sessions) or, for a guest or a
    local player, one browser ``session``; ``name`` is shown to the others."""

    session: str | None = None
    user: str | None = None
    name: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"session": self.session, "user": self.user, "name": self.name}

    @classmethod
    def from_dict(cls, data: Any, what: str) -> Holder | None:
        """A stored holder; None for an open seat (``{"open": true}``)."""
        data = _mapping(data, what)
        if data.get("open"):
            return None
        values = [data.get(key) for key in ("session", "user", "name")]
        if not all(v is None or isinstance(v, str) for v in values):
            raise DamagedSetup(f"the setup's {what} holds something that is not text")
        return cls(*values)


OPEN_SEAT: dict[str, Any] = {"open": True}
FIELDS = ("opponent", "level", "players", "pie", "owner", "seats", "invite", "public", "name", "names",
          "takeback", "time_control", "rated", "flagged", "aborted",
          "conditional", "levels")


@dataclass(frozen=True)
class GameSetup:
    opponent: str = "human"
    level: int | None = None
    players: dict[str, str] | None = None
    pie: KomiPie | None = None
    owner: Holder | None = None
    seats: dict[str, Holder | None] | None = None
    invite: str | None = None
    public: bool = False
    name: str | None = None
    names: dict[str, str] | None = None
    takeback: TakebackAsk | None = None
    time_control: TimeControl | None = None
    rated: bool = False
    flagged: str | None = None
    aborted: bool = False
    conditional: dict[str, Conditional] | None = None
    levels: dict[str, int] | None = None  # the AI on both sides at different levels: each colour's
    kept: dict[str, Any] = dataclasses.field(default_factory=dict)

    def level_for(self, color: str) -> int | None:
        """The level the AI plays ``color`` at."""
        return (self.levels or {}).get(color, self.level)

    @property
    def against_ai(self) -> bool:
        """Whether the AI plays a colour: a game against the AI, or against one of the AI's
        accounts online (:mod:`hexstones.web.bots`)."""
        return self.opponent == "ai" or (self.players is not None and "ai" in self.players.values())

    @property
    def friend_game(self) -> bool:
        """A game against a friend online: its colours have seats."""
        return self.seats is not None

    def replace(self, **changes: Any) -> GameSetup:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The stored form: the four fields every game has, the others where set."""
        data: dict[str, Any] = {
            **self.kept, "opponent": self.opponent, "level": self.level,
            "players": None if self.players is None else dict(self.players),
            "pie": None if self.pie is None else self.pie.to_dict()}
        if self.owner is not None:
            data["owner"] = self.owner.to_dict()
        if self.seats is not None:
            data["seats"] = {role: OPEN_SEAT.copy() if seat is None else seat.to_dict()
                             for role, seat in self.seats.items()}
        if self.invite is not None:
            data["invite"] = self.invite
        if self.public:
            data["public"] = True
        if self.name is not None:
            data["name"] = self.name
        if self.names is not None:
            data["names"] = dict(self.names)
        if self.takeback is not None:
            data["takeback"] = self.takeback.to_dict()
        if self.time_control is not None:
            data["time_control"] = self.time_control.text
        if self.rated:
            data["rated"] = True
        if self.flagged is not None:
            data["flagged"] = self.flagged
        if self.aborted:
            data["aborted"] = True
        if self.conditional:
            data["conditional"] = {color: lines.to_list() for color, lines in self.conditional.items()}
        if self.levels:
            data["levels"] = dict(self.levels)
        return data

    def shown(self) -> dict[str, Any]:
        """What anyone may see of it (no invitation, no sessions, no accounts)."""
        data = self.to_dict()
        return {key: data[key] for key in ("opponent", "level", "players", "pie", "name", "names", "public",
                                           "time_control", "rated")
                if key in data}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameSetup:
        """A stored setup, checked; DamagedSetup (saying which field) if it is not one."""
        opponent = data.get("opponent", "human")
        if opponent not in OPPONENTS:
            raise DamagedSetup(f"the setup's opponent is {opponent!r}, not one of {', '.join(OPPONENTS)}")
        level = data.get("level")
        if level is not None and (not isinstance(level, int) or isinstance(level, bool)):
            raise DamagedSetup(f"the setup's level is {level!r}, not a whole number")
        seats = data.get("seats")
        if seats is not None:
            seats = {role: Holder.from_dict(seat, f"seat {role!r}")
                     for role, seat in _mapping(seats, "seats").items()}
        try:
            pie = KomiPie.from_dict(_mapping(data.get("pie"), "pie"))
        except (KeyError, TypeError, ValueError) as exc:
            raise DamagedSetup(f"the setup's komi pie is damaged: {exc}") from None
        takeback = data.get("takeback")
        if takeback is not None:
            takeback = _mapping(takeback, "takeback")
            if (takeback.get("by") not in ("black", "white") or not isinstance(takeback.get("ply"), int)
                    or isinstance(takeback.get("ply"), bool)):
                raise DamagedSetup(f"the setup's takeback is {takeback!r}, not a colour and a move number")
            takeback = TakebackAsk(takeback["by"], takeback["ply"])
        time_control = data.get("time_control")
        if time_control is not None:
            try:
                time_control = TimeControl.parse(time_control)
            except BadStep as exc:
                raise DamagedSetup(f"the setup's time control is damaged: {exc.message}") from None
        flagged = data.get("flagged")
        if flagged not in (None, "black", "white"):
            raise DamagedSetup(f"the setup's flagged is {flagged!r}, not a colour")
        conditional = _mapping(data.get("conditional"), "conditional moves")
        if conditional is not None:
            if not all(color in ("black", "white") and isinstance(lines, list)
                       and all(isinstance(line, list) and all(isinstance(m, str) for m in line) for line in lines)
                       for color, lines in conditional.items()):
                raise DamagedSetup("the setup's conditional moves are not lines of moves by colour")
            conditional = {color: Conditional(tuple(tuple(line) for line in lines))
                           for color, lines in conditional.items()}
        levels = _mapping(data.get("levels"), "levels")
        if levels is not None and not all(color in ("black", "white") and isinstance(n, int) and not isinstance(n, bool)
                                          for color, n in levels.items()):
            raise DamagedSetup("the setup's levels are not whole numbers by colour")
        return cls(
            opponent=opponent, level=level, players=_texts(data.get("players"), "players"), pie=pie,
            owner=None if data.get("owner") is None else Holder.from_dict(data["owner"], "owner"),
            seats=seats, invite=_text(data.get("invite"), "invite"), public=data.get("public") is True,
            name=_text(data.get("name"), "name"), names=_texts(data.get("names"), "names"),
            takeback=takeback, time_control=time_control, rated=data.get("rated") is True,
            flagged=flagged, aborted=data.get("aborted") is True, conditional=conditional, levels=levels,
            kept={key: value for key, value in data.items() if key not in FIELDS})


def _mapping(value: Any, what: str) -> Any:
    if value is not None and not isinstance(value, dict):
        raise DamagedSetup(f"the setup's {what} is {type(value).__name__}, not an object")
    return value


def _text(value: Any, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise DamagedSetup(f"the setup's {what} is {type(value).__name__}, not text")
    return value


def _texts(value: Any, what: str) -> dict[str, str] | None:
    value = _mapping(value, what)
    if value is not None and not all(isinstance(v, str) for v in value.values()):
        raise DamagedSetup(f"the setup's {what} holds something that is not text")
    return value
