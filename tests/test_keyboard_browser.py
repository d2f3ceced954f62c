"""Play without a mouse: a whole Keil side-4 game at one screen played with the keyboard
alone (Tab to the board, arrow keys, Enter, P and B), the live region saying each move in
words, as a screen reader reads it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from serving import CHROMIUM, WAIT_MS

pytestmark = pytest.mark.slow

if not Path(CHROMIUM).exists():
    pytest.skip(f"no chromium at {CHROMIUM}", allow_module_level=True)

from playwright.sync_api import expect  # noqa: E402

from test_browser import GAME_JS  # noqa: E402

expect.set_options(timeout=WAIT_MS)


def state(page) -> dict:
    return page.evaluate(f"{GAME_JS}.then((game) => game.currentState())")


def test_a_whole_game_with_the_keyboard_alone_each_move_said_in_words(module_server, person):
    page = person()
    page.goto(f"{module_server.url}/new?game=keil&size=4&opponent=human")
    expect(page.get_by_test_id("status")).to_have_text("Black to move")
    for _ in range(40):  # Tab reaches the board from the top of the page
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.dataset.testid") == "board":
            break
    else:
        pytest.fail("Tab never reached the board")
    note, announce = page.get_by_test_id("cursor-note"), page.get_by_test_id("announce")
    expect(note).to_contain_text("you may play here")
    keys = ["ArrowRight", "ArrowUp", "ArrowLeft", "Shift+ArrowUp", "ArrowDown", "Shift+ArrowDown"]
    for ply in range(200):
        s = state(page)
        if s["over"]:
            break
        mover = s["to_move"].capitalize()
        for press in range(60):  # walk the cursor to a point where the side to move may play
            if "you may play here" in note.inner_text():
                break
            page.keyboard.press(keys[(press // 3) % len(keys)])
        point = re.match(r"(\w+):", note.inner_text()).group(1)
        if "you may play here" in note.inner_text() and ply < 30:
            page.keyboard.press("Enter")
            expect(announce).to_have_text(re.compile(rf"^{mover} {point}(; .*)?(\..*)?$"))
        else:  # the board is full enough: the button, then passes, end it
            key = "b" if page.locator("#button").is_visible() and page.locator("#button").is_enabled() else "p"
            page.keyboard.press(key)
            words = "takes the button" if key == "b" else "passes"
            expect(announce).to_contain_text(f"{mover} {words}")
        expect(page.locator("#movelist button")).to_have_count(ply + 2)
    else:
        pytest.fail("the game did not end")
    expect(announce).to_contain_text("wins")
    assert page.evaluate("document.activeElement.dataset.testid") == "board"  # the focus stayed


def test_the_text_view_lists_every_point_by_rows_and_follows_the_moves(module_server, person):
    page = person()
    page.goto(f"{module_server.url}/new?game=keil&size=3&opponent=human")
    expect(page.get_by_test_id("status")).to_have_text("Black to move")
    page.get_by_test_id("text-view").locator("summary").click()
    rows = page.get_by_test_id("text-view-rows").locator("li")
    expect(rows).to_have_count(5)  # side 3: rows of 3, 4, 5, 4 and 3 points
    assert [len(rows.nth(k).inner_text().split("; ")) for k in range(5)] == [3, 4, 5, 4, 3]
    assert "black stone" not in page.get_by_test_id("text-view-rows").inner_text()
    point = page.locator("[data-point][data-legal]").first.get_attribute("data-point")
    page.locator(f'[data-point="{point}"]').click()
    expect(page.get_by_test_id("status")).to_have_text("White to move")
    expect(page.get_by_test_id("text-view-rows")).to_contain_text(f"{point}: black stone")
    assert page.get_by_test_id("text-view-rows").inner_text().count("stone") == 1
