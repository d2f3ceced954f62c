"""The app's languages without a browser: every text of the translated pages, scripts and
server messages is in the Korean catalogue (found by Babel's extractors, as
``python -m hexstones.web.i18n_sources`` finds them), with the same placeholders; the
language follows ``?lang=``, the cookie and ``Accept-Language``; a broken catalogue is
named clearly; plurals follow each language's rule."""

from __future__ import annotations

import json
import re

import pytest

from hexstones.web import i18n
from hexstones.web.i18n_sources import SCRIPT_FILES, messages
from hexstones.web.pages import STATIC

KOREAN = re.compile(r"[\uac00-\ud7a3]")


@pytest.fixture(scope="module")
def korean():
    return i18n.catalogue("ko")


def _key(message):
    return message if isinstance(message, str) else message[0]


def test_every_text_of_the_translated_pages_has_a_korean_translation_with_the_same_placeholders(korean):
    found = messages()
    assert len(found) > 300  # the templates, the scripts, the rules' prose, the server's texts
    missing, wrong = [], []
    for message, places in found.items():
        entry = korean.get(message if isinstance(message, str) else message[0])
        strings = [] if entry is None else (list(entry.string) if isinstance(entry.string, (tuple, list))
                                            else [entry.string])
        if not strings or not all(strings):
            missing.append(f"{_key(message)!r} ({places[0]})")
            continue
        wanted = i18n.placeholders(message if isinstance(message, str) else message[1])
        wrong += [f"{_key(message)!r}: {s!r}" for s in strings if i18n.placeholders(s) != wanted]
    assert not missing, f"{len(missing)} texts have no Korean translation:\n" + "\n".join(missing)
    assert not wrong, "placeholders differ:\n" + "\n".join(wrong)


def test_babel_finds_every_translated_text_of_the_scripts():
    """Babel's JavaScript extractor skips a t() call it cannot parse (one inside an HTML
    attribute of a template literal): each t("...")/tn("...") of the scripts, found by a
    plain search, must be among what it found, or its text would never reach the catalogue."""
    found = {_key(message) for message in messages()}
    skipped = []
    for name in SCRIPT_FILES:
        code = re.sub(r"^\s*//.*$", "", (STATIC / name).read_text("utf-8"), flags=re.M)  # comments aside
        for text in re.findall(r'\btn?\(\s*"((?:[^"\\]|\\.)*)"', code):
            text = json.loads(f'"{text}"')
            if text not in found:
                skipped.append(f"{name}: {text!r}")
    assert not skipped, "texts Babel did not extract:\n" + "\n".join(skipped)


def test_the_catalogue_covers_every_source_and_each_translation_is_korean(korean):
    """What the catalogue covers, by source (the test's listing), and no translation left
    in English by mistake (game names, coordinates and symbols aside)."""
    found = messages()
    by_source: dict[str, int] = {}
    for places in found.values():
        source = places[0].split(":")[0]
        by_source[source] = by_source.get(source, 0) + 1
    print("catalogue coverage by source:", json.dumps(by_source, indent=1))
    for source in ("templates/index.html", "templates/game.html", "static/game.js", "static/analysis.js",
                   "static/rules.js", "static/keyboard.js", "static/rules/keil.json", "view.py",
                   "templates/choices.html", "templates/lobby.html", "templates/seek.html", "templates/watch.html",
                   "templates/account.html", "templates/player.html", "templates/leaderboard.html",
                   "templates/tournaments.html", "templates/tournament.html", "templates/games.html",
                   "templates/invite.html", "templates/start-link.html", "templates/unsubscribe.html",
                   "static/online.js", "static/chat.js", "static/conditional.js", "static/lobby.js", "static/seek.js",
                   "static/watch.js", "static/account.js", "static/player.js", "static/leaderboard.js",
                   "static/tournaments.js", "static/tournament.js", "static/archive.js", "static/invite.js",
                   "static/unsubscribe.js", "lobby.py", "seats.py", "analysis.py"):
        assert by_source.get(source, 0) > 0, source
    not_korean = [m.id for m in korean if m.id and m.string and not any(
        _reads_korean(s) for s in (m.string if isinstance(m.string, tuple) else (m.string,)))]
    assert not not_korean, not_korean


# Words a Korean text writes as they are: the games' and the app's names, AI, file formats.
LATIN_WORDS = {"AI", "SGF", "GTP", "hexstones", "Keil", "Dehil", "Droched"}


def _reads_korean(text: str) -> bool:
    words = re.findall(r"[A-Za-z]+", re.sub(r"\{\w+\}|%\(\w+\)s|<[^>]*>", " ", text))
    return bool(KOREAN.search(text)) or all(w in LATIN_WORDS for w in words)


