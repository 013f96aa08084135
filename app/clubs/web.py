"""Club pages: my clubs, a club's page (members, invitations), joining by link."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse
from pydantic import ValidationError

from app.accounts.deps import OptionalUser, WebUser, verify_csrf
from app.clubs import service
from app.clubs.exceptions import ClubLimitReached, InviteInvalid
from app.clubs.models import Club, Role
from app.clubs.schemas import ClubCreate, ClubUpdate, InviteCreate
from app.clubs.sections import sections_context
from app.core.deps import DbSession
from app.core.i18n import lazy
from app.web.forms import field_errors
from app.web.nav import NavItem, add_nav
from app.web.templating import htmx_redirect, render

router = APIRouter(include_in_schema=False, dependencies=[Depends(verify_csrf)])

add_nav(
    NavItem(
        href="/clubs",
        label=lazy("Clubs"),
        blurb=lazy("Host your club: members, invitations, leagues and standings."),
        order=50,
    )
)


@router.get("/clubs")
def clubs_page(request: Request, db: DbSession, user: WebUser) -> HTMLResponse:
    return render(
        request, "clubs/index.html", {"clubs": service.my_clubs(db, user), "errors": {}, "form": {}}
    )


@router.post("/clubs")
def create_club(
    request: Request,
    db: DbSession,
    user: WebUser,
    name: Annotated[str, Form(max_length=200)] = "",
    description: Annotated[str, Form(max_length=2000)] = "",
    is_public: Annotated[bool, Form()] = False,
) -> HTMLResponse:
    errors: dict[str, str]
    try:
        data = ClubCreate(name=name, description=description, is_public=is_public)
        seen = service.create(db, user, data)
    except ValidationError as exc:
        errors, status = field_errors(exc), 422
    except ClubLimitReached as exc:
        errors, status = {"name": exc.detail}, exc.status
    else:
        return htmx_redirect(request, f"/clubs/{seen.club.id}")
    return render(
        request,
        "clubs/index.html",
        {
            "clubs": service.my_clubs(db, user),
            "errors": errors,
            "form": {"name": name, "description": description},
        },
        status_code=status,
    )


def _club_page(
    request: Request,
    db: DbSession,
    user: OptionalUser,
    club_id: int,
    *,
    new_invite: str | None = None,
    errors: dict[str, str] | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    seen = service.view(db, club_id, user)
    context = {
        "seen": seen,
        "club": seen.club,
        "members": service.members(db, club_id, user),
        "invites": service.invites(db, club_id, user) if user and seen.manages else [],
        "new_invite": new_invite,
        "errors": errors or {},
        "Role": Role,
        **sections_context(db, club_id, user),
    }
    return render(request, "clubs/club.html", context, status_code=status_code)


@router.get("/clubs/{club_id}")
def club_page(request: Request, db: DbSession, user: OptionalUser, club_id: int) -> HTMLResponse:
    return _club_page(request, db, user, club_id)


@router.post("/clubs/{club_id}")
def edit_club(
    request: Request,
    db: DbSession,
    user: WebUser,
    club_id: int,
    name: Annotated[str, Form(max_length=200)] = "",
    description: Annotated[str, Form(max_length=2000)] = "",
    is_public: Annotated[bool, Form()] = False,
) -> HTMLResponse:
    try:
        data = ClubUpdate(name=name, description=description, is_public=is_public)
    except ValidationError as exc:
        return _club_page(request, db, user, club_id, errors=field_errors(exc), status_code=422)
    service.update_club(db, club_id, user, data)
    return htmx_redirect(request, f"/clubs/{club_id}")


@router.post("/clubs/{club_id}/invites")
def create_invite(
    request: Request,
    db: DbSession,
    user: WebUser,
    club_id: int,
    expires_in_days: Annotated[int, Form(ge=1, le=365)] = 14,
    max_uses: Annotated[int | None, Form(ge=1, le=1000)] = None,
) -> HTMLResponse:
    created = service.create_invite(
        db, club_id, user, InviteCreate(expires_in_days=expires_in_days, max_uses=max_uses)
    )
    link = str(request.url_for("club_join_page", code=created.code))
    return _club_page(request, db, user, club_id, new_invite=link)


@router.post("/clubs/{club_id}/invites/{invite_id}/revoke")
def revoke_invite(
    request: Request, db: DbSession, user: WebUser, club_id: int, invite_id: int
) -> HTMLResponse:
    service.revoke_invite(db, club_id, user, invite_id)
    return htmx_redirect(request, f"/clubs/{club_id}")


@router.post("/clubs/{club_id}/members/{member_id}/role")
def change_role(
    request: Request,
    db: DbSession,
    user: WebUser,
    club_id: int,
    member_id: int,
    role: Annotated[str, Form(pattern="^(owner|admin|member)$")],
) -> HTMLResponse:
    service.change_role(db, club_id, user, member_id, Role(role))
    return htmx_redirect(request, f"/clubs/{club_id}")


@router.post("/clubs/{club_id}/members/{member_id}/remove")
def remove_member(
    request: Request, db: DbSession, user: WebUser, club_id: int, member_id: int
) -> HTMLResponse:
    service.remove_member(db, club_id, user, member_id)
    target = "/clubs" if member_id == user.id else f"/clubs/{club_id}"
    return htmx_redirect(request, target)


@router.get("/clubs/join/{code}", name="club_join_page")
def join_page(request: Request, db: DbSession, user: WebUser, code: str) -> HTMLResponse:
    try:
        invite = service.invite_for_code(db, code)
    except InviteInvalid:
        return render(request, "clubs/join.html", {"club": None, "code": code}, status_code=404)
    club = db.get(Club, invite.club_id)
    already = service.membership(db, invite.club_id, user) is not None
    return render(request, "clubs/join.html", {"club": club, "code": code, "already": already})


@router.post("/clubs/join/{code}")
def join(request: Request, db: DbSession, user: WebUser, code: str) -> HTMLResponse:
    seen = service.join(db, user, code)
    return htmx_redirect(request, f"/clubs/{seen.club.id}")
