"""The odds request of *Heroes of Black Reach*: typed values and their parser.

A request describes one shot, one suppression fire or one assault from numbers the caller has
already gathered at the board (CV against the other side's class, DV, bonuses, markers...).
:func:`request_from_dict` reads plain JSON-like values, refuses unknown fields, wrong types and
numbers out of bounds, and reports every problem at once in one :class:`ProfileError`.

Which fields a kind uses (rulings: docs/rulings/black-reach.md):

- shot and suppression fire: ``attacker.cv``, ``bonuses``, ``moving_penalty``, ``dice``,
  ``suppressed``, ``penalties``; ``target.dv``, ``defence_bonus``; ``situation.long_range``;
  a shot at a heavy vehicle may add ``target.damage_set`` (its six location markers, as in the
  forces file) and ``attacker.piercing`` (Perforant: +1 on the location roll);
- assault: ``attacker.cv``, ``assault_bonus``, ``support``, ``bonuses``, ``suppressed``,
  ``penalties``; ``target.cv``, ``defence_bonus``, ``has_assault``, ``assault_bonus``,
  ``bonuses``, ``suppressed``, ``penalties``.

A field that describes a unit (its CVs, DV, Assault bonus, twin-linked dice) may be sent with
any kind and is then unused; a situational number that the kind cannot use (a moving penalty in
an assault, the defender's own bonuses on a shot...) is refused when it is not zero, so that a
misunderstanding never silently gives wrong odds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from app.engine.errors import N_, ProfileError

__all__ = [
    "ATTACKER_FIELDS",
    "BOUNDS",
    "DAMAGE_MARKERS",
    "MAX_WEAPON_NUMBER",
    "REQUEST_FIELDS",
    "SITUATION_FIELDS",
    "TARGET_FIELDS",
    "Attacker",
    "Kind",
    "OddsRequest",
    "Situation",
    "Target",
    "request_from_dict",
]


class Kind(StrEnum):
    SHOT = "shot"
    SUPPRESSION_FIRE = "suppression_fire"
    ASSAULT = "assault"

    @property
    def is_shot(self) -> bool:
        """A shot or a suppression fire: both are Shooting Actions (the §3.7 pipeline)."""
        return self is not Kind.ASSAULT


# (lowest, highest) of every number. The rules print CVs such as +0..+5 and DVs such as 4..8;
# the bounds leave room for every bonus a board can stack, and keep every answer small (the
# exact analysis enumerates at most 6 x 6 dice faces).
BOUNDS: Final[Mapping[str, tuple[int, int]]] = {
    "cv": (-10, 20),
    "dv": (1, 20),
    "bonuses": (0, 20),
    "moving_penalty": (0, 10),
    "dice": (1, 2),
    "suppressed": (0, 30),
    "penalties": (0, 50),
    "assault_bonus": (0, 10),
    "support": (0, 8),
    "defence_bonus": (0, 10),
}

# the Damage markers a location roll places (the values of tables.DamageMarker; tables imports
# this module, so the names are repeated here and a test keeps them equal)
DAMAGE_MARKERS: Final = ("locomotion", "hull", "secondary_weapon", "main_weapon", "explosion")
_WEAPON_MARKERS: Final = frozenset({"secondary_weapon", "main_weapon"})
MAX_WEAPON_NUMBER = 9

ATTACKER_FIELDS: Final = frozenset(
    {
        "piercing",
        "cv",
        "bonuses",
        "moving_penalty",
        "dice",
        "suppressed",
        "penalties",
        "assault_bonus",
        "support",
    }
)
TARGET_FIELDS: Final = frozenset(
    {
        "damage_set",
        "dv",
        "defence_bonus",
        "cv",
        "assault_bonus",
        "has_assault",
        "bonuses",
        "suppressed",
        "penalties",
    }
)
SITUATION_FIELDS: Final = frozenset({"long_range"})
REQUEST_FIELDS: Final = frozenset({"kind", "attacker", "target", "situation"})

_BOOL_FIELDS: Final = frozenset({"has_assault", "long_range", "piercing"})
_READ_APART: Final = frozenset({"damage_set"})  # not a number: read by _damage_set

# situational numbers a kind cannot use: refused when not zero
_UNUSED_BY_SHOTS: Final = (
    ("attacker", "support"),
    ("target", "bonuses"),
    ("target", "suppressed"),
    ("target", "penalties"),
)
_UNUSED_BY_ASSAULTS: Final = (("attacker", "moving_penalty"), ("situation", "long_range"))


@dataclass(frozen=True, slots=True)
class Attacker:
    """The shooter or the assaulting unit."""

    cv: int  # CV against the target's class (an "X" CV cannot attack: do not ask)
    bonuses: int = 0  # sum of the bonuses (equipment, cards, abilities, rear attack +2...)
    moving_penalty: int = 0  # Tir en Mouvement: taken off the CV
    dice: int = 1  # shots: 1, or 2 keep the best (Armes Jumelees, a card)
    suppressed: int = 0  # Suppressed markers: -2 each on the final result
    penalties: int = 0  # other final-result penalties (obstacles, Enfeeble, barricade...)
    assault_bonus: int = 0  # the +N of its Assaut ability
    support: int = 0  # supporting units in an assault: +1 each
    piercing: bool = False  # Perforant: +1 on a heavy vehicle's location roll (shots)


@dataclass(frozen=True, slots=True)
class Target:
    """The unit shot at, or the defender of an assault."""

    dv: int | None = None  # shots: its Defence Value (required)
    defence_bonus: int = 0  # terrain Defence Bonus of its colour, Camo Cloak, armour...
    cv: int | None = None  # assaults: its CV against the attacker's class (required)
    assault_bonus: int = 0  # the +N of its Assaut ability
    has_assault: bool = False  # assaults: it rolls 2 dice (keep the best) instead of 1
    bonuses: int = 0  # assaults: other bonuses on its roll
    suppressed: int = 0  # assaults: its Suppressed markers (-2 each)
    penalties: int = 0  # assaults: other penalties on its roll
    # shots at a heavy vehicle: the marker of each location result 1..6 ("hull",
    # "main_weapon_2"...); None: the answer stops at the step
    damage_set: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Situation:
    long_range: bool = False  # beyond 7 squares: -2 on the final result (not with Optique)


@dataclass(frozen=True, slots=True)
class OddsRequest:
    kind: Kind
    attacker: Attacker
    target: Target
    situation: Situation = Situation()


# -- parsing ----------------------------------------------------------------------------------


def _read_section(
    raw: object, path: str, allowed: frozenset[str], problems: list[ProfileError]
) -> dict[str, int | bool]:
    """The fields of one section, type- and bound-checked; problems are appended."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        problems.append(ProfileError(path, N_("must be an object")))
        return {}
    out: dict[str, int | bool] = {}
    for name in sorted(str(k) for k in raw):
        value = raw[name]
        where = f"{path}.{name}"
        if name not in allowed:
            known = ", ".join(sorted(allowed))
            problems.append(
                ProfileError(where, N_("unknown field (known: %(known)s)"), known=known)
            )
            continue
        if name in _READ_APART:
            continue
        if name in _BOOL_FIELDS:
            if not isinstance(value, bool):
                problems.append(ProfileError(where, N_("must be true or false")))
                continue
            out[name] = value
            continue
        if value is None and name in ("cv", "dv"):
            continue  # an explicit null is the same as leaving it out (checked by the caller)
        if isinstance(value, bool) or not isinstance(value, int):
            problems.append(ProfileError(where, N_("must be a whole number")))
            continue
        lo, hi = BOUNDS[name]
        if not lo <= value <= hi:
            problems.append(
                ProfileError(where, N_("must be between %(lo)s and %(hi)s"), lo=lo, hi=hi)
            )
            continue
        out[name] = value
    return out


