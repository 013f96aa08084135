"""spectator consent: which seats agreed to a spectator link

Revision ID: f2a9c4d7e815
Revises: b3d8f61a2c94
Create Date: 2026-11-26 10:30:00

Issue 21 (ruling S19): the spectator link turns on when both players agreed, or when the
organiser turns it on. ``matches.spectate_consent`` keeps a bit per seat (1: A, 2: B). A link
already on was turned on by one player alone, or by an organiser (which cannot be told apart):
it is turned off, as a rotation would (its nonce moves on), and no agreement is recorded, so
both players, or the organiser, turn it on again. Run down, the column goes.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "f2a9c4d7e815"
down_revision: str | None = "b3d8f61a2c94"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(
            sa.Column("spectate_consent", sa.Integer(), nullable=False, server_default="0")
        )
    op.execute(
        "UPDATE matches SET spectate_digest = NULL, spectate_nonce = spectate_nonce + 1"
        " WHERE spectate_digest IS NOT NULL"
    )


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("spectate_consent")
