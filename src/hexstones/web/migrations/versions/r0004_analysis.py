"""analysis: the AI's analysis of each position of a game (the analysis mode,
hexstones.web.analysis), one row a position, keyed by the moves that lead there.

Revision ID: 0004
Revises: 0002

(Written beside online play's 0003, accounts, on another branch: whichever of the two is
merged second points its ``down_revision`` at the other, so that the chain has one head.)
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0002"
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
