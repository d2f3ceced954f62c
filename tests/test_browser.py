"""The browser app end to end: the real server (a uvicorn subprocess on a free port with a
temporary SQLite file) driven by Playwright through Debian's chromium, headless.

Nothing here waits for a time: every wait is for a condition on the page, with a
generous bound.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import hexstones
from serving import CHROMIUM

WAIT_MS = 300_000  # bound for conditions (an AI move, a server start): generous on purpose
# A page's ES modules, reached from a test: import() answers the module the page runs.
GAME_JS = "import('/static/game.js')"
START_JS = "import('/static/index.js')"

pytestmark = pytest.mark.slow  # a browser and a server: about a minute in all

# The pages' Content-Security-Policy allows no eval: conditions to wait for are functions
# ("() => ..."), which Playwright runs as such, never expressions it would eval.

if not Path(CHROMIUM).exists():  # .ci/run installs it; without a browser there is nothing to drive
    pytest.skip(f"no chromium at {CHROMIUM}", allow_module_level=True)

from playwright.sync_api import expect  # noqa: E402

expect.set_options(timeout=WAIT_MS)


@pytest.fixture
def server(module_server):
    """The module's server, met by each test as a new person: its own browser context and,
    for :func:`api`, no session cookie yet (a server start is many seconds of CPU)."""
    module_server.cookie = None
    yield module_server
    module_server.cookie = None


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"


def open_new(page, server, query: str) -> str:
    page.goto(f"{server.url}/new?{query}")
    assert re.fullmatch(rf"{server.url}/game/[0-9a-f]+", page.url), page.url
    expect(page.get_by_test_id("status")).not_to_have_text("Loading…")
    return page.url.rsplit("/", 1)[1]


def move_count(page) -> int:
    return page.locator("#movelist button").count() - 1  # the first entry is "start"


def wait_for_person_or_end(page) -> str:
    status = page.get_by_test_id("status")
    expect(status).to_have_text(re.compile(r"to move \(you\)|wins"))
    return status.inner_text()


def stones(page) -> dict[str, str]:
    return page.eval_on_selector_all(
        "[data-point][data-stone]", "els => Object.fromEntries(els.map(e => [e.dataset.point, e.dataset.stone]))")


def shown_moves(page) -> list[str]:
    return page.eval_on_selector_all(
        "#movelist button[data-at]", "els => els.slice(1).map(e => e.textContent.split('. ')[1])")


def squeezing_move(game: str, moves: list[str], **options) -> str:
    """The legal action that leaves the opponent the fewest legal actions (a player who
    wants the game over: random Droched games on side 3 last hundreds of moves).
    ``options``: the game's (side 3 unless they say otherwise)."""
    engine = hexstones.new_game(game, **{"size": 3, **options})
    for m in moves:
        engine.play(m)

    def replies(move: str) -> int:
        trial = engine.copy()
        trial.play(move)
        return len(trial.legal_moves())

    return min(engine.legal_moves(), key=replies)


def play_legal(page, game: str) -> None:
    """Click one legal action: Keil and Dehil take the button / pass; Droched plays the
    action that leaves the AI the fewest answers, by a click on the board or on release."""
    before = move_count(page)
    if game == "droched":
        move = squeezing_move(game, shown_moves(page))
        page.click("#release" if move == "release" else f'[data-point="{move}"]')
    else:
        for button in ("#button", "#pass"):
            if page.locator(button).is_enabled():
                page.click(button)
                break
        else:
            page.locator("[data-point][data-legal]").first.click()
    page.wait_for_function(f"() => document.querySelectorAll('#movelist button').length - 1 > {before}")


@pytest.mark.parametrize("game", ["keil", "dehil", "droched"])
def test_a_whole_game_against_the_ai(page, server, game):
    gid = open_new(page, server, f"game={game}&size=3&opponent=ai&level=1&color=black")
    for _ in range(400):
        if "wins" in wait_for_person_or_end(page):
            break
        play_legal(page, game)
    else:
        pytest.fail("the game did not end")
    # The result shown is the rules' result for the moves shown.
    shown = shown_moves(page)
    with urllib.request.urlopen(f"{server.url}/api/games/{gid}") as res:
        moves = json.load(res)["moves"]
    assert shown == moves
    engine = hexstones.new_game(game, size=3)
    for m in moves:
        engine.play(m)
    assert engine.is_over
    winner = engine.result()["winner"]
    expect(page.get_by_test_id("winner")).to_have_text(f"{winner.capitalize()} wins")
    assert page.get_by_test_id("status").inner_text().startswith(f"{winner.capitalize()} wins")
    assert stones(page) == engine.stones()
    if game != "droched":
        score = engine.result()["score"]
        expect(page.get_by_test_id("score-black")).to_have_text(f"{score['black']:g}")
    assert gid in page.url


