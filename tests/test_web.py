"""The browser app's HTTP API and board drawing, on a real SQLite file.

The app runs in-process (FastAPI's TestClient); the AI really runs, in the app's
background threads, so tests that wait for it wait for a condition, never for a time.
"""

from __future__ import annotations

import re
import sqlite3
import time
import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*")

from fastapi.testclient import TestClient  # noqa: E402

import hexstones  # noqa: E402
from hexstones.svg import board_svg  # noqa: E402
from hexstones.web import create_app, warmup  # noqa: E402

WAIT = 300  # seconds: generous, only a bound for a condition that should come much sooner


@pytest.fixture
def plain_ai():
    # Not NUMBA_DISABLE_JIT: uncompiled, the Droched core overflows and plays other rules.
    # The AI runs compiled (kernels cached on disk after their first compile).
    return None


def new(client, query: str) -> str:
    r = client.get(f"/new?{query}", follow_redirects=False)
    assert r.status_code == 303, r.text
    location = r.headers["location"]
    assert re.fullmatch(r"/game/[0-9a-f]+", location)
    return location.rsplit("/", 1)[1]


def state(client, gid: str, **params) -> dict:
    r = client.get(f"/api/games/{gid}", params=params)
    assert r.status_code == 200, r.text
    return r.json()


def move(client, gid: str, mv, **extra):
    return client.post(f"/api/games/{gid}/moves", json={"move": mv, **extra})


def wait_until(client, gid: str, condition, what: str) -> dict:
    deadline = time.monotonic() + WAIT
    while True:
        s = state(client, gid)
        if condition(s):
            return s
        assert s["ai_error"] is None, s["ai_error"]
        assert time.monotonic() < deadline, f"waited {WAIT}s for {what}; last status: {s['status']}"
        time.sleep(0.05)


def replayed(s: dict) -> hexstones.Game:
    g = hexstones.new_game(s["game"], **s["options"])
    for m in s["moves"]:
        g.play(m)
    return g


def stones_in_svg(svg: str) -> dict[str, str]:
    return dict(re.findall(r'data-point="([a-z]\d+)" data-stone="(black|white)"', svg))


# -- creating games ------------------------------------------------------------------------


def test_link_creates_the_game_and_lands_on_its_address(client):
    gid = new(client, "game=keil&size=5&opponent=ai&level=3&color=black")
    page = client.get(f"/game/{gid}")
    assert page.status_code == 200 and "data-testid=\"status\"" in page.text
    s = state(client, gid)
    assert (s["game"], s["size"], s["options"]["komi"]) == ("keil", 5, 6)
    assert s["players"] == {"black": "human", "white": "ai"}
    assert s["level"] == 3 and s["to_move"] == "black" and s["human_turn"]
    assert s["legal"] == hexstones.new_game("keil", size=5).legal_moves()
    assert [g["id"] for g in client.get("/api/games").json()["games"]] == [gid]


def test_the_app_can_be_installed_from_every_page(client):
    """Every page links the web app manifest; it names the app, starts at the start page
    and gives icons of the sizes it says (a PNG's width and height are bytes 16-24)."""
    import struct

    game = client.post("/api/games", json={"game": "keil", "size": 3}).json()["id"]
    for path in ("/", f"/game/{game}", "/rules", "/rules/dehil", "/account", "/no/such/page"):
        assert '<link rel="manifest" href="/manifest.webmanifest">' in client.get(path).text, path
    r = client.get("/manifest.webmanifest")
    assert r.status_code == 200 and r.headers["content-type"] == "application/manifest+json"
    manifest = r.json()
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone" and manifest["short_name"]
    sizes = set()
    for icon in manifest["icons"]:
        picture = client.get(icon["src"])
        assert picture.status_code == 200 and picture.headers["content-type"] == icon["type"], icon
        if icon["type"] == "image/png":
            width, height = struct.unpack(">II", picture.content[16:24])
            assert icon["sizes"] == f"{width}x{height}"
            sizes.add(width)
    assert {192, 512} <= sizes  # what browsers ask of an installable app


