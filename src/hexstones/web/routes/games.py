"""The games: list, create, read, play, undo, resign, the komi pie, name, delete, and a
game's board picture (SVG) and record (SGF); ``/api/import`` makes a game of an SGF record.

Who may act is asked of :class:`~hexstones.web.online.People` (the seats of
:mod:`hexstones.web.seats`); a game's state answers are personal (what the person asking
may do in it).
"""

from __future__ import annotations

import threading
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from hexstones.web import seats, view
from hexstones.web.accounts import Identity
from hexstones.web.answer import StateAnswer
from hexstones.web.deps import AnalysesDep, LiveGame, PeopleDep, Person, TablesDep, held
from hexstones.web.errors import Phrase, WebError, whole
from hexstones.web.game_setup import GameSetup
from hexstones.web.inputs import EMPTY_BODY, NO_PARAMS, JSONBody, Params
from hexstones.web.live import Live
from hexstones.web.online import People

router = APIRouter()

MAX_PLAYER_NAME = 100  # characters of a player's name kept from an imported record
# One record read at a time (a big one is seconds of CPU): the others queue, and the rest
# of the server keeps its share of the processor.
READING_RECORDS = threading.Lock()
STATE_PARAMS = ("at", "overlays", "since", "server")  # a state's query parameters
MOVE_FIELDS = ("move", "ply", "overlays")  # a move's request

def plain_json(answer: dict[str, Any]) -> Response:
    """The answer as FastAPI would send it, without its encoder's walk over every value
    first (a game's state is plain JSON data already: that walk cost more than the rest
    of a move's answer), its board encoded and compressed once per picture."""
    return StateAnswer(answer)


async def move_body(data: Annotated[dict[str, Any], Depends(JSONBody(*MOVE_FIELDS))]) -> dict[str, Any]:
    """A move's request: the move (a 400 without one), the move number it answers, the overlays."""
    if "move" not in data:
        raise WebError(400, "give the move: {\"move\": \"e5\"} (a point, or a word like 'pass')")
    return data


async def name_body(data: Annotated[dict[str, Any], Depends(JSONBody("name", "overlays"))]) -> dict[str, Any]:
    """A new name's request: the name (a 400 without one) and the overlays."""
    if "name" not in data:
        raise WebError(400, "give the name: {\"name\": \"Sunday game\"} (\"\" takes it away)")
    return data


@router.get("/api/games", dependencies=[NO_PARAMS])
def list_games(person: Person, tables: TablesDep):
    """The games of the person asking (``games``) and others' public games (``watch``)."""
    rows, watch = [], []
    for row in tables.list():
        if not seats.is_player(row["setup"], person):
            if row["setup"].public:
                watch.append(seats.list_row(row, person))
            continue
        to_move = None
        if row["setup"].friend_game and not row["finished"]:
            try:
                live = tables.get(row["id"])
                to_move = None if live.over or live.pie_pending else live.game.to_move
            except WebError:
                pass  # listed as it is stored; opening it says what is wrong
        rows.append(seats.list_row(row, person, to_move))
    return {"games": rows, "watch": watch}


@router.post("/api/games", status_code=201)
def create_game(data: Annotated[dict[str, Any], Depends(JSONBody(any_known=True))], request: Request,
                tables: TablesDep, people: PeopleDep):
    # parse_setup names an unknown choice
    live_answer = tables.create(data, claim=people.claim(request))
    people.seated(request, live_answer["id"])
    return people.personal(request, tables.get(live_answer["id"]), live_answer)


@router.post("/api/games/remove-empty", dependencies=[EMPTY_BODY])
def remove_empty(who: Person, tables: TablesDep):
    person = seats.require_someone(who)
    mine = [row["id"] for row in tables.list()
            if row["move_count"] == 0 and seats.holds(row["setup"].owner, person)]
    for game_id in mine:
        tables.delete(game_id)
    return {"deleted": mine}


@router.delete("/api/games/{game_id}", dependencies=[EMPTY_BODY])
def delete_game(game_id: str, live: LiveGame, request: Request, tables: TablesDep, people: PeopleDep):
    seats.require_owner(held(people, request, live), people.who(request), Phrase("delete it"))
    tables.delete(game_id)
    return {"deleted": game_id}


@router.post("/api/games/{game_id}/name")
def name_game(data: Annotated[dict[str, Any], Depends(name_body)], live: LiveGame, request: Request,
              tables: TablesDep, people: PeopleDep):
    show = view.view_request(live.record.game, None, data.get("overlays"))
    seats.require_owner(held(people, request, live), people.who(request), Phrase("name it"))
    return people.personal(request, live, tables.rename(live, data["name"], show))


@router.get("/api/games/{game_id}")
def get_game(game_id: str, params: Annotated[dict[str, str], Depends(Params(*STATE_PARAMS))],
             live: LiveGame, request: Request, people: PeopleDep):
    show = view.view_request(live.record.game, params.get("at"), params.get("overlays"))
    since_text = params.get("since")
    since = None if since_text in (None, "") else whole(since_text, "since")
    server = params.get("server")
    with live.lock:
        # Versions count within one copy of the game (``server``): another process's copy,
        # or this one's after a restart, may be at the same number with other moves.
        if since is not None and since == live.version and server in (None, people.server(live)):
            return {"id": game_id, "version": live.version, "unchanged": True,
                    "ai_thinking": live.ai_busy,
                    "ai_queue": view.ai_queue(live),
                    "ai_warming": live.ai_readiness() if live.against_ai else None}
        answer = people.personal(request, live, view.state(live, show))
    return plain_json(answer)


