"""Stored games: a SQLite file (stdlib sqlite3) holding each game's setup and moves.

A game is its setup (which game, options, who plays which side, the komi-pie stage) plus
its move list; the position is always rebuilt by replaying the moves, so the database is
the whole truth and a restarted server loses nothing. Every move is written as it is
played, in its own transaction.

One server owns a database file: :class:`Store` holds an exclusive lock (``flock``) on a
lock file beside it for as long as it is open, and a second one is refused. Every write
is also checked against what is stored (a move must follow the stored moves, an undo
must take back stored ones), so a program that changed the file behind the server's back
makes the write fail (:class:`StoreConflict`) instead of losing moves.

Opening refuses, in one line naming the file: a file locked by another server, a file of
0 bytes (SQLite would take it for a new, empty database; a games file is never empty,
so it is a file that lost its games or a mistake), a file that is not SQLite, and a file
that SQLite's ``quick_check`` finds damaged. A game whose row cannot be read (bad JSON, bad
text) is reported by :meth:`Store.damaged` and skipped by :meth:`Store.list`; the other
games are served.
"""

from __future__ import annotations

import builtins
import json
import os
import secrets
import sqlite3
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

try:
    import fcntl
except ImportError:  # not a POSIX system: the write checks still guard the moves
    fcntl = None

