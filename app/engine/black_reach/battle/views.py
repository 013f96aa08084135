"""What each seat may see of a Black Reach battle, and what it may do now.

A seat sees its own face-down tokens (value and nonce); the other seat only sees that a unit
carries a face-down token (and its commitment) until it is played. A spectator sees neither
side's unplayed tokens.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from app.engine.black_reach.battle.ambush import as_spotted, deploy_faces, spot_step, unmasked
from app.engine.black_reach.battle.assaults_transport import aboard_start
from app.engine.black_reach.battle.cards import (
    MOVE_BONUS,
    SHOT_BONUS,
    card_bonus,
    card_named,
    gorks_blessing,
    play_card_check,
)
from app.engine.black_reach.battle.commands import (
    COMMAND_CODEC,
    Assault,
    Burst,
    ChooseSquare,
    ConfirmResult,
    DeclinePower,
    Demolish,
    DeployAboard,
    DeployUnit,
    DoubleShot,
    DrawCards,
    EndDeployment,
    EndReserve,
    EndScouting,
    Flame,
    Grenade,
    Hold,
    KeepRoll,
    Kombi,
    MaintainPowers,
    Manifest,
    Move,
    Overwatch,
    PassOverwatch,
    PlaceOrders,
    PlayCard,
    ReadyEquipment,
    ReadyRepair,
    Reroll,
    ReserveMove,
    ScoutMove,
    Shoot,
    Snipe,
    TemplateFire,
    VehicleFire,
)
from app.engine.black_reach.battle.equipment import (
    kombi_left,
    kombi_options,
    marker_options,
    markers_free,
)
from app.engine.black_reach.battle.events import EVENT_CODEC, UnitMoved
from app.engine.black_reach.battle.evolve import evolve, placement_of
from app.engine.black_reach.battle.grenades import grenade_options, markers_left
from app.engine.black_reach.battle.jump import landing_problem, waiting_jumpers
from app.engine.black_reach.battle.offers import flame_origins, moving_fire_targets, moving_guns
from app.engine.black_reach.battle.rerolls import involved_units, reroll_choices
from app.engine.black_reach.battle.rules import (
    PLAYED_POWERS,
    TARGETED_POWERS,
    ShotPlan,
    assault_request,
    assault_start_problem,
    beam_problem,
    beam_request,
    burst_problem,
    damage_set_of,
    deploy_aboard_problem,
    overwatch_steps,
    plan_shot,
    plan_snipe,
    power_problem,
    scout_end_problem,
    scout_mover,
    shots_of,
    watch_shots,
    working_weapons,
)
from app.engine.black_reach.battle.state import BattleState, Stage, UnitState
from app.engine.black_reach.battle.structures import structure_key, structures
from app.engine.black_reach.board import Intercase, UnitClass
from app.engine.black_reach.forces import (
    Ability,
    FaceKind,
    Group,
    PoleBonus,
    PowerEffect,
    PsykerKind,
    Weapon,
    weapon_lost,
)
from app.engine.black_reach.movement import (
    SUPPRESSED_MV,
    Mover,
    Placement,
    Reach,
    cheapest_paths,
)
from app.engine.black_reach.odds import outcome_odds
from app.engine.black_reach.pipeline import modified_cv
from app.engine.black_reach.requests import Kind
from app.engine.black_reach.tables import (
    DamageFace,
    SniperEffect,
    damage_face_odds,
    perils_odds,
    sniper_odds,
)
from app.engine.black_reach.templates import QUARTERS, template_distance, template_name
from app.engine.black_reach.turn import Phase, TokenKind, due
from app.engine.match.codec import JsonObject
from app.engine.match.errors import Refusal
from app.engine.match.events import Viewer

__all__ = ["legal_actions", "render"]


def _unit_view(state: BattleState, u: UnitState, viewer_side: str | None) -> JsonObject:
    turn = state.turn
    token: JsonObject | None = None
    face_down = False
    if (turn is not None and turn.phase is not Phase.ORDER) or (
        turn is not None and u.side in turn.locked
    ):
        assert turn is not None
        revealed = turn.revealed.get(u.side, {}).get(u.uid)
        if revealed is not None:
            token = {"kind": str(revealed.kind), "number": revealed.number}
        elif u.uid in turn.committed.get(u.side, {}):
            face_down = True
            if viewer_side == u.side:
                mine = state.secret.get(u.side, {}).get(u.uid)
                if mine is not None:
                    token = {"kind": str(mine.token.kind), "number": mine.token.number}
    p = u.placement
    return {
        "id": u.uid,
        "side": u.side,
        "counter": u.counter.id,
        "name": u.counter.name,
        "class": str(u.counter.unit_class),
        "face": str(u.status.face),
        "dv": u.face.dv,
        "mv": u.face.mv,
        "hit_points": u.status.hit_points,
        "suppressed": u.suppressed,
        "destroyed": u.status.destroyed,
        "at": None
        if p is None or not (u.alive or u.wreck)
        else {"x": p.anchor.x, "y": p.anchor.y, "facing": p.facing.name},
        "squares": []
        if p is None or not (u.alive or u.wreck)
        else sorted([s.x, s.y] for s in p.squares),
        "wreck": u.wreck,  # lying on the battlefield as terrain
        "destruction": state.destruction.get(u.uid, 0),  # Destruction points on the wreck
        "embarked_in": u.embarked_in,
        # equipment markers announced for its next action: option id (a Boss Pole's
        # "option|bonus") -> markers (rulings 127, 147)
        "equipment": {
            key.split("|", 1)[1]: n for key, n in state.gear_ready.get(u.uid, {}).items()
        },
        "activated": u.uid in state.activated,
        "acted": u.uid in state.acted,
        "face_down_token": face_down,
        "token": token,
        **_vehicle_view(u),
    }


def _vehicle_view(u: UnitState) -> JsonObject:
    """A heavy vehicle's Damage markers (``hull``, ``main_weapon_2``...) and its weapons,
    each saying whether a marker destroyed it."""
    if u.counter.unit_class is not UnitClass.HEAVY_VEHICLE:
        return {}
    damage = u.status.damage
    numbers = damage.numbers or (1,) * len(damage.markers)
    weapons = u.face.weapons
    return {
        "damage": [str(DamageFace(m, n)) for m, n in zip(damage.markers, numbers, strict=True)],
        "immobilised": damage.immobilised,
        "weapons": [
            {
                "weapon": w.name,
                "slot": str(w.slot),
                "number": w.number,
                "destroyed": weapon_lost(weapons, w, damage),
            }
            for w in weapons
        ],
    }


def render(state: BattleState, viewer: Viewer) -> JsonObject:
    side = state.seats.get(viewer) if viewer is not None else None
    if state.scenario is None:
        return {"rule_system": "black-reach", "stage": str(state.stage)}
    turn = state.turn
    now = due(turn) if turn is not None else None
    return {
        "rule_system": "black-reach",
        "stage": str(state.stage),
        "scenario": {
            "id": state.scenario.id,
            "name": state.scenario.name,
            "sample": state.scenario.sample,
            "turns": state.scenario.turns,
            "vp_to_win": state.scenario.vp_to_win,
        },
        "board": {
            "width": 1 + max(sq.x for sq in state.board.squares),
            "height": 1 + max(sq.y for sq in state.board.squares),
            "squares": len(state.board.squares),
        },
        "seats": dict(state.seats),
        "you": side,
        "turn": None
        if turn is None
        else {
            "number": turn.turn,
            "phase": str(turn.phase),
            "initiative": turn.initiative,
            "pools": {s: len(p) for s, p in turn.pools.items()},
            "placed": sorted(turn.locked),
            "due": None if now is None else {"side": now[0], "number": now[1]},
            "commitments": {s: dict(c) for s, c in turn.committed.items()},
            "reserve_done": sorted(state.reserve_done),
        },
        "scouting": list(state.scouting),  # sides still to make their Scout moves
        "declared_move": None  # a move waiting for the other side's En Alerte
        if state.pending is None
        else {
            "unit": state.pending.unit,
            "reactor": state.pending.reactor,
            "path": [[st.x, st.y] for st in state.pending.path],
            # an assault's move: its target (rulings 122)
            **({"assault": state.pending.assault} if state.pending.assault else {}),
        },
        "square_awaited": None  # a unit forced to move waits for its owner's square
        if state.placing is None
        else {
            "unit": state.placing.unit,
            "side": state.placing.side,
            "why": state.placing.why,
            "squares": [[st.x, st.y] for st in state.placing.squares],
        },
        "reroll": _reroll_view(state),  # a roll waiting for a reroll or not (rulings 153)
        "power_again": None  # a Librarian may use his power again (rulings 157)
        if state.again is None
        else {"unit": state.again[0], "power": state.again[1]},
        "units": [_unit_view(state, u, side) for u in state.units.values()],
        "groups": [
            {
                "id": g.id,
                "tile": g.tile,
                "side": g.side,
                "breaking_point": g.breaking_point,
                "destroyed": len(g.destroyed),
                "broken": g.broken,
                "victory_points": g.victory_points,
            }
            for g in state.groups.values()
        ],
        "cards": _cards_view(state, side),
        "powers": _markers(state),
        "structures": _structures_view(state),
        "vp": dict(state.vp),
        "winner": state.winner,
        "reason": state.reason,
        "confirmed": sorted(state.confirmed),
    }


def _reroll_choices(state: BattleState) -> list[JsonObject]:
    p = state.reroll
    assert p is not None
    shown = EVENT_CODEC.decode(p.event)
    unit = p.unit or (state.pending.unit if state.pending is not None else "")
    return [
        {"group": c.group, "option": c.option, "left": c.left}
        for c in reroll_choices(state, p.side, involved_units(shown, unit))
    ]


def _reroll_view(state: BattleState) -> JsonObject | None:
    """The roll a command stopped at (public: both sides saw the dice): the side asked, the
    command's kind and unit, the roll's event as it stands if kept (its kind, unit, target,
    outcome), the dice of the roll and the markers the side asked may use."""
    p = state.reroll
    if p is None:
        return None
    dice = [p.dice[i] for i in p.at]
    event = dict(p.event)
    return {
        "side": p.side,
        "command": p.command.get("type"),
        "unit": p.unit,
        "event": event.get("type"),
        "roller": event.get("unit"),
        "target": event.get("target"),
        "outcome": event.get("outcome") or event.get("perils") or event.get("saved"),
        "values": dice,
        "choices": _reroll_choices(state),
    }


def _structures_view(state: BattleState) -> list[JsonObject]:
    """The structures of the battlefield (buildings and wrecks with a value), their
    Destruction points, whether they stand (rulings 104) and whether a destroyed one shows
    its ruin face (rulings 134)."""
    standing = structures(state)
    out: list[JsonObject] = []
    for e in state.board.elements:
        if e.structure is None:
            continue
        key = structure_key(e)
        out.append(
            {
                "id": e.id,
                "value": e.structure,
                "points": state.destruction.get(key, 0),
                "standing": e.id in standing,
                "ruin": key in state.ruined and _has_ruin(state, e.id),  # rulings 134
                "squares": sorted([sq.x, sq.y] for sq in e.squares),
            }
        )
    return out


def _has_ruin(state: BattleState, element_id: str) -> bool:
    """Whether the scenario's board element has a ruin face (shown once destroyed)."""
    assert state.scenario is not None
    return any(e.id == element_id and e.ruin is not None for e in state.scenario.board.elements)


