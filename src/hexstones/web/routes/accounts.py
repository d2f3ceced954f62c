"""Accounts and guests: ``/api/account`` (who the browser is), signing up, in and out,
changing the password, playing as a guest under a name."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from hexstones.web import seats
from hexstones.web.deps import PeopleDep, Person, TablesDep
from hexstones.web.inputs import EMPTY_BODY, NO_PARAMS, JSONBody

router = APIRouter()

NameAndPassword = Annotated[dict[str, Any], Depends(JSONBody("name", "password"))]


def address(request: Request) -> str:
    """The client's address (where a throttle of failed sign-ins counts)."""
    return request.client.host if request.client else "?"


@router.get("/api/account", dependencies=[NO_PARAMS])
def account(who: Person):
    return {"signed_in": bool(who and who.user), **(who.public() if who else {"kind": None, "name": None})}


@router.post("/api/account/signup", status_code=201)
def sign_up(data: NameAndPassword, request: Request, people: PeopleDep):
    who, token = people.accounts.sign_up(people.who(request), data.get("name"), data.get("password"))
    people.give(request, who, token)
    return who.public()


@router.post("/api/account/signin")
def sign_in(data: NameAndPassword, request: Request, people: PeopleDep):
    who, token = people.accounts.sign_in(people.who(request), data.get("name"), data.get("password"),
                                         address(request))
    people.give(request, who, token)
    return who.public()


@router.post("/api/account/signout", dependencies=[EMPTY_BODY])
def sign_out(request: Request, who: Person, people: PeopleDep):
    if who is not None:
        people.accounts.sign_out(who)
    request.state.cookie = ("", 0)
    return {"signed_in": False}


@router.post("/api/account/password")
def change_password(data: Annotated[dict[str, Any], Depends(JSONBody("old", "new"))], request: Request,
                    who: Person, people: PeopleDep):
    who, token = people.accounts.change_password(seats.require_someone(who), data.get("old"),
                                                 data.get("new"), address(request))
    people.give(request, who, token)
    return who.public()


@router.post("/api/account/guest")
def guest(data: Annotated[dict[str, Any], Depends(JSONBody("name"))], request: Request,
          people: PeopleDep, tables: TablesDep):
    """Play as a guest under a name; the seats this browser holds as a guest show it."""
    who, token = people.accounts.become_guest(people.who(request), data.get("name"))
    people.give(request, who, token)
    if who.user is None:
        for row in tables.list():
            if not seats.is_player(row["setup"], who):
                continue
            live = tables.get(row["id"])
            with live.lock:
                setup = seats.renamed(live.setup, who)
                if setup != live.setup:
                    tables.change_setup(live, setup)
    return who.public()