def acting(data: dict[str, Any], live: Live, request: Request,
           people: People) -> tuple[view.ViewRequest, GameSetup, Identity | None]:
    """What a request that acts in a game needs, checked in this order: the view it asks
    for (its overlays), the game's setup once the person may own it (:func:`held`), and
    the person."""
    show = view.view_request(live.record.game, None, data.get("overlays"))
    return show, held(people, request, live), people.who(request)


@router.post("/api/games/{game_id}/moves")
def play(data: Annotated[dict[str, Any], Depends(move_body)], live: LiveGame, request: Request,
         tables: TablesDep, people: PeopleDep):
    show, setup, who = acting(data, live, request, people)
    with live.lock:  # the seat is checked against the side to move of this very play
        if not live.over and not live.pie_pending:
            seats.require_color(setup, who, live.game.to_move, Phrase("play this move"))
        elif not seats.is_player(setup, who):
            seats.require_player(setup, who, Phrase("play"))
        answer = people.personal(request, live, tables.play(live, data["move"], data.get("ply"), show))
    return plain_json(answer)


@router.post("/api/games/{game_id}/undo")
def undo(data: Annotated[dict[str, Any], Depends(JSONBody("ply", "overlays"))], live: LiveGame,
         request: Request, tables: TablesDep, people: PeopleDep):
    show, setup, who = acting(data, live, request, people)
    seats.require_player(setup, who, Phrase("take a move back"))
    if setup.friend_game:
        raise WebError(409, "between two people a move is taken back when the opponent "
                            "agrees: ask for a takeback")
    seats.require_owner(setup, who, Phrase("take a move back"))
    return people.personal(request, live, tables.undo(live, show, ply=data.get("ply")))


@router.post("/api/games/{game_id}/resign")
def resign(data: Annotated[dict[str, Any], Depends(JSONBody("color", "overlays"))], live: LiveGame,
           request: Request, tables: TablesDep, people: PeopleDep):
    show, setup, person = acting(data, live, request, people)
    mine = seats.require_player(setup, person, Phrase("resign"))
    color = data.get("color")
    with live.lock:
        if setup.friend_game and color in (None, "") and mine:
            color = mine[0]
        if color in ("black", "white"):
            seats.require_color(setup, person, color, Phrase("resign"))
        return people.personal(request, live, tables.resign(live, color, show))


@router.post("/api/games/{game_id}/pie")
def pie(data: Annotated[dict[str, Any], Depends(JSONBody("komi", "color", "overlays"))], live: LiveGame,
        request: Request, tables: TablesDep, people: PeopleDep):
    show, setup, someone = acting(data, live, request, people)
    person = seats.require_someone(someone)
    with live.lock:
        komi_pie = live.pie
        step = "propose" if komi_pie is not None and komi_pie.stage == "propose" else "choose"
        if komi_pie is not None and komi_pie.pending and step not in seats.pie_roles(setup, person):
            if step == "propose":
                raise WebError(403, "only the player who proposes may propose in this komi pie")
            raise WebError(403, "only the player who chooses may choose in this komi pie")
        return people.personal(request, live, tables.pie(live, data.get("komi"), data.get("color"), show))


@router.get("/api/games/{game_id}/svg")
def svg(params: Annotated[dict[str, str], Depends(Params("at", "overlays"))], live: LiveGame):
    show = view.view_request(live.record.game, params.get("at"), params.get("overlays"))
    with live.lock:
        answer = view.state(live, show)
    return Response(answer["svg"], media_type="image/svg+xml")


@router.get("/api/games/{game_id}/sgf", dependencies=[NO_PARAMS])
def sgf(live: LiveGame, analyses: AnalysesDep):
    from hexstones.records import write_sgf

    with live.lock:
        players = live.setup.players or {}
        recorded = live.setup.names or {}  # from an imported record
        names = tuple(
            f"hexstones AI level {live.setup.level_for(c)}" if players.get(c) == "ai"
            else recorded.get(c) or "Human"
            for c in ("black", "white")
        )
        # A flag or an abort is no rule's end: the record says it (SGF's "W+T", "Void").
        outcome = live.session.outcome()
        result = None
        if outcome is not None and outcome.reason == "time":
            result = f"{outcome.winner[0].upper()}+T"
        elif live.setup.aborted:
            result = "Void"
        try:
            text = write_sgf(live.game, players=names, resigned=live.record.resigned,
                             analysis=analyses.for_record(live), result=result)
        except ValueError as exc:
            raise WebError(500, "cannot write this game as SGF: {reason}", reason=exc) from None
    filename = f"{live.record.game}-{live.record.id}.sgf"
    return Response(text, media_type="application/x-go-sgf",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


@router.post("/api/import", status_code=201)
def import_sgf(data: Annotated[dict[str, Any], Depends(JSONBody("sgf", "opponent", "color", "level"))],
               request: Request, tables: TablesDep, people: PeopleDep, analyses: AnalysesDep):
    from hexstones.records import SGFError, read_record

    text = data.get("sgf")
    if not isinstance(text, str) or not text.strip():
        raise WebError(400, "give the SGF text: {\"sgf\": \"(;GM[...]...)\"}")
    with READING_RECORDS:
        try:
            record = read_record(text)
        except (SGFError, ValueError, OverflowError, RecursionError) as exc:
            raise WebError(400, "cannot read this SGF: {reason}", reason=exc) from None
    loaded = record.game
    names = {c: record.info[c][:MAX_PLAYER_NAME] for c in ("black", "white") if record.info.get(c)}
    answer = tables.create_from_moves(loaded.name, dict(loaded.options), list(loaded.moves), data,
                                      names, claim=people.claim(request))
    analyses.put_record(answer["id"], record.analysis)
    people.seated(request, answer["id"])
    return answer
