"""Bot accounts through the HTTP API: an account marked a bot (at sign-up, or later with a
confirmation while it has played no game), its tokens (stored as their SHA-256 only,
revocable, never made by a person's account or by a token), the 401s of a wrong or revoked
token, a bot making no seek, and the bot API's event stream: a challenge heard, accepted,
the game heard start, move and end, the stream ended by revoking its token.

The app runs under uvicorn in this process on a real SQLite file (the event stream is an
answer that never ends, which only a real server streams); each person is an httpx client
with a cookie jar of their own.
"""

from __future__ import annotations

import hashlib
import json
import queue
import sqlite3
import threading
import time
from pathlib import Path

import httpx
import pytest

from serving import serving_in_this_process

WAIT_SECONDS = 120  # bound of a wait for a line of the stream: generous on purpose
PASSWORD = "correct horse battery"
CHALLENGE = {"game": "keil", "size": 3, "clock": "fischer:300:5"}


@pytest.fixture
def server(tmp_path):
    """The app under uvicorn in this process: (url, database path)."""
    from hexstones.web import create_app

    db = str(tmp_path / "games.db")
    with serving_in_this_process(create_app(db, ai_processes=1)) as url:
        yield url, db


def browser(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=60)


def sign_up(url: str, name: str, bot: bool = False) -> httpx.Client:
    who = browser(url)
    r = who.post("/api/account/signup", json={"name": name, "password": PASSWORD, "bot": bot})
    assert r.status_code == 201, r.text
    return who


def make_token(owner: httpx.Client, label: str = "engine") -> str:
    r = owner.post("/api/account/tokens", json={"label": label})
    assert r.status_code == 201, r.text
    return r.json()["token"]


def program(url: str, token: str) -> httpx.Client:
    """A bot's program: no cookie, its token in every request."""
    return httpx.Client(base_url=url, timeout=60, headers={"Authorization": f"Bearer {token}"})


def rows(db: str, sql: str) -> list:
    with sqlite3.connect(db) as con:
        return con.execute(sql).fetchall()


def test_a_bot_account_made_at_sign_up_gets_tokens_that_the_database_holds_only_hashed(server):
    url, db = server
    owner = sign_up(url, "Deep Hex", bot=True)
    assert owner.get("/api/account").json() == {"signed_in": True, "kind": "account", "name": "Deep Hex",
                                                 "bot": True, "language": None}
    made = owner.post("/api/account/tokens", json={"label": "laptop"}).json()
    token = made["token"]
    assert token.startswith("hxb_") and len(token) > 40
    listed = owner.get("/api/account/tokens").json()["tokens"]
    assert listed == [{"id": made["id"], "label": "laptop", "created": made["created"], "last_used": None,
                       "revoked": None}]
    # The database holds the token's SHA-256, and nowhere the token itself.
    assert rows(db, "SELECT digest, label FROM bot_tokens") == [(hashlib.sha256(token.encode()).hexdigest(),
                                                                 "laptop")]
    for path in Path(db).parent.glob("games.db*"):
        assert token.encode() not in path.read_bytes()
    # The program is the bot account: the API answers it as its account, and marks the use.
    bot = program(url, token)
    assert bot.get("/api/account").json()["name"] == "Deep Hex"
    assert owner.get("/api/account/tokens").json()["tokens"][0]["last_used"] is not None
    # A token makes no tokens: a leaked one cannot make another.
    r = bot.post("/api/account/tokens", json={"label": "more"})
    assert r.status_code == 403 and "sign in to the account in a browser" in r.json()["detail"]
    assert len(rows(db, "SELECT digest FROM bot_tokens")) == 1
    # The bot shows as one: among the bots, and on its profile.
    listed_bots = owner.get("/api/bots").json()["bots"]
    assert [b["name"] for b in listed_bots if b["outside"]] == ["Deep Hex"]
    assert owner.get("/api/players/deep hex").json()["bot"] is True


