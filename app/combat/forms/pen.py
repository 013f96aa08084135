"""The PEN calculator form: the attacking squad, its weapon, a unit or vehicle target, the
situation, and the presets of ``data/profiles/pen.json``.

Query parameters (documented in docs/api-combat.md): ``a.<field>`` (attacker), ``w.<field>``
(weapon), ``t.<field>`` (target unit), ``t.kind`` (``unit`` or ``vehicle``), ``v.<field>``
(target vehicle), ``s.<field>`` (situation); presets ``a.preset``, ``w.preset``, ``t.preset``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from app.combat.forms import FormState, parse_list, pen_types, pen_words
from app.combat.forms.flat import FlatField, FlatForm, Section
from app.combat.present import untranslated
from app.combat.rulesets.pen import SYSTEM_ID
from app.core.i18n import DEFAULT_LOCALE, current_locale, lazy
from app.core.i18n import gettext as _
from app.engine.pen import profiles as p
from app.engine.pen.names import RULE_INFO, RuleScope, normalise

F = FlatField
# the pickers' lists (PenForm.pick_lists): the engine's names, French first, English beside
WEAPON_RULES = "pen-weapon-rules"
UNIT_RULES = "pen-unit-rules"
VEHICLE_TYPES = "pen-vehicle-types"
UNIT = ("t.kind", "unit")
VEHICLE = ("t.kind", "vehicle")


def _bool(name: str, label: str) -> FlatField:
    return F(f"s.{name}", ("situation", name), "bool", label)


ATTACKER = Section(
    "a",
    lazy("Attacker"),
    ("attacker",),
    (
        F("a.models", ("attacker", "models"), "int", lazy("Models"), "10", min=1, max=p.MAX_MODELS),
        F("a.ws", ("attacker", "ws"), "int?", lazy("WS"), "4", min=1, max=10),
        F("a.bs", ("attacker", "bs"), "int?", lazy("BS"), "4", min=1, max=10),
        F("a.strength", ("attacker", "strength"), "int?", lazy("S"), "4", min=1, max=10),
        F("a.attacks", ("attacker", "attacks"), "int?", lazy("A"), "1", min=0, max=10),
        F("a.initiative", ("attacker", "initiative"), "int?", lazy("I"), "4", min=1, max=10),
        # what the defender's strike back needs (melee combat result): T, W, saves, Ld
        F("a.toughness", ("attacker", "toughness"), "int?", lazy("T"), min=1, max=10),
        F("a.wounds", ("attacker", "wounds"), "int?", lazy("W"), min=1, max=10),
        F("a.save", ("attacker", "save"), "roll?", lazy("Sv")),
        F(
            "a.invulnerable_save",
            ("attacker", "invulnerable_save"),
            "roll?",
            lazy("Invulnerable save"),
        ),
        F("a.leadership", ("attacker", "leadership"), "int?", lazy("Ld"), min=1, max=10),
        F(
            "a.unit_type",
            ("attacker", "unit_type"),
            "text",
            lazy("Unit type"),
            placeholder=lazy("infantry"),  # the engine reads French names too
        ),
        F(
            "a.rules",
            ("attacker", "rules"),
            "list",
            lazy("Special rules (comma-separated)"),
            wide=True,
            pick=UNIT_RULES,
        ),
    ),
    presets="attackers",
)
WEAPON = Section(
    "w",
    lazy("Weapon"),
    ("weapon",),
    (
        F("w.name", ("weapon", "name"), "text", lazy("Name"), "Bolter", wide=True),
        F(
            "w.kind",
            ("weapon", "kind"),
            "choice",
            lazy("Type of attack"),
            "ranged",
            choices=(("ranged", lazy("Ranged")), ("melee", lazy("Melee"))),
        ),
        F(
            "w.type",
            ("weapon", "type"),
            "text",
            lazy("Weapon type"),
            "rapid fire",
            placeholder=lazy("heavy 1 blast"),  # the engine reads "lourde 1 explosion" too
        ),
        F("w.shots", ("weapon", "shots"), "int?", lazy("Shots"), "1", min=1, max=p.MAX_SHOTS),
        F("w.strength", ("weapon", "strength"), "int?", lazy("S"), "4", min=1, max=10),
        F("w.ap", ("weapon", "ap"), "int?", lazy("AP"), "5", min=1, max=6, placeholder="-"),
        F(
            "w.properties",
            ("weapon", "properties"),
            "list",
            lazy("Properties (comma-separated)"),
            wide=True,
            pick=WEAPON_RULES,
        ),
    ),
    presets="weapons",
)
TARGET = Section(
    "t",
    lazy("Target"),
    ("target",),
    (
        F("t.name", (), "text", lazy("Name"), "", wide=True, placeholder=lazy("the target")),
        F(
            "t.kind",
            (),
            "choice",
            lazy("The target is"),
            "unit",
            choices=(("unit", lazy("a unit")), ("vehicle", lazy("a vehicle"))),
            wide=True,
        ),
        F(
            "t.models",
            ("target", "models"),
            "int",
            lazy("Models"),
            "10",
            only_when=UNIT,
            min=1,
            max=p.MAX_MODELS,
        ),
        F("t.ws", ("target", "ws"), "int?", lazy("WS"), "4", only_when=UNIT, min=1, max=10),
        F(
            "t.toughness",
            ("target", "toughness"),
            "int",
            lazy("T"),
            "4",
            only_when=UNIT,
            min=1,
            max=10,
        ),
        F("t.wounds", ("target", "wounds"), "int", lazy("W"), "1", only_when=UNIT, min=1, max=10),
        F(
            "t.strength",
            ("target", "strength"),
            "int?",
            lazy("S"),
            only_when=UNIT,
            min=1,
            max=10,
        ),
        F(
            "t.attacks",
            ("target", "attacks"),
            "int?",
            lazy("A"),
            only_when=UNIT,
            min=0,
            max=10,
        ),
        F(
            "t.leadership",
            ("target", "leadership"),
            "int?",
            lazy("Ld"),
            only_when=UNIT,
            min=1,
            max=10,
        ),
        F(
            "t.initiative",
            ("target", "initiative"),
            "int?",
            lazy("I"),
            "",
            only_when=UNIT,
            min=1,
            max=10,
        ),
        F("t.save", ("target", "save"), "roll?", lazy("Sv"), "4+", only_when=UNIT),
        F(
            "t.invulnerable_save",
            ("target", "invulnerable_save"),
            "roll?",
            lazy("Invulnerable save"),
            only_when=UNIT,
        ),
        F("t.cover_save", ("target", "cover_save"), "roll?", lazy("Cover save"), only_when=UNIT),
        F(
            "t.feel_no_pain",
            ("target", "feel_no_pain"),
            "bool",
            lazy("Feel No Pain"),
            only_when=UNIT,
        ),
        F(
            "t.unit_type",
            ("target", "unit_type"),
            "text",
            lazy("Unit type"),
            "infantry",
            only_when=UNIT,
        ),
        F(
            "t.rules",
            ("target", "rules"),
            "list",
            lazy("Special rules (comma-separated)"),
            only_when=UNIT,
            wide=True,
            pick=UNIT_RULES,
        ),
        F(
            "v.front",
            ("target", "armour", "front"),
            "int",
            lazy("Front armour"),
            "14",
            only_when=VEHICLE,
            min=1,
            max=14,
        ),
        F(
            "v.side",
            ("target", "armour", "side"),
            "int",
            lazy("Side armour"),
            "13",
            only_when=VEHICLE,
            min=1,
            max=14,
        ),
        F(
            "v.rear",
            ("target", "armour", "rear"),
            "int",
            lazy("Rear armour"),
            "10",
            only_when=VEHICLE,
            min=1,
            max=14,
        ),
        F(
            "v.facing",
            ("target", "facing"),
            "choice",
            lazy("Facing hit"),
            "front",
            choices=(("front", lazy("front")), ("side", lazy("side")), ("rear", lazy("rear"))),
            only_when=VEHICLE,
        ),
        F(
            "v.hull_points",
            ("target", "hull_points"),
            "int?",
            lazy("Hull points"),
            "3",
            only_when=VEHICLE,
            min=1,
            max=p.MAX_HULL_POINTS,
        ),
        F(
            "v.types",
            ("target", "types"),
            "list",
            lazy("Vehicle types (comma-separated)"),
            "tank",
            only_when=VEHICLE,
            wide=True,
            pick=VEHICLE_TYPES,
        ),
        F(
            "v.rules",
            ("target", "rules"),
            "list",
            lazy("Special rules (comma-separated)"),
            only_when=VEHICLE,
            wide=True,
            pick=UNIT_RULES,
        ),
        F(
            "v.results_this_turn",
            ("target", "results_this_turn"),
            "list",
            lazy("Damage results it already suffered this turn (comma-separated)"),
            only_when=VEHICLE,
            wide=True,
            placeholder=lazy("shaken, weapons damaged"),
        ),
    ),
    presets="targets",
    hint=lazy(
        "Unit fields are used when the target is a unit; armour, facing and hull points when "
        "it is a vehicle. The PEN rules give no hull points: the vehicle presets use the "
        "6th-edition values; change them to your group's. A damage result already suffered "
        "this turn moves the same result one row down."
    ),
)
SITUATION = Section(
    "s",
    lazy("Situation"),
    ("situation",),
    (
        _bool("half_range", lazy("Half range")),
        _bool("stationary", lazy("Firer stationary")),
        _bool("charged", lazy("Charged this turn")),
        _bool("snap_fire", lazy("Snap fire")),
        _bool("target_stealthy", lazy("Target stealthy")),
        _bool("target_shrouded", lazy("Target shrouded")),
        _bool("target_gone_to_ground", lazy("Target gone to ground")),
        _bool("target_in_cover", lazy("Target in cover (assault)")),
        # shooting at a squad locked in combat [L1329], [L1132]; Dynamics' mutual assault
        _bool("target_in_melee", lazy("Target locked in combat (no range or speed modifier)")),
        _bool("into_melee_malus", lazy("Target not twice the friends in its combat (-1 BS)")),
        _bool("defender_charged", lazy("The charged unit counts as charging too")),
        F(
            "s.target_moved",
            ("situation", "target_moved"),
            "int?",
            lazy("Target moved (inches)"),
            "0",
            min=0,
            max=100,
        ),
        F(
            "s.twin_linked",
            ("situation", "twin_linked"),
            "choice",
            lazy("Twin-linked"),
            "double_shots",
            choices=(
                ("double_shots", lazy("double the shots")),
                ("double_hits", lazy("each hit counts double")),
            ),
        ),
    ),
)


class PenForm(FlatForm):
    system_id = SYSTEM_ID
    label = lazy("PEN")
    presets_file = "pen.json"
    # every key of the engine's stages, totals and sections, each a label in the reader's
    # language
    stage_labels: Mapping[str, Any] = pen_words.LABELS
    attacker_keys = re.compile(r"^[aw]\.")
    target_keys = re.compile(r"^[tv]\.")

    def result_kind(self, state: FormState) -> str:
        return "vehicle" if state.value("t.kind") == "vehicle" else "models"

    def pick_lists(self) -> Mapping[str, Sequence[tuple[str, str]]]:
        # the vehicle types in the reader's language first (the engine reads both)
        return {**_pick_lists(), VEHICLE_TYPES: pen_types.vehicle_type_names()}

    def parse(self, params: Sequence[tuple[str, str]]) -> FormState:
        """The form, its unit and vehicle types shown in the reader's language (a default or
        a preset's ``infantry`` reads ``infanterie`` in French); the query and the request
        keep what was given, the engine reading both names."""
        state = super().parse(params)
        if current_locale.get() != DEFAULT_LOCALE:
            values = state.values
            for name in ("a.unit_type", "t.unit_type"):
                if values.get(name):
                    values[name] = pen_types.unit_type_label(values[name].strip())
            if values.get("v.types"):
                values["v.types"] = pen_types.vehicle_types_text(parse_list(values["v.types"]))
            shown = values.get("w.type", "").strip()
            if shown in pen_types.WEAPON_TYPES:  # "rapid fire" (the default), not "heavy 1"
                values["w.type"] = pen_types.weapon_type_label(shown)
        return state

    def group_names(self, state: FormState) -> Mapping[str, str]:
        """The engine's ``target`` (or ``vehicle``) as the player named it, and ``attacker``."""
        name = state.value("t.name").strip()
        return {
            "target": name or _("the target"),
            "vehicle": name or _("the vehicle"),
            "attacker": _("the attacker"),
        }

    def words(self, text: str, state: FormState) -> str:
        return pen_words.words(text, skill_word)

    def values(self, text: str, state: FormState) -> str:
        return pen_words.words(text, skill_word)

    def result_notes(self, extra: Mapping[str, Any], state: FormState) -> list[str]:
        """Why the BS (or WS) used is not the one typed: each modifier and cap of the plan."""
        plan = extra.get("plan")
        if not isinstance(plan, Mapping) or plan.get("skill") is None:
            return []
        melee = state.value("w.kind") == "melee"
        typed = state.value("a.ws" if melee else "a.bs").strip()
        used = plan["skill"]
        reasons = [
            f"{skill_word(str(m.get('name', '')))} ({_signed(int(m.get('value', 0)))})"
            for m in plan.get("modifiers") or []
            if isinstance(m, Mapping)
        ]
        reasons += [skill_word(str(n)) for n in plan.get("notes") or []]
        if not reasons and typed == str(used):
            return []
        label = _("WS") if melee else _("BS")
        line = _("%(skill)s %(typed)s → %(used)s, hits on %(to_hit)s") % {
            "skill": label,
            "typed": typed or "-",
            "used": used,
            "to_hit": plan.get("to_hit") or "-",
        }
        return [f"{line}: {'; '.join(reasons)}" if reasons else line]

    sections = (ATTACKER, WEAPON, TARGET, SITUATION)


