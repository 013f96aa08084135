"""Reading counters, tiles, options, armies and scenarios from plain JSON-like values
(format: docs/black-reach-data.md).

Every reader reports **every** problem at once: one :class:`~app.engine.errors.ProfileError`
whose ``errors`` list each located problem (``counters[2].faces[0].dv``: "an integer from 1 to
20"). Every list and number is bounded, so no file can hang a worker; :func:`parse_json` bounds
the text itself. Scenario forces are also checked with :func:`~.armies.validate_army`, each
violation located under ``sides[i].army``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from app.engine.black_reach.armies import Army, Catalogue, Fielded, Filled, validate_army
from app.engine.black_reach.board import (
    DATA_DIR,
    MAX_LIST,
    Board,
    Placed,
    UnitClass,
    assemble,
    load_sample_boards,
    terrain_from_dict,
)
from app.engine.black_reach.board import Reader as _Reader
from app.engine.black_reach.board import at as _at
from app.engine.black_reach.cards import (
    MAX_CARD_COPIES,
    MAX_CARD_TEXT,
    MAX_CARD_VALUE,
    MAX_DECK,
    ActionCard,
    BonusKind,
)
from app.engine.black_reach.forces import (
    Ability,
    AbilityRef,
    ArmourSave,
    Counter,
    DamageSet,
    Equipment,
    Face,
    FaceKind,
    Faction,
    OptionType,
    Ordnance,
    PerilsEffect,
    PerilsMarker,
    PoleBonus,
    PowerEffect,
    PsychicPower,
    PsykerKind,
    RecruitmentOption,
    Role,
    Slot,
    StepLoss,
    Tile,
    TileKind,
    Weapon,
    WeaponSlot,
)
from app.engine.black_reach.scenario import Objective, Scenario, Side
from app.engine.black_reach.tables import (
    WEAPON_MARKERS,
    ArmourColour,
    DamageFace,
    DamageMarker,
    SniperEffect,
)
from app.engine.black_reach.templates import (
    MAX_TEMPLATE_REACH,
    TEMPLATE_ABILITIES,
    Template,
    parse_template_param,
)
from app.engine.errors import ProfileError

__all__ = [
    "CATALOGUE_FORMAT",
    "MAX_JSON_BYTES",
    "POWER_FIELDS",
    "SCENARIO_FORMAT",
    "army_from_dict",
    "catalogue_from_dict",
    "load_sample_catalogue",
    "load_sample_scenarios",
    "parse_json",
    "scenario_from_dict",
]

CATALOGUE_FORMAT = "auspex-black-reach-forces/1"
SCENARIO_FORMAT = "auspex-black-reach-scenario/1"
MAX_JSON_BYTES = 512 * 1024
MAX_AURA = 12  # squares around a Character (Boss Pole 3, Waaagh! Banner 2): a bound
MAX_ITEMS = 200  # counters, tiles or options in a catalogue
MAX_FACES = 4
MAX_NAME = 120
MAX_TURNS = 30
MAX_HAND = 12
MAX_POINTS = 10_000
MAX_DAMAGE_SETS = 8  # the rulebook has 4 [L666-L668]; room for more of one's own
MAX_TEMPLATES = 16
MAX_PERILS = 6  # the Perils pool, drawn with one die
MAX_TEMPLATE_CELLS = 64


def parse_json(text: str | bytes) -> Any:
    """JSON text, refused beyond :data:`MAX_JSON_BYTES` or when malformed (``ProfileError``)."""
    size = len(text.encode() if isinstance(text, str) else text)
    if size > MAX_JSON_BYTES:
        raise ProfileError("", f"at most {MAX_JSON_BYTES} bytes of JSON")
    try:
        return json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ProfileError("", f"not JSON: {exc}") from exc


# -- catalogue --------------------------------------------------------------------------------

_CLASS_KEYS = {c.value: c for c in UnitClass}
_COUNTER = frozenset(
    {
        "id",
        "name",
        "faction",
        "class",
        "faces",
        "role",
        "footprint",
        "character",
        "large",
        "hit_points",
        "psyker",
        "psyker_level",
    }
)
_FACE = frozenset({"kind", "dv", "mv", "cv", "abilities", "on_step_loss", "weapons", "terrain"})
_WEAPON = frozenset({"slot", "cv", "abilities", "number"})
_TILE = frozenset(
    {
        "id",
        "name",
        "faction",
        "kind",
        "cost",
        "counters",
        "breaking_point",
        "victory_points",
        "order_stars",
        "bands",
        "slots",
        "armour_save",
        "damage_set",
        "sniper_table",
    }
)
_OPTION = frozenset(
    {
        "id",
        "name",
        "faction",
        "type",
        "cost",
        "bands",
        "counters",
        "replaces",
        "equipment",
        "ordnance",
        "power",
        "damage_set",
    }
)
_EQUIPMENT = frozenset(
    {
        "markers",
        "restriction",
        "alternative",
        "grants",
        "dv_bonus",
        "mv_bonus",
        "order_tokens",
        "template",
        "range",
        "armour_save",
        "dv",
        "shot_bonus",
        "assault_bonus",
        "hull_suppressed",
        "reroll",
        "aura",
        "bonuses",
    }
)
_ORDNANCE = frozenset({"bluff_tokens", "special_tokens", "order_tokens", "extra_draw"})
# a psychic power's fields, in the order the content editor shows them
POWER_FIELDS = (
    "psyker",
    "discipline",
    "cost",
    "line_of_sight",
    "range",
    "persistent",
    "effect",
    "template",
    "cv",
    "text",
    "dv_bonus",
)
_POWER = frozenset(POWER_FIELDS)


def _cv(r: _Reader, raw: Any, where: str) -> dict[UnitClass, int | None]:
    obj = r.obj(raw, where, frozenset(_CLASS_KEYS))
    out: dict[UnitClass, int | None] = {}
    for key, cls in _CLASS_KEYS.items():
        value = obj.get(key)
        if value is None:
            out[cls] = None  # "X"
        elif isinstance(value, int) and not isinstance(value, bool) and -10 <= value <= 20:
            out[cls] = value
        else:
            r.fail(f"{where}.{key}", "an integer from -10 to 20, or null for X")
    return out


def _abilities(r: _Reader, raw: Mapping[str, Any], name: str, where: str) -> tuple[AbilityRef, ...]:
    out: list[AbilityRef] = []
    for i, item in enumerate(r.items(raw, name, where, MAX_LIST)):
        at = f"{_at(where, name)}[{i}]"
        obj = r.obj(item, at, frozenset({"id", "param"}))
        ability = r.choice(obj, "id", at, Ability)
        param = obj.get("param")
        if param is not None and not (
            (isinstance(param, int) and not isinstance(param, bool) and -20 <= param <= 20)
            or (isinstance(param, str) and 0 < len(param) <= 8)
        ):
            r.fail(f"{at}.param", "an integer from -20 to 20 or a short letter")
            param = None
        elif (
            ability in TEMPLATE_ABILITIES
            and param is not None
            and parse_template_param(param) is None
        ):
            # Tir Direct / Indirect: the template's letters, "/" and 1-2 digits (B, L/2)
            r.fail(f"{at}.param", "a template's letters, then / and 1 or 2 digits: B, L/2")
            param = None
        if ability is not None:
            out.append(AbilityRef(ability, param))
    return tuple(out)


def _face(r: _Reader, raw: Any, where: str, unit_class: UnitClass | None) -> Face | None:
    obj = r.obj(raw, where, _FACE)
    kind = r.choice(obj, "kind", where, FaceKind)
    dv = r.integer(obj, "dv", where, 1, 20)
    mv_raw = obj.get("mv")
    mv: int | None = None
    if mv_raw is not None:
        mv = r.integer(obj, "mv", where, 0, 20)
    weapons: list[Weapon] = []
    for i, w in enumerate(r.items(obj, "weapons", where, 8)):
        at = f"{where}.weapons[{i}]"
        wobj = r.obj(w, at, _WEAPON)
        slot = r.choice(wobj, "slot", at, WeaponSlot)
        cv = _cv(r, wobj.get("cv"), f"{at}.cv")
        number = r.integer(wobj, "number", at, 1, 9, 1)
        if slot is not None:
            weapons.append(Weapon(slot, cv, _abilities(r, wobj, "abilities", at), number))
    if weapons and unit_class is not UnitClass.HEAVY_VEHICLE:
        r.fail(f"{where}.weapons", "only heavy vehicles list weapons")
    terrain = None
    if obj.get("terrain") is not None:
        terrain = terrain_from_dict(r, obj["terrain"], f"{where}.terrain")
        if kind is not FaceKind.WRECK:
            r.fail(f"{where}.terrain", "only a wreck face is terrain [L633-L637]")
    face = Face(
        kind=kind or FaceKind.INTACT,
        dv=dv,
        mv=mv,
        cv=_cv(r, obj.get("cv"), f"{where}.cv"),
        abilities=_abilities(r, obj, "abilities", where),
        on_step_loss=r.choice(obj, "on_step_loss", where, StepLoss, StepLoss.DESTROY)
        or StepLoss.DESTROY,
        weapons=tuple(weapons),
        terrain=terrain,
    )
    return face if kind is not None else None


def _counter(r: _Reader, raw: Any, where: str) -> Counter | None:
    obj = r.obj(raw, where, _COUNTER)
    ident = r.text(obj, "id", where)
    name = r.text(obj, "name", where, most=MAX_NAME)
    faction = r.choice(obj, "faction", where, Faction)
    unit_class = r.choice(obj, "class", where, UnitClass)
    faces = [
        face
        for i, item in enumerate(r.items(obj, "faces", where, MAX_FACES))
        if (face := _face(r, item, f"{where}.faces[{i}]", unit_class)) is not None
    ]
    raw_faces = obj.get("faces")
    if isinstance(raw_faces, list) and not raw_faces:
        r.fail(f"{where}.faces", "at least one face")
    kinds = [f.kind for f in faces]
    if len(kinds) != len(set(kinds)):
        r.fail(f"{where}.faces", "each face kind once")
    if any(f.on_step_loss is StepLoss.FLIP for f in faces) and FaceKind.REDUCED not in kinds:
        r.fail(f"{where}.faces", "a face with the flip symbol needs a reduced face to flip to")
    footprint = r.integer(obj, "footprint", where, 1, 4, 1)
    if footprint not in (1, 2, 4):
        r.fail(f"{where}.footprint", "1, 2 or 4 squares")
    if unit_class is UnitClass.INFANTRY and footprint != 1:
        r.fail(f"{where}.footprint", "infantry stands on 1 square")
    psyker: PsykerKind | None = None
    if obj.get("psyker") is not None:
        psyker = r.choice(obj, "psyker", where, PsykerKind)
    level = r.integer(obj, "psyker_level", where, 0, 6, 0)
    if psyker is not None and level == 0:
        r.fail(f"{where}.psyker_level", "a psyker has a level from 1 to 6")
    if not (ident and name and faction and unit_class and faces):
        return None
    return Counter(
        id=ident,
        name=name,
        faction=faction,
        unit_class=unit_class,
        faces=tuple(faces),
        role=r.choice(obj, "role", where, Role, Role.BASIC) or Role.BASIC,
        footprint=footprint,
        character=r.flag(obj, "character", where),
        large=r.flag(obj, "large", where),
        hit_points=r.integer(obj, "hit_points", where, 0, 6, 0),
        psyker=psyker,
        psyker_level=level,
    )


def _armour(r: _Reader, raw: Any, where: str) -> ArmourSave | None:
    if raw is None:
        return None
    obj = r.obj(raw, where, frozenset({"value", "colour"}))
    value = r.integer(obj, "value", where, 2, 6)
    colour = r.choice(obj, "colour", where, ArmourColour)
    return ArmourSave(value, colour) if colour else None


def _tile(r: _Reader, raw: Any, where: str) -> Tile | None:
    obj = r.obj(raw, where, _TILE)
    ident = r.text(obj, "id", where)
    name = r.text(obj, "name", where, most=MAX_NAME)
    faction = r.choice(obj, "faction", where, Faction)
    kind = r.choice(obj, "kind", where, TileKind, TileKind.RECRUITMENT)
    slots: list[Slot] = []
    for i, s in enumerate(r.items(obj, "slots", where, 2)):  # 1 or 2 slots [L2271]
        sobj = r.obj(s, f"{where}.slots[{i}]", frozenset({"bands"}))
        slots.append(Slot(r.bands(sobj, "bands", f"{where}.slots[{i}]")))
    counters = r.ids(obj, "counters", where)
    if kind is not TileKind.AVIATION and not counters:
        r.fail(f"{where}.counters", "at least one counter")
    tile = Tile(
        id=ident,
        name=name,
        faction=faction or Faction.ORKS,
        kind=kind or TileKind.RECRUITMENT,
        cost=r.integer(obj, "cost", where, 0, MAX_POINTS),
        counters=counters,
        breaking_point=r.integer(obj, "breaking_point", where, 1, 20, 1),
        victory_points=r.integer(obj, "victory_points", where, 0, 50, 0),
        order_stars=r.integer(obj, "order_stars", where, 0, 10, 0),
        bands=r.bands(obj, "bands", where),
        slots=tuple(slots),
        armour_save=_armour(r, obj.get("armour_save"), f"{where}.armour_save"),
        damage_set=_damage_set_ref(r, obj, where),
        sniper_table=_sniper_table(r, obj, where),
    )
    return tile if ident and name and faction else None


MAX_SNIPER_ROWS = 6


def _sniper_table(
    r: _Reader, obj: Mapping[str, Any], where: str
) -> tuple[tuple[int, SniperEffect], ...] | None:
    """A tile's own sniper table [L1339-L1340]: 1 to 6 rows ``{"from": N, "effect": …}``,
    each row from its lowest modified result (-10..20, each once) up to the next row's."""
    if obj.get("sniper_table") is None:
        return None
    at = f"{where}.sniper_table"
    rows: list[tuple[int, SniperEffect]] = []
    raw = r.items(obj, "sniper_table", where, MAX_SNIPER_ROWS)
    if not raw:
        r.fail(at, f"1 to {MAX_SNIPER_ROWS} rows")
    for i, item in enumerate(raw):
        row_at = f"{at}[{i}]"
        row = r.obj(item, row_at, frozenset({"from", "effect"}))
        lowest = r.integer(row, "from", row_at, -10, 20)
        effect = r.choice(row, "effect", row_at, SniperEffect)
        if any(lowest == seen for seen, _ in rows):
            r.fail(f"{row_at}.from", "each row starts at a different result")
        elif effect is not None:
            rows.append((lowest, effect))
    return tuple(sorted(rows, reverse=True)) or None


