"""Every refusal of the app is a catalogue entry: each ``WebError(status, template, **values)``
under ``src/hexstones/web`` passes its template as a string literal (Babel's extractor finds
no f-string, and a sentence built elsewhere never reaches the catalogue), and a refusal with
values comes back in Korean to a Korean request, in English to an English one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from hexstones.web import i18n

WEB = Path(__file__).resolve().parents[1] / "src" / "hexstones" / "web"

# Templates that are no literal, each passing on another refusal's text as it is (the
# session's refusals and the engine's reasons for refusing a move are translated from
# the message, by hexstones.web.texts.refusal_text), or a rate limit's template (marked
# with N_ where the limit is made): (file, the expression).
PASSED_ON = {
    ("errors.py", "exc.message"),  # the session's NotNow, BadStep, NotYours
    ("live.py", "exc.message"),  # a clock's NotNow
    ("live.py", "str(exc)"),  # the engine's IllegalMove, a stored game's DamagedGame
    ("limits.py", "self.refusal"),  # RateLimit's template, given with N_ by its maker
}


def _web_errors(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name == "WebError":
                yield node


def test_every_refusal_template_is_a_string_literal():
    offenders, seen = [], 0
    for path in sorted(WEB.rglob("*.py")):
        where = path.relative_to(WEB).as_posix()
        for call in _web_errors(ast.parse(path.read_text("utf-8"), str(path))):
            seen += 1
            if len(call.args) < 2:
                offenders.append(f"{where}:{call.lineno}: no template")
                continue
            template = call.args[1]
            if isinstance(template, ast.Constant) and isinstance(template.value, str):
                continue  # "a" "b" (implicit concatenation) is one Constant already
            if (where, ast.unparse(template)) in PASSED_ON:
                continue
            offenders.append(f"{where}:{call.lineno}: {ast.unparse(template)[:100]}")
    assert seen > 100  # the walk found the app's refusals
    assert not offenders, "WebError templates that are not string literals:\n" + "\n".join(offenders)


def _korean(template: str, **values: object) -> str:
    with i18n.speaking("ko"):
        translated = i18n.gettext(template)
    assert translated != template, f"no Korean translation of {template!r}"
    for name, value in values.items():
        translated = translated.replace("{" + name + "}", str(value))
    return translated


@pytest.mark.parametrize("how", ["param", "header"])
def test_a_short_password_is_refused_in_korean(client, how):
    from hexstones.web.accounts import MAX_PASSWORD, MIN_PASSWORD

    url, headers = "/api/account/signup", {}
    if how == "param":
        url += "?lang=ko"
    else:
        headers["Accept-Language"] = "ko"
    r = client.post(url, json={"name": "anna", "password": "short"}, headers=headers)
    assert r.status_code == 400
    wanted = _korean("a password is {low} to {high} characters", low=MIN_PASSWORD, high=MAX_PASSWORD)
    assert r.json()["detail"] == wanted
    assert f"{MIN_PASSWORD}" in wanted and "비밀번호" in wanted
    english = client.post("/api/account/signup?lang=en", json={"name": "anna", "password": "short"})
    assert english.json()["detail"] == f"a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters"


def test_a_level_out_of_range_is_refused_in_korean(client):
    body = {"game": "keil", "size": 4, "opponent": "ai", "level": 99}
    r = client.post("/api/games", json=body, headers={"Accept-Language": "ko"})
    assert r.status_code == 400
    assert r.json()["detail"] == _korean("level must be from {low} to {high}, not {level}", low=1, high=10, level=99)
    english = client.post("/api/games?lang=en", json=body, headers={"Accept-Language": "ko"})
    assert english.json()["detail"] == "level must be from 1 to 10, not 99"


def test_a_rate_limit_is_refused_in_korean():
    from hexstones.web.chat import RATE_LIMIT, RATE_WINDOW, Chat
    from hexstones.web.errors import WebError
    from hexstones.web.texts import error_text

    sending = Chat(None).sending  # no store: only its rate limit is used
    for _ in range(RATE_LIMIT):
        sending.take("a")
    with pytest.raises(WebError) as refused:
        sending.take("a")
    exc = refused.value
    assert exc.message == (f"too many chat messages: at most {RATE_LIMIT} every {RATE_WINDOW:g} s; "
                           f"try again in {RATE_WINDOW:g} s")
    with i18n.speaking("ko"):
        korean = error_text(exc.template, exc.values, exc.message)
    assert korean == _korean(exc.template, limit=RATE_LIMIT, window=f"{RATE_WINDOW:g}", seconds=f"{RATE_WINDOW:g}")


def test_what_was_refused_is_said_in_korean_too_but_a_persons_words_are_not(client):
    # The app's own words in a refusal (what was refused) are translated with it.
    r = client.post("/api/account/tokens", json={"label": "laptop"}, headers={"Accept-Language": "ko"})
    assert r.status_code == 401
    assert r.json()["detail"] == _korean("sign in to the account to {what}", what=_korean("make tokens"))
    assert "토큰 만들기" in r.json()["detail"]
    english = client.post("/api/account/tokens?lang=en", json={"label": "laptop"})
    assert english.json()["detail"] == "sign in to the account to make tokens"
    # A name a person typed that happens to be a catalogue's word stays as it was typed.
    from hexstones.web.errors import Phrase, WebError
    from hexstones.web.texts import error_text

    exc = WebError(403, "only {name}, the player challenged, may {what} this challenge", name="accept",
                   what=Phrase("accept"))
    assert exc.message == "only accept, the player challenged, may accept this challenge"
    with i18n.speaking("ko"):
        korean = error_text(exc.template, exc.values, exc.message, exc.phrases)
    assert korean == _korean(exc.template, name="accept", what=_korean("accept"))
    assert "accept" in korean and "받아들이기" in korean