def test_an_illegal_click_says_why_and_places_nothing(page, server):
    open_new(page, server, "game=dehil&size=4&opponent=human")
    # Black b1, c1 and then c2 would make a triangle with two stones on the edge.
    for point in ["b1", "f4", "c1", "f5"]:
        page.click(f'[data-point="{point}"]')
        expect(page.locator(f'[data-point="{point}"]')).to_have_attribute("data-stone", re.compile("black|white"))
    before = stones(page)
    engine = hexstones.new_game("dehil", size=4)
    for m in ["b1", "f4", "c1", "f5"]:
        engine.play(m)
    with pytest.raises(hexstones.IllegalMove) as refused:
        engine.play("c2")
    page.click('[data-point="c2"]')
    expect(page.get_by_test_id("message")).to_have_text(str(refused.value))
    assert page.locator('[data-point="c2"]').get_attribute("data-stone") is None
    assert stones(page) == before and move_count(page) == 4
    with pytest.raises(hexstones.IllegalMove) as occupied:
        engine.play("b1")
    page.click('[data-point="b1"]')
    expect(page.get_by_test_id("message")).to_have_text(str(occupied.value))
    assert stones(page) == before


def test_undo_and_stepping_through_the_moves(page, server):
    open_new(page, server, "game=keil&size=4&opponent=human")
    for point in ["d4", "e4", "e5"]:
        page.click(f'[data-point="{point}"]')
        expect(page.locator(f'[data-point="{point}"]')).to_have_attribute("data-stone", re.compile("."))
    page.click("#undo")
    expect(page.locator('[data-point="e5"]')).not_to_have_attribute("data-stone", re.compile("."))
    assert stones(page) == {"d4": "black", "e4": "white"} and move_count(page) == 2
    expect(page.get_by_test_id("status")).to_have_text("Black to move")
    page.click("#first")
    expect(page.get_by_test_id("where")).to_have_text("move 0 of 2")
    assert stones(page) == {}
    page.click("#next")
    expect(page.get_by_test_id("where")).to_have_text("move 1 of 2")
    assert stones(page) == {"d4": "black"}
    page.click('[data-point="a1"]')  # no playing in the past
    expect(page.get_by_test_id("message")).to_contain_text("go to the current position")
    page.click("#last")
    expect(page.get_by_test_id("where")).to_have_text("move 2 (now)")
    page.check('[data-overlay="groups"]')
    expect(page.locator("svg .liberty").first).to_be_attached()


def test_stop_and_restart_the_server_mid_game(page, server):
    open_new(page, server, "game=keil&size=4&opponent=ai&level=1&color=black")
    page.click('[data-point="d4"]')
    page.wait_for_function("() => document.querySelectorAll('#movelist button').length - 1 >= 2")
    wait_for_person_or_end(page)
    position = stones(page)  # the AI's reply may be a stone or the button
    assert move_count(page) == 2 and position["d4"] == "black"
    address = page.url
    server.stop()
    server.start()
    page.goto(address)
    expect(page.get_by_test_id("status")).to_have_text("Black to move (you)")
    assert stones(page) == position and move_count(page) == 2
    page.locator("[data-point][data-legal]").first.click()
    page.wait_for_function("() => document.querySelectorAll('#movelist button').length - 1 >= 3")
    wait_for_person_or_end(page)
    assert move_count(page) >= 4 or "wins" in page.get_by_test_id("status").inner_text()


# -- what a newcomer tripped over (issue 22) ---------------------------------------------------


def api(server, path: str, body=None, method=None):
    """A request as one person: the session cookie the server gives is kept and sent."""
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if getattr(server, "cookie", None):
        headers["Cookie"] = server.cookie
    request = urllib.request.Request(server.url + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request) as res:
        if res.headers.get("set-cookie"):
            server.cookie = res.headers["set-cookie"].split(";")[0]
        return json.load(res), dict(res.headers)


def same_person(context, server) -> None:
    """The browser ``context`` takes the session of :func:`api`'s requests: games are
    private, listed and changed only by the person who started them."""
    name, value = server.cookie.split("=", 1)
    context.add_cookies([{"name": name, "value": value, "url": server.url}])


