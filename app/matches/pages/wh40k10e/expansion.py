"""The expansions of the narrative missions on the 10th-edition match page: their forms (one
per command kind, the building, unit or aircraft a choice), the inputs a form posts, and the
panel (buildings, Planetary Assault, combat airspace, the Dogfight, Cities of Death) with the
rules the table keeps (docs/rulings/narrative-8e.md, 61-70). Everything shown comes from the
seat's own view: a *Booby Traps* ruin only on its owner's page until it triggers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.datastructures import FormData

from app.core.i18n import gettext as _
from app.core.i18n import lazy
from app.core.ids import parse_int
from app.matches.present import tr

__all__ = [
    "EXPANSION_KINDS",
    "EXPANSION_ROLLING",
    "ExpansionPanel",
    "expansion_form",
    "expansion_inputs",
    "expansion_panel",
    "stratagem_target_kind",
]

EXPANSION_KINDS = frozenset(
    {
        "place_building",
        "occupy_building",
        "leave_building",
        "damage_building",
        "garrison_roll",
        "firestorm",
        "leave_airspace",
        "return_to_airspace",
        "dogfight_pick",
        "dogfight_pass",
        "trigger_trap",
        "medical_roll",
        "building_shoots",
        "support_fire",
    }
)
# the commands whose dice the players may roll by hand
EXPANSION_ROLLING = frozenset(
    {"garrison_roll", "firestorm", "return_to_airspace", "trigger_trap", "medical_roll"}
)
# one form per kind: the building, unit or aircraft is a choice of the form
MERGED = frozenset(EXPANSION_KINDS - {"place_building", "dogfight_pass", "firestorm"})

BUILDINGS = {
    "bastion": lazy("Bastion"),
    "defence-emplacement": lazy("Defence Emplacement"),
    "bunker": lazy("Bunker"),
    "fortress": lazy("Fortress"),
}
WEAPONS = {
    "icarus-lascannon": lazy("Icarus lascannon"),
    "quad-gun": lazy("Quad-gun"),
}
# every weapon a building may fire (building_shoots), the emplacements' guns among them
GUNS = {
    **WEAPONS,
    "heavy-bolter": lazy("heavy bolter"),
    "missile-silo": lazy("Missile silo"),
}
ARCS = {
    "front": lazy("front (head-on)"),
    "side": lazy("side (deflection)"),
    "rear": lazy("rear"),
}
PLACEMENTS = {"orbit": lazy("from orbit"), "landing_zone": lazy("from the landing zone")}
# what the match leaves to the table, per expansion (rulings 63-70)
REMINDERS = {
    "planetstrike": (
        lazy(
            'Firestorm: the six numbered dice at least 9" apart; a unit within 3" of the die '
            "rolled suffers D6 mortal wounds (D3 if it went to ground)."
        ),
        lazy('From orbit: set up more than 6" from enemies; landing zone: within 6" of its edge.'),
        lazy(
            "Buildings cannot move or fight and are hit automatically in the Fight phase; "
            "occupants can only shoot."
        ),
        lazy(
            "Defence Emplacement: +1 to hit a unit that can FLY or arrived from orbit in the "
            "Attacker's last turn, -1 otherwise."
        ),
    ),
    "stronghold-assault": (
        lazy(
            "A Gun Never Sleeps: the Attacker's Heavy weapons ignore the moving penalty "
            "against a Bunker or Fortress."
        ),
        lazy(
            'Defence Lines: cover within 1" behind them; take cover: +2 to saves, no action '
            'until the next enemy turn; fight across them within 2".'
        ),
        lazy("Sappers: +1 to wound a Bunker or Fortress this phase."),
    ),
    "death-from-the-skies": (
        lazy(
            "The Dogfight opens the Shooting phase: aircraft shoot only at the aircraft picked; "
            "turret weapons any arc, tail weapons the rear arc, the others the front arc; no "
            "bombs."
        ),
        lazy(
            'A returning aircraft is set up touching an edge and moves 6" straight (it counts '
            "as moving its maximum)."
        ),
        lazy("Evasive Manoeuvres: re-roll failed saves this phase, -1 to hit until the turn ends."),
    ),
    "cities-of-death": (
        lazy(
            "Infantry in ruins that did not move get +2 instead of +1 to saves against shooting; "
            "others need half of each model hidden."
        ),
        lazy('High Ground (3" above every target model): no cover for the target.'),
        lazy('Streets: +2" to a move along a road (+4" if Advancing), not for FLY.'),
        lazy("Grenades against a unit in ruins: re-roll failed wounds, random attacks at maximum."),
        lazy("Medical Centre: a 6 ignores a wound lost by a model occupying the ruin."),
    ),
}


@dataclass
class BuildingRow:
    id: str
    kind: str
    controller: str
    wounds: int
    max_wounds: int
    inside: int
    capacity: int
    weapon: str | None
    destroyed: bool
    garrison_due: int


@dataclass
class ExpansionPanel:
    id: str
    name: str
    buildings: list[BuildingRow] = field(default_factory=list)
    placements: list[tuple[str, str]] = field(default_factory=list)
    orbit_arrivals: list[tuple[str, int]] = field(default_factory=list)
    off_airspace: list[tuple[str, int]] = field(default_factory=list)
    never_returned: list[str] = field(default_factory=list)
    dogfight: list[dict[str, Any]] = field(default_factory=list)
    traps: list[str] = field(default_factory=list)  # the seat's own, secret
    triggered: list[dict[str, str]] = field(default_factory=list)
    medical: list[dict[str, str]] = field(default_factory=list)
    sewer: list[str] = field(default_factory=list)
    firestorm_done: bool = False
    firestorm_extra: int = 0
    rapid_drop_left: int = 0
    reminders: list[str] = field(default_factory=list)


def _weapon_label(weapon: str | None) -> str | None:
    if weapon is None:
        return None
    if weapon.startswith("heavy-bolter:"):
        return _("%(n)s extra heavy bolters") % {"n": weapon.removeprefix("heavy-bolter:")}
    return tr(WEAPONS, weapon)


def expansion_panel(
    view: Mapping[str, Any], name: str, names: Mapping[str, str]
) -> ExpansionPanel | None:
    """The expansion part of the narrative panel (``None``: no expansion)."""
    x = (view.get("narrative") or {}).get("expansion")
    if not x:
        return None

    def n(uid: object) -> str:
        return names.get(str(uid), str(uid))

    return ExpansionPanel(
        id=str(x["id"]),
        name=name,
        buildings=[
            BuildingRow(
                b["id"],
                tr(BUILDINGS, b["kind"]),
                str(b["controller"]),
                int(b["wounds"]),
                int(b["max_wounds"]),
                int(b["models_inside"]),
                int(b["capacity"]),
                _weapon_label(b.get("weapon")),
                bool(b["destroyed"]),
                int(b["garrison_due"]),
            )
            for b in x.get("buildings", ())
        ],
        placements=list(
            dict.fromkeys((n(u), tr(PLACEMENTS, p)) for u, p in (x.get("placements") or {}).items())
        ),
        orbit_arrivals=[(n(u), int(r)) for u, r in x.get("orbit_arrivals", ())],
        off_airspace=[(n(u), int(r)) for u, r in (x.get("off_airspace") or {}).items()],
        never_returned=[n(u) for u in x.get("never_returned", ())],
        dogfight=[
            {
                "seat": p["seat"],
                "aircraft": n(p["aircraft"]),
                "target": n(p["target"]),
                "arc": tr(ARCS, p["arc"]),
                "modifier": int(p["modifier"]),
            }
            for p in x.get("dogfight", ())
        ],
        traps=[str(r) for r in x.get("my_traps", ())],
        triggered=[
            {"seat": str(t["seat"]), "ruin": str(t["ruin"]), "unit": n(t["unit"])}
            for t in x.get("triggered", ())
        ],
        medical=[
            {"seat": str(m["seat"]), "ruin": str(m["ruin"])} for m in x.get("medical_centre", ())
        ],
        sewer=[n(u) for u in x.get("sewer_rats", ())],
        firestorm_done=bool(x.get("firestorm_done")),
        firestorm_extra=int(x.get("firestorm_extra") or 0),
        rapid_drop_left=int(x.get("rapid_drop_left") or 0),
        reminders=[str(r) for r in REMINDERS.get(str(x["id"]), ())],
    )


def stratagem_target_kind(sid: str) -> str:
    """What an expansion Stratagem names: a building, a unit of yours on the table, one to set
    up, or a ruin (typed)."""
    return {
        "consolidated-stronghold": "building",
        "escape-hatch": "building",
        "sappers": "own",
        "plunging-fire": "own",
        "evasive-manoeuvres": "own",
        "refuel-rearm-repair": "aircraft_off",
        "sewer-rats": "to_deploy",
        "booby-trapped-ruin": "ruin",
        "medical-centre": "ruin",
    }.get(sid, "")


def stratagem_targets(
    sid: str, view: Mapping[str, Any], names: Mapping[str, str]
) -> list[tuple[str, str]]:
    x = (view.get("narrative") or {}).get("expansion") or {}
    me = view.get("viewer")
    what = stratagem_target_kind(sid)
    if what == "building":
        return [
            (b["id"], b["id"])
            for b in x.get("buildings", ())
            if not b["destroyed"] or b["garrison_due"]
        ]
    if what == "own":
        return [
            (u["id"], names.get(u["id"], u["id"]))
            for u in view.get("units", ())
            if u["owner"] == me and u["location"] == "battlefield" and not u["destroyed"]
        ]
    if what == "aircraft_off":
        return [(u, names.get(u, u)) for u in (x.get("off_airspace") or {})]
    if what == "to_deploy":
        return [
            (u["id"], names.get(u["id"], u["id"]))
            for u in view.get("units", ())
            if u["owner"] == me and u["location"] == "to_deploy"
        ]
    return []


def gun_label(gun: str) -> str:
    """A building's weapon as a choice: "bastion-1: heavy bolter" (``gun``: building|weapon)."""
    building, _sep, weapon = gun.partition("|")
    return f"{building}: {tr(GUNS, weapon)}"


