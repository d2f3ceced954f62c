"""What the pages ask besides a game: the games' facts, the AI's levels and readiness, and
the judgement of a position (the rules pages' boards)."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any

from fastapi import APIRouter, Depends

from hexstones import games
from hexstones.web.deps import TablesDep
from hexstones.web.inputs import NO_PARAMS, JSONBody, Params
from hexstones.web.position import position
from hexstones.web.setup import parse_setup
from hexstones.web.spec import game_specs, overlay_legends
from hexstones.web.texts import level_text, translated_legends, translated_spec

router = APIRouter()


@router.get("/api/spec", dependencies=[NO_PARAMS])
def spec():
    specs = game_specs()
    return {"games": {name: translated_spec(spec) for name, spec in specs.items()},
            "legends": {name: translated_legends(overlay_legends(name)) for name in specs}}


@router.get("/api/levels")
def levels(params: Annotated[dict[str, str], Depends(Params("game", "size"))]):
    new = parse_setup(params)
    size = new.options["size"]
    levels = [dict(level, text=level_text(level["text"])) for level in level_guide(new.game, size)]
    return {"game": new.game, "size": size, "levels": levels}


@router.get("/api/ai", dependencies=[NO_PARAMS])
def ai_state(tables: TablesDep):
    return {"warming": tables.ai_readiness()}


@router.post("/api/position")
def judge_position(data: Annotated[dict[str, Any], Depends(JSONBody(any_known=True))]):
    return position(data)  # it names an unknown field


@lru_cache(maxsize=64)
def level_guide(name: str, size: int) -> list[dict[str, Any]]:
    """What each AI level plays on this game and side (:func:`hexstones.ai.level_guide`)."""
    from hexstones import ai

    return ai.level_guide(games.new_game(name, size=size))
