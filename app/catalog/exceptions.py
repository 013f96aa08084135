"""Errors of the catalogue feature."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.core.errors import Conflict, Forbidden, InvalidInput, NotFound
from app.core.i18n import gettext, lazy
from app.engine.errors import N_, Message


def said(template: Message | None, english: str) -> str:
    """``template`` in the current language (``english`` when there is none, or should a
    translation's placeholders not match)."""
    if template is not None:
        try:
            return template.render(gettext)
        except (KeyError, TypeError, ValueError):
            pass
    return english


@dataclass(frozen=True, slots=True)
class ShownIssues:
    """The messages of an import report as a page shows them: each issue's :class:`Message`,
    in the order of the report's ``errors`` and ``warnings``, rendered in the reader's language
    when the page asks (the report itself, the API's answer and what a catalogue keeps, stays
    in English)."""

    errors: tuple[Message | None, ...] = ()
    warnings: tuple[Message | None, ...] = ()

    def error(self, index: int, english: str) -> str:
        """The ``index``-th error as the reader reads it (``english`` when not known)."""
        return said(self.errors[index] if 0 <= index < len(self.errors) else None, english)

    def warning(self, index: int, english: str) -> str:
        """The ``index``-th warning as the reader reads it (``english`` when not known)."""
        return said(self.warnings[index] if 0 <= index < len(self.warnings) else None, english)


class CatalogueNotFound(NotFound):
    status, code, title = 404, "catalog-not-found", lazy("Catalogue not found")


class DatasheetNotFound(NotFound):
    status, code, title = 404, "datasheet-not-found", lazy("Datasheet not found")


class FactionNotFound(NotFound):
    status, code, title = 404, "faction-not-found", lazy("Faction not found")


class ImportFailed(InvalidInput):
    """The uploaded BattleScribe files could not be imported; ``errors`` names each file.

    ``shown`` holds the report's messages in the reader's language for the import page (never
    in the problem document, whose ``errors`` keep their English ``message``)."""

    status, code, title = 422, "catalog-import-failed", lazy("The files could not be imported")
    shown: ShownIssues = ShownIssues()
    # the detail as a :class:`Message`: ``detail`` is then read in the current language (the
    # page's, the problem document's), the English given to the constructor otherwise
    detail_template: Message | None = None

    @property
    def detail(self) -> str:
        return said(self.detail_template, self._detail)

    @detail.setter
    def detail(self, value: str) -> None:
        self._detail = value


class ImportTooLarge(ImportFailed):
    """A bound of the import was hit while reading the files (``limit`` names it: ``files``,
    ``file-bytes``, ``total-bytes``, ``elements``, ``depth``, ``zip-members``); nothing was
    imported."""

    status, code, title = (
        413,
        "catalog-import-too-large",
        lazy("The files are too large to import"),
    )

    @classmethod
    def too_many_files(cls, most: int, errors: list[dict[str, Any]]) -> ImportTooLarge:
        """More than ``most`` files in one upload (its detail read in the reader's language)."""
        template = Message(N_("At most %(most)s files per import."), {"most": most})
        refused = cls(str(template), errors=errors, limit="files")
        refused.detail_template = template
        return refused


class NotTheCatalogueOwner(Forbidden):
    status, code, title = (
        403,
        "catalog-owner-required",
        lazy("Only the catalogue's owner may do this"),
    )


class CatalogueInUse(Conflict):
    status, code, title = 409, "catalog-in-use", lazy("Army lists use this catalogue")
