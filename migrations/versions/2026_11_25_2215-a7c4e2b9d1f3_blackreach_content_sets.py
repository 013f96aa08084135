"""black reach content sets: a user's own forces, boards and scenarios

Revision ID: a7c4e2b9d1f3
Revises: 5d2f8a1c9e47
Create Date: 2026-11-25 22:15:00

Issue 16: the rulebook prints no component, so players keep their own counters, tiles, boards
and scenarios as JSON documents checked by the engine's readers. A set is private to its owner
(deleting the user deletes it); a read-only share link stores only its token's digest.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "a7c4e2b9d1f3"
down_revision: str | None = "5d2f8a1c9e47"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "blackreach_content_sets",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("forces", sa.JSON(), nullable=False),
        sa.Column("boards", sa.JSON(), nullable=False),
        sa.Column("scenarios", sa.JSON(), nullable=False),
        sa.Column("copied_from", sa.String(length=160), nullable=True),
        sa.Column("share_digest", sa.String(length=64), nullable=True),
        sa.Column("shared_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("version", sa.Integer(), server_default="1", nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_blackreach_content_sets_owner_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_blackreach_content_sets")),
        sa.UniqueConstraint("share_digest", name=op.f("uq_blackreach_content_sets_share_digest")),
    )
    op.create_index(
        op.f("ix_blackreach_content_sets_owner_id"),
        "blackreach_content_sets",
        ["owner_id"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_blackreach_content_sets_owner_id"), table_name="blackreach_content_sets")
    op.drop_table("blackreach_content_sets")