def click_points(page, points):
    for point in points:
        page.click(f'[data-point="{point}"]')
        expect(page.locator(f'[data-point="{point}"]')).to_have_attribute("data-stone", re.compile("."))


def test_back_after_new_game_shows_the_game_as_it_is_and_the_list_too(page, server):
    gid = open_new(page, server, "game=keil&size=4&opponent=human")
    click_points(page, ["d4", "e4", "e5"])
    _, headers = api(server, f"/api/games/{gid}")
    assert headers["cache-control"] == "no-store"  # JSON is never taken from a cache
    page.click("text=New game")
    expect(page.locator("#start")).to_be_visible()
    page.go_back()
    expect(page.get_by_test_id("where")).to_have_text("move 3 (now)")
    assert stones(page) == {"d4": "black", "e4": "white", "e5": "black"}
    click_points(page, ["c3"])
    expect(page.get_by_test_id("message")).to_have_text("")
    # The list of stored games after Back counts the moves played meanwhile.
    page.goto(server.url + "/")
    expect(page.locator(f'tr[data-game-id="{gid}"] td').nth(3)).to_have_text("4")
    page.click(f'tr[data-game-id="{gid}"] a')
    click_points(page, ["c4"])
    page.go_back()
    expect(page.locator(f'tr[data-game-id="{gid}"] td').nth(3)).to_have_text("5")


def test_a_double_click_plays_one_move_and_says_nothing_wrong(page, server):
    open_new(page, server, "game=keil&size=4&opponent=human")
    sent = []
    page.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)
    page.dblclick('[data-point="d4"]')
    expect(page.locator('[data-point="d4"]')).to_have_attribute("data-stone", "black")
    expect(page.get_by_test_id("status")).to_have_text("White to move")
    page.wait_for_load_state("networkidle")
    expect(page.get_by_test_id("message")).to_have_text("")
    assert move_count(page) == 1
    # One move was sent: a second one, refused or answered first, showed "meant for" (#22).
    assert [u for u in sent if u.endswith("/moves")] == [f"{server.url}/api/games/{page.url.rsplit('/', 1)[1]}/moves"]


def test_a_point_clicked_before_the_last_moves_answer_is_played_after_it(page, server):
    open_new(page, server, "game=keil&size=4&opponent=human")
    held = []

    def hold_the_answer(route):
        held.append((route, route.fetch()))  # the server has the move; the page waits

    page.route("**/moves", hold_the_answer, times=1)
    page.click('[data-point="d4"]')
    # The live update draws the move before its answer is in; a person then plays on.
    expect(page.locator('[data-point="d4"]')).to_have_attribute("data-stone", "black")
    page.click('[data-point="e4"]')
    route, response = held[0]
    route.fulfill(response=response)
    expect(page.locator('[data-point="e4"]')).to_have_attribute("data-stone", "white")
    expect(page.get_by_test_id("status")).to_have_text("Black to move")
    assert move_count(page) == 2


def test_a_double_click_on_undo_takes_back_one_move(page, server):
    open_new(page, server, "game=keil&size=4&opponent=human")
    click_points(page, ["d4", "e4", "e5"])
    sent = []
    page.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)
    page.dblclick("#undo")
    expect(page.locator('[data-point="e5"]')).not_to_have_attribute("data-stone", re.compile("."))
    page.wait_for_load_state("networkidle")
    assert stones(page) == {"d4": "black", "e4": "white"} and move_count(page) == 2
    assert [u for u in sent if u.endswith("/undo")] == [f"{server.url}/api/games/{page.url.rsplit('/', 1)[1]}/undo"]


def test_reviewing_a_move_shows_the_score_of_that_move(page, server):
    open_new(page, server, "game=keil&size=4&opponent=human")
    moves = ["d4", "e4", "e5", "c3", "d5"]
    click_points(page, moves)
    engine = hexstones.new_game("keil", size=4)
    engine.play(moves[0])
    page.click('#movelist [data-at="1"]')
    expect(page.get_by_test_id("where")).to_have_text("move 1 of 5")
    expect(page.get_by_test_id("score")).to_contain_text("Score at move 1")
    expect(page.get_by_test_id("score-black")).to_have_text(f"{engine.score()['black']:g}")
    expect(page.get_by_test_id("score-white")).to_have_text(f"{engine.score()['white']:g}")


