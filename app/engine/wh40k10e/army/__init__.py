"""10th-edition army building: the catalogue, the roster, muster validation and export.

Pure (no web, no database). The public API:

- :mod:`.catalog`: :class:`Catalogue` and its parts (datasheets, weapons, detachments,
  enhancements), JSON round trip with a schema version, :func:`merge_catalogues`.
- :mod:`.roster`: :class:`Roster`, :class:`RosterUnit`, :class:`BattleSize`.
- :mod:`.validate`: :func:`validate` -> :class:`ValidationResult` with every
  :class:`Violation` (stable :class:`Code`, message, fix, unit, message id and params).
- :mod:`.export`: :func:`export_text`, :func:`export_json`, :func:`import_json`.
"""

from __future__ import annotations

from app.engine.wh40k10e.army.catalog import (
    SCHEMA_VERSION,
    ArmyFacts,
    ArmyLimit,
    Catalogue,
    CatalogueError,
    Compare,
    ConditionOp,
    CountOf,
    Datasheet,
    Detachment,
    DetachmentVariant,
    Enhancement,
    KeywordOp,
    KeywordRule,
    LimitStep,
    LimitStepKind,
    ModelProfile,
    ModelType,
    PointsStep,
    PointsTier,
    Restriction,
    RestrictionSeverity,
    RosterCondition,
    UnitFacts,
    WargearChoice,
    WargearOption,
    Weapon,
    WeaponKind,
    WeaponProfile,
    dump_catalogues,
    load_catalogues,
    merge_catalogues,
    parent_option,
    within_counts,
)
from app.engine.wh40k10e.army.export import export_json, export_text, import_json
from app.engine.wh40k10e.army.names import closest, name_key
from app.engine.wh40k10e.army.roster import BattleSize, Roster, RosterError, RosterUnit
from app.engine.wh40k10e.army.validate import (
    FIXES,
    MESSAGES,
    Code,
    Severity,
    UnitResult,
    ValidationResult,
    Violation,
    validate,
)

__all__ = [
    "FIXES",
    "MESSAGES",
    "SCHEMA_VERSION",
    "ArmyFacts",
    "ArmyLimit",
    "BattleSize",
    "Catalogue",
    "CatalogueError",
    "Code",
    "Compare",
    "ConditionOp",
    "CountOf",
    "Datasheet",
    "Detachment",
    "DetachmentVariant",
    "Enhancement",
    "KeywordOp",
    "KeywordRule",
    "LimitStep",
    "LimitStepKind",
    "ModelProfile",
    "ModelType",
    "PointsStep",
    "PointsTier",
    "Restriction",
    "RestrictionSeverity",
    "Roster",
    "RosterCondition",
    "RosterError",
    "RosterUnit",
    "Severity",
    "UnitFacts",
    "UnitResult",
    "ValidationResult",
    "Violation",
    "WargearChoice",
    "WargearOption",
    "Weapon",
    "WeaponKind",
    "WeaponProfile",
    "closest",
    "dump_catalogues",
    "export_json",
    "export_text",
    "import_json",
    "load_catalogues",
    "merge_catalogues",
    "name_key",
    "parent_option",
    "validate",
    "within_counts",
]