def _markers(state: BattleState, side: str | None = None) -> list[JsonObject]:
    """The persistent powers' markers in play (public), or those of ``side``'s psykers, each
    with what maintaining it costs."""
    out: list[JsonObject] = []
    for m in state.powers.values():
        if side is not None and state.units[m.psyker].side != side:
            continue
        option = state.catalogue.options.get(m.power)
        power = option.power if option is not None else None
        out.append(
            {
                "psyker": m.psyker,
                "power": m.power,
                "effect": m.effect,
                "unit": m.target,
                "weapon": m.weapon,
                "cost": power.cost if power is not None else 0,
                # Telekinetic Dome: the text the players apply (rulings 130)
                "text": power.text if power is not None else "",
            }
        )
    return out


def _card_entry(state: BattleState, copy: str) -> JsonObject:
    card = card_named(state, copy)
    assert card is not None
    return {
        "card": copy,
        "name": card.name,
        "bonus": str(card.bonus),
        "value": card.value,
        "event": card.event,
    }


def _cards_view(state: BattleState, viewer_side: str | None) -> JsonObject:
    """Action cards: how many each side holds, has in its deck and discarded (public), the
    cards of the viewer's own hand (never the other side's) and the bonuses readied on units
    (played face up)."""
    return {
        "sides": {
            s: {
                "hand": len(state.hands.get(s, ())),
                "deck": len(state.decks.get(s, ())),
                "discards": len(state.discards.get(s, ())),
                "to_draw": s in state.to_draw,
            }
            for s in state.hands
        },
        "hand": [_card_entry(state, c) for c in state.hands.get(viewer_side or "", ())],
        "readied": {uid: _card_entry(state, c) for uid, c in state.readied.items()},
    }


