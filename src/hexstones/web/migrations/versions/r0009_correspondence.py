"""correspondence: vacations (each account's days away this year, which pause the clocks of
its correspondence games while it is its turn), the email a player asked for (the address,
which notices, the secret of the unsubscribe link) and the notices sent (one per game, kind
and move: several server processes send each one once).

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "vacations",
        sa.Column("user_id", sa.Text, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("started", sa.Float),  # seconds since the epoch; NULL: not away now
        sa.Column("until", sa.Float),  # when the vacation ends by itself
        sa.Column("year", sa.Integer, nullable=False),  # the calendar year (UTC) ``used`` counts
        sa.Column("used", sa.Integer, nullable=False),  # days taken in ``year``
    )
    op.create_index("vacations_until", "vacations", ["until"])
    op.create_table(
        "mail_preferences",
        sa.Column("user_id", sa.Text, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("address", sa.Text, nullable=False),
        sa.Column("your_turn", sa.Integer, nullable=False),  # 1: a notice when it is their move
        sa.Column("low_time", sa.Integer, nullable=False),  # 1: a notice when their time runs low
        sa.Column("token", sa.Text, nullable=False, unique=True),  # the unsubscribe link's secret
    )
    op.create_table(
        "mail_sent",
        sa.Column("game_id", sa.Text, sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("kind", sa.Text, nullable=False),  # "low_time"
        sa.Column("ply", sa.Integer, nullable=False),  # the move count when it was sent
        sa.Column("sent", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("game_id", "kind", "ply"),
    )


def downgrade() -> None:
    op.drop_table("mail_sent")
    op.drop_table("mail_preferences")
    op.drop_table("vacations")