def test_every_choice_has_a_parameter(client):
    gid = new(client, "game=droched&size=4&opponent=human&komi=2")
    s = state(client, gid)
    assert s["options"]["prison"] == 2 and s["prison"] == {"black": 2, "white": 0}
    assert s["players"] == {"black": "human", "white": "human"}
    assert "release" not in s["legal"]  # black stones in the prison are White's to release
    assert "release" in move(client, gid, "a1").json()["legal"]
    gid = new(client, "game=dehil&size=3&opponent=ai&level=1&color=white&komi=-4")
    s = wait_until(client, gid, lambda s: s["move_count"] == 1, "the AI's first move as black")
    assert s["options"]["komi"] == -4 and s["players"]["white"] == "human"


@pytest.mark.parametrize("query, words", [
    ("game=chess", "unknown game"),
    ("game=keil&size=2", "size"),
    ("game=keil&size=five", "size must be a whole number"),
    ("game=keil&opponent=robot", "opponent"),
    ("game=keil&opponent=ai&level=11", "level"),
    ("game=keil&opponent=ai&color=green", "color"),
    ("game=keil&komi=6.5", "komi must be a whole number"),
    ("game=droched&komi=-1", "prison"),
    ("game=keil&pie=maybe", "pie"),
    ("game=keil&pie=ai", "pie=ai needs opponent=ai"),
    ("game=keil&pie=you&komi=3", "either a fixed komi or the komi pie"),
    ("game=keil&colour=black", "unknown new-game choice"),
])
def test_bad_new_game_choices_are_refused_and_store_nothing(client, query, words):
    r = client.get(f"/new?{query}", follow_redirects=False)
    assert r.status_code == 400
    assert words in r.text
    r = client.post("/api/games", json=dict(p.split("=") for p in query.split("&")))
    assert r.status_code == 400 and words in r.json()["detail"]
    assert client.get("/api/games").json()["games"] == []


@pytest.mark.parametrize("name, size", [("keil", 7), ("keil", 9), ("dehil", 9), ("droched", 5)])
def test_the_level_guide_says_what_each_level_plays_on_that_side(client, name, size):
    from hexstones import ai

    r = client.get(f"/api/levels?game={name}&size={size}")
    assert r.status_code == 200, r.text
    answer = r.json()
    assert (answer["game"], answer["size"]) == (name, size)
    game = hexstones.new_game(name, size=size)
    assert [lv["level"] for lv in answer["levels"]] == list(range(1, 11))
    for lv in answer["levels"]:
        assert lv["engine"] == ai.engine_for(game, lv["level"])  # what the AI will play
        assert ("network" in lv["text"]) == (lv["engine"] == "net"), lv
        assert f"{lv['seconds']:.2g} s a move" in lv["text"]
    caps = [lv["seconds"] for lv in answer["levels"]]
    assert caps == sorted(caps) and len(set(caps)) == 10
    assert "strongest" in answer["levels"][-1]["text"]


@pytest.mark.parametrize("query, words", [
    ("game=chess", "unknown game"),
    ("game=keil&size=99", "size"),
    ("game=keil&size=seven", "size must be a whole number"),
    ("game=keil&level=3", "unknown parameter"),
    ("game=keil&game=dehil", "more than once"),
])
def test_bad_level_guide_requests_are_refused(client, query, words):
    r = client.get(f"/api/levels?{query}")
    assert r.status_code == 400 and words in r.json()["detail"], r.text


# -- moves ------------------------------------------------------------------------------------


