"""Online play through the HTTP API: seats and their authority, invitations, takebacks,
the komi pie between two people, accounts and sessions, privacy, cross-site refusal,
security headers, live updates over the WebSocket.

Each person is a TestClient of their own (its own cookie jar) on one app and one real
SQLite file; every refusal is checked to have changed nothing stored.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*")

from fastapi.testclient import TestClient  # noqa: E402

from hexstones.web import create_app  # noqa: E402
from hexstones.web.accounts import COOKIE, FREE_FAILURES, SESSION_DAYS  # noqa: E402


@pytest.fixture
def app(db):
    return create_app(db)


@pytest.fixture
def people(app):
    """Three browsers on one server: Ann, Bea and Cy (each with its own cookies; Cy is a
    guest who watches)."""
    with TestClient(app) as a, TestClient(app) as b, TestClient(app) as c:
        assert c.post("/api/account/guest", json={"name": "Cy"}).status_code == 200  # a session, no seat
        yield a, b, c


def stored(db: str) -> tuple:
    with sqlite3.connect(db) as con:
        return (con.execute("SELECT id, options, setup, resigned FROM games ORDER BY id").fetchall(),
                con.execute("SELECT * FROM moves ORDER BY game_id, ply").fetchall())


def friend_game(a, **choices) -> dict:
    r = a.post("/api/games", json={"game": "keil", "size": 5, "opponent": "friend", "color": "black",
                                   **choices})
    assert r.status_code == 201, r.text
    return r.json()


def join(b, game: dict, name: str = "Bea") -> dict:
    secret = game["invite"].rsplit("/", 1)[1]
    r = b.post(f"/api/games/{game['id']}/join", json={"secret": secret, "name": name})
    assert r.status_code == 200, r.text
    return r.json()


def seated(a, b) -> dict:
    game = friend_game(a)
    join(b, game)
    return game


def stored_users(db: str) -> list:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT id, name FROM users ORDER BY id").fetchall()


def stored_sessions(db: str) -> list:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT id, name FROM sessions ORDER BY id").fetchall()


def test_a_friend_game_has_an_invitation_only_its_creator_sees(people, db):
    a, b, c = people
    game = friend_game(a)
    assert re.fullmatch(r"/invite/[0-9a-f]{24}/[A-Za-z0-9_-]{32}", game["invite"])  # 96 and 192 random bits
    assert game["you"] == ["black"] and game["seats"]["white"] == {"open": True}
    assert game["status"] == "Black to move (you)"
    seen_by_c = c.get(f"/api/games/{game['id']}").json()
    assert seen_by_c["invite"] is None and seen_by_c["spectator"] and seen_by_c["you"] == []
    assert seen_by_c["legal"] == [] and not seen_by_c["human_turn"]
    page = b.get(game["invite"])
    assert page.status_code == 200 and 'data-testid="join"' in page.text
    joined = join(b, game)
    assert joined["you"] == ["white"] and joined["seats"]["black"] == {"name": None, "you": False}
    assert joined["seats"]["white"] == {"name": "Bea", "you": True}
    # The seat is taken: the link lets no one else in, and the creator's page shows no link.
    assert a.get(f"/api/games/{game['id']}").json()["invite"] is None
    secret = game["invite"].rsplit("/", 1)[1]
    r = c.post(f"/api/games/{game['id']}/join", json={"secret": secret, "name": "Cy"})
    assert r.status_code == 409 and "taken" in r.json()["detail"]
    # A browser with no session replaying the used link is refused without being given one.
    with TestClient(a.app) as stranger:
        sessions = stored_sessions(db)
        r = stranger.post(f"/api/games/{game['id']}/join", json={"secret": secret, "name": "Dee"})
        assert r.status_code == 409 and "set-cookie" not in r.headers and not stranger.cookies
        assert stored_sessions(db) == sessions
    wrong = secret[:-1] + ("x" if secret[-1] != "x" else "y")  # differs from the secret in its last letter
    r = c.post(f"/api/games/{game['id']}/join", json={"secret": wrong, "name": "Cy"})
    assert r.status_code == 404


def test_only_the_seat_of_the_side_to_move_plays_and_refusals_change_nothing(people, db):
    a, b, c = people
    gid = seated(a, b)["id"]
    before = stored(db)
    cases = [
        (b, "moves", {"move": "e5"}, 403, "only the player of black"),
        (c, "moves", {"move": "e5"}, 403, "watching"),
        (c, "resign", {}, 403, "watching"),
        (c, "undo", {}, 403, "watching"),
        (c, "takeback", {"action": "request"}, 403, "watching"),
        (b, "resign", {"color": "black"}, 403, "only the player of black"),
        (a, "undo", {}, 409, "takeback"),
    ]
    for who, route, body, status, words in cases:
        r = who.post(f"/api/games/{gid}/{route}", json=body)
        assert (r.status_code, words in r.json()["detail"]) == (status, True), (route, r.text)
    nobody = TestClient(a.app)  # no cookie at all (not entered: the app is already running)
    for route, body in [("moves", {"move": "e5"}), ("resign", {}), ("undo", {}), ("pie", {"komi": 3})]:
        assert nobody.post(f"/api/games/{gid}/{route}", json=body).status_code == 401
    assert nobody.delete(f"/api/games/{gid}").status_code == 401
    assert nobody.post(f"/api/games/{gid}/name", json={"name": "mine"}).status_code == 401
    assert b.delete(f"/api/games/{gid}").status_code == 403  # only its creator deletes a game
    assert stored(db) == before
    assert a.post(f"/api/games/{gid}/moves", json={"move": "e5"}).status_code == 200
    assert a.post(f"/api/games/{gid}/moves", json={"move": "d4"}).status_code == 403  # White's turn
    assert b.post(f"/api/games/{gid}/moves", json={"move": "d4"}).status_code == 200


def test_an_expired_session_is_refused(people, db):
    a, b, _ = people
    gid = seated(a, b)["id"]  # the sessions are in use: the server keeps them in memory
    accounts = a.app.state.people.accounts
    accounts.now = lambda: time.time() + (SESSION_DAYS + 1) * 86400  # a month without a request
    before = stored(db)
    r = a.post(f"/api/games/{gid}/moves", json={"move": "e5"})
    assert r.status_code == 401 and "expired" in r.json()["detail"]
    assert stored(db) == before


def test_a_takeback_is_asked_and_the_opponent_accepts_or_declines(people):
    a, b, c = people
    gid = seated(a, b)["id"]
    for who, mv in [(a, "e5"), (b, "d4"), (a, "c3")]:
        assert who.post(f"/api/games/{gid}/moves", json={"move": mv}).status_code == 200
    r = a.post(f"/api/games/{gid}/takeback", json={"action": "request"})
    assert r.status_code == 200 and r.json()["takeback"] == {"by": "black", "ply": 3}
    assert a.post(f"/api/games/{gid}/takeback", json={"action": "accept"}).status_code == 403
    assert c.post(f"/api/games/{gid}/takeback", json={"action": "accept"}).status_code == 403
    r = b.post(f"/api/games/{gid}/takeback", json={"action": "decline"})
    assert r.status_code == 200 and r.json()["takeback"] is None and r.json()["moves"] == ["e5", "d4", "c3"]
    # White asks after Black's reply: White's move and Black's reply go back.
    assert b.post(f"/api/games/{gid}/takeback", json={"action": "request"}).status_code == 200
    r = a.post(f"/api/games/{gid}/takeback", json={"action": "accept"})
    assert r.status_code == 200 and r.json()["moves"] == ["e5"] and r.json()["to_move"] == "white"
    assert b.post(f"/api/games/{gid}/takeback", json={"action": "accept"}).status_code == 409  # none asked


def test_the_komi_pie_between_two_seats(people):
    a, b, c = people
    game = friend_game(a, pie="you")
    gid = game["id"]
    assert game["pie_you"] == ["propose"] and game["you"] == []
    join(b, game)
    assert b.post(f"/api/games/{gid}/pie", json={"komi": 2}).status_code == 403  # Ann proposes
    assert c.post(f"/api/games/{gid}/pie", json={"komi": 2}).status_code == 403
    assert a.post(f"/api/games/{gid}/pie", json={"komi": 4}).status_code == 200
    assert a.post(f"/api/games/{gid}/pie", json={"color": "black"}).status_code == 403  # Bea chooses
    r = b.post(f"/api/games/{gid}/pie", json={"color": "white"})
    assert r.status_code == 200 and r.json()["you"] == ["white"] and r.json()["options"]["komi"] == 4
    assert a.get(f"/api/games/{gid}").json()["you"] == ["black"]
    assert b.post(f"/api/games/{gid}/moves", json={"move": "e5"}).status_code == 403
    assert a.post(f"/api/games/{gid}/moves", json={"move": "e5"}).status_code == 200


def test_games_are_private_by_default(people):
    a, b, c = people
    gid = seated(a, b)["id"]
    local = a.post("/api/games", json={"game": "dehil", "size": 4, "opponent": "human"}).json()["id"]
    assert {g["id"] for g in a.get("/api/games").json()["games"]} == {gid, local}
    listed = b.get("/api/games").json()["games"]
    assert [g["id"] for g in listed] == [gid] and listed[0]["you"] == ["white"]
    assert c.get("/api/games").json()["games"] == []
    text = a.get("/api/games").text
    assert "invite" not in text and "session" not in text  # no secret in the list
    shown = a.post("/api/games", json={"game": "keil", "size": 5, "opponent": "human", "public": "yes"}).json()
    # Made public: others find it among the games to watch, not among their own games.
    listed = c.get("/api/games").json()
    assert listed["games"] == [] and [g["id"] for g in listed["watch"]] == [shown["id"]]
    assert listed["watch"][0]["you"] == [] and "invite" not in json.dumps(listed)
    assert shown["id"] in {g["id"] for g in a.get("/api/games").json()["games"]}
    assert shown["id"] not in {g["id"] for g in a.get("/api/games").json()["watch"]}
    assert c.post("/api/games", json={"game": "keil", "public": "maybe"}).status_code == 400


def test_a_hot_seat_game_is_its_creators_alone(people, db):
    a, _, c = people
    gid = a.post("/api/games", json={"game": "keil", "size": 4, "opponent": "human"}).json()["id"]
    assert a.post(f"/api/games/{gid}/moves", json={"move": "d4"}).status_code == 200
    assert a.post(f"/api/games/{gid}/moves", json={"move": "e4"}).status_code == 200  # both colours
    before = stored(db)
    for route in ("moves", "undo", "resign"):
        assert c.post(f"/api/games/{gid}/{route}", json={"move": "a1"} if route == "moves" else {}).status_code == 403
    assert stored(db) == before
    assert a.post(f"/api/games/{gid}/undo", json={}).status_code == 200


def test_accounts_sign_up_in_out_and_the_password(people, db):
    a, b, _ = people
    r = a.post("/api/account/signup", json={"name": "Ann", "password": "correct horse"})
    assert r.status_code == 201 and r.json() == {"kind": "account", "name": "Ann", "language": None}
    first = a.cookies[COOKIE]
    with sqlite3.connect(db) as con:
        (hashed,) = con.execute("SELECT password FROM users WHERE name = 'Ann'").fetchone()
        tokens = [t for (t,) in con.execute("SELECT token FROM sessions")]
    assert hashed.startswith("$argon2id$") and "correct horse" not in hashed
    assert first not in tokens  # only the token's digest is stored
    assert b.post("/api/account/signup", json={"name": "ann", "password": "something else"}).status_code == 409
    # Look-alike letters of another script make no second "anna": refused, nothing stored.
    users = stored_users(db)
    for lookalike in ("\u0430nn", "Ann\u0430", "p\u0430ypal"):  # a Cyrillic "а" among Latin letters
        r = b.post("/api/account/signup", json={"name": lookalike, "password": "something else"})
        assert r.status_code == 400 and "scripts" in r.json()["detail"], r.text
        r = b.post("/api/account/guest", json={"name": lookalike})
        assert r.status_code == 400 and "scripts" in r.json()["detail"], r.text
    assert stored_users(db) == users
    for name in ("\u0430\u043d\u043d\u0430", "김철수", "José"):  # one script each: welcome
        assert b.post("/api/account/signup", json={"name": name, "password": "something else"}).status_code == 201
        assert b.post("/api/account/signout", json={}).status_code == 200
    assert b.post("/api/account/signup", json={"name": "Bo", "password": "short"}).status_code == 400
    # A game started signed in is the account's, from any of its sessions.
    gid = friend_game(a)["id"]
    r = b.post("/api/account/signin", json={"name": "ANN", "password": "correct horse"})
    assert r.status_code == 200 and r.json()["name"] == "Ann"
    assert b.get(f"/api/games/{gid}").json()["you"] == ["black"]
    # The cookie changes at sign-in: the old one no longer works.
    old = b.cookies[COOKIE]
    assert b.post("/api/account/signin", json={"name": "Ann", "password": "correct horse"}).status_code == 200
    assert b.cookies[COOKIE] != old
    stale = TestClient(a.app, cookies={COOKIE: old})
    assert stale.get("/api/account").json()["kind"] is None
    # Changing the password ends the account's other sessions.
    r = a.post("/api/account/password", json={"old": "wrong password", "new": "battery staple"})
    assert r.status_code == 403
    assert a.post("/api/account/password", json={"old": "correct horse", "new": "battery staple"}).status_code == 200
    assert b.get("/api/account").json()["kind"] is None
    assert b.post("/api/account/signin", json={"name": "Ann", "password": "correct horse"}).status_code == 401
    assert b.post("/api/account/signin", json={"name": "Ann", "password": "battery staple"}).status_code == 200
    assert a.post("/api/account/signout", json={}).status_code == 200
    assert a.get("/api/account").json()["kind"] is None
    assert a.post(f"/api/games/{gid}/moves", json={"move": "e5"}).status_code == 401


def stopped_clock():
    """A clock that stands still: a test about waiting does not depend on how fast the
    machine answers."""
    return lambda: 1_800_000_000.0


def test_repeated_failed_sign_ins_are_slowed_down(db):
    app = create_app(db, clock=stopped_clock())
    with TestClient(app) as a, TestClient(app) as b:
        _repeated_failed_sign_ins_are_slowed_down(a, b)


def _repeated_failed_sign_ins_are_slowed_down(a, b):
    assert a.post("/api/account/signup", json={"name": "Ann", "password": "correct horse"}).status_code == 201
    for _ in range(FREE_FAILURES):
        assert b.post("/api/account/signin", json={"name": "Ann", "password": "guess"}).status_code == 401
    r = b.post("/api/account/signin", json={"name": "Ann", "password": "correct horse"})
    assert r.status_code == 429 and "try again in" in r.json()["detail"]
    assert "correct horse" not in r.text


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_failed_sign_ins_count_for_every_server_on_the_database(kind, tmp_path, request):
    """The counts live in the database: a second server on a PostgreSQL database (or the
    same SQLite file after a restart) slows the guesser down as the first did."""
    target = request.getfixturevalue("postgres_url") if kind == "postgresql" else str(tmp_path / "g.db")
    first = create_app(target, clock=stopped_clock())
    with TestClient(first) as a:
        assert a.post("/api/account/signup", json={"name": "Ann", "password": "correct horse"}).status_code == 201
        for _ in range(FREE_FAILURES):
            assert a.post("/api/account/signin", json={"name": "Ann", "password": "guess"}).status_code == 401
        if kind == "postgresql":  # two servers at once
            with TestClient(create_app(target, clock=stopped_clock())) as b:
                r = b.post("/api/account/signin", json={"name": "ann", "password": "correct horse"})
                assert r.status_code == 429 and "try again in" in r.json()["detail"]
    if kind == "sqlite":  # the one server of the file, started again
        with TestClient(create_app(target, clock=stopped_clock())) as b:
            r = b.post("/api/account/signin", json={"name": "ann", "password": "correct horse"})
            assert r.status_code == 429 and "try again in" in r.json()["detail"]


def test_a_session_ended_on_one_server_is_refused_by_every_other(postgres_url):
    """Each server keeps the sessions in use in memory; signing out, signing in again (a
    new cookie) and a password change on one server reach the others through the database."""
    with TestClient(create_app(postgres_url)) as one, TestClient(create_app(postgres_url)) as two:
        assert one.post("/api/account/signup", json={"name": "Ann", "password": "correct horse"}).status_code == 201
        other_browser = TestClient(one.app)
        assert other_browser.post("/api/account/signin",
                                  json={"name": "Ann", "password": "correct horse"}).status_code == 200
        on_two = [TestClient(two.app, cookies={COOKIE: c.cookies[COOKIE]}) for c in (one, other_browser)]
        for browser in on_two:  # known to the second server too
            assert browser.get("/api/account").json()["name"] == "Ann"

        def refused_on_two(browser) -> bool:
            deadline = time.monotonic() + 30  # the news travels by NOTIFY: not at once
            while browser.get("/api/account").json()["kind"] is not None:
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.05)
            return True

        # The first browser's password change ends the other browser's session everywhere.
        r = one.post("/api/account/password", json={"old": "correct horse", "new": "battery staple"})
        assert r.status_code == 200
        assert refused_on_two(on_two[1])
        # Its old cookie was replaced: the one the second server knew stops working there.
        assert refused_on_two(on_two[0])
        # Signing out on the first server ends the new cookie on the second.
        now_on_two = TestClient(two.app, cookies={COOKIE: one.cookies[COOKIE]})
        assert now_on_two.get("/api/account").json()["name"] == "Ann"
        assert one.post("/api/account/signout", json={}).status_code == 200
        assert refused_on_two(now_on_two)


def test_a_cross_site_request_is_refused_and_changes_nothing(people, db):
    a, _, _ = people
    gid = a.post("/api/games", json={"game": "keil", "size": 4, "opponent": "human"}).json()["id"]
    before = stored(db)
    for headers in ({"Origin": "https://attacker.example"}, {"Origin": "null"},
                    {"Sec-Fetch-Site": "cross-site"}):
        for route, body in [("moves", {"move": "d4"}), ("undo", {}), ("resign", {})]:
            r = a.post(f"/api/games/{gid}/{route}", json=body, headers=headers)
            assert r.status_code == 403 and "another site" in r.json()["detail"]
        r = a.post(f"/api/games/{gid}/resign", content=b"color=black", headers={
            **headers, "Content-Type": "application/x-www-form-urlencoded"})
        assert r.status_code == 403
    assert stored(db) == before
    same = a.post(f"/api/games/{gid}/moves", json={"move": "d4"}, headers={"Origin": "http://testserver"})
    assert same.status_code == 200


def test_a_game_link_opened_from_another_site_asks_before_it_creates(people, db):
    """``GET /new`` from another site, or as an image, frame or fetch, creates nothing: it
    answers a page whose one link (of this site) starts the game."""
    a, _, _ = people
    a.get("/")  # a session, so that the database exists
    before = stored(db)
    link = "/new?game=keil&size=5&opponent=friend&color=black"
    for headers in ({"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Dest": "document"},
                    {"Sec-Fetch-Site": "same-site", "Sec-Fetch-Dest": "document"},
                    {"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Dest": "image"},
                    {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Dest": "iframe"},
                    {"Sec-Fetch-Site": "same-site", "Sec-Fetch-Dest": "empty"}):
        r = a.get(link, headers=headers, follow_redirects=False)
        assert r.status_code == 200 and "Start a new game?" in r.text, headers
        assert 'href="/new?game=keil&amp;size=5&amp;opponent=friend&amp;color=black"' in r.text
    bad = a.get("/new?game=chess&x=<b>", headers={"Sec-Fetch-Site": "cross-site"})
    assert bad.status_code == 400 and "<b>" not in bad.text
    assert stored(db) == before
    # The page's own link, followed (same origin, a page of its own), creates the game.
    r = a.get(link, headers={"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Dest": "document"},
              follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/game/")
    assert len(stored(db)[0]) == len(before[0]) + 1


def test_security_headers_and_the_session_cookie(people):
    a, _, _ = people
    r = a.get("/new?game=keil&size=5&opponent=friend&color=black", follow_redirects=False)
    assert r.status_code == 303
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(COOKIE + "=") and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    for path in ("/", r.headers["location"], "/api/spec", "/static/game.js"):
        headers = a.get(path).headers
        csp = headers["content-security-policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
        assert "frame-ancestors 'none'" in csp
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"
        assert "strict-transport-security" not in headers  # plain HTTP here
    tls = TestClient(a.app, base_url="https://hex.example.org")  # a request that came over TLS
    assert tls.get("/").headers["strict-transport-security"].startswith("max-age=")


def test_behind_an_https_origin_every_answer_asks_for_https(tmp_path):
    app = create_app(str(tmp_path / "g.db"), origins=frozenset({"https://hex.example.org"}))
    with TestClient(app) as proxied:  # the proxy speaks plain HTTP to the app
        for path in ("/", "/api/spec", "/static/game.js", "/api/games/nosuch"):
            assert proxied.get(path).headers["strict-transport-security"] == "max-age=31536000"


def test_names_are_kept_as_text_and_never_markup(people):
    a, b, _ = people
    game = friend_game(a)
    name = '<img src=x onerror="alert(1)">'
    joined = join(b, game, name=name)
    assert joined["seats"]["white"]["name"] == name  # kept as typed; the pages show it as text
    for path in ("/static/online.js", "/static/invite.js"):
        script = a.get(path).text
        assert "innerHTML" not in script  # names reach the page through textContent only


def test_live_updates_reach_every_open_page(people, app):
    a, b, c = people
    gid = seated(a, b)["id"]
    with c.websocket_connect(f"/api/games/{gid}/live") as watcher, \
            b.websocket_connect(f"/api/games/{gid}/live") as player:
        first = watcher.receive_json()
        assert player.receive_json() == first == {"game": gid, "moves": 0}
        assert a.post(f"/api/games/{gid}/moves", json={"move": "e5"}).status_code == 200
        changed = watcher.receive_json()
        assert (changed["game"], changed["moves"]) == (gid, 1) and player.receive_json() == changed
        assert c.get(f"/api/games/{gid}").json()["moves"] == ["e5"]


def test_a_websocket_from_another_site_is_refused(people):
    from starlette.websockets import WebSocketDisconnect

    a, b, _ = people
    gid = seated(a, b)["id"]
    with pytest.raises(WebSocketDisconnect) as refused:
        with a.websocket_connect(f"/api/games/{gid}/live", headers={"Origin": "https://attacker.example"}) as ws:
            ws.receive_json()
    assert refused.value.code == 4403


def test_my_games_say_whose_turn_and_follow_the_moves(people):
    a, b, _ = people
    gid = seated(a, b)["id"]

    def row(client):
        return next(g for g in client.get("/api/games").json()["games"] if g["id"] == gid)

    assert (row(a)["your_turn"], row(b)["your_turn"]) == (True, False)
    with b.websocket_connect("/api/my-games/live") as ws:
        assert ws.receive_json() == {"games": 1}
        assert a.post(f"/api/games/{gid}/moves", json={"move": "e5"}).status_code == 200
        assert ws.receive_json()["game"] == gid  # B's list hears of A's move
    assert (row(a)["your_turn"], row(b)["your_turn"]) == (False, True)


def test_a_game_stored_before_seats_goes_to_the_first_who_acts(db):
    import json

    with TestClient(create_app(db)) as first:
        gid = first.post("/api/games", json={"game": "keil", "size": 4, "opponent": "human"}).json()["id"]
    with sqlite3.connect(db) as con:  # as a database of the last release stored it: no owner
        (text,) = con.execute("SELECT setup FROM games WHERE id = ?", (gid,)).fetchone()
        setup = json.loads(text)
        del setup["owner"]
        con.execute("UPDATE games SET setup = ? WHERE id = ?", (json.dumps(setup), gid))
    with TestClient(create_app(db)) as local:
        other = TestClient(local.app)
        for client, name in ((local, "Lou"), (other, "Oz")):
            assert client.post("/api/account/guest", json={"name": name}).status_code == 200
        assert local.post(f"/api/games/{gid}/moves", json={"move": "d4"}).status_code == 200
        assert other.post(f"/api/games/{gid}/moves", json={"move": "e4"}).status_code == 403
        assert [g["id"] for g in local.get("/api/games").json()["games"]] == [gid]


def test_a_guest_who_names_themselves_is_shown_by_that_name(people):
    a, b, _ = people
    game = friend_game(a)  # started from a link: a local player, no name yet
    assert game["me"] == {"kind": "local", "name": None}
    join(b, game)
    assert b.get(f"/api/games/{game['id']}").json()["seats"]["black"]["name"] is None
    assert a.post("/api/account/guest", json={"name": "Ann"}).status_code == 200
    assert b.get(f"/api/games/{game['id']}").json()["seats"]["black"] == {"name": "Ann", "you": False}
    assert a.get(f"/api/games/{game['id']}").json()["me"] == {"kind": "guest", "name": "Ann"}
    assert a.post("/api/account/guest", json={"name": "x" * 41}).status_code == 400


def test_each_copy_of_a_game_in_a_process_has_a_number_of_its_own():
    """A page compares versions only within one copy of a game (``server``): a copy read
    again after another process changed the game starts from version 0, so it must never
    share the old copy's name, even where it takes the old one's memory."""
    import hexstones
    from hexstones.web.game_setup import GameSetup
    from hexstones.web.live import Live
    from hexstones.web.store import StoredGame

    record = StoredGame("g", "keil", {"size": 3}, GameSetup(), [])
    seen = set()
    for _ in range(50):
        live = Live(record, hexstones.new_game("keil", size=3))
        assert live.copy not in seen
        seen.add(live.copy)
        del live  # its address is free for the next
