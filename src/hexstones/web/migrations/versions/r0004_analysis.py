"""analysis: the AI's analysis of each position of a game (the analysis mode,
hexstones.web.analysis), one row a position, keyed by the moves that lead there.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "analysis",
        sa.Column("game_id", sa.Text, sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("ply", sa.Integer, nullable=False),  # the position after this many moves
        sa.Column("position", sa.Text, nullable=False),  # key of the position: an undo makes a row stale
        sa.Column("data", sa.Text, nullable=False),  # JSON: records.sgf_analysis.compact form
        sa.PrimaryKeyConstraint("game_id", "ply"),
    )


def downgrade() -> None:
    op.drop_table("analysis")
