"""What the catalogues must translate: the texts of the pages, their scripts, the rules
pages' examples and the server's texts, found by Babel's extractors (Jinja2's for the
templates, Babel's ``javascript`` for ``t()``/``tn()`` in the scripts, its ``python`` for
``gettext``/``N_``) and in the data the pages show (the games' facts, the rules' JSON).

``python -m hexstones.web.i18n_sources ko`` brings ``locale/ko/LC_MESSAGES/messages.po``
up to date with them: new texts added untranslated, gone ones marked obsolete; a new
language's file is made the same way (then translated).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract
from babel.messages.pofile import write_po
from jinja2.ext import babel_extract

from hexstones import games
from hexstones.web.i18n import po_path, read_catalogue
from hexstones.web.pages import STATIC, TEMPLATES
from hexstones.web.spec import game_specs, overlay_legends
from hexstones.web.texts import level_texts, refusal_templates, spec_texts

WEB = Path(__file__).parent
# Every page's template and script (a file added here has its texts marked).
TEMPLATE_FILES = ("base.html", "index.html", "game.html", "rules.html", "error.html", "choices.html",
                  "lobby.html", "seek.html", "watch.html", "account.html", "player.html", "leaderboard.html",
                  "tournaments.html", "tournament.html", "games.html", "invite.html", "start-link.html",
                  "unsubscribe.html")
SCRIPT_FILES = ("i18n.js", "index.js", "game-page.js", "game.js", "analysis.js", "rules.js",
                "keyboard.js", "clock.js", "clock-face.js", "warming.js", "online.js", "chat.js",
                "conditional.js", "lobby.js", "seek.js", "watch.js", "account.js", "player.js",
                "leaderboard.js", "tournaments.js", "tournament.js", "archive.js", "invite.js",
                "unsubscribe.js")
JS_KEYWORDS = {"t": None, "tn": (1, 2)}
# In every module of the app: a refusal's template is WebError's second argument, and a
# Phrase is the app's own words that fill one.
PYTHON_KEYWORDS = {"gettext": None, "ngettext": (1, 2), "N_": None, "_": None, "WebError": (2,), "Phrase": None}
# The JSON fields of a rules page that are prose (moves and expectations are not).
RULES_PROSE = ("intro", "title", "text", "start", "caption")

Message = str | tuple[str, str]  # a text, or a plural's singular and plural


def _found(path: Path, method, keywords, options=None) -> Iterator[tuple[Message, str]]:
    with path.open("rb") as f:
        for lineno, message, _comments, _context in extract(method, f, keywords=keywords,
                                                            options=options or {}):
            where = f"{path.relative_to(WEB)}:{lineno}"
            yield (message if isinstance(message, str) else (message[0], message[1])), where


def _rules_prose(data, where: str) -> Iterator[tuple[Message, str]]:
    if isinstance(data, dict):
        for key, value in data.items():
            # An expected outcome's "text" is the engine's, checked, not shown.
            if key in RULES_PROSE and key != "text" and isinstance(value, str):
                yield value, where
            elif key in RULES_PROSE and isinstance(value, list) and all(isinstance(v, str) for v in value):
                yield from ((v, where) for v in value)
            else:
                yield from _rules_prose(value, where)
    elif isinstance(data, list):
        for item in data:
            yield from _rules_prose(item, where)


def messages() -> dict[Message, list[str]]:
    """Every text to translate -> where it comes from (``file:line``, or what shows it)."""
    found: dict[Message, list[str]] = {}

    def add(items: Iterator[tuple[Message, str]]) -> None:
        for message, where in items:
            if message:
                found.setdefault(message, []).append(where)

    jinja_options = {"trim_blocks": "true", "lstrip_blocks": "true"}
    for name in TEMPLATE_FILES:
        add(_found(TEMPLATES / name, babel_extract, {"_": None, "gettext": None, "ngettext": (1, 2)}, jinja_options))
    for name in SCRIPT_FILES:
        add(_found(STATIC / name, "javascript", JS_KEYWORDS, {"parse_template_string": True}))
    for path in sorted(WEB.rglob("*.py")):
        add(_found(path, "python", PYTHON_KEYWORDS))
    for name in games.GAME_NAMES:
        path = STATIC / "rules" / f"{name}.json"
        add(_rules_prose(json.loads(path.read_text("utf-8")), f"static/rules/{name}.json"))
    for name, spec in game_specs().items():
        add((text, f"spec of {name}") for text in spec_texts(spec))
        add((item["text"], f"legend of {name}") for items in overlay_legends(name).values() for item in items)
    add((text, "AI levels") for text in level_texts())
    add((text, "refusals of a move") for text in refusal_templates())
    return found


def template() -> Catalog:
    """The catalogue of every text, untranslated (what a ``.pot`` file holds)."""
    catalog = Catalog(project="hexstones", charset="utf-8")
    for message, places in messages().items():
        locations = [(p.rsplit(":", 1)[0], int(p.rsplit(":", 1)[1])) if p.rsplit(":", 1)[-1].isdigit()
                     else (p, 0) for p in places]
        flags = ["python-format"] if "%(" in (message if isinstance(message, str) else message[0]) else []
        catalog.add(message, locations=locations, flags=flags)
    return catalog


def update(lang: str) -> Path:
    """Bring ``lang``'s catalogue up to date with :func:`template` (made if missing)."""
    path = po_path(lang)
    if path.exists():
        catalog = read_catalogue(path, lang)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        catalog = Catalog(locale=lang, project="hexstones", charset="utf-8")
    catalog.update(template(), no_fuzzy_matching=True)
    with path.open("wb") as f:
        write_po(f, catalog, width=0, omit_header=False, ignore_obsolete=False)
    return path


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m hexstones.web.i18n_sources LANG...  (e.g. ko)", file=sys.stderr)
        return 2
    for lang in argv:
        print(update(lang))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

