"""catalogue waiting uploads: files kept until their game system is added

Revision ID: d5e1a7c3b902
Revises: f2a9c4d7e815
Create Date: 2026-11-26 19:30:00

Issue 17: BattleScribe files uploaded without their game system (.gst) are imported with what
they hold, and kept (one set per user, as a zip archive) so that uploading the .gst alone
imports them again complete. Deleting the user deletes them; run down, the table goes (the
files wait nowhere: the user uploads them again with the .gst).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "d5e1a7c3b902"
down_revision: str | None = "f2a9c4d7e815"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "catalogue_waiting_uploads",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("names", sa.JSON(), nullable=False),
        sa.Column("archive", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_catalogue_waiting_uploads_owner_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_catalogue_waiting_uploads")),
        sa.UniqueConstraint("owner_id", name=op.f("uq_catalogue_waiting_uploads_owner_id")),
    )


def downgrade() -> None:
    op.drop_table("catalogue_waiting_uploads")
