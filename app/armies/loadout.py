"""What a unit carries, its wargear choices, and links that open the calculator preloaded.

The roster records wargear as "choice -> how many the unit takes" (not per model), so a unit's
loadout is read the way a player would: each model type brings its default wargear, the models
above the minimum go to the most flexible model type, each choice taken is placed in an option
that offers it (:func:`assign`, as the validator reads alternatives) and replaces that option's
default on one model of the option's model type (:func:`kits`). It feeds the builder's wargear
form, the unit's summary as players read it (:func:`describe`), the calculator links, the text
export and the match's weapon lists; it is never used to validate (the engine does that).

Calculator links use the query parameters the calculator documents (``app.combat.forms``):
for the 10th edition they are built from the weapon profiles by ``app.catalog.calculator`` (the
catalogue page links each profile too); for PEN ``a.<field>`` (attacker) and ``w.<field>``
(weapon). See docs/api-combat.md, "Linking to the calculator".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from app.catalog.calculator import calculator_url as calculator_url
from app.catalog.calculator import profile_calculator_url as profile_calculator_url
from app.catalog.calculator import unit_kinds, unit_profiles
from app.catalog.pen_units import PenUnit, PenWeapon
from app.core.i18n import gettext as _
from app.core.i18n import ngettext
from app.engine.wh40k10e.army import Datasheet, WargearChoice, Weapon, name_key, within_counts

MAX_PICKS = 200  # bound on the picks of one choice placed (a roster count is at most 200)


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


def wargear_rows(
    sheet: Datasheet, models: int, wargear: Mapping[str, int], *, closed: bool = False
) -> list[WargearRow]:
    """Every choice of the datasheet's options (merged by name) with the unit's count and the
    most it may take, then the optional model types of its composition. An option inside a
    choice (ruling D20) is offered only as often as the unit takes that choice: while it does
    not, its choices are listed only when taken (to be removed), unless ``closed`` (the list
    matcher's search, which may take the choice next)."""
    carriers = {name_key(m.name): min(m.max, models) for m in sheet.models}
    options = sheet.wargear_options
    opened: dict[int, int] = {}
    if not closed and any(opt.within for opt in options):
        counts = model_counts(sheet, models, wargear)
        opened = within_counts(options, wargear, lambda m: _carriers_of(sheet, counts, m))
    rows: dict[str, WargearRow] = {}
    for j, opt in enumerate(options):
        per = carriers.get(name_key(opt.model), 1) if opt.model else 1
        for choice in opt.choices:
            if opt.default is not None and name_key(choice.name) == name_key(opt.default):
                continue  # the default is what a model has when nothing is taken
            allowed = opt.max * max(per, 0)
            if j in opened:
                if opened[j] == 0 and not _get(wargear, choice.name):
                    continue  # its choice is not taken: not offered
                if opened[j] > 0:
                    allowed = min(allowed, opt.max * opened[j])
                # taken while its choice is not: listed with the option's own most, so that
                # the form still saves when the player takes the choice (the validator says)
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


def _carriers_of(sheet: Datasheet, counts: Mapping[str, int], model: str) -> int:
    """How many models an option of ``model`` (``""``: the whole unit, once) applies to."""
    if not model:
        return 1
    key = name_key(model)
    return max(next((v for k, v in counts.items() if name_key(k) == key), 1), 0)


def assign(
    sheet: Datasheet, models: int, wargear: Mapping[str, int]
) -> list[tuple[int, WargearChoice, int]]:
    """Which option each choice taken fills: ``(option index, choice, how many)``.

    A choice several options offer (an Intercessor Sergeant's power weapon replaces the bolt
    rifle or the close combat weapon) goes to the first option with room, and moves to another
    when a later choice can only use that one (a plasma pistol then a power weapon: the pistol
    takes the rifle's slot, the power weapon the melee one), as the validator's check of
    alternatives reads it (ruling M10). What fits nowhere is left out (the validator reports
    it)."""
    counts = model_counts(sheet, models, wargear)
    options = sheet.wargear_options
    room = [opt.max * _carriers_of(sheet, counts, opt.model) for opt in options]
    if any(opt.within for opt in options):
        # an option inside a choice holds picks only for the models taking it (ruling D20)
        opened = within_counts(options, wargear, lambda m: _carriers_of(sheet, counts, m))
        room = [
            min(r, options[j].max * opened[j]) if j in opened else r for j, r in enumerate(room)
        ]
    offered: list[dict[str, tuple[WargearChoice, int]]] = []
    for j, opt in enumerate(options):
        items: dict[str, tuple[WargearChoice, int]] = {}
        for c in opt.choices:
            if opt.default is not None and name_key(c.name) == name_key(opt.default):
                continue
            cap = room[j] if c.max_per_unit is None else min(room[j], c.max_per_unit)
            items.setdefault(name_key(c.name), (c, cap))
        offered.append(items)
    flow: dict[tuple[str, int], int] = {}
    taken = [(name_key(k), v) for k, v in wargear.items() if v > 0]

    def augment(key: str, seen: set[str], used: set[int]) -> bool:
        seen.add(key)
        for j, items in enumerate(offered):
            if key not in items or j in used or flow.get((key, j), 0) >= items[key][1]:
                continue
            used.add(j)
            if room[j] > 0:
                room[j] -= 1
                flow[key, j] = flow.get((key, j), 0) + 1
                return True
            for other in list(offered[j]):
                if flow.get((other, j), 0) > 0 and other not in seen and augment(other, seen, used):
                    flow[other, j] -= 1
                    flow[key, j] = flow.get((key, j), 0) + 1
                    return True
        return False

    for key, count in taken:
        for _n in range(min(count, MAX_PICKS)):
            if not augment(key, set(), set()):
                break
    out = []
    for j, items in enumerate(offered):
        for key, (choice, _cap) in items.items():
            n = flow.get((key, j), 0)
            if n > 0:
                out.append((j, choice, n))
    return out


@dataclass(frozen=True, slots=True)
class Kit:
    """``count`` models of type ``model`` carrying the same wargear (``(name, how many)``, in
    the datasheet's order); ``model`` ``""`` is wargear of the unit as a whole (an Ammo Runt)."""

    model: str
    count: int
    wargear: tuple[tuple[str, int], ...]


def kits(sheet: Datasheet, models: int, wargear: Mapping[str, int]) -> list[Kit]:
    """The unit model by model: each model type's models start with its default wargear, then
    each choice taken replaces its option's default on one model of the option's model type
    (up to the option's most per model), and models that end up alike are counted together."""
    counts = model_counts(sheet, models, wargear)
    per_model: dict[str, list[Counter[str]]] = {
        name_key(m.name): [Counter(name_key(w) for w in m.default_wargear) for _ in range(n)]
        for m in sheet.models
        if (n := counts.get(m.name, 0)) > 0
    }
    whole: Counter[str] = Counter()
    alone = next(iter(per_model.values())) if len(per_model) == 1 else []
    names = {name_key(w): w for m in sheet.models for w in m.default_wargear}
    for j, choice, n in assign(sheet, models, wargear):
        opt = sheet.wargear_options[j]
        default = next(
            (c for c in opt.choices if opt.default and name_key(c.name) == name_key(opt.default)),
            None,
        )
        names.update({name_key(w): w for w in choice.weapons})
        bodies = per_model.get(name_key(opt.model), []) if opt.model else []
        if not bodies and len(alone) == 1:
            bodies = alone  # a unit of one model: its options are that model's
        if not bodies:
            for w in choice.weapons:
                whole[name_key(w)] += n
            continue
        used = [0] * len(bodies)
        left = n
        for b, body in enumerate(bodies):
            while left > 0 and used[b] < opt.max:
                for w in default.weapons if default is not None else ():
                    if body[name_key(w)] > 0:
                        body[name_key(w)] -= 1
                for w in choice.weapons:
                    body[name_key(w)] += 1
                used[b] += 1
                left -= 1
    order = {name_key(weapon.name): i for i, weapon in enumerate(sheet.weapons)}
    for weapon in sheet.weapons:
        names.setdefault(name_key(weapon.name), weapon.name)

    def items(bag: Counter[str]) -> tuple[tuple[str, int], ...]:
        keys = sorted((k for k, v in bag.items() if v > 0), key=lambda k: (order.get(k, 999), k))
        return tuple((names.get(k, k), bag[k]) for k in keys)

    out: list[Kit] = []
    for m in sheet.models:
        grouped: dict[tuple[tuple[str, int], ...], int] = {}
        for body in per_model.get(name_key(m.name), []):
            kit = items(body)
            grouped[kit] = grouped.get(kit, 0) + 1
        out += [Kit(m.name, n, kit) for kit, n in grouped.items()]
    if whole:
        out.append(Kit("", 1, items(whole)))
    return out


def loadout(sheet: Datasheet, models: int, wargear: Mapping[str, int]) -> list[tuple[Weapon, int]]:
    """The weapons the unit carries and on how many models, in the datasheet's order."""
    carried: Counter[str] = Counter()
    for kit in kits(sheet, models, wargear):
        for name, n in kit.wargear:
            carried[name_key(name)] += n * kit.count
    return [(w, carried[name_key(w.name)]) for w in sheet.weapons if carried.get(name_key(w.name))]


def _and(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return _("%(items)s and %(last)s") % {"items": ", ".join(names[:-1]), "last": names[-1]}


def describe(sheet: Datasheet, models: int, wargear: Mapping[str, int]) -> str:
    """The loadout as players read it: "5 models: 4 × Intercessor with Bolt Rifle, Bolt pistol
    and Close combat weapon; 1 × Intercessor Sergeant with Plasma pistol, Bolt pistol and Power
    weapon" (a unit of one model: what it carries)."""
    groups = kits(sheet, models, wargear)
    parts: list[str] = []
    for kit in groups:
        gear = _and([f"{n}× {name}" if n > 1 else name for name, n in kit.wargear])
        if not kit.model:
            parts.append(gear)
        elif models == 1:
            parts.append(gear or kit.model)
        elif gear:
            parts.append(
                _("%(count)d × %(model)s with %(wargear)s")
                % {"count": kit.count, "model": kit.model, "wargear": gear}
            )
        else:
            parts.append(f"{kit.count} × {kit.model}")
    text = "; ".join(p for p in parts if p)
    if models == 1:
        return text
    head = ngettext("%(num)d model", "%(num)d models", models) % {"num": models}
    return f"{head}: {text}" if text else head


def unit_calculator_urls(
    sheet: Datasheet, models: int, wargear: Mapping[str, int]
) -> list[tuple[str, str]]:
    """The calculator with one attack of the unit per kind it can make (``ranged`` first, then
    ``melee``): a unit shoots or fights, never both at once, and each weapon with several
    profiles fires its first (the calculator's unit picker offers the others)."""
    carried = loadout(sheet, models, wargear)
    out = []
    for kind in unit_kinds(carried):
        url = calculator_url(unit_profiles(carried, kind))
        if url is not None:
            out.append((kind, url))
    return out


def unit_calculator_url(sheet: Datasheet, models: int, wargear: Mapping[str, int]) -> str | None:
    """The calculator with the unit's first kind of attack (its shooting when it has any)."""
    urls = unit_calculator_urls(sheet, models, wargear)
    return urls[0][1] if urls else None


def pen_calculator_url(unit: PenUnit, weapon: PenWeapon) -> str:
    """The PEN calculator with this unit firing (or striking with) this weapon."""
    return unit.calculator_url(weapon)
