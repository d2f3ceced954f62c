"""Tournaments: the pairing rules on their own (Swiss and round robin, with hypothesis), and
whole tournaments through the HTTP API: a Swiss of two people and two of the AI's accounts
run to the end, a round robin with a bye a round, a start at a set time, refusals that
change nothing, and a round paired once by two processes on one PostgreSQL database.

Each person is a TestClient of their own on one app and a real SQLite file; the app's
clock is one the test moves (a missed game is lost when the test moves the clock past its
first-move deadline), the AI plays its accounts' games in the app's AI processes.
"""

from __future__ import annotations

import functools
import itertools
import sqlite3
import threading
import time
import warnings

import pytest
from hypothesis import given, settings, strategies as st

warnings.filterwarnings("ignore", message=".*httpx.*")

from fastapi.testclient import TestClient  # noqa: E402

from hexstones.web import create_app  # noqa: E402
from hexstones.web.pairing import (  # noqa: E402
    BLACK,
    WHITE,
    Record,
    round_robin_round,
    round_robin_rounds,
    swiss_round,
)

WAIT_SECONDS = 120  # bound of a wait for a condition: generous on purpose
PASSWORD = "correct horse battery"
FIRST_MOVE_MISSED = 61  # seconds: past a live game's first-move deadline (60 s)
SWISS = {"name": "Autumn cup", "game": "keil", "size": 3, "clock": "fischer:600:5", "system": "swiss",
         "rounds": 3, "rated": "yes"}


# -- pairing: Swiss ------------------------------------------------------------------------------

def records_after(ids: list[str], rounds: list[tuple[list[tuple[str, str]], str | None, dict[str, float]]]
                  ) -> list[Record]:
    """Each player's record after ``rounds``: (games as (black, white), bye, points won)."""
    score = dict.fromkeys(ids, 0.0)
    met: dict[str, set[str]] = {i: set() for i in ids}
    colors: dict[str, list[str]] = {i: [] for i in ids}
    byes = set()
    for games, bye, points in rounds:
        for black, white in games:
            met[black].add(white)
            met[white].add(black)
            colors[black].append(BLACK)
            colors[white].append(WHITE)
        if bye is not None:
            byes.add(bye)
            score[bye] += 1
        for who, p in points.items():
            score[who] += p
    return [Record(i, score[i], seed, frozenset(met[i]), tuple(colors[i]), i in byes) for seed, i in enumerate(ids)]


def test_the_first_swiss_round_pairs_the_top_half_against_the_bottom_half():
    paired = swiss_round([Record(p, seed=s) for s, p in enumerate("ABCDEF")])
    assert {frozenset(g) for g in paired.games} == {frozenset("AD"), frozenset("BE"), frozenset("CF")}
    assert paired.bye is None
    # Colours alternate down the boards: board 1's top seed takes black, board 2's white.
    assert paired.games[0] == ("A", "D") and paired.games[1] == ("E", "B")


def test_winners_meet_winners_and_colours_even_out():
    ids = list("ABCD")
    first = [("A", "C"), ("B", "D")]
    paired = swiss_round(records_after(ids, [(first, None, {"A": 1, "D": 1})]))
    # A and D won, B and C lost; whoever had white gets black now.
    assert set(paired.games) == {("D", "A"), ("C", "B")}


def test_the_search_backtracks_rather_than_repeat_a_pairing():
    # All on 0 points. A's first choice (C, the top of the lower half) is a repeat, its
    # second (D) leaves B and C, who met: the search comes back to pair A with B.
    met = {"A": "C", "B": "C", "C": "AB", "D": ""}
    paired = swiss_round([Record(p, seed=s, opponents=frozenset(met[p])) for s, p in enumerate("ABCD")])
    assert {frozenset(g) for g in paired.games} == {frozenset("AB"), frozenset("CD")}


def test_the_bye_goes_to_the_lowest_ranked_player_without_one():
    ids = list("ABCDE")
    first = swiss_round(records_after(ids, []))
    assert first.bye == "E"
    after = records_after(ids, [(first.games, first.bye, {black: 1 for black, _ in first.games})])
    second = swiss_round(after)
    # E has had its bye (and its point): the lowest ranked of the others sits out now.
    lowest = sorted((r for r in after if r.id != "E"), key=lambda r: (r.score, -r.seed))[0]
    assert second.bye == lowest.id != "E"


