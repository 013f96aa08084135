"""seal match secrets: matches.secret holds the secret XOR a pad only the server key gives

Revision ID: b6e1d2c4a8f3
Revises: 891844cf183d
Create Date: 2026-11-21 12:00:00

Until this revision ``matches.secret`` held, in clear, the secret a match derives its
invitation code, guest link and dice seeds from: a dump of the database alone could take a
seat or predict the dice. From here on the column holds the secret XOR
``HMAC-SHA256(server key, "auspex.match-secret|<match id>")`` (ADR 0010, app.matches.sealing).
This revision seals the rows stored before it, with the server key of the settings it runs with
(``W40K_SECRET_KEY``, the one the server uses): every existing match keeps its working secret,
so its codes, its links and the dice of its next commands are the ones it would have had.
Run down, the same XOR unseals them. No row is added or removed, no column changes: a plain
``UPDATE`` per match on both databases.

The pad is copied here rather than imported: a revision must not change when the app does.
"""

import hashlib
import hmac
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.core.config import get_settings

revision: str = "b6e1d2c4a8f3"
down_revision: str | None = "891844cf183d"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_matches = sa.table("matches", sa.column("id", sa.Integer), sa.column("secret", sa.String))


def _xor_pad(value: str, match_id: int, server_key: str) -> str:
    raw = bytes.fromhex(value)
    pad = hmac.new(
        server_key.encode(), f"auspex.match-secret|{match_id}".encode(), hashlib.sha256
    ).digest()
    if len(raw) != len(pad):
        raise ValueError(f"match {match_id}: its secret is not 32 bytes in hex")
    return bytes(a ^ b for a, b in zip(raw, pad, strict=True)).hex()


def _xor_every_secret() -> None:
    conn = op.get_bind()
    key = get_settings().secret_key
    rows = conn.execute(sa.select(_matches.c.id, _matches.c.secret)).all()
    for match_id, secret in rows:
        conn.execute(
            _matches.update()
            .where(_matches.c.id == match_id)
            .values(secret=_xor_pad(secret, match_id, key))
        )


def upgrade() -> None:
    _xor_every_secret()


def downgrade() -> None:
    _xor_every_secret()
