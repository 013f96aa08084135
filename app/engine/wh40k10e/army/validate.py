"""Army validation that explains itself: every muster violation at once [§2.10, §6.1].

:func:`validate` checks a :class:`~.roster.Roster` against a :class:`~.catalog.Catalogue` and
returns a :class:`ValidationResult`: the points (per unit and in total), the battle size's
limit, and **every** :class:`Violation`, never only the first. Each violation has a stable
``code`` (:class:`Code`), a ``severity``, the index of the unit it concerns (0-based, ``None``
for the whole army), an English ``message`` and ``fix``, and the ``message_id`` / ``fix_id``
and ``params`` from which a translator rebuilds both (:data:`MESSAGES`, :data:`FIXES`).

The rules checked, with their seed lines (``wh40k-10e-core-2.md`` §2.10):

- points within the battle size's limit [L4235-4248, L4323];
- every unit has the Army Faction keyword [L4268-4271, L4320-4321];
- at most 3 units per datasheet name, 6 for Battleline / Dedicated Transport [L4324-4331];
- each Epic Hero at most once [L4343-4344];
- at least one Character unit [L4299-4300];
- exactly one Warlord, a Character [L4355-4362];
- enhancements: Characters only, not Epic Heroes, at most 1 per unit, at most 3 per army,
  each unique [L4333-4341], from the chosen Detachment [L4283-4294], and only on a bearer the
  enhancement allows (``enhancement-not-eligible``, from the data);
- a known datasheet, detachment and enhancement (with the closest names when unknown);
- what the chosen Detachment changes, from the data: a datasheet it excludes
  (``datasheet-not-in-detachment``), keywords it adds (Battleline), the limit of copies and
  the points it sets (:meth:`~.catalog.Datasheet.in_detachment`);
- a unit size its datasheet allows, wargear its options allow [L3080-3091]: each item within
  its own limit, and the items of one option (alternatives: "one of the following") within the
  option's slots, shared between options that offer the same item;
- the keywords a taken choice adds to its unit, used by every check below (a vehicle made a
  Character by "Tank Ace Character" takes an Enhancement and may be the Warlord, ruling D22),
  or removes from it (a champion on a Combat Bike is no Infantry, D24), and a choice the
  whole army may take only so often (``wargear-invalid.roster``, D23); the keywords an
  Enhancement gives the bearer that may take it, used by the checks after the Enhancements
  (Touched by the Warp: a Psyker, D25);
- the data's limits on the units of a keyword in the whole army, units or points, which may
  depend on the battle size (allies' points caps, "Assigned Agents" counts: a category's
  constraints, :class:`~.catalog.ArmyLimit`, ``category-limit-exceeded``);
- Leader attachments: a Leader joins one of its Bodyguard units, one Leader per Bodyguard
  unit [L3211-3227, L3253] unless a datasheet allows a second one (``extra_leader`` on the
  Leader, ``two_leaders_from`` on the Bodyguard unit); a
  Bodyguard unit the data marks as needing some wargear gives a warning.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import pairwise

from app.engine.wh40k10e.army.catalog import (
    ArmyFacts,
    ArmyLimit,
    Catalogue,
    ConditionOp,
    CountOf,
    Datasheet,
    Enhancement,
    Restriction,
    RestrictionSeverity,
    RosterCondition,
    UnitFacts,
    WargearOption,
    within_counts,
)
from app.engine.wh40k10e.army.names import closest, name_key
from app.engine.wh40k10e.army.roster import Roster, RosterUnit

__all__ = [
    "FIXES",
    "MAX_ENHANCEMENTS",
    "MESSAGES",
    "Code",
    "Severity",
    "UnitResult",
    "ValidationResult",
    "Violation",
    "validate",
]

MAX_ENHANCEMENTS = 3  # per army [L4335-4336]
MAX_PER_NAME = 1000  # cap on a computed wargear allowance


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


class Code(StrEnum):
    """Stable violation codes (part of the public API)."""

    POINTS_OVER_LIMIT = "points-over-limit"
    DATASHEET_LIMIT_EXCEEDED = "datasheet-limit-exceeded"
    NO_CHARACTER = "no-character"
    NO_WARLORD = "no-warlord"
    MULTIPLE_WARLORDS = "multiple-warlords"
    WARLORD_NOT_CHARACTER = "warlord-not-character"
    WARLORD_NOT_ELIGIBLE = "warlord-not-eligible"
    FACTION_MISMATCH = "faction-mismatch"
    EPIC_HERO_DUPLICATE = "epic-hero-duplicate"
    ENHANCEMENT_LIMIT_EXCEEDED = "enhancement-limit-exceeded"
    ENHANCEMENT_DUPLICATE = "enhancement-duplicate"
    ENHANCEMENT_NOT_CHARACTER = "enhancement-not-character"
    ENHANCEMENT_ON_EPIC_HERO = "enhancement-on-epic-hero"
    ENHANCEMENT_NOT_ELIGIBLE = "enhancement-not-eligible"
    MULTIPLE_ENHANCEMENTS_ON_UNIT = "multiple-enhancements-on-unit"
    ENHANCEMENT_WRONG_DETACHMENT = "enhancement-wrong-detachment"
    UNIT_SIZE_INVALID = "unit-size-invalid"
    WARGEAR_INVALID = "wargear-invalid"
    LEADER_ATTACHMENT_ILLEGAL = "leader-attachment-illegal"
    UNKNOWN_DATASHEET = "unknown-datasheet"
    UNKNOWN_DETACHMENT = "unknown-detachment"
    UNKNOWN_ENHANCEMENT = "unknown-enhancement"
    DATASHEET_NOT_IN_DETACHMENT = "datasheet-not-in-detachment"
    LEGENDS_NOT_INCLUDED = "legends-not-included"
    DATA_RESTRICTION = "data-restriction"
    CATEGORY_LIMIT_EXCEEDED = "category-limit-exceeded"
    CATEGORY_MINIMUM_NOT_MET = "category-minimum-not-met"


# English templates, keyed by message id; ``str.format(**params)`` fills them. A translation
# keeps the ids and the {placeholders}.
MESSAGES: Mapping[str, str] = {
    "points-over-limit": "The army costs {points} points, {over} over the {limit}-point limit "
    "of {battle_size}.",
    "datasheet-limit-exceeded": "{count} units of {datasheet}: an army may include at most "
    "{limit}.",
    "no-character": "The army has no Character unit; it needs at least one.",
    "no-warlord": "No Warlord is chosen.",
    "multiple-warlords": "{count} units are marked as Warlord; the army has exactly one.",
    "warlord-not-character": "{datasheet} is not a Character and cannot be the Warlord.",
    "warlord-not-eligible": "{datasheet} cannot be the Warlord of a {faction} army: the "
    "catalogue offers it as an ally only.",
    "faction-mismatch": "{datasheet} does not have the {faction} Faction keyword.",
    "faction-mismatch.unknown-faction": "The catalogue has no faction {faction}.",
    "epic-hero-duplicate": "{datasheet} is an Epic Hero and is included {count} times.",
    "enhancement-limit-exceeded": "The army has {count} Enhancements; at most {limit} are allowed.",
    "enhancement-duplicate": "{enhancement} is taken by more than one unit; each Enhancement is "
    "unique.",
    "enhancement-not-character": "{datasheet} is not a Character and cannot take {enhancement}.",
    "enhancement-on-epic-hero": "{datasheet} is an Epic Hero and cannot take {enhancement}.",
    "enhancement-not-eligible": "{enhancement} can only be given to a {requirement} model; "
    "{datasheet} is not one.",
    "enhancement-not-eligible.ally": "{datasheet} is an allied unit and cannot take {enhancement}.",
    "multiple-enhancements-on-unit": "{datasheet} has {count} Enhancements; a unit can have at "
    "most 1.",
    "enhancement-wrong-detachment": "{enhancement} belongs to the {enhancement_detachment} "
    "Detachment, not to {detachment}.",
    "unit-size-invalid": "{datasheet} has {models} models; it must have {allowed}.",
    "wargear-invalid": "{datasheet} cannot take {wargear}.",
    "wargear-invalid.too-many": "{datasheet} takes {count} {wargear}; at most {limit} allowed.",
    "wargear-invalid.alternatives": "{datasheet} takes {count} of {wargear}, which are "
    "alternatives ({options}): at most {limit} in all.",
    "wargear-invalid.unavailable": "{datasheet} cannot take {wargear} while {condition}.",
    "wargear-invalid.required": "{datasheet} takes {count} of {wargear} ({option}): the "
    "catalogue requires at least {limit}.",
    "wargear-invalid.required-while": "{datasheet} takes {count} of {wargear} ({option}): "
    "the catalogue requires at least {limit} while {condition}.",
    "wargear-invalid.roster": "{wargear} is taken {count} times in the army ({units}); "
    "at most {limit} allowed.",
    "wargear-invalid.requires": "{datasheet} takes {wargear}, which comes only with {parent}.",
    "wargear-invalid.required-within": "{datasheet} takes {parent} with {count} of {wargear} "
    "({option}): it needs {limit}.",
    "leader-attachment-illegal.no-such-unit": "{datasheet} is attached to unit {target_number}, "
    "which is not in the army.",
    "leader-attachment-illegal.self": "{datasheet} is attached to itself.",
    "leader-attachment-illegal.not-a-leader": "{datasheet} is not a Leader and cannot be "
    "attached to another unit.",
    "leader-attachment-illegal.not-a-bodyguard": "{datasheet} cannot lead {target}.",
    "leader-attachment-illegal.bodyguard-taken": "{target} already has a Leader ({other}); a "
    "Bodyguard unit can have only one.",
    "leader-attachment-illegal.target-attached": "{target} is itself attached to another unit "
    "and cannot be led.",
    "leader-attachment-illegal.conditional": "{datasheet} can lead {target} only with certain "
    "wargear: check its Leader ability.",
    "unknown-datasheet": "No datasheet called {datasheet}.",
    "unknown-detachment": "No Detachment called {detachment} for {faction}.",
    "unknown-enhancement": "No Enhancement called {enhancement}.",
    "datasheet-not-in-detachment": "{datasheet} cannot be included in an army of the "
    "{detachment} Detachment.",
    "legends-not-included": "{datasheet} is a Legends datasheet and the list does not include "
    "Legends.",
    "data-restriction": "{datasheet} breaks a restriction of the catalogue: {condition}.",
    "data-restriction.unavailable": "{datasheet} cannot be included in this army: {condition}.",
    "category-limit-exceeded": "{count} {keyword} units in the army: the catalogue allows at "
    "most {limit} in {battle_size}.",
    "category-limit-exceeded.points": "The {keyword} units cost {count} points: the catalogue "
    "allows at most {limit} points of them in {battle_size}.",
    "category-minimum-not-met": "{count} {keyword} units in the army: the catalogue requires "
    "at least {limit} in the {detachment} Detachment.",
    "category-minimum-not-met.points": "The {keyword} units cost {count} points: the "
    "catalogue requires at least {limit} points of them in the {detachment} Detachment.",
}

FIXES: Mapping[str, str] = {
    "points-over-limit": "Remove {over} points: for example remove {suggestion}, or play a "
    "larger battle size.",
    "points-over-limit.no-suggestion": "Remove {over} points of units, upgrades or "
    "Enhancements, or play a larger battle size.",
    "datasheet-limit-exceeded": "Remove {excess} {datasheet} unit(s).",
    "no-character": "Add a Character unit{suggestion}.",
    "no-warlord": "Mark one Character as the Warlord{suggestion}.",
    "multiple-warlords": "Keep the Warlord mark on one unit only.",
    "warlord-not-character": "Mark a Character as the Warlord instead.",
    "warlord-not-eligible": "Mark a {faction} Character as the Warlord instead.",
    "faction-mismatch": "Remove {datasheet} or pick a faction it belongs to ({factions}).",
    "faction-mismatch.unknown-faction": "Pick one of: {closest}.",
    "epic-hero-duplicate": "Remove {excess} {datasheet}.",
    "enhancement-limit-exceeded": "Remove {excess} Enhancement(s).",
    "enhancement-duplicate": "Give {enhancement} to one unit only.",
    "enhancement-not-character": "Give {enhancement} to a Character instead.",
    "enhancement-on-epic-hero": "Give {enhancement} to a Character that is not an Epic Hero.",
    "enhancement-not-eligible": "Give {enhancement} to a {requirement} model instead.",
    "enhancement-not-eligible.ally": "Give {enhancement} to a {faction} Character instead.",
    "multiple-enhancements-on-unit": "Keep one Enhancement on {datasheet}.",
    "enhancement-wrong-detachment": "Remove {enhancement} or choose the "
    "{enhancement_detachment} Detachment.",
    "unit-size-invalid": "Set {datasheet} to {allowed} models.",
    "wargear-invalid": "Remove {wargear}{suggestion}.",
    "wargear-invalid.too-many": "Take at most {limit} {wargear}.",
    "wargear-invalid.alternatives": "Keep at most {limit} of {wargear}.",
    "wargear-invalid.unavailable": "Remove {wargear}, or change the unit so that this no "
    "longer holds: {condition}.",
    "wargear-invalid.required": "Add {missing} of {wargear} ({option}).",
    "wargear-invalid.roster": "Remove {excess} {wargear} from these units.",
    "wargear-invalid.requires": "Take {parent}, or remove {wargear}.",
    "wargear-invalid.required-within": "Add {missing} of {wargear} ({option}), or remove {parent}.",
    "leader-attachment-illegal": "Attach {datasheet} to one of: {allowed}.",
    "leader-attachment-illegal.not-a-leader": "Detach {datasheet}.",
    "leader-attachment-illegal.bodyguard-taken": "Attach {datasheet} to another Bodyguard unit.",
    "leader-attachment-illegal.conditional": "Check that {datasheet} has the wargear its "
    "Leader ability requires for {target}.",
    "unknown": "Check the spelling{suggestion}.",
    "datasheet-not-in-detachment": "Remove {datasheet} or choose a Detachment that allows "
    "it{suggestion}.",
    "legends-not-included": "Remove {datasheet} or include Legends in the list's settings.",
    "data-restriction": "Change {datasheet} or the rest of the army so that this no longer holds.",
    "data-restriction.unavailable": "Remove {datasheet} or change the rest of the army.",
    "category-limit-exceeded": "Remove {excess} {keyword} unit(s){suggestion}.",
    "category-limit-exceeded.points": "Remove {excess} points of {keyword} units{suggestion}.",
    "category-minimum-not-met": "Add {missing} {keyword} unit(s){suggestion}, or choose "
    "another Detachment.",
    "category-minimum-not-met.points": "Add {missing} points of {keyword} units{suggestion}, "
    "or choose another Detachment.",
}


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken muster rule: a stable ``code``, the unit index it concerns (``None``: the
    army), English ``message`` and ``fix``, and their ids and parameters for translation."""

    code: Code
    severity: Severity
    message: str
    fix: str
    unit: int | None
    message_id: str
    fix_id: str
    params: Mapping[str, str | int] = field(default_factory=dict)
    # The data's condition the ``condition`` param words (in English): a reader in another
    # language words it again with :meth:`RosterCondition.describe`.
    condition: RosterCondition | None = field(default=None, compare=False)

    def as_dict(self) -> dict[str, object]:
        return {
            "code": self.code.value,
            "severity": self.severity.value,
            "message": self.message,
            "fix": self.fix,
            "unit": self.unit,
            "message_id": self.message_id,
            "fix_id": self.fix_id,
            "params": dict(self.params),
        }


