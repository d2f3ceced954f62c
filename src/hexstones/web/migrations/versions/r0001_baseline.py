"""Baseline: the schema of the games database before Alembic (SQLite files of schema 1 or 2).

A file made by the app before migrations has the tables but no ``alembic_version``: this
revision then only adds what schema 1 lacked (``games.finished``), keeping every row. A new
database gets the tables.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    tables = set(inspector.get_table_names())
    if "games" not in tables:
        op.create_table(
            "games",
            sa.Column("id", sa.Text, primary_key=True),
            sa.Column("game", sa.Text, nullable=False),
            sa.Column("options", sa.Text, nullable=False),  # JSON: new_game options
            sa.Column("setup", sa.Text, nullable=False),  # JSON: players, AI level, komi pie
            sa.Column("resigned", sa.Text),  # the colour that resigned, if any
            sa.Column("summary", sa.Text, nullable=False, server_default=""),
            sa.Column("created", sa.Float, nullable=False),
            sa.Column("updated", sa.Float, nullable=False),
            sa.Column("finished", sa.Integer),  # 1 over, 0 not, NULL not known yet
        )
    elif "finished" not in {c["name"] for c in inspector.get_columns("games")}:
        op.add_column("games", sa.Column("finished", sa.Integer))  # a file of schema 1
    if "moves" not in tables:
        op.create_table(
            "moves",
            sa.Column("game_id", sa.Text, sa.ForeignKey("games.id", ondelete="CASCADE"),
                      nullable=False),
            sa.Column("ply", sa.Integer, nullable=False),  # 0 for the first move
            sa.Column("move", sa.Text, nullable=False),
            sa.PrimaryKeyConstraint("game_id", "ply"),
        )


def downgrade() -> None:
    op.drop_table("moves")
    op.drop_table("games")
