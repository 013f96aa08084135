"""The PEN battle's match page (``templates/matches/pen/``): the set-up steps, each turn's
phases with forms made from the battle's legal actions (what the table measures, ``needs``,
becomes an input), the squads with their state tokens (pen.md §7.2), vehicles with hull
points, night and dawn, reserves, victory points, and the timeline in sentences
(:mod:`app.matches.pages.pen_timeline`).

Everything is read from what the battle renders for one seat (``view``, ``legal_actions``,
``log_json``) and from the army specs of its set-up (names, weapons), which both players see:
a PEN battle has no secret."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from starlette.datastructures import FormData

from app.core.i18n import gettext as _
from app.core.i18n import lazy
from app.core.ids import parse_int
from app.matches.pages import Choice, OptionField, PageInput, PageSystem
from app.matches.pages.pen_timeline import (
    PHASES,
    RESERVE_MODES,
    SPEEDS,
    describe,
    sentence,
    timeline,
    tr,
)
from app.matches.systems.pen import SYSTEM as _SYSTEM
from app.matches.systems.pen.game import TURN_STRUCTURES

if TYPE_CHECKING:
    from app.engine.match import Mission

__all__ = [
    "PAGE",
    "ActionForm",
    "SquadCard",
    "build_command",
    "describe",
    "timeline",
    "waiting_on",
]

STAGES = {
    "reserves": lazy("Reserves: declare the squads kept in reserve"),
    "roll_off": lazy("Roll-off"),
    "choose": lazy("Who plays first"),
    "deploy": lazy("Deployment"),
    "infiltrate": lazy("Infiltration"),
    "scout": lazy("Scout moves"),
    "battle": lazy("Battle"),
    "scoring": lazy("End of the game: who holds the objectives"),
    "ended": lazy("Battle over"),
}
TOKENS = {
    "gone_to_ground": lazy("gone to ground"),
    "alert": lazy("on alert"),  # EA [L959]
    "stopped": lazy("stopped by alert fire"),  # [L966]
    "retreating": lazy("retreating"),
    "poisoned": lazy("poisoned"),
    "regrouped": lazy("regrouped"),
    "locked": lazy("locked in combat"),
    "charged": lazy("charged"),
    "rammed": lazy("rammed"),
    "out_of_control": lazy("out of control"),
    "embarked": lazy("embarked"),
    "in_reserve": lazy("in reserve"),
    "shaken": lazy("shaken"),
    "stunned": lazy("stunned"),
    "weapons_damaged": lazy("weapon destroyed"),
    "reduced_mobility": lazy("reduced mobility"),
    "immobilised": lazy("immobilised"),
    "damaged": lazy("damaged"),
    "destroyed": lazy("destroyed"),
    "stationary": lazy("stationary"),
    "normal": lazy("normal move"),
    "rapid": lazy("rapid move"),
}
PLACES = {
    "undeployed": lazy("not deployed"),
    "table": lazy("on the table"),
    "reserve": lazy("in reserve"),
    "available": lazy("arriving this turn"),
    "embarked": lazy("embarked"),
    "destroyed": lazy("destroyed"),
}
FACINGS = (("front", lazy("front")), ("side", lazy("side")), ("rear", lazy("rear")))
# -- the squads ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SquadCard:
    id: str
    name: str
    seat: str
    place: str
    models: int
    models_start: int
    wounds_taken: int
    hull_points: int | None
    hull_points_lost: int
    tokens: list[str]
    vehicle: bool
    destroyed: bool
    moves: tuple[int, int] | None = None  # normal and rapid move, ps (pen rulings B37)


def names_of(game: Any) -> dict[str, str]:
    """Every squad's name from the battle's set-up (``a1`` -> "Escouade tactique")."""
    state = getattr(game, "state", None)
    out: dict[str, str] = {}
    for army in getattr(getattr(state, "setup", None), "armies", ()) or ():
        for unit in army.units:
            out[unit.id] = unit.name
    return out


def transports_of(game: Any) -> set[str]:
    """The squads of the battle's set-up that carry others (a capacity) [L290-L293]."""
    state = getattr(game, "state", None)
    return {
        unit.id
        for army in getattr(getattr(state, "setup", None), "armies", ()) or ()
        for unit in army.units
        if getattr(unit, "capacity", 0)
    }


