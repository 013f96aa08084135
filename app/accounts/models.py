"""Accounts: users, browser sessions, personal API tokens, failed-login records."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.core.db import Base, TimestampMixin, utcnow


class User(TimestampMixin, Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(254), unique=True)
    display_name: Mapped[str] = mapped_column(String(60))
    password_hash: Mapped[str] = mapped_column(String(255))
    preferred_language: Mapped[str] = mapped_column(String(8), default="en")
    is_active: Mapped[bool] = mapped_column(default=True)

    sessions: Mapped[list[WebSession]] = relationship(
        back_populates="user", lazy="raise", cascade="all, delete-orphan"
    )
    tokens: Mapped[list[ApiToken]] = relationship(
        back_populates="user", lazy="raise", cascade="all, delete-orphan"
    )


class WebSession(Base):
    """A browser session. The cookie holds a random token; only its digest is stored."""

    __tablename__ = "web_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_digest: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]

    user: Mapped[User] = relationship(back_populates="sessions", lazy="raise")


class ApiToken(Base):
    """A personal API token, shown once at creation; only its digest is stored."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(60))
    token_digest: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(12))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime | None]
    last_used_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]

    user: Mapped[User] = relationship(back_populates="tokens", lazy="raise")


class LoginFailure(Base):
    """One failed login, kept for the throttling window (keys are digests, not raw e-mails)."""

    __tablename__ = "login_failures"
    __table_args__ = (
        Index("ix_login_failures_account_key_at", "account_key", "at"),
        Index("ix_login_failures_address_key_at", "address_key", "at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    account_key: Mapped[str] = mapped_column(String(64))
    address_key: Mapped[str] = mapped_column(String(64))
    at: Mapped[datetime] = mapped_column(default=utcnow)
