"""The analysis mode's API: background jobs in the AI pool, stored analysis, stop, deeper,
SGF with analysis, the hint. A real SQLite file; the AI really runs (small budgets, seeded
by the move number, so the results are deterministic); waits are for conditions."""

from __future__ import annotations

import sqlite3
import time
import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*")

from fastapi.testclient import TestClient  # noqa: E402

import hexstones  # noqa: E402
from hexstones.records import read_record  # noqa: E402
from hexstones.web import create_app  # noqa: E402

WAIT = 300  # seconds: only a bound for a condition that should come much sooner
ITERATIONS = 40
# Short finished games (side 3): each ends by the rules.
FINISHED = {
    "keil": ["b2", "c3", "a1", "button", "pass", "pass"],
    "dehil": ["d2", "d4", "a2", "c3", "pass", "c1", "pass", "pass"],
    "droched": ["a2", "e3", "d3", "c5", "b1", "a3", "a1", "c1", "c4", "e5", "e4", "d2", "d5",
                "c5", "e5", "e3", "d2", "d4", "b3", "b4", "b4"],
}


def new_game(client, name: str, moves: list[str], **setup) -> str:
    r = client.post("/api/games", json={"game": name, "size": 3, **setup})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    for m in moves:
        r = client.post(f"/api/games/{gid}/moves", json={"move": m})
        assert r.status_code == 200, r.text
    return gid


def analysis(client, gid: str) -> dict:
    r = client.get(f"/api/games/{gid}/analysis")
    assert r.status_code == 200, r.text
    return r.json()


