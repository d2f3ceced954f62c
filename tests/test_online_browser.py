"""Online play end to end: separate browser contexts are separate people, on real servers.

A invites, B joins from the link, they play a game to its end while C watches live and is
refused when C clicks; the server restarts mid-game and every page reconnects and goes on;
a page of another site, open in the victim's browser, tries to change the victim's game.
The servers come from the ``game_servers`` fixture (conftest.py): each person may use
another process of the same database.

Nothing waits for a time: every wait is for a condition on a page, with a generous bound.
"""

from __future__ import annotations

import http.server
import json
import re
import threading
import urllib.request
from pathlib import Path

import pytest

import hexstones
from serving import CHROMIUM, WAIT_MS, free_port

pytestmark = pytest.mark.slow

if not Path(CHROMIUM).exists():
    pytest.skip(f"no chromium at {CHROMIUM}", allow_module_level=True)

from playwright.sync_api import expect  # noqa: E402

from test_browser import GAME_JS, squeezing_move  # noqa: E402

expect.set_options(timeout=WAIT_MS)


def move_count(page) -> int:
    return page.locator("#movelist button").count() - 1


def same_moves(pages, n: int) -> None:
    for page in pages:
        try:
            expect(page.locator("#movelist button")).to_have_count(n + 1)
        except AssertionError as exc:
            shown = [p.evaluate("Promise.all([import('/static/game.js'), import('/static/online.js')])"
                                ".then(([game, online]) => { const state = game.currentState(); return "
                                "{moves: state.moves.length, revision: state.revision, server: state.server, "
                                "version: state.version, socket: online.liveSocketState(), "
                                "url: location.href}; })") for p in pages]
            raise AssertionError(f"{exc}\nthe pages show {shown}") from None  # which page lags, and why


def invite_and_join(servers, person, query: str):
    """A starts a game against a friend from the link ``query``; B joins from the invitation;
    C opens the game's address. (a, b, c, game id)."""
    a, b, c = person(), person(), person()
    a.goto(f"{servers.url(0)}/new?{query}")
    link = a.get_by_test_id("invite-link")
    expect(link).to_be_visible()
    href = link.get_attribute("href")
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/invite/[0-9a-f]+/[A-Za-z0-9_-]{32}", href)
    assert link.inner_text() == href
    gid = href.split("/")[4]
    b.goto(servers.url(1) + href.split(str(servers.servers[0].port), 1)[1])
    b.get_by_test_id("join-name").fill("Bea <b>")
    b.get_by_test_id("join").dblclick()  # a double click joins once, with no error
    b.wait_for_url(re.compile(r"/game/"))
    expect(link).to_be_hidden()  # A's page heard that the seat is taken, without a reload
    expect(a.locator("#seats")).to_contain_text("Bea <b>")  # shown as text, not markup
    c.goto(f"{servers.url(2)}/game/{gid}")
    expect(c.get_by_test_id("watching")).to_be_visible()
    c.evaluate("window.neverReloaded = true")
    return a, b, c, gid


def click_for(page, game: str, moves: list[str], stones_first: int) -> None:
    """One action of the side to move: a few stones first, then the game's special moves
    (the button, passes) that end it; in Droched the action that leaves the fewest replies."""
    if game == "droched":
        move = squeezing_move(game, moves, **state_options(page))
        page.click("#release" if move == "release" else f'[data-point="{move}"]')
        return
    if len(moves) >= stones_first:
        for button in ("#button", "#pass"):
            if page.locator(button).is_enabled():
                page.click(button)
                return
    page.locator("[data-point][data-legal]").first.click()


def state_options(page) -> dict:
    return page.evaluate(f"{GAME_JS}.then((game) => game.currentState().options)")


def api_state(servers, gid: str) -> dict:
    with urllib.request.urlopen(f"{servers.url(0)}/api/games/{gid}") as res:
        return json.load(res)


