"""every API token expires: tokens stored without an expiry get one

Revision ID: 3e9a7c1d5b20
Revises: b6e1d2c4a8f3
Create Date: 2026-11-25 19:15:00

Tokens are now created with a lifetime of at most 365 days (issue 11, ADR 0011). Tokens made
before that could have none and would stay valid forever; this revision gives each of them the
longest lifetime a new token can have, counted from its creation, but never less than 30 more
days from today, so a tool using an old token is not cut off without notice. No row is added or
removed and no column changes. Run down, the dates stay: which tokens had none is not kept, and
an expiry is the safe side of that loss.
"""

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from alembic import op

revision: str = "3e9a7c1d5b20"
down_revision: str | None = "b6e1d2c4a8f3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MAX_DAYS = 365
GRACE_DAYS = 30

tokens = sa.table(
    "api_tokens",
    sa.column("id", sa.Integer),
    sa.column("created_at", sa.DateTime(timezone=True)),
    sa.column("expires_at", sa.DateTime(timezone=True)),
)


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def upgrade() -> None:
    conn = op.get_bind()
    now = datetime.now(UTC)
    rows = conn.execute(
        sa.select(tokens.c.id, tokens.c.created_at).where(tokens.c.expires_at.is_(None))
    ).all()
    for token_id, created_at in rows:
        expires = max(
            _aware(created_at) + timedelta(days=MAX_DAYS), now + timedelta(days=GRACE_DAYS)
        )
        conn.execute(sa.update(tokens).where(tokens.c.id == token_id).values(expires_at=expires))


def downgrade() -> None:
    # The expiries stay (see the module docstring): nothing to undo in the schema.
    pass
