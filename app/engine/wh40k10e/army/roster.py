"""The Army Roster [L4250-4266]: battle size, Army Faction, Detachment, units, Warlord.

A :class:`Roster` is what a player writes down: for each unit its datasheet name, model count,
wargear, enhancements, whether it is the Warlord and which Bodyguard unit (by index in the
roster) a Leader is attached to. It is a value: validation (:mod:`.validate`) never changes it.
:meth:`Roster.to_dict` / :meth:`Roster.from_dict` are our lossless JSON form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from app.engine.errors import N_, ProfileError
from app.engine.wh40k10e.army.codec import FormatError, Plain, from_plain, to_plain

__all__ = [
    "MAX_UNITS",
    "ROSTER_FORMAT",
    "ROSTER_SCHEMA_VERSION",
    "BattleSize",
    "Roster",
    "RosterError",
    "RosterUnit",
]

ROSTER_FORMAT = "auspex.army"
ROSTER_SCHEMA_VERSION = 1

MAX_UNITS = 150  # bound on units in one roster
MAX_NAME = 200
MAX_MODELS = 200
MAX_ENHANCEMENTS_PER_UNIT = 10  # input bound; the rule itself is 1 per unit
MAX_WARGEAR_ENTRIES = 50


class RosterError(ProfileError):
    """An invalid roster value (the field names where)."""


class BattleSize(StrEnum):
    """Battle sizes and their points limits [L4235-4248, T2]."""

    INCURSION = "incursion"
    STRIKE_FORCE = "strike-force"
    ONSLAUGHT = "onslaught"

    @property
    def points_limit(self) -> int:
        return _LIMITS[self]

    @property
    def label(self) -> str:
        return _LABELS[self]


_LIMITS = {BattleSize.INCURSION: 1000, BattleSize.STRIKE_FORCE: 2000, BattleSize.ONSLAUGHT: 3000}
_LABELS = {
    BattleSize.INCURSION: "Incursion",
    BattleSize.STRIKE_FORCE: "Strike Force",
    BattleSize.ONSLAUGHT: "Onslaught",
}


def _check_text(value: str, name: str, *, allow_empty: bool = True) -> None:
    if len(value) > MAX_NAME:
        raise RosterError(name, N_("longer than %(limit)s characters"), limit=MAX_NAME)
    if not allow_empty and not value.strip():
        raise RosterError(name, N_("must not be empty"))


@dataclass(frozen=True, slots=True)
class RosterUnit:
    """One unit of the roster.

    ``models`` is the model count (``None``: the datasheet's minimum). ``wargear`` maps a
    wargear choice (or a model type of the composition) to how many the unit takes.
    ``attached_to`` is the index, in the roster, of the Bodyguard unit this Leader joins.
    ``label`` is an optional name the player gives the unit.
    """

    datasheet: str
    models: int | None = None
    wargear: Mapping[str, int] = field(default_factory=dict)
    enhancements: tuple[str, ...] = ()
    warlord: bool = False
    attached_to: int | None = None
    label: str = ""

    def __post_init__(self) -> None:
        _check_text(self.datasheet, "datasheet", allow_empty=False)
        _check_text(self.label, "label")
        if self.models is not None and not 1 <= self.models <= MAX_MODELS:
            raise RosterError(
                "models", N_("must be between %(low)s and %(high)s"), low=1, high=MAX_MODELS
            )
        if len(self.enhancements) > MAX_ENHANCEMENTS_PER_UNIT:
            raise RosterError(
                "enhancements", N_("at most %(limit)s"), limit=MAX_ENHANCEMENTS_PER_UNIT
            )
        for i, e in enumerate(self.enhancements):
            _check_text(e, f"enhancements[{i}]", allow_empty=False)
        if len(self.wargear) > MAX_WARGEAR_ENTRIES:
            raise RosterError("wargear", N_("at most %(limit)s entries"), limit=MAX_WARGEAR_ENTRIES)
        for name, count in self.wargear.items():
            _check_text(name, "wargear", allow_empty=False)
            if isinstance(count, bool) or not isinstance(count, int):
                raise RosterError(f"wargear.{name}", N_("must be an integer"))
            if not 0 <= count <= MAX_MODELS:
                raise RosterError(
                    f"wargear.{name}",
                    N_("must be between %(low)s and %(high)s"),
                    low=0,
                    high=MAX_MODELS,
                )
        if self.attached_to is not None and not 0 <= self.attached_to < MAX_UNITS:
            raise RosterError(
                "attached_to",
                N_("must be a unit index between 0 and %(high)s"),
                high=MAX_UNITS - 1,
            )
        # Freeze the mapping so the value really is immutable.
        object.__setattr__(self, "wargear", MappingProxyType(dict(self.wargear)))

    def __hash__(self) -> int:
        return hash(
            (
                self.datasheet,
                self.models,
                tuple(sorted(self.wargear.items())),
                self.enhancements,
                self.warlord,
                self.attached_to,
                self.label,
            )
        )


@dataclass(frozen=True, slots=True)
class Roster:
    """An army list: Army Faction (one Faction keyword) [L4268-4271], one Detachment
    [L4283-4286], a battle size [L4211-4248] and the units [L4296-4353].
    ``include_legends``: the player's setting that admits Legends datasheets (off by default,
    as in the other list builders; ruling D11)."""

    faction: str
    detachment: str
    battle_size: BattleSize
    units: tuple[RosterUnit, ...] = ()
    name: str = ""
    catalogue: str | None = None
    catalogue_version: str | None = None
    include_legends: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.include_legends, bool):
            raise RosterError("include_legends", N_("must be true or false"))
        _check_text(self.name, "name")
        _check_text(self.faction, "faction", allow_empty=False)
        _check_text(self.detachment, "detachment")
        if len(self.units) > MAX_UNITS:
            raise RosterError("units", N_("at most %(limit)s units"), limit=MAX_UNITS)
        for attr in ("catalogue", "catalogue_version"):
            value = getattr(self, attr)
            if value is not None:
                _check_text(value, attr)

    @property
    def points_limit(self) -> int:
        return self.battle_size.points_limit

    def to_dict(self) -> dict[str, Plain]:
        body = to_plain(self)
        assert isinstance(body, dict)
        return {"format": ROSTER_FORMAT, "schema_version": ROSTER_SCHEMA_VERSION, **body}

    @classmethod
    def from_dict(cls, data: object) -> Roster:
        """Read our JSON form (what :meth:`to_dict` wrote); the ``format`` and
        ``schema_version`` keys may be omitted (a hand-written request body)."""
        if not isinstance(data, dict):
            raise RosterError("(root)", N_("a roster must be a JSON object"))
        body = dict(data)
        fmt = body.pop("format", ROSTER_FORMAT)
        if fmt != ROSTER_FORMAT:
            raise RosterError(
                "format",
                N_("expected %(expected)s, got %(found)s"),
                expected=repr(ROSTER_FORMAT),
                found=repr(fmt),
            )
        version = body.pop("schema_version", ROSTER_SCHEMA_VERSION)
        if version != ROSTER_SCHEMA_VERSION:
            raise RosterError(
                "schema_version",
                N_("unsupported schema version %(version)s (this is %(current)s)"),
                version=repr(version),
                current=ROSTER_SCHEMA_VERSION,
            )
        units = body.get("units")
        if isinstance(units, list) and len(units) > MAX_UNITS:
            raise RosterError("units", N_("at most %(limit)s units"), limit=MAX_UNITS)
        try:
            return from_plain(cls, body)
        except FormatError as exc:
            raise RosterError.collect(
                [RosterError(f, t) for (f, _m), t in zip(exc.errors, exc.templates, strict=True)],
                error_class=RosterError,
            ) from None
