"""What a page is shown: a game's state as JSON, its status line, its line in the list.

A view request (``at``, ``overlays``) is checked whole by :func:`view_request` before the
request it belongs to changes anything; :func:`state` then only builds the answer.
Results are written by the game API's one formatter, ``Outcome.text()``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hexstones.games import Game, Outcome
from hexstones.svg import board_svg
from hexstones.web.answer import Bounded
from hexstones.web.errors import WebError, shown, whole
from hexstones.web.i18n import N_, gettext
from hexstones.web.spec import spec_of
from hexstones.web.texts import board_label, control_text, outcome_text, summary_text

if TYPE_CHECKING:
    from hexstones.web.live import Live

MAX_OVERLAYS_TEXT = 200  # characters: every overlay name of a game fits many times
MAX_DRAWN_CHARS = 8 * 1024 * 1024  # boards kept drawn: ~180 of Keil 7, far more than a move needs
MAX_FACTS = 2000  # positions whose legal moves and score are kept


@dataclass(frozen=True)
class ViewRequest:
    at: int | None  # the position after this many moves; None: the current one
    overlays: tuple[str, ...]


def view_request(name: str, at: Any = None, overlays: Any = None) -> ViewRequest:
    """Check ``at`` (a move number) and ``overlays`` (names, comma separated or a list)
    for a game of ``name``; a 400 saying what is wrong, before anything else is done."""
    if at in (None, ""):
        number = None
    else:
        number = whole(at, "at")
        if number < 0:
            raise WebError(400, "at must be a move number from 0, not {number}", number=number)
    if overlays in (None, ""):
        names: list[str] = []
    elif isinstance(overlays, str) and len(overlays) <= MAX_OVERLAYS_TEXT:
        names = [o for o in overlays.split(",") if o]
    elif isinstance(overlays, list) and all(isinstance(o, str) for o in overlays) \
            and len(overlays) <= MAX_OVERLAYS_TEXT:
        names = list(overlays)
    else:
        raise WebError(400, "overlays are names, comma separated, not {value}", value=shown(overlays))
    spec = spec_of(name)
    offered = [o["name"] for o in spec["overlays"]]
    unknown = [o for o in names if o not in offered]
    if unknown:
        raise WebError(400, "unknown overlay {name} for {game}: its overlays are {overlays}",
                       name=shown(unknown[0]), game=spec["title"], overlays=", ".join(offered))
    return ViewRequest(number, tuple(dict.fromkeys(names)))


# -- results: the game API's Outcome ----------------------------------------------------------


def outcome(live: Live) -> Outcome | None:
    """The game's ``Outcome`` (a resignation, or the rules' result), or None while it goes on."""
    return live.session.outcome()


def end_text(live: Live, result: Outcome | None) -> str | None:
    """How the game ended, in words: ``result``'s line, or why it ended without a winner
    (aborted); None while it goes on."""
    if result is not None:
        return result.text()
    ended = live.session.ended_early
    return None if ended is None else ended[0].upper() + ended[1:]


def summary(live: Live) -> str:
    """The line the list of stored games shows: the result, or whose turn it is."""
    return end_text(live, outcome(live)) or f"{live.game.to_move.capitalize()} to move"


# -- the state of a game ------------------------------------------------------------------


def ai_queue(live: Live) -> int | None:
    """The place in line of the AI's task for ``live`` (1: next), None unless it waits."""
    return (live.ai_place() or None) if live.ai_busy else None


def state(live: Live, view: ViewRequest = ViewRequest(None, ())) -> dict[str, Any]:
    """Everything the game page shows, for the position ``view.at`` (the caller holds
    ``live.lock``: the answer is made of copies, serialized after the lock is released)."""
    game = live.game
    total = len(game.moves)
    at = total if view.at is None else view.at
    if not 0 <= at <= total:
        raise WebError(400, "at must be a move number from 0 to {last}, not {at}", last=total, at=at)
    name = live.record.game
    spec = spec_of(name)
    result = outcome(live)
    over = live.over
    to_move = None if over else game.to_move
    pie = live.pie
    pie_pending = pie is not None and pie.pending
    human_turn = to_move is not None and not pie_pending and live.player(to_move) == "human"
    answer: dict[str, Any] = {
        "id": live.record.id,
        "game": name,
        "size": game.size,
        "options": copy.deepcopy(live.record.options),
        "opponent": live.setup.opponent,
        "level": live.setup.level,
        "players": copy.deepcopy(live.setup.players),
        "name": live.setup.name,
        "names": copy.deepcopy(live.setup.names),
        "pie": None if pie is None else pie.to_dict(),
        "moves": list(game.moves),
        "move_count": total,
        "version": live.version,
        "revision": live.record.revision,  # the stored game's: orders the states of every copy
        "at": at,
        "to_move": to_move,
        "over": over,
        "result": None if result is None else result.to_dict(),
        "human_turn": human_turn,
        "legal": legal_moves(game) if human_turn else [],
        "ai_thinking": live.ai_busy,
        # Waiting for the AI's processes behind other games: the place in line (1: next).
        "ai_queue": ai_queue(live),
        "ai_warming": live.ai_readiness() if live.against_ai else None,
        "waiting_for": None if over else ("ai" if live.ai_to_act() else "human"),
        "ai_error": live.ai_error,
        "overlays_available": [o["name"] for o in spec["overlays"]],
        "svg": board_label(drawn(game, at, view.overlays)),
        "special_moves": list(spec["special_moves"]),
        "clock": clock_view(live),
        "rated": live.setup.rated,
    }
    # The score and the prison of the position shown (reviewing move 40 shows move 40's).
    answer.update(_score_facts(game if at == total else _position_at(game, at)))
    if answer["result"] is not None and answer["result"].get("score") is not None:
        # The result's own parts: those of the final position, whichever position is shown.
        final = answer if at == total else _score_facts(game)
        answer["result"]["score_details"] = copy.deepcopy(final["score_details"])
    answer["status"] = status_text(live, answer, result)
    return answer