def test_round_robin_meets_everyone_once_with_balanced_colours():
    for n in range(2, 12):
        ids = [f"p{i}" for i in range(n)]
        met, byes = [], []
        colors: dict[str, list[str]] = {i: [] for i in ids}
        for number in range(1, round_robin_rounds(n) + 1):
            paired = round_robin_round(ids, number)
            playing = [p for g in paired.games for p in g]
            assert len(playing) == len(set(playing)) and (paired.bye is None) == (n % 2 == 0)
            met.extend(frozenset(g) for g in paired.games)
            byes.append(paired.bye)
            for black, white in paired.games:
                colors[black].append(BLACK)
                colors[white].append(WHITE)
                for who in (black, white):  # within 2 along the way, never a colour three times running
                    assert abs(colors[who].count(BLACK) - colors[who].count(WHITE)) <= 2
                    assert len(set(colors[who][-3:])) == 2 or len(colors[who]) < 3
        assert all(abs(c.count(BLACK) - c.count(WHITE)) <= 1 for c in colors.values())  # at the end
        assert sorted(met, key=sorted) == sorted({frozenset(p) for p in itertools.combinations(ids, 2)}, key=sorted)
        if n % 2:
            assert sorted(byes) == sorted(ids)  # one bye each


def pairing_exists(records: list[Record], colors_kept: bool) -> bool:
    """Brute force: some bye (to a player without one, if any) and pairs of the rest with no
    two who met before (and, with ``colors_kept``, no two who must both have one colour)."""
    def allowed(a: Record, b: Record) -> bool:
        must = a.must_have()
        return b.id not in a.opponents and not (colors_kept and must is not None and must == b.must_have())

    def perfect(rest: list[Record]) -> bool:
        if not rest:
            return True
        first, others = rest[0], rest[1:]
        return any(allowed(first, q) and perfect([r for r in others if r.id != q.id]) for q in others)

    if len(records) % 2 == 0:
        return perfect(records)
    eligible = [r for r in records if not r.had_bye] or records
    return any(perfect([r for r in records if r.id != bye.id]) for bye in eligible)


def colors_kept(record: Record) -> bool:
    """Within 2 of even, and no colour three times running."""
    return abs(record.color_difference) <= 2 and (len(record.colors) < 3 or len(set(record.colors[-3:])) == 2)


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=2, max_value=9).flatmap(
    lambda n: st.tuples(st.just(n), st.integers(min_value=1, max_value=n + 1),
                        st.lists(st.sampled_from((1.0, 0.5, 0.0)), min_size=n * (n + 2), max_size=n * (n + 2)))))
def test_swiss_rounds_keep_the_rules_whatever_the_results(case):
    """Random results, up to more rounds than players: each player plays at most once a
    round; no pairing repeats while a repeat-free pairing exists; colour differences stay
    within 2 (and no colour comes three times running) while a repeat-free pairing allows
    it; a bye goes to a player without one while there is one."""
    n, rounds, results = case
    ids = [f"p{i}" for i in range(n)]
    history: list[tuple[list[tuple[str, str]], str | None, dict[str, float]]] = []
    outcomes = iter(results)
    for _ in range(rounds):
        before = records_after(ids, history)
        paired = swiss_round(before)
        playing = [p for g in paired.games for p in g] + ([paired.bye] if paired.bye else [])
        assert sorted(playing) == sorted(ids)  # everyone once: a game or the bye
        met = {r.id: r.opponents for r in before}
        repeats = any(white in met[black] for black, white in paired.games)
        assert not repeats or not pairing_exists(before, colors_kept=False), (history, paired)
        if paired.bye is not None and any(not r.had_bye for r in before):
            assert not next(r for r in before if r.id == paired.bye).had_bye
        points: dict[str, float] = {}
        for black, white in paired.games:
            p = next(outcomes)
            points[black], points[white] = p, 1.0 - p
        history.append((paired.games, paired.bye, points))
        if pairing_exists(before, colors_kept=True):
            assert all(colors_kept(r) for r in records_after(ids, history)), (history, paired)


# -- the app -------------------------------------------------------------------------------------

@pytest.fixture
def app(db, clock):
    return create_app(db, clock=clock)


def sign_up(who, name: str) -> None:
    r = who.post("/api/account/signup", json={"name": name, "password": PASSWORD})
    assert r.status_code == 201, r.text


