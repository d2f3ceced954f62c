"""bot accounts: an account can be marked a bot (outside engines play through it with
``hexstones bot``), and a bot account's tokens (stored as their SHA-256 only, revocable).

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("bot", sa.Integer, nullable=False, server_default="0"))
    op.create_table(
        "bot_tokens",
        sa.Column("digest", sa.Text, primary_key=True),  # SHA-256 of the token
        sa.Column("user_id", sa.Text, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("label", sa.Text, nullable=False),  # what its owner called it; shows on the account page
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("last_used", sa.Float),
        sa.Column("revoked", sa.Float),  # when it was revoked (NULL: it works)
    )
    op.create_index("bot_tokens_user", "bot_tokens", ["user_id"])


def downgrade() -> None:
    op.drop_table("bot_tokens")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("bot")