def expansion_form(
    form: Any,
    view: Mapping[str, Any],
    names: Mapping[str, str],
    action_choices: Mapping[str, Any] | None = None,
) -> None:
    """Fill the inputs of an expansion command's form (``form``: a present.ActionForm;
    ``action_choices``: the engine's choices offered with the command)."""
    cmd = form.command
    kind = form.kind
    x = (view.get("narrative") or {}).get("expansion") or {}
    me = view.get("viewer")
    units = view.get("units", ())

    def table(owner_is_me: bool) -> list[tuple[str, str]]:
        return [
            (u["id"], names.get(u["id"], u["id"]))
            for u in units
            if (u["owner"] == me) == owner_is_me
            and u["location"] == "battlefield"
            and not u["destroyed"]
        ]

    standing = [(b["id"], b["id"]) for b in x.get("buildings", ()) if not b["destroyed"]]
    form.dice = kind in EXPANSION_ROLLING
    if kind == "place_building":
        form.label = _("Set up a building: {kind}").format(kind=tr(BUILDINGS, cmd.get("building")))
        if cmd.get("building") == "defence-emplacement":
            form.weapons = [(w, tr(WEAPONS, w)) for w in WEAPONS]
        elif cmd.get("building") == "fortress":
            form.weapons = [
                (f"heavy-bolter:{i}", _weapon_label(f"heavy-bolter:{i}") or "") for i in range(5)
            ]
        cmd.pop("weapon", None)
        return
    if kind in ("occupy_building", "leave_building", "damage_building", "garrison_roll"):
        cmd.pop("building", None)
        cmd.pop("unit", None)
        cmd.pop("wounds", None)
        form.buildings = standing
        if kind == "garrison_roll":
            form.buildings = [
                (b["id"], b["id"]) for b in x.get("buildings", ()) if b["garrison_due"]
            ]
        labels = {
            "occupy_building": _("A unit enters a building"),
            "leave_building": _("A unit leaves a building"),
            "damage_building": _("Report the wounds your attacks did to a building"),
            "garrison_roll": _("Roll for the garrison of a destroyed building"),
        }
        form.label = labels[kind]
        if kind == "occupy_building":
            form.units = table(True)
        elif kind == "leave_building":
            inside = {u for b in x.get("buildings", ()) for u in b.get("occupants", ())}
            form.units = [(u, n) for u, n in table(True) if u in inside]
        elif kind == "damage_building":
            form.fields += ["wounds", "demolitions"]
        return
    if kind == "firestorm":
        form.label = _("Resolve the Firestorm Attacks")
        form.primary = True
        form.fields += ["attacks", "firestorm"]
        form.units = table(False)
        form.buildings = standing
        cmd.pop("hits", None)
        cmd.pop("attacks", None)
        return
    if kind in ("leave_airspace", "return_to_airspace"):
        cmd.pop("unit", None)
        if kind == "leave_airspace":
            form.label = _("An aircraft leaves combat airspace")
            form.units = [(u, n) for u, n in table(True) if _aircraft(units, u)]
        else:
            form.label = _("An aircraft tries to return to combat airspace")
            off = x.get("off_airspace") or {}
            form.units = [(u, names.get(u, u)) for u in off]
        return
    if kind == "dogfight_pick":
        for key in ("aircraft", "target", "arc"):
            cmd.pop(key, None)
        form.label = _("Dogfight: your aircraft shoots an enemy aircraft")
        form.units = [(u, n) for u, n in table(True) if _aircraft(units, u)]
        form.enemies = [(u, n) for u, n in table(False) if _aircraft(units, u)]
        form.arcs = [(a, tr(ARCS, a)) for a in ARCS]
        return
    if kind == "dogfight_pass":
        form.label = _("Dogfight: no other aircraft of yours")
        return
    if kind == "medical_roll":
        cmd.pop("unit", None)
        cmd.pop("wounds", None)
        form.label = _("Medical Centre: roll for the wounds a unit of yours lost in the ruin")
        form.units = [(u["id"], names.get(u["id"], u["id"])) for u in units if u["owner"] == me]
        form.fields.append("lost")
        return
    if kind == "trigger_trap":
        cmd.pop("unit", None)
        form.label = _("Your booby-trapped ruin: an enemy unit moved into it")
        form.enemies = table(False)
        form.fields.append("advanced")
        return
    if kind == "building_shoots":  # the gun and the target are choices; the save is asked
        choices = action_choices or {}
        for key in ("building", "weapon", "target", "save"):
            cmd.pop(key, None)
        form.label = _("A building of yours shoots (the match rolls)")
        form.dice = False
        near = choices.get("min_range") or {}
        form.guns = [(str(g), gun_label(str(g))) for g in choices.get("guns") or ()]
        form.near = {gun_label(str(g)): int(r) for g, r in near.items()}
        offered = {str(t) for t in choices.get("targets") or ()}
        leaders = _leaders(units)  # shot through their Bodyguard unit
        form.enemies = [(u, n) for u, n in table(False) if u in offered and u not in leaders]
        form.fields += ["save", "toughness"]
        return
    if kind == "support_fire":  # each marker aims at an enemy unit of the player's choice
        form.label = _("Support fire, then end the Shooting phase")
        form.markers = sorted(str(m) for m in (cmd.get("targets") or {}))
        leaders = _leaders(units)
        form.enemies = [(u, n) for u, n in table(False) if u not in leaders]
        cmd.pop("targets", None)