def _card_actions(state: BattleState, side: str) -> list[JsonObject]:
    """The cards the side may play now: each as a Battle Event, and for its Alternative Bonus
    on the units that may take it (none yet readied; an armour-save card only on units with a
    yellow save; no shooting or assault bonus in the Reserve phase)."""
    turn = state.turn
    if turn is None or side in state.to_draw or state.pending is not None or state.placing:
        return []
    out: list[JsonObject] = []
    for copy in state.hands.get(side, ()):
        out.append({"command": _cmd(PlayCard(copy, "event"))})
        units = []
        for u in state.present_units():
            if u.side != side or u.uid in state.readied:
                continue
            try:
                play_card_check(state, copy, u.uid, side)
            except Refusal:
                continue
            units.append(u.uid)
        if units:
            out.append({"command": _cmd(PlayCard(copy, "bonus")), "units": units})
    return out


def _cmd(command: object) -> JsonObject:
    return COMMAND_CODEC.encode(command)  # type: ignore[arg-type]


def legal_actions(state: BattleState, seat: str) -> list[JsonObject]:
    """The commands ``seat`` may send now (moves with the squares they may end on), and the
    Action cards it may play."""
    side = state.seats.get(seat)
    if state.stage is Stage.BATTLE and side is not None and state.reroll is not None:
        return _reroll_actions(state, side)
    if state.stage is Stage.BATTLE and side is not None and state.again is not None:
        return _again_actions(state, side)
    actions = _legal_actions(state, seat)
    if (
        state.stage is not Stage.BATTLE
        or side is None
        or state.scouting
        or state.pending
        or state.placing
    ):
        return actions  # a declared move waits for its En Alerte answer (or a unit for its
        # owner's square): nothing else
    return (
        actions
        + _card_actions(state, side)
        + _repair_actions(state, side)
        + _equipment_actions(state, side, actions)
    )


def _reroll_actions(state: BattleState, side: str) -> list[JsonObject]:
    """A roll waits for a reroll: the side asked rerolls it with one of its markers
    (``markers``: the option's markers left) or keeps it; nothing else (rulings 153)."""
    p = state.reroll
    if p is None or p.side != side:
        return []
    out: list[JsonObject] = [
        {"command": _cmd(Reroll(c["group"], c["option"])), "markers": c["left"]}
        for c in _reroll_choices(state)
    ]
    return [*out, {"command": _cmd(KeepRoll())}]


def _again_actions(state: BattleState, side: str) -> list[JsonObject]:
    """A Librarian may use his power again (rulings 157): that power's manifestations he may
    make now (its targets, its Perils odds), or decline."""
    assert state.again is not None
    uid, power = state.again
    u = state.units[uid]
    if u.side != side:
        return []
    mine = [a for a in _powers(state, u) if a["command"].get("power") == power]
    return [*mine, {"command": _cmd(DeclinePower())}]


def _equipment_actions(
    state: BattleState, side: str, actions: list[JsonObject]
) -> list[JsonObject]:
    """Equipment markers the side may announce for a unit's next action (rulings 127): one
    entry per unit and option, ``counts`` the numbers of markers it may take now (1 up to
    the markers left, at most 3 identical), ``left`` the markers free on the option. A
    shooting marker is offered to the units that may act now; an assault marker (attacking
    or defending) and a DV marker to every unit, an assault one never in the Reserve phase."""
    if state.turn is None or side in state.to_draw:
        return []
    acting = {str((a.get("command") or {}).get("unit") or "") for a in actions}
    out: list[JsonObject] = []
    for u in state.present_units():
        if u.side != side:
            continue
        for group, option, room in marker_options(state, u):
            e = state.catalogue.options[option].equipment
            assert e is not None
            if e.bonuses:  # a Boss Pole: one entry per bonus the owner may name (rulings 147)
                out.extend(_pole_entries(state, u, group, option, room, u.uid in acting))
                continue
            if not (e.assault_bonus or e.dv_bonus) and u.uid not in acting:
                continue  # a shooting marker: for the unit about to act
            if e.assault_bonus and not e.dv_bonus and state.turn.phase is Phase.RESERVE:
                continue  # no shot and no assault in the Reserve phase [L710-L714]
            out.append(
                {
                    "command": _cmd(ReadyEquipment(u.uid, option)),
                    "counts": list(range(1, room + 1)),
                    "left": markers_free(state, group, option),
                    "readied": state.gear_ready.get(u.uid, {}).get(f"{group.id}|{option}", 0),
                }
            )
    return out


