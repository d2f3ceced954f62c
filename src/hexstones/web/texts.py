"""The words the app shows that other parts of hexstones write in English (the games'
facts, the AI's levels, a result), in the request's language (:mod:`hexstones.web.i18n`).

The game API's own texts stay as they are (records, logs and the CLI use them); the app
translates them where it shows them, from their parts, never by editing the sentences.
"""

from __future__ import annotations

import copy
import html
import re
from functools import cache
from typing import Any

from hexstones.web.errors import filled
from hexstones.web.i18n import N_, SOURCE, current, gettext, ngettext

COLORS = {"black": N_("Black"), "white": N_("White")}


def color_name(color: str) -> str:
    """``black`` -> "Black" (흑 in Korean)."""
    return gettext(COLORS[color])


def outcome_text(result: Any) -> str:
    """The result in words (``Outcome.text()``, which English keeps word for word)."""
    if current() == SOURCE:
        return result.text()
    winner, loser = color_name(result.winner), color_name(result.loser)
    if result.reason == "resignation":
        return gettext("%(winner)s wins: %(loser)s resigned") % {"winner": winner, "loser": loser}
    if result.reason == "time":
        return gettext("%(winner)s wins on time") % {"winner": winner}
    if result.score is not None:
        return gettext("%(winner)s wins by %(margin)s (%(black)s to %(white)s)") % {
            "winner": winner, "margin": f"{result.margin:g}",
            "black": f"{result.score['black']:g}", "white": f"{result.score['white']:g}"}
    return gettext("%(winner)s wins: %(loser)s has no legal action") % {"winner": winner, "loser": loser}


def spec_texts(spec: dict[str, Any]) -> list[str]:
    """The English texts of a game's spec that a page shows (the catalogue's entries)."""
    found = [spec["summary"], *spec["special_help"].values()]
    found += [spec["balance"][key] for key in ("label", "short", "note")]
    found += [part["label"] for part in spec["score_parts"]]
    found += [overlay["label"] for overlay in spec["overlays"]]
    return found


def translated_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """A copy of a game's spec with its texts in the request's language (the title, the
    designers' name of the game, stays)."""
    if current() == SOURCE:
        return spec
    spec = copy.deepcopy(spec)
    spec["summary"] = gettext(spec["summary"])
    spec["special_help"] = {k: gettext(v) for k, v in spec["special_help"].items()}
    for key in ("label", "short", "note"):
        spec["balance"][key] = gettext(spec["balance"][key])
    for part in spec["score_parts"]:
        part["label"] = gettext(part["label"])
    for overlay in spec["overlays"]:
        overlay["label"] = gettext(overlay["label"])
    return spec


def translated_legends(legends: dict[str, list[dict[str, str]]]) -> dict[str, list[dict[str, str]]]:
    if current() == SOURCE:
        return legends
    return {name: [dict(item, text=gettext(item["text"])) for item in items] for name, items in legends.items()}


# What an AI level plays (hexstones.ai.levels.describe), part by part.
LEVEL_WHAT = (N_("the trained network's search"), N_("the search with the game's knowledge"),
              N_("a plain search"))
LEVEL_CHANCE = (N_(", its moves drawn by chance"), N_(", now and then not its best move"))
LEVEL_STRONGEST = N_(": the strongest")
_LEVEL = re.compile(r"(?P<what>.+?)(?P<chance>, its moves drawn by chance|, now and then not its best move)?"
                    r", at most (?P<seconds>\S+) s a move(?P<top>: the strongest)?")


def level_text(text: str) -> str:
    """An AI level's few words (:func:`hexstones.ai.levels.describe`) in the request's
    language; a text of another shape is shown as it is."""
    match = _LEVEL.fullmatch(text)
    if current() == SOURCE or match is None:
        return text
    return gettext("%(what)s%(chance)s, at most %(seconds)s s a move%(strongest)s") % {
        "what": gettext(match["what"]), "chance": gettext(match["chance"]) if match["chance"] else "",
        "seconds": match["seconds"], "strongest": gettext(LEVEL_STRONGEST) if match["top"] else ""}


def level_texts() -> list[str]:
    """The catalogue's entries of :func:`level_text`."""
    return [*LEVEL_WHAT, *LEVEL_CHANCE, LEVEL_STRONGEST,
            "%(what)s%(chance)s, at most %(seconds)s s a move%(strongest)s"]


# -- refusals a player meets in play --------------------------------------------------------

# Besides each game's reasons for refusing a move (``Game.reasons``, written with {move},
# {mover} and {opponent}), the few other refusals of a move a player sees.
PLAY_REFUSALS = (
    N_("no pass before the button is taken: take the button or place a stone"),
    N_("{move} is occupied (by {color})"),
    N_("the button was already taken by {color}"),
    N_("this move was meant for the position at move {ply}, but the game is at move {now} now"),
)
_COLOR_WORDS = {"black": N_("black"), "white": N_("white")}


