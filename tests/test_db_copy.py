"""``hexstones db copy``: a games database moved to another, SQLite <-> PostgreSQL.

Real parts throughout: games, an account and a friend game made through the app on a
SQLite file, the command run as a subprocess into a throwaway PostgreSQL database
(tests/pg.py) and back into a new file, and servers on the copies that show and play the
same games and sign the same person in.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from hexstones.web import create_app
from hexstones.web.bots import BOT_LEVELS
from hexstones.web.store import Store


def hexstones_db(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hexstones.cli", "db", *args],
                          capture_output=True, text=True, timeout=300)


def everything(target: str) -> dict[str, list[tuple]]:
    """Every row of every table but Alembic's, sorted: what a copy must carry."""
    url = target.replace("postgresql://", "postgresql+psycopg://") if "://" in target else f"sqlite:///{target}"
    engine = sa.create_engine(url)
    try:
        meta = sa.MetaData()
        meta.reflect(bind=engine)
        with engine.connect() as connection:
            return {t.name: sorted(tuple(r) for r in connection.execute(sa.select(t)))
                    for t in meta.sorted_tables if t.name != "alembic_version"}
    finally:
        engine.dispose()


def make_games(db: str) -> dict:
    with TestClient(create_app(db)) as ann:
        assert ann.post("/api/account/signup", json={"name": "Ann", "password": "correct horse"}).status_code == 201
        local = ann.post("/api/games", json={"game": "keil", "size": 4, "opponent": "human"}).json()["id"]
        for move in ["d4", "e4", "c3"]:
            assert ann.post(f"/api/games/{local}/moves", json={"move": move}).status_code == 200
        resigned = ann.post("/api/games", json={"game": "dehil", "size": 3, "opponent": "human"}).json()["id"]
        ann.post(f"/api/games/{resigned}/moves", json={"move": "c3"})
        assert ann.post(f"/api/games/{resigned}/resign", json={}).status_code == 200
        friend = ann.post("/api/games", json={"game": "droched", "size": 3, "opponent": "friend",
                                              "color": "black"}).json()
        bea = TestClient(ann.app)  # another browser on the same server (its lifespan is ann's)
        secret = friend["invite"].rsplit("/", 1)[1]
        assert bea.post(f"/api/games/{friend['id']}/join", json={"secret": secret, "name": "Bea"}).status_code == 200
        assert ann.post(f"/api/games/{friend['id']}/moves", json={"move": "c3"}).status_code == 200
        return {"local": local, "resigned": resigned, "friend": friend["id"],
                "states": {g: ann.get(f"/api/games/{g}").json() for g in (local, resigned, friend["id"])}}


SHOWN = ("moves", "to_move", "over", "result", "score", "svg", "seats")


@pytest.mark.slow  # command-line processes into and out of PostgreSQL
def test_a_file_copied_to_postgresql_and_back_serves_the_same_games_and_people(tmp_path, postgres_url):
    db = str(tmp_path / "games.db")
    before = make_games(db)
    rows = everything(db)
    assert rows["games"] and rows["moves"] and rows["users"]

    to_pg = hexstones_db("copy", db, postgres_url)
    assert to_pg.returncode == 0, to_pg.stderr
    people = 1 + len(BOT_LEVELS)  # Ann, and the AI's accounts every app makes
    assert "3 games" in to_pg.stdout and "5 moves" in to_pg.stdout and f"{people} users" in to_pg.stdout
    assert everything(postgres_url) == rows

    # A server on the copy: the same games, and Ann signs in with her password there.
    with TestClient(create_app(postgres_url)) as ann:
        assert ann.post("/api/account/signin", json={"name": "Ann", "password": "correct horse"}).status_code == 200
        for game_id, state in before["states"].items():
            now = ann.get(f"/api/games/{game_id}").json()
            assert {k: now.get(k) for k in SHOWN} == {k: state.get(k) for k in SHOWN}
        assert ann.post(f"/api/games/{before['local']}/moves", json={"move": "b2"}).status_code == 200
        listed = {g["id"] for g in ann.get("/api/games").json()["games"]}
        assert {before["local"], before["resigned"], before["friend"]} <= listed

    back = str(tmp_path / "backup.db")
    to_file = hexstones_db("copy", "--quiet", postgres_url, back)
    assert to_file.returncode == 0, to_file.stderr
    assert everything(back) == everything(postgres_url)
    assert Store(back).get(before["local"]).moves == ["d4", "e4", "c3", "b2"]


@pytest.mark.slow  # seven command-line processes
def test_a_copy_is_refused_with_a_reason_and_writes_nothing(tmp_path, postgres_url):
    db = str(tmp_path / "games.db")
    make_games(db)
    rows = everything(db)
    assert hexstones_db("copy", db, postgres_url).returncode == 0
    copied = everything(postgres_url)

    again = hexstones_db("copy", db, postgres_url)  # never merges into a database with games
    assert again.returncode == 1 and "already holds" in again.stderr and "empty database" in again.stderr
    assert everything(postgres_url) == copied

    same = hexstones_db("copy", db, db)
    assert same.returncode == 1 and "same database" in same.stderr
    missing = hexstones_db("copy", str(tmp_path / "nothing.db"), str(tmp_path / "new.db"))
    assert missing.returncode == 1 and "no games database" in missing.stderr
    assert not (tmp_path / "new.db").exists()

    held = Store(db)  # a server has the file open: its games may still change
    try:
        busy = hexstones_db("copy", db, str(tmp_path / "other.db"))
        assert busy.returncode == 1 and "in use by another hexstones server" in busy.stderr
    finally:
        held.close()

    # A row that is not text (a damaged file): named, and the target keeps no row.
    with sqlite3.connect(db) as con:
        con.execute("UPDATE moves SET move = CAST(X'C328' AS TEXT) WHERE ply = 0")
    damaged = str(tmp_path / "damaged-copy.db")
    bad = hexstones_db("copy", db, damaged)
    assert bad.returncode == 1 and "'moves'" in bad.stderr and "nothing was copied" in bad.stderr
    assert all(not table for table in everything(damaged).values())
    with sqlite3.connect(db) as con:  # the source is only read
        assert sorted(con.execute("SELECT * FROM games").fetchall()) == rows["games"]
