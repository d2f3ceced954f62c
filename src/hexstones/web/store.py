"""Stored games: each game's setup and moves in SQLite (one file, the default) or PostgreSQL.

A game is its setup (which game, options, who plays which side, the komi-pie stage) plus
its move list; the position is always rebuilt by replaying the moves, so the database is
the whole truth and a restarted server loses nothing. Every move is written as it is
played, in its own transaction. The queries are SQLAlchemy Core, the same for both
databases; the schema is Alembic's (``migrations/``), brought up to date when a store opens.

``Store(target)``: ``target`` is a SQLite file's path, or a ``postgresql://user@host/db``
URL. Every write is checked against what is stored (a move must follow the stored moves,
an undo must take back stored ones), so a write that does not fit what another program or
another server process stored fails (:class:`StoreConflict`) instead of losing moves; every
write raises the game's ``revision`` and announces itself on the store's broker
(:mod:`hexstones.web.broker`) when it commits.

SQLite: one server owns a file: :class:`Store` holds an exclusive lock (``flock``) on a lock
file beside it for as long as it is open, and a second one is refused. Opening refuses, in
one line naming the file: a file locked by another server, a file of 0 bytes (SQLite would
take it for a new, empty database; a games file is never empty, so it is a file that lost
its games or a mistake), a file that is not SQLite, and a file that SQLite's
``quick_check`` finds damaged. PostgreSQL: several server processes may share a database
(the write checks lock the game's row); a database that cannot be reached is refused in
one line naming it (without its password).

A game whose row cannot be read (bad JSON, bad text) is reported by :meth:`Store.damaged`
and skipped by :meth:`Store.list`; the other games are served.
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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy import event as sa_event, exc as sa_exc
from sqlalchemy.pool import StaticPool

from hexstones.session import Clock
from hexstones.web.broker import LocalBroker, PostgresBroker, game_topic
from hexstones.web.errors import is_unicode
from hexstones.web.game_setup import DamagedSetup, GameSetup

try:
    import fcntl
except ImportError:  # not a POSIX system: the write checks still guard the moves
    _HAS_FCNTL = False
else:
    _HAS_FCNTL = True

MIGRATIONS = Path(__file__).parent / "migrations"

# The tables as the queries see them; the schema itself is made by the migrations (a new
# column is a new revision in migrations/versions, then a Column here).
metadata = sa.MetaData()
games_table = sa.Table(
    "games", metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("game", sa.Text, nullable=False),
    sa.Column("options", sa.Text, nullable=False),  # JSON: new_game options (size, komi / prison)
    sa.Column("setup", sa.Text, nullable=False),  # JSON: players, AI level, komi-pie stage
    sa.Column("resigned", sa.Text),  # the colour that resigned, if any
    sa.Column("summary", sa.Text, nullable=False),  # one line for the list (turn or result)
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("updated", sa.Float, nullable=False),
    sa.Column("finished", sa.Integer),  # 1 over, 0 not; NULL: not known yet (stored before it was)
    sa.Column("revision", sa.Integer, nullable=False),  # raised by every stored change
    sa.Column("clock", sa.Text),  # JSON: hexstones.session.Clock.to_dict; NULL: no clock
    sa.Column("deadline", sa.Float),  # when the clock ends the game if nobody moves; NULL: never
)
moves_table = sa.Table(
    "moves", metadata,
    sa.Column("game_id", sa.Text, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("ply", sa.Integer, primary_key=True),  # 0 for the first move
    sa.Column("move", sa.Text, nullable=False),
)
GAME_COLUMNS = [games_table.c[name] for name in
                ("id", "game", "options", "setup", "resigned", "created", "updated", "summary",
                 "finished", "revision", "clock")]

# The statements of every move and every read, built once: SQLAlchemy then reuses their
# compiled form (a statement built per call costs more than the database's work).
_game_id: sa.BindParameter[Any] = sa.bindparam("game_id_")
SELECT_GAME = sa.select(*GAME_COLUMNS).where(games_table.c.id == _game_id)
SELECT_MOVES = (sa.select(moves_table.c.ply, moves_table.c.move).where(moves_table.c.game_id == _game_id)
                .order_by(moves_table.c.ply))
SELECT_REVISION = sa.select(games_table.c.revision).where(games_table.c.id == _game_id)
LOCK_GAME = (  # its revision, the row locked until the commit (PostgreSQL)
    sa.select(games_table.c.revision).where(games_table.c.id == _game_id).with_for_update(of=games_table))
# Counted after the lock, in a statement of its own: a count inside the locking statement
# reads the moves as they were when it began, before the write it waited for.
COUNT_MOVES = sa.select(sa.func.count()).select_from(moves_table).where(moves_table.c.game_id == _game_id)
INSERT_MOVE = moves_table.insert().values(game_id=_game_id, ply=sa.bindparam("ply_"), move=sa.bindparam("move_"))
DELETE_MOVES_FROM = moves_table.delete().where(moves_table.c.game_id == _game_id,
                                                moves_table.c.ply >= sa.bindparam("ply_"))
TOUCH_GAME = games_table.update().where(games_table.c.id == _game_id).values(
    updated=sa.bindparam("updated_"), summary=sa.bindparam("summary_"), finished=sa.bindparam("finished_"),
    revision=games_table.c.revision + 1)
TOUCH_TIMED_GAME = TOUCH_GAME.values(clock=sa.bindparam("clock_"), deadline=sa.bindparam("deadline_"))
SELECT_DUE = (sa.select(games_table.c.id).where(games_table.c.deadline <= sa.bindparam("now_"),
                                                  games_table.c.finished == 0)
              .order_by(games_table.c.deadline).limit(100))

DB_NAME = "games.db"
ASYNC_COMMIT = "-c synchronous_commit=off"  # PostgreSQL: see Store._open_postgres


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


def is_url(target: str) -> bool:
    """Whether ``--db`` names a PostgreSQL database (a URL) rather than a SQLite file."""
    return str(target).startswith(("postgresql://", "postgresql+psycopg://", "postgres://"))


def alembic_config(connection: sa.Connection | None = None):
    """Alembic's configuration for the games database, without an alembic.ini.

    Adding a revision (a new table, a new column): in a checkout, run ::

        python -c "from alembic import command; from hexstones.web.store import alembic_config; \\
                   command.revision(alembic_config(), 'what it adds', rev_id='0003')"

    which writes ``migrations/versions/<rev>_what_it_adds.py`` on top of the newest revision
    (``down_revision``); fill in ``upgrade()`` (and ``downgrade()``) with ``op.create_table``
    / ``op.add_column``, name it ``rNNNN_<what>.py`` like the others, and add the table or
    column to the ``sa.Table`` its queries use. Servers apply it when they start.
    """
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("path_separator", "os")
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest revision of the schema (what :func:`migrate` brings a database to)."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:  # the package ships its migrations, so only a broken install lacks them
        raise RuntimeError(f"no schema revisions found in {MIGRATIONS}")
    return head


def migrate(connection: sa.Connection, name: str = "the games database") -> None:
    """Bring the database behind ``connection`` (in a transaction) to the newest revision;
    ValueError if it has a revision this version of hexstones does not know (a newer one)."""
    from alembic import command
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    if connection.dialect.name == "postgresql":
        # Two servers starting at once: one migrates, the other waits and finds it done.
        connection.execute(sa.text("SELECT pg_advisory_xact_lock(2117022301)"))
    config = alembic_config(connection)
    known = {script.revision for script in ScriptDirectory.from_config(config).walk_revisions()}
    unknown = [r for r in MigrationContext.configure(connection).get_current_heads() if r not in known]
    if unknown:
        raise ValueError(f"{name} has the schema revision {unknown[0]}, made by a newer hexstones "
                         f"(this one knows up to {head_revision()}): upgrade hexstones to serve it")
    command.upgrade(config, "head")


class StoreConflict(Exception):
    """A write that does not fit what is stored: someone else changed the database."""


class DamagedGame(ValueError):
    """A stored game whose row cannot be read (the message says which and why)."""


@dataclass
class StoredGame:
    id: str
    game: str
    options: dict[str, Any]
    setup: GameSetup
    moves: list[str] = field(default_factory=list)
    resigned: str | None = None
    created: float = 0.0
    updated: float = 0.0
    summary: str = ""
    finished: bool | None = None
    revision: int = 0
    clock: Clock | None = None


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
    if not is_unicode(data):
        raise DamagedGame(f"{what} holds text that is not valid Unicode (a lone surrogate)")
    return data


def _checked_setup(setup: dict[str, Any]) -> GameSetup:
    """``setup`` read and checked; DamagedGame if a field has the wrong shape (a setup of
    ``"seats": 5`` once took the whole list of games down with it)."""
    try:
        return GameSetup.from_dict(setup)
    except DamagedSetup as exc:
        raise DamagedGame(str(exc)) from None


def stored_game_of(row: sa.RowMapping) -> StoredGame:
    """A ``games`` row (GAME_COLUMNS by name; SQLite gives text as bytes) read and checked;
    DamagedGame if not."""
    game_id = _text(row["id"], "the id")
    try:
        resigned = None if row["resigned"] is None else _text(row["resigned"], "resigned")
        if resigned not in (None, "black", "white"):
            raise DamagedGame(f"resigned is {resigned!r}, not a colour")
        for what in ("created", "updated"):
            if not isinstance(row[what], (int, float)):
                raise DamagedGame(f"{what} is not a time")
        revision = row["revision"]
        if not isinstance(revision, int) or isinstance(revision, bool):
            raise DamagedGame(f"its revision is {revision!r}, not a whole number")
        finished = row["finished"]
        clock = None
        if row["clock"] is not None:
            try:
                clock = Clock.from_dict(_json_object(row["clock"], "its clock"))
            except ValueError as exc:
                raise DamagedGame(f"its {exc}") from None
        return StoredGame(game_id, _text(row["game"], "the game"), _json_object(row["options"], "options"),
                          _checked_setup(_json_object(row["setup"], "setup")), [], resigned,
                          float(row["created"]), float(row["updated"]), _text(row["summary"], "summary"),
                          None if finished is None else bool(finished), revision, clock)
    except DamagedGame as exc:
        raise DamagedGame(f"game {game_id}: {exc}") from None


class Transaction:
    """One transaction of :meth:`Store.transaction`: ``connection`` runs its statements,
    ``announce(topic, event)`` sends an event on the broker if and only if it commits."""

    def __init__(self, connection: Any, store: Store):
        self.connection = connection
        self._store = store
        self.pending: list[tuple[str, dict[str, Any]]] = []

    def announce(self, topic: str, event: dict[str, Any]) -> None:
        if isinstance(self._store.broker, PostgresBroker):
            self._store.broker.notify(self.connection, topic, event)  # sent by the COMMIT
        else:
            self.pending.append((topic, event))


class Store:
    """All stored games of one database; safe to use from several threads.

    ``path`` names the database as messages show it (a SQLite file's path, or the URL
    without its password); ``shared``: whether other server processes may write to it too
    (PostgreSQL); ``engine``, ``broker``: for modules that keep their own tables in the same
    database (their revisions in ``migrations/``) and announce their own changes.
    """

    def __init__(self, target: str):
        target = str(target)
        self.shared = is_url(target)
        self._lock = threading.Lock()  # SQLite: the writing connection, used by one thread at a time
        self._read_lock = threading.Lock()  # SQLite: the reading connection, likewise
        self._seen: dict[str, int] = {}  # game id -> the revision this process last read or wrote
        self._lock_file = None
        self.broker: LocalBroker
        raw: sqlite3.Connection | None = None
        if self.shared:
            url = sa.make_url(target).set(drivername="postgresql+psycopg")
            self.path = url.render_as_string(hide_password=True)
            self.engine = self._open_postgres(url)
        else:
            self.path = target
            self._lock_file = self._take_ownership()
            try:
                raw = self._open_sqlite()
            except BaseException:
                self._lock_file.close()
                raise
            # The one checked connection is the engine's only connection.
            self._raw_writer = raw
            self.engine = sa.create_engine("sqlite://", creator=lambda: raw, poolclass=StaticPool)
            sa_event.listen(self.engine, "begin", lambda conn: conn.exec_driver_sql("BEGIN IMMEDIATE"))
            self.broker = LocalBroker()
        try:
            with self.transaction() as tx:
                migrate(tx.connection, f"the games database {self.path!r}")
        except sa_exc.DBAPIError as exc:
            self._close_quietly()
            raise ValueError(f"cannot bring the games database {self.path!r} up to date: "
                             f"{_first_line(exc.orig)}") from None
        except BaseException:
            self._close_quietly()
            raise
        if raw is not None:  # after the migrations, which read names as text
            raw.text_factory = bytes  # text is decoded row by row: one bad row spoils only its game
            # Reads have a connection of their own: under WAL they see every commit made
            # before they begin and never wait for a write (its commit, its disk) to end.
            try:
                reader = self._connect_sqlite()
            except ValueError:
                self._close_quietly()
                raise
            reader.execute("PRAGMA foreign_keys = ON")
            reader.text_factory = bytes
            self._reader = sa.create_engine("sqlite://", creator=lambda: reader, poolclass=StaticPool)
            self._raw_reader = reader
            sa_event.listen(self._reader, "begin", lambda conn: conn.exec_driver_sql("BEGIN"))

    def _open_postgres(self, url: sa.URL) -> sa.Engine:
        import psycopg

        # No ping before each use (a round trip each time): a connection the database
        # dropped (a restart) fails the one request using it, and the pool then replaces
        # every connection older than that failure.
        # The same durability as SQLite's (synchronous=NORMAL): a commit does not wait for
        # the disk; a crash of the database server may lose the last commits (at most three
        # times wal_writer_delay, 0.6 s by default), never corrupts anything. Options given
        # in the URL (?options=-csynchronous_commit%3Don) are used instead.
        connect_args = {} if "options" in url.query else {"options": ASYNC_COMMIT}
        # Connections kept open for as many requests as use one at once under load (the
        # moves on the event loop, the rest in worker threads): one opened beyond them is
        # closed at its return, and opening one costs more than a move.
        engine = sa.create_engine(url, pool_size=16, max_overflow=8, connect_args=connect_args)
        try:
            with engine.connect() as connection:
                connection.execute(sa.text("SELECT 1"))
        except sa_exc.DBAPIError as exc:
            engine.dispose()
            raise ValueError(f"cannot open the games database {self.path!r}: "
                             f"{_first_line(exc.orig)}") from None
        # The listener connects as the engine does (the URL's query decoded: a rendered URL
        # would send "+" for a space in ``options``).
        listen_args, listen_params = engine.dialect.create_connect_args(engine.url)
        self._reader = engine.execution_options(isolation_level="AUTOCOMMIT")
        try:
            self.broker = PostgresBroker(
                lambda: psycopg.connect(*listen_args, **listen_params, autocommit=True), engine)
        except BaseException:
            engine.dispose()
            raise
        return engine

    def _take_ownership(self):
        """Open and lock ``<path>.lock``; a ValueError naming the owner if it is taken."""
        lock_path = self.path + ".lock"
        try:
            handle = open(lock_path, "a+")
        except OSError as exc:
            raise ValueError(f"cannot open the lock file {lock_path!r} of the games database: "
                             f"{exc.strerror}") from None
        if _HAS_FCNTL:
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

    def _open_sqlite(self) -> sqlite3.Connection:
        """The SQLite file opened and checked (WAL, foreign keys), before any write."""
        if os.path.exists(self.path) and os.path.getsize(self.path) == 0:
            raise ValueError(
                f"the games database {self.path!r} is an empty file (0 bytes): it holds no games, "
                f"not even an empty table (a database this app made never is empty); if it held "
                f"games they are gone, so restore a copy; to start a new database, delete the file")
        db = self._connect_sqlite()
        try:
            problems = [" ".join(p.replace("*** in database main ***", "").split())
                        for (p,) in db.execute("PRAGMA quick_check")]
            if problems != ["ok"]:
                raise ValueError(
                    f"the games database {self.path!r} is damaged: {problems[0]} ({len(problems)} "
                    f"problem{'s' if len(problems) > 1 else ''} found by SQLite's quick_check); "
                    f"restore a copy, or save what can be saved with: sqlite3 {self.path} .recover")
            db.execute("PRAGMA foreign_keys = ON")
            db.execute("PRAGMA journal_mode = WAL")
            # SQLite's recommendation under WAL: a commit does not wait for the disk (the
            # checkpoints do); a power loss may lose the last commits, never corrupts the file.
            db.execute("PRAGMA synchronous = NORMAL")
        except sqlite3.DatabaseError as exc:
            db.close()
            raise ValueError(f"the games database {self.path!r} is damaged or no SQLite file "
                             f"(SQLite: {exc}); restore a copy, or save what can be saved with: "
                             f"sqlite3 {self.path} .recover") from None
        except BaseException:
            db.close()
            raise
        return db

    def _connect_sqlite(self) -> sqlite3.Connection:
        try:
            # isolation_level=None: the engine's "begin" listener says BEGIN itself
            return sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as exc:
            raise ValueError(f"cannot open the games database {self.path!r}: {exc}") from None

    def _close_quietly(self) -> None:
        try:
            self.broker.close()
        except AttributeError:
            pass
        self.engine.dispose()
        if not self.shared and hasattr(self, "_reader"):
            self._reader.dispose()
        if self._lock_file is not None:
            self._lock_file.close()

    def close(self) -> None:
        with self._lock, self._read_lock:
            self.broker.close()
            self.engine.dispose()
            if not self.shared:
                self._reader.dispose()
            if self._lock_file is not None:
                self._lock_file.close()  # releases the lock

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """One transaction (committed at the end of the block, rolled back on an error);
        its announcements go out when it commits. SQLite: the write lock is taken at once
        (BEGIN IMMEDIATE) and the store's one connection is held until the end."""
        if self.shared:
            with self.engine.begin() as connection:
                tx = Transaction(connection, self)
                yield tx
        else:
            with self._lock, self.engine.begin() as connection:
                tx = Transaction(connection, self)
                yield tx
        for topic, event in tx.pending:
            self.broker.publish(topic, event)

    @contextmanager
    def reading(self) -> Iterator[sa.Connection]:
        """A connection for reads only. PostgreSQL: no transaction around them (autocommit:
        each statement one round trip, each seeing what was committed when it ran); SQLite:
        the store's reading connection, in a transaction (its reads see one snapshot)."""
        if self.shared:
            with self._reader.connect() as connection:
                yield connection
        else:
            with self._read_lock, self._reader.begin() as connection:
                yield connection

    # -- reading ----------------------------------------------------------------------

    def query(self, sql: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        """The rows of one reading statement with ``:name`` parameters, each a dict by
        column name. SQLite: straight on the reading connection, where a statement alone is
        atomic (SQLAlchemy's layer cost several times SQLite's work: this is a session's
        look-up, one per request)."""
        if self.shared:
            with self.reading() as connection:
                return [dict(row._mapping) for row in connection.execute(sa.text(sql), params).all()]
        with self._read_lock:
            cursor = self._raw_reader.execute(sql, params)
            names = [column[0] for column in cursor.description or ()]
            return [dict(zip(names, row)) for row in cursor.fetchall()]

    def get(self, game_id: str) -> StoredGame | None:
        """The game ``game_id`` with its moves; None if there is none; DamagedGame if its
        row cannot be read."""
        with self.reading() as connection:
            row = connection.execute(SELECT_GAME, {"game_id_": game_id}).first()
            if row is None:
                return None
            played = connection.execute(SELECT_MOVES, {"game_id_": game_id}).all()
        record = stored_game_of(row._mapping)
        for expected, (ply, move) in enumerate(played):
            if ply != expected:
                raise DamagedGame(f"game {game_id}: move {expected + 1} is missing")
            record.moves.append(_text(move, f"game {game_id}: move {ply + 1}"))
        self._seen[game_id] = record.revision
        return record

    def stale(self, game_id: str, revision: int) -> bool:
        """Whether the stored game has moved on from ``revision``, that of the copy the
        caller holds: changed by another server process (asked of the database only when it
        is shared), by this one since that copy was read, or behind a write that then failed
        its check; a game this store never read counts as stale. (The copy's own revision,
        not the last one this store read: a thread reading the game anew must not make an
        older copy, still held by another thread, look current.)"""
        seen = self._seen.get(game_id)
        if seen is None:
            return True
        if self.shared:
            with self.reading() as connection:
                seen = connection.execute(SELECT_REVISION, {"game_id_": game_id}).scalar()
        return seen is None or seen > revision

    def list(self) -> list[dict[str, Any]]:
        """Every readable stored game, most recently played first (move counts, no moves)."""
        rows = []
        for record, count in self._rows():
            rows.append({"id": record.id, "game": record.game, "options": record.options,
                         "setup": record.setup, "resigned": record.resigned,
                         "created": record.created, "updated": record.updated,
                         "move_count": count, "summary": record.summary,
                         "finished": record.finished})
        return rows

    def damaged(self) -> builtins.list[str]:
        """One line for each stored game whose row cannot be read."""
        problems: list[str] = []
        self._rows(problems)
        return problems

    def _rows(self, problems: builtins.list[str] | None = None) -> builtins.list[tuple[StoredGame, int]]:
        count = (sa.select(sa.func.count()).select_from(moves_table).where(moves_table.c.game_id == games_table.c.id)
                 .scalar_subquery().label("move_count"))
        with self.reading() as connection:
            rows = connection.execute(
                sa.select(*GAME_COLUMNS, count)
                .order_by(games_table.c.updated.desc(), games_table.c.created.desc())).all()
        found = []
        for row in rows:
            try:
                found.append((stored_game_of(row._mapping), row._mapping["move_count"]))
            except DamagedGame as exc:
                if problems is not None:
                    problems.append(str(exc))
        return found

    # -- writing ----------------------------------------------------------------------

    def _write(self, game_id: str, stored_moves: int | None, change: str,
               statements: Sequence[tuple[sa.Executable, dict[str, Any]]], raises_revision: bool = True,
               after: int | None = None, revision: int | None = None) -> int | None:
        """In one transaction: if ``stored_moves`` is given, check that the game exists and
        has that many stored moves (StoreConflict if not), and if ``revision`` is, that the
        game is still at that revision (a timed game: another process may have ended it on
        time without a move); then run ``statements`` (each with
        its parameters, and ``game_id_``), of which one raises the game's revision if
        ``raises_revision``. Announces ``change`` with ``after`` moves (or as many as there were).
        Returns the game's new revision (None if it was not raised)."""
        previous = self._seen.get(game_id)
        try:
            with self._write_transaction(statements) as tx:
                connection = tx.connection
                # The row lock orders the writes of several server processes to one game.
                stored_revision = _first(self._run(connection, LOCK_GAME, {"game_id_": game_id}))
                count = (0 if stored_revision is None
                         else _first(self._run(connection, COUNT_MOVES, {"game_id_": game_id})))
                if stored_moves is not None:
                    if stored_revision is None:
                        raise StoreConflict(f"game {game_id} is no longer in {self.path!r}")
                    if count != stored_moves:
                        raise StoreConflict(
                            f"game {game_id} has {count} stored moves, not the {stored_moves} this "
                            f"server holds: the database was changed by another program or server")
                if revision is not None and stored_revision is not None and stored_revision != revision:
                    raise StoreConflict(f"game {game_id} was changed by another server meanwhile "
                                        f"(revision {stored_revision}, not {revision})")
                for statement, params in statements:
                    self._run(connection, statement, {"game_id_": game_id, **params})
                raised = stored_revision + 1 if stored_revision is not None and raises_revision else None
                if raised is not None:
                    self._seen[game_id] = raised  # before the commit: not stale to itself
                tx.announce(game_topic(game_id), {"game": game_id, "change": change,
                                                  "revision": (stored_revision or 0) + 1,
                                                  "moves": count if after is None else after})
        except (sa_exc.IntegrityError, sqlite3.IntegrityError) as exc:  # a move stored meanwhile, or the game deleted
            self._seen.pop(game_id, None)
            raise StoreConflict(f"game {game_id} was changed by another server meanwhile "
                                f"({_first_line(getattr(exc, 'orig', exc))})") from None
        except StoreConflict:
            self._seen.pop(game_id, None)  # read it again before the next write
            raise
        except BaseException:
            if previous is None:
                self._seen.pop(game_id, None)
            else:
                self._seen[game_id] = previous
            raise
        return raised

    @contextmanager
    def _write_transaction(self, statements: Sequence[tuple[sa.Executable, dict[str, Any]]]) -> Iterator[Transaction]:
        """The transaction of :meth:`_write`. On SQLite, for a move's or an undo's statements,
        one on the file's own connection, without SQLAlchemy (its transaction and execution
        cost several times SQLite's work: most of a move's store write); else
        :meth:`transaction`."""
        if self.shared or not all(statement in _MOVE_STATEMENTS for statement, _ in statements):
            with self.transaction() as tx:
                yield tx
            return
        with self._lock:  # as every transaction on the file's connection
            raw = self._raw_writer
            raw.execute("BEGIN IMMEDIATE")
            tx = Transaction(raw, self)
            try:
                yield tx
                raw.execute("COMMIT")
            except BaseException:
                if raw.in_transaction:
                    raw.execute("ROLLBACK")
                raise
        for topic, event in tx.pending:
            self.broker.publish(topic, event)

    def _run(self, connection: Any, statement: sa.Executable, params: dict[str, Any]) -> Any:
        """Run ``statement`` in ``connection``'s transaction (a SQLAlchemy connection, or
        SQLite's own in :meth:`_write_transaction`, the statement compiled once for it); a
        result to fetch rows from."""
        if not isinstance(connection, sqlite3.Connection):
            return connection.execute(statement, params)
        compiled = _SQLITE_STATEMENTS.get(statement)
        if compiled is None:
            compiled = _SQLITE_STATEMENTS[statement] = cast(sa.ClauseElement, statement).compile(
                dialect=self.engine.dialect)
        values = compiled.construct_params(params) or {}
        return connection.execute(compiled.string,
                                  [values[name] for name in getattr(compiled, "positiontup", None) or ()])

    def create(self, game: str, options: dict[str, Any], setup: GameSetup,
               moves: Sequence[str] = (), summary: str = "", finished: bool = False,
               clock: Clock | None = None) -> StoredGame:
        now = time.time()
        while True:  # ids are random; retry on the (unlikely) clash
            game_id = secrets.token_hex(12)  # 96 random bits: an address no one guesses
            row = {"id": game_id, "game": game, "options": json.dumps(options),
                   "setup": json.dumps(setup.to_dict()), "resigned": None, "summary": summary,
                   "created": now, "updated": now, "finished": int(finished), "revision": 0,
                   **_clock_columns(clock)}
            played = [{"game_id": game_id, "ply": ply, "move": move} for ply, move in enumerate(moves)]
            try:
                with self.transaction() as tx:
                    tx.connection.execute(games_table.insert().values(row))
                    if played:
                        tx.connection.execute(moves_table.insert(), played)
                    tx.announce(game_topic(game_id), {"game": game_id, "change": "create",
                                                      "revision": 0, "moves": len(played)})
            except sa_exc.IntegrityError:
                if self.get(game_id) is not None:
                    continue
                raise
            break
        self._seen[game_id] = 0
        return StoredGame(game_id, game, dict(options), setup, list(moves), None, now, now,
                          summary, finished, 0, clock)

    def add_move(self, game_id: str, ply: int, move: str, summary: str, finished: bool,
                 timed: Timed | None = None) -> int | None:
        """Store ``move`` as move ``ply`` (0 for the first): it must follow the stored moves.
        ``timed``: a timed game's clock after the move, stored only if the game is still at
        the revision the move was played on. Returns the game's new revision (as every
        write below does)."""
        touch, check = _touch(summary, finished, timed)
        return self._write(game_id, ply, "move", [(INSERT_MOVE, {"ply_": ply, "move_": move}), touch],
                           after=ply + 1, revision=check)

    def truncate(self, game_id: str, had: int, keep: int, summary: str, finished: bool,
                 timed: Timed | None = None) -> int | None:
        """Undo: of the ``had`` stored moves, keep the first ``keep`` (``timed``: as
        :meth:`add_move`)."""
        touch, check = _touch(summary, finished, timed)
        return self._write(game_id, had, "undo", [(DELETE_MOVES_FROM, {"ply_": keep}), touch], after=keep,
                           revision=check)

    def due(self, now: float) -> builtins.list[str]:
        """The unfinished games whose clock ends them by ``now`` (a flag fell, a first move
        was missed), earliest first, at most 100 at a time."""
        with self.reading() as connection:
            return [_text(game_id, "an id") for (game_id,) in connection.execute(SELECT_DUE, {"now_": now}).all()]

    def update(self, game_id: str, moves: int | None, *, options: dict | None = None,
               setup: GameSetup | None = None, resigned: str | None = None, summary: str | None = None,
               finished: bool | None = None, touch: bool = True, timed: Timed | None = None,
               change: str = "update") -> int | None:
        """Change the game's row; with ``moves``, only if it has that many stored moves;
        with ``timed``, store its clock, only if the game is still at its revision."""
        changes: dict[str, Any] = {}
        if timed is not None:
            changes.update(_clock_columns(timed.clock))
        if summary is not None:
            changes["summary"] = summary
        if options is not None:
            changes["options"] = json.dumps(options)
        if setup is not None:
            changes["setup"] = json.dumps(setup.to_dict())
        if resigned is not None:
            changes["resigned"] = resigned
        if finished is not None:
            changes["finished"] = int(finished)
        if touch:
            changes["updated"] = time.time()
        if not changes:
            return None
        return self._write(game_id, moves, change, [(
            games_table.update().where(games_table.c.id == _game_id)
            .values({**changes, "revision": games_table.c.revision + 1}), {})],
            revision=None if timed is None else timed.revision)

    def delete(self, game_id: str) -> None:
        self._write(game_id, None, "delete", [(moves_table.delete().where(moves_table.c.game_id == _game_id), {}),
                                              (games_table.delete().where(games_table.c.id == _game_id), {})],
                    raises_revision=False)
        self._seen.pop(game_id, None)


@dataclass(frozen=True)
class Timed:
    """A timed game's write: its ``clock`` after the change, and the ``revision`` the
    change was made on (the write is refused if the game has moved on: another server
    process may have ended it on time, which adds no move)."""

    clock: Clock
    revision: int


def _clock_columns(clock: Clock | None) -> dict[str, Any]:
    """The ``clock`` and ``deadline`` columns of a game with ``clock``."""
    if clock is None:
        return {"clock": None, "deadline": None}
    return {"clock": json.dumps(clock.to_dict()), "deadline": clock.deadline()}


Statement = tuple[sa.Executable, dict[str, Any]]  # a statement with its parameters


def _touch(summary: str, finished: bool, timed: Timed | None) -> tuple[Statement, int | None]:
    """The statement that marks a game played (and stores its clock) and the revision to check."""
    touch = {"updated_": time.time(), "summary_": summary, "finished_": int(finished)}
    if timed is None:
        return (TOUCH_GAME, touch), None
    columns = _clock_columns(timed.clock)
    return (TOUCH_TIMED_GAME, {**touch, "clock_": columns["clock"], "deadline_": columns["deadline"]}), timed.revision


def _first(result: Any) -> Any:
    """The first column of a result's first row (None if it has none)."""
    row = result.fetchone()
    return None if row is None else row[0]


# A move's and an undo's statements: on SQLite run without SQLAlchemy (Store._write_transaction).
_MOVE_STATEMENTS = frozenset({LOCK_GAME, COUNT_MOVES, INSERT_MOVE, DELETE_MOVES_FROM, TOUCH_GAME, TOUCH_TIMED_GAME})
_SQLITE_STATEMENTS: dict[sa.Executable, Any] = {}


def _first_line(error: BaseException | None) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