def play_to_the_end(servers, pages, gid: str, game: str, stones_first: int = 4) -> dict:
    a, b, c = pages
    for n in range(400):
        s = api_state(servers, gid)
        if s["over"]:
            break
        mover = a if a.evaluate(f"{GAME_JS}.then((game) => game.currentState().you)").count(s["to_move"]) else b
        waiter = b if mover is a else a
        if n == 1:  # the player not on turn, and the spectator, are refused and nothing changes
            waiter.locator("[data-point]").first.click()
            expect(waiter.get_by_test_id("message")).to_contain_text(f"only the player of {s['to_move']}")
            c.locator("[data-point]").first.click()
            expect(c.get_by_test_id("message")).to_contain_text("watching")
            assert api_state(servers, gid)["moves"] == s["moves"]
        expect(mover.get_by_test_id("status")).to_contain_text("(you)")
        click_for(mover, game, s["moves"], stones_first)
        same_moves(pages, len(s["moves"]) + 1)  # every open page shows it, none reloaded
    else:
        pytest.fail("the game did not end")
    engine = hexstones.new_game(game, **s["options"])
    for m in s["moves"]:
        engine.play(m)
    assert engine.is_over
    winner = engine.result()["winner"].capitalize()
    for page in pages:
        expect(page.get_by_test_id("winner")).to_have_text(f"{winner} wins")
    assert c.evaluate("window.neverReloaded") is True
    return s


# Each game once, one of them across two processes on PostgreSQL: the rules do not depend
# on the database, and the other tests here play on both.
@pytest.mark.parametrize("game, game_servers", [("keil", "postgresql"), ("dehil", "sqlite"), ("droched", "sqlite")],
                         indirect=["game_servers"])
def test_a_friend_game_to_its_end_watched_live(game_servers, person, game):
    size = 5 if game == "keil" else 3
    a, b, c, gid = invite_and_join(game_servers, person, f"game={game}&size={size}&opponent=friend&color=black")
    expect(a.get_by_test_id("status")).to_have_text("Black to move (you)")
    expect(b.get_by_test_id("status")).to_have_text("Black to move (a guest)")
    play_to_the_end(game_servers, (a, b, c), gid, game)


def test_a_late_answer_from_another_copy_of_the_game_is_not_drawn_over_a_newer_state(postgresql_servers, person):
    """The answer to A's move comes late: meanwhile B, on the other server process, replies
    and A's page draws the state after both moves, which A's server read into a new copy of
    the game. The late answer, from the old copy, is older and is not drawn over it (it was:
    the page stayed a move behind with no update to come, seen in CI)."""
    servers = postgresql_servers
    a, b, c, gid = invite_and_join(servers, person, "game=keil&size=5&opponent=friend&color=black")
    expect(a.get_by_test_id("status")).to_have_text("Black to move (you)")
    late = []

    def answer_late(route):
        response = route.fetch()
        same_moves((a, b, c), 1)  # the live update drew A's move on every page
        b.locator("[data-point][data-legal]").first.click()
        same_moves((a, b, c), 2)  # and B's reply, on A's page from a new copy of the game
        late.append((response.json(), a.evaluate(f"{GAME_JS}.then((game) => game.currentState().server)")))
        route.fulfill(response=response)

    # wait_for_function takes no promise: the page's game module, kept where a predicate reads it.
    a.evaluate(f"{GAME_JS}.then((game) => {{ window.gameModule = game; }})")
    a.route("**/moves", answer_late, times=1)
    a.locator("[data-point][data-legal]").first.click()
    a.wait_for_function("() => !window.gameModule.isSending()")  # the late answer has been handled
    answer, newer_copy = late[0]
    assert answer["move_count"] == 1 and answer["server"] != newer_copy  # the case meant
    assert move_count(a) == 2
    expect(a.get_by_test_id("status")).to_contain_text("Black to move (you)")
    assert api_state(servers, gid)["moves"] == a.evaluate(f"{GAME_JS}.then((game) => game.currentState().moves)")


def test_a_komi_pie_game_between_two_seats(sqlite_servers, person):
    game_servers = sqlite_servers  # the pie's steps are moves like any other across processes
    a, b, c, gid = invite_and_join(game_servers, person, "game=keil&size=5&opponent=friend&pie=you")
    expect(b.locator("#pie-panel")).to_contain_text("your opponent proposes")
    a.get_by_test_id("pie-komi").fill("3")
    a.get_by_test_id("pie-propose").click()
    b.get_by_test_id("pie-white").click()  # B heard the proposal live
    expect(a.get_by_test_id("status")).to_have_text("Black to move (you)")
    expect(b.locator("#seats")).to_contain_text("White: Bea <b> (you)")
    expect(c.get_by_test_id("status")).to_contain_text("Black to move")
    s = play_to_the_end(game_servers, (a, b, c), gid, "keil", stones_first=2)
    assert s["options"]["komi"] == 3