def test_a_revoked_or_wrong_token_is_a_401_that_says_why(server):
    url, db = server
    owner = sign_up(url, "Hexbot", bot=True)
    token = make_token(owner)
    person = sign_up(url, "Ann")
    assert program(url, token).get("/api/bot/events/none").status_code == 404  # the token works
    tid = owner.get("/api/account/tokens").json()["tokens"][0]["id"]
    r = owner.delete(f"/api/account/tokens/{tid}")
    assert r.status_code == 200 and r.json()["revoked"] is not None
    r = program(url, token).get("/api/account")
    assert r.status_code == 401 and r.json()["detail"] == ("this token was revoked: make a new one on the bot "
                                                          "account's page")
    r = program(url, token[:-1] + ("A" if token[-1] != "A" else "B")).get("/api/account")
    assert r.status_code == 401 and "not a token of this server" in r.json()["detail"]
    r = httpx.get(f"{url}/api/account", headers={"Authorization": "Bearer"})  # no token
    assert r.status_code == 401 and "Bearer TOKEN" in r.json()["detail"]
    # Another scheme is no bot's (a proxy's Basic sign-in): the person's cookie still counts.
    r = person.get("/api/account", headers={"Authorization": "Basic dXNlcjpwYXNz"})
    assert r.status_code == 200 and r.json()["name"] == "Ann"
    # A wrong token with a person's cookie is still refused: the header, not the cookie, says who.
    r = person.get("/api/account", headers={"Authorization": "Bearer hxb_nothing"})
    assert r.status_code == 401
    # Revoking another account's token, or an unknown one, changes nothing.
    other = sign_up(url, "Otherbot", bot=True)
    second = make_token(owner, "second")
    second_id = owner.get("/api/account/tokens").json()["tokens"][0]["id"]
    assert other.delete(f"/api/account/tokens/{second_id}").status_code == 404
    assert owner.delete("/api/account/tokens/0123456789abcdef").status_code == 404
    assert program(url, second).get("/api/account").json()["name"] == "Hexbot"
    assert rows(db, "SELECT count(*) FROM bot_tokens WHERE revoked IS NULL") == [(1,)]


def test_a_persons_account_gets_no_tokens_and_becomes_a_bot_only_deliberately(server):
    url, db = server
    ann = sign_up(url, "Ann")
    r = ann.post("/api/account/tokens", json={"label": "x"})
    assert r.status_code == 403 and "tokens belong to bot accounts" in r.json()["detail"]
    r = browser(url).post("/api/account/tokens", json={})
    assert r.status_code == 401
    assert ann.get("/api/account").json()["bot"] is False
    # Marking it takes its name, written as it is.
    r = ann.post("/api/account/bot", json={"confirm": "ann"})
    assert r.status_code == 400 and '"Ann"' in r.json()["detail"]
    r = ann.post("/api/account/bot", json={"confirm": True})
    assert r.status_code == 400
    assert rows(db, "SELECT bot FROM users WHERE name = 'Ann'") == [(0,)]
    # An account that has played a game is a person's: it cannot become a bot.
    bea = sign_up(url, "Bea")
    assert bea.post("/api/games", json={"game": "keil", "size": 3, "opponent": "ai"}).status_code == 201
    r = bea.post("/api/account/bot", json={"confirm": "Bea"})
    assert r.status_code == 409 and "played games as a person" in r.json()["detail"]
    assert rows(db, "SELECT bot FROM users WHERE name = 'Bea'") == [(0,)]
    # Ann has played none: confirmed, her account is a bot's, for good.
    r = ann.post("/api/account/bot", json={"confirm": "Ann"})
    assert r.status_code == 200 and r.json() == {"bot": True, "name": "Ann"}
    assert ann.post("/api/account/bot", json={"confirm": "Ann"}).status_code == 409
    assert ann.get("/api/account").json()["bot"] is True
    assert ann.post("/api/account/tokens", json={}).json()["label"] == "token"
    r = browser(url).post("/api/account/signup", json={"name": "Cy", "password": PASSWORD, "bot": "yes"})
    assert r.status_code == 400 and rows(db, "SELECT count(*) FROM users WHERE name = 'Cy'") == [(0,)]


def test_a_bot_makes_no_seek_and_cannot_play_itself(server):
    url, db = server
    owner = sign_up(url, "Selfish", bot=True)
    bot = program(url, make_token(owner))
    for who in (bot, owner):  # with its token, or signed in
        r = who.post("/api/seeks", json={**CHALLENGE, "rated": "yes"})
        assert r.status_code == 403 and "a bot makes no seeks" in r.json()["detail"]
    r = bot.post("/api/challenges", json={**CHALLENGE, "rated": "yes", "to": "selfish"})
    assert r.status_code == 400 and "cannot challenge yourself" in r.json()["detail"]
    assert rows(db, "SELECT count(*) FROM seeks") == [(0,)]