def test_illegal_and_malformed_moves_get_the_reason_and_change_nothing(client, db):
    gid = new(client, "game=keil&size=4&opponent=human")
    assert move(client, gid, "d4").status_code == 200
    before = state(client, gid)
    cases = [
        (move(client, gid, "d4"), 400, "d4 is occupied"),
        (move(client, gid, "z9"), 400, "not a move in Keil"),
        (move(client, gid, "pass"), 400, "no pass before the button"),
        (move(client, gid, 5), 400, "a move is a point"),
        (move(client, gid, "e4", ply=0), 409, "meant for the position at move 0, but the game is at move 1 now"),
        (client.post(f"/api/games/{gid}/moves", json={}), 400, "give the move"),
        (client.post(f"/api/games/{gid}/moves", json={"point": "e4"}), 400, "unknown field 'point'"),
        (client.post(f"/api/games/{gid}/moves", content=b"e4{"), 400, "not valid JSON"),
        (client.post(f"/api/games/{gid}/moves", json=["e4"]), 400, "JSON object"),
    ]
    for response, status, words in cases:
        assert response.status_code == status, response.text
        assert words in response.json()["detail"]
    after = state(client, gid)
    assert after == before
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT move FROM moves WHERE game_id = ?", (gid,)).fetchall() == [("d4",)]


def test_a_capture_is_marked_and_a_refusal_gives_the_engines_words(client):
    # docs/rules.md's Keil example: black a1 has no liberty once white holds b2. Whether black
    # may then play a1 again is the engine's call; the app must pass on its verdict.
    gid = new(client, "game=keil&size=4&opponent=human")
    for m in ["a1", "b2"]:
        assert move(client, gid, m).status_code == 200
    s = state(client, gid)
    assert s["moves"] == ["a1", "b2"] and "a1" not in stones_in_svg(s["svg"])
    assert 'data-removed="a1"' in s["svg"]  # the capture is marked where the stone stood
    engine = replayed(s)
    try:
        engine.play("a1")
        expected = None
    except hexstones.IllegalMove as exc:
        expected = str(exc)
    r = move(client, gid, "a1")
    if expected is None:
        assert r.status_code == 200
    else:
        assert r.status_code == 400 and r.json()["detail"] == expected


def test_unknown_game_id_is_404_everywhere(client):
    assert client.get("/game/nosuchgame").status_code == 404
    for r in [client.get("/api/games/nosuchgame"), move(client, "nosuchgame", "e5"),
              client.post("/api/games/nosuchgame/undo"), client.post("/api/games/nosuchgame/resign"),
              client.get("/api/games/nosuchgame/sgf")]:
        assert r.status_code == 404
        assert "no game with id 'nosuchgame'" in r.json()["detail"]


def test_a_finished_game_refuses_moves_and_shows_the_rules_result(client):
    gid = new(client, "game=keil&size=4&opponent=human&komi=3")
    for m in ["d4", "e5", "button", "pass", "pass"]:
        assert move(client, gid, m).status_code == 200
    s = state(client, gid)
    engine = replayed(s)
    assert s["over"] and s["result"]["winner"] == engine.result()["winner"]
    assert s["result"]["score"] == engine.result()["score"] and s["legal"] == []
    r = move(client, gid, "a1")
    assert r.status_code == 409 and "the game is over" in r.json()["detail"]
    assert state(client, gid) == s
    parts = {p["part"]: p["value"] for p in s["score_details"]["white"]}
    assert parts["komi"] == 3 and sum(parts.values()) == s["score"]["white"]


def test_resign_ends_the_game_and_is_stored(db, plain_ai):
    with TestClient(create_app(db)) as client:
        gid = new(client, "game=dehil&size=3&opponent=human")
        move(client, gid, "c3")
        r = client.post(f"/api/games/{gid}/resign", json={})
        assert r.status_code == 200
        s = r.json()
        assert s["over"] and s["result"] == {"winner": "black", "reason": "resignation",
                                             "text": "Black wins: White resigned"}
        assert s["status"] == "Black wins: White resigned"
        assert move(client, gid, "c4").status_code == 409
        assert client.post(f"/api/games/{gid}/undo").status_code == 409
        assert client.post(f"/api/games/{gid}/resign").status_code == 409
        listed = client.get("/api/games").json()["games"][0]
        assert listed["finished"] is True and listed["summary"] == "Black wins: White resigned"
    with TestClient(create_app(db)) as again:
        assert state(again, gid)["result"]["reason"] == "resignation"


