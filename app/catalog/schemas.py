"""Pydantic schemas of the catalogue API."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.catalog import service
from app.catalog.models import CatalogueRecord
from app.core.db import as_aware
from app.core.ids import MAX_ID
from app.engine.wh40k10e.army import (
    Datasheet,
    Detachment,
    Enhancement,
    ModelProfile,
    PointsStep,
    Restriction,
    Weapon,
    WeaponProfile,
)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CatalogueOut(BaseModel):
    id: int
    slug: str = Field(description="A readable id; paths accept it in place of the numeric id")
    name: str
    version: str = Field(description="The data release; an army list records the one it used")
    rule_system: str
    factions: list[str]
    datasheet_count: int
    public: bool = Field(description="Readable by everyone (the starter catalogue)")
    yours: bool = Field(description="You imported it")
    club_id: int | None = Field(description="The club it is shared with, if any")
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, record: CatalogueRecord, user_id: int | None) -> CatalogueOut:
        return cls(
            id=record.id,
            slug=record.slug,
            name=record.name,
            version=record.version,
            rule_system=record.rule_system,
            factions=list(record.factions or []),
            datasheet_count=record.datasheet_count,
            public=record.owner_id is None,
            yours=user_id is not None and record.owner_id == user_id,
            club_id=record.club_id,
            created_at=as_aware(record.created_at),
            updated_at=as_aware(record.updated_at),
        )


class EnhancementOut(BaseModel):
    name: str
    points: int
    detachment: str
    requirement: str | None = Field(description="Who may take it beyond Characters, if limited")
    characters_only: bool

    @classmethod
    def of(cls, e: Enhancement) -> EnhancementOut:
        return cls(
            name=e.name,
            points=e.points,
            detachment=e.detachment,
            requirement=str(e.eligibility) if e.eligibility else None,
            characters_only=e.characters_only,
        )


class DetachmentOut(BaseModel):
    name: str
    faction: str
    enhancements: list[EnhancementOut]

    @classmethod
    def of(cls, d: Detachment) -> DetachmentOut:
        return cls(
            name=d.name,
            faction=d.faction,
            enhancements=[EnhancementOut.of(e) for e in d.enhancements],
        )


class FactionOut(BaseModel):
    name: str
    datasheets: int
    detachments: list[DetachmentOut]

    @classmethod
    def of(cls, view: service.FactionView) -> FactionOut:
        return cls(
            name=view.name,
            datasheets=view.datasheets,
            detachments=[DetachmentOut.of(d) for d in view.detachments],
        )


class CatalogueDetail(CatalogueOut):
    source: str
    faction_details: list[FactionOut]
    report: dict[str, Any] | None = Field(
        default=None, description="The import report (warnings, unmapped abilities), if imported"
    )


class PointsTierOut(BaseModel):
    min_models: int
    max_models: int
    points: int


class DatasheetSummary(BaseModel):
    id: str
    name: str
    role: str = Field(description="character, battleline, transport or other")
    faction_keywords: list[str]
    keywords: list[str]
    min_models: int
    max_models: int
    points: list[PointsTierOut]
    character: bool
    epic_hero: bool
    battleline: bool
    dedicated_transport: bool
    legends: bool

    @classmethod
    def fields_of(cls, d: Datasheet) -> dict[str, Any]:
        return {
            "id": d.id,
            "name": d.name,
            "role": service.role(d),
            "faction_keywords": list(d.faction_keywords),
            "keywords": list(d.keywords),
            "min_models": d.min_models,
            "max_models": d.max_models,
            "points": [
                PointsTierOut(min_models=t.min_models, max_models=t.max_models, points=t.points)
                for t in d.points
            ],
            "character": d.character,
            "epic_hero": d.epic_hero,
            "battleline": d.battleline,
            "dedicated_transport": d.dedicated_transport,
            "legends": d.legends,
        }

    @classmethod
    def of(cls, d: Datasheet) -> DatasheetSummary:
        return cls(**cls.fields_of(d))


class ModelProfileOut(BaseModel):
    name: str
    movement: str = Field(description="M as printed")
    toughness: int
    save: int | None = Field(description="Sv, the number before '+'")
    wounds: int
    leadership: int | None = Field(description="Ld, the number before '+'")
    objective_control: int | None
    invulnerable_save: int | None

    @classmethod
    def of(cls, p: ModelProfile) -> ModelProfileOut:
        return cls(
            name=p.name,
            movement=p.movement,
            toughness=p.toughness,
            save=p.save,
            wounds=p.wounds,
            leadership=p.leadership,
            objective_control=p.objective_control,
            invulnerable_save=p.invulnerable_save,
        )


class WeaponProfileOut(BaseModel):
    name: str
    kind: str
    range: int | None = Field(description="Inches; null for melee")
    attacks: str
    skill: int | None = Field(description="BS/WS before '+'; null for N/A (Torrent)")
    strength: str
    ap: int | None
    damage: str
    abilities: list[str]
    unmapped_abilities: list[str] = Field(
        description="Kept verbatim: the engine does not know them"
    )
    combat_weapon: dict[str, Any] | None = Field(
        description="This profile as the combat API's `weapon` (null if it cannot be expressed)"
    )

    @classmethod
    def of(cls, p: WeaponProfile) -> WeaponProfileOut:
        return cls(
            name=p.name,
            kind=p.kind.value,
            range=p.range,
            attacks=p.attacks,
            skill=p.skill,
            strength=p.strength,
            ap=p.ap,
            damage=p.damage,
            abilities=list(p.abilities),
            unmapped_abilities=list(p.unmapped_abilities),
            combat_weapon=p.combat_weapon(),
        )


class WeaponOut(BaseModel):
    name: str
    profiles: list[WeaponProfileOut]

    @classmethod
    def of(cls, w: Weapon) -> WeaponOut:
        return cls(name=w.name, profiles=[WeaponProfileOut.of(p) for p in w.profiles])


class ModelTypeOut(BaseModel):
    name: str
    min: int
    max: int
    profile: str
    points: int
    default_wargear: list[str]


class WargearChoiceOut(BaseModel):
    name: str
    weapons: list[str]
    points: int
    max_per_unit: int | None


class WargearRequiresOut(BaseModel):
    """The choice of another option an option sits inside (ruling D20)."""

    option: str = Field(description="The name of the option holding that choice")
    choice: str = Field(description="The name of the choice")


class WargearOptionOut(BaseModel):
    name: str
    model: str = Field(description="The model type the option is for ('' for the whole unit)")
    min: int = Field(
        description="Picks required per model (per time its `requires` choice is taken)"
    )
    max: int
    default: str | None
    choices: list[WargearChoiceOut]
    requires: WargearRequiresOut | None = Field(
        default=None,
        description="When the option sits inside a choice of another option (a Captain's "
        "Pistol inside Pistol and Melee Weapon): that choice; the option is open only as "
        "often as the unit takes it (ruling D20). null: the option stands on its own",
    )


class PointsStepOut(BaseModel):
    """A points modifier that depends on the unit's wargear (ruling D28)."""

    kind: str = Field(description="increment (adds points) or decrement (takes points)")
    amount: int = Field(description="Points added or taken each time the step applies")
    when: str | None = Field(description="The condition on the unit, in our words (null: always)")
    per: list[str] = Field(
        description="The choices counted: the step applies once per `every` of them taken "
        "(empty: once)"
    )
    every: int

    @classmethod
    def of(cls, step: PointsStep) -> PointsStepOut:
        return cls(
            kind=step.kind.value,
            amount=step.amount,
            when=None if step.when is None else str(step.when),
            per=list(step.per),
            every=step.every,
        )


