"""Helpers for HTML forms validated with pydantic."""

from __future__ import annotations

from pydantic import ValidationError


def field_errors(exc: ValidationError) -> dict[str, str]:
    """The first message for each field, keyed by its dotted path ("form" for the whole form)."""
    errors: dict[str, str] = {}
    for err in exc.errors():
        path = ".".join(str(part) for part in err["loc"])
        errors.setdefault(path or "form", err["msg"])
    return errors
