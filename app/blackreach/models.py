"""Content sets of *Heroes of Black Reach*: forces, boards and scenarios a player enters.

The rulebook prints none of its components, so players keep their own. A set holds three JSON
documents in the engine's own formats (docs/black-reach-data.md): the forces
(``auspex-black-reach-forces/1``), the boards file (``{"boards": [...]}``) and a list of
scenarios. It is private to its owner; a read-only share link is a random token of which only
the digest is stored. ``version`` is SQLAlchemy's version column: every update raises it, and a
write from a stale read fails.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, TimestampMixin


class ContentSet(TimestampMixin, Base):
    __tablename__ = "blackreach_content_sets"

    id: Mapped[int] = mapped_column(primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(120))
    forces: Mapped[dict[str, Any]] = mapped_column(JSON)
    boards: Mapped[dict[str, Any]] = mapped_column(JSON)
    scenarios: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    copied_from: Mapped[str | None] = mapped_column(String(160))
    share_digest: Mapped[str | None] = mapped_column(String(64), unique=True)
    shared_at: Mapped[datetime | None]
    version: Mapped[int] = mapped_column(default=1, server_default="1")

    __mapper_args__ = {"version_id_col": version}  # noqa: RUF012