# the engine's names of the BS modifiers and notes (English, with rule lines) -> msgids
SKILL_WORDS = {
    "target moved > 18 ps": lazy("target moved more than 18 ps"),
    "target moved > 12 ps": lazy("target moved more than 12 ps"),
    "aircraft target": lazy("aircraft target"),
    "half range": lazy("half range"),
    "flying MC after a rapid move": lazy("flying monstrous creature after a rapid move"),
    "target locked in combat": lazy("target locked in combat"),
    "target gone to ground": lazy("target gone to ground"),
    "giant target": lazy("giant target"),
    "sniper": lazy("sniper"),
    "stationary shooter": lazy("stationary shooter"),
    "stealthy target (Furtif)": lazy("stealthy target (Furtif)"),
    "shrouded target (Dissimulé)": lazy("shrouded target (Dissimulé)"),
    "invisible target (Invisible)": lazy("invisible target (Invisible)"),
    "snap fire": lazy("snap fire"),
    "heavy weapon after moving": lazy("heavy weapon after moving"),
    "moved artillery barrage weapon": lazy("artillery barrage weapon after moving"),
    "salvo at full range after moving": lazy("salvo at full range after moving"),
    "anti-aircraft weapon against a non-skimmer": lazy(
        "anti-aircraft weapon against a non-skimmer"
    ),
    "terrified: BS halved": lazy("terrified: BS halved"),
    "blinded: BS 1": lazy("blinded: BS 1"),
    "no BS: template hits on 2+": lazy("no BS: the template hits on 2+"),
}
_RULE_LINE = re.compile(r"\s*\[L\d+(-L?\d+)?\]")
_SNAP = re.compile(r"^snap fire \((.*)\): BS halved$")
_CAP = re.compile(r"^indirect barrage: BS capped at (\d+)$")


