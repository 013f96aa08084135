"""Checking a player's Battle Formations (every problem at once, each with a code).

[L4453-4485] Leaders attached to Bodyguard units, units starting embarked, units in Reserves.
- Leader [L3211-3255]: a CHARACTER with Bodyguard datasheets; one Leader per Bodyguard unit.
- Embarked [L1214-1217]: in a friendly TRANSPORT, within its capacity (in models); an Attached
  unit embarks whole.
- Deep Strike [L3146-3164]: only if every model has it.
- Strategic Reserves [L3558-3598]: no FORTIFICATION; at most 25% of the battle size's points,
  counting units embarked in a Transport in Strategic Reserves (the points limit reading,
  note 2 §5.3); Aircraft only if the match option says so (note 2 §5.4).
- Aircraft [L4053-4062]: must start in Reserves unless in Hover mode [L4104-4126].
"""

from __future__ import annotations

from app.engine.match.codec import JsonObject
from app.engine.wh40k10e.battle.setup import Ability, MatchSetup, Seat, UnitSpec
from app.engine.wh40k10e.battle.state import Formation, ReserveKind

__all__ = ["check_formation", "strategic_reserve_cap"]


def strategic_reserve_cap(setup: MatchSetup) -> int:
    """25% of the battle size's points limit ([L3565-3591]: 250 / 500 / 750)."""
    return setup.points_limit // 4


def _is_aircraft(spec: UnitSpec, hover: set[str]) -> bool:
    return spec.has("AIRCRAFT") and spec.id not in hover


