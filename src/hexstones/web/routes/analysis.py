"""The analysis mode's routes: a game's analysis (its progress and a line per position),
one position's, starting, stopping and deepening it, and the hint (the work is
:class:`hexstones.web.analysis.Analyses`'s)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from hexstones.web import seats
from hexstones.web.analysis import open_to
from hexstones.web.deps import AnalysesDep, LiveGame, PeopleDep
from hexstones.web.errors import Phrase, WebError, shown
from hexstones.web.inputs import EMPTY_BODY, NO_PARAMS, JSONBody
from hexstones.web.live import Live

router = APIRouter()


def open_game(live: LiveGame) -> Live:
    """The game of the path, whose analysis may be shown now (:func:`open_to`)."""
    open_to(live)
    return live


OpenGame = Annotated[Live, Depends(open_game)]


async def action_body(data: Annotated[dict[str, Any], Depends(JSONBody("action", "iterations", "ply"))],
                      ) -> dict[str, Any]:
    """What to do with an analysis: start, stop or deeper (which needs the move number)."""
    action = data.get("action")
    if action not in ("start", "stop", "deeper"):
        raise WebError(400, "action must be 'start', 'stop' or 'deeper', not {value}", value=shown(action))
    if action == "deeper" and data.get("ply") is None:
        raise WebError(400, "deeper needs the move number: {\"action\": \"deeper\", \"ply\": 12}")
    return data


def hint_player(live: LiveGame, request: Request, people: PeopleDep) -> Live:
    """The game of a hint, once the person asking is shown to be one of its players."""
    person = people.who(request)
    people.take_unowned(live, person)  # a game stored before seats: the first to act
    seats.require_player(live.setup, person, Phrase("ask for a hint"))
    return live


@router.get("/api/games/{game_id}/analysis", dependencies=[NO_PARAMS])
def analysis_status(live: OpenGame, analyses: AnalysesDep):
    return analyses.status(live)


@router.get("/api/games/{game_id}/analysis/{ply}", dependencies=[NO_PARAMS])
def analysis_position(ply: str, live: OpenGame, analyses: AnalysesDep):
    return analyses.position(live, ply)


# What a refusal of each action says was refused.
ANALYSIS_ACTIONS = {"start": Phrase("start its analysis"), "stop": Phrase("stop its analysis"),
                    "deeper": Phrase("deepen its analysis")}


@router.post("/api/games/{game_id}/analysis")
def analysis_action(data: Annotated[dict[str, Any], Depends(action_body)], live: OpenGame, request: Request,
                    people: PeopleDep, analyses: AnalysesDep):
    action = data["action"]
    person = people.who(request)
    people.take_unowned(live, person)  # a game stored before seats: the first to act
    # Everyone may read a game's analysis; only its players start, stop or deepen it.
    seats.require_player(live.setup, person, ANALYSIS_ACTIONS[action])
    assert person is not None, "require_player refuses a request from nobody"
    if action == "stop":
        return analyses.stop(live)
    return analyses.start(live, data.get("iterations"), data.get("ply") if action == "deeper" else None,
                          person=person.user or person.session)


@router.post("/api/games/{game_id}/hint", dependencies=[EMPTY_BODY])
async def hint(live: Annotated[Live, Depends(hint_player)], analyses: AnalysesDep):
    return await analyses.hint(live)
