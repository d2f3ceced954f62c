"""The analysis mode and the hint in the browser: the real server (``hexstones serve`` in a
subprocess) driven by Playwright through Debian's chromium, headless. The analyses use
the page's quick search (a fixed number of iterations, seeded by the move number: the
same results every run). Every wait is for a condition on the page."""

from __future__ import annotations

import json
import random
import urllib.request

import pytest

import hexstones
import test_browser
from test_browser import WAIT_MS
from test_web_analysis import FINISHED

pytestmark = pytest.mark.slow

from playwright.sync_api import expect  # noqa: E402

expect.set_options(timeout=WAIT_MS)

# A page per test, as tests/test_browser.py makes it (the browser: conftest.py).
page = test_browser.page


def call(url: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as res:
        return json.load(res)


def new_game(page, base: str, name: str, moves: list[str], size: int = 3, **setup) -> str:
    """A game made and played by the page's own browser (its session holds the seats)."""
    r = page.request.post(f"{base}/api/games", data={"game": name, "size": size, **setup})
    assert r.status == 201, r.text()
    gid = r.json()["id"]
    for m in moves:
        r = page.request.post(f"{base}/api/games/{gid}/moves", data={"move": m})
        assert r.status == 200, r.text()
    return gid


def position(name: str, moves: list[str], size: int = 3):
    game = hexstones.new_game(name, size=size)
    for m in moves:
        game.play(m)
    return game


def analyse_quickly(page, base: str, gid: str, positions: int) -> dict:
    page.goto(f"{base}/game/{gid}")
    page.get_by_test_id("analysis-budget").select_option("300")
    page.get_by_test_id("analyze").click()
    expect(page.locator("[data-testid=winrate-graph] [data-ply]")).to_have_count(positions)
    expect(page.get_by_test_id("analysis-progress")).to_contain_text(f"{positions} of {positions} positions analysed")
    return call(f"{base}/api/games/{gid}/analysis")


@pytest.mark.parametrize("name", sorted(FINISHED))
def test_analysis_of_a_finished_game_in_the_page(module_server, page, name):
    moves = FINISHED[name]
    gid = new_game(page, module_server.url, name, moves)
    summary = analyse_quickly(page, module_server.url, gid, len(moves) + 1)
    plies = [int(x) for x in page.locator("[data-testid=winrate-graph] [data-ply]").evaluate_all(
        "els => els.map(e => e.dataset.ply)")]
    assert plies == list(range(len(moves) + 1))
    # Clicking the graph goes to that move; the AI's best moves are marked there.
    page.locator("[data-testid=winrate-graph] [data-ply='2']").click()
    expect(page.get_by_test_id("where")).to_have_text(f"move 2 of {len(moves)}")
    at2 = position(name, moves[:2])
    marks = page.locator("#board [data-candidate]")
    expect(marks.first).to_be_visible()
    candidates = marks.evaluate_all("els => els.map(e => e.dataset.candidate)")
    assert candidates and set(candidates) <= set(at2.legal_moves())
    assert page.locator(f"#board [data-played='{moves[2]}']").count() == (1 if moves[2][1:].isdigit() else 0)
    # The ownership map (games with a score) or each group's chance of the prison.
    if at2.has_score:
        expect(page.locator("#board rect[data-own]").first).to_be_attached()
        expect(page.locator("[data-legend-item=ownership]")).to_be_visible()
    else:
        groups = call(f"{module_server.url}/api/games/{gid}/analysis/2")["prison_chance"]
        expect(page.locator("#board [data-prison]")).to_have_count(len(groups))
        expect(page.locator("[data-legend-item=prison]")).to_be_visible()
    expect(page.locator("[data-legend-item=candidates]")).to_be_visible()
    # The principal variation on hover of the best move (at a position where it is a point).
    names = set(at2.board.names)
    ply, best = next((n, d) for n in range(len(moves))
                     if (d := call(f"{module_server.url}/api/games/{gid}/analysis/{n}"))["moves"][0]["move"] in names)
    page.locator(f"[data-testid=winrate-graph] [data-ply='{ply}']").click()
    expect(page.get_by_test_id("where")).to_have_text(f"move {ply} of {len(moves)}")
    expect(page.locator(f"#board [data-candidate='{best['moves'][0]['move']}']")).to_be_attached()
    page.locator(f"#board [data-point='{best['moves'][0]['move']}']").hover()
    expect(page.locator("#board [data-pv='1']")).to_have_attribute("data-pv-move", best["pv"][0])
    page.mouse.move(0, 0)
    # The mistakes: next and previous go to the position before each.
    mistakes = summary["mistakes"]
    assert mistakes, "these short games hold mistakes at the quick budget"
    page.locator("[data-testid=winrate-graph] [data-ply='0']").click()
    expect(page.get_by_test_id("where")).to_have_text(f"move 0 of {len(moves)}")
    for m in mistakes:
        if m["ply"] - 1 > 0:
            page.get_by_test_id("mistake-next").click()
            expect(page.get_by_test_id("where")).to_have_text(f"move {m['ply'] - 1} of {len(moves)}")
    expect(page.get_by_test_id("mistake-next")).to_be_disabled()
    if len([m for m in mistakes if m["ply"] - 1 > 0]) >= 2:
        page.get_by_test_id("mistake-prev").click()
        later = [m for m in mistakes if m["ply"] - 1 > 0]
        expect(page.get_by_test_id("where")).to_have_text(f"move {later[-2]['ply'] - 1} of {len(moves)}")
    # Reopened, the page shows the stored analysis at once.
    page.reload()
    expect(page.locator("[data-testid=winrate-graph] [data-ply]")).to_have_count(len(moves) + 1)


def analysing_a_keil_5_game(server, page, seed: int, moves: int) -> str:
    """A Keil 5 game of ``moves`` random stones, its analysis started in the page (the
    normal search: seconds a position)."""
    rng = random.Random(seed)
    game = hexstones.new_game("keil", size=5)
    for _ in range(moves):
        game.play(rng.choice([m for m in game.legal_moves() if m[1:].isdigit()]))
    gid = new_game(page, server.url, "keil", list(game.moves), size=5)
    page.goto(f"{server.url}/game/{gid}")
    page.get_by_test_id("analyze").click()
    expect(page.get_by_test_id("analysis-stop")).to_be_visible()
    return gid


def test_stop_in_the_page(module_server, page):
    gid = analysing_a_keil_5_game(module_server, page, seed=3, moves=24)
    page.get_by_test_id("analysis-stop").click()
    expect(page.get_by_test_id("analysis-progress")).to_contain_text("Stopped")
    job = call(f"{module_server.url}/api/games/{gid}/analysis")["job"]
    assert job["state"] == "stopped" and job["done"] < job["total"] == 25


def test_the_hint_is_off_by_default_and_shows_the_ais_moves(module_server, page):
    # Made by the page's own browser: its session holds the seat (only the player gets hints).
    gid = new_game(page, module_server.url, "keil", [], opponent="ai", color="black", level=1)
    page.goto(f"{module_server.url}/game/{gid}")
    expect(page.get_by_test_id("hint")).to_be_visible()
    expect(page.get_by_test_id("hint")).not_to_be_checked()
    assert page.locator("#board [data-candidate]").count() == 0
    page.get_by_test_id("hint").check()
    marks = page.locator("#board [data-hint]")
    expect(marks.first).to_be_visible()
    hinted = marks.evaluate_all("els => els.map(e => e.dataset.hint)")
    assert 1 <= len(hinted) <= 3 and set(hinted) <= set(hexstones.new_game("keil", size=3).legal_moves())
    # Playing a move asks again for the next turn (after the AI's reply).
    page.locator(f"#board [data-point='{hinted[0]}']").click()
    expect(page.get_by_test_id("where")).to_have_text("move 2 (now)")
    expect(page.locator("#board [data-hint]").first).to_be_visible()
    page.get_by_test_id("hint").uncheck()
    expect(page.locator("#board [data-hint]")).to_have_count(0)
    # A game of two people at the screen has no hint.
    two = new_game(page, module_server.url, "keil", [])
    page.goto(f"{module_server.url}/game/{two}")
    expect(page.get_by_test_id("status")).not_to_have_text("Loading…")
    expect(page.get_by_test_id("hint")).to_be_hidden()


def test_deeper_while_the_analysis_runs_answers_and_the_server_goes_on(module_server, page):
    """Analyze the game, Home, Deeper here: the second request joins the running job (it once
    waited forever on a lock the first held, and the server's workers ran out)."""
    gid = analysing_a_keil_5_game(module_server, page, seed=5, moves=20)
    page.keyboard.press("Home")
    expect(page.get_by_test_id("where")).to_have_text("move 0 of 20")
    page.get_by_test_id("analysis-deeper").click()
    # The job takes the deeper search as one more position, and every request still answers.
    expect(page.get_by_test_id("analysis-progress")).to_contain_text("of 22 positions")
    for _ in range(3):
        r = page.request.get(f"{module_server.url}/api/games/{gid}/analysis", timeout=10_000)
        assert r.status == 200 and r.json()["job"]["total"] == 22, r.text()
    r = page.request.post(f"{module_server.url}/api/games/{gid}/analysis", data={"action": "start"}, timeout=10_000)
    assert r.status == 200 and r.json()["job"]["state"] == "running", r.text()
    other = new_game(page, module_server.url, "dehil", [], size=5)
    r = page.request.post(f"{module_server.url}/api/games/{other}/moves", data={"move": "c3"}, timeout=10_000)
    assert r.status == 200 and r.json()["moves"] == ["c3"], r.text()
    page.get_by_test_id("analysis-stop").click()
    expect(page.get_by_test_id("analysis-progress")).to_contain_text("Stopped")
