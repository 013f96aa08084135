"""clubs

Revision ID: a4b214172391
Revises: 8b35f7e63ab0
Create Date: 2026-11-21 05:52:54.222693
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "a4b214172391"
down_revision: str | None = "8b35f7e63ab0"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "clubs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("description", sa.String(length=1000), nullable=False),
        sa.Column("is_public", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_clubs")),
    )
    op.create_table(
        "club_invites",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("code_digest", sa.String(length=64), nullable=False),
        sa.Column("created_by_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("max_uses", sa.Integer(), nullable=True),
        sa.Column("uses", sa.Integer(), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["club_id"],
            ["clubs.id"],
            name=op.f("fk_club_invites_club_id_clubs"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["created_by_id"],
            ["users.id"],
            name=op.f("fk_club_invites_created_by_id_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_club_invites")),
        sa.UniqueConstraint("code_digest", name=op.f("uq_club_invites_code_digest")),
    )
    with op.batch_alter_table("club_invites", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_club_invites_club_id"), ["club_id"], unique=False)

    op.create_table(
        "club_members",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=10), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["club_id"],
            ["clubs.id"],
            name=op.f("fk_club_members_club_id_clubs"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_club_members_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_club_members")),
        sa.UniqueConstraint("club_id", "user_id", name=op.f("uq_club_members_club_id")),
    )
    with op.batch_alter_table("club_members", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_club_members_club_id"), ["club_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_club_members_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("club_members", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_club_members_user_id"))
        batch_op.drop_index(batch_op.f("ix_club_members_club_id"))

    op.drop_table("club_members")
    with op.batch_alter_table("club_invites", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_club_invites_club_id"))

    op.drop_table("club_invites")
    op.drop_table("clubs")
