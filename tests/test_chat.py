"""The chat beside a game between two people online, through the HTTP API and in browsers.

Each person is a TestClient of their own (its own cookie jar) on one app and one real
SQLite file: Ann and Bea play, Cy watches. The players write and spectators read; the
players' switches let spectators write; a mute hides the other's messages from the muter
only; bad text is refused and stores nothing; a person's messages are limited; the live
WebSocket tells every page of a new message, across two server processes on PostgreSQL
too. The browser test (slow) checks that a message reaches the other pages live, as text.
"""

from __future__ import annotations

import sqlite3
import threading
import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*")

from fastapi.testclient import TestClient  # noqa: E402

from hexstones.web import create_app  # noqa: E402
from hexstones.web.chat import MAX_TEXT, RATE_LIMIT  # noqa: E402
from test_online import friend_game, join  # noqa: E402

try:  # the browser test's people; without chromium that module skips itself, and the test here
    from test_online_browser import invite_and_join
except pytest.skip.Exception:
    invite_and_join = None


@pytest.fixture
def app(db, clock):
    return create_app(db, clock=clock)


@pytest.fixture
def people(app):
    """Three browsers on one server: Ann, Bea and Cy (guests under their names; Cy holds no
    seat)."""
    with TestClient(app) as a, TestClient(app) as b, TestClient(app) as c:
        for who, name in ((a, "Ann"), (b, "Bea"), (c, "Cy")):
            assert who.post("/api/account/guest", json={"name": name}).status_code == 200
        yield a, b, c


@pytest.fixture
def gid(people) -> str:
    """A game between Ann (black) and Bea (white)."""
    a, b, _ = people
    game = friend_game(a)
    join(b, game)
    return game["id"]


def stored_chat(db: str) -> tuple:
    with sqlite3.connect(db) as con:
        return (con.execute("SELECT game_id, id, role, text, sent FROM chat_messages ORDER BY game_id, id").fetchall(),
                con.execute("SELECT * FROM chat_settings ORDER BY game_id, role").fetchall())


def send(who, gid: str, text, status: int = 201) -> dict:
    r = who.post(f"/api/games/{gid}/chat", json={"text": text})
    assert r.status_code == status, r.text
    return r.json()


def chat(who, gid: str, **params) -> dict:
    r = who.get(f"/api/games/{gid}/chat", params=params)
    assert r.status_code == 200, r.text
    return r.json()


def texts(who, gid: str) -> list[str]:
    return [m["text"] for m in chat(who, gid)["messages"]]


def settle(who, gid: str, status: int = 200, **switches) -> dict:
    r = who.post(f"/api/games/{gid}/chat/settings", json=switches)
    assert r.status_code == status, r.text
    return r.json()


def test_the_players_chat_and_a_spectator_reads(people, gid, clock, db):
    a, b, c = people
    assert chat(c, gid)["messages"] == []
    sent = send(a, gid, "  good luck!\r\nhave fun \n")
    assert sent == {"id": 1, "author": "Ann", "role": "black", "you": True, "sent": clock.now,
                    "text": "good luck!\nhave fun"}  # trimmed, one kind of line end, the server's time
    clock.now += 30
    send(b, gid, "you too")
    seen_by_c = chat(c, gid)
    assert [(m["id"], m["author"], m["role"], m["you"], m["sent"], m["text"]) for m in seen_by_c["messages"]] == [
        (1, "Ann", "black", False, clock.now - 30, "good luck!\nhave fun"),
        (2, "Bea", "white", False, clock.now, "you too")]
    assert (seen_by_c["player"], seen_by_c["role"], seen_by_c["can_write"], seen_by_c["spectators_may_write"],
            seen_by_c["last"]) == (False, None, False, False, 2)
    seen_by_b = chat(b, gid)
    assert [m["you"] for m in seen_by_b["messages"]] == [False, True]
    assert (seen_by_b["player"], seen_by_b["role"], seen_by_b["can_write"], seen_by_b["mute"]) == \
        (True, "white", True, False)
    assert [m["text"] for m in chat(a, gid, since=1)["messages"]] == ["you too"]  # what a page lacks
    assert chat(a, gid, since=10**30)["messages"] == []
    # A browser with no session at all reads too.
    with TestClient(a.app) as stranger:
        assert texts(stranger, gid) == ["good luck!\nhave fun", "you too"]
        r = stranger.post(f"/api/games/{gid}/chat", json={"text": "hello"})
        assert r.status_code == 401 and "session" in r.json()["detail"]
    assert len(stored_chat(db)[0]) == 2