def test_a_resignation_shows_no_final_score(page, server):
    open_new(page, server, "game=keil&size=4&opponent=human")
    click_points(page, ["d4", "e4"])
    page.click("#resign")
    page.click("#resign")
    expect(page.get_by_test_id("winner")).to_have_text("White wins")
    expect(page.get_by_test_id("score")).not_to_contain_text("Final score")
    assert page.locator("[data-testid=score-black]").count() == 0


def test_droched_header_names_the_starting_prison_and_a_message_moves_no_button(page, server):
    open_new(page, server, "game=droched&size=4&opponent=human&komi=3")
    expect(page.locator("#title")).to_contain_text("3 black stones in the prison at the start")
    click_points(page, ["d4"])
    before = page.locator("#undo").bounding_box()
    page.click('[data-point="d4"]')  # occupied: refused with the reason
    expect(page.get_by_test_id("message")).not_to_have_text("")
    assert page.locator("#undo").bounding_box() == before


def test_the_status_does_not_say_thinking_twice(server):
    # Level 9 thinks seconds: the answer comes while it thinks, even on a warm server.
    game, _ = api(server, "/api/games", {"game": "keil", "size": 4, "opponent": "ai", "level": 9,
                                          "color": "white"})
    assert game["waiting_for"] == "ai"
    assert "thinking" not in game["status"]  # the spinner says it; the status says whose turn
    assert game["status"] == "Black to move (AI)"


def test_narrow_screens_fit_the_start_page_and_keep_points_far_enough_apart(browser, server):
    big, _ = api(server, "/api/games", {"game": "keil", "size": 13, "opponent": "human"})
    api(server, "/api/games", {"game": "droched", "size": 5, "opponent": "ai", "level": 1})
    context = browser.new_context(viewport={"width": 390, "height": 844})
    same_person(context, server)
    try:
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.goto(server.url + "/")
        expect(page.locator("tr[data-game-id]")).to_have_count(2)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        # The form's labels stand above their choices, and the choices line up at the left.
        label, *choices = page.evaluate("""[...document.querySelectorAll('#new-game .form-row')[1].children]
            .map((e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.bottom]; })""")
        the_ai, _, a_friend = choices  # the AI, a person at this screen; then a friend online
        assert the_ai[0] == a_friend[0] == label[0]
        assert all(label[2] <= c[1] for c in choices)
        page.goto(f"{server.url}/game/{big['id']}")
        expect(page.get_by_test_id("status")).to_have_text("Black to move")
        inside = """() => { const b = document.querySelector('#board').getBoundingClientRect();
            return [...document.querySelectorAll('#board [data-point]')].filter((p) => {
              const r = p.getBoundingClientRect();
              return r.left >= b.left - 1 && r.right <= b.right + 1; }).length; }"""
        # The whole board in the width at first: every point shown, nothing to scroll to.
        assert page.evaluate(inside) == len(hexstones.new_game("keil", size=13).board.names)
        # Zoom: the points a finger's tap apart (both measured in one go: no redraw between).
        page.get_by_test_id("zoom").click()
        expect(page.get_by_test_id("zoom")).to_have_attribute("aria-pressed", "true")
        a, b = page.evaluate("['a1', 'b1'].map((p) => document.querySelector(`[data-point=\"${p}\"]`)"
                             ".getBoundingClientRect().x)")
        assert abs(b - a) >= 28  # a finger's tap apart
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # the board scrolls, not the page
        page.get_by_test_id("zoom").click()
        assert page.evaluate(inside) == len(hexstones.new_game("keil", size=13).board.names)
    finally:
        context.close()


def test_a_phone_folds_the_pages_links_under_a_menu_button(browser, server):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        open_new(page, server, "game=keil&size=5&opponent=human")
        menu, lobby = page.get_by_test_id("menu-button"), page.get_by_test_id("lobby-link")
        expect(menu).to_have_attribute("aria-expanded", "false")
        expect(lobby).to_be_hidden()
        # The board starts in the first third of the screen, not under three lines of links.
        assert page.evaluate("document.querySelector('#board').getBoundingClientRect().top") < 844 / 3
        page.keyboard.press("Tab")  # the brand, then the menu button
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        expect(menu).to_have_attribute("aria-expanded", "true")
        expect(lobby).to_be_visible()
        lobby.focus()
        page.keyboard.press("Escape")
        expect(lobby).to_be_hidden()
        assert page.evaluate("document.activeElement.dataset.testid") == "menu-button"
        menu.click()
        lobby.click()
        expect(page).to_have_url(server.url + "/lobby")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        context.close()
    # A wide screen shows the links, and no menu button.
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(server.url + "/lobby")
        expect(page.get_by_test_id("lobby-link")).to_be_visible()
        expect(page.get_by_test_id("menu-button")).to_be_hidden()
    finally:
        page.close()


