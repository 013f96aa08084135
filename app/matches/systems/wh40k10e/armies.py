"""Army lists into a 10th-edition match: the snapshot taken when a side joins, and the
engine's ArmySpec.

A side joins with one of three sources:

- a registered user's own "ready" list (:func:`fetch_ready_list`, the one adapter to the army
  builder: ``app.armies.service.ready_snapshot``);
- for a guest seat, one of the sample lists built on the starter catalogue (:data:`SAMPLES`);
- for a guest seat, our army JSON export pasted in (checked against a public catalogue).

Each becomes a **snapshot** (plain JSON, stored on the match): the roster export, the catalogue
id and version, and per unit everything the tracker needs later without the catalogue: the
engine's unit spec (models, W, OC, Ld, keywords, core abilities, Bodyguard datasheets,
transport capacity, Toughness, points), the target profile (T, Sv, invulnerable save, Feel No
Pain) and the weapon profiles with how many models carry each by default. The match never
depends on the catalogue again (a new catalogue version changes nothing in a running match).

Each model slot keeps its own wounds characteristic (``model_wounds``): the W of its model
type's profile, the slots listed model type by model type in the datasheet's composition order
(a Boyz mob of 10: nine Boys at W1, then the Boss Nob at W2). A snapshot without it (taken
before) gives every model the unit's ``wounds``.

Approximation: the unit's other characteristics (``wounds`` for display, Toughness, Save,
invulnerable save, OC, Leadership) are those of its most numerous model type (ties: the first
listed), e.g. a Boss Nob is hit and saves as a Boy. See docs/rulings/wh40k10e-battle.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.armies import loadout
from app.core.i18n import lazy
from app.core.ids import parse_int
from app.engine.errors import ProfileError
from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    Datasheet,
    Roster,
    RosterUnit,
    WeaponKind,
    import_json,
    name_key,
    validate,
)
from app.engine.wh40k10e.battle import Ability, ArmySpec, Seat, UnitSpec
from app.engine.wh40k10e.battle.setup import MAX_UNITS
from app.matches.exceptions import ArmyUnusable

__all__ = [
    "SAMPLES",
    "SNAPSHOT_FORMAT",
    "ReadyList",
    "Sample",
    "army_spec",
    "fetch_ready_list",
    "my_ready_lists",
    "pasted_snapshot",
    "ready_snapshot",
    "sample_snapshot",
    "snapshot_from_roster",
    "snapshot_unit",
    "unit_id",
]

SNAPSHOT_FORMAT = "auspex.match-army/1"
MAX_WEAPONS_PER_UNIT = 40
MAX_KEYWORDS = 64
_SCOUTS = re.compile(r"scouts\s*(\d+)", re.IGNORECASE)
_DEADLY_DEMISE = re.compile(r"deadly demise\s*((?:[1-3]?d[36](?:\s*\+\s*\d+)?)|\d+)", re.I)
_FIRING_DECK = re.compile(r"firing deck\s*(\d+)", re.IGNORECASE)


# -- the adapter to the army builder -----------------------------------------------------------


def fetch_ready_list(db: Session, user: User, army_id: int) -> dict[str, Any]:
    """The JSON export of ``user``'s ready list ``army_id`` with its catalogue id and version
    (the army builder raises its own 404/409 when the list is not theirs or not ready)."""
    from app.armies import service as armies  # the army builder owns this contract

    return dict(armies.ready_snapshot(db, user, army_id))


@dataclass(frozen=True, slots=True)
class ReadyList:
    id: int
    name: str
    faction: str
    battle_size: str | None


def my_ready_lists(db: Session, user: User) -> list[ReadyList]:
    """The user's 10th-edition lists marked ready (for the new-match and join forms)."""
    from app.armies.models import Army, ArmyStatus

    rows = db.execute(
        select(Army.id, Army.name, Army.faction, Army.battle_size)
        .where(
            Army.owner_id == user.id,
            Army.status == ArmyStatus.READY,
            Army.rule_system == "wh40k-10e",
        )
        .order_by(Army.name, Army.id)
    ).all()
    return [ReadyList(r[0], r[1], r[2], r[3]) for r in rows]


_ROSTER_KEYS = frozenset(
    {
        "format",
        "schema_version",
        "faction",
        "detachment",
        "battle_size",
        "units",
        "name",
        "catalogue",
        "catalogue_version",
    }
)