def test_a_takeback_asked_and_accepted_in_the_pages(game_servers, person):
    a, b, c, gid = invite_and_join(game_servers, person, "game=keil&size=5&opponent=friend&color=black")
    expect(b.locator('[data-point="e5"]')).to_have_count(1)  # B's board is drawn
    b.evaluate("document.querySelector('[data-point=\"e5\"]').dataset.seen = 'yes'")
    a.get_by_test_id("my-name").fill("Ann")  # A started from a link: a name for B to see
    a.get_by_test_id("my-name").press("Enter")
    expect(b.locator("#seats")).to_contain_text("Black: Ann")
    # A new state with the same board keeps B's drawing: nothing is swapped under a finger.
    expect(b.locator('[data-point="e5"][data-seen]')).to_have_count(1)
    expect(a.get_by_test_id("my-name")).to_be_hidden()
    for page, point in [(a, "e5"), (b, "d4")]:
        page.locator(f'[data-point="{point}"]').click()
        same_moves((a, b, c), 1 if point == "e5" else 2)
        expect(b.locator("[data-seen]")).to_have_count(0)  # a move: a new drawing
    b.click("#undo")  # between two people: a request
    b_wait = b.get_by_test_id("takeback")
    expect(b_wait).to_contain_text("waiting for the answer")
    a.get_by_test_id("takeback-accept").click()
    same_moves((a, b, c), 1)
    expect(b.get_by_test_id("status")).to_have_text("White to move (you)")
    # A double click plays one move and says nothing wrong.
    b.locator('[data-point="c3"]').dblclick()
    same_moves((a, b, c), 2)
    expect(b.get_by_test_id("message")).to_have_text("")
    # B leaves the game, A plays meanwhile; Back shows the game as it is now.
    b.goto(game_servers.url(1) + "/account")
    a.locator('[data-point="b2"]').click()
    same_moves((a, c), 3)
    b.go_back()
    same_moves((b,), 3)
    expect(b.get_by_test_id("status")).to_have_text("White to move (you)")


def test_the_server_restarts_mid_game_and_every_page_goes_on(game_servers, person):
    a, b, c, gid = invite_and_join(game_servers, person, "game=keil&size=5&opponent=friend&color=black")
    a.locator('[data-point="e5"]').click()
    same_moves((a, b, c), 1)
    game_servers.restart()
    # The server is back: B plays, and every page shows it (each page reconnected by itself).
    b.locator('[data-point="d4"]').click()
    same_moves((a, b, c), 2)
    for page in (a, b, c):
        expect(page.get_by_test_id("connection")).to_be_hidden()
    a.locator('[data-point="c3"]').click()
    same_moves((a, b, c), 3)
    assert api_state(game_servers, gid)["moves"] == ["e5", "d4", "c3"]
    assert c.evaluate("window.neverReloaded") is True


ATTACK = """<!doctype html><html><body><h1>Free prizes</h1><a id="play" href="NEWGAME">Play me</a>
<iframe src="NEWGAME" style="display:none"></iframe>
<iframe name="sink" style="display:none"></iframe>
<form id="f" method="POST" action="TARGET/resign" target="sink" enctype="text/plain">
<input name='{"color": "black", "x": "' value='"}'></form>
<script>
const target = "TARGET";
const tries = [
  fetch(target + "/undo", {method: "POST", mode: "no-cors", credentials: "include", body: "{}"}),
  fetch(target + "/moves", {method: "POST", mode: "no-cors", credentials: "include",
                            headers: {"Content-Type": "text/plain"}, body: '{"move": "a1"}'}),
  fetch(target + "/resign", {method: "POST", credentials: "include",
                             headers: {"Content-Type": "application/json"}, body: "{}"}).catch(() => null),
  new Promise((done) => { const ws = new WebSocket(target.replace("http", "ws") + "/live");
                          ws.onclose = ws.onerror = () => done(); }),
  new Promise((done) => { const img = new Image(); img.onload = img.onerror = () => done();
                          img.src = "NEWGAME"; }),
  fetch("NEWGAME", {mode: "no-cors", credentials: "include"}).catch(() => null),
];
document.getElementById("f").submit();
Promise.allSettled(tries).then(() => { document.title = "sent"; });
</script></body></html>"""