def _pole_entries(
    state: BattleState, u: UnitState, group: Group, option: str, room: int, acting: bool
) -> list[JsonObject]:
    """A Boss Pole's markers for a unit in its Character's aura: Dakka (never in the Reserve
    phase, where no die it changes is rolled), Boss (one marker gives the save) and Zag (to
    a unit that may act now: its move); Grim (a reroll) is offered after a roll instead
    (``rerolls``, rulings 153)."""
    assert state.turn is not None
    e = state.catalogue.options[option].equipment
    assert e is not None
    mine = state.gear_ready.get(u.uid, {})
    out: list[JsonObject] = []
    for bonus in e.bonuses:
        if bonus is PoleBonus.GRIM:
            continue
        if bonus is PoleBonus.DAKKA and state.turn.phase is Phase.RESERVE:
            continue
        if bonus is PoleBonus.ZAG and not acting:
            continue
        readied = mine.get(f"{group.id}|{option}|{bonus.value}", 0)
        if bonus is PoleBonus.BOSS and readied:
            continue  # one Boss marker gives the save
        counts = [1] if bonus is PoleBonus.BOSS else list(range(1, room + 1))
        out.append(
            {
                "command": _cmd(ReadyEquipment(u.uid, option, 1, bonus.value)),
                "counts": counts,
                "left": markers_free(state, group, option),
                "readied": readied,
                "bonus": bonus.value,
            }
        )
    return out


def _repair_actions(state: BattleState, side: str) -> list[JsonObject]:
    """Readying a Mekaniak (his change of the roll) or a Techmarine (the die kept) for an
    allied heavy vehicle's next location roll; ``readied``: what he is readied with now."""
    out: list[JsonObject] = []
    for u in state.units.values():
        if u.side != side or not u.alive:
            continue
        readied = state.repairs.get(u.uid)
        now = None if readied is None else {"modifier": readied[0], "pick": readied[1]}
        if u.face.has(Ability.MEKANIAK):
            entry: JsonObject = {"modifiers": [-2, -1, 1, 2]}
        elif u.face.has(Ability.TECHMARINE):
            entry = {"picks": ["low", "high"]}
        else:
            continue
        out.append({"command": _cmd(ReadyRepair(u.uid)), **entry, "readied": now})
    return out


def _legal_actions(state: BattleState, seat: str) -> list[JsonObject]:
    if state.scenario is None or seat not in state.seats:
        return []
    side = state.seats[seat]
    if state.stage is Stage.ENDED:
        return [] if seat in state.confirmed else [{"command": _cmd(ConfirmResult())}]
    if state.scouting:
        return _scout_actions(state, side)
    if state.stage is Stage.SETUP:
        return _setup_actions(state, side)
    turn = state.turn
    if state.stage is not Stage.BATTLE or turn is None:
        return []
    if turn.phase is Phase.ORDER:
        if side in state.to_maintain:
            return [{"command": _cmd(MaintainPowers()), "markers": _markers(state, side)}]
        if side in state.to_draw:
            hand = list(state.hands.get(side, ()))
            entry: JsonObject = {"command": _cmd(DrawCards()), "hand": hand}
            assert state.scenario is not None
            over = len(hand) - state.scenario.hand_size
            if over > 0:  # Gork's Blessing: discard that many, draw nothing (rulings 131)
                entry["discard_exactly"] = over
            else:
                entry["extra_draw"] = gorks_blessing(state, side)
            return [entry]
        if side in turn.locked:
            return []
        pool = [{"kind": str(t.kind), "number": t.number} for t in turn.pools[side]]
        units = [u.uid for u in state.present_units() if u.side == side]
        return [{"command": _cmd(PlaceOrders(())), "tokens": pool, "units": units}]
    if turn.phase is Phase.RESERVE:
        if side in state.reserve_done or (
            side != turn.initiative and turn.initiative not in state.reserve_done
        ):
            return []
        out: list[JsonObject] = []
        for u in state.present_units():
            order = state.secret.get(side, {}).get(u.uid)
            if u.side != side or u.uid in state.acted or u.uid in state.activated:
                continue
            if order is not None and order.token.kind is not TokenKind.BLUFF:
                continue
            out.append(_move_entry(state, ReserveMove(u.uid, ()), u))
        for uid in waiting_jumpers(state, side):  # back from Da Jump (rulings 132)
            entry = _jump_entry(state, state.units[uid])
            if entry["paths"]:
                out.append(entry)
        out.append({"command": _cmd(EndReserve())})
        return out
    if state.placing is not None:  # a unit forced to move waits for its square (rulings 142)
        p = state.placing
        if side != p.side:
            return []
        return [
            {"command": _cmd(ChooseSquare(p.unit, s.x, s.y)), "why": p.why, "default": n == 0}
            for n, s in enumerate(p.squares)
        ]
    if state.pending is not None:
        return _overwatch_actions(state, side)
    # activation: the unit whose token is due, and any unplayed Special token
    now = due(turn)
    playable = []
    for o in state.secret.get(side, {}).values():
        if o.unit in turn.revealed[side]:
            continue
        if o.token.kind is TokenKind.SPECIAL or (
            o.token.kind is TokenKind.NUMBERED and now == (side, o.token.number)
        ):
            playable.append(o.unit)
    actions: list[JsonObject] = []
    for uid in playable:
        u = state.units[uid]
        actions.append({"command": _cmd(Hold(uid))})
        if not u.present or uid in state.activated:
            continue
        found = _found(state, u) if not u.status.damage.immobilised else {}
        actions.append(_move_entry(state, Move(uid, ()), u, found) | _fire_on_move(state, u))
        shots: list[tuple[UnitState, ShotPlan]] = []
        if u.face.weapons:
            actions.extend(_vehicle_fire(state, u))
        for t in state.on_board():
            if t.side == side:
                continue
            if u.face.cv_against(t.counter.unit_class) is None:
                continue
            # a unit whose face has weapons fires them one by one (vehicle_fire, above), but
            # may still assault (rulings 120)
            for suppression in (False, True) if not u.face.weapons else ():
                try:
                    # an ambushed shooter turns Inactive first and shoots from that face
                    plan = plan_shot(state, unmasked(u), t, suppression)
                except Refusal:
                    continue  # no line of sight, out of arc or range, no suppressive fire
                entry = _shot_entry(state, t, plan)
                actions.append({"command": _cmd(Shoot(uid, t.uid, suppression)), **entry})
                if not suppression:
                    shots.append((t, plan))
            if u.face.has(Ability.ASSAULT) and (u.placement or u.embarked_in):
                starts = _assault_starts(state, u, t, found)
                if not starts:
                    continue  # no square next to it within the unit's move
                # the odds without supporters (each one declared adds +1)
                # an ambushed side fights on its Inactive face (rulings 114)
                request = assault_request(state, unmasked(u), unmasked(t))
                odds = {k: str(v) for k, v in outcome_odds(request).items()}
                actions.append({"command": _cmd(Assault(uid, t.uid)), "odds": odds, "from": starts})
        actions.extend(_multi_shots(state, u, shots))
        if u.face.has(Ability.SNIPER):
            actions.extend(_snipes(state, u))
        actions.extend(_templates(state, u))
        actions.extend(_flames(state, u))
        actions.extend(_grenades(state, u))
        actions.extend(_kombis(state, u))
        if u.face.has(Ability.DESTRUCTION) and structures(state):
            actions.append(
                {"command": _cmd(Demolish(u.uid, "")), "structures": sorted(structures(state))}
            )
        actions.extend(_powers(state, u))
    return actions


