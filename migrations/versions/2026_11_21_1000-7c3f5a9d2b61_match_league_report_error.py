"""match league report error: why a confirmed result did not reach its league game

Revision ID: 7c3f5a9d2b61
Revises: e41f0c2b7a9d
Create Date: 2026-11-21 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "7c3f5a9d2b61"
down_revision: str | None = "e41f0c2b7a9d"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("league_report_error", sa.String(length=500), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_column("league_report_error")
