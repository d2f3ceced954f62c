"""A rated game in the browser: two accounts in two browser contexts play a rated game on
a clock; when one resigns, both ratings move by exactly what Glicko-2 says, and each
player's profile shows the new rating and its graph."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from serving import CHROMIUM

pytestmark = pytest.mark.slow

if not Path(CHROMIUM).exists():
    pytest.skip(f"no chromium at {CHROMIUM}", allow_module_level=True)

from playwright.sync_api import expect  # noqa: E402

from hexstones.session import Rating, rated  # noqa: E402
from serving import WAIT_MS  # noqa: E402
from test_online_browser import same_moves  # noqa: E402

expect.set_options(timeout=WAIT_MS)


def sign_up(page, url: str, name: str) -> None:
    page.goto(f"{url}/account")
    page.get_by_test_id("signup-name").fill(name)
    page.get_by_test_id("signup-password").fill("correct horse battery")
    page.get_by_test_id("signup").click()
    expect(page.get_by_test_id("who")).to_have_text(f"Signed in as {name}.")


def test_a_rated_game_between_two_accounts_moves_both_ratings(sqlite_servers, person):
    url = sqlite_servers.url(0)
    a, b = person(), person()
    sign_up(a, url, "Ann")
    sign_up(b, url, "Bea")
    a.goto(f"{url}/new?game=keil&size=4&opponent=friend&color=black&clock=fischer:300:5&rated=yes")
    link = a.get_by_test_id("invite-link")
    expect(link).to_be_visible()
    b.goto(link.get_attribute("href"))
    b.get_by_test_id("join").click()  # signed in: no name to give
    b.wait_for_url(re.compile(r"/game/"))
    expect(a.get_by_test_id("clock-black")).to_have_text("5:00")
    a.click('[data-point="d4"]')
    same_moves((a, b), 1)
    b.click('[data-point="a1"]')
    same_moves((a, b), 2)
    a.click("#resign")
    a.click("#resign")
    for page in (a, b):
        expect(page.get_by_test_id("status")).to_have_text("White wins: Black resigned")
    start = Rating()
    won, lost = rated(start, [(start, 1.0)]), rated(start, [(start, 0.0)])
    b.goto(f"{url}/players/Bea")
    expect(b.get_by_test_id("rating-keil")).to_contain_text(
        f"Keil: {round(won.rating)}? (±{round(won.deviation)}, 1 rated game)")
    expect(b.get_by_test_id("rating-graph").locator("svg")).to_have_count(1)
    a.goto(f"{url}/players/ann")
    expect(a.get_by_test_id("rating-keil")).to_contain_text(f"Keil: {round(lost.rating)}?")
    a.goto(f"{url}/leaderboard/keil")
    expect(a.get_by_test_id("leader")).to_have_count(2)
    expect(a.get_by_test_id("leader").first).to_contain_text("Bea")