def _powers(state: BattleState, u: UnitState) -> list[JsonObject]:
    """A psyker's powers the match plays: each with the exact odds of its Perils of the Warp
    test (its cost paid on the psyker) and, for Endurance, the units it may heal."""
    if u.counter.psyker is None:
        return []
    out: list[JsonObject] = []
    group = next(g for g in state.groups.values() if u.uid in g.units)
    for option_id in group.options:
        option = state.catalogue.options.get(option_id)
        if option is None or option.power is None or option.power.effect not in PLAYED_POWERS:
            continue
        power = option.power
        targets: list[str | None] = [None]
        if power.effect is PowerEffect.ENDURANCE:
            targets = [t.uid for t in state.on_board() if t.side == u.side]
        elif power.effect is PowerEffect.DA_JUMP:  # alone, or with infantry of his ZoC
            targets += [t.uid for t in state.on_board() if t.side == u.side and t.uid != u.uid]
        elif power.effect in TARGETED_POWERS:
            targets = [t.uid for t in state.on_board() if not t.wreck]
        weirdboy = u.counter.psyker is PsykerKind.WEIRDBOY
        odds = perils_odds(u.counter.psyker_level, u.suppressed + power.cost, weirdboy)
        template = state.catalogue.templates.get(power.template or "")
        if power.effect is PowerEffect.DA_KRUNCH:
            if template is None or (u.uid, option_id) in state.lost_powers:
                continue
            out.append(  # the page places the template on an intercase (x, y, facing)
                {
                    "command": _cmd(Manifest(u.uid, option_id)),
                    "effect": str(power.effect),
                    "cost": power.cost,
                    "perils": {k: str(v) for k, v in sorted(odds.items())},
                    "template": template.id,
                    "cells": [list(c) for c in template.cells],
                    "range": power.range,
                }
            )
            continue
        if power.effect is PowerEffect.KILLBOLT:
            out.extend(_beams(state, u, option_id, odds))
            continue
        for tid in targets:
            t = state.units[tid] if tid is not None else None
            several = (
                power.effect is PowerEffect.OBJURATION and t is not None and len(t.face.weapons) > 1
            )
            weapons = [w.name for w in working_weapons(t)] if several and t else [None]
            for weapon in weapons:
                try:
                    power_problem(state, u, option_id, tid, weapon=weapon)
                except Refusal:
                    continue
                out.append(
                    {
                        "command": _cmd(Manifest(u.uid, option_id, tid, weapon=weapon)),
                        "effect": str(power.effect),
                        "cost": power.cost,
                        "persistent": power.persistent,
                        "perils": {k: str(v) for k, v in sorted(odds.items())},
                    }
                )
    return out


def _beams(
    state: BattleState, u: UnitState, option_id: str, perils: dict[str, Fraction]
) -> list[JsonObject]:
    """Killbolt aimed at each enemy unit in range (its anchor square): the units under the
    beam, friend or foe, each with the odds of its attack (the cost paid first: its
    Suppressed markers weaken the beam), the aimed unit's odds first (rulings 129)."""
    option = state.catalogue.options[option_id]
    power = option.power
    assert power is not None
    paid = replace(u, suppressed=u.suppressed + power.cost)
    out: list[JsonObject] = []
    for t in state.on_board():
        if t.side == u.side or t.placement is None:
            continue
        at = t.placement.anchor
        try:
            power_problem(state, u, option_id, None, Intercase(at.x, at.y))
            hit, _ = beam_problem(state, u, option, at)
        except Refusal:
            continue
        targets: list[JsonObject] = []
        for h in hit:
            request = beam_request(state, paid, option, h)
            if request is not None:
                odds = {k: str(v) for k, v in outcome_odds(request).items()}
                targets.append({"target": h.uid, "odds": odds})
        aimed: JsonObject = next((x["odds"] for x in targets if x["target"] == t.uid), {})
        out.append(
            {
                "command": _cmd(Manifest(u.uid, option_id, x=at.x, y=at.y)),
                "effect": str(power.effect),
                "cost": power.cost,
                "perils": {k: str(v) for k, v in sorted(perils.items())},
                "target": t.uid,
                "odds": aimed,
                "targets": targets,
            }
        )
    return out


def _grenades(state: BattleState, u: UnitState) -> list[JsonObject]:
    """Grenades / Tankbusta Bombs the unit may throw: the option, the markers left, the
    template's squares (offsets from the intercase, facing N) and the range in intercases."""
    if u.placement is None:
        return []
    out: list[JsonObject] = []
    for group, option_id in grenade_options(state, u):
        option = state.catalogue.options[option_id]
        e = option.equipment
        assert e is not None
        template = state.catalogue.templates.get(e.template or "")
        if template is None or (e.restriction and u.counter.unit_class not in e.restriction):
            continue
        out.append(
            {
                "command": _cmd(Grenade(u.uid, option_id, 0, 0)),
                "markers": markers_left(state, group, option_id),
                "template": template.id,
                "cells": [list(c) for c in template.cells],
                "range": e.range,
            }
        )
    return out