def test_undo_of_a_finished_game_asks_first(page, server):
    open_new(page, server, "game=keil&size=3&opponent=human")
    for button in ("#button", "#pass", "#pass"):
        page.click(button)
    expect(page.get_by_test_id("winner")).to_be_visible()
    page.click("#undo")
    expect(page.locator("#undo")).to_contain_text("Reopen")
    assert move_count(page) == 3 and page.get_by_test_id("winner").is_visible()
    page.click("#undo")
    expect(page.get_by_test_id("result")).to_be_hidden()
    assert move_count(page) == 2


def test_quick_clicks_on_the_special_moves_wait_for_each_answer(page, server):
    """Button, Pass, Pass clicked as fast as a script clicks, each answer slowed down by
    the network: every click is played (the buttons wait, disabled, for the answer before),
    none is dropped."""
    open_new(page, server, "game=keil&size=3&opponent=human")
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 400,
                                                  "downloadThroughput": -1, "uploadThroughput": -1})
    for button in ("#button", "#pass", "#pass"):
        page.click(button)
    expect(page.get_by_test_id("winner")).to_be_visible(timeout=60_000)
    assert move_count(page) == 3


def test_a_move_answered_after_the_live_update_leaves_the_buttons_as_the_state_says(page, server):
    """The answer to a move comes after the live update has drawn the same state (the
    order of the two is up to the network): the buttons held while the move was on its
    way are then set from that state, not put back as they were before it (Pass, illegal
    until the button is taken, stayed disabled: seen in CI), and not let go before the
    answer (a click then would be dropped)."""
    open_new(page, server, "game=keil&size=3&opponent=human")
    expect(page.locator("#pass")).to_be_disabled()
    drawn_before_the_answer = []

    def answer_late(route):
        response = route.fetch()
        # The answer waits for the live update's drawing of the state after the move.
        expect(page.locator("#movelist button")).to_have_count(2, timeout=30_000)
        drawn_before_the_answer.append(True)
        route.fulfill(response=response)

    page.route("**/moves", answer_late, times=1)
    page.click("#button")
    page.click("#pass")  # waits until Pass is enabled
    expect(page.locator("#movelist button")).to_have_count(3)
    assert drawn_before_the_answer == [True]


def test_stored_games_are_named_and_deleted_and_empty_ones_removed(page, server):
    kept, _ = api(server, "/api/games", {"game": "keil", "size": 4, "opponent": "human"})
    api(server, f"/api/games/{kept['id']}/moves", {"move": "d4"})
    gone, _ = api(server, "/api/games", {"game": "dehil", "size": 4, "opponent": "human"})
    api(server, f"/api/games/{gone['id']}/moves", {"move": "d4"})
    for _ in range(2):
        api(server, "/api/games", {"game": "droched", "size": 4, "opponent": "human"})
    same_person(page.context, server)
    page.goto(server.url + "/")
    expect(page.locator("tr[data-game-id]")).to_have_count(4)
    row = page.locator(f'tr[data-game-id="{kept["id"]}"]')
    row.locator("[data-action=name]").click()
    page.get_by_test_id("game-name").fill("Sunday with Ann")
    page.get_by_test_id("game-name").press("Enter")
    expect(row.locator("td.name")).to_have_text("Sunday with Ann")
    page.locator(f'tr[data-game-id="{gone["id"]}"] [data-action=delete]').click()
    page.locator(f'tr[data-game-id="{gone["id"]}"] [data-action=delete]').click()
    expect(page.locator(f'tr[data-game-id="{gone["id"]}"]')).to_have_count(0)
    page.click("#remove-empty")
    expect(page.locator("tr[data-game-id]")).to_have_count(1)
    page.click(f'tr[data-game-id="{kept["id"]}"] a')
    expect(page.locator("#title")).to_contain_text("Sunday with Ann")


