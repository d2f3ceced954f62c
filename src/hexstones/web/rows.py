"""Rows of the online tables (accounts, sessions) in the games database, through the store.

The one place the online modules reach the database: statements with ``:name``
parameters, run on the store's connection under its lock, each in a transaction.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from hexstones.web.store import Store


class Rows:
    IntegrityError = sqlite3.IntegrityError

    def __init__(self, store: Store) -> None:
        self._store = store

    def script(self, sql: str) -> None:
        with self._store._lock:
            self._store._db.executescript("BEGIN IMMEDIATE;" + sql + "COMMIT;")

    def query(self, sql: str, params: dict[str, Any]) -> list[tuple]:
        with self._store._lock:
            return self._store._db.execute(sql, params).fetchall()

    def execute(self, sql: str, params: dict[str, Any]) -> None:
        self._store._write(None, None, [(sql, params)])  # type: ignore[list-item]