def _kombis(state: BattleState, u: UnitState) -> list[JsonObject]:
    """A Kombi Weapon's markers (rulings 150): its Tir Direct (B), placed as a template is
    (its squares, CVs and Portée Limitée in intercases), and its Lance-Flammes (M), one entry
    per way the flame may point, with the squares it reaches and the units it attacks."""
    out: list[JsonObject] = []
    for group, option in kombi_options(state, u, Ability.DIRECT_FIRE):
        e = state.catalogue.options[option].equipment
        assert e is not None
        ref = next(a for a in e.grants if a.ability is Ability.DIRECT_FIRE)
        template = state.catalogue.templates.get(template_name(ref.param))
        if template is None:
            continue
        out.append(
            {
                "command": _cmd(Kombi(u.uid, option, False, "N", 0, 0)),
                "markers": kombi_left(state, group, option),
                "template": template.id,
                "cells": [list(c) for c in template.cells],
                "cv": {str(k): v for k, v in template.cv.items()},
                "facings": list(QUARTERS),
                "range": e.range,
            }
        )
    for group, option in kombi_options(state, u, Ability.FLAMER):
        e = state.catalogue.options[option].equipment
        assert e is not None
        ref = next(a for a in e.grants if a.ability is Ability.FLAMER)
        for origin, facing, plan in flame_origins(state, u, ref):
            x, y = (None, None) if origin is None else (origin.x, origin.y)
            out.append(
                {
                    "command": _cmd(Kombi(u.uid, option, True, facing, x, y)),
                    "markers": kombi_left(state, group, option),
                    "reached": sorted([sq.x, sq.y] for sq in plan.reached),
                    "targets": [uid for uid, _ in plan.targets],
                }
            )
    return out


def _flames(state: BattleState, u: UnitState) -> list[JsonObject]:
    """Lance-Flammes: each way the template may point, with the squares the flame reaches
    and the units it attacks (friends included)."""
    if not u.face.has(Ability.FLAMER):
        return []
    out: list[JsonObject] = []
    for origin, facing, plan in flame_origins(state, u):  # aboard: each square (rulings 137)
        x, y = (None, None) if origin is None else (origin.x, origin.y)
        out.append(
            {
                "command": _cmd(Flame(u.uid, facing, x, y)),
                "reached": sorted([sq.x, sq.y] for sq in plan.reached),
                "targets": [uid for uid, _ in plan.targets],
            }
        )
    return out


def _templates(state: BattleState, u: UnitState) -> list[JsonObject]:
    """Tir Direct / Tir Indirect: the template to place on an intercase (its squares as
    offsets from the intercase, facing N, turned by quarter turns), its CVs and dispersion."""
    out: list[JsonObject] = []
    for ability, indirect in ((Ability.DIRECT_FIRE, False), (Ability.INDIRECT_FIRE, True)):
        ref = u.face.ability(ability)
        template = state.catalogue.templates.get(template_name(ref.param)) if ref else None
        if ref is None or template is None:
            continue
        out.append(
            {
                "command": _cmd(TemplateFire(u.uid, 0, 0, "N", indirect)),
                "template": template.id,
                "cells": [list(c) for c in template.cells],
                "cv": {str(k): v for k, v in template.cv.items()},
                "facings": list(QUARTERS),
                "dispersion": None
                if not indirect or template.dispersion is None
                else [list(d) for d in template.dispersion],
                "distance": template_distance(ref.param, template) if indirect else 0,
            }
        )
    return out


def _shot_entry(state: BattleState, t: UnitState, plan: ShotPlan) -> JsonObject:
    """A shot's odds; at a heavy vehicle also the edge it comes through and the exact odds
    of each Damage marker (a step, then the location roll on its set; a Coup Double wrecks
    it with no roll) before any armour save or Hit Point marker."""
    odds = outcome_odds(plan.request)
    entry: JsonObject = {"odds": {k: str(v) for k, v in odds.items()}}
    if t.counter.unit_class is not UnitClass.HEAVY_VEHICLE or plan.request.kind is not Kind.SHOT:
        return entry
    entry["side"] = plan.side
    set_id = damage_set_of(state, t.uid)
    damage_set = state.catalogue.damage_sets.get(set_id or "")
    if damage_set is None:
        return entry
    step = odds.get("step", Fraction(0))
    located = damage_face_odds(damage_set.faces, 1 if plan.piercing else 0)
    markers = {k: step * p for k, p in located.items()}
    markers["coup_double"] = odds.get("coup_double", Fraction(0))
    entry["damage_set"] = damage_set.id
    entry["damage"] = {k: str(v) for k, v in markers.items()}
    return entry


def _vehicle_fire(state: BattleState, u: UnitState) -> list[JsonObject]:
    """A heavy vehicle's Shooting Action: each working weapon and the targets it may shoot,
    each with its odds (a suppression fire too for a weapon with Tir de Suppression)."""
    weapons: list[JsonObject] = []
    for w in working_weapons(u):
        targets: list[JsonObject] = []
        for t in state.on_board():
            if t.side == u.side:
                continue
            for suppression in (False, True):
                try:
                    plan = plan_shot(state, u, t, suppression, w)
                except Refusal:
                    continue
                targets.append(
                    {"target": t.uid, "suppression": suppression, **_shot_entry(state, t, plan)}
                )
        if targets:  # "shots": 2 with Double Tir, at two different targets
            weapons.append({"weapon": w.name, "shots": shots_of(u, w), "targets": targets})
    if not weapons:
        return []
    return [{"command": _cmd(VehicleFire(u.uid, ())), "weapons": weapons}]


