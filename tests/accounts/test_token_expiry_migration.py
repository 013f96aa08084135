"""Tokens stored before lifetimes were capped get an expiry from the migration (issue 11)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import DateTime, Integer, column, select, table, text

from app.core import migrate
from app.core.db import as_aware, make_engine
from tests.core.test_migrations import scratch_url  # noqa: F401 - the fixture

REVISION = "3e9a7c1d5b20"


def test_tokens_without_an_expiry_get_one(scratch_url: str) -> None:  # noqa: F811
    migrate.upgrade(scratch_url, "b6e1d2c4a8f3")
    now = datetime.now(UTC)
    engine = make_engine(scratch_url)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO users (id, email, display_name, password_hash, preferred_language,"
                " is_active, created_at, updated_at) VALUES (1, 'a@example.org', 'A', 'x', 'en',"
                " :yes, :now, :now)"
            ),
            {"now": now, "yes": True},
        )
        rows = [
            # (id, created, expires): old without expiry, recent without, one with its own date
            (1, now - timedelta(days=400), None),
            (2, now - timedelta(days=10), None),
            (3, now - timedelta(days=10), now + timedelta(days=5)),
        ]
        for token_id, created, expires in rows:
            conn.execute(
                text(
                    "INSERT INTO api_tokens (id, user_id, name, token_digest, prefix, created_at,"
                    " expires_at) VALUES (:id, 1, 't', :digest, 'apx_', :created, :expires)"
                ),
                {
                    "id": token_id,
                    "digest": f"{token_id:064d}",
                    "created": created,
                    "expires": expires,
                },
            )
    migrate.upgrade(scratch_url, REVISION)
    tokens = table("api_tokens", column("id", Integer), column("expires_at", DateTime()))
    with engine.connect() as conn:
        got = conn.execute(select(tokens.c.id, tokens.c.expires_at)).all()
    engine.dispose()
    expiry = {token_id: as_aware(at) for token_id, at in got}
    # over a year old: not cut off at once, 30 days of grace
    assert abs(expiry[1] - (now + timedelta(days=30))) < timedelta(minutes=5)
    # recent: the longest lifetime a new token can have, from its creation
    assert abs(expiry[2] - (now - timedelta(days=10) + timedelta(days=365))) < timedelta(seconds=5)
    # a token with its own expiry keeps it
    assert abs(expiry[3] - (now + timedelta(days=5))) < timedelta(seconds=5)
