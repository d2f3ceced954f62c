"""Clocks in the browser: two people (separate browser contexts) play on a clock and one of
them stops moving; the flag falls on every page, also with the pages closed and the server
restarted meanwhile; byo-yomi goes into its periods; a correspondence game's day runs out.

The Fischer games run on real servers (``hexstones serve``) in real time: 15 seconds is the
shortest clock there is. The byo-yomi and correspondence games run on a server in this
process whose clock the test moves (``create_app(clock=...)`` under uvicorn), so a day
passes at once. Every wait is for a condition on a page, with a generous bound.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from serving import CHROMIUM, serving_in_this_process

pytestmark = pytest.mark.slow

if not Path(CHROMIUM).exists():
    pytest.skip(f"no chromium at {CHROMIUM}", allow_module_level=True)

from playwright.sync_api import expect  # noqa: E402

import hexstones  # noqa: E402
from serving import WAIT_MS  # noqa: E402
from test_browser import GAME_JS  # noqa: E402
from test_online_browser import invite_and_join, same_moves  # noqa: E402

expect.set_options(timeout=WAIT_MS)
CLOCK_TEXT = re.compile(r"\d+:\d\d|\d+ days?( \d+ h)?")


def click_a_point(page) -> None:
    page.locator("[data-point][data-legal]").first.click()


def play_in_turn(a, b, c, plies: int) -> None:
    """``plies`` moves, A (black) and B in turn, each seen on every page before the next."""
    for ply in range(plies):
        mover = a if ply % 2 == 0 else b
        expect(mover.get_by_test_id("status")).to_contain_text("(you)")
        click_a_point(mover)
        same_moves((a, b, c), ply + 1)


def test_a_player_who_stops_moving_loses_on_time_on_every_page(sqlite_servers, person):
    # (With two server processes on PostgreSQL: the lobby's browser test, which also counts
    # the end's one decision.)
    a, b, c, gid = invite_and_join(sqlite_servers, person,
                                   "game=keil&size=5&opponent=friend&color=black&clock=fischer:15:0")
    for page in (a, b, c):
        expect(page.get_by_test_id("clock-black")).to_have_text("0:15")
        expect(page.get_by_test_id("clock-white")).to_have_text("0:15")
    expect(a.locator("#clock-black .clock-note")).to_contain_text("first move within")
    play_in_turn(a, b, c, 4)
    # Black (A) stops: its 15 s run out on every page, which then shows the server's verdict.
    for page in (a, b, c):
        expect(page.get_by_test_id("status")).to_have_text("White wins on time")
        expect(page.get_by_test_id("clock-black")).to_have_text("0:00")
    expect(b.get_by_test_id("clock-white")).to_have_text(CLOCK_TEXT)
    assert a.locator("[data-point][data-legal]").count() == 0  # nothing left to play


def test_the_flag_falls_with_the_pages_closed_and_the_server_restarted(sqlite_servers, person):
    servers = sqlite_servers
    a, b, c, gid = invite_and_join(servers, person,
                                   "game=keil&size=5&opponent=friend&color=black&clock=fischer:15:0")
    play_in_turn(a, b, c, 3)
    for page in (a, b, c):
        page.close()
    servers.restart()  # white's 15 s run out before, during or after the restart
    again = person()
    again.goto(f"{servers.url(0)}/game/{gid}")
    expect(again.get_by_test_id("status")).to_have_text("Black wins on time")
    expect(again.get_by_test_id("clock-white")).to_have_text("0:00")


# -- a server whose clock the test moves ------------------------------------------------------


@pytest.fixture
def hand_server(tmp_path, clock):
    """A server in this process (uvicorn, the app's real stack) on a clock the test moves:
    (url, clock)."""
    from hexstones.web import create_app

    with serving_in_this_process(create_app(str(tmp_path / "games.db"), ai_processes=1, clock=clock)) as url:
        yield url, clock


class OneServer:
    """What invite_and_join asks of the servers: every person on the one server."""

    def __init__(self, url: str):
        self.port = int(url.rsplit(":", 1)[1])
        self.servers = [self]
        self._url = url

    def url(self, index: int) -> str:
        return self._url


def test_byo_yomi_goes_into_its_periods_on_the_page(hand_server, person):
    url, clock = hand_server
    a, b, c, gid = invite_and_join(OneServer(url), person,
                                   "game=keil&size=5&opponent=friend&color=black&clock=byoyomi:20:3:30")
    expect(a.get_by_test_id("clock-black")).to_have_text("0:20")
    expect(a.locator("#clock-black .clock-note")).to_contain_text("first move within")
    play_in_turn(a, b, c, 2)
    expect(b.locator("#clock-black .clock-note")).to_have_text("then 3 × 30 s")
    clock.advance(50)  # main time spent, and the first period: black is in its second
    b.reload()
    expect(b.get_by_test_id("clock-black")).to_have_text(re.compile(r"0:(0\d|10)"))
    expect(b.locator("#clock-black .clock-note")).to_have_text("2 × 30 s left")
    click_a_point(a)  # a move in time keeps the period it was made in
    same_moves((a, b, c), 3)
    expect(b.get_by_test_id("clock-black")).to_have_text("0:30")
    click_a_point(b)
    same_moves((a, b, c), 4)
    clock.advance(61)  # both periods left run out while black thinks
    for page in (a, b, c):
        expect(page.get_by_test_id("status")).to_have_text("White wins on time")


def test_a_correspondence_day_runs_out(hand_server, person):
    url, clock = hand_server
    a, b, c, gid = invite_and_join(OneServer(url), person,
                                   "game=dehil&size=3&opponent=friend&color=black&clock=days:1")
    expect(a.get_by_test_id("clock-black")).to_have_text("1 day")
    play_in_turn(a, b, c, 3)  # each side's first move is free; black's second earns a day
    expect(b.get_by_test_id("clock-black")).to_have_text("2 days")
    # While white thinks, black leaves a conditional answer; white plays into it.
    game = hexstones.new_game("dehil", size=3)
    for m in a.evaluate(f"{GAME_JS}.then((game) => game.currentState().moves)"):
        game.play(m)
    expected = game.legal_moves()[0]
    game.play(expected)
    answer = next(m for m in game.legal_moves() if m not in ("pass", "button"))
    a.get_by_test_id("conditional").locator("summary").click()
    a.get_by_test_id("conditional-lines").fill(f"{expected} {answer}")
    a.get_by_test_id("conditional-save").click()
    expect(a.get_by_test_id("conditional-note")).to_have_text("1 line waiting")
    b.locator(f'[data-point="{expected}"]').click() if expected not in ("pass", "button") else b.click(f"#{expected}")
    same_moves((a, b, c), 5)  # the answer came at once, on every page
    assert c.evaluate(f"{GAME_JS}.then((game) => game.currentState().moves)")[-1] == answer
    # White's second move earned a day: two days in the bank, of which 44 hours pass.
    clock.advance(44 * 3600)
    b.reload()
    expect(b.get_by_test_id("clock-white")).to_have_text("4:00:00")
    expect(b.locator("#clock-white")).to_have_class(re.compile(r"\blow\b"))  # under a day left
    clock.advance(4 * 3600)  # white's day is gone: the server ends the game, every page hears
    for page in (a, b, c):
        expect(page.get_by_test_id("status")).to_have_text("Black wins on time")
