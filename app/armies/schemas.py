"""Pydantic schemas of army lists and of the stateless roster check."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag

from app.catalog.pen_units import MAX_ARMY_POINTS, MAX_ARMY_UNITS
from app.core.ids import Id
from app.engine.wh40k10e.army.roster import MAX_UNITS

WH40K_10E: Final = "wh40k-10e"
PEN: Final = "pen"
RULE_SYSTEMS = (WH40K_10E, PEN)

BattleSizeName = Literal["incursion", "strike-force", "onslaught"]
StatusName = Literal["draft", "ready"]
Name = Annotated[str, Field(min_length=1, max_length=200)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- 10th edition ---------------------------------------------------------------------------


class UnitIn(Strict):
    """One unit of a 10th-edition list."""

    datasheet: Name = Field(description="The datasheet's name (case and apostrophes do not matter)")
    models: int | None = Field(
        default=None, ge=1, le=200, description="Model count; null means the datasheet's minimum"
    )
    wargear: dict[
        Annotated[str, Field(min_length=1, max_length=200)], Annotated[int, Field(ge=0, le=200)]
    ] = Field(
        default_factory=dict,
        max_length=50,
        description="Wargear choice (or model type) -> how many the unit takes",
    )
    enhancements: list[Name] = Field(default_factory=list, max_length=10)
    warlord: bool = False
    attached_to: int | None = Field(
        default=None,
        ge=0,
        lt=MAX_UNITS,
        description="For a Leader: the 0-based index, in `units`, of the Bodyguard unit it joins",
    )
    label: str = Field(default="", max_length=200, description="Your own name for the unit")


CatalogRef = Annotated[
    Id | Annotated[str, Field(min_length=1, max_length=120)],
    Field(description="A catalogue's numeric id or slug"),
]


class RosterCheck(Strict):
    """The body of ``POST /rulesets/wh40k-10e/armies/validate``."""

    catalog: CatalogRef | None = Field(
        default=None, description="The catalogue (id or slug); default: the starter catalogue"
    )
    faction: Name = Field(description="The Army Faction, e.g. 'Adeptus Astartes'")
    detachment: str = Field(default="", max_length=200)
    battle_size: BattleSizeName = "strike-force"
    include_legends: bool = Field(
        default=False, description="Admit Legends datasheets (the list's setting; default off)"
    )
    units: list[UnitIn] = Field(default_factory=list, max_length=MAX_UNITS)


class Army10eCreate(Strict):
    rule_system: Literal["wh40k-10e"] = WH40K_10E
    name: Name
    catalog: CatalogRef | None = Field(
        default=None, description="The catalogue (id or slug); default: the starter catalogue"
    )
    faction: Name
    detachment: str = Field(default="", max_length=200)
    battle_size: BattleSizeName = "strike-force"
    include_legends: bool = Field(
        default=False, description="Admit Legends datasheets (the list's setting; default off)"
    )
    units: list[UnitIn] = Field(default_factory=list, max_length=MAX_UNITS)


# -- PEN ---------------------------------------------------------------------------------------


class PenCharacteristicsIn(Strict):
    ws: int | None = None
    bs: int | None = None
    strength: int | None = None
    toughness: int | None = None
    wounds: int | None = 1
    initiative: int | None = None
    attacks: int | None = 1
    leadership: int | None = None
    save: int | None = None
    invulnerable_save: int | None = None


class PenArmourIn(Strict):
    front: int
    side: int
    rear: int


class PenWeaponIn(Strict):
    name: str = Field(max_length=120)
    kind: str = Field(default="ranged", max_length=20)
    type: str = Field(default="assault", max_length=40)
    shots: int = 1
    salvo_moved: int | None = None
    strength: int | None = None
    ap: int | None = None
    range: int | None = None
    template: str | None = Field(default=None, max_length=40)
    properties: list[Annotated[str, Field(max_length=120)]] = Field(
        default_factory=list, max_length=30
    )


class PenOptionIn(Strict):
    name: str = Field(max_length=120)
    points: int = 0


class PenUnitIn(Strict):
    """A PEN unit the player defines (bounds are checked as in app.catalog.pen_units, whose
    docstring shows the stored shape)."""

    name: str = Field(max_length=120)
    points: int
    models: int = 1
    unit_type: str | None = Field(default="infantry", max_length=60)
    characteristics: PenCharacteristicsIn | None = None
    armour: PenArmourIn | None = None
    hull_points: int | None = None
    vehicle_types: list[Annotated[str, Field(max_length=60)]] = Field(
        default_factory=list, max_length=10
    )
    weapons: list[PenWeaponIn] = Field(default_factory=list, max_length=20)
    rules: list[Annotated[str, Field(max_length=120)]] = Field(default_factory=list, max_length=30)
    transport_capacity: int | None = None
    transport_types: list[Annotated[str, Field(max_length=60)]] = Field(
        default_factory=list, max_length=10
    )
    embarked_in: int | None = Field(default=None, description="index of its transport")
    independent_character: bool = False
    joins: int | None = Field(default=None, description="index of the squad it joins")
    troops: bool = False
    options: list[PenOptionIn] = Field(default_factory=list, max_length=20)


class PenArmyCreate(Strict):
    rule_system: Literal["pen"]
    name: Name
    points_limit: int | None = Field(default=None, ge=1, le=MAX_ARMY_POINTS)
    units: list[PenUnitIn] = Field(default_factory=list, max_length=MAX_ARMY_UNITS)


def _system_of(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("rule_system", WH40K_10E))
    return str(getattr(value, "rule_system", WH40K_10E))


ArmyCreate = Annotated[
    Annotated[Army10eCreate, Tag(WH40K_10E)] | Annotated[PenArmyCreate, Tag(PEN)],
    Discriminator(_system_of),
]


class ArmyUpdate(Strict):
    """Fields to change; the others stay. Any change to a "ready" list makes it a draft
    again, unless the same request marks it ready (then it must be valid)."""

    name: Name | None = None
    catalog: CatalogRef | None = Field(default=None, description="10th edition: the catalogue")
    faction: Name | None = Field(default=None, description="10th edition: the Army Faction")
    detachment: str | None = Field(default=None, max_length=200)
    battle_size: BattleSizeName | None = None
    include_legends: bool | None = Field(
        default=None, description="10th edition: admit Legends datasheets"
    )
    points_limit: int | None = Field(default=None, ge=1, le=MAX_ARMY_POINTS, description="PEN")
    units: list[dict[str, Any]] | None = Field(
        default=None,
        max_length=MAX_UNITS,
        description="Every unit of the list (replaces them): `UnitIn` objects for the 10th "
        "edition, `PenUnitIn` objects for PEN",
    )
    status: StatusName | None = Field(
        default=None, description="'ready' only if the list is valid (else 422 with violations)"
    )


# -- answers -----------------------------------------------------------------------------------


class ViolationOut(BaseModel):
    code: str
    severity: Literal["error", "warning"]
    message: str = Field(description="In your language")
    fix: str = Field(description="How to fix it, in your language")
    unit: int | None = Field(description="0-based index in `units`; null: the whole army")
    message_id: str
    fix_id: str
    params: dict[str, str | int]
    closest: list[str] = Field(
        default_factory=list, description="For an unknown name: the closest known names"
    )


class UnitPointsOut(BaseModel):
    index: int
    datasheet: str
    models: int
    points: int
    base_points: int
    wargear_points: int
    enhancement_points: int


class ValidationOut(BaseModel):
    valid: bool = Field(description="No error (warnings do not make a list invalid)")
    points: int
    points_limit: int | None
    units: list[UnitPointsOut]
    violations: list[ViolationOut]


class CatalogueRefOut(BaseModel):
    id: int
    slug: str
    name: str
    version: str


class CheckOut(ValidationOut):
    catalog: CatalogueRefOut


class ArmyOut(BaseModel):
    id: int
    name: str
    rule_system: str
    status: StatusName
    catalog: CatalogueRefOut | None
    catalog_version: str | None = Field(description="The catalogue version the list was built with")
    catalog_outdated: bool = Field(
        description="The catalogue has a newer version than the one the list was built with"
    )
    faction: str
    detachment: str
    battle_size: str | None
    include_legends: bool = Field(description="10th edition: Legends datasheets are admitted")
    points_limit: int | None
    units: list[dict[str, Any]]
    validation: ValidationOut
    shared: bool = Field(description="A read-only share link is active")
    shared_at: datetime | None
    created_at: datetime
    updated_at: datetime


class ArmySummaryOut(BaseModel):
    id: int
    name: str
    rule_system: str
    status: StatusName
    faction: str
    detachment: str
    battle_size: str | None
    points: int
    points_limit: int | None
    valid: bool
    updated_at: datetime


class SharedArmyOut(BaseModel):
    """A list seen through its share link (read-only; no owner-only fields)."""

    name: str
    rule_system: str
    status: StatusName
    catalog: CatalogueRefOut | None
    catalog_version: str | None
    faction: str
    detachment: str
    battle_size: str | None
    include_legends: bool = Field(description="10th edition: Legends datasheets are admitted")
    points_limit: int | None
    units: list[dict[str, Any]]
    validation: ValidationOut
    updated_at: datetime


class ShareOut(BaseModel):
    token: str = Field(
        description="Derived from the server key: the list page shows it again while it is active"
    )
    url: str = Field(description="The read-only page")
    api_url: str = Field(description="The read-only JSON")


# -- imports of the formats players paste --------------------------------------------------------

MAX_PASTED_TEXT = 200_000


class TextImportIn(Strict):
    """The body of ``POST /armies/import/text``."""

    text: str = Field(
        min_length=1,
        max_length=MAX_PASTED_TEXT,
        description="The list as pasted: the official app's text export (or ours), New "
        "Recruit's WTC or roster text, New Recruit's JSON, or our JSON export",
    )
    catalog: CatalogRef | None = Field(
        default=None,
        description="Read the names with this catalogue; default: among yours (and the "
        "starter) that read the list with the fewest problems, the one a header line names, "
        "then the one whose own datasheets the list uses most, the starter last (ruling D27)",
    )
    skip_unknown: bool = Field(
        default=False,
        description="Build the list without the lines not understood (they are listed in "
        "`import_report.skipped`) instead of refusing it",
    )


class ImportLineOut(BaseModel):
    where: str = Field(description="`line 12`, or a JSON path for JSON")
    text: str
    message: str


class IgnoredLineOut(BaseModel):
    where: str
    text: str


class ImportReportOut(BaseModel):
    format: str = Field(description="`app`, `wtc`, `roster`, `json` or `auspex-json`")
    skipped: list[ImportLineOut] = Field(description="Lines not understood, left out")
    notes: list[ImportLineOut] = Field(
        description="What was assumed or differs, e.g. points of another data version"
    )
    ignored: list[IgnoredLineOut] = Field(
        description="Lines that carry nothing of the list (an app's version footer...)"
    )
    catalog_detected: bool = Field(
        default=False,
        description="The catalogue (`catalog` of the list) was found from the list, not asked "
        "for: the one the text names, else the one whose datasheets it uses, else the starter "
        "(ruling D27)",
    )


class ArmyImportOut(ArmyOut):
    import_report: ImportReportOut | None = None
