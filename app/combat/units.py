"""Units of army lists or catalogues put in the calculator in one tap: a registered hook.

The calculator sits below the army builder and the catalogue (ADR 0012, feature layers): it
cannot import them. The upper room contributes its units instead, by registering a
:class:`UnitSource` (``app.armies.calculator_units`` does, when the armies feature loads). The
page lists what the source offers and asks it for the query parameters of one side
(``attacker``: weapon rows with the unit's loadout; ``target``: the target and its model groups).
Without a source, the calculator offers no units and a ``unit=`` reference is a 404.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.combat.exceptions import UnitNotFound
from app.core.i18n import gettext as _

__all__ = [
    "ArmyUnits",
    "UnitChoice",
    "UnitSource",
    "army_units",
    "catalogue_units",
    "register",
    "unit_pairs",
]


@dataclass(frozen=True, slots=True)
class UnitChoice:
    """A unit the calculator can take, with the reference that names it."""

    ref: str
    name: str
    detail: str
    can_attack: bool
    kinds: tuple[str, ...] = ()  # the attacks it can make ("ranged", "melee"): one at a time
    # its weapons with several profiles: (loadout index, weapon name, profile names)
    profiles: tuple[tuple[int, str, tuple[str, ...]], ...] = ()
    # a system whose attack is one weapon (PEN): the weapons to choose from, by index
    weapons: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ArmyUnits:
    army_id: int
    name: str
    units: list[UnitChoice]


class UnitSource(Protocol):
    def army_units(self, db: Session, user: User) -> list[ArmyUnits]: ...

    def catalogue_units(self, db: Session, user: User | None, query: str) -> list[UnitChoice]: ...

    def unit_pairs(
        self,
        db: Session,
        user: User | None,
        ref: str,
        side: str,
        options: Mapping[str, str] | None = None,
    ) -> list[tuple[str, str]]:
        """``[("system", ...), *the side's parameters]``; UnitNotFound (404) when the user
        cannot reach the unit or it carries no weapon the calculator takes. ``options``: the
        attack chosen (``mode``: ``ranged`` or ``melee``; ``pick.<i>``: a weapon's profile)."""
        ...


_sources: list[UnitSource] = []


def register(source: UnitSource) -> None:
    """Offer ``source``'s units in the calculator (the last registered answers)."""
    _sources.append(source)


def _source() -> UnitSource | None:
    return _sources[-1] if _sources else None


def army_units(db: Session, user: User) -> list[ArmyUnits]:
    source = _source()
    return [] if source is None else source.army_units(db, user)


def catalogue_units(db: Session, user: User | None, query: str) -> list[UnitChoice]:
    source = _source()
    return [] if source is None else source.catalogue_units(db, user, query)


def unit_pairs(
    db: Session,
    user: User | None,
    ref: str,
    side: str,
    options: Mapping[str, str] | None = None,
) -> list[tuple[str, str]]:
    source = _source()
    if source is None:
        raise UnitNotFound(_("There is no such unit you can use."))
    return source.unit_pairs(db, user, ref, side, options or {})
