"""``evolve``: one event applied to the state (pure; the replay of the log is the state)."""

from __future__ import annotations

from dataclasses import replace

from app.engine.black_reach.armies import groups
from app.engine.black_reach.battle.commands import Step
from app.engine.black_reach.battle.equipment import unit_gear
from app.engine.black_reach.battle.events import (
    ActivationEnded,
    ArmourSaved,
    AssaultResolved,
    BattleCreated,
    BattleEnded,
    BeamFired,
    BurstDeclared,
    CardBonusUsed,
    CardPlayed,
    CardsDrawn,
    DamageLocated,
    Demolished,
    DeploymentEnded,
    DestructionDealt,
    EquipmentReadied,
    EquipmentUsed,
    FlamerFired,
    ForcedMove,
    GrenadeThrown,
    HandDrawn,
    InitiativeKept,
    JumpLanded,
    MoveDeclared,
    OrderRevealed,
    OrdersCommitted,
    OrdersPlaced,
    OverwatchAnswered,
    PowerAgainDeclined,
    PowerAgainOffered,
    PowerLost,
    PowerManifested,
    PowersMaintained,
    RepairReadied,
    RepairUsed,
    RerollAnswered,
    RerollOffered,
    ReserveEnded,
    ResultConfirmed,
    ScoutingEnded,
    ScoutingStarted,
    ScoutMoved,
    SquareAwaited,
    StepsTaken,
    SuppressedPlaced,
    SuppressedRemoved,
    TemplatePlaced,
    TurnEnded,
    TurnStarted,
    UnitDeployed,
    UnitDeployedAboard,
    UnitEmbarked,
    UnitFlipped,
    UnitMoved,
    UnitsActivated,
    UnitShot,
    UnitsJumped,
    UnitSniped,
    UnitSpotted,
)
from app.engine.black_reach.battle.powers import marker_from
from app.engine.black_reach.battle.setup import parse_setup
from app.engine.black_reach.battle.state import (
    BattleState,
    PendingMove,
    PendingReroll,
    PendingSquare,
    Stage,
    UnitState,
)
from app.engine.black_reach.board import Square
from app.engine.black_reach.cards import deck_of
from app.engine.black_reach.forces import FaceKind, fresh_state
from app.engine.black_reach.los import Facing
from app.engine.black_reach.movement import Footprint, Placement
from app.engine.black_reach.tables import DamageMarker
from app.engine.black_reach.turn import end_activation, lock, place, reveal, start_turn
from app.engine.match.events import Event

__all__ = ["counter_id", "evolve", "placement_of"]


def counter_id(uid: str) -> str:
    """The catalogue id of a unit uid (``<side>:<tile path>/<n>:<counter>``)."""
    return uid.rsplit(":", 1)[1]


def placement_of(step: Step, footprint: int, previous: Facing = Facing.N) -> Placement:
    """The placement a step describes (raises ValueError/KeyError on a bad facing)."""
    facing = Facing[step.facing] if step.facing is not None else previous
    return Placement(Square(step.x, step.y), facing, Footprint(footprint))


def _created(state: BattleState, event: BattleCreated) -> BattleState:
    setup = event.setup
    scenario = parse_setup(setup)
    deployed = {d.unit: d for d in setup.deployment}
    units: dict[str, UnitState] = {}
    all_groups = {}
    for side in scenario.sides:
        for group in groups(side.army, scenario.catalogue, side.id):
            all_groups[group.id] = group
            for uid in group.units:
                counter = scenario.catalogue.counters[counter_id(uid)]
                d = deployed.get(uid)
                face = FaceKind(d.face) if d is not None and d.face else None
                placement = placement_of(Step(d.x, d.y, d.facing), counter.footprint) if d else None
                units[uid] = UnitState(uid, side.id, counter, fresh_state(counter, face), placement)
    for uid, u in units.items():  # the permanent gifts of their options (rulings 126)
        units[uid] = replace(
            u, gear=unit_gear(scenario.catalogue, all_groups, u.side, uid, u.counter)
        )
    everyone = all(u.placement is not None for u in units.values())
    # each side's deck: every copy of its faction's Action cards, when the scenario deals a hand
    cards = scenario.catalogue.cards if scenario.hand_size > 0 else ()
    decks = {s.id: deck_of(cards, s.army.faction) for s in scenario.sides}
    return replace(
        state,
        decks=decks,
        hands={s.id: () for s in scenario.sides},
        discards={s.id: () for s in scenario.sides},
        stage=Stage.BATTLE if everyone else Stage.SETUP,
        scenario=scenario,
        seats=dict(setup.seats),
        units=units,
        groups=all_groups,
        vp={s.id: 0 for s in scenario.sides},
    )