@dataclass(frozen=True, slots=True)
class UnitResult:
    """The points of one roster unit (0 for an unknown datasheet): the unit's size tier,
    wargear and enhancements."""

    index: int
    datasheet: str
    models: int
    base_points: int
    wargear_points: int
    enhancement_points: int

    @property
    def points(self) -> int:
        return self.base_points + self.wargear_points + self.enhancement_points


@dataclass(frozen=True, slots=True)
class ValidationResult:
    points: int
    points_limit: int
    units: tuple[UnitResult, ...]
    violations: tuple[Violation, ...]

    @property
    def valid(self) -> bool:
        """No error (warnings do not make a list invalid)."""
        return not any(v.severity is Severity.ERROR for v in self.violations)

    @property
    def errors(self) -> tuple[Violation, ...]:
        return tuple(v for v in self.violations if v.severity is Severity.ERROR)

    @property
    def warnings(self) -> tuple[Violation, ...]:
        return tuple(v for v in self.violations if v.severity is Severity.WARNING)

    def for_unit(self, index: int) -> tuple[Violation, ...]:
        return tuple(v for v in self.violations if v.unit == index)

    def as_dict(self) -> dict[str, object]:
        return {
            "valid": self.valid,
            "points": self.points,
            "points_limit": self.points_limit,
            "units": [
                {
                    "index": u.index,
                    "datasheet": u.datasheet,
                    "models": u.models,
                    "points": u.points,
                    "base_points": u.base_points,
                    "wargear_points": u.wargear_points,
                    "enhancement_points": u.enhancement_points,
                }
                for u in self.units
            ],
            "violations": [v.as_dict() for v in self.violations],
        }


def _listing(names: Sequence[str], limit: int = 6) -> str:
    shown = list(names[:limit])
    if len(names) > limit:
        shown.append("...")
    return ", ".join(shown)


def _unit_ref(unit: RosterUnit, index: int) -> str:
    """How a message names a roster unit: its label or datasheet, and its 1-based number."""
    return f"{unit.label or unit.datasheet} (#{index + 1})"


# UnitResult is immutable: one object serves every validation that finds the same figures
# (making one is most of what a plain unit costs). Bounded.
_UNIT_RESULTS: dict[tuple[int, str, int, int, int, int], UnitResult] = {}
_UNIT_RESULTS_MAX = 16384


