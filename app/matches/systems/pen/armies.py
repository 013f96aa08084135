"""PEN army lists into a match: the snapshot a seat brings, and the engine's ``ArmySpec``.

A registered player brings one of their PEN lists marked ready (the PEN unit editor,
``app.armies``); a guest seat pastes a PEN army export (``auspex.pen-army``). Each becomes a
**snapshot** (plain JSON stored on the match): per squad its name, points (options included),
models, the PEN battle profile (the combat contract's target object without ``models``), its
weapons (ranged and close-combat, each named; a close-combat weapon of §2.7 keeps its
catalogue name in ``type``), its close-combat weapon (``melee``: the first listed), whether it
is a Troops choice, and a transport's capacity and fire points. The match never reads the list
again.

Everything a battle needs must be in the list: a squad without its Initiative (or another
characteristic the battle reads) is refused with a 422 naming the squad and the field; a list
over the game's points limit is refused too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import TYPE_CHECKING, Any

from app.catalog.pen_units import PenArmy, PenUnit
from app.engine.errors import ProfileError
from app.engine.match.seats import Seat
from app.engine.pen.battle import ArmySpec, UnitSpec, WeaponSpec
from app.engine.pen.battle.setup import MAX_UNITS, profile_of
from app.matches.exceptions import ArmyUnusable

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from app.accounts.models import User

__all__ = [
    "SNAPSHOT_FORMAT",
    "army_spec",
    "pasted_snapshot",
    "ready_snapshot",
    "snapshot_from_army",
    "snapshot_from_spec",
    "unit_id",
]

SNAPSHOT_FORMAT = "auspex.match-army-pen/1"
RULE_SYSTEM = "pen"
UNIT_NEEDS = ("ws", "bs", "strength", "toughness", "wounds", "initiative", "attacks", "leadership")
VEHICLE_NEEDS = ("hull_points",)
_ARMY_FIELDS = frozenset({"format", "schema_version", "name", "units", "points_limit"})


def unit_id(seat: Seat | str, index: int) -> str:
    """A squad's id in the match: the seat's letter (lower case) and its 1-based list index."""
    return f"{str(seat).lower()}{index + 1}"


def _unusable(message: str, errors: Sequence[tuple[str, str]], kind: str) -> ArmyUnusable:
    return ArmyUnusable(
        message, errors=[{"field": f, "message": m, "type": kind} for f, m in errors][:50]
    )


def _parse(data: object) -> PenArmy:
    if not isinstance(data, Mapping):
        raise _unusable("A PEN army is a JSON object.", [("army", "not an object")], "invalid")
    body = {k: v for k, v in data.items() if k in _ARMY_FIELDS}
    try:
        return PenArmy.from_dict(body)
    except ProfileError as exc:
        raise _unusable(
            f"This is not a PEN army list: {exc}",
            [(f"army.{f}", m) for f, m in exc.errors],
            "invalid",
        ) from None


def _missing(unit: PenUnit) -> list[str]:
    """The characteristics the battle needs that the squad's list entry lacks."""
    if unit.armour is not None:
        return [f for f in VEHICLE_NEEDS if getattr(unit, f, None) is None]
    ch = unit.characteristics
    if ch is None:
        return list(UNIT_NEEDS)
    return [f for f in UNIT_NEEDS if getattr(ch, f, None) is None]


def _squad(unit: PenUnit, index: int) -> dict[str, Any]:
    missing = _missing(unit)
    if missing:
        raise _unusable(
            f"Squad {index + 1} ({unit.name}) lacks what a battle needs: {', '.join(missing)}.",
            [(f"units[{index}].{f}", f"{unit.name}: missing {f}") for f in missing],
            "missing",
        )
    profile = unit.battle_profile()  # a vehicle's carries its BS (its shots, [L1420]; B27)
    ch = unit.characteristics
    if unit.armour is None and ch is not None and ch.bs is not None:
        profile["bs"] = ch.bs  # the squad's BS when it shoots
    weapons: list[dict[str, Any]] = []
    melee: dict[str, Any] | None = None
    for name, weapon in unit.battle_weapons():
        if weapon.get("kind") == "melee":
            # the squad's close-combat weapon is the first listed; every one is also a named
            # weapon of the squad, which a fight's ``weapons`` gives to some of its models
            # (a sergeant's power fist, pen rulings B28)
            melee = melee or weapon
            if any(w["name"] == name for w in weapons):
                continue  # a second weapon of that name (two close-combat weapons [L584])
        weapons.append({"name": name, "profile": weapon})
    return {
        "index": index,
        "name": unit.name,
        "points": unit.total_points,
        "models": unit.models,
        "profile": profile,
        "weapons": weapons,
        "melee": melee,
        "troops": bool(unit.troops),
        "capacity": int(unit.transport_capacity or 0) if unit.armour is not None else 0,
        # fire points [L295]: the editor has no field for them yet (an open-topped transport
        # needs none: all its passengers shoot [L315]); read when a list brings them
        "fire_points": int(getattr(unit, "fire_points", 0) or 0) if unit.armour is not None else 0,
    }


