"""Posted HTML form values shared by every feature's pages."""

from __future__ import annotations

TICKED = frozenset({"on", "true", "1"})


def checked(value: object) -> bool:
    """A posted checkbox: ticked (``on``, ``true`` or ``1``, any case) or not (anything else,
    an absent field, an uploaded file)."""
    return isinstance(value, str) and value.strip().lower() in TICKED


__all__ = ["TICKED", "checked"]