def skill_word(text: str) -> str:
    """An engine modifier or note in the current locale (rule lines dropped; unknown: as is)."""
    text = _RULE_LINE.sub("", text).strip()
    m = _SNAP.match(text)
    if m:
        reasons = "; ".join(skill_word(r) for r in m[1].split("; "))
        return _("snap fire (%(reasons)s): BS halved") % {"reasons": reasons}
    m = _CAP.match(text)
    if m:
        return _("indirect barrage: BS capped at %(n)s") % {"n": m[1]}
    msgid = SKILL_WORDS.get(text)
    return _(msgid) if msgid else untranslated(text)


@cache
def _pick_lists() -> dict[str, tuple[tuple[str, str], ...]]:
    """The engine's vocabulary for the pickers: weapon properties and special rules (French
    names, as the seed writes them, with the English ones), vehicle types."""

    def rules(scope: RuleScope) -> tuple[tuple[str, str], ...]:
        found = sorted(
            ((i.french, i.english) for i in RULE_INFO.values() if i.scope is scope),
            key=lambda pair: normalise(pair[0]),
        )
        return tuple(found)

    return {
        WEAPON_RULES: rules(RuleScope.WEAPON),
        UNIT_RULES: rules(RuleScope.UNIT),
    }


def _signed(value: int) -> str:
    return f"+{value}" if value > 0 else f"\u2212{-value}" if value < 0 else "0"