def test_a_page_of_another_site_cannot_change_the_victims_game(sqlite_servers, person, tmp_path):
    game_servers = sqlite_servers  # the refusal is the request guard's, before any database
    victim = person()
    victim.goto(f"{game_servers.url(0)}/new?game=keil&size=4&opponent=human")
    victim.locator('[data-point="d4"]').click()
    expect(victim.locator("#movelist button")).to_have_count(2)
    gid = victim.url.rsplit("/", 1)[1]
    before = api_state(game_servers, gid)

    def victims_games() -> list[str]:
        answer = victim.context.request.get(f"{game_servers.url(0)}/api/games")
        return [row["id"] for row in answer.json()["games"]]

    # The attacker's page: another origin on the same machine (same site as far as cookies
    # go, so SameSite alone would not stop it: the Origin check must).
    folder = tmp_path / "attacker"
    folder.mkdir()
    new_game = f"{game_servers.url(0)}/new?game=dehil&size=3&opponent=friend"
    (folder / "index.html").write_text(ATTACK.replace("TARGET", f"{game_servers.url(0)}/api/games/{gid}")
                                       .replace("NEWGAME", new_game))
    port = free_port()
    handler = lambda *args: http.server.SimpleHTTPRequestHandler(*args, directory=str(folder))  # noqa: E731
    attacker = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=attacker.serve_forever, daemon=True).start()
    try:
        tab = victim.context.new_page()
        tab.goto(f"http://127.0.0.1:{port}/index.html")
        expect(tab).to_have_title("sent")
        tab.wait_for_load_state("networkidle")
        assert victims_games() == [gid]  # its image, frame and fetch of a game link made none
        tab.click("#play")  # a link of another site to a new game: the app asks first
        expect(tab.get_by_test_id("start")).to_be_visible()
        assert victims_games() == [gid]
        tab.get_by_test_id("start").click()
        tab.wait_for_url(re.compile(r"/game/"))
        assert len(victims_games()) == 2
    finally:
        attacker.shutdown()
    after = api_state(game_servers, gid)
    assert (after["moves"], after["over"], after["result"]) == (before["moves"], False, None)
    victim.reload()
    expect(victim.get_by_test_id("status")).to_have_text("White to move")


NOTES = """window.__notes = [];
const Shown = window.Notification;
window.Notification = class extends Shown {
  constructor(title, options) { super(title, options); window.__notes.push(title + ": " + options.body); }
};"""