def _is_melee(weapon: Any) -> bool:
    profile = getattr(weapon, "profile", None)
    return isinstance(profile, Mapping) and profile.get("kind") == "melee"


def weapons_of(game: Any) -> dict[str, list[str]]:
    """Each squad's ranged weapons, the ones it shoots with."""
    state = getattr(game, "state", None)
    out: dict[str, list[str]] = {}
    for army in getattr(getattr(state, "setup", None), "armies", ()) or ():
        for unit in army.units:
            out[unit.id] = [w.name for w in unit.weapons if not _is_melee(w)]
    return out


def melee_weapons_of(game: Any) -> dict[str, list[str]]:
    """Each squad's close-combat weapons beyond its first (the one its other models fight
    with): a sergeant's power fist that some of its models wield (pen rulings B28)."""
    state = getattr(game, "state", None)
    out: dict[str, list[str]] = {}
    for army in getattr(getattr(state, "setup", None), "armies", ()) or ():
        for unit in army.units:
            named = [w for w in unit.weapons if _is_melee(w)]
            out[unit.id] = [w.name for w in named if w.profile != unit.melee]
    return out


def _moves(raw: object) -> tuple[int, int] | None:
    """The squad's normal and rapid moves from its view (absent from an older view)."""
    if not isinstance(raw, Mapping):
        return None
    normal, rapid = raw.get("normal"), raw.get("rapid")
    return (normal, rapid) if isinstance(normal, int) and isinstance(rapid, int) else None


def squad_cards(view: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, list[SquadCard]]:
    out: dict[str, list[SquadCard]] = {"A": [], "B": []}
    for u in view.get("units", ()):
        vehicle = u.get("hull_points") is not None and u["hull_points"] > 0
        out.setdefault(u["seat"], []).append(
            SquadCard(
                id=u["id"],
                name=names.get(u["id"], u["id"]),
                seat=u["seat"],
                place=u["place"],
                models=u["models"],
                models_start=u["models_start"],
                wounds_taken=u["wounds_taken"],
                hull_points=u.get("hull_points") if vehicle else None,
                hull_points_lost=u.get("hull_points_lost") or 0,
                tokens=[tr(TOKENS, t) for t in u.get("tokens", ())],
                vehicle=vehicle,
                destroyed=u["place"] == "destroyed",
                moves=_moves(u.get("moves")),
            )
        )
    return out


# -- the action forms ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ActionForm:
    """One command the seat may send now, with the inputs its ``needs`` ask for."""

    kind: str
    label: str
    command: dict[str, Any]
    needs: list[str] = field(default_factory=list)
    targets: list[tuple[str, str]] = field(default_factory=list)  # enemy squads (id, name)
    weapons: list[str] = field(default_factory=list)
    dice: bool = False  # the dice may be rolled by hand
    primary: bool = False
    reserves: list[tuple[str, str]] = field(default_factory=list)  # start_turn: squads to roll
    vehicle_target: bool = False  # fight: the enemy is a vehicle (its facing is asked)
    transports: list[tuple[str, str]] = field(default_factory=list)  # embark: (id, name)
    modes: list[tuple[str, str]] = field(default_factory=list)  # declare_reserve: (mode, label)
    # fight: the squads of a combat of several that face more than one enemy, with those
    # enemies: (squad id, squad name, [(enemy id, enemy name)]) [L1205-L1211]
    pairings: list[tuple[str, str, list[tuple[str, str]]]] = field(default_factory=list)
    # fight: the other close-combat weapons of the combat's squads, for how many models
    # wield each: (squad id, squad name, weapon, models in the squad) [L1274-L1282]
    melee_groups: list[tuple[str, str, str, int]] = field(default_factory=list)
    correction: bool = False  # report_control: an objective already reported, said again
    # fight: the other charged squads of a combat of several, which may have been in cover
    cover: list[tuple[str, str]] = field(default_factory=list)
    # shoot: my squads locked in combat with an enemy, whom the 1s may hit [L1132]
    friends: list[tuple[str, str]] = field(default_factory=list)
    # shoot from a transport: how many carried models may still fire (pen rulings B32)
    fire_points: int = 0

    @property
    def command_json(self) -> str:
        return json.dumps(self.command, separators=(",", ":"))

    @property
    def slug(self) -> str:
        cmd = self.command
        unit = cmd.get("unit") or cmd.get("seat") or ""
        extra = cmd.get("target") or cmd.get("objective") or cmd.get("transport") or ""
        answer = {True: "accept", False: "refuse"}.get(cmd["accept"]) if "accept" in cmd else ""
        parts = (self.kind, str(unit), str(extra), answer or "")
        return "-".join(p for p in parts if p).replace("_", "-")


