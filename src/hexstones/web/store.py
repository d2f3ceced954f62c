"""Stored games: a SQLite file (stdlib sqlite3) holding each game's setup and moves.

A game is its setup (which game, options, who plays which side, the komi-pie stage) plus
its move list; the position is always rebuilt by replaying the moves, so the database is
the whole truth and a restarted server loses nothing. Every move is written as it is
played, in its own transaction.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    options TEXT NOT NULL,      -- JSON: new_game options (size, komi / prison)
    setup TEXT NOT NULL,        -- JSON: players, AI level, komi-pie stage
    resigned TEXT,              -- the colour that resigned, if any
    summary TEXT NOT NULL DEFAULT '',  -- one line for the list of games (turn or result)
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS moves (
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply INTEGER NOT NULL,       -- 0 for the first move
    move TEXT NOT NULL,
    PRIMARY KEY (game_id, ply)
);
"""


@dataclass
class StoredGame:
    id: str
    game: str
    options: dict[str, Any]
    setup: dict[str, Any]
    moves: list[str] = field(default_factory=list)
    resigned: str | None = None
    created: float = 0.0
    updated: float = 0.0


class Store:
    """All stored games in one SQLite file; safe to use from several threads."""

    def __init__(self, path: str):
        self.path = str(path)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA foreign_keys = ON")
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.executescript(SCHEMA)
        except sqlite3.Error as exc:
            raise ValueError(f"cannot open the games database {self.path!r}: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _write(self, statements: list[tuple[str, tuple]]) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for sql, params in statements:
                    self._db.execute(sql, params)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def create(self, game: str, options: dict[str, Any], setup: dict[str, Any],
               moves: Sequence[str] = ()) -> StoredGame:
        now = time.time()
        with self._lock:
            while True:  # ids are random; retry on the (unlikely) clash
                game_id = secrets.token_hex(5)
                if not self._db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone():
                    break
        statements: list[tuple[str, tuple]] = [(
            "INSERT INTO games (id, game, options, setup, resigned, created, updated) VALUES (?, ?, ?, ?, NULL, ?, ?)",
            (game_id, game, json.dumps(options), json.dumps(setup), now, now),
        )]
        statements += [
            ("INSERT INTO moves (game_id, ply, move) VALUES (?, ?, ?)", (game_id, ply, move))
            for ply, move in enumerate(moves)
        ]
        self._write(statements)
        return StoredGame(game_id, game, dict(options), dict(setup), list(moves), None, now, now)

    def get(self, game_id: str) -> StoredGame | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id, game, options, setup, resigned, created, updated FROM games WHERE id = ?",
                (game_id,),
            ).fetchone()
            if row is None:
                return None
            moves = [m for (m,) in self._db.execute(
                "SELECT move FROM moves WHERE game_id = ? ORDER BY ply", (game_id,))]
        return StoredGame(row[0], row[1], json.loads(row[2]), json.loads(row[3]), moves, row[4], row[5], row[6])

    def list(self) -> list[dict[str, Any]]:
        """Every stored game, most recently played first (no move lists, only counts)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT g.id, g.game, g.options, g.setup, g.resigned, g.created, g.updated, "
                "(SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id), g.summary "
                "FROM games g ORDER BY g.updated DESC, g.created DESC"
            ).fetchall()
        return [
            {"id": r[0], "game": r[1], "options": json.loads(r[2]), "setup": json.loads(r[3]),
             "resigned": r[4], "created": r[5], "updated": r[6], "move_count": r[7],
             "summary": r[8]}
            for r in rows
        ]

    def add_move(self, game_id: str, ply: int, move: str, summary: str = "") -> None:
        self._write([
            ("INSERT INTO moves (game_id, ply, move) VALUES (?, ?, ?)", (game_id, ply, move)),
            ("UPDATE games SET updated = ?, summary = ? WHERE id = ?", (time.time(), summary, game_id)),
        ])

    def truncate(self, game_id: str, keep: int, summary: str = "") -> None:
        """Drop every move after the first ``keep`` (undo)."""
        self._write([
            ("DELETE FROM moves WHERE game_id = ? AND ply >= ?", (game_id, keep)),
            ("UPDATE games SET updated = ?, summary = ? WHERE id = ?", (time.time(), summary, game_id)),
        ])

    def update(self, game_id: str, *, options: dict | None = None, setup: dict | None = None,
               resigned: str | None = None, summary: str | None = None) -> None:
        statements: list[tuple[str, tuple]] = []
        if summary is not None:
            statements.append(("UPDATE games SET summary = ? WHERE id = ?", (summary, game_id)))
        if options is not None:
            statements.append(("UPDATE games SET options = ? WHERE id = ?", (json.dumps(options), game_id)))
        if setup is not None:
            statements.append(("UPDATE games SET setup = ? WHERE id = ?", (json.dumps(setup), game_id)))
        if resigned is not None:
            statements.append(("UPDATE games SET resigned = ? WHERE id = ?", (resigned, game_id)))
        statements.append(("UPDATE games SET updated = ? WHERE id = ?", (time.time(), game_id)))
        self._write(statements)

    def delete(self, game_id: str) -> None:
        self._write([("DELETE FROM games WHERE id = ?", (game_id,))])
