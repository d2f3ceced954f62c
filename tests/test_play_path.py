"""A move and a game's state, for a game the server holds, are answered on the event loop by
their routes' own functions (hexstones.web.play_path); for a game read from the store first,
by the routes in a worker thread. Both give the same answers and the same refusals."""

from __future__ import annotations

import threading

from fastapi.testclient import TestClient

from hexstones.web import create_app

WORKER = "AnyIO worker thread"  # the name of the threads the routes' functions run in


def spied(app) -> list[tuple[str, bool]]:
    """What the app's games are asked (a move played, a game looked up by the play path or
    read by a route), each with whether a worker thread asked it."""
    threads: list[tuple[str, bool]] = []
    tables = app.state.tables
    for name in ("play", "current", "get"):
        real = getattr(tables, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            threads.append((_name, threading.current_thread().name == WORKER))
            return _real(*args, **kwargs)

        setattr(tables, name, spy)
    return threads


def refusals(client, gid: str) -> list[tuple[int, str]]:
    """Refused requests of a move and a state, with their answers."""
    answers = []
    for method, path, body in [("POST", "moves", {"ply": 0}), ("POST", "moves", {"move": "e5", "colour": 1}),
                               ("POST", "moves", {"move": "z99"}), ("GET", "", None)]:
        url = f"/api/games/{gid}/{path}".rstrip("/") + ("?at=99" if method == "GET" else "")
        r = client.request(method, url, json=body)
        answers.append((r.status_code, r.json()["detail"]))
    return answers


def test_a_game_in_memory_is_played_on_the_event_loop_and_answers_as_the_routes_do(tmp_path):
    db = str(tmp_path / "games.db")
    with TestClient(create_app(db)) as ann:
        gid = ann.post("/api/games", json={"game": "keil", "size": 5, "opponent": "human"}).json()["id"]
        threads = spied(ann.app)
        first = ann.post(f"/api/games/{gid}/moves", json={"move": "e5", "ply": 0})
        assert first.status_code == 200 and first.json()["moves"] == ["e5"]
        state = ann.get(f"/api/games/{gid}").json()
        assert threads == [("current", False), ("play", False), ("current", False)], threads
        held_refusals = refusals(ann, gid)
        cookie = dict(ann.cookies)
    # A new server on the same file: the game is read from the store by the route first.
    with TestClient(create_app(db), cookies=cookie) as again:
        threads = spied(again.app)
        read = again.get(f"/api/games/{gid}")
        assert read.status_code == 200 and threads == [("current", False), ("get", True)], threads
        held = again.get(f"/api/games/{gid}")
        assert threads[2:] == [("current", False)], threads
        mine = ("server", "version")  # this server's copy of the game, counted anew
        for answer in (read.json(), held.json()):
            assert {k: v for k, v in answer.items() if k not in mine} == \
                {k: v for k, v in state.items() if k not in mine}
        assert refusals(again, gid) == held_refusals
        unchanged = again.get(f"/api/games/{gid}", params={"since": held.json()["version"],
                                                            "server": held.json()["server"]})
        assert unchanged.json()["unchanged"] is True
    # A refusal by the route (the game not yet held) reads as one by the play path.
    with TestClient(create_app(db), cookies=cookie) as third:
        threads = spied(third.app)
        r = third.post(f"/api/games/{gid}/moves", json={"ply": 0})
        assert (r.status_code, r.json()["detail"]) == held_refusals[0]
        assert threads == [("current", False)], threads  # not held: the route refused it, reading nothing
