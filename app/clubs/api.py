"""JSON API of clubs: /api/v1/clubs."""

from __future__ import annotations

from fastapi import APIRouter, Request, status

from app.accounts.deps import CurrentUser, OptionalUser
from app.clubs import service
from app.clubs.models import Invite, Role
from app.clubs.schemas import (
    ClubCreate,
    ClubOut,
    ClubUpdate,
    InviteCreate,
    InviteCreated,
    InviteOut,
    JoinRequest,
    MemberOut,
    RoleChange,
)
from app.core.deps import DbSession

router = APIRouter(prefix="/clubs", tags=["clubs"])


def club_out(seen: service.ClubView) -> ClubOut:
    return ClubOut(
        id=seen.club.id,
        name=seen.club.name,
        description=seen.club.description,
        is_public=seen.club.is_public,
        created_at=seen.club.created_at,
        your_role=seen.role.value if seen.role else None,
        member_count=seen.member_count,
    )


def invite_out(invite: Invite) -> InviteOut:
    return InviteOut.model_validate(invite, from_attributes=True)


def join_url(request: Request, code: str) -> str:
    return str(request.url_for("club_join_page", code=code))


@router.get("", response_model=list[ClubOut], summary="The clubs you belong to")
def list_clubs(user: CurrentUser, db: DbSession) -> list[ClubOut]:
    return [club_out(seen) for seen in service.my_clubs(db, user)]


@router.post(
    "",
    response_model=ClubOut,
    status_code=status.HTTP_201_CREATED,
    summary="Create a club (you become its owner)",
)
def create_club(data: ClubCreate, user: CurrentUser, db: DbSession) -> ClubOut:
    return club_out(service.create(db, user, data))


@router.get("/{club_id}", response_model=ClubOut, summary="A club (members, or anyone if public)")
def get_club(club_id: int, user: OptionalUser, db: DbSession) -> ClubOut:
    return club_out(service.view(db, club_id, user))


@router.patch("/{club_id}", response_model=ClubOut, summary="Edit a club (admins)")
def update_club(club_id: int, data: ClubUpdate, user: CurrentUser, db: DbSession) -> ClubOut:
    return club_out(service.update_club(db, club_id, user, data))


@router.get("/{club_id}/members", response_model=list[MemberOut], summary="The members")
def list_members(club_id: int, user: OptionalUser, db: DbSession) -> list[MemberOut]:
    return [
        MemberOut(user_id=u.id, display_name=u.display_name, role=m.role, joined_at=m.joined_at)
        for m, u in service.members(db, club_id, user)
    ]


@router.patch(
    "/{club_id}/members/{user_id}",
    response_model=MemberOut,
    summary="Change a member's role (owner only; 'owner' transfers ownership)",
)
def change_role(
    club_id: int, user_id: int, data: RoleChange, user: CurrentUser, db: DbSession
) -> MemberOut:
    member = service.change_role(db, club_id, user, user_id, Role(data.role))
    target = next(u for m, u in service.members(db, club_id, user) if m.id == member.id)
    return MemberOut(
        user_id=target.id,
        display_name=target.display_name,
        role=member.role,
        joined_at=member.joined_at,
    )


@router.delete(
    "/{club_id}/members/{user_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Leave (your own id) or remove a member (admins)",
)
def remove_member(club_id: int, user_id: int, user: CurrentUser, db: DbSession) -> None:
    service.remove_member(db, club_id, user, user_id)


@router.get("/{club_id}/invites", response_model=list[InviteOut], summary="Invitations (admins)")
def list_invites(club_id: int, user: CurrentUser, db: DbSession) -> list[InviteOut]:
    return [invite_out(i) for i in service.invites(db, club_id, user)]


@router.post(
    "/{club_id}/invites",
    response_model=InviteCreated,
    status_code=status.HTTP_201_CREATED,
    summary="Create an invitation (admins; the code is in this response only)",
)
def create_invite(
    club_id: int, data: InviteCreate, request: Request, user: CurrentUser, db: DbSession
) -> InviteCreated:
    created = service.create_invite(db, club_id, user, data)
    return InviteCreated(
        **invite_out(created.invite).model_dump(),
        code=created.code,
        url=join_url(request, created.code),
    )


@router.delete(
    "/{club_id}/invites/{invite_id}",
    response_model=InviteOut,
    summary="Revoke an invitation (admins)",
)
def revoke_invite(club_id: int, invite_id: int, user: CurrentUser, db: DbSession) -> InviteOut:
    return invite_out(service.revoke_invite(db, club_id, user, invite_id))


@router.post("/join", response_model=ClubOut, summary="Join a club with an invitation code")
def join(data: JoinRequest, user: CurrentUser, db: DbSession) -> ClubOut:
    return club_out(service.join(db, user, data.code))