def _damage_set_ref(r: _Reader, obj: Mapping[str, Any], where: str) -> str | None:
    """The id of the Damage set a tile or an option names (checked against the file's sets
    once everything is read)."""
    if obj.get("damage_set") is None:
        return None
    return r.text(obj, "damage_set", where) or None


def _template(r: _Reader, raw: Any, where: str) -> Template | None:
    """A template (note §8 item 25): ``id`` (the letter of the ability's symbol), ``cells``
    (the squares it covers, as offsets from its intercase, facing N), ``cv``, ``abilities``,
    ``dispersion`` (four intercase directions for the faces 1-4, or null) and ``distance``."""
    obj = r.obj(raw, where, frozenset({"id", "cells", "cv", "abilities", "dispersion", "distance"}))
    ident = r.text(obj, "id", where, most=8)
    cells = r.pairs(obj.get("cells", []), f"{where}.cells", MAX_TEMPLATE_CELLS)
    if not cells:
        r.fail(f"{where}.cells", "at least one square")
    elif any(max(abs(x), abs(y)) > MAX_TEMPLATE_REACH for x, y in cells):
        r.fail(f"{where}.cells", f"offsets from -{MAX_TEMPLATE_REACH} to {MAX_TEMPLATE_REACH}")
    dispersion: tuple[tuple[int, int], ...] | None = None
    raw_dispersion = obj.get("dispersion")
    if raw_dispersion is not None:
        pairs = r.pairs(raw_dispersion, f"{where}.dispersion", 4)
        if len(pairs) != 4 or any(max(abs(x), abs(y)) != 1 for x, y in pairs):
            r.fail(f"{where}.dispersion", "four unit directions ([dx, dy], -1 to 1), faces 1-4")
        else:
            dispersion = tuple(pairs)
    template = Template(
        id=ident,
        cells=tuple(dict.fromkeys(cells)),
        cv=_cv(r, obj.get("cv"), f"{where}.cv"),
        abilities=_abilities(r, obj, "abilities", where),
        dispersion=dispersion,
        distance=r.integer(obj, "distance", where, 0, MAX_TEMPLATE_REACH, 1),
    )
    return template if ident and cells else None