EXTRA_NEEDS: dict[str, tuple[str, ...]] = {
    # what a command takes beyond what the battle lists as needed (its options)
    "arrive": ("arrival_speed", "edge", "blocked"),
    "move": ("difficult_inches",),
    "shoot": ("models", "template_hits", "friend"),
    "disembark": ("emergency",),
    "fight": ("target_in_cover", "offensive_grenades", "fight_facing"),
    "hit_and_run": ("initiative",),
}
"""The options of a command the page asks for beside its ``needs``: an arrival's speed, the
edge announced for an outflank [L873] and a deep strike's shortened scatter [L890]; a fight's
cover, offensive grenades and the facing a vehicle is hit on [L1205-L1213]; the Initiative step a
Hit & Run squad leaves after (pen rulings B34)."""

ROLLING = frozenset(
    {
        "roll_off",
        "start_turn",
        "move",
        "arrive",
        "shoot",
        "end_activation",  # the targets' morale and pinning tests [L1162]
        "charge",
        "fight",
        "ram",
        "disembark",
        "retreat",  # the enemies' sweeping advance [L1256-L1258]
    }
)
"""The commands that may roll dice, whose forms take dice rolled by hand. Ending the phase
rolls only for the game's length, after rounds 5 and 6 [L826] (:func:`rolls_game_length`)."""


def rolls_game_length(game: Any) -> bool:
    """Ending this phase ends the round of round 5 or later, which rolls the game's length
    [L826]: the second player's assault phase (in the alternation mode of §3.5, the last
    squad's). The battle refuses dice a command does not roll, so the field is shown only
    then."""
    state = getattr(game, "state", None)
    if state is None or str(state.stage) != "battle" or str(state.phase) != "assault":
        return False
    if state.round < 5:
        return False
    if state.alternation:
        seat = state.active_seat or ""
        rest = [u for u in state.unplayed(seat) if u != state.playing]
        return not rest and not state.unplayed("B" if seat == "A" else "A")
    return bool(state.turn == 1)


def reserve_modes(game: Any, unit: str) -> list[tuple[str, str]]:
    """How a squad may wait in reserve: from its table edge, by outflank (Infiltration or
    Scout [L424], [L459]) or by deep strike (Frappe en profondeur [L404])."""
    state = getattr(game, "state", None)
    squad = getattr(state, "units", {}).get(unit)
    rules = set(getattr(squad, "rules", ()) or ())
    modes = ["standard"]
    if rules & {"infiltrate", "scout"}:
        modes.append("outflank")
    if "deep_strike" in rules:
        modes.append("deep_strike")
    return [(m, _(RESERVE_MODES[m])) for m in modes]


def _label(action: Mapping[str, Any], names: Mapping[str, str], me: str) -> str:
    cmd = action["command"]
    kind = str(cmd.get("type"))
    unit = names.get(str(cmd.get("unit")), str(cmd.get("unit") or ""))
    target = names.get(str(cmd.get("target")), str(cmd.get("target") or ""))
    special = _new_command_label(action, unit, target, names)
    if special is not None:
        return special
    labels = {
        "declare_reserve": _("Keep {unit} in reserve").format(unit=unit),
        "end_step": _("Done with this step"),
        "roll_off": _("Roll off"),
        "start_turn": _("Start the turn (dawn, reserves, tests)"),
        "deploy": _("Deploy {unit}").format(unit=unit),
        "scout_move": _("Scout move with {unit}").format(unit=unit),
        "arrive": _("{unit} arrives from reserve").format(unit=unit),
        "move": _("Move {unit}").format(unit=unit),
        "ram": _("Ram with {unit}").format(unit=unit),
        "go_to_ground": _("{unit} goes to ground").format(unit=unit),
        "shoot": _("{unit} shoots").format(unit=unit),
        "end_activation": _("Done with {unit}").format(unit=unit),
        "disembark": _("{unit} disembarks").format(unit=unit),
        "embark": _("{unit} embarks").format(unit=unit),
        "charge": _("{unit} charges").format(unit=unit),
        "fight": _("{unit} fights {target}").format(unit=unit, target=target),
        "consolidate": _("{unit} consolidates").format(unit=unit),
        "retreat": _("{unit} breaks off and retreats").format(unit=unit),
        "confirm_result": _("I agree: confirm the result"),
        "disengage": _("{unit} disengages (a normal move)").format(unit=unit),
        "end_phase": _("End the phase"),
        "approve_undo": _("Approve the undo"),
        "refuse_undo": _("Refuse: the roll stands"),
        "go_on_alert": _("{unit} goes on alert").format(unit=unit),
        "challenge": _("{unit} challenges {target} to a duel").format(unit=unit, target=target),
        "hit_and_run": _("{unit} will try to leave by Hit & Run").format(unit=unit),
    }
    if kind == "choose_first":
        seat = str(cmd.get("seat"))
        return _("I play first") if seat == me else _("My opponent plays first")
    if kind == "report_control":
        holder = str(cmd.get("seat") or "")
        who = _("nobody") if not holder else (_("me") if holder == me else _("my opponent"))
        return _("Objective {objective}: held by {who}").format(
            objective=cmd.get("objective"), who=who
        )
    return labels.get(kind, kind)


