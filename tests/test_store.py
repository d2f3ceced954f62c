"""The games store on both databases: real SQLite files and a real PostgreSQL server.

Each behaviour is checked on SQLite (a file in a temporary folder) and on PostgreSQL (a
throwaway cluster, tests/pg.py): the round trip of a game, a write that does not follow
what another program or server stored (refused, nothing lost), the announcements of the
broker (sent when a write commits, never for a refused one), the migrations (a new
database, an old one, down and up again), files made before the port to SQLAlchemy and
Alembic (upgraded in place, every game kept), and several server processes on one
PostgreSQL database (a change made through one is seen and announced in the other).
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from hypothesis import given, strategies as st

from hexstones.session import KomiPie, TakebackAsk
from hexstones.web.broker import game_topic
from hexstones.web.game_setup import DamagedSetup, GameSetup, Holder
from hexstones.web.store import Store, StoreConflict, alembic_config, head_revision

WAIT = 120  # seconds: a bound for conditions that come much sooner


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request, tmp_path) -> str:
    """A new games database: a SQLite file's path or a PostgreSQL URL."""
    if request.param == "sqlite":
        return str(tmp_path / "games.db")
    return request.getfixturevalue("postgres_url")


def behind_the_back(target: str):
    """An engine on the same database that is not the store (another program)."""
    if target.startswith("postgresql"):
        return sa.create_engine(target.replace("postgresql://", "postgresql+psycopg://"))
    return sa.create_engine(f"sqlite:///{target}")


def play_behind_the_back(other, game_id: str, ply: int, move: str) -> None:
    with other.begin() as connection:
        connection.execute(sa.text("INSERT INTO moves (game_id, ply, move) VALUES (:g, :p, :m)"),
                           {"g": game_id, "p": ply, "m": move})


@pytest.fixture
def stores(target):
    """The store on ``target``, and another program's engine on the same database."""
    store = Store(target)
    other = behind_the_back(target)
    yield store, other
    other.dispose()
    store.close()


def test_a_game_round_trip(target):
    store = Store(target)
    try:
        game = store.create("keil", {"size": 5}, GameSetup(), ["a1"], "White to move")
        store.add_move(game.id, 1, "b2", "Black to move", False)
        store.add_move(game.id, 2, "pass", "White to move", False)
        store.truncate(game.id, 3, 2, "Black to move", False)
        store.update(game.id, 2, setup=GameSetup(name="Ünïcode"), resigned="black",
                     finished=True, summary="White wins")
        record = store.get(game.id)
        assert record.moves == ["a1", "b2"] and record.resigned == "black" and record.finished is True
        assert record.setup.name == "Ünïcode" and record.options == {"size": 5}
        assert record.revision == 4  # two moves, an undo, an update
        other = store.create("dehil", {"size": 7, "komi": 2}, GameSetup(opponent="ai", level=3))
        listed = store.list()
        assert [row["id"] for row in listed] == [other.id, game.id]  # latest first
        assert listed[1]["move_count"] == 2 and listed[1]["summary"] == "White wins"
        store.delete(game.id)
        assert store.get(game.id) is None and [row["id"] for row in store.list()] == [other.id]
        assert store.get("nonexistent") is None
    finally:
        store.close()
    again = Store(target)  # all of it is in the database
    try:
        assert [row["id"] for row in again.list()] == [other.id]
        assert again.get(other.id).options == {"size": 7, "komi": 2}
    finally:
        again.close()


def test_a_write_that_does_not_follow_the_stored_moves_is_refused_and_loses_nothing(stores):
    store, other = stores
    game = store.create("keil", {"size": 5}, GameSetup(), ["a1"])
    play_behind_the_back(other, game.id, 1, "c3")  # another program plays move 2 first
    with pytest.raises(StoreConflict, match="has 2 stored moves, not the 1"):
        store.add_move(game.id, 1, "b2", "", False)
    with pytest.raises(StoreConflict, match="has 2 stored moves, not the 3"):
        store.truncate(game.id, 3, 1, "", False)
    again = store.get(game.id)
    assert again.moves == ["a1", "c3"]
    assert store.stale(game.id, again.revision) is False  # read again just now
    store.add_move(game.id, 2, "e5", "", False)  # following the stored moves: fine
    assert store.get(game.id).moves == ["a1", "c3", "e5"]
    store.delete(game.id)
    with pytest.raises(StoreConflict, match="no longer in"):
        store.add_move(game.id, 3, "b2", "", False)