def _damage_set(r: _Reader, raw: Any, where: str) -> DamageSet | None:
    """A Damage set: ``id`` and ``faces``, six entries for the location results 1..6, each a
    marker name or ``{"marker", "number"}`` (a weapon marker's weapon number)."""
    obj = r.obj(raw, where, frozenset({"id", "faces"}))
    ident = r.text(obj, "id", where)
    raw_faces = obj.get("faces")
    if not isinstance(raw_faces, list) or len(raw_faces) != 6:
        r.fail(f"{where}.faces", "six markers, for the location results 1 to 6")
        return None
    faces: list[DamageFace] = []
    for i, item in enumerate(raw_faces):
        at = f"{where}.faces[{i}]"
        if isinstance(item, str):
            item = {"marker": item}
        fobj = r.obj(item, at, frozenset({"marker", "number"}))
        marker = r.choice(fobj, "marker", at, DamageMarker)
        number = r.integer(fobj, "number", at, 1, 9, 1)
        if marker is not None and marker not in WEAPON_MARKERS and "number" in fobj:
            r.fail(f"{at}.number", "only a weapon marker names a weapon number")
        if marker is not None:
            faces.append(DamageFace(marker, number))
    if not ident or len(faces) != 6:
        return None
    return DamageSet(ident, tuple(faces))