@pytest.fixture
def people(app):
    """Four browsers on one server: Ann, Bea and Cy with accounts, and Dee a guest."""
    with TestClient(app) as a, TestClient(app) as b, TestClient(app) as c, TestClient(app) as d:
        for who, name in ((a, "Ann"), (b, "Bea"), (c, "Cy")):
            sign_up(who, name)
        assert d.post("/api/account/guest", json={"name": "Dee"}).status_code == 200
        yield a, b, c, d


def wait_for(condition, what: str):
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        found = condition()
        if found:
            return found
        assert time.monotonic() < deadline, f"waited {WAIT_SECONDS} s for {what}"
        time.sleep(0.05)


def make(who, **choices) -> dict:
    r = who.post("/api/tournaments", json=choices or SWISS)
    assert r.status_code == 201, r.text
    return r.json()


def look(who, tid: str) -> dict:
    r = who.get(f"/api/tournaments/{tid}")
    assert r.status_code == 200, r.text
    return r.json()


def rows(db: str, sql: str) -> list:
    with sqlite3.connect(db) as con:
        return con.execute(sql).fetchall()


def round_ready(who, tid: str, number: int):
    """The tournament once round ``number`` is under way with every board's game made."""
    t = look(who, tid)
    if t["round"] != number or t["status"] != "running":
        return None
    games = t["rounds"][number - 1]["games"]
    return t if all(g["game"] for g in games) else None


def paired_in_database(db: str, tid: str, number: int) -> bool:
    """Whether the stored tournament plays round ``number`` with every board's game made."""
    current = rows(db, f"SELECT round FROM tournaments WHERE id = '{tid}'")
    missing = rows(db, f"SELECT count(*) FROM tournament_games WHERE tournament_id = '{tid}' AND round = {number} "
                       f"AND white IS NOT NULL AND game_id IS NULL")
    return current == [(number,)] and missing == [(0,)]


def past_round(who, tid: str, number: int) -> bool:
    """Whether round ``number`` has ended (the next one paired, or the tournament over)."""
    t = look(who, tid)
    return t["round"] > number or t["status"] == "finished"


def play_by_passing(who, game_id: str) -> bool:
    """``who`` passes whenever it is their turn (Keil: takes the button first, when it is
    there to take); whether the game is over."""
    state = who.get(f"/api/games/{game_id}").json()
    if state["over"]:
        return True
    if state["to_move"] in state["you"] and state["legal"]:
        move = next((m for m in ("pass", "button") if m in state["legal"]), state["legal"][0])
        r = who.post(f"/api/games/{game_id}/moves", json={"move": move, "ply": len(state["moves"])})
        assert r.status_code in (200, 409), r.text  # 409: the AI answered meanwhile
    return False


def only_bea_left(a, b, games: list[dict]) -> bool:
    """Ann plays on in her games; whether every game of ``games`` is over but Bea's, which
    waits on her alone (her turn, the AI done)."""
    left = []
    for g in games:
        if "Ann" in (g["black"], g["white"]):
            if not play_by_passing(a, g["game"]):
                left.append(g)
        elif not b.get(f"/api/games/{g['game']}").json()["over"]:
            left.append(g)
    for g in left:
        state = b.get(f"/api/games/{g['game']}").json()
        if "Bea" not in (g["black"], g["white"]) or state["to_move"] not in state["you"]:
            return False
    return True


