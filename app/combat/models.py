"""What the calculator keeps for a logged-in user: saved profiles and recent matchups.

A row is a calculator query (the GET parameters of ``/calculator``, see docs/api-combat.md) with
a name: ``kind`` says which part of it the user saved (``attacker``, ``target`` or the whole
``matchup``), or ``recent`` for a calculation kept automatically (the newest few only). The
query is stored as the page's own canonical query string, so that a stored row and a shared
link are the same thing.
"""

from __future__ import annotations

from enum import StrEnum

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, TimestampMixin


class ProfileKind(StrEnum):
    ATTACKER = "attacker"
    TARGET = "target"
    MATCHUP = "matchup"
    RECENT = "recent"


class CombatProfile(TimestampMixin, Base):
    __tablename__ = "combat_profiles"

    id: Mapped[int] = mapped_column(primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(10))
    ruleset: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200))
    query: Mapped[str] = mapped_column(Text)

    __table_args__ = (Index("ix_combat_profiles_owner_kind", "owner_id", "kind"),)
