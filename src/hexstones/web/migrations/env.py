"""Alembic's environment for the games database: run by :func:`hexstones.web.store.migrate`
with the store's connection (inside its transaction), never from an alembic.ini."""

from alembic import context

connection = context.config.attributes["connection"]
# render_as_batch: SQLite changes most columns by copying the table; Alembic's batch mode
# does that for op.alter_column and the like on SQLite, and plain ALTERs on PostgreSQL.
context.configure(connection=connection, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