def _bonuses(r: _Reader, e: Mapping[str, Any], where: str) -> tuple[PoleBonus, ...]:
    """A Boss Pole's bonuses, each named once (note §8 item 28)."""
    out: list[PoleBonus] = []
    for i, item in enumerate(r.items(e, "bonuses", where, len(PoleBonus))):
        try:
            bonus = PoleBonus(item)
        except (ValueError, TypeError):
            r.fail(f"{where}.bonuses[{i}]", "dakka, boss, zag or grim")
            continue
        if bonus in out:
            r.fail(f"{where}.bonuses[{i}]", "each bonus once")
            continue
        out.append(bonus)
    return tuple(out)


def _option(r: _Reader, raw: Any, where: str) -> RecruitmentOption | None:
    obj = r.obj(raw, where, _OPTION)
    ident = r.text(obj, "id", where)
    name = r.text(obj, "name", where, most=MAX_NAME)
    faction = r.choice(obj, "faction", where, Faction)
    kind = r.choice(obj, "type", where, OptionType)
    equipment = ordnance = power = None
    if obj.get("equipment") is not None:
        at = f"{where}.equipment"
        e = r.obj(obj["equipment"], at, _EQUIPMENT)
        restriction: set[UnitClass] = set()
        for i, c in enumerate(r.items(e, "restriction", at, 3)):
            try:
                restriction.add(UnitClass(c))
            except ValueError:
                r.fail(f"{at}.restriction[{i}]", "infantry, light_vehicle or heavy_vehicle")
        equipment = Equipment(
            markers=r.integer(e, "markers", at, 0, 10, 0),
            restriction=frozenset(restriction),
            alternative=r.flag(e, "alternative", at),
            grants=_abilities(r, e, "grants", at),
            dv_bonus=r.integer(e, "dv_bonus", at, 0, 5, 0),
            mv_bonus=r.integer(e, "mv_bonus", at, 0, 5, 0),
            order_tokens=r.integer(e, "order_tokens", at, 0, 3, 0),
            armour_save=_armour(r, e.get("armour_save"), f"{at}.armour_save"),
            template=r.text(e, "template", at, most=8) if "template" in e else None,
            range=r.integer(e, "range", at, 1, MAX_TEMPLATE_REACH) if "range" in e else None,
            dv=r.integer(e, "dv", at, 1, 20) if e.get("dv") is not None else None,
            shot_bonus=r.integer(e, "shot_bonus", at, 0, 3, 0),
            assault_bonus=r.integer(e, "assault_bonus", at, 0, 3, 0),
            hull_suppressed=(
                r.integer(e, "hull_suppressed", at, 0, 2)
                if e.get("hull_suppressed") is not None
                else None
            ),
            reroll=r.flag(e, "reroll", at),
            aura=r.integer(e, "aura", at, 0, MAX_AURA) if e.get("aura") is not None else None,
            bonuses=_bonuses(r, e, at),
        )
    if obj.get("ordnance") is not None:
        at = f"{where}.ordnance"
        o = r.obj(obj["ordnance"], at, _ORDNANCE)
        ordnance = Ordnance(
            bluff_tokens=r.integer(o, "bluff_tokens", at, 0, 2, 0),
            special_tokens=r.integer(o, "special_tokens", at, 0, 2, 0),
            order_tokens=r.integer(o, "order_tokens", at, 0, 3, 0),
            extra_draw=r.integer(o, "extra_draw", at, 0, 3, 0),
        )
    if obj.get("power") is not None:
        at = f"{where}.power"
        p = r.obj(obj["power"], at, _POWER)
        psyker = r.choice(p, "psyker", at, PsykerKind)
        sight = p.get("line_of_sight", "none")
        if sight not in ("none", "clear", "clear_or_reduced"):
            r.fail(f"{at}.line_of_sight", "none, clear or clear_or_reduced")
        rng = p.get("range")
        power = PsychicPower(
            psyker=psyker or PsykerKind.LIBRARIAN,
            discipline=r.text(p, "discipline", at),
            cost=r.integer(p, "cost", at, 0, 6),
            line_of_sight=str(sight),
            range=None if rng is None else r.integer(p, "range", at, 0, 60),
            persistent=r.flag(p, "persistent", at),
            effect=None if p.get("effect") is None else r.choice(p, "effect", at, PowerEffect),
            template=None if p.get("template") is None else r.text(p, "template", at, most=8),
            cv=None if p.get("cv") is None else _cv(r, p["cv"], f"{at}.cv"),
            text=r.text(p, "text", at, most=MAX_CARD_TEXT) if p.get("text") is not None else "",
            dv_bonus=r.integer(p, "dv_bonus", at, 0, 3, 0),
        )
    needs = {
        OptionType.EQUIPMENT: ("equipment", equipment),
        OptionType.PERSONALISATION: ("equipment", equipment),
        OptionType.ORDNANCE: ("ordnance", ordnance),
        OptionType.PSYCHIC_POWER: ("power", power),
    }
    if kind in needs and needs[kind][1] is None:
        r.fail(f"{where}.{needs[kind][0]}", f"a {kind.value} option describes its {needs[kind][0]}")
    counters = r.ids(obj, "counters", where)
    if kind is OptionType.SUPPORT and not counters:
        r.fail(f"{where}.counters", "a support option adds at least one counter")
    if not (ident and name and faction and kind):
        return None
    return RecruitmentOption(
        id=ident,
        name=name,
        faction=faction,
        type=kind,
        cost=r.integer(obj, "cost", where, 0, MAX_POINTS),
        bands=r.bands(obj, "bands", where),
        counters=counters,
        replaces=r.ids(obj, "replaces", where),
        equipment=equipment,
        ordnance=ordnance,
        power=power,
        damage_set=_damage_set_ref(r, obj, where),
    )