def test_ko_param_sets_the_cookie_and_renders_korean(client):
    r = client.get("/?lang=ko")
    assert r.status_code == 200
    shown = re.sub(r"<script.*?</script>", "", r.text, flags=re.S)  # the scripts' catalogue aside
    assert '<html lang="ko">' in shown and "새 대국" in shown and "New game" not in shown
    assert "hexstones_lang=ko" in r.headers["set-cookie"]
    assert "Max-Age=" in r.headers["set-cookie"] and "SameSite=Lax" in r.headers["set-cookie"]
    # The cookie sticks: the next page, with no parameter, is Korean too.
    page = client.get("/rules")
    assert '<html lang="ko">' in page.text and "순위표" in page.text
    # ?lang=en switches back, and is no parameter a page refuses.
    r = client.get("/rules?lang=en")
    assert r.status_code == 200 and '<html lang="en">' in r.text and "Leaderboard" in r.text
    assert "hexstones_lang=en" in r.headers["set-cookie"]


def test_an_unknown_language_is_ignored_and_sets_no_cookie(client):
    r = client.get("/?lang=xx")
    assert r.status_code == 200 and '<html lang="en">' in r.text
    assert "set-cookie" not in r.headers or "hexstones_lang" not in r.headers["set-cookie"]


@pytest.mark.parametrize(("header", "lang"), [("ko-KR,ko;q=0.9", "ko"), ("fr", "en"), ("fr-FR,fr;q=0.9,ko;q=0.5", "ko"),
                                              ("en-US,en;q=0.9,ko;q=0.8", "en"), ("ko;q=0", "en"), ("", "en")])
def test_accept_language_chooses_the_language(client, header, lang):
    r = client.get("/", headers={"Accept-Language": header})
    assert f'<html lang="{lang}">' in r.text


def test_english_pages_embed_no_catalogue_and_keep_their_words(client):
    page = client.get("/").text
    assert 'id="i18n-catalogue"' not in page
    assert "New game" in page and "Start game" in page and "3 days a move" in page
    # The switcher names each language in itself.
    assert '<a href="?lang=ko" lang="ko" hreflang="ko" data-lang="ko">한국어</a>' in page


def test_a_korean_page_embeds_its_catalogue_for_the_scripts(client):
    page = client.get("/game/none", headers={"Accept-Language": "ko"}).text  # a 404 page still has it
    embedded = re.search(r'<script type="application/json" id="i18n-catalogue">(.*?)</script>', page, re.S)
    data = json.loads(embedded.group(1))
    assert data["lang"] == "ko" and set(data["plural"].values()) == {0}
    assert data["messages"]["Black to move"] == "흑 차례"
    assert data["messages"]["{n} day"] == ["{n}일"]


def test_statuses_results_and_refusals_follow_the_language(client):
    ko = {"Accept-Language": "ko"}
    game = client.post("/api/games", json={"game": "keil", "size": 4, "opponent": "human"}, headers=ko).json()
    assert game["status"] == "흑 차례"
    url = f"/api/games/{game['id']}"
    state = client.post(f"{url}/moves", json={"move": "a1", "ply": 0}, headers=ko).json()
    assert state["status"] == "백 차례"
    refused = client.post(f"{url}/moves", json={"move": "a1", "ply": 1}, headers=ko)
    assert refused.status_code == 400 and refused.json()["detail"] == "a1에는 이미 돌이 있습니다"
    refused = client.post(f"{url}/moves", json={"move": "pass", "ply": 1}, headers=ko)
    assert refused.json()["detail"].startswith("버튼을 가져가기 전에는 패스할 수 없습니다")
    # A rules' refusal given as the reason of another refusal is translated inside it.
    refused = client.post("/api/position", json={"game": "keil", "size": 4, "moves": ["a1", "a1"]}, headers=ko)
    assert refused.status_code == 400 and "a1에는 이미 돌이 있습니다" in refused.json()["detail"], refused.text
    # English, the default, is as it always was.
    assert client.post(f"{url}/moves", json={"move": "a1", "ply": 1}).json()["detail"] == "a1 is occupied"
    over = client.post(f"{url}/resign", json={"color": "white"}, headers=ko).json()
    assert over["status"] == "흑 불계승: 백 기권"
    assert client.get(url).json()["status"] == "Black wins: White resigned"
    # The stored summary stays English: the list of games translates what it shows.
    assert client.get("/api/games", headers=ko).json()["games"][0]["summary"] == "Black wins: White resigned"


def test_the_spec_and_the_level_guide_follow_the_language(client):
    ko = {"Accept-Language": "ko"}
    spec = client.get("/api/spec", headers=ko).json()
    keil = spec["games"]["keil"]
    assert keil["title"] == "Keil" and KOREAN.search(keil["summary"]) and keil["balance"]["short"] == "코미"
    assert all(KOREAN.search(item["text"]) for items in spec["legends"]["keil"].values() for item in items)
    levels = client.get("/api/levels?game=keil&size=5", headers=ko).json()["levels"]
    assert all(KOREAN.search(level["text"]) for level in levels), levels
    english = client.get("/api/levels?game=keil&size=5").json()["levels"]
    assert all("a move" in level["text"] for level in english)


def _broken_po(tmp_path, body: str):
    path = tmp_path / "messages.po"
    path.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n'
                    '"Plural-Forms: nplurals=1; plural=0;\\n"\n\n' + body, "utf-8")
    return path


