"""What a request brings, checked: its query parameters and its JSON body.

:func:`query` and :func:`body` read them (a 400 saying what is wrong); :class:`Params` and
:class:`JSONBody` are the same as FastAPI dependencies, so that a route declares what it
accepts (``Depends(JSONBody("move", "ply"))``) and its code starts from checked data. A
route's dependencies run in the order it declares them: its parameters and body are checked
before its game is looked up, as a request is checked whole before anything is done.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import Depends
from fastapi.requests import Request

from hexstones.web.errors import WebError, only_known, shown, valid_text

MAX_JSON_DEPTH = 8  # nesting levels: no request of the API needs more than 2


def query(request: Request, known: tuple[str, ...] | None) -> dict[str, str]:
    """The query parameters, each given once (and, unless ``known`` is None, only ``known``
    ones); a 400 naming a repeated or unknown one."""
    params: dict[str, str] = {}
    for key, value in request.query_params.multi_items():
        if key in params:
            raise WebError(400, "the parameter {name} is given more than once: give it once", name=shown(key))
        params[key] = value
    if known is not None:
        only_known(params, known, "parameter")
    return params


async def body(request: Request, known: tuple[str, ...] | None) -> dict[str, Any]:
    """The request's JSON object (with only ``known`` fields unless None: the caller
    checks them); a 400 saying why if not. A request with a body takes no parameters."""
    query(request, ())
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw, parse_constant=_no_constant)
    except RecursionError:
        raise WebError(400, "the request body nests deeper than {most} levels", most=MAX_JSON_DEPTH) from None
    except ValueError:
        raise WebError(400, "the request body is not valid JSON") from None
    if _depth(data) > MAX_JSON_DEPTH:
        raise WebError(400, "the request body nests deeper than {most} levels", most=MAX_JSON_DEPTH)
    if not isinstance(data, dict):
        raise WebError(400, "the request body must be a JSON object, not {kind}", kind=type(data).__name__)
    valid_text(data)
    if known is not None:
        only_known(data, known, "field")
    return data


class Params:
    """Dependency: the query parameters (:func:`query`), only the ``known`` ones; with
    ``any_known``, any (the caller checks them)."""

    def __init__(self, *known: str, any_known: bool = False) -> None:
        self.known: tuple[str, ...] | None = None if any_known else known

    async def __call__(self, request: Request) -> dict[str, str]:
        return query(request, self.known)


class JSONBody:
    """Dependency: the JSON object of the body (:func:`body`), only the ``known`` fields;
    with ``any_known``, any (the caller checks them)."""

    def __init__(self, *known: str, any_known: bool = False) -> None:
        self.known: tuple[str, ...] | None = None if any_known else known

    async def __call__(self, request: Request) -> dict[str, Any]:
        return await body(request, self.known)


# A route that takes no parameters, or an empty body, says so in its ``dependencies``.
NO_PARAMS = Depends(Params())
EMPTY_BODY = Depends(JSONBody())


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _depth(data: Any) -> int:
    """How deeply ``data`` nests lists and objects (iteratively: no recursion limit)."""
    deepest, todo = 0, [(data, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, level)
            if level <= MAX_JSON_DEPTH:
                todo.extend((x, level + 1) for x in item)
    return deepest