def catalogue_from_dict(raw: Any) -> Catalogue:
    """Counters, tiles and options; raises one ``ProfileError`` listing every problem."""
    r = _Reader()
    obj = r.obj(
        raw,
        "",
        frozenset(
            {
                "format",
                "sample",
                "note",
                "counters",
                "tiles",
                "options",
                "damage_sets",
                "templates",
                "perils",
                "cards",
            }
        ),
    )
    if obj.get("format") != CATALOGUE_FORMAT:
        r.fail("format", f"{CATALOGUE_FORMAT!r}")
    r.note(obj, "")
    built: dict[str, dict[str, Any]] = {"counters": {}, "tiles": {}, "options": {}}
    # every item read, with its index in its list (an id used twice keeps both)
    read_at: dict[str, list[tuple[int, Any]]] = {"counters": [], "tiles": [], "options": []}
    readers: dict[str, Callable[[_Reader, Any, str], Any]] = {
        "counters": _counter,
        "tiles": _tile,
        "options": _option,
    }
    for part, read in readers.items():
        for i, item in enumerate(r.items(obj, part, "", MAX_ITEMS)):
            value = read(r, item, f"{part}[{i}]")
            if value is None:
                continue
            if value.id in built[part]:
                r.fail(f"{part}[{i}].id", f"{value.id!r} is used twice")
            built[part][value.id] = value
            read_at[part].append((i, value))
    damage_sets: dict[str, DamageSet] = {}
    for i, item in enumerate(r.items(obj, "damage_sets", "", MAX_DAMAGE_SETS)):
        ds = _damage_set(r, item, f"damage_sets[{i}]")
        if ds is None:
            continue
        if ds.id in damage_sets:
            r.fail(f"damage_sets[{i}].id", f"{ds.id!r} is used twice")
        damage_sets[ds.id] = ds
    templates: dict[str, Template] = {}
    for i, item in enumerate(r.items(obj, "templates", "", MAX_TEMPLATES)):
        t = _template(r, item, f"templates[{i}]")
        if t is None:
            continue
        if t.id in templates:
            r.fail(f"templates[{i}].id", f"{t.id!r} is used twice")
        templates[t.id] = t
    perils: list[PerilsMarker] = []
    for i, item in enumerate(r.items(obj, "perils", "", 8)):
        at = f"perils[{i}]"
        pobj = r.obj(item, at, frozenset({"effect", "value", "count"}))
        effect = r.choice(pobj, "effect", at, PerilsEffect)
        value = r.integer(pobj, "value", at, 0, 3, 0)
        if effect in (PerilsEffect.STEPS, PerilsEffect.SUPPRESSED) and value == 0:
            r.fail(f"{at}.value", "1 to 3 (steps or Suppressed markers)")
        if effect is not None:
            perils.append(PerilsMarker(effect, value, r.integer(pobj, "count", at, 1, 6, 1)))
    if sum(m.count for m in perils) > MAX_PERILS:
        r.fail("perils", f"at most {MAX_PERILS} markers in the pool (one die draws one)")
    counters, tiles, options = built["counters"], built["tiles"], built["options"]
    # a template an ability or a power names but the file lacks is judged where it is used:
    # an army fielding it (no_template), the match refusing it; the file stays readable
    for part in ("tiles", "options"):
        for i, holder in read_at[part]:
            for j, cid in enumerate(holder.counters):
                if cid not in counters:
                    r.fail(f"{part}[{i}].counters[{j}]", f"no counter {cid!r}")
            if holder.damage_set is not None and holder.damage_set not in damage_sets:
                r.fail(f"{part}[{i}].damage_set", f"no damage set {holder.damage_set!r}")
    cards = _cards(r, obj)
    sample = r.flag(obj, "sample", "")
    r.raise_if_any()
    return Catalogue(
        counters,
        tiles,
        options,
        sample=sample,
        damage_sets=damage_sets,
        templates=templates,
        perils=tuple(perils),
        cards=cards,
    )