def test_stale_says_when_a_game_must_be_read_again(stores):
    store, other = stores
    game = store.create("keil", {"size": 5}, GameSetup())
    revision = store.add_move(game.id, 0, "a1", "", False)
    assert revision == game.revision + 1  # each write says the game's new revision
    assert store.stale(game.id, revision) is False  # its own writes do not make it stale
    assert store.stale(game.id, game.revision) is True  # but a copy from before them is
    with other.begin() as connection:
        connection.execute(sa.text("UPDATE games SET revision = revision + 1 WHERE id = :g"),
                           {"g": game.id})
    # PostgreSQL is shared, so the store asks it; a SQLite file has one server.
    assert store.stale(game.id, revision) is store.shared
    read = store.get(game.id)
    assert store.stale(game.id, read.revision) is False
    assert store.stale(game.id, revision) is True  # a copy read before that still is
    with pytest.raises(StoreConflict):  # a write that fails its check: stale on both
        store.add_move(game.id, 0, "b2", "", False)
    assert store.stale(game.id, read.revision) is True
    assert store.stale(game.id, store.get(game.id).revision) is False


def test_writes_are_announced_when_they_commit_and_refused_ones_never(stores):
    store, other = stores

    async def main() -> list[dict]:
        seen: list[dict] = []
        async with store.broker.subscribe("*") as everything:
            game = await asyncio.to_thread(store.create, "keil", {"size": 5}, GameSetup())
            seen.append(await asyncio.wait_for(everything.get(), WAIT))
            async with store.broker.subscribe(game_topic(game.id)) as events:
                await asyncio.to_thread(store.add_move, game.id, 0, "a1", "", False)
                seen.append(await asyncio.wait_for(events.get(), WAIT))
                play_behind_the_back(other, game.id, 1, "c3")
                with pytest.raises(StoreConflict):
                    await asyncio.to_thread(store.add_move, game.id, 1, "b2", "", False)
                await asyncio.to_thread(store.truncate, game.id, 2, 0, "", False)
                seen.append(await asyncio.wait_for(events.get(), WAIT))  # the undo: nothing between
            seen.append(await asyncio.wait_for(everything.get(), WAIT))
            assert store.broker.subscribers(game_topic(game.id)) == 0
        return seen

    created, move, undo, first = asyncio.run(main())
    gid = move["game"]
    assert created == {"topic": game_topic(gid), "game": gid, "change": "create", "revision": 0, "moves": 0}
    assert move == {"game": gid, "change": "move", "revision": 1, "moves": 1}
    assert undo == {"game": gid, "change": "undo", "revision": 2, "moves": 0}
    assert first == {"topic": game_topic(gid), **move}  # "*" says the topic


def test_an_event_must_be_small_json(target):
    store = Store(target)
    try:
        with pytest.raises(ValueError, match="small hint"):
            store.broker.publish("game:x", {"state": "x" * 9000})
        with pytest.raises(ValueError, match="topic"):
            store.broker.publish("*", {})
    finally:
        store.close()


def test_a_second_store_on_one_database(target):
    first = Store(target)
    try:
        if not first.shared:
            with pytest.raises(ValueError, match="in use by another hexstones server"):
                Store(target)
            return
        second = Store(target)  # PostgreSQL: several servers share a database
        try:
            game = first.create("keil", {"size": 5}, GameSetup())
            assert second.get(game.id).moves == []
            first.add_move(game.id, 0, "a1", "", False)
            assert second.stale(game.id, game.revision) is True
            with pytest.raises(StoreConflict, match="another program or server"):
                second.add_move(game.id, 0, "b2", "", False)
            assert second.get(game.id).moves == ["a1"]
        finally:
            second.close()
    finally:
        first.close()


