"""``hexstones bot`` with ``hexstones gtp`` as the outside engine, against a person in the
browser: the bot account and its token are made on the account page; the bot (a real
subprocess, its engine another) declines a challenge beyond its limits, accepts one on a
clock, plays the whole game with the person, who sees it end; the server restarts
mid-game and the bot reconnects and plays on. Ctrl-C stops the bot and quits its engine;
revoking its token on the account page stops it too. An account that has played no game
becomes a bot on its page, its name typed to confirm.

A real ``hexstones serve`` (tests/serving.py), Debian's chromium through Playwright; the
engine plays at level 1 on board side 5, so its moves take a moment; the person places a
few stones, then takes the button (Keil's passes come after it) and passes until the bot
passes too.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from serving import CHROMIUM

pytestmark = pytest.mark.slow

if not Path(CHROMIUM).exists():
    pytest.skip(f"no chromium at {CHROMIUM}", allow_module_level=True)

from playwright.sync_api import expect  # noqa: E402

from serving import WAIT_MS  # noqa: E402

expect.set_options(timeout=WAIT_MS)
WAIT_SECONDS = 120  # bound of a wait for the bot's log or exit: generous on purpose
ENGINE = [sys.executable, "-m", "hexstones.cli", "gtp", "--game", "keil", "--level", "1"]


def bot_account(page, url: str, name: str) -> str:
    """Sign up ``name`` as a bot on the account page and make a token there: the token."""
    page.goto(f"{url}/account")
    page.get_by_test_id("signup-name").fill(name)
    page.get_by_test_id("signup-password").fill("correct horse battery")
    page.get_by_test_id("signup-bot").check()
    page.get_by_test_id("signup").click()
    expect(page.get_by_test_id("who")).to_have_text(f"Signed in as {name} (a bot account).")
    expect(page.get_by_test_id("tokens")).to_contain_text("No token yet.")
    page.get_by_test_id("token-label").fill("test machine")
    page.get_by_test_id("token-make").click()
    expect(page.get_by_test_id("new-token")).to_have_text(re.compile(r"hxb_\S{40,}"))
    expect(page.get_by_test_id("token")).to_contain_text("test machine: made")
    return page.get_by_test_id("new-token").inner_text()


def start_bot(url: str, token: str, log: Path, *extra: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONUNBUFFERED="1", HEXSTONES_BOT_TOKEN=token)  # the token off the command line
    with open(log, "a") as out:
        return subprocess.Popen([sys.executable, "-m", "hexstones.cli", "bot", "--server", url, "--sizes", "3-5",
                                 *extra, "--", *ENGINE], stdout=out, stderr=subprocess.STDOUT, env=env)


def wait_for_log(log: Path, text: str, count: int = 1) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while log.read_text().count(text) < count:
        assert time.monotonic() < deadline, f"the bot's log never said {text!r} {count} times:\n{log.read_text()}"
        time.sleep(0.1)


def challenge(page, url: str, to: str, size: int) -> None:
    """Challenge ``to`` from the lobby's form: Keil on side ``size``, 5 minutes + 3 s, as black."""
    page.goto(f"{url}/lobby")
    page.get_by_test_id("seek-game").select_option("keil")
    page.get_by_test_id("seek-size").select_option(str(size))
    page.get_by_test_id("seek-clock").select_option("fischer:300:3")
    page.check('input[name="color"][value="black"]')
    page.get_by_test_id("challenge-to").fill(to)
    page.get_by_test_id("challenge-submit").click()