def _find_roster(data: Mapping[str, Any]) -> dict[str, Any]:
    """The roster export inside what the army builder gave: the export itself (with the
    catalogue id and version added next to its fields), or under a key of its own."""
    candidates: list[Mapping[str, Any]] = [data]
    for key in ("roster", "army", "export", "list", "json"):
        value = data.get(key)
        if isinstance(value, Mapping):
            candidates.append(value)
    for found in candidates:
        if (
            found.get("format", "auspex.army") == "auspex.army"
            and isinstance(found.get("units"), list)
            and "faction" in found
        ):
            return {k: v for k, v in found.items() if k in _ROSTER_KEYS}
    raise ArmyUnusable("The army builder gave no list export.")


def _find_catalogue_ref(data: Mapping[str, Any], roster: Mapping[str, Any]) -> int | str | None:
    for key in ("catalogue_id", "catalog_id"):
        value = data.get(key)
        if isinstance(value, int | str) and not isinstance(value, bool):
            return value
    for key in ("catalogue", "catalog"):
        value = data.get(key)
        if isinstance(value, Mapping) and isinstance(value.get("id"), int | str):
            return value["id"]  # type: ignore[no-any-return]
        if isinstance(value, int | str) and not isinstance(value, bool):
            return value
    ref = roster.get("catalogue")
    return ref if isinstance(ref, str) else None


def ready_snapshot(db: Session, user: User, army_id: int, *, points_limit: int) -> dict[str, Any]:
    """The snapshot of one of ``user``'s ready lists."""
    from app.catalog import service as catalogs

    data = fetch_ready_list(db, user, army_id)
    if data.get("rule_system", "wh40k-10e") != "wh40k-10e":
        raise ArmyUnusable(
            "Only 10th-edition lists can be taken into a match.",
            errors=[
                {"field": "army_id", "message": "not a 10th-edition list", "type": "rule_system"}
            ],
        )
    roster_data = _find_roster(data)
    roster = _roster(roster_data)
    ref = _find_catalogue_ref(data, roster_data)
    record = catalogs.resolve(db, user, ref) if ref is not None else catalogs.starter(db)
    catalogue = catalogs.parsed(db, record)
    return snapshot_from_roster(
        catalogue,
        roster,
        source="army",
        army_id=army_id,
        catalogue_id=record.id,
        points_limit=points_limit,
        name=str(data.get("name") or roster.name or ""),
    )


def pasted_snapshot(
    db: Session, text: str | Mapping[str, Any], *, points_limit: int
) -> dict[str, Any]:
    """The snapshot of a pasted army JSON export (a guest's list): checked against its public
    catalogue (the starter catalogue when it names none)."""
    from app.catalog import service as catalogs

    roster = _roster(text)
    record = (
        catalogs.resolve(db, None, roster.catalogue) if roster.catalogue else catalogs.starter(db)
    )
    catalogue = catalogs.parsed(db, record)
    return snapshot_from_roster(
        catalogue,
        roster,
        source="pasted",
        army_id=None,
        catalogue_id=record.id,
        points_limit=points_limit,
        name=roster.name,
    )


def _roster(data: str | Mapping[str, Any]) -> Roster:
    try:
        return import_json(data if isinstance(data, str) else dict(data))
    except ProfileError as exc:
        raise ArmyUnusable(
            str(exc),
            errors=[{"field": f, "message": m, "type": "invalid_roster"} for f, m in exc.errors],
        ) from None


# -- sample lists for guests ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sample:
    id: str
    name: str  # a msgid
    roster: Roster


SAMPLES: tuple[Sample, ...] = (
    Sample(
        "space-marines",
        lazy("Space Marines: Gladius strike group"),
        Roster(
            "Adeptus Astartes",
            "Gladius Task Force",
            BattleSize.INCURSION,
            (
                RosterUnit("Captain", warlord=True, attached_to=1),
                RosterUnit("Intercessor Squad", 5),
                RosterUnit("Terminator Squad", 5),
                RosterUnit("Scout Squad", 5),
                RosterUnit("Tactical Squad", 10),
                RosterUnit("Rhino"),
                RosterUnit("Hellblaster Squad", 5, wargear={"Bolt pistol": 1}),
                RosterUnit("Lieutenant"),
            ),
            name="Gladius strike group",
        ),
    ),
    Sample(
        "orks",
        lazy("Orks: War Horde mob"),
        Roster(
            "Orks",
            "War Horde",
            BattleSize.INCURSION,
            (
                RosterUnit("Warboss", warlord=True, attached_to=1),
                RosterUnit("Boyz", 10),
                RosterUnit("Boyz", 10),
                RosterUnit("Kommandos", 10),
                RosterUnit("Stormboyz", 5),
                RosterUnit("Nobz", 5),
                RosterUnit("Trukk"),
                RosterUnit("Battlewagon"),
                RosterUnit("Deffkoptas", 3),
                RosterUnit("Mek"),
            ),
            name="War Horde mob",
        ),
    ),
)


