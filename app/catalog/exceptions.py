"""Errors of the catalogue feature."""

from app.core.errors import Conflict, Forbidden, InvalidInput, NotFound
from app.core.i18n import lazy


class CatalogueNotFound(NotFound):
    status, code, title = 404, "catalog-not-found", lazy("Catalogue not found")


class DatasheetNotFound(NotFound):
    status, code, title = 404, "datasheet-not-found", lazy("Datasheet not found")


class FactionNotFound(NotFound):
    status, code, title = 404, "faction-not-found", lazy("Faction not found")


class ImportFailed(InvalidInput):
    """The uploaded BattleScribe files could not be imported; ``errors`` names each file."""

    status, code, title = 422, "catalog-import-failed", lazy("The files could not be imported")


class ImportTooLarge(ImportFailed):
    """A bound of the import was hit while reading the files (``limit`` names it: ``files``,
    ``file-bytes``, ``total-bytes``, ``elements``, ``depth``, ``zip-members``); nothing was
    imported."""

    status, code, title = (
        413,
        "catalog-import-too-large",
        lazy("The files are too large to import"),
    )


class NotTheCatalogueOwner(Forbidden):
    status, code, title = (
        403,
        "catalog-owner-required",
        lazy("Only the catalogue's owner may do this"),
    )


class CatalogueInUse(Conflict):
    status, code, title = 409, "catalog-in-use", lazy("Army lists use this catalogue")
