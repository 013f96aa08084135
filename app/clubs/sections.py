"""Parts of the club page that the features above clubs contribute.

Clubs sit low in the house (docs/adr/0012-feature-layers.md): leagues know clubs, a club knows
nothing of leagues. So a feature that has something to show on a club's page (the leagues: the
club's leagues and Elo tables) registers a :class:`ClubSection` when its pages are imported,
the way pages register their navigation entries (``app.web.nav``). The club page includes each
section's template, in order, with the section's context merged into its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from app.accounts.models import User

SectionContext = Callable[[Session, int, User | None], Mapping[str, Any]]
"""Given the club's id and the viewer (``None``: anonymous), what the section's template needs.
It is called only once the viewer may see the club."""


@dataclass(frozen=True, slots=True)
class ClubSection:
    name: str  # the section's key: registering the same name again replaces it
    template: str  # included by templates/clubs/club.html
    context: SectionContext
    order: int = 100


_sections: dict[str, ClubSection] = {}


def add_club_section(section: ClubSection) -> None:
    _sections[section.name] = section


def club_sections() -> list[ClubSection]:
    return sorted(_sections.values(), key=lambda s: (s.order, s.name))


def sections_context(db: Session, club_id: int, user: User | None) -> dict[str, Any]:
    """The templates to include (``club_sections``) and every section's context, merged."""
    sections = club_sections()
    context: dict[str, Any] = {"club_sections": [s.template for s in sections]}
    for section in sections:
        context.update(section.context(db, club_id, user))
    return context