def _unit_result(
    index: int, datasheet: str, models: int, base: int, wargear: int, enhancements: int
) -> UnitResult:
    key = (index, datasheet, models, base, wargear, enhancements)
    found = _UNIT_RESULTS.get(key)
    if found is None:
        if len(_UNIT_RESULTS) >= _UNIT_RESULTS_MAX:
            _UNIT_RESULTS.clear()
        found = _UNIT_RESULTS[key] = UnitResult(*key)
    return found


class _Collector:
    def __init__(self) -> None:
        self.items: list[Violation] = []

    def add(
        self,
        code: Code,
        unit: int | None,
        params: Mapping[str, str | int],
        *,
        message_id: str | None = None,
        fix_id: str | None = None,
        severity: Severity = Severity.ERROR,
        condition: RosterCondition | None = None,
    ) -> None:
        mid = message_id or code.value
        fid = fix_id or code.value
        self.items.append(
            Violation(
                code=code,
                severity=severity,
                message=MESSAGES[mid].format(**params),
                fix=FIXES[fid].format(**params),
                unit=unit,
                message_id=mid,
                fix_id=fid,
                params=dict(params),
                condition=condition,
            )
        )


def _suggest(names: Sequence[str]) -> str:
    return f" (did you mean {' or '.join(names)}?)" if names else ""


def _allowed_sizes(sheet: Datasheet) -> str:
    """The legal unit sizes in words: "5", "between 5 and 10 (points change at 6)",
    "11 or 22"."""
    if sheet.min_models == sheet.max_models:
        return str(sheet.min_models)
    tiers = sorted(sheet.points, key=lambda t: t.min_models)
    contiguous = all(b.min_models == a.max_models + 1 for a, b in pairwise(tiers))
    if not tiers or (
        contiguous
        and tiers[0].min_models == sheet.min_models
        and tiers[-1].max_models == sheet.max_models
    ):
        text = f"between {sheet.min_models} and {sheet.max_models}"
        if len(tiers) > 1:
            changes = ", ".join(str(t.min_models) for t in tiers[1:])
            text += f" (points change at {changes})"
        return text
    parts = [
        str(t.min_models) if t.min_models == t.max_models else f"{t.min_models}-{t.max_models}"
        for t in tiers
    ]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]


def _tier_points(sheet: Datasheet, models: int) -> int:
    """The points of ``sheet`` with ``models`` models; an out-of-range size is priced at the
    nearest size the datasheet allows (the size itself is reported separately)."""
    exact = sheet.points_for(models)
    if exact is not None:
        return exact
    if not sheet.points:
        return 0
    nearest = min(
        sheet.points,
        key=lambda t: min(abs(models - t.min_models), abs(models - t.max_models)),
    )
    return nearest.points


def _carriers(sheet: Datasheet, models: int) -> Callable[[str], int]:
    """How many models of a type (``""``: the whole unit, once) a unit of ``models`` models can
    have: what a per-model wargear option multiplies by."""
    model_max = {name_key(m.name): min(m.max, models) for m in sheet.models}
    return lambda model: max(model_max.get(name_key(model), 1), 0) if model else 1


def _wargear_limits(sheet: Datasheet, models: int) -> dict[str, tuple[str, int, int]]:
    """For each wargear name a unit of ``models`` models may take: (display name, max count,
    points per selection). Model types of the composition count as wargear too (the unit
    takes N models of that type)."""
    limits: dict[str, tuple[str, int, int]] = {}
    carriers = _carriers(sheet, models)
    for opt in sheet.wargear_options:
        for choice in opt.choices:
            key = name_key(choice.name)
            allowed = opt.max * carriers(opt.model)
            if choice.max_per_unit is not None:
                allowed = min(allowed, choice.max_per_unit)
            name, prev, _ = limits.get(key, (choice.name, 0, choice.points))
            limits[key] = (name, min(prev + allowed, MAX_PER_NAME), choice.points)
    for m in sheet.models:
        key = name_key(m.name)
        if key not in limits:
            limits[key] = (m.name, min(m.max, models), 0)
        for w in m.default_wargear:
            wkey = name_key(w)
            if wkey not in limits:
                limits[wkey] = (w, min(m.max, models), 0)
    return limits


def _option_slots(sheet: Datasheet, models: int) -> list[tuple[str, int, dict[str, int]]]:
    """Each wargear option as (name, slots, {item key: most that item can fill}): a model type
    option gives ``max`` picks per model of that type the unit can have."""
    carriers = _carriers(sheet, models)
    slots = []
    for opt in sheet.wargear_options:
        total = min(opt.max * carriers(opt.model), MAX_PER_NAME)
        items: dict[str, int] = {}
        for choice in opt.choices:
            cap = total if choice.max_per_unit is None else min(total, choice.max_per_unit)
            key = name_key(choice.name)
            items[key] = max(items.get(key, 0), cap)
        slots.append((opt.name, total, items))
    return slots


def _only_option(slots: Sequence[tuple[str, int, dict[str, int]]]) -> dict[str, int]:
    """For each item the options offer, the index of the option offering it, or -1 when
    several do."""
    only: dict[str, int] = {}
    for j, (_, _, offered) in enumerate(slots):
        for key in offered:
            only[key] = j if key not in only else -1
    return only


def _fits(
    taken: Mapping[str, int],
    slots: Sequence[tuple[str, int, dict[str, int]]],
    only: Mapping[str, int],
) -> bool:
    """Whether every item taken plainly fits (:func:`_overcommitted` would find ``None``):
    each item is offered by one option only, within that option's cap for it, and each
    option's items within its slots. ``False`` says nothing: the flow decides."""
    used: dict[int, int] = {}
    for key, n in taken.items():
        j = only.get(key)
        if j is None:
            continue  # no option offers it: not the options' concern
        if j < 0 or n > slots[j][2][key]:
            return False
        used[j] = used.get(j, 0) + n
    return all(n <= slots[j][1] for j, n in used.items())


def _overcommitted(
    taken: Mapping[str, int], slots: Sequence[tuple[str, int, dict[str, int]]]
) -> tuple[set[str], set[int], int, int] | None:
    """Can every item taken be put in an option offering it, no option over its slots? A
    maximum flow from items to options says; if not, the items that cannot all fit and the
    options they can use (a Hall violator: more taken than those options hold), with both
    totals. ``None`` when everything fits."""
    items = [key for key in taken if any(key in o[2] for o in slots)]
    flow: dict[tuple[str, int], int] = {}
    left = {key: taken[key] for key in items}
    room = [o[1] for o in slots]

    def augment(key: str, seen_items: set[str], seen_options: set[int]) -> bool:
        """Find room for one more of ``key``: a free slot, or one freed by moving another
        item to another option (an augmenting path of one unit)."""
        seen_items.add(key)
        for j, (_, _, offered) in enumerate(slots):
            if key not in offered or j in seen_options or flow.get((key, j), 0) >= offered[key]:
                continue
            seen_options.add(j)
            if room[j] > 0:
                room[j] -= 1
                flow[key, j] = flow.get((key, j), 0) + 1
                return True
            for other in items:
                moved = (
                    flow.get((other, j), 0) > 0
                    and other not in seen_items
                    and augment(other, seen_items, seen_options)
                )
                if moved:
                    flow[other, j] -= 1
                    flow[key, j] = flow.get((key, j), 0) + 1
                    return True
        return False

    stuck: set[str] = set()
    for key in items:
        while left[key] > 0:
            seen_items: set[str] = set()
            seen_options: set[int] = set()
            if not augment(key, seen_items, seen_options):
                stuck |= seen_items
                break
            left[key] -= 1
    if not stuck:
        return None
    # the items that could not all be placed, with every item their options' slots hold
    reach_items, reach_options = set(stuck), set()
    changed = True
    while changed:
        changed = False
        for j, (_, _, offered) in enumerate(slots):
            if j not in reach_options and any(k in offered for k in reach_items):
                reach_options.add(j)
                changed = True
                for k in items:
                    if k not in reach_items and flow.get((k, j), 0) > 0:
                        reach_items.add(k)
    demand = sum(taken[k] for k in reach_items)
    capacity = sum(slots[j][1] for j in reach_options)
    return reach_items, reach_options, demand, capacity


def _certain_models(sheet: Datasheet, models: int, model: str) -> int:
    """How many models of type ``model`` a unit of ``models`` models certainly has, whatever
    the roster's reading (B3): its minimum, or what the other types cannot hold."""
    key = name_key(model)
    mine = next((m for m in sheet.models if name_key(m.name) == key), None)
    if mine is None:
        return 0
    others = sum(m.max for m in sheet.models if m is not mine)
    return max(mine.min, min(mine.max, models - others))