def _new_command_label(
    action: Mapping[str, Any], unit: str, target: str, names: Mapping[str, str]
) -> str | None:
    """The labels a command's options change: alert fire out of turn and shots through fire
    points (pen rulings B35, B32), a squad boarding a transport kept in reserve (B31), an
    emergency disembark (B33), the answer to a challenge (B36)."""
    cmd = action["command"]
    kind = str(cmd.get("type"))
    if kind == "shoot" and action.get("alert"):
        return _("{unit} fires on alert").format(unit=unit)
    if kind == "shoot" and action.get("fire_points"):
        return _("{unit} shoots from its transport ({count} models may fire)").format(
            unit=unit, count=action["fire_points"]
        )
    if kind == "embark" and cmd.get("transport") and action.get("stage") == "reserves":
        transport = names.get(str(cmd["transport"]), str(cmd["transport"]))
        return _("{unit} waits in reserve inside {transport}").format(
            unit=unit, transport=transport
        )
    if kind == "disembark" and cmd.get("emergency"):
        return _("{unit} makes an emergency disembark").format(unit=unit)
    if kind == "answer_challenge":
        if cmd.get("accept"):
            return _("{unit} accepts the duel").format(unit=unit)
        return _("{unit} refuses the duel (I1 until the end of the turn)").format(unit=unit)
    return None


