"""ratings: each account's Glicko-2 rating per game (Keil, Dehil, Droched), its history
(one row per rated game, for the profile's graph), and the rated games already counted
(a game moves its players' ratings once, however many server processes see it end).

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column("user_id", sa.Text, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("game", sa.Text, nullable=False),  # keil, dehil, droched
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),  # rated games counted
        sa.Column("updated", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("user_id", "game"),
    )
    op.create_index("ratings_game", "ratings", ["game", "rating"])
    op.create_table(
        "rated_games",
        sa.Column("game_id", sa.Text, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("counted", sa.Float, nullable=False),
    )
    op.create_table(
        "rating_history",
        sa.Column("user_id", sa.Text, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("game", sa.Text, nullable=False),
        sa.Column("game_id", sa.Text, nullable=False),  # the rated game (kept if it is deleted)
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),  # after the game
        sa.Column("deviation", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("user_id", "game_id"),
    )
    op.create_index("rating_history_user", "rating_history", ["user_id", "game", "at"])


def downgrade() -> None:
    op.drop_table("rating_history")
    op.drop_table("rated_games")
    op.drop_table("ratings")
