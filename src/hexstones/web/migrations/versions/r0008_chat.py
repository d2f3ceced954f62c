"""chat: the messages beside a game between two people online (hexstones.web.chat), numbered
from 1 within each game, and each seat's switches (let spectators write, mute the other
seat); both go with their game when it is deleted.

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chat_messages",
        sa.Column("game_id", sa.Text, sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        # 1, 2, ... within the game, taken under the game's row lock: no serial column, whose
        # sequence a copy of the database to PostgreSQL would leave behind its rows
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("author", sa.Text, nullable=False),  # JSON: the author's seat holder (session, user, name)
        sa.Column("role", sa.Text, nullable=False),  # the author's seat (black, white, proposer...) or "spectator"
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("sent", sa.Float, nullable=False),  # seconds since the epoch, the server's clock
        sa.PrimaryKeyConstraint("game_id", "id"),
    )
    op.create_table(
        "chat_settings",
        sa.Column("game_id", sa.Text, sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("role", sa.Text, nullable=False),  # the seat whose player set them
        sa.Column("spectators_may_write", sa.Integer, nullable=False),  # 1: this player lets them
        sa.Column("mute", sa.Integer, nullable=False),  # 1: this player hides the other seat's messages
        sa.PrimaryKeyConstraint("game_id", "role"),
    )


def downgrade() -> None:
    op.drop_table("chat_settings")
    op.drop_table("chat_messages")