_CARD = frozenset({"id", "name", "faction", "copies", "bonus", "value", "event"})


def _cards(r: _Reader, obj: Mapping[str, Any]) -> tuple[ActionCard, ...]:
    """The factions' Action cards [L2068-L2202]: each with its Alternative Bonus (its +X, none
    for the armour save) and the Battle Event text the players typed in; at most
    :data:`MAX_DECK` copies per faction."""
    cards: list[ActionCard] = []
    for i, item in enumerate(r.items(obj, "cards", "", MAX_ITEMS)):
        at = f"cards[{i}]"
        cobj = r.obj(item, at, _CARD)
        ident = r.text(cobj, "id", at)
        if "#" in ident:
            r.fail(f"{at}.id", "no '#' in a card id")
        name = r.text(cobj, "name", at, most=MAX_NAME)
        faction = r.choice(cobj, "faction", at, Faction)
        bonus = r.choice(cobj, "bonus", at, BonusKind)
        copies = r.integer(cobj, "copies", at, 1, MAX_CARD_COPIES, 1)
        if bonus is BonusKind.ARMOUR_SAVE:
            value = r.integer(cobj, "value", at, 0, 0, 0)
        else:
            value = r.integer(cobj, "value", at, 1, MAX_CARD_VALUE)
        event = cobj.get("event", "")
        if not isinstance(event, str) or len(event) > MAX_CARD_TEXT:
            r.fail(f"{at}.event", f"a text of at most {MAX_CARD_TEXT} characters")
            event = ""
        if any(c.id == ident for c in cards):
            r.fail(f"{at}.id", f"{ident!r} is used twice")
        if ident and name and faction and bonus:
            cards.append(ActionCard(ident, name, faction, bonus, value, copies, event))
    for faction in Faction:
        if sum(c.copies for c in cards if c.faction is faction) > MAX_DECK:
            r.fail("cards", f"at most {MAX_DECK} cards in the {faction.value} deck")
    return tuple(cards)


