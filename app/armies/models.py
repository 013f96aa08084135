"""Army lists: a 10th-edition roster (catalogue + faction + detachment + units) or a PEN army of
units the player defined, owned by one user, draft or ready, optionally shared by a link.

The units are stored as JSON in the engine's own form (``RosterUnit`` / ``PenUnit`` dicts), so
the stored list and its JSON export are the same thing. ``catalogue_version`` is the version of
the catalogue the list was built with; the share token is random and only its digest is stored.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, ForeignKey, String, false, func, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from app.catalog import hooks as catalog_hooks
from app.core.db import Base, TimestampMixin
from app.core.i18n import lazy


class ArmyStatus(StrEnum):
    DRAFT = "draft"
    READY = "ready"


class Army(TimestampMixin, Base):
    __tablename__ = "armies"

    id: Mapped[int] = mapped_column(primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    rule_system: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(10), default=ArmyStatus.DRAFT)
    catalogue_id: Mapped[int | None] = mapped_column(
        ForeignKey("catalogues.id", ondelete="RESTRICT"), index=True
    )
    catalogue_version: Mapped[str | None] = mapped_column(String(200))
    faction: Mapped[str] = mapped_column(String(200), default="")
    detachment: Mapped[str] = mapped_column(String(200), default="")
    battle_size: Mapped[str | None] = mapped_column(String(20))
    points_limit: Mapped[int | None]  # PEN armies: the players' own limit, if any
    # 10th edition: the player's "Include Legends" setting (ruling D11); off for a new list.
    include_legends: Mapped[bool] = mapped_column(default=False, server_default=false())
    units: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    share_digest: Mapped[str | None] = mapped_column(String(64), unique=True)
    shared_at: Mapped[datetime | None]
    # Raised by every update (and checked by it: a stale write fails). The builder's pages
    # use it to keep the newest answer when concurrent edits answer out of order.
    revision: Mapped[int] = mapped_column(default=1, server_default="1")

    __mapper_args__ = {"version_id_col": revision}  # noqa: RUF012


# Status names shown on pages, marked for translation.
STATUS_LABELS = {ArmyStatus.DRAFT: lazy("draft"), ArmyStatus.READY: lazy("ready")}


def _lists_built_with(db: Session, catalogue_id: int) -> str | None:
    """Army lists keep a catalogue from being deleted (``app.catalog.hooks``)."""
    used = db.scalar(
        select(func.count()).select_from(Army).where(Army.catalogue_id == catalogue_id)
    )
    return f"{used} army list(s) are built with this catalogue." if used else None


catalog_hooks.add_usage_check("armies", _lists_built_with)
