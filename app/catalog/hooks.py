"""What the features above the catalogue tell it, through hooks they register.

The catalogue sits low in the house (docs/adr/0012-feature-layers.md): army lists are built
with catalogues, never the other way round, so this package imports nothing of them. Where the
catalogue needs an answer only a higher feature has, that feature registers a hook here when
its module is imported, the way pages register their navigation entries (``app.web.nav``).

- **In use**: a catalogue is not deleted while something is built with it. Each feature that
  keeps references to catalogues (the army lists) registers a :data:`UsageCheck`; deleting
  asks every one of them.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.orm import Session

UsageCheck = Callable[[Session, int], str | None]
"""Given a catalogue's id: why it cannot be deleted (say, "3 army list(s) are built with this
catalogue."), or ``None`` when this feature does not use it."""

_usage_checks: dict[str, UsageCheck] = {}


def add_usage_check(name: str, check: UsageCheck) -> None:
    """Register (or replace, under the same ``name``) a check that a catalogue is in use."""
    _usage_checks[name] = check


def in_use(db: Session, catalogue_id: int) -> str | None:
    """The first reason a registered feature gives for keeping this catalogue, if any."""
    for check in _usage_checks.values():
        reason = check(db, catalogue_id)
        if reason:
            return reason
    return None
