"""Clubs: members with roles, and invitations by link or code."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.accounts.models import User
from app.core.db import Base, TimestampMixin, utcnow
from app.core.i18n import lazy


class Role(StrEnum):
    OWNER = "owner"
    ADMIN = "admin"
    MEMBER = "member"

    @property
    def manages(self) -> bool:
        """Admins and the owner manage leagues, invitations and members, and settle disputes."""
        return self in (Role.OWNER, Role.ADMIN)


class Club(TimestampMixin, Base):
    __tablename__ = "clubs"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    description: Mapped[str] = mapped_column(String(1000), default="")
    is_public: Mapped[bool] = mapped_column(default=False)

    members: Mapped[list[Membership]] = relationship(
        back_populates="club", lazy="raise", cascade="all, delete-orphan"
    )
    invites: Mapped[list[Invite]] = relationship(
        back_populates="club", lazy="raise", cascade="all, delete-orphan"
    )


class Membership(Base):
    __tablename__ = "club_members"
    __table_args__ = (UniqueConstraint("club_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    role: Mapped[str] = mapped_column(String(10), default=Role.MEMBER)
    joined_at: Mapped[datetime] = mapped_column(default=utcnow)

    club: Mapped[Club] = relationship(back_populates="members", lazy="raise")
    user: Mapped[User] = relationship(lazy="raise")


class Invite(Base):
    """An invitation: a random code (only its digest is stored), optionally limited."""

    __tablename__ = "club_invites"

    id: Mapped[int] = mapped_column(primary_key=True)
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id", ondelete="CASCADE"), index=True)
    code_digest: Mapped[str] = mapped_column(String(64), unique=True)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime | None]
    max_uses: Mapped[int | None]
    uses: Mapped[int] = mapped_column(default=0)
    revoked_at: Mapped[datetime | None]

    club: Mapped[Club] = relationship(back_populates="invites", lazy="raise")


# Role names shown on pages, marked for translation.
ROLE_LABELS = (lazy("owner"), lazy("admin"), lazy("member"))
