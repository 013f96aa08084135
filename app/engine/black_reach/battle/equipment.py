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
- **A Character's auras** (rulings 147-148): a Personalisation option with an ``aura`` serves
  every allied unit within that many squares of its tile's Character, himself included: the
  Boss Pole's markers (the owner names the ``bonus`` of each: Dakka +1 to a die, Boss an
  automatic 4+ save, Zag +1 MV; Grim, a reroll, is asked after the roll: ``rerolls``) and
  the Waaagh! Banner's +1 to the assault roll (:func:`banner_bonus`, where the units stand at
  the roll).
- **Kombi Weapon** (rulings 150): a marker for one Alternative action, its Tir Direct (B) with
  a Portée Limitée of 6 intercases or its Lance-Flammes (M) (:func:`kombi_weapon`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from app.engine.black_reach.armies import option_holders as _holders
from app.engine.black_reach.armies import serves as _serves
from app.engine.black_reach.armies import unit_gear
from app.engine.black_reach.battle.commands import ReadyEquipment
from app.engine.black_reach.battle.events import EquipmentReadied, EquipmentUsed, UnitMoved
from app.engine.black_reach.battle.state import BattleState, Stage, UnitState
from app.engine.black_reach.cards import BonusKind
from app.engine.black_reach.forces import (
    Ability,
    AbilityRef,
    ArmourSave,
    Equipment,
    Group,
    PoleBonus,
)
from app.engine.black_reach.los import distance
from app.engine.black_reach.tables import ArmourColour
from app.engine.black_reach.turn import Phase
from app.engine.match.errors import Refusal, RefusalKind
from app.engine.match.events import Emitted, Event

__all__ = [
    "MAX_IDENTICAL",
    "armour_saves",
    "banner_bonus",
    "gear_bonus",
    "gear_dv",
    "gear_grants",
    "in_aura",
    "kombi_left",
    "kombi_options",
    "kombi_weapon",
    "marker_options",
    "markers_free",
    "note_gear",
    "note_pole_save",
    "pole_save",
    "ready_equipment",
    "spend_gear",
    "unit_gear",
    "use_kombi",
]

MAX_IDENTICAL = 3  # at most 3 identical markers in one action [L2494-L2496]
POLE_BONUS = 1  # a Dakka marker's +1 to a die, a Zag marker's +1 MV [L2632], [L2637]
POLE_SAVE = ArmourSave(4, ArmourColour.GREEN)  # a Boss marker: automatic save 4+ [L2633-L2634]
MOVEMENT = frozenset({BonusKind.MOVEMENT})


class Out(Protocol):
    state: BattleState
    gear_uses: set[tuple[str, str]]
    events: list[Emitted]

    def emit(self, event: Event, audience: tuple[str, ...] | None = None) -> None: ...


def _refuse(code: str, message: str, kind: RefusalKind = RefusalKind.RULES) -> Refusal:
    return Refusal(code, message, kind=kind)


def _character(state: BattleState, group: Group) -> UnitState | None:
    """The Character of ``group``'s tile standing on the battlefield."""
    return next(
        (
            c
            for uid in group.units
            if (c := state.units[uid]).counter.character and c.alive and c.placement is not None
        ),
        None,
    )


def in_aura(state: BattleState, group: Group, e: Equipment, u: UnitState) -> bool:
    """Whether ``u`` stands within the aura of ``group``'s Character (himself included):
    an allied unit on the battlefield, the range counted as any range, in squares (note §8
    item 22) [L2625-L2630], [L2685-L2689]."""
    if e.aura is None or group.side != u.side or u.placement is None or not u.alive:
        return False
    c = _character(state, group)
    return c is not None and distance(c.placement.squares, u.placement.squares) <= e.aura  # type: ignore[union-attr]


def _sources(state: BattleState, u: UnitState) -> list[tuple[Group, str]]:
    """The options ``u`` may use now: those of its group and its side's command tiles that
    serve it, and the auras of its side's Characters it stands in."""
    out = [
        (g, o)
        for g in _holders(state.catalogue, state.groups, u.side, u.uid)
        for o in g.options
        if _aura(state, o) is None and _serves(state.catalogue, g, o, u.uid, u.counter)
    ]
    for g in sorted(state.groups.values(), key=lambda g: g.id):
        for o in g.options:
            e = _aura(state, o)
            if e is not None and in_aura(state, g, e, u):
                out.append((g, o))
    return out


def _aura(state: BattleState, option_id: str) -> Equipment | None:
    option = state.catalogue.options.get(option_id)
    e = option.equipment if option is not None else None
    return e if e is not None and e.aura is not None else None


def banner_bonus(state: BattleState, uid: str) -> int:
    """What the permanent auras add to ``uid``'s assault roll, attacking or defending: +1
    within 2 squares of a Waaagh! Banner's Character (rulings 148) [L2685-L2689]; two
    banners add, as two Warpaths do."""
    u = state.units[uid]
    bonus = 0
    for _g, option_id in _sources(state, u):
        e = _aura(state, option_id)
        if e is not None and e.permanent:
            bonus += e.assault_bonus
    return bonus


def armour_saves(state: BattleState, uid: str, pole: bool = True) -> list[ArmourSave]:
    """The unit's armour saves: its tile's [L1885-L1888], its permanent gifts' (rulings
    128) and, ``pole``, a readied Boss marker's (rulings 147)."""
    u = state.units[uid]
    group = next(g for g in state.groups.values() if uid in g.units)
    tile = state.catalogue.tiles.get(group.tile)
    saves = [tile.armour_save] if tile is not None and tile.armour_save is not None else []
    boss = pole_save(state, uid) if pole else None
    return saves + list(u.gear.saves if u.gear is not None else ()) + ([boss] if boss else [])


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
    changes = e.shot_bonus or e.assault_bonus or e.dv_bonus or e.bonuses
    return e if changes else None  # it changes a roll


def key_of(group: str, option: str, bonus: str = "") -> str:
    return f"{group}|{option}|{bonus}" if bonus else f"{group}|{option}"


def _split(key: str) -> tuple[str, str, str]:
    """A readied key's group, option and Boss Pole bonus ("" for any other option)."""
    group, option, *rest = key.split("|", 2)
    return group, option, rest[0] if rest else ""


def _readied_of(ready: Mapping[str, int], group: str, option: str) -> int:
    """The markers of ``group``'s ``option`` in one unit's readied markers, any bonus."""
    return sum(n for k, n in ready.items() if _split(k)[:2] == (group, option))


def markers_free(state: BattleState, group: Group, option_id: str) -> int:
    """An option's markers neither used for good nor readied on a unit."""
    e = _marker_option(state, option_id)
    if e is None:
        return 0
    readied = sum(_readied_of(r, group.id, option_id) for r in state.gear_ready.values())
    used = state.equipment_used.get(key_of(group.id, option_id), 0)
    return max(0, e.markers - used - readied)


def marker_options(state: BattleState, u: UnitState) -> list[tuple[Group, str, int]]:
    """The marker options ``u`` may ready now, with how many more of each it may take (the
    markers left, at most 3 identical on one action)."""
    out: list[tuple[Group, str, int]] = []
    for g, option_id in _sources(state, u):
        if _marker_option(state, option_id) is None:
            continue
        mine = _readied_of(state.gear_ready.get(u.uid, {}), g.id, option_id)
        room = min(markers_free(state, g, option_id), MAX_IDENTICAL - mine)
        if room > 0:
            out.append((g, option_id, room))
    return out


def _pole_bonus(e: Equipment, bonus: str | None, count: int) -> str:
    """Check a Boss Pole's ``bonus`` (note §8 item 28; rulings 147); "" for another option."""
    if not e.bonuses:
        if bonus is not None:
            raise _refuse("no_bonus", "only a Boss Pole's marker names a bonus", RefusalKind.INPUT)
        return ""
    names = ", ".join(b.value for b in e.bonuses)
    if bonus is None:
        raise _refuse("bonus_needed", f"name the marker's bonus: {names}", RefusalKind.INPUT)
    try:
        chosen = PoleBonus(bonus)
    except ValueError:
        raise _refuse("bad_bonus", f"the bonus is one of {names}", RefusalKind.INPUT) from None
    if chosen not in e.bonuses:
        raise _refuse("bad_bonus", f"the bonus is one of {names}", RefusalKind.INPUT)
    if chosen is PoleBonus.GRIM:
        raise _refuse(
            "grim_after_the_roll",
            "a Grim marker is not readied: its holder is asked after a roll it may reroll "
            "(rulings 153, 156)",
        )
    if chosen is PoleBonus.BOSS and count != 1:
        raise _refuse("one_save", "one Boss marker gives the armour save: ready one")
    return chosen.value


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
    bonus = _pole_bonus(e, command.bonus, command.count)
    choices = {o: (g, room) for g, o, room in marker_options(state, u)}
    if command.option not in choices:
        if e.aura is not None:
            held = [
                g for g in state.groups.values() if g.side == side and command.option in g.options
            ]
            if not held:
                raise _refuse("not_your_option", f"your side does not hold {command.option}")
            if not any(in_aura(state, g, e, u) for g in held):
                raise _refuse(
                    "out_of_aura",
                    f"{u.uid} is not within {e.aura} squares of the Character holding "
                    f"{command.option} [L2625-L2630]",
                )
            raise _refuse("no_marker_left", f"no {command.option} marker is left for {u.uid}")
        holders = [
            g
            for g in _holders(state.catalogue, state.groups, u.side, u.uid)
            if command.option in g.options
        ]
        if not holders:
            raise _refuse("not_your_option", f"{u.uid}'s group does not hold {command.option}")
        if not any(_serves(state.catalogue, g, command.option, u.uid, u.counter) for g in holders):
            raise _refuse("not_for_this_unit", f"{command.option} does not serve {u.uid}")
        raise _refuse("no_marker_left", f"no {command.option} marker is left for {u.uid}")
    group, room = choices[command.option]
    if command.count > room:
        raise _refuse(
            "too_many_markers",
            f"{u.uid} may take {room} more {command.option} marker(s) for this action",
        )
    rolls = e.shot_bonus or e.assault_bonus or bonus == PoleBonus.DAKKA
    if rolls and not e.dv_bonus and state.turn.phase is Phase.RESERVE:
        raise _refuse(
            "immutable_rule", "no Shooting Action and no Assault in the Reserve phase [L710-L714]"
        )
    out.emit(EquipmentReadied(u.uid, group.id, command.option, command.count, bonus))


def _readied(state: BattleState, uid: str) -> list[tuple[str, Equipment, int, str]]:
    out: list[tuple[str, Equipment, int, str]] = []
    for key, count in sorted(state.gear_ready.get(uid, {}).items()):
        _, option, bonus = _split(key)
        e = _marker_option(state, option)
        if e is not None:
            out.append((key, e, count, bonus))
    return out


def _bonus_of(e: Equipment, kinds: frozenset[BonusKind], bonus: str = "") -> int:
    total = 0
    if BonusKind.SHOOTING in kinds:
        total += e.shot_bonus
    if BonusKind.ASSAULT in kinds:
        total += e.assault_bonus
    if bonus == PoleBonus.DAKKA and BonusKind.ANY_ROLL in kinds:
        total += POLE_BONUS  # +1 to any die roll [L2632]
    if bonus == PoleBonus.ZAG and BonusKind.MOVEMENT in kinds:
        total += POLE_BONUS  # +1 MV [L2637]
    return total


def gear_bonus(state: BattleState, uid: str, kinds: frozenset[BonusKind]) -> int:
    """What the markers readied on ``uid`` add to a roll of ``kinds`` (shooting, assault, or
    the squares of a move)."""
    return sum(_bonus_of(e, kinds, b) * count for _, e, count, b in _readied(state, uid))


def gear_grants(
    state: BattleState, uid: str, ability: Ability, kinds: frozenset[BonusKind]
) -> bool:
    """Whether a marker readied for a roll of ``kinds`` gives ``ability`` (vehicle Ammo's
    Perforant, Rokkit Hammers' Perçant)."""
    return any(
        _bonus_of(e, kinds, b) and any(a.ability is ability for a in e.grants)
        for _, e, _count, b in _readied(state, uid)
    )


def gear_dv(state: BattleState, uid: str) -> int:
    """What the DV markers readied on ``uid`` add against a Shooting Action."""
    return sum(e.dv_bonus * count for _, e, count, _b in _readied(state, uid))


def pole_save(state: BattleState, uid: str) -> ArmourSave | None:
    """The automatic armour save 4+ of a Boss marker readied on ``uid`` [L2633-L2634]."""
    if any(b == PoleBonus.BOSS for _, _e, _c, b in _readied(state, uid)):
        return POLE_SAVE
    return None


def note_pole_save(out: Out, uid: str, rolled: ArmourSave) -> None:
    """A save rolled with the Boss marker's 4+ (no better green save of the unit's own):
    the marker is used for good when the command ends."""
    if rolled != POLE_SAVE:
        return
    own = [s for s in armour_saves(out.state, uid, pole=False) if s.colour is ArmourColour.GREEN]
    if any(s.value <= POLE_SAVE.value for s in own):
        return
    for key, _e, _c, b in _readied(out.state, uid):
        if b == PoleBonus.BOSS:
            out.gear_uses.add((uid, key))


def note_gear(out: Out, uid: str, kinds: frozenset[BonusKind] | None) -> None:
    """A roll of ``kinds`` by ``uid`` counts its readied markers (``None``: a shot at ``uid``
    counts its DV markers); they are spent when the command ends."""
    for key, e, _, b in _readied(out.state, uid):
        if (_bonus_of(e, kinds, b) if kinds is not None else e.dv_bonus) > 0:
            out.gear_uses.add((uid, key))


def spend_gear(out: Out) -> None:
    """At the end of a command: the markers its rolls counted are used for good, and a Zag
    marker on a unit that moved (its move counted it)."""
    for e in out.events:
        if isinstance(e.event, UnitMoved) and e.event.path:
            note_gear(out, e.event.unit, MOVEMENT)
    for uid, key in sorted(out.gear_uses):
        count = out.state.gear_ready.get(uid, {}).get(key, 0)
        if count:
            group, option, bonus = _split(key)
            out.emit(EquipmentUsed(uid, group, option, count, bonus))
    out.gear_uses.clear()


# -- Kombi Weapon: a marker for an Alternative Shooting Action ----------------------------------


def _kombi(state: BattleState, option_id: str, ability: Ability) -> tuple[Equipment, AbilityRef]:
    option = state.catalogue.options.get(option_id)
    e = option.equipment if option is not None else None
    ref = (
        next((a for a in e.grants if a.ability is ability), None)
        if e is not None and e.alternative and e.template is None and e.markers
        else None
    )
    if e is None or ref is None:
        raise _refuse(
            "not_a_kombi_option",
            f"{option_id!r} gives no marker for this Alternative action",
            RefusalKind.INPUT,
        )
    return e, ref


def kombi_left(state: BattleState, group: Group, option_id: str) -> int:
    """A Kombi Weapon's markers not used yet."""
    option = state.catalogue.options.get(option_id)
    e = option.equipment if option is not None else None
    used = state.equipment_used.get(key_of(group.id, option_id), 0)
    return 0 if e is None else max(0, e.markers - used)


def kombi_options(state: BattleState, u: UnitState, ability: Ability) -> list[tuple[Group, str]]:
    """The Kombi Weapon options ``u`` may use now for ``ability`` (a marker left)."""
    out: list[tuple[Group, str]] = []
    for g, option_id in _sources(state, u):
        try:
            _kombi(state, option_id, ability)
        except Refusal:
            continue
        if kombi_left(state, g, option_id) > 0:
            out.append((g, option_id))
    return out


def kombi_weapon(
    state: BattleState, u: UnitState, option_id: str, ability: Ability
) -> tuple[Group, AbilityRef, int | None]:
    """Check a Kombi Weapon marker for ``u``'s Alternative action of ``ability`` (Tir Direct
    or Lance-Flammes) [L2668-L2675] (rulings 150): the option serves it (its tile's
    Character) and a marker is left. Returns the group holding it, the ability the marker
    gives and its Portée Limitée in intercases (Tir Direct)."""
    e, ref = _kombi(state, option_id, ability)
    usable = [g for g, o in _sources(state, u) if o == option_id]
    if not usable:
        raise _refuse("not_for_this_unit", f"{option_id} does not serve {u.uid}")
    group = next((g for g in usable if kombi_left(state, g, option_id) > 0), None)
    if group is None:
        raise _refuse("no_marker_left", f"every {option_id} marker is used [L2488-L2490]")
    return group, ref, e.range


def use_kombi(out: Out, uid: str, group: str, option_id: str) -> None:
    """One Kombi Weapon marker used for good, as its Alternative action is made."""
    out.emit(EquipmentUsed(uid, group, option_id, 1))