def sample_snapshot(db: Session, sample_id: str, *, points_limit: int) -> dict[str, Any]:
    from app.catalog import service as catalogs

    sample = next((s for s in SAMPLES if s.id == sample_id), None)
    if sample is None:
        raise ArmyUnusable(
            f"There is no sample list {sample_id!r}.",
            errors=[{"field": "sample", "message": "unknown sample list", "type": "unknown"}],
        )
    record = catalogs.starter(db)
    return snapshot_from_roster(
        catalogs.parsed(db, record),
        sample.roster,
        source="sample",
        army_id=None,
        catalogue_id=record.id,
        points_limit=points_limit,
        name=sample.roster.name,
    )


# -- roster -> snapshot -----------------------------------------------------------------------


def snapshot_from_roster(
    catalogue: Catalogue,
    roster: Roster,
    *,
    source: str,
    army_id: int | None,
    catalogue_id: int | None,
    points_limit: int,
    name: str = "",
) -> dict[str, Any]:
    """Validate ``roster`` against ``catalogue`` and take the match snapshot of it."""
    result = validate(roster, catalogue)
    if not result.valid:
        raise ArmyUnusable(
            "The list breaks the muster rules.",
            errors=[
                {
                    "field": f"units[{v.unit}]" if v.unit is not None else None,
                    "message": v.message,
                    "type": v.code.value,
                }
                for v in result.errors
            ],
        )
    if result.points > points_limit:
        raise ArmyUnusable(
            f"The list is {result.points} points; this battle size allows {points_limit}.",
            errors=[{"field": "points", "message": "over the battle size", "type": "too_big"}],
        )
    if len(roster.units) > MAX_UNITS:
        raise ArmyUnusable(f"A match takes at most {MAX_UNITS} units per army.")
    faction = catalogue.faction(roster.faction) or roster.faction
    sheets: list[Datasheet] = []
    for i, runit in enumerate(roster.units):
        sheet = catalogue.datasheet(runit.datasheet, faction)
        if sheet is None or not sheet.profiles:
            raise ArmyUnusable(
                f"Unit {i + 1}: no usable datasheet {runit.datasheet!r}.",
                errors=[
                    {"field": f"units[{i}]", "message": "unknown datasheet", "type": "unknown"}
                ],
            )
        # the unit as it is in the Detachment, with the keywords its taken choices add or
        # remove and those its Enhancement gives: a Tank Ace is a Character in the match too
        # (rulings D22, D24, D25), as the validator judged it
        detachment = roster.detachment or None
        sheet = catalogue.with_enhancements(
            catalogue.with_choices(
                catalogue.datasheet_in(sheet, detachment), runit.wargear, detachment
            ),
            runit.enhancements,
            detachment,
        )
        sheets.append(sheet)
    names = _unit_names(roster, sheets)
    units = [
        _unit(catalogue, i, runit, sheet, names[i], result.units[i].points)
        for i, (runit, sheet) in enumerate(zip(roster.units, sheets, strict=True))
    ]
    for i, runit in enumerate(roster.units):
        if runit.attached_to is not None and runit.attached_to < len(units):
            units[i]["attached_to"] = runit.attached_to
    return {
        "format": SNAPSHOT_FORMAT,
        "source": source,
        "army_id": army_id,
        "name": (name or roster.name or faction)[:120],
        "faction": faction[:120],
        "detachment": roster.detachment,
        "catalogue_id": catalogue_id,
        "catalogue_version": catalogue.version,
        "points": result.points,
        "roster": roster.to_dict(),
        "units": units,
    }


def _unit_names(roster: Roster, sheets: Sequence[Datasheet]) -> list[str]:
    base = [(u.label or s.name)[:100] for u, s in zip(roster.units, sheets, strict=True)]
    seen: dict[str, int] = {}
    total = {n: base.count(n) for n in base}
    out = []
    for n in base:
        if total[n] > 1:
            seen[n] = seen.get(n, 0) + 1
            out.append(f"{n} {seen[n]}")
        else:
            out.append(n)
    return out


