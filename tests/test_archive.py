"""The archive of finished games and the profiles, through the HTTP API of one app on a
real SQLite file: a search by each filter, pages, what others see against what the
players see (a private game never reaches anyone else: not in a search, a profile or a
download), a player's games as one SGF collection read back by the records module, and a
profile's record and recent games.

The games are made once for the module, finished cheaply: resigned, flagged or aborted on
a clock the test moves by hand; the times they ended are then set in the database, so
that the dates and the newest-first order are known.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import threading
import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*")

from fastapi.testclient import TestClient  # noqa: E402

from hexstones.records import read_collection  # noqa: E402
from hexstones.session import Rating, rated  # noqa: E402
from hexstones.web import create_app  # noqa: E402
from hexstones.web.archive import PAGE_SIZE, RECENT_GAMES  # noqa: E402
from serving import HandClock  # noqa: E402

PASSWORD = "correct horse battery"
LOCAL_GAMES = PAGE_SIZE + 2  # public games at one screen: more than a page


def day(text: str, hour: int = 12) -> float:
    return dt.datetime.fromisoformat(f"{text}T{hour:02d}:00:00+00:00").timestamp()


def sign_up(who, name: str) -> None:
    r = who.post("/api/account/signup", json={"name": name, "password": PASSWORD})
    assert r.status_code == 201, r.text


def online_game(black, white, game: str = "keil", size: int = 4, **choices) -> str:
    r = black.post("/api/games", json={"game": game, "size": size, "opponent": "friend", "color": "black",
                                       **choices})
    assert r.status_code == 201, r.text
    made = r.json()
    r = white.post(f"/api/games/{made['id']}/join", json={"secret": made["invite"].rsplit("/", 1)[1]})
    assert r.status_code == 200, r.text
    return made["id"]


def ok(r) -> dict:
    assert r.status_code == 200, r.text
    return r.json()


def ended_at(db: str, gid: str, when: float) -> None:
    with sqlite3.connect(db) as con:
        con.execute("UPDATE games SET updated = ? WHERE id = ?", (when, gid))


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    """One app and its games: Ann, Bea and Cy (accounts), a browser without a session,
    and the games by name (each finished, but ``playing``)."""
    db = str(tmp_path_factory.mktemp("archive") / "games.db")
    clock = HandClock()
    app = create_app(db, clock=clock)
    with TestClient(app) as a, TestClient(app) as b, TestClient(app) as c, TestClient(app) as nobody:
        for who, name in ((a, "Ann"), (b, "Bea"), (c, "Cy")):
            sign_up(who, name)
        games: dict[str, str] = {}
        # Rated and public: Ann resigns, Bea wins.
        games["rated"] = online_game(a, b, public="yes", rated="yes", clock="fischer:300:5")
        ok(a.post(f"/api/games/{games['rated']}/resign", json={}))
        # Private (an invitation's game, not made public): Bea resigns, Ann wins; rated too,
        # so that Ann's and Bea's rating histories hold it.
        games["private"] = online_game(a, b, size=5, rated="yes", clock="fischer:300:5")
        ok(b.post(f"/api/games/{games['private']}/resign", json={}))
        # Public Dehil: Cy's flag falls.
        games["flag"] = online_game(b, c, game="dehil", size=4, public="yes", clock="fischer:15:0")
        for who in (b, c):
            legal = ok(who.get(f"/api/games/{games['flag']}"))["legal"]
            ok(who.post(f"/api/games/{games['flag']}/moves", json={"move": legal[0]}))
        clock.advance(16)  # Bea (black) is to move and her 15 s are spent
        legal = ok(b.get(f"/api/games/{games['flag']}"))["legal"]
        assert b.post(f"/api/games/{games['flag']}/moves", json={"move": legal[0]}).status_code == 409
        # Public Droched between Cy and Ann: Cy never makes the first move.
        games["aborted"] = online_game(c, a, game="droched", size=4, public="yes", clock="fischer:60:0")
        clock.advance(61)
        legal = ok(c.get(f"/api/games/{games['aborted']}"))["legal"]
        assert c.post(f"/api/games/{games['aborted']}/moves", json={"move": legal[0]}).status_code == 409
        # Public and still going: not in the archive.
        games["playing"] = online_game(a, c, public="yes")
        # Public games at one screen, Cy's: nobody's by name.
        local = []
        for _ in range(LOCAL_GAMES):
            r = c.post("/api/games", json={"game": "keil", "size": 3, "public": "yes"})
            assert r.status_code == 201, r.text
            local.append(r.json()["id"])
            ok(c.post(f"/api/games/{local[-1]}/resign", json={"color": "white"}))
        for n, gid in enumerate(local):
            ended_at(db, gid, day("2026-01-01") + n * 86400)  # one a day
        ended_at(db, games["rated"], day("2026-03-01"))
        ended_at(db, games["private"], day("2026-03-02"))
        ended_at(db, games["flag"], day("2026-03-03"))
        ended_at(db, games["aborted"], day("2026-03-04"))
        yield {"ann": a, "bea": b, "cy": c, "nobody": nobody, "games": games, "local": local}


def ids(who, **params) -> list[str]:
    return [g["id"] for g in ok(who.get("/api/archive", params=params))["games"]]


def test_others_see_the_finished_public_games_newest_first_and_the_players_their_own_too(archive):
    g, local = archive["games"], archive["local"]
    newest_local = local[::-1][:PAGE_SIZE - 3]
    for who in ("cy", "nobody"):
        assert ids(archive[who]) == [g["aborted"], g["flag"], g["rated"], *newest_local], who
    for who in ("ann", "bea"):
        assert ids(archive[who]) == [g["aborted"], g["flag"], g["private"], g["rated"], *newest_local[:-1]], who
    page = ok(archive["nobody"].get("/api/archive"))
    assert (page["page"], page["per_page"], page["more"]) == (1, PAGE_SIZE, True)
    second = ok(archive["nobody"].get("/api/archive", params={"page": 2}))
    assert [x["id"] for x in second["games"]] == local[::-1][PAGE_SIZE - 3:] and second["more"] is False
    assert ok(archive["nobody"].get("/api/archive", params={"page": 3})) == {
        "games": [], "page": 3, "per_page": PAGE_SIZE, "more": False}


def test_each_filter_narrows_the_search(archive):
    g, c, ann = archive["games"], archive["cy"], archive["ann"]
    assert ids(c, player="ann") == [g["aborted"], g["rated"]]
    assert ids(ann, player="ANN") == [g["aborted"], g["private"], g["rated"]]  # names match as signing in does
    assert ids(c, player="Cy") == [g["aborted"], g["flag"]]  # the games at one screen are nobody's
    assert ids(c, game="dehil") == [g["flag"]]
    assert ids(ann, game="keil", size="5") == [g["private"]]
    assert ids(c, size="4") == [g["aborted"], g["flag"], g["rated"]]
    assert ids(c, result="resignation", player="bea") == [g["rated"]]
    assert ids(c, result="time") == [g["flag"]]
    assert ids(c, result="aborted") == [g["aborted"]]
    assert ids(c, result="white", size="4") == [g["flag"], g["rated"]]
    assert ids(ann, result="black", size="5") == [g["private"]]
    assert ids(c, result="rules") == []
    assert ids(ann, **{"from": "2026-03-02", "to": "2026-03-03"}) == [g["flag"], g["private"]]
    assert ids(c, **{"from": "2026-03-04"}) == [g["aborted"]]
    assert ids(c, to="2026-01-01") == [archive["local"][0]]
    # An empty parameter is no filter (the page's form sends every field).
    assert ids(c, player="", game="", size="4", result="", to="") == [g["aborted"], g["flag"], g["rated"]]


def test_a_line_names_the_players_their_ratings_the_result_and_the_moves(archive):
    g = archive["games"]
    (line,) = ok(archive["cy"].get("/api/archive", params={"player": "bea", "result": "resignation"}))["games"]
    start = Rating()
    won, lost = rated(start, [(start, 1.0)]), rated(start, [(start, 0.0)])
    assert line["players"] == [
        {"color": "black", "name": "Ann", "rating": {"rating": round(lost.rating, 1),
                                                      "change": round(lost.rating - 1500, 1)}},
        {"color": "white", "name": "Bea", "rating": {"rating": round(won.rating, 1),
                                                      "change": round(won.rating - 1500, 1)}}]
    assert (line["id"], line["url"], line["game"], line["title"], line["size"]) == (
        g["rated"], f"/game/{g['rated']}", "keil", "Keil", 4)
    assert (line["clock"], line["rated"], line["public"], line["moves"], line["ended"]) == (
        "5+5", True, True, 0, day("2026-03-01"))
    assert line["result"] == {"winner": "white", "reason": "resignation", "text": "White wins: Black resigned"}
    (flagged,) = ok(archive["cy"].get("/api/archive", params={"result": "time"}))["games"]
    assert flagged["result"] == {"winner": "white", "reason": "time", "text": "White wins on time"}
    assert [p["rating"] for p in flagged["players"]] == [None, None] and flagged["moves"] == 2
    (aborted,) = ok(archive["cy"].get("/api/archive", params={"result": "aborted"}))["games"]
    assert aborted["result"]["winner"] is None and aborted["result"]["text"].startswith("Aborted")
    assert [(p["color"], p["name"]) for p in aborted["players"]] == [("black", "Cy"), ("white", "Ann")]
    local = ok(archive["cy"].get("/api/archive", params={"to": "2026-01-01"}))["games"][0]
    assert [p["name"] for p in local["players"]] == ["Cy", "Cy"] and local["result"]["winner"] == "black"


@pytest.mark.parametrize(("params", "status", "words"), [
    ({"from": "2026-13-01"}, 400, "from must be a date written YYYY-MM-DD"),
    ({"to": "yesterday"}, 400, "to must be a date written YYYY-MM-DD"),
    ({"from": "2026-03-04", "to": "2026-03-01"}, 400, "the date range ends before it starts"),
    ({"size": "big"}, 400, "size must be a whole number"),
    ({"size": "99"}, 400, "size must be a board side from 3 to 13"),
    ({"game": "chess"}, 400, "game must be one of keil, dehil, droched"),
    ({"result": "draw"}, 400, "result must be one of black, white"),
    ({"page": "0"}, 400, "page must be from 1"),
    ({"page": "two"}, 400, "page must be a whole number"),
    ({"sort": "oldest"}, 400, "sort"),
    ({"player": "Nobody"}, 404, "no player named 'Nobody'"),
])
def test_a_bad_search_is_refused_with_a_sentence(archive, params, status, words):
    r = archive["cy"].get("/api/archive", params=params)
    assert r.status_code == status and words in r.json()["detail"], r.text
    # The page takes the same parameters; its script runs the search and says what is wrong.
    page = archive["cy"].get("/games", params=params)
    assert page.status_code == (400 if "sort" in params else 200)


def test_a_players_games_download_as_one_sgf_collection_of_what_the_asker_may_see(archive):
    g = archive["games"]
    for who, expected in (("cy", [g["aborted"], g["rated"]]), ("ann", [g["aborted"], g["private"], g["rated"]])):
        r = archive[who].get("/api/players/ann/games.sgf")
        assert r.status_code == 200, r.text
        assert r.headers["content-disposition"].startswith('attachment; filename="hexstones-Ann-games.sgf"')
        assert r.headers["content-type"].startswith("application/x-go-sgf")
        records = read_collection(r.text)
        assert len(records) == int(r.headers["x-games"]) == len(ids(archive[who], player="ann")) == len(expected)
        results = [(rec.game.name, rec.game.size, rec.info.get("result"), rec.info["black"], rec.info["white"],
                    rec.info["date"]) for rec in records]
        seen = {"aborted": ("droched", 4, "Void", "Cy", "Ann", "2026-03-04"),
                "private": ("keil", 5, "B+R", "Ann", "Bea", "2026-03-02"),
                "rated": ("keil", 4, "W+R", "Ann", "Bea", "2026-03-01")}
        assert results == [seen[name] for name in ("aborted", "private", "rated") if g[name] in expected]
    bea = read_collection(archive["nobody"].get("/api/players/bea/games.sgf").text)
    assert [(rec.game.name, rec.info.get("result"), len(rec.game.moves)) for rec in bea] == [
        ("dehil", "W+T", 2), ("keil", "W+R", 0)]
    r = archive["cy"].get("/api/players/nobody/games.sgf")
    assert r.status_code == 404 and "no player named 'nobody'" in r.json()["detail"]


def test_a_profile_gives_the_record_and_the_recent_games_the_asker_may_see(archive):
    g = archive["games"]
    mine = ok(archive["ann"].get("/api/players/ann"))
    assert mine["record"]["keil"] == {"games": 2, "wins": 1, "losses": 1, "aborted": 0, "won_on_time": 0,
                                      "lost_on_time": 0, "won_by_resignation": 1, "lost_by_resignation": 1}
    assert mine["record"]["droched"]["games"] == mine["record"]["droched"]["aborted"] == 1
    assert mine["record"]["dehil"]["games"] == 0
    assert [x["id"] for x in mine["recent"]] == [g["aborted"], g["private"], g["rated"]]
    others = ok(archive["cy"].get("/api/players/ann"))
    assert others["record"]["keil"]["games"] == 1 and others["record"]["keil"]["lost_by_resignation"] == 1
    assert [x["id"] for x in others["recent"]] == [g["aborted"], g["rated"]]
    bea = ok(archive["nobody"].get("/api/players/bea"))
    assert bea["record"]["dehil"]["lost_on_time"] == 1 and bea["record"]["keil"]["won_by_resignation"] == 1
    # The rated games' points of the graph: each one's game only where the asker may see it.
    assert [p["game"] for p in mine["history"]["keil"]] == [g["rated"], g["private"]]
    assert [p["game"] for p in others["history"]["keil"]] == [g["rated"], None]
    assert len(ok(archive["cy"].get("/api/players/cy"))["recent"]) == 2 <= RECENT_GAMES


def test_a_private_game_reaches_nobody_but_its_players(archive):
    secret = archive["games"]["private"]
    for who in ("cy", "nobody"):
        client = archive[who]
        for path in ("/api/archive", "/api/archive?player=ann", "/api/archive?player=bea&size=5",
                     "/api/archive?page=2", "/api/players/ann", "/api/players/bea", "/games"):
            r = client.get(path)
            assert r.status_code == 200 and secret not in r.text, (who, path)
        sgf = client.get("/api/players/ann/games.sgf").text
        assert "DT[2026-03-02]" not in sgf and len(read_collection(sgf)) == 2
    for who in ("ann", "bea"):
        assert secret in archive[who].get("/api/players/ann").text


def test_a_page_of_the_archive_costs_two_statements_however_many_games_it_shows(archive):
    import sqlalchemy as sa

    store = archive["nobody"].app.state.store
    statements: list[str] = []

    def count(conn, cursor, statement, *rest):
        # The request's reads: not SQLite's BEGIN of each, nor the app's own threads' (the
        # clocks' look for deadlines may fall in the same moment).
        ours = threading.current_thread().name.startswith("hexstones-")
        if statement.lstrip().upper().startswith("SELECT") and not ours:
            statements.append(statement)

    sa.event.listen(store._reader, "before_cursor_execute", count)  # the reads' engine (SQLite)
    try:
        games = ok(archive["ann"].get("/api/archive"))["games"]
    finally:
        sa.event.remove(store._reader, "before_cursor_execute", count)
    assert len(games) == PAGE_SIZE and any(g["rated"] for g in games)
    # The games with their move counts, then the ratings of the rated ones: no query a game.
    assert len(statements) == 2, statements


def test_games_that_ended_at_the_same_instant_are_each_read_once_across_batches(db):
    from hexstones.web.archive import BATCH

    app = create_app(db)
    with TestClient(app) as a, TestClient(app) as b:
        sign_up(a, "Ann")
        sign_up(b, "Bea")
        first = online_game(a, b, public="yes")
        ok(a.post(f"/api/games/{first}/resign", json={}))
        with sqlite3.connect(db) as con:  # copies of its row, ended at the same instant
            columns = [c[1] for c in con.execute("PRAGMA table_info(games)")]
            row = dict(zip(columns, con.execute("SELECT * FROM games WHERE id = ?", (first,)).fetchone()))
            for n in range(BATCH + 5):
                con.execute(f"INSERT INTO games ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                            [f"copy{n:04d}" if c == "id" else row[c] for c in columns])
        seen, page = [], 1
        while True:
            answer = ok(b.get("/api/archive", params={"page": page}))
            seen += [g["id"] for g in answer["games"]]
            if not answer["more"]:
                break
            page += 1
        assert len(seen) == len(set(seen)) == BATCH + 6
        assert ok(b.get("/api/players/ann"))["record"]["keil"]["losses"] == BATCH + 6


def test_the_archive_on_postgresql(postgres_url):
    """The same queries on PostgreSQL (the JSON text matches, the window over the rating
    history, the batches): a search by player, side and result, the ratings, a download."""
    app = create_app(postgres_url, clock=HandClock())
    with TestClient(app) as a, TestClient(app) as b, TestClient(app) as c:
        for who, name in ((a, "Ann"), (b, "Bea"), (c, "Cy")):
            sign_up(who, name)
        rated_game = online_game(a, b, public="yes", rated="yes", clock="fischer:300:5")
        ok(a.post(f"/api/games/{rated_game}/resign", json={}))
        private = online_game(a, b, size=5)
        ok(b.post(f"/api/games/{private}/resign", json={}))
        assert ids(c, player="ann") == [rated_game] and ids(a, player="ann") == [private, rated_game]
        assert ids(a, size="5", result="black") == [private] and ids(c, size="5") == []
        (line,) = ok(c.get("/api/archive"))["games"]
        assert [p["rating"]["change"] > 0 for p in line["players"]] == [False, True]
        assert [r.info["result"] for r in read_collection(a.get("/api/players/bea/games.sgf").text)] == ["B+R", "W+R"]
        assert ok(c.get("/api/players/ann"))["record"]["keil"]["games"] == 1


def test_the_archive_page_and_every_page_s_header_link_to_it(archive):
    r = archive["nobody"].get("/games")
    assert r.status_code == 200 and 'data-testid="archive-form"' in r.text
    for path in ("/", "/lobby", "/players/ann", "/games", "/watch"):
        assert 'href="/games" data-testid="games-link"' in archive["nobody"].get(path).text, path
