"""league report version: a confirmation names the report it confirms

Revision ID: 891844cf183d
Revises: 7c3f5a9d2b61
Create Date: 2026-11-21 11:00:00

``league_games.report_version`` counts the results written to a game (a report, a correction,
a settlement, a tracked match's report). A player's confirm or dispute names the version they
saw; a changed report refuses it (409).

Both directions are a plain ``ALTER TABLE`` on SQLite too (``ADD COLUMN``, and ``DROP COLUMN``
since SQLite 3.35), never a batch rebuild of ``league_games``: rebuilding it drops the old
table, and with foreign keys on that would set every match's ``league_game_id`` to NULL.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "891844cf183d"
down_revision: str | None = "7c3f5a9d2b61"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "league_games",
        sa.Column("report_version", sa.Integer(), server_default=sa.text("0"), nullable=False),
    )
    # A game that already has a result is at its first report.
    op.execute("UPDATE league_games SET report_version = 1 WHERE status != 'scheduled'")


def downgrade() -> None:
    op.drop_column("league_games", "report_version")
