"""Death from the Skies in the match: the Dogfight attack of each pick, and the One Shot
weapons *Refuel, Rearm, Repair* re-arms (rulings 92, 93).

- A Dogfight pick [L887] makes the picked enemy AIRCRAFT a target of the picking aircraft, in
  either player's turn: its attack is then resolved as any attack of the match (the attack
  form's live roll, with the match's dice and the pick's hit modifier, ruling 75). Once it is
  made, the aircraft's weapons are free again: it may still shoot ground targets in the
  Shooting phase [L899]; in this expansion an AIRCRAFT never shoots an enemy AIRCRAFT outside
  the Dogfight [L885].
- The One Shot weapons an AIRCRAFT fires (read from the attack's request) are spent for the
  battle; *Refuel, Rearm, Repair* at 2 CP or more gives them back [L919].
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.engine.wh40k10e.abilities import AbilityKind, UnknownAbility, parse_ability
from app.engine.wh40k10e.battle.commands import ResolveAttack
from app.engine.wh40k10e.battle.errors import Code, refuse
from app.engine.wh40k10e.battle.events import AttackResolved
from app.engine.wh40k10e.battle.flow import Builder
from app.engine.wh40k10e.battle.narrative_expansions import (
    SKIES,
    AircraftRearmed,
    DogfightShot,
    DogfightTargeted,
    ExpansionState,
    OneShotFired,
)
from app.engine.wh40k10e.battle.state import BattleState, Phase, WeaponUse

__all__ = ["after_attack", "before_attack", "before_shoot", "picked", "rearm"]


def _skies(s: BattleState) -> ExpansionState | None:
    n = s.narrative
    if n is None or n.expansion is None or n.expansion.id != SKIES:
        return None
    return n.expansion


def picked(b: Builder, aircraft: str, target: str) -> None:
    """The pick makes ``target`` the aircraft's target for its Dogfight attack."""
    s = b.state
    b.emit(DogfightTargeted(s.group(aircraft), s.group(target)))


def before_shoot(b: Builder, unit: str, targets: Sequence[str]) -> None:
    """An AIRCRAFT targets enemy AIRCRAFT only in the Dogfight [L885], [L899]."""
    s = b.state
    if _skies(s) is None or not s.any_keyword(unit, "AIRCRAFT"):
        return
    flying = [t for t in targets if s.any_keyword(t, "AIRCRAFT")]
    if flying:
        raise refuse(
            Code.BAD_TARGET,
            f"{s.specs[flying[0]].name} is an AIRCRAFT: an AIRCRAFT shoots an enemy AIRCRAFT "
            "only in the Dogfight (dogfight_pick) [L885]",
        )


def before_attack(b: Builder, cmd: ResolveAttack) -> None:
    """A One Shot weapon the aircraft fired is spent until it is re-armed (ruling 92)."""
    s = b.state
    x = _skies(s)
    if x is None:
        return
    head = s.group(cmd.attacker)[0]
    fired = set(x.one_shots.get(head, ()))
    if not fired:
        return
    used = {w.weapon for w in cmd.weapons}
    spent = sorted(used & fired) if cmd.weapons else sorted(fired)
    if spent:
        raise refuse(
            Code.BAD_COMMAND,
            f"{s.specs[head].name} fired its One Shot {', '.join(spent)}: it is spent until "
            "Refuel, Rearm, Repair (2 CP) re-arms it; name the other weapons",
        )


def _one_shot(weapon: Mapping[str, object]) -> bool:
    abilities = weapon.get("abilities")
    if not isinstance(abilities, list):
        return False
    for a in abilities:
        try:
            if isinstance(a, str) and parse_ability(a).kind is AbilityKind.ONE_SHOT:
                return True
        except UnknownAbility:
            continue
    return False


def _fired_one_shots(e: AttackResolved) -> tuple[str, ...]:
    """The weapons of ``e`` whose profile has One Shot (the request's entries are in the order
    of the weapons used)."""
    request = e.request
    entries = request.get("attacks") if isinstance(request, dict) else None
    if not isinstance(entries, list) or len(entries) != len(e.weapons):
        return ()
    out: list[str] = []
    for entry, use in zip(entries, e.weapons, strict=True):
        weapon = entry.get("weapon") if isinstance(entry, dict) else None
        if isinstance(weapon, dict) and _one_shot(weapon) and isinstance(use, WeaponUse):
            out.append(use.weapon)
    return tuple(dict.fromkeys(out))


def after_attack(b: Builder) -> None:
    """After an attack in Death from the Skies: an AIRCRAFT's One Shot weapons are spent; a
    Dogfight pick's attack is made (its weapons free again for the Shooting phase)."""
    s = b.state
    x = _skies(s)
    if x is None:
        return
    resolved = next((o.event for o in reversed(b.out) if isinstance(o.event, AttackResolved)), None)
    if resolved is None:
        return
    attacker = s.group(resolved.attacker)
    if s.any_keyword(resolved.attacker, "AIRCRAFT"):
        fired = _fired_one_shots(resolved)
        if fired:
            b.emit(OneShotFired(attacker[0], fired))
    if s.phase is not Phase.SHOOTING:
        return
    target = s.group(resolved.target)
    pick = next(
        (
            p
            for p in x.picks
            if p.round == s.round
            and p.active is s.active
            and p.aircraft in attacker
            and p.target in target
            and (p.round, p.active, attacker[0]) not in x.dogfight_shots
        ),
        None,
    )
    if pick is not None:
        b.emit(DogfightShot(attacker, target))


def rearm(b: Builder, aircraft: str) -> None:
    """*Refuel, Rearm, Repair* at 2 CP or more: the aircraft's One Shot weapons are back."""
    x = _skies(b.state)
    if x is None:
        return
    head = b.state.group(aircraft)[0]
    b.emit(AircraftRearmed(head, x.one_shots.get(head, ()), b.state.round))