# -- armies -----------------------------------------------------------------------------------


def _fielded(r: _Reader, raw: Any, where: str, depth: int) -> Fielded | None:
    obj = r.obj(raw, where, frozenset({"tile", "slots"}))
    tile = r.text(obj, "tile", where)
    slots: list[Filled] = []
    for i, s in enumerate(r.items(obj, "slots", where, 2)):
        at = f"{where}.slots[{i}]"
        sobj = r.obj(s, at, frozenset({"slot", "option", "tile"}))
        slot = r.integer(sobj, "slot", at, 0, 1)
        has_option, has_tile = "option" in sobj, "tile" in sobj
        if has_option == has_tile:
            r.fail(at, "either an option or a support tile")
            continue
        if has_option:
            slots.append(Filled(slot, option=r.text(sobj, "option", at)))
        elif depth >= 4:
            r.fail(at, "support tiles nest at most 4 deep")
        else:
            inner = _fielded(r, sobj["tile"], f"{at}.tile", depth + 1)
            if inner is not None:
                slots.append(Filled(slot, fielded=inner))
    return Fielded(tile, tuple(slots)) if tile else None


def _army(r: _Reader, raw: Any, where: str) -> Army | None:
    obj = r.obj(raw, where, frozenset({"faction", "tiles"}))
    faction = r.choice(obj, "faction", where, Faction)
    tiles = [
        f
        for i, t in enumerate(r.items(obj, "tiles", where, MAX_LIST))
        if (f := _fielded(r, t, f"{_at(where, 'tiles')}[{i}]", 0)) is not None
    ]
    return Army(faction, tuple(tiles)) if faction else None


def army_from_dict(raw: Any) -> Army:
    """An army list (its shape only; :func:`~.armies.validate_army` judges it)."""
    r = _Reader()
    army = _army(r, raw, "")
    r.raise_if_any()
    assert army is not None
    return army


# -- scenarios --------------------------------------------------------------------------------

_SCENARIO = frozenset(
    {
        "format",
        "id",
        "name",
        "sample",
        "note",
        "turns",
        "hand_size",
        "first_initiative",
        "vp_to_win",
        "board",
        "sides",
        "objectives",
    }
)


def _placed(r: _Reader, raw: Any, where: str, boards: Mapping[str, Board]) -> Placed | None:
    obj = r.obj(raw, where, frozenset({"board", "offset", "rotation", "prefix"}))
    name = r.text(obj, "board", where)
    offset = r.pair(obj.get("offset", [0, 0]), f"{where}.offset")
    rotation = r.integer(obj, "rotation", where, 0, 270, 0)
    if rotation % 90:
        r.fail(f"{where}.rotation", "0, 90, 180 or 270")
        return None
    prefix = obj.get("prefix", "")
    if not isinstance(prefix, str) or len(prefix) > 16:
        r.fail(f"{where}.prefix", "a text of at most 16 characters")
        return None
    if name and name not in boards:
        r.fail(f"{where}.board", f"no board {name!r}")
        return None
    if not name or offset is None:
        return None
    return Placed(boards[name], offset, rotation, prefix)