def _main_type_profile(sheet: Datasheet) -> Any:
    main = max(sheet.models, key=lambda m: m.max, default=None)
    return (sheet.profile(main.profile) if main else None) or sheet.profiles[0]


def _composition(sheet: Datasheet, runit: RosterUnit, models: int) -> dict[str, int]:
    """How many models of each model type the unit has (model types named in the wargear
    are taken as given; the others at their minimum; the rest in the most numerous type)."""
    given = {name_key(k): v for k, v in runit.wargear.items()}
    counts: dict[str, int] = {}
    for m in sheet.models:
        key = name_key(m.name)
        counts[m.name] = given.get(key, m.min)
    rest = models - sum(counts.values())
    if rest > 0 and sheet.models:
        main = max(sheet.models, key=lambda m: m.max)
        counts[main.name] += rest
    return counts


def _model_wounds(sheet: Datasheet, runit: RosterUnit, models: int, main_wounds: int) -> list[int]:
    """Each model slot's W, model type by model type in composition order (slots the
    composition does not fill take the main profile's W; extra ones are dropped)."""
    composition = _composition(sheet, runit, models)
    out: list[int] = []
    for m in sheet.models:
        profile = sheet.profile(m.profile)
        w = profile.wounds if profile is not None else main_wounds
        out.extend([w] * max(0, composition.get(m.name, 0)))
    out.extend([main_wounds] * (models - len(out)))
    return out[:models]


def _weapons(sheet: Datasheet, runit: RosterUnit, models: int) -> list[dict[str, Any]]:
    """Every weapon profile of the datasheet with how many models carry it: the army builder's
    loadout (defaults, then each choice in the option that offers it, replacing that option's
    default), so the tracker offers what the list shows. A weapon no model carries stays
    listed at 0 (refused with that reason) unless the list is over its bound, where the
    carried ones come first."""
    carried = {name_key(w.name): n for w, n in loadout.loadout(sheet, models, dict(runit.wargear))}
    out: list[dict[str, Any]] = []
    for weapon in sheet.weapons:
        n = min(carried.get(name_key(weapon.name), 0), models)
        for profile in weapon.profiles:
            body = profile.combat_weapon()
            if body is None:
                continue
            body["range"] = profile.range
            body["models"] = n
            body["group"] = weapon.name  # profiles of one weapon share it (plasma: 2 modes)
            out.append(body)
    if len(out) > MAX_WEAPONS_PER_UNIT:
        out = [w for w in out if w["models"] > 0] + [w for w in out if w["models"] == 0]
    return out[:MAX_WEAPONS_PER_UNIT]


