"""What the army builder knows of each rule system, looked up by id (never by an ``if``).

One entry per rule system a list can be built for, as ``app/combat/rulesets/`` does for the
calculator: how a list of that system is read (its view and validation), which fields of an
update belong to it, how its units are checked and re-numbered when one is removed or put
back, how the web forms build its create and update requests, which page shows it, and which
JSON export format it reads back. A new system plugs in by adding a module here and one line
to :func:`_build`.

The entries import the service layer, so they are loaded on first use (the service imports
this registry, not the entries).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from app.accounts.models import User
    from app.armies.models import Army
    from app.armies.schemas import Army10eCreate, ArmyUpdate, PenArmyCreate
    from app.armies.service import ArmyView

__all__ = ["ArmyForm", "ArmySystem", "system_for", "system_for_format", "systems"]


class ArmyForm(Protocol):
    """The fields of the new-list and settings forms (strings as posted)."""

    @property
    def name(self) -> str: ...
    @property
    def catalog(self) -> str: ...
    @property
    def faction(self) -> str: ...
    @property
    def detachment(self) -> str | None: ...
    @property
    def battle_size(self) -> str | None: ...
    @property
    def points_limit(self) -> str | None: ...
    @property
    def include_legends(self) -> bool | None:
        """The "Include Legends" checkbox; None: the form did not carry it."""
        ...


class ArmySystem(Protocol):
    """The army builder's view of one rule system."""

    @property
    def id(self) -> str: ...
    @property
    def export_format(self) -> str:
        """The ``format`` of its JSON export."""
        ...

    @property
    def page_template(self) -> str:
        """The list page."""
        ...

    @property
    def update_fields(self) -> tuple[str, ...]:
        """The ArmyUpdate fields that belong to it."""
        ...

    def view(self, db: Session, army: Army) -> ArmyView:
        """The list read and validated now."""
        ...

    def apply_update(self, db: Session, user: User, army: Army, data: ArmyUpdate) -> bool:
        """Apply the system's fields of ``data`` to ``army``; True if anything changed."""
        ...

    def new_army(self, db: Session, user: User, data: Army10eCreate | PenArmyCreate) -> Army:
        """A new draft list of ``user`` from a create request of this system (not added)."""
        ...

    def checked_units(self, raw: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Units in their stored form, checked (InvalidArmy naming every bad field)."""
        ...

    def referrers(self, units: Sequence[Mapping[str, Any]], index: int) -> list[int]:
        """The units that refer to unit ``index`` (they refer to it again when it is put back
        after a removal)."""
        ...

    def unit_removed(self, units: list[dict[str, Any]], index: int) -> None:
        """Re-number the references of ``units`` after unit ``index`` left the list."""
        ...

    def unit_restored(
        self,
        units: list[dict[str, Any]],
        index: int,
        unit: Mapping[str, Any],
        led_by: Sequence[int],
    ) -> None:
        """Re-number the references of ``units`` (without ``unit``) before ``unit`` is put back
        at ``index``; ``led_by`` are the units that referred to it when it was removed."""
        ...

    def create_request(self, form: ArmyForm) -> Army10eCreate | PenArmyCreate:
        """The create request the new-list form stands for (ValidationError if bad)."""
        ...

    def update_request(self, form: ArmyForm) -> ArmyUpdate:
        """The update request the settings form stands for (ValidationError if bad)."""
        ...

    def import_document(
        self, db: Session, user: User, body: Mapping[str, Any], catalog: str | int | None
    ) -> ArmyView:
        """Create a list from the system's JSON export (InvalidArmy naming every problem);
        ``catalog``: the catalogue the caller chose, for a system that has catalogues."""
        ...


@cache
def _build() -> dict[str, ArmySystem]:
    from app.armies.systems import pen, wh40k10e

    entries: tuple[ArmySystem, ...] = (wh40k10e.SYSTEM, pen.SYSTEM)
    return {s.id: s for s in entries}


def systems() -> tuple[ArmySystem, ...]:
    return tuple(_build().values())


def system_for(system_id: str) -> ArmySystem:
    """The entry of ``system_id`` (a stored list always names a known system)."""
    return _build()[system_id]


def system_for_format(fmt: object) -> ArmySystem | None:
    """The system whose JSON export has ``format`` ``fmt``, if any."""
    return next((s for s in _build().values() if s.export_format == fmt), None)