def test_the_list_drawn_again_keeps_a_name_being_typed_and_a_delete_half_clicked(page, server):
    # The list is drawn again whenever a game changes (a friend's move): what the person is
    # doing in it must not be lost.
    first, _ = api(server, "/api/games", {"game": "keil", "size": 4, "opponent": "human"})
    second, _ = api(server, "/api/games", {"game": "dehil", "size": 4, "opponent": "human"})
    same_person(page.context, server)
    page.goto(server.url + "/")
    expect(page.locator("tr[data-game-id]")).to_have_count(2)
    page.locator(f'tr[data-game-id="{first["id"]}"] [data-action=name]').click()
    page.get_by_test_id("game-name").fill("Half typed")
    api(server, f"/api/games/{second['id']}/moves", {"move": "d4"})
    page.evaluate(f"{START_JS}.then((start) => start.loadGames())")  # as the live update of that move does
    expect(page.get_by_test_id("game-name")).to_have_value("Half typed")
    page.get_by_test_id("game-name").press("Escape")  # Escape names nothing
    row = page.locator(f'tr[data-game-id="{first["id"]}"]')
    expect(row.locator("td.name")).to_have_text("Keil")
    expect(page.locator(f'tr[data-game-id="{second["id"]}"] td').nth(3)).to_have_text("1")
    delete = row.locator("[data-action=delete]")
    delete.click()
    page.evaluate(f"{START_JS}.then((start) => start.loadGames())")
    expect(delete).to_have_text("Really delete?")
    delete.click()
    expect(row).to_have_count(0)
    with pytest.raises(urllib.error.HTTPError) as gone:
        api(server, f"/api/games/{first['id']}")
    assert gone.value.code == 404


def test_help_on_the_special_moves_legends_and_a_link_to_the_rules(page, server):
    specs, _ = api(server, "/api/spec")
    open_new(page, server, "game=keil&size=4&opponent=human")
    help_of = specs["games"]["keil"]["special_help"]
    assert page.locator("#button").get_attribute("title") == help_of["button"]
    assert page.locator("#pass").get_attribute("title") == help_of["pass"]
    assert page.get_by_test_id("rules-link").get_attribute("href") == "/rules/keil"
    for overlay in ("territory", "groups"):
        page.check(f'[data-overlay="{overlay}"]')
        legend = page.locator(f'[data-legend="{overlay}"]')
        expect(legend).to_be_visible()
        for item in specs["legends"]["keil"][overlay]:
            expect(legend).to_contain_text(item["text"])
    page.uncheck('[data-overlay="groups"]')
    expect(page.locator('[data-legend="groups"]')).to_have_count(0)
    page.reload()  # the overlays shown are remembered: legend, tooltips and link come back too
    expect(page.locator('[data-legend="territory"]')).to_be_visible()
    assert page.locator("#button").get_attribute("title") == help_of["button"]
    assert page.get_by_test_id("rules-link").get_attribute("href") == "/rules/keil"
    open_new(page, server, "game=droched&size=4&opponent=human")
    release = specs["games"]["droched"]["special_help"]["release"]
    assert page.locator("#release").get_attribute("title") == release
    assert page.get_by_test_id("rules-link").get_attribute("href") == "/rules/droched"


def test_the_ai_is_ready_soon_after_the_server_starts(page, server):
    # `hexstones serve` starts the AI's workers at once and they compile ahead; with
    # numba's cache filled (tests/conftest.py) they are ready in seconds.
    page.goto(server.url + "/")
    deadline = time.monotonic() + WAIT_MS / 1000
    while page.request.get(server.url + "/api/ai").json()["warming"] is not None:
        assert time.monotonic() < deadline, "the AI was still warming up"
        time.sleep(0.2)
    expect(page.get_by_test_id("warming")).to_be_hidden()
    open_new(page, server, "game=keil&size=3&opponent=ai&level=1&color=white")
    expect(page.get_by_test_id("status")).to_have_text(re.compile(r"White to move \(you\)|wins"))
    assert move_count(page) >= 1


@pytest.mark.parametrize("width", [1280, 390])
def test_the_start_page_keeps_its_links_and_form_in_place_while_it_fills_in(browser, server, width):
    # The script fills in the form from /api/spec, and shows the AI's warming line from
    # /api/ai, after the first paint: what a person may already be aiming at must not
    # move when they come.
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    held = []
    page.route("**/api/spec", lambda route: held.append(route))  # answered only when released below
    page.goto(server.url + "/")
    expect(page.get_by_test_id("rules-link")).to_be_visible()
    while not held:
        page.wait_for_timeout(50)  # the request is on its way; nothing on the page says so
    watched = {"rules": page.get_by_test_id("rules-link"), "size": page.locator("#size"),
               "start": page.locator("#start")}
    before = {name: where.bounding_box() for name, where in watched.items()}
    held[0].continue_()
    expect(page.locator("#size option")).not_to_have_count(0)  # the script has the answer
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => done()))")
    after = {name: where.bounding_box() for name, where in watched.items()}
    # The warming line, as the page shows it during the AI's first compile.
    page.evaluate("() => { const w = document.getElementById('warming');"
                  " w.textContent = 'The AI is getting ready: compiling its search, first start"
                  " only (step 1 of 9, 3 s). A game can start meanwhile.'; w.hidden = false; }")
    warming = {name: where.bounding_box() for name, where in watched.items()}
    context.close()
    for name in watched:
        assert abs(after[name]["y"] - before[name]["y"]) <= 2, (name, before[name], after[name])
        assert warming[name] == after[name], (name, after[name], warming[name])


