"""The report-version migration keeps every row, both ways, on SQLite and on Postgres.

Rows are written with the schema of the revision before it (fixed for good), so this test does
not change when later revisions do. A batch rebuild of ``league_games`` on SQLite would drop
the old table with foreign keys on and set the matches' ``league_game_id`` to NULL: the
migration alters the table in place instead, and this test holds it to that.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import text
from sqlalchemy.engine import Connection

from app.core import migrate
from app.core.db import make_engine
from tests.core.test_migrations import scratch_url  # noqa: F401 - the fixture

BEFORE, REVISION = "7c3f5a9d2b61", "891844cf183d"
NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


def _type(value: object) -> Any:
    if isinstance(value, list | dict):
        return sa.JSON()
    if isinstance(value, datetime):
        return sa.DateTime(timezone=True)
    if isinstance(value, bool):
        return sa.Boolean()
    return None


def _insert(conn: Connection, table: str, **values: Any) -> int:
    columns = [sa.column(name, _type(value)) for name, value in values.items()]
    target = sa.table(table, sa.column("id"), *columns)
    return int(conn.execute(sa.insert(target).values(**values).returning(target.c.id)).scalar_one())


def _fill(conn: Connection) -> dict[str, int]:
    stamps = {"created_at": NOW, "updated_at": NOW}
    users = [
        _insert(
            conn,
            "users",
            email=f"{n}@example.com",
            display_name=n,
            password_hash="x",
            preferred_language="en",
            is_active=True,
            **stamps,
        )
        for n in ("alice", "bob")
    ]
    club = _insert(conn, "clubs", name="Club", description="", is_public=False, **stamps)
    league = _insert(
        conn,
        "leagues",
        club_id=club,
        name="League",
        description="",
        rule_system="wh40k-10e",
        battle_size="",
        mission_pool=[],
        format="ladder",
        legs=1,
        win_points=3,
        draw_points=1,
        loss_points=0,
        bye_points=3,
        tie_breakers=[],
        no_back_to_back=False,
        visibility="private",
        status="running",
        seed=1,
        **stamps,
    )
    regs = [
        _insert(
            conn,
            "league_registrations",
            league_id=league,
            user_id=u,
            army_name="",
            snapshot={},
            registered_at=NOW,
        )
        for u in users
    ]
    game: dict[str, Any] = {
        "league_id": league,
        "player_a_id": regs[0],
        "player_b_id": regs[1],
        "accepted_a": False,
        "accepted_b": False,
        "dispute_note": "",
        **stamps,
    }
    scheduled = _insert(conn, "league_games", status="scheduled", **game)
    reported = _insert(
        conn, "league_games", **{**game, "status": "reported", "vp_a": 90, "vp_b": 10}
    )
    match = _insert(
        conn,
        "matches",
        rule_system="wh40k-10e",
        mission_id="m",
        battle_size="strike_force",
        status="finished",
        opponent_kind="user",
        guest_name="",
        secret="0" * 64,
        invite_nonce=0,
        league_game_id=reported,
        league_reported=True,
        version=1,
        vp_a=90,
        vp_b=10,
        round=5,
        **stamps,
    )
    return {"scheduled": scheduled, "reported": reported, "match": match}


def _counts(conn: Connection) -> tuple[int, ...]:
    tables = ("users", "clubs", "leagues", "league_registrations", "league_games", "matches")
    return tuple(
        int(conn.scalar(sa.select(sa.func.count()).select_from(sa.table(t))) or 0) for t in tables
    )


def test_the_report_version_migration_keeps_every_row(scratch_url: str) -> None:  # noqa: F811
    migrate.upgrade(scratch_url, BEFORE)
    engine = make_engine(scratch_url)
    try:
        with engine.begin() as conn:
            ids = _fill(conn)
            before = _counts(conn)
        migrate.upgrade(scratch_url, REVISION)
        with engine.connect() as conn:
            versions = dict(
                conn.execute(text("SELECT id, report_version FROM league_games")).tuples().all()
            )
            assert versions == {ids["scheduled"]: 0, ids["reported"]: 1}
            assert _counts(conn) == before
        migrate.downgrade(scratch_url, BEFORE)
        with engine.connect() as conn:
            assert _counts(conn) == before
            linked = conn.scalar(
                text("SELECT league_game_id FROM matches WHERE id = :id"), {"id": ids["match"]}
            )
            assert linked == ids["reported"]  # the match still points at its league game
            game = conn.execute(
                text("SELECT status, vp_a, vp_b FROM league_games WHERE id = :id"),
                {"id": ids["reported"]},
            ).one()
            assert tuple(game) == ("reported", 90, 10)
            columns = {c["name"] for c in sa.inspect(conn).get_columns("league_games")}
            assert "report_version" not in columns
    finally:
        engine.dispose()