# What recent positions show: a move's answer and the opponent's fetch that follows it show
# the same position, and drawing its picture was most of a state's work (its legal moves
# and its score the rest).
_DRAWN: Bounded[str] = Bounded(MAX_DRAWN_CHARS, len)
_FACTS: Bounded[tuple[Any, ...]] = Bounded(MAX_FACTS, lambda facts: 1)


def _position_key(game: Game, at: int) -> tuple[Any, ...]:
    """What a position depends on: the rules, the options and the moves up to ``at``."""
    return game.name, repr(sorted(game.options.items())), tuple(game.moves[:at])


def drawn(game: Game, at: int, overlays: tuple[str, ...]) -> str:
    """``board_svg`` of ``game`` after ``at`` moves, drawn once while it is among the recent
    ones."""
    return _DRAWN.found((*_position_key(game, at), frozenset(overlays)),
                        lambda: board_svg(game, overlays=overlays, move_number=at))


def legal_moves(game: Game) -> list[str]:
    """``game.legal_moves()``, found once while the position is among the recent ones."""
    return list(_FACTS.found(("legal", *_position_key(game, len(game.moves))), lambda: tuple(game.legal_moves())))


def _position_at(game: Game, at: int) -> Game:
    """A copy of ``game`` taken back to the position after ``at`` moves (undo is cheap)."""
    earlier = game.copy()
    while len(earlier.moves) > at:
        earlier.undo()
    return earlier


def _score_facts(game: Game) -> dict[str, Any]:
    found = _FACTS.found(("score", *_position_key(game, len(game.moves))),
                         lambda: (game.score(), game.prison, game.score_details()))
    score, prison, details = copy.deepcopy(found)
    facts: dict[str, Any] = {"score": score, "score_details": None, "prison": prison}
    if details is not None:
        facts["score_details"] = {
            color: [{"part": part.key, "label": gettext(part.label), "value": part.sign * parts[part.key]}
                    for part in game.score_parts]
            for color, parts in details.items()
        }
    return facts


def clock_view(live: Live) -> dict[str, Any] | None:
    """The game's clock as the page shows it, read now (None: no clock). Each colour's
    ``seconds`` (under byo-yomi: of main time, or of the current period once ``in_periods``)
    and ``periods``; ``running``: the colour whose time runs (None: stopped, or not started
    while a seat is open); ``first_move``: its move is free but must come within
    ``abort_in`` seconds; ``flag_in``: seconds until its flag falls. The page counts down
    from these, the server deciding."""
    clock = live.clock
    if clock is None:
        return None
    now = live.now()
    control = clock.control
    sides = {}
    for color in ("black", "white"):
        seconds = clock.remaining(color, now) or 0.0
        sides[color] = {"seconds": round(seconds, 3), "periods": clock.periods_left(color, now),
                        "in_periods": clock.in_periods(color, now)}
    flag_at, abort_at = clock.flag_at(), clock.abort_at()
    return {
        "control": control.text,
        "describe": control_text(control.describe()),
        "period_seconds": getattr(control, "period_seconds", None),
        "running": clock.running,
        "paused": clock.paused,
        "started": clock.started,
        "first_move": clock.opening and clock.running is not None,
        "flag_in": None if flag_at is None else round(max(0.0, flag_at - now), 3),
        "abort_in": None if abort_at is None else round(max(0.0, abort_at - now), 3),
        **sides,
    }


def status_text(live: Live, state: dict[str, Any], result) -> str:
    """One line: whose turn it is, or the result (in the request's language)."""
    ended = end_text(live, result)
    if ended is not None:
        return summary_text(ended) if result is None else outcome_text(result)
    pie = live.pie
    if pie is not None and pie.pending:
        values = {"balance": gettext(spec_of(state["game"])["balance"]["short"]), "komi": pie.komi}
        ai_game = state["opponent"] == "ai"
        if pie.stage == "propose":
            if ai_game and pie.proposer == "ai":
                return gettext("Komi pie: the AI is proposing the %(balance)s") % values
            return (gettext("Komi pie: propose the %(balance)s") if ai_game
                    else gettext("Komi pie: first player, propose the %(balance)s")) % values
        if ai_game and pie.proposer == "human":
            return gettext("Komi pie: the AI is choosing a colour (%(balance)s %(komi)s)") % values
        return (gettext("Komi pie: choose your colour (%(balance)s %(komi)s)") if ai_game
                else gettext("Komi pie: second player, choose a colour (%(balance)s %(komi)s)")) % values
    color = state["to_move"]
    if state["opponent"] != "ai":
        line = gettext(TO_MOVE[color])
    else:
        line = gettext((TO_MOVE_YOU if state["human_turn"] else TO_MOVE_AI)[color])
    if live.ai_error:
        return f"{line}: {live.ai_error}"
    return line


# Whose turn, a line per colour: a sentence is translated whole, not pieced together.
TO_MOVE = {"black": N_("Black to move"), "white": N_("White to move")}
TO_MOVE_YOU = {"black": N_("Black to move (you)"), "white": N_("White to move (you)")}
TO_MOVE_AI = {"black": N_("Black to move (AI)"), "white": N_("White to move (AI)")}
