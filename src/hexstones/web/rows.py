"""Rows of online play's tables (accounts, sessions) in the games database, through the
store's data layer (SQLite or PostgreSQL): statements with ``:name`` parameters, each
run in a transaction of its own. The tables are made by the migration r0003_accounts."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from hexstones.web.store import Store


def column_text(value: Any) -> Any:
    """A text column's value as text: SQLite's reading connection gives bytes (bad UTF-8,
    which only another program could store, is shown replaced, not refused)."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


class Rows:
    IntegrityError = sa_exc.IntegrityError

    def __init__(self, store: Store) -> None:
        self._store = store

    def query(self, sql: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        """The rows of one reading statement, each a dict by column name."""
        return self._store.query(sql, params)

    def execute(self, sql: str, params: dict[str, Any]) -> None:
        with self._store.transaction() as tx:
            tx.connection.execute(sa.text(sql), params)

    @contextmanager
    def transaction(self) -> Iterator[Statements]:
        """Several statements in one transaction (SQLite: the write lock is held from the
        start; PostgreSQL: rows a statement writes stay locked until the end)."""
        with self._store.transaction() as tx:
            yield Statements(tx.connection)


class Statements:
    """The statements of one :meth:`Rows.transaction`."""

    def __init__(self, connection: sa.Connection) -> None:
        self._connection = connection

    def query(self, sql: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        return [dict(row._mapping) for row in self._connection.execute(sa.text(sql), params).all()]

    def execute(self, sql: str, params: dict[str, Any]) -> None:
        self._connection.execute(sa.text(sql), params)
