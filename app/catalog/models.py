"""Catalogues stored in the database: the JSON document of a :class:`Catalogue` and who sees it.

A catalogue row holds the ``Catalogue.to_dict()`` document (numbers and names only) with its
rule system, name and data ``version``. The starter catalogue belongs to nobody and is readable
by all; an imported catalogue belongs to the user who imported it, who may share it with a club
they administer (its members may then use it). ``digest`` (SHA-256 of the canonical document)
keys the in-memory cache of parsed catalogues together with the id and version.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, ForeignKey, LargeBinary, String, UniqueConstraint
from sqlalchemy.orm import Mapped, deferred, mapped_column

from app.core.db import Base, TimestampMixin


class CatalogueRecord(TimestampMixin, Base):
    __tablename__ = "catalogues"
    __table_args__ = (UniqueConstraint("owner_id", "source_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(120), unique=True)
    source_id: Mapped[str] = mapped_column(String(200))  # Catalogue.id inside the document
    rule_system: Mapped[str] = mapped_column(String(32), default="wh40k-10e")
    name: Mapped[str] = mapped_column(String(200))
    version: Mapped[str] = mapped_column(String(200))
    digest: Mapped[str] = mapped_column(String(64))
    factions: Mapped[list[str]] = mapped_column(JSON, default=list)
    datasheet_count: Mapped[int] = mapped_column(default=0)
    owner_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    club_id: Mapped[int | None] = mapped_column(
        ForeignKey("clubs.id", ondelete="SET NULL"), index=True
    )
    # The big columns are loaded only when needed (a parsed copy is cached in memory).
    document: Mapped[dict[str, Any]] = deferred(mapped_column(JSON, nullable=False))
    report: Mapped[dict[str, Any] | None] = deferred(mapped_column(JSON, nullable=True))

    @property
    def is_public(self) -> bool:
        """Readable by everyone (the starter, or a catalogue an administrator imported)."""
        return self.owner_id is None


class WaitingUpload(TimestampMixin, Base):
    """The BattleScribe files a user uploaded without their game system (.gst), kept so that
    adding the .gst alone imports them again complete (issue 17): one set per user, the files
    as uploaded in a zip archive (app.catalog.waiting)."""

    __tablename__ = "catalogue_waiting_uploads"

    id: Mapped[int] = mapped_column(primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), unique=True)
    names: Mapped[list[str]] = mapped_column(JSON, default=list)
    archive: Mapped[bytes] = deferred(mapped_column(LargeBinary, nullable=False))
