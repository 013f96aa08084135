"""leagues

Revision ID: d24ea6a1345d
Revises: a4b214172391
Create Date: 2026-11-21 06:05:08.949165
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "d24ea6a1345d"
down_revision: str | None = "a4b214172391"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "leagues",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("description", sa.String(length=1000), nullable=False),
        sa.Column("rule_system", sa.String(length=40), nullable=False),
        sa.Column("battle_size", sa.String(length=40), nullable=False),
        sa.Column("points_limit", sa.Integer(), nullable=True),
        sa.Column("mission_pool", sa.JSON(), nullable=False),
        sa.Column("starts_on", sa.Date(), nullable=True),
        sa.Column("ends_on", sa.Date(), nullable=True),
        sa.Column("format", sa.String(length=20), nullable=False),
        sa.Column("rounds_planned", sa.Integer(), nullable=True),
        sa.Column("legs", sa.Integer(), nullable=False),
        sa.Column("win_points", sa.Integer(), nullable=False),
        sa.Column("draw_points", sa.Integer(), nullable=False),
        sa.Column("loss_points", sa.Integer(), nullable=False),
        sa.Column("bye_points", sa.Integer(), nullable=False),
        sa.Column("tie_breakers", sa.JSON(), nullable=False),
        sa.Column("max_meetings", sa.Integer(), nullable=True),
        sa.Column("max_games", sa.Integer(), nullable=True),
        sa.Column("no_back_to_back", sa.Boolean(), nullable=False),
        sa.Column("visibility", sa.String(length=10), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("created_by_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["club_id"], ["clubs.id"], name=op.f("fk_leagues_club_id_clubs"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["created_by_id"],
            ["users.id"],
            name=op.f("fk_leagues_created_by_id_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_leagues")),
    )
    with op.batch_alter_table("leagues", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_leagues_club_id"), ["club_id"], unique=False)

    op.create_table(
        "league_registrations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("army_id", sa.Integer(), nullable=True),
        sa.Column("army_name", sa.String(length=120), nullable=False),
        sa.Column("snapshot", sa.JSON(), nullable=False),
        sa.Column("registered_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("snapshot_replaced_by_id", sa.Integer(), nullable=True),
        sa.Column("snapshot_replaced_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["league_id"],
            ["leagues.id"],
            name=op.f("fk_league_registrations_league_id_leagues"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["snapshot_replaced_by_id"],
            ["users.id"],
            name=op.f("fk_league_registrations_snapshot_replaced_by_id_users"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_league_registrations_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_league_registrations")),
        sa.UniqueConstraint("league_id", "user_id", name=op.f("uq_league_registrations_league_id")),
    )
    with op.batch_alter_table("league_registrations", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_league_registrations_league_id"), ["league_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_league_registrations_user_id"), ["user_id"], unique=False
        )

    op.create_table(
        "league_rounds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("bye_id", sa.Integer(), nullable=True),
        sa.Column("rematches", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["bye_id"],
            ["league_registrations.id"],
            name=op.f("fk_league_rounds_bye_id_league_registrations"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["league_id"],
            ["leagues.id"],
            name=op.f("fk_league_rounds_league_id_leagues"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_league_rounds")),
        sa.UniqueConstraint("league_id", "number", name=op.f("uq_league_rounds_league_id")),
    )
    with op.batch_alter_table("league_rounds", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_league_rounds_league_id"), ["league_id"], unique=False)

    op.create_table(
        "league_games",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=True),
        sa.Column("table_number", sa.Integer(), nullable=True),
        sa.Column("player_a_id", sa.Integer(), nullable=False),
        sa.Column("player_b_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("winner_id", sa.Integer(), nullable=True),
        sa.Column("vp_a", sa.Integer(), nullable=True),
        sa.Column("vp_b", sa.Integer(), nullable=True),
        sa.Column("accepted_a", sa.Boolean(), nullable=False),
        sa.Column("accepted_b", sa.Boolean(), nullable=False),
        sa.Column("reported_by_id", sa.Integer(), nullable=True),
        sa.Column("reported_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("confirmed_by_id", sa.Integer(), nullable=True),
        sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("disputed_by_id", sa.Integer(), nullable=True),
        sa.Column("dispute_note", sa.String(length=500), nullable=False),
        sa.Column("settled_by_id", sa.Integer(), nullable=True),
        sa.Column("settled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("match_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["confirmed_by_id"],
            ["users.id"],
            name=op.f("fk_league_games_confirmed_by_id_users"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["disputed_by_id"],
            ["users.id"],
            name=op.f("fk_league_games_disputed_by_id_users"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["league_id"],
            ["leagues.id"],
            name=op.f("fk_league_games_league_id_leagues"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_a_id"],
            ["league_registrations.id"],
            name=op.f("fk_league_games_player_a_id_league_registrations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_b_id"],
            ["league_registrations.id"],
            name=op.f("fk_league_games_player_b_id_league_registrations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["reported_by_id"],
            ["users.id"],
            name=op.f("fk_league_games_reported_by_id_users"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["round_id"],
            ["league_rounds.id"],
            name=op.f("fk_league_games_round_id_league_rounds"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["settled_by_id"],
            ["users.id"],
            name=op.f("fk_league_games_settled_by_id_users"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["winner_id"],
            ["league_registrations.id"],
            name=op.f("fk_league_games_winner_id_league_registrations"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_league_games")),
    )
    with op.batch_alter_table("league_games", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_league_games_league_id"), ["league_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_league_games_player_a_id"), ["player_a_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_league_games_player_b_id"), ["player_b_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_league_games_round_id"), ["round_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("league_games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_league_games_round_id"))
        batch_op.drop_index(batch_op.f("ix_league_games_player_b_id"))
        batch_op.drop_index(batch_op.f("ix_league_games_player_a_id"))
        batch_op.drop_index(batch_op.f("ix_league_games_league_id"))

    op.drop_table("league_games")
    with op.batch_alter_table("league_rounds", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_league_rounds_league_id"))

    op.drop_table("league_rounds")
    with op.batch_alter_table("league_registrations", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_league_registrations_user_id"))
        batch_op.drop_index(batch_op.f("ix_league_registrations_league_id"))

    op.drop_table("league_registrations")
    with op.batch_alter_table("leagues", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_leagues_club_id"))

    op.drop_table("leagues")