def _leaders(units: Any) -> set[str]:
    """The Leaders of a living Bodyguard: their Attached unit is named by its Bodyguard."""
    alive = {u["id"] for u in units if not u["destroyed"]}
    return {u["id"] for u in units if u.get("bodyguard") in alive and u["id"] in alive}


def _aircraft(units: Any, uid: str) -> bool:
    return any(u["id"] == uid and "AIRCRAFT" in u.get("keywords", ()) for u in units)


def _texts(form: FormData, name: str, limit: int = 100) -> list[str]:
    return [v.strip()[:64] for v in form.getlist(name) if isinstance(v, str) and v.strip()][:limit]


def _one(form: FormData, name: str, size: int = 64) -> str | None:
    value = form.get(name)
    return value.strip()[:size] if isinstance(value, str) and value.strip() else None


def expansion_inputs(form: FormData, kind: str, cmd: dict[str, Any]) -> None:
    """The inputs an expansion form posts: the building, unit, aircraft, weapon, arc, the
    wounds reported, the Firestorm's count and what lies near each numbered die."""
    for name in ("building", "weapon", "aircraft", "target", "arc"):
        value = _one(form, name)
        if value is not None:
            cmd[name] = value
    if kind == "medical_roll":
        cmd["wounds"] = parse_int(form.get("lost"), 1, 30) or 1
    if kind in (
        "occupy_building",
        "leave_building",
        "leave_airspace",
        "return_to_airspace",
        "medical_roll",
    ):
        unit = _one(form, "unit")
        if unit is not None:
            cmd["unit"] = unit
    if kind == "trigger_trap":
        cmd.pop("enemy", None)
        enemy = _one(form, "enemy")
        if enemy is not None:
            cmd["unit"] = enemy
        cmd["advanced"] = bool(form.get("advanced"))
    if kind == "damage_building":
        cmd["wounds"] = parse_int(form.get("wounds"), 0, 60) or 0
        cmd["demolitions"] = parse_int(form.get("demolitions"), 0, 60) or 0
    if kind == "building_shoots":
        gun = _one(form, "gun", 130)
        if gun is not None:
            building, _sep, weapon = gun.partition("|")
            cmd["building"], cmd["weapon"] = building[:64], weapon[:64]
        for name in ("save", "invulnerable_save", "toughness"):
            number = parse_int(form.get(name), 0, 99)  # out of the rules' range: the refusal
            if number is not None:
                cmd[name] = number
            else:
                cmd.pop(name, None)
        cmd["within_18"] = bool(form.get("within_18"))
    if kind == "support_fire":  # "aim_<marker>": the enemy unit the marker aims at
        aims: dict[str, str] = {}
        for key, aim in form.multi_items():
            if key.startswith("aim_") and isinstance(aim, str) and aim.strip():
                aims[key.removeprefix("aim_")[:16]] = aim.strip()[:64]
        cmd["targets"] = dict(list(aims.items())[:20])
    if kind == "firestorm":
        cmd["attacks"] = parse_int(form.get("attacks"), 0, 12) or 0
        hits: dict[str, list[str]] = {}
        for die in range(1, 7):
            near = _texts(form, f"die_{die}", 40)
            if near:
                hits[str(die)] = near
        cmd["hits"] = hits
        cmd["go_to_ground"] = _texts(form, "go_to_ground")