def _unit(
    catalogue: Catalogue,
    index: int,
    runit: RosterUnit,
    sheet: Datasheet,
    name: str,
    points: int,
) -> dict[str, Any]:
    models = runit.models or sheet.min_models
    profile = _main_type_profile(sheet)
    keywords = {k.strip().upper() for k in sheet.all_keywords() if k.strip()}
    if sheet.character:
        keywords.add("CHARACTER")
    if sheet.epic_hero:
        keywords.add("EPIC HERO")
    if sheet.dedicated_transport:
        keywords.add("DEDICATED TRANSPORT")
    if sheet.transport_capacity:
        keywords.add("TRANSPORT")
    abilities: set[str] = set()
    scouts: int | None = None
    deadly_demise = ""
    firing_deck = 0
    for text in sheet.abilities:
        key = name_key(text)
        if key == name_key("Deep Strike"):
            abilities.add(Ability.DEEP_STRIKE)
        elif key == name_key("Infiltrators"):
            abilities.add(Ability.INFILTRATORS)
        elif key == name_key("Fights First"):
            abilities.add(Ability.FIGHTS_FIRST)
        elif key == name_key("Hover"):
            abilities.add(Ability.HOVER)
        elif key == name_key("Lone Operative"):
            abilities.add(Ability.LONE_OPERATIVE)
        elif key == name_key("Stealth"):
            abilities.add(Ability.STEALTH)
        elif (m := _SCOUTS.match(text.strip())) is not None:
            scouts = max(1, min(24, int(m.group(1))))
        elif (m := _DEADLY_DEMISE.fullmatch(text.strip())) is not None:
            deadly_demise = _demise_x(m.group(1))
        elif (m := _FIRING_DECK.fullmatch(text.strip())) is not None:
            firing_deck = min(200, int(m.group(1)))
    weapons = _weapons(sheet, runit, models)
    for w in weapons:
        lowered = {name_key(a) for a in w["abilities"]}
        if w["kind"] == WeaponKind.RANGED and "assault" in lowered:
            abilities.add(Ability.ASSAULT_WEAPONS)
        if "pistol" in lowered:
            abilities.add(Ability.PISTOLS)
    leads = []
    for bodyguard in sheet.leader_of:
        found = catalogue.datasheet(bodyguard)
        leads.append(found.name if found else bodyguard)
    return {
        "index": index,
        "name": name,
        "datasheet": sheet.name,
        "models": models,
        "wounds": profile.wounds,
        "model_wounds": _model_wounds(sheet, runit, models, profile.wounds),
        "oc": min(20, profile.objective_control or 0),
        "leadership": max(2, min(12, profile.leadership or 7)),
        "points": min(points, 10_000),
        "keywords": sorted(keywords)[:MAX_KEYWORDS],
        "abilities": sorted(str(a) for a in abilities),
        "scouts": scouts,
        "leads": leads[:64],
        "transport_capacity": min(sheet.transport_capacity or 0, 200),
        "toughness": profile.toughness,
        "deadly_demise": deadly_demise,
        "firing_deck": firing_deck,
        "profile": {
            "toughness": profile.toughness,
            "save": profile.save if profile.save is not None else 7,
            "wounds": profile.wounds,
            "invulnerable_save": profile.invulnerable_save,
            "feel_no_pain": sheet.feel_no_pain,
        },
        "weapons": weapons,
        "attached_to": None,
    }


def _demise_x(text: str) -> str:
    """The x of "Deadly Demise x" as the engine spells it ("D3", "D6+2", "1"); "" if out of
    the engine's bounds."""
    x = text.upper().replace(" ", "")
    if x.isdigit():  # "²" too: only ASCII digits are a number
        return x if x.isascii() and 1 <= int(x) <= 10 else ""
    return x


# -- snapshot -> engine ---------------------------------------------------------------------


def unit_id(seat: Seat | str, index: int) -> str:
    """A unit's id in the match: the seat's letter (lower case) and its 1-based list index."""
    return f"{str(seat).lower()}{index + 1}"


def army_spec(snapshot: Mapping[str, Any], seat: Seat) -> ArmySpec:
    """The engine's :class:`ArmySpec` of a snapshot (a Refusal if out of the engine's bounds)."""
    units = []
    for u in snapshot["units"]:
        units.append(
            UnitSpec(
                id=unit_id(seat, int(u["index"])),
                name=str(u["name"]),
                datasheet=str(u["datasheet"]),
                models=int(u["models"]),
                wounds=int(u["wounds"]),
                oc=int(u["oc"]),
                leadership=int(u["leadership"]),
                points=int(u["points"]),
                keywords=frozenset(u["keywords"]),
                abilities=frozenset(Ability(a) for a in u["abilities"]),
                scouts=u["scouts"],
                leads=tuple(u["leads"]),
                transport_capacity=int(u["transport_capacity"]),
                toughness=u["toughness"],
                model_wounds=tuple(int(w) for w in u.get("model_wounds") or ()),
                transport_keywords=tuple(str(k) for k in u.get("transport_keywords") or ()),
                # snapshots stored before these fields: none of them
                feel_no_pain=(u.get("profile") or {}).get("feel_no_pain"),
                deadly_demise=str(u.get("deadly_demise") or ""),
                firing_deck=int(u.get("firing_deck") or 0),
            )
        )
    return ArmySpec(str(snapshot["name"]), tuple(units), str(snapshot["faction"]))


def snapshot_unit(
    snapshot: Mapping[str, Any] | None, seat: Seat | str, uid: str
) -> dict[str, Any] | None:
    """The snapshot entry of match unit ``uid`` (``None`` if the snapshot has no such unit)."""
    if not snapshot:
        return None
    prefix = str(seat).lower()
    number = parse_int(uid[len(prefix) :], 1) if uid.startswith(prefix) else None
    if number is None:
        return None
    index = number - 1
    for u in snapshot.get("units", ()):
        if isinstance(u, Mapping) and u.get("index") == index:
            return dict(u)
    return None
