"""Accounts and guests: ``/api/account`` (who the browser is), signing up, in and out,
changing the password, playing as a guest under a name."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from hexstones.web import i18n, seats
from hexstones.web.accounts import Identity
from hexstones.web.deps import NoticesDep, PeopleDep, Person, TablesDep, VacationsDep
from hexstones.web.errors import WebError, shown
from hexstones.web.inputs import EMPTY_BODY, NO_PARAMS, JSONBody

router = APIRouter()

NameAndPassword = Annotated[dict[str, Any], Depends(JSONBody("name", "password"))]


def address(request: Request) -> str:
    """The client's address (where a throttle of failed sign-ins counts)."""
    return request.client.host if request.client else "?"


@router.get("/api/account", dependencies=[NO_PARAMS])
def account(who: Person, people: PeopleDep):
    """Who the browser is; ``bot``: the account is a bot's (hexstones.web.bot_accounts)."""
    return {"signed_in": bool(who and who.user), **(who.public() if who else {"kind": None, "name": None}),
            "bot": people.bot_accounts.is_bot(who.user if who else None),
            "language": people.accounts.language(who.user if who else None)}


def take_language(request: Request, people, who: Identity) -> dict[str, Any]:
    """An account signed in to: its language is the browser's from now on, or, if it has
    none yet, the one the person chose here becomes its. The answer's ``language``."""
    language = people.accounts.language(who.user)
    chosen = getattr(request.state, "language_chosen", None)
    if language is None and chosen is not None and who.user:
        people.accounts.set_language(who.user, chosen)
        language = chosen
    request.state.language = language
    return {"language": language}


@router.post("/api/account/signup", status_code=201)
def sign_up(data: Annotated[dict[str, Any], Depends(JSONBody("name", "password", "bot"))], request: Request,
            people: PeopleDep):
    """A new account, signed in; ``"bot": true`` makes it a bot's, for good (a program plays
    through it with tokens made on its account page)."""
    bot = data.get("bot", False)
    if not isinstance(bot, bool):
        raise WebError(400, "bot is true (an account for a program) or false, not {value}", value=repr(bot)[:40])
    who, token = people.accounts.sign_up(people.who(request), data.get("name"), data.get("password"))
    if bot and who.user:
        people.bot_accounts.set_bot(who.user)
    people.give(request, who, token)
    return {**who.public(), **take_language(request, people, who)}


@router.post("/api/account/signin")
def sign_in(data: NameAndPassword, request: Request, people: PeopleDep):
    who, token = people.accounts.sign_in(people.who(request), data.get("name"), data.get("password"),
                                         address(request))
    people.give(request, who, token)
    return {**who.public(), **take_language(request, people, who)}


@router.put("/api/account/language")
def choose_language(data: Annotated[dict[str, Any], Depends(JSONBody("language"))], request: Request,
                    who: Person, people: PeopleDep):
    """The language the account reads the app in, here and in every browser it signs in
    to, and its email notices."""
    if who is None or not who.user:
        raise WebError(403, "a language is kept with an account: sign up or sign in first (the "
                            "language links keep it in this browser)")
    language = i18n.known(data.get("language")) if isinstance(data.get("language"), str) else None
    if language is None:
        raise WebError(400, "language must be one of {languages}, not {value}",
                       languages=", ".join(i18n.languages()), value=shown(data.get("language")))
    people.accounts.set_language(who.user, language)
    request.state.language = language
    return {"language": language}


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


def account_holder(who: Identity | None) -> str:
    """The account of the person asking (a 401 without a session, a 403 for a guest)."""
    seats.require_someone(who)
    if who is None or not who.user:
        raise WebError(403, "vacations and email notices belong to an account: sign up or sign in first")
    return who.user


@router.get("/api/account/vacation", dependencies=[NO_PARAMS])
def vacation(who: Person, vacations: VacationsDep):
    """Whether the account is away, until when, and the days left this year."""
    return vacations.status(account_holder(who))


@router.post("/api/account/vacation")
def start_vacation(data: Annotated[dict[str, Any], Depends(JSONBody("days"))], who: Person,
                   vacations: VacationsDep):
    """Go away for ``days`` days: correspondence clocks stand still on this player's turns."""
    return vacations.start(account_holder(who), data.get("days"))


@router.delete("/api/account/vacation", dependencies=[EMPTY_BODY])
def end_vacation(who: Person, vacations: VacationsDep):
    """Come back before the days are over (each day begun counts)."""
    return vacations.end(account_holder(who))


@router.get("/api/account/mail", dependencies=[NO_PARAMS])
def mail(who: Person, notices: NoticesDep):
    """The account's email notices (``available``: whether this server sends email)."""
    return notices.preferences(account_holder(who))


@router.put("/api/account/mail")
def choose_mail(data: Annotated[dict[str, Any], Depends(JSONBody("address", "your_turn", "low_time"))],
                who: Person, notices: NoticesDep):
    """The address, and which notices: ``your_turn`` (a move of a correspondence game made it
    yours), ``low_time`` (less than a third of a move's days left)."""
    return notices.choose(account_holder(who), data)


@router.post("/api/unsubscribe/{token}", dependencies=[EMPTY_BODY])
def unsubscribe(token: str, notices: NoticesDep):
    """The link in every notice: no more notices to that account (no sign-in needed)."""
    if not notices.unsubscribe(token):
        raise WebError(404, "this unsubscribe link is unknown (its account may be gone)")
    return {"unsubscribed": True}
