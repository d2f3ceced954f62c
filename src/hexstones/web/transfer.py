"""Copy a games database into a new one: SQLite to PostgreSQL (a server outgrowing one
process), PostgreSQL to SQLite (a backup to carry), or either to its own kind.

Both databases are opened as a server opens them (:class:`~hexstones.web.store.Store`: the
SQLite file's lock, so no server writes to either meanwhile; the migrations, so both have the
newest schema), then every table is copied row for row in one transaction of the target,
parents before children (games before moves). The target must hold no row yet: a copy never
merges two databases. Nothing here knows the tables: it copies what the schema has, so a
table added by a later migration travels without a change here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from hexstones.web.store import Store, is_url

SKIPPED = {"alembic_version"}  # each database keeps its own record of its migrations
BATCH = 1000  # rows a round trip


@dataclass
class Copied:
    """What a copy moved: rows by table, in the order copied."""

    source: str
    target: str
    rows: dict[str, int] = field(default_factory=dict)

    def __str__(self) -> str:
        counts = ", ".join(f"{n} {table}" for table, n in self.rows.items())
        return f"copied {counts} from {self.source} to {self.target}"


@contextmanager
def _opened(target: str) -> Iterator[tuple[Store, sa.Engine]]:
    """The store (locked, migrated) and an engine that reads and writes its text as text."""
    store = Store(target)
    try:
        if store.shared:
            yield store, store.engine
        else:
            # The store's own SQLite connections read text as bytes (one bad row spoils only
            # its game); a copy wants text, or a clear error for a row that is none.
            engine = sa.create_engine("sqlite://", creator=lambda: _sqlite(store.path))
            try:
                yield store, engine
            finally:
                engine.dispose()
    finally:
        store.close()


def _sqlite(path: str):
    import sqlite3

    db = sqlite3.connect(path, check_same_thread=False)
    db.execute("PRAGMA foreign_keys = ON")
    return db


def _tables(engine: sa.Engine) -> list[sa.Table]:
    meta = sa.MetaData()
    meta.reflect(bind=engine)
    return [t for t in meta.sorted_tables if t.name not in SKIPPED]


def copy_database(source: str, target: str,
                  progress: Callable[[str, int], None] | None = None) -> Copied:
    """Copy every row of the games database ``source`` into ``target`` (a SQLite file's path
    or a PostgreSQL URL; made if missing, and it must hold no row). ValueError, with nothing
    written to ``target``, if either cannot be opened, ``target`` is not empty, they are the
    same database, or a row of ``source`` cannot be read. ``progress(table, rows)`` after each
    batch."""
    source, target = str(source), str(target)
    if not is_url(source) and not os.path.isfile(source):
        raise ValueError(f"there is no games database {source!r} to copy")
    if source == target or (not is_url(source) and not is_url(target) and os.path.exists(target)
                            and os.path.samefile(source, target)):
        raise ValueError("the source and the target are the same database: give another target")
    with _opened(source) as (src_store, src), _opened(target) as (dst_store, dst):
        done = Copied(src_store.path, dst_store.path)
        tables = _tables(src)
        targets = {t.name: t for t in _tables(dst)}
        with dst.begin() as out:
            for table in targets.values():
                count = out.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
                if count:
                    raise ValueError(
                        f"the target {dst_store.path} already holds {count} row(s) in its table "
                        f"{table.name!r}: copy into a new, empty database (a copy never merges two)")
            for table in tables:
                into = targets.get(table.name)
                if into is None or set(into.c.keys()) != set(table.c.keys()):
                    raise ValueError(f"the table {table.name!r} differs between the two databases "
                                     f"(are both at the same schema revision?)")
                done.rows[table.name] = 0
                for rows in _batches(src, table, src_store.path):
                    out.execute(into.insert(), rows)
                    done.rows[table.name] += len(rows)
                    if progress is not None:
                        progress(table.name, done.rows[table.name])
    return done


def _batches(engine: sa.Engine, table: sa.Table, name: str) -> Iterator[list[dict]]:
    order = list(table.primary_key.columns) or list(table.c)
    try:
        with engine.connect() as connection:
            result = connection.execution_options(stream_results=True).execute(
                sa.select(table).order_by(*order))
            while rows := result.mappings().fetchmany(BATCH):
                yield [dict(row) for row in rows]
    except sa_exc.DBAPIError as exc:
        raise ValueError(f"a row of the table {table.name!r} of {name} cannot be read "
                         f"({str(exc.orig).splitlines()[0]}); nothing was copied") from None

