"""Accounts and sessions of online play: ``users`` (a name, an argon2id hash of the
password) and ``sessions`` (the SHA-256 of a browser's cookie token; signed in to a user,
or a guest's name, or neither: a local player). Seats and invitations live in each game's
setup (stored with the game).

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("name_key", sa.Text, nullable=False, unique=True),  # the name folded
        sa.Column("password", sa.Text, nullable=False),  # argon2id hash
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("token", sa.Text, nullable=False, unique=True),  # SHA-256 of the cookie's value
        sa.Column("user_id", sa.Text, sa.ForeignKey("users.id", ondelete="CASCADE")),
        sa.Column("name", sa.Text),  # a guest's chosen name
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_index("sessions_user", "sessions", ["user_id"])


def downgrade() -> None:
    op.drop_table("sessions")
    op.drop_table("users")