def _damage_set(raw: object, problems: list[ProfileError]) -> tuple[str, ...] | None:
    """Six location markers, each a marker name or ``{"marker", "number"}`` (a weapon
    marker's weapon number, 1-9), as a Damage set of the forces file; their labels."""
    where = "target.damage_set"
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) != 6:
        problems.append(ProfileError(where, N_("six markers, for the location results 1 to 6")))
        return None
    labels: list[str] = []
    for i, item in enumerate(raw):
        at = f"{where}[{i}]"
        face = {"marker": item} if isinstance(item, str) else item
        if not isinstance(face, Mapping) or set(face) - {"marker", "number"}:
            problems.append(ProfileError(at, N_('a marker name or {"marker", "number"}')))
            continue
        marker, number = face.get("marker"), face.get("number", 1)
        if marker not in DAMAGE_MARKERS:
            problems.append(
                ProfileError(at, N_("one of %(choices)s"), choices=", ".join(DAMAGE_MARKERS))
            )
            continue
        if "number" in face and marker not in _WEAPON_MARKERS:
            problems.append(ProfileError(at, N_("only a weapon marker names a weapon number")))
            continue
        if (
            isinstance(number, bool)
            or not isinstance(number, int)
            or not 1 <= number <= MAX_WEAPON_NUMBER
        ):
            problems.append(
                ProfileError(at, N_("a weapon number from 1 to %(most)s"), most=MAX_WEAPON_NUMBER)
            )
            continue
        labels.append(f"{marker}_{number}" if marker in _WEAPON_MARKERS else str(marker))
    return tuple(labels) if len(labels) == 6 else None


