"""The app in Korean in a real browser (Playwright, Debian's chromium, against ``hexstones
serve``): the home page, a game after a few moves, the rules pages and the analysis with
``?lang=ko``. Each page's visible text is walked, and an English word left where the
catalogue has an entry fails the test (game names, coordinates, SGF, numbers aside): the
guard that no string a person sees is missing from the catalogue. The lobby, a seek's
page, the account, a player's profile, the leaderboard, the tournaments, the archive, the
watch list, an invitation and an online game between two accounts are walked the same
way. The language switcher sticks across pages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from serving import CHROMIUM, WAIT_MS

pytestmark = pytest.mark.slow

if not Path(CHROMIUM).exists():
    pytest.skip(f"no chromium at {CHROMIUM}", allow_module_level=True)

from playwright.sync_api import expect  # noqa: E402

from test_web_analysis import FINISHED  # noqa: E402

expect.set_options(timeout=WAIT_MS)

# Words a Korean page shows as they are: the games' and the app's names (the brand is two
# text nodes, "hex" and "stones"), the AI, file formats and protocols, the search engines'
# names, keys named on the keyboard.
ALLOWED = {"Keil", "Dehil", "Droched", "hex", "stones", "hexstones", "AI", "SGF", "GTP", "mcts", "net",
           "Home", "End", "Tab", "Enter", "Space", "Shift"}
# The visible text of the page, a node at a time (the language switcher, and any text marked
# as in another language, such as a language's name in itself, left out), a select's
# options, and what the title, aria-label and placeholder say.
VISIBLE_TEXT_JS = """() => {
  const texts = [];
  const page = document.documentElement.lang;
  const foreign = (el) => { const marked = el.closest("[lang]"); return marked && marked.lang !== page; };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || el.closest("script, style, [data-testid=languages]") || foreign(el)) continue;
    if (!el.checkVisibility({ checkVisibilityCSS: true })) continue;
    const text = node.textContent.trim();
    if (text) texts.push(text);
  }
  // A closed select's options are hidden, but a click shows them all.
  for (const select of document.querySelectorAll("select")) {
    if (!select.checkVisibility()) continue;
    for (const item of select.querySelectorAll("option, optgroup")) {
      if (!foreign(item)) texts.push(item.label || item.text);
    }
  }
  for (const el of document.querySelectorAll("[title], [aria-label], [placeholder]")) {
    if (el.closest("[data-testid=languages]") || !el.checkVisibility()) continue;
    for (const name of ["title", "aria-label", "placeholder"]) {
      if (el.getAttribute(name)) texts.push(el.getAttribute(name));
    }
  }
  return texts;
}"""


def english_left(page) -> list[str]:
    """The texts of the page that hold an English word (two letters or more, not allowed)."""
    left = []
    for text in page.evaluate(VISIBLE_TEXT_JS):
        # A link's address, the rules' file name, the AI's account names and the bots'
        # command are no words.
        words = re.findall(r"[A-Za-z]{2,}", re.sub(r"https?://\S+|docs/rules\.md|\blevel\d+-bot\b|hexstones bot\b",
                                                   "", text))
        if any(w not in ALLOWED for w in words):
            left.append(text)
    return left


def test_the_home_page_in_korean(module_server, person):
    page = person()
    page.goto(f"{module_server.url}/?lang=ko")
    expect(page.locator("html")).to_have_attribute("lang", "ko")
    expect(page.get_by_test_id("level-note")).to_contain_text("탐색")
    expect(page.locator("#games")).to_contain_text("아직 대국이 없습니다")
    expect(page.locator("#link")).not_to_be_empty()
    assert english_left(page) == []
    # Another game and opponent show other rows and words: still no English.
    for name, value in (("game", "droched"), ("opponent", "human"), ("balance", "pie")):
        page.locator(f"label:has(input[name={name}][value={value}])").click()
        expect(page.locator(f"input[name={name}][value={value}]")).to_be_checked()
    expect(page.locator(".chooser")).to_have_text("상대")
    assert english_left(page) == []


def test_a_game_in_korean_status_and_announcements(module_server, person):
    page = person()
    page.goto(f"{module_server.url}/?lang=ko")
    page.goto(f"{module_server.url}/new?game=keil&size=4&opponent=human")
    status, announce = page.get_by_test_id("status"), page.get_by_test_id("announce")
    expect(status).to_have_text("흑 차례")
    for ply, (color, mover) in enumerate([("백", "흑"), ("흑", "백"), ("백", "흑")]):
        point = page.locator("#board [data-legal]").first
        name = point.get_attribute("data-point")
        point.click()
        expect(status).to_have_text(f"{color} 차례")
        expect(announce).to_have_text(re.compile(rf"^{mover} {name}"))
        expect(page.get_by_test_id("where")).to_have_text(f"{ply + 1}수 (현재)")
    assert english_left(page) == []
    # The rules refuse a move on an occupied point: the refusal is Korean too.
    page.locator("#board [data-stone]").first.click()
    expect(page.get_by_test_id("message")).to_have_text(re.compile(r"^[a-z]\d+에는 이미 돌이 있습니다$"))
    # Back one move: reviewing words, the score table and the title in Korean.
    page.locator("#prev").click()
    expect(page.get_by_test_id("where")).to_have_text("3수 중 2수")
    assert english_left(page) == []


@pytest.mark.parametrize("name", ["", "keil", "dehil", "droched"])
def test_the_rules_pages_in_korean(module_server, person, name):
    page = person()
    page.goto(f"{module_server.url}/rules/{name}?lang=ko" if name else f"{module_server.url}/rules?lang=ko")
    if not name:
        expect(page.locator("h1")).to_have_text("규칙")
        assert english_left(page) == []
        return
    expect(page.locator("h1")).to_have_text(f"{name.capitalize()}: 규칙")
    examples = page.locator(".example")
    expect(examples.first.get_by_test_id("prompt")).to_contain_text("차례")
    expect(page.locator(".example:not([data-step])")).to_have_count(0)  # every board drawn
    assert english_left(page) == []
    # Follow the first example's path to its end: each caption and fact is Korean.
    first = examples.first
    for _ in range(6):
        hint = first.locator(".hint")
        if first.get_attribute("data-done") is not None or hint.count() == 0:
            break
        step = first.get_attribute("data-step")
        hint.first.click()
        expect(first).not_to_have_attribute("data-step", step)
        expect(first.get_by_test_id("facts")).not_to_be_empty()
    assert english_left(page) == []


def test_the_analysis_in_korean(module_server, person):
    page = person()
    page.goto(f"{module_server.url}/?lang=ko")
    moves = FINISHED["keil"]
    r = page.request.post(f"{module_server.url}/api/games", data={"game": "keil", "size": 3})
    gid = r.json()["id"]
    for m in moves:
        assert page.request.post(f"{module_server.url}/api/games/{gid}/moves", data={"move": m}).ok
    page.goto(f"{module_server.url}/game/{gid}")
    expect(page.get_by_test_id("winner")).to_have_text(re.compile("^[흑백] 승$"))
    page.get_by_test_id("analysis-budget").select_option("300")
    page.get_by_test_id("analyze").click()
    positions = len(moves) + 1
    expect(page.get_by_test_id("analysis-progress")).to_have_text(f"국면 {positions}개 중 {positions}개 분석함.")
    page.locator("[data-testid=winrate-graph] [data-ply='2']").click()
    expect(page.get_by_test_id("where")).to_have_text(f"{len(moves)}수 중 2수")
    expect(page.get_by_test_id("analysis-position")).to_contain_text("승률")
    expect(page.get_by_test_id("analysis-legend")).not_to_be_empty()
    assert english_left(page) == []


def test_the_switcher_sticks_across_pages(module_server, person):
    page = person(extra_http_headers={"Accept-Language": "en-US,en;q=0.9"})
    page.goto(f"{module_server.url}/rules")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.get_by_test_id("languages").get_by_text("한국어").click()
    expect(page.locator("html")).to_have_attribute("lang", "ko")
    expect(page.locator("h1")).to_have_text("규칙")
    expect(page.get_by_test_id("languages").locator("[aria-current]")).to_have_text("한국어")
    for path in ("/", "/rules/keil", "/lobby"):
        page.goto(module_server.url + path)
        expect(page.locator("html")).to_have_attribute("lang", "ko")
    page.get_by_test_id("languages").get_by_text("English").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.goto(module_server.url + "/")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("#start")).to_have_text("Start game")


def test_a_korean_browser_gets_korean_without_asking(module_server, person):
    page = person(locale="ko-KR")  # chromium sends Accept-Language: ko-KR
    page.goto(f"{module_server.url}/")
    expect(page.locator("html")).to_have_attribute("lang", "ko")
    expect(page.locator("#start")).to_have_text("대국 시작")


def test_a_game_against_the_ai_in_korean(module_server, person):
    page = person()
    page.goto(f"{module_server.url}/?lang=ko")
    page.goto(f"{module_server.url}/new?game=dehil&size=7&opponent=ai&level=1&color=black")
    status = page.get_by_test_id("status")
    expect(status).to_have_text("흑 차례 (내 차례)")
    expect(page.locator("#title")).to_contain_text("나(흑)와 AI의 대국, 레벨 1")
    page.locator("#board [data-legal]").first.click()
    expect(status).to_have_text("흑 차례 (내 차례)")  # the AI answered
    expect(page.get_by_test_id("where")).to_have_text("2수 (현재)")
    assert english_left(page) == []


def post(page, url: str, path: str, body: dict, status: int = 200) -> dict:
    """A request of the person of ``page`` (their browser's cookies)."""
    r = page.request.post(url + path, data=body)
    assert r.status == status, r.text()
    return r.json()


def korean_page(page, url: str) -> None:
    """Open ``url`` (the language is the cookie's: Korean)."""
    page.goto(url)
    expect(page.locator("html")).to_have_attribute("lang", "ko")


def test_the_online_pages_in_korean(module_server, person):
    url = module_server.url
    # Korean names: a name is typed by a person and shown as it is.
    a, b, visitor = person(), person(), person()
    for page, name in ((a, "김하나"), (b, "이두리")):
        page.goto(f"{url}/account?lang=ko")
        expect(page.get_by_test_id("who")).to_have_text("로그인하지 않음: 시작한 대국은 이 브라우저에 보관됩니다.")
        assert english_left(page) == []
        post(page, url, "/api/account/signup", {"name": name, "password": "correct horse battery"}, 201)
    visitor.goto(f"{url}/?lang=ko")

    # An online game between the two, rated, public and on a clock: the invitation, the
    # game page's seats and chat, and the watch list.
    a.goto(f"{url}/new?game=keil&size=4&opponent=friend&color=black&clock=fischer:300:5&rated=yes&public=yes")
    link = a.get_by_test_id("invite-link")
    expect(link).to_be_visible()
    assert english_left(a) == []
    b.goto(link.get_attribute("href"))
    expect(b.get_by_test_id("invite-text")).to_contain_text("김하나 님이 Keil 대국에 초대합니다.")
    assert english_left(b) == []
    b.get_by_test_id("join").click()
    b.wait_for_url(re.compile(r"/game/"))
    expect(a.locator("#seats")).to_contain_text("백: 이두리")
    a.click('[data-point="d4"]')
    expect(b.get_by_test_id("status")).to_have_text("백 차례 (나)")
    expect(a.get_by_test_id("status")).to_have_text("백 차례 (이두리)")
    for page in (a, b):
        assert english_left(page) == []
    korean_page(visitor, f"{url}/watch")
    expect(visitor.get_by_test_id("watch-game")).to_contain_text("김하나 (흑) 대 이두리 (백): 1수, 백 차례")
    assert english_left(visitor) == []
    b.click("#resign")
    b.click("#resign")
    expect(a.get_by_test_id("status")).to_have_text("흑 불계승: 백 기권")

    # The archive, the profile (a rating, a record, a graph, a recent game), the leaderboard.
    korean_page(visitor, f"{url}/games")
    expect(visitor.get_by_test_id("archive-row")).to_contain_text("흑 불계승: 백 기권")
    assert english_left(visitor) == []
    korean_page(visitor, f"{url}/players/김하나")
    expect(visitor.get_by_test_id("rating-keil")).to_contain_text("레이팅 대국 1판")
    expect(visitor.get_by_test_id("recent-game")).to_have_count(1)
    assert english_left(visitor) == []
    korean_page(a, f"{url}/players/이두리")  # signed in: the challenge button and its form
    a.get_by_test_id("challenge").click()
    expect(a.get_by_test_id("challenge-form")).to_be_visible()
    assert english_left(a) == []
    korean_page(visitor, f"{url}/leaderboard/keil")
    expect(visitor.locator("#heading")).to_have_text("Keil: 레이팅 상위 기사")
    expect(visitor.get_by_test_id("leader")).to_have_count(2)
    assert english_left(visitor) == []

    # A challenge: its waiting page, and the lobby of the player challenged (the server's
    # words for what it offers are Korean too).
    made = post(a, url, "/api/challenges", {"to": "이두리", "game": "dehil", "size": 5, "clock": "byoyomi:600:5:30"},
                201)
    korean_page(a, f"{url}/seek/{made['id']}")
    expect(a.get_by_test_id("seek-text")).to_contain_text("이두리 님에게 도전: Dehil, 판 크기 5")
    assert english_left(a) == []
    korean_page(b, f"{url}/lobby")
    expect(b.get_by_test_id("challenge")).to_contain_text("10분 + 5x30초")
    assert english_left(b) == []
    korean_page(a, f"{url}/account")
    expect(a.get_by_test_id("who")).to_have_text("김하나(으)로 로그인함.")
    expect(a.get_by_test_id("vacation-status")).not_to_be_empty()
    assert english_left(a) == []

    # A tournament: the list with its form, and its page, open, then running.
    korean_page(a, f"{url}/tournaments")
    assert english_left(a) == []
    made = post(a, url, "/api/tournaments", {"name": "일요 대회", "game": "keil", "size": 5, "clock": "fischer:300:3",
                                             "system": "swiss", "rounds": 1}, 201)
    korean_page(a, f"{url}{made['url']}")
    expect(a.get_by_test_id("t-about")).to_contain_text("Keil, 판 크기 5, 5+3, 스위스 방식, 1라운드")
    assert english_left(a) == []
    for page in (a, b):
        post(page, url, f"/api/tournaments/{made['id']}/join", {})
    post(a, url, f"/api/tournaments/{made['id']}/start", {})
    expect(a.get_by_test_id("t-status")).to_have_text("1라운드 중 1라운드 진행 중.")
    expect(a.get_by_test_id("board")).to_have_count(1)
    assert english_left(a) == []
    korean_page(visitor, f"{url}/tournaments")
    expect(visitor.locator('[data-testid="running"] a', has_text="일요 대회")).to_be_visible()
    assert english_left(visitor) == []


def test_the_account_page_keeps_the_language_with_the_account_for_another_browser(module_server, person):
    url = module_server.url
    here = person(locale="en-US")
    here.goto(f"{url}/account")
    here.get_by_test_id("signup-name").fill("박지우")
    here.get_by_test_id("signup-password").fill("correct horse battery")
    here.get_by_test_id("signup").click()
    expect(here.get_by_test_id("who")).to_have_text("Signed in as 박지우.")
    expect(here.get_by_test_id("account-language")).to_have_value("en")
    here.get_by_test_id("account-language").select_option("ko")
    here.get_by_test_id("language-save").click()
    expect(here.locator("html")).to_have_attribute("lang", "ko")  # the page comes again in Korean
    expect(here.get_by_test_id("who")).to_have_text("박지우(으)로 로그인함.")
    expect(here.get_by_test_id("account-language")).to_have_value("ko")
    assert english_left(here) == []
    # Another browser, English by its own header, signs in: the page turns Korean.
    there = person(locale="en-US")
    there.goto(f"{url}/account")
    expect(there.locator("html")).to_have_attribute("lang", "en")
    there.get_by_test_id("signin-name").fill("박지우")
    there.get_by_test_id("signin-password").fill("correct horse battery")
    there.get_by_test_id("signin").click()
    expect(there.locator("html")).to_have_attribute("lang", "ko")
    expect(there.get_by_test_id("who")).to_have_text("박지우(으)로 로그인함.")
    there.goto(f"{url}/lobby")
    expect(there.locator("html")).to_have_attribute("lang", "ko")
