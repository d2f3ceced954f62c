"""sign_in_failures: failed sign-ins by key (a name, an address), kept in the database so
that every server process on it slows down the same guesser (hexstones.web.accounts.Throttle).

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sign_in_failures",
        sa.Column("key", sa.Text, primary_key=True),  # "name:<name key>", "address:<ip>", "user:<id>"
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("last_failed", sa.Float, nullable=False),  # seconds since the epoch
    )
    op.create_index("sign_in_failures_last", "sign_in_failures", ["last_failed"])


def downgrade() -> None:
    op.drop_table("sign_in_failures")