def request_from_dict(raw: Mapping[str, object]) -> OddsRequest:
    """Read a plain request; raises one ProfileError naming every bad field."""
    problems: list[ProfileError] = []
    if not isinstance(raw, Mapping):
        raise ProfileError("", N_("the request must be an object"))
    for name in sorted(str(k) for k in raw):
        if name not in REQUEST_FIELDS:
            known = ", ".join(sorted(REQUEST_FIELDS))
            problems.append(ProfileError(name, N_("unknown field (known: %(known)s)"), known=known))
    kind: Kind | None = None
    raw_kind = raw.get("kind")
    if raw_kind is None:
        problems.append(ProfileError("kind", N_("required: shot, suppression_fire or assault")))
    elif not isinstance(raw_kind, str) or raw_kind not in {k.value for k in Kind}:
        problems.append(ProfileError("kind", N_("must be shot, suppression_fire or assault")))
    else:
        kind = Kind(raw_kind)
    raw_attacker, raw_target = raw.get("attacker"), raw.get("target")
    if raw_attacker is None:
        problems.append(ProfileError("attacker", N_("required")))
    if raw_target is None:
        problems.append(ProfileError("target", N_("required")))
    attacker = _read_section(raw_attacker, "attacker", ATTACKER_FIELDS, problems)
    target = _read_section(raw_target, "target", TARGET_FIELDS, problems)
    situation = _read_section(raw.get("situation"), "situation", SITUATION_FIELDS, problems)
    damage_set = (
        _damage_set(raw_target.get("damage_set"), problems)
        if isinstance(raw_target, Mapping)
        else None
    )
    if isinstance(raw_attacker, Mapping) and raw_attacker.get("cv") is None:
        problems.append(ProfileError("attacker.cv", N_("required")))
    if kind is not None and isinstance(raw_target, Mapping):
        needed = "dv" if kind.is_shot else "cv"
        if raw_target.get(needed) is None:
            required = N_("required for a shot") if kind.is_shot else N_("required for an assault")
            problems.append(ProfileError(f"target.{needed}", required))
    if kind is not None:
        sections = {"attacker": attacker, "target": target, "situation": situation}
        unused = _UNUSED_BY_SHOTS if kind.is_shot else _UNUSED_BY_ASSAULTS
        apart = (
            N_("does not apply to a shot or a suppression fire")
            if kind.is_shot
            else N_("does not apply to an assault")
        )
        for section, name in unused:
            if sections[section].get(name):
                problems.append(ProfileError(f"{section}.{name}", apart))
        if kind is not Kind.SHOT:  # a location roll follows a shot's step only
            if attacker.get("piercing"):
                problems.append(ProfileError("attacker.piercing", N_("applies to a shot only")))
            if isinstance(raw_target, Mapping) and raw_target.get("damage_set") is not None:
                problems.append(ProfileError("target.damage_set", N_("applies to a shot only")))
        if (
            kind is Kind.ASSAULT
            and target.get("assault_bonus")
            and not target.get("has_assault", False)
        ):
            problems.append(
                ProfileError(
                    "target.assault_bonus",
                    N_("a unit without Assaut has no Assault bonus (set has_assault)"),
                )
            )
    if problems:
        raise ProfileError.collect(problems)
    assert kind is not None
    return OddsRequest(
        kind=kind,
        attacker=Attacker(
            cv=_int(attacker, "cv"),
            bonuses=_int(attacker, "bonuses"),
            moving_penalty=_int(attacker, "moving_penalty"),
            dice=_int(attacker, "dice", 1),
            suppressed=_int(attacker, "suppressed"),
            penalties=_int(attacker, "penalties"),
            assault_bonus=_int(attacker, "assault_bonus"),
            support=_int(attacker, "support"),
            piercing=bool(attacker.get("piercing", False)),
        ),
        target=Target(
            dv=_int(target, "dv") if "dv" in target else None,
            defence_bonus=_int(target, "defence_bonus"),
            cv=_int(target, "cv") if "cv" in target else None,
            assault_bonus=_int(target, "assault_bonus"),
            has_assault=bool(target.get("has_assault", False)),
            bonuses=_int(target, "bonuses"),
            suppressed=_int(target, "suppressed"),
            penalties=_int(target, "penalties"),
            damage_set=damage_set,
        ),
        situation=Situation(long_range=bool(situation.get("long_range", False))),
    )


def _int(values: Mapping[str, int | bool], name: str, default: int = 0) -> int:
    return int(values.get(name, default))