def test_undo_takes_back_a_move_and_the_store_forgets_it(db, plain_ai):
    with TestClient(create_app(db)) as client:
        gid = new(client, "game=keil&size=4&opponent=human")
        assert client.post(f"/api/games/{gid}/undo").status_code == 409  # nothing to take back
        for m in ["d4", "e4"]:
            move(client, gid, m)
        r = client.post(f"/api/games/{gid}/undo")
        assert r.status_code == 200 and r.json()["undone"] == ["e4"]
        assert r.json()["moves"] == ["d4"] and r.json()["to_move"] == "white"
    with TestClient(create_app(db)) as again:
        assert state(again, gid)["moves"] == ["d4"]


def test_undo_against_the_ai_takes_back_your_move_and_its_reply(client):
    gid = new(client, "game=keil&size=4&opponent=ai&level=1&color=black")
    assert move(client, gid, "d4").status_code == 200
    s = wait_until(client, gid, lambda s: s["human_turn"], "the AI's reply")
    assert len(s["moves"]) == 2
    r = client.post(f"/api/games/{gid}/undo")
    assert r.status_code == 200 and r.json()["moves"] == [] and r.json()["undone"][0] == "d4"
    assert r.json()["human_turn"]


def test_an_undo_meant_for_an_earlier_position_is_refused_and_changes_nothing(db, plain_ai):
    # Two clicks on Undo, or a second tab that played: the page's ``ply`` says what it saw.
    with TestClient(create_app(db)) as client:
        gid = new(client, "game=keil&size=4&opponent=human")
        for m in ["d4", "e4", "c3"]:
            move(client, gid, m)
        r = client.post(f"/api/games/{gid}/undo", json={"ply": 3})
        assert r.status_code == 200 and r.json()["undone"] == ["c3"]
        again = client.post(f"/api/games/{gid}/undo", json={"ply": 3})  # the second click
        assert again.status_code == 409 and "meant for the position at move 3" in again.json()["detail"]
        move(client, gid, "b2", ply=2)  # played in another tab
        stale = client.post(f"/api/games/{gid}/undo", json={"ply": 2})
        assert stale.status_code == 409 and "game is at move 3" in stale.json()["detail"]
        for bad in ["two", 2.5, True, [3]]:
            r = client.post(f"/api/games/{gid}/undo", json={"ply": bad})
            assert r.status_code == 400 and "ply" in r.json()["detail"], bad
        assert state(client, gid)["moves"] == ["d4", "e4", "b2"]
    with TestClient(create_app(db)) as restarted:
        assert state(restarted, gid)["moves"] == ["d4", "e4", "b2"]


def test_an_undo_against_the_ai_goes_past_replies_its_page_has_not_shown(client):
    gid = new(client, "game=keil&size=4&opponent=ai&level=1&color=black")
    assert move(client, gid, "d4", ply=0).status_code == 200
    wait_until(client, gid, lambda s: s["human_turn"], "the AI's reply")
    # The page still showed move 1 (the AI's reply had not reached it): the same undo.
    r = client.post(f"/api/games/{gid}/undo", json={"ply": 1})
    assert r.status_code == 200 and r.json()["moves"] == [] and r.json()["undone"][0] == "d4"


