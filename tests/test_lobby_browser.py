"""The lobby end to end: separate browser contexts are separate people, on real servers.

B's lobby is open when A seeks an opponent from a link; the seek appears on B's page by
itself, B accepts it, and both pages land on the same game (A's by itself, from its
waiting page); a seek A withdraws leaves B's lobby by itself. The servers come from the
``game_servers`` fixture (conftest.py): on PostgreSQL, A and B use different processes.

A challenge (on SQLite only: its accept is a seek's, tested above on both): B has an
account, A challenges B by name from the lobby's form; B's open lobby shows it by itself
(with a notification), B accepts, and both land on the game, which the watch page lists.

Nothing waits for a time: every wait is for a condition on a page, with a generous bound.
"""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

import pytest

from serving import CHROMIUM, WAIT_MS

pytestmark = pytest.mark.slow

if not Path(CHROMIUM).exists():
    pytest.skip(f"no chromium at {CHROMIUM}", allow_module_level=True)

from playwright.sync_api import expect  # noqa: E402

expect.set_options(timeout=WAIT_MS)


def open_lobby(page, url: str) -> None:
    """``page`` shows the lobby, listening for changes, with no seek in it."""
    page.goto(url + "/lobby")
    expect(page.locator("body[data-live]")).to_have_count(1)  # its WebSocket is open
    expect(page.get_by_test_id("seeks")).to_contain_text("No open seeks")
    page.evaluate("window.neverReloaded = true")


def test_a_seek_appears_in_the_lobby_is_accepted_and_both_play_and_a_withdrawn_one_goes(game_servers, person):
    a, b = person(), person()
    open_lobby(b, game_servers.url(1))
    a.goto(f"{game_servers.url(0)}/new?game=keil&size=5&opponent=seek&clock=fischer:15:0")
    a.wait_for_url(re.compile(r"/seek/[0-9a-f]+$"))
    expect(a.get_by_test_id("seek-text")).to_contain_text("You seek an opponent: Keil, board side 5")
    expect(a.get_by_test_id("withdraw")).to_be_visible()
    seek = b.get_by_test_id("seek")
    expect(seek).to_have_count(1)  # without a reload
    expect(seek).to_contain_text("Keil, board side 5, komi 6, 0:15+0, casual, private")
    assert b.evaluate("window.neverReloaded") is True
    seek.get_by_test_id("accept").dblclick()  # a double click accepts once, with no error
    b.wait_for_url(re.compile(r"/game/[0-9a-f]+$"))
    a.wait_for_url(re.compile(r"/game/[0-9a-f]+$"))  # by itself, from the waiting page
    assert a.url.rsplit("/", 1)[1] == b.url.rsplit("/", 1)[1]
    expect(a.locator("#seats")).to_contain_text("(you)")
    expect(b.locator("#seats")).to_contain_text("(you)")
    play_until_a_stops(game_servers, a, b)

    open_lobby(b, game_servers.url(1))
    a.goto(f"{game_servers.url(0)}/new?game=keil&size=5&opponent=seek&clock=days:3")
    a.wait_for_url(re.compile(r"/seek/"))
    expect(b.get_by_test_id("seek")).to_contain_text("3 days a move")
    a.get_by_test_id("withdraw").click()
    expect(a.get_by_test_id("seek-status")).to_have_text("This seek was withdrawn.")
    expect(b.get_by_test_id("seek")).to_have_count(0)
    assert b.evaluate("window.neverReloaded") is True


def api_state(url: str, gid: str) -> dict:
    with urllib.request.urlopen(f"{url}/api/games/{gid}") as answer:
        return json.load(answer)


def play_until_a_stops(servers, a, b) -> None:
    """Both play on their Fischer clocks (each side's first move free, then a timed one)
    until it is A's turn; A stops, and loses on time on both pages, decided once (however
    many server processes watch the game's deadline)."""
    gid = a.url.rsplit("/", 1)[1]
    a_color = a.evaluate("import('/static/game.js').then((game) => game.currentState().you[0])")
    plies = 0
    while True:
        mover = a if api_state(servers.url(0), gid)["to_move"] == a_color else b
        if plies >= 4 and mover is a:
            break
        expect(mover.get_by_test_id("status")).to_contain_text("(you)")
        mover.locator("[data-point][data-legal]").first.click()
        plies += 1
        for page in (a, b):
            expect(page.locator("#movelist button")).to_have_count(plies + 1)
    before = api_state(servers.url(0), gid)
    winner = "White" if before["to_move"] == "black" else "Black"
    for page in (a, b):
        expect(page.get_by_test_id("status")).to_have_text(f"{winner} wins on time")
        expect(page.get_by_test_id(f"clock-{before['to_move']}")).to_have_text("0:00")
    after = api_state(servers.url(-1), gid)
    assert after["result"]["reason"] == "time" and after["revision"] == before["revision"] + 1


