"""account language: the language an account reads the app in (NULL: the browser's), so that
it follows the account to another browser and the email notices are written in it.

Revision ID: 0013
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("language", sa.Text))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("language")
