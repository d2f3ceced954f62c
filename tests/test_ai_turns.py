"""The AI's moves take turns by person, and a move waiting in line knows its place.

:class:`TakingTurns` is driven with Futures completed by hand (no timing); the app-level test
holds the one AI process's slot with a gate the test opens, then lets the real AI play.
"""

from __future__ import annotations

import random
import threading
import time
import warnings
from concurrent.futures import Future
from pathlib import Path

import httpx
import pytest

warnings.filterwarnings("ignore", message=".*httpx.*")

from fastapi.testclient import TestClient  # noqa: E402

from hexstones.web import create_app  # noqa: E402
from hexstones.web.limits import TakingTurns  # noqa: E402

WAIT = 300  # seconds: generous, only a bound for a condition that should come much sooner


class Tasks:
    """Tasks whose start is recorded and whose end the test decides."""

    def __init__(self, turns: TakingTurns):
        self.turns = turns
        self.started: list[str] = []
        self.futures: dict[str, Future] = {}

    def add(self, person: str, key: str, starts: bool = True) -> None:
        def start():
            self.started.append(key)
            if not starts:
                return None
            self.futures[key] = Future()
            return self.futures[key]
        self.turns.add(person, start, key)

    def add_background(self, key: str) -> None:
        def start():
            self.started.append(key)
            self.futures[key] = Future()
            return self.futures[key]
        self.turns.add_background(start)

    def end(self, key: str) -> None:
        self.futures[key].set_result(None)

    def places(self, *keys: str) -> list[int]:
        return [self.turns.place(k) for k in keys]


def test_a_waiting_task_knows_its_place_as_the_line_moves():
    tasks = Tasks(TakingTurns(1))
    tasks.add("ann", "a1")
    tasks.add("ann", "a2")
    tasks.add("ann", "a3")
    tasks.add("bob", "b1")
    # Ann has been served (a1 runs), Bob not: his one task goes before her others.
    assert tasks.started == ["a1"]
    assert tasks.places("a1", "b1", "a2", "a3") == [0, 1, 2, 3]
    tasks.end("a1")
    assert tasks.started == ["a1", "b1"]
    assert tasks.places("b1", "a2", "a3") == [0, 1, 2]
    tasks.end("b1")
    assert tasks.places("a2", "a3") == [0, 1]
    tasks.end("a2")
    tasks.end("a3")
    assert tasks.started == ["a1", "b1", "a2", "a3"]
    assert tasks.places("a1", "b1", "a2", "a3", "never added") == [0, 0, 0, 0, 0]


def test_background_work_waits_for_the_moves_and_holds_one_slot_at_most():
    tasks = Tasks(TakingTurns(2))
    tasks.add_background("x1")
    tasks.add_background("x2")
    # One background task at a time, even with a slot free: that slot stays the moves'.
    assert tasks.started == ["x1"]
    tasks.add("ann", "a1")
    tasks.add("ann", "a2")
    tasks.add("bob", "b1")
    assert tasks.started == ["x1", "a1"]
    tasks.end("x1")
    # A slot frees: a move that waits goes before the waiting background task.
    assert tasks.started == ["x1", "a1", "b1"]
    tasks.end("a1")
    tasks.end("b1")
    assert tasks.started == ["x1", "a1", "b1", "a2", "x2"]
    assert tasks.places("a2") == [0]
    tasks.end("a2")
    tasks.end("x2")
    assert tasks.turns.waiting() == 0


def test_a_background_task_starts_when_no_move_waits():
    tasks = Tasks(TakingTurns(1))
    tasks.add("ann", "a1")
    tasks.add_background("x1")
    tasks.add("ann", "a2")
    tasks.end("a1")
    assert tasks.started == ["a1", "a2"]  # added after the background task, started before
    tasks.end("a2")
    assert tasks.started == ["a1", "a2", "x1"]