def test_the_level_slider_says_what_the_chosen_level_plays(page, server):
    page.goto(server.url + "/")
    note = page.get_by_test_id("level-note")

    def guide(game, size):
        answer, _ = api(server, f"/api/levels?game={game}&size={size}")
        return {lv["level"]: lv["text"] for lv in answer["levels"]}

    keil = guide("keil", 7)
    expect(note).to_have_text(keil[3])  # the form's default level
    page.locator("#level").fill("10")
    expect(note).to_have_text(keil[10])
    page.locator("#games-choice label", has_text="Droched").click()
    spec, _ = api(server, "/api/spec")
    expect(note).to_have_text(guide("droched", spec["games"]["droched"]["default_size"])[10])
    page.select_option("#size", "5")
    expect(note).to_have_text(guide("droched", 5)[10])
    page.locator("#level").fill("1")
    expect(note).to_have_text(guide("droched", 5)[1])


def test_the_balance_row_offers_the_fair_value_on_record_for_the_side(page, server):
    spec, _ = api(server, "/api/spec")
    keil = spec["games"]["keil"]["balance"]
    page.goto(server.url + "/")
    fair_button = page.get_by_test_id("komi-fair")
    komi = page.locator("#komi")
    expect(komi).to_have_value(str(keil["default"]))
    assert "7" not in keil["fair"]  # Keil 7 has none on record: nothing is offered
    expect(fair_button).to_be_hidden()
    page.select_option("#size", "5")
    fair = keil["fair"]["5"]
    expect(fair_button).to_be_visible()
    expect(fair_button).to_have_text(f"use {fair}, even between the AI's players")
    fair_button.click()
    expect(komi).to_have_value(str(fair))
    expect(fair_button).to_be_disabled()
    assert f"komi={fair}" in page.locator("#link").inner_text()  # the game starts with it
    komi.fill("6")  # typed away from it: offered again
    expect(fair_button).to_be_enabled()
    # Droched's balance is its prison stones: the offer follows the game and the side.
    page.locator("#games-choice label", has_text="Droched").click()
    droched = spec["games"]["droched"]["balance"]
    page.select_option("#size", "5")
    expect(fair_button).to_have_text(f"use {droched['fair']['5']}, even between the AI's players")
    fair_button.click()
    expect(komi).to_have_value(str(droched["fair"]["5"]))


