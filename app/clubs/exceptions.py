"""Errors of the clubs feature."""

from app.core.errors import Conflict, Forbidden, InvalidInput, NotFound
from app.core.i18n import lazy


class ClubNotFound(NotFound):
    code, title = "club-not-found", lazy("Club not found")


class ClubLimitReached(Conflict):
    code, title = "club-limit", lazy("Too many clubs")


class NotAClubAdmin(Forbidden):
    code, title = "club-admin-required", lazy("Only the club's admins may do this")


class NotTheOwner(Forbidden):
    code, title = "club-owner-required", lazy("Only the club's owner may do this")


class InviteInvalid(NotFound):
    code, title = "invite-invalid", lazy("This invitation is invalid, expired or used up")


class AlreadyMember(Conflict):
    code, title = "already-member", lazy("Already a member of this club")


class MemberNotFound(NotFound):
    code, title = "member-not-found", lazy("No such member in this club")


class OwnerMustStay(InvalidInput):
    code, title = "owner-must-stay", lazy("The owner cannot leave or be removed")
