"""Matches and their event logs.

A :class:`Match` row holds who plays (two users, or a user and a guest seat), the army snapshots
taken when each side joined, the mission and battle size, the per-match secret the dice seeds
are derived from, the hashed invitation and guest credentials, and ``version``: the number of
events in the log. :class:`MatchEvent` rows ARE the match: one row per event envelope (its
sequence number, batch, actor, timestamp, audience and the event JSON). The state is the
replay of those rows; nothing is updated or deleted in the log.

Writes are optimistic: ``version`` is advanced with a compare-and-set (``UPDATE ... WHERE
version = :expected``) in the same transaction as the inserts, and ``(match_id, seq)`` is
unique, so two writers can never both append event N.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, deferred, mapped_column

from app.core.db import Base, TimestampMixin
from app.core.i18n import lazy


class MatchStatus(StrEnum):
    OPEN = "open"  # waiting for the opponent to join
    SETUP = "setup"  # the mission sequence (roll-offs, formations, deployment)
    BATTLE = "battle"
    ENDED = "ended"  # the battle is over; the result awaits both confirmations
    CONFIRMED = "confirmed"  # both players confirmed the result


class OpponentKind(StrEnum):
    USER = "user"  # a registered user joins with an invitation code and their own list
    GUEST = "guest"  # a guest seat reached through its own secret link


class Match(TimestampMixin, Base):
    __tablename__ = "matches"

    id: Mapped[int] = mapped_column(primary_key=True)
    rule_system: Mapped[str] = mapped_column(String(32), default="wh40k-10e")
    mission_id: Mapped[str] = mapped_column(String(64))
    battle_size: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(12), default=MatchStatus.OPEN, index=True)
    opponent_kind: Mapped[str] = mapped_column(String(8), default=OpponentKind.USER)
    created_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), index=True
    )
    player_a_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), index=True
    )
    player_b_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), index=True
    )
    guest_name: Mapped[str] = mapped_column(String(60), default="")
    # Secrets. The invitation code and the guest link are derived from the match secret and a
    # nonce (so the creator can be shown them again); only digests are stored, for lookup.
    # The match secret also seeds the dice and never leaves the server. ``secret`` holds it
    # sealed with the server key (app.matches.sealing, ADR 0010): a dump of the database
    # alone gives neither the codes nor the seeds.
    secret: Mapped[str] = mapped_column(String(64))
    invite_digest: Mapped[str | None] = mapped_column(String(64), unique=True)
    guest_digest: Mapped[str | None] = mapped_column(String(64), unique=True)
    invite_nonce: Mapped[int] = mapped_column(default=0)
    # The read-only spectator link (app.matches.spectate): its token is derived from the match
    # secret and ``spectate_nonce`` (rotating or disabling moves the nonce on); only its digest
    # is stored, NULL while the link is disabled.
    spectate_digest: Mapped[str | None] = mapped_column(String(64), unique=True)
    spectate_nonce: Mapped[int] = mapped_column(default=0, server_default="0")
    # Which seats agreed to spectators (bit 1 seat A, bit 2 seat B): the link turns on once both
    # have, unless the organiser turns it on (ruling S19).
    spectate_consent: Mapped[int] = mapped_column(default=0, server_default="0")
    # The army snapshots taken when each side joined (see app.matches.armies); loaded only
    # when needed (joining, an attack, the page), not for every command.
    army_a: Mapped[dict[str, Any] | None] = deferred(mapped_column(JSON))
    army_b: Mapped[dict[str, Any] | None] = deferred(mapped_column(JSON))
    league_game_id: Mapped[int | None] = mapped_column(
        ForeignKey("league_games.id", ondelete="SET NULL"), index=True
    )
    league_reported: Mapped[bool] = mapped_column(default=False)
    # Why the confirmed result could not be reported to the league game (the problem's
    # detail); the players then report it by hand. None: reported, or nothing to report.
    league_report_error: Mapped[str | None] = mapped_column(String(500))
    version: Mapped[int] = mapped_column(default=0)
    # Denormalised from the state at each write, for listings.
    winner: Mapped[str | None] = mapped_column(String(4))
    vp_a: Mapped[int] = mapped_column(default=0)
    vp_b: Mapped[int] = mapped_column(default=0)
    round: Mapped[int] = mapped_column(default=0)


class MatchEvent(Base):
    """One event of a match's log, as the engine's envelope: never updated, never deleted."""

    __tablename__ = "match_events"
    # The unique constraint is also the index every read of a log uses.
    __table_args__ = (UniqueConstraint("match_id", "seq"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    seq: Mapped[int]
    batch: Mapped[int]
    actor: Mapped[str] = mapped_column(String(8))
    at: Mapped[str | None] = mapped_column(String(40))
    # None: public; else the seats that may see the event, comma-separated ("A").
    audience: Mapped[str | None] = mapped_column(String(16))
    kind: Mapped[str] = mapped_column(String(48))
    event: Mapped[dict[str, Any]] = mapped_column(JSON)


class MissionPack(TimestampMixin, Base):
    """A narrative mission pack a user uploaded (``auspex-narrative-pack/1``, checked by the
    engine's loader; app.matches.packs): its scenarios are missions its owner may create a
    10th-edition match with. One row per (owner, pack id): uploading the same id again
    replaces the document. Deleting the user deletes their packs."""

    __tablename__ = "mission_packs"
    __table_args__ = (UniqueConstraint("owner_id", "pack_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    pack_id: Mapped[str] = mapped_column(String(40))
    document: Mapped[dict[str, Any]] = mapped_column(JSON)


# Status names shown on pages, marked for translation.
STATUS_LABELS = {
    MatchStatus.OPEN: lazy("waiting for the opponent"),
    MatchStatus.SETUP: lazy("set-up"),
    MatchStatus.BATTLE: lazy("battle"),
    MatchStatus.ENDED: lazy("ended"),
    MatchStatus.CONFIRMED: lazy("confirmed"),
}
