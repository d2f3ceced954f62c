"""The app's languages: gettext catalogues (``locale/<lang>/LC_MESSAGES/messages.po``,
kept with Babel) for the pages, the server's texts and the pages' scripts alike.

English is the source: every ``msgid`` is the English text, so English needs no file and
a text missing from a catalogue shows in English. A language is a folder of ``locale/``:
adding one is adding its ``messages.po``, no code. Each request's language
(:func:`choose`: ``?lang=``, the cookie, ``Accept-Language``) is held in a context
variable by the :class:`Language` middleware, so the templates and the server's texts
(:func:`gettext`) read it without being handed it.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache, lru_cache
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

from babel import Locale
from babel.core import UnknownLocaleError, negotiate_locale
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import PoFileError, read_po
from babel.support import Translations

LOCALE = Path(__file__).parent / "locale"
SOURCE = "en"  # the language of the msgids
COOKIE = "hexstones_lang"
COOKIE_SECONDS = 365 * 24 * 3600
PARAM = "lang"  # ?lang=ko: the language of this request, kept in the cookie

_current: ContextVar[str] = ContextVar("hexstones_language", default=SOURCE)


class CatalogueError(ValueError):
    """A catalogue that cannot be read: the message names the file and the entry."""


@cache
def languages() -> tuple[str, ...]:
    """The languages offered: English and each folder of ``locale/`` with a catalogue."""
    found = sorted(p.parent.parent.name for p in LOCALE.glob("*/LC_MESSAGES/messages.po"))
    return (SOURCE, *[lang for lang in found if lang != SOURCE])


def po_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / "messages.po"


def read_catalogue(path: Path, lang: str) -> Catalog:
    """The catalogue of ``path``; :class:`CatalogueError` naming the file and line of a
    broken entry (Babel's reader otherwise skips it quietly) or placeholders that differ."""
    try:
        raw = path.read_bytes()
        # Babel reads a text with no closing quote as if the line's last letter closed it.
        for number, line in enumerate(raw.decode("utf-8").splitlines(), 1):
            line = line.strip()
            quoted = line.endswith('"') and line.count('"') >= 2
            if line.startswith(("msgid", "msgstr", "msgctxt", '"')) and not quoted:
                raise CatalogueError(f"{path}:{number}: a text without its closing quote: {line[:60]}")
        catalog = read_po(io.BytesIO(raw), locale=lang, abort_invalid=True)
    except PoFileError as exc:
        # "... on 7": Babel counts the lines from 0; an editor, from 1.
        text, on, where = str(exc).rpartition(" on ")
        if on and where.isdigit():
            raise CatalogueError(f"{path}:{int(where) + 1}: {text}") from None
        raise CatalogueError(f"{path}: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogueError(f"{path}: {exc}") from None
    for message in catalog:
        if not message.id or not message.string:
            continue
        ids = [str(i) for i in message.id] if isinstance(message.id, (tuple, list)) else [message.id]
        strings = [str(x) for x in message.string] if isinstance(message.string, (tuple, list)) else [message.string]
        wanted = placeholders(ids[-1])
        for text in strings:
            if text and placeholders(text) != wanted:
                at = message.lineno or "?"  # the line of its msgid
                raise CatalogueError(f"{path}:{at}: the translation of {ids[0]!r} has the "
                                     f"placeholders {sorted(placeholders(text))}, not {sorted(wanted)}")
    return catalog


_PLACEHOLDER = re.compile(r"%\((\w+)\)[sdifg]|\{(\w+)\}")


def placeholders(text: str) -> set[str]:
    """The named placeholders of a text: ``%(name)s`` (server) and ``{name}`` (pages)."""
    return {a or b for a, b in _PLACEHOLDER.findall(text)}


@cache
def catalogue(lang: str) -> Catalog | None:
    """The parsed catalogue of ``lang`` (None for English), read once per process."""
    if lang == SOURCE or lang not in languages():
        return None
    return read_catalogue(po_path(lang), lang)


@cache
def translations(lang: str) -> Translations | None:
    """gettext's translations of ``lang``, compiled in memory from its ``.po`` (no ``.mo``
    files to keep in step); None for English."""
    catalog = catalogue(lang)
    return None if catalog is None else Translations(_compiled(catalog))


def current() -> str:
    """The language of the request being answered (English outside one)."""
    return _current.get()


@contextmanager
def speaking(lang: str) -> Iterator[None]:
    """Texts made inside are in ``lang`` (outside a request: a page made ahead)."""
    token = _current.set(lang)
    try:
        yield
    finally:
        _current.reset(token)


def gettext(message: str) -> str:
    found = translations(current())
    return message if found is None else found.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    found = translations(current())
    if found is None:
        return singular if n == 1 else plural
    return found.ngettext(singular, plural, n)


def N_(message: str) -> str:  # noqa: N802  (gettext's name for "extract, translate later")
    """``message`` itself, marked for the catalogue: it is translated where it is shown."""
    return message


# -- which language ---------------------------------------------------------------------


def _accepted(header: str) -> list[str]:
    """The languages of an ``Accept-Language`` header, the preferred first."""
    ranked = []
    for i, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        tag = tag.strip()
        if not tag or tag == "*":
            continue
        q = 1.0
        match = re.search(r"q\s*=\s*([0-9.]+)", params)
        if match:
            try:
                q = float(match.group(1))
            except ValueError:
                continue
        if q > 0:
            ranked.append((-q, i, tag))
    return [tag for _, _, tag in sorted(ranked)]


def negotiate(header: str | None) -> str | None:
    """The offered language that ``Accept-Language`` asks for first (``ko-KR`` finds
    ``ko``), or None."""
    return _negotiated(header[:1000]) if header else None


@lru_cache(maxsize=256)  # a browser sends the same header with each request, a move's included
def _negotiated(header: str) -> str | None:
    offered = languages()
    for tag in _accepted(header):
        # Babel's negotiate_locale matches "ko-kr" to "ko" only as one of a list; one at
        # a time keeps the header's order over the order of the offered languages.
        found = negotiate_locale([tag.replace("_", "-")], offered, sep="-")
        if found is None and "-" in tag:
            found = negotiate_locale([tag.split("-")[0]], offered, sep="-")
        if found is not None:
            return found
    return None


def known(lang: str | None) -> str | None:
    """``lang`` if it is an offered language (``ko``, ``KO``), else None."""
    if not lang:
        return None
    lang = lang.strip().lower().replace("_", "-")
    return lang if lang in languages() else None


def choose(param: str | None, cookie: str | None, account: str | None, accept: str | None) -> str:
    """The language of a request: ``?lang=``, then the cookie, then the signed-in
    account's setting, then ``Accept-Language``, else English."""
    return known(param) or known(cookie) or known(account) or negotiate(accept) or SOURCE


# -- what the pages are given -----------------------------------------------------------


@cache
def names() -> tuple[tuple[str, str], ...]:
    """(language, its name in itself) for the switcher: English, 한국어."""
    found = []
    for lang in languages():
        try:
            name = Locale.parse(lang, sep="-").get_display_name(Locale.parse(lang, sep="-")) or lang
        except (ValueError, UnknownLocaleError):
            name = lang
        found.append((lang, name[:1].upper() + name[1:]))
    return tuple(found)


def _plural_categories(lang: str, catalog: Catalog) -> dict[str, int]:
    """Which of the catalogue's plural forms each CLDR category (``Intl.PluralRules``:
    one, other, ...) takes, found by asking both rules the same numbers: the page then
    needs no code of the ``Plural-Forms`` header."""
    locale = Locale.parse(lang, sep="-")
    rule = Translations(_compiled(catalog)).plural
    table: dict[str, int] = {}
    for n in range(0, 1001):
        table.setdefault(locale.plural_form(n), rule(n))
    return table


def _compiled(catalog: Catalog) -> io.BytesIO:
    out = io.BytesIO()
    write_mo(out, catalog)
    out.seek(0)
    return out


@cache
def page_catalogue(lang: str) -> str:
    """The catalogue the pages' scripts get (``static/i18n.js``), as JSON: ``messages``
    (msgid -> text, or a plural's msgid -> its forms) and ``plural`` (CLDR category -> form).
    Empty for English, whose texts are the msgids."""
    catalog = catalogue(lang)
    data: dict[str, Any] = {"lang": lang, "messages": {}, "plural": {"one": 0, "other": 1}}
    if catalog is not None:
        for message in catalog:
            if not message.id or not message.string or message.fuzzy:
                continue
            if isinstance(message.id, tuple):
                data["messages"][message.id[0]] = list(message.string)
            else:
                data["messages"][message.id] = message.string
        data["plural"] = _plural_categories(lang, catalog)
    # "</" cannot end the <script> it is embedded in.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")


# -- the middleware ---------------------------------------------------------------------


class Language:
    """ASGI middleware: each request's language (:func:`choose`) for its answer.
    ``?lang=`` is taken out of the query before the routes see it (a page's parameters
    stay its own) and kept in the cookie, on a page and the API alike; ``remember(scope,
    lang)`` (awaited) is told of it, to keep it with a signed-in person's account.

    A route sets ``request.state.language`` to a language the browser is to keep (the
    account's, at sign-in); ``request.state.language_chosen`` says what the person chose
    here, by ``?lang=`` or the cookie (None: only their browser's ``Accept-Language``)."""

    def __init__(self, app, remember: Callable[[dict, str], Awaitable[None]] | None = None):
        self.app = app
        self.remember = remember

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        query = scope.get("query_string", b"").decode("latin-1")
        state = scope.setdefault("state", {})  # shared with the copy below: the routes' request.state
        asked = None
        if f"{PARAM}=" in query:
            pairs = parse_qsl(query, keep_blank_values=True)
            kept = [(k, v) for k, v in pairs if k != PARAM]
            asked = next((v for k, v in reversed(pairs) if k == PARAM), None)
            scope = dict(scope, query_string=urlencode(kept).encode("latin-1"))
        cookie = None
        if "cookie" in headers:
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(headers["cookie"])
            except Exception:  # a malformed cookie header chooses nothing
                jar = SimpleCookie()
            if COOKIE in jar:
                cookie = jar[COOKIE].value
        # The account's language reaches the cookie at sign-in (and with each choice), so
        # the cookie speaks for it: no request reads the account to know its language.
        lang = choose(asked, cookie, None, headers.get("accept-language"))
        keep = known(asked)
        state["language_chosen"] = keep or known(cookie)
        if keep is not None and self.remember is not None:
            await self.remember(scope, keep)
        token = _current.set(lang)
        try:
            if scope["type"] != "http":
                return await self.app(scope, receive, send)

            async def with_cookie(message):
                if message["type"] == "http.response.start":
                    stick = known(state.get("language")) or keep
                    if stick is not None:
                        value = f"{COOKIE}={stick}; Path=/; Max-Age={COOKIE_SECONDS}; SameSite=Lax"
                        message = dict(message, headers=[*message.get("headers", []),
                                                         (b"set-cookie", value.encode("latin-1"))])
                await send(message)

            return await self.app(scope, receive, with_cookie)
        finally:
            _current.reset(token)