class RestrictionOut(BaseModel):
    condition: str = Field(description="When the list breaks it, in our words (ruling D12)")
    severity: str = Field(description="error or warning")
    wargear: str = Field(description="Only for a unit taking this choice ('' = every unit)")
    unavailable: bool = Field(description="The datasheet cannot be taken while it holds")

    @classmethod
    def of(cls, r: Restriction) -> RestrictionOut:
        return cls(
            condition=str(r.when),
            severity=r.severity.value,
            wargear=r.wargear,
            unavailable=r.unavailable,
        )


class DatasheetOut(DatasheetSummary):
    profiles: list[ModelProfileOut]
    models: list[ModelTypeOut]
    weapons: list[WeaponOut]
    abilities: list[str] = Field(description="Ability names (no rules text)")
    wargear_options: list[WargearOptionOut]
    leader_of: list[str]
    leader_of_conditional: list[str]
    transport_capacity: int | None
    combat_target: dict[str, Any] | None = Field(
        description="The unit as the combat API's `target` (its minimum size)"
    )
    restrictions: list[RestrictionOut] = Field(
        default_factory=list, description="The data's own list errors for this datasheet"
    )
    points_steps: list[PointsStepOut] = Field(
        default_factory=list,
        description="Points added to the unit's points by size for the wargear it takes, in "
        "order (ruling D28: a Crucible character's weapons past the second); the unit never "
        "costs less than 0",
    )

    @classmethod
    def of(cls, d: Datasheet) -> DatasheetOut:
        return cls(
            **DatasheetSummary.fields_of(d),
            restrictions=[RestrictionOut.of(r) for r in d.restrictions],
            points_steps=[PointsStepOut.of(step) for step in d.points_steps],
            profiles=[ModelProfileOut.of(p) for p in d.profiles],
            models=[
                ModelTypeOut(
                    name=m.name,
                    min=m.min,
                    max=m.max,
                    profile=m.profile,
                    points=m.points,
                    default_wargear=list(m.default_wargear),
                )
                for m in d.models
            ],
            weapons=[WeaponOut.of(w) for w in d.weapons],
            abilities=list(d.abilities),
            wargear_options=[
                WargearOptionOut(
                    name=o.name,
                    model=o.model,
                    min=o.min,
                    max=o.max,
                    default=o.default,
                    choices=[
                        WargearChoiceOut(
                            name=c.name,
                            weapons=list(c.weapons),
                            points=c.points,
                            max_per_unit=c.max_per_unit,
                        )
                        for c in o.choices
                    ],
                    requires=WargearRequiresOut(option=o.within_option, choice=o.within)
                    if o.within
                    else None,
                )
                for o in d.wargear_options
            ],
            leader_of=list(d.leader_of),
            leader_of_conditional=list(d.leader_of_conditional),
            transport_capacity=d.transport_capacity,
            combat_target=d.combat_target(),
        )


class ImportOut(BaseModel):
    catalogues: list[CatalogueOut]
    created: list[bool] = Field(description="Per catalogue: new (true) or a new version (false)")
    report: dict[str, Any] = Field(
        description="files read, errors (none on success) and warnings, e.g. unmapped weapon "
        "abilities kept as text"
    )
    kept_used: list[str] = Field(
        default_factory=list,
        description="Files kept from an earlier upload that lacked its game system, read "
        "with these (`with_waiting`)",
    )
    waiting: list[str] = Field(
        default_factory=list,
        description="Files kept because no game system (.gst) came with them: send the .gst "
        "alone with `with_waiting` to import them again, complete",
    )


class ShareRequest(Strict):
    club_id: int | None = Field(
        description="A club you administer to share the catalogue with; null to stop sharing",
        ge=1,
        le=MAX_ID,
    )