def test_since_answers_unchanged_only_for_the_same_copy_of_the_game(postgres_url, plain_ai):
    # Two servers on one database: a copy read again after the other one's move counts its
    # versions from the start, so a version number alone may name another position.
    with TestClient(create_app(postgres_url)) as one, TestClient(create_app(postgres_url)) as two:
        gid = new(one, "game=keil&size=4&opponent=human")
        seen = state(one, gid)
        assert state(one, gid, since=seen["version"], server=seen["server"]).get("unchanged") is True
        two.cookies.update(one.cookies)  # the same person, whose page reached the other server
        assert move(two, gid, "d4", ply=0).status_code == 200
        now = state(one, gid, since=seen["version"], server=seen["server"])
        assert "unchanged" not in now and now["moves"] == ["d4"]
        assert now["server"] != seen["server"]
        assert state(one, gid, since=now["version"], server=now["server"]).get("unchanged") is True


def test_a_move_during_the_ais_turn_is_refused(client):
    gid = new(client, "game=keil&size=4&opponent=ai&level=1&color=white")
    s = state(client, gid)
    if s["waiting_for"] == "ai":  # the AI may already have answered: then nothing to test
        r = move(client, gid, "a1", ply=0)
        assert r.status_code == 409 and ("AI's turn" in r.json()["detail"] or "meant for move" in r.json()["detail"])
    wait_until(client, gid, lambda s: s["human_turn"], "the AI's first move")


def test_restart_keeps_every_move_and_the_ai_resumes(db, plain_ai):
    with TestClient(create_app(db)) as first:
        gid = new(first, "game=droched&size=3&opponent=human")
        for m in ["a1", "c3", "e5"]:
            assert move(first, gid, m).status_code == 200
        before = state(first, gid)
    # The same browser (its session cookie) goes on playing after the restart.
    with TestClient(create_app(db), cookies=dict(first.cookies)) as second:
        after = state(second, gid)
        assert after["moves"] == before["moves"] and after["svg"] == before["svg"]
        assert stones_in_svg(after["svg"]) == replayed(after).stones()
        assert move(second, gid, "b2").status_code == 200
    # A game left on the AI's turn is picked up again by the next server.
    with TestClient(create_app(db)) as third:
        gid2 = new(third, "game=keil&size=3&opponent=ai&level=1&color=white")
    with TestClient(create_app(db), cookies=dict(third.cookies)) as fourth:  # human_turn: yours
        s = wait_until(fourth, gid2, lambda s: s["move_count"] >= 1, "the AI's move after a restart")
        assert s["human_turn"]


def test_a_whole_game_against_the_ai_ends_with_the_rules_result(client):
    gid = new(client, "game=keil&size=3&opponent=ai&level=1&color=black")
    moves = 0
    while True:
        s = wait_until(client, gid, lambda s: s["over"] or s["human_turn"], "the AI")
        if s["over"]:
            break
        mv = "button" if "button" in s["legal"] else "pass"
        assert move(client, gid, mv).status_code == 200
        moves += 1
        assert moves < 200
    engine = replayed(s)
    assert engine.is_over and s["result"]["winner"] == engine.result()["winner"]
    assert s["status"].startswith(engine.result()["winner"].capitalize() + " wins")


# -- the komi pie ----------------------------------------------------------------------------


def test_pie_ai_proposes_and_you_choose(client):
    gid = new(client, "game=keil&size=3&opponent=ai&level=1&pie=ai")
    assert move(client, gid, "a1").status_code == 409  # no moves before the pie is done
    s = wait_until(client, gid, lambda s: s["pie"]["stage"] == "choose", "the AI's proposal")
    assert isinstance(s["pie"]["komi"], int)  # the AI's estimate (its value is the AI's business)
    r = client.post(f"/api/games/{gid}/pie", json={"color": "purple"})
    assert r.status_code == 400 and "black" in r.json()["detail"]
    r = client.post(f"/api/games/{gid}/pie", json={"color": "white"})
    assert r.status_code == 200
    s = r.json()
    assert s["players"] == {"black": "ai", "white": "human"} and s["options"]["komi"] == s["pie"]["komi"]
    wait_until(client, gid, lambda s: s["human_turn"] and s["move_count"] == 1, "the AI's first move")


