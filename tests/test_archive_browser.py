"""The archive and a profile in the browser, on a real server: a third person searches the
finished games by player and result, opens one in its game page (the result, the analysis
on offer), downloads a player's games from the profile, and presses Challenge there: the
challenge reaches the player's lobby. A private game stays out of the third person's sight.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from serving import CHROMIUM

pytestmark = pytest.mark.slow

if not Path(CHROMIUM).exists():
    pytest.skip(f"no chromium at {CHROMIUM}", allow_module_level=True)

from playwright.sync_api import expect  # noqa: E402

from hexstones.records import read_collection  # noqa: E402
from serving import WAIT_MS  # noqa: E402

expect.set_options(timeout=WAIT_MS)


def post(page, url: str, path: str, body: dict, status: int = 200) -> dict:
    """A request of the person of ``page`` (their browser's cookies)."""
    r = page.request.post(url + path, data=body)
    assert r.status == status, r.text()
    return r.json()


def finished_game(black, white, url: str, loser, **choices) -> str:
    """A Keil game of side 3 between two accounts online, resigned at once by ``loser``."""
    made = post(black, url, "/api/games", {"game": "keil", "size": 3, "opponent": "friend", "color": "black",
                                           **choices}, 201)
    post(white, url, f"/api/games/{made['id']}/join", {"secret": made["invite"].rsplit("/", 1)[1]})
    post(loser, url, f"/api/games/{made['id']}/resign", {})
    return made["id"]


def test_a_search_opens_a_game_in_review_and_a_profile_s_challenge_reaches_the_player(sqlite_servers, person):
    url = sqlite_servers.url(0)
    ann, bea, cy, visitor = person(), person(), person(), person()
    for page, name in ((ann, "Ann"), (bea, "Bea"), (cy, "Cy")):
        post(page, url, "/api/account/signup", {"name": name, "password": "correct horse battery"}, 201)
    public = finished_game(ann, bea, url, ann, public="yes")
    private = finished_game(ann, bea, url, bea)

    cy.goto(url + "/games")
    rows = cy.get_by_test_id("archive-row")
    expect(rows).to_have_count(1)  # the private game is not listed to Cy
    cy.get_by_test_id("archive-player").fill("ann")
    cy.get_by_test_id("archive-result").select_option("white")
    cy.get_by_test_id("archive-search").click()
    cy.wait_for_url(re.compile(r"/games\?player=ann&result=white$"))
    expect(rows).to_have_count(1)
    expect(rows).to_contain_text("Ann vs Bea")
    expect(rows).to_contain_text("White wins: Black resigned")
    assert rows.get_attribute("data-game") == public
    cy.get_by_test_id("archive-row-link").click()
    cy.wait_for_url(f"{url}/game/{public}")
    expect(cy.get_by_test_id("status")).to_have_text("White wins: Black resigned")
    expect(cy.get_by_test_id("analyze")).to_be_visible()  # a finished game opens to its analysis
    cy.goto(url + "/games?from=2026-13-01")
    expect(cy.get_by_test_id("message")).to_contain_text("from must be a date written YYYY-MM-DD")

    cy.goto(url + "/players/Ann")
    expect(cy.get_by_test_id("record-keil")).to_contain_text("Keil")
    expect(cy.get_by_test_id("recent-game")).to_have_count(1)
    expect(cy.get_by_test_id("archive-link")).to_have_attribute("href", "/games?player=Ann")
    with cy.expect_download() as download:
        cy.get_by_test_id("sgf-download").click()
    assert download.value.suggested_filename == "hexstones-Ann-games.sgf"
    (record,) = read_collection(Path(download.value.path()).read_text())
    assert (record.info["black"], record.info["white"], record.info["result"]) == ("Ann", "Bea", "W+R")
    expect(cy.get_by_test_id("challenge-form")).to_be_hidden()
    cy.get_by_test_id("challenge").click()
    cy.get_by_test_id("challenge-size").select_option("5")
    cy.get_by_test_id("challenge-send").click()
    cy.wait_for_url(re.compile(r"/seek/[0-9a-f]+$"))
    expect(cy.get_by_test_id("seek-text")).to_contain_text("You challenge Ann: Keil, board side 5")

    ann.goto(url + "/lobby")
    expect(ann.get_by_test_id("challenge")).to_contain_text("Cy challenges you: Keil, board side 5")
    ann.goto(url + "/players/Ann")  # one's own profile: every game, no challenge
    expect(ann.get_by_test_id("recent-game")).to_have_count(2)
    expect(ann.get_by_test_id("record-keil")).to_contain_text("Keil")
    expect(ann.get_by_test_id("challenge")).to_be_hidden()
    expect(ann.get_by_test_id("challenge-sign-in")).to_be_hidden()
    visitor.goto(url + "/players/Ann")  # no account: asked to sign in
    expect(visitor.get_by_test_id("challenge-sign-in")).to_be_visible()
    expect(visitor.get_by_test_id("challenge")).to_be_hidden()
    expect(visitor.get_by_test_id("recent-game")).to_have_count(1)
    assert private not in visitor.content()
