"""Game clocks in the app, through the HTTP API: the server keeps the time, refuses a move
after the flag, ends a game on time with nobody asking (and after a restart), aborts a game
whose first move never comes, and decides once with several servers on one database.

Every app here reads a clock the test moves by hand (``create_app(clock=...)``): nothing
waits for real time to pass except for the server's own watch to notice a deadline.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*")

from fastapi.testclient import TestClient  # noqa: E402

from hexstones.web import create_app  # noqa: E402
from test_online import friend_game, join  # noqa: E402

DAY = 86400
WAIT_S = 60.0  # bound for the server's watch to notice a deadline (it looks every 0.2 s)


@pytest.fixture
def pair(db, clock):
    """Ann and Bea, two browsers on one app reading ``clock``."""
    app = create_app(db, clock=clock)
    with TestClient(app) as a, TestClient(app) as b:
        yield a, b


def timed_game(a, b, control: str, **choices) -> str:
    game = friend_game(a, clock=control, **choices)
    assert game["clock"]["control"] == control and game["clock"]["running"] is None  # a seat is open
    join(b, game)
    return game["id"]


def state(client, gid: str) -> dict:
    r = client.get(f"/api/games/{gid}")
    assert r.status_code == 200, r.text
    return r.json()


def move(client, gid: str, point: str):
    return client.post(f"/api/games/{gid}/moves", json={"move": point})


def played(client, gid: str, point: str) -> dict:
    r = move(client, gid, point)
    assert r.status_code == 200, r.text
    return r.json()


def stored_row(db: str, gid: str) -> tuple:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT setup, clock, deadline, finished, summary, revision FROM games WHERE id = ?",
                           (gid,)).fetchone()


def wait_until(condition, what: str):
    deadline = time.monotonic() + WAIT_S
    while not (found := condition()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
    return found


def test_fischer_time_runs_for_the_side_to_move_and_a_move_after_the_flag_is_refused(pair, clock, db):
    a, b = pair
    gid = timed_game(a, b, "fischer:30:5")
    s = state(a, gid)
    assert s["clock"]["running"] == "black" and s["clock"]["first_move"]
    assert s["clock"]["abort_in"] == 60 and s["clock"]["flag_in"] is None
    clock.advance(20)  # first moves are free of the clock
    played(a, gid, "a1")
    clock.advance(40)
    s = played(b, gid, "e5")
    assert s["clock"]["black"]["seconds"] == 30 and s["clock"]["white"]["seconds"] == 30
    clock.advance(12)
    s = played(a, gid, "b1")  # black spent 12 s and earned 5
    assert s["clock"]["black"]["seconds"] == 23 and s["clock"]["running"] == "white"
    assert s["clock"]["flag_in"] == 30
    clock.advance(10)
    s = state(b, gid)
    assert s["clock"]["white"]["seconds"] == 20 and s["clock"]["black"]["seconds"] == 23
    clock.advance(20)  # white's 30 s are spent: its flag fell, whether or not anyone saw it
    before = stored_row(db, gid)
    r = move(b, gid, "d5")
    assert r.status_code == 409 and "too late" in r.json()["detail"]
    s = state(a, gid)
    assert s["over"] and s["result"]["reason"] == "time" and s["result"]["winner"] == "black"
    assert "on time" in s["status"] and s["moves"] == ["a1", "e5", "b1"]
    assert s["clock"]["running"] is None and s["clock"]["white"]["seconds"] == 0
    setup, stored_clock, deadline, finished, summary, revision = stored_row(db, gid)
    assert finished == 1 and deadline is None and summary == "Black wins on time"
    assert json.loads(setup)["flagged"] == "white" and revision == before[5] + 1
    for refused in (move(b, gid, "d5"), b.post(f"/api/games/{gid}/resign", json={}),
                    a.post(f"/api/games/{gid}/takeback", json={"action": "request"})):
        assert refused.status_code == 409, refused.text
    assert stored_row(db, gid) == (setup, stored_clock, deadline, finished, summary, revision)


def test_the_server_ends_a_game_on_time_with_nobody_asking_and_after_a_restart(db, clock):
    app = create_app(db, clock=clock)
    with TestClient(app) as a, TestClient(app) as b:
        gid = timed_game(a, b, "fischer:15:0")
        played(a, gid, "a1")
        played(b, gid, "e5")
        clock.advance(16)  # black's flag falls; no request comes
        row = wait_until(lambda: (r := stored_row(db, gid))[3] == 1 and r, "the flag to end the game")
        assert row[4] == "White wins on time" and row[2] is None
        assert state(a, gid)["status"] == "White wins on time"
        second = timed_game(a, b, "fischer:15:0")
        played(a, second, "a1")
        played(b, second, "e5")
    # The server stops; black's flag falls while it is down; a new one starts on the file.
    clock.advance(100)
    assert stored_row(db, second)[3] == 0
    with TestClient(create_app(db, clock=clock)):
        row = wait_until(lambda: (r := stored_row(db, second))[3] == 1 and r, "the flag after the restart")
        assert row[4] == "White wins on time"


def test_a_game_whose_first_move_does_not_come_is_aborted_not_lost(pair, clock, db):
    a, b = pair
    gid = timed_game(a, b, "fischer:60:0")
    played(a, gid, "a1")
    clock.advance(59)
    s = state(b, gid)
    assert s["clock"]["first_move"] and s["clock"]["abort_in"] == 1
    clock.advance(1)  # white's first move had a minute
    r = move(b, gid, "e5")
    assert r.status_code == 409 and "aborted" in r.json()["detail"]
    s = state(a, gid)
    assert s["over"] and s["result"] is None and s["status"].startswith("Aborted")
    assert json.loads(stored_row(db, gid)[0])["aborted"] is True


def test_byo_yomi_goes_into_periods_and_keeps_a_period_a_move_is_made_in(pair, clock):
    a, b = pair
    gid = timed_game(a, b, "byoyomi:20:3:10")
    played(a, gid, "a1")
    played(b, gid, "e5")
    clock.advance(25)  # main time 20 s spent, 5 s into the first period
    s = state(b, gid)["clock"]["black"]
    assert s == {"seconds": 5, "periods": 3, "in_periods": True}
    s = played(a, gid, "b1")["clock"]["black"]
    assert s == {"seconds": 10, "periods": 3, "in_periods": True}  # a move in time keeps the period
    played(b, gid, "d5")
    clock.advance(24)  # two periods used up, 4 s into the third and last
    s = state(b, gid)["clock"]["black"]
    assert s == {"seconds": 6, "periods": 1, "in_periods": True}
    played(a, gid, "c1")
    played(b, gid, "c5")
    clock.advance(10)
    r = move(a, gid, "a2")
    assert r.status_code == 409
    assert state(b, gid)["status"] == "White wins on time"


def test_a_correspondence_bank_grows_by_a_move_s_days_up_to_its_cap(pair, clock):
    a, b = pair
    gid = timed_game(a, b, "days:1")
    s = state(a, gid)
    assert s["clock"]["abort_in"] == DAY and s["clock"]["describe"] == "1 day a move"
    for point_a, point_b in (("a1", "e5"), ("b1", "d5"), ("c1", "c5"), ("a2", "e4"), ("b2", "d4"),
                             ("c2", "c4"), ("a3", "e3")):
        clock.advance(3600)
        played(a, gid, point_a)
        clock.advance(3600)
        played(b, gid, point_b)
    s = state(a, gid)["clock"]
    assert s["black"]["seconds"] == 5 * DAY  # the cap: five moves' worth
    clock.advance(5 * DAY - 1)
    played(a, gid, "b3")
    clock.advance(5 * DAY)
    assert move(b, gid, "d3").status_code == 409
    assert state(a, gid)["status"] == "Black wins on time"


def test_resigning_and_the_rules_end_stop_the_clock(pair, clock):
    a, b = pair
    gid = timed_game(a, b, "fischer:60:0")
    played(a, gid, "a1")
    played(b, gid, "e5")
    clock.advance(7)
    r = a.post(f"/api/games/{gid}/resign", json={})
    assert r.status_code == 200, r.text
    s = r.json()["clock"]
    assert s["running"] is None and s["black"]["seconds"] == 53 and s["flag_in"] is None
    clock.advance(1000)
    assert state(b, gid)["status"] == "White wins: Black resigned"


def test_the_komi_pie_s_steps_are_moves_for_the_clock(pair, clock):
    a, b = pair
    gid = timed_game(a, b, "fischer:30:0", pie="you")
    s = state(a, gid)["clock"]
    assert s["running"] == "black" and s["first_move"]
    clock.advance(5)
    assert a.post(f"/api/games/{gid}/pie", json={"komi": 3}).status_code == 200
    s = state(b, gid)["clock"]
    assert s["running"] == "white" and s["first_move"] and s["abort_in"] == 60
    clock.advance(61)  # the chooser never chooses: the game is aborted
    r = b.post(f"/api/games/{gid}/pie", json={"color": "white"})
    assert r.status_code == 409 and "aborted" in r.json()["detail"]


def test_an_agreed_takeback_gives_no_time_back(pair, clock):
    a, b = pair
    gid = timed_game(a, b, "fischer:60:0")
    played(a, gid, "a1")
    played(b, gid, "e5")
    played(a, gid, "b1")
    clock.advance(10)  # white thinks 10 s, then black asks to take b1 back
    assert a.post(f"/api/games/{gid}/takeback", json={"action": "request"}).status_code == 200
    r = b.post(f"/api/games/{gid}/takeback", json={"action": "accept"})
    assert r.status_code == 200, r.text
    s = r.json()
    assert s["moves"] == ["a1", "e5"] and s["clock"]["running"] == "black"
    assert s["clock"]["white"]["seconds"] == 50 and s["clock"]["black"]["seconds"] == 60


@pytest.mark.parametrize("choices, words", [
    ({"clock": "fischer:5:0"}, "base time must be from 15 s"),
    ({"clock": "fischer:15"}, "2 numbers"),
    ({"clock": "byoyomi:60:0:30"}, "number of periods"),
    ({"clock": "days:15"}, "days per move must be from 1 to 14"),
    ({"clock": "sudden death"}, "a time control is written"),
    ({"clock": ["fischer:60:0"]}, "a time control is written"),
    ({"clock": "fischer:60:0", "opponent": "ai"}, "against the AI has no clock"),
])
def test_a_bad_clock_is_refused_and_nothing_is_stored(client, db, choices, words):
    r = client.post("/api/games", json={"game": "keil", "size": 5, "opponent": "friend", **choices})
    assert r.status_code == 400 and words in r.json()["detail"], r.text
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT count(*) FROM games").fetchone() == (0,)


def test_a_game_at_one_screen_starts_its_clock_at_once(client):
    r = client.post("/api/games", json={"game": "dehil", "size": 4, "opponent": "human",
                                        "clock": "byoyomi:0:5:30"})
    assert r.status_code == 201, r.text
    s = r.json()["clock"]
    assert s["running"] == "black" and s["describe"] == "5x30 s" and s["black"]["in_periods"]


def test_several_servers_on_one_database_end_a_game_on_time_once(postgres_url, clock):
    first, second = create_app(postgres_url, clock=clock), create_app(postgres_url, clock=clock)
    with TestClient(first) as a, TestClient(second) as b:
        gid = timed_game(a, b, "fischer:15:0")
        played(a, gid, "a1")
        played(b, gid, "e5")
        before = state(a, gid)["revision"]
        # Both servers' watches run; the test also asks both at the same instant.
        clock.advance(16)
        ended: list[list[str]] = []
        threads = [threading.Thread(target=lambda t=t: ended.append(t.settle_time()))
                   for t in (first.state.tables, second.state.tables)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        s = wait_until(lambda: (s := state(b, gid))["over"] and s, "the flag")
        assert s["status"] == "White wins on time"
        assert s["revision"] == before + 1  # one stored decision, whoever made it
        assert sum(len(e) for e in ended) <= 1
        assert state(a, gid)["status"] == "White wins on time"


# -- conditional moves --------------------------------------------------------------------


def conditional(client, gid: str, lines):
    return client.put(f"/api/games/{gid}/conditional", json={"lines": lines})


def test_conditional_moves_answer_at_once_and_are_cancelled_when_the_game_leaves_the_line(pair, clock, db):
    a, b = pair
    gid = timed_game(a, b, "days:3")
    played(a, gid, "a1")
    # Black waits for white: if e5 then b1, and if then d5, c1; if e4 then a2.
    r = conditional(a, gid, [["e5", "b1", "d5", "c1"], ["e4", "a2"]])
    assert r.status_code == 200, r.text
    assert r.json()["conditional"] == {"black": [["e5", "b1", "d5", "c1"], ["e4", "a2"]]}
    assert state(b, gid)["conditional"] == {}  # secret from the opponent
    clock.advance(DAY)
    s = played(b, gid, "e5")  # answered at once, on black's clock
    assert s["moves"] == ["a1", "e5", "b1"] and s["to_move"] == "white"
    assert state(a, gid)["conditional"] == {"black": [["d5", "c1"]]}
    s = played(b, gid, "c5")  # not in the line: it is cancelled, nothing is answered
    assert s["moves"] == ["a1", "e5", "b1", "c5"] and s["to_move"] == "black"
    assert state(a, gid)["conditional"] == {}


@pytest.mark.parametrize("lines, status, words", [
    ([["e5", "a1"]], 400, "is illegal there"),  # a1 is taken
    ([["e5"]], 400, "pairs of moves"),
    ([["e5", "b1"], ["e5", "c1"]], 400, "one answer to each move"),
    ("e5 b1", 400, "a list of at most"),
    ([["e5", 3]], 400, "list of move names"),
])
def test_a_bad_conditional_line_is_refused_and_nothing_changes(pair, db, lines, status, words):
    a, b = pair
    gid = timed_game(a, b, "days:3")
    played(a, gid, "a1")
    before = stored_row(db, gid)
    r = conditional(a, gid, lines)
    assert r.status_code == status and words in r.json()["detail"], r.text
    assert stored_row(db, gid) == before


def test_conditional_moves_are_left_by_the_player_waiting_and_by_no_one_else(pair):
    a, b = pair
    client = TestClient(a.app)  # a spectator
    gid = timed_game(a, b, "days:3")
    r = conditional(a, gid, [["e5", "b1"]])  # black is to move: nothing to answer yet
    assert r.status_code == 409 and "your turn" in r.json()["detail"]
    assert conditional(client, gid, [["e5", "b1"]]).status_code in (401, 403)  # a spectator
    played(a, gid, "a1")
    assert conditional(a, gid, []).status_code == 200


# -- vacations --------------------------------------------------------------------------------


def signed_up(client, name: str) -> None:
    r = client.post("/api/account/signup", json={"name": name, "password": "correct horse battery"})
    assert r.status_code == 201, r.text


def correspondence_game_of_ann_and_bea(a, b) -> str:
    """A days:2 game between the accounts Ann (black) and Bea, three moves in: Bea to move."""
    signed_up(a, "Ann")
    signed_up(b, "Bea")
    gid = timed_game(a, b, "days:2")
    for mover, point in ((a, "a1"), (b, "e5"), (a, "b1")):
        played(mover, gid, point)
    return gid


def test_a_vacation_stops_a_correspondence_clock_on_its_player_s_turns_only(pair, clock):
    a, b = pair
    gid = correspondence_game_of_ann_and_bea(a, b)
    r = b.post("/api/account/vacation", json={"days": 3})
    assert r.status_code == 200, r.text
    assert r.json()["away"] and r.json()["days_left"] == 30
    s = state(a, gid)["clock"]
    assert s["paused"] and s["running"] == "white" and s["flag_in"] is None
    clock.advance(2.5 * DAY)  # more than white's bank: no flag while away
    assert not state(a, gid)["over"]
    r = move(b, gid, "d5")
    assert r.status_code == 409 and "away" in r.json()["detail"]
    r = b.delete("/api/account/vacation")
    assert r.status_code == 200 and r.json() == {"away": False, "until": None, "days_left": 27, "days_a_year": 30}
    s = state(a, gid)["clock"]
    assert not s["paused"] and s["white"]["seconds"] == 2 * DAY  # the pause counted for nobody
    # Ann goes away while it is Bea's turn: Bea's time runs; Ann's clock stops once Bea moves.
    assert a.post("/api/account/vacation", json={"days": 1}).status_code == 200
    assert not state(a, gid)["clock"]["paused"]
    clock.advance(DAY / 2)
    s = played(b, gid, "d5")["clock"]
    assert s["paused"] and s["running"] == "black"
    clock.advance(DAY)  # the day is over: the time keeper ends the vacation, the clock runs again
    s = wait_until(lambda: not (c := state(b, gid)["clock"])["paused"] and c, "the vacation to end")
    assert s["running"] == "black"
    assert a.get("/api/account/vacation").json()["days_left"] == 29


@pytest.mark.parametrize("days, status, words", [
    (0, 400, "a vacation is 1 to 30 days"), (31, 400, "a vacation is 1 to 30 days"),
    ("a week", 400, "days"), (None, 400, "days"),
])
def test_a_bad_vacation_is_refused(pair, days, status, words):
    a, _ = pair
    signed_up(a, "Ann")
    r = a.post("/api/account/vacation", json={"days": days})
    assert r.status_code == status and words in r.json()["detail"], r.text
    assert a.get("/api/account/vacation").json()["away"] is False


def test_a_vacation_belongs_to_an_account(pair):
    a, b = pair
    assert a.post("/api/account/vacation", json={"days": 2}).status_code == 401  # no session
    assert a.post("/api/account/guest", json={"name": "Gus"}).status_code == 200
    r = a.post("/api/account/vacation", json={"days": 2})
    assert r.status_code == 403 and "account" in r.json()["detail"]
    signed_up(b, "Bea")
    assert b.post("/api/account/vacation", json={"days": 2}).status_code == 200
    r = b.post("/api/account/vacation", json={"days": 2})
    assert r.status_code == 409 and "already" in r.json()["detail"]
    assert b.delete("/api/account/vacation").status_code == 200
    assert b.delete("/api/account/vacation").status_code == 409


# -- ratings ----------------------------------------------------------------------------------


def test_a_rated_game_moves_both_ratings_by_what_glicko_2_says_once(pair, clock):
    from hexstones.session import Rating, rated

    a, b = pair
    signed_up(a, "Ann")
    signed_up(b, "Bea")
    gid = timed_game(a, b, "fischer:60:0", rated="yes")
    played(a, gid, "a1")
    played(b, gid, "e5")
    assert a.post(f"/api/games/{gid}/resign", json={}).status_code == 200
    ann, bea = a.get("/api/players/ann").json(), b.get("/api/players/BEA").json()
    start = Rating()
    won, lost = rated(start, [(start, 1.0)]), rated(start, [(start, 0.0)])
    assert bea["ratings"]["keil"] == {"rating": round(won.rating, 1), "deviation": round(won.deviation, 1),
                                      "games": 1, "provisional": True}
    assert ann["ratings"]["keil"]["rating"] == round(lost.rating, 1) and ann["ratings"]["keil"]["games"] == 1
    assert ann["ratings"]["dehil"] == {"rating": 1500.0, "deviation": 350.0, "games": 0, "provisional": True}
    assert [h["game"] for h in ann["history"]["keil"]] == [gid]
    assert [g["id"] for g in ann["games"]] == [gid] and ann["games"][0]["rated"]
    board = a.get("/api/leaderboard/keil").json()
    assert [p["name"] for p in board["players"]] == ["Bea", "Ann"]
    assert a.get("/api/leaderboard/dehil").json()["players"] == []
    assert a.get("/api/leaderboard/chess").status_code == 404
    # A second rated game: from where the first left them.
    second = timed_game(a, b, "fischer:60:0", rated="yes")
    played(a, second, "a1")
    played(b, second, "e5")
    clock.advance(61)  # Ann's flag falls
    wait_until(lambda: state(a, second)["over"], "the flag")
    again = rated(won, [(lost, 1.0)])
    assert b.get("/api/players/bea").json()["ratings"]["keil"]["rating"] == round(again.rating, 1)
    assert a.app.state.ratings.count(a.app.state.tables.get(second)) is None  # counted once: no change
    assert b.get("/api/players/bea").json()["ratings"]["keil"]["games"] == 2


def test_rated_games_are_between_accounts_on_a_clock(pair):
    a, b = pair
    r = a.post("/api/games", json={"game": "keil", "opponent": "friend", "rated": "yes"})
    assert r.status_code == 400 and "on a clock" in r.json()["detail"]
    assert a.post("/api/account/guest", json={"name": "Gus"}).status_code == 200
    r = a.post("/api/games", json={"game": "keil", "opponent": "friend", "rated": "yes", "clock": "days:3"})
    assert r.status_code == 403 and "two accounts" in r.json()["detail"]
    signed_up(b, "Bea")
    game = b.post("/api/games", json={"game": "keil", "size": 5, "opponent": "friend", "rated": "1",
                                      "clock": "days:3"}).json()
    secret = game["invite"].rsplit("/", 1)[1]
    r = a.post(f"/api/games/{game['id']}/join", json={"secret": secret})
    assert r.status_code == 403 and "two accounts" in r.json()["detail"]  # a guest may not take the seat
    assert state(b, game["id"])["seats"]["white"] == {"open": True}
    assert a.get("/api/players/nobody").status_code == 404


def test_the_record_says_a_game_was_won_on_time_or_aborted(pair, clock):
    from hexstones.records import read_record

    a, b = pair
    gid = timed_game(a, b, "fischer:15:0")
    played(a, gid, "a1")
    played(b, gid, "e5")
    clock.advance(16)
    assert move(a, gid, "b1").status_code == 409
    record = read_record(a.get(f"/api/games/{gid}/sgf").text)
    assert record.info["result"] == "W+T" and list(record.game.moves) == ["a1", "e5"]
    aborted = timed_game(a, b, "fischer:15:0")
    clock.advance(61)
    assert move(a, aborted, "a1").status_code == 409
    assert read_record(a.get(f"/api/games/{aborted}/sgf").text).info["result"] == "Void"


# -- the AI's accounts ------------------------------------------------------------------------


def test_a_bot_account_accepts_a_challenge_within_its_limits_plays_its_colour_and_is_rated(pair, clock):
    a, b = pair
    signed_up(a, "Ann")
    bots = a.get("/api/bots").json()["bots"]
    assert [bot["name"] for bot in bots] == ["level2-bot", "level4-bot", "level6-bot", "level8-bot", "level10-bot"]
    # Too short a clock for level 10's seven seconds a move: declined at once.
    r = a.post("/api/challenges", json={"to": "level10-bot", "game": "keil", "size": 4, "clock": "fischer:60:0"})
    assert r.status_code == 201 and r.json()["status"] == "declined", r.text
    r = a.post("/api/challenges", json={"to": "Level2-Bot", "game": "keil", "size": 4, "clock": "fischer:300:5",
                                        "rated": "yes", "color": "black"})
    assert r.status_code == 201 and r.json()["status"] == "taken", r.text
    gid = r.json()["game_id"]
    played(a, gid, "a1")
    s = wait_until(lambda: (s := state(a, gid))["move_count"] == 2 and s, "the bot's move")
    assert s["players"] == {"black": "human", "white": "ai"} and s["level"] == 2
    assert s["seats"]["white"]["name"] == "level2-bot" and s["clock"]["running"] == "black"
    r = a.post(f"/api/games/{gid}/takeback", json={"action": "request"})
    assert r.status_code == 409 and "do not take moves back" in r.json()["detail"]
    assert a.post(f"/api/games/{gid}/resign", json={}).status_code == 200
    bot = a.get("/api/players/level2-bot").json()
    assert bot["ratings"]["keil"]["games"] == 1 and bot["ratings"]["keil"]["rating"] > 1500
    assert a.get("/api/players/ann").json()["ratings"]["keil"]["rating"] < 1500


def test_nobody_takes_or_signs_in_to_a_bot_s_name(pair):
    a, b = pair
    r = a.post("/api/account/signup", json={"name": "Level3-Bot", "password": "correct horse battery"})
    assert r.status_code == 400 and "-bot" in r.json()["detail"]
    r = a.post("/api/account/signin", json={"name": "level2-bot", "password": "!"})
    assert r.status_code == 401


def test_an_away_player_s_conditional_answer_is_played_and_a_paused_game_may_be_resigned(pair, clock):
    a, b = pair
    gid = correspondence_game_of_ann_and_bea(a, b)
    # Ann leaves an answer to d5, then goes away: Bea plays into it, and it is played.
    assert conditional(a, gid, [["d5", "c1"]]).status_code == 200
    assert a.post("/api/account/vacation", json={"days": 3}).status_code == 200
    clock.advance(DAY / 2)
    s = played(b, gid, "d5")
    assert s["moves"][-2:] == ["d5", "c1"] and s["clock"]["running"] == "white" and not s["clock"]["paused"]
    s = played(b, gid, "c5")  # no answer left: Ann's clock stands still on her turn
    assert s["clock"]["paused"] and s["clock"]["running"] == "black"
    clock.advance(DAY)
    r = a.post(f"/api/games/{gid}/resign", json={})  # away, she may still give up
    assert r.status_code == 200, r.text
    s = r.json()
    assert s["status"] == "White wins: Black resigned" and s["clock"]["running"] is None
