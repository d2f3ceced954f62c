"""Email notices of correspondence games, sent to a real SMTP server (aiosmtpd) started by
the test: "your move" after each move, "your time runs low" once a turn, the unsubscribe
link in every message, and the refusals of bad choices. The app reads a clock the test
moves; the server's own threads (the time keeper, the mailer) do the sending."""

from __future__ import annotations

import email
import email.policy
import re
import subprocess
import sys
import threading
import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*")

from aiosmtpd.controller import Controller  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from hexstones.web import create_app  # noqa: E402
from hexstones.web.mail import MailSettings  # noqa: E402
from serving import free_port  # noqa: E402
from test_web_clock import DAY, played, signed_up, timed_game, wait_until  # noqa: E402


class Inbox:
    """What the SMTP server received: each message parsed."""

    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 (aiosmtpd's name)
        with self.lock:
            self.messages.append(email.message_from_bytes(envelope.content, policy=email.policy.default))
        return "250 OK"

    def to(self, address: str) -> list:
        with self.lock:
            return [m for m in self.messages if m["To"] == address]


@pytest.fixture
def smtp():
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    yield controller, inbox
    controller.stop()


@pytest.fixture
def mailing(db, smtp, clock):
    controller, inbox = smtp
    settings = MailSettings("127.0.0.1", controller.port, "games@hexstones.test", "http://hex.test/")
    app = create_app(db, clock=clock, mail=settings)
    with TestClient(app) as a, TestClient(app) as b:
        signed_up(a, "Ann")
        signed_up(b, "Bea")
        yield a, b, clock, inbox


def body(message) -> str:
    return message.get_body(("plain",)).get_content()


def test_your_move_and_low_time_notices_arrive_and_the_link_unsubscribes(mailing):
    a, b, clock, inbox = mailing
    r = b.put("/api/account/mail", json={"address": "bea@example.org", "your_turn": True, "low_time": True})
    assert r.status_code == 200, r.text
    assert r.json() == {"available": True, "address": "bea@example.org", "your_turn": True, "low_time": True}
    gid = timed_game(a, b, "days:3")
    played(a, gid, "a1")
    (notice,) = wait_until(lambda: inbox.to("bea@example.org"), "the your-move notice")
    assert notice["Subject"] == "Your move: Keil (side 5) against Ann"
    assert f"http://hex.test/game/{gid}" in body(notice) and "3 days" in body(notice)
    unsubscribe = re.fullmatch(r"<(http://hex\.test/unsubscribe/[A-Za-z0-9_-]+)>", notice["List-Unsubscribe"].strip())
    assert unsubscribe and unsubscribe.group(1) in body(notice)
    played(b, gid, "e5")
    played(a, gid, "b1")
    wait_until(lambda: len(inbox.to("bea@example.org")) == 2, "the second your-move notice")
    clock.advance(2.1 * DAY)  # under a third of a move's days left on Bea's clock
    low = wait_until(lambda: [m for m in inbox.to("bea@example.org") if "low" in m["Subject"]], "the low-time notice")
    assert low[0]["Subject"] == "Your time runs low: Keil (side 5) against Ann"
    assert "move before it runs out" in body(low[0])
    assert inbox.to("ann@example.org") == []  # Ann asked for nothing
    notices = a.app.state.notices
    notices.look()  # another look, as the time keeper's next round: no second notice this turn
    notices.mailer.flush()
    assert len([m for m in inbox.to("bea@example.org") if "low" in m["Subject"]]) == 1
    # The link: its page asks first; the button's request turns every notice off.
    token = unsubscribe.group(1).rsplit("/", 1)[1]
    assert a.get(f"/unsubscribe/{token}").status_code == 200
    assert b.get("/api/account/mail").json()["your_turn"] is True  # opening the page changed nothing
    assert a.post(f"/api/unsubscribe/{token}").status_code == 200
    assert b.get("/api/account/mail").json() == {"available": True, "address": "bea@example.org",
                                                 "your_turn": False, "low_time": False}
    played(b, gid, "d5")
    played(a, gid, "c1")
    assert a.post("/api/unsubscribe/not-a-token").status_code == 404
    assert a.get("/unsubscribe/not-a-token").status_code == 404
    notices.mailer.flush()
    assert len(inbox.to("bea@example.org")) == 3


def test_a_notice_is_written_in_the_language_its_account_reads(mailing):
    a, b, clock, inbox = mailing
    assert b.put("/api/account/language", json={"language": "ko"}).status_code == 200
    assert b.put("/api/account/mail", json={"address": "bea@example.org", "your_turn": True,
                                            "low_time": True}).status_code == 200
    gid = timed_game(a, b, "days:3")
    played(a, gid, "a1")  # Ann reads English: her browser has no language, her account none
    (notice,) = wait_until(lambda: inbox.to("bea@example.org"), "the your-move notice")
    assert notice["Subject"] == "둘 차례입니다: Keil (한 변 5), 상대 Ann"
    assert "남은 시간: 3일." in body(notice) and "이 메일을 그만 받으려면: http://hex.test/unsubscribe/" in body(notice)
    played(b, gid, "e5")
    played(a, gid, "b1")
    wait_until(lambda: len(inbox.to("bea@example.org")) == 2, "the second your-move notice")
    clock.advance(2.1 * DAY)
    low = wait_until(lambda: [m for m in inbox.to("bea@example.org") if "얼마 남지" in m["Subject"]],
                     "the low-time notice")
    assert "시간이 다 되기 전에 두세요" in body(low[0]) and re.search(r"\d+시간", body(low[0]))


@pytest.mark.parametrize("choice, words", [
    ({"address": "not an address", "your_turn": True}, "give an email address"),
    ({"address": "a@b.org", "your_turn": "yes"}, "your_turn is true or false"),
    ({"address": None}, "give an email address"),
    ({"address": "a@b.org", "weekly": True}, "unknown"),
])
def test_bad_mail_choices_are_refused_and_change_nothing(mailing, choice, words):
    a, _, _, _ = mailing
    r = a.put("/api/account/mail", json=choice)
    assert r.status_code == 400 and words in r.json()["detail"], r.text
    assert a.get("/api/account/mail").json()["address"] is None


def test_a_server_without_smtp_sends_nothing_and_says_so(client):
    signed_up(client, "Ann")
    assert client.get("/api/account/mail").json()["available"] is False
    r = client.put("/api/account/mail", json={"address": "ann@example.org", "your_turn": True})
    assert r.status_code == 409 and "--smtp" in r.json()["detail"]


def test_serve_refuses_incomplete_mail_options(tmp_path):
    run = subprocess.run([sys.executable, "-m", "hexstones.cli", "serve", "--db", str(tmp_path / "g.db"),
                          "--smtp", "localhost:25"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "--smtp needs --mail-from" in run.stderr
