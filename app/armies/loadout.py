"""What a unit carries, its wargear choices, and links that open the calculator preloaded.

The roster records wargear as "choice -> how many the unit takes" (not per model), so a unit's
loadout is read the way a player would: each model type brings its default wargear, the models
above the minimum go to the most flexible model type, and each choice taken replaces the
option's default on that many models. It feeds the builder's wargear form, the unit's summary
line and the calculator links; it is never used to validate (the engine does that).

Calculator links use the query parameters the calculator documents (``app.combat.forms``):
for the 10th edition they are built from the weapon profiles by ``app.catalog.calculator`` (the
catalogue page links each profile too); for PEN ``a.<field>`` (attacker) and ``w.<field>``
(weapon). See docs/api-combat.md, "Linking to the calculator".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.catalog.calculator import calculator_url as calculator_url
from app.catalog.calculator import profile_calculator_url as profile_calculator_url
from app.catalog.pen_units import PenUnit, PenWeapon
from app.engine.wh40k10e.army import Datasheet, Weapon, name_key


@dataclass(frozen=True, slots=True)
class WargearRow:
    """One wargear choice (or optional model type) of a datasheet, for the builder's form."""

    name: str
    option: str
    count: int
    max: int
    points: int
    is_model: bool = False


def _get(mapping: Mapping[str, int], name: str) -> int:
    key = name_key(name)
    return next((v for k, v in mapping.items() if name_key(k) == key), 0)


def model_counts(sheet: Datasheet, models: int, wargear: Mapping[str, int]) -> dict[str, int]:
    """How many models of each type: the minimums, the model types the roster names, and the
    rest on the model type with the most room."""
    counts = {m.name: m.min for m in sheet.models}
    for m in sheet.models:
        named = _get(wargear, m.name)
        if named:
            counts[m.name] = max(m.min, min(named, m.max))
    left = models - sum(counts.values())
    for m in sorted(sheet.models, key=lambda m: m.max - counts[m.name], reverse=True):
        if left <= 0:
            break
        if _get(wargear, m.name):
            continue
        room = m.max - counts[m.name]
        add = min(room, left)
        counts[m.name] += add
        left -= add
    return counts


def wargear_rows(sheet: Datasheet, models: int, wargear: Mapping[str, int]) -> list[WargearRow]:
    """Every choice of the datasheet's options (merged by name) with the unit's count and the
    most it may take, then the optional model types of its composition."""
    carriers = {name_key(m.name): min(m.max, models) for m in sheet.models}
    rows: dict[str, WargearRow] = {}
    for opt in sheet.wargear_options:
        per = carriers.get(name_key(opt.model), 1) if opt.model else 1
        for choice in opt.choices:
            if opt.default is not None and name_key(choice.name) == name_key(opt.default):
                continue  # the default is what a model has when nothing is taken
            allowed = opt.max * max(per, 0)
            if choice.max_per_unit is not None:
                allowed = min(allowed, choice.max_per_unit)
            key = name_key(choice.name)
            prev = rows.get(key)
            rows[key] = WargearRow(
                name=choice.name,
                option=prev.option if prev else opt.name,
                count=_get(wargear, choice.name),
                max=(prev.max if prev else 0) + allowed,
                points=choice.points,
            )
    if len(sheet.models) > 1:
        for m in sheet.models:
            if m.min == 0 and m.max > 0 and name_key(m.name) not in rows:
                rows[name_key(m.name)] = WargearRow(
                    name=m.name,
                    option="",
                    count=_get(wargear, m.name),
                    max=min(m.max, models),
                    points=m.points,
                    is_model=True,
                )
    return list(rows.values())


def loadout(sheet: Datasheet, models: int, wargear: Mapping[str, int]) -> list[tuple[Weapon, int]]:
    """The weapons the unit carries and on how many models, in the datasheet's order."""
    carried: dict[str, int] = {}

    def add(name: str, n: int) -> None:
        key = name_key(name)
        carried[key] = max(carried.get(key, 0) + n, 0)

    counts = model_counts(sheet, models, wargear)
    counts_by_key = {name_key(k): v for k, v in counts.items()}
    for m in sheet.models:
        n = counts.get(m.name, 0)
        for w in m.default_wargear:
            add(w, n)
    # A choice offered by several options is taken once: its count is spread over them.
    remaining = {name_key(k): v for k, v in wargear.items() if v > 0}
    for opt in sheet.wargear_options:
        per = counts_by_key.get(name_key(opt.model), 1) if opt.model else 1
        room = opt.max * max(per, 0)
        default = next(
            (c for c in opt.choices if opt.default and name_key(c.name) == name_key(opt.default)),
            None,
        )
        for choice in opt.choices:
            if (default is not None and choice is default) or room <= 0:
                continue
            key = name_key(choice.name)
            n = min(remaining.get(key, 0), room)
            if not n:
                continue
            remaining[key] -= n
            room -= n
            for w in choice.weapons:
                add(w, n)
            if default is not None:
                for w in default.weapons:
                    add(w, -n)
    return [(w, carried[name_key(w.name)]) for w in sheet.weapons if carried.get(name_key(w.name))]


def unit_calculator_url(sheet: Datasheet, models: int, wargear: Mapping[str, int]) -> str | None:
    """The calculator with every weapon the unit carries."""
    profiles = [(p, n) for w, n in loadout(sheet, models, wargear) for p in w.profiles]
    return calculator_url(profiles)


def pen_calculator_url(unit: PenUnit, weapon: PenWeapon) -> str:
    """The PEN calculator with this unit firing (or striking with) this weapon."""
    return unit.calculator_url(weapon)
