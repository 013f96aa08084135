"""Errors of the Black Reach content feature."""

from app.core.errors import Conflict, InvalidInput, NotFound
from app.core.i18n import lazy


class ContentSetNotFound(NotFound):
    status, code, title = 404, "content-set-not-found", lazy("Content set not found")


class SharedContentNotFound(NotFound):
    status, code, title = (
        404,
        "shared-content-not-found",
        lazy("This share link is invalid or revoked"),
    )


class InvalidContent(InvalidInput):
    """A document the engine's readers refuse: ``errors`` lists every problem with its path
    (``forces.counters[0].faces[0].dv``)."""

    status, code, title = 422, "invalid-content", lazy("Invalid Black Reach content")


class StaleContent(Conflict):
    """An update naming a version that is no longer the set's: someone saved in between."""

    status, code, title = 409, "stale-content", lazy("The content set changed since you read it")