def scenario_from_dict(
    raw: Any,
    catalogue: Catalogue,
    boards: Mapping[str, Board],
    *,
    tolerate: frozenset[str] = frozenset(),
) -> Scenario:
    """A scenario over ``catalogue`` and the named ``boards``; raises one ``ProfileError``
    listing every problem, its forces' army violations included, except those whose code is
    in ``tolerate`` (a match replaying a log passes :data:`~.armies.CHECKED_AT_USE`: it refuses
    them where they are used)."""
    r = _Reader()
    obj = r.obj(raw, "", _SCENARIO)
    if obj.get("format") != SCENARIO_FORMAT:
        r.fail("format", f"{SCENARIO_FORMAT!r}")
    r.note(obj, "")
    ident = r.text(obj, "id", "")
    name = r.text(obj, "name", "", most=MAX_NAME)
    turns = r.integer(obj, "turns", "", 1, MAX_TURNS)
    hand = r.integer(obj, "hand_size", "", 0, MAX_HAND)
    vp_raw = obj.get("vp_to_win")
    vp_to_win = None if vp_raw is None else r.integer(obj, "vp_to_win", "", 1, 500)
    # the battlefield
    bobj = r.obj(obj.get("board"), "board", frozenset({"name", "boards", "tiles"}))
    placed = [
        p
        for i, b in enumerate(r.items(bobj, "boards", "board", 8))
        if (p := _placed(r, b, f"board.boards[{i}]", boards)) is not None
    ]
    tiles = [
        p
        for i, b in enumerate(r.items(bobj, "tiles", "board", MAX_LIST))
        if (p := _placed(r, b, f"board.tiles[{i}]", boards)) is not None
    ]
    board: Board | None = None
    if not placed and not r.problems:
        r.fail("board.boards", "at least one board")
    elif placed:
        try:
            board = assemble(r.text(bobj, "name", "board", most=MAX_NAME), placed, tiles)
        except ValueError as exc:
            r.fail("board", str(exc))
    # the sides
    sides: list[Side] = []
    raw_sides = r.items(obj, "sides", "", 2)
    if len(raw_sides) != 2:
        r.fail("sides", "exactly two sides")
    for i, s in enumerate(raw_sides):
        at = f"sides[{i}]"
        sobj = r.obj(s, at, frozenset({"id", "points", "deployment", "army"}))
        sid = r.text(sobj, "id", at)
        pts_raw = sobj.get("points")
        points = None if pts_raw is None else r.integer(sobj, "points", at, 0, MAX_POINTS)
        zone = r.squares(sobj.get("deployment", []), f"{at}.deployment")
        if not zone:
            r.fail(f"{at}.deployment", "at least one square")
        if board is not None and not zone <= board.squares:
            r.fail(f"{at}.deployment", "every square on the battlefield")
        army = _army(r, sobj.get("army"), f"{at}.army")
        if army is not None:
            for v in validate_army(army, catalogue, points):
                if v.code in tolerate:
                    continue
                r.fail(f"{at}.army.{v.where}", f"{v.code}: {v.message}")
        if sid and army is not None:
            sides.append(Side(sid, army, points, zone))
    if len(sides) == 2 and sides[0].id == sides[1].id:
        r.fail("sides[1].id", "the two sides need different ids")
    if len(sides) == 2 and sides[0].deployment & sides[1].deployment:
        r.fail("sides[1].deployment", "deployment zones may not overlap")
    first = r.text(obj, "first_initiative", "")
    if first and first not in {s.id for s in sides} and len(sides) == 2:
        r.fail("first_initiative", "the id of one of the sides")
    # the objectives
    objectives: list[Objective] = []
    for i, o in enumerate(r.items(obj, "objectives", "", MAX_LIST)):
        at = f"objectives[{i}]"
        oobj = r.obj(o, at, frozenset({"id", "squares", "vp", "wins"}))
        squares = r.squares(oobj.get("squares", []), f"{at}.squares")
        if not squares:
            r.fail(f"{at}.squares", "at least one square")
        elif board is not None and not squares <= board.squares:
            r.fail(f"{at}.squares", "every square on the battlefield")
        objectives.append(
            Objective(
                r.text(oobj, "id", at),
                squares,
                r.integer(oobj, "vp", at, 0, 100, 0),
                r.flag(oobj, "wins", at),
            )
        )
    if len({o.id for o in objectives}) != len(objectives):
        r.fail("objectives", "each objective id once")
    sample = r.flag(obj, "sample", "")
    r.raise_if_any()
    assert board is not None
    return Scenario(
        id=ident,
        name=name,
        board=board,
        sides=(sides[0], sides[1]),
        objectives=tuple(objectives),
        turns=turns,
        hand_size=hand,
        first_initiative=first,
        vp_to_win=vp_to_win,
        catalogue=catalogue,
        sample=sample,
    )


# -- the sample files -------------------------------------------------------------------------


def load_sample_catalogue(path: Path | None = None) -> Catalogue:
    """Our own sample counters, tiles and options (``data/black_reach/forces.json``)."""
    return catalogue_from_dict(parse_json((path or DATA_DIR / "forces.json").read_bytes()))


def load_sample_scenarios(directory: Path | None = None) -> dict[str, Scenario]:
    """Our own sample scenarios (``data/black_reach/scenarios/*.json``), by id."""
    catalogue = load_sample_catalogue()
    boards = load_sample_boards()
    out: dict[str, Scenario] = {}
    for path in sorted((directory or DATA_DIR / "scenarios").glob("*.json")):
        try:
            scenario = scenario_from_dict(parse_json(path.read_bytes()), catalogue, boards)
        except ProfileError as exc:
            raise exc.with_prefix(path.name) from exc
        out[scenario.id] = scenario
    return out
