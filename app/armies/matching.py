"""A pasted list (:mod:`app.armies.formats`) mapped onto a catalogue: the Army Faction, the
Detachment, each unit's datasheet, model count, wargear choices, Enhancements, Warlord and
Leader attachment.

Names are matched with :func:`~app.engine.wh40k10e.army.name_key` (case, spaces, apostrophes,
accents do not matter). Wargear is read the way it is listed (weapons per model type, or per
unit) and turned back into the roster's choices: the choices named outright, then, one step at
a time, the choice that brings the listed weapons closest, until the weapons the datasheet gives
are exactly the ones listed. Anything that does not match is a :class:`~.formats.Problem` with
its line: the list is never built silently different from what was pasted.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from app.armies import loadout
from app.armies.formats import Item, PastedList, PastedUnit, Problem
from app.engine.errors import Message, ProfileError
from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    Datasheet,
    Roster,
    RosterError,
    RosterUnit,
    closest,
    name_key,
)

MAX_STEPS = 400  # bound on the wargear search of one unit


def key(name: str) -> str:
    """``name_key`` that also ignores accents (``Khârn`` = ``Kharn``)."""
    text = unicodedata.normalize("NFKD", name_key(name))
    return "".join(c for c in text if not unicodedata.combining(c))


@dataclass
class Matched:
    roster: Roster | None
    problems: list[Problem] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)
    stated_points: dict[int, int] = field(default_factory=dict)  # unit index -> pasted points


# -- what a unit carries, per model type --------------------------------------------------------

Carried = dict[str, Counter[str]]  # model type key ("" for the unit as a whole) -> weapon key -> n


def carried(sheet: Datasheet, models: int, wargear: Mapping[str, int]) -> Carried:
    """The weapons (and other wargear) each model type carries, by key, as
    :func:`app.armies.loadout.loadout` counts them but per model type; options that name no
    model type count for the unit as a whole (key "")."""
    counts = loadout.model_counts(sheet, models, wargear)
    out: Carried = {key(m.name): Counter() for m in sheet.models}
    out[""] = Counter()
    for m in sheet.models:
        n = counts.get(m.name, 0)
        for w in m.default_wargear:
            out[key(m.name)][key(w)] += n
    for j, choice, n in loadout.assign(sheet, models, wargear):
        opt = sheet.wargear_options[j]
        bucket = key(opt.model) if opt.model and key(opt.model) in out else ""
        default = next(
            (c for c in opt.choices if opt.default and key(c.name) == key(opt.default)), None
        )
        for w in choice.weapons:
            out[bucket][key(w)] += n
        if default is not None:
            for w in default.weapons:
                out[bucket][key(w)] -= n
    for bag in out.values():
        for k in [k for k, v in bag.items() if v <= 0]:
            del bag[k]
    return out


def signature(sheet: Datasheet, unit: RosterUnit) -> tuple[object, ...]:
    """What makes two units of a datasheet the same for a player: the model count, the models
    of each type and the wargear choices taken (model-type entries are read as counts)."""
    models = unit.models or sheet.min_models
    types = {key(m.name) for m in sheet.models}
    choices = sorted((key(k), v) for k, v in unit.wargear.items() if v > 0 and key(k) not in types)
    counts = sorted(
        (key(k), v) for k, v in loadout.model_counts(sheet, models, unit.wargear).items()
    )
    return (key(sheet.name), models, tuple(counts), tuple(choices))


# -- names of a datasheet ----------------------------------------------------------------------


@dataclass
class _Names:
    weapons: dict[str, str]  # key -> display name
    choices: dict[str, str]  # key -> choice name (not an option's default)
    types: dict[str, str]  # key -> model type name
    unit_level: frozenset[str] = frozenset()  # weapon keys only the unit as a whole takes


def _unit_level(sheet: Datasheet) -> frozenset[str]:
    """Weapon keys that only options naming no model type give (a banner, an icon): an app
    lists them under the model that carries one, :func:`carried` counts them for the unit."""
    types = {key(m.name) for m in sheet.models}
    unit: set[str] = set()
    per_model = {key(w) for m in sheet.models for w in m.default_wargear}
    for opt in sheet.wargear_options:
        bag = per_model if opt.model and key(opt.model) in types else unit
        bag.update(key(w) for c in opt.choices for w in c.weapons)
    return frozenset(unit - per_model)


def _names(sheet: Datasheet) -> _Names:
    weapons = {key(w.name): w.name for w in sheet.weapons}
    for m in sheet.models:
        for w in m.default_wargear:
            weapons.setdefault(key(w), w)
    choices: dict[str, str] = {}
    for opt in sheet.wargear_options:
        for c in opt.choices:
            if opt.default is None or key(c.name) != key(opt.default):
                choices.setdefault(key(c.name), c.name)
            for w in c.weapons:
                weapons.setdefault(key(w), w)
    return _Names(weapons, choices, {key(m.name): m.name for m in sheet.models}, _unit_level(sheet))


def _type_of(names: _Names, sheet: Datasheet, name: str) -> str | None:
    k = key(name)
    for cand in (k, k.rstrip("s"), k + "s"):
        if cand in names.types:
            return names.types[cand]
    if len(sheet.models) == 1 and k in (key(sheet.name), key(sheet.name).rstrip("s")):
        return sheet.models[0].name
    return None


def _rejoin(items: list[Item], known: set[str]) -> list[Item]:
    """Items split from one comma list whose names hold commas, joined back when the joined
    name is known (``"Bolt pistol, Master-crafted bolter"`` may be one wargear choice)."""
    out: list[Item] = []
    i = 0
    while i < len(items):
        item = items[i]
        joined = item
        if item.group:
            j = i + 1
            while j < len(items) and items[j].group == item.group:
                j += 1
            for end in range(j, i + 1, -1):
                name = ", ".join(x.name for x in items[i:end])
                if key(name) in known:
                    joined = Item(name, item.count, item.where, item.group)
                    i = end - 1
                    break
        out.append(joined)
        i += 1
    return out


# -- one unit -----------------------------------------------------------------------------------


@dataclass
class UnitRead:
    unit: RosterUnit | None
    problems: list[Problem]


def _listed(
    groups: dict[str, Counter[str]], flat: Counter[str], has_groups: bool
) -> Counter[tuple[str, str]]:
    out: Counter[tuple[str, str]] = Counter()
    if has_groups:
        for g, items in groups.items():
            for w, n in items.items():
                out[(g, w)] += n
        for w, n in flat.items():
            out[("", w)] += n
    else:
        for w, n in flat.items():
            out[("*", w)] += n
        for items in groups.values():
            for w, n in items.items():
                out[("*", w)] += n
    return out


def _got(c: Carried, has_groups: bool, only: set[str]) -> Counter[tuple[str, str]]:
    out: Counter[tuple[str, str]] = Counter()
    for g, items in c.items():
        for w, n in items.items():
            if w in only:
                out[(g if has_groups else "*", w)] += n
    return out


def _distance(a: Counter[tuple[str, str]], b: Counter[tuple[str, str]]) -> int:
    return sum(abs(a.get(k, 0) - b.get(k, 0)) for k in set(a) | set(b))


def read_unit(
    pasted: PastedUnit, sheet: Datasheet, enhancement_names: Mapping[str, str]
) -> tuple[RosterUnit | None, list[Problem], list[str], bool]:
    """The roster unit a pasted unit stands for: (unit, problems, enhancements named among the
    items, warlord named among the items)."""
    names = _names(sheet)
    problems: list[Problem] = []
    known = set(names.weapons) | set(names.choices) | set(names.types) | set(enhancement_names)
    extra_enh: list[str] = []
    warlord = False
    wargear: dict[str, int] = {}
    grouped: dict[str, Counter[str]] = {}
    flat: Counter[str] = Counter()
    type_counts: dict[str, int] = {}

    def classify(item: Item, bucket: str | None) -> None:
        nonlocal warlord
        k = key(item.name)
        if k == "warlord":
            warlord = True
        elif k in names.weapons:
            # a unit-level item listed under the model that carries it counts for the unit
            if bucket is not None and k not in names.unit_level:
                grouped.setdefault(bucket, Counter())[k] += item.count
            else:
                flat[k] += item.count
        elif k in names.choices:
            choice = names.choices[k]
            wargear[choice] = wargear.get(choice, 0) + item.count
        elif bucket is None and (mt := _type_of(names, sheet, item.name)) is not None:
            type_counts[mt] = type_counts.get(mt, 0) + item.count
        elif k in enhancement_names:
            extra_enh.append(enhancement_names[k])
        else:
            near = closest(item.name, [*names.weapons.values(), *names.choices.values()])
            hint = f" (did you mean {' or '.join(near)}?)" if near else ""
            problems.append(
                Problem(
                    item.where, item.name, f"not a weapon or wargear option of {sheet.name}{hint}"
                )
            )

    for group in pasted.groups:
        mt = _type_of(names, sheet, group.name)
        if mt is None:
            near = closest(group.name, list(names.types.values()))
            hint = f" (did you mean {' or '.join(near)}?)" if near else ""
            problems.append(Problem(group.where, group.name, f"not a model of {sheet.name}{hint}"))
            continue
        type_counts[mt] = type_counts.get(mt, 0) + group.count
        for item in _rejoin(group.items, known):
            classify(item, key(mt))
    for item in _rejoin(pasted.items, known):
        classify(item, None)

    has_groups = bool(grouped) or (len(sheet.models) > 1 and bool(type_counts))
    if type_counts:
        models = sum(type_counts.values())
    else:
        models = pasted.models_total or pasted.count or sheet.min_models
    if not 1 <= models <= 200:
        problems.append(Problem(pasted.where, pasted.name, f"{models} models is not a unit size"))
        return None, problems, extra_enh, warlord
    # model types: name only those the builder's default spread would not give
    for _ in range(len(sheet.models) + 1):
        counts = loadout.model_counts(sheet, models, wargear)
        wrong = sorted(
            (
                m
                for m in sheet.models
                if m.name in type_counts and counts.get(m.name) != type_counts[m.name]
            ),
            key=lambda m: m.min != 0,  # name the optional model types first, as the builder does
        )
        if not wrong:
            break
        wargear[wrong[0].name] = type_counts[wrong[0].name]

    # then name as few as possible: the builder names only the types it is told about
    def fits(entries: Mapping[str, int]) -> bool:
        got = loadout.model_counts(sheet, models, entries)
        return all(got.get(t) == n for t, n in type_counts.items())

    if fits(wargear):
        for m in sorted(sheet.models, key=lambda m: (m.min == 0, m.name)):
            if m.name in wargear:
                trial = {k: v for k, v in wargear.items() if k != m.name}
                if fits(trial):
                    wargear = trial
    counts = loadout.model_counts(sheet, models, wargear)
    for m in sheet.models:
        if m.name in type_counts and counts.get(m.name) != type_counts[m.name]:
            problems.append(
                Problem(
                    pasted.where,
                    pasted.name,
                    f"{type_counts[m.name]} × {m.name} is not possible in a unit of {models}",
                )
            )
    # weapons: the choices that bring the listed weapons, one step at a time
    listed = _listed(grouped, flat, has_groups)
    only = set(names.weapons)
    current = _distance(listed, _got(carried(sheet, models, wargear), has_groups, only))
    rows = [r for r in loadout.wargear_rows(sheet, models, wargear) if not r.is_model]
    for _ in range(MAX_STEPS):
        if current == 0:
            break
        best: tuple[int, str] | None = None
        for row in rows:
            if wargear.get(row.name, 0) >= row.max:
                continue
            trial = {**wargear, row.name: wargear.get(row.name, 0) + 1}
            d = _distance(listed, _got(carried(sheet, models, trial), has_groups, only))
            if d < current and (best is None or d < best[0]):
                best = (d, row.name)
        if best is None:
            break
        current = best[0]
        wargear[best[1]] = wargear.get(best[1], 0) + 1
    if current:
        got = _got(carried(sheet, models, wargear), has_groups, only)
        diffs = []
        for k in sorted(set(listed) | set(got)):
            a, b = listed.get(k, 0), got.get(k, 0)
            if a != b:
                diffs.append(f"{names.weapons.get(k[1], k[1])}: {a} listed, {b} possible")
        problems.append(
            Problem(
                pasted.where,
                pasted.name,
                "the wargear listed does not match the datasheet's options ("
                + "; ".join(diffs[:6])
                + ")",
            )
        )
    try:
        unit = RosterUnit(
            datasheet=sheet.name,
            models=models,
            wargear={k: v for k, v in wargear.items() if v > 0},
            label=pasted.label,
        )
    except RosterError as exc:
        problems.append(_refused(pasted.where, pasted.name, exc))
        return None, problems, extra_enh, warlord
    return unit, problems, extra_enh, warlord


# -- the whole list -----------------------------------------------------------------------------


def _faction_of(pasted: PastedList, catalogue: Catalogue) -> tuple[str | None, set[str]]:
    """The Army Faction the header names, else the one the units share; and the header lines
    understood on the way."""
    understood: set[str] = set()
    for where, text in pasted.header:
        for part in [text, *[p.strip() for p in text.replace("–", "-").split(" - ")]]:
            found = catalogue.faction(part)
            if found:
                understood.add(where)
                return found, understood
    votes: Counter[str] = Counter()
    for unit in pasted.units:
        for sheet in catalogue.datasheets_named(unit.name):
            for fk in sheet.faction_keywords:
                if catalogue.faction(fk):
                    votes[catalogue.faction(fk) or fk] += 1
    if votes:
        return votes.most_common(1)[0][0], understood
    return None, understood


def _datasheet(catalogue: Catalogue, name: str, faction: str) -> Datasheet | None:
    found = catalogue.datasheet(name, faction)
    if found is not None:
        return found
    k = key(name)
    return next((d for d in catalogue.datasheets_of(faction) if key(d.name) == k), None)


def _legends_tag(catalogue: Catalogue, unit: PastedUnit, faction: str) -> None:
    """A "Name [Legends] (N pts)" line reads as the name with a label "Legends" (the bracket
    is where the formats put a unit's own name): when the catalogue names the datasheet with
    its tag ("[Legends]", or another such as Death Guard's "[Crucible]"), the tag is part of
    the name, not a label."""
    if not unit.label or _datasheet(catalogue, unit.name, faction) is not None:
        return
    tagged = _datasheet(catalogue, f"{unit.name} [{unit.label}]", faction)
    if tagged is not None:
        unit.name, unit.label = tagged.name, ""


def match(pasted: PastedList, catalogue: Catalogue, *, skip: bool = False) -> Matched:
    """Map ``pasted`` onto ``catalogue``. With problems the roster is None, unless ``skip``:
    then it is built without what was not understood (the problems are still returned)."""
    problems = list(pasted.problems)
    notes: list[Problem] = []
    faction, understood = _faction_of(pasted, catalogue)
    if faction is None:
        problems.append(
            Problem(
                "list",
                "",
                "no Army Faction of this catalogue could be read (it has "
                + ", ".join(catalogue.factions)
                + ")",
            )
        )
        return Matched(None, problems, notes)
    # the detachment: said outright, or one of the header lines
    detachment = ""
    candidates = [pasted.detachment] if pasted.detachment else []
    candidates += [h for h in pasted.header if h[0] not in understood]
    for where, text in candidates:
        det = catalogue.detachment(text, faction)
        if det is not None:
            detachment = det.name
            understood.add(where)
            break
        if pasted.detachment and (where, text) == pasted.detachment:
            other = catalogue.detachment(text)
            near = closest(text, [d.name for d in catalogue.detachments_of(faction)])
            why = (
                f"a detachment of {other.faction}, not of {faction}"
                if other
                else "not a detachment of " + faction
            )
            hint = f" (did you mean {' or '.join(near)}?)" if near else ""
            problems.append(Problem(where, text, why + hint))
            understood.add(where)
    for line in pasted.units:
        _legends_tag(catalogue, line, faction)
    sheets = [_datasheet(catalogue, u.name, faction) for u in pasted.units]
    keywords = {key(k) for s in sheets if s for k in (*s.keywords, *s.faction_keywords)}
    cat_parts = {
        key(p)
        for p in catalogue.name.replace("(", " - ")
        .replace(")", "")
        .replace(",", " - ")
        .split(" - ")
    }
    for where, text in pasted.header:
        if where in understood:
            continue
        k = key(text)
        parts = {key(p) for p in text.split(" - ")}
        if k in keywords or k in cat_parts or parts & (keywords | cat_parts | {key(faction)}):
            continue  # a sub-faction or catalogue name as the app writes it
        if k.startswith(("battle size", "strike force", "incursion", "onslaught")):
            continue
        # nothing of the list depends on it, but it is said, not dropped
        notes.append(
            Problem(
                where,
                text,
                f"read as a name of the faction or a sub-faction: the list is a {faction} list",
            )
        )
    battle_size = pasted.battle_size
    if battle_size is None:
        battle_size = BattleSize.STRIKE_FORCE
        notes.append(Problem("list", "", "no battle size given: Strike Force"))
    det = catalogue.detachment(detachment, faction) if detachment else None
    enh_pool = det.enhancements if det else ()
    enh_names = {key(e.name): e.name for e in enh_pool}
    for e in catalogue.detachments_of(faction):
        for x in e.enhancements:
            enh_names.setdefault(key(x.name), x.name)
    units: list[RosterUnit] = []
    index_of: dict[int, int] = {}  # pasted index -> roster index
    attach: list[tuple[int, tuple[str, int | None, str]]] = []
    stated: dict[int, int] = {}
    for pi, (pasted_unit, sheet) in enumerate(zip(pasted.units, sheets, strict=True)):
        if sheet is None:
            near = closest(pasted_unit.name, [d.name for d in catalogue.datasheets_of(faction)])
            hint = f" (did you mean {' or '.join(near)}?)" if near else ""
            problems.append(
                Problem(pasted_unit.where, pasted_unit.name, f"not a datasheet of {faction}{hint}")
            )
            continue
        unit, unit_problems, extra_enh, warlord = read_unit(pasted_unit, sheet, enh_names)
        problems.extend(unit_problems)
        if unit is None:
            continue
        enhancements: list[str] = []
        for name, where in pasted_unit.enhancements:
            found = enh_names.get(key(name))
            if found is None:
                near = closest(name, list(enh_names.values()))
                hint = f" (did you mean {' or '.join(near)}?)" if near else ""
                problems.append(Problem(where, name, f"not an Enhancement of {faction}{hint}"))
            else:
                enhancements.append(found)
        enhancements.extend(extra_enh)
        try:
            unit = RosterUnit(
                datasheet=unit.datasheet,
                models=unit.models,
                wargear=dict(unit.wargear),
                enhancements=tuple(enhancements),
                warlord=pasted_unit.warlord or warlord,
                label=unit.label,
            )
        except RosterError as exc:
            problems.append(_refused(pasted_unit.where, pasted_unit.name, exc))
            continue
        index_of[pi] = len(units)
        if pasted_unit.attached:
            attach.append((len(units), pasted_unit.attached))
        if pasted_unit.points is not None:
            stated[len(units)] = pasted_unit.points
        units.append(unit)
    for ri, (name, number, where) in attach:
        target = _attach_target(units, pasted, index_of, name, number)
        if target is None or target == ri:
            problems.append(Problem(where, name, "the unit it is attached to is not in the list"))
            continue
        u = units[ri]
        units[ri] = RosterUnit(
            u.datasheet, u.models, dict(u.wargear), u.enhancements, u.warlord, target, u.label
        )
    if problems and not skip:
        return Matched(None, problems, notes, stated)
    # The pasted formats do not carry the "Include Legends" setting: a list that holds a
    # Legends datasheet was built with it, so it is on exactly then (ruling D11).
    legends = [u.datasheet for u in units if _is_legends(catalogue, u.datasheet, faction)]
    if legends:
        notes.append(Problem("list", legends[0], "a Legends datasheet: the list includes Legends"))
    try:
        roster = Roster(
            faction=faction,
            detachment=detachment,
            battle_size=battle_size,
            units=tuple(units),
            name=pasted.name[:200],
            include_legends=bool(legends),
        )
    except RosterError as exc:
        problems.append(_refused("list", "", exc))
        return Matched(None, problems, notes, stated)
    return Matched(roster, problems, notes, stated)


def _refused(where: str, text: str, exc: ProfileError) -> Problem:
    """The problem of a unit or list the engine refuses: ``str(exc)`` (each field and its
    message), with the same words as a message a page translates."""
    said = [
        Message("%(field)s: %(message)s", {"field": f, "message": t})
        for (f, _m), t in zip(exc.errors, exc.templates, strict=True)
    ]
    template = said[0]
    for more in said[1:]:
        template = Message("%(said)s; %(more)s", {"said": template, "more": more})
    message = str(exc)
    return Problem(where, text, message, template if str(template) == message else None)


def _is_legends(catalogue: Catalogue, datasheet: str, faction: str) -> bool:
    sheet = catalogue.datasheet(datasheet, faction)
    return sheet is not None and sheet.legends


def _attach_target(
    units: list[RosterUnit],
    pasted: PastedList,
    index_of: dict[int, int],
    name: str,
    number: int | None,
) -> int | None:
    k = key(name)
    if number is not None and 1 <= number <= len(pasted.units) and (number - 1) in index_of:
        ri = index_of[number - 1]
        u = units[ri]
        if k in (key(u.label), key(u.datasheet)):
            return ri
    found = [i for i, u in enumerate(units) if k in (key(u.label), key(u.datasheet))]
    return found[0] if len(found) == 1 else None


# -- which catalogue a list names ---------------------------------------------------------------


def names_catalogue(pasted: PastedList, catalogue: Catalogue) -> bool:
    """Whether a header line of the list names ``catalogue``: its whole name (New Recruit's
    ``catalogueName``, the roster text's force line), or the last `` - `` part of a name that
    has several (the official app's sub-faction line: ``Space Wolves`` for "Imperium - Adeptus
    Astartes - Space Wolves"), as the line or as a `` - `` part of it (ruling D27)."""
    full = key(catalogue.name)
    parts = catalogue.name.split(" - ")
    last = key(parts[-1]) if len(parts) > 1 else ""
    for _where, text in pasted.header:
        k = key(text)
        if k == full:
            return True
        if last and (k == last or last in {key(p) for p in text.replace("–", "-").split(" - ")}):
            return True
    return False


def own_datasheets(roster: Roster, catalogue: Catalogue) -> int:
    """How many units of ``roster`` are of datasheets ``catalogue`` itself defines (not ones it
    imports from a parent or a library: a chapter's Captain is its parent's)."""
    own = 0
    for u in roster.units:
        sheet = catalogue.datasheet(u.datasheet, roster.faction)
        if sheet is not None and sheet.source == catalogue.name:
            own += 1
    return own


def imports_from(catalogue: Catalogue, other: Catalogue) -> bool:
    """Whether ``catalogue`` holds datasheets of ``other`` (a chapter holds its parent's)."""
    return catalogue.name != other.name and any(
        s.source == other.name for s in catalogue.datasheets
    )