def test_a_swiss_of_two_people_and_two_bots_runs_to_the_end(people, clock):
    a, b, *_ = people
    made = make(a)
    tid = made["id"]
    assert made["status"] == "open" and made["url"] == f"/tournaments/{tid}" and made["yours"]
    assert a.post(f"/api/tournaments/{tid}/join").status_code == 200
    assert b.post(f"/api/tournaments/{tid}/join").status_code == 200
    for bot in ("level2-bot", "level4-bot"):
        r = a.post(f"/api/tournaments/{tid}/bots", json={"name": bot})
        assert r.status_code == 200, r.text
    before = look(b, tid)
    assert {p["name"]: (p["seed"], p["bot"]) for p in before["players"]} == {
        "Ann": (None, False), "Bea": (None, False), "level2-bot": (None, True), "level4-bot": (None, True)}
    assert before["entrants"] == 4 and not before["yours"] and before["joined"]
    assert a.post(f"/api/tournaments/{tid}/start").status_code == 200

    # Ann passes at each of her turns; Bea never moves: each of her games is aborted at its
    # first-move deadline, a loss for her.
    for number in (1, 2, 3):
        t = wait_for(functools.partial(round_ready, a, tid, number), f"round {number}'s games")
        games = t["rounds"][number - 1]["games"]
        assert sorted(p for g in games for p in (g["black"], g["white"])) == sorted(
            ["Ann", "Bea", "level2-bot", "level4-bot"])
        if number == 1:  # the tournament owns its games: a player deletes none (a loss for both)
            r = a.delete(f"/api/games/{games[0]['game']}")
            assert r.status_code == 403, r.text
            assert a.post("/api/games/remove-empty").json()["deleted"] == []

        wait_for(functools.partial(only_bea_left, a, b, games), f"round {number}'s games but Bea's to end")
        clock.advance(FIRST_MOVE_MISSED)
        wait_for(functools.partial(past_round, a, tid, number), f"round {number} to end")

    t = look(b, tid)
    assert t["status"] == "finished" and t["round"] == 3
    # Everyone met everyone once: 3 rounds of 4 players, no pairing twice.
    pairs = [frozenset((g["black"], g["white"])) for r in t["rounds"] for g in r["games"]]
    assert len(pairs) == 6 and len(set(pairs)) == 6
    for r in t["rounds"]:
        assert r["bye"] is None and all(g["result"] in ("black", "white") for g in r["games"])
        for g in r["games"]:
            state = b.get(f"/api/games/{g['game']}").json()
            assert state["seats"]["black"]["name"] == g["black"] and state["seats"]["white"]["name"] == g["white"]
            assert state["clock"]["control"] == "fischer:600:5" and state["options"]["size"] == 3
            if "Bea" in (g["black"], g["white"]):
                bea = "black" if g["black"] == "Bea" else "white"
                assert g["result"] != bea and "aborted" in state["status"].lower(), state["status"]
            else:
                assert g["result"] == state["result"]["winner"]
            if {g["black"], g["white"]} == {"level2-bot", "level4-bot"}:  # each bot plays at its own level
                sgf = b.get(f"/api/games/{g['game']}/sgf").text
                for color, tag in (("black", "PB"), ("white", "PW")):
                    level = g[color].removeprefix("level").removesuffix("-bot")
                    assert f"{tag}[hexstones AI level {level}]" in sgf, sgf[:300]
    # Standings: a point a win, Buchholz the opponents' points; the winner leads them.
    standings = t["standings"]
    points = {s["name"]: s["points"] for s in standings}
    assert points["Bea"] == 0 and sum(points.values()) == 6
    for s in standings:
        opponents = [g["white"] if g["black"] == s["name"] else g["black"] for r in t["rounds"] for g in r["games"]
                     if s["name"] in (g["black"], g["white"])]
        assert s["points"] == s["wins"] and s["games"] == 3 and s["tiebreak"] == sum(points[o] for o in opponents)
    keys = [(-s["points"], -s["tiebreak"]) for s in standings]
    assert keys == sorted(keys) and [s["place"] for s in standings] == [1, 2, 3, 4]
    assert t["winner"] == standings[0]["name"] and t["tiebreak"] == "Buchholz"
    # The crosstable holds each game twice, from each side, the points adding to 1.
    cross = t["crosstable"]
    assert cross["players"] == [s["name"] for s in standings]
    for i, j in itertools.combinations(range(4), 2):
        (mine,), (theirs,) = cross["rows"][i]["cells"][j], cross["rows"][j]["cells"][i]
        assert mine["game"] == theirs["game"] and {mine["points"], theirs["points"]} == {"1", "0"}
    # The bots' rated games moved their ratings (the aborted ones count for nobody).
    bot = a.get("/api/players/level2-bot").json()
    assert bot["ratings"]["keil"]["games"] >= 1
    finished = a.get("/api/tournaments").json()["finished"]
    assert [(x["name"], x["winner"]) for x in finished] == [("Autumn cup", t["winner"])]


def resign_all(who_by_name: dict, t: dict, number: int, loser: str | None = None) -> None:
    """Every game of round ``number`` ends by resignation: ``loser`` resigns if they play it,
    else black does."""
    for g in t["rounds"][number - 1]["games"]:
        color = "white" if g["white"] == loser else "black"
        resigner = who_by_name[g[color]]
        r = resigner.post(f"/api/games/{g['game']}/resign", json={"color": color})
        assert r.status_code == 200, r.text


