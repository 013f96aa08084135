"""Clubs logic: membership, roles and invitations. Flushes, never commits.

Access rules: a private club is visible to its members only (to anyone else it does not exist:
404, so its name does not leak); admins and the owner manage invitations and members; only the
owner changes roles; the owner cannot leave (transfer ownership first).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import func, or_, select, update
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.accounts.service import lock_user
from app.clubs.exceptions import (
    AlreadyMember,
    ClubLimitReached,
    ClubNotFound,
    InviteInvalid,
    MemberNotFound,
    NotAClubAdmin,
    NotTheOwner,
    OwnerMustStay,
)
from app.clubs.models import Club, Invite, Membership, Role
from app.clubs.schemas import ClubCreate, ClubUpdate, InviteCreate
from app.core import security
from app.core.db import as_aware, utcnow
from app.core.i18n import gettext as _

INVITE_PREFIX = "club_"
MAX_OWNED_CLUBS = 20  # clubs one user owns (creates, or was handed); 409 past it


@dataclass(frozen=True, slots=True)
class ClubView:
    """A club as one user sees it."""

    club: Club
    role: Role | None
    member_count: int

    @property
    def manages(self) -> bool:
        return self.role is not None and self.role.manages


def membership(db: Session, club_id: int, user: User | None) -> Membership | None:
    if user is None:
        return None
    return db.scalar(
        select(Membership).where(Membership.club_id == club_id, Membership.user_id == user.id)
    )


def _count(db: Session, club_id: int) -> int:
    return int(
        db.scalar(select(func.count()).select_from(Membership).where(Membership.club_id == club_id))
        or 0
    )


def view(db: Session, club_id: int, user: User | None) -> ClubView:
    """The club if this user may see it, else ClubNotFound (private clubs do not leak)."""
    club = db.get(Club, club_id)
    if club is None:
        raise ClubNotFound(f"There is no club {club_id} you can see.")
    member = membership(db, club_id, user)
    if member is None and not club.is_public:
        raise ClubNotFound(f"There is no club {club_id} you can see.")
    role = Role(member.role) if member else None
    return ClubView(club=club, role=role, member_count=_count(db, club_id))


def require_admin(db: Session, club_id: int, user: User) -> ClubView:
    seen = view(db, club_id, user)
    if not seen.manages:
        raise NotAClubAdmin("Only the club's owner and admins may do this.")
    return seen


def my_clubs(db: Session, user: User) -> list[ClubView]:
    rows = db.execute(
        select(Club, Membership.role)
        .join(Membership, Membership.club_id == Club.id)
        .where(Membership.user_id == user.id)
        .order_by(Club.name, Club.id)
    ).all()
    counts: dict[int, int] = dict(
        db.execute(
            select(Membership.club_id, func.count())
            .where(Membership.club_id.in_([club.id for club, _ in rows]))
            .group_by(Membership.club_id)
        )
        .tuples()
        .all()
    )
    return [ClubView(club, Role(role), int(counts.get(club.id, 0))) for club, role in rows]


def owned_clubs(db: Session, user: User) -> int:
    found = db.scalar(
        select(func.count())
        .select_from(Membership)
        .where(Membership.user_id == user.id, Membership.role == Role.OWNER)
    )
    return found or 0


def create(db: Session, user: User, data: ClubCreate) -> ClubView:
    lock_user(db, user.id)  # the count holds until the creation commits
    if owned_clubs(db, user) >= MAX_OWNED_CLUBS:
        raise ClubLimitReached(
            _("You own %(n)d clubs, the most one account may own: hand one over first.")
            % {"n": MAX_OWNED_CLUBS}
        )
    club = Club(name=data.name, description=data.description, is_public=data.is_public)
    db.add(club)
    db.flush()
    db.add(Membership(club_id=club.id, user_id=user.id, role=Role.OWNER))
    db.flush()
    return ClubView(club, Role.OWNER, 1)


def update_club(db: Session, club_id: int, user: User, data: ClubUpdate) -> ClubView:
    seen = require_admin(db, club_id, user)
    for field in ("name", "description", "is_public"):
        value = getattr(data, field)
        if value is not None:
            setattr(seen.club, field, value)
    db.flush()
    return seen


def members(db: Session, club_id: int, user: User | None) -> list[tuple[Membership, User]]:
    view(db, club_id, user)
    rows = db.execute(
        select(Membership, User)
        .join(User, User.id == Membership.user_id)
        .where(Membership.club_id == club_id)
        .order_by(Membership.joined_at, Membership.id)
    ).all()
    return [(m, u) for m, u in rows]


def change_role(db: Session, club_id: int, user: User, member_id: int, role: Role) -> Membership:
    seen = view(db, club_id, user)
    if seen.role is not Role.OWNER:
        raise NotTheOwner("Only the club's owner changes roles.")
    target = db.scalar(
        select(Membership).where(Membership.club_id == club_id, Membership.user_id == member_id)
    )
    if target is None:
        raise MemberNotFound(f"User {member_id} is not a member of this club.")
    if target.user_id == user.id:
        if role is not Role.OWNER:
            raise OwnerMustStay("Transfer ownership to another member first.")
        return target
    if role is Role.OWNER:
        mine = membership(db, club_id, user)
        assert mine is not None
        mine.role = Role.ADMIN
    target.role = role
    db.flush()
    return target


def remove_member(db: Session, club_id: int, user: User, member_id: int) -> None:
    """A member leaves (themselves) or is removed by an admin (the owner removes admins too)."""
    seen = view(db, club_id, user)
    target = db.scalar(
        select(Membership).where(Membership.club_id == club_id, Membership.user_id == member_id)
    )
    if target is None:
        raise MemberNotFound(f"User {member_id} is not a member of this club.")
    if Role(target.role) is Role.OWNER:
        raise OwnerMustStay("The owner cannot leave or be removed: transfer ownership first.")
    if target.user_id != user.id:
        if not seen.manages:
            raise NotAClubAdmin("Only the club's owner and admins remove members.")
        if Role(target.role) is Role.ADMIN and seen.role is not Role.OWNER:
            raise NotTheOwner("Only the owner removes an admin.")
    db.delete(target)
    db.flush()


@dataclass(frozen=True, slots=True)
class NewInvite:
    invite: Invite
    code: str


def create_invite(db: Session, club_id: int, user: User, data: InviteCreate) -> NewInvite:
    require_admin(db, club_id, user)
    code = security.new_token(INVITE_PREFIX)
    invite = Invite(
        club_id=club_id,
        code_digest=security.digest(code),
        created_by_id=user.id,
        expires_at=utcnow() + timedelta(days=data.expires_in_days)
        if data.expires_in_days
        else None,
        max_uses=data.max_uses,
    )
    db.add(invite)
    db.flush()
    return NewInvite(invite, code)


def invites(db: Session, club_id: int, user: User) -> list[Invite]:
    require_admin(db, club_id, user)
    return list(db.scalars(select(Invite).where(Invite.club_id == club_id).order_by(Invite.id)))


def revoke_invite(db: Session, club_id: int, user: User, invite_id: int) -> Invite:
    require_admin(db, club_id, user)
    invite = db.scalar(select(Invite).where(Invite.id == invite_id, Invite.club_id == club_id))
    if invite is None:
        raise InviteInvalid(f"This club has no invitation {invite_id}.")
    if invite.revoked_at is None:
        invite.revoked_at = utcnow()
        db.flush()
    return invite


def invite_for_code(db: Session, code: str) -> Invite:
    """The usable invitation behind a code, with its club loaded; else InviteInvalid."""
    if not code.startswith(INVITE_PREFIX) or len(code) > 100:
        raise InviteInvalid("This invitation code is not valid.")
    invite = db.scalar(select(Invite).where(Invite.code_digest == security.digest(code)))
    if (
        invite is None
        or invite.revoked_at is not None
        or (invite.expires_at is not None and as_aware(invite.expires_at) <= utcnow())
        or (invite.max_uses is not None and invite.uses >= invite.max_uses)
    ):
        raise InviteInvalid("This invitation is invalid, expired or used up.")
    return invite


def join(db: Session, user: User, code: str) -> ClubView:
    invite = invite_for_code(db, code)
    if membership(db, invite.club_id, user) is not None:
        raise AlreadyMember("You are already a member of this club.")
    # Count the use atomically, so concurrent joins cannot exceed max_uses.
    counted = db.execute(
        update(Invite)
        .where(
            Invite.id == invite.id,
            or_(Invite.max_uses.is_(None), Invite.uses < Invite.max_uses),
        )
        .values(uses=Invite.uses + 1)
        .execution_options(synchronize_session=False)
    )
    if counted.rowcount != 1:  # type: ignore[attr-defined]
        raise InviteInvalid("This invitation is used up.")
    db.add(Membership(club_id=invite.club_id, user_id=user.id, role=Role.MEMBER))
    db.flush()
    db.refresh(invite)
    return view(db, invite.club_id, user)