NOTES = """window.__notes = [];
const Shown = window.Notification;
window.Notification = class extends Shown {
  constructor(title, options) { super(title, options); window.__notes.push(title + ": " + options.body); }
};"""  # records each notification a page shows


def test_a_challenge_by_name_reaches_the_players_open_lobby_who_accepts_it(sqlite_servers, person):
    a, b, c = person(), person(), person()
    url = sqlite_servers.url(0)
    b.context.grant_permissions(["notifications"], origin=url)
    b.context.add_init_script(NOTES)
    b.goto(url + "/account")
    b.get_by_test_id("signup-name").fill("Bea")
    b.get_by_test_id("signup-password").fill("correct horse")
    b.get_by_test_id("signup").click()
    expect(b.get_by_test_id("who")).to_have_text("Signed in as Bea.")
    home = b.context.new_page()  # B's start page is open too
    home_errors: list[str] = []
    home.on("pageerror", lambda e: home_errors.append(str(e)))
    home.goto(url + "/")
    expect(home.get_by_test_id("account-link")).to_have_text("Bea")
    open_lobby(b, url)
    expect(b.get_by_test_id("challenges")).to_contain_text("No one is challenging you")

    a.goto(url + "/lobby")
    a.locator("#seek-size").select_option("5")
    a.get_by_test_id("seek-public").check()
    a.get_by_test_id("challenge-to").fill("Nobody")
    a.get_by_test_id("challenge-submit").click()
    expect(a.get_by_test_id("message")).to_contain_text("no player named 'Nobody'")  # said here, nothing made
    a.get_by_test_id("challenge-to").fill("bea")
    a.get_by_test_id("challenge-to").press("Enter")  # Enter in the name challenges too
    a.wait_for_url(re.compile(r"/seek/[0-9a-f]+$"))
    expect(a.get_by_test_id("seek-text")).to_contain_text("You challenge Bea: Keil, board side 5")
    expect(a.get_by_test_id("seek-status")).to_have_text("Waiting for Bea to accept or decline…")

    challenge = b.get_by_test_id("challenge")
    expect(challenge).to_have_count(1)  # without a reload
    expect(challenge).to_contain_text("A guest challenges you: Keil, board side 5")
    expect(b.get_by_test_id("seek")).to_have_count(0)  # not in the public list
    assert b.evaluate("window.neverReloaded") is True
    b.wait_for_function("window.__notes.length === 1")
    assert b.evaluate("window.__notes")[0].startswith("hexstones: a challenge: A guest challenges you: Keil")
    expect(home.get_by_test_id("challenge-line")).to_have_text("A guest challenges you: open the lobby")
    challenge.get_by_test_id("accept").click()
    b.wait_for_url(re.compile(r"/game/[0-9a-f]+$"))
    a.wait_for_url(re.compile(r"/game/[0-9a-f]+$"))  # by itself, from the waiting page
    assert a.url.rsplit("/", 1)[1] == b.url.rsplit("/", 1)[1]
    expect(a.locator("#seats")).to_contain_text("(you)")
    expect(b.locator("#seats")).to_contain_text("Bea (you)")

    c.goto(url + "/watch")  # a public game: a third person finds it on the watch page
    watched = c.get_by_test_id("watch-game")
    expect(watched).to_have_count(1)
    expect(watched).to_contain_text("Keil, board side 5")
    expect(watched).to_contain_text("0 moves, black to play")
    expect(watched.locator("[data-clock=black]")).to_have_text(re.compile(r"^\d+:\d\d$"))
    watched.get_by_role("link").click()
    c.wait_for_url(re.compile(r"/game/[0-9a-f]+$"))
    assert c.url == a.url
    assert home_errors == [], f"JavaScript errors on the start page: {home_errors}"
