"""Errors of the combat feature (rendered as problem+json by the API, as a page by the web)."""

from __future__ import annotations

from app.core.errors import Conflict, InvalidInput, NotFound
from app.core.i18n import lazy
from app.engine.errors import Message, RollerError


class RuleSystemNotFound(NotFound):
    status, code, title = 404, "ruleset-not-found", lazy("Rule system not found")


class CombatNotOffered(NotFound):
    status, code = 404, "combat-not-offered"
    title = lazy("This rule system does not resolve attacks")


class InvalidCombatRequest(InvalidInput):
    """An attack the rules engine refuses (ProfileError) or a request over a size limit."""

    status, code, title = 422, "invalid-profile", lazy("Invalid attack profile")

    # for each entry of ``errors``, the engine's message to translate on a page (None: the
    # entry's English ``message`` is all there is); never part of the problem document
    templates: tuple[Message | None, ...] = ()


class TooManyDice(RollerError):
    """A live resolution would roll more dice than one request may."""


class ProfileNotFound(NotFound):
    status, code, title = 404, "profile-not-found", lazy("Saved calculation not found")


class ProfileLimitReached(Conflict):
    status, code, title = 409, "profile-limit", lazy("Too many saved profiles")


class UnitNotFound(NotFound):
    status, code, title = 404, "unit-not-found", lazy("Unit not found")
