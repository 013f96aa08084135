"""Leagues: a club's league, its registrations (with a locked army snapshot), rounds and games.

Players are registrations: the pure league logic (``pairing``, ``standings``) identifies a player
by the registration id; Elo, which spans every league of a club, by the user id.
"""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, ForeignKey, String, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.accounts.models import User
from app.core.db import Base, TimestampMixin, utcnow
from app.core.i18n import lazy


class LeagueFormat(StrEnum):
    ROUND_ROBIN = "round_robin"
    SWISS = "swiss"
    LADDER = "ladder"


class LeagueStatus(StrEnum):
    REGISTRATION = "registration"
    RUNNING = "running"
    FINISHED = "finished"


class Visibility(StrEnum):
    PUBLIC = "public"
    PRIVATE = "private"


class GameStatus(StrEnum):
    SCHEDULED = "scheduled"
    REPORTED = "reported"
    CONFIRMED = "confirmed"
    DISPUTED = "disputed"


class League(TimestampMixin, Base):
    __tablename__ = "leagues"

    id: Mapped[int] = mapped_column(primary_key=True)
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    description: Mapped[str] = mapped_column(String(1000), default="")
    rule_system: Mapped[str] = mapped_column(String(40))
    battle_size: Mapped[str] = mapped_column(String(40), default="")
    points_limit: Mapped[int | None]
    mission_pool: Mapped[list[str]] = mapped_column(JSON, default=list)
    starts_on: Mapped[date | None]
    ends_on: Mapped[date | None]
    format: Mapped[str] = mapped_column(String(20))
    rounds_planned: Mapped[int | None]
    legs: Mapped[int] = mapped_column(default=1)
    win_points: Mapped[int] = mapped_column(default=3)
    draw_points: Mapped[int] = mapped_column(default=1)
    loss_points: Mapped[int] = mapped_column(default=0)
    bye_points: Mapped[int] = mapped_column(default=3)
    tie_breakers: Mapped[list[str]] = mapped_column(JSON, default=list)
    max_meetings: Mapped[int | None]
    max_games: Mapped[int | None]
    no_back_to_back: Mapped[bool] = mapped_column(default=False)
    visibility: Mapped[str] = mapped_column(String(10), default=Visibility.PRIVATE)
    status: Mapped[str] = mapped_column(String(20), default=LeagueStatus.REGISTRATION)
    seed: Mapped[int]
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))

    registrations: Mapped[list[Registration]] = relationship(
        back_populates="league", lazy="raise", cascade="all, delete-orphan"
    )


class Registration(Base):
    """A player in a league, with the army list snapshot taken when they registered."""

    __tablename__ = "league_registrations"
    __table_args__ = (UniqueConstraint("league_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    army_id: Mapped[int | None]  # the list it was taken from (no FK: the list may be deleted)
    army_name: Mapped[str] = mapped_column(String(120), default="")
    snapshot: Mapped[dict[str, Any]] = mapped_column(JSON)
    registered_at: Mapped[datetime] = mapped_column(default=utcnow)
    snapshot_replaced_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL")
    )
    snapshot_replaced_at: Mapped[datetime | None]

    league: Mapped[League] = relationship(back_populates="registrations", lazy="raise")
    user: Mapped[User] = relationship(lazy="raise", foreign_keys=[user_id])


class Round(Base):
    """A generated round (round robin or Swiss); ``bye_id`` is the registration with the bye."""

    __tablename__ = "league_rounds"
    __table_args__ = (UniqueConstraint("league_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id", ondelete="CASCADE"), index=True)
    number: Mapped[int]
    bye_id: Mapped[int | None] = mapped_column(
        ForeignKey("league_registrations.id", ondelete="SET NULL")
    )
    rematches: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Game(TimestampMixin, Base):
    """A fixture and its result.

    The result is ``winner_id`` (a registration; ``None`` with a result is a draw) and the
    victory points of each side. It counts once both players accepted it (the reporter's report
    is their acceptance: ``accepted_a``/``accepted_b``) or a club admin settled it.

    ``report_version`` counts the results written to the game (report, correction, settlement,
    a tracked match's report): a player's confirm or dispute names the version they saw, and a
    changed report refuses it, so nobody confirms a result they were not shown.
    """

    __tablename__ = "league_games"

    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id", ondelete="CASCADE"), index=True)
    round_id: Mapped[int | None] = mapped_column(
        ForeignKey("league_rounds.id", ondelete="CASCADE"), index=True
    )
    table_number: Mapped[int | None]
    player_a_id: Mapped[int] = mapped_column(
        ForeignKey("league_registrations.id", ondelete="CASCADE"), index=True
    )
    player_b_id: Mapped[int] = mapped_column(
        ForeignKey("league_registrations.id", ondelete="CASCADE"), index=True
    )
    status: Mapped[str] = mapped_column(String(10), default=GameStatus.SCHEDULED)
    winner_id: Mapped[int | None] = mapped_column(
        ForeignKey("league_registrations.id", ondelete="SET NULL")
    )
    vp_a: Mapped[int | None]
    vp_b: Mapped[int | None]
    accepted_a: Mapped[bool] = mapped_column(default=False)
    accepted_b: Mapped[bool] = mapped_column(default=False)
    reported_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    reported_at: Mapped[datetime | None]
    confirmed_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    confirmed_at: Mapped[datetime | None]
    disputed_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    dispute_note: Mapped[str] = mapped_column(String(500), default="")
    settled_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    settled_at: Mapped[datetime | None]
    match_id: Mapped[int | None]  # the tracked match that reported it (no FK yet)
    report_version: Mapped[int] = mapped_column(default=0, server_default=text("0"))


# Labels shown on pages, marked for translation.
FORMAT_LABELS = {
    LeagueFormat.ROUND_ROBIN: lazy("Round robin"),
    LeagueFormat.SWISS: lazy("Swiss"),
    LeagueFormat.LADDER: lazy("Open ladder"),
}
STATUS_LABELS = {
    LeagueStatus.REGISTRATION: lazy("Registration open"),
    LeagueStatus.RUNNING: lazy("Running"),
    LeagueStatus.FINISHED: lazy("Finished"),
}
GAME_STATUS_LABELS = {
    GameStatus.SCHEDULED: lazy("scheduled"),
    GameStatus.REPORTED: lazy("reported"),
    GameStatus.CONFIRMED: lazy("confirmed"),
    GameStatus.DISPUTED: lazy("disputed"),
}
VISIBILITY_LABELS = {
    Visibility.PUBLIC: lazy("Public"),
    Visibility.PRIVATE: lazy("Private"),
}


# The matches feature asks the leagues of their games through a port (ADR 0012): register it
# wherever the models are loaded. Imported last: it needs the classes above.
from app.leagues import match_port  # noqa: E402, F401