def test_a_newcomer_served_less_recently_goes_ahead_and_the_place_grows():
    tasks = Tasks(TakingTurns(1))
    tasks.add("ann", "a1")
    tasks.add("ann", "a2")
    assert tasks.places("a2") == [1]
    tasks.add("cat", "c1")  # never served: before Ann's second
    assert tasks.places("c1", "a2") == [1, 2]
    tasks.add("ann", "a3")  # Ann's own: behind her earlier one and Cat's
    assert tasks.places("c1", "a2", "a3") == [1, 2, 3]


def test_people_never_served_go_in_the_order_they_asked():
    tasks = Tasks(TakingTurns(2))
    tasks.add("x", "x1")
    tasks.add("x", "x2")  # both slots busy now
    tasks.add("dan", "d1")
    tasks.add("eve", "e1")
    tasks.add("dan", "d2")
    assert tasks.places("d1", "e1", "d2") == [1, 2, 3]
    tasks.end("x2")
    assert tasks.started == ["x1", "x2", "d1"]
    assert tasks.places("e1", "d2") == [1, 2]


def test_a_task_that_starts_nothing_gives_its_place_to_the_next():
    tasks = Tasks(TakingTurns(1))
    tasks.add("ann", "a1")
    tasks.add("bob", "b1", starts=False)  # its game changed meanwhile
    tasks.add("cat", "c1")
    assert tasks.places("b1", "c1") == [1, 2]
    tasks.end("a1")  # b1 starts nothing: c1 takes the slot at once
    assert tasks.started == ["a1", "b1", "c1"]
    assert tasks.places("c1") == [0]


def test_the_places_are_the_order_the_tasks_start_in():
    # Whatever the history of who was served, and however many slots: with no task added
    # meanwhile, the task at place n is the n-th to start.
    rng = random.Random(7)
    for trial in range(200):
        slots = rng.randint(1, 3)
        tasks = Tasks(TakingTurns(slots))
        people = [f"p{i}" for i in range(rng.randint(1, 6))]
        history = [f"h{i}" for i in range(rng.randint(slots, slots + 8))]
        for key in history:  # some served before, in some order; some still running
            tasks.add(rng.choice(people), key)
            running = [k for k in tasks.futures if not tasks.futures[k].done()]
            if len(running) == slots and rng.random() < 0.6:
                tasks.end(rng.choice(running))
        waiting = [f"w{i}" for i in range(rng.randint(0, 12))]
        for key in waiting:
            tasks.add(rng.choice(people), key)
        before = len(tasks.started)
        queued = [k for k in history + waiting if k not in tasks.started]
        places = {k: tasks.turns.place(k) for k in history + waiting}
        while any(not f.done() for f in tasks.futures.values()):
            tasks.end(next(k for k, f in tasks.futures.items() if not f.done()))
        order = tasks.started[before:]
        assert sorted(order) == sorted(queued), trial
        assert {k: order.index(k) + 1 for k in queued} == {k: places[k] for k in queued}, trial
        assert all(places[k] == 0 for k in tasks.started[:before]), trial


# -- in the app: a person's AI move waiting behind another's games shows its place ----------


def new(client, query: str) -> str:
    r = client.get(f"/new?{query}", follow_redirects=False)
    assert r.status_code == 303, r.text
    return r.headers["location"].rsplit("/", 1)[1]


def state(client, gid: str) -> dict:
    r = client.get(f"/api/games/{gid}")
    assert r.status_code == 200, r.text
    return r.json()


def hold_the_ai(app, gate: threading.Event):
    """Hold each AI move of ``app`` (its task in the pool, so its slot in the turns) until
    ``gate`` opens, then search it for real. Returns what opens the gate and lets go."""
    pool = app.state.tables._ai
    real_submit = pool.submit

    def held_submit(*job):
        answer: Future = Future()

        def later():
            gate.wait(WAIT)
            future = real_submit(*job)
            if future is None:
                answer.cancel()
                return
            future.add_done_callback(lambda f: answer.set_exception(f.exception()) if f.exception()
                                     else answer.set_result(f.result()))
        threading.Thread(target=later, daemon=True).start()
        return answer

    pool.submit = held_submit

    def release() -> None:
        gate.set()
        pool.submit = real_submit
    return release


