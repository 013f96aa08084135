"""Translations (Babel/gettext), English and French.

Catalogues are the ``.po`` files under ``translations/<locale>/LC_MESSAGES/``; every ``.po`` file
of a locale is merged, so each feature may keep its own file. They are compiled in memory at
first use: no build artefact can go stale. The current locale is a context variable set per
request (user setting, else cookie, else ``Accept-Language``).
"""

from __future__ import annotations

import gettext as _gettext
from contextvars import ContextVar
from functools import cache
from io import BytesIO

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from app.core.config import ROOT

TRANSLATIONS_DIR = ROOT / "translations"
LOCALES = ("en", "fr")
DEFAULT_LOCALE = "en"
LANGUAGE_NAMES = {"en": "English", "fr": "Français"}

current_locale: ContextVar[str] = ContextVar("current_locale", default=DEFAULT_LOCALE)


@cache
def translations(locale: str) -> _gettext.NullTranslations:
    directory = TRANSLATIONS_DIR / locale / "LC_MESSAGES"
    files = sorted(directory.glob("*.po")) if directory.is_dir() else []
    if not files:
        return _gettext.NullTranslations()
    merged: _gettext.GNUTranslations | None = None
    for path in files:
        with path.open("rb") as fp:
            catalog = read_po(fp, locale=locale)
        buffer = BytesIO()
        write_mo(buffer, catalog)
        buffer.seek(0)
        part = _gettext.GNUTranslations(buffer)
        if merged is None:
            merged = part
        else:
            merged._catalog.update(part._catalog)  # type: ignore[attr-defined]
    assert merged is not None
    return merged


def gettext(message: str) -> str:
    return translations(current_locale.get()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return translations(current_locale.get()).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the context that tells its meaning apart (``msgctxt``): the same English
    word with two French translations ("Save": the dice stage, the button)."""
    return translations(current_locale.get()).pgettext(context, message)


def lazy(message: str) -> str:
    """Mark a module-level string for extraction; translate it later with ``gettext``."""
    return message


def lazy_pgettext(context: str, message: str) -> tuple[str, str]:
    """Mark a module-level message with its context for extraction; translate it later with
    ``pgettext(*marked)``."""
    return (context, message)


def negotiate(accept_language: str | None) -> str | None:
    """The best of our locales for an ``Accept-Language`` header, or None."""
    if not accept_language:
        return None
    weighted: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept_language.split(",")[:20]):
        pieces = part.strip().split(";")
        tag = pieces[0].strip().lower()
        quality = 1.0
        for param in pieces[1:]:
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if tag and quality > 0:
            weighted.append((-quality, index, tag))
    for _q, _i, tag in sorted(weighted):
        primary = tag.split("-")[0]
        if primary in LOCALES:
            return primary
    return None
