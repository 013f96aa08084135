"""army revision: a counter raised by every update of a list

Revision ID: e41f0c2b7a9d
Revises: cd309a80a5e4
Create Date: 2026-11-21 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "e41f0c2b7a9d"
down_revision: str | None = "cd309a80a5e4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("armies", schema=None) as batch_op:
        batch_op.add_column(sa.Column("revision", sa.Integer(), server_default="1", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("armies", schema=None) as batch_op:
        batch_op.drop_column("revision")