def snapshot_from_army(
    army: PenArmy, *, source: str, army_id: int | None, points_limit: int
) -> dict[str, Any]:
    """The snapshot of a PEN list, checked against the battle's needs and the points limit."""
    if not army.units:
        raise _unusable("The army list has no squads.", [("units", "empty")], "missing")
    if len(army.units) > MAX_UNITS:
        raise _unusable(
            f"A PEN match takes at most {MAX_UNITS} squads a side.", [("units", "too many")], "size"
        )
    squads = [_squad(u, i) for i, u in enumerate(army.units)]
    points = sum(s["points"] for s in squads)
    if points > points_limit:
        raise _unusable(
            f"The list costs {points} pts, over the game's limit of {points_limit} pts.",
            [("points", f"{points} > {points_limit}")],
            "points",
        )
    snapshot = {
        "format": SNAPSHOT_FORMAT,
        "source": source,
        "army_id": army_id,
        "name": army.name,
        "faction": "",
        "points": points,
        "units": squads,
    }
    check_snapshot(snapshot, Seat.A)
    return snapshot


def ready_snapshot(db: Session, user: User, army_id: int, points_limit: int) -> dict[str, Any]:
    """The snapshot of one of ``user``'s PEN lists marked ready (404/409 from the army
    builder when it is not theirs or not ready; 422 when it is not a PEN list)."""
    from app.armies import service as armies  # the army builder owns this contract

    data = dict(armies.ready_snapshot(db, user, army_id))
    if data.get("rule_system") != RULE_SYSTEM:
        raise _unusable(
            "A PEN match takes a PEN army list.",
            [("army_id", "not a PEN list")],
            "rule_system",
        )
    return snapshot_from_army(
        _parse(data.get("export")), source="army", army_id=army_id, points_limit=points_limit
    )


def pasted_snapshot(
    db: Session, army: str | Mapping[str, Any], points_limit: int
) -> dict[str, Any]:
    """A guest's pasted PEN army export (``auspex.pen-army``)."""
    if isinstance(army, str):
        import json

        try:
            army = json.loads(army)
        except ValueError:
            raise _unusable(
                "The pasted army is not JSON.", [("army", "not JSON")], "invalid"
            ) from None
    return snapshot_from_army(_parse(army), source="paste", army_id=None, points_limit=points_limit)


def no_sample(db: Session, sample_id: str, points_limit: int) -> dict[str, Any]:
    raise _unusable(
        "There are no sample PEN lists: paste a PEN army export instead.",
        [("sample", "no PEN sample lists")],
        "unknown",
    )


def _weapon(raw: object) -> WeaponSpec:
    assert isinstance(raw, Mapping)
    return WeaponSpec(str(raw["name"]), dict(raw["profile"]))


_HAS_CAPACITY = "capacity" in {f.name for f in fields(UnitSpec)}


def army_spec(snapshot: Mapping[str, Any], seat: Seat | str) -> ArmySpec:
    """The engine's :class:`ArmySpec` of a snapshot."""
    units = []
    for u in snapshot["units"]:
        extra: dict[str, Any] = {}
        if _HAS_CAPACITY:
            extra["capacity"] = int(u.get("capacity") or 0)
            extra["fire_points"] = int(u.get("fire_points") or 0)
        units.append(
            UnitSpec(
                unit_id(seat, int(u["index"])),
                str(u["name"]),
                int(u["points"]),
                int(u["models"]),
                dict(u["profile"]),
                tuple(_weapon(w) for w in u.get("weapons") or ()),
                u.get("melee"),
                bool(u.get("troops")),
                **extra,
            )
        )
    return ArmySpec(str(seat), str(snapshot["name"]), tuple(units))


def check_snapshot(snapshot: Mapping[str, Any], seat: Seat) -> None:
    """Every squad's profile as the engine reads it (422 naming each problem)."""
    try:
        spec = army_spec(snapshot, seat)
    except (KeyError, TypeError, ValueError, AssertionError) as exc:
        raise _unusable(
            f"A malformed army snapshot: {exc}", [("army", str(exc))], "invalid"
        ) from None
    problems: list[tuple[str, str]] = []
    for i, unit in enumerate(spec.units):
        try:
            profile_of(unit)
        except ProfileError as exc:
            problems.extend((f"units[{i}].{f}", f"{unit.name}: {m}") for f, m in exc.errors)
    if problems:
        raise _unusable(
            f"The PEN battle cannot read this list: {problems[0][1]}", problems, "invalid_profile"
        )


def snapshot_from_spec(spec: ArmySpec) -> dict[str, Any]:
    """A snapshot rebuilt from the army a log's creation event carries (an import)."""
    return {
        "format": SNAPSHOT_FORMAT,
        "source": "import",
        "army_id": None,
        "name": spec.name,
        "faction": "",
        "points": spec.points,
        "units": [
            {
                "index": i,
                "name": u.name,
                "points": u.points,
                "models": u.models,
                "profile": u.profile,
                "weapons": [{"name": w.name, "profile": w.profile} for w in u.weapons],
                "melee": u.melee,
                "troops": u.troops,
                "capacity": int(getattr(u, "capacity", 0) or 0),
                "fire_points": int(getattr(u, "fire_points", 0) or 0),
            }
            for i, u in enumerate(spec.units)
        ],
    }
