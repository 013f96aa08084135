"""Equipment and Personalisation options in the match (note §2.5-§2.6, §3.9; rulings 126-128).

- **Permanent gifts** (an option with no marker and no Alternative action): the abilities it
  gives, a DV set or raised, an MV raised and an armour save, worked out once when the battle
  is created (:func:`unit_gear`) and shown on the unit's face (:func:`.gear.geared`). An
  Equipment option serves the units of its group that its restriction allows (its whole side
  from a command tile) [L2473-L2484]; a Personalisation option only its tile's Character
  [L2606-L2619].
- **Markers used once** [L2486-L2496] (Ammo, Camo Cloak, Rokkit Hammers, a vehicle's Ammo or
  armour): announced before the action and before any die (``ready_equipment``: the unit, the
  option, 1 to 3 markers, at most 3 identical per action), then spent by the first roll they
  change (:func:`note_gear`, :func:`spend_gear`): ``shot_bonus`` adds to each Shooting Action
  of the unit's next action (Alternative ones included [L2500-L2504]) with the marker's
  abilities (Perforant), ``assault_bonus`` to its next assault roll, attacking or defending,
  with Perçant [L2550-L2556]; a ``dv_bonus`` marker raises its DV against the next Shooting
  Action at it (Camo Cloak never against a template [L2511-L2513]). Markers readied and not
  spent by the end of the turn go back on the option.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from app.engine.black_reach.armies import Catalogue
from app.engine.black_reach.battle.commands import ReadyEquipment
from app.engine.black_reach.battle.events import EquipmentReadied, EquipmentUsed
from app.engine.black_reach.battle.state import BattleState, Stage, UnitState
from app.engine.black_reach.cards import BonusKind
from app.engine.black_reach.forces import (
    Ability,
    ArmourSave,
    Counter,
    Equipment,
    Group,
    OptionType,
    TileKind,
)
from app.engine.black_reach.gear import Gear
from app.engine.black_reach.tables import ArmourColour
from app.engine.black_reach.turn import Phase
from app.engine.match.errors import Refusal, RefusalKind
from app.engine.match.events import Event

__all__ = [
    "MAX_IDENTICAL",
    "armour_saves",
    "gear_bonus",
    "gear_dv",
    "gear_grants",
    "marker_options",
    "markers_free",
    "note_gear",
    "ready_equipment",
    "spend_gear",
    "unit_gear",
]

MAX_IDENTICAL = 3  # at most 3 identical markers in one action [L2494-L2496]


class Out(Protocol):
    state: BattleState
    gear_uses: set[tuple[str, str]]

    def emit(self, event: Event, audience: tuple[str, ...] | None = None) -> None: ...


def _refuse(code: str, message: str, kind: RefusalKind = RefusalKind.RULES) -> Refusal:
    return Refusal(code, message, kind=kind)


def _holders(catalogue: Catalogue, groups: Mapping[str, Group], side: str, uid: str) -> list[Group]:
    """The groups whose options ``uid`` may use: its own, and its side's command tiles
    [L2473-L2484], [L2395-L2404] (as the grenades, rulings 101)."""
    own = [g for g in groups.values() if uid in g.units]
    command = [
        g
        for g in groups.values()
        if g.side == side
        and g not in own
        and (tile := catalogue.tiles.get(g.tile)) is not None
        and tile.kind is TileKind.COMMAND
    ]
    return own + command


def _serves(catalogue: Catalogue, group: Group, option_id: str, uid: str, counter: Counter) -> bool:
    """Whether the option in ``group``'s slot serves the unit: a Personalisation its tile's
    Character only [L2617-L2619]; an Equipment option a unit of a class it allows."""
    option = catalogue.options.get(option_id)
    e = option.equipment if option is not None else None
    if option is None or e is None:
        return False
    if option.type is OptionType.PERSONALISATION:
        return counter.character and uid in group.units
    return not e.restriction or counter.unit_class in e.restriction


def unit_gear(
    catalogue: Catalogue, groups: Mapping[str, Group], side: str, uid: str, counter: Counter
) -> Gear | None:
    """The permanent gifts of the options serving the unit (``None``: none)."""
    gear = Gear()
    for g in _holders(catalogue, groups, side, uid):
        for option_id in g.options:
            option = catalogue.options.get(option_id)
            e = option.equipment if option is not None else None
            if e is None or not e.permanent or not _serves(catalogue, g, option_id, uid, counter):
                continue
            gear = gear.add(option_id, e)
    return gear if gear.options else None


def armour_saves(state: BattleState, uid: str) -> list[ArmourSave]:
    """The unit's armour saves: its tile's [L1885-L1888] and its permanent gifts' (rulings
    128)."""
    u = state.units[uid]
    group = next(g for g in state.groups.values() if uid in g.units)
    tile = state.catalogue.tiles.get(group.tile)
    saves = [tile.armour_save] if tile is not None and tile.armour_save is not None else []
    return saves + list(u.gear.saves if u.gear is not None else ())


def best_save(saves: list[ArmourSave], card: bool) -> ArmourSave | None:
    """The save rolled: the lowest value among the green ones, and the yellow ones too when
    an armour-save card is readied (rulings 128)."""
    usable = [s for s in saves if s.colour is ArmourColour.GREEN or card]
    return min(usable, key=lambda s: s.value) if usable else None


# -- markers ------------------------------------------------------------------------------------


def _marker_option(state: BattleState, option_id: str) -> Equipment | None:
    option = state.catalogue.options.get(option_id)
    e = option.equipment if option is not None else None
    if e is None or e.markers == 0 or e.alternative:
        return None
    return e if e.shot_bonus or e.assault_bonus or e.dv_bonus else None  # it changes a roll


def key_of(group: str, option: str) -> str:
    return f"{group}|{option}"


def markers_free(state: BattleState, group: Group, option_id: str) -> int:
    """An option's markers neither used for good nor readied on a unit."""
    e = _marker_option(state, option_id)
    if e is None:
        return 0
    key = key_of(group.id, option_id)
    readied = sum(r.get(key, 0) for r in state.gear_ready.values())
    return max(0, e.markers - state.equipment_used.get(key, 0) - readied)


