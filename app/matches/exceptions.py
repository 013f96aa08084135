"""Errors of the match tracker, and the problem document of an engine refusal."""

from __future__ import annotations

from typing import Any

from app.core.errors import AppError, Conflict, Forbidden, InvalidInput, NotFound
from app.core.i18n import lazy
from app.engine.match import Refusal, RefusalKind


class MatchNotFound(NotFound):
    """No such match, or the caller does not play it (the two are not told apart)."""

    code, title = "match-not-found", lazy("Match not found")


class InvitationInvalid(NotFound):
    code, title = "invitation-invalid", lazy("This invitation is invalid or already used")


class SeatTaken(Conflict):
    code, title = "seat-taken", lazy("This match already has its two players")


class OwnMatch(Conflict):
    code, title = "own-match", lazy("You cannot play against yourself")


class MatchLimitReached(Conflict):
    code, title = "match-limit", lazy("Too many unfinished matches")


class NotTheCreator(Forbidden):
    code, title = "match-creator-only", lazy("Only the player who created the match may do this")


class UnknownMission(InvalidInput):
    code, title = "unknown-mission", lazy("Unknown mission or battle size")


class UnknownRuleset(InvalidInput):
    """A rule system that is unknown or cannot be played as a match (ADR 0013)."""

    code, title = "ruleset-not-playable", lazy("Not available for this rule system")


class NoCombatInMatch(Conflict):
    """The match's rule system offers no attack preview/roll between its units."""

    code, title = "match-combat-unavailable", lazy("This rule system does not resolve attacks")


class ArmyUnusable(InvalidInput):
    """An army that cannot be taken into a match (not ready, invalid, too big, unknown
    datasheets...); ``errors`` names each problem."""

    code, title = "army-unusable", lazy("This army list cannot be used in a match")


class MatchNotStarted(Conflict):
    code, title = (
        "match-not-started",
        lazy("The match has not started: the opponent has not joined"),
    )


class MatchStarted(Conflict):
    """The match is no longer open (the opponent joined): it cannot be cancelled any more."""

    code, title = (
        "match-started",
        lazy("The match has started: only a match waiting for its opponent can be cancelled"),
    )


class ExportNotYet(Conflict):
    code, title = (
        "export-not-yet",
        lazy("The full log holds your opponent's secrets until the battle ends"),
    )


class InvalidLog(InvalidInput):
    code, title = "invalid-log", lazy("This match log cannot be replayed")


class NoWeaponData(Conflict):
    code, title = "no-weapon-data", lazy("This match has no weapon data for that unit")


class InvalidAttack(InvalidInput):
    code, title = "invalid-attack", lazy("Invalid attack")


class LeagueGameUnusable(InvalidInput):
    code, title = "league-game-unusable", lazy("This league game cannot be played as this match")


class WriteConflict(Conflict):
    """Another write to the same match committed first (detected by the database)."""

    code, title = "stale_version", lazy("The match changed: refresh and try again")


_REFUSAL_STATUS = {
    RefusalKind.INPUT: (422, lazy("Invalid command")),
    RefusalKind.FORBIDDEN: (403, lazy("Not yours to do")),
    RefusalKind.CONFLICT: (409, lazy("The match changed: refresh and try again")),
    RefusalKind.RULES: (409, lazy("The rules do not allow this now")),
}


class CommandRefused(AppError):
    """An engine :class:`Refusal` as an application error: its kind gives the status
    (input 422, forbidden 403, stale version 409, rules 409); the problem carries the stable
    ``code`` (the end of ``type``, and ``refusal``), the ``kind`` and the refusal's details
    (``current_version`` for a stale write)."""

    def __init__(self, refusal: Refusal) -> None:
        status, title = _REFUSAL_STATUS[refusal.kind]
        self.status = status
        self.code = refusal.code
        self.title = title
        # the code is the end of the problem's ``type``, and also ``refusal`` for convenience
        extra: dict[str, Any] = {"refusal": refusal.code, "kind": str(refusal.kind)}
        extra.update({k: v for k, v in refusal.details.items() if k not in _RESERVED})
        errors = None
        if refusal.kind is RefusalKind.INPUT:
            field = refusal.details.get("field")
            errors = [
                {
                    "field": field if isinstance(field, str) else None,
                    "message": refusal.message,
                    "type": refusal.code,
                }
            ]
        super().__init__(refusal.message, errors=errors, **extra)
        self.refusal = refusal


_RESERVED = frozenset({"type", "title", "status", "detail", "errors", "code", "headers"})