def _check_required(
    out: _Collector,
    i: int,
    unit: RosterUnit,
    sheet: Datasheet,
    models: int,
    required: Sequence[tuple[WargearOption, frozenset[str]]],
) -> None:
    """An option the data requires ("at least N" on each model of its type, BattleScribe's
    ``min``) with no default to fill it: the unit takes at least N x the models of that type it
    certainly has (ruling D20). A choice several options offer counts for each of them (the
    roster counts per unit), so a shortfall is certain."""
    taken: dict[str, int] | None = None
    needs = _keys_of(sheet).needs(models, required)
    for (opt, keys), need in zip(required, needs, strict=True):
        if opt.within:
            continue  # checked each time its choice is taken: _check_required_within
        if need <= 0:
            continue
        if taken is None:
            taken = {}
            for w, n in unit.wargear.items():
                k = name_key(w)
                taken[k] = taken.get(k, 0) + n
        have = sum(taken.get(k, 0) for k in keys) if taken else 0
        if have >= need:
            continue
        out.add(
            Code.WARGEAR_INVALID,
            i,
            {
                "datasheet": _unit_ref(unit, i),
                "option": opt.name,
                "wargear": _listing([c.name for c in opt.choices]),
                "count": have,
                "limit": need,
                "missing": need - have,
            },
            message_id="wargear-invalid.required",
            fix_id="wargear-invalid.required",
            severity=Severity.WARNING,
        )


def _check_required_within(
    out: _Collector,
    i: int,
    unit: RosterUnit,
    sheet: Datasheet,
    required: Sequence[tuple[WargearOption, frozenset[str]]],
) -> None:
    """An option inside a choice (ruling D20) that the data requires ("at least N", no
    default): each time the unit takes that choice, N of the option's choices come with it (a
    Captain's "Pistol and Melee Weapon" is a pistol and a melee weapon). The choice taken is
    counted as the roster records it; a choice an option gives by default is not recorded, so
    its inner options are not checked here. The player took the choice, and it gives nothing
    without its picks: an error (``wargear-invalid.required-within``)."""
    inner = [(opt, keys) for opt, keys in required if opt.within and opt.min > 0]
    if not inner or not unit.wargear:
        return
    taken: dict[str, int] = {}
    for w, n in unit.wargear.items():
        k = name_key(w)
        taken[k] = taken.get(k, 0) + n
    options = sheet.wargear_options
    opened = within_counts(options, unit.wargear, lambda _m: 0)  # defaults not counted
    for opt, keys in inner:
        j = next((x for x, o in enumerate(options) if o is opt), -1)
        times = opened.get(j, 0)  # 0 when the data names no such choice (unreachable)
        need = min(opt.min * times, MAX_PER_NAME)
        have = sum(taken.get(k, 0) for k in keys)
        if need <= 0 or have >= need:
            continue
        out.add(
            Code.WARGEAR_INVALID,
            i,
            {
                "datasheet": _unit_ref(unit, i),
                "option": opt.name,
                "parent": opt.within,
                "wargear": _listing([c.name for c in opt.choices]),
                "count": have,
                "limit": need,
                "missing": need - have,
            },
            message_id="wargear-invalid.required-within",
            fix_id="wargear-invalid.required-within",
        )


def _check_within(
    out: _Collector,
    i: int,
    ref: str,
    sheet: Datasheet,
    models: int,
    wargear: Mapping[str, int],
    taken: dict[str, int],
    slots: Sequence[tuple[str, int, dict[str, int]]],
) -> list[tuple[str, int, dict[str, int]]]:
    """Options inside a choice (ruling D20): each is open only as often as the unit takes
    that choice (the choice a model has by default counts while no other choice of its option
    replaces it). An item only such closed options offer is refused
    (``wargear-invalid.requires``) and left out of ``taken``; the slots returned hold the
    options' picks so bounded, for the check of alternatives."""
    options = sheet.wargear_options
    opened = within_counts(options, wargear, _carriers(sheet, models))
    bounded = list(slots)
    for j, n in opened.items():
        if options[j].max * n < slots[j][1]:
            bounded[j] = (slots[j][0], options[j].max * n, slots[j][2])
    shut = [j for j, n in opened.items() if n == 0]
    for key in [k for k in taken if any(k in slots[j][2] for j in shut)]:
        offering = [j for j, (_, _, items) in enumerate(slots) if key in items]
        if not all(opened.get(j, 1) == 0 for j in offering):
            continue
        parents = list(dict.fromkeys(options[j].within for j in offering))
        shown = next(
            (c.name for j in offering for c in options[j].choices if name_key(c.name) == key),
            key,
        )
        out.add(
            Code.WARGEAR_INVALID,
            i,
            {"datasheet": ref, "wargear": shown, "parent": " / ".join(parents)},
            message_id="wargear-invalid.requires",
            fix_id="wargear-invalid.requires",
        )
        del taken[key]
    return bounded


def _check_wargear(
    out: _Collector,
    i: int,
    unit: RosterUnit,
    sheet: Datasheet,
    models: int,
    required: Sequence[tuple[WargearOption, frozenset[str]]] = (),
) -> int:
    """Check a unit's wargear; return the points it adds. ``required``: the options the
    unit must fill (ruling D20)."""
    if required:
        _check_required(out, i, unit, sheet, models, required)
        _check_required_within(out, i, unit, sheet, required)
    if not unit.wargear:
        return 0
    limits, slots, only = _keys_of(sheet).wargear_of(models)
    points = 0
    ref = _unit_ref(unit, i)
    taken: dict[str, int] = {}  # known items, each counted up to its own limit
    shown: dict[str, str] = {}
    for wname, count in unit.wargear.items():
        if count == 0:
            continue
        entry = limits.get(name_key(wname))
        if entry is None:
            near = closest(wname, [v[0] for v in limits.values()])
            out.add(
                Code.WARGEAR_INVALID,
                i,
                {
                    "datasheet": ref,
                    "wargear": wname,
                    "closest": ", ".join(near),
                    "suggestion": _suggest(near),
                },
            )
            continue
        display, limit, each = entry
        points += each * count
        key = name_key(wname)
        taken[key] = taken.get(key, 0) + min(count, limit)
        shown[key] = display
        if count > limit:
            out.add(
                Code.WARGEAR_INVALID,
                i,
                {"datasheet": ref, "wargear": display, "count": count, "limit": limit},
                message_id="wargear-invalid.too-many",
                fix_id="wargear-invalid.too-many",
            )
    if taken and any(o.within for o in sheet.wargear_options):
        slots = _check_within(out, i, ref, sheet, models, unit.wargear, taken, slots)
    # alternatives: can the items, each within its own limit, all fit the options' slots?
    found = _overcommitted(taken, slots) if taken and not _fits(taken, slots, only) else None
    if found is not None:
        keys, options, demand, capacity = found
        out.add(
            Code.WARGEAR_INVALID,
            i,
            {
                "datasheet": ref,
                "wargear": ", ".join(sorted(shown[k] for k in keys)),
                "options": ", ".join(sorted({slots[j][0] for j in options})),
                "count": demand,
                "limit": capacity,
            },
            message_id="wargear-invalid.alternatives",
            fix_id="wargear-invalid.alternatives",
        )
    return points


def _resolve_enhancement(
    catalogue: Catalogue, name: str, faction: str, detachment: str
) -> tuple[Enhancement | None, Enhancement | None]:
    """(the enhancement of the chosen detachment, else one of another detachment)."""
    found = catalogue.enhancements_named(name)
    if not found:
        return None, None
    det_key = name_key(detachment)
    for e in found:
        if name_key(e.detachment) == det_key:
            return e, None
    fac_dets = {name_key(d.name) for d in catalogue.detachments_of(faction)}
    other = next((e for e in found if name_key(e.detachment) in fac_dets), found[0])
    return None, other


# How validate() reads a roster unit's datasheet name in an army of a faction and detachment:
# (the datasheet found, whether the detachment allows it, the datasheet as it is in that
# detachment, its _SheetKeys, the options a unit must fill). Kept per catalogue while it lives
# (_READINGS; bounded: the names are typed by players).
_Reading = tuple[
    Datasheet | None,
    bool,
    Datasheet | None,
    "_SheetKeys | None",
    tuple[tuple[WargearOption, frozenset[str]], ...],
]
_READINGS_MAX = 4096

# id of a catalogue -> (a weak reference to it, its readings); an entry leaves with its
# catalogue (the catalogues themselves are cached, and dropped, by the application)
_READINGS: dict[int, tuple[weakref.ref[Catalogue], dict[tuple[str, str, str | None], _Reading]]]
_READINGS = {}


def _readings_of(catalogue: Catalogue) -> dict[tuple[str, str, str | None], _Reading]:
    key = id(catalogue)
    entry = _READINGS.get(key)
    if entry is not None and entry[0]() is catalogue:
        return entry[1]

    def forget(ref: weakref.ref[Catalogue]) -> None:
        if (found := _READINGS.get(key)) is not None and found[0] is ref:
            del _READINGS[key]

    readings: dict[tuple[str, str, str | None], _Reading] = {}
    _READINGS[key] = (weakref.ref(catalogue, forget), readings)
    return readings


