"""The club page's sections: what the features above clubs add to it (ADR 0012)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from sqlalchemy.orm import Session

import app.leagues.web  # noqa: F401  (registers the leagues' section, as the app does)
from app.accounts.models import User
from app.clubs import sections
from app.clubs.sections import ClubSection, add_club_section


def _extra(db: Session, club_id: int, user: User | None) -> Mapping[str, Any]:
    return {"extra_club": club_id, "extra_viewer": None if user is None else user.id}


def test_the_leagues_feature_contributes_its_section() -> None:
    found = {s.name: s.template for s in sections.club_sections()}
    assert found["leagues"] == "leagues/club_section.html"


def test_sections_come_in_order_with_their_context_merged(
    db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sections, "_sections", dict(sections._sections))
    leagues = next(s for s in sections.club_sections() if s.name == "leagues")
    monkeypatch.setitem(
        sections._sections,
        "leagues",
        ClubSection("leagues", leagues.template, lambda _db, _club, _user: {"leagues": []}),
    )
    add_club_section(ClubSection("late", "late.html", _extra, order=900))
    add_club_section(ClubSection("early", "early.html", _extra, order=1))
    context = sections.sections_context(db, 7, None)
    assert context["club_sections"] == ["early.html", "leagues/club_section.html", "late.html"]
    assert context["extra_club"] == 7
    assert context["extra_viewer"] is None
    assert context["leagues"] == []
