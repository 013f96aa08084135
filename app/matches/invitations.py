"""Who plays a match: the caller's seat, the match secret (ADR 0010) and what derives from it
(the invitation code, the guest seat's link token), for every rule system alike."""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.core import security
from app.core.config import get_settings
from app.engine.match.seats import Seat
from app.matches.exceptions import InvitationInvalid, MatchNotFound, NotTheCreator, SeatTaken
from app.matches.models import Match, OpponentKind
from app.matches.sealing import unseal

__all__ = [
    "Caller",
    "by_guest_token",
    "by_invite_code",
    "get_for",
    "guest_token",
    "invite_code",
    "issue_invitation",
    "match_secret",
    "normalise_code",
    "rotate_invitation",
    "seat_of",
]


@dataclass(frozen=True, slots=True)
class Caller:
    """A registered user (by id), and/or the bearer of a guest seat's secret link token."""

    user_id: int | None = None
    guest_token: str | None = None

    @classmethod
    def of(cls, user: User | None, guest_token: str | None = None) -> Caller:
        return cls(user.id if user is not None else None, guest_token or None)


def match_secret(match: Match) -> str:
    """The secret codes and dice seeds derive from: ``matches.secret`` unsealed with the server
    key (ADR 0010), so that the database alone gives neither."""
    return unseal(match.secret, match.id, get_settings().secret_key)


def _mac(match: Match, purpose: str) -> bytes:
    return hmac.new(
        match_secret(match).encode(),
        f"{purpose}|{match.id}|{match.invite_nonce}".encode(),
        hashlib.sha256,
    ).digest()


def invite_code(match: Match) -> str:
    """The invitation code of an open match (derived, never stored: only its digest is)."""
    return base64.b32encode(_mac(match, "invite")).decode()[:12]


def guest_token(match: Match) -> str:
    """The secret link token of a guest seat (derived, never stored: only its digest is)."""
    return base64.urlsafe_b64encode(_mac(match, "guest")).decode().rstrip("=")[:40]


def normalise_code(code: str) -> str:
    return "".join(ch for ch in code.upper() if ch.isalnum())[:32]


def seat_of(match: Match, caller: Caller) -> Seat | None:
    """The caller's seat in ``match``, or ``None`` when they do not play it."""
    if caller.user_id is not None:
        if match.player_a_id == caller.user_id:
            return Seat.A
        if match.player_b_id == caller.user_id:
            return Seat.B
    if (
        caller.guest_token
        and match.guest_digest is not None
        and security.hmac_equal(security.digest(caller.guest_token), match.guest_digest)
    ):
        return Seat.B
    return None


def get_for(db: Session, match_id: int, caller: Caller) -> tuple[Match, Any]:
    """The match and the caller's :class:`Seat`; 404 for anyone who does not play it.

    (The seat is typed ``Any`` while the pages still name the 10th edition's own ``Seat``,
    an equal ``StrEnum``: every function here takes a seat as its string.)"""
    match = db.get(Match, match_id)
    if match is None:
        raise MatchNotFound()
    seat = seat_of(match, caller)
    if seat is None:
        raise MatchNotFound()
    return match, seat


def by_guest_token(db: Session, token: str) -> Match:
    match = db.scalar(select(Match).where(Match.guest_digest == security.digest(token[:200])))
    if match is None:
        raise InvitationInvalid()
    return match


def by_invite_code(db: Session, code: str) -> Match:
    match = db.scalar(
        select(Match).where(Match.invite_digest == security.digest(normalise_code(code)))
    )
    if match is None or match.version > 0:
        raise InvitationInvalid()
    return match


def issue_invitation(match: Match) -> None:
    match.invite_digest = security.digest(invite_code(match))
    match.guest_digest = (
        security.digest(guest_token(match)) if match.opponent_kind == OpponentKind.GUEST else None
    )


def rotate_invitation(db: Session, match: Match, seat: str) -> Match:
    """A new invitation code (and guest link) for an open match; the old ones stop working."""
    if seat != Seat.A:
        raise NotTheCreator()
    if match.version > 0:
        raise SeatTaken()
    match.invite_nonce += 1
    issue_invitation(match)
    # whoever held the old guest link may have agreed to spectators for seat B: the next
    # holder has not (ruling S19)
    match.spectate_consent &= 1
    db.flush()
    return match
