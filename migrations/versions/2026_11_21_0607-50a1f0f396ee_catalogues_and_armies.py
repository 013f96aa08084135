"""catalogues and armies: stored catalogue documents (starter, imported, club-shared) and army lists

Revision ID: 50a1f0f396ee
Revises: d24ea6a1345d
Create Date: 2026-11-21 06:07:47.685815
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "50a1f0f396ee"
down_revision: str | None = "d24ea6a1345d"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "catalogues",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("slug", sa.String(length=120), nullable=False),
        sa.Column("source_id", sa.String(length=200), nullable=False),
        sa.Column("rule_system", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("version", sa.String(length=200), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("factions", sa.JSON(), nullable=False),
        sa.Column("datasheet_count", sa.Integer(), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=True),
        sa.Column("club_id", sa.Integer(), nullable=True),
        sa.Column("document", sa.JSON(), nullable=False),
        sa.Column("report", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["club_id"], ["clubs.id"], name=op.f("fk_catalogues_club_id_clubs"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_catalogues_owner_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_catalogues")),
        sa.UniqueConstraint("owner_id", "source_id", name=op.f("uq_catalogues_owner_id")),
        sa.UniqueConstraint("slug", name=op.f("uq_catalogues_slug")),
    )
    with op.batch_alter_table("catalogues", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_catalogues_club_id"), ["club_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_catalogues_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "armies",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("rule_system", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("catalogue_id", sa.Integer(), nullable=True),
        sa.Column("catalogue_version", sa.String(length=200), nullable=True),
        sa.Column("faction", sa.String(length=200), nullable=False),
        sa.Column("detachment", sa.String(length=200), nullable=False),
        sa.Column("battle_size", sa.String(length=20), nullable=True),
        sa.Column("points_limit", sa.Integer(), nullable=True),
        sa.Column("units", sa.JSON(), nullable=False),
        sa.Column("share_digest", sa.String(length=64), nullable=True),
        sa.Column("shared_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["catalogue_id"],
            ["catalogues.id"],
            name=op.f("fk_armies_catalogue_id_catalogues"),
            ondelete="RESTRICT",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], name=op.f("fk_armies_owner_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_armies")),
        sa.UniqueConstraint("share_digest", name=op.f("uq_armies_share_digest")),
    )
    with op.batch_alter_table("armies", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_armies_catalogue_id"), ["catalogue_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_armies_owner_id"), ["owner_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("armies", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_armies_owner_id"))
        batch_op.drop_index(batch_op.f("ix_armies_catalogue_id"))

    op.drop_table("armies")
    with op.batch_alter_table("catalogues", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_catalogues_owner_id"))
        batch_op.drop_index(batch_op.f("ix_catalogues_club_id"))

    op.drop_table("catalogues")
