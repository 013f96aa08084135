"""What the 10th edition's match page shows: labels, unit cards, the readable timeline,
action buttons.

Everything here works on what the engine already rendered for one seat (``Battle.view(seat)``,
``Battle.log_json(seat)``, ``Battle.legal_actions(seat)``), so a page can never show more than
the JSON API gives that seat.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.core.i18n import current_locale, lazy, ngettext
from app.core.i18n import gettext as _
from app.engine.wh40k10e.battle import CORE_STRATAGEMS
from app.matches.pages.wh40k10e.expansion import (
    EXPANSION_KINDS,
    describe_expansion,
    expansion_form,
    stratagem_target_kind,
)
from app.matches.pages.wh40k10e.expansion import MERGED as EXPANSION_MERGED
from app.matches.pages.wh40k10e.expansion import stratagem_targets as expansion_targets
from app.matches.present import (  # noqa: F401 (the shared words, for the templates)
    LEAGUE_REPORT_REASONS,
    RESULTS,
    localized,
    mission_label,
    seat_label,
    tr,
)

STRATAGEMS = {s.id: s for s in CORE_STRATAGEMS}

PHASES = {
    "command": lazy("Command phase"),
    "movement": lazy("Movement phase"),
    "shooting": lazy("Shooting phase"),
    "charge": lazy("Charge phase"),
    "fight": lazy("Fight phase"),
}
STEPS = {
    "battle_shock": lazy("Battle-shock step"),
    "move_units": lazy("Move units"),
    "reinforcements": lazy("Reinforcements"),
    "shoot": lazy("Shoot"),
    "charge": lazy("Charge"),
    "fights_first": lazy("Fights First"),
    "remaining_combats": lazy("Remaining combats"),
}
STAGES = {
    "roll_off": lazy("Roll-off"),
    "place_objectives": lazy("Place objective markers"),
    "declare_formations": lazy("Declare Battle Formations (in secret)"),
    "deploy": lazy("Deploy armies"),
    "scouts": lazy("Scouts moves"),
    "battle": lazy("Battle"),
    "ended": lazy("Battle over"),
}
ROLL_OFFS = {
    "objectives": lazy("who places the first objective"),
    "attacker": lazy("who is the Attacker"),
    "first_turn": lazy("who takes the first turn"),
}
LOCATIONS = {
    "undeclared": lazy("not yet declared"),
    "to_deploy": lazy("to deploy"),
    "battlefield": lazy("on the battlefield"),
    "reserves": lazy("in Reserves"),
    "embarked": lazy("embarked"),
    "held_back": lazy("held back"),
}
MOVES = {
    "normal": lazy("Normal move"),
    "advance": lazy("Advance"),
    "fall_back": lazy("Fall Back"),
    "remain_stationary": lazy("Remain Stationary"),
}
RESERVES = {
    "deep_strike": lazy("Deep Strike"),
    "strategic": lazy("Strategic Reserves"),
    "aircraft": lazy("Aircraft in Reserves"),
}
EFFECTS = {
    "go_to_ground": lazy("Go to Ground"),
    "smokescreen": lazy("Smokescreen"),
    "precision": lazy("Precision (Epic Challenge)"),
    "overwatch": lazy("Fire Overwatch"),
}
RESULT_REASONS = {
    "rounds_complete": lazy("after the last battle round"),
    "army_destroyed": lazy("an army was wiped out"),
    "concession": lazy("a player conceded"),
    "spy_not_placed": lazy("the spy could not be placed"),
}

# Commands whose dice the players may roll by hand instead of the server.
ROLLING = frozenset(
    {
        "roll_off",
        "battle_shock_test",
        "declare_charge",
        "hazardous_test",
        "disembark_destroyed_transport",
        "use_stratagem",
        "move",
    }
)


def stratagem_name(sid: str) -> str:
    spec = STRATAGEMS.get(sid)
    if spec is None:
        return sid
    return spec.name_fr if current_locale.get() == "fr" else spec.name


# -- units ------------------------------------------------------------------------------------


@dataclass
class UnitCard:
    id: str
    name: str
    owner: str
    models_alive: int
    models: int
    wounds: list[int]
    wounds_per_model: int
    destroyed: bool
    location: str
    chips: list[tuple[str, str]] = field(default_factory=list)  # (css class, label)
    leader: str | None = None
    bodyguard: str | None = None
    max_wounds: list[int] = field(default_factory=list)  # each slot's W (its own model type's)

    @property
    def slots(self) -> list[tuple[int, int]]:
        """(wounds left, W) of each model slot."""
        full = self.max_wounds or [self.wounds_per_model] * len(self.wounds)
        return list(zip(self.wounds, full, strict=True))

    @property
    def wounds_left(self) -> int:
        return sum(self.wounds)

    @property
    def wounds_total(self) -> int:
        return sum(full for _left, full in self.slots)

    @property
    def multi_wound(self) -> bool:
        """Whether any model has more than one wound (the per-model wounds are then shown)."""
        return any(full > 1 for _left, full in self.slots)


def unit_cards(view: Mapping[str, Any]) -> dict[str, list[UnitCard]]:
    names = {u["id"]: u["name"] for u in view.get("units", ())}
    out: dict[str, list[UnitCard]] = {"A": [], "B": []}
    for u in view.get("units", ()):
        chips: list[tuple[str, str]] = []
        if u["destroyed"]:
            chips.append(("bad", _("destroyed")))
        else:
            if u["location"] != "battlefield":
                label = tr(LOCATIONS, u["location"])
                if u["location"] == "reserves" and u.get("reserve"):
                    label = tr(RESERVES, u["reserve"])
                if u["location"] == "embarked" and u.get("embarked_in"):
                    label = _("embarked in {transport}").format(
                        transport=names.get(u["embarked_in"], u["embarked_in"])
                    )
                chips.append(("where", label))
            if u["battle_shocked"]:
                chips.append(("bad", _("Battle-shocked")))
            if u["below_half_strength"]:
                chips.append(("warn", _("below half strength")))
            if u.get("move") and u["move"] != "normal":
                chips.append(("info", tr(MOVES, u["move"])))
            elif u.get("move") == "normal":
                chips.append(("info", _("moved")))
            if u["engaged_with"]:
                chips.append(("warn", _("engaged")))
            if u["shot"]:
                chips.append(("info", _("has shot")))
            if u["charge_moved"]:
                chips.append(("info", _("charged")))
            if u["fought"]:
                chips.append(("info", _("has fought")))
            if u.get("hover"):
                chips.append(("info", _("Hover")))
            for effect in u.get("effects", ()):
                chips.append(("info", tr(EFFECTS, effect)))
        out.setdefault(u["owner"], []).append(
            UnitCard(
                id=u["id"],
                name=u["name"],
                owner=u["owner"],
                models_alive=u["models_alive"],
                models=u["models"],
                wounds=list(u["wounds"]),
                wounds_per_model=u["wounds_per_model"],
                destroyed=u["destroyed"],
                location=u["location"],
                chips=chips,
                leader=names.get(u["leader"]) if u.get("leader") else None,
                bodyguard=names.get(u["bodyguard"]) if u.get("bodyguard") else None,
                max_wounds=list(u.get("max_wounds") or ()),
            )
        )
    return out


# -- action buttons ---------------------------------------------------------------------------


@dataclass
class ActionForm:
    """One legal action (or several of one kind, merged) as a form: a label, the command JSON
    and the inputs it still needs."""

    label: str
    command: dict[str, Any]
    kind: str
    targets: list[tuple[str, str]] = field(default_factory=list)
    modes: list[tuple[str, str]] = field(default_factory=list)  # move: one button per mode
    enemies: list[tuple[str, str]] = field(default_factory=list)  # a Stratagem's enemy unit
    fields: list[str] = field(default_factory=list)  # crossing, needed, reason, strength, ...
    dice: bool = False
    primary: bool = False
    danger: bool = False
    stratagem: bool = False
    cp: int | None = None  # a Stratagem's cost, shown on its button
    # the coherency check: (unit id, name, models alive) of each part of the units named
    removals: list[tuple[str, str, int]] = field(default_factory=list)
    # narrative missions: the units to pick, decoy tokens allowed, hiding places, a variable
    # Stratagem cost (min, max) and what its target is (token, place, unit, reserve, saboteur)
    units: list[tuple[str, str]] = field(default_factory=list)
    # the units ticked at first (deploy_forces: the set-up the engine suggests)
    checked: list[str] = field(default_factory=list)
    decoys: int = 0
    places: list[str] = field(default_factory=list)
    cp_range: tuple[int, int] | None = None
    target_kind: str = ""
    # the expansions (expansion.py): buildings, a building's weapon, a target aircraft's arc
    buildings: list[tuple[str, str]] = field(default_factory=list)
    weapons: list[tuple[str, str]] = field(default_factory=list)
    arcs: list[tuple[str, str]] = field(default_factory=list)
    # Power Level (a narrative mission counting it): the levels entered so far, by unit
    levels: dict[str, int] = field(default_factory=dict)
    # a building's shot: its guns ("building|weapon"), those with a minimum range (inches),
    # the targets' saves from the army data (proposed); Support fire: its markers
    guns: list[tuple[str, str]] = field(default_factory=list)
    near: dict[str, int] = field(default_factory=dict)
    saves: dict[str, int] = field(default_factory=dict)
    markers: list[str] = field(default_factory=list)

    @property
    def command_json(self) -> str:
        return json.dumps(self.command, separators=(",", ":"))


def action_forms(
    actions: Sequence[Mapping[str, Any]],
    view: Mapping[str, Any],
    stratagems: Mapping[str, MissionStratagem] | None = None,
) -> list[ActionForm]:
    """The legal actions as forms: the moves of one unit share a form (one button per mode),
    and so do the uses of one Stratagem by one unit (the enemy unit is a choice); a narrative
    command that names one of several units is one form with the unit a choice."""
    names = {u["id"]: u["name"] for u in view.get("units", ())}
    infiltrators = {u["id"] for u in view.get("units", ()) if "infiltrators" in u["abilities"]}
    out: list[ActionForm] = []
    merged: dict[tuple[str, ...], ActionForm] = {}
    for action in actions:
        cmd = dict(action["command"])
        kind = str(cmd.get("type"))
        if kind in ("declare_formations", "approve_undo", "refuse_undo", "attack_building"):
            continue  # their own forms (a building attacked: the attack cards)
        unit = names.get(str(cmd.get("unit")), str(cmd.get("unit", "")))
        if kind in NARRATIVE_KINDS:
            one = kind in UNIT_CHOICE or kind in EXPANSION_MERGED
            if one and ("narrative", kind) in merged:
                continue
            made = narrative_form(action, view, stratagems or {})
            if one:
                merged[("narrative", kind)] = made
            out.append(made)
            continue
        if kind == "move":
            key: tuple[str, ...] = ("move", str(cmd["unit"]))
            form = merged.get(key)
            if form is None:
                form = ActionForm(
                    label=_("Move {unit}").format(unit=unit),
                    command={"type": "move", "unit": cmd["unit"]},
                    kind=kind,
                    dice=True,
                )
                merged[key] = form
                out.append(form)
            form.modes.append((str(cmd["mode"]), tr(MOVES, cmd["mode"])))
            if cmd["mode"] == "fall_back":
                form.fields.append("crossing")
            continue
        if kind == "start_move":
            key = ("start_move", str(cmd["unit"]))
            form = merged.get(key)
            if form is None:
                form = ActionForm(
                    label=_("Announce a move: {unit} (your opponent may Fire Overwatch)").format(
                        unit=unit
                    ),
                    command={"type": "start_move", "unit": cmd["unit"]},
                    kind=kind,
                )
                merged[key] = form
                out.append(form)
            form.modes.append((str(cmd["mode"]), tr(MOVES, cmd["mode"])))
            continue
        if kind == "use_stratagem":
            key = ("use_stratagem", str(cmd.get("stratagem")), str(cmd.get("unit")))
            form = merged.get(key)
            if form is None:
                form = ActionForm(
                    label=_action_label(
                        kind, {k: v for k, v in cmd.items() if k != "enemy"}, unit, ""
                    ),
                    command={k: v for k, v in cmd.items() if k != "enemy"},
                    kind=kind,
                    dice=True,
                    stratagem=True,
                    cp=stratagem_cp(cmd.get("stratagem")),
                )
                if cmd.get("stratagem") == "tank_shock":
                    form.fields.append("strength")
                if cmd.get("stratagem") == "command_reroll":
                    form.fields += ["die", "note"]
                if cmd.get("stratagem") == "fire_overwatch":
                    form.fields.append("within_12")
                merged[key] = form
                out.append(form)
            if cmd.get("enemy"):
                form.enemies.append((str(cmd["enemy"]), names.get(str(cmd["enemy"]), "")))
            continue
        choices = action.get("choices") or {}
        form = ActionForm(label=_action_label(kind, cmd, unit, ""), command=cmd, kind=kind)
        if "targets" in choices:
            form.targets = [(t, names.get(t, t)) for t in choices["targets"]]
        if kind in ROLLING:
            form.dice = True
        if kind == "shoot":
            form.fields.append("within_12")
        if kind == "complete_charge" and cmd.get("success"):
            form.fields.append("needed")
        if kind == "deploy_unit" and cmd.get("unit") in infiltrators:
            form.fields.append("infiltrate")
        if kind == "dispute_result":
            form.fields.append("reason")
            form.danger = True
        if kind == "confirm_coherency":
            form.removals = coherency_parts(choices.get("units") or (), view)
        # ending the phase is never the loudest button: it leaves what was not done undone
        form.primary = kind in {"roll_off", "confirm_result", "confirm_coherency"}
        out.append(form)
    for form in out:
        if len(form.enemies) == 1:  # nothing to choose: the enemy goes in the command
            form.command["enemy"] = form.enemies[0][0]
            form.label = _action_label(
                form.kind,
                form.command,
                names.get(str(form.command.get("unit")), ""),
                form.enemies[0][1],
            )
            form.enemies = []
    return out


def coherency_parts(heads: Sequence[str], view: Mapping[str, Any]) -> list[tuple[str, str, int]]:
    """The parts of the units a coherency check names (an Attached unit's Bodyguard and
    Leader each have their own model numbers): (unit id, name, models alive)."""
    by_id = {u["id"]: u for u in view.get("units", ())}
    out: list[tuple[str, str, int]] = []
    for h in heads:
        unit = by_id.get(str(h))
        if unit is None:
            continue
        ids = [unit["id"], unit.get("leader"), unit.get("bodyguard")]
        for i in ids:
            part = by_id.get(str(i)) if i else None
            if part is not None and not part["destroyed"] and all(i != o[0] for o in out):
                out.append((part["id"], part["name"], int(part["models_alive"])))
    return out


def _action_label(kind: str, cmd: Mapping[str, Any], unit: str, enemy: str) -> str:
    if kind == "roll_off":
        return _("Roll off")
    if kind == "place_objective":
        return _("Place an objective marker")
    if kind == "deploy_unit":
        return _("Deploy {unit}").format(unit=unit)
    if kind == "scout_move":
        return _("Scouts move: {unit}").format(unit=unit)
    if kind == "end_scouts":
        return _("Done with Scouts moves")
    if kind == "battle_shock_test":
        return _("Battle-shock test: {unit}").format(unit=unit)
    if kind == "move":
        return _("{move}: {unit}").format(move=tr(MOVES, cmd["mode"]), unit=unit)
    if kind == "disembark":
        return _("Disembark {unit}").format(unit=unit)
    if kind == "disembark_destroyed_transport":
        return _("Disembark from the wreck: {unit}").format(unit=unit)
    if kind == "arrive":
        return _("Arrive from Reserves: {unit}").format(unit=unit)
    if kind == "shoot":
        return _("Shoot with {unit}").format(unit=unit)
    if kind == "declare_charge":
        return _("Declare a charge: {unit}").format(unit=unit)
    if kind == "complete_charge":
        if cmd.get("success"):
            return _("Charge move made: {unit}").format(unit=unit)
        return _("Charge failed: {unit}").format(unit=unit)
    if kind == "fight":
        return _("Fight with {unit}").format(unit=unit)
    if kind == "consolidate":
        return _("Pile in and consolidate: {unit}").format(unit=unit)
    if kind == "use_stratagem":
        name = stratagem_name(str(cmd.get("stratagem")))
        parts = [p for p in (unit if cmd.get("unit") else "", enemy) if p]
        return f"{name}" + (f" ({' → '.join(parts)})" if parts else "")
    if kind == "pass":
        return _("Pass")
    if kind == "end_phase":
        return _("End the phase")
    if kind == "confirm_result":
        return _("Confirm the result")
    if kind == "confirm_coherency":
        return _("Confirm unit coherency")
    if kind == "dispute_result":
        return _("Dispute the result")
    return kind.replace("_", " ")


def stratagem_cp(sid: object) -> int | None:
    spec = STRATAGEMS.get(str(sid))
    return None if spec is None else spec.cp


# Commands by which a unit acts in its phase: a unit that still has one has not acted.
ACTING = ("move", "arrive", "shoot", "declare_charge", "fight")


def idle_units(actions: Sequence[Mapping[str, Any]], view: Mapping[str, Any]) -> list[str]:
    """The names of the units that may still act in this phase (move, arrive, shoot, charge,
    fight), each Attached unit once: what ending the phase now would leave undone."""
    by_id = {u["id"]: u for u in view.get("units", ())}
    names: list[str] = []
    for action in actions:
        cmd = action["command"]
        unit = by_id.get(str(cmd.get("unit")))
        if cmd.get("type") in ACTING and unit is not None:
            name = group_name(unit, by_id)
            if name not in names:
                names.append(name)
    return names


# -- what waits on this player ---------------------------------------------------------------


def waiting_on(view: Mapping[str, Any] | None, actions: Sequence[Mapping[str, Any]]) -> str | None:
    """What the game waits for from this player now, in a few words (``None``: nothing).

    From the seat's own legal actions: an undo to answer first, then a result to confirm, then
    any move of theirs (Stratagems alone are a choice, not a wait)."""
    if view is None:
        return None
    kinds = {str(a["command"].get("type")) for a in actions}
    me = (view.get("players") or {}).get(str(view.get("viewer"))) or {}
    if me.get("formation_submitted"):
        kinds.discard("declare_formations")  # declared: it may change, but waits on nobody
    if "approve_undo" in kinds:
        return _("An undo to approve or refuse")
    if "confirm_result" in kinds:
        return _("A result to confirm")
    if "confirm_coherency" in kinds:
        return _("End of the turn: confirm that your units are in coherency")
    if kinds - {"use_stratagem", "dispute_result", "refuse_undo"}:
        return _("Your move")
    return None


# -- objectives --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ObjectiveRow:
    marker: str
    controller: str | None  # the seat that controls it at the end of the last phase
    controller_now: str | None  # from what is reported now
    oc: dict[str, int]  # each seat's Level of Control (the sum of its models' OC)
    units: dict[str, list[str]]  # each seat's units reported within range


def objective_rows(view: Mapping[str, Any]) -> list[ObjectiveRow]:
    """Who controls each objective marker, with the OC behind it (the engine's own count)."""
    by_id = {u["id"]: u for u in view.get("units", ())}
    rows = []
    for o in view.get("objectives", ()):
        units: dict[str, list[str]] = {"A": [], "B": []}
        for seat, entries in (o.get("presence") or {}).items():
            for entry in entries or ():
                unit = by_id.get(str(entry.get("unit")))
                if unit is None or unit["destroyed"]:
                    continue
                name = group_name(unit, by_id)
                if entry.get("models") is not None:
                    name += f" ×{entry['models']}"
                units.setdefault(seat, []).append(name)
        levels = o.get("levels") or {}
        rows.append(
            ObjectiveRow(
                marker=str(o["id"]),
                controller=o.get("controller"),
                controller_now=o.get("controller_now"),
                oc={"A": int(levels.get("A", 0)), "B": int(levels.get("B", 0))},
                units=units,
            )
        )
    return rows


# -- weapon profiles -----------------------------------------------------------------------------


def profile_stats(w: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """A weapon's profile as (short label, its meaning, value): "A" "D6", "D" "D3", never "DD3"."""
    skill_label = (
        (_("WS"), _("Weapon Skill"))
        if w.get("kind") == "melee"
        else (_("BS"), _("Ballistic Skill"))
    )
    out = [(_("A"), _("Attacks"), str(w.get("attacks")))]
    if w.get("skill"):
        out.append((*skill_label, f"{w['skill']}+"))
    out += [
        (_("S"), _("Strength"), str(w.get("strength"))),
        (_("AP"), _("Armour Penetration"), str(w.get("ap"))),
        (_("D"), _("Damage"), str(w.get("damage"))),
    ]
    return out


# -- the last roll ------------------------------------------------------------------------------


# the events whose dice the banner shows die by die (the attacks the match rolled)
DICE_SHOWN = frozenset({"expansion_building_attacked", "expansion_building_fired"})


@dataclass(frozen=True, slots=True)
class RollLine:
    kind: str  # the event's type: roll_off_made, attack_resolved, ...
    text: str
    dice: list[dict[str, Any]] = field(default_factory=list)  # an attack's dice (value, outcome)


def _roll_values(roll: Mapping[str, Any] | None) -> list[int]:
    return [int(d.get("value", 0)) for d in (roll or {}).get("dice", ())]


def last_rolls(
    entries: Sequence[Mapping[str, Any]],
    view: Mapping[str, Any],
    names: Mapping[str, str],
    me: str,
) -> tuple[int, list[RollLine]]:
    """The dice of the latest action, if it rolled any, as the banner both players see: each
    roll-off ("Alice rolled 5, Bruno 3: Alice wins") and each attack's outcome. Returns the
    action's first sequence number (the banner's identity) and its lines."""
    if not entries:
        return 0, []
    last = entries[-1].get("batch")
    batch = [e for e in entries if e.get("batch") == last]
    by_id = {u["id"]: u for u in view.get("units", ())}
    units = {uid: group_name(u, by_id) for uid, u in by_id.items()}
    lines: list[RollLine] = []
    for entry in batch:
        ev = entry["event"]
        kind = str(ev.get("type"))
        if kind == "roll_off_made":
            a, b = [*_roll_values(ev.get("roll")), 0, 0][:2]
            rolled = _("{a} rolled {da}, {b} {db}").format(
                a=names.get("A") or "A", da=a, b=names.get("B") or "B", db=b
            )
            purpose = tr(ROLL_OFFS, ev.get("purpose"))
            if ev.get("winner") is None:
                text = _("Roll-off for {purpose}: {rolled}. A tie: roll again.").format(
                    purpose=purpose, rolled=rolled
                )
            else:
                text = _("Roll-off for {purpose}: {rolled}. {winner} wins.").format(
                    purpose=purpose, rolled=rolled, winner=seat_label(ev["winner"], names, me)
                )
            lines.append(RollLine(kind, text))
        elif kind == "attack_resolved":
            lines.append(
                RollLine(
                    kind,
                    _attack_outcome(ev, units),
                    [dict(d) for d in ev.get("dice") or ()][:MAX_DICE_SHOWN],
                )
            )
        elif ev.get("roll"):  # a charge, a Battle-shock test, a Hazardous test...
            said = describe(ev, units, names, me, actor=entry.get("actor"))
            if said and kind in DICE_SHOWN:  # an attack the match rolled: its dice
                dice = [dict(d) for d in (ev.get("roll") or {}).get("dice") or ()]
                lines.append(RollLine(kind, said, dice[:MAX_DICE_SHOWN]))
            elif said:
                lines.append(RollLine(kind, said))
    return (int(batch[0]["seq"]) if lines else 0), lines


def _attack_outcome(ev: Mapping[str, Any], units: Mapping[str, str]) -> str:
    def u(uid: object) -> str:
        return units.get(str(uid), str(uid))

    return _("{attacker} → {target}: {wounds}, {models}.").format(
        attacker=u(ev.get("attacker")),
        target=u(ev.get("target")),
        wounds=wounds_lost(int(ev.get("wounds_lost") or 0)),
        models=models_destroyed(int(ev.get("models_destroyed") or 0)),
    )


def wounds_lost(n: int) -> str:
    return ngettext("%(num)d wound lost", "%(num)d wounds lost", n) % {"num": n}


def models_destroyed(n: int) -> str:
    return ngettext("%(num)d model destroyed", "%(num)d models destroyed", n) % {"num": n}


# -- the timeline -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Line:
    seq: int
    actor: str
    at: str | None
    text: str
    secret: bool
    undone: bool = False  # an action undone since: shown struck through, its dice kept


def group_name(unit: Mapping[str, Any], units: Mapping[str, Mapping[str, Any]]) -> str:
    """A unit's name, or an Attached unit's as one unit ("Intercessor Squad + Captain")."""
    leader = units.get(unit.get("leader") or "")
    bodyguard = units.get(unit.get("bodyguard") or "")
    if leader is not None and not leader["destroyed"] and not unit["destroyed"]:
        return f"{unit['name']} + {leader['name']}"
    if bodyguard is not None and not bodyguard["destroyed"] and not unit["destroyed"]:
        return f"{bodyguard['name']} + {unit['name']}"
    return str(unit["name"])


def _dice(roll: Mapping[str, Any] | None) -> str:
    if not roll:
        return ""
    return " ".join(str(d.get("value")) for d in roll.get("dice", ()))


def timeline(
    entries: Sequence[Mapping[str, Any]],
    view: Mapping[str, Any],
    names: Mapping[str, str],
    me: str,
    *,
    limit: int = 80,
    stratagems: Mapping[str, MissionStratagem] | None = None,
) -> list[Line]:
    """The latest ``limit`` entries of ``me``'s log as readable lines, newest first."""
    by_id = {u["id"]: u for u in view.get("units", ())}
    units = {uid: group_name(u, by_id) for uid, u in by_id.items()}
    undone = {e["event"].get("batch") for e in entries if e["event"].get("type") == "undone"}
    lines: list[Line] = []
    for entry in list(entries)[-limit:][::-1]:
        text = describe(
            entry["event"], units, names, me, actor=entry.get("actor"), stratagems=stratagems
        )
        if text is None:
            continue
        lines.append(
            Line(
                entry["seq"],
                entry["actor"],
                entry.get("at"),
                text,
                entry.get("audience") is not None,
                entry.get("batch") in undone,
            )
        )
    return lines


MAX_DICE_SHOWN = 30


def _attack_dice(dice: Sequence[Mapping[str, Any]] | None) -> str:
    values = [str(d.get("value")) for d in dice or ()]
    more = len(values) - MAX_DICE_SHOWN
    shown = " ".join(values[:MAX_DICE_SHOWN])
    return shown + (" " + _("(+{n} more)").format(n=more) if more > 0 else "")


def describe(
    ev: Mapping[str, Any],
    units: Mapping[str, str],
    names: Mapping[str, str],
    me: str,
    *,
    actor: str | None = None,
    stratagems: Mapping[str, MissionStratagem] | None = None,
) -> str | None:
    """One event as a short sentence (``None``: bookkeeping the timeline leaves out), with the
    Feel No Pain dice rolled against its mortal wounds, if any [L1857-1869]."""
    if str(ev.get("type", "")).startswith("narrative_"):
        return describe_narrative(ev, units, names, me, stratagems or {})
    if str(ev.get("type", "")).startswith("expansion_"):
        return describe_expansion(ev, units, lambda seat: seat_label(str(seat), names, me))
    if ev.get("type") == "zone_objective_identified":
        return _("Objective {marker} identified for {seat}: {result} (D6: {dice}).").format(
            marker=ev.get("marker"),
            seat=seat_label(str(ev.get("seat")), names, me),
            result=tr(MYSTERIOUS_RESULTS, ev.get("result")),
            dice=_dice(ev.get("roll")),
        )
    text = _describe(ev, units, names, me, actor=actor)
    if text is not None and ev.get("fnp"):
        text += " " + _("Feel No Pain: {dice}.").format(dice=_dice(ev.get("fnp")))
    return text


def _describe(
    ev: Mapping[str, Any],
    units: Mapping[str, str],
    names: Mapping[str, str],
    me: str,
    *,
    actor: str | None = None,
) -> str | None:
    """One event as a short sentence (``None``: bookkeeping the timeline leaves out)."""

    def u(uid: object) -> str:
        return units.get(str(uid), str(uid))

    def us(ids: Sequence[object]) -> str:
        return ", ".join(u(i) for i in ids)

    def who(seat: object) -> str:
        return seat_label(None if seat is None else str(seat), names, me)

    kind = ev.get("type")
    if kind == "match_created":
        return _("The match is created.")
    if kind == "roll_off_made":
        purpose = tr(ROLL_OFFS, ev.get("purpose"))
        if ev.get("winner") is None:
            return _("Roll-off for {purpose}: {dice}, a tie: roll again.").format(
                purpose=purpose, dice=_dice(ev.get("roll"))
            )
        return _("Roll-off for {purpose}: {dice}; {winner} wins.").format(
            purpose=purpose, dice=_dice(ev.get("roll")), winner=who(ev.get("winner"))
        )
    if kind == "objective_placed":
        return _("{seat} places objective marker {marker}.").format(
            seat=who(ev.get("seat")), marker=ev.get("marker")
        )
    if kind == "formation_submitted":
        return _("{seat} has declared their Battle Formations.").format(seat=who(ev.get("seat")))
    if kind == "formation_declared":
        return _("Your Battle Formations (secret until both are in).")
    if kind == "formations_revealed":
        return _("Battle Formations revealed.")
    if kind == "unit_deployed":
        return _("{seat} deploys {units}.").format(seat=who(ev.get("seat")), units=us(ev["units"]))
    if kind == "scout_move":
        return None
    if kind == "scout_moved":
        return _("Scouts move: {units}.").format(units=us(ev["units"]))
    if kind == "scouts_finished":
        return _("{seat} is done with Scouts moves.").format(seat=who(ev.get("seat")))
    if kind == "round_started":
        return _("Battle round {round} begins.").format(round=ev.get("round"))
    if kind == "turn_started":
        return _("{seat}'s turn.").format(seat=who(ev.get("seat")))
    if kind == "phase_started":
        return tr(PHASES, ev.get("phase"))
    if kind in {
        "step_started",
        "phase_ended",
        "turn_ended",
        "round_ended",
        "reaction_window_closed",
        "setup_step_started",
        "objective_control_changed",
    }:
        return None
    if kind == "extra_round_rolled":
        return _("Extra battle round roll: {dice}.").format(dice=_dice(ev.get("roll")))
    if kind == "reaction_window_opened":
        return _("{seat} may react at the end of the Movement phase.").format(
            seat=who(ev.get("seat"))
        )
    if kind == "command_points_gained":
        return _("{seat} gains {n} CP.").format(seat=who(ev.get("seat")), n=ev.get("amount"))
    if kind == "battle_shock_cleared":
        return _("{units} recover from Battle-shock.").format(units=us(ev["units"]))
    if kind == "battle_shock_tested":
        if ev.get("passed"):
            return _("Battle-shock test of {units}: {dice}, passed.").format(
                units=us(ev["units"]), dice=_dice(ev.get("roll"))
            )
        return _("Battle-shock test of {units}: {dice}, failed: Battle-shocked.").format(
            units=us(ev["units"]), dice=_dice(ev.get("roll"))
        )
    if kind == "battle_shock_cancelled":
        return _("{units}: Battle-shock cancelled.").format(units=us(ev["units"]))
    if kind == "move_started":
        return _("{units} start a move: {move}.").format(
            units=us(ev["units"]), move=tr(MOVES, ev.get("mode"))
        )
    if kind == "unit_moved":
        text = _("{units}: {move}").format(units=us(ev["units"]), move=tr(MOVES, ev.get("mode")))
        if ev.get("roll"):
            text += f" ({_dice(ev.get('roll'))})"
        if ev.get("embarked_in"):
            text += " " + _("and embarks in {transport}").format(transport=u(ev["embarked_in"]))
        return text + "."
    if kind == "unit_disembarked":
        return _("{units} disembark from {transport}.").format(
            units=us(ev["units"]), transport=u(ev.get("transport"))
        )
    if kind == "unit_arrived":
        return _("{units} arrive from Reserves.").format(units=us(ev["units"]))
    if kind == "transport_destroyed":
        return _("{transport} is destroyed.").format(transport=u(ev.get("transport")))
    if kind == "unit_selected_to_shoot":
        return _("{units} shoot at {targets}.").format(
            units=us(ev["units"]), targets=us(ev["targets"])
        )
    if kind == "attack_resolved":
        text = _attack_outcome(ev, units)
        if ev.get("dice"):
            text += " " + _("Dice: {dice}.").format(dice=_attack_dice(ev.get("dice")))
        return text
    if kind == "hazardous_tested":
        return _("Hazardous tests of {units}: {dice}.").format(
            units=us(ev["units"]), dice=_dice(ev.get("roll"))
        )
    if kind == "mortal_wounds_inflicted" and ev.get("source") == "support_fire":
        n = int(ev.get("mortal_wounds") or 0)
        return ngettext(
            "Support fire at {target} ({dice}): {n} mortal wound.",
            "Support fire at {target} ({dice}): {n} mortal wounds.",
            n,
        ).format(target=u(ev.get("target")), dice=_dice(ev.get("roll")), n=n)
    if kind == "mortal_wounds_inflicted":
        n = int(ev.get("mortal_wounds") or 0)
        return ngettext(
            "{target} suffers {n} mortal wound.", "{target} suffers {n} mortal wounds.", n
        ).format(target=u(ev.get("target")), n=n)
    if kind == "deadly_demise_rolled":
        n = int(ev.get("explodes") or 0)
        text = _("Deadly Demise of {unit}: {dice}.").format(
            unit=u(ev.get("unit")), dice=_dice(ev.get("roll"))
        )
        if n:
            text += " " + ngettext(
                '{n} six: mortal wounds on the units within 6".',
                '{n} sixes: mortal wounds on the units within 6".',
                n,
            ).format(n=n)
        return text
    if kind == "deadly_demise_resolved":
        if not ev.get("units"):
            return _('{unit} explodes: no unit within 6".').format(unit=u(ev.get("unit")))
        return _('{unit} explodes: {units} within 6".').format(
            unit=u(ev.get("unit")), units=us(ev["units"])
        )
    if kind == "coherency_check_opened":
        return _("End of the turn: confirm unit coherency ({units}).").format(
            units=us(ev.get("units", ()))
        )
    if kind == "coherency_confirmed":
        n = int(ev.get("removed") or 0)
        if not n:
            return _("{seat}: units in coherency.").format(seat=who(ev.get("seat")))
        return ngettext(
            "{seat}: units in coherency, {n} model removed.",
            "{seat}: units in coherency, {n} models removed.",
            n,
        ).format(seat=who(ev.get("seat")), n=n)
    if kind == "models_removed":
        n = len(ev.get("models", ()))
        return ngettext("{unit}: {n} model removed.", "{unit}: {n} models removed.", n).format(
            unit=u(ev.get("unit")), n=n
        )
    if kind == "units_destroyed":
        return _("Destroyed: {units}.").format(units=us(ev["units"]))
    if kind == "charge_declared":
        return _("{units} declare a charge against {targets}: {dice}.").format(
            units=us(ev["units"]), targets=us(ev["targets"]), dice=_dice(ev.get("roll"))
        )
    if kind == "charge_move_made":
        if ev.get("success"):
            return _("{units} complete their Charge move.").format(units=us(ev["units"]))
        return _("{units} fail their charge.").format(units=us(ev["units"]))
    if kind == "unit_selected_to_fight":
        return _("{units} fight.").format(units=us(ev["units"]))
    if kind == "unit_consolidated":
        return _("{units} consolidate.").format(units=us(ev["units"]))
    if kind == "fights_next":
        return _("{unit} fights next.").format(unit=u(ev.get("unit")))
    if kind == "engagement_reported":
        return _("{units} engaged with {targets}.").format(
            units=us(ev["units"]), targets=us(ev["engaged_with"]) or "-"
        )
    if kind == "presence_reported":
        return _("{seat} reports their units at objective {marker}.").format(
            seat=who(ev.get("seat")), marker=ev.get("marker")
        )
    if kind == "victory_points_scored":
        return _("{seat} scores {vp} VP.").format(seat=who(ev.get("seat")), vp=ev.get("vp"))
    if kind == "stratagem_used":
        target = f" ({u(ev['unit'])})" if ev.get("unit") else ""
        return _("{seat} uses {stratagem}{target} for {cp} CP.").format(
            seat=who(ev.get("seat")),
            stratagem=stratagem_name(str(ev.get("stratagem"))),
            target=target,
            cp=ev.get("cp"),
        )
    if kind == "effect_applied":
        return None
    if kind == "roll_rerolled":
        return _("{unit} re-rolls: {dice}.").format(
            unit=u(ev.get("unit")), dice=_dice(ev.get("roll"))
        )
    if kind == "battle_ended":
        result = ev.get("result") or {}
        reason = tr(RESULT_REASONS, result.get("reason"))
        if result.get("winner") is None:
            return _("The battle is over ({reason}): a draw.").format(reason=reason)
        return _("The battle is over ({reason}): {winner} wins.").format(
            reason=reason, winner=who(result.get("winner"))
        )
    if kind == "result_confirmed":
        return _("{seat} confirms the result.").format(seat=who(ev.get("seat")))
    if kind == "result_disputed":
        return _("{seat} disputes the result: {reason}").format(
            seat=who(ev.get("seat")), reason=ev.get("reason", "")
        )
    if kind == "undone":
        return _("{seat} undid action #{batch} (its dice stay in the log).").format(
            seat=who(actor), batch=ev.get("batch")
        )
    if kind == "undo_requested":
        return _("{seat} asks to undo action #{batch}, which rolled dice.").format(
            seat=who(actor), batch=ev.get("batch")
        )
    if kind == "undo_refused":
        return _("{seat} refused to undo action #{batch}: it stands.").format(
            seat=who(actor), batch=ev.get("batch")
        )
    return str(kind).replace("_", " ")


# -- narrative missions (issue 15) -------------------------------------------------------------

NARRATIVE_KINDS = (
    frozenset(
        {
            "declare_power_levels",
            "place_tokens",
            "deploy_forces",
            "go_to_ground",
            "bombard",
            "use_mission_stratagem",
            "raise_alarm",
            "reserve_roll",
            "assault_return",
            "cull_unit",
            "attempt_sabotage",
            "search_hiding_place",
            "report_spy_killed",
            "report_spy_unplaced",
            "escape_unit",
            "report_zones",
        }
    )
    | EXPANSION_KINDS
)
# Narrative commands whose dice the players may roll by hand.
NARRATIVE_ROLLING = frozenset(
    {"bombard", "reserve_roll", "assault_return", "search_hiding_place", "use_mission_stratagem"}
)
# One form per kind, the unit a choice (the engine offers one action per unit).
UNIT_CHOICE = frozenset({"cull_unit", "attempt_sabotage", "escape_unit", "search_hiding_place"})
NARRATIVE_STEPS = {
    "choose_attacker": lazy("Attacker and Defender"),
    "declare_formations": lazy("Declare Battle Formations (in secret)"),
    "hidden_deployment": lazy("Hidden deployment"),
    "defender_deploys": lazy("The Defender deploys"),
    "attacker_deploys": lazy("The Attacker deploys"),
    "defender_patrol": lazy("The Defender's patrol"),
    "attacker_patrol": lazy("The Attacker's patrol"),
    "sentries": lazy("The Defender deploys its sentries"),
    "hiding_places": lazy("Hiding places"),
    "place_objective": lazy("Place the objective"),
    "reveal": lazy("The tokens are revealed"),
    "preliminary_bombardment": lazy("Preliminary bombardment"),
    "first_turn": lazy("Who takes the first turn"),
}
ALARM_STATES = {
    "calm": lazy("calm"),
    "pending": lazy("raised at the end of this turn"),
    "raised": lazy("raised"),
}
ALARM_CAUSES = {
    "ranged_attack": lazy("a ranged attack"),
    "psychic_power": lazy("a psychic power"),
    "sentry_survived_fight": lazy("a sentry survived a fight"),
    "detected": lazy("an Attacker model was detected"),
    "sabotage_attempt": lazy("a sabotage attempt"),
    "spy_found": lazy("the spy was found"),
}
NARRATIVE_RESULTS = {
    "major_victory": lazy("Major victory"),
    "victory": lazy("Victory"),
    "draw": lazy("Draw"),
}
SCORE_ITEMS = {
    "unit_destroyed": lazy("Unit destroyed"),
    "unit_off_battlefield": lazy("Unit not on the battlefield"),
    "first_line": lazy("Units in the first line"),
    "second_line": lazy("Units in the second line"),
    "models_on_battlefield": lazy("Defender models on the battlefield"),
    "escaped": lazy("Escaped"),
    "escaped_total": lazy("Value escaped"),
    "attempts": lazy("Sabotage attempts"),
    "roll": lazy("Sabotage roll"),
    "spy_could_not_be_placed": lazy("The spy could not be placed"),
    "spy": lazy("The spy"),
}
ROLE_REASONS = {
    "higher": lazy("the larger army"),
    "ratio": lazy("the larger army by the mission's ratio"),
    "roll_off": lazy("a roll-off"),
}
# Mission Stratagems and what their target is: a unit, an unrevealed token, a hiding place, a
# unit in the mission's reserves, or one of the player's units that attempted a sabotage.
STRATAGEM_TARGETS = {
    "spies": "token",
    "beacon-scan": "place",
    "sustained-bombardment": "unit",
    "intensive-bombardment": "unit",
    "foxholes": "unit",
    "extra-explosives": "saboteur",
    "rapid-reinforcements": "reserve",
    "rapid-reaction": "reserve",
    "delayed-reserves": "reserve",
    "booby-traps": "arrived",
    "flank-reinforcements": "arrived",
    "forced-march": "arrived",
    "proximity-mines": "enemy",
    "entrenchments": "own",
    "covered-advance": "unmoved",
}


@dataclass(frozen=True, slots=True)
class MissionStratagem:
    id: str
    name: str
    cp_min: int
    cp_max: int
    variable: bool


@dataclass(frozen=True, slots=True)
class ScoreRow:
    side: str  # attacker / defender
    seat: str | None
    item: str
    vp: int
    detail: str


@dataclass(frozen=True, slots=True)
class Evaluation:
    result: str
    winner: str | None
    vp: tuple[int, int] | None  # (Attacker, Defender)
    rows: list[ScoreRow]


@dataclass(frozen=True, slots=True)
class TokenRow:
    token: str
    revealed: bool
    unit: str | None  # the unit's name once revealed (or, for the deployer, its secret unit)
    decoy: bool  # revealed as a decoy, or (deployer only) placed as one
    mine: bool  # from ``my_tokens``: the deploying seat's own secret


@dataclass
class NarrativePanel:
    """What the page shows of a narrative mission (only from the seat's own view)."""

    mission: str
    step: str | None
    attacker: str | None
    defender: str | None
    alarm: str | None  # None: the mission has no alarm
    alarm_cause: str | None
    alarm_round: int | None
    tokens: list[TokenRow]
    reserves: list[str]
    grounded: list[str]
    steady: list[str]  # Iron Discipline passed
    entrenched: list[str]
    searched: list[str]
    places: list[str]
    spy_found_at: str | None
    spy_alive: bool
    sabotage: list[tuple[str, int]]
    stratagems_used: list[tuple[str, str, int, int]]  # seat, name, cp, round
    destroyed_attacker_units: list[str]
    returned: list[str]
    escaped: list[str]
    first_line: list[str]
    second_line: list[str]
    evaluation: Evaluation | None = None


def mission_stratagems(stratagems: Sequence[Any]) -> dict[str, MissionStratagem]:
    """The mission's Stratagems by id, named in the reader's language (pack data, public)."""
    out: dict[str, MissionStratagem] = {}
    for s in stratagems:
        variable = str(s.cost.kind) != "fixed"
        low = s.cost.min if variable else s.cost.cp
        high = s.cost.max if variable else s.cost.cp
        out[s.id] = MissionStratagem(s.id, localized(s.name, s.id), low, high, variable)
    return out


def _alarm_mission(n: Mapping[str, Any]) -> bool:
    return n.get("evaluator") in ("sabotage", "rescue")


def narrative_panel(
    view: Mapping[str, Any],
    log: Sequence[Mapping[str, Any]],
    stratagems: Mapping[str, MissionStratagem],
) -> NarrativePanel | None:
    """The narrative panel from ``view["narrative"]`` (``None``: not a narrative mission)
    and, once the battle is over, the victory evaluation found in the seat's log."""
    n = view.get("narrative")
    if not n:
        return None
    by_id = {u["id"]: u for u in view.get("units", ())}

    def name(uid: object) -> str:  # an Attached unit as one unit, as on the timeline
        unit = by_id.get(str(uid))
        return group_name(unit, by_id) if unit is not None else str(uid)

    mine = n.get("my_tokens") or {}
    tokens = []
    for t in n.get("tokens", ()):
        token = str(t["token"])
        if t.get("revealed"):
            unit = t.get("unit")
            tokens.append(TokenRow(token, True, name(unit) if unit else None, unit is None, False))
        elif token in mine:
            unit = mine[token]
            tokens.append(TokenRow(token, False, name(unit) if unit else None, unit is None, True))
        else:
            tokens.append(TokenRow(token, False, None, False, False))
    attacker = n.get("attacker")
    defender = None if attacker is None else ("B" if attacker == "A" else "A")
    alarm = n.get("alarm") or {}
    panel = NarrativePanel(
        mission=str(n.get("mission")),
        step=n.get("step") or None,
        attacker=attacker,
        defender=defender,
        alarm=str(alarm.get("state")) if _alarm_mission(n) else None,
        alarm_cause=alarm.get("cause"),
        alarm_round=alarm.get("round"),
        tokens=tokens,
        reserves=[name(u) for u in n.get("reserves", ())],
        grounded=[name(u) for u in n.get("grounded", ())],
        steady=[name(u) for u in n.get("steady", ())],
        entrenched=[name(u) for u in n.get("entrenched", ())],
        searched=[str(p) for p in n.get("searched", ())],
        places=[str(p) for p in n.get("hiding_places", ())],
        spy_found_at=n.get("spy_found_at"),
        spy_alive=bool(n.get("spy_alive", True)),
        sabotage=[(name(u), int(r)) for u, r in n.get("sabotage_attempts", ())],
        stratagems_used=[
            (
                str(s["seat"]),
                stratagems[s["stratagem"]].name if s["stratagem"] in stratagems else s["stratagem"],
                int(s["cp"]),
                int(s["round"]),
            )
            for s in n.get("stratagems_used", ())
        ],
        destroyed_attacker_units=[name(u) for u in n.get("destroyed_attacker_units", ())],
        returned=[name(u) for u in n.get("returned", ())],
        escaped=[name(u) for u in n.get("escaped", ())],
        first_line=[name(u) for u in n.get("first_line", ())],
        second_line=[name(u) for u in n.get("second_line", ())],
    )
    for entry in reversed(log):
        ev = entry["event"]
        if ev.get("type") == "narrative_evaluated":
            panel.evaluation = _evaluation(ev, attacker, defender)
            break
    return panel


def _evaluation(ev: Mapping[str, Any], attacker: str | None, defender: str | None) -> Evaluation:
    seats = {"attacker": attacker, "defender": defender}
    vp = ev.get("vp")
    rows = [
        ScoreRow(
            side=str(line.get("side")),
            seat=seats.get(str(line.get("side"))),
            item=tr(SCORE_ITEMS, line.get("item")),
            vp=int(line.get("vp") or 0),
            detail=str(line.get("detail") or ""),
        )
        for line in ev.get("breakdown") or ()
    ]
    return Evaluation(
        result=str(ev.get("result")),
        winner=ev.get("winner"),
        vp=(int(vp[0]), int(vp[1])) if vp else None,
        rows=rows,
    )


def power_total(
    levels: Mapping[str, int],
    units: Sequence[Mapping[str, Any]],
    names: Mapping[str, str],
    me: str,
) -> str:
    """The Power Levels entered, as each army's total ("Alice (you): 7 · Bob: 30")."""
    owners = {str(u["id"]): str(u["owner"]) for u in units}
    totals: dict[str, int] = {}
    for uid, level in levels.items():
        seat = owners.get(str(uid), "")
        totals[seat] = totals.get(seat, 0) + int(level)
    return " · ".join(
        f"{seat_label(seat, names, me)}: {total}" for seat, total in sorted(totals.items())
    )


def narrative_form(
    action: Mapping[str, Any],
    view: Mapping[str, Any],
    stratagems: Mapping[str, MissionStratagem],
) -> ActionForm:
    """One narrative command as a form, with the inputs it needs."""
    cmd = dict(action["command"])
    kind = str(cmd["type"])
    choices = action.get("choices") or {}
    n = view.get("narrative") or {}
    me = view.get("viewer")
    by_id = {u["id"]: u for u in view.get("units", ())}
    names = {uid: group_name(u, by_id) for uid, u in by_id.items()}

    def on_table(seat: object) -> list[tuple[str, str]]:
        return [
            (u["id"], names[u["id"]])
            for u in view.get("units", ())
            if u["owner"] == seat and u["location"] == "battlefield" and not u["destroyed"]
        ]

    form = ActionForm(label=narrative_label(kind, cmd, names, stratagems), command=cmd, kind=kind)
    if kind in EXPANSION_KINDS:
        expansion_form(form, view, names, choices)
        return form
    form.dice = kind in NARRATIVE_ROLLING
    form.primary = kind in {"declare_power_levels", "place_tokens", "deploy_forces", "bombard"}
    if kind == "declare_power_levels":  # one number per unit, the ones entered shown
        entered = cmd.get("levels") or {}
        form.units = [(str(u), names.get(str(u), str(u))) for u in choices.get("units") or ()]
        form.levels = {str(u): int(v) for u, v in entered.items() if isinstance(v, int)}
    elif kind in ("place_tokens", "deploy_forces"):
        offered = [*(cmd.get("units") or ()), *(cmd.get("reserves") or ())]
        units = [str(u) for u in choices.get("units") or offered]
        form.units = [(u, names.get(u, u)) for u in units]
        form.checked = [str(u) for u in cmd.get("units") or ()]
        if kind == "place_tokens":
            form.decoys = int(n.get("decoys_allowed") or 0)
    elif kind == "go_to_ground":
        form.units = [
            (uid, label)
            for uid, label in on_table(me)
            if "INFANTRY" in by_id[uid].get("keywords", ())
        ]
    elif kind == "report_zones":
        form.units = on_table(me)
    elif kind in UNIT_CHOICE:
        form.command = {k: v for k, v in cmd.items() if k not in ("unit", "place")}
        form.units = on_table(me)
        form.label = narrative_label(kind, form.command, names, stratagems)
        if kind == "search_hiding_place":
            searched = set(n.get("searched", ()))
            form.places = [str(p) for p in n.get("hiding_places", ()) if p not in searched]
    elif kind == "use_mission_stratagem":
        spec = stratagems.get(str(cmd.get("stratagem")))
        form.stratagem = True
        if spec is not None:
            form.cp = None if spec.variable else spec.cp_min
            if spec.variable:
                form.cp_range = (spec.cp_min, spec.cp_max)
                form.command.pop("cp", None)
        sid = str(cmd.get("stratagem"))
        form.targets = stratagem_targets(sid, view, names)
        form.target_kind = STRATAGEM_TARGETS.get(sid, "")
        if form.target_kind == "unmoved" and not form.targets:
            form.target_kind = ""  # nobody left to Advance: used with no unit named
        if form.target_kind:  # the engine's hint is the select's first choice
            form.command.pop("target", None)
        if not form.target_kind and stratagem_target_kind(sid):
            form.target_kind = "ruin" if stratagem_target_kind(sid) == "ruin" else "unit"
            form.targets = expansion_targets(sid, view, names)
            form.command.pop("target", None)
    return form


def stratagem_targets(
    sid: str, view: Mapping[str, Any], names: Mapping[str, str]
) -> list[tuple[str, str]]:
    """What a mission Stratagem may name (empty: it names nothing)."""
    n = view.get("narrative") or {}
    what = STRATAGEM_TARGETS.get(sid)
    if what == "token":
        return [(t["token"], t["token"]) for t in n.get("tokens", ()) if not t.get("revealed")]
    if what == "place":
        searched = set(n.get("searched", ()))
        return [(p, p) for p in n.get("hiding_places", ()) if p not in searched]
    if what == "reserve":
        return [(u, names.get(u, u)) for u in n.get("reserves", ())]
    if what == "arrived":
        return [(u, names.get(u, u)) for u in n.get("arrived_now", ())]
    if what in ("enemy", "own"):
        me = view.get("viewer")
        return [
            (u["id"], names[u["id"]])
            for u in view.get("units", ())
            if (u["owner"] == me) == (what == "own")
            and (u["location"] == "battlefield" or (what == "own" and u["location"] == "to_deploy"))
            and not u["destroyed"]
        ]
    if what == "unmoved":  # Covered Advance: one of yours yet to move (ruling 95)
        me = view.get("viewer")
        return [
            (u["id"], names[u["id"]])
            for u in view.get("units", ())
            if u["owner"] == me
            and u["location"] == "battlefield"
            and not u["destroyed"]
            and u.get("move") is None
            and u.get("bodyguard") is None
        ]
    if what == "saboteur":
        tried = {str(u) for u, _r in n.get("sabotage_attempts", ())}
        return [(u, names.get(u, u)) for u in sorted(tried)]
    if what == "unit":
        return [
            (u["id"], names[u["id"]])
            for u in view.get("units", ())
            if u["location"] == "battlefield" and not u["destroyed"]
        ]
    return []


def narrative_label(
    kind: str,
    cmd: Mapping[str, Any],
    names: Mapping[str, str],
    stratagems: Mapping[str, MissionStratagem],
) -> str:
    unit = names.get(str(cmd.get("unit")), str(cmd.get("unit", "")))
    if kind == "declare_power_levels":
        return _("Enter my units' Power Levels")
    if kind == "place_tokens":
        return _("Place my hidden deployment tokens")
    if kind == "deploy_forces":
        return _("Deploy my forces")
    if kind == "go_to_ground":
        return _("Go to ground")
    if kind == "bombard":
        return _("Roll the preliminary bombardment")
    if kind == "use_mission_stratagem":
        spec = stratagems.get(str(cmd.get("stratagem")))
        return spec.name if spec is not None else str(cmd.get("stratagem"))
    if kind == "raise_alarm":
        return _("Raise the alarm: {cause}").format(cause=tr(ALARM_CAUSES, cmd.get("cause")))
    if kind == "reserve_roll":
        return _("Bring in from the mission's reserves: {unit}").format(unit=unit)
    if kind == "assault_return":
        return _("Sustained assault: roll for the destroyed units")
    if kind == "cull_unit":
        return _("Remove a unit at a quarter strength (sustained assault)")
    if kind == "attempt_sabotage":
        return _("Attempt a sabotage")
    if kind == "search_hiding_place":
        return _("Search a hiding place")
    if kind == "report_spy_killed":
        return _("The spy was killed")
    if kind == "report_spy_unplaced":
        return _("The spy cannot be placed: the Attacker loses")
    if kind == "escape_unit":
        return _("A unit escapes off the battlefield")
    if kind == "report_zones":
        return _("Report the units in the first and second lines")
    return kind.replace("_", " ")


MYSTERIOUS_RESULTS = {
    "sabotaged": lazy("Sabotaged! (the unit that identified it suffers D3 mortal wounds)"),
    "nothing": lazy("Nothing to report"),
    "grav-wave": lazy('Grav-wave generator (-2 to charges against your units within 3")'),
    "targeting-relay": lazy('Targeting relay (your units within 3" re-roll hit rolls of 1)'),
    "scatter-field": lazy('Scatter field (your units within 3" re-roll saving throws of 1)'),
    "support-fire": lazy(
        'Support fire (end of your Shooting phase, 5+: D3 mortal wounds to an enemy within 36")'
    ),
}
"""Night Fight's mysterious objectives [L603-L615], while their controller holds them."""


def describe_narrative(
    ev: Mapping[str, Any],
    units: Mapping[str, str],
    names: Mapping[str, str],
    me: str,
    stratagems: Mapping[str, MissionStratagem],
) -> str | None:
    """A narrative mission's event as a short sentence (``None``: left out)."""

    def u(uid: object) -> str:
        return units.get(str(uid), str(uid))

    def us(ids: Sequence[object]) -> str:  # an Attached unit's parts: named once
        return ", ".join(dict.fromkeys(u(i) for i in ids)) or "-"

    def who(seat: object) -> str:
        return seat_label(None if seat is None else str(seat), names, me)

    kind = ev.get("type")
    if kind == "narrative_power_levels_declared":
        levels = ev.get("levels") or {}
        return _("{seat} entered the Power Levels of their units: {levels}.").format(
            seat=who(ev.get("seat")),
            levels=", ".join(f"{u(k)} {v}" for k, v in levels.items()),
        )
    if kind == "narrative_roles_chosen":
        text = _("{seat} is the Attacker ({reason}).").format(
            seat=who(ev.get("attacker")), reason=tr(ROLE_REASONS, ev.get("reason"))
        )
        if ev.get("roll"):
            text += " " + _("Dice: {dice}.").format(dice=_dice(ev.get("roll")))
        return text
    if kind == "narrative_tokens_placed":  # the deployer's own secret
        tokens = ev.get("tokens") or {}
        placed = ", ".join(
            f"{t}: {u(unit) if unit else _('decoy')}" for t, unit in sorted(tokens.items())
        )
        return _("Your hidden deployment (secret): {tokens}.").format(tokens=placed)
    if kind == "narrative_tokens_laid":
        n = len(ev.get("tokens") or ())
        text = ngettext(
            "{seat} lays {n} hidden deployment token.",
            "{seat} lays {n} hidden deployment tokens.",
            n,
        ).format(seat=who(ev.get("seat")), n=n)
        if ev.get("reserves"):
            text += " " + _("In reserve: {units}.").format(units=us(ev["reserves"]))
        return text
    if kind == "narrative_token_revealed":
        if ev.get("unit") is None:
            return _("Token {token} is revealed: a decoy, removed.").format(token=ev.get("token"))
        if ev.get("forced"):
            return _("Token {token} is revealed by Spies: {unit}.").format(
                token=ev.get("token"), unit=u(ev.get("unit"))
            )
        return _("Token {token} is revealed: {unit}.").format(
            token=ev.get("token"), unit=u(ev.get("unit"))
        )
    if kind == "narrative_forces_deployed":
        text = _("{seat} deploys {units}.").format(seat=who(ev.get("seat")), units=us(ev["units"]))
        if ev.get("reserves"):
            text += " " + _("In reserve: {units}.").format(units=us(ev["reserves"]))
        return text
    if kind == "narrative_go_to_ground":
        return _("Ready to go to ground: {units}.").format(units=us(ev.get("units") or ()))
    if kind == "narrative_bombardment":
        if not ev.get("hit"):
            return _("Bombardment of {unit}: {dice}, missed.").format(
                unit=u(ev.get("target")), dice=_dice(ev.get("roll"))
            )
        n = int(ev.get("mortal_wounds") or 0)
        text = ngettext(
            "Bombardment of {unit}: {dice}, hit: {n} mortal wound.",
            "Bombardment of {unit}: {dice}, hit: {n} mortal wounds.",
            n,
        ).format(unit=u(ev.get("target")), dice=_dice(ev.get("roll")), n=n)
        if ev.get("grounded"):
            text += " " + _("It went to ground.")
        return text
    if kind == "narrative_stratagem_dice":
        spec = stratagems.get(str(ev.get("stratagem")))
        n = int(ev.get("slain") or 0)
        return ngettext(
            "{stratagem} on {unit}: {dice}, {n} model slain.",
            "{stratagem} on {unit}: {dice}, {n} models slain.",
            n,
        ).format(
            stratagem=spec.name if spec else ev.get("stratagem"),
            unit=u(ev.get("target")),
            dice=_dice(ev.get("roll")),
            n=n,
        )
    if kind == "narrative_fog_of_war":
        dice = f" ({_dice(ev.get('roll'))})"
        if ev.get("delayed"):
            return _("{unit} is delayed by the fog of war{dice}: it arrives next turn.").format(
                unit=us(ev.get("units") or ()), dice=dice
            )
        return _("{unit} comes through the fog of war{dice}.").format(
            unit=us(ev.get("units") or ()), dice=dice
        )
    if kind == "narrative_iron_discipline":
        steady = ev.get("steady") or ()
        if not steady:
            return _("Iron Discipline: {dice}. Every unit stays gone to ground.").format(
                dice=_dice(ev.get("roll"))
            )
        return _("Iron Discipline: {dice}. Acting normally in their first turn: {units}.").format(
            dice=_dice(ev.get("roll")), units=us(steady)
        )
    if kind == "narrative_bombardment_finished":
        return _("The preliminary bombardment is over.")
    if kind == "narrative_first_turn":
        return _("{seat} takes the first turn.").format(seat=who(ev.get("first")))
    if kind == "narrative_stratagem_used":
        sid = str(ev.get("stratagem"))
        spec = stratagems.get(sid)
        target = ev.get("target")
        text = _("{seat} uses {stratagem} for {cp} CP.").format(
            seat=who(ev.get("seat")), stratagem=spec.name if spec else sid, cp=ev.get("cp")
        )
        if target:
            text += " " + _("Target: {target}.").format(target=u(target))
        return text
    if kind == "narrative_alarm":
        cause = tr(ALARM_CAUSES, ev.get("cause"))
        if ev.get("state") == "pending":
            return _("The alarm will be raised at the end of this turn: {cause}.").format(
                cause=cause
            )
        if ev.get("truncate"):
            return _("The alarm is raised: {cause}. The Attacker's turn ends now.").format(
                cause=cause
            )
        return _("The alarm is raised: {cause}.").format(cause=cause)
    if kind == "narrative_reserve_rolled":
        dice = f" ({_dice(ev.get('roll'))})" if ev.get("roll") else ""
        if ev.get("reason") == "fog_of_war":
            return _("{unit} is delayed by the fog of war{dice}: it arrives next turn.").format(
                unit=u(ev.get("unit")), dice=dice
            )
        if ev.get("arrives"):
            return _("{unit} arrives from the mission's reserves{dice}.").format(
                unit=u(ev.get("unit")), dice=dice
            )
        return _("{unit} stays in the mission's reserves{dice}.").format(
            unit=u(ev.get("unit")), dice=dice
        )
    if kind == "narrative_assault_return":
        return _("Sustained assault: {dice}; back on the battlefield: {units}.").format(
            dice=_dice(ev.get("roll")), units=us(ev.get("returned") or ())
        )
    if kind == "narrative_attacker_units_down":
        if ev.get("culled"):
            return _("Removed at a quarter strength: {units}.").format(units=us(ev["units"]))
        return None  # the destruction itself is on the timeline already
    if kind == "narrative_sabotage_attempted":
        return _("{unit} attempts a sabotage (battle round {round}).").format(
            unit=u(ev.get("unit")), round=ev.get("round")
        )
    if kind == "narrative_hiding_place_searched":
        found = _("the spy is found") if ev.get("found") else _("nobody there")
        if ev.get("scan"):
            return _("Beacon scan of hiding place {place}: {dice}, {found}.").format(
                place=ev.get("place"), dice=_dice(ev.get("roll")), found=found
            )
        return _("{unit} searches hiding place {place}: {dice}, {found}.").format(
            unit=u(ev.get("unit")), place=ev.get("place"), dice=_dice(ev.get("roll")), found=found
        )
    if kind == "narrative_spy_killed":
        return _("The spy is killed.")
    if kind == "narrative_unit_escaped":
        return _("Escaped off the battlefield: {units}.").format(units=us(ev["units"]))
    if kind == "narrative_zones_reported":
        return _("First line: {first}; second line: {second}.").format(
            first=us(ev.get("first_line") or ()), second=us(ev.get("second_line") or ())
        )
    if kind == "narrative_evaluated":
        result = tr(NARRATIVE_RESULTS, ev.get("result"))
        if ev.get("winner") is None:
            return _("The mission is evaluated: {result}.").format(result=result)
        return _("The mission is evaluated: {result} for {winner}.").format(
            result=result, winner=who(ev.get("winner"))
        )
    return str(kind).replace("_", " ")