def test_a_spectator_writes_only_while_both_players_allow_it(people, gid, db):
    a, b, c = people
    before = stored_chat(db)
    r = c.post(f"/api/games/{gid}/chat", json={"text": "go black!"})
    assert r.status_code == 403 and "both players allow" in r.json()["detail"]
    r = c.post(f"/api/games/{gid}/chat/settings", json={"spectators_may_write": True})
    assert r.status_code == 403 and "watching" in r.json()["detail"]  # a spectator has no switch
    assert stored_chat(db) == before
    mine = settle(a, gid, spectators_may_write=True)
    assert mine["allows"] == {"black": True, "white": False} and not mine["spectators_may_write"]
    assert not chat(c, gid)["can_write"]
    assert c.post(f"/api/games/{gid}/chat", json={"text": "go black!"}).status_code == 403  # one is not both
    both = settle(b, gid, spectators_may_write=True)
    assert both["allows"] == {"black": True, "white": True} and both["spectators_may_write"]
    assert chat(c, gid)["can_write"]
    assert send(c, gid, "go black!")["role"] == "spectator"
    assert chat(a, gid)["messages"][-1] == {"id": 1, "author": "Cy", "role": "spectator", "you": False,
                                            "sent": chat(a, gid)["messages"][-1]["sent"], "text": "go black!"}
    settle(b, gid, spectators_may_write=False)  # either player closes it again
    assert not chat(c, gid)["can_write"]
    assert c.post(f"/api/games/{gid}/chat", json={"text": "again"}).status_code == 403
    assert texts(a, gid) == ["go black!"]


def test_a_mute_hides_the_others_messages_from_the_muter_only(people, gid, db):
    a, b, c = people
    send(a, gid, "hi")
    send(b, gid, "hello")
    muted = settle(a, gid, mute=True)
    assert muted["mute"] and [m["text"] for m in muted["messages"]] == ["hi"]
    send(b, gid, "are you there?")
    assert texts(a, gid) == ["hi"]
    assert chat(a, gid)["last"] == 3  # stored all the same: a page that asks since its last sees none
    assert texts(b, gid) == texts(c, gid) == ["hi", "hello", "are you there?"]  # the muting is Ann's own
    assert not chat(b, gid)["mute"]
    assert len(stored_chat(db)[0]) == 3
    assert texts(a, gid) == ["hi"] and settle(a, gid, mute=False)["mute"] is False
    assert texts(a, gid) == ["hi", "hello", "are you there?"]  # unmuting shows what was hidden


@pytest.mark.parametrize(("body", "status", "words"), [
    ({"text": ""}, 400, "empty"),
    ({"text": " \n\t "}, 400, "empty"),
    ({"text": "x" * (MAX_TEXT + 1)}, 400, f"more than the {MAX_TEXT}"),
    ({"text": 42}, 400, "must be a string"),
    ({"text": ["hi"]}, 400, "must be a string"),
    ({}, 400, "must be a string"),
    ({"text": "a\x00b"}, 400, "control character"),
    ({"text": "hi", "to": "Bea"}, 400, "unknown field"),
])
def test_bad_messages_are_refused_and_store_nothing(people, gid, db, body, status, words):
    a, _, _ = people
    before = stored_chat(db)
    r = a.post(f"/api/games/{gid}/chat", json=body)
    assert r.status_code == status and words in r.json()["detail"], r.text
    assert stored_chat(db) == before