SCHEMA_VERSION = 2  # 1: the first schema; 2: the `finished` column
SCHEMA = """
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
GAME_COLUMNS = "id, game, options, setup, resigned, created, updated, summary, finished"


DB_NAME = "games.db"


def data_folder() -> str:
    """Where the app keeps its games by default: the platform's folder for a user's
    application data (``$XDG_DATA_HOME/hexstones``, else ``~/.local/share/hexstones`` on
    Linux; ``~/Library/Application Support/hexstones`` on macOS; ``%LOCALAPPDATA%\\hexstones``
    on Windows), never the current folder: the database and its ``-wal``/``-shm`` files
    must not land in a checkout."""
    home = os.path.expanduser("~")
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
    elif sys.platform == "darwin":
        base = os.path.join(home, "Library", "Application Support")
    else:
        base = os.environ.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share")
    return os.path.join(base, "hexstones")


def default_path() -> str:
    """The games database ``hexstones serve`` uses without ``--db`` (its folder is made)."""
    folder = data_folder()
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, DB_NAME)


class StoreConflict(Exception):
    """A write that does not fit what is stored: someone else changed the database."""


class DamagedGame(ValueError):
    """A stored game whose row cannot be read (the message says which and why)."""


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
    summary: str = ""
    finished: bool | None = None


def _text(value: Any, what: str) -> str:
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DamagedGame(f"{what} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if not isinstance(value, str):
        raise DamagedGame(f"{what} is {type(value).__name__}, not text")
    return value


def _json_object(value: Any, what: str) -> dict[str, Any]:
    text = _text(value, what)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise DamagedGame(f"{what} is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise DamagedGame(f"{what} is JSON {type(data).__name__}, not an object")
    return data


def _game_of(row: tuple) -> StoredGame:
    """A ``games`` row (GAME_COLUMNS, text as bytes) read and checked; DamagedGame if not."""
    game_id = _text(row[0], "the id")
    try:
        resigned = None if row[4] is None else _text(row[4], "resigned")
        if resigned not in (None, "black", "white"):
            raise DamagedGame(f"resigned is {resigned!r}, not a colour")
        for i, what in ((5, "created"), (6, "updated")):
            if not isinstance(row[i], (int, float)):
                raise DamagedGame(f"{what} is not a time")
        return StoredGame(game_id, _text(row[1], "the game"), _json_object(row[2], "options"),
                          _json_object(row[3], "setup"), [], resigned, float(row[5]), float(row[6]),
                          _text(row[7], "summary"), None if row[8] is None else bool(row[8]))
    except DamagedGame as exc:
        raise DamagedGame(f"game {game_id}: {exc}") from None


class Store:
    """All stored games in one SQLite file; safe to use from several threads."""

    def __init__(self, path: str):
        self.path = str(path)
        self._lock = threading.Lock()
        self._lock_file = self._take_ownership()
        try:
            self._db = self._open()
        except BaseException:
            self._lock_file.close()
            raise
        self._reported: set[str] = set()

    def _take_ownership(self):
        """Open and lock ``<path>.lock``; a ValueError naming the owner if it is taken."""
        lock_path = self.path + ".lock"
        try:
            handle = open(lock_path, "a+")
        except OSError as exc:
            raise ValueError(f"cannot open the lock file {lock_path!r} of the games database: "
                             f"{exc.strerror}") from None
        if fcntl is not None:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.seek(0)
                owner = handle.read().strip() or "unknown"
                handle.close()
                raise ValueError(
                    f"the games database {self.path!r} is in use by another hexstones server "
                    f"(process {owner}): one server per database; stop that one or give this one "
                    f"another --db") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        return handle

    def _open(self) -> sqlite3.Connection:
        if os.path.exists(self.path) and os.path.getsize(self.path) == 0:
            raise ValueError(
                f"the games database {self.path!r} is an empty file (0 bytes): it holds no games, "
                f"not even an empty table (a database this app made never is empty); if it held "
                f"games they are gone, so restore a copy; to start a new database, delete the file")
        try:
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as exc:
            raise ValueError(f"cannot open the games database {self.path!r}: {exc}") from None
        db.text_factory = bytes  # text is decoded row by row: one bad row spoils only its game
        try:
            problems = [" ".join(p.decode("utf-8", "replace").replace("*** in database main ***", "").split())
                        for (p,) in db.execute("PRAGMA quick_check")]
            if problems != ["ok"]:
                raise ValueError(
                    f"the games database {self.path!r} is damaged: {problems[0]} ({len(problems)} "
                    f"problem{'s' if len(problems) > 1 else ''} found by SQLite's quick_check); "
                    f"restore a copy, or save what can be saved with: sqlite3 {self.path} .recover")
            db.execute("PRAGMA foreign_keys = ON")
            db.execute("PRAGMA journal_mode = WAL")
            self._upgrade(db)
        except sqlite3.DatabaseError as exc:
            db.close()
            raise ValueError(f"the games database {self.path!r} is damaged or no SQLite file "
                             f"(SQLite: {exc}); restore a copy, or save what can be saved with: "
                             f"sqlite3 {self.path} .recover") from None
        except BaseException:
            db.close()
            raise
        return db

    def _upgrade(self, db: sqlite3.Connection) -> None:
        """Create the tables, or bring an older file's schema up to date in place."""
        db.executescript("BEGIN IMMEDIATE;" + SCHEMA + "COMMIT;")
        db.execute("BEGIN IMMEDIATE")
        try:
            columns = {row[1].decode() for row in db.execute("PRAGMA table_info(games)")}
            if "finished" not in columns:  # a file of schema 1: every game keeps its rows
                db.execute("ALTER TABLE games ADD COLUMN finished INTEGER")
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()
            self._lock_file.close()  # releases the lock

    # -- reading ----------------------------------------------------------------------

    def get(self, game_id: str) -> StoredGame | None:
        """The game ``game_id`` with its moves; None if there is none; DamagedGame if its
        row cannot be read."""
        with self._lock:
            row = self._db.execute(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?",
                                   (game_id,)).fetchone()
            if row is None:
                return None
            moves = self._db.execute("SELECT ply, move FROM moves WHERE game_id = ? ORDER BY ply",
                                     (game_id,)).fetchall()
        record = _game_of(row)
        for expected, (ply, move) in enumerate(moves):
            if ply != expected:
                raise DamagedGame(f"game {game_id}: move {expected + 1} is missing")
            record.moves.append(_text(move, f"game {game_id}: move {ply + 1}"))
        return record

    def list(self) -> list[dict[str, Any]]:
        """Every readable stored game, most recently played first (move counts, no moves)."""
        games = []
        for record, count in self._rows():
            games.append({"id": record.id, "game": record.game, "options": record.options,
                          "setup": record.setup, "resigned": record.resigned,
                          "created": record.created, "updated": record.updated,
                          "move_count": count, "summary": record.summary,
                          "finished": record.finished})
        return games

    def damaged(self) -> builtins.list[str]:
        """One line for each stored game whose row cannot be read."""
        problems: list[str] = []
        self._rows(problems)
        return problems

    def _rows(self, problems: builtins.list[str] | None = None) -> builtins.list[tuple[StoredGame, int]]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {', '.join('g.' + c for c in GAME_COLUMNS.split(', '))}, "
                "(SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id) "
                "FROM games g ORDER BY g.updated DESC, g.created DESC").fetchall()
        games = []
        for row in rows:
            try:
                games.append((_game_of(row[:-1]), row[-1]))
            except DamagedGame as exc:
                if problems is not None:
                    problems.append(str(exc))
        return games

    # -- writing ----------------------------------------------------------------------

    def _write(self, game_id: str | None, moves: int | None, statements: builtins.list[tuple[str, tuple]]) -> None:
        """Run ``statements`` in one transaction; first, if ``moves`` is given, check that
        the game ``game_id`` exists and has that many stored moves (StoreConflict if not)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if moves is not None:
                    exists, stored = self._db.execute(
                        "SELECT (SELECT COUNT(*) FROM games WHERE id = ?), "
                        "(SELECT COUNT(*) FROM moves WHERE game_id = ?)", (game_id, game_id)).fetchone()
                    if not exists:
                        raise StoreConflict(f"game {game_id} is no longer in {self.path!r}")
                    if stored != moves:
                        raise StoreConflict(
                            f"game {game_id} has {stored} stored moves, not the {moves} this server "
                            f"holds: the database was changed by another program")
                for sql, params in statements:
                    self._db.execute(sql, params)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def create(self, game: str, options: dict[str, Any], setup: dict[str, Any],
               moves: Sequence[str] = (), summary: str = "", finished: bool = False) -> StoredGame:
        now = time.time()
        with self._lock:
            while True:  # ids are random; retry on the (unlikely) clash
                game_id = secrets.token_hex(5)
                if not self._db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone():
                    break
        statements: builtins.list[tuple[str, tuple]] = [(
            "INSERT INTO games (id, game, options, setup, resigned, summary, created, updated, finished) "
            "VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?)",
            (game_id, game, json.dumps(options), json.dumps(setup), summary, now, now, int(finished)),
        )]
        statements += [
            ("INSERT INTO moves (game_id, ply, move) VALUES (?, ?, ?)", (game_id, ply, move))
            for ply, move in enumerate(moves)
        ]
        self._write(None, None, statements)
        return StoredGame(game_id, game, dict(options), dict(setup), list(moves), None, now, now,
                          summary, finished)

    def add_move(self, game_id: str, ply: int, move: str, summary: str, finished: bool) -> None:
        """Store ``move`` as move ``ply`` (0 for the first): it must follow the stored moves."""
        self._write(game_id, ply, [
            ("INSERT INTO moves (game_id, ply, move) VALUES (?, ?, ?)", (game_id, ply, move)),
            ("UPDATE games SET updated = ?, summary = ?, finished = ? WHERE id = ?",
             (time.time(), summary, int(finished), game_id)),
        ])

    def truncate(self, game_id: str, had: int, keep: int, summary: str, finished: bool) -> None:
        """Undo: of the ``had`` stored moves, keep the first ``keep``."""
        self._write(game_id, had, [
            ("DELETE FROM moves WHERE game_id = ? AND ply >= ?", (game_id, keep)),
            ("UPDATE games SET updated = ?, summary = ?, finished = ? WHERE id = ?",
             (time.time(), summary, int(finished), game_id)),
        ])

    def update(self, game_id: str, moves: int | None, *, options: dict | None = None,
               setup: dict | None = None, resigned: str | None = None, summary: str | None = None,
               finished: bool | None = None, touch: bool = True) -> None:
        """Change the game's row; with ``moves``, only if it has that many stored moves."""
        changes: dict[str, Any] = {}
        if summary is not None:
            changes["summary"] = summary
        if options is not None:
            changes["options"] = json.dumps(options)
        if setup is not None:
            changes["setup"] = json.dumps(setup)
        if resigned is not None:
            changes["resigned"] = resigned
        if finished is not None:
            changes["finished"] = int(finished)
        if touch:
            changes["updated"] = time.time()
        if not changes:
            return
        sets = ", ".join(f"{column} = ?" for column in changes)
        self._write(game_id, moves, [(f"UPDATE games SET {sets} WHERE id = ?", (*changes.values(), game_id))])

    def delete(self, game_id: str) -> None:
        self._write(None, None, [("DELETE FROM moves WHERE game_id = ?", (game_id,)),
                                 ("DELETE FROM games WHERE id = ?", (game_id,))])