def test_accounts_my_games_a_badge_and_a_notification_on_my_turn(game_servers, person):
    a, b = person(), person()
    a.context.grant_permissions(["notifications"], origin=game_servers.url(0))
    a.context.add_init_script(NOTES)  # records each notification the page shows
    a.goto(game_servers.url(0) + "/account")
    a.get_by_test_id("signup-name").fill("Ann")
    a.get_by_test_id("signup-password").fill("correct horse")
    a.get_by_test_id("signup").click()
    expect(a.get_by_test_id("who")).to_have_text("Signed in as Ann.")
    # A new game against a friend from the start page's form.
    a.goto(game_servers.url(0) + "/")
    expect(a.get_by_test_id("account-link")).to_have_text("Ann")
    a.get_by_test_id("opponent-friend").check()
    a.locator("input[name=game][value=keil]").check()
    a.locator("#size").select_option("5")
    a.click("#start")
    link = a.get_by_test_id("invite-link")
    expect(link).to_be_visible()
    gid = a.url.rsplit("/", 1)[1]
    b.goto(game_servers.url(1) + "/invite/" + link.get_attribute("href").split("/invite/", 1)[1])
    expect(b.get_by_test_id("invite-text")).to_have_text("Ann invites you to a game of Keil. You play white.")
    b.get_by_test_id("join-name").fill("Bea")
    b.get_by_test_id("join").click()
    b.wait_for_url(re.compile(r"/game/"))
    expect(a.locator("#seats")).to_contain_text("White: Bea")
    a.locator('[data-point="e5"]').click()
    expect(b.locator("#movelist button")).to_have_count(2)
    # A looks at My games: B's turn, no badge; B plays; the list, the badge and a notification say so.
    a.goto(game_servers.url(0) + "/")
    row = a.locator(f'tr[data-game-id="{gid}"]')
    expect(row).to_contain_text("you vs Bea")
    expect(a.get_by_test_id("turn-badge")).to_be_hidden()
    b.locator('[data-point="d4"]').click()
    expect(a.get_by_test_id("turn-badge")).to_have_text("1")
    expect(row).to_contain_text("your turn")
    assert a.evaluate("window.__notes") == ["hexstones: your turn: Keil: Black to move"]
    # B's list shows the game too; nobody else's list does.
    b.goto(game_servers.url(1) + "/")
    expect(b.locator("tr[data-game-id]")).to_have_count(1)
    c = person()
    c.goto(game_servers.url(2) + "/")
    expect(c.locator("#games")).to_contain_text("No games yet.")
    # A game that begins after A's list connected: B invites A (in other tabs); A's list,
    # still open, shows it, and hears its moves.
    b2 = b.context.new_page()
    b2.goto(f"{game_servers.url(1)}/new?game=dehil&size=3&opponent=friend&color=white")
    invite_link = b2.get_by_test_id("invite-link")
    expect(invite_link).to_have_attribute("href", re.compile(r"/invite/"))  # filled in by the page
    invite = invite_link.get_attribute("href")
    a2 = a.context.new_page()
    a2.goto(game_servers.url(2) + "/invite/" + invite.split("/invite/", 1)[1])
    a2.get_by_test_id("join").click()
    a2.wait_for_url(re.compile(r"/game/"))
    second = a2.url.rsplit("/", 1)[1]
    row2 = a.locator(f'tr[data-game-id="{second}"]')
    expect(row2).to_contain_text("your turn")
    expect(a.get_by_test_id("turn-badge")).to_have_text("2")
    a2.locator("[data-point][data-legal]").first.click()
    expect(a.get_by_test_id("turn-badge")).to_have_text("1")
    expect(b2.get_by_test_id("status")).to_contain_text("(you)")
    b2.locator("[data-point][data-legal]").first.click()
    expect(a.get_by_test_id("turn-badge")).to_have_text("2")
    assert a.evaluate("window.__notes")[-1] == "hexstones: your turn: Dehil: Black to move"


def test_someone_elses_public_game_is_to_watch_not_among_my_games(sqlite_servers, person):
    a, b = person(), person()
    a.goto(f"{sqlite_servers.url(0)}/new?game=keil&size=5&opponent=friend&public=yes")
    expect(a.get_by_test_id("invite-link")).to_be_visible()
    gid = a.url.rsplit("/", 1)[1]
    b.goto(f"{sqlite_servers.url(0)}/")
    expect(b.locator("#games")).to_have_text("No games yet.")
    row = b.locator(f"[data-testid=watch] tr[data-game-id='{gid}']")
    expect(row).to_be_visible()
    expect(row.get_by_role("link", name="Watch")).to_have_attribute("href", f"/game/{gid}")
    assert row.locator("button").count() == 0  # nothing to name or delete
    expect(b.locator("#remove-empty")).to_have_count(0)
    expect(b.get_by_test_id("notify")).to_be_hidden()
    # The game's player still finds it among their own games, with its actions.
    a.goto(f"{sqlite_servers.url(0)}/")
    mine = a.locator(f"#games tr[data-game-id='{gid}']")
    expect(mine.get_by_role("link", name="Resume")).to_be_visible()
    expect(a.get_by_test_id("watch-card")).to_be_hidden()


def test_the_analysis_opens_on_every_page_when_the_game_ends_by_resignation(sqlite_servers, person):
    """While two people play, the analysis says it opens when the game is over; after a
    resignation no page keeps saying so (no reload), and the players may start it."""
    a, b, c, gid = invite_and_join(sqlite_servers, person, "game=keil&size=4&opponent=friend&color=black")
    closed = "opens when the game is over"
    for page in (a, b, c):
        expect(page.get_by_test_id("analysis-progress")).to_contain_text(closed)
    a.click('[data-point="d4"]')
    same_moves((a, b, c), 1)
    a.click("#resign")
    a.click("#resign")
    for page in (a, b, c):
        expect(page.get_by_test_id("winner")).to_have_text("White wins")
        expect(page.get_by_test_id("analysis-progress")).not_to_contain_text(closed)
        expect(page.get_by_test_id("analyze")).to_be_visible()
    assert c.evaluate("window.neverReloaded") is True
