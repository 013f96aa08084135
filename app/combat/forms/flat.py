"""A calculator form described by a table of fields (no repeated rows), for rule systems whose
request is a fixed set of fields (PEN). Each field names its query parameter, the request path
it fills, how its text is read, and optionally a selector it depends on (a vehicle's armour
is sent only when the target kind is "vehicle").

Presets (``data/profiles/<file>.json``) fill one section at a time from request-shaped values:
``{"id", "name", "values": {...}}`` where the keys follow the request paths below the section
(a form-only field such as ``t.kind`` uses its name after the dot); ``"default"`` names the
preset of each section a fresh page starts from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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
from app.core.i18n import gettext as _

__all__ = ["FlatField", "FlatForm", "Section"]

KINDS = ("int", "int?", "roll", "roll?", "text", "list", "bool", "choice")


@dataclass(frozen=True, slots=True)
class FlatField:
    name: str  # query parameter, e.g. "a.models"
    path: tuple[str, ...]  # request path, e.g. ("attacker", "models"); () for a form-only field
    kind: str  # one of KINDS
    label: str  # msgid
    default: str = ""
    choices: tuple[tuple[str, str], ...] = ()  # (value, msgid) for "choice"
    only_when: tuple[str, str] | None = None  # (selector field, value) gating this field
    min: int | None = None
    max: int | None = None
    wide: bool = False
    placeholder: str = ""
    # a "list" field with a picker: the id of its list of names (FlatForm.pick_lists); the
    # query's ``<name>.pick`` adds one name to the field (once)
    pick: str = ""


@dataclass(frozen=True, slots=True)
class Section:
    id: str  # also the preset group ("attacker" -> presets["attacker"])
    legend: str  # msgid
    prefix: tuple[str, ...]  # request path of the section (preset values are relative to it)
    fields: tuple[FlatField, ...]
    presets: str = ""  # key of the presets file for this section ("" = none)
    hint: str = ""  # msgid shown under the section


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "on" if value else ""
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def _lookup(values: Mapping[str, Any], path: Sequence[str]) -> tuple[bool, Any]:
    node: Any = values
    for part in path:
        if not isinstance(node, Mapping) or part not in node:
            return False, None
        node = node[part]
    return True, node


class FlatForm(CalculatorForm):
    sections: tuple[Section, ...] = ()

    # -- fields -----------------------------------------------------------------------------

    def fields(self) -> list[FlatField]:
        return [f for s in self.sections for f in s.fields]

    def _section_presets(self, section: Section) -> dict[str, Mapping[str, Any]]:
        if not section.presets:
            return {}
        return {p["id"]: p for p in self.presets().get(section.presets, [])}

    def _apply_preset(
        self, section: Section, preset: Mapping[str, Any], out: dict[str, str]
    ) -> None:
        """Fill every field of ``section`` from ``preset`` (absent values: the default)."""
        values = preset.get("values", {})
        for f in section.fields:
            key = f.path[len(section.prefix) :] if f.path else (f.name.split(".", 1)[-1],)
            found, value = _lookup(values, key)
            if found and f.kind.startswith("roll") and isinstance(value, int):
                out[f.name] = f"{value}+"
            else:
                out[f.name] = _text(value) if found else ("" if f.kind == "bool" else f.default)

    # -- reading the query ------------------------------------------------------------------

    def pick_lists(self) -> Mapping[str, Sequence[tuple[str, str]]]:
        """The pickers' lists by id: (the name the engine reads, what else it is called, e.g.
        its English name), searched together. Default: none."""
        return {}

    def parse(self, params: Sequence[tuple[str, str]]) -> FormState:
        given = last_values(params)
        state = FormState(system_id=self.system_id)
        known = {f.name for f in self.fields()}
        fresh = not any(k in known for k in given)
        values = {
            f.name: given.get(f.name, f.default if fresh or f.kind != "bool" else "")
            for f in self.fields()
        }
        if fresh:
            for section in self.sections:
                wanted = self.presets().get("default", {}).get(section.presets, "")
                preset = self._section_presets(section).get(wanted)
                if preset is not None:
                    self._apply_preset(section, preset, values)
        edited = False
        for section in self.sections:
            chosen = given.get(f"{section.id}.preset", "")
            if chosen:
                edited = True
                preset = self._section_presets(section).get(chosen)
                if preset is not None:
                    self._apply_preset(section, preset, values)
        for f in self.fields():
            picked = given.get(f"{f.name}.pick", "").strip() if f.pick else ""
            if picked:  # the picker: add the name to the field's list, once
                edited = True
                have = parse_list(values[f.name])
                if picked.casefold() not in (h.casefold() for h in have):
                    values[f.name] = ", ".join([*have, picked])
        for f in self.fields():
            if f.kind == "bool":
                values[f.name] = "on" if values[f.name] not in ("", "0", "off", "false") else ""
        state.values = values
        state.query = [("system", self.system_id)] + [
            (f.name, values[f.name]) for f in self.fields() if f.kind != "bool" or values[f.name]
        ]
        if edited:
            state.redirect = state.query
        # a checkbox has no error slot: naming one would be an out-of-band swap without target
        state.slots = [s.id for s in self.sections] + [
            f.name for f in self.fields() if f.kind != "bool"
        ]
        state.context = {
            "sections": [
                (s, [(pid, p["name"]) for pid, p in self._section_presets(s).items()])
                for s in self.sections
            ],
            "pick_lists": self.pick_lists(),
        }
        state.request = self._request(state)
        return state

    def _active(self, f: FlatField, values: Mapping[str, str]) -> bool:
        return f.only_when is None or values.get(f.only_when[0]) == f.only_when[1]

    def _request(self, state: FormState) -> dict[str, Any] | None:
        request: dict[str, Any] = {}
        ok = True
        for section in self.sections:
            node = request
            for part in section.prefix:
                node = node.setdefault(part, {})
        for f in self.fields():
            if not f.path or not self._active(f, state.values):
                continue
            text = state.values[f.name]
            try:
                value = self._read(f, text)
            except FieldError as exc:
                ok = False
                state.add_error(f.name, str(exc))
                continue
            if value is None or value == [] or (f.kind == "bool" and not value):
                continue
            node = request
            for part in f.path[:-1]:
                node = node.setdefault(part, {})
            node[f.path[-1]] = value
        return request if ok else None

    def _read(self, f: FlatField, text: str) -> Any:
        if f.kind == "int":
            return parse_int(text)
        if f.kind == "int?":
            return parse_int(text, optional=True)
        if f.kind == "roll":
            return parse_roll_value(text)
        if f.kind == "roll?":
            return parse_roll_value(text, optional=True)
        if f.kind == "list":
            return parse_list(text)
        if f.kind == "bool":
            return bool(text)
        if f.kind == "choice":
            if text not in {v for v, _l in f.choices}:
                raise FieldError(_("Choose one of the options."))
            return text or None
        return text.strip() or None

    # -- errors back to inputs --------------------------------------------------------------

    def field_for(self, path: Sequence[str]) -> str | None:
        parts = tuple(path)
        best: FlatField | None = None
        for f in self.fields():
            if (
                f.path
                and parts[: len(f.path)] == f.path
                and (best is None or len(f.path) > len(best.path))
            ):
                best = f
        if best is not None:
            return best.name
        for section in self.sections:
            if parts[: len(section.prefix)] == section.prefix:
                return section.id
        return None