def _dice(roll: Mapping[str, Any] | None) -> str:
    if not roll:
        return ""
    return " ".join(str(d.get("value")) for d in roll.get("dice", ()))


def describe_expansion(ev: Mapping[str, Any], units: Mapping[str, str], who: Any) -> str | None:
    """An expansion event as a short sentence for the timeline (``who``: a seat's label)."""
    kind = str(ev.get("type"))

    def u(uid: object) -> str:
        return units.get(str(uid), str(uid))

    if kind == "expansion_building_placed":
        return _("{seat} sets up {building}.").format(
            seat=who(ev.get("controller")), building=ev.get("building")
        )
    if kind == "expansion_building_occupied":
        text = _("{unit} enters {building}.").format(
            unit=u((ev.get("units") or [""])[0]), building=ev.get("building")
        )
        if ev.get("captured"):
            text += " " + _("{seat} now holds it.").format(seat=who(ev.get("seat")))
        return text
    if kind == "expansion_building_left":
        return _("{unit} leaves {building}.").format(
            unit=u((ev.get("units") or [""])[0]), building=ev.get("building")
        )
    if kind == "expansion_building_damaged":
        text = _("{building} loses {n} wounds.").format(
            building=ev.get("building"), n=ev.get("wounds")
        )
        if ev.get("demolitions"):
            text += " " + _("Demolitions: {n} of them.").format(n=ev.get("demolitions"))
        if ev.get("destroyed"):
            text += " " + _("It is destroyed: its garrison disembarks.")
        return text
    if kind == "expansion_building_wounds_raised":
        return _("{building} now has {n} wounds.").format(
            building=ev.get("building"), n=ev.get("wounds")
        )
    if kind == "expansion_garrison_rolled":
        return _("Garrison of {building}: {dice}, {n} models slain (1 to {up_to}).").format(
            building=ev.get("building"),
            dice=_dice(ev.get("roll")),
            n=ev.get("slain"),
            up_to=ev.get("slain_up_to"),
        )
    if kind == "expansion_firestorm_attack":
        hits = ", ".join(f"{u(t)} {mw}" for t, mw in ev.get("hits") or ())
        text = _("Firestorm Attack {number}: die {die} ({dice}).").format(
            number=ev.get("number"), die=ev.get("die"), dice=_dice(ev.get("roll"))
        )
        if hits:
            text += " " + _("Mortal wounds: {hits}.").format(hits=hits)
        return text
    if kind == "expansion_firestorm_finished":
        return _("The Firestorm Attacks are over.")
    if kind == "expansion_stratagem_rolled":
        return _("{stratagem}: D3 = {n}.").format(stratagem=ev.get("stratagem"), n=ev.get("value"))
    if kind == "expansion_airspace":
        if ev.get("left"):
            return _("{unit} leaves combat airspace.").format(unit=u(ev.get("unit")))
        dice = f" ({_dice(ev.get('roll'))})" if ev.get("roll") else ""
        if ev.get("returned"):
            return _("{unit} returns to combat airspace{dice}.").format(
                unit=u(ev.get("unit")), dice=dice
            )
        return _("{unit} is delayed{dice}.").format(unit=u(ev.get("unit")), dice=dice)
    if kind == "expansion_aircraft_lost":
        return _("Never returned, counted as destroyed: {units}.").format(
            units=", ".join(u(x) for x in ev.get("units") or ())
        )
    if kind == "expansion_dogfight_pick":
        return _("Dogfight: {aircraft} shoots {target} ({arc}, {mod} to hit).").format(
            aircraft=u(ev.get("aircraft")),
            target=u(ev.get("target")),
            arc=tr(ARCS, ev.get("arc")),
            mod=f"{int(ev.get('modifier') or 0):+d}",
        )
    if kind == "expansion_dogfight_pass":
        return _("Dogfight: {seat} passes.").format(seat=who(ev.get("seat")))
    if kind == "expansion_building_attacked":
        text = _("{unit} attacks {building} ({weapons}): {hits} hits, {n} wounds lost.").format(
            unit=u(ev.get("unit")),
            building=ev.get("building"),
            weapons=ev.get("weapons") or "-",
            hits=ev.get("hits"),
            n=ev.get("wounds"),
        )
        if ev.get("demolitions"):
            text += " " + _("Demolitions: {n} of them.").format(n=ev.get("demolitions"))
        return text
    if kind == "expansion_building_fired":
        lost = sum(int(d.get("damage") or 0) for d in ev.get("damage") or ())
        text = _("{building} fires its {weapon} at {target}: {hits} hits, {n} wounds lost.").format(
            building=ev.get("building"),
            weapon=tr(GUNS, ev.get("weapon")),
            target=u(ev.get("target")),
            hits=ev.get("hits"),
            n=lost,
        )
        if ev.get("modifier"):
            text += " " + _("{mod} to hit.").format(mod=f"{int(ev.get('modifier') or 0):+d}")
        return text
    if kind == "expansion_dogfight_targeted":
        return _("Dogfight: {aircraft} may now attack {target}.").format(
            aircraft=u((ev.get("aircraft") or [""])[0]), target=u((ev.get("target") or [""])[0])
        )
    if kind == "expansion_dogfight_shot":
        return _(
            "Dogfight: {aircraft} made its attack on {target}; its weapons may shoot ground "
            "targets again."
        ).format(
            aircraft=u((ev.get("aircraft") or [""])[0]), target=u((ev.get("target") or [""])[0])
        )
    if kind == "expansion_one_shot_fired":
        return _("{unit} fired its One Shot weapons ({weapons}): spent until re-armed.").format(
            unit=u(ev.get("unit")), weapons=", ".join(str(w) for w in ev.get("weapons") or ())
        )
    if kind == "expansion_aircraft_rearmed":
        return _("{unit} is re-armed: {weapons} may fire again.").format(
            unit=u(ev.get("unit")), weapons=", ".join(str(w) for w in ev.get("weapons") or ())
        )
    if kind == "expansion_planetfall":
        return _("Planetary Assault: the Attacker's units wait in orbit or the landing zone.")
    if kind == "expansion_medical_rolled":
        return _("Medical Centre for {unit}: {dice}, {n} wounds kept.").format(
            unit=u(ev.get("unit")), dice=_dice(ev.get("roll")), n=ev.get("kept")
        )
    if kind == "expansion_arrival":
        return None  # the reserve roll says it
    if kind == "expansion_sewer_rats":
        return _("{unit} goes into the sewers.").format(unit=u((ev.get("units") or [""])[0]))
    if kind == "expansion_ruin_designated":
        return _("{seat} designates the ruin {ruin}.").format(
            seat=who(ev.get("seat")), ruin=ev.get("ruin")
        )
    if kind == "expansion_trap_triggered":
        return _("Booby traps in {ruin}: {unit} suffers {n} mortal wounds ({dice}).").format(
            ruin=ev.get("ruin"),
            unit=u(ev.get("unit")),
            n=ev.get("mortal_wounds"),
            dice=_dice(ev.get("roll")),
        )
    return None
