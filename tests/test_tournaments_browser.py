"""A tournament in the browser against a real server: Ann makes a one-round Swiss on the
tournaments page, joins, adds one of the AI's accounts, Bea joins from her own browser;
Bea's tournament page, never reloaded, follows it: the players, the round's board once Ann
starts it, the crosstable filling in when Ann resigns her game, and the winner."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from serving import CHROMIUM

pytestmark = pytest.mark.slow

if not Path(CHROMIUM).exists():
    pytest.skip(f"no chromium at {CHROMIUM}", allow_module_level=True)

from playwright.sync_api import expect  # noqa: E402

from serving import WAIT_MS  # noqa: E402
from test_ratings_browser import sign_up  # noqa: E402

expect.set_options(timeout=WAIT_MS)


def test_the_tournament_page_follows_the_crosstable_live(sqlite_servers, person):
    url = sqlite_servers.url(0)
    a, b = person(), person()
    sign_up(a, url, "Ann")
    sign_up(b, url, "Bea")

    a.goto(f"{url}/")
    a.get_by_test_id("tournaments-link").click()
    a.wait_for_url(f"{url}/tournaments")
    a.get_by_test_id("t-name").fill("Evening cup")
    a.get_by_test_id("t-game").select_option("keil")
    a.get_by_test_id("t-size").select_option("5")
    a.get_by_test_id("t-clock").select_option("fischer:300:3")
    a.get_by_test_id("t-rounds").fill("1")
    a.get_by_test_id("t-submit").click()
    a.wait_for_url(re.compile(r"/tournaments/[0-9a-f]+$"))
    page_url = a.url
    expect(a.get_by_test_id("t-about")).to_contain_text("Keil, board side 5, 5+3, Swiss, 1 round")
    a.get_by_test_id("t-join").click()
    expect(a.get_by_test_id("player")).to_have_count(1)

    b.goto(f"{url}/tournaments")
    b.locator('[data-testid="upcoming"] a', has_text="Evening cup").click()
    b.wait_for_url(page_url)
    expect(b.get_by_test_id("t-start")).to_be_hidden()  # only its creator starts it
    b.get_by_test_id("t-join").click()
    expect(b.get_by_test_id("t-leave")).to_be_visible()
    expect(a.get_by_test_id("player")).to_have_count(2)  # Ann's page, not reloaded, hears of it
    a.get_by_test_id("t-bot-name").select_option("level2-bot")
    a.get_by_test_id("t-bot-add").click()
    expect(b.get_by_test_id("player")).to_have_count(3)

    a.get_by_test_id("t-start").click()
    # Three players: the bot, the last seed (all rated alike: the last to join), sits out;
    # Ann and Bea meet.
    expect(b.get_by_test_id("t-status")).to_have_text("Round 1 of 1 being played.")
    expect(b.get_by_test_id("board")).to_have_count(1)
    expect(b.get_by_test_id("board")).to_contain_text("being played")
    expect(b.get_by_test_id("cross-row")).to_have_count(3)
    expect(b.get_by_test_id("crosstable")).to_contain_text("…")

    a.get_by_test_id("board").get_by_role("link").click()
    a.wait_for_url(re.compile(r"/game/"))
    a.click("#resign")
    a.click("#resign")
    expect(a.get_by_test_id("status")).to_contain_text("resigned")

    # Bea's page, still not reloaded: the result in the crosstable, the standings, the winner.
    expect(b.get_by_test_id("t-winner")).to_have_text("Winner: Bea")
    expect(b.get_by_test_id("t-status")).to_have_text("Finished after 1 round.")
    rows = b.get_by_test_id("cross-row")
    expect(rows.nth(0)).to_contain_text("Bea")
    expect(rows.nth(0).get_by_test_id("cross-cell").nth(2)).to_have_text(re.compile(r"^1[●○]$"))
    won = rows.nth(0).get_by_test_id("cross-cell").nth(2).locator("a")  # the colour in words too
    expect(won).to_have_attribute("aria-label", re.compile(r"^1 with (Black|White)$"))
    expect(rows.filter(has_text="Ann").get_by_test_id("cross-cell").nth(0)).to_have_text(re.compile(r"^0[●○]$"))
    expect(b.get_by_test_id("standing").nth(0).get_by_test_id("points")).to_have_text("1")
    expect(b.get_by_test_id("board")).to_contain_text(re.compile(r"1-0|0-1"))