def refusal_templates() -> list[str]:
    """The refusals :func:`refusal_text` translates (the catalogue's entries)."""
    from hexstones import games

    found = [text for name in games.GAME_NAMES for text in getattr(games.game_class(name), "reasons", {}).values()
             if "!r" not in text]  # a value shown in quotes is no sentence to translate
    return list(dict.fromkeys([*found, *PLAY_REFUSALS]))


@cache
def _refusal_patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    patterns = []
    for template in refusal_templates():
        parts = re.split(r"\{(\w+)\}", template)
        regex = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>[^:;]+?)" for i, p in enumerate(parts))
        patterns.append((re.compile(regex), template))
    return tuple(patterns)


def error_text(template: str, values: dict[str, str], message: str, phrases: frozenset[str] = frozenset()) -> str:
    """A refusal (a :class:`~hexstones.web.errors.WebError`'s ``template`` filled with
    ``values``, ``message`` in English) in the request's language: its template's
    translation, with the values named in ``phrases``, the colours and a rules' refusal
    given as a reason translated too; else :func:`refusal_text` of the message (the
    session's refusals of a move come as sentences)."""
    if current() == SOURCE:
        return message
    translated = gettext(template)
    if translated == template:
        return refusal_text(message)
    # A colour becomes its word; any other value is a rules' refusal (translated) or stays.
    return filled(translated, {k: gettext(v) if k in phrases else refusal_text(_color_word(v))
                               for k, v in values.items()})


def refusal_text(message: str) -> str:
    """A refusal in the request's language where it is one a player meets in play (a move
    the rules refuse); any other is shown as the server wrote it."""
    if current() == SOURCE:
        return message
    for pattern, template in _refusal_patterns():
        match = pattern.fullmatch(message)
        if match is None:
            continue
        return filled(gettext(template), {k: _color_word(v) for k, v in match.groupdict().items()})
    return message


def _color_word(value: str) -> str:
    """``value`` translated if it is a colour ("black"), else as it is."""
    return gettext(_COLOR_WORDS[value]) if value in _COLOR_WORDS else value


# The board drawing's label for screen readers (hexstones.svg writes it in English).
_BOARD_LABEL = re.compile(r'aria-label="(?P<game>[^"]+) board, side (?P<size>\d+), after (?P<moves>\d+) moves"')


def board_label(svg: str) -> str:
    """A board's SVG with its label in the request's language (the drawing is shared by
    every language: only the label changes)."""
    if current() == SOURCE:
        return svg
    return _BOARD_LABEL.sub(lambda m: 'aria-label="{}"'.format(html.escape(
        gettext("%(game)s board, side %(size)s, after %(moves)s moves") % m.groupdict())), svg, count=1)


# -- a stored result line and a clock's control, written in English ---------------------------

_SUMMARY = (
    (re.compile(r"(?P<winner>Black|White) wins: (?P<loser>Black|White) resigned"),
     "%(winner)s wins: %(loser)s resigned"),
    (re.compile(r"(?P<winner>Black|White) wins on time"), "%(winner)s wins on time"),
    (re.compile(r"(?P<winner>Black|White) wins by (?P<margin>\S+) \((?P<black>\S+) to (?P<white>\S+)\)"),
     "%(winner)s wins by %(margin)s (%(black)s to %(white)s)"),
    (re.compile(r"(?P<winner>Black|White) wins: (?P<loser>Black|White) has no legal action"),
     "%(winner)s wins: %(loser)s has no legal action"),
)
ABORTED = N_("Aborted: a first move was not made in time")


def summary_text(text: str) -> str:
    """A stored game's result line (``Outcome.text()``, kept in English) in the request's
    language; a line of another shape is shown as it is."""
    if current() == SOURCE:
        return text
    if text == ABORTED:
        return gettext(ABORTED)
    for pattern, template in _SUMMARY:
        match = pattern.fullmatch(text)
        if match is not None:
            values = {k: gettext(v) if k in ("winner", "loser") else v for k, v in match.groupdict().items()}
            return gettext(template) % values
    return text


_UNITS = re.compile(r"(\d+) (days?|h|min|s)\b")
_UNIT_WORDS = {"h": N_("%(n)s h"), "min": N_("%(n)s min"), "s": N_("%(n)s s")}


def control_text(text: str) -> str:
    """A clock's control in words (``TimeControl.describe()``: "10 min + 5x30 s", "3 days a
    move", "no time limit") in the request's language; "5+3" has no words to translate."""
    if current() == SOURCE:
        return text
    if text == "no time limit":
        return gettext("no time limit")
    days = re.fullmatch(r"(\d+) days? a move", text)
    if days:
        n = int(days.group(1))
        return ngettext("%(n)s day a move", "%(n)s days a move", n) % {"n": n}

    def unit(match: re.Match[str]) -> str:
        n, name = int(match.group(1)), match.group(2)
        if name.startswith("day"):
            return ngettext("%(n)s day", "%(n)s days", n) % {"n": n}
        return gettext(_UNIT_WORDS[name]) % {"n": n}

    return _UNITS.sub(unit, text)
