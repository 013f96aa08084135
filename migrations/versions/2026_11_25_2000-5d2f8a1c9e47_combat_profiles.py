"""combat profiles: saved attackers, targets and matchups, and recent matchups, per user

Revision ID: 5d2f8a1c9e47
Revises: 3e9a7c1d5b20
Create Date: 2026-11-25 20:00:00

Issue 18, the calculator page: a logged-in user saves the current attacker, target or whole
matchup under a name, and the calculator keeps their last few calculations. Each row is a
calculator query string (bounded by the application); deleting the user deletes them.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5d2f8a1c9e47"
down_revision: str | None = "3e9a7c1d5b20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "combat_profiles",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("ruleset", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("query", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_combat_profiles_owner_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_combat_profiles")),
    )
    op.create_index(
        "ix_combat_profiles_owner_kind", "combat_profiles", ["owner_id", "kind"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_combat_profiles_owner_kind", table_name="combat_profiles")
    op.drop_table("combat_profiles")
