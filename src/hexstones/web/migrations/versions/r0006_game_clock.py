"""game clock: each game's clock (JSON, NULL for a game without one) and the instant its
next deadline passes (a flag falls, or a missed first move aborts it), indexed so that every
server process finds the games whose time ran out with one query.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("clock", sa.Text))  # hexstones.session.Clock.to_dict as JSON
    op.add_column("games", sa.Column("deadline", sa.Float))  # seconds since the epoch; NULL: none
    op.create_index("games_deadline", "games", ["deadline"])


def downgrade() -> None:
    op.drop_index("games_deadline", "games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("deadline")
        batch.drop_column("clock")
