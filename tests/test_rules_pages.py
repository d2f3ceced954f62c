"""The rules pages: every example is true to the real engine, ``POST /api/position``
judges positions and refuses bad input, and a browser plays the examples by clicking.

An example (``web/static/rules/<game>.json``) is a setup (moves), then steps the reader
plays; ``start_expect`` states what the start caption claims, each step's ``expect``
what its caption claims, and the tests check that
the engine does exactly that: the stones removed (none unless named), the refusal's
reason, a group's points, liberties, value or partitions, a territory's owner, the
prison, the score, the result.
"""

from __future__ import annotations

import html
import json
import re
import warnings
from pathlib import Path

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*")


from hexstones import games  # noqa: E402
from hexstones.games import IllegalMove  # noqa: E402
from hexstones.web.position import MAX_MOVES  # noqa: E402

RULES = Path(games.__file__).parent.parent / "web" / "static" / "rules"
EXPECT_KEYS = {"removed", "refused", "group", "territory", "prison", "score", "outcome"}


def pages() -> dict[str, dict]:
    return {path.stem: json.loads(path.read_text()) for path in sorted(RULES.glob("*.json"))}


def examples() -> list[tuple[str, str, int, dict]]:
    return [(name, idea["id"], k, example)
            for name, page in pages().items()
            for idea in page["ideas"]
            for k, example in enumerate(idea["examples"])]


def example_id(item) -> str:
    name, idea, k, _ = item
    return f"{name}-{idea}-{k}"


def test_every_game_has_a_rules_page_with_the_ideas_of_rules_md():
    found = pages()
    assert sorted(found) == sorted(games.GAME_NAMES)
    ideas = {name: [idea["id"] for idea in page["ideas"]] for name, page in found.items()}
    # The ideas issue #22 names for each game, in the order docs/rules.md takes them.
    assert ideas == {
        "keil": ["linking", "crosscut", "capture", "territory", "button"],
        "dehil": ["partitions", "triangles", "first-pass"],
        "droched": ["bridges", "prison", "release", "repetition"],
    }
    for name, page in found.items():
        assert page["game"] == name
        for idea in page["ideas"]:
            assert idea["title"] and idea["text"] and idea["examples"], (name, idea["id"])


def _group_at(game, point: str) -> dict:
    return next(g for g in game.groups() if point in g["points"])


def _listed(claims) -> list[dict]:
    """A claim about one group or territory, or a list of them."""
    return [] if claims is None else claims if isinstance(claims, list) else [claims]


def check_claims(game, expect: dict, stones_before: dict[str, str], where: str) -> None:
    """Whatever ``expect`` states is true of ``game`` after the step."""
    removed = sorted(p for p in stones_before if p not in game.stones())
    assert removed == sorted(expect.get("removed", [])), f"{where}: removed {removed}"
    for claim in _listed(expect.get("group")):
        claim = dict(claim)
        group = _group_at(game, claim.pop("at"))
        for key, value in claim.items():
            if key == "liberty_count":
                assert len(group["liberties"]) == value, f"{where}: {group}"
            elif isinstance(value, list):
                assert sorted(group[key]) == sorted(value), f"{where}: {group}"
            else:
                assert group[key] == value, f"{where}: {group}"
    for claim in _listed(expect.get("territory")):
        owners = [t.get("owner") for t in game.territories() if claim["at"] in t["points"]]
        assert owners == [claim["owner"]], f"{where}: {owners}"
    if "prison" in expect:
        assert game.prison == expect["prison"], f"{where}: {game.prison}"
    if "score" in expect:
        assert game.score() == expect["score"], f"{where}: {game.score()}"
    outcome = game.outcome()
    if "outcome" in expect:
        assert outcome is not None, f"{where}: the game goes on"
        found = outcome.to_dict()
        assert {k: found[k] for k in expect["outcome"]} == expect["outcome"], f"{where}: {found}"
    else:
        assert outcome is None, f"{where}: the game ended ({outcome.text()}) and the caption does not say so"


@pytest.mark.parametrize("item", examples(), ids=example_id)
def test_every_example_does_what_its_captions_say(item):
    name, idea, k, example = item
    game = games.new_game(name, size=example["size"], **example["options"])
    for move in example["setup"]:
        game.play(move)  # IllegalMove: the setup is no real game
    assert game.outcome() is None
    assert example["start"] and example["steps"]
    assert set(example["overlays"]) <= {o.name for o in game.overlays}
    start = example.get("start_expect", {})  # what the start caption claims
    assert set(start) <= EXPECT_KEYS - {"removed", "refused"}
    check_claims(game, start, game.stones(), f"{name} {idea} example {k} start")
    for number, step in enumerate(example["steps"], 1):
        where = f"{name} {idea} example {k} step {number} ({step['move']})"
        expect = step["expect"]
        assert set(expect) <= EXPECT_KEYS, where
        assert step["caption"], where
        before, mover = game.stones(), game.to_move
        if "refused" in expect:
            assert set(expect) == {"refused"}, f"{where}: a refused move changes nothing to claim"
            snapshot = (game.picture(), list(game.moves))
            with pytest.raises(IllegalMove) as refused:
                game.play(step["move"])
            assert expect["refused"] in str(refused.value), f"{where}: {refused.value}"
            assert "refused" in step["caption"], where
            assert (game.picture(), list(game.moves)) == snapshot
            continue
        game.play(step["move"])
        check_claims(game, expect, before, where)
        for point in expect.get("removed", []):  # the caption names what it claims
            assert point in step["caption"], f"{where}: the caption does not name {point}"
        if "reply" in step:
            game.play(step["reply"])
            assert game.stones() == {**before, step["move"]: mover}, f"{where}: the reply changed the board"


