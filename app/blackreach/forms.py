"""The friendly forms: a counter, a tile, an option or a scenario typed in fields, not JSON.

Each form's field names are the JSON paths of what they fill, relative to the item
(``faces[0].dv``, ``sides[1].points``, ``sniper_table[2].effect``, ``power.cv.infantry``), so
that the engine's located problems land beside the field they are about. An optional field
left blank drops its key (the loader's default applies); a field every item has (an id, a
name, a faction, a type, a cost) is written even blank, as ``""`` or ``null``, for the engine
to name it. An option keeps only the block its type uses (equipment for equipment and
personalisation, ordnance, power) and drops the others, whatever they held; the block its type
uses is written even when its fields are blank. A form only changes the fields it shows:
saving over an existing item (same id) keeps everything else it had (a face's weapons, a
tile's slots, a side's options), and a field sent back as it was shown keeps the stored value
exactly, even one the field cannot spell (a band name with a comma, a name with spaces around
it, an ability value with ``=`` in it). A number that is not one (``3.5``, ``٣``, ``1_0``) is
passed to the engine as typed, which names the field it refuses.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.core.i18n import gettext as _
from app.engine.black_reach.board import UnitClass
from app.engine.black_reach.cards import MAX_CARD_TEXT
from app.engine.black_reach.forces import (
    FaceKind,
    Faction,
    OptionType,
    PoleBonus,
    PowerEffect,
    PsykerKind,
    Role,
    StepLoss,
    TileKind,
)
from app.engine.black_reach.loaders import MAX_SNIPER_ROWS, POWER_FIELDS, SCENARIO_FORMAT
from app.engine.black_reach.tables import ArmourColour, SniperEffect

CLASSES: tuple[str, ...] = tuple(c.value for c in UnitClass)
FACTIONS: tuple[str, ...] = tuple(f.value for f in Faction)
FACE_KINDS: tuple[str, ...] = tuple(k.value for k in FaceKind)
ROLES: tuple[str, ...] = tuple(r.value for r in Role)
STEP_LOSSES: tuple[str, ...] = tuple(s.value for s in StepLoss)
TILE_KINDS: tuple[str, ...] = tuple(k.value for k in TileKind)
OPTION_TYPES: tuple[str, ...] = tuple(t.value for t in OptionType)
POWER_EFFECTS: tuple[str, ...] = tuple(e.value for e in PowerEffect)
PSYKERS: tuple[str, ...] = tuple(k.value for k in PsykerKind)
SIGHTS: tuple[str, ...] = ("none", "clear", "clear_or_reduced")  # the loader's three
ARMOUR_COLOURS: tuple[str, ...] = tuple(c.value for c in ArmourColour)
SNIPER_EFFECTS: tuple[str, ...] = tuple(e.value for e in SniperEffect)
POLE_BONUSES: tuple[str, ...] = tuple(b.value for b in PoleBonus)
FORM_FACES = 2
FORM_OBJECTIVES = 3
FORM_SNIPER_ROWS = MAX_SNIPER_ROWS  # every row a tile's table may have
POWER_TEXT = MAX_CARD_TEXT  # a power's text (Telekinetic Dome), as the loader bounds it
# the numbers of an option's equipment, ordnance and power that the form shows as fields
EQUIPMENT_NUMBERS = (
    "markers",
    "dv",
    "dv_bonus",
    "mv_bonus",
    "order_tokens",
    "shot_bonus",
    "assault_bonus",
    "range",
    "hull_suppressed",
    "aura",
)
ORDNANCE_NUMBERS = ("bluff_tokens", "special_tokens", "order_tokens", "extra_draw")


class FormData:
    """The submitted fields: one value each, or all of a multi-select."""

    def __init__(self, single: Mapping[str, str], multi: Mapping[str, Sequence[str]]) -> None:
        self._single = single
        self._multi = multi
        # what the form itself refuses (a field it cannot read without guessing), by field
        self.problems: list[tuple[str, str]] = []

    def refuse(self, name: str, message: str) -> None:
        self.problems.append((name, message))

    def text(self, name: str) -> str:
        return self._single.get(name, "").strip()

    def raw(self, name: str) -> str:
        """The value exactly as sent (an id with spaces around it finds its item)."""
        return self._single.get(name, "")

    def values(self, name: str) -> list[str]:
        return [v for v in self._multi.get(name, ()) if v]


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


_INTEGER = re.compile(r"[+-]?[0-9]{1,12}")


def _number(raw: str) -> int | str | None:
    """Blank: None; a whole number in ASCII digits: itself; anything else (``٣``, ``1_0``,
    which Python's ``int`` would read): the text, for the engine to refuse."""
    if not raw:
        return None
    return int(raw) if _INTEGER.fullmatch(raw) else raw


def _kept(form: FormData, name: str, old: Any) -> str:
    """The text typed, or the stored text when the field came back as it was shown (the form
    strips the spaces around what is typed; a stored name keeps its own)."""
    typed = form.text(name)
    return old if isinstance(old, str) and old.strip() == typed else typed


def _put(target: dict[str, Any], key: str, value: Any) -> None:
    """Set a field, or drop it when the form leaves it blank (the engine's default applies)."""
    if value is None or value == "":
        target.pop(key, None)
    else:
        target[key] = value


def _params(form: FormData, name: str, chosen: Sequence[str]) -> dict[str, int | str]:
    """``assault=2, limited_range=4``: the number or letter of each ability's symbol. A part
    the field cannot read without guessing (no ``=``, two of them, no id or no value, an id
    given twice, an ability not chosen) is refused beside the field, never dropped."""
    out: dict[str, int | str] = {}
    for part in form.text(name).replace(";", ",").split(","):
        if not part.strip():
            continue
        ident, sep, value = (p.strip() for p in part.partition("="))
        if not (sep and ident and value) or "=" in value:
            form.refuse(
                name,
                _("%(part)s: write each value as id=value, the values separated by commas")
                % {"part": part.strip()},
            )
        elif ident in out:
            form.refuse(name, _("%(id)s: its value is given twice") % {"id": ident})
        elif ident not in chosen:
            form.refuse(
                name, _("%(id)s: a value for an ability that is not chosen") % {"id": ident}
            )
        else:
            parsed = _number(value)
            out[ident] = value if parsed is None else parsed
    return out


def _ability_params(abilities: Any) -> str:
    if not isinstance(abilities, list):
        return ""
    return ", ".join(
        f"{a['id']}={a['param']}"
        for a in abilities
        if isinstance(a, dict) and a.get("param") is not None and "id" in a
    )


def _abilities_of(form: FormData, name: str, params_name: str, old: Any) -> list[dict[str, Any]]:
    """The abilities chosen in a multi-select, each with its number from the values field, in
    the order the item listed them (a browser sends the select's order), new ones after. The
    values field sent back as it was shown keeps each stored value exactly (a text value
    ``"3"`` stays a text, one with ``,`` or ``=`` in it stays whole)."""
    before = [a.get("id") for a in _list(old) if isinstance(a, dict)]
    chosen = sorted(
        dict.fromkeys(form.values(name)),
        key=lambda a: before.index(a) if a in before else len(before),
    )
    if form.text(params_name) == _ability_params(old).strip():
        params = {
            a["id"]: a["param"]
            for a in _list(old)
            if isinstance(a, dict) and a.get("param") is not None and "id" in a
        }
    else:
        params = _params(form, params_name, chosen)
    return [{"id": a, "param": params[a]} if a in params else {"id": a} for a in chosen]


def _blank(value: Any) -> Any:
    return "" if value is None else value


def _cv_of(form: FormData, at: str) -> dict[str, int | str | None]:
    return {c: _number(form.text(f"{at}.{c}")) for c in CLASSES}


def _cv_kept(form: FormData, at: str, old: Any) -> dict[str, Any]:
    """The CVs typed; the stored ones exactly when every field came back as shown (a class
    left out, ``{}`` for a wreck, stays left out rather than written ``null``)."""
    cv = _cv_of(form, at)
    same = isinstance(old, dict) and set(old) <= set(CLASSES)
    if same and all(cv[c] == old.get(c) for c in CLASSES):
        return copy.deepcopy(old)
    return cv


def _chosen(form: FormData, name: str, old: Any) -> list[str]:
    """The ids chosen in a multi-select, in the stored list's order and with its repeats (a
    mob of two Boyz counters: a select can show each id once only), new ones after."""
    chosen = form.values(name)
    before = [i for i in _list(old) if isinstance(i, str)]
    return [i for i in before if i in chosen] + [i for i in chosen if i not in before]


def _cv_fields(cv: Any, at: str) -> dict[str, Any]:
    values = _dict(cv)
    return {f"{at}.{c}": _blank(values.get(c)) for c in CLASSES}


def _armour_of(form: FormData, at: str) -> dict[str, Any] | None:
    """An armour save (``{"value": 4, "colour": "green"}``); both fields blank: none."""
    armour: dict[str, Any] = {}
    _put(armour, "value", _number(form.text(f"{at}.value")))
    _put(armour, "colour", form.text(f"{at}.colour"))
    return armour or None


def _armour_fields(armour: Any, at: str) -> dict[str, Any]:
    values = _dict(armour)
    return {f"{at}.value": _blank(values.get("value")), f"{at}.colour": values.get("colour", "")}


def _words(raw: str) -> list[str]:
    """``blue, gold``: the band colour names of a tile or an option."""
    return [w.strip() for w in raw.replace(";", ",").split(",") if w.strip()]


def _bands_text(bands: Any) -> str:
    return ", ".join(str(b) for b in _list(bands))


def _bands_of(form: FormData, old: Any) -> list[Any] | None:
    """The bands typed; the stored ones exactly when the field came back as it was shown (a
    band name with a comma in it is not split, a band left as it was stays in its place)."""
    typed = form.text("bands")
    if isinstance(old, list) and typed == _bands_text(old).strip():
        return old
    return _words(typed) or None


def _text_block(raw: str) -> str:
    """A textarea's text with the browser's CRLF line ends as one character each, so that the
    loader counts what the field's ``maxlength`` counted."""
    return raw.replace("\r\n", "\n").replace("\r", "\n")


def item_id(form: FormData, existing: Mapping[str, Any] | None) -> str:
    """The id typed: the stored one exactly when it was sent back as shown (spaces around it
    and all), so that saving edits that item instead of adding a second one."""
    if existing is not None and existing.get("id") == form.raw("id"):
        return form.raw("id")
    return form.text("id")


def find_typed(items: Any, form: FormData) -> tuple[int, dict[str, Any] | None]:
    """The item the form's id names: the one with that id exactly as sent (an id with spaces
    around it, typed in the JSON editor), else the one with the id typed, spaces stripped."""
    index, found = find(items, form.raw("id"))
    if found is not None:
        return index, found
    return find(items, form.text("id"))


def find(items: Any, ident: str) -> tuple[int, dict[str, Any] | None]:
    """The index and item with that id in a list (the list's length and None if none)."""
    if not isinstance(items, list):
        return 0, None
    for i, item in enumerate(items):
        if isinstance(item, dict) and item.get("id") == ident:
            return i, item
    return len(items), None


# -- counters ---------------------------------------------------------------------------------


def counter_from_form(form: FormData, existing: dict[str, Any] | None) -> dict[str, Any]:
    counter = copy.deepcopy(existing) if existing else {}
    counter["id"] = item_id(form, existing)
    counter["name"] = _kept(form, "name", counter.get("name"))
    counter["faction"] = form.text("faction")
    counter["class"] = form.text("class")
    _put(counter, "role", form.text("role"))
    old_faces = _list(counter.get("faces"))
    faces: list[Any] = []
    for i in range(FORM_FACES):
        at = f"faces[{i}]"
        kind = form.text(f"{at}.kind")
        if not kind:
            continue
        face = copy.deepcopy(old_faces[i]) if i < len(old_faces) else {}
        if not isinstance(face, dict):
            face = {}
        face["kind"] = kind
        face["dv"] = _number(form.text(f"{at}.dv"))
        face["mv"] = _number(form.text(f"{at}.mv"))  # blank: the blue "X"
        face["cv"] = _cv_kept(form, f"{at}.cv", face.get("cv"))
        abilities = _abilities_of(form, f"{at}.abilities", f"{at}.params", face.get("abilities"))
        _put(face, "abilities", abilities or None)
        _put(face, "on_step_loss", form.text(f"{at}.on_step_loss"))
        faces.append(face)
    counter["faces"] = faces + list(old_faces[FORM_FACES:])
    return counter


def counter_fields(counter: Mapping[str, Any] | None) -> dict[str, Any]:
    """The form's fields filled from a counter (to edit it)."""
    if not counter:
        return {}
    fields: dict[str, Any] = {
        k: counter.get(k, "") for k in ("id", "name", "faction", "class", "role")
    }
    faces = _list(counter.get("faces"))
    for i, face in enumerate(faces[:FORM_FACES]):
        if not isinstance(face, dict):
            continue
        at = f"faces[{i}]"
        fields[f"{at}.kind"] = face.get("kind", "")
        fields[f"{at}.dv"] = face.get("dv", "")
        fields[f"{at}.mv"] = "" if face.get("mv") is None else face["mv"]
        cv = _dict(face.get("cv"))
        for c in CLASSES:
            fields[f"{at}.cv.{c}"] = "" if cv.get(c) is None else cv[c]
        abilities = _list(face.get("abilities"))
        fields[f"{at}.abilities"] = [a.get("id") for a in abilities if isinstance(a, dict)]
        fields[f"{at}.params"] = _ability_params(abilities)
        fields[f"{at}.on_step_loss"] = face.get("on_step_loss", "")
    return fields


# -- tiles --------------------------------------------------------------------------------------


def tile_from_form(form: FormData, existing: dict[str, Any] | None) -> dict[str, Any]:
    tile = copy.deepcopy(existing) if existing else {}
    tile["id"] = item_id(form, existing)
    tile["name"] = _kept(form, "name", tile.get("name"))
    tile["faction"] = form.text("faction")
    _put(tile, "kind", form.text("kind"))
    tile["cost"] = _number(form.text("cost"))
    tile["counters"] = _chosen(form, "counters", tile.get("counters"))
    _put(tile, "breaking_point", _number(form.text("breaking_point")))
    _put(tile, "victory_points", _number(form.text("victory_points")))
    _put(tile, "order_stars", _number(form.text("order_stars")))
    _put(tile, "damage_set", form.text("damage_set"))  # its heavy vehicles' Damage set
    _put(tile, "armour_save", _armour_of(form, "armour_save"))
    _put(tile, "sniper_table", _sniper_table(form, tile.get("sniper_table")))
    return tile


def _sniper_table(form: FormData, old: Any) -> list[Any] | None:
    """The rows typed (a row left blank is no row), then any the form could not show; no row
    at all: no table of the tile's own (the rulebook's applies, rulings 125)."""
    rows: list[Any] = []
    for i in range(FORM_SNIPER_ROWS):
        at = f"sniper_table[{i}]"
        row: dict[str, Any] = {}
        _put(row, "from", _number(form.text(f"{at}.from")))
        _put(row, "effect", form.text(f"{at}.effect"))
        if row:
            rows.append(row)
    rest = old[FORM_SNIPER_ROWS:] if isinstance(old, list) else []
    return (rows + rest) or None


def _sniper_fields(table: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for i, row in enumerate(_list(table)[:FORM_SNIPER_ROWS]):
        if isinstance(row, dict):
            fields[f"sniper_table[{i}].from"] = _blank(row.get("from"))
            fields[f"sniper_table[{i}].effect"] = row.get("effect", "")
    return fields


def tile_fields(tile: Mapping[str, Any] | None) -> dict[str, Any]:
    if not tile:
        return {}
    fields: dict[str, Any] = {
        k: tile.get(k, "")
        for k in (
            "id",
            "name",
            "faction",
            "kind",
            "cost",
            "breaking_point",
            "victory_points",
            "order_stars",
            "damage_set",
        )
    }
    fields["counters"] = _list(tile.get("counters"))
    fields.update(_armour_fields(tile.get("armour_save"), "armour_save"))
    fields.update(_sniper_fields(tile.get("sniper_table")))
    return fields


# -- options ------------------------------------------------------------------------------------


def _equipment(form: FormData, old: Any, needed: bool) -> dict[str, Any] | None:
    """The option's equipment (rulings 126-128): kept whole when the option's type needs it,
    dropped when every field is blank and the type does not."""
    block = copy.deepcopy(_dict(old))
    for key in EQUIPMENT_NUMBERS:
        _put(block, key, _number(form.text(f"equipment.{key}")))
    restriction = _chosen(form, "equipment.restriction", block.get("restriction"))
    _put(block, "restriction", restriction or None)
    _put(block, "alternative", True if form.text("equipment.alternative") else None)
    # Purity Seals (rulings 153): unticked drops the key, but a stored false stays false
    ticked = True if form.text("equipment.reroll") else None
    _put(block, "reroll", ticked or (False if block.get("reroll") is False else None))
    grants = _abilities_of(form, "equipment.grants", "equipment.grants.params", block.get("grants"))
    _put(block, "grants", grants or None)
    _put(block, "template", form.text("equipment.template"))
    _put(block, "armour_save", _armour_of(form, "equipment.armour_save"))
    # a Boss Pole's bonuses (rulings 147): none chosen drops the key, but a stored [] stays
    old_bonuses = block.get("bonuses")
    bonuses = _chosen(form, "equipment.bonuses", old_bonuses)
    _put(block, "bonuses", bonuses or ([] if old_bonuses == [] else None))
    return block if block or needed else None


def _ordnance(form: FormData, old: Any, needed: bool) -> dict[str, Any] | None:
    block = copy.deepcopy(_dict(old))
    for key in ORDNANCE_NUMBERS:
        _put(block, key, _number(form.text(f"ordnance.{key}")))
    return block if block or needed else None


def _power(form: FormData, old: Any, needed: bool) -> dict[str, Any] | None:
    """A psychic power: its CVs (Killbolt, a Faisceau: rulings 129; every class blank: none,
    which the match refuses as ``no_cv``), its text and DV bonus (Telekinetic Dome, 130)."""
    block = copy.deepcopy(_dict(old))
    for key in ("psyker", "line_of_sight", "effect", "template"):
        _put(block, key, form.text(f"power.{key}"))
    _put(block, "discipline", _kept(form, "power.discipline", block.get("discipline")))
    for key in ("cost", "range", "dv_bonus"):
        _put(block, key, _number(form.text(f"power.{key}")))
    _put(block, "persistent", True if form.text("power.persistent") else None)
    old_cv = block.get("cv")
    cv = _cv_kept(form, "power.cv", old_cv)
    if cv != old_cv and not any(v is not None for v in cv.values()):
        _put(block, "cv", None)
    else:
        _put(block, "cv", cv)
    old_text = block.get("text")
    typed = _text_block(form.text("power.text"))
    same = isinstance(old_text, str) and _text_block(old_text).strip() == typed
    _put(block, "text", old_text if same else typed)
    return block if block or needed else None


# the block each type of option uses (the engine reads a block whatever the type: a power
# left on an ordnance option would still be manifested)
BLOCK_OF_TYPE: dict[str, str | None] = {
    OptionType.SUPPORT.value: None,
    OptionType.EQUIPMENT.value: "equipment",
    OptionType.PERSONALISATION.value: "equipment",
    OptionType.ORDNANCE.value: "ordnance",
    OptionType.PSYCHIC_POWER.value: "power",
}


def option_from_form(form: FormData, existing: dict[str, Any] | None) -> dict[str, Any]:
    """The option typed. A known type keeps only its own block (switching a power to ordnance
    drops the power); a type the engine does not know keeps every block as typed, for the
    engine to refuse the type without the form losing anything."""
    option = copy.deepcopy(existing) if existing else {}
    option["id"] = item_id(form, existing)
    option["name"] = _kept(form, "name", option.get("name"))
    option["faction"] = form.text("faction")
    kind = form.text("type")
    option["type"] = kind
    option["cost"] = _number(form.text("cost"))
    _put(option, "bands", _bands_of(form, option.get("bands")))
    _put(option, "counters", _chosen(form, "counters", option.get("counters")) or None)
    _put(option, "replaces", _chosen(form, "replaces", option.get("replaces")) or None)
    _put(option, "damage_set", form.text("damage_set"))
    builders = {"equipment": _equipment, "ordnance": _ordnance, "power": _power}
    known = kind in BLOCK_OF_TYPE
    for block, build in builders.items():
        used = BLOCK_OF_TYPE.get(kind) == block
        value = build(form, option.get(block), used) if used or not known else None
        _put(option, block, value)
    return option


def option_fields(option: Mapping[str, Any] | None) -> dict[str, Any]:
    """The option form's fields filled from an option (to edit it)."""
    if not option:
        return {}
    fields: dict[str, Any] = {
        k: _blank(option.get(k)) for k in ("id", "name", "faction", "type", "cost", "damage_set")
    }
    fields["bands"] = _bands_text(option.get("bands"))
    fields["counters"] = _list(option.get("counters"))
    fields["replaces"] = _list(option.get("replaces"))
    equipment = _dict(option.get("equipment"))
    for key in EQUIPMENT_NUMBERS:
        fields[f"equipment.{key}"] = _blank(equipment.get(key))
    fields["equipment.restriction"] = _list(equipment.get("restriction"))
    fields["equipment.alternative"] = equipment.get("alternative") is True
    fields["equipment.reroll"] = equipment.get("reroll") is True
    grants = _list(equipment.get("grants"))
    fields["equipment.grants"] = [a.get("id") for a in grants if isinstance(a, dict)]
    fields["equipment.grants.params"] = _ability_params(grants)
    fields["equipment.template"] = _blank(equipment.get("template"))
    fields.update(_armour_fields(equipment.get("armour_save"), "equipment.armour_save"))
    fields["equipment.bonuses"] = _list(equipment.get("bonuses"))
    ordnance = _dict(option.get("ordnance"))
    for key in ORDNANCE_NUMBERS:
        fields[f"ordnance.{key}"] = _blank(ordnance.get(key))
    power = _dict(option.get("power"))
    for key in ("psyker", "discipline", "line_of_sight", "effect", "template", "text"):
        fields[f"power.{key}"] = _blank(power.get(key))
    for key in ("cost", "range", "dv_bonus"):
        fields[f"power.{key}"] = _blank(power.get(key))
    fields["power.persistent"] = power.get("persistent") is True
    fields.update(_cv_fields(power.get("cv"), "power.cv"))
    return fields


# -- scenarios ----------------------------------------------------------------------------------


def _rect(form: FormData, at: str) -> dict[str, Any] | None:
    values = [_number(form.text(f"{at}.{k}")) for k in ("from_x", "from_y", "to_x", "to_y")]
    if all(v is None for v in values):
        return None
    fx, fy, tx, ty = (0 if v is None else v for v in values)
    return {"from": [fx, fy], "to": [tx, ty]}


def _rect_fields(squares: Any, at: str) -> dict[str, Any]:
    """The first square or rectangle of a list, in the form's four fields."""
    if not isinstance(squares, list) or not squares:
        return {}
    first = squares[0]
    if isinstance(first, dict):
        a, b = first.get("from"), first.get("to")
    else:
        a = b = first
    if not (isinstance(a, list) and isinstance(b, list) and len(a) == 2 and len(b) == 2):
        return {}
    return {f"{at}.from_x": a[0], f"{at}.from_y": a[1], f"{at}.to_x": b[0], f"{at}.to_y": b[1]}


def _squares(rect: dict[str, Any] | None, old: Any) -> list[Any]:
    """The form's rectangle first, then the other squares the item had (the form shows one)."""
    rest = old[1:] if isinstance(old, list) else []
    return ([rect] if rect else []) + rest


def _army(side_id: str, tiles: list[str], old: Any) -> dict[str, Any]:
    """The tiles chosen: each one the side fielded already kept with what fills its slots, in
    its place and as often as it was fielded (a select shows each tile once), new ones after."""
    fielded = old.get("tiles") if isinstance(old, dict) else None
    before = [f for f in (fielded if isinstance(fielded, list) else []) if isinstance(f, dict)]
    known = {f.get("tile") for f in before}
    kept = [f for f in before if f.get("tile") in tiles]
    added = [{"tile": t, "slots": []} for t in dict.fromkeys(tiles) if t not in known]
    return {"faction": side_id, "tiles": kept + added}


def scenario_from_form(form: FormData, existing: dict[str, Any] | None) -> dict[str, Any]:
    scenario: dict[str, Any] = copy.deepcopy(existing) if existing else {}
    scenario["format"] = SCENARIO_FORMAT
    scenario["id"] = item_id(form, existing)
    scenario["name"] = _kept(form, "name", scenario.get("name"))
    scenario["turns"] = _number(form.text("turns"))
    scenario["hand_size"] = _number(form.text("hand_size"))
    _put(scenario, "vp_to_win", _number(form.text("vp_to_win")))
    scenario["first_initiative"] = form.text("first_initiative")
    board = form.text("board")
    old_board = _dict(scenario.get("board"))
    placed = _list(old_board.get("boards"))
    same = bool(placed) and isinstance(placed[0], dict) and placed[0].get("board") == board
    if not same:  # a new battlefield of one board (an assembly of several: edit the JSON)
        scenario["board"] = {"name": board, "boards": [{"board": board}]} if board else {}
    old_sides = _list(scenario.get("sides"))
    sides = []
    for i in range(2):
        at = f"sides[{i}]"
        old = old_sides[i] if i < len(old_sides) and isinstance(old_sides[i], dict) else {}
        side = copy.deepcopy(old)
        side["id"] = form.text(f"{at}.id")
        _put(side, "points", _number(form.text(f"{at}.points")))
        side["deployment"] = _squares(_rect(form, f"{at}.deployment"), old.get("deployment"))
        side["army"] = _army(side["id"], form.values(f"{at}.tiles"), old.get("army"))
        sides.append(side)
    scenario["sides"] = sides
    old_objectives = scenario.get("objectives")
    old_by_row = old_objectives if isinstance(old_objectives, list) else []
    objectives = []
    for k in range(FORM_OBJECTIVES):
        at = f"objectives[{k}]"
        ident = form.text(f"{at}.id")
        if not ident:
            continue
        old = old_by_row[k] if k < len(old_by_row) and isinstance(old_by_row[k], dict) else {}
        objective = copy.deepcopy(old)
        objective["id"] = _kept(form, f"{at}.id", old.get("id"))
        objective["squares"] = _squares(_rect(form, f"{at}.squares"), old.get("squares"))
        _put(objective, "vp", _number(form.text(f"{at}.vp")))
        _put(objective, "wins", True if form.text(f"{at}.wins") else None)
        objectives.append(objective)
    scenario["objectives"] = objectives + old_by_row[FORM_OBJECTIVES:]
    return scenario


def scenario_fields(scenario: Mapping[str, Any] | None) -> dict[str, Any]:
    if not scenario:
        return {}
    fields: dict[str, Any] = {
        k: "" if scenario.get(k) is None else scenario.get(k)
        for k in ("id", "name", "turns", "hand_size", "vp_to_win", "first_initiative")
    }
    board = _dict(scenario.get("board"))
    placed = _list(board.get("boards"))
    if placed and isinstance(placed[0], dict):
        fields["board"] = placed[0].get("board", "")
    sides = _list(scenario.get("sides"))
    for i, side in enumerate(sides[:2]):
        if not isinstance(side, dict):
            continue
        at = f"sides[{i}]"
        fields[f"{at}.id"] = side.get("id", "")
        fields[f"{at}.points"] = "" if side.get("points") is None else side["points"]
        fields.update(_rect_fields(side.get("deployment"), f"{at}.deployment"))
        army = _dict(side.get("army"))
        fielded = _list(army.get("tiles"))
        fields[f"{at}.tiles"] = [f.get("tile") for f in fielded if isinstance(f, dict)]
    objectives = scenario.get("objectives")
    for k, objective in enumerate(
        objectives[:FORM_OBJECTIVES] if isinstance(objectives, list) else []
    ):
        if not isinstance(objective, dict):
            continue
        at = f"objectives[{k}]"
        fields[f"{at}.id"] = objective.get("id", "")
        fields[f"{at}.vp"] = objective.get("vp", "")
        fields[f"{at}.wins"] = bool(objective.get("wins"))
        fields.update(_rect_fields(objective.get("squares"), f"{at}.squares"))
    return fields


def _under(field: str, prefix: str) -> bool:
    return field == prefix or field.startswith((prefix + ".", prefix + "["))


def _face_fields() -> tuple[str, ...]:
    names = ("kind", "dv", "mv", "cv", "abilities", "params", "on_step_loss")
    return tuple(f"faces[{i}].{n}" for i in range(FORM_FACES) for n in names)


def _side_fields() -> tuple[str, ...]:
    sides = tuple(
        f"sides[{i}].{n}" for i in range(2) for n in ("id", "points", "deployment", "army")
    )
    objectives = tuple(
        f"objectives[{k}].{n}" for k in range(FORM_OBJECTIVES) for n in ("id", "squares", "vp")
    )
    return sides + objectives


def _option_fields() -> tuple[str, ...]:
    equipment = (
        *EQUIPMENT_NUMBERS,
        "restriction",
        "alternative",
        "reroll",
        "grants",
        "template",
        "armour_save",
        "bonuses",
    )
    return (
        *(f"equipment.{k}" for k in equipment),
        *(f"ordnance.{k}" for k in ORDNANCE_NUMBERS),
        *(f"power.{k}" for k in POWER_FIELDS),
    )


# What each form shows beside a field: the fields (and everything inside them), and the
# places whose own problem (not their insides') is shown where the form draws them.
SHOWN: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "counter": (
        ("id", "name", "faction", "class", "role", *_face_fields()),
        ("", "faces", *(f"faces[{i}]" for i in range(FORM_FACES))),
    ),
    "tile": (
        (
            "id",
            "name",
            "faction",
            "kind",
            "cost",
            "counters",
            "breaking_point",
            "victory_points",
            "order_stars",
            "damage_set",
            "armour_save",
            "sniper_table",
        ),
        ("",),
    ),
    "option": (
        (
            "id",
            "name",
            "faction",
            "type",
            "cost",
            "bands",
            "counters",
            "replaces",
            "damage_set",
            *_option_fields(),
        ),
        ("", "equipment", "ordnance", "power"),
    ),
    "scenario": (
        (
            "format",
            "id",
            "name",
            "board",
            "turns",
            "hand_size",
            "vp_to_win",
            "first_initiative",
            *_side_fields(),
        ),
        ("", "sides", "objectives"),
    ),
}


@dataclass(frozen=True, slots=True)
class Located:
    """The problems of one item, keyed by their path relative to it ("" for the item);
    ``elsewhere``: those of other items (a change can break something elsewhere) and those of
    fields the form does not show, each with its path."""

    by_field: dict[str, list[str]]
    elsewhere: tuple[tuple[str, str], ...] = ()

    def under(self, prefix: str) -> list[str]:
        """The messages of a field and of everything inside it."""
        return [m for f, ms in self.by_field.items() if _under(f, prefix) for m in ms]

    def exactly(self, name: str) -> list[str]:
        """The messages of that place itself (a face, the sides), not of its fields."""
        return list(self.by_field.get(name, ()))


def locate(problems: Sequence[tuple[str, str]], prefix: str, form: str) -> Located:
    """The problems under ``prefix`` (``forces.counters[3]``), relative to it, that the form
    shows beside a field; every other one in ``elsewhere`` with its full path."""
    fields, places = SHOWN[form]
    out: dict[str, list[str]] = {}
    elsewhere: list[tuple[str, str]] = []
    for field, message in problems:
        if _under(field, prefix):
            key = field[len(prefix) :].removeprefix(".")
            if key in places or any(_under(key, f) for f in fields):
                out.setdefault(key, []).append(message)
                continue
        elsewhere.append((field, message))
    return Located(out, tuple(elsewhere))