def _read_unit(
    catalogue: Catalogue, name: str, faction_name: str, det_name: str | None
) -> _Reading:
    found = catalogue.datasheet(name, faction_name)
    if found is None:
        return None, True, None, None, ()
    available = det_name is None or found.available_in(det_name)
    sheet = catalogue.datasheet_in(found, det_name) if det_name is not None else found
    return found, available, sheet, _keys_of(sheet), catalogue.required_of(sheet)


def validate(roster: Roster, catalogue: Catalogue) -> ValidationResult:
    """Points and every muster violation of ``roster`` against ``catalogue``."""
    out = _Collector()
    limit = roster.points_limit

    # -- Army Faction and Detachment [L4268-4294] --
    faction = catalogue.faction(roster.faction)
    if faction is None:
        near = closest(roster.faction, catalogue.factions)
        out.add(
            Code.FACTION_MISMATCH,
            None,
            {
                "faction": roster.faction,
                "closest": ", ".join(near or catalogue.factions),
                "suggestion": _suggest(near),
            },
            message_id="faction-mismatch.unknown-faction",
            fix_id="faction-mismatch.unknown-faction",
        )
    faction_name = faction or roster.faction
    detachment = catalogue.detachment(roster.detachment, faction_name)
    if detachment is None:
        pool = [d.name for d in catalogue.detachments_of(faction_name)] or [
            d.name for d in catalogue.detachments
        ]
        near = closest(roster.detachment, pool)
        out.add(
            Code.UNKNOWN_DETACHMENT,
            None,
            {
                "detachment": roster.detachment or "(none)",
                "faction": faction_name,
                "closest": ", ".join(near),
                "suggestion": _suggest(near or pool[:3]),
            },
            fix_id="unknown",
        )

    # -- units --
    sheets: list[Datasheet | None] = []
    unit_results: list[UnitResult] = []
    faction_names: list[str] | None = None  # for suggestions, read on the first unknown name
    det_name = detachment.name if detachment is not None else None
    faction_key = name_key(faction) if faction is not None else ""
    resolved = _readings_of(catalogue)
    for i, unit in enumerate(roster.units):
        seen_as = (unit.datasheet, faction_name, det_name)
        reading: _Reading | None = resolved.get(seen_as)
        if reading is None:
            reading = _read_unit(catalogue, unit.datasheet, faction_name, det_name)
            if len(resolved) >= _READINGS_MAX:
                resolved.clear()
            resolved[seen_as] = reading
        found, available, sheet, keys, required = reading
        if found is not None and det_name is not None and not available:
            allowing = [
                d.name for d in catalogue.detachments_of(faction_name) if found.available_in(d.name)
            ]
            out.add(
                Code.DATASHEET_NOT_IN_DETACHMENT,
                i,
                {
                    "datasheet": _unit_ref(unit, i),
                    "detachment": det_name,
                    "suggestion": f" ({_listing(allowing, 3)})" if allowing else "",
                },
            )
        if sheet is not None and unit.wargear:
            # the keywords its taken choices add (a Tank Ace made a Character, ruling D22),
            # not those of a choice the Detachment makes unavailable (refused below)
            chosen = catalogue.with_choices(sheet, unit.wargear, det_name)
            if chosen is not sheet:
                sheet, keys = chosen, _keys_of(chosen)
        sheets.append(sheet)
        if sheet is None:
            if faction_names is None:
                faction_names = [d.name for d in catalogue.datasheets_of(faction_name)]
            near = closest(unit.datasheet, faction_names or [d.name for d in catalogue.datasheets])
            out.add(
                Code.UNKNOWN_DATASHEET,
                i,
                {
                    "datasheet": unit.datasheet,
                    "closest": ", ".join(near),
                    "suggestion": _suggest(near),
                },
                fix_id="unknown",
            )
            unit_results.append(_unit_result(i, unit.datasheet, unit.models or 0, 0, 0, 0))
            continue
        assert keys is not None  # read with the datasheet
        if sheet.legends and not roster.include_legends:
            out.add(Code.LEGENDS_NOT_INCLUDED, i, {"datasheet": _unit_ref(unit, i)})
        # Army Faction keyword [L4320-4321], unless the data admits the unit as an ally
        # within one of its caps (ruling D18)
        if (
            faction is not None
            and faction_key not in keys.factions
            and not _ally(catalogue, faction, sheet)
        ):
            out.add(
                Code.FACTION_MISMATCH,
                i,
                {
                    "datasheet": _unit_ref(unit, i),
                    "faction": faction,
                    "factions": ", ".join(sheet.faction_keywords) or "none",
                },
            )
        # Unit size [L4307-4313, L3067-3078]
        models = unit.models if unit.models is not None else sheet.min_models
        exact = keys.points_for(models)
        if not sheet.min_models <= models <= sheet.max_models or (sheet.points and exact is None):
            out.add(
                Code.UNIT_SIZE_INVALID,
                i,
                {
                    "datasheet": _unit_ref(unit, i),
                    "models": models,
                    "allowed": _allowed_sizes(sheet),
                },
            )
        base = exact if exact is not None else _tier_points(sheet, models)
        wargear_points = (
            _check_wargear(out, i, unit, sheet, models, required) if required or unit.wargear else 0
        )
        if sheet.points_steps:  # points that depend on the unit's wargear (ruling D28)
            facts = UnitFacts(models=models, wargear=unit.wargear, keywords=sheet.all_keywords())
            wargear_points += sheet.step_points(base, facts)
        unit_results.append(_unit_result(i, sheet.name, models, base, wargear_points, 0))

    # -- choices the whole army may take only so many times (ruling D23) --
    _check_roster_caps(out, roster, sheets, catalogue)

    # -- enhancements [L4333-4341] --
    enhancement_units: list[int] = []
    seen_enh: dict[str, int] = {}
    for i, unit in enumerate(roster.units):
        if not unit.enhancements:
            continue
        sheet = sheets[i]
        ref = _unit_ref(unit, i)
        dname = sheet.name if sheet else unit.datasheet
        if len(unit.enhancements) > 1:
            out.add(
                Code.MULTIPLE_ENHANCEMENTS_ON_UNIT,
                i,
                {"datasheet": ref, "count": len(unit.enhancements)},
            )
        enh_points = 0
        for ename in unit.enhancements:
            enhancement_units.append(i)
            key = name_key(ename)
            if key in seen_enh:
                out.add(
                    Code.ENHANCEMENT_DUPLICATE,
                    i,
                    {"enhancement": ename, "first_unit": seen_enh[key] + 1},
                )
            else:
                seen_enh[key] = i
            own, other = _resolve_enhancement(
                catalogue, ename, faction_name, detachment.name if detachment else roster.detachment
            )
            enh = own or other
            if enh is None:
                pool = [
                    e.name
                    for d in (
                        (detachment,) if detachment else catalogue.detachments_of(faction_name)
                    )
                    for e in d.enhancements
                ]
                near = closest(ename, pool)
                out.add(
                    Code.UNKNOWN_ENHANCEMENT,
                    i,
                    {
                        "enhancement": ename,
                        "closest": ", ".join(near),
                        "suggestion": _suggest(near),
                    },
                    fix_id="unknown",
                )
            elif own is None and detachment is not None:
                out.add(
                    Code.ENHANCEMENT_WRONG_DETACHMENT,
                    i,
                    {
                        "enhancement": enh.name,
                        "enhancement_detachment": enh.detachment,
                        "detachment": detachment.name,
                    },
                )
            if enh is not None:
                enh_points += enh.points
            if sheet is None:
                continue
            shown = enh.name if enh else ename
            if faction is not None and _admitted_ally(catalogue, faction, sheet):
                # an ally is offered no Enhancement of the army's Detachment (ruling D19)
                out.add(
                    Code.ENHANCEMENT_NOT_ELIGIBLE,
                    i,
                    {"datasheet": ref, "enhancement": shown, "faction": faction},
                    message_id="enhancement-not-eligible.ally",
                    fix_id="enhancement-not-eligible.ally",
                )
            elif not sheet.character and (enh is None or enh.characters_only):
                out.add(Code.ENHANCEMENT_NOT_CHARACTER, i, {"datasheet": ref, "enhancement": shown})
            elif sheet.epic_hero:
                out.add(Code.ENHANCEMENT_ON_EPIC_HERO, i, {"datasheet": ref, "enhancement": shown})
            elif (
                enh is not None
                and enh.eligibility is not None
                and not enh.eligibility.matches((*sheet.all_keywords(), sheet.name))
            ):
                out.add(
                    Code.ENHANCEMENT_NOT_ELIGIBLE,
                    i,
                    {
                        "datasheet": ref,
                        "enhancement": shown,
                        "requirement": str(enh.eligibility),
                    },
                )
            elif own is not None and own.keywords:
                # a bearer that may take it gains its keywords for the checks below (ruling
                # D25: Touched by the Warp makes it a Psyker); its eligibility was judged
                # without them
                bearer = sheets[i]
                assert bearer is not None
                sheets[i] = bearer.with_keywords(own.keywords_for(bearer))
        r = unit_results[i]
        unit_results[i] = _unit_result(
            r.index, r.datasheet or dname, r.models, r.base_points, r.wargear_points, enh_points
        )
    if len(enhancement_units) > MAX_ENHANCEMENTS:
        excess = len(enhancement_units) - MAX_ENHANCEMENTS
        out.add(
            Code.ENHANCEMENT_LIMIT_EXCEEDED,
            enhancement_units[MAX_ENHANCEMENTS],
            {"count": len(enhancement_units), "limit": MAX_ENHANCEMENTS, "excess": excess},
        )

    # -- Rule of Three and Epic Heroes [L4324-4331, L4343-4344] --
    by_sheet: dict[str, list[int]] = {}
    for i, sheet in enumerate(sheets):
        if sheet is not None:
            by_sheet.setdefault(sheet.id, []).append(i)
    for indices in by_sheet.values():
        sheet = sheets[indices[0]]
        assert sheet is not None
        allowed = sheet.max_in_army
        if len(indices) > allowed:
            excess = len(indices) - allowed
            params: dict[str, str | int] = {
                "datasheet": sheet.name,
                "count": len(indices),
                "limit": allowed,
                "excess": excess,
                "units": ", ".join(str(x + 1) for x in indices[allowed:]),
            }
            code = Code.EPIC_HERO_DUPLICATE if sheet.epic_hero else Code.DATASHEET_LIMIT_EXCEEDED
            out.add(code, indices[allowed], params)

    # -- Characters and the Warlord [L4299-4300, L4355-4362] --
    characters = [i for i, s in enumerate(sheets) if s is not None and s.character]
    if not characters and not any(s is None for s in sheets):
        candidates = [d.name for d in catalogue.datasheets_of(faction_name) if d.character]
        hint = f", e.g. {_listing(candidates[:3])}" if candidates else ""
        out.add(Code.NO_CHARACTER, None, {"suggestion": hint})
    warlords = [i for i, u in enumerate(roster.units) if u.warlord]
    if not warlords:
        hint = ""
        if characters:
            hint = f", e.g. {_unit_ref(roster.units[characters[0]], characters[0])}"
        out.add(Code.NO_WARLORD, None, {"suggestion": hint})
    elif len(warlords) > 1:
        out.add(
            Code.MULTIPLE_WARLORDS,
            warlords[1],
            {"count": len(warlords), "units": ", ".join(str(x + 1) for x in warlords)},
        )
    for i in warlords:
        sheet = sheets[i]
        if sheet is not None and not sheet.character:
            out.add(Code.WARLORD_NOT_CHARACTER, i, {"datasheet": _unit_ref(roster.units[i], i)})
        elif sheet is not None and sheet.no_warlord:
            # the data hides an ally's Warlord entry (ruling D19)
            out.add(
                Code.WARLORD_NOT_ELIGIBLE,
                i,
                {"datasheet": _unit_ref(roster.units[i], i), "faction": faction_name},
            )

    # -- Leader attachments [L3211-3227, L3253] --
    _check_attachments(out, roster, sheets)

    # -- the data's own list errors ("add error" restrictions, ruling D12) and its limits on
    # the units of a keyword in the army (a category's constraints: allies' points by battle
    # size...) --
    if catalogue.limits or any(s is not None and s.restrictions for s in sheets):
        army = _army_facts(roster, sheets, det_name or roster.detachment, unit_results)
        _check_restrictions(out, roster, sheets, army)
        _check_limits(out, roster, sheets, unit_results, catalogue.limits, army)

    # -- points [L4323] --
    total = sum(u.points for u in unit_results)
    if total > limit:
        over = total - limit
        fitting = [u for u in unit_results if u.points >= over]
        if fitting:
            best = min(fitting, key=lambda u: (u.points, u.index))
            suggestion = f"{_unit_ref(roster.units[best.index], best.index)}, {best.points} points"
            fix_id = "points-over-limit"
        else:
            suggestion = ""
            fix_id = "points-over-limit.no-suggestion"
        out.add(
            Code.POINTS_OVER_LIMIT,
            None,
            {
                "points": total,
                "limit": limit,
                "over": over,
                "battle_size": roster.battle_size.label,
                "suggestion": suggestion,
            },
            fix_id=fix_id,
        )

    return ValidationResult(
        points=total,
        points_limit=limit,
        units=tuple(unit_results),
        violations=tuple(out.items),
    )