def _unit(state: BattleState, uid: str, **changes: object) -> BattleState:
    return replace(state, units={**state.units, uid: replace(state.units[uid], **changes)})  # type: ignore[arg-type]


def _moved(state: BattleState, uid: str, step: Step) -> BattleState:
    """The unit now stands at ``step`` (out of its transport, if it was in one)."""
    u = state.units[uid]
    previous = u.placement.facing if u.placement is not None else Facing.N
    placed = placement_of(step, u.counter.footprint, previous)
    return _unit(state, uid, placement=placed, embarked_in=None)


def _discard(state: BattleState, side: str, card: str) -> BattleState:
    return replace(state, discards={**state.discards, side: (*state.discards[side], card)})


def _cards(
    state: BattleState, event: CardsDrawn | HandDrawn | CardPlayed | CardBonusUsed
) -> BattleState:
    if isinstance(event, CardsDrawn):
        side = event.side
        hand = [c for c in state.hands[side] if c not in event.discarded]
        deck = list(state.decks[side])
        discards: tuple[str, ...] = (*state.discards[side], *event.discarded)
        for card in event.drawn:
            if card not in deck:  # the deck ran out: the discards are its new cards
                deck, discards = [*deck, *discards], ()
            deck.remove(card)
            hand.append(card)
        return replace(
            state,
            hands={**state.hands, side: tuple(hand)},
            decks={**state.decks, side: tuple(deck)},
            discards={**state.discards, side: discards},
        )
    if isinstance(event, HandDrawn):
        # a hand beyond its size (Gork's Blessing) must discard first: the side still draws
        assert state.scenario is not None
        if event.hand > state.scenario.hand_size:
            return state
        return replace(state, to_draw=state.to_draw - {event.side})
    if isinstance(event, CardPlayed):
        side = event.side
        kept = tuple(c for c in state.hands[side] if c != event.card)
        state = replace(state, hands={**state.hands, side: kept})
        if event.unit is not None and event.use == "bonus":
            return replace(state, readied={**state.readied, event.unit: event.card})
        return _discard(state, side, event.card)
    readied = dict(state.readied)
    del readied[event.unit]
    state = replace(state, readied=readied)
    return _discard(state, state.units[event.unit].side, event.card)


def _gear(state: BattleState, event: EquipmentReadied | EquipmentUsed) -> BattleState:
    key = f"{event.group}|{event.option}"
    # a Boss Pole's markers are readied per bonus; the option counts them all as used
    ready_key = f"{key}|{event.bonus}" if event.bonus else key
    mine = dict(state.gear_ready.get(event.unit, {}))
    if isinstance(event, EquipmentReadied):
        mine[ready_key] = mine.get(ready_key, 0) + event.count
        return replace(state, gear_ready={**state.gear_ready, event.unit: mine})
    mine.pop(ready_key, None)  # a Kombi Weapon's marker was never readied: nothing to pop
    ready = {k: v for k, v in state.gear_ready.items() if k != event.unit}
    if mine:
        ready[event.unit] = mine
    used = {**state.equipment_used, key: state.equipment_used.get(key, 0) + event.count}
    return replace(state, gear_ready=ready, equipment_used=used)


_Reroll = RerollOffered | RerollAnswered | PowerAgainOffered | PowerAgainDeclined


def _reroll(state: BattleState, event: _Reroll) -> BattleState:
    """A roll offered for a reroll, the answer (a marker used for good: rulings 153, 156), a
    Librarian's power to use again or not (rulings 157)."""
    if isinstance(event, RerollOffered):
        command, shown = event.command, event.event
        assert isinstance(command, dict)
        assert isinstance(shown, dict)
        pending = PendingReroll(
            command,
            event.actor,
            event.dice,
            event.originals,
            event.seeded,
            event.answers,
            event.side,
            event.at,
            shown,
        )
        return replace(state, reroll=pending)
    if isinstance(event, RerollAnswered):
        state = replace(state, reroll=None)
        if not event.rerolled:
            return state
        key = f"{event.group}|{event.option}"
        used = {**state.equipment_used, key: state.equipment_used.get(key, 0) + 1}
        return replace(state, equipment_used=used)
    if isinstance(event, PowerAgainOffered):
        return replace(state, again=(event.unit, event.power))
    return replace(state, again=None)