def test_a_commit_does_not_wait_for_the_disk_unless_the_url_says_so(target):
    """SQLite: WAL with synchronous=NORMAL; PostgreSQL: synchronous_commit off for the app's
    connections, unless the URL gives the connection's options itself."""
    def setting(store: Store) -> str:
        with store.transaction() as tx:
            sql = "SHOW synchronous_commit" if store.shared else "PRAGMA synchronous"
            return str(tx.connection.exec_driver_sql(sql).scalar())

    store = Store(target)
    try:
        assert setting(store) == ("off" if store.shared else "1")  # 1: NORMAL
    finally:
        store.close()
    if target.startswith("postgresql"):
        store = Store(target + "?options=-csynchronous_commit%3Don")
        try:
            assert setting(store) == "on"
        finally:
            store.close()


def test_a_game_changed_by_another_process_is_read_again_as_stored(postgres_url):
    """A server process that holds a game another one changed serves what is stored: moves
    added there are played on a copy of its game (the copy it held stays as it was), and
    after an undo there the game is replayed from the record."""
    from hexstones.web import view
    from hexstones.web.live import Tables, replay

    show = view.ViewRequest(None, ())
    first, second = Tables(Store(postgres_url), ai_processes=1), Tables(Store(postgres_url), ai_processes=1)
    try:
        game_id = first.create({"game": "keil", "size": 5, "opponent": "friend"})["id"]
        held, played = second.get(game_id), []
        for move in ("c3", "b2", "d4"):
            first.play(first.get(game_id), move, None, show)
            seen = second.get(game_id)
            assert seen is not held and held.game.moves == played  # the copy it held is unchanged
            played.append(move)
            stored = replay(second.store.get(game_id))
            assert (seen.game.moves, seen.game.stones(), seen.game.to_move, seen.game.legal_moves()) == \
                (stored.moves, stored.stones(), stored.to_move, stored.legal_moves()) and stored.moves == played
            held = seen
        first.undo(first.get(game_id), show)
        seen = second.get(game_id)
        assert seen.game.moves == ["c3", "b2"] and held.game.moves == ["c3", "b2", "d4"]
        assert seen.game.stones() == replay(second.store.get(game_id)).stones()
    finally:
        for tables in (first, second):
            tables.close()
            tables.store.close()


def test_a_held_copy_is_read_again_even_after_another_request_read_the_game(postgres_url):
    """Two requests of one server process at once, after another process's move: the first
    reads the game anew; the second, still finding the older copy held, reads it again too,
    rather than take that copy for current because the store has just read the newer
    revision (seen in CI: a spectator's page stayed a move behind, with no update to come).
    A copy that the process itself changed stays held."""
    from hexstones.web import view
    from hexstones.web.live import Tables

    show = view.ViewRequest(None, ())
    first, second = Tables(Store(postgres_url), ai_processes=1), Tables(Store(postgres_url), ai_processes=1)
    try:
        game_id = first.create({"game": "keil", "size": 5, "opponent": "friend"})["id"]
        assert second.get(game_id).game.moves == []
        mover = first.get(game_id)
        first.play(mover, "c3", None, show)
        assert first.get(game_id) is mover  # its own write: the copy it holds is current
        assert second.store.get(game_id).moves == ["c3"]  # the first request's reading
        assert second.get(game_id).game.moves == ["c3"]  # the second's
    finally:
        for tables in (first, second):
            tables.close()
            tables.store.close()


def alembic_version(target: str) -> list[str]:
    engine = behind_the_back(target)
    try:
        with engine.connect() as connection:
            return [row[0] for row in connection.execute(sa.text("SELECT version_num FROM alembic_version"))]
    finally:
        engine.dispose()


def test_migrations_bring_a_new_database_to_the_newest_revision_and_back(target):
    from alembic import command

    Store(target).close()
    assert alembic_version(target) == [head_revision()]
    store = Store(target)  # opening it again changes nothing
    game = store.create("droched", {"size": 7}, GameSetup(), ["a1"])
    store.close()
    assert alembic_version(target) == [head_revision()]
    engine = behind_the_back(target)
    try:
        with engine.begin() as connection:  # every revision's downgrade, then every upgrade
            command.downgrade(alembic_config(connection), "base")
        with engine.connect() as connection:
            assert "games" not in sa.inspect(connection).get_table_names()
    finally:
        engine.dispose()
    store = Store(target)
    try:
        assert store.get(game.id) is None and store.list() == []
        assert alembic_version(target) == [head_revision()]
    finally:
        store.close()