class _SheetKeys:
    """What a validation reads of one datasheet again and again, made once per datasheet
    object (a frozen :class:`~.catalog.Datasheet`, so nothing here goes stale): the name keys
    of its keywords and Faction keywords, its default wargear, its restrictions' plan, and
    per unit size its points, wargear limits, option slots and required picks. Bounded: at
    most ``_SIZES_MAX`` unit sizes each."""

    __slots__ = ("defaults", "factions", "keywords", "plan", "points", "required", "sheet", "sizes")

    def __init__(self, sheet: Datasheet) -> None:
        self.sheet = sheet
        self.keywords = frozenset(name_key(k) for k in sheet.all_keywords())
        self.factions = frozenset(name_key(k) for k in sheet.faction_keywords)
        self.defaults: frozenset[str] | None = None
        self.sizes: dict[int, _Wargear] = {}
        self.points: dict[int, int | None] = {}
        self.required: dict[int, list[int]] = {}
        self.plan: tuple[tuple[Restriction, bool, RosterCondition | None], ...] | None = None

    def points_for(self, models: int) -> int | None:
        """:meth:`Datasheet.points_for`."""
        if models in self.points:
            return self.points[models]
        if len(self.points) >= _SIZES_MAX:
            self.points.clear()
        found = self.points[models] = self.sheet.points_for(models)
        return found

    def needs(
        self, models: int, required: Sequence[tuple[WargearOption, frozenset[str]]]
    ) -> list[int]:
        """For each option of ``required`` (the datasheet's, :meth:`Catalogue.required_of`), the
        choices a unit of ``models`` models must take (ruling D20)."""
        found = self.required.get(models)
        if found is None:
            if len(self.required) >= _SIZES_MAX:
                self.required.clear()
            found = self.required[models] = [
                min(
                    opt.min * (_certain_models(self.sheet, models, opt.model) if opt.model else 1),
                    MAX_PER_NAME,
                )
                for opt, _keys in required
            ]
        return found

    def default_keys(self) -> frozenset[str]:
        if self.defaults is None:
            self.defaults = _defaults(self.sheet)
        return self.defaults

    def wargear_of(self, models: int) -> _Wargear:
        """:func:`_wargear_limits`, :func:`_option_slots` and :func:`_only_option` for a unit
        of ``models`` models (read only)."""
        found = self.sizes.get(models)
        if found is None:
            if len(self.sizes) >= _SIZES_MAX:
                self.sizes.clear()
            slots = _option_slots(self.sheet, models)
            found = (_wargear_limits(self.sheet, models), slots, _only_option(slots))
            self.sizes[models] = found
        return found

    def restrictions(self) -> tuple[tuple[Restriction, bool, RosterCondition | None], ...]:
        """Each restriction of the datasheet, with whether it can never apply to one of its
        units, whatever the roster (the checks of :func:`_check_restrictions` that read the
        datasheet alone, rulings D16), and its condition, shared with the other datasheets
        that have an equal one, when that condition reads the army alone."""
        if self.plan is None:
            sheet = self.sheet
            plan = []
            for r in sheet.restrictions:
                never = False
                if not r.required:
                    if r.entry and _offered_twice(sheet, r.wargear):
                        never = True  # the choice taken may be the other option's
                    else:  # the roster does not record default wargear: not certain
                        defaults = self.default_keys()
                        never = bool(defaults) and _counts_a_default(r.when, defaults)
                plan.append((r, never, None if _reads_unit(r.when) else _shared(r.when)))
            self.plan = tuple(plan)
        return self.plan


_UNIT_COUNTS = frozenset({CountOf.MODELS, CountOf.WARGEAR, CountOf.UNIT_KEYWORD})


def _reads_unit(when: RosterCondition) -> bool:
    """Whether ``when`` reads the unit (its models, wargear or keywords), not only the army."""
    if when.op is ConditionOp.COUNT:
        return when.of in _UNIT_COUNTS
    return any(_reads_unit(a) for a in when.args)


# Conditions on the army alone, one object per value: several datasheets often carry the same
# one ("at least 1 Gabriel Seth unit"), which a validation then checks once. Bounded.
_SHARED: dict[RosterCondition, RosterCondition] = {}
_SHARED_MAX = 4096


def _shared(when: RosterCondition) -> RosterCondition:
    found = _SHARED.get(when)
    if found is None:
        if len(_SHARED) >= _SHARED_MAX:
            _SHARED.clear()
        found = _SHARED[when] = when
    return found