def evolve(state: BattleState, event: Event) -> BattleState:
    if isinstance(event, _Reroll):
        return _reroll(state, event)
    if isinstance(event, BattleCreated):
        return _created(state, event)
    if isinstance(event, UnitDeployed):
        u = state.units[event.unit]
        placed = placement_of(event.to, u.counter.footprint)
        status = fresh_state(u.counter, FaceKind(event.face))
        return _unit(state, event.unit, placement=placed, status=status, embarked_in=None)
    if isinstance(event, UnitDeployedAboard):  # rulings 141
        status = fresh_state(state.units[event.unit].counter, FaceKind(event.face))
        return _unit(state, event.unit, placement=None, status=status, embarked_in=event.transport)
    if isinstance(event, DeploymentEnded):
        return replace(state, deployed=state.deployed | {event.side})
    if isinstance(event, ScoutingStarted):
        return replace(state, scouting=event.order)
    if isinstance(event, ScoutMoved):
        state = _moved(state, event.unit, event.path[-1])
        return replace(state, scouted=state.scouted | {event.unit})
    if isinstance(event, ScoutingEnded):
        return replace(state, scouting=tuple(s for s in state.scouting if s != event.side))
    if isinstance(event, TurnStarted):
        return replace(
            state,
            stage=Stage.BATTLE,
            turn=start_turn(event.turn, event.initiative, event.other, event.pools),
            secret={event.initiative: {}, event.other: {}},
            activated=frozenset(),
            acted=frozenset(),
            rolls={},
            reserve_done=frozenset(),
            keep_initiative=None,
            # the first turn's deal, then the refill of the last Reserve phase [L2073-L2077]
            # the sides whose psykers have persistent powers to maintain [L2760-L2772]
            to_maintain=frozenset(state.units[m.psyker].side for m in state.powers.values()),
            to_draw=frozenset(
                s
                for s in (event.initiative, event.other)
                if state.decks.get(s) or state.hands.get(s) or state.discards.get(s)
            ),
        )
    assert state.turn is not None or isinstance(event, BattleEnded | ResultConfirmed)
    if isinstance(event, OrdersPlaced):
        return replace(
            state, secret={**state.secret, event.side: {o.unit: o for o in event.orders}}
        )
    if isinstance(event, OrdersCommitted):
        assert state.turn is not None
        turn = state.turn
        for unit, digest in event.commitments.items():
            turn = place(turn, event.side, unit, digest)
        return replace(state, turn=lock(turn, event.side))
    if isinstance(event, OrderRevealed):
        assert state.turn is not None
        turn = reveal(state.turn, event.side, event.unit, event.token, event.nonce)
        return replace(state, turn=turn, acted=state.acted | {event.unit})
    if isinstance(event, UnitMoved):
        state = _moved(state, event.unit, event.path[-1]) if event.path else state
        return replace(state, acted=state.acted | {event.unit})
    if isinstance(event, UnitEmbarked):
        return _unit(state, event.unit, placement=None, embarked_in=event.transport)
    if isinstance(event, UnitFlipped | UnitSpotted):
        u = state.units[event.unit]
        return _unit(state, event.unit, status=replace(u.status, face=FaceKind(event.face)))
    if isinstance(event, SuppressedRemoved):
        u = state.units[event.unit]
        return _unit(state, event.unit, suppressed=max(0, u.suppressed - event.count))
    if isinstance(event, PowerLost):
        return replace(state, lost_powers=state.lost_powers | {(event.unit, event.power)})
    if isinstance(event, InitiativeKept):
        return replace(state, keep_initiative=event.side)
    if isinstance(event, PowerManifested) and state.again is not None:
        state = replace(state, again=None)  # the power used again (rulings 157)
    if isinstance(event, PowerManifested) and event.applies:
        # a persistent power leaves its marker; manifested again, the marker moves [L2753]
        marker = marker_from(state, event.unit, event.power, event.target, event.weapon)
        if marker is not None:
            state = replace(state, powers={**state.powers, marker.key: marker})
    if isinstance(
        event,
        UnitShot
        | AssaultResolved
        | UnitSniped
        | TemplatePlaced
        | PowerManifested
        | FlamerFired
        | GrenadeThrown,
    ):
        if isinstance(event, GrenadeThrown):  # one marker used for good [L2486-L2490]
            key = f"{event.group}|{event.option}"
            used = {**state.equipment_used, key: state.equipment_used.get(key, 0) + 1}
            state = replace(state, equipment_used=used)
        rolls = {**state.rolls, event.unit: state.rolls.get(event.unit, 0) + 1}
        return replace(state, rolls=rolls)
    if isinstance(event, UnitsJumped):  # off the battlefield until the next turn (rulings 132)
        for uid in event.units:
            state = _unit(state, uid, placement=None)
        jumped = {**state.jumped, **dict.fromkeys(event.units, (event.unit, event.turn))}
        return replace(state, jumped=jumped)
    if isinstance(event, JumpLanded):
        psyker, _ = state.jumped[event.unit]
        jumped = {k: v for k, v in state.jumped.items() if k != event.unit}
        edges = dict(state.jump_edges)
        if any(p == psyker for p, _ in jumped.values()):
            edges[psyker] = event.edges  # its partner comes back by the same edge
        else:
            edges.pop(psyker, None)
        return replace(state, jumped=jumped, jump_edges=edges)
    if isinstance(event, EquipmentReadied | EquipmentUsed):
        return _gear(state, event)
    if isinstance(event, RepairReadied):
        return replace(state, repairs={**state.repairs, event.unit: (event.modifier, event.pick)})
    if isinstance(event, RepairUsed):
        return replace(state, repairs={k: v for k, v in state.repairs.items() if k != event.unit})
    if isinstance(event, PowersMaintained):
        powers = {k: m for k, m in state.powers.items() if k not in event.dropped}
        return replace(state, powers=powers, to_maintain=state.to_maintain - {event.side})
    if isinstance(event, ArmourSaved | BurstDeclared | BeamFired):
        return state
    if isinstance(event, DestructionDealt):
        state = replace(state, destruction={**state.destruction, event.wreck: event.total})
        if not event.removed:
            return state
        if event.wreck in state.units:  # a wreck is removed [L1192-L1194]
            return _unit(state, event.wreck, placement=None)
        return replace(state, ruined=state.ruined | {event.wreck})
    if isinstance(event, Demolished):
        rolls = {**state.rolls, event.unit: state.rolls.get(event.unit, 0) + 1}
        return replace(state, acted=state.acted | {event.unit}, rolls=rolls)
    if isinstance(event, DamageLocated):
        u = state.units[event.unit]
        damage = u.status.damage.take(DamageMarker(event.marker), event.number)
        return _unit(state, event.unit, status=replace(u.status, damage=damage))
    if isinstance(event, MoveDeclared):
        pending = PendingMove(
            event.unit,
            event.side,
            event.reactor,
            event.path,
            event.fire_at,
            event.fire_after,
            event.flip,
            event.embark,
            event.demolish,
            event.flame,
            assault=event.assault,
            supporters=event.supporters,
            fire_second=event.fire_second,
            burst=event.burst,
            weapons=event.weapons,
        )
        return replace(state, pending=pending)
    if isinstance(event, OverwatchAnswered):
        return replace(state, pending=None)
    if isinstance(event, StepsTaken):
        u = state.units[event.unit]
        status = replace(
            u.status,
            face=FaceKind(event.face),
            hit_points=event.hit_points,
            destroyed=event.destroyed,
        )
        state = _unit(state, event.unit, status=status)
        if event.destroyed:
            gid = next(g.id for g in state.groups.values() if event.unit in g.units)
            state = replace(state, groups={**state.groups, gid: state.groups[gid].lose(event.unit)})
            # a destroyed psyker's markers go, their effects end [L2755-L2757]; so do the
            # markers on a destroyed unit
            powers = {
                k: m for k, m in state.powers.items() if event.unit not in (m.psyker, m.target)
            }
            state = replace(state, powers=powers)
            if event.unit in state.jumped:  # a jumper not back in time (rulings 132)
                jumped = {k: v for k, v in state.jumped.items() if k != event.unit}
                state = replace(state, jumped=jumped)
        return state
    if isinstance(event, SuppressedPlaced):
        return _unit(state, event.unit, suppressed=state.units[event.unit].suppressed + event.count)
    if isinstance(event, UnitsActivated):
        return replace(state, activated=state.activated | set(event.units))
    if isinstance(event, ForcedMove):
        if state.placing is not None and state.placing.unit == event.unit:
            state = replace(state, placing=None)  # the owner's square (rulings 142)
        return _moved(state, event.unit, event.to)
    if isinstance(event, SquareAwaited):
        placing = PendingSquare(
            event.unit,
            event.side,
            event.why,
            event.squares,
            event.attacker,
            event.entry,
            event.attacker_why,
        )
        return replace(state, placing=placing)
    if isinstance(event, ActivationEnded):
        assert state.turn is not None
        return replace(state, turn=end_activation(state.turn))
    if isinstance(event, ReserveEnded):
        return replace(state, reserve_done=state.reserve_done | {event.side})
    if isinstance(event, TurnEnded):
        for uid in event.unsuppressed:
            state = _unit(state, uid, suppressed=state.units[uid].suppressed - 1)
        for uid, card in state.readied.items():  # a bonus not used this turn is discarded
            state = _discard(state, state.units[uid].side, card)
        # markers readied and not spent go back on their option (rulings 127)
        return replace(state, vp=dict(event.vp), readied={}, gear_ready={})
    if isinstance(event, CardsDrawn | HandDrawn | CardPlayed | CardBonusUsed):
        return _cards(state, event)
    if isinstance(event, BattleEnded):
        return replace(
            state, stage=Stage.ENDED, winner=event.winner, reason=event.reason, vp=dict(event.vp)
        )
    if isinstance(event, ResultConfirmed):
        return replace(state, confirmed=state.confirmed | {event.seat})
    raise TypeError(f"unknown event {event.kind!r}")
