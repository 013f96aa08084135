"""mission packs: narrative mission packs uploaded by users

Revision ID: b3d8f61a2c94
Revises: e4b7a9c2d610
Create Date: 2026-11-26 01:00:00

Issue 15: a user uploads a narrative mission pack (auspex-narrative-pack/1, checked by the
engine's loader) and creates 10th-edition matches with its scenarios. One pack id per owner
(a new upload of the same id replaces it); deleting the user deletes their packs.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "b3d8f61a2c94"
down_revision: str | None = "e4b7a9c2d610"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mission_packs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("pack_id", sa.String(length=40), nullable=False),
        sa.Column("document", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_mission_packs_owner_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mission_packs")),
        sa.UniqueConstraint("owner_id", "pack_id", name=op.f("uq_mission_packs_owner_id")),
    )
    op.create_index(op.f("ix_mission_packs_owner_id"), "mission_packs", ["owner_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_mission_packs_owner_id"), table_name="mission_packs")
    op.drop_table("mission_packs")