def test_a_database_of_a_newer_hexstones_is_refused_in_one_line_and_left_as_it_is(target):
    Store(target).close()
    engine = behind_the_back(target)
    try:
        with engine.begin() as connection:
            connection.execute(sa.text("UPDATE alembic_version SET version_num = '9999'"))
    finally:
        engine.dispose()
    with pytest.raises(ValueError) as refused:
        Store(target)
    assert "has the schema revision 9999, made by a newer hexstones" in str(refused.value)
    assert "\n" not in str(refused.value)
    assert alembic_version(target) == ["9999"]


# The schema of the games file before SQLAlchemy and Alembic (hexstones.web.store as it was),
# and what that code wrote: rows of JSON text, times as seconds, PRAGMA user_version.
SCHEMA_BEFORE = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    options TEXT NOT NULL,      -- JSON: new_game options (size, komi / prison)
    setup TEXT NOT NULL,        -- JSON: players, AI level, komi-pie stage
    resigned TEXT,              -- the colour that resigned, if any
    summary TEXT NOT NULL DEFAULT '',  -- one line for the list of games (turn or result)
    created REAL NOT NULL,
    updated REAL NOT NULL,
    finished INTEGER            -- 1 over, 0 not; NULL: not known yet (a game stored before v2)
);
CREATE TABLE IF NOT EXISTS moves (
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply INTEGER NOT NULL,       -- 0 for the first move
    move TEXT NOT NULL,
    PRIMARY KEY (game_id, ply)
);
"""
GAMES_BEFORE = [  # id, game, options, setup, resigned, summary, created, updated, finished, moves
    ("0a1b2c3d4e", "keil", {"size": 5}, {"opponent": "human", "name": "first"}, None,
     "White to move", 1700000000.5, 1700000100.25, 0, ["a1", "c3", "e5"]),
    ("1f2e3d4c5b", "dehil", {"size": 7, "komi": 3}, {"opponent": "ai", "level": 4, "ai_color": "white"},
     "white", "Black wins: White resigned", 1700000200.0, 1700000300.0, 1, ["d4"]),
    ("2c3d4e5f60", "droched", {"size": 7, "prison": 1}, {"opponent": "human"}, None,
     "Black to move", 1700000400.0, 1700000400.0, 0, []),
]


def make_file_before(path: Path, schema: int) -> None:
    with sqlite3.connect(path) as con:
        con.executescript(SCHEMA_BEFORE)
        if schema == 1:
            con.execute("ALTER TABLE games DROP COLUMN finished")
        for gid, game, options, setup, resigned, summary, created, updated, finished, played in GAMES_BEFORE:
            con.execute("INSERT INTO games (id, game, options, setup, resigned, summary, created, updated"
                        + (", finished) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)" if schema == 2 else
                           ") VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
                        (gid, game, json.dumps(options), json.dumps(setup), resigned, summary, created,
                         updated, *([finished] if schema == 2 else [])))
            con.executemany("INSERT INTO moves (game_id, ply, move) VALUES (?, ?, ?)",
                            [(gid, ply, move) for ply, move in enumerate(played)])
        con.execute(f"PRAGMA user_version = {schema}")
    con.close()


@pytest.mark.parametrize("schema", [1, 2])
def test_a_file_made_before_the_migrations_is_upgraded_in_place_keeping_every_game(tmp_path, schema):
    db = tmp_path / "games.db"
    make_file_before(db, schema)
    for _ in range(2):  # upgraded once, then opened as it is
        store = Store(str(db))
        try:
            listed = {row["id"]: row for row in store.list()}
            assert sorted(listed) == sorted(g[0] for g in GAMES_BEFORE)
            for gid, game, options, setup, resigned, summary, created, updated, finished, played in GAMES_BEFORE:
                record = store.get(gid)
                assert (record.game, record.options, record.resigned, record.summary,
                        record.created, record.updated, record.moves) == \
                       (game, options, resigned, summary, created, updated, played)
                stored = record.setup.to_dict()  # every field kept, known or not
                assert {key: stored[key] for key in setup} == setup
                assert record.finished == (bool(finished) if schema == 2 else None)
                assert listed[gid]["move_count"] == len(played)
        finally:
            store.close()
        assert alembic_version(str(db)) == [head_revision()]
    store = Store(str(db))  # and it takes moves as before
    try:
        store.add_move("0a1b2c3d4e", 3, "b2", "Black to move", False)
        assert store.get("0a1b2c3d4e").moves == ["a1", "c3", "e5", "b2"]
    finally:
        store.close()


def test_a_database_that_cannot_be_reached_is_refused_in_one_line_without_its_password(postgres_cluster):
    from serving import free_port

    url = f"postgresql://postgres:secret-word@127.0.0.1:{free_port()}/nowhere"
    with pytest.raises(ValueError) as refused:
        Store(url)
    message = str(refused.value)
    assert "cannot open the games database" in message and "nowhere" in message
    assert "secret-word" not in message and "\n" not in message


def test_connections_the_database_dropped_are_replaced_and_subscribers_told_to_read_again(postgres_url):
    from sqlalchemy import exc as sa_exc

    store = Store(postgres_url)
    other = behind_the_back(postgres_url)

    async def main() -> list[dict]:
        async with store.broker.subscribe("*") as events:
            game = await asyncio.to_thread(store.create, "keil", {"size": 5}, GameSetup())
            assert (await asyncio.wait_for(events.get(), WAIT))["change"] == "create"
            with other.begin() as connection:  # as a restart of the database server would
                connection.execute(sa.text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                           "WHERE datname = current_database() AND pid <> pg_backend_pid()"))
            resync = await asyncio.wait_for(events.get(), WAIT)  # the listener connected again
            for attempt in (1, 2):  # the store's pooled connection was dropped too: one failure at most
                try:
                    await asyncio.to_thread(store.add_move, game.id, 0, "a1", "", False)
                    break
                except sa_exc.DBAPIError:
                    assert attempt == 1
            return [resync, await asyncio.wait_for(events.get(), WAIT)]

    try:
        resync, move = asyncio.run(main())
        assert resync == {"resync": True}
        assert (move["change"], move["moves"]) == ("move", 1)
        assert store.get(move["game"]).moves == ["a1"]
    finally:
        other.dispose()
        store.close()


LISTENER = """
import asyncio, sys
from hexstones.web.store import Store