def action_forms(page: PageInput, names: Mapping[str, str]) -> list[ActionForm]:
    """The forms of the seat's legal actions, and the commands the battle lists no complete
    form of (deploying a squad, a scout move, shooting with the squad being moved)."""
    view, me = page.view, page.seat
    units = {u["id"]: u for u in view.get("units", ())}
    enemies = [
        (u["id"], names.get(u["id"], u["id"]))
        for u in view.get("units", ())
        if u["seat"] != me and u["place"] == "table"
    ]
    weapons = weapons_of(page.game)
    actions: list[Mapping[str, Any]] = list(page.actions)
    kinds = {str(a["command"].get("type")) for a in actions}
    stage, phase = view.get("stage"), view.get("phase")
    extra: list[Mapping[str, Any]] = []
    if stage in ("deploy", "infiltrate") and "end_step" in kinds:
        extra.extend(
            {"command": {"type": "deploy", "unit": u["id"]}}
            for u in units.values()
            if u["seat"] == me and u["place"] == "undeployed"
        )
    if stage == "scout" and "end_step" in kinds:
        extra.extend(
            {"command": {"type": "scout_move", "unit": u["id"]}, "needs": ["inches"]}
            for u in units.values()
            if u["seat"] == me and u["place"] == "table"
        )
    carriers = [
        (u["id"], names.get(u["id"], u["id"]))
        for u in units.values()
        if u["id"] in transports_of(page.game) and u["seat"] == me and u["place"] == "table"
    ]
    active = view.get("active_unit")
    mine_on_foot = [
        u
        for u in units.values()
        if u["seat"] == me and not u.get("hull_points") and u["id"] not in transports_of(page.game)
    ]
    if carriers and stage == "deploy" and kinds & {"deploy", "end_step"}:  # inside [L276]
        extra.extend(
            {"command": {"type": "embark", "unit": u["id"]}, "needs": ["transport"]}
            for u in mine_on_foot
            if u["place"] == "undeployed"
        )
    if carriers and stage == "battle" and phase == "movement" and view.get("active_seat") == me:
        # at the start or the end of its move, once a turn [L277-L278]: the battle refuses
        # what its rules forbid
        extra.extend(
            {"command": {"type": "embark", "unit": u["id"]}, "needs": ["transport"]}
            for u in mine_on_foot
            if u["place"] == "table"
            and (active == u["id"] or (active is None and "locked" not in u.get("tokens", ())))
        )
    if stage == "battle" and phase == "movement" and view.get("active_seat") == me and active:
        extra.append(
            {
                "command": {"type": "shoot", "unit": active},
                "needs": ["target", "weapon", "range_inches", "half_range", "cover", "facing"],
            }
        )
    in_reserve = [
        (u["id"], names.get(u["id"], u["id"]))
        for u in units.values()
        if u["seat"] == me and u["place"] == "reserve"
    ]
    control = view.get("control") or {}
    friends = [
        (u["id"], names.get(u["id"], u["id"]))
        for u in units.values()
        if u["seat"] == me and u.get("locked_with")
    ]
    # what the battle lists itself (its set-up offers deploys and boardings) is not doubled
    offered = {(str(a["command"].get("type")), a["command"].get("unit")) for a in actions}
    extra = [e for e in extra if (e["command"]["type"], e["command"].get("unit")) not in offered]
    out: list[ActionForm] = []
    for a in extra + actions:
        cmd = dict(a["command"])
        kind = str(cmd.get("type"))
        needs = [str(n) for n in a.get("needs", ())]
        needs += [n for n in EXTRA_NEEDS.get(kind, ()) if not cmd.get(n)]  # said already
        if kind == "start_turn" and in_reserve:
            needs.append("reserves")
        targets = enemies if "target" in needs or "targets" in needs else []
        enemy = units.get(str(cmd.get("target")), {})
        out.append(
            ActionForm(
                kind=kind,
                label=_label({**a, "command": cmd, "stage": stage}, names, me),
                command=cmd,
                needs=needs,
                targets=targets,
                weapons=weapons.get(str(cmd.get("unit")), []) if kind == "shoot" else [],
                dice=kind in ROLLING,
                primary=kind in ("start_turn", "roll_off", "shoot", "fight", "confirm_result"),
                reserves=in_reserve if "reserves" in needs else [],
                vehicle_target=bool(enemy.get("hull_points")),
                transports=carriers if kind == "embark" else [],
                modes=reserve_modes(page.game, str(cmd.get("unit")))
                if kind == "declare_reserve"
                else [],
                pairings=pairings_of(units, names, str(cmd.get("unit"))) if kind == "fight" else [],
                melee_groups=melee_groups_of(page.game, units, names, str(cmd.get("unit")))
                if kind == "fight"
                else [],
                friends=friends if kind == "shoot" else [],
                fire_points=int(a.get("fire_points") or 0) if kind == "shoot" else 0,
                cover=charged_of(units, names, cmd) if kind == "fight" else [],
                correction=kind == "report_control" and cmd.get("objective") in control,
            )
        )
    return out


def combat_of(units: Mapping[str, Mapping[str, Any]], unit: str) -> list[str]:
    """Every squad locked, directly or not, with ``unit``: one combat [L1205]."""
    seen, todo = {unit}, [unit]
    while todo:
        for enemy in units.get(todo.pop(), {}).get("locked_with", ()):
            if enemy not in seen:
                seen.add(enemy)
                todo.append(enemy)
    return sorted(seen)


def pairings_of(
    units: Mapping[str, Mapping[str, Any]], names: Mapping[str, str], unit: str
) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """In the combat ``unit`` is in, the squads (of either side) locked with more than one
    enemy: the players say which one each attacks [L1205-L1211] (the first by default)."""
    out = []
    for squad in combat_of(units, unit):
        enemies = list(units.get(squad, {}).get("locked_with", ()))
        if len(enemies) > 1:
            out.append((squad, names.get(squad, squad), [(e, names.get(e, e)) for e in enemies]))
    return out