def check_formation(
    setup: MatchSetup, seat: Seat, formation: Formation
) -> tuple[Formation, list[JsonObject]]:
    """The formation with Attached units completed (a Leader follows its Bodyguard into a
    Transport or Reserves), and every problem found."""
    own = {u.id: u for u in setup.armies[seat].units}
    problems: list[JsonObject] = []

    def problem(code: str, unit: str, message: str) -> None:
        problems.append({"code": code, "unit": unit, "message": message})

    def known(unit: str, what: str) -> bool:
        if unit not in own:
            problem("unknown_unit", unit, f"{what}: {unit!r} is not a unit of your army")
            return False
        return True

    # Hover [L4112-4116]
    hover: set[str] = set()
    for unit in formation.hover:
        if not known(unit, "hover"):
            continue
        spec = own[unit]
        if not spec.has("AIRCRAFT") or Ability.HOVER not in spec.abilities:
            problem("cannot_hover", unit, f"{spec.name} is not an Aircraft with Hover")
        hover.add(unit)

    # Leaders [L3221-3227]
    leader_of: dict[str, str] = {}  # bodyguard -> leader
    led: set[str] = set()
    for leader, bodyguard in formation.attachments:
        if not (known(leader, "attachment") and known(bodyguard, "attachment")):
            continue
        ls, bs = own[leader], own[bodyguard]
        if not ls.is_leader or not ls.has("CHARACTER"):
            problem("not_a_leader", leader, f"{ls.name} is not a CHARACTER with the Leader ability")
            continue
        if bs.datasheet not in ls.leads:
            problem(
                "not_a_bodyguard", bodyguard, f"{ls.name} cannot lead {bs.name} ({bs.datasheet})"
            )
            continue
        if leader in led or leader in leader_of:
            problem("leader_twice", leader, f"{ls.name} can be attached to one unit only")
            continue
        if bodyguard in leader_of or bodyguard in led:
            problem("bodyguard_taken", bodyguard, f"{bs.name} can have only one Leader")
            continue
        leader_of[bodyguard] = leader
        led.add(leader)
    partner = {**leader_of, **{v: k for k, v in leader_of.items()}}

    # Embarked [L1214-1217]
    embarked: dict[str, str] = {}
    for unit, transport in formation.embarked:
        if not (known(unit, "embarked") and known(transport, "embarked")):
            continue
        if unit in embarked:
            problem("embarked_twice", unit, f"{own[unit].name} is embarked twice")
            continue
        if not own[transport].has("TRANSPORT") or own[transport].transport_capacity <= 0:
            problem("not_a_transport", transport, f"{own[transport].name} is not a Transport")
            continue
        if own[unit].has("TRANSPORT") and own[unit].transport_capacity > 0:
            problem("transport_in_transport", unit, "a Transport cannot start embarked")
            continue
        if own[transport].transport_fit(own[unit]) is False:
            problem(
                "transport_refuses_unit",
                unit,
                f"{own[transport].name} cannot carry {own[unit].name} [L1208-1212]",
            )
            continue
        embarked[unit] = transport
    for unit, transport in list(embarked.items()):
        mate = partner.get(unit)
        if mate is not None and embarked.get(mate, transport) != transport:
            problem("attached_split", unit, "an Attached unit must embark in one Transport")
        elif mate is not None:
            embarked[mate] = transport
        if transport in embarked:
            problem("transport_in_transport", transport, "a Transport cannot be embarked")
    load: dict[str, int] = {}
    for unit, transport in embarked.items():
        load[transport] = load.get(transport, 0) + own[unit].models
    for transport, models in load.items():
        cap = own[transport].transport_capacity
        if models > cap:
            problem(
                "transport_full",
                transport,
                f"{own[transport].name} carries {cap} models, not {models}",
            )

    # Reserves [L3146-3164], [L3541-3598], [L4053-4062]
    reserves: dict[str, ReserveKind] = {}
    for unit, kind in formation.reserves:
        if not known(unit, "reserves"):
            continue
        if unit in reserves:
            problem("reserves_twice", unit, f"{own[unit].name} is put in Reserves twice")
            continue
        if unit in embarked:
            problem("embarked_unit_in_reserves", unit, "an embarked unit follows its Transport")
            continue
        reserves[unit] = kind
    for unit, kind in list(reserves.items()):
        mate = partner.get(unit)
        if mate is None:
            continue
        if reserves.get(mate, kind) != kind:
            problem("attached_split", unit, "an Attached unit goes into Reserves whole")
        reserves[mate] = kind
    for unit, kind in reserves.items():
        spec = own[unit]
        group = [unit] + ([partner[unit]] if unit in partner else [])
        if kind is ReserveKind.DEEP_STRIKE and not all(
            Ability.DEEP_STRIKE in own[i].abilities for i in group
        ):
            problem("no_deep_strike", unit, f"not every model of {spec.name} has Deep Strike")
        if kind is ReserveKind.STRATEGIC and spec.has("FORTIFICATION"):
            problem(
                "fortification_in_reserves", unit, "Fortifications cannot be in Strategic Reserves"
            )
        if kind is ReserveKind.AIRCRAFT and not _is_aircraft(spec, hover):
            problem("not_aircraft", unit, f"{spec.name} is not an Aircraft (or it is hovering)")
    for unit, spec in own.items():
        if _is_aircraft(spec, hover) and unit not in reserves:
            problem("aircraft_must_start_in_reserves", unit, f"{spec.name} must start in Reserves")

    # Strategic Reserves cap [L3565-3591]
    counted = {ReserveKind.STRATEGIC}
    if setup.options.aircraft_count_toward_reserve_cap:
        counted.add(ReserveKind.AIRCRAFT)
    in_sr = {u for u, k in reserves.items() if k in counted}
    in_sr |= {u for u, t in embarked.items() if t in in_sr}
    points = sum(own[u].points for u in in_sr)
    cap = strategic_reserve_cap(setup)
    if points > cap:
        problem(
            "strategic_reserves_cap",
            "",
            f"Strategic Reserves hold {points} points; the limit for this battle size is {cap}",
        )

    normalized = Formation(
        attachments=tuple((lead, bg) for bg, lead in sorted(leader_of.items())),
        embarked=tuple(sorted(embarked.items())),
        reserves=tuple(sorted(reserves.items())),
        hover=tuple(sorted(hover)),
    )
    return normalized, problems