def test_text_that_is_not_unicode_and_bad_switches_are_refused(people, gid, db):
    a, _, _ = people
    before = stored_chat(db)
    r = a.post(f"/api/games/{gid}/chat", content=b'{"text": "hi \\ud800"}',
               headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "not valid Unicode" in r.json()["detail"]
    assert send(a, gid, "x" * MAX_TEXT)["text"] == "x" * MAX_TEXT  # the longest is fine
    before = stored_chat(db)
    for body, words in [({}, "say what to change"), ({"mute": "yes"}, "true or false"),
                        ({"spectators_may_write": 1}, "true or false"), ({"volume": True}, "unknown field")]:
        r = a.post(f"/api/games/{gid}/chat/settings", json=body)
        assert r.status_code == 400 and words in r.json()["detail"], r.text
    r = a.get(f"/api/games/{gid}/chat", params={"since": "-1"})
    assert r.status_code == 400 and "since" in r.json()["detail"]
    r = a.get(f"/api/games/{gid}/chat", params={"after": "1"})
    assert r.status_code == 400 and "unknown parameter" in r.json()["detail"]
    assert stored_chat(db) == before


def test_a_person_sends_a_limited_number_of_messages(people, gid, db):
    a, b, _ = people
    for n in range(RATE_LIMIT):
        send(a, gid, f"message {n}")
    r = a.post(f"/api/games/{gid}/chat", json={"text": "one too many"})
    assert r.status_code == 429 and f"at most {RATE_LIMIT} every 10 s" in r.json()["detail"], r.text
    assert "try again in" in r.json()["detail"]
    assert len(stored_chat(db)[0]) == RATE_LIMIT
    send(b, gid, "the limit is each person's own")


def test_a_game_at_one_screen_or_against_the_ai_has_no_chat(people, db):
    a, _, _ = people
    for choices in ({"opponent": "ai", "level": 1}, {"opponent": "human"}):
        r = a.post("/api/games", json={"game": "keil", "size": 5, **choices})
        assert r.status_code == 201, r.text
        gid = r.json()["id"]
        for r in (a.get(f"/api/games/{gid}/chat"), a.post(f"/api/games/{gid}/chat", json={"text": "hi"}),
                  a.post(f"/api/games/{gid}/chat/settings", json={"mute": True})):
            assert r.status_code == 409 and "no chat" in r.json()["detail"], r.text
    assert a.get("/api/games/nosuchgame/chat").status_code == 404
    assert a.post("/api/games/nosuchgame/chat", json={"text": "hi"}).status_code == 404
    assert stored_chat(db) == ([], [])


def test_deleting_a_game_deletes_its_chat(people, db):
    a, b, _ = people
    kept, gone = friend_game(a), friend_game(a)
    for game in (kept, gone):
        join(b, game)
        send(a, game["id"], "hi")
        settle(b, game["id"], mute=True)
    assert a.delete(f"/api/games/{gone['id']}").status_code == 200
    messages, switches = stored_chat(db)
    assert [m[0] for m in messages] == [kept["id"]] and [s[0] for s in switches] == [kept["id"]]
    assert a.get(f"/api/games/{gone['id']}/chat").status_code == 404


def test_every_open_page_hears_of_a_new_message(people, gid):
    a, b, c = people
    with c.websocket_connect(f"/api/games/{gid}/chat/live") as watcher, \
            b.websocket_connect(f"/api/games/{gid}/chat/live") as player:
        assert watcher.receive_json() == player.receive_json() == {"chat": gid}
        send(a, gid, "<b>hi</b>")
        assert watcher.receive_json() == player.receive_json() == {"chat": gid, "message": 1}
        settle(a, gid, spectators_may_write=True)
        assert watcher.receive_json() == player.receive_json() == {"chat": gid, "change": "settings"}
    with c.websocket_connect(f"/api/games/{gid}/live") as game_page:
        game_page.receive_json()  # the game's own updates hear nothing of the chat: a move comes first
        send(a, gid, "and now a move")
        assert a.post(f"/api/games/{gid}/moves", json={"move": "e5"}).status_code == 200
        assert game_page.receive_json()["moves"] == 1


def test_the_live_chat_of_an_unknown_game_or_one_without_a_chat_is_closed(people):
    from starlette.websockets import WebSocketDisconnect

    a, _, _ = people
    alone = a.post("/api/games", json={"game": "keil", "size": 5, "opponent": "human"}).json()["id"]
    for gid, code in (("nosuchgame", 4404), (alone, 4409)):
        with pytest.raises(WebSocketDisconnect) as closed:
            with a.websocket_connect(f"/api/games/{gid}/chat/live") as ws:
                ws.receive_json()
        assert closed.value.code == code


def test_two_servers_on_one_postgresql_database_share_the_chat(postgres_url):
    """Ann on one server process's app, Bea on another's: each hears the other's messages
    live, and messages sent at the same moment on both get numbers of their own."""
    first, second = create_app(postgres_url), create_app(postgres_url)
    with TestClient(first) as a, TestClient(second) as b:
        for who, name in ((a, "Ann"), (b, "Bea")):
            assert who.post("/api/account/guest", json={"name": name}).status_code == 200
        game = friend_game(a)
        join(b, game)
        gid = game["id"]
        with b.websocket_connect(f"/api/games/{gid}/chat/live") as bea:
            assert bea.receive_json() == {"chat": gid}
            send(a, gid, "from the first server")
            assert bea.receive_json() == {"chat": gid, "message": 1}
        start = threading.Barrier(2)
        answers: dict = {}

        def sending(who, name: str) -> None:
            start.wait()
            answers[name] = [who.post(f"/api/games/{gid}/chat", json={"text": f"{name} {n}"}) for n in range(5)]

        threads = [threading.Thread(target=sending, args=(who, name)) for who, name in ((a, "Ann"), (b, "Bea"))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(r.status_code == 201 for rs in answers.values() for r in rs), answers
        seen = chat(b, gid)["messages"]
        assert [m["id"] for m in seen] == list(range(1, 12))
        assert sorted(m["text"] for m in seen[1:]) == sorted(f"{name} {n}" for name in ("Ann", "Bea")
                                                              for n in range(5))
        assert a.delete(f"/api/games/{gid}").status_code == 200
        assert b.get(f"/api/games/{gid}/chat").status_code == 404


def test_a_chat_copied_to_postgresql_goes_on_numbering_after_its_last_message(tmp_path, postgres_url):
    """A games file with a chat, copied into PostgreSQL (``hexstones db copy``): the next
    message there takes the number after the last one copied."""
    from hexstones.web.transfer import copy_database

    db = str(tmp_path / "games.db")
    with TestClient(create_app(db)) as a, TestClient(a.app) as b:
        game = friend_game(a)
        join(b, game)
        gid = game["id"]
        send(a, gid, "one")
        send(b, gid, "two")
    copied = copy_database(db, postgres_url)
    assert copied.rows["chat_messages"] == 2
    # The same two browsers (their cookies: the sessions were copied too), on a server of the copy.
    with TestClient(create_app(postgres_url), cookies=dict(a.cookies)) as ann, \
            TestClient(ann.app, cookies=dict(b.cookies)) as bea:
        assert send(ann, gid, "three")["id"] == 3
        assert [(m["id"], m["text"], m["you"]) for m in chat(bea, gid)["messages"]] == [
            (1, "one", False), (2, "two", True), (3, "three", False)]


# -- in browsers ---------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.skipif(invite_and_join is None, reason="no chromium for the browser tests")
def test_a_message_reaches_the_other_pages_live_as_text(sqlite_servers, person):
    """Ann writes "<b>hi</b>": Bea's page shows it without a reload, as text; Cy, who
    watches, sees it and is told that only the players write."""
    from playwright.sync_api import expect

    a, b, c, gid = invite_and_join(sqlite_servers, person, "game=keil&size=5&opponent=friend&color=black")
    for page in (a, b, c):
        expect(page.get_by_test_id("chat")).to_be_visible()
    expect(c.get_by_test_id("chat-note")).to_contain_text("only the players write")
    expect(c.get_by_test_id("chat-send")).to_be_disabled()
    expect(c.get_by_test_id("chat-text")).to_be_disabled()
    a.get_by_test_id("chat-text").fill("<b>hi</b>")
    a.get_by_test_id("chat-send").click()
    expect(a.get_by_test_id("chat-text")).to_have_value("")
    for page in (a, b, c):
        line = page.get_by_test_id("chat-message")
        expect(line).to_have_count(1)
        expect(line.locator(".chat-text")).to_have_text("<b>hi</b>")  # the characters, not bold markup
        assert line.locator("b").count() == 0
    expect(a.get_by_test_id("chat-message").locator(".chat-author")).to_have_text("You")
    assert c.evaluate("window.neverReloaded") is True  # it came live
