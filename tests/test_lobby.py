"""The lobby through the HTTP API: seeks made, listed, withdrawn and accepted into games,
refusals that change nothing, the limit of open seeks, live seeks that go when their maker
leaves, and one accept between two servers on one PostgreSQL database; challenges to a
named player (accepted, declined, withdrawn, expired, heard of live) and the list of
public games to watch.

Each person is a TestClient of their own (its own cookie jar) on one app and one real
SQLite file (or PostgreSQL database); the app's clock is one the test moves, so nothing
waits for time to pass.
"""

from __future__ import annotations

import sqlite3
import threading
import time
import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*")

from fastapi.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from hexstones.web import create_app  # noqa: E402
from hexstones.web.lobby import CHALLENGE_SECONDS, GRACE_SECONDS, MAX_OPEN, STALE_SECONDS  # noqa: E402

WAIT_SECONDS = 120  # bound of a wait for a condition: generous on purpose
LIVE = {"game": "keil", "size": 5, "clock": "fischer:15:0"}
CORRESPONDENCE = {"game": "dehil", "size": 5, "clock": "days:3"}


@pytest.fixture
def app(db, clock):
    return create_app(db, clock=clock)


@pytest.fixture
def people(app):
    """Three browsers on one server: Ann, Bea and Cy (Bea and Cy guests under their names)."""
    with TestClient(app) as a, TestClient(app) as b, TestClient(app) as c:
        for who, name in ((a, "Ann"), (b, "Bea"), (c, "Cy")):
            assert who.post("/api/account/guest", json={"name": name}).status_code == 200
        yield a, b, c


def seeks(db: str) -> list:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT id, status, game_id FROM seeks ORDER BY id").fetchall()


def games(db: str) -> list:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT id FROM games ORDER BY id").fetchall()


def make(who, **choices) -> dict:
    r = who.post("/api/seeks", json=choices or LIVE)
    assert r.status_code == 201, r.text
    return r.json()


def listed(who) -> list[str]:
    r = who.get("/api/seeks")
    assert r.status_code == 200, r.text
    return [s["id"] for s in r.json()["seeks"]]


def posted_at_once(clients: list, path: str) -> list:
    """What each client answers to a POST of ``path``, all sent from threads that start
    together."""
    return sent_at_once([(client, path) for client in clients])


def wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"waited {WAIT_SECONDS} s for {what}"
        time.sleep(0.02)


def test_a_seek_is_listed_to_everyone_and_accepting_it_starts_a_game_with_both_seats(people, db):
    a, b, c = people
    sign_up(a, "Ann")
    sign_up(b, "Bea")  # a rated game is between two accounts; Cy stays a guest
    r = c.post("/api/seeks", json={**LIVE, "rated": "yes"})
    assert r.status_code == 403 and "sign in (or sign up) to make a rated seek" in r.json()["detail"]
    assert seeks(db) == []
    seek = make(a, game="keil", size=5, komi=4, color="white", clock="fischer:600:5", rated="yes")
    assert (seek["game"], seek["size"], seek["balance"], seek["color"]) == ("keil", 5, "komi 4", "white")
    assert (seek["clock"], seek["clock_text"], seek["rated"], seek["public"]) == ("fischer:600:5", "10+5", True, False)
    assert (seek["maker"], seek["yours"], seek["status"]) == ("Ann", True, "open")
    seen_by_b = b.get("/api/seeks").json()["seeks"]
    assert [(s["id"], s["yours"], s["maker"], s["text"]) for s in seen_by_b] == [
        (seek["id"], False, "Ann", "Keil, board side 5, komi 4, 10+5, rated, private, the maker plays white")]
    assert listed(a) == [seek["id"]] and a.get("/api/seeks").json()["seeks"][0]["yours"]
    r = c.post(f"/api/seeks/{seek['id']}/accept")
    assert r.status_code == 403 and "sign in (or sign up) to accept this seek" in r.json()["detail"]
    assert seeks(db) == [(seek["id"], "open", None)] and games(db) == []

    r = b.post(f"/api/seeks/{seek['id']}/accept")  # no body at all
    assert r.status_code == 200, r.text
    gid = r.json()["game"]
    assert r.json()["url"] == f"/game/{gid}" and r.json()["seek"]["status"] == "taken"
    assert listed(c) == []
    # Both seats are filled at once: the maker's colour as sought, the accepter the other.
    state_a, state_b = (who.get(f"/api/games/{gid}").json() for who in (a, b))
    assert state_a["you"] == ["white"] and state_b["you"] == ["black"] and state_a["options"]["komi"] == 4
    assert state_a["seats"] == {"white": {"name": "Ann", "you": True}, "black": {"name": "Bea", "you": False}}
    assert state_a["invite"] is None and state_a["open_seat"] is None
    # The game starts at once: its clock, the seek's, runs for Black.
    assert (state_a["clock"]["control"], state_a["clock"]["started"], state_a["clock"]["running"]) == (
        "fischer:600:5", True, "black")
    assert c.get(f"/api/games/{gid}").json()["spectator"]
    # The game holds the seek's clock and kind; it is among both players' games.
    for who in (a, b):
        (row,) = [g for g in who.get("/api/games").json()["games"] if g["id"] == gid]
        assert row["setup"]["time_control"] == "fischer:600:5" and row["setup"]["rated"] is True
    assert b.post(f"/api/games/{gid}/moves", json={"move": "e5"}).status_code == 200  # Bea plays black
    # Only the maker is told which game a seek started: a private game's address stays theirs.
    assert a.get(f"/api/seeks/{seek['id']}").json()["game_id"] == gid
    assert c.get(f"/api/seeks/{seek['id']}").json()["game_id"] is None