def test_pie_the_strongest_ai_proposes_the_fair_komi_on_record(client):
    from hexstones.games import game_class

    gid = new(client, "game=keil&size=5&opponent=ai&level=10&pie=ai")
    s = wait_until(client, gid, lambda s: s["pie"]["stage"] == "choose", "the AI's proposal")
    assert s["pie"]["komi"] == game_class("keil").balance.fair_at(5) != s["options"]["komi"]


def test_pie_you_propose_and_the_ai_chooses(client):
    gid = new(client, "game=droched&size=3&opponent=ai&level=1&pie=you")
    r = client.post(f"/api/games/{gid}/pie", json={"komi": -2})
    assert r.status_code == 400 and "prison" in r.json()["detail"]
    r = client.post(f"/api/games/{gid}/pie", json={"color": "black"})
    assert r.status_code == 400  # the proposal comes first
    r = client.post(f"/api/games/{gid}/pie", json={"komi": 1})
    assert r.status_code == 200 and r.json()["pie"]["stage"] == "choose"
    s = wait_until(client, gid, lambda s: s["pie"]["stage"] == "done", "the AI's choice")
    assert sorted(s["players"].values()) == ["ai", "human"] and s["options"]["prison"] == 1
    assert s["pie"]["chooser_color"] == next(c for c, who in s["players"].items() if who == "ai")


def test_pie_between_two_people(client):
    gid = new(client, "game=dehil&size=3&opponent=human&pie=you")
    assert client.post(f"/api/games/{gid}/pie", json={"komi": 2}).status_code == 200
    s = client.post(f"/api/games/{gid}/pie", json={"color": "white"}).json()
    assert s["pie"]["stage"] == "done" and s["options"]["komi"] == 2 and s["human_turn"]
    assert client.post(f"/api/games/{gid}/pie", json={"komi": 1}).status_code == 409


# -- viewing, SGF ------------------------------------------------------------------------------


def test_viewing_earlier_positions_and_overlays(client):
    gid = new(client, "game=keil&size=4&opponent=human")
    for m in ["d4", "e4", "e5"]:
        move(client, gid, m)
    s1 = state(client, gid, at=1)
    assert s1["at"] == 1 and stones_in_svg(s1["svg"]) == {"d4": "black"} and s1["move_count"] == 3
    s = state(client, gid, overlays="territory,groups")
    assert 'class="overlay overlay-territory"' in s["svg"] and 'class="liberty"' in s["svg"]
    for params, words in [({"at": 4}, "from 0 to 3"), ({"at": "x"}, "whole number"),
                          ({"overlays": "heat"}, "unknown overlay")]:
        r = client.get(f"/api/games/{gid}", params=params)
        assert r.status_code == 400 and words in r.json()["detail"]
    assert client.get(f"/api/games/{gid}/svg").headers["content-type"].startswith("image/svg+xml")
    assert state(client, gid, since=s["version"])["unchanged"] is True