async def main():
    store = Store(sys.argv[1])
    async with store.broker.subscribe("*") as events:
        print("ready", flush=True)
        for _ in range(int(sys.argv[2])):
            print(dict(await events.get()), flush=True)
    store.close()

asyncio.run(main())
"""


def start_listener(url: str, events: int) -> subprocess.Popen:
    """Another process with its own store on ``url``, printing the next ``events`` events."""
    proc = subprocess.Popen([sys.executable, "-c", LISTENER, url, str(events)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
    return proc


def read_events(proc: subprocess.Popen) -> list[dict]:
    out, err = proc.communicate(timeout=WAIT)
    assert proc.returncode == 0, err
    return [eval(line) for line in out.splitlines()]  # noqa: S307  (dicts printed by the listener)


@pytest.mark.slow  # a listener process
def test_a_write_in_one_process_is_announced_in_another(postgres_url):
    # The listener's URL gives connection options with a space: its LISTEN connection must
    # decode them as the engine does.
    listener = start_listener(postgres_url + "?options=-c%20synchronous_commit%3Don", 2)
    try:
        store = Store(postgres_url)
        try:
            game = store.create("keil", {"size": 5}, GameSetup())
            store.add_move(game.id, 0, "a1", "", False)
        finally:
            store.close()
        first, second = read_events(listener)
    finally:
        listener.kill()
        listener.wait()
    assert first == {"topic": game_topic(game.id), "game": game.id, "change": "create",
                     "revision": 0, "moves": 0}
    assert second == {"topic": game_topic(game.id), "game": game.id, "change": "move",
                      "revision": 1, "moves": 1}


@pytest.mark.slow
def test_two_servers_on_one_postgresql_database_one_game_live_across_them(postgres_url, tmp_path):
    """Ann plays through one server process, Bea through the other; Bea's WebSocket, open on
    hers, hears Ann's move; each server answers with what the other stored."""
    import httpx
    from websockets.sync.client import connect

    from serving import Servers

    servers = Servers(postgres_url, tmp_path, processes=2)
    try:
        servers.start()
        one, two = servers.urls
        with httpx.Client(base_url=one, timeout=WAIT) as ann, httpx.Client(base_url=two, timeout=WAIT) as bea:
            r = ann.post("/api/games", json={"game": "keil", "size": 5, "opponent": "friend", "color": "black"})
            assert r.status_code == 201, r.text
            game = r.json()
            gid, secret = game["id"], game["invite"].rsplit("/", 1)[1]
            r = bea.post(f"/api/games/{gid}/join", json={"secret": secret, "name": "Bea"})
            assert r.status_code == 200 and r.json()["you"] == ["white"], r.text
            cookie = "; ".join(f"{k}={v}" for k, v in bea.cookies.items())
            with connect(f"ws://127.0.0.1:{servers.servers[1].port}/api/games/{gid}/live", origin=two,
                         additional_headers={"Cookie": cookie}, open_timeout=WAIT) as live:
                assert json.loads(live.recv(WAIT)) == {"game": gid, "moves": 0}
                r = ann.post(f"/api/games/{gid}/moves", json={"move": "e5", "ply": 0})
                assert r.status_code == 200, r.text
                heard = json.loads(live.recv(WAIT))  # on server two, of a move stored by server one
                assert (heard["game"], heard["moves"]) == (gid, 1)
                s = bea.get(f"/api/games/{gid}").json()
                assert s["moves"] == ["e5"] and s["human_turn"]
                reply = next(m for m in s["legal"] if m != "pass")
                r = bea.post(f"/api/games/{gid}/moves", json={"move": reply, "ply": 1})
                assert r.status_code == 200, r.text
                assert json.loads(live.recv(WAIT))["moves"] == 2
            s = ann.get(f"/api/games/{gid}").json()  # server one held the game: it reads it again
            assert s["moves"] == ["e5", reply] and s["human_turn"]
            r = ann.post(f"/api/games/{gid}/moves", json={"move": reply, "ply": 1})  # an old page's move
            assert r.status_code == 409
            with httpx.Client(base_url=two, cookies=ann.cookies, timeout=WAIT) as ann_elsewhere:
                listed = ann_elsewhere.get("/api/games").json()["games"]  # Ann's session, the other server
            assert [g["move_count"] for g in listed if g["id"] == gid] == [2]
    finally:
        servers.stop()


