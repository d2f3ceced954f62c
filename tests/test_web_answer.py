"""A move's answers draw and encode its board once: the mover's answer and the opponent's
fetch that follows show the same picture, which is drawn, encoded and compressed once (a
bounded cache) and comes out as the board of that very position."""

from __future__ import annotations

import gzip
import json
import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*")

from fastapi.testclient import TestClient  # noqa: E402

import hexstones  # noqa: E402
from hexstones.svg import board_svg  # noqa: E402
from hexstones.web import answer, create_app, view  # noqa: E402


@pytest.fixture
def counted(monkeypatch):
    """Every board drawn for a page, listed (with empty caches: no picture of another test)."""
    drawn: list[int] = []
    real = view.board_svg

    def drawing(*args, **kwargs):
        drawn.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(view, "board_svg", drawing)
    view._DRAWN.clear()
    answer._ENCODED.clear()
    return drawn


def test_a_move_and_the_opponents_fetch_draw_the_board_once(tmp_path, counted):
    app = create_app(str(tmp_path / "games.db"))
    with TestClient(app) as ann, TestClient(app) as bea:
        game = ann.post("/api/games", json={"game": "keil", "size": 5, "opponent": "friend",
                                            "color": "black"}).json()
        gid, secret = game["id"], game["invite"].rsplit("/", 1)[1]
        assert bea.post(f"/api/games/{gid}/join", json={"secret": secret, "name": "Bea"}).status_code == 200
        played = hexstones.new_game("keil", size=5)
        for ply, move in enumerate(["c3", "d4", "b2", "e5", "a1"]):
            mover, other = (ann, bea) if ply % 2 == 0 else (bea, ann)
            before = len(counted)
            r = mover.post(f"/api/games/{gid}/moves", json={"move": move, "ply": ply})
            assert r.status_code == 200, r.text
            seen = other.get(f"/api/games/{gid}")
            again = other.get(f"/api/games/{gid}", headers={"Accept-Encoding": "identity"})
            assert len(counted) - before == 1, "the move's answer and the fetches drew the board again"
            played.play(move)
            assert r.json()["svg"] == seen.json()["svg"] == again.json()["svg"] == board_svg(played)
            assert seen.json() == again.json()
        # An earlier position was drawn for its move; an overlay is a picture of its own.
        for _ in range(2):
            early = ann.get(f"/api/games/{gid}", params={"at": 2}).json()
            marked = ann.get(f"/api/games/{gid}", params={"overlays": "territory"}).json()
        assert len(counted) == 1 + 5 + 1  # the empty board, each move's, the overlay's
        assert early["svg"] == board_svg(played, move_number=2)
        assert marked["svg"] == board_svg(played, overlays=("territory",))


def test_a_picture_belongs_to_the_options_and_moves_it_was_drawn_for(counted):
    plain = hexstones.new_game("droched", size=5)
    handicapped = hexstones.new_game("droched", size=5, handicap=["c3"])
    assert view.drawn(plain, 0, ()) == board_svg(plain)
    assert view.drawn(handicapped, 0, ()) == board_svg(handicapped) != board_svg(plain)
    plain.play("b2")
    assert view.drawn(plain, 1, ()) == board_svg(plain)
    assert view.drawn(plain, 0, ()) == board_svg(plain, move_number=0)
    assert len(counted) == 3


@pytest.mark.parametrize("content", [
    {"id": "x", "svg": '<svg a="1">\\ "é\u2028</svg>', "moves": ["d4"], "over": False, "score": None},
    {"svg": "<svg/>"},
    {"id": "no picture", "n": 1.5},
])
def test_a_state_answer_holds_what_json_response_would(content):
    sent = answer.StateAnswer(content)
    assert json.loads(sent.body) == content
    assert gzip.decompress(sent.gzipped()) == sent.body
    assert sent.raw_headers == [(b"content-length", str(len(sent.body)).encode()),
                                (b"content-type", b"application/json")]


def test_the_cache_keeps_the_most_recent_within_its_bound():
    cache: answer.Bounded[str] = answer.Bounded(10, len)
    for key, value in [("a", "1234"), ("b", "1234"), ("c", "1234")]:
        cache.put(key, value)
    assert cache.get("a") is None and cache.get("c") == "1234" and cache.held == 8
    cache.get("b")
    cache.put("d", "1234")  # the least recently used goes: c, not b
    assert cache.get("c") is None and cache.get("b") == "1234" and cache.held == 8
    cache.put("e", "x" * 11)  # over the bound alone: not kept, nothing else lost
    assert cache.get("e") is None and len(cache) == 2