def _scout_actions(state: BattleState, side: str) -> list[JsonObject]:
    """The Scout moves of the side making them: each unit's squares (not in or next to an
    objective), then the end of its Scout moves."""
    if state.scouting[0] != side:
        return []
    out: list[JsonObject] = []
    for u in state.present_units():
        if u.side != side or u.uid in state.scouted or u.embarked_in is not None:
            continue
        mover = scout_mover(state, u)
        if mover is None:
            continue
        if any(not p.face.has(Ability.SCOUT) for p in state.passengers(u.uid)):
            continue  # a transport scouts with Scout units aboard only (rulings 118)
        found = {
            p: v
            for p, v in cheapest_paths(state.board, mover, state.board_units()).items()
            if scout_end_problem(state, p) is None
        }
        out.append(_move_entry(state, ScoutMove(u.uid, ()), u, found))
    out.append({"command": _cmd(EndScouting())})
    return out


def _weapon_named(u: UnitState, name: str) -> Weapon:
    return next(w for w in u.face.weapons if w.name == name)


def _overwatch_actions(state: BattleState, side: str) -> list[JsonObject]:
    """A declared move waits: its reactor may fire En Alerte with each unit that could, after
    each step it could (the square, the odds), or let the move go on."""
    p = state.pending
    assert p is not None
    if side != p.reactor:
        return []
    mover = state.units[p.unit]
    path = [placement_of(s, mover.counter.footprint) for s in p.path]
    out: list[JsonObject] = []
    seen = spot_step(state, mover.uid, p.path)  # an ambushed mover, spotted on the way
    for wid, steps in overwatch_steps(state, mover, path).items():
        w = state.units[wid]
        for k in steps:
            probe = evolve(state, UnitMoved(mover.uid, p.path[:k], 0))
            if seen is not None and k >= seen:
                probe = as_spotted(probe, mover.uid)
            for suppression in (False, True):
                fired = watch_shots(probe, probe.units[wid], probe.units[mover.uid], suppression)
                if not fired:
                    continue
                weapon = fired[0]
                plan = plan_shot(
                    probe,
                    probe.units[wid],
                    probe.units[mover.uid],
                    suppression,
                    None if weapon is None else _weapon_named(w, weapon.weapon),
                )
                odds = {key: str(v) for key, v in outcome_odds(plan.request).items()}
                step = p.path[k - 1]
                entry: JsonObject = {
                    "command": _cmd(Overwatch(w.uid, k, suppression)),
                    "target": mover.uid,
                    "square": [step.x, step.y],
                    "odds": odds,
                }
                if weapon is not None:  # a heavy vehicle: the odds of its first weapon
                    entry["weapons"] = [f.weapon for f in fired if f is not None]
                out.append(entry)
    out.append({"command": _cmd(PassOverwatch()), "target": mover.uid})
    return out


def _snipes(state: BattleState, u: UnitState) -> list[JsonObject]:
    """The sniper's shots, each with the exact odds of the sniper table's rows."""
    out: list[JsonObject] = []
    for t in state.on_board():
        if t.side == u.side:
            continue
        try:
            plan = plan_snipe(state, u, t)
        except Refusal:
            continue  # not infantry, no line of sight, out of arc or range
        odds = sniper_odds(
            plan.suppressed,
            plan.obstacles + plan.enfeebled,
            card_bonus(state, u.uid, SHOT_BONUS),
            plan.table,
        )
        out.append({"command": _cmd(Snipe(u.uid, t.uid)), "odds": _named(odds)})
    return out


def _named(odds: dict[str, Fraction]) -> JsonObject:
    """Every row of the sniper table, in the table's order, at 0 when it cannot happen."""
    return {e.value: str(odds.get(e.value, Fraction(0))) for e in SniperEffect}


def _multi_shots(
    state: BattleState, u: UnitState, shots: list[tuple[UnitState, ShotPlan]]
) -> list[JsonObject]:
    """Double Tir (two of the targets it may shoot, each with the odds of its shot) and
    Rafale (the modified CV to split, and each target's odds for each share it may get,
    ``"1"`` to the CV less one)."""
    out: list[JsonObject] = []
    if u.face.has(Ability.DOUBLE_SHOT) and len(shots) >= 2:
        targets: list[JsonObject] = [
            {"target": t.uid, "odds": {k: str(v) for k, v in outcome_odds(p.request).items()}}
            for t, p in shots
        ]
        out.append({"command": _cmd(DoubleShot(u.uid, ())), "targets": targets})
    if not u.face.has(Ability.BURST) or len(shots) < 2:
        return out
    total = modified_cv(shots[0][1].request.attacker, Kind.SHOT)
    if total < 2:
        return out
    pairable = [
        (t, p)
        for t, p in shots
        if any(o is not t and burst_problem(state, [t, o]) is None for o, _ in shots)
    ]
    if not pairable:
        return out
    entries: list[JsonObject] = []
    for t, p in pairable:
        by_share: JsonObject = {}
        for share in range(1, total):
            req = replace(p.request, attacker=replace(p.request.attacker, cv=share, bonuses=0))
            by_share[str(share)] = {k: str(v) for k, v in outcome_odds(req).items()}
        entries.append({"target": t.uid, "class": str(t.counter.unit_class), "odds": by_share})
    out.append({"command": _cmd(Burst(u.uid, ())), "cv": total, "targets": entries})
    return out


_Found = dict[Placement, tuple[Reach, tuple[Placement, ...]]]


def _found(state: BattleState, u: UnitState) -> _Found:
    """Where the unit's Movement Action may end, each with a cheapest path."""
    mover = Mover(state.mover(u.uid), u.face.mv, card_bonus(state, u.uid, MOVE_BONUS))
    return cheapest_paths(state.board, mover, state.board_units())


def _steps(path: tuple[Placement, ...]) -> list[list[int | str]]:
    return [[s.anchor.x, s.anchor.y, s.facing.name] for s in path]


