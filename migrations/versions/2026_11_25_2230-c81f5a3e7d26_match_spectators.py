"""a read-only spectator link per match: its digest and nonce

Revision ID: c81f5a3e7d26
Revises: a7c4e2b9d1f3
Create Date: 2026-11-25 22:30:00

``matches.spectate_digest`` is the SHA-256 digest of the spectator link's token (NULL: no link,
the default); the token itself is derived from the match secret and ``spectate_nonce``, which
rotating or disabling the link moves on (app.matches.spectate). Run down, both columns go, and
every spectator link with them.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "c81f5a3e7d26"
down_revision: str | None = "a7c4e2b9d1f3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("spectate_digest", sa.String(length=64), nullable=True))
        batch.add_column(
            sa.Column("spectate_nonce", sa.Integer(), nullable=False, server_default="0")
        )
        batch.create_unique_constraint("uq_matches_spectate_digest", ["spectate_digest"])


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_constraint("uq_matches_spectate_digest", type_="unique")
        batch.drop_column("spectate_nonce")
        batch.drop_column("spectate_digest")