def melee_groups_of(
    game: Any, units: Mapping[str, Mapping[str, Any]], names: Mapping[str, str], unit: str
) -> list[tuple[str, str, str, int]]:
    """In the combat ``unit`` is in, each squad's other close-combat weapons, with the
    squad's models: how many models wield each is asked (none by default)."""
    named = melee_weapons_of(game)
    return [
        (squad, names.get(squad, squad), weapon, int(units[squad].get("models") or 0))
        for squad in combat_of(units, unit)
        if squad in units and not units[squad].get("hull_points")
        for weapon in named.get(squad, ())
    ]


def charged_of(
    units: Mapping[str, Mapping[str, Any]], names: Mapping[str, str], cmd: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """In a combat of several squads, the charged ones beside the fight's target (the
    squads that did not charge this turn): each may have been in cover [L1205-L1213]."""
    group = combat_of(units, str(cmd.get("unit")))
    if len(group) < 3:
        return []
    return [
        (u, names.get(u, u))
        for u in group
        if u != cmd.get("target") and "charged" not in units[u].get("tokens", ())
    ]


MAX_PAIRINGS = 20


def _number(form: FormData, name: str, low: int, high: int) -> int | None:
    return parse_int(form.get(name), low, high)


def build_command(form: FormData, cmd: dict[str, Any]) -> dict[str, Any]:
    """A PEN command from its form: the command's JSON with what the table measured."""
    for name in (
        "inches",
        "distance",
        "range_inches",
        "models",
        "cover_save",
        "template_hits",
        "difficult_inches",
        "initiative",  # hit_and_run: the step it leaves after (empty: its own)
    ):
        value = _number(form, name, 0, 240)
        if value is not None:
            cmd[name] = value
    for name in ("speed", "target", "weapon", "facing", "edge", "transport", "mode", "friend"):
        text = form.get(name)
        if isinstance(text, str) and text.strip():
            cmd[name] = text.strip()[:120]
    if form.get("half_range"):
        cmd["half_range"] = True
    for flag in (
        "difficult",
        "dangerous",
        "very_difficult",
        "blocked",
        "target_in_cover",
        "offensive_grenades",
        "emergency",
    ):
        if form.get(flag):
            cmd[flag] = True
    if cmd.get("type") == "start_turn" and form.get("reserves_listed"):
        cmd["reserves"] = [
            u[:64] for u in form.getlist("reserves") if isinstance(u, str) and u.strip()
        ][:40]
    if cmd.get("type") == "fight":
        assign = [
            {"unit": key.removeprefix("assign_")[:64], "target": value.strip()[:64]}
            for key, value in form.multi_items()
            if key.startswith("assign_") and isinstance(value, str) and value.strip()
        ][:MAX_PAIRINGS]
        if assign:
            cmd["assign"] = assign
        cover = [u[:64] for u in form.getlist("in_cover") if isinstance(u, str) and u.strip()]
        if cover:
            cmd["in_cover"] = cover[:MAX_PAIRINGS]
        groups = []
        for key, given in form.multi_items():
            if not key.startswith("melee:") or key.count(":") < 2:
                continue
            models = parse_int(given, 1, 100)
            if models is not None:
                squad, weapon = key.split(":", 2)[1:]
                groups.append({"unit": squad[:64], "weapon": weapon[:120], "models": models})
        if groups:
            cmd["weapons"] = groups[:MAX_PAIRINGS]
    if cmd.get("type") == "ram":
        facing = str(form.get("facing") or "front")[:10]
        cmd["targets"] = [
            {"unit": t[:64], "facing": facing}
            for t in form.getlist("targets")
            if isinstance(t, str)
        ][:10]
    return cmd


def waiting_on(view: Mapping[str, Any] | None, actions: Sequence[Mapping[str, Any]]) -> str | None:
    """What the battle waits on from this seat (``None``: nothing)."""
    if view is None:
        return None
    kinds = {str(a["command"].get("type")) for a in actions}
    if "approve_undo" in kinds:
        return _("An undo to approve or refuse")
    reported = view.get("control") or {}
    unreported = {
        a["command"].get("objective")
        for a in actions
        if a["command"].get("type") == "report_control"
    } - set(reported)
    if unreported:
        return _("Say who holds each objective")
    if "confirm_result" in kinds:
        return _("Check the objectives reported, then confirm the result")
    if view.get("stage") == "scoring":
        return None  # a correction is possible, but the battle waits on the other player
    options = {"go_to_ground", "refuse_undo", "consolidate", "retreat", "disengage"}
    options |= {"go_on_alert", "challenge", "hit_and_run"}
    if view.get("active_seat") not in (None, view.get("viewer")):
        # the alert fire of the enemy's movement phase waits on nobody: its end closes it
        options |= {"shoot", "end_activation"}
    if kinds - options:
        return _("Your move")
    return None


def context(page: PageInput) -> dict[str, Any]:
    """The PEN part of the match page."""
    if page.game is None:
        return {"present": None}
    names = names_of(page.game)
    view = page.view
    result = view.get("result") or {}
    return {
        "view": view,
        "actions": page.actions,
        "pen": _PenWords(),
        "forms": action_forms(page, names),
        "cards": squad_cards(view, names),
        "unit_names": names,
        "timeline": timeline(page.log, names, page.names),
        "facings": [(f, _(label)) for f, label in FACINGS],
        "speeds": [(s, _(label)) for s, label in SPEEDS.items()],
        "vp": {s: (result.get("vp") or {}).get(s, result.get(s, 0)) for s in ("A", "B")},
        "game_length": rolls_game_length(page.game),
        "control": view.get("control") or {},
    }


@dataclass(frozen=True, slots=True)
class _PenWords:
    """The tables the PEN fragments translate with."""

    def stage(self, key: object) -> str:
        return tr(STAGES, key)

    def phase(self, key: object) -> str:
        return tr(PHASES, key)

    def place(self, key: object) -> str:
        return tr(PLACES, key)


STRUCTURE_LABELS = {
    "classic": lazy("Classic: each player plays a whole turn"),
    "alternation": lazy("Alternation: the players take turns unit by unit"),
    "dynamics": lazy("Dynamics: a common turn with hidden orders"),
}


def new_match_fields(mission: Mission) -> list[OptionField]:
    """A PEN match's turn structure (the option ``turn_structure``) and, for the classic and
    alternated turns, whether both players confirm the result (``confirm_result``, rulings
    B18), chosen on the form; for the Dynamics turn, the +2 seat (``plus_two``) and each
    army's pilots' Initiative (``pilot_a``, ``pilot_b``: ``pilots`` [L197])."""
    return [
        OptionField(
            name="turn_structure",
            label=_("Turn structure"),
            choices=[Choice(s, _(STRUCTURE_LABELS.get(s, s))) for s in TURN_STRUCTURES],
            default=TURN_STRUCTURES[0],
        ),
        OptionField(
            name="confirm_result",
            label=_("The result"),
            choices=[
                Choice("", _("The last objective reported ends the battle")),
                Choice("1", _("Both players confirm the objectives before the battle ends")),
            ],
            default="",
            help=_("Classic and alternated turns only."),
        ),
        OptionField(
            name="plus_two",
            label=_("Dynamics turn: +2 on every advantage test"),
            choices=[
                Choice("", _("Nobody")),
                Choice("A", _("You, if your role would begin the battle")),
                Choice("B", _("Your opponent, if their role would begin the battle")),
            ],
            default="",
            help=_("When the mission has an Attacker and a Defender (Dynamics turn only)."),
        ),
        *(
            OptionField(
                name=name,
                label=label,
                choices=[Choice("", _("3 (the default)"))]
                + [Choice(str(i), str(i)) for i in range(1, 11)],
                default="",
                help=_(
                    "Dynamics turn: a non-walker vehicle acts at its pilot's Initiative, usually "
                    "the army's basic trooper (4 for a Space Marine, 3 for a Guardsman)."
                ),
            )
            for name, label in (
                ("pilot_a", _("Dynamics turn: your vehicles' pilots' Initiative")),
                ("pilot_b", _("Dynamics turn: your opponent's vehicles' pilots' Initiative")),
            )
        ),
    ]


PAGE = PageSystem(
    id=_SYSTEM.id,
    label=lazy("Warhammer 40,000 (PEN)"),
    fragments="matches/pen",
    context=context,
    waiting_on=waiting_on,
    build_command=build_command,
    accepts=lambda game: getattr(game, "turn_structure", "classic") != "dynamics",
    new_match_fields={_SYSTEM.id: new_match_fields},
    sentence=sentence,  # the generic page tells PEN's events of a Dynamics match so
)
