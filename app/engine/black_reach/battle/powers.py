"""Persistent psychic powers in the match [L2743-L2772], [L2944-L3036] (rulings 97-99):
their markers, their maintenance at the start of the Order phase (``maintain_powers``) and
what they change while they lie in play.

- **Warpath** (the marker on the Weirdboy): +1 to the assault rolls of his side's units
  within 3 squares of him, attacking and defending [L2944-L2952];
- **Enfeeble**: −2 to every roll of the unit it lies on [L2982-L2991];
- **Perfect Timing**: the unit's Shooting Actions ignore the obstacles reducing the line of
  sight and the terrain's defence bonuses [L3003-L3015];
- **Objuration Mechanicum**: the unit makes no Shooting Action (nor an Alternative one); on a
  vehicle with several weapons, only the chosen weapon is silenced [L3026-L3036].
"""

from __future__ import annotations

from typing import Protocol

from app.engine.black_reach.battle.commands import MaintainPowers
from app.engine.black_reach.battle.events import PowersMaintained, SuppressedPlaced
from app.engine.black_reach.battle.state import BattleState, PowerMarker, Stage
from app.engine.black_reach.forces import PowerEffect
from app.engine.black_reach.los import distance
from app.engine.black_reach.turn import Phase
from app.engine.match.errors import Refusal, RefusalKind
from app.engine.match.events import Event

__all__ = [
    "ENFEEBLE_PENALTY",
    "PERSISTENT_POWERS",
    "WARPATH_BONUS",
    "WARPATH_RANGE",
    "dome_bonus",
    "enfeebled",
    "maintain_powers",
    "marker_from",
    "markers",
    "perfect_timing",
    "perils_by_hand",
    "silenced",
    "warpath_bonus",
]

PERSISTENT_POWERS = frozenset(
    {
        PowerEffect.WARPATH,
        PowerEffect.ENFEEBLE,
        PowerEffect.PERFECT_TIMING,
        PowerEffect.OBJURATION,
        PowerEffect.TELEKINETIC_DOME,
    }
)
ENFEEBLE_PENALTY = 2  # -2 to all the unit's rolls [L2989-L2991]
WARPATH_BONUS = 1  # +1 to assault rolls [L2949-L2952]
WARPATH_RANGE = 3  # Ork units within 3 squares of the Weirdboy


class Out(Protocol):
    state: BattleState

    def emit(self, event: Event, audience: tuple[str, ...] | None = None) -> None: ...


def marker_from(
    state: BattleState, psyker: str, power: str, target: str | None, weapon: str | None
) -> PowerMarker | None:
    """The marker a manifested power leaves (``None``: not a persistent power the match
    plays): on its target, or on the psyker himself (Warpath)."""
    option = state.catalogue.options.get(power)
    if option is None or option.power is None or not option.power.persistent:
        return None
    effect = option.power.effect
    if effect not in PERSISTENT_POWERS:
        return None
    assert effect is not None
    return PowerMarker(psyker, power, effect.value, target or psyker, weapon)


def markers(state: BattleState, effect: PowerEffect, uid: str | None = None) -> list[PowerMarker]:
    """The markers of ``effect`` in play (on ``uid`` when given)."""
    return [
        m
        for m in state.powers.values()
        if m.effect == effect.value and (uid is None or m.target == uid)
    ]


def enfeebled(state: BattleState, uid: str) -> int:
    """What Enfeeble takes off each of the unit's rolls (one marker per psyker: they add)."""
    return ENFEEBLE_PENALTY * len(markers(state, PowerEffect.ENFEEBLE, uid))


def perfect_timing(state: BattleState, uid: str) -> bool:
    return bool(markers(state, PowerEffect.PERFECT_TIMING, uid))


def silenced(state: BattleState, uid: str, weapon: str | None = None) -> bool:
    """Objuration Mechanicum forbids the unit's Shooting Actions; a marker on one weapon of a
    vehicle silences only that weapon (``weapon`` ``None``: the unit's action as a whole,
    silenced only by a marker on the unit)."""
    for m in markers(state, PowerEffect.OBJURATION, uid):
        if m.weapon is None or m.weapon == weapon:
            return True
    return False