def test_the_default_boards_fit_a_phone(browser, server):
    """Keil 7, Dehil 9 and Droched 9 at 390x844: every point or cell inside the width."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        for name in hexstones.GAME_NAMES:
            size = hexstones.new_game(name).size
            open_new(page, server, f"game={name}&opponent=human")
            shown = page.evaluate("""() => [...document.querySelectorAll('#board [data-point]')].filter((p) => {
                const r = p.getBoundingClientRect(); return r.left >= 0 && r.right <= innerWidth; }).length""")
            assert shown == len(hexstones.new_game(name, size=size).board.names), name
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        context.close()


def test_the_result_box_gives_the_final_totals_whichever_move_is_shown(page, server):
    open_new(page, server, "game=keil&size=3&opponent=human")
    click_points(page, ["b2", "c3", "a1"])
    for move in ("button", "pass", "pass"):
        page.click(f"#{move}")
    expect(page.get_by_test_id("winner")).to_be_visible()
    final = page.get_by_test_id("result").text_content()
    page.keyboard.press("Home")
    expect(page.get_by_test_id("where")).to_have_text("move 0 of 6")
    expect(page.get_by_test_id("result")).to_have_text(final)
    page.click('#movelist [data-at="2"]')
    expect(page.get_by_test_id("where")).to_have_text("move 2 of 6")
    expect(page.get_by_test_id("result")).to_have_text(final)


def test_after_a_resignation_one_move_is_one_move_and_no_empty_card_is_left(page, server):
    open_new(page, server, "game=keil&size=4&opponent=human")
    click_points(page, ["d4"])
    page.click("#resign")
    page.click("#resign")
    expect(page.get_by_test_id("result")).to_contain_text("White resigned after 1 move.")
    expect(page.get_by_test_id("score")).to_be_hidden()
    page.click("#first")  # a position of the game: its score, in its card
    expect(page.get_by_test_id("where")).to_have_text("move 0 of 1")
    expect(page.get_by_test_id("score")).to_be_visible()


def test_a_spectator_of_someone_elses_ai_game_is_not_called_you(browser, server):
    game, _ = api(server, "/api/games", {"game": "keil", "size": 3, "opponent": "ai", "level": 3,
                                          "color": "black", "public": "yes"})
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.goto(f"{server.url}/game/{game['id']}")
        expect(page.get_by_test_id("watching")).to_be_visible()
        expect(page.locator("#title")).to_contain_text("a person (black) vs the AI, level 3")
        expect(page.locator("#title")).not_to_contain_text("you")
    finally:
        context.close()


def test_a_droched_handicap_game_says_so_in_its_header(page, server):
    open_new(page, server, "game=droched&size=4&opponent=human&handicap=d4,b2")
    expect(page.locator("#title")).to_contain_text("handicap: 2 black stones")


def test_an_unfinished_import_opens_at_its_start(page, server):
    engine = hexstones.new_game("keil", size=5)
    for _ in range(30):
        engine.play(next(m for m in engine.legal_moves() if m[1:].isdigit()))
    from hexstones.records import write_sgf

    page.goto(server.url + "/")
    page.set_input_files("#sgf-file", files=[{"name": "g.sgf", "mimeType": "text/plain",
                                               "buffer": write_sgf(engine).encode()}])
    page.select_option("#sgf-opponent", "ai")
    page.locator("#load-sgf button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/game/[0-9a-f]+\?at=0$"))
    expect(page.get_by_test_id("where")).to_have_text("move 0 of 30")
    expect(page.get_by_test_id("connection")).to_be_hidden()  # the live updates are in
    expect(page.get_by_test_id("where")).to_have_text("move 0 of 30")


def test_the_compiling_note_is_not_shown_on_a_finished_game(page, server):
    open_new(page, server, "game=keil&size=3&opponent=human")
    # As while compiling:
    page.evaluate(f"{GAME_JS}.then((game) => game.renderWarming({{done: 3, total: 6, seconds: 40}}))")
    expect(page.get_by_test_id("warming-note")).to_be_visible()
    click_points(page, ["b2", "c3", "a1"])
    for move in ("button", "pass", "pass"):
        page.click(f"#{move}")
    expect(page.get_by_test_id("winner")).to_be_visible()
    page.evaluate(f"{GAME_JS}.then((game) => game.renderWarming({{done: 3, total: 6, seconds: 41}}))")
    expect(page.get_by_test_id("warming-note")).to_be_hidden()


def test_my_games_fit_a_wide_screen_with_every_action_in_sight(page, server):
    """At 1280 px the list has half the width: no action is cut off or needs a scroll."""
    for query in ("game=keil&size=7&opponent=ai&level=3", "game=droched&size=9&opponent=friend",
                  "game=dehil&size=9&opponent=human"):
        open_new(page, server, query)
    page.goto(server.url + "/")
    expect(page.locator("#games tr[data-game-id]")).to_have_count(3)
    table, box = page.evaluate("""() => { const t = document.querySelector('#games table');
        return [t.scrollWidth, t.parentElement.clientWidth]; }""")
    assert table <= box
    right = page.evaluate("() => document.querySelector('#games').getBoundingClientRect().right")
    for button in page.locator("#games [data-action]").all():
        assert button.bounding_box()["x"] + button.bounding_box()["width"] <= right + 1


def test_chromium_finds_the_app_installable(browser, server, tmp_path):
    """Chromium's own check (DevTools' installability errors) finds nothing missing: the
    manifest parses, its icons load, the start page is in its scope. A persistent profile,
    since a browser installs nothing from a private window."""
    from serving import CHROMIUM_ARGS

    context = browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    try:
        page = context.new_page()
        page.goto(server.url + "/")
        cdp = context.new_cdp_session(page)
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["url"].endswith("/manifest.webmanifest") and manifest["errors"] == []
        deadline = time.monotonic() + WAIT_MS / 1000
        while (errors := cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]):
            assert time.monotonic() < deadline, errors  # the icons may still be loading
            time.sleep(0.2)
    finally:
        context.close()
