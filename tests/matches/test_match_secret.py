"""A match's secret is sealed with the server key (ADR 0010).

With the database alone (no server key), a new match's invitation code, guest link and dice
seeds cannot be derived: ``matches.secret`` used as the secret, the way it was before, gives
other codes and other seeds. With the server key, the secret unseals and gives the ones the
match uses. The migration that sealed the rows stored in clear keeps each old match's working
secret, and run down gives the clear value back.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.script import ScriptDirectory
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.core import migrate, security
from app.core.config import Settings, get_settings
from app.core.db import make_engine
from app.engine.wh40k10e.battle import Battle
from app.matches import service
from app.matches.models import Match, MatchEvent
from app.matches.sealing import seal, unseal
from tests.core.test_migrations import scratch_url  # noqa: F401 - a fixture, used by name
from tests.matches.conftest import FakeArmies, Game, marines

SEALING_REVISION = "b6e1d2c4a8f3"


def _mac(secret: str, purpose: str, match: Match) -> bytes:
    message = f"{purpose}|{match.id}|{match.invite_nonce}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).digest()


def _code_from(secret: str, match: Match) -> str:
    return base64.b32encode(_mac(secret, "invite", match)).decode()[:12]


def _guest_token_from(secret: str, match: Match) -> str:
    return base64.urlsafe_b64encode(_mac(secret, "guest", match)).decode().rstrip("=")[:40]


def _row(db: Session, match_id: int) -> Match:
    db.expire_all()
    match = db.get(Match, match_id)
    assert match is not None
    return match


def test_the_database_alone_gives_no_invitation_code(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    alice = user_client("Alice")
    r = alice.post("/api/v1/matches", json={"army_id": armies.ready(alice, marines())})
    assert r.status_code == 201, r.text
    code = r.json()["invitation"]["code"]
    match = _row(db, r.json()["id"])
    # what a dump holds: the column, the id, the nonce, the digest
    from_dump = _code_from(match.secret, match)
    assert from_dump != code
    assert security.digest(from_dump) != match.invite_digest
    # with the server key the column unseals into the secret the code comes from
    key = get_settings().secret_key
    assert _code_from(unseal(match.secret, match.id, key), match) == code
    assert security.digest(code) == match.invite_digest


def test_the_database_alone_gives_no_guest_link(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session, app: Any
) -> None:
    alice = user_client("Alice")
    r = alice.post(
        "/api/v1/matches", json={"army_id": armies.ready(alice, marines()), "opponent": "guest"}
    )
    assert r.status_code == 201, r.text
    token = r.json()["invitation"]["guest_url"].rsplit("/", 1)[1]
    match = _row(db, r.json()["id"])
    forged = _guest_token_from(match.secret, match)
    assert forged != token
    guest = TestClient(app)
    r = guest.post("/api/v1/matches/guest", json={"token": forged, "sample": "orks"})
    assert r.status_code == 404, r.text  # the dump's link takes no seat
    r = guest.post("/api/v1/matches/guest", json={"token": token, "sample": "orks"})
    assert r.status_code == 200, r.text  # the real one does


def test_the_database_alone_does_not_predict_the_dice(
    new_game: Callable[..., Game], db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    g = new_game()
    match = _row(db, g.match_id)
    seeded = Battle.command_seed
    calls: list[tuple[str, int, int]] = []

    def spy(self: Battle, secret: str, *args: Any) -> int:
        seed = seeded(self, secret, *args)
        # the same roll, seeded from the column instead of the unsealed secret
        calls.append((secret, seed, seeded(self, match.secret, *args)))
        return seed

    monkeypatch.setattr(Battle, "command_seed", spy)
    g.a.send({"type": "roll_off"})  # the server rolls
    rows = db.scalars(sa.select(MatchEvent).where(MatchEvent.match_id == g.match_id)).all()
    seeds = {v for row in rows for v in _values(row.event, "seed") if v is not None}
    [(secret, seed, from_column)] = calls
    assert seeds == {seed}  # the one roll of the match so far
    key = get_settings().secret_key
    assert secret == unseal(match.secret, match.id, key)
    assert from_column not in seeds  # the column used as the secret: other dice


def _values(data: Any, key: str) -> list[Any]:
    if isinstance(data, dict):
        found = [data[key]] if key in data else []
        return found + [v for item in data.values() for v in _values(item, key)]
    if isinstance(data, list):
        return [v for item in data for v in _values(item, key)]
    return []


def test_another_server_key_gives_another_code(
    user_client: Callable[[str], TestClient],
    armies: FakeArmies,
    db: Session,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    alice = user_client("Alice")
    r = alice.post("/api/v1/matches", json={"army_id": armies.ready(alice, marines())})
    code = r.json()["invitation"]["code"]
    match = _row(db, r.json()["id"])
    assert service.invite_code(match) == code
    other = Settings(secret_key="another-server-key-that-is-long-enough-0123456789")
    monkeypatch.setattr("app.matches.invitations.get_settings", lambda: other)
    assert service.invite_code(match) != code


def test_sealing_is_its_own_inverse_and_keyed() -> None:
    clear = secrets.token_hex(32)
    sealed = seal(clear, 7, "k" * 40)
    assert sealed != clear
    assert unseal(sealed, 7, "k" * 40) == clear
    assert unseal(sealed, 8, "k" * 40) != clear  # the pad is per match
    assert unseal(sealed, 7, "j" * 40) != clear  # and per server key
    with pytest.raises(ValueError):
        seal("abcd", 7, "k" * 40)


def _add_old_match(conn: sa.Connection, clear: str) -> int:
    now = datetime.now(UTC)
    users = sa.table(
        "users",
        *(sa.column(c) for c in ("id", "email", "display_name", "password_hash")),
        *(sa.column(c) for c in ("is_active", "preferred_language", "created_at", "updated_at")),
    )
    columns = [
        *("rule_system", "mission_id", "battle_size", "status", "opponent_kind"),
        *("created_by_id", "player_a_id", "guest_name", "secret", "invite_digest"),
        *("invite_nonce", "league_reported", "version", "vp_a", "vp_b", "round"),
        *("created_at", "updated_at"),
    ]
    matches = sa.table("matches", sa.column("id"), *(sa.column(c) for c in columns))
    user_id = conn.execute(
        users.insert()
        .values(
            email="old@example.com",
            display_name="Old",
            password_hash="x",
            is_active=True,
            preferred_language="en",
            created_at=now,
            updated_at=now,
        )
        .returning(users.c.id)
    ).scalar_one()
    return conn.execute(
        matches.insert()
        .values(
            rule_system="wh40k-10e",
            mission_id="only-war",
            battle_size="strike_force",
            status="open",
            opponent_kind="user",
            created_by_id=user_id,
            player_a_id=user_id,
            guest_name="",
            secret=clear,
            invite_digest=None,
            invite_nonce=3,
            league_reported=False,
            version=0,
            vp_a=0,
            vp_b=0,
            round=0,
            created_at=now,
            updated_at=now,
        )
        .returning(matches.c.id)
    ).scalar_one()


def _stored_secret(url: str, match_id: int) -> str:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(
                sa.text("SELECT secret FROM matches WHERE id = :id"), {"id": match_id}
            ).scalar_one()
    finally:
        engine.dispose()


def test_the_migration_seals_old_secrets_and_keeps_what_they_give(scratch_url: str) -> None:  # noqa: F811
    config = migrate.alembic_config(scratch_url)
    before = ScriptDirectory.from_config(config).get_revision(SEALING_REVISION).down_revision
    assert isinstance(before, str)
    migrate.upgrade(scratch_url, before)
    clear = secrets.token_hex(32)
    engine = make_engine(scratch_url)
    try:
        with engine.begin() as conn:
            match_id = _add_old_match(conn, clear)
    finally:
        engine.dispose()
    old = Match(id=match_id, secret=clear, invite_nonce=3)
    code_before = _code_from(clear, old)

    migrate.upgrade(scratch_url, SEALING_REVISION)
    stored = _stored_secret(scratch_url, match_id)
    assert stored != clear  # no longer in clear
    assert unseal(stored, match_id, get_settings().secret_key) == clear
    sealed = Match(id=match_id, secret=stored, invite_nonce=3)
    assert service.invite_code(sealed) == code_before  # same code, same seeds as before
    assert service.match_secret(sealed) == clear

    migrate.downgrade(scratch_url, before)
    assert _stored_secret(scratch_url, match_id) == clear