def test_a_broken_entry_is_reported_with_its_file_and_line(tmp_path):
    path = _broken_po(tmp_path, 'msgid "Undo"\nmsgstr "무르기"\n\nmsgid "Resign\nmsgstr "기권"\n')
    with pytest.raises(i18n.CatalogueError, match=re.escape(f"{path}:9: a text without its closing quote")):
        i18n.read_catalogue(path, "ko")
    path = _broken_po(tmp_path, 'msgid "Undo"\nmsgstr "무르기"\n무르기 again\n')
    with pytest.raises(i18n.CatalogueError, match=re.escape(f"{path}:8: Unknown or misformatted keyword")):
        i18n.read_catalogue(path, "ko")
    path = _broken_po(tmp_path, 'msgid "Undo"\n\nmsgid "Resign"\nmsgstr "기권"\n')
    with pytest.raises(i18n.CatalogueError, match=re.escape(f"{path}:6: missing msgstr for msgid 'Undo'")):
        i18n.read_catalogue(path, "ko")
    path = _broken_po(tmp_path, 'msgid "{point}: black stone"\nmsgstr "{pont}: 흑돌"\n')
    with pytest.raises(i18n.CatalogueError, match=r"messages\.po:6: the translation of '\{point\}: black stone' "
                                                  r"has the placeholders \['pont'\], not \['point'\]"):
        i18n.read_catalogue(path, "ko")


def test_plural_forms_follow_each_language():
    with i18n.speaking("en"):
        assert i18n.ngettext("%(num)s day a move", "%(num)s days a move", 1) == "%(num)s day a move"
        assert i18n.ngettext("%(num)s day a move", "%(num)s days a move", 3) == "%(num)s days a move"
    with i18n.speaking("ko"):  # Korean has one form for every number
        assert i18n.ngettext("%(num)s day a move", "%(num)s days a move", 1) == "한 수에 %(num)s일"
        assert i18n.ngettext("%(num)s day a move", "%(num)s days a move", 7) == "한 수에 %(num)s일"
    korean = json.loads(i18n.page_catalogue("ko"))
    assert set(korean["plural"].values()) == {0}  # every CLDR category takes the one form
    assert json.loads(i18n.page_catalogue("en"))["plural"] == {"one": 0, "other": 1}


def test_the_languages_are_the_locale_folders():
    assert i18n.languages()[0] == "en" and "ko" in i18n.languages()
    assert dict(i18n.names())["ko"] == "한국어"
    assert i18n.choose("ko", None, None, None) == "ko"
    assert i18n.choose(None, "ko", "en", "en") == "ko"  # the cookie before the account's setting
    assert i18n.choose(None, None, "ko", "en") == "ko"  # the account's setting before the header
    assert i18n.choose("xx", "yy", None, "ko-KR") == "ko"


def test_an_account_keeps_its_language_for_every_browser_it_signs_in_to(db):
    from fastapi.testclient import TestClient

    from hexstones.web import create_app

    body = {"name": "Minji", "password": "a long password"}
    app = create_app(db)
    with TestClient(app) as here, TestClient(app) as elsewhere, TestClient(app) as third, \
            TestClient(app) as stranger:
        here.get("/?lang=ko")  # chosen before the account is made: the account takes it
        r = here.post("/api/account/signup", json=body)
        assert r.status_code == 201 and r.json()["language"] == "ko"
        assert here.get("/api/account").json()["language"] == "ko"
        # Another browser, with no choice of its own, reads the account's language once signed in.
        r = elsewhere.post("/api/account/signin", json=body, headers={"Accept-Language": "en"})
        assert r.json()["language"] == "ko" and "hexstones_lang=ko" in r.headers["set-cookie"]
        assert '<html lang="ko">' in elsewhere.get("/", headers={"Accept-Language": "en"}).text
        # A language link followed while signed in changes the account's.
        assert '<html lang="en">' in elsewhere.get("/rules?lang=en").text
        assert here.get("/api/account").json()["language"] == "en"
        r = third.post("/api/account/signin", json=body, headers={"Accept-Language": "ko"})
        assert r.json()["language"] == "en" and "hexstones_lang=en" in r.headers["set-cookie"]
        # The account page's setting; a language not offered is refused and changes nothing.
        r = third.put("/api/account/language", json={"language": "xx"})
        assert r.status_code == 400 and "en, ko" in r.json()["detail"]
        assert third.get("/api/account").json()["language"] == "en"
        r = third.put("/api/account/language", json={"language": "KO"})
        assert r.json() == {"language": "ko"} and "hexstones_lang=ko" in r.headers["set-cookie"]
        assert here.get("/api/account").json()["language"] == "ko"
        # Without an account there is none to keep it: the language links keep it in the browser.
        r = stranger.put("/api/account/language", json={"language": "ko"})
        assert r.status_code == 403 and "sign up or sign in" in r.json()["detail"]
        # Only a choice is kept: a browser's Accept-Language alone gives a new account none.
        r = stranger.post("/api/account/signup", json={"name": "Ola", "password": "a long password"},
                          headers={"Accept-Language": "ko"})
        assert r.json()["language"] is None and "hexstones_lang" not in r.headers.get("set-cookie", "")
        assert r.json()["name"] == "Ola"
