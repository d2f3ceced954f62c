"""tournaments: round robins and Swiss tournaments between accounts (hexstones.web.tournaments):
the tournament and its choices, its players (each account once), and each round's games
(a round's boards are its primary key: a round is paired once, however many server
processes see the previous one end).

Revision ID: 0012
Revises: 0011
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Text, primary_key=True),  # a random token
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("creator", sa.Text, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("game", sa.Text, nullable=False),
        sa.Column("choices", sa.Text, nullable=False),  # JSON: the games' new-game choices (size, clock...)
        sa.Column("system", sa.Text, nullable=False),  # "swiss" or "round-robin"
        sa.Column("rounds", sa.Integer),  # Swiss: as chosen; round robin: set at the start
        sa.Column("max_players", sa.Integer, nullable=False),
        sa.Column("entrants", sa.Integer, nullable=False),  # players joined (kept with each join)
        sa.Column("starts_at", sa.Float),  # NULL: when its creator starts it
        # "open" (joining), "running", "finished" or "cancelled" (too few players at its start)
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("round", sa.Integer, nullable=False),  # the round being played; 0 before the start
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("started", sa.Float),
        sa.Column("finished", sa.Float),
        sa.Column("winner", sa.Text),  # the winner's account id, once finished
    )
    op.create_index("tournaments_status", "tournaments", ["status", "created"])
    op.create_table(
        "tournament_players",
        sa.Column("tournament_id", sa.Text, sa.ForeignKey("tournaments.id", ondelete="CASCADE"), nullable=False),
        sa.Column("user_id", sa.Text, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seed", sa.Integer),  # 0: the top seed; set at the start
        sa.Column("joined", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "user_id"),
    )
    op.create_table(
        "tournament_games",
        sa.Column("tournament_id", sa.Text, sa.ForeignKey("tournaments.id", ondelete="CASCADE"), nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("board", sa.Integer, nullable=False),  # 1 first; the bye's row comes last
        sa.Column("black", sa.Text, nullable=False),  # account ids; the bye: its player here
        sa.Column("white", sa.Text),  # NULL: a bye
        sa.Column("game_id", sa.Text),  # the game, once made (NULL for a bye)
        # "black", "white" (who won), "draw", "none" (both lose: the game is gone), "bye"
        sa.Column("result", sa.Text),
        sa.PrimaryKeyConstraint("tournament_id", "round", "board"),
    )


def downgrade() -> None:
    op.drop_table("tournament_games")
    op.drop_table("tournament_players")
    op.drop_table("tournaments")