def marker_options(state: BattleState, u: UnitState) -> list[tuple[Group, str, int]]:
    """The marker options ``u`` may ready now, with how many more of each it may take (the
    markers left, at most 3 identical on one action)."""
    out: list[tuple[Group, str, int]] = []
    for g in _holders(state.catalogue, state.groups, u.side, u.uid):
        for option_id in g.options:
            if _marker_option(state, option_id) is None:
                continue
            if not _serves(state.catalogue, g, option_id, u.uid, u.counter):
                continue
            mine = state.gear_ready.get(u.uid, {}).get(key_of(g.id, option_id), 0)
            room = min(markers_free(state, g, option_id), MAX_IDENTICAL - mine)
            if room > 0:
                out.append((g, option_id, room))
    return out


def ready_equipment(out: Out, command: ReadyEquipment, side: str) -> None:
    """Announce markers for the unit's next action, before any die [L2490-L2492]."""
    state = out.state
    if state.stage is not Stage.BATTLE or state.turn is None:
        raise _refuse("wrong_stage", "equipment markers are used during the battle")
    u = state.units.get(command.unit)
    if u is None:
        raise _refuse("unknown_unit", f"there is no unit {command.unit!r}", RefusalKind.INPUT)
    if u.side != side:
        raise _refuse("not_your_unit", f"{u.uid} is not yours", RefusalKind.FORBIDDEN)
    if not u.present:
        raise _refuse("not_present", f"{u.uid} is not on the battlefield")
    if not 1 <= command.count <= MAX_IDENTICAL:
        raise _refuse(
            "bad_count", "1 to 3 identical markers in one action [L2494-L2496]", RefusalKind.INPUT
        )
    e = _marker_option(state, command.option)
    if e is None:
        raise _refuse(
            "not_a_marker_option",
            f"{command.option!r} is no equipment option with markers",
            RefusalKind.INPUT,
        )
    choices = {o: (g, room) for g, o, room in marker_options(state, u)}
    holders = [
        g
        for g in _holders(state.catalogue, state.groups, u.side, u.uid)
        if command.option in g.options
    ]
    if not holders:
        raise _refuse("not_your_option", f"{u.uid}'s group does not hold {command.option}")
    if command.option not in choices:
        if not any(_serves(state.catalogue, g, command.option, u.uid, u.counter) for g in holders):
            raise _refuse("not_for_this_unit", f"{command.option} does not serve {u.uid}")
        raise _refuse("no_marker_left", f"no {command.option} marker is left for {u.uid}")
    group, room = choices[command.option]
    if command.count > room:
        raise _refuse(
            "too_many_markers",
            f"{u.uid} may take {room} more {command.option} marker(s) for this action",
        )
    if (e.shot_bonus or e.assault_bonus) and not e.dv_bonus and state.turn.phase is Phase.RESERVE:
        raise _refuse(
            "immutable_rule", "no Shooting Action and no Assault in the Reserve phase [L710-L714]"
        )
    out.emit(EquipmentReadied(u.uid, group.id, command.option, command.count))