class Stream:
    """A bot's event stream, read in a thread: its lines as JSON objects, and the number
    of keep-alive lines."""

    def __init__(self, url: str, token: str):
        self.lines: queue.Queue = queue.Queue()
        self.keep_alives = 0
        self.client = program(url, token)
        self.response = self.client.send(self.client.build_request("GET", "/api/bot/events"), stream=True)
        assert self.response.status_code == 200
        assert self.response.headers["content-type"].startswith("application/x-ndjson")
        assert self.response.headers["x-accel-buffering"] == "no"  # a proxy passes each line at once
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            pending = b""
            for chunk in self.response.iter_bytes():  # by hand: httpx's iter_lines drops empty lines
                pending += chunk
                *complete, pending = pending.split(b"\n")
                for text in complete:
                    if text.strip():
                        self.lines.put(json.loads(text))
                    else:
                        self.keep_alives += 1
        except httpx.HTTPError:
            pass

    def next(self, kind: str) -> dict:
        """The next line of type ``kind`` (others are skipped)."""
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no {kind} line within {WAIT_SECONDS} s"
            try:
                event = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if event["type"] == kind:
                return event

    def close(self) -> None:
        self.response.close()
        self.client.close()


def test_the_event_stream_tells_the_bot_of_a_challenge_and_of_its_game(server, monkeypatch):
    from hexstones.web import bot_events

    monkeypatch.setattr(bot_events, "KEEP_ALIVE_SECONDS", 0.5)  # the app is in this process: a quick beat
    url, db = server
    owner = sign_up(url, "Streamer", bot=True)
    token = make_token(owner)
    ann = sign_up(url, "Ann")
    early = ann.post("/api/challenges", json={**CHALLENGE, "to": "Streamer", "color": "black"}).json()
    stream = Stream(url, token)
    try:
        assert stream.next("connected") == {"type": "connected", "name": "Streamer", "keep_alive": 0.5}
        # A challenge made before the stream opened is told at once; one made after, as it comes.
        assert stream.next("challenge")["challenge"]["id"] == early["id"]
        r = ann.post("/api/challenges", json={**CHALLENGE, "to": "streamer", "color": "black", "rated": "yes"})
        later = r.json()
        heard = stream.next("challenge")["challenge"]
        assert heard["id"] == later["id"] and heard["to_you"] and heard["rated"] and heard["size"] == 3
        bot = program(url, token)
        r = bot.post(f"/api/challenges/{early['id']}/decline", json={})
        assert r.status_code == 200 and r.json()["status"] == "declined"
        assert stream.next("challenge_closed") == {"type": "challenge_closed", "id": early["id"],
                                                   "status": "declined"}
        r = bot.post(f"/api/challenges/{later['id']}/accept", json={})
        assert r.status_code == 200, r.text
        game_id = r.json()["game"]
        start = stream.next("game_start")["game"]
        assert start["id"] == game_id and start["colors"] == ["white"] and start["to_move"] == "black"
        assert start["your_turn"] is False and start["balance"]["option"] == "komi"
        assert start["clock"]["control"] == "fischer:300:5" and start["players"]["black"] == "Ann"
        r = ann.post(f"/api/games/{game_id}/moves", json={"move": "c3"})
        assert r.status_code == 200, r.text
        state = stream.next("game_state")["game"]
        assert state["moves"] == ["c3"] and state["your_turn"] and "a1" in state["legal"]
        # The bot moves with its token on the game API's own route; not out of turn.
        r = bot.post(f"/api/games/{game_id}/moves", json={"move": "a1", "ply": 1})
        assert r.status_code == 200, r.text
        assert bot.post(f"/api/games/{game_id}/moves", json={"move": "b1"}).status_code == 403
        assert bot.get(f"/api/bot/games/{game_id}").json()["moves"] == ["c3", "a1"]
        r = ann.post(f"/api/games/{game_id}/resign", json={})
        assert r.status_code == 200, r.text
        end = stream.next("game_end")["game"]
        assert end["over"] and end["result"]["winner"] == "white" and end["end"] == "White wins: Black resigned"
        # A quiet stream beats; revoking the token ends it (at the next beat).
        deadline = time.monotonic() + WAIT_SECONDS
        while not stream.keep_alives:
            assert time.monotonic() < deadline, "no keep-alive line"
            time.sleep(0.05)
        tid = owner.get("/api/account/tokens").json()["tokens"][0]["id"]
        assert owner.delete(f"/api/account/tokens/{tid}").status_code == 200
        assert stream.next("revoked") == {"type": "revoked"}
    finally:
        stream.close()
    # The event stream and a game's state are the bot's program's: no cookie opens them.
    assert owner.get("/api/bot/events").status_code == 401
    assert ann.get(f"/api/bot/games/{game_id}").status_code == 401
