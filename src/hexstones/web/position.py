"""Any position of any game, judged and drawn by the real engine: ``POST /api/position``.

The rules pages (``/rules/<game>``) keep no game: each board sends the moves played so far
and, in ``try``, the reader's click; the answer says whether the rules allow that move
(else the engine's own reason), what it removed, and shows the board the server's SVG
renderer draws. Nothing is stored; the request is checked whole before any move is played.
"""

from __future__ import annotations

from typing import Any

from hexstones import games
from hexstones.games import Game, IllegalMove
from hexstones.svg import board_svg
from hexstones.web.errors import WebError, only_known, shown
from hexstones.web.texts import board_label, outcome_text, refusal_text
from hexstones.web.view import view_request

FIELDS = ("game", "size", "options", "moves", "try", "overlays")
MAX_MOVES = 400  # moves per request: every example of the rules pages needs under 40
MAX_REASON = 300  # characters of an option's refusal shown back
MAX_MOVE_TEXT = 16  # characters: the longest move word is 'release', a point at most 'y25'


def position(data: dict[str, Any]) -> dict[str, Any]:
    """The answer to one request (see the module's text); a 400 :class:`WebError` with the
    reason for a request that is not one (an unknown game, a bad option, a move of
    ``moves`` the rules refuse). A refused ``try`` is no error: ``refused`` says why."""
    only_known(data, FIELDS, "field")
    game = _new_game(data)
    moves = _moves(data.get("moves", []), "moves")
    attempt = data.get("try")
    if attempt is not None:
        _check_move_text(attempt, "try")
    show = view_request(game.name, None, data.get("overlays"))

    before: dict[str, str] | None = None
    mover: str | None = None
    for number, move in enumerate(moves, 1):
        before, mover = game.stones(), game.to_move
        try:
            game.play(move)
        except IllegalMove as exc:
            raise WebError(400, "move {number} of moves ({move}) cannot be played: {reason}", number=number,
                           move=shown(move), reason=exc) from None
    refused = None
    if attempt is not None:
        stones, to_move = game.stones(), game.to_move
        try:
            game.play(attempt)
        except IllegalMove as exc:
            refused = {"move": attempt, "color": to_move, "reason": refusal_text(str(exc))}
        else:
            before, mover = stones, to_move
    return _answer(game, show.overlays, before, mover, refused)


def _new_game(data: dict[str, Any]) -> Game:
    name = data.get("game")
    if not isinstance(name, str):
        raise WebError(400, 'give the game: {"game": "{first}"} (one of {games}), not {value}',
                       first=games.GAME_NAMES[0], games=", ".join(games.GAME_NAMES), value=shown(name))
    try:
        cls = games.game_class(name)
    except ValueError:
        raise WebError(400, "unknown game {name}: the games are {games}", name=shown(name),
                       games=", ".join(games.GAME_NAMES)) from None
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise WebError(400, "options are an object of option names to values, not {value}", value=shown(options))
    if "size" in options:
        raise WebError(400, "give the size as the field 'size', not among the options")
    chosen = {**options, "size": data.get("size", cls.default_size)}
    try:
        return games.new_game(cls.name, **chosen)  # the one check of options (check_options)
    except (ValueError, TypeError, OverflowError) as exc:
        reason = str(exc)
        if len(reason) > MAX_REASON:  # a refused value is echoed in it: cut it short
            reason = reason[:MAX_REASON] + "..."
        raise WebError(400, "bad options for {game}: {reason}", game=cls.title, reason=reason) from None


def _check_move_text(move: Any, what: str) -> str:
    if not isinstance(move, str) or not move.strip() or len(move) > MAX_MOVE_TEXT:
        raise WebError(400, "{what}: a move is a point like 'e5' or a word like 'pass', not {value}", what=what,
                       value=shown(move))
    return move


def _moves(moves: Any, what: str) -> list[str]:
    if not isinstance(moves, list):
        raise WebError(400, '{what} is a list of moves like ["e5", "d4"], not {value}', what=what, value=shown(moves))
    if len(moves) > MAX_MOVES:
        raise WebError(400, "{what} holds {count} moves: at most {most}", what=what, count=len(moves), most=MAX_MOVES)
    return [_check_move_text(m, f"move {n} of {what}") for n, m in enumerate(moves, 1)]


def _answer(game: Game, overlays: tuple[str, ...], before: dict[str, str] | None,
            mover: str | None, refused: dict[str, Any] | None) -> dict[str, Any]:
    outcome = game.outcome()
    last = None
    if before is not None:
        now = game.stones()
        index = game.board.index
        last = {
            "move": game.moves[-1], "color": mover,
            # Stones the last move took off the board (captured, imprisoned), board order.
            "removed": [{"point": p, "color": before[p]}
                        for p in sorted(before, key=index.__getitem__) if p not in now],
        }
    return {
        "game": game.name,
        "size": game.size,
        "options": dict(game.options),
        "moves": list(game.moves),
        "to_move": None if outcome is not None else game.to_move,
        "legal": game.legal_moves(),
        "last": last,
        "refused": refused,
        "prison": game.prison,
        "score": game.score(),
        "outcome": None if outcome is None else dict(outcome.to_dict(), text=outcome_text(outcome)),
        "analysis": game.analysis(),
        "svg": board_label(board_svg(game, overlays=overlays)),
    }