def test_a_round_robin_of_three_gives_each_a_bye_and_counts_sonneborn_berger(people, db):
    a, b, c, _ = people
    tid = make(a, name="Triangle", game="dehil", size=3, clock="days:1", system="round-robin")["id"]
    for who in (a, b, c):
        assert who.post(f"/api/tournaments/{tid}/join").status_code == 200
    assert a.post(f"/api/tournaments/{tid}/start").status_code == 200
    by_name = {"Ann": a, "Bea": b, "Cy": c}
    for number in (1, 2, 3):
        # Nobody looks at the tournament meanwhile: the time keeper pairs each round.
        wait_for(functools.partial(paired_in_database, db, tid, number), f"round {number} paired")
        t = look(a, tid)
        assert len(t["rounds"][number - 1]["games"]) == 1 and t["rounds"][number - 1]["bye"] is not None
        resign_all(by_name, t, number, loser="Cy")  # Cy loses his games; the others lose as black
        wait_for(functools.partial(past_round, a, tid, number), f"round {number} to end")
    t = look(c, tid)
    assert t["status"] == "finished"
    assert len(t["rounds"]) == 3 and sorted(r["bye"] for r in t["rounds"]) == ["Ann", "Bea", "Cy"]
    pairs = {frozenset((g["black"], g["white"])) for r in t["rounds"] for g in r["games"]}
    assert pairs == {frozenset(p) for p in itertools.combinations(["Ann", "Bea", "Cy"], 2)}
    (between,) = [g for r in t["rounds"] for g in r["games"] if "Cy" not in (g["black"], g["white"])]
    winner, second = between["white"], between["black"]  # black resigned
    # A round robin's bye is worth nothing: each sat out once. Sonneborn-Berger: the points
    # of the players one beat.
    assert [(s["name"], s["points"], s["tiebreak"]) for s in t["standings"]] == [
        (winner, 2, 1), (second, 1, 0), ("Cy", 0, 0)]
    assert t["tiebreak"] == "Sonneborn-Berger" and t["winner"] == winner
    assert rows(db, f"SELECT count(*) FROM tournament_games WHERE tournament_id = '{tid}' AND result = 'bye'") == [(3,)]


def test_a_tournament_starts_at_its_time_and_is_cancelled_without_players(people, clock):
    a, b, c, _ = people
    later = clock.now + 3600
    tid = make(a, name="At noon", game="keil", size=4, clock="fischer:300:3", starts_at=later)["id"]
    empty = make(a, name="Nobody came", game="keil", size=4, clock="fischer:300:3", starts_at=later)["id"]
    for who in (b, c):
        assert who.post(f"/api/tournaments/{tid}/join").status_code == 200
    assert c.post(f"/api/tournaments/{tid}/leave").status_code == 200
    assert a.post(f"/api/tournaments/{tid}/join").status_code == 200
    assert look(a, tid)["status"] == "open" and look(a, tid)["entrants"] == 2
    upcoming = [x["id"] for x in a.get("/api/tournaments").json()["upcoming"]]
    assert tid in upcoming and empty in upcoming
    clock.advance(3600)
    # Nobody looks: the time keeper starts one and cancels the other.
    wait_for(lambda: {x["id"]: x["status"] for x in a.get("/api/tournaments").json()["running"] +
                      a.get("/api/tournaments").json()["finished"]} == {tid: "running", empty: "cancelled"},
             "the start time to start one and cancel the other")
    t = wait_for(lambda: round_ready(b, tid, 1), "round 1's game")
    (game,) = t["rounds"][0]["games"]
    assert {game["black"], game["white"]} == {"Ann", "Bea"}
    assert {p["name"] for p in t["players"]} == {"Ann", "Bea"}
    r = c.post(f"/api/tournaments/{empty}/join")
    assert r.status_code == 409 and "cancelled" in r.json()["detail"]


