"""The 10th-edition calculator form: weapon rows, the target (with optional model groups), the
situation, and the presets of ``data/profiles/wh40k10e.json``.

Query parameters (documented in docs/api-combat.md):

- ``w<i>.<field>`` for weapon row ``i`` (0-based): ``models``, ``name``, ``kind``, ``attacks``,
  ``skill`` (``3`` or ``3+``; empty for Torrent), ``strength``, ``ap``, ``damage``,
  ``abilities`` (comma-separated);
- ``t.<field>`` for the target: ``models``, ``toughness``, ``save``, ``wounds``,
  ``invulnerable_save``, ``feel_no_pain`` (empty for none), ``keywords`` (comma-separated);
- ``g<i>.<field>`` for extra model groups of the target: ``name``, ``models``, ``wounds``,
  ``save``, ``invulnerable_save``, ``feel_no_pain``, ``keywords``;
- ``s.<field>`` for the situation (booleans are present or absent);
- edits: ``add=weapon|group``, ``remove=w<i>|g<i>``, ``w<i>.preset=<id>``, ``t.preset=<id>``
  (answered with a redirect to the edited, canonical query).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from app.combat.forms import (
    CalculatorForm,
    FieldError,
    FormState,
    last_values,
    parse_int,
    parse_list,
    parse_roll_value,
)
from app.combat.forms.wh40k10e_words import words
from app.combat.rulesets.wh40k10e import SYSTEM_ID
from app.core.i18n import gettext as _
from app.core.i18n import lazy
from app.engine.wh40k10e import profiles as p
from app.engine.wh40k10e.allocation import MAIN_GROUP

WEAPON_FIELDS = (
    "models",
    "name",
    "kind",
    "attacks",
    "skill",
    "strength",
    "ap",
    "damage",
    "abilities",
)
TARGET_FIELDS = (
    "name",
    "models",
    "toughness",
    "save",
    "wounds",
    "invulnerable_save",
    "feel_no_pain",
    "keywords",
)
GROUP_FIELDS = ("name", "models", "wounds", "save", "invulnerable_save", "feel_no_pain", "keywords")
SITUATION_BOOLS = (
    ("half_range", lazy("Half range")),
    ("remained_stationary", lazy("Remained Stationary")),
    ("charged", lazy("Charged this turn")),
    ("cover", lazy("Benefit of Cover")),
    ("stealth", lazy("Stealth")),
    ("target_not_visible", lazy("Target not visible (Indirect Fire)")),
    ("overwatch", lazy("Fire Overwatch")),
    ("go_to_ground", lazy("Go to Ground")),
    ("smokescreen", lazy("Smokescreen")),
    ("big_guns_never_tire", lazy("Big Guns Never Tire")),
)
SITUATION_INTS = (  # name, label, lowest value (the highest is p.MAX_MODIFIER)
    ("hit_modifier", lazy("Hit roll modifier"), -p.MAX_MODIFIER),
    ("wound_modifier", lazy("Wound roll modifier"), -p.MAX_MODIFIER),
    ("save_modifier", lazy("Save modifier"), -p.MAX_MODIFIER),
    ("damage_modifier", lazy("Damage modifier"), -p.MAX_MODIFIER),
    ("damage_reduction", lazy("Damage reduction"), 0),
)
SITUATION_CHOICES = (
    ("reroll_hits", lazy("Re-roll hits"), ("none", "ones", "failed", "non_critical")),
    ("reroll_wounds", lazy("Re-roll wounds"), ("none", "ones", "failed", "non_critical")),
    ("reroll_saves", lazy("Re-roll saves"), ("none", "ones", "failed")),
    ("twin_linked_reroll", lazy("Twin-linked re-rolls"), ("failed", "non_critical")),
)
CHOICE_LABELS = {
    "none": lazy("No re-roll"),
    "ones": lazy("Re-roll 1s"),
    "failed": lazy("Re-roll failures"),
    "non_critical": lazy("Re-roll all but criticals"),
}
SITUATION_DEFAULTS = {
    "reroll_hits": "none",
    "reroll_wounds": "none",
    "reroll_saves": "none",
    "twin_linked_reroll": "failed",
}

# the picker of weapon abilities: the spellings of the BattleScribe data (and of the engine),
# with the usual values of X; any other value is typed in the field
ABILITY_CHOICES = (
    "Assault",
    "Heavy",
    "Pistol",
    "Torrent",
    "Blast",
    "Lethal Hits",
    "Devastating Wounds",
    "Twin-linked",
    "Lance",
    "Ignores Cover",
    "Indirect Fire",
    "Precision",
    "Hazardous",
    "Extra Attacks",
    "One Shot",
    "Psychic",
    "Rapid Fire 1",
    "Rapid Fire 2",
    "Rapid Fire D3",
    "Rapid Fire D6",
    "Sustained Hits 1",
    "Sustained Hits 2",
    "Sustained Hits D3",
    "Melta 2",
    "Melta 4",
    "Melta D3",
    "Anti-Infantry 4+",
    "Anti-Infantry 2+",
    "Anti-Vehicle 4+",
    "Anti-Vehicle 2+",
    "Anti-Monster 4+",
    "Anti-Character 4+",
    "Anti-Psyker 4+",
    "Anti-Fly 2+",
    "Anti-Titanic 4+",
)

_SITUATION_SLOTS = frozenset(n for n, *_rest in SITUATION_INTS + SITUATION_CHOICES)
_WEAPON_KEY = re.compile(r"^w(\d{1,2})\.([a-z_]+)$")
_GROUP_KEY = re.compile(r"^g(\d{1,2})\.([a-z_]+)$")
_ROW_ACTION = re.compile(r"^(w|g)(\d{1,2})$")


def _weapon_values(preset: Mapping[str, Any], models: str | None = None) -> dict[str, str]:
    skill = preset.get("skill")
    return {
        "models": models if models is not None else str(preset.get("models", 1)),
        "name": str(preset.get("name", "")),
        "kind": str(preset.get("kind", "ranged")),
        "attacks": str(preset.get("attacks", "1")),
        "skill": "" if skill is None else f"{skill}+",
        "strength": str(preset.get("strength", "")),
        "ap": str(preset.get("ap", 0)),
        "damage": str(preset.get("damage", "1")),
        "abilities": ", ".join(preset.get("abilities", [])),
    }


def _plus(value: object) -> str:
    return "" if value is None else f"{value}+"


def _target_values(preset: Mapping[str, Any]) -> dict[str, str]:
    return {
        "name": str(preset.get("name", "")),
        "models": str(preset.get("models", 1)),
        "toughness": str(preset.get("toughness", "")),
        "save": _plus(preset.get("save")),
        "wounds": str(preset.get("wounds", 1)),
        "invulnerable_save": _plus(preset.get("invulnerable_save")),
        "feel_no_pain": _plus(preset.get("feel_no_pain")),
        "keywords": ", ".join(preset.get("keywords", [])),
    }


def _rows(
    values: Mapping[str, str], pattern: re.Pattern[str], fields: Sequence[str]
) -> list[dict[str, str]]:
    found: dict[int, dict[str, str]] = {}
    for key, value in values.items():
        m = pattern.match(key)
        if m and (m[2] in fields or m[2] in ("preset", "pick")):
            found.setdefault(int(m[1]), {})[m[2]] = value
    return [found[i] for i in sorted(found)]


class Wh40k10eForm(CalculatorForm):
    system_id = SYSTEM_ID
    label = lazy("10th edition")
    presets_file = "wh40k10e.json"
    # the analysis's extra keys (app/engine/wh40k10e/exact.py), each a label in the reader's
    # language
    stage_labels: Mapping[str, str] = MappingProxyType(
        {
            "groups": lazy("Target groups"),
            "name": lazy("Name"),
            "models": lazy("Models"),
            "character": lazy("Character"),
            "all_destroyed": lazy("All destroyed"),
            "total_wounds": lazy("Total wounds"),
            "total_models": lazy("Total models"),
        }
    )
    takes_units = True
    attacker_keys = re.compile(r"^w\d{1,2}\.")
    target_keys = re.compile(r"^(t|g\d{1,2})\.")

    # -- presets ----------------------------------------------------------------------------

    def _weapon_presets(self) -> dict[str, Mapping[str, Any]]:
        return {w["id"]: w for w in self.presets().get("weapons", [])}

    def _target_presets(self) -> dict[str, Mapping[str, Any]]:
        return {t["id"]: t for t in self.presets().get("targets", [])}

    def _defaults(self) -> tuple[list[dict[str, str]], dict[str, str]]:
        default = self.presets().get("default", {})
        weapons = self._weapon_presets()
        rows = [_weapon_values(weapons[w]) for w in default.get("weapons", []) if w in weapons]
        target = self._target_presets().get(default.get("target", ""), {})
        return rows or [_weapon_values({})], _target_values(target)

    # -- reading the query ------------------------------------------------------------------

    def parse(self, params: Sequence[tuple[str, str]]) -> FormState:
        values = last_values(params)
        state = FormState(system_id=self.system_id)
        rows = _rows(values, _WEAPON_KEY, WEAPON_FIELDS)
        groups = _rows(values, _GROUP_KEY, GROUP_FIELDS)
        target = {f: values.get(f"t.{f}", "") for f in (*TARGET_FIELDS, "preset")}
        default_rows, default_target = self._defaults()
        if not rows:  # no weapon given (a fresh page): the default weapons
            rows = default_rows
        if not any(k.startswith("t.") for k in values):  # no target given: the default one
            target.update(default_target)
        edited = self._edit(values, rows, groups, target)
        if len(rows) > p.MAX_ATTACK_ENTRIES:
            rows = rows[: p.MAX_ATTACK_ENTRIES]
            state.add_error("weapons", _("At most %(n)d weapons.") % {"n": p.MAX_ATTACK_ENTRIES})
        if len(groups) > p.MAX_GROUPS:
            groups = groups[: p.MAX_GROUPS]
            state.add_error("groups", _("At most %(n)d model groups.") % {"n": p.MAX_GROUPS})
        if not rows:
            rows = [_weapon_values({})]
        for row in rows:
            row.pop("preset", None)
        for group in groups:
            group.pop("preset", None)
        target.pop("preset", None)
        situation = self._situation_values(values)

        state.values = {f"t.{f}": target.get(f, "") for f in TARGET_FIELDS}
        for i, row in enumerate(rows):
            state.values.update({f"w{i}.{f}": row.get(f, "") for f in WEAPON_FIELDS})
        for i, group in enumerate(groups):
            state.values.update({f"g{i}.{f}": group.get(f, "") for f in GROUP_FIELDS})
        state.values.update(situation)
        state.query = self._query(len(rows), len(groups), state.values)
        if edited:
            state.redirect = state.query
        state.context = self._context(len(rows), len(groups))
        state.slots = self._slots(len(rows), len(groups))
        state.request = self._request(state, len(rows), len(groups))
        return state

    def _edit(
        self,
        values: Mapping[str, str],
        rows: list[dict[str, str]],
        groups: list[dict[str, str]],
        target: dict[str, str],
    ) -> bool:
        """Apply the edits the query asks for; True when there was one."""
        edited = False
        weapons = self._weapon_presets()
        for row in rows:
            preset = row.get("preset", "")
            if preset:
                edited = True
                if preset in weapons:
                    row.update(_weapon_values(weapons[preset], models=row.get("models") or None))
            picked = row.pop("pick", "").strip()
            if picked:  # the ability picker: add it to the row's list (once)
                edited = True
                have = parse_list(row.get("abilities", ""))
                if picked.lower() not in (a.lower() for a in have):
                    row["abilities"] = ", ".join([*have, picked])
        preset = target.get("preset", "")
        if preset:
            edited = True
            targets = self._target_presets()
            if preset in targets:
                target.update(_target_values(targets[preset]))
        add = values.get("add", "")
        if add == "weapon":
            edited = True
            if len(rows) < p.MAX_ATTACK_ENTRIES:
                rows.append(dict(rows[-1]) if rows else _weapon_values({}))
        elif add == "group":
            edited = True
            if len(groups) < p.MAX_GROUPS:
                groups.append(
                    {"name": "", "models": "1", "wounds": "", "save": "", "keywords": "CHARACTER"}
                )
        m = _ROW_ACTION.match(values.get("remove", ""))
        if m:
            edited = True
            index = int(m[2])
            if m[1] == "w" and index < len(rows) and len(rows) > 1:
                del rows[index]
            elif m[1] == "g" and index < len(groups):
                del groups[index]
        return edited

    def _situation_values(self, values: Mapping[str, str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for name, _label in SITUATION_BOOLS:
            raw = values.get(f"s.{name}", "")
            out[f"s.{name}"] = "on" if raw not in ("", "0", "off", "false") else ""
        for name, _label, _lo in SITUATION_INTS:
            out[f"s.{name}"] = values.get(f"s.{name}", "0").strip() or "0"
        for name, _label, _choices in SITUATION_CHOICES:
            out[f"s.{name}"] = values.get(f"s.{name}", "") or SITUATION_DEFAULTS[name]
        return out

    def _query(
        self, n_rows: int, n_groups: int, values: Mapping[str, str]
    ) -> list[tuple[str, str]]:
        query = [("system", self.system_id)]
        for i in range(n_rows):
            query += [(f"w{i}.{f}", values[f"w{i}.{f}"]) for f in WEAPON_FIELDS]
        query += [(f"t.{f}", values[f"t.{f}"]) for f in TARGET_FIELDS]
        for i in range(n_groups):
            query += [(f"g{i}.{f}", values[f"g{i}.{f}"]) for f in GROUP_FIELDS]
        for name, _label in SITUATION_BOOLS:
            if values[f"s.{name}"]:
                query.append((f"s.{name}", "on"))
        for name, _label, _lo in SITUATION_INTS:
            if values[f"s.{name}"] not in ("0", ""):
                query.append((f"s.{name}", values[f"s.{name}"]))
        for name, _label, _choices in SITUATION_CHOICES:
            if values[f"s.{name}"] != SITUATION_DEFAULTS[name]:
                query.append((f"s.{name}", values[f"s.{name}"]))
        return query

    def _context(self, n_rows: int, n_groups: int) -> dict[str, Any]:
        return {
            "rows": list(range(n_rows)),
            "groups": list(range(n_groups)),
            "can_add_row": n_rows < p.MAX_ATTACK_ENTRIES,
            "can_add_group": n_groups < p.MAX_GROUPS,
            "ability_choices": ABILITY_CHOICES,
            "weapon_presets": [(w["id"], w["name"]) for w in self._weapon_presets().values()],
            "target_presets": [(t["id"], t["name"]) for t in self._target_presets().values()],
            "situation_bools": SITUATION_BOOLS,
            "situation_ints": SITUATION_INTS,
            "situation_choices": SITUATION_CHOICES,
            "choice_labels": CHOICE_LABELS,
            "limits": {
                "models": p.MAX_MODELS_PER_ENTRY,
                "target_models": p.MAX_TARGET_MODELS,
                "group_models": p.MAX_GROUP_MODELS,
                "wounds": p.MAX_WOUNDS,
                "strength": p.MAX_STRENGTH,
                "toughness": p.MAX_TOUGHNESS,
                "modifier": p.MAX_MODIFIER,
            },
        }

    def _slots(self, n_rows: int, n_groups: int) -> list[str]:
        slots = ["weapons", "target", "groups", "situation"]
        for i in range(n_rows):
            slots += [f"w{i}", *(f"w{i}.{f}" for f in WEAPON_FIELDS)]
        slots += [f"t.{f}" for f in TARGET_FIELDS]
        for i in range(n_groups):
            slots += [f"g{i}", *(f"g{i}.{f}" for f in GROUP_FIELDS)]
        slots += [f"s.{name}" for name, _label, _lo in SITUATION_INTS]
        slots += [f"s.{name}" for name, _label, _choices in SITUATION_CHOICES]
        return slots

    # -- building the request ---------------------------------------------------------------

    def _request(self, state: FormState, n_rows: int, n_groups: int) -> dict[str, Any] | None:
        v = state.values
        ok = True

        def read(name: str, parse: Callable[[str], Any]) -> Any:
            nonlocal ok
            try:
                return parse(v.get(name, ""))
            except FieldError as exc:
                ok = False
                state.add_error(name, str(exc))
                return None

        def number(text: str) -> int | None:
            return parse_int(text)

        def roll(text: str) -> int | None:
            return parse_roll_value(text)

        def optional_roll(text: str) -> int | None:
            return parse_roll_value(text, optional=True)

        def save(text: str) -> int | None:
            return 7 if text.strip() in ("-", "7", "7+") else parse_roll_value(text)

        attacks = []
        for i in range(n_rows):
            w = f"w{i}."
            attacks.append(
                {
                    "models": read(w + "models", number),
                    "weapon": {
                        "name": v[w + "name"].strip() or _("Weapon %(n)d") % {"n": i + 1},
                        "kind": v[w + "kind"] or "ranged",
                        "attacks": v[w + "attacks"].strip(),
                        "skill": read(w + "skill", optional_roll),
                        "strength": read(w + "strength", number),
                        "ap": read(w + "ap", lambda t: parse_int(t or "0")),
                        "damage": v[w + "damage"].strip(),
                        "abilities": parse_list(v[w + "abilities"]),
                    },
                }
            )
        target: dict[str, Any] = {
            "models": read("t.models", number),
            "toughness": read("t.toughness", number),
            "save": read("t.save", save),
            "wounds": read("t.wounds", number),
            "invulnerable_save": read("t.invulnerable_save", optional_roll),
            "feel_no_pain": read("t.feel_no_pain", optional_roll),
            "keywords": parse_list(v["t.keywords"]),
        }
        groups = []
        for i in range(n_groups):
            g = f"g{i}."
            groups.append(
                {
                    "name": v[g + "name"].strip(),
                    "models": read(g + "models", number),
                    "wounds": read(g + "wounds", number),
                    "save": read(g + "save", save),
                    "invulnerable_save": read(g + "invulnerable_save", optional_roll),
                    "feel_no_pain": read(g + "feel_no_pain", optional_roll),
                    "keywords": parse_list(v[g + "keywords"]),
                }
            )
        if groups:
            target["groups"] = groups
        situation: dict[str, Any] = {}
        for name, _label in SITUATION_BOOLS:
            if v[f"s.{name}"]:
                situation[name] = True
        for name, _label, _lo in SITUATION_INTS:
            value = read(f"s.{name}", lambda t: parse_int(t or "0"))
            if value:
                situation[name] = value
        for name, _label, _choices in SITUATION_CHOICES:
            if v[f"s.{name}"] != SITUATION_DEFAULTS[name]:
                situation[name] = v[f"s.{name}"]
        if not ok:
            return None
        return {"attacks": attacks, "target": target, "situation": situation}

    # -- the roll page ----------------------------------------------------------------------

    def describe(self, state: FormState) -> str:
        weapons = []
        for i in state.context.get("rows", []):
            name = state.value(f"w{i}.name").strip() or _("Weapon %(n)d") % {"n": i + 1}
            weapons.append(f"{state.value(f'w{i}.models')}× {name}")
        target = state.value("t.name").strip() or _("the target")
        return _("%(weapons)s against %(target)s") % {
            "weapons": " + ".join(weapons),
            "target": target,
        }

    def group_names(self, state: FormState) -> Mapping[str, str]:
        return {MAIN_GROUP: state.value("t.name").strip() or _("the target")}

    def words(self, text: str, state: FormState) -> str:
        return words(text, self.group_names(state))

    # -- errors back to inputs --------------------------------------------------------------

    def field_for(self, path: Sequence[str]) -> str | None:
        parts = list(path)
        if not parts:
            return None
        head = parts[0]
        if head == "attacks":
            if len(parts) == 1 or not parts[1].isdigit():
                return "weapons"
            i = parts[1]
            rest = parts[2:]
            if rest and rest[0] == "weapon":
                rest = rest[1:]
            if rest and rest[0] in WEAPON_FIELDS:
                return f"w{i}.{rest[0]}"
            return f"w{i}"
        if head == "target":
            rest = parts[1:]
            if rest and rest[0] == "groups":
                if len(rest) > 1 and rest[1].isdigit():
                    i = rest[1]
                    if len(rest) > 2 and rest[2] in GROUP_FIELDS:
                        return f"g{i}.{rest[2]}"
                    return f"g{i}"
                return "groups"
            if rest and rest[0] in TARGET_FIELDS:
                return f"t.{rest[0]}"
            return "target"
        if head == "situation":
            if len(parts) > 1 and parts[1] in _SITUATION_SLOTS:
                return f"s.{parts[1]}"
            return "situation"
        return None
