"""Refusals: the one error type of the app, and how a refused value is shown back.

Every refusal is a :class:`WebError` whose message says what and why; the routes answer
it as ``{"detail": message}`` with its status, in the request's language: the message is
an English template (a catalogue entry) whose ``{name}`` places the values fill. A value
echoed in a message is cut short (a 1 MB string comes back as its first characters and its
length), and a number is only ever read from ASCII digits.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hexstones.games.spec import ECHO_LIMIT, shown  # noqa: F401  (re-exported)
from hexstones.session import BadStep, NotNow, NotYours

_WHOLE = re.compile(r"[+-]?[0-9]+")  # ASCII digits only: '١' (Arabic-Indic one) is no number


class Phrase(str):
    """Words of the app's own that fill a refusal's place (what was refused: "resign",
    "make tokens"): a catalogue entry, translated with the refusal, unlike a value a person
    gave (a name, a move), which is shown as it is."""

    __slots__ = ()


class WebError(Exception):
    """A request the app refuses: ``status`` is the HTTP status, the message says why.

    ``template`` is the message in English with ``{name}`` places that ``values`` fill (a
    value is any object, shown with ``str``; a :class:`Phrase` is translated too): the
    template is what a catalogue translates, ``message`` the English sentence (for logs
    and programs)."""

    def __init__(self, status: int, template: str, **values: Any):
        self.status = status
        self.template = template
        self.values = {name: str(value) for name, value in values.items()}
        self.phrases = frozenset(name for name, value in values.items() if isinstance(value, Phrase))
        self.message = filled(template, self.values)
        super().__init__(self.message)


_PLACE = re.compile(r"\{(\w+)\}")


def filled(template: str, values: dict[str, str]) -> str:
    """``template`` with its ``{name}`` places replaced by ``values`` (other braces, such
    as a JSON example's, stay as they are)."""
    if not values:
        return template
    return _PLACE.sub(lambda m: values.get(m.group(1), m.group(0)), template)


@contextmanager
def refusing() -> Iterator[None]:
    """The session's refusals as the app's: a step at the wrong time is a 409 (conflict
    with the game's state), a malformed one a 400, one that is another player's a 403."""
    try:
        yield
    except NotNow as exc:
        raise WebError(409, exc.message) from None
    except BadStep as exc:
        raise WebError(400, exc.message) from None
    except NotYours as exc:
        raise WebError(403, exc.message) from None


def is_unicode(data: Any) -> bool:
    """Whether every string in ``data`` (keys too, at any depth) is valid Unicode: JSON's
    ``\\ud800`` escapes decode to lone surrogates, which no answer can be encoded with."""
    todo = [data]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
    return True


def valid_text(data: Any) -> None:
    """A 400 unless every string in ``data`` is valid Unicode (:func:`is_unicode`)."""
    if not is_unicode(data):
        raise WebError(400, "the request holds text that is not valid Unicode (a lone surrogate "
                            "such as \\ud800): send UTF-8 text")


def whole(value: Any, what: str) -> int:
    """``value`` (an int or the ASCII digits of one) as an int, or a 400 naming ``what``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and len(value) <= 40:
        text = value.strip()
        if _WHOLE.fullmatch(text):
            return int(text)
    raise WebError(400, "{what} must be a whole number, not {value}", what=what, value=shown(value))


def choice(value: Any, what: str, allowed: tuple[str, ...], default: str) -> str:
    """``value`` as one of ``allowed`` (any case, spaces trimmed), or a 400 listing them."""
    if value is None:
        return default
    if isinstance(value, str):
        text = value.strip().lower()
        if text in allowed:
            return text
    names = ", ".join(f"'{a}'" for a in allowed)
    raise WebError(400, "{what} must be one of {names}, not {value}", what=what, names=names,
                   value=shown(value))


def only_known(fields: dict[str, Any], known: tuple[str, ...] | set[str], what: str) -> None:
    """A 400 naming every field of ``fields`` that is not ``known``."""
    unknown = sorted(set(fields) - set(known))
    if unknown:
        raise WebError(400, "unknown {what} {names}: the {what}s are {known}", what=what,
                       names=", ".join(shown(u) for u in unknown), known=", ".join(sorted(known)) or "none")