# a unit size's wargear: (limits, option slots, the only option offering each item)
_Wargear = tuple[
    dict[str, tuple[str, int, int]], list[tuple[str, int, dict[str, int]]], dict[str, int]
]


# Datasheet -> its _SheetKeys: by id, with the sheet kept (in _SheetKeys) so the id is not
# reused; bounded (a server sees a few catalogues, each with a few hundred datasheets, and the
# variants a Detachment or a taken choice makes of them).
_SHEET_KEYS: dict[int, _SheetKeys] = {}
_SHEET_KEYS_MAX = 8192
_SIZES_MAX = 64  # unit sizes kept per datasheet


def _keys_of(sheet: Datasheet) -> _SheetKeys:
    known = _SHEET_KEYS.get(id(sheet))
    if known is not None and known.sheet is sheet:
        return known
    if len(_SHEET_KEYS) >= _SHEET_KEYS_MAX:
        _SHEET_KEYS.clear()
    known = _SHEET_KEYS[id(sheet)] = _SheetKeys(sheet)
    return known


class _Tally(Mapping[str, int]):
    """The units of each keyword (name key), or their points, in the army: counted when a
    condition asks for a keyword rather than for every keyword of every unit. The same
    mapping as a dict of every keyword the army's units carry."""

    __slots__ = ("_memo", "_points", "_rows")

    def __init__(self, rows: Sequence[tuple[frozenset[str], int]], points: bool) -> None:
        self._rows = rows
        self._points = points
        self._memo: dict[str, int | None] = {}

    def _total(self, key: str) -> int | None:
        if key in self._memo:
            return self._memo[key]
        total: int | None = None
        for keys, points in self._rows:
            if key in keys:
                total = (total or 0) + (points if self._points else 1)
        self._memo[key] = total
        return total

    def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
        total = self._total(key)
        return default if total is None else total

    def __getitem__(self, key: str) -> int:
        total = self._total(key)
        if total is None:
            raise KeyError(key)
        return total

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(k for keys, _ in self._rows for k in keys))

    def __len__(self) -> int:
        return len({k for keys, _ in self._rows for k in keys})


def _check_roster_caps(
    out: _Collector, roster: Roster, sheets: Sequence[Datasheet | None], catalogue: Catalogue
) -> None:
    """The data's limit on a choice in the whole army (BattleScribe's ``max`` in the roster,
    ruling D23: at most 3 "Tank Ace Character"): the units that take a capped choice are
    counted, each as many times as it takes it; over the limit, the first unit past it is
    named."""
    found: dict[str, tuple[str, int]] = {}
    takers: dict[str, list[tuple[int, int]]] = {}
    for i, (unit, sheet) in enumerate(zip(roster.units, sheets, strict=True)):
        if sheet is None or not unit.wargear:
            continue
        caps = catalogue.roster_caps_of(sheet)
        if not caps:
            continue
        for wname, count in unit.wargear.items():
            key = name_key(wname)
            cap = caps.get(key)
            if cap is None or count <= 0:
                continue
            prev = found.get(key)
            if prev is None or cap[1] < prev[1]:
                found[key] = cap
            takers.setdefault(key, []).append((i, count))
    for key, (name, limit) in found.items():
        units = takers[key]
        total = sum(n for _, n in units)
        if total <= limit:
            continue
        seen, first = 0, units[-1][0]
        for i, n in units:
            seen += n
            if seen > limit:
                first = i
                break
        out.add(
            Code.WARGEAR_INVALID,
            first,
            {
                "wargear": name,
                "count": total,
                "limit": limit,
                "excess": total - limit,
                "units": ", ".join(_unit_ref(roster.units[i], i) for i, _ in units),
            },
            message_id="wargear-invalid.roster",
            fix_id="wargear-invalid.roster",
        )


def _army_facts(
    roster: Roster,
    sheets: Sequence[Datasheet | None],
    detachment: str,
    unit_results: Sequence[UnitResult],
) -> ArmyFacts:
    """What the data's conditions read of the army, computed once per validation."""
    units: dict[str, int] = {}
    rows: list[tuple[frozenset[str], int]] = []
    enhancements: dict[str, int] = {}
    warlord_units: dict[str, int] = {}  # ruling D29
    for unit, sheet, result in zip(roster.units, sheets, unit_results, strict=True):
        n = name_key(sheet.name if sheet is not None else unit.datasheet)
        units[n] = units.get(n, 0) + 1
        if unit.warlord:
            warlord_units[n] = warlord_units.get(n, 0) + 1
        if sheet is not None:
            rows.append((_keys_of(sheet).keywords, result.points))
        for e in unit.enhancements:
            enhancements[name_key(e)] = enhancements.get(name_key(e), 0) + 1
    keywords, keyword_points = _Tally(rows, points=False), _Tally(rows, points=True)
    return ArmyFacts(
        units=units,
        keywords=keywords,
        warlord_units=warlord_units,
        warlords=sum(1 for u in roster.units if u.warlord),
        enhancements=enhancements,
        detachment=detachment,
        battle_size=roster.battle_size.label,
        points_limit=roster.points_limit,
        keyword_points=keyword_points,
    )


def _check_limits(
    out: _Collector,
    roster: Roster,
    sheets: Sequence[Datasheet | None],
    unit_results: Sequence[UnitResult],
    limits: Sequence[ArmyLimit],
    army: ArmyFacts,
) -> None:
    """Each of the data's limits on the units of a keyword that the army exceeds, reported
    once, on the last unit of that keyword (the one to remove first)."""
    for lim in limits:
        count = lim.counted(army)
        if lim.minimum:
            _check_minimum(out, roster, sheets, lim, count, army)
            continue
        if count == 0:
            continue  # no unit of the keyword: no limit can be exceeded
        allowed = lim.value(army)
        if allowed is None or count <= allowed:
            continue
        key = name_key(lim.keyword)
        holders = [
            i
            for i, s in enumerate(sheets)
            if s is not None and any(name_key(k) == key for k in s.all_keywords())
        ]
        kinds = {s.id: s for i in holders if (s := sheets[i]) is not None}
        if not lim.points and len(kinds) == 1 and next(iter(kinds.values())).max_in_army <= allowed:
            continue  # one datasheet's units: its own limit of copies says it (no double report)
        excess = count - allowed
        suggestion = ""
        if lim.points and holders:
            # the cheapest unit that clears the excess alone, else the costliest one
            fitting = [i for i in holders if unit_results[i].points >= excess]
            best = (
                min(fitting, key=lambda i: (unit_results[i].points, i))
                if fitting
                else max(holders, key=lambda i: (unit_results[i].points, i))
            )
            suggestion = f", e.g. {_unit_ref(roster.units[best], best)}"
        elif holders:
            suggestion = f", e.g. {_unit_ref(roster.units[holders[-1]], holders[-1])}"
        suffix = ".points" if lim.points else ""
        out.add(
            Code.CATEGORY_LIMIT_EXCEEDED,
            holders[-1] if holders else None,
            {
                "keyword": lim.keyword,
                "count": count,
                "limit": allowed,
                "excess": excess,
                "battle_size": roster.battle_size.label,
                "suggestion": suggestion,
            },
            message_id=f"category-limit-exceeded{suffix}",
            fix_id=f"category-limit-exceeded{suffix}",
        )


def _check_minimum(
    out: _Collector,
    roster: Roster,
    sheets: Sequence[Datasheet | None],
    lim: ArmyLimit,
    count: int,
    army: ArmyFacts,
) -> None:
    """A keyword the data requires in the army (a category's ``min``, ruling D17), reported
    on the army; the fix names a datasheet of the catalogue with the keyword when one is in
    the list."""
    needed = lim.value(army)
    if needed is None or needed <= 0 or count >= needed:
        return
    if any(s is None for s in sheets):
        return  # an unknown datasheet may carry the keyword (as M3)
    key = name_key(lim.keyword)
    named = next(
        (
            s.name
            for s in sheets
            if s is not None and any(name_key(k) == key for k in s.all_keywords())
        ),
        "",
    )
    suffix = ".points" if lim.points else ""
    out.add(
        Code.CATEGORY_MINIMUM_NOT_MET,
        None,
        {
            "keyword": lim.keyword,
            "count": count,
            "limit": needed,
            "missing": needed - count,
            "detachment": roster.detachment or "(none)",
            "suggestion": f", e.g. {named}" if named else "",
        },
        message_id=f"category-minimum-not-met{suffix}",
        fix_id=f"category-minimum-not-met{suffix}",
    )