def test_a_tournament_goes_on_after_a_restart(db, clock):
    """The server stops in the middle of round 1; the next one, on the same file, records
    its result when it ends and pairs round 2 by itself."""
    with TestClient(create_app(db, clock=clock)) as a, TestClient(a.app) as b:
        sign_up(a, "Ann")
        sign_up(b, "Bea")
        tid = make(a, name="Overnight", game="keil", size=3, clock="days:1", rounds=2)["id"]
        for who in (a, b):
            assert who.post(f"/api/tournaments/{tid}/join").status_code == 200
        assert a.post(f"/api/tournaments/{tid}/start").status_code == 200
        (game,) = look(a, tid)["rounds"][0]["games"]
    with TestClient(create_app(db, clock=clock)) as a, TestClient(a.app) as b:
        for who, name in ((a, "Ann"), (b, "Bea")):
            assert who.post("/api/account/signin", json={"name": name, "password": PASSWORD}).status_code == 200
        by_name = {"Ann": a, "Bea": b}
        r = by_name[game["black"]].post(f"/api/games/{game['game']}/resign", json={"color": "black"})
        assert r.status_code == 200, r.text
        wait_for(functools.partial(paired_in_database, db, tid, 2), "round 2 paired after the restart")
        t = look(b, tid)
        assert t["rounds"][0]["games"][0]["result"] == "white" and len(t["rounds"][1]["games"]) == 1
        # Two players, two rounds: the second is a repeat, the only pairing there is, with
        # the colours the other way round.
        (second,) = t["rounds"][1]["games"]
        assert (second["black"], second["white"]) == (game["white"], game["black"])


def test_bad_requests_are_refused_and_change_nothing(people, db, clock):
    a, b, c, d = people
    for choices, words in [
        ({**SWISS, "clock": "none", "rated": "no"}, "a tournament is played on a clock"),
        ({**SWISS, "clock": "fischer:1:0"}, "bad clock"),
        ({**SWISS, "size": 99}, "bad option"),
        ({**SWISS, "game": "chess"}, "unknown game"),
        ({**SWISS, "system": "knockout"}, "system must be one of"),
        ({**SWISS, "rounds": 0}, "1 to 20 rounds"),
        ({**SWISS, "system": "round-robin"}, "leave out rounds"),
        ({**SWISS, "max_players": 1}, "max_players must be from 2"),
        ({**SWISS, "starts_at": clock.now - 1}, "the start time has passed"),
        ({**SWISS, "starts_at": "tomorrow"}, "starts_at is the start time"),
        ({**SWISS, "name": ""}, "a tournament's name"),
        ({**SWISS, "pie": "you"}, "unknown tournament choice 'pie'"),
    ]:
        r = a.post("/api/tournaments", json=choices)
        assert r.status_code == 400 and words in r.json()["detail"], (choices, r.text)
    r = d.post("/api/tournaments", json=SWISS)
    assert r.status_code == 403 and "only accounts" in r.json()["detail"]
    assert rows(db, "SELECT count(*) FROM tournaments") == [(0,)]

    tid = make(a, **{**SWISS, "clock": "fischer:300:3", "max_players": 3})["id"]
    assert a.post(f"/api/tournaments/{tid}/join").status_code == 200
    before = rows(db, "SELECT * FROM tournament_players ORDER BY user_id")

    def refused(who, path, status, words, **body):
        url = f"/api/tournaments/{tid}/{path}"
        r = who.post(url, json=body) if body else who.post(url)
        assert r.status_code == status and words in r.json()["detail"], r.text
        assert rows(db, "SELECT * FROM tournament_players ORDER BY user_id") == before
        assert rows(db, "SELECT count(*) FROM tournament_games") == [(0,)]

    refused(a, "join", 409, "you are in this tournament already")
    refused(d, "join", 403, "only accounts play in tournaments")
    refused(a, "start", 409, "at least 2 players to start: it has 1")
    refused(a, "bots", 400, "level10-bot cannot play this tournament: level 10 needs about", name="level10-bot")
    refused(a, "bots", 400, "is not one of the AI's accounts", name="Bea")
    refused(b, "bots", 403, "only the tournament's creator", name="level2-bot")
    refused(b, "leave", 409, "you are not in this tournament")
    assert b.post(f"/api/tournaments/{tid}/join").status_code == 200
    assert a.post(f"/api/tournaments/{tid}/bots", json={"name": "level2-bot"}).status_code == 200
    before = rows(db, "SELECT * FROM tournament_players ORDER BY user_id")
    refused(c, "join", 409, "this tournament is full: 3 players at most")
    refused(b, "start", 403, "only the tournament's creator may start it")
    assert a.post(f"/api/tournaments/{tid}/start").status_code == 200
    assert look(a, tid)["status"] == "running"
    before = rows(db, "SELECT * FROM tournament_players ORDER BY user_id")
    boards = rows(db, "SELECT * FROM tournament_games")
    for who, path, words in ((c, "join", "has started"), (b, "leave", "has started"), (a, "start", "has started")):
        r = who.post(f"/api/tournaments/{tid}/{path}")
        assert r.status_code == 409 and words in r.json()["detail"], r.text
    assert rows(db, "SELECT * FROM tournament_players ORDER BY user_id") == before
    assert rows(db, "SELECT * FROM tournament_games") == boards
    assert a.get("/api/tournaments/nosuch").status_code == 404 and a.get("/tournaments/nosuch").status_code == 404
    page = d.get(f"/tournaments/{tid}")
    assert page.status_code == 200 and 'data-testid="crosstable"' in page.text