def act(client, gid: str, **body) -> dict:
    r = client.post(f"/api/games/{gid}/analysis", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def wait_job(client, gid: str, state: str = "done") -> dict:
    deadline = time.monotonic() + WAIT
    while True:
        a = analysis(client, gid)
        if a["job"] and a["job"]["state"] != "running":
            assert a["job"]["state"] == state, a["job"]
            return a
        assert time.monotonic() < deadline, f"waited {WAIT}s for the analysis; last: {a['job']}"
        time.sleep(0.05)


@pytest.mark.parametrize("name", ["keil", "dehil", pytest.param("droched", marks=pytest.mark.slow)])
def test_a_finished_game_is_analysed_position_by_position(client, name):
    moves = FINISHED[name]
    gid = new_game(client, name, moves)
    assert analysis(client, gid)["positions"] == [] and analysis(client, gid)["job"] is None
    act(client, gid, action="start", iterations=ITERATIONS)
    a = wait_job(client, gid)
    assert a["job"]["done"] == a["job"]["total"] == len(moves) + 1
    assert [p["ply"] for p in a["positions"]] == list(range(len(moves) + 1))
    assert [p["move"] for p in a["positions"]] == [None, *moves]
    final = hexstones.new_game(name, size=3)
    for m in moves:
        final.play(m)
    # The last position is the rules' result, not a search.
    assert a["positions"][-1]["black_win"] == (1.0 if final.outcome().winner == "black" else 0.0)
    for p in a["positions"]:
        assert 0.0 <= p["black_win"] <= 1.0
        assert (p["score_lead"] is not None) == final.has_score
    # One position in full: legal best moves, a pv, the map the game calls for.
    position = hexstones.new_game(name, size=3)
    for ply, m in enumerate(moves):
        r = client.get(f"/api/games/{gid}/analysis/{ply}")
        assert r.status_code == 200, r.text
        data = r.json()
        assert data["played"] == m and data["to_move"] == position.to_move
        assert data["iterations"] == ITERATIONS and data["moves"]
        assert {c["move"] for c in data["moves"]} <= set(position.legal_moves())
        assert data["pv"][0] == data["moves"][0]["move"]
        if final.has_score:
            assert set(data["ownership"]) == set(position.board.names)
        elif position.stones():
            stones = position.stones()
            assert sorted(p for g in data["prison_chance"] for p in g["points"]) == sorted(stones)
        position.play(m)
    # Mistakes: each a move that cost its player at least a tenth of a chance to win.
    wins = {p["ply"]: p["black_win"] for p in a["positions"]}
    for mistake in a["mistakes"]:
        ply = mistake["ply"]
        sign = 1 if mistake["color"] == "black" else -1
        assert mistake["drop"] == pytest.approx(sign * (wins[ply - 1] - wins[ply]), abs=1e-4)
        assert mistake["drop"] >= 0.1 and mistake["move"] == moves[ply - 1]


@pytest.mark.slow  # two servers, a deeper search: over 10 s
def test_stored_analysis_is_not_recomputed_when_the_game_is_reopened(db):
    with TestClient(create_app(db)) as client:
        gid = new_game(client, "keil", FINISHED["keil"])
        act(client, gid, action="start", iterations=ITERATIONS)
        first = wait_job(client, gid)
        before = {ply: client.get(f"/api/games/{gid}/analysis/{ply}").json() for ply in range(7)}
        cookies = dict(client.cookies)  # the session that owns the game
    rows = sqlite3.connect(db).execute("SELECT COUNT(*) FROM analysis WHERE game_id = ?", (gid,)).fetchone()
    assert rows == (7,)
    with TestClient(create_app(db), cookies=cookies) as client:
        again = analysis(client, gid)
        assert again["job"] is None and again["positions"] == first["positions"]
        # Starting again has nothing left to do at that budget.
        started = act(client, gid, action="start", iterations=ITERATIONS)
        assert started["job"]["total"] == 0
        wait_job(client, gid)
        assert {ply: client.get(f"/api/games/{gid}/analysis/{ply}").json() for ply in range(7)} == before
        # Deeper: one position again, four times the search.
        act(client, gid, action="deeper", ply=2)
        deeper = wait_job(client, gid)
        assert deeper["job"]["total"] == 1
        assert client.get(f"/api/games/{gid}/analysis/2").json()["iterations"] == 4 * ITERATIONS
        # An undo makes the later positions' rows stale: they are no longer shown.
        assert client.post(f"/api/games/{gid}/undo", json={}).status_code == 200
        assert [p["ply"] for p in analysis(client, gid)["positions"]] == list(range(6))


def test_stop_ends_the_job_after_the_position_being_searched(client):
    gid = new_game(client, "keil", FINISHED["keil"])
    act(client, gid, action="start", iterations=200_000)
    stopped = act(client, gid, action="stop")
    assert stopped["job"]["state"] in ("running", "stopped")
    a = wait_job(client, gid, "stopped")
    assert a["job"]["done"] < a["job"]["total"] == 7
    assert len(a["positions"]) == a["job"]["done"]


def test_analysis_goes_into_the_sgf_download_and_comes_back_on_import(client):
    moves = FINISHED["dehil"]
    gid = new_game(client, "dehil", moves)
    act(client, gid, action="start", iterations=ITERATIONS)
    a = wait_job(client, gid)
    text = client.get(f"/api/games/{gid}/sgf").text
    record = read_record(text)
    assert sorted(record.analysis) == list(range(len(moves) + 1))
    assert [record.analysis[p["ply"]]["black_win"] for p in a["positions"]] == \
        [p["black_win"] for p in a["positions"]]
    r = client.post("/api/import", json={"sgf": text})
    assert r.status_code == 201, r.text
    copy = r.json()["id"]
    imported = analysis(client, copy)
    assert imported["positions"] == a["positions"] and imported["job"] is None
    assert client.get(f"/api/games/{copy}/analysis/3").json() == client.get(f"/api/games/{gid}/analysis/3").json()


def test_the_hint_suggests_legal_moves_in_a_game_against_the_ai(client):
    r = client.post("/api/games", json={"game": "keil", "size": 3, "opponent": "ai", "color": "black",
                                        "level": 1})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    r = client.post(f"/api/games/{gid}/hint", json={})
    assert r.status_code == 200, r.text
    hint = r.json()
    game = hexstones.new_game("keil", size=3)
    assert hint["ply"] == 0 and 1 <= len(hint["moves"]) <= 3
    assert {m["move"] for m in hint["moves"]} <= set(game.legal_moves())
    # The hint is stored as that position's analysis.
    assert client.get(f"/api/games/{gid}/analysis/0").json()["moves"][:3] == hint["moves"]
    two = new_game(client, "keil", [])
    r = client.post(f"/api/games/{two}/hint", json={})
    assert r.status_code == 409 and "against the AI" in r.json()["detail"]


@pytest.mark.parametrize("body, status, words", [
    ({"action": "go"}, 400, "action must be"),
    ({"action": "start", "iterations": 0}, 400, "iterations must be"),
    ({"action": "start", "iterations": "many"}, 400, "iterations"),
    ({"action": "deeper"}, 400, "deeper needs"),
    ({"action": "deeper", "ply": 99}, 400, "ply must be"),
    ({"action": "start", "depth": 3}, 400, "depth"),
])
def test_bad_analysis_requests_are_refused_and_change_nothing(client, body, status, words):
    gid = new_game(client, "keil", ["b2"])
    r = client.post(f"/api/games/{gid}/analysis", json=body)
    assert r.status_code == status and words in r.json()["detail"], r.text
    assert analysis(client, gid)["job"] is None
    assert client.get(f"/api/games/{gid}/analysis/0").status_code == 404
    assert client.get(f"/api/games/{gid}/analysis/7").status_code == 400
    assert client.get("/api/games/nosuch/analysis").status_code == 404


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_the_analysis_table_on_both_databases(request, tmp_path, kind):
    from hexstones.web.analysis import AnalysisStore, position_key
    from hexstones.web.game_setup import GameSetup
    from hexstones.web.store import Store

    target = str(tmp_path / "games.db") if kind == "sqlite" else request.getfixturevalue("postgres_url")
    store = Store(target)
    try:
        game = store.create("keil", {"size": 3}, GameSetup(), ["b2"])
        table = AnalysisStore(store)
        key = position_key("keil", {"size": 3}, ["b2"])
        assert table.get(game.id) == {}
        assert table.put(game.id, 1, key, {"black_win": 0.25, "moves": []})
        assert table.put(game.id, 1, key, {"black_win": 0.5})  # replaced
        assert table.get(game.id) == {1: (key, {"black_win": 0.5})}
        # The rows go with their game; a game that is gone takes none.
        store.delete(game.id)
        assert table.get(game.id) == {}
        assert not table.put(game.id, 0, key, {"black_win": 0.5})
        assert table.get(game.id) == {}
    finally:
        store.close()


def test_hostile_analysis_requests_get_a_clear_refusal(client):
    gid = new_game(client, "keil", ["b2"])
    for ply in ("-1", "1e3", "\u0663", "x" * 200, "0.5"):
        r = client.get(f"/api/games/{gid}/analysis/{ply}")
        assert r.status_code == 400 and "ply" in r.json()["detail"], (ply, r.text)
    r = client.get(f"/api/games/{gid}/analysis", params={"since": "1"})
    assert r.status_code == 400 and "since" in r.json()["detail"]
    r = client.post(f"/api/games/{gid}/hint", json={"moves": 3})
    assert r.status_code == 400 and "moves" in r.json()["detail"]
    r = client.post(f"/api/games/{gid}/analysis", content=b"[1, 2]", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "JSON object" in r.json()["detail"]
    r = client.post(f"/api/games/{gid}/analysis", json={"action": "start", "iterations": True})
    assert r.status_code == 400
    r = client.post(f"/api/games/{gid}/analysis", json={"action": "start", "iterations": 10 ** 9})
    assert r.status_code == 400 and "iterations must be from 1 to" in r.json()["detail"]
    assert analysis(client, gid)["job"] is None


def test_a_game_between_two_people_online_is_analysed_once_it_is_over(db):
    app = create_app(db)
    with TestClient(app) as a, TestClient(app) as b:
        r = a.post("/api/games", json={"game": "keil", "size": 3, "opponent": "friend", "color": "black"})
        assert r.status_code == 201, r.text
        game = r.json()
        secret = game["invite"].rsplit("/", 1)[1]
        assert b.post(f"/api/games/{game['id']}/join", json={"secret": secret, "name": "Bea"}).status_code == 200
        gid = game["id"]
        for person in (a, b):  # neither player sees the AI's view while they play
            for r in (person.get(f"/api/games/{gid}/analysis"), person.get(f"/api/games/{gid}/analysis/0"),
                      person.post(f"/api/games/{gid}/analysis", json={"action": "start", "iterations": 10})):
                assert r.status_code == 409 and "when the game is over" in r.json()["detail"], r.text
        r = b.post(f"/api/games/{gid}/hint", json={})
        assert r.status_code in (403, 409), r.text
        assert a.post(f"/api/games/{gid}/resign", json={}).status_code == 200
        act(a, gid, action="start", iterations=10)
        assert wait_job(b, gid)["positions"][0]["ply"] == 0


def test_only_the_player_gets_a_hint(db):
    app = create_app(db)
    with TestClient(app) as a, TestClient(app) as c:
        r = a.post("/api/games", json={"game": "keil", "size": 3, "opponent": "ai", "color": "black", "level": 1})
        gid = r.json()["id"]
        assert c.post("/api/account/guest", json={"name": "Cy"}).status_code == 200  # a watcher
        r = c.post(f"/api/games/{gid}/hint", json={})
        assert r.status_code == 403, r.text
        assert a.post(f"/api/games/{gid}/hint", json={}).status_code == 200


def test_only_the_games_players_start_stop_or_deepen_its_analysis(db):
    app = create_app(db)
    with TestClient(app) as owner, TestClient(app) as anonymous, TestClient(app) as guest:
        gid = new_game(owner, "keil", FINISHED["keil"], public="yes")
        act(owner, gid, action="start", iterations=200_000)
        assert guest.post("/api/account/guest", json={"name": "Cy"}).status_code == 200
        for person, status in ((anonymous, 401), (guest, 403)):
            for body in ({"action": "stop"}, {"action": "start", "iterations": 5},
                         {"action": "deeper", "ply": 2}):
                r = person.post(f"/api/games/{gid}/analysis", json=body)
                assert r.status_code == status, (body, r.text)
            assert analysis(person, gid)["job"]["state"] == "running"  # everyone reads it
        job = analysis(owner, gid)["job"]
        assert job["iterations"] == 200_000 and job["total"] == 7
        act(owner, gid, action="stop")
        wait_job(owner, gid, "stopped")


def test_a_persons_analyses_queue_and_take_turns_with_others_one_position_at_a_time(db):
    """One person's second and third analyses wait behind the first (their place shown);
    another person's starts at once; the analyses' positions go to the AI's pool one at a
    time, so the pool's other process stays free for the AI's moves."""
    app = create_app(db)
    pool = app.state.tables._ai
    call, in_pool, most = pool.call, [0], [0]

    def counted(*args):  # the real pool, with the tasks in it counted (here: positions)
        future = call(*args)
        in_pool[0] += 1
        most[0] = max(most[0], in_pool[0])
        future.add_done_callback(lambda _: in_pool.__setitem__(0, in_pool[0] - 1))
        return future

    pool.call = counted
    with TestClient(app) as one, TestClient(app) as other:
        mine = [new_game(one, "keil", FINISHED["keil"]) for _ in range(3)]
        theirs = new_game(other, "dehil", FINISHED["dehil"])
        states = [act(one, gid, action="start", iterations=200_000)["job"] for gid in mine]
        assert [s["state"] for s in states] == ["running", "queued", "queued"]
        assert [s["place"] for s in states[1:]] == [2, 3]
        assert act(other, theirs, action="start", iterations=200_000)["job"]["state"] == "running"
        act(one, mine[0], action="stop")
        wait_job(one, mine[0], "stopped")
        deadline = time.monotonic() + WAIT
        while analysis(one, mine[1])["job"]["state"] != "running":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert analysis(one, mine[2])["job"]["place"] == 2
        for gid, person in ((mine[1], one), (mine[2], one), (theirs, other)):
            act(person, gid, action="stop")
        for gid, person in ((mine[1], one), (mine[2], one), (theirs, other)):
            wait_job(person, gid, "stopped")
    assert most[0] == 1
