"""seeks: the lobby's open offers of a game (hexstones.web.lobby): who offers what, and
whether it is open, taken (by the game it started) or withdrawn; ``seen`` and ``left``
tell whether the maker of a live seek still has its waiting page open. A challenge is a
seek addressed to one account (``to_user``): it may also be declined, or expire.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seeks",
        sa.Column("id", sa.Text, primary_key=True),  # a random token
        sa.Column("maker", sa.Text, nullable=False),  # JSON: the maker's seat holder (session, user, name)
        sa.Column("maker_key", sa.Text, nullable=False),  # "user:<id>" or "session:<id>": counts their seeks
        sa.Column("game", sa.Text, nullable=False),
        sa.Column("choices", sa.Text, nullable=False),  # JSON: the new-game choices, less the opponent
        # "open", "taken" or "withdrawn"; a challenge's also "declined" or "expired"
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("game_id", sa.Text),  # the game it started, once taken
        # 1: withdrawn when its maker leaves; 0: correspondence, or a challenge
        sa.Column("live", sa.Integer, nullable=False),
        sa.Column("created", sa.Float, nullable=False),  # seconds since the epoch
        sa.Column("seen", sa.Float, nullable=False),  # the last heartbeat of the maker's waiting page
        sa.Column("left", sa.Float),  # when the maker's last waiting page closed; NULL while one is open
        sa.Column("to_user", sa.Text),  # a challenge: the id of the account challenged; NULL for a seek
        sa.Column("to_name", sa.Text),  # a challenge: that account's name, as shown
    )
    op.create_index("seeks_status", "seeks", ["status", "created"])
    op.create_index("seeks_maker", "seeks", ["maker_key", "status"])
    op.create_index("seeks_to_user", "seeks", ["to_user", "status"])


def downgrade() -> None:
    op.drop_table("seeks")