# -- the endpoint ------------------------------------------------------------------------


def ask(client, **body):
    return client.post("/api/position", json=body)


def test_the_endpoint_plays_an_example_and_says_what_happened(module_client):
    r = ask(module_client, game="keil", size=4, moves=["a1"], overlays=["groups"], **{"try": "b2"})
    assert r.status_code == 200, r.text
    answer = r.json()
    assert answer["moves"] == ["a1", "b2"]
    assert answer["last"] == {"move": "b2", "color": "white", "removed": [{"point": "a1", "color": "black"}]}
    assert answer["refused"] is None and answer["to_move"] == "black"
    assert 'data-removed="a1"' in answer["svg"] and 'class="liberty"' in answer["svg"]
    assert "a1" not in answer["legal"] and "b1" in answer["legal"]
    assert answer["analysis"]["captured"] == ["a1"]


def test_a_refused_try_changes_nothing_and_gives_the_engines_reason(module_client):
    r = ask(module_client, game="keil", size=4, moves=["a1", "b2"], **{"try": "a1"})
    assert r.status_code == 200, r.text
    answer = r.json()
    assert answer["moves"] == ["a1", "b2"]
    assert answer["refused"] == {"move": "a1", "color": "black", "reason":
                                 "a1 is suicide: after captures the placed stone's group would have no liberty"}
    assert answer["last"]["move"] == "b2"  # the effects are still those of the last move played


def test_the_endpoint_gives_the_result_and_the_prison(module_client):
    r = ask(module_client, game="droched", size=4, moves=["a1", "b1", "g7", "a2", "d4"], **{"try": "b2"})
    assert r.json()["prison"] == {"black": 1, "white": 0}
    over = ask(module_client, game="dehil", size=3, moves=["pass"], **{"try": "pass"}).json()
    assert over["outcome"]["winner"] == "black" and over["outcome"]["text"].startswith("Black wins by")
    assert over["to_move"] is None and over["legal"] == []


@pytest.mark.parametrize("body, detail", [
    ({}, "give the game"),
    ({"game": "go"}, "unknown game 'go'"),
    ({"game": "keil", "size": 99}, "board size must be from"),
    ({"game": "keil", "size": "4x"}, "bad options for Keil"),
    ({"game": "keil", "options": {"size": 4}}, "give the size as the field 'size'"),
    ({"game": "keil", "size": True}, "board size must be a whole number, not True"),
    ({"game": "keil", "options": {"komi": "x" * 5000}}, "komi must be a whole number"),  # cut short
    ({"game": "droched", "options": {"prison": -1}}, "must be from 0 to"),
    ({"game": "keil", "options": {"prison": 3}}, "unknown option 'prison'"),
    ({"game": "keil", "options": [1]}, "options are an object"),
    ({"game": "keil", "moves": "a1"}, "moves is a list of moves"),
    ({"game": "keil", "moves": [5]}, "move 1 of moves: a move is a point"),
    ({"game": "keil", "moves": ["a1", "a1"]}, "move 2 of moves ('a1') cannot be played: a1 is occupied"),
    ({"game": "keil", "moves": ["z99"]}, "is not a move in Keil"),
    ({"game": "keil", "moves": ["a1"] * (MAX_MOVES + 1)}, f"at most {MAX_MOVES}"),
    ({"game": "keil", "try": "x" * 1000}, "try: a move is a point"),
    ({"game": "keil", "overlays": ["bridges"]}, "unknown overlay 'bridges' for Keil"),
    ({"game": "keil", "colour": "black"}, "unknown field 'colour'"),
])
def test_the_endpoint_refuses_bad_input_with_400_and_a_detail(module_client, body, detail):
    r = module_client.post("/api/position", json=body)
    assert r.status_code == 400, r.text
    assert detail in r.json()["detail"], r.json()["detail"]
    assert len(r.json()["detail"]) < 500