def _assault_starts(
    state: BattleState, u: UnitState, t: UnitState, found: _Found
) -> list[JsonObject]:
    """Where ``u`` may assault ``t`` from, nearest first: where it stands (``square`` None,
    an empty path), else each end of a move next to ``t`` from which the assault's move into
    it is legal."""
    if t.placement is None or (u.placement is None and u.embarked_in is None):
        return []
    near = {n for sq in t.placement.squares for n in sq.neighbours()} - set(t.placement.squares)
    out: list[JsonObject] = []
    aboard = aboard_start(state, u, t)  # from its transport's square (rulings 121)
    if aboard is not None:
        out.append({"square": [aboard.anchor.x, aboard.anchor.y], "path": []})
    elif u.embarked_in is None and assault_start_problem(state, u, t, ()) is None:
        out.append({"square": None, "path": []})
    ends = sorted(found.items(), key=lambda kv: (kv[1][0].cost, kv[0].anchor))
    for p, (reach, path) in ends:
        if not path or reach.pushes or p.anchor not in near:
            continue
        if assault_start_problem(state, u, t, path) is None:
            out.append({"square": [p.anchor.x, p.anchor.y], "path": _steps(path)})
    return out


def _fire_on_move(state: BattleState, u: UnitState) -> JsonObject:
    """A unit with Tir en Mouvement: the enemy units it may name to shoot during its move
    (each checked where it is fired; no wreck, no ambushed unit; a heavy vehicle's Tir en
    Mouvement weapons too, rulings 136), and whether it may fire its Double Tir or its
    Rafale then (rulings 123); a heavy vehicle's Double Tir when one of its Tir en Mouvement
    weapons has it (rulings 140; the page's move form offers its Rafale too)."""
    targets = [
        t
        for t in moving_fire_targets(state, u)
        if state.units[t].status.face is not FaceKind.AMBUSH
    ]
    if not targets:
        return {}
    own = not u.face.weapons
    double = u.face.has(Ability.DOUBLE_SHOT) or any(
        w.has(Ability.DOUBLE_SHOT) for w in moving_guns(u)
    )
    return {
        "fire_targets": targets,
        "double_shot": double,
        "burst": own and u.face.has(Ability.BURST),
    }


def _move_entry(
    state: BattleState, command: object, u: UnitState, found: _Found | None = None
) -> JsonObject:
    """A move's legal action: the squares it may end on (``to``) and a cheapest path to each
    (``paths``: ``"x,y"`` -> its steps as ``[x, y, facing]``), so that a page may send the
    move from the square tapped. A vehicle ending on infantry (a push) is left out: the
    battle does not play it yet."""
    found = _found(state, u) if found is None else found
    here = None if u.placement is None else u.placement.anchor
    ends = {p: steps for p, (reach, steps) in found.items() if not reach.pushes}
    paths: dict[str, list[list[int | str]]] = {}
    for p, steps in sorted(ends.items(), key=lambda kv: len(kv[1])):
        key = f"{p.anchor.x},{p.anchor.y}"
        if p.anchor == here or key in paths:
            continue
        paths[key] = _steps(steps)
    return {
        "command": _cmd(command),
        "to": [list(_xy(k)) for k in sorted(paths, key=_xy)],
        "paths": dict(sorted(paths.items(), key=lambda kv: _xy(kv[0]))),
    }


def _jump_entry(state: BattleState, u: UnitState) -> JsonObject:
    """A unit back from Da Jump: the squares its Movement Action may end on, each with a
    shortest path whose first square lies on a board edge it may enter by (rulings 132)."""
    mv = u.face.mv
    card = card_bonus(state, u.uid, MOVE_BONUS)
    paths: dict[str, list[list[int | str]]] = {}
    if mv is not None and mv + card - SUPPRESSED_MV * u.suppressed >= 1:
        taken = {
            sq for t in state.on_board() if t.placement is not None for sq in t.placement.squares
        }
        for sq in sorted(state.board.squares, key=lambda q: (q.y, q.x)):
            first = Placement(sq)
            if sq in taken or any(
                e.forbids(u.counter.unit_class) for e in state.board.elements_at(sq)
            ):
                continue
            try:
                landing_problem(state, u, sq)
            except Refusal:
                continue
            placed = replace(state, units={**state.units, u.uid: replace(u, placement=first)})
            mover = Mover(placed.mover(u.uid), mv, card - 1)
            routes: dict[Placement, tuple[Placement, ...]] = {first: (first,)}
            for p, (reach, steps) in cheapest_paths(
                state.board, mover, placed.board_units()
            ).items():
                if not reach.pushes:
                    routes.setdefault(p, (first, *steps))
            for p, steps in routes.items():
                key = f"{p.anchor.x},{p.anchor.y}"
                if key not in paths or len(steps) < len(paths[key]):
                    paths[key] = _steps(steps)
    return {
        "command": _cmd(ReserveMove(u.uid, ())),
        "jump": True,
        "to": [list(_xy(k)) for k in sorted(paths, key=_xy)],
        "paths": dict(sorted(paths.items(), key=lambda kv: _xy(kv[0]))),
    }


def _xy(key: str) -> tuple[int, int]:
    x, y = key.split(",")
    return int(x), int(y)


def _room_at_deployment(state: BattleState, u: UnitState, t: UnitState) -> bool:
    """May ``u`` be deployed aboard ``t`` now, on its first face (rulings 141)?"""
    if u.uid == t.uid or t.placement is None:
        return False
    try:
        deploy_aboard_problem(state, u.uid, t.uid)
    except Refusal:
        return False
    return True


def _setup_actions(state: BattleState, side: str) -> list[JsonObject]:
    """Set-up: deploy (or move) each counter in the zone, or an infantry counter aboard a
    transport of its side already placed with room for it (rulings 141); end once all are
    placed."""
    if side in state.deployed or state.scenario is None:
        return []
    zone = sorted([sq.x, sq.y] for sq in state.scenario.side(side).deployment)
    mine = [u for u in state.units.values() if u.side == side]
    out: list[JsonObject] = [
        {"command": _cmd(DeployUnit(u.uid, 0, 0)), "zone": zone, **deploy_faces(u)} for u in mine
    ]
    out += [
        {"command": _cmd(DeployAboard(u.uid, t.uid))}
        for u in mine
        for t in mine
        if u.embarked_in != t.uid and _room_at_deployment(state, u, t)
    ]
    if all(u.present for u in mine):
        out.append({"command": _cmd(EndDeployment())})
    return out