def test_two_processes_pair_each_round_once(postgres_url):
    """Two apps on one PostgreSQL database, both bringing the tournament up to date at
    the same moments (their time keepers and requests): each round's boards and games are
    made once."""
    first, second = create_app(postgres_url), create_app(postgres_url)
    with TestClient(first) as a, TestClient(second) as b, TestClient(first) as c, TestClient(second) as e:
        for who, name in ((a, "Ann"), (b, "Bea"), (c, "Cy"), (e, "Eve")):
            sign_up(who, name)
        tid = make(a, name="Shared", game="keil", size=3, clock="days:1", system="swiss", rounds=2)["id"]
        for who in (a, b, c, e):
            assert who.post(f"/api/tournaments/{tid}/join").status_code == 200
        by_name = {"Ann": a, "Bea": b, "Cy": c, "Eve": e}
        assert a.post(f"/api/tournaments/{tid}/start").status_code == 200
        for number in (1, 2):
            t = wait_for(functools.partial(round_ready, b, tid, number), f"round {number} seen by the other process")
            resign_all(by_name, t, number)
            racing = [first.state.tournaments, second.state.tournaments] * 4
            threads = [threading.Thread(target=t.advance, args=(tid,)) for t in racing]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            wait_for(functools.partial(past_round, a, tid, number), f"round {number} to end")
        t = wait_for(lambda: look(b, tid)["status"] == "finished" and look(b, tid), "the end")
        assert [len(r["games"]) for r in t["rounds"]] == [2, 2]
        made = {g["game"] for r in t["rounds"] for g in r["games"]}
        # Every game stored is a board's: a game made by a losing process was deleted.
        stored = {g["id"] for who in (a, b, c, e) for g in who.get("/api/games").json()["games"]}
        assert stored == made and len(made) == 4


def test_two_advances_at_once_in_one_process_pair_a_round_once(people, db):
    """The time keeper and a request (here: two Tournaments of one app, as two processes
    would be) bring a round to its end together: one pairs the next round."""
    from hexstones.web.tournaments import Tournaments

    a, b, c, _ = people
    tid = make(a, name="Race", game="keil", size=3, clock="days:1", system="swiss", rounds=2)["id"]
    for who in (a, b, c):
        assert who.post(f"/api/tournaments/{tid}/join").status_code == 200
    assert a.post(f"/api/tournaments/{tid}/start").status_code == 200
    t = wait_for(lambda: round_ready(a, tid, 1), "round 1")
    state = a.app.state
    other = Tournaments(state.tables, state.settings.clock, state.ratings, state.bots)
    state.tables.watchers.remove(other.advance_now_and_then)  # driven by hand below
    resign_all({"Ann": a, "Bea": b, "Cy": c}, t, 1)
    threads = [threading.Thread(target=x.advance, args=(tid,)) for x in (state.tournaments, other) * 3]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    t = wait_for(lambda: round_ready(a, tid, 2), "round 2")
    assert rows(db, f"SELECT round, count(*) FROM tournament_games WHERE tournament_id = '{tid}' GROUP BY round") == [
        (1, 2), (2, 2)]  # a game and a bye each round
    (game,) = t["rounds"][1]["games"]
    assert rows(db, f"SELECT count(*) FROM games WHERE id = '{game['game']}'") == [(1,)]
    assert len(rows(db, "SELECT id FROM games")) == 2  # round 1's game and round 2's, no more