def test_the_state_shows_the_place_of_an_ai_move_waiting_behind_other_games(tmp_path):
    db = str(tmp_path / "games.db")
    gate = threading.Event()
    with TestClient(create_app(db, ai_processes=1)) as ann:
        release = hold_the_ai(ann.app, gate)
        try:
            first_move = "game=keil&size=3&opponent=ai&level=1&color=white"  # the AI moves first
            ann_games = [new(ann, first_move) for _ in range(3)]
            bob = TestClient(ann.app)  # another browser on the same server (its lifespan is ann's)
            bob_game = new(bob, first_move)
            shown = [state(ann, g) for g in ann_games]
            bobs = state(bob, bob_game)
            assert [s["waiting_for"] for s in shown + [bobs]] == ["ai"] * 4
            assert [s["ai_thinking"] for s in shown + [bobs]] == [True] * 4
            # Ann's first game holds the slot; Bob, not served yet, goes before her others.
            assert [s["ai_queue"] for s in shown] == [None, 2, 3]
            assert bobs["ai_queue"] == 1
            # The page's poll asks "since" its version: the unchanged answer tells the place too.
            since = ann.get(f"/api/games/{ann_games[2]}", params={"since": shown[2]["version"],
                                                                  "server": shown[2]["server"]}).json()
            assert since["unchanged"] is True and since["ai_queue"] == 3
            gate.set()
            deadline = time.monotonic() + WAIT
            for client, gid in [(bob, bob_game)] + [(ann, g) for g in ann_games]:
                while True:
                    s = state(client, gid)
                    assert s["ai_error"] is None, s["ai_error"]
                    if s["human_turn"]:
                        break
                    assert s["ai_queue"] in (None, 1, 2, 3), s["ai_queue"]
                    assert time.monotonic() < deadline, f"waited {WAIT}s for the AI's move"
                    time.sleep(0.05)
                assert len(s["moves"]) == 1 and s["ai_queue"] is None
        finally:
            release()


@pytest.mark.slow
def test_the_game_page_says_where_its_ai_move_waits_in_line(tmp_path, browser):
    """In chromium: a game whose AI move waits behind another person's games says so, and
    says the AI is thinking once its turn has come."""
    from playwright.sync_api import expect

    from serving import CHROMIUM

    if not Path(CHROMIUM).exists():  # .ci/run installs it
        pytest.skip(f"no chromium at {CHROMIUM}")
    app = create_app(str(tmp_path / "games.db"), ai_processes=1)
    gate = threading.Event()
    from serving import serving_in_this_process

    with serving_in_this_process(app) as url:
        release = hold_the_ai(app, gate)
        try:
            ann = httpx.Client(base_url=url, headers={"Origin": url}, timeout=WAIT)
            for _ in range(2):  # the first holds the one AI process; the second waits
                r = ann.post("/api/games", json={"game": "keil", "size": 3, "opponent": "ai", "level": 1,
                                                 "color": "white"})
                assert r.status_code == 201, r.text
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            page.goto(f"{url}/new?game=keil&size=3&opponent=ai&level=1&color=white")
            thinking = page.get_by_test_id("thinking")
            # Bob has not been served yet: his move goes before Ann's second, next in line.
            expect(thinking).to_contain_text("The AI is busy with other games; it will think for this one next",
                                             timeout=WAIT * 1000)
            gate.set()  # the moves are searched, one by one: Bob's page gets its move
            expect(thinking).to_be_hidden(timeout=WAIT * 1000)
            moves = page.evaluate("async () => (await (await fetch("
                                  "location.pathname.replace('/game/', '/api/games/'))).json()).moves")
            assert len(moves) == 1
            context.close()
        finally:
            release()