def test_a_random_colour_is_drawn_at_accept_and_a_komi_pie_gives_the_maker_the_proposal(people):
    a, b, _ = people
    colors = set()
    for _ in range(24):  # random: each colour comes up (all one colour: a chance of 1 in 8 million)
        gid = b.post(f"/api/seeks/{make(a)['id']}/accept").json()["game"]
        mine = a.get(f"/api/games/{gid}").json()["you"]
        assert len(mine) == 1 and b.get(f"/api/games/{gid}").json()["you"] == [
            {"black": "white", "white": "black"}[mine[0]]]
        colors.add(mine[0])
    assert colors == {"black", "white"}
    seek = make(a, game="keil", size=5, pie="you", clock="none")
    assert (seek["balance"], seek["color"], seek["clock_text"]) == ("komi pie", None, "no time limit")
    gid = b.post(f"/api/seeks/{seek['id']}/accept", json={}).json()["game"]
    assert a.get(f"/api/games/{gid}").json()["pie_you"] == ["propose"]
    assert b.get(f"/api/games/{gid}").json()["pie_you"] == ["choose"]


def test_a_seek_link_makes_a_seek_and_leads_to_its_waiting_page(people, db):
    a, b, _ = people
    stranger = TestClient(a.app)  # no session yet: the link gives one (not entered: the app runs)
    r = stranger.get("/new?game=keil&size=5&opponent=seek&clock=fischer:15:0", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/seek/") and "set-cookie" in r.headers
    seek_id = r.headers["location"].rsplit("/", 1)[1]
    page = stranger.get(r.headers["location"])
    assert page.status_code == 200 and 'data-testid="withdraw"' in page.text
    assert stranger.get("/api/seeks").json()["seeks"][0]["yours"]
    assert listed(b) == [seek_id]
    # From another site, the link asks first and stores nothing; a bad one says what is wrong.
    before = seeks(db)
    link = "/new?game=keil&size=5&opponent=seek&clock=fischer:15:0"
    r = a.get(link, headers={"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Dest": "document"}, follow_redirects=False)
    assert r.status_code == 200 and "Start a new game?" in r.text and "opponent=seek" in r.text
    bad = a.get("/new?game=keil&opponent=seek&clock=fischer:1:0", headers={"Sec-Fetch-Site": "cross-site"})
    assert bad.status_code == 400 and "base time" in bad.text
    bad = a.get("/new?game=keil&opponent=seek&level=3")
    assert bad.status_code == 400 and "level" in bad.text
    assert seeks(db) == before
    assert a.get("/seek/nosuchseek").status_code == 404


def test_only_its_maker_withdraws_a_seek_and_a_closed_seek_cannot_be_withdrawn_or_accepted(people, db):
    a, b, _ = people
    seek_id = make(a)["id"]
    before = seeks(db)
    r = b.delete(f"/api/seeks/{seek_id}")
    assert r.status_code == 403 and "only the person who made" in r.json()["detail"]
    nobody = TestClient(a.app)  # no cookie at all (not entered: the app is already running)
    assert nobody.delete(f"/api/seeks/{seek_id}").status_code == 401
    assert b.delete("/api/seeks/nosuchseek").status_code == 404
    assert seeks(db) == before and listed(b) == [seek_id]
    r = a.delete(f"/api/seeks/{seek_id}")
    assert r.status_code == 200 and r.json()["status"] == "withdrawn"
    assert listed(b) == []
    for who, request in ((a, a.delete), (b, lambda url: b.post(url + "/accept"))):
        r = request(f"/api/seeks/{seek_id}")
        assert r.status_code == 409 and "withdrawn" in r.json()["detail"], who
    taken = make(a)["id"]
    assert b.post(f"/api/seeks/{taken}/accept").status_code == 200
    r = a.delete(f"/api/seeks/{taken}")
    assert r.status_code == 409 and "already taken" in r.json()["detail"]


def test_accepting_ones_own_seek_or_a_taken_one_is_refused(people, db):
    a, b, c = people
    seek_id = make(a)["id"]
    r = a.post(f"/api/seeks/{seek_id}/accept", json={})
    assert r.status_code == 409 and "your own seek" in r.json()["detail"]
    assert seeks(db) == [(seek_id, "open", None)] and games(db) == []
    assert b.post(f"/api/seeks/{seek_id}/accept").status_code == 200
    r = c.post(f"/api/seeks/{seek_id}/accept")
    assert r.status_code == 409 and "already taken" in r.json()["detail"]
    assert len(games(db)) == 1
    # A browser without a session is refused before it is given one.
    stranger = TestClient(a.app)  # not entered: the app is already running
    r = stranger.post(f"/api/seeks/{seek_id}/accept")
    assert r.status_code == 409 and "set-cookie" not in r.headers
    assert b.post("/api/seeks/nosuchseek/accept").status_code == 404


def test_a_browser_without_a_session_accepts_as_a_guest(people):
    a, _, _ = people
    seek_id = make(a, game="keil", size=5, color="black")["id"]
    stranger = TestClient(a.app)  # not entered: the app is already running
    r = stranger.post(f"/api/seeks/{seek_id}/accept", json={"name": "Dee"})
    assert r.status_code == 200 and "set-cookie" in r.headers
    gid = r.json()["game"]
    assert stranger.get(f"/api/games/{gid}").json()["you"] == ["white"]
    assert a.get(f"/api/games/{gid}").json()["seats"]["white"] == {"name": "Dee", "you": False}


@pytest.mark.parametrize(("choices", "words"), [
    ({"game": "keil", "clock": "fischer:1:0"}, "bad clock: the base time must be from"),
    ({"game": "chess"}, "unknown game 'chess'"),
    ({"game": "keil", "opponent": "friend", "clock": "fischer:15:0"}, "leave out opponent"),
    ({"game": "keil", "level": 3}, "unknown seek choice 'level'"),
    ({"game": "keil", "colour": "black"}, "unknown seek choice 'colour'"),
    ({"game": "keil", "size": 99}, "bad option"),
    ({"game": "keil", "pie": "you", "komi": 3}, "either a fixed komi or the komi pie"),
    ({"game": "keil", "rated": "maybe"}, "rated must be one of"),
])
def test_bad_choices_are_refused_and_store_nothing(people, db, choices, words):
    a, _, _ = people
    r = a.post("/api/seeks", json=choices)
    assert r.status_code == 400 and words in r.json()["detail"], r.text
    assert seeks(db) == [] and listed(a) == []


def test_one_person_holds_a_few_open_seeks_at_once(people, db):
    a, b, _ = people
    mine = [make(a)["id"] for _ in range(MAX_OPEN - 1)] + [make(a, **CORRESPONDENCE)["id"]]
    r = a.post("/api/seeks", json=LIVE)
    assert r.status_code == 409 and "withdraw one" in r.json()["detail"]
    assert len(seeks(db)) == MAX_OPEN
    make(b)  # each person counts their own
    assert a.delete(f"/api/seeks/{mine[0]}").status_code == 200
    make(a)
    assert b.post(f"/api/seeks/{mine[1]}/accept").status_code == 200  # a taken seek counts no more
    make(a)
    assert a.post("/api/seeks", json=LIVE).status_code == 409


def test_a_live_seek_goes_when_its_makers_page_leaves_and_a_correspondence_seek_stays(people, app, clock, db):
    a, b, _ = people
    live, corr = make(a)["id"], make(a, **CORRESPONDENCE)["id"]
    with a.websocket_connect(f"/api/seeks/{live}/live") as page:
        assert page.receive_json() == {"seek": live, "status": "open"}
        clock.advance(GRACE_SECONDS + 1)  # the page is open: no grace runs
        wait_for(lambda: b.get(f"/api/seeks/{live}").json()["status"] == "open" and left(db, live) is None,
                 "the open page's beat")
        assert live in listed(b)
    # The page closed (left): a reload within the grace keeps the seek ...
    assert left(db, live) == clock.now
    clock.advance(GRACE_SECONDS / 2)
    assert live in listed(b)
    with a.websocket_connect(f"/api/seeks/{live}/live") as page:
        page.receive_json()
        wait_for(lambda: left(db, live) is None, "the reloaded page's beat")
        clock.advance(GRACE_SECONDS + 1)
        assert live in listed(b)
    # ... and once its last page is gone longer than the grace, it is withdrawn.
    clock.advance(GRACE_SECONDS + 1)
    assert live not in listed(b) and corr in listed(b)
    assert b.get(f"/api/seeks/{live}").json()["status"] == "withdrawn"
    assert b.post(f"/api/seeks/{live}/accept").status_code == 409
    # A live seek whose page never beat again (its server process died) goes too.
    orphan = make(a)["id"]
    clock.advance(STALE_SECONDS - 1)
    assert orphan in listed(b)
    clock.advance(2)
    assert orphan not in listed(b) and corr in listed(b)
    clock.advance(30 * 86400)  # a correspondence seek waits as long as it takes
    assert corr in listed(b)
    assert b.post(f"/api/seeks/{corr}/accept").status_code == 200
    # Seeks closed long ago are forgotten when the next one is made.
    assert b.get(f"/api/seeks/{live}").status_code == 200
    make(a)
    for gone in (live, orphan, corr):
        assert b.get(f"/api/seeks/{gone}").status_code == 404


def left(db: str, seek_id: str):
    with sqlite3.connect(db) as con:
        return con.execute("SELECT left FROM seeks WHERE id = ?", (seek_id,)).fetchone()[0]


def test_the_lobby_and_the_waiting_page_hear_of_each_change(people):
    a, b, c = people
    with c.websocket_connect("/api/lobby/live") as lobby:
        assert lobby.receive_json() == {"lobby": True}
        seek_id = make(a)["id"]
        assert lobby.receive_json() == {"change": "open", "seek": seek_id}
        with a.websocket_connect(f"/api/seeks/{seek_id}/live") as waiting:
            assert waiting.receive_json() == {"seek": seek_id, "status": "open"}
            gid = b.post(f"/api/seeks/{seek_id}/accept").json()["game"]
            assert waiting.receive_json() == {"change": "taken", "seek": seek_id}
            assert lobby.receive_json() == {"change": "taken", "seek": seek_id}
            assert a.get(f"/api/seeks/{seek_id}").json()["game_id"] == gid
        other = make(a)["id"]
        assert lobby.receive_json() == {"change": "open", "seek": other}
        a.delete(f"/api/seeks/{other}")
        assert lobby.receive_json() == {"change": "withdrawn", "seek": other}
    with a.websocket_connect("/api/my-games/live") as my_games:  # the maker's games list the new game
        assert my_games.receive_json()["games"] == 1
    with pytest.raises(WebSocketDisconnect) as unknown:
        with a.websocket_connect("/api/seeks/nosuchseek/live") as ws:
            ws.receive_json()
    assert unknown.value.code == 4404


def test_every_page_but_the_game_links_to_the_lobby(people):
    a, _, _ = people
    seek_id = make(a)["id"]
    for path in ("/", "/account", "/rules", "/rules/keil", "/lobby", f"/seek/{seek_id}", "/seek/nosuchseek"):
        r = a.get(path)
        assert 'href="/lobby" data-testid="lobby-link"' in r.text, path


def test_one_accept_wins_between_two_servers_on_one_postgresql_database(postgres_url):
    """Two server processes' apps on one database; two people accept each seek at the same
    moment, one on each: one gets the game, the other a 409, and one game is stored."""
    first, second = create_app(postgres_url), create_app(postgres_url)
    with TestClient(first) as a, TestClient(first) as b, TestClient(second) as c:
        for who, name in ((a, "Ann"), (b, "Bea"), (c, "Cy")):
            assert who.post("/api/account/guest", json={"name": name}).status_code == 200
        for _ in range(4):
            seek_id = make(a, **CORRESPONDENCE)["id"]
            assert seek_id in listed(c)  # the other server sees it
            answers = dict(zip("bc", posted_at_once([b, c], f"/api/seeks/{seek_id}/accept")))
            statuses = sorted(r.status_code for r in answers.values())
            assert statuses == [200, 409], {k: r.text for k, r in answers.items()}
            (winner,) = [r for r in answers.values() if r.status_code == 200]
            (loser,) = [r for r in answers.values() if r.status_code == 409]
            assert "already taken" in loser.json()["detail"]
            gid = winner.json()["game"]
            mine = [g["id"] for g in a.get("/api/games").json()["games"]]
            assert gid in mine and a.get(f"/api/seeks/{seek_id}").json()["game_id"] == gid
        # Every seek made one game, the winner's: the losers' games were deleted.
        assert len(a.get("/api/games").json()["games"]) == 4
        assert len(b.get("/api/games").json()["games"]) + len(c.get("/api/games").json()["games"]) == 4


# -- challenges ---------------------------------------------------------------------------------

PASSWORD = "correct horse battery"


def sign_up(who, name: str) -> None:
    r = who.post("/api/account/signup", json={"name": name, "password": PASSWORD})
    assert r.status_code == 201, r.text


def challenge(who, to: str, **choices) -> dict:
    r = who.post("/api/challenges", json={"to": to, **(choices or LIVE)})
    assert r.status_code == 201, r.text
    return r.json()


def challenges(who) -> tuple[list[str], list[str]]:
    """The ids of the open challenges to ``who`` and made by them."""
    r = who.get("/api/challenges")
    assert r.status_code == 200, r.text
    return [c["id"] for c in r.json()["to_you"]], [c["id"] for c in r.json()["from_you"]]


def test_a_challenge_goes_to_the_named_player_alone_who_accepts_it_into_a_game(people, db):
    a, b, c = people
    sign_up(a, "Ann")  # rated: both are accounts
    sign_up(b, "Bea")
    made = challenge(a, "bea", game="keil", size=5, komi=4, color="white", clock="fischer:600:5", rated="yes")
    assert (made["challenge"], made["to"], made["maker"], made["yours"], made["to_you"], made["status"]) == (
        True, "Bea", "Ann", True, False, "open")
    assert made["text"] == "Keil, board side 5, komi 4, 10+5, rated, private, the maker plays white"
    assert made["expires"] == made["created"] + CHALLENGE_SECONDS
    # Not in the public lobby: only its two people see it.
    assert listed(a) == listed(b) == listed(c) == []
    assert challenges(b) == ([made["id"]], []) and challenges(a) == ([], [made["id"]])
    assert challenges(c) == ([], [])
    assert b.get("/api/challenges").json()["to_you"][0]["maker"] == "Ann"
    # Only Bea answers it: not its maker, not a third person, not a browser without a session.
    before = seeks(db)
    stranger = TestClient(a.app)  # not entered: the app is already running
    for who in (a, c):
        for action in ("accept", "decline"):
            r = who.post(f"/api/challenges/{made['id']}/{action}")
            assert r.status_code == 403 and f"only Bea, the player challenged, may {action}" in r.json()["detail"]
    assert c.post(f"/api/seeks/{made['id']}/accept").status_code == 403  # the seeks' accept refuses it too
    for action in ("accept", "decline"):
        r = stranger.post(f"/api/challenges/{made['id']}/{action}")
        assert r.status_code == 401 and "set-cookie" not in r.headers
    assert seeks(db) == before and games(db) == []

    r = b.post(f"/api/challenges/{made['id']}/accept")
    assert r.status_code == 200, r.text
    gid = r.json()["game"]
    assert r.json()["url"] == f"/game/{gid}" and r.json()["seek"]["status"] == "taken"
    state_a, state_b = (who.get(f"/api/games/{gid}").json() for who in (a, b))
    assert state_a["you"] == ["white"] and state_b["you"] == ["black"] and state_a["options"]["komi"] == 4
    assert state_a["seats"] == {"white": {"name": "Ann", "you": True}, "black": {"name": "Bea", "you": False}}
    assert (state_a["clock"]["control"], state_a["clock"]["running"]) == ("fischer:600:5", "black")
    assert b.post(f"/api/games/{gid}/moves", json={"move": "e5"}).status_code == 200
    assert a.get(f"/api/seeks/{made['id']}").json()["game_id"] == gid  # the maker's waiting page goes there
    assert challenges(a) == challenges(b) == ([], [])
    r = b.post(f"/api/challenges/{made['id']}/accept")
    assert r.status_code == 409 and "already accepted" in r.json()["detail"]


@pytest.mark.parametrize(("body", "status", "words"), [
    ({"to": "Nobody", **LIVE}, 404, "no player named 'Nobody'"),
    ({"to": "Cy", **LIVE}, 404, "no player named 'Cy'"),  # a guest's name is no account's
    ({"to": "ann", **LIVE}, 400, "you cannot challenge yourself"),
    ({**LIVE}, 400, "give the name of the player to challenge"),
    ({"to": 7, **LIVE}, 400, "give the name of the player to challenge"),
    ({"to": "Bea", "game": "keil", "clock": "fischer:1:0"}, 400, "bad clock"),
    ({"to": "Bea", "game": "keil", "opponent": "friend"}, 400, "a challenge's opponent is the player named"),
    ({"to": "Bea", "game": "keil", "level": 3}, 400, "unknown challenge choice 'level'"),
])
def test_bad_challenges_are_refused_and_store_nothing(people, db, body, status, words):
    a, b, _ = people
    sign_up(a, "Ann")
    sign_up(b, "Bea")
    r = a.post("/api/challenges", json=body)
    assert r.status_code == status and words in r.json()["detail"], r.text
    assert seeks(db) == [] and challenges(b) == ([], [])


def test_a_declined_or_withdrawn_challenge_closes_and_its_waiting_page_hears_of_it(people, db):
    a, b, c = people
    sign_up(b, "Bea")
    first = challenge(a, "Bea")["id"]
    with a.websocket_connect(f"/api/seeks/{first}/live") as waiting:
        assert waiting.receive_json() == {"seek": first, "status": "open"}
        r = b.post(f"/api/challenges/{first}/decline")
        assert r.status_code == 200 and r.json()["status"] == "declined"
        assert waiting.receive_json() == {"change": "declined", "seek": first}
    assert a.get(f"/api/challenges/{first}").json()["status"] == "declined"
    assert challenges(a) == challenges(b) == ([], [])
    for request in (lambda: b.post(f"/api/challenges/{first}/accept"), lambda: a.delete(f"/api/challenges/{first}"),
                    lambda: b.post(f"/api/challenges/{first}/decline")):
        r = request()
        assert r.status_code == 409 and "declined" in r.json()["detail"]
    second = challenge(a, "Bea", **CORRESPONDENCE)["id"]
    r = b.delete(f"/api/challenges/{second}")
    assert r.status_code == 403 and "only the person who made a challenge" in r.json()["detail"]
    r = a.delete(f"/api/challenges/{second}")
    assert r.status_code == 200 and r.json()["status"] == "withdrawn"
    r = b.post(f"/api/challenges/{second}/accept")
    assert r.status_code == 409 and "withdrawn" in r.json()["detail"]
    # A seek is not a challenge, nor the reverse of a page's address.
    seek_id = make(c)["id"]
    for request in (lambda: b.post(f"/api/challenges/{seek_id}/accept"), lambda: c.delete(f"/api/challenges/{seek_id}"),
                    lambda: b.post(f"/api/challenges/{seek_id}/decline"), lambda: b.get(f"/api/challenges/{seek_id}")):
        r = request()
        assert r.status_code == 404 and "is a seek, not a challenge" in r.json()["detail"]
    assert b.post("/api/challenges/nosuch/decline").status_code == 404
    assert seek_id in listed(b) and games(db) == []


def test_a_challenge_waits_when_its_maker_leaves_and_expires_after_a_day(people, clock, db):
    a, b, _ = people
    sign_up(b, "Bea")
    made = challenge(a, "Bea")["id"]  # a clock: a seek of it would go when its page closes
    with a.websocket_connect(f"/api/seeks/{made}/live") as waiting:
        waiting.receive_json()
    clock.advance(GRACE_SECONDS + STALE_SECONDS + 1)
    assert challenges(b) == ([made], [])
    clock.advance(CHALLENGE_SECONDS - GRACE_SECONDS - STALE_SECONDS - 2)
    assert challenges(b) == ([made], [])
    clock.advance(2)
    assert challenges(b) == ([], []) and challenges(a) == ([], [])
    assert a.get(f"/api/seeks/{made}").json()["status"] == "expired"
    r = b.post(f"/api/challenges/{made}/accept")
    assert r.status_code == 409 and "expired" in r.json()["detail"]
    assert games(db) == []


def test_the_player_challenged_hears_of_it_live_and_its_maker_of_the_answer(people):
    a, b, _ = people
    sign_up(b, "Bea")
    with b.websocket_connect("/api/my-games/live") as start_page, b.websocket_connect("/api/lobby/live") as lobby, \
            a.websocket_connect("/api/lobby/live") as makers_lobby:
        assert start_page.receive_json() == {"games": 0}
        assert lobby.receive_json() == makers_lobby.receive_json() == {"lobby": True}
        made = challenge(a, "Bea")["id"]
        assert start_page.receive_json() == {"change": "challenge", "seek": made}
        assert lobby.receive_json() == {"change": "challenge", "seek": made}
        assert makers_lobby.receive_json() == {"change": "challenge", "seek": made}
        b.post(f"/api/challenges/{made}/decline")
        assert makers_lobby.receive_json() == {"change": "declined", "seek": made}
        assert lobby.receive_json() == {"change": "declined", "seek": made}
        other = challenge(a, "Bea")["id"]
        assert start_page.receive_json() == {"change": "declined", "seek": made}
        assert start_page.receive_json() == {"change": "challenge", "seek": other}
        gid = b.post(f"/api/challenges/{other}/accept").json()["game"]
        # The maker's lobby hears it as the lobby (a game started) and as its maker, with the game.
        assert [makers_lobby.receive_json() for _ in range(4)] == [
            {"change": "challenge", "seek": other}, {"change": "taken", "seek": other},
            {"change": "taken", "seek": other}, {"game": gid, "change": "seated"}]
    assert a.get(f"/api/seeks/{other}").json()["game_id"] == gid


def test_a_challenge_link_makes_a_challenge_and_leads_to_its_waiting_page(people, db):
    a, b, _ = people
    sign_up(b, "Bea")
    link = "/new?game=keil&size=5&opponent=challenge&to=Bea&clock=fischer:15:0"
    r = a.get(link, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/seek/")
    made = r.headers["location"].rsplit("/", 1)[1]
    page = a.get(r.headers["location"])
    assert page.status_code == 200 and 'data-testid="decline"' in page.text
    assert challenges(b) == ([made], []) and listed(b) == []
    before = seeks(db)
    r = a.get(link, headers={"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Dest": "document"}, follow_redirects=False)
    assert r.status_code == 200 and "Start a new game?" in r.text and "opponent=challenge" in r.text
    r = a.get("/new?game=keil&opponent=challenge&to=Nobody")
    assert r.status_code == 404 and "no player named" in r.text
    r = a.get("/new?game=keil&opponent=challenge")
    assert r.status_code == 400 and "give the name of the player" in r.text
    r = a.get("/new?game=keil&opponent=seek&to=Bea")
    assert r.status_code == 400 and "unknown seek choice" in r.text and "to" in r.text
    assert seeks(db) == before


def test_the_lobby_offers_the_ai_one_click_away_and_links_to_the_watch_page(people, db):
    a, _, _ = people
    page = a.get("/lobby").text
    assert 'data-testid="play-ai"' in page and 'data-testid="challenge-to"' in page and 'href="/watch"' in page
    r = a.get("/new?game=keil&size=5&opponent=ai", follow_redirects=False)  # the link's address
    assert r.status_code == 303 and r.headers["location"].startswith("/game/")
    assert a.get(r.headers["location"]).status_code == 200
    assert 'href="/watch"' in a.get("/").text
    assert a.get("/watch").status_code == 200 and 'data-testid="watch-games"' in a.get("/watch").text


# -- watching -------------------------------------------------------------------------------------

def test_the_watch_list_shows_the_live_public_games_with_their_clocks(people, clock):
    a, b, c = people

    def started(game: str = "keil", **choices) -> str:
        return b.post(f"/api/seeks/{make(a, game=game, size=5, **choices)['id']}/accept").json()["game"]

    public = started(color="black", clock="fischer:600:5", public="yes")
    private = started(clock="fischer:600:5")
    untimed = started(game="dehil", color="white", clock="none", public="yes")
    ended = started(clock="none", public="yes")
    assert b.post(f"/api/games/{ended}/resign", json={}).status_code == 200
    assert a.post(f"/api/games/{public}/moves", json={"move": "e5"}).status_code == 200
    reply = b.get(f"/api/games/{public}").json()["legal"][0]
    assert b.post(f"/api/games/{public}/moves", json={"move": reply}).status_code == 200
    clock.advance(30)  # the first moves were free; now Black's time runs
    r = c.get("/api/watch")  # anyone may look, with or without a seat
    assert r.status_code == 200
    listed_ = {g["id"]: g for g in r.json()["games"]}
    assert set(listed_) == {public, untimed}, (private, ended)
    shown = listed_[public]
    assert (shown["game"], shown["title"], shown["size"], shown["url"]) == ("keil", "Keil", 5, f"/game/{public}")
    assert (shown["players"], shown["moves"], shown["to_move"]) == ({"black": "Ann", "white": "Bea"}, 2, "black")
    assert shown["clock"]["running"] == "black" and shown["clock"]["black"]["seconds"] == 570, shown["clock"]
    assert shown["clock_text"] == {"black": "9:30", "white": "10:00"}, shown["clock"]
    other = listed_[untimed]
    assert (other["players"], other["moves"], other["to_move"]) == ({"black": "Bea", "white": "Ann"}, 0, "black")
    assert other["clock"] is None and other["clock_text"] is None
    assert a.post(f"/api/games/{public}/resign", json={}).status_code == 200
    assert [g["id"] for g in c.get("/api/watch").json()["games"]] == [untimed]



def test_one_answer_to_a_challenge_wins_between_two_servers_on_one_postgresql_database(postgres_url):
    """Bea, signed in on two servers of one database, accepts a challenge on one and
    declines it (or accepts it again) on the other at the same moment: one answer wins,
    and the challenge started a game only if an accept won."""
    first, second = create_app(postgres_url), create_app(postgres_url)
    with TestClient(first) as a, TestClient(first) as b1, TestClient(second) as b2:
        assert a.post("/api/account/guest", json={"name": "Ann"}).status_code == 200
        sign_up(b1, "Bea")
        assert b2.post("/api/account/signin", json={"name": "Bea", "password": PASSWORD}).status_code == 200
        started = 0
        for answer in ("decline", "accept", "decline", "accept"):
            made = challenge(a, "Bea", **CORRESPONDENCE)["id"]
            assert challenges(b2) == ([made], [])  # the other server sees it
            accept, other = sent_at_once([(b1, f"/api/challenges/{made}/accept"),
                                          (b2, f"/api/challenges/{made}/{answer}")])
            assert sorted((accept.status_code, other.status_code)) == [200, 409], (accept.text, other.text)
            status = a.get(f"/api/challenges/{made}").json()["status"]
            accepted = answer == "accept" or accept.status_code == 200
            assert status == ("taken" if accepted else "declined")
            started += accepted
            assert len(a.get("/api/games").json()["games"]) == started  # a lost accept's game is gone


def sent_at_once(requests: list) -> list:
    """The answers to POSTs of (client, path), all sent from threads that start together."""
    start = threading.Barrier(len(requests))
    answers: list = [None] * len(requests)

    def post(i: int) -> None:
        start.wait()
        client, path = requests[i]
        answers[i] = client.post(path)

    threads = [threading.Thread(target=post, args=(i,)) for i in range(len(requests))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def test_a_seek_shows_its_maker_s_rating_in_its_game_and_a_guest_s_none(people):
    a, b, c = people
    sign_up(a, "Anna")
    mine = make(a, game="dehil", size=5, clock="fischer:60:0", rated="yes")
    make(b, game="keil", size=5, clock="fischer:60:0")
    shown = {s["id"]: s for s in c.get("/api/seeks").json()["seeks"]}
    assert shown[mine["id"]]["maker_rating"] == {"rating": 1500.0, "deviation": 350.0, "games": 0,
                                                "provisional": True}
    assert [s["maker_rating"] for s in shown.values() if s["id"] != mine["id"]] == [None]


def test_a_seek_open_to_the_ai_is_taken_by_a_bot_after_its_wait_and_others_are_not(people, app, clock, db):
    from hexstones.web.lobby import BOTS_AFTER_SECONDS

    a, b, _ = people
    welcome = make(a, game="keil", size=5, clock="fischer:600:5", bots="yes")
    plain = make(b, game="keil", size=5, clock="fischer:600:5")
    assert welcome["bots"] is True and "the AI takes it" in welcome["text"]
    slow = make(a, game="keil", size=5, clock="fischer:15:0", bots="yes", color="black")
    lobby = app.state.lobby
    clock.advance(BOTS_AFTER_SECONDS - 1)
    lobby.offer_to_bots()
    assert all(status == "open" for _, status, _ in seeks(db))  # not before its wait
    # One that no level can keep the clock of stays open; a correspondence one is taken.
    correspondence = make(a, game="dehil", size=3, clock="days:3", bots="true")
    clock.advance(2)
    lobby.offer_to_bots()
    status = {sid: (st, gid) for sid, st, gid in seeks(db)}
    assert status[plain["id"]] == ("open", None)
    assert status[slow["id"]] == ("open", None)  # 15 s without increment: no level keeps it
    taken, gid = status[welcome["id"]]
    assert taken == "taken" and gid is not None
    assert status[correspondence["id"]][0] == "open"  # made 2 s ago: still waiting for a person
    state = a.get(f"/api/games/{gid}").json()
    bot = next(seat for seat in state["seats"].values() if seat["name"] != "Ann")
    assert bot["name"].endswith("-bot") and state["players"] != {"black": "human", "white": "human"}


def test_bots_is_a_seeks_choice_a_challenge_refuses_it(people, db):
    a, _, _ = people
    r = a.post("/api/challenges", json={**LIVE, "to": "level2-bot", "bots": "yes"})
    assert r.status_code == 400 and "bots" in r.json()["detail"]
    r = a.post("/api/seeks", json={**LIVE, "bots": "maybe"})
    assert r.status_code == 400 and "bots" in r.json()["detail"]
    assert seeks(db) == []
