"""The 10th edition's match page: its header and body fragments
(``templates/matches/wh40k10e/``), the attack forms with their exact odds, the Battle
Formations, Stratagems, unit cards, objectives and timeline wording (``present``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fastapi import Response
from starlette.datastructures import FormData

from app.core.errors import AppError, InvalidInput
from app.core.i18n import gettext as _
from app.core.i18n import lazy, ngettext
from app.core.ids import parse_int
from app.engine.combat import to_jsonable
from app.engine.match.missions import Mission
from app.engine.narrative8e.match import combat_zones
from app.engine.narrative8e.pack import TROOPS_KEYWORDS
from app.engine.narrative8e.setup import MAX_POWER_LEVEL
from app.engine.wh40k10e.battle import Battle, Seat
from app.engine.wh40k10e.battle.narrative_zones import zone_of
from app.matches import service
from app.matches.exceptions import CommandRefused
from app.matches.pages import (
    Choice,
    Confirmation,
    OptionField,
    PageInput,
    PagePost,
    PageSystem,
)
from app.matches.pages.wh40k10e import expansion as expansion_page
from app.matches.pages.wh40k10e import present
from app.matches.present import localized, tr
from app.matches.systems.wh40k10e import SYSTEM as _SYSTEM
from app.matches.systems.wh40k10e import armies, combat, mission_expansions
from app.web.templating import is_htmx

__all__ = ["PAGE", "SITUATION_FLAGS", "attack_forms", "build_command", "formation_defaults"]

SITUATION_FLAGS = (
    ("half_range", lazy("Within half range")),
    ("cover", lazy("Target has Benefit of Cover")),
    ("stealth", lazy("Target has Stealth")),
    ("target_not_visible", lazy("Target not visible (Indirect Fire)")),
    ("big_guns_never_tire", lazy("Big Guns Never Tire")),
    ("plunging_fire", lazy('Plunging Fire (6" up in Ruins, target at ground level)')),
)


def _int(value: object, default: int | None = None) -> int | None:
    number = parse_int(value, -99_999_999, 99_999_999)
    return default if number is None else number


def _weapon_rows(battle: Battle, match: Any, uid: str, phase: str | None) -> list[dict[str, Any]]:
    snapshots = {Seat.A: match.army_a, Seat.B: match.army_b}
    kind = "melee" if phase == "fight" else "ranged"
    rows = [w for w in combat.unit_weapons(snapshots, battle.state, uid) if w["kind"] == kind]
    seen: set[tuple[str, str]] = set()
    for w in rows:  # ticked by default: carried, and the first profile of its weapon
        group = (w["unit"], combat.weapon_id(w))
        w["default"] = w["models"] > 0 and group not in seen and w["left"] > 0
        w["value"] = min(w["models"] or w["alive"], w["left"])
        seen.add(group)
    return rows


def _leads_living(unit: Mapping[str, Any], units: Mapping[str, Mapping[str, Any]]) -> bool:
    bodyguard = unit["bodyguard"]
    return bodyguard is not None and bodyguard in units and not units[bodyguard]["destroyed"]


def attack_forms(
    view: Mapping[str, Any], weapons: Callable[[str], list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    """One attack form per unit that has weapons and targets left this phase: an Attached unit
    is one unit (one form, named after both parts; one target entry). A unit shoots or fights
    once, each weapon once: the form offers only the weapons it has not used (at any of its
    declared targets: fire may be split), and is gone when none is left or when an attack
    named no weapon (the whole unit's)."""
    units = {u["id"]: u for u in view["units"]}
    out: list[dict[str, Any]] = []
    for u in view["units"]:
        if u["owner"] != view["viewer"] or u["destroyed"] or not u["targets"]:
            continue
        if _leads_living(u, units) or u["all_weapons_used"]:
            continue  # the Leader of a living Bodyguard: the Bodyguard's form stands for both
        targets: list[tuple[str, str]] = []
        for t in u["targets"]:
            target = units.get(t)
            if target is None or target["destroyed"]:
                continue
            if _leads_living(target, units):
                continue  # a Leader is attacked through its Bodyguard's entry
            targets.append((t, present.group_name(target, units)))
        rows = weapons(u["id"])
        left = [w for w in rows if w["left"] > 0]
        if targets and (left or not rows):
            out.append(
                {
                    "unit": u,
                    "name": present.group_name(u, units),
                    "targets": targets,
                    "weapons": left,
                    "used": [
                        f"{w['weapon']} ×{w['models']}"
                        + (f" ({units[w['unit']]['name']})" if w["unit"] != u["id"] else "")
                        for w in u["weapons_used"]
                        if w["unit"] in units
                    ],
                }
            )
    return out


def formation_defaults(
    view: Mapping[str, Any], snapshot: Mapping[str, Any] | None, seat: str
) -> dict[str, Any]:
    """What the formation form shows selected: the declaration already submitted, else the
    Leader attachments of the army list."""
    out: dict[str, Any] = {"attach": {}, "embark": {}, "reserve": {}, "hover": set()}
    declared = view.get("my_formation")
    if declared:
        out["attach"] = dict(declared["attachments"])
        out["embark"] = dict(declared["embarked"])
        out["reserve"] = dict(declared["reserves"])
        out["hover"] = set(declared["hover"])
        return out
    for u in (snapshot or {}).get("units", ()):
        if u.get("attached_to") is not None:
            out["attach"][armies.unit_id(seat, u["index"])] = armies.unit_id(seat, u["attached_to"])
    return out


def build_command(form: FormData, cmd: dict[str, Any]) -> dict[str, Any]:
    """The command a 10th-edition action form posts: its JSON plus the inputs filled in."""
    kind = cmd.get("type")
    targets = [t for t in form.getlist("targets") if isinstance(t, str)]
    if targets or kind in {"shoot", "declare_charge"}:
        cmd["targets"] = targets[:20]
    for name in ("crossing", "needed", "strength", "die", "weapons"):
        value = _int(form.get(name))
        if value is not None:
            cmd[name] = value
    for name in ("reason", "note", "source", "on_unit", "marker", "unit", "mode", "enemy"):
        text = form.get(name)
        if isinstance(text, str) and text.strip():
            cmd[name] = text.strip()[:500]
    if form.get("infiltrate"):
        cmd["infiltrate"] = True
    if form.get("within_12") and kind in {"shoot", "use_stratagem"}:
        cmd["within_12"] = True  # Lone Operative: the player states the 12"
    if kind == "report_objective":
        units = []
        for uid in form.getlist("units"):
            if isinstance(uid, str):
                units.append({"unit": uid, "models": _int(form.get(f"models_{uid}"))})
        cmd["units"] = units[:100]
    if kind == "report_engagement":
        cmd["engaged_with"] = [e for e in form.getlist("engaged_with") if isinstance(e, str)][:20]
    if kind == "remove_models":
        cmd["models"] = _slots(form.get("models"))
    if kind == "confirm_coherency":  # "remove_<unit>": the model numbers removed, from 1
        removals: list[dict[str, Any]] = []
        for key, typed in form.multi_items():
            if key.startswith("remove_") and isinstance(typed, str) and typed.strip():
                removals.append({"unit": key.removeprefix("remove_")[:64], "models": _slots(typed)})
        cmd["removals"] = removals[:50]
    if kind == "concede" and form.get("confirmed"):
        cmd["confirm"] = True
    if kind in expansion_page.EXPANSION_KINDS:
        expansion_page.expansion_inputs(form, kind, cmd)
    elif kind in present.NARRATIVE_KINDS:
        _narrative_inputs(form, kind, cmd)
    return cmd


def _texts(form: FormData, name: str, limit: int = 100) -> list[str]:
    return [v.strip()[:64] for v in form.getlist(name) if isinstance(v, str) and v.strip()][:limit]


def _narrative_inputs(form: FormData, kind: str, cmd: dict[str, Any]) -> None:
    """A narrative form's inputs: hidden deployment tokens ("token_<unit>": its token, "reserve":
    the units held back, "decoy": decoy tokens), the units deployed ("deploy": the rest of the
    command's units go to reserve), the units going to ground, a mission Stratagem's CP and
    target, the hiding place searched, the units in each line of Blitz."""
    if kind == "declare_power_levels":  # "power_<unit>": its Power Level, 1 to 100
        levels: dict[str, int] = {}
        for key, typed in form.multi_items():
            if key.startswith("power_") and isinstance(typed, str):
                level = parse_int(typed.strip(), 1, MAX_POWER_LEVEL)
                if level is not None:  # a unit left out is named by the refusal
                    levels[key.removeprefix("power_")[:64]] = level
        cmd["levels"] = dict(list(levels.items())[:100])
    elif kind == "place_tokens":
        reserves = _texts(form, "reserve")
        tokens: dict[str, str | None] = {}
        for key, value in form.multi_items():
            if key.startswith("token_") and isinstance(value, str) and value.strip():
                unit = key.removeprefix("token_")[:64]
                if unit not in reserves:
                    tokens[value.strip()[:16]] = unit
        for label in _texts(form, "decoy", 20):
            tokens.setdefault(label[:16], None)
        cmd["tokens"] = tokens
        cmd["reserves"] = reserves
    elif kind == "deploy_forces":
        # the engine's suggestion names some units to set up and the rest in reserve
        offered = [str(u) for u in (*(cmd.get("units") or ()), *(cmd.get("reserves") or ()))]
        picked = set(_texts(form, "deploy"))
        cmd["units"] = [u for u in offered if u in picked]
        cmd["reserves"] = [u for u in offered if u not in picked]
    elif kind == "go_to_ground":
        cmd["units"] = _texts(form, "units")
    elif kind == "use_mission_stratagem":
        cp = _int(form.get("cp"))
        if cp is not None:
            cmd["cp"] = cp
        target = form.get("target")
        if isinstance(target, str) and target.strip():
            cmd["target"] = target.strip()[:64]
    elif kind == "search_hiding_place":
        place = form.get("place")
        if isinstance(place, str) and place.strip():
            cmd["place"] = place.strip()[:16]
    elif kind == "report_zones":
        cmd["first_line"] = _texts(form, "first_line")
        cmd["second_line"] = _texts(form, "second_line")


def _slots(text: object) -> list[int]:
    """Model numbers typed from 1 ("1 2", "1,2") as slots from 0 (other words are dropped)."""
    numbers = (parse_int(s, 1, 999) for s in str(text or "").replace(",", " ").split())
    return [n - 1 for n in numbers if n is not None][:200]


def confirmation(page: PageInput, cmd: Mapping[str, Any]) -> Confirmation | None:
    """The question to ask before ``cmd``: conceding always (it ends the battle, no undo);
    ending a phase while units may still act (named). ``None``: send it as it is."""
    kind = cmd.get("type")
    if kind == "concede":
        return Confirmation(
            kind="concede",
            title=_("Concede the battle?"),
            text=_("Your opponent wins at once. The battle ends and this cannot be undone."),
            button=_("Yes, concede the battle"),
            command={"type": "concede", "confirm": True},
        )
    if kind != "end_phase" or page.game is None:
        return None
    idle = present.idle_units(page.actions, page.view)
    if not idle:
        return None
    return Confirmation(
        kind="end_phase",
        title=_("End the {phase} with units that have not acted?").format(
            phase=tr(present.PHASES, page.view.get("phase"))
        ),
        text=ngettext(
            "This unit can still act in this phase, and will not:",
            "These units can still act in this phase, and will not:",
            len(idle),
        ),
        button=_("End the phase anyway"),
        command={"type": "end_phase"},
        units=idle,
    )


def context(page: PageInput) -> dict[str, Any]:
    """The 10th edition's part of the match page."""
    battle, view, me, match = page.game, page.view, page.seat, page.match
    ctx: dict[str, Any] = {
        "present": present,
        "situation_flags": SITUATION_FLAGS,
        "odds": page.extra.get("odds"),
        "resolution": page.extra.get("resolution"),
        "attack_error": page.extra.get("attack_error"),  # a select of the attack form refused
        "rolls": (0, []),
        "objectives": [],
        "narrative": None,
        "combat_zone": None,
        "expansion": None,
        "building_attacks": [],
    }
    if battle is None:
        return ctx
    actions = page.actions
    narrative = battle.state.narrative  # only the pack's public data is read from it
    expansion = narrative.expansion if narrative is not None else None
    stratagems = present.mission_stratagems(
        (*narrative.mission.stratagems, *(expansion.expansion.stratagems if expansion else ()))
        if narrative
        else ()
    )
    mine = [u for u in view["units"] if u["owner"] == me]
    snapshot = match.army_a if me == "A" else match.army_b
    ctx.update(
        transports=[u for u in mine if "TRANSPORT" in u["keywords"] and not u["destroyed"]],
        fdefaults=formation_defaults(view, snapshot, me),
        forms=present.action_forms(actions, view, stratagems),
        narrative=present.narrative_panel(view, page.log, stratagems),
        can_declare=any(a["command"]["type"] == "declare_formations" for a in actions),
        cards=present.unit_cards(view),
        mine=mine,
        enemies=[u for u in view["units"] if u["owner"] != me and not u["destroyed"]],
        attackers=attack_forms(view, lambda uid: _weapon_rows(battle, match, uid, view["phase"])),
        specs=battle.state.specs,
        timeline=present.timeline(page.log, view, page.names, me, stratagems=stratagems),
        rolls=present.last_rolls(page.log, view, page.names, me),
        objectives=present.objective_rows(view),
        in_battle=view["stage"] == "battle",
    )
    snapshots = {Seat.A: match.army_a, Seat.B: match.army_b}
    for form in ctx["forms"]:
        if form.kind == "building_shoots":  # the targets' saves, proposed from the army data
            form.saves = _saves(snapshots, battle, [uid for uid, _n in form.enemies])
    ctx["building_attacks"] = building_attack_cards(
        actions, view, lambda uid: _weapon_rows(battle, match, uid, view["phase"])
    )
    if expansion is not None:
        names = {
            u["id"]: present.group_name(u, {x["id"]: x for x in view["units"]})
            for u in view["units"]
        }
        ctx["expansion"] = expansion_page.expansion_panel(
            view, localized(expansion.expansion.name, expansion.id), names
        )
    zone = zone_of(battle.state)
    if zone is not None:
        found = view.get("combat_zone") or {}
        ctx["combat_zone"] = {
            "name": localized(zone.name, zone.id),
            "mysterious": [
                (marker, tr(present.MYSTERIOUS_RESULTS, result))
                for marker, result in (found.get("mysterious_objectives") or {}).items()
            ],
            "night_fight": "visibility" in zone.params,
            # the Targeting relays this seat controls: its shooting units near one re-roll 1s
            "relays": sorted(
                m
                for m, result in battle.state.mysterious.items()
                if result == "targeting-relay"
                and m in battle.state.markers
                and str(battle.state.markers[m].controller) == me
            ),
            # the Scatter fields the opponent (the target's player) controls: its units near
            # one re-roll saving throws of 1, in any phase (rulings 98)
            "scatter_fields": sorted(
                m
                for m, result in battle.state.mysterious.items()
                if result == "scatter-field"
                and m in battle.state.markers
                and battle.state.markers[m].controller is not None
                and str(battle.state.markers[m].controller) != me
            ),
        }
    return ctx


def _saves(snapshots: Mapping[Seat, Any], battle: Battle, units: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for uid in units:
        if uid not in battle.state.units:
            continue
        owner = battle.state.units[uid].owner
        snap = armies.snapshot_unit(snapshots.get(owner), owner, uid) or {}
        save = (snap.get("profile") or {}).get("save")
        if isinstance(save, int) and not isinstance(save, bool) and 2 <= save <= 7:
            out[uid] = save
    return out


def building_attack_cards(
    actions: Sequence[Mapping[str, Any]],
    view: Mapping[str, Any],
    weapons: Callable[[str], list[dict[str, Any]]],
) -> list[dict[str, Any]]:
    """One card per unit the engine lets attack an enemy building now (attack_building,
    ruling 91): the buildings it may attack and the weapons of the phase it has left."""
    units = {u["id"]: u for u in view["units"]}
    found = (view.get("narrative") or {}).get("expansion") or {}
    kinds = {b["id"]: b["kind"] for b in found.get("buildings", ())}
    out: dict[str, dict[str, Any]] = {}
    for action in actions:
        cmd = action["command"]
        if cmd.get("type") != "attack_building" or cmd.get("unit") not in units:
            continue
        uid, bid = str(cmd["unit"]), str(cmd["building"])
        card = out.get(uid)
        if card is None:
            rows = [w for w in weapons(uid) if w["left"] > 0]
            if not rows:
                continue  # nothing left to fire this phase
            card = out[uid] = {
                "unit": units[uid],
                "name": present.group_name(units[uid], units),
                "buildings": [],
                "weapons": rows,
            }
        label = tr(expansion_page.BUILDINGS, kinds.get(bid, ""))
        card["buildings"].append((bid, f"{bid} ({label})" if bid in kinds else bid))
    return list(out.values())


def building_attack(post: PagePost) -> Response:
    """A unit's attack on an enemy building (attack_building, ruling 91): the weapons ticked
    are read from the army data (their profiles are the server's, never the form's), rolled
    by the match with its seeded dice (``do=dice``: the dice rolled by hand)."""
    from app.matches.web import parse_dice  # the shared form helpers

    form = post.form
    attacker = str(form.get("attacker") or "")[:64]
    building = str(form.get("building") or "")[:64]
    try:
        battle = service.load_battle(post.db, post.match)
    except AppError as exc:
        return post.error(exc)
    state = battle.state
    if attacker not in state.units:
        return post.error(InvalidInput(_("Unknown attacking unit.")))
    snapshots = {Seat.A: post.match.army_a, Seat.B: post.match.army_b}
    kind = "melee" if str(state.phase) == "fight" else "ranged"
    rows = [w for w in combat.unit_weapons(snapshots, state, attacker) if w["kind"] == kind]
    entries: list[dict[str, Any]] = []
    for value in form.getlist("weapon")[:8]:
        if not isinstance(value, str) or "|" not in value:
            continue
        part, _sep, name = value.partition("|")
        row = next((w for w in rows if w["unit"] == part and w["name"] == name), None)
        if row is None:
            return post.error(InvalidInput(_("No weapon {name} in that unit.").format(name=name)))
        models = _int(form.get(f"models|{value}"))
        if models is None or not 1 <= models <= row["models"]:
            return post.error(
                InvalidInput(
                    _("{weapon}: 1 to {n} models (those that carry it).").format(
                        weapon=name, n=row["models"]
                    )
                )
            )
        weapon = {
            k: row[k] for k in ("name", "kind", "attacks", "skill", "strength", "ap", "damage")
        }
        weapon["range"] = row.get("range")
        weapon["abilities"] = list(row.get("abilities", ()))
        entries.append(
            {"unit": part, "group": combat.weapon_id(row), "models": models, "weapon": weapon}
        )
    if not entries:
        return post.error(InvalidInput(_("Pick at least one weapon.")))
    cmd = {"type": "attack_building", "unit": attacker, "building": building, "attacks": entries}
    dice = parse_dice(form.get("dice")) if form.get("do") == "dice" else None
    try:
        with post.db.begin_nested():
            service.execute(
                post.db, post.match, post.seat, cmd, expected_version=post.version, dice=dice
            )
    except CommandRefused as exc:
        return post.refused(exc)
    except AppError as exc:
        post.db.rollback()
        return post.error(exc)
    return post.page()


def _zone_name(raw: Mapping[str, Any], zone_id: str) -> str:
    names = raw.get("name")
    return (
        localized({str(k): str(v) for k, v in names.items()}, zone_id)
        if isinstance(names, Mapping)
        else zone_id
    )


def new_match_fields(mission: Mission) -> list[OptionField]:
    """The combat zone the battle is fought in (option ``combat_zone``), agreed before
    deployment [seed 003 L567-L571]: none by default; for a narrative scenario, the expansion
    it is played with (option ``expansion``: the shipped ones and its own pack's)
    [L671-L919], and how it maps the 8th edition (``value_measure``, ``troops_keywords``:
    rulings 1, 2 and 84)."""
    zones = combat_zones()
    fields = _zone_fields(zones)
    if isinstance(mission.options.get("narrative"), Mapping):
        known = mission_expansions(mission)
        fields.append(
            OptionField(
                name="expansion",
                label=_("Expansion"),
                choices=[
                    Choice("", _("None")),
                    *(Choice(x, _zone_name(raw, x)) for x, raw in known.items()),
                ],
                default="",
                help=_(
                    "Optional: Planetstrike, Cities of Death, Stronghold Assault or Death from "
                    "the Skies. The match tracks buildings, the Firestorm, reserves, the "
                    "airspace and the Dogfight picks; attacks are rolled at the table."
                ),
            )
        )
        fields += _settings_fields(mission)
    return fields


def _settings_fields(mission: Mission) -> list[OptionField]:
    """A narrative scenario's 8th-to-10th mappings, its pack's by default (rulings 1-2, 84)."""
    narrative = mission.options.get("narrative")
    assert isinstance(narrative, Mapping)
    measure = str(narrative.get("value_measure", "points"))
    rules = narrative.get("rules")
    sentries = rules.get("sentries") if isinstance(rules, Mapping) else None
    keywords = sentries.get("troops_keywords") if isinstance(sentries, Mapping) else None
    troops = _(" or ").join(str(k) for k in keywords) if isinstance(keywords, list) else ""
    measures = {"points": _("Points"), "power": _("Power Level (entered by the players)")}
    return [
        OptionField(
            name="value_measure",
            label=_("Army and unit value"),
            choices=[
                Choice(
                    "",
                    _("The mission pack's: {value}").format(value=measures.get(measure, measure)),
                ),
                *(Choice(k, label) for k, label in measures.items()),
            ],
            default="",
            help=_(
                "Who attacks, the sentries' limit and the escapes compare this value. With "
                "Power Level, each player enters their units' Power Levels before the roll-off "
                "for the Attacker."
            ),
        ),
        OptionField(
            name="troops_keywords",
            label=_("Troops are units with"),
            choices=[
                Choice("", _("The mission pack's: {value}").format(value=troops)),
                Choice(",".join(TROOPS_KEYWORDS), _(" or ").join(TROOPS_KEYWORDS)),
                *(Choice(k, _("{keyword} only").format(keyword=k)) for k in TROOPS_KEYWORDS),
            ],
            default="",
            help=_(
                "Patrol's Troops units and the +2 of sustained assault count these units as Troops."
            ),
        ),
    ]


def _zone_fields(zones: Mapping[str, Any]) -> list[OptionField]:
    return [
        OptionField(
            name="combat_zone",
            label=_("Combat zone"),
            choices=[
                Choice("", _("None")),
                *(Choice(z, _zone_name(raw, z)) for z, raw in zones.items()),
            ],
            default="",
            help=_(
                "Optional, if both players agree. The match applies what it can follow (Night "
                "Fight: the hit penalty by the distance you give, the mysterious objectives); "
                "the rest is played at the table."
            ),
        )
    ]


# -- its own forms ----------------------------------------------------------------------------


def declare_formation(post: PagePost) -> Response:
    formation: dict[str, list[Any]] = {
        "attachments": [],
        "embarked": [],
        "reserves": [],
        "hover": [],
    }
    for key, value in post.form.multi_items():
        if not isinstance(value, str) or not value:
            continue
        if key.startswith("attach_"):
            formation["attachments"].append([key[7:], value])
        elif key.startswith("embark_"):
            formation["embarked"].append([key[7:], value])
        elif key.startswith("reserve_"):
            formation["reserves"].append([key[8:], value])
        elif key == "hover":
            formation["hover"].append(value)
    try:
        with post.db.begin_nested():
            service.execute(
                post.db,
                post.match,
                post.seat,
                {"type": "declare_formations", "formation": formation},
                expected_version=post.version,
            )
    except CommandRefused as exc:
        return post.refused(exc)
    return post.page(notice=_("Your Battle Formations are in (secret until both are)."))


def _attack_inputs(form: FormData) -> tuple[str, str, list[dict[str, Any]], dict[str, Any]]:
    attacker = str(form.get("attacker") or "")[:64]
    target = str(form.get("target") or "")[:64]
    picks: list[dict[str, Any]] = []
    for value in form.getlist("weapon")[:8]:
        if not isinstance(value, str) or "|" not in value:
            continue
        unit, _sep, name = value.partition("|")
        models = _int(form.get(f"models|{value}"), 0)
        picks.append({"unit": unit, "weapon": name, "models": models})
    situation: dict[str, Any] = {flag: True for flag, _label in SITUATION_FLAGS if form.get(flag)}
    distance = _int(form.get("night_fight_distance"))
    if distance is not None:  # Night Fight: the distance to the target (checked by the match)
        situation["night_fight_distance"] = distance
    relay = form.get("targeting_relay")
    if isinstance(relay, str) and relay:  # near a Targeting relay (checked by the match)
        situation["targeting_relay"] = relay[:16]
    scatter = form.get("scatter_field")
    if isinstance(scatter, str) and scatter:  # the target near a Scatter field (checked too)
        situation["scatter_field"] = scatter[:16]
    return attacker, target, picks, situation


# the attack form's selects whose refusal is shown at the select (the match's field names,
# ``situation.<name>``; the template words each one)
SITUATION_FIELDS = ("scatter_field",)


def _situation_error(
    exc: AppError, attacker: str, situation: Mapping[str, Any]
) -> dict[str, str] | None:
    """The attack form's select a refusal names, with the value posted in it (``None``: a
    refusal the banner shows alone)."""
    for e in exc.errors or []:
        name = str(e.get("field") or "").removeprefix("situation.")
        if name in SITUATION_FIELDS and name in situation:
            return {"unit": attacker, "field": name, "value": str(situation[name])}
    return None


def combat_form(post: PagePost) -> Response:
    """The combat flow: ``do=preview`` shows the exact odds, ``do=roll`` rolls on the server,
    ``do=dice`` takes the dice rolled by hand; both apply the result."""
    from app.matches.web import parse_dice  # the shared form helpers

    db, match, seat = post.db, post.match, post.seat
    attacker, target, picks, situation = _attack_inputs(post.form)
    action = str(post.form.get("do") or "preview")
    if action == "preview":
        try:
            result = service.preview(db, match, seat, attacker, target, picks, situation)
        except AppError as exc:
            field = _situation_error(exc, attacker, situation)
            if field is not None and is_htmx(post.request):  # shown where the odds go
                return post.page(attack_error=field, block="odds", template="body.html")
            return post.error(exc)
        odds = {"attacker": attacker, "target": target, **result}
        return post.page(odds=odds, block="odds", template="body.html")
    try:
        with db.begin_nested():
            _outcome, resolution = service.resolve(
                db,
                match,
                seat,
                attacker,
                target,
                picks,
                situation,
                expected_version=post.version,
                dice=parse_dice(post.form.get("dice")) if action == "dice" else None,
            )
    except CommandRefused as exc:
        return post.refused(exc)
    except AppError as exc:
        db.rollback()
        field = _situation_error(exc, attacker, situation)
        if field is not None and is_htmx(post.request):  # the banner, and the select's own
            return post.page(error=exc.detail, attack_error=field)
        return post.error(exc)
    summary = to_jsonable(resolution)
    assert isinstance(summary, dict)
    return post.page(resolution=summary)


def _sentence(
    ev: Mapping[str, Any], units: Mapping[str, str], players: Mapping[str, str]
) -> str | None:
    """An event as a spectator's timeline tells it: the players' words, no seat is "you" (``""``:
    bookkeeping the players' timeline leaves out too)."""
    return present.describe(ev, units, players, "") or ""


PAGE = PageSystem(
    id=_SYSTEM.id,
    label=lazy("Warhammer 40,000 (10th edition)"),
    fragments="matches/wh40k10e",
    context=context,
    waiting_on=present.waiting_on,
    build_command=build_command,
    confirmation=confirmation,
    posts={
        "formation": declare_formation,
        "combat": combat_form,
        "building_attack": building_attack,
    },
    new_match_fields={_SYSTEM.id: new_match_fields},
    sentence=_sentence,
)