def test_pages_asking_at_once_for_a_game_not_in_memory_share_one_copy(tmp_path, monkeypatch):
    """After a restart every open page asks for the game at once: each request reads it from
    the store, and all must then use one copy (two copies would each take moves the other
    misses: a page showing one never heard of a move played on the other)."""
    import threading

    from hexstones.web import live as live_module
    from hexstones.web.live import Tables

    tables = Tables(Store(str(tmp_path / "g.db")), ai_processes=1)
    try:
        game_id = tables.create({"game": "keil", "size": 5, "opponent": "friend"})["id"]
        tables._games.clear()  # as after a restart: the game is only in the store
        both_read = threading.Barrier(2, timeout=60)
        replay = live_module.replay

        def read_together(record, cached=None):
            both_read.wait()  # each request has missed the cache and read the store
            return replay(record, cached)

        monkeypatch.setattr(live_module, "replay", read_together)
        got: list = []
        threads = [threading.Thread(target=lambda: got.append(tables.get(game_id))) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert len(got) == 2 and got[0] is got[1]
        monkeypatch.setattr(live_module, "replay", replay)
        assert tables.get(game_id) is got[0]
    finally:
        tables.close()


holders = st.builds(Holder, st.one_of(st.none(), st.text(max_size=8)), st.one_of(st.none(), st.text(max_size=8)),
                    st.one_of(st.none(), st.text(max_size=8)))
colour_map = st.dictionaries(st.sampled_from(["black", "white"]), st.sampled_from(["human", "ai"]))


@given(st.builds(
    GameSetup, opponent=st.sampled_from(["human", "ai", "friend"]), level=st.one_of(st.none(), st.integers(1, 10)),
    players=st.one_of(st.none(), colour_map),
    pie=st.one_of(st.none(), st.builds(KomiPie, st.sampled_from(["human", "ai"]),
                                        st.sampled_from(["propose", "choose", "done"]),
                                        st.one_of(st.none(), st.integers(-20, 20)),
                                        st.one_of(st.none(), st.sampled_from(["black", "white"])))),
    owner=st.one_of(st.none(), holders),
    seats=st.one_of(st.none(), st.dictionaries(st.sampled_from(["black", "white", "proposer", "chooser"]),
                                               st.one_of(st.none(), holders))),
    invite=st.one_of(st.none(), st.text(max_size=8)), public=st.booleans(),
    name=st.one_of(st.none(), st.text(max_size=8)), names=st.one_of(st.none(), st.dictionaries(
        st.sampled_from(["black", "white"]), st.text(max_size=8))),
    takeback=st.one_of(st.none(), st.builds(TakebackAsk, st.sampled_from(["black", "white"]), st.integers(0, 99))),
    kept=st.dictionaries(st.sampled_from(["ai_color", "later"]), st.integers())))
def test_a_setup_is_stored_and_read_back_as_it_was(setup):
    assert GameSetup.from_dict(json.loads(json.dumps(setup.to_dict()))) == setup


@pytest.mark.parametrize("field, value, message", [
    ("seats", 5, "the setup's seats is int, not an object"),
    ("seats", {"black": "me"}, "the setup's seat 'black' is str, not an object"),
    ("owner", {"user": 3}, "the setup's owner holds something that is not text"),
    ("level", "3", "the setup's level is '3', not a whole number"),
    ("opponent", "robot", "the setup's opponent is 'robot'"),
    ("pie", {"stage": "propose"}, "the setup's komi pie is damaged"),
    ("takeback", {"by": "red", "ply": 1}, "the setup's takeback is"),
    ("names", {"black": 1}, "the setup's names holds something that is not text"),
])
def test_a_damaged_setup_is_refused_saying_which_field(field, value, message):
    with pytest.raises(DamagedSetup, match=re.escape(message)):
        GameSetup.from_dict({"opponent": "human", field: value})


def test_a_database_of_the_schema_before_clocks_and_the_lobby_upgrades_keeping_everything(target):
    """A database as the app made it before clocks, seeks, chat, vacations and ratings
    (revision 0005, the newest of the release before them): opened by this version, it is
    brought to the newest revision in place; its games, moves and accounts are all there,
    and its games play on (without a clock)."""
    from alembic import command

    engine = behind_the_back(target)
    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(connection), "0005")
            connection.execute(sa.text(
                "INSERT INTO games (id, game, options, setup, resigned, summary, created, updated, finished, "
                "revision) VALUES ('g1', 'keil', :options, :setup, NULL, 'White to move', 1.0, 2.0, 0, 3)"),
                {"options": json.dumps({"size": 5, "komi": 6}),
                 "setup": json.dumps({"opponent": "friend", "level": None, "players": {"black": "human",
                                      "white": "human"}, "pie": None, "seats": {"black": {"session": "s1"},
                                                                               "white": {"open": True}},
                                      "invite": "secret"})})
            connection.execute(sa.text("INSERT INTO moves (game_id, ply, move) VALUES ('g1', 0, 'a1')"))
            connection.execute(sa.text("INSERT INTO users (id, name, name_key, password, created) "
                                       "VALUES ('u1', 'Ann', 'ann', 'hash', 1.0)"))
            connection.execute(sa.text("INSERT INTO sessions (id, token, user_id, name, created, expires) "
                                       "VALUES ('s1', 'digest', 'u1', NULL, 1.0, 9e9)"))
    finally:
        engine.dispose()
    store = Store(target)
    try:
        record = store.get("g1")
        assert (record.moves, record.revision, record.clock, record.setup.invite) == (["a1"], 3, None, "secret")
        assert store.add_move("g1", 1, "e5", "Black to move", False) == 4
        assert [r["name"] for r in store.query("SELECT name FROM users", {})] in (["Ann"], [b"Ann"])
        assert store.query("SELECT count(*) AS n FROM seeks", {})[0]["n"] == 0
    finally:
        store.close()
    assert alembic_version(target) == [head_revision()]
