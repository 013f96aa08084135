"""Errors of the armies feature."""

from app.core.errors import Conflict, InvalidInput, NotFound
from app.core.i18n import lazy
from app.engine.errors import Message


class ArmyNotFound(NotFound):
    status, code, title = 404, "army-not-found", lazy("Army list not found")


class ArmyLimitReached(Conflict):
    status, code, title = 409, "army-limit", lazy("Too many army lists")


class SharedArmyNotFound(NotFound):
    status, code, title = (
        404,
        "shared-army-not-found",
        lazy("This share link is invalid or revoked"),
    )


class UnitNotFound(NotFound):
    status, code, title = 404, "unit-not-found", lazy("No such unit in this list")


class InvalidArmy(InvalidInput):
    """A list the builder cannot store: a field out of bounds, a malformed unit or document.
    ``errors`` names each field."""

    status, code, title = 422, "invalid-army", lazy("Invalid army list")

    # for each entry of ``errors``, the engine's message a page shows in the reader's language
    # (None: the entry's English ``message`` is all there is); never part of the problem document
    templates: tuple[Message | None, ...] = ()


class ArmyNotValid(InvalidInput):
    """Marking a list "ready" while it breaks the muster rules: ``violations`` lists them."""

    status, code, title = 422, "army-not-valid", lazy("The list breaks the muster rules")


class ArmyNotReady(Conflict):
    """Another feature (matches, leagues) asked for a list that is not marked ready."""

    status, code, title = 409, "army-not-ready", lazy("The list is not marked ready")


class ArmyChanged(Conflict):
    """An undo of a removal that no longer applies: the list changed since."""

    status, code, title = 409, "army-changed", lazy("The list changed since")


class WrongRuleSystem(InvalidInput):
    status, code, title = 422, "wrong-rule-system", lazy("Not available for this rule system")