def test_a_person_plays_a_whole_game_against_an_outside_engine_through_a_server_restart(module_server, person,
                                                                                        tmp_path):
    server = module_server
    url = server.url
    owner, ann = person(), person()
    token = bot_account(owner, url, "Gizmo")
    log = tmp_path / "bot.log"
    bot = start_bot(url, token, log, "--max-games", "1")
    try:
        wait_for_log(log, "connected to")
        ann.goto(f"{url}/lobby")  # the lobby shows it among the bots
        expect(ann.get_by_test_id("outside-bot")).to_have_text(["Gizmo"])
        # Beyond its limits (side 7 of the form's 5, 7, 9): declined, the reason in its log, the challenger told.
        challenge(ann, url, "Gizmo", 7)
        expect(ann.get_by_test_id("seek-status")).to_have_text("Gizmo declined the challenge.")
        wait_for_log(log, "declined, it plays board sides 3 to 5 only")
        # Within them: accepted at once, and the waiting page goes to the game.
        challenge(ann, url, "gizmo", 5)
        ann.wait_for_url(re.compile(r"/game/"))
        expect(ann.get_by_test_id("clock-black")).to_have_text(re.compile(r"[45]:\d\d"))
        status, moves = ann.get_by_test_id("status"), ann.locator("#movelist button")
        for ply in range(300):
            expect(status).to_have_text(re.compile(r"\(you\)|wins"))
            if "wins" in status.inner_text():
                break
            if ply == 2:  # the bot has answered twice: the server restarts under both
                server.stop()
                # It stopped by itself (uvicorn ends by its signal), not killed 30 s later: the
                # bot's open stream ended with the server.
                assert server.proc.returncode == -signal.SIGTERM
                server.start()
                ann.reload()
                expect(status).to_contain_text("(you)")
            before = moves.count()
            # A few stones, then the button (Keil's passes come after it), then passes.
            choices = ["[data-point][data-legal]"] if ply < 4 else []
            choices += ["#button:enabled", "#pass:enabled", "[data-point][data-legal]"]
            ann.locator(next(c for c in choices if ann.locator(c).count())).first.click()
            expect(moves).not_to_have_count(before)
        expect(status).to_have_text(re.compile(r"^(Black|White) wins"))
        end = status.inner_text()
        assert bot.wait(WAIT_SECONDS) == 0
    finally:
        if bot.poll() is None:
            bot.kill()
    said = log.read_text()
    assert said.count("connected to") == 2 and "connection lost" in said, said
    assert f": {end}\n" in said and "1 game played: stopping" in said, said
    # The bot's profile says it is one; and the game is in its recent games.
    owner.goto(f"{url}/api/players/Gizmo")
    assert '"bot":true' in owner.content().replace(" ", "")


def test_ctrl_c_stops_the_bot_and_quits_its_engine(module_server, person, tmp_path):
    server = module_server
    token = bot_account(person(), server.url, "Stopper")
    log = tmp_path / "bot.log"
    bot = start_bot(server.url, token, log)
    try:
        wait_for_log(log, "connected to")
        engines = [pid for pid in os.listdir("/proc") if pid.isdigit() and _parent(pid) == bot.pid]
        assert len(engines) == 1
        bot.send_signal(signal.SIGINT)
        assert bot.wait(WAIT_SECONDS) == 130
    finally:
        if bot.poll() is None:
            bot.kill()
    assert "stopped" in log.read_text()
    assert not Path(f"/proc/{engines[0]}").exists()  # it quit, and the bot waited for it


def _parent(pid: str) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def test_a_token_revoked_on_the_account_page_stops_the_bot_that_uses_it(module_server, person, tmp_path):
    owner = person()
    token = bot_account(owner, module_server.url, "Revoked")
    log = tmp_path / "bot.log"
    bot = start_bot(module_server.url, token, log)
    try:
        wait_for_log(log, "connected to")
        owner.get_by_test_id("token-revoke").click()
        expect(owner.get_by_test_id("message")).to_have_text("The token test machine is revoked: it works no more.")
        expect(owner.get_by_test_id("token")).to_contain_text("test machine: made")
        expect(owner.get_by_test_id("token")).to_contain_text("revoked")
        expect(owner.get_by_test_id("token-revoke")).to_have_count(0)
        # Its open stream ends at the next keep-alive; reconnecting, the bot is refused, and stops.
        assert bot.wait(WAIT_SECONDS) == 1
    finally:
        if bot.poll() is None:
            bot.kill()
    said = log.read_text()
    assert "token was revoked" in said, said
    assert "the server refused the bot (401): this token was revoked" in said, said


def test_an_account_that_has_played_no_game_becomes_a_bot_on_its_page_once_confirmed(module_server, person):
    page = person()
    page.goto(f"{module_server.url}/account")
    page.get_by_test_id("signup-name").fill("Later")
    page.get_by_test_id("signup-password").fill("correct horse battery")
    page.get_by_test_id("signup").click()
    expect(page.get_by_test_id("who")).to_have_text("Signed in as Later.")
    expect(page.locator("#bot-tokens")).to_be_hidden()
    page.get_by_test_id("bot-confirm").fill("later")  # not the name as written: refused
    page.get_by_test_id("bot-make").click()
    expect(page.get_by_test_id("message")).to_contain_text("exactly as it is written")
    expect(page.get_by_test_id("who")).to_have_text("Signed in as Later.")
    page.get_by_test_id("bot-confirm").fill("Later")
    page.get_by_test_id("bot-make").click()
    expect(page.get_by_test_id("who")).to_have_text("Signed in as Later (a bot account).")
    expect(page.get_by_test_id("tokens")).to_contain_text("No token yet.")
    expect(page.locator("#bot-mark")).to_be_hidden()