def _readied(state: BattleState, uid: str) -> list[tuple[str, Equipment, int]]:
    out: list[tuple[str, Equipment, int]] = []
    for key, count in sorted(state.gear_ready.get(uid, {}).items()):
        e = _marker_option(state, key.split("|", 1)[1])
        if e is not None:
            out.append((key, e, count))
    return out


def _bonus_of(e: Equipment, kinds: frozenset[BonusKind]) -> int:
    bonus = 0
    if BonusKind.SHOOTING in kinds:
        bonus += e.shot_bonus
    if BonusKind.ASSAULT in kinds:
        bonus += e.assault_bonus
    return bonus


def gear_bonus(state: BattleState, uid: str, kinds: frozenset[BonusKind]) -> int:
    """What the markers readied on ``uid`` add to a roll of ``kinds`` (shooting or assault)."""
    return sum(_bonus_of(e, kinds) * count for _, e, count in _readied(state, uid))


def gear_grants(
    state: BattleState, uid: str, ability: Ability, kinds: frozenset[BonusKind]
) -> bool:
    """Whether a marker readied for a roll of ``kinds`` gives ``ability`` (vehicle Ammo's
    Perforant, Rokkit Hammers' Perçant)."""
    return any(
        _bonus_of(e, kinds) and any(a.ability is ability for a in e.grants)
        for _, e, _count in _readied(state, uid)
    )


def gear_dv(state: BattleState, uid: str) -> int:
    """What the DV markers readied on ``uid`` add against a Shooting Action."""
    return sum(e.dv_bonus * count for _, e, count in _readied(state, uid))


def note_gear(out: Out, uid: str, kinds: frozenset[BonusKind] | None) -> None:
    """A roll of ``kinds`` by ``uid`` counts its readied markers (``None``: a shot at ``uid``
    counts its DV markers); they are spent when the command ends."""
    for key, e, _ in _readied(out.state, uid):
        if (_bonus_of(e, kinds) if kinds is not None else e.dv_bonus) > 0:
            out.gear_uses.add((uid, key))


def spend_gear(out: Out) -> None:
    """At the end of a command: the markers its rolls counted are used for good."""
    for uid, key in sorted(out.gear_uses):
        count = out.state.gear_ready.get(uid, {}).get(key, 0)
        if count:
            group, option = key.split("|", 1)
            out.emit(EquipmentUsed(uid, group, option, count))
    out.gear_uses.clear()