def warpath_bonus(state: BattleState, uid: str) -> int:
    """+1 to the unit's assault roll for each Warpath of its side whose Weirdboy stands
    within 3 squares of it (a marker per psyker; they add)."""
    u = state.units[uid]
    if u.placement is None:
        return 0
    bonus = 0
    for m in markers(state, PowerEffect.WARPATH):
        w = state.units.get(m.psyker)
        if w is None or w.side != u.side or not w.alive or w.placement is None:
            continue
        if distance(w.placement.squares, u.placement.squares) <= WARPATH_RANGE:
            bonus += WARPATH_BONUS
    return bonus


def dome_bonus(state: BattleState, uid: str) -> int:
    """Telekinetic Dome (rulings 130): the DV bonus the power's data gives the Librarian whose
    marker it is and his side's units within the power's range of him (none given: himself
    only), against Shooting Actions; two domes over a unit do not add up (the better)."""
    u = state.units[uid]
    if u.placement is None and u.embarked_in is None:
        return 0
    best = 0
    for m in markers(state, PowerEffect.TELEKINETIC_DOME):
        psyker = state.units.get(m.psyker)
        option = state.catalogue.options.get(m.power)
        power = option.power if option is not None else None
        if psyker is None or power is None or psyker.side != u.side or not psyker.alive:
            continue
        if uid != psyker.uid:
            if u.placement is None or psyker.placement is None:
                continue
            if distance(psyker.placement.squares, u.placement.squares) > (power.range or 0):
                continue
        best = max(best, power.dv_bonus)
    return best


def _refuse(code: str, message: str, kind: RefusalKind = RefusalKind.RULES) -> Refusal:
    return Refusal(code, message, kind=kind)


def perils_by_hand() -> Refusal:
    """A Librarian's Perils of the Warp marker is drawn face down from a pool whose order the
    forces file tells: dice given by hand would choose the marker, so a manifestation that
    draws one is refused when its dice were given by hand (rulings 124, as a card draw's
    rulings 94). Its dice came from the player: the refusal tells nothing new."""
    return Refusal(
        "match_dice_only",
        "a Perils of the Warp marker is drawn by the match: send this manifestation without "
        "dice given by hand (rulings 124)",
        kind=RefusalKind.INPUT,
        details={"field": "dice"},
    )


def maintain_powers(out: Out, command: MaintainPowers, side: str) -> None:
    """The side's psykers keep the powers named (each pays its cost again in Suppressed
    markers, even if already Suppressed, with no Perils test); its other markers are
    discarded and their effects end [L2760-L2772]."""
    state = out.state
    if state.stage is not Stage.BATTLE or state.turn is None or state.turn.phase is not Phase.ORDER:
        raise _refuse("wrong_phase", "powers are maintained at the start of the Order phase")
    if side not in state.to_maintain:
        raise _refuse("nothing_to_maintain", "you have no power to maintain now")
    mine = {k: m for k, m in state.powers.items() if state.units[m.psyker].side == side}
    keep: list[str] = []
    for kept in command.keep:
        key = f"{kept.unit}|{kept.power}"
        if key not in mine:
            raise _refuse(
                "no_such_marker",
                f"{kept.unit} has no {kept.power!r} marker in play",
                RefusalKind.INPUT,
            )
        if key in keep:
            raise _refuse("kept_twice", f"{key} is named twice", RefusalKind.INPUT)
        keep.append(key)
    dropped = tuple(sorted(k for k in mine if k not in keep))
    out.emit(PowersMaintained(side, tuple(keep), dropped))
    for key in keep:
        m = mine[key]
        option = state.catalogue.options[m.power]
        assert option.power is not None
        if option.power.cost:
            out.emit(SuppressedPlaced(m.psyker, option.power.cost))
