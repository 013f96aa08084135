"""Rerolls after the roll is seen (issue 16): Purity Seals [L2541-L2548] and the Boss Pole's
Grim [L2638-L2644], "reroll any roll, yours or your opponent's, whose result you dislike"
(rulings 153-156).

The battle waits for the answer before the roll's consequences apply. A command is decided
as usual; when it is about to record a roll that a side may reroll and has not answered yet
(:class:`Offers`, called by each event the command emits), it stops (:class:`Pause`): nothing
of it applies, and the log holds a ``reroll_offered`` with the command, every die drawn so
far and the roll's event (what it would do if kept). The side answers ``reroll`` or
``keep_roll``; the command is then decided again from the same state, its dice read back in
order (:class:`ScriptRoller`: the rerolled dice replaced by the new ones, the dice after them
drawn by the answer), so it goes on to the same point and past it, or stops at the next roll
offered. Replay never decides again: the events carry every value.

- **Which rolls**: every roll recorded in a public event, except a card draw's and the draw
  of a Perils marker (a marker drawn, not a die rolled); an assault's attacker's dice and
  defender's dice are two rolls (rulings 158). A side may reroll it with a marker of an
  option that serves one of its units the roll concerns (the event's unit, its target, the
  acting unit): Purity Seals the units its Equipment serves [L2473-L2484], a Grim marker the
  Boss Pole's Character and the allied units within its ``aura`` (3 squares, Chebyshev).
- **Once**: a roll is rerolled at most once, by either side; the Initiative side is asked
  first, then the other (rulings 154).
- **Markers**: one per reroll, used for good (``equipment_used``, the count shared with the
  option's other uses: a Boss Pole's 3 markers are Dakka, Boss, Zag or Grim, rulings 156).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.engine.black_reach.battle.events import (
    AssaultResolved,
    CardsDrawn,
    PowerManifested,
)
from app.engine.black_reach.battle.state import BattleState, RerollAnswer
from app.engine.black_reach.board import Square
from app.engine.black_reach.forces import Equipment, Group, OptionType, PoleBonus, TileKind
from app.engine.black_reach.los import distance
from app.engine.match.dice import Roll
from app.engine.match.events import Event
from app.engine.roller import Roller

__all__ = [
    "Offer",
    "Offers",
    "Pause",
    "RerollChoice",
    "ScriptRoller",
    "involved_units",
    "reroll_choices",
    "roll_parts",
    "seeded",
]


@dataclass(frozen=True, slots=True)
class RerollChoice:
    """A marker option a side may reroll with: the group holding it, the option, the markers
    left."""

    group: str
    option: str
    left: int


@dataclass(frozen=True, slots=True)
class Offer:
    """A roll a side may reroll: its dice indices, the side asked, the event it is in."""

    at: tuple[int, ...]
    side: str
    event: Event


class Pause(Exception):
    """The command stops at a roll offered (caught by ``decide``)."""

    def __init__(self, offer: Offer, dice: tuple[int, ...]) -> None:
        super().__init__(offer.side)
        self.offer = offer
        self.dice = dice


def seeded(roller: Roller) -> bool:
    """Whether the dice ``roller`` gives come from seeds (not typed in by hand)."""
    flag = getattr(roller, "seeded", None)
    return bool(flag) if flag is not None else roller.seed is not None


class ScriptRoller(Roller):
    """A roller reading back ``script`` (the dice a paused command drew, the rerolled ones
    replaced) and drawing from ``tail`` (the answer's roller) once it is read; a die of
    ``originals`` (index -> first value) is recorded as rerolled. Its own rolls have no
    seed: the dice are in the offer and answer events, each with its seed."""

    def __init__(
        self,
        script: Sequence[int],
        originals: Mapping[int, int],
        tail: Roller,
        is_seeded: bool,
    ) -> None:
        super().__init__(0)
        self.seed = None
        self._rng = None
        self._script = tuple(script)
        self._originals = dict(originals)
        self._tail = tail
        self.seeded = is_seeded and tail.seed is not None

    def _draw(self, sides: int, label: str) -> tuple[int, int]:
        i = len(self.records)
        if i < len(self._script):
            value = self._script[i]
            return value, value
        value = self._tail.roll(sides, label)
        face = self._tail.last.face
        return value, value if face is None else face

    def roll(self, sides: int, label: str, *, stage: str = "") -> int:
        index = len(self.records)
        value = super().roll(sides, label, stage=stage)
        if index in self._originals:
            rec = self.records[index]
            self._records[index] = type(rec)(
                index=rec.index,
                label=rec.label,
                sides=rec.sides,
                value=rec.value,
                original=self._originals[index],
                face=rec.face,
                stage=rec.stage,
            )
        return value


def roll_parts(event: Event) -> list[tuple[int, ...]]:
    """The rolls a side may reroll in ``event``, each as its dice indices (rulings 158): an
    assault's attacker's dice and defender's dice apart; a manifestation's Perils die only
    (the marker drawn after it is no die roll); a card draw none."""
    roll = getattr(event, "roll", None)
    if not isinstance(roll, Roll) or not roll.dice or isinstance(event, CardsDrawn):
        return []
    indices = tuple(d.index for d in roll.dice)
    if isinstance(event, AssaultResolved):
        n = event.attacker_dice
        return [p for p in (indices[:n], indices[n:]) if p]
    if isinstance(event, PowerManifested):
        return [indices[:1]]
    return [indices]


def involved_units(event: object, acting: str) -> list[str]:
    """The units a roll concerns: the event's unit, its target, who dealt it and the unit
    acting in the command."""
    out: list[str] = []
    for name in ("unit", "target", "by"):
        v = getattr(event, name, None)
        if isinstance(v, str) and v:
            out.append(v)
    if acting:
        out.append(acting)
    return list(dict.fromkeys(out))


def _reroll_option(state: BattleState, option_id: str) -> Equipment | None:
    """The option's equipment when its markers reroll: ``reroll`` (Purity Seals), or a Boss
    Pole whose ``bonuses`` name Grim (its other bonuses are readied before the action)."""
    option = state.catalogue.options.get(option_id)
    e = option.equipment if option is not None else None
    if e is None or e.markers == 0:
        return None
    return e if e.reroll or PoleBonus.GRIM in e.bonuses else None


def markers_left(state: BattleState, group: Group, option_id: str) -> int:
    """The option's markers not used for good nor readied on a unit (a Boss Pole's markers
    are one pool whatever bonus each gives)."""
    option = state.catalogue.options.get(option_id)
    e = option.equipment if option is not None else None
    if e is None:
        return 0
    key = f"{group.id}|{option_id}"
    readied = sum(  # a Boss Pole's markers are readied with their bonus: "<key>|<bonus>"
        n
        for r in state.gear_ready.values()
        for k, n in r.items()
        if k == key or k.startswith(f"{key}|")
    )
    return max(0, e.markers - state.equipment_used.get(key, 0) - readied)


def _where(state: BattleState, uid: str) -> frozenset[Square] | None:
    u = state.units.get(uid)
    if u is None or not u.alive:
        return None
    if u.placement is None and u.embarked_in is not None:
        u = state.units[u.embarked_in]
    return None if u.placement is None else frozenset(u.placement.squares)


def _serves(state: BattleState, group: Group, option_id: str, e: Equipment, uid: str) -> bool:
    """Whether ``group``'s option serves ``uid`` now: an Equipment option its group's units
    (every unit of its side from a command tile) of the classes it allows [L2473-L2484]; a
    Personalisation its tile's Character [L2617-L2619] and, with an aura, the allied units
    within that many squares of him (the Boss Pole's 3 [L2627-L2630])."""
    u = state.units.get(uid)
    option = state.catalogue.options.get(option_id)
    if u is None or option is None or u.side != group.side:
        return False
    if option.type is OptionType.PERSONALISATION:
        characters = [c for c in group.units if state.units[c].counter.character]
        if uid in characters:
            return True
        if e.aura is None:
            return False
        mine = _where(state, uid)
        for c in characters:
            theirs = _where(state, c)
            if mine is not None and theirs is not None and distance(mine, theirs) <= e.aura:
                return True
        return False
    tile = state.catalogue.tiles.get(group.tile)
    own = uid in group.units or (tile is not None and tile.kind is TileKind.COMMAND)
    return own and (not e.restriction or u.counter.unit_class in e.restriction)


def reroll_choices(state: BattleState, side: str, involved: Sequence[str]) -> list[RerollChoice]:
    """The reroll options ``side`` may use on a roll concerning ``involved``, with markers
    left."""
    out: list[RerollChoice] = []
    for group in state.groups.values():
        if group.side != side:
            continue
        for option_id in group.options:
            e = _reroll_option(state, option_id)
            if e is None:
                continue
            left = markers_left(state, group, option_id)
            if left and any(_serves(state, group, option_id, e, uid) for uid in involved):
                out.append(RerollChoice(group.id, option_id, left))
    return out


class Offers:
    """Watches the events a command emits for a roll to offer (see the module)."""

    def __init__(self, answers: Sequence[RerollAnswer], acting: str) -> None:
        self.answers = tuple(answers)
        self.acting = acting
        self.secret = False

    def check(
        self,
        state: BattleState,
        event: Event,
        audience: tuple[str, ...] | None,
        dice: tuple[int, ...],
    ) -> None:
        """Raise :class:`Pause` when ``event`` records a roll a side may reroll and has not
        answered (never after a secret event: the offer would show what the command did)."""
        if audience is not None:
            self.secret = True
            return
        turn = state.turn
        if self.secret or turn is None:
            return
        involved = involved_units(event, self.acting)
        for at in roll_parts(event):
            if any(a.at == at[0] and a.rerolled for a in self.answers):
                continue  # rerolled once: it stands (rulings 154)
            for side in (turn.initiative, turn.other):
                if any(a.at == at[0] and a.side == side for a in self.answers):
                    continue
                if reroll_choices(state, side, involved):
                    raise Pause(Offer(at, side, event), dice)