def test_the_endpoint_refuses_a_body_that_is_no_object(module_client):
    r = module_client.post("/api/position", content=b"[1, 2]", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "must be a JSON object" in r.json()["detail"]
    r = module_client.post("/api/position", content=b'{"game": ' + b"[" * 50 + b"]" * 50 + b"}")
    assert r.status_code == 400 and "nests deeper than" in r.json()["detail"]
    r = module_client.post("/api/position?game=keil", json={"game": "keil"})
    assert r.status_code == 400 and "unknown parameter 'game'" in r.json()["detail"]


def test_the_rules_pages_are_served(module_client):
    for path in ["/rules"] + [f"/rules/{name}" for name in games.GAME_NAMES]:
        r = module_client.get(path)
        assert r.status_code == 200 and 'src="/static/rules.js"' in r.text, path
    r = module_client.get("/rules/chess")
    assert r.status_code == 404 and "no rules page for 'chess'" in html.unescape(r.text)
    for name in games.GAME_NAMES:
        assert module_client.get(f"/static/rules/{name}.json").json()["game"] == name
    assert 'href="/rules"' in module_client.get("/").text
    # The exact rules the pages link to: the project's rules text, as served.
    r = module_client.get("/rules/text")
    docs = Path(__file__).resolve().parents[1] / "docs" / "rules.md"
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    assert r.text == docs.read_text(encoding="utf-8")


def test_every_example_through_the_endpoint(module_client):
    """The page's requests, step by step: each answer shows what the caption claims."""
    for name, idea, _k, example in examples():
        moves = list(example["setup"])
        base = {"game": name, "size": example["size"], "options": example["options"],
                "overlays": example["overlays"]}
        for step in example["steps"]:
            answer = module_client.post("/api/position", json={**base, "moves": moves, "try": step["move"]}).json()
            expect = step["expect"]
            if "refused" in expect:
                assert expect["refused"] in answer["refused"]["reason"], (name, idea, step)
                assert answer["moves"] == moves
                continue
            assert answer["refused"] is None, (name, idea, step, answer["refused"])
            removed = [r["point"] for r in answer["last"]["removed"]]
            assert sorted(removed) == sorted(expect.get("removed", [])), (name, idea, step)
            assert answer["moves"] == moves + [step["move"]]
            moves = answer["moves"]
            if "reply" in step:
                reply = module_client.post("/api/position", json={**base, "moves": moves, "try": step["reply"]}).json()
                assert reply["refused"] is None, (name, idea, step)
                moves = reply["moves"]


# -- in a browser ------------------------------------------------------------------------


@pytest.mark.slow
def test_a_reader_plays_every_example_by_clicking(browser, tmp_path):
    """The real server and Debian's chromium (as in test_browser.py): from the start page
    to each game's rules, every example played by clicking its highlighted moves."""
    # test_browser skips (module level) where there is no chromium, before importing playwright.
    from serving import Server
    from test_browser import WAIT_MS, expect

    server = Server(str(tmp_path / "games.db"), tmp_path / "games.log")
    server.start()
    try:
        context = browser.new_context(viewport={"width": 1100, "height": 900})
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url + "/")
        page.get_by_test_id("rules-link").click()
        expect(page).to_have_url(server.url + "/rules")
        for name, spec in games.game_specs().items():
            page.goto(server.url + "/rules")
            page.get_by_test_id(f"rules-{name}").get_by_role("link").click()
            expect(page.locator("h1")).to_have_text(f"{spec['title']}: the rules")
            for idea in pages()[name]["ideas"]:
                for k, example in enumerate(idea["examples"]):
                    play_example(page, expect, f"example-{idea['id']}-{k}", example)
            page.set_viewport_size({"width": 390, "height": 800})  # a phone: nothing sticks out
            assert page.evaluate("() => document.documentElement.scrollWidth") <= 390, name
            page.set_viewport_size({"width": 1100, "height": 900})
        # The page's "docs/rules.md" is a link to the exact rules.
        page.get_by_role("link", name="docs/rules.md").click()
        expect(page).to_have_url(server.url + "/rules/text")
        expect(page.locator("body")).to_contain_text("Keil")
        assert errors == [], errors
        context.close()
    finally:
        server.stop()


def play_example(page, expect, testid: str, example: dict) -> None:
    box = page.get_by_test_id(testid)
    caption, board = box.get_by_test_id("caption"), box.locator("svg.hexboard")
    expect(caption).to_have_text(example["start"])
    expect(board).to_have_attribute("data-move-number", str(len(example["setup"])))
    played = len(example["setup"])
    for number, step in enumerate(example["steps"], 1):
        move = step["move"]
        expect(box).to_have_attribute("data-step", str(number - 1))
        target = box.locator(f'[data-point="{move}"]')
        if target.count():
            expect(target).to_have_class(re.compile(r"\bhint\b"))  # the page shows where to click
        else:
            target = box.locator(f'button[data-move="{move}"]')
            expect(target).to_have_class(re.compile(r"\bhint\b"))
        target.click()
        expect(box).to_have_attribute("data-step", str(number))
        expect(caption).to_have_text(step["caption"])
        facts = box.get_by_test_id("facts")
        if "refused" in step["expect"]:
            expect(facts).to_contain_text(step["expect"]["refused"])  # the engine's own reason
        else:
            played += 1 + ("reply" in step)
            for point in step["expect"].get("removed", []):
                expect(box.locator(f'[data-removed="{point}"]')).to_have_count(1)
                expect(facts).to_contain_text(f"{point} (")
        expect(board).to_have_attribute("data-move-number", str(played))
    expect(box).to_have_attribute("data-done", "")
