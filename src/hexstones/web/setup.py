"""New-game choices: from a link's parameters or a JSON body to a checked setup."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from hexstones.games import BLACK, GAME_NAMES, WHITE, check_options, other
from hexstones.session import BadStep, KomiPie, TimeControl
from hexstones.web.errors import WebError, choice, only_known, shown, whole
from hexstones.web.game_setup import GameSetup
from hexstones.web.spec import balance_of, spec_of

LEVELS = range(1, 11)
DEFAULT_LEVEL = 3
CHOICES = ("game", "size", "opponent", "level", "color", "komi", "pie", "handicap", "public", "clock",
           "rated")


@dataclass(frozen=True)
class NewGame:
    """Checked new-game choices: the game, its rules' options, its setup, and (a game
    against a friend) the creator's colour, for the seats."""

    game: str
    options: dict[str, Any]
    setup: GameSetup
    host_color: str | None = None


def parse_setup(params: dict[str, Any]) -> NewGame:
    """Check the new-game choices.

    Choices (all optional but ``game``): ``size``, ``opponent`` ("human", "ai" or "friend"),
    ``level`` (1-10), ``color`` (the person's colour against the AI or a friend: "black",
    "white" or "random"), ``komi`` (the game's balance: Droched's is black stones in the prison),
    ``pie`` ("off", "you": the person proposes the balance, "ai": the AI proposes),
    ``handicap`` (the points of handicap stones, comma separated, where the game has
    them), ``public`` ("yes": listed to everyone; games are private by default),
    ``clock`` (the time control, :meth:`hexstones.session.TimeControl.parse`: "none", the
    default, "fischer:BASE:INC", "byoyomi:MAIN:PERIODS:SECONDS" or "days:N"; a game
    against the AI has none), ``rated`` ("yes": the game counts for the players'
    ratings; "no", the default). Every problem is a WebError 400 saying what and why.
    """
    only_known(params, CHOICES, "new-game choice")
    name = params.get("game")
    name = name.strip().lower() if isinstance(name, str) else name
    if name not in GAME_NAMES:
        raise WebError(400, "unknown game {name}: choose one of {games}", name=shown(params.get("game")),
                       games=", ".join(GAME_NAMES))
    spec = spec_of(name)
    size = whole(params.get("size", spec["default_size"]), "size")
    opponent = choice(params.get("opponent"),
                      "opponent ('human': same screen, 'ai', or 'friend': a friend online)",
                      ("human", "ai", "friend"), "human")
    level = whole(params.get("level", DEFAULT_LEVEL), "level")
    if level not in LEVELS:
        raise WebError(400, "level must be from {low} to {high}, not {level}", low=LEVELS[0], high=LEVELS[-1],
                       level=level)
    color = choice(params.get("color"), "color", (BLACK, WHITE, "random"), BLACK)
    if color == "random":
        color = random.choice((BLACK, WHITE))
    pie = params.get("pie")
    if isinstance(pie, str) and pie.strip().lower() in ("", "0", "no", "false"):
        pie = "off"
    pie = choice(pie, "pie ('off': a fixed komi, 'you': you propose, 'ai': the AI proposes)",
                 ("off", "you", "ai"), "off")
    if pie == "ai" and opponent != "ai":
        raise WebError(400, "pie=ai needs opponent=ai: between two people, use pie=you")

    options: dict[str, Any] = {"size": size}
    balance = balance_of(name)
    if params.get("komi") not in (None, ""):
        if pie != "off":
            raise WebError(400, "give either a fixed komi or the komi pie, not both")
        what = "komi" if balance["short"] == "komi" else f"komi ({balance['short']})"
        options[balance["option"]] = whole(params["komi"], what)
    handicap = params.get("handicap")
    if handicap not in (None, "", []):
        if "handicap" not in spec["options"]:
            raise WebError(400, "handicap stones are not an option of {game}", game=spec["title"])
        if isinstance(handicap, str):
            handicap = handicap.replace(" ", "").split(",")
        if not isinstance(handicap, list) or not all(isinstance(p, str) for p in handicap):
            raise WebError(400, "handicap must be points, comma separated, not {value}", value=shown(handicap))
        options["handicap"] = [p for p in handicap if p]
    try:
        options = check_options(name, options)  # the game API's one check; defaults filled in
    except (ValueError, TypeError, OverflowError) as exc:
        raise WebError(400, "bad option: {reason}", reason=exc) from None

    if pie == "off":
        players = {BLACK: "human", WHITE: "human"}
        if opponent == "ai":
            players = {color: "human", other(color): "ai"}
        pie_state = None
    else:
        players = None  # decided by the pie
        pie_state = KomiPie(proposer="human" if pie == "you" else "ai")
    control = _time_control(params.get("clock"))
    if control is not None and opponent == "ai":
        raise WebError(400, "a game against the AI has no clock: leave out clock (or give clock=none)")
    rated = choice(params.get("rated"), "rated", ("yes", "no", "1", "0", "true", "false"), "no") in ("yes", "1", "true")
    if rated and opponent != "friend":
        raise WebError(400, "only a game between two people online is rated: rated=yes needs "
                            "opponent=friend (or a seek in the lobby)")
    if rated and control is None:
        raise WebError(400, "a rated game is played on a clock: give clock= (fischer, byoyomi or days)")
    setup = GameSetup(opponent=opponent, level=level if opponent == "ai" else None, players=players,
                      pie=pie_state,
                      public=choice(params.get("public"), "public", ("yes", "no"), "no") == "yes",
                      time_control=control, rated=rated)
    return NewGame(name, options, setup, color if opponent == "friend" else None)


def _time_control(text: Any) -> TimeControl | None:
    """The ``clock`` choice read (None: no clock); a 400 saying what is wrong."""
    if text in (None, ""):
        return None
    try:
        control = TimeControl.parse(text.strip().lower() if isinstance(text, str) else text)
    except BadStep as exc:
        raise WebError(400, "bad clock: {reason}", reason=exc.message) from None
    return control if control.TIMED else None