def _check_restrictions(
    out: _Collector, roster: Roster, sheets: Sequence[Datasheet | None], army: ArmyFacts
) -> None:
    """Each restriction of a unit's datasheet whose condition holds is a violation; one with
    ``wargear`` only for a unit that takes that choice."""
    # id of a shared condition on the army -> (it, whether it holds): held, so that its id is
    # not reused within this validation should the readings' caches be cleared meanwhile
    on_army: dict[int, tuple[object, bool]] = {}
    for i, (unit, sheet) in enumerate(zip(roster.units, sheets, strict=True)):
        if sheet is None or not sheet.restrictions:
            continue
        facts: UnitFacts | None = None  # made for the first restriction that reads it
        seen: set[tuple[str, str]] = set()
        for r, never, shared in _keys_of(sheet).restrictions():
            if never and not r.required:
                continue  # two options offer the choice, or it counts a default (D16)
            if not r.required and r.wargear and not _takes(unit.wargear, r.wargear):
                continue
            if shared is not None and not r.required:  # on the army alone: checked once
                known = on_army.get(id(shared))
                if known is None or known[0] is not shared:
                    known = on_army[id(shared)] = (shared, shared.holds(_NO_UNIT_FACTS, army))
                if not known[1]:
                    continue
            elif facts is None:
                models = unit.models if unit.models is not None else sheet.min_models
                facts = UnitFacts(
                    models=models, wargear=unit.wargear, keywords=sheet.all_keywords()
                )
            if r.required:
                _check_required_while(out, i, unit, r, facts or _NO_UNIT_FACTS, army)
                continue
            if shared is None and not r.when.holds(facts or _NO_UNIT_FACTS, army):
                continue
            condition = str(r.when)
            if (r.wargear, condition) in seen:
                continue
            seen.add((r.wargear, condition))
            if r.unavailable and r.wargear:
                # a choice the data hides in this loadout (ruling D16)
                out.add(
                    Code.WARGEAR_INVALID,
                    i,
                    {
                        "datasheet": _unit_ref(unit, i),
                        "wargear": r.wargear,
                        "condition": condition,
                    },
                    message_id="wargear-invalid.unavailable",
                    fix_id="wargear-invalid.unavailable",
                    condition=r.when,
                )
                continue
            out.add(
                Code.DATA_RESTRICTION,
                i,
                {"datasheet": _unit_ref(unit, i), "condition": condition},
                message_id="data-restriction.unavailable" if r.unavailable else None,
                fix_id="data-restriction.unavailable" if r.unavailable else None,
                severity=Severity.ERROR
                if r.severity is RestrictionSeverity.ERROR
                else Severity.WARNING,
                condition=r.when,
            )


_NO_UNIT_FACTS = UnitFacts(models=0, wargear={}, keywords=())  # for a condition on the army


def _takes(wargear: Mapping[str, int], name: str) -> bool:
    """Whether a unit takes at least one ``name`` (the data's count of a wargear choice,
    :meth:`RosterCondition.counted`, at least 1)."""
    key = name_key(name)
    return sum(n for w, n in wargear.items() if name_key(w) == key) >= 1


def _check_required_while(
    out: _Collector, i: int, unit: RosterUnit, r: Restriction, facts: UnitFacts, army: ArmyFacts
) -> None:
    """A requirement the data sets while a condition holds (a Detachment, the bearer...):
    at least ``r.required`` of its choices (ruling D20)."""
    if not r.when.holds(facts, army):
        return
    keys = {name_key(c) for c in r.choices}
    have = sum(n for w, n in unit.wargear.items() if name_key(w) in keys)
    if have >= r.required:
        return
    out.add(
        Code.WARGEAR_INVALID,
        i,
        {
            "datasheet": _unit_ref(unit, i),
            "option": r.wargear,
            "wargear": _listing(r.choices),
            "count": have,
            "limit": r.required,
            "missing": r.required - have,
            "condition": str(r.when),
        },
        message_id="wargear-invalid.required-while",
        fix_id="wargear-invalid.required",
        severity=Severity.WARNING,
        condition=r.when,
    )


def _admitted_ally(catalogue: Catalogue, faction: str, sheet: Datasheet) -> bool:
    """A unit without the Army Faction keyword that the data admits as an ally (D18)."""
    return not any(name_key(k) == name_key(faction) for k in sheet.faction_keywords) and _ally(
        catalogue, faction, sheet
    )


def _ally(catalogue: Catalogue, faction: str, sheet: Datasheet) -> bool:
    """Whether ``sheet`` carries a keyword the data caps as allies in ``faction``'s army."""
    allies = catalogue.ally_keywords(faction)
    return bool(allies) and any(name_key(k) in allies for k in sheet.all_keywords())


def _defaults(sheet: Datasheet) -> frozenset[str]:
    """The names of the datasheet's default wargear (its models' and its options')."""
    names = {name_key(w) for m in sheet.models for w in m.default_wargear}
    names |= {name_key(o.default) for o in sheet.wargear_options if o.default}
    return frozenset(names)


def _counts_a_default(when: RosterCondition, defaults: frozenset[str]) -> bool:
    """Whether ``when`` counts a choice that may be a default, which the roster does not
    record (a count of it would read 0 for a unit that has it)."""
    if when.op is ConditionOp.COUNT:
        if when.of is not CountOf.WARGEAR:
            return False
        return any(name_key(n) in defaults for n in (when.name, *when.names) if n)
    return any(_counts_a_default(a, defaults) for a in when.args)


def _offered_twice(sheet: Datasheet, wargear: str) -> bool:
    """Whether two options of ``sheet`` offer ``wargear``: a restriction read on one of them
    cannot tell which the unit's choice is (the roster counts choices per unit)."""
    key = name_key(wargear)
    found = 0
    for opt in sheet.wargear_options:
        if any(name_key(c.name) == key for c in opt.choices):
            found += 1
            if found > 1:
                return True
    return False


def _extra(sheet: Datasheet | None) -> bool:
    return sheet is not None and sheet.extra_leader


def _takes_two(sheet: Datasheet, unit: RosterUnit) -> bool:
    """A Bodyguard unit whose datasheet accepts two Leaders from some size up."""
    if sheet.two_leaders_from is None:
        return False
    models = unit.models if unit.models is not None else sheet.min_models
    return models >= sheet.two_leaders_from


def _check_attachments(out: _Collector, roster: Roster, sheets: Sequence[Datasheet | None]) -> None:
    leaders_of: dict[int, list[int]] = {}
    for i, unit in enumerate(roster.units):
        if unit.attached_to is None:
            continue
        ref = _unit_ref(unit, i)
        target = unit.attached_to
        code = Code.LEADER_ATTACHMENT_ILLEGAL
        if target >= len(roster.units):
            out.add(
                code,
                i,
                {"datasheet": ref, "target_number": target + 1},
                message_id="leader-attachment-illegal.no-such-unit",
                fix_id="leader-attachment-illegal.not-a-leader",
            )
            continue
        if target == i:
            out.add(
                code,
                i,
                {"datasheet": ref},
                message_id="leader-attachment-illegal.self",
                fix_id="leader-attachment-illegal.not-a-leader",
            )
            continue
        sheet, target_sheet = sheets[i], sheets[target]
        if sheet is None or target_sheet is None:
            continue  # already reported as unknown-datasheet
        target_ref = _unit_ref(roster.units[target], target)
        if not sheet.is_leader:
            out.add(
                code,
                i,
                {"datasheet": ref, "target": target_ref},
                message_id="leader-attachment-illegal.not-a-leader",
                fix_id="leader-attachment-illegal.not-a-leader",
            )
            continue
        allowed = {name_key(n) for n in sheet.leader_of}
        if name_key(target_sheet.name) not in allowed:
            out.add(
                code,
                i,
                {"datasheet": ref, "target": target_ref, "allowed": _listing(sheet.leader_of)},
                message_id="leader-attachment-illegal.not-a-bodyguard",
                fix_id="leader-attachment-illegal",
            )
            continue
        if roster.units[target].attached_to is not None:
            out.add(
                code,
                i,
                {"datasheet": ref, "target": target_ref, "allowed": _listing(sheet.leader_of)},
                message_id="leader-attachment-illegal.target-attached",
                fix_id="leader-attachment-illegal",
            )
            continue
        if target in leaders_of and not (
            len(leaders_of[target]) == 1
            and (
                sheet.extra_leader
                or _extra(sheets[leaders_of[target][0]])
                or _takes_two(target_sheet, roster.units[target])
            )
        ):
            other = leaders_of[target][0]
            out.add(
                code,
                i,
                {
                    "datasheet": ref,
                    "target": target_ref,
                    "other": _unit_ref(roster.units[other], other),
                },
                message_id="leader-attachment-illegal.bodyguard-taken",
                fix_id="leader-attachment-illegal.bodyguard-taken",
            )
            continue
        leaders_of.setdefault(target, []).append(i)
        if name_key(target_sheet.name) in {name_key(n) for n in sheet.leader_of_conditional}:
            out.add(
                code,
                i,
                {"datasheet": ref, "target": target_ref},
                message_id="leader-attachment-illegal.conditional",
                fix_id="leader-attachment-illegal.conditional",
                severity=Severity.WARNING,
            )