def test_answers_are_compressed_for_browsers_that_accept_it(client):
    gid = new(client, "game=keil&size=7&opponent=human")
    move(client, gid, "d4")
    plain = client.get(f"/api/games/{gid}", headers={"Accept-Encoding": "identity"})
    packed = client.get(f"/api/games/{gid}", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in plain.headers
    assert packed.headers["content-encoding"] == "gzip" and "Accept-Encoding" in packed.headers["vary"]
    assert packed.json() == plain.json()  # httpx undoes the gzip
    assert int(packed.headers["content-length"]) * 4 < len(plain.content)
    assert packed.headers["cache-control"] == plain.headers["cache-control"] == "no-store"
    script = client.get("/static/game.js", headers={"Accept-Encoding": "gzip"})
    assert script.headers["content-encoding"] == "gzip"
    small = client.get("/api/ai", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in small.headers  # under GZIP_FROM: sent as it is


def test_sgf_download_and_load(client):
    from hexstones.records import read_sgf

    gid = new(client, "game=dehil&size=3&opponent=human&komi=2")
    for m in ["c3", "a1", "pass"]:
        move(client, gid, m)
    r = client.get(f"/api/games/{gid}/sgf")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    loaded = read_sgf(r.text)
    assert loaded.moves == ["c3", "a1", "pass"] and loaded.options["komi"] == 2
    r = client.post("/api/import", json={"sgf": r.text, "opponent": "ai", "color": "white", "level": 1})
    assert r.status_code == 201
    copy = r.json()
    assert copy["id"] != gid and copy["moves"] == ["c3", "a1", "pass"] and copy["players"]["white"] == "human"
    for body, words in [({"sgf": "(;GM[1]"}, "cannot read this SGF"), ({}, "give the SGF text")]:
        r = client.post("/api/import", json=body)
        assert r.status_code == 400 and words in r.json()["detail"]


# -- the SVG board ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["keil", "dehil", "droched"])
def test_board_svg_has_every_point_once_with_its_stone(name):
    g = hexstones.new_game(name, size=4)
    for m in g.legal_moves()[:1] + ["d4", "e5", "c3"]:
        if g.is_legal(m):
            g.play(m)
    svg = board_svg(g, overlays=("territory", "groups", "partitions", "bridges"))
    points = re.findall(r'data-point="([a-z]\d+)"', svg)
    assert sorted(points) == sorted(g.board.names)
    assert stones_in_svg(svg) == g.stones()
    assert f'data-last="{g.moves[-1]}"' in svg
    start = board_svg(g, move_number=0, coordinates=False)
    assert stones_in_svg(start) == {} and "data-last" not in start and 'class="coords"' not in start
    with pytest.raises(ValueError, match="unknown overlay"):
        board_svg(g, overlays=("heat",))
    with pytest.raises(ValueError, match="from 0 to"):
        board_svg(g, move_number=len(g.moves) + 1)
    assert g.moves == g.copy().moves  # drawing changed nothing


def test_board_svg_overlays_follow_the_engines():
    keil = hexstones.new_game("keil", size=4)
    for m in ["d4", "a1", "e4", "g7", "e5"]:
        keil.play(m)
    svg = board_svg(keil, overlays=("territory", "groups"))
    owned = sum(len(t["points"]) for t in keil.territories() if t["owner"])
    assert len(re.findall(r'class="territory territory-', svg)) == owned
    assert len(re.findall(r'class="liberty"', svg)) == sum(len(gr["liberties"]) for gr in keil.groups())
    dehil = hexstones.new_game("dehil", size=4)
    for m in ["a4", "c2", "b4", "d2", "c4", "e2", "d4", "b2"]:
        dehil.play(m)
    svg = board_svg(dehil, overlays=("partitions",))
    with_parts = sum(len(gr["points"]) for gr in dehil.groups() if gr["has_partitions"])
    assert len(re.findall(r'class="has-partitions"', svg)) == with_parts
    all_points = sum(len(gr["points"]) for gr in dehil.groups())
    assert len(re.findall(r'class="no-partitions"', svg)) == all_points - with_parts


# -- what a newcomer tripped over (issue 22) ---------------------------------------------------


def test_api_answers_are_never_cached(client):
    gid = new(client, "game=keil&size=4&opponent=human")
    for path in ("/api/spec", "/api/games", f"/api/games/{gid}", "/api/ai"):
        assert client.get(path).headers["cache-control"] == "no-store", path
    assert client.get("/api/games/nope").headers["cache-control"] == "no-store"  # refusals too


def test_the_score_and_prison_shown_are_those_of_the_position_shown(client):
    gid = new(client, "game=keil&size=4&opponent=human")
    for mv in ("d4", "e4", "e5", "c3"):
        assert move(client, gid, mv).status_code == 200
    engine = hexstones.new_game("keil", size=4)
    engine.play("d4")
    early = state(client, gid, at=1)
    assert early["score"] == engine.score() != state(client, gid)["score"]
    assert early["move_count"] == 4 and early["at"] == 1
    gid = new(client, "game=droched&size=3&opponent=human")
    game = hexstones.new_game("droched", size=3)
    while not any(game.prison.values()):  # play until a stone goes to the prison
        mv = game.legal_moves()[0]
        game.play(mv)
        assert move(client, gid, mv).status_code == 200
    assert state(client, gid)["prison"] == game.prison
    assert state(client, gid, at=0)["prison"] == {"black": 0, "white": 0}


def test_games_are_named_deleted_and_empty_ones_removed(client):
    played = new(client, "game=keil&size=4&opponent=human")
    assert move(client, played, "d4").status_code == 200
    empty = [new(client, "game=dehil&size=4&opponent=human") for _ in range(2)]
    r = client.post(f"/api/games/{played}/name", json={"name": "  Sunday with Ann "})
    assert r.status_code == 200 and r.json()["name"] == "Sunday with Ann"
    listed = {g["id"]: g for g in client.get("/api/games").json()["games"]}
    assert listed[played]["setup"]["name"] == "Sunday with Ann" and listed[played]["move_count"] == 1
    for bad in (5, "x" * 81, "two\nlines"):
        r = client.post(f"/api/games/{played}/name", json={"name": bad})
        assert r.status_code == 400 and "a game's name is text" in r.json()["detail"]
    assert state(client, played)["name"] == "Sunday with Ann"  # refusals changed nothing
    assert client.post(f"/api/games/{played}/name", json={}).status_code == 400
    r = client.post("/api/games/remove-empty")
    assert r.status_code == 200 and sorted(r.json()["deleted"]) == sorted(empty)
    assert [g["id"] for g in client.get("/api/games").json()["games"]] == [played]
    assert client.get(f"/api/games/{empty[0]}").status_code == 404
    assert client.delete(f"/api/games/{played}").json() == {"deleted": played}
    assert client.get("/api/games").json()["games"] == []
    r = client.delete(f"/api/games/{played}")
    assert r.status_code == 404 and "no game with id" in r.json()["detail"]


def test_an_imported_record_keeps_its_player_names(client):
    game = hexstones.new_game("keil", size=4)
    game.play("d4")
    from hexstones.records import write_sgf

    text = write_sgf(game, players=("Ann Lee", "Bo Chen"))
    r = client.post("/api/import", json={"sgf": text})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    assert r.json()["names"] == {"black": "Ann Lee", "white": "Bo Chen"}
    sgf = client.get(f"/api/games/{gid}/sgf").text
    assert "PB[Ann Lee]" in sgf and "PW[Bo Chen]" in sgf and "Human" not in sgf


@pytest.mark.slow  # AI worker processes
def test_the_ai_compiles_ahead_and_says_how_far_it_is(db):
    # Real worker processes; with numba's cache filled (tests/conftest.py) they load it.
    with TestClient(create_app(db, warm_ai=True)) as client:
        first = client.get("/api/ai").json()["warming"]
        parts = len(warmup.parts())
        assert first is None or (0 <= first["done"] <= first["total"] == parts and first["seconds"] >= 0
                                 and 0 <= first["fraction"] <= 1 and isinstance(first["compiling"], list))
        deadline = time.monotonic() + WAIT
        while client.get("/api/ai").json()["warming"] is not None:
            assert time.monotonic() < deadline, "the AI did not get ready"
            time.sleep(0.1)
        gid = new(client, "game=keil&size=3&opponent=ai&level=1&color=white")
        assert state(client, gid)["ai_warming"] is None
        wait_until(client, gid, lambda s: s["move_count"] >= 1, "the AI's first move")
    with TestClient(create_app(db)) as client:  # without warm_ai: nothing to wait for
        assert client.get("/api/ai").json()["warming"] is None
