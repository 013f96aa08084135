"""The catalogue's hooks: the features above it say when a catalogue is in use (ADR 0012)."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

import app.models  # noqa: F401  (every feature's models, as the app loads them)
from app.catalog import hooks

UNUSED_ID = 2_000_000_000  # no catalogue and no army list has it


def test_the_army_lists_register_their_check_and_it_finds_none_for_an_unused_id(
    db: Session,
) -> None:
    assert hooks.in_use(db, UNUSED_ID) is None


def test_the_first_registered_reason_keeps_a_catalogue(
    db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(hooks._usage_checks, "a", lambda _db, _id: None)
    monkeypatch.setitem(hooks._usage_checks, "b", lambda _db, cid: f"{cid} is used by b")
    monkeypatch.setitem(hooks._usage_checks, "c", lambda _db, cid: f"{cid} is used by c")
    assert hooks.in_use(db, UNUSED_ID) == f"{UNUSED_ID} is used by b"


def test_registering_under_the_same_name_replaces_the_check(
    db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(hooks._usage_checks, "test", lambda _db, _id: "old")
    hooks.add_usage_check("test", lambda _db, _id: None)
    assert hooks.in_use(db, UNUSED_ID) is None
