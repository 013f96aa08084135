"""PEN weapon catalogue: the close-combat weapons of §2.7 [L595-L615], the grenades and bombs
used in melee [L1196-L1197], and the standard ranged weapons of §6.1 [L550-L580].

Numbers only (strength, AP, type, properties); names in French and English.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from app.engine.pen.names import RuleRef, UnknownName, normalise, parse_rules
from app.engine.pen.profiles import Template, Weapon, WeaponKind, WeaponType

__all__ = ["MELEE_WEAPONS", "STANDARD_WEAPONS", "melee_weapon", "standard_weapon"]


@dataclass(frozen=True, slots=True)
class _Melee:
    french: str
    english: str
    ap: int | None
    line: str
    aliases: tuple[str, ...] = ()
    properties: tuple[str, ...] = ()
    multiplier: int = 1
    initiative: int | None = None
    wounds_on: int | None = None
    strength: int | None = None
    strength_vs_vehicles: int | None = None
    single_attack: bool = False


_MELEE: tuple[_Melee, ...] = (
    _Melee(
        "Arme de corps à corps",
        "Close combat weapon",
        5,
        "L597",
        ("ccw", "arme de cac", "melee", "close combat"),
    ),
    _Melee("Arme énergétique", "Power weapon", 2, "L599", ("power sword", "epee energetique")),
    _Melee("Lame sorcière", "Witchblade", 5, "L601", wounds_on=2, strength_vs_vehicles=9),
    _Melee("Arme de force", "Force weapon", 2, "L603"),  # a power weapon for the profile
    _Melee(
        "Griffe éclair",
        "Lightning claw",
        2,
        "L607",
        ("griffes eclair", "lightning claws"),
        properties=("Blessant",),
    ),
    _Melee("Gantelet énergétique", "Power fist", 2, "L609", multiplier=2, initiative=1),
    _Melee(
        "Poing tronçonneur",
        "Chainfist",
        2,
        "L611",
        multiplier=2,
        initiative=1,
        properties=("Anti-véhicule",),
    ),
    _Melee(
        "Marteau tonnerre",
        "Thunder hammer",
        2,
        "L613",
        multiplier=2,
        initiative=1,
        properties=("Assommant",),
    ),
    _Melee(
        "Arme de corps à corps de Dreadnought",
        "Dreadnought close combat weapon",
        2,
        "L615",
        ("dreadnought ccw",),
        multiplier=2,
    ),
    _Melee(
        "Grenades anti-véhicules",
        "Anti-vehicle grenades",
        4,
        "L1196",
        ("grenades krak", "krak grenades", "krak grenade"),
        strength=6,
        single_attack=True,
    ),
    _Melee(
        "Bombes anti-véhicules",
        "Anti-vehicle bombs",
        1,
        "L1197",
        ("bombes a fusion", "melta bombs", "melta bomb"),
        properties=("Anti-véhicule",),
        strength=8,
        single_attack=True,
    ),
)


def _melee_weapon(spec: _Melee) -> Weapon:
    return Weapon(
        name=spec.english,
        kind=WeaponKind.MELEE,
        type=WeaponType.MELEE,
        strength=spec.strength,
        ap=spec.ap,
        properties=parse_rules(spec.properties),
        strength_multiplier=spec.multiplier,
        initiative=spec.initiative,
        wounds_on=spec.wounds_on,
        strength_vs_vehicles=spec.strength_vs_vehicles,
        single_attack=spec.single_attack,
    )


MELEE_WEAPONS: dict[str, Weapon] = {spec.english: _melee_weapon(spec) for spec in _MELEE}
_MELEE_ALIASES: dict[str, str] = {}
for _spec in _MELEE:
    for _name in (_spec.french, _spec.english, *_spec.aliases):
        _MELEE_ALIASES[normalise(_name)] = _spec.english


def melee_weapon(name: str) -> Weapon:
    """A close-combat weapon of §2.7 by its French or English name."""
    key = normalise(name)
    if key in _MELEE_ALIASES:
        return MELEE_WEAPONS[_MELEE_ALIASES[key]]
    close = difflib.get_close_matches(key, list(_MELEE_ALIASES), n=1, cutoff=0.6)
    raise UnknownName("melee weapon", name, _MELEE_ALIASES[close[0]] if close else None)


# §6.1 standard ranged weapons [L553-L580]: name, English, S, AP, type, shots, template, props
_RANGED: tuple[
    tuple[str, str, int | None, int | None, WeaponType, int, Template | None, str], ...
] = (
    ("Grenades frag", "Frag grenades", 4, 6, WeaponType.GRENADE, 1, Template.BLAST, ""),
    ("Grenades krak", "Krak grenades", 6, 4, WeaponType.GRENADE, 1, None, ""),
    (
        "Grenades plasma",
        "Plasma grenades",
        4,
        4,
        WeaponType.GRENADE,
        1,
        Template.BLAST,
        "Embrasement",
    ),
    (
        "Grenades incendiaires",
        "Incendiary grenades",
        3,
        5,
        WeaponType.GRENADE,
        1,
        Template.BLAST,
        "Anti-couvert, Embrasement",
    ),
    ("Grenades flash", "Flash grenades", None, None, WeaponType.GRENADE, 1, None, "Aveuglant"),
    ("Grenades IEM", "EMP grenades", None, None, WeaponType.GRENADE, 1, None, "IEM"),
    (
        "Lance-flammes",
        "Flamer",
        4,
        5,
        WeaponType.ASSAULT,
        1,
        Template.FLAME,
        "Anti-couvert, Embrasement",
    ),
    (
        "Lance-flammes lourd",
        "Heavy flamer",
        5,
        4,
        WeaponType.ASSAULT,
        1,
        Template.FLAME,
        "Anti-couvert, Embrasement",
    ),
    ("Fusil sniper", "Sniper rifle", 4, 5, WeaponType.HEAVY, 1, None, "Sniper"),
    ("Pistolet Bolter", "Bolt pistol", 4, 5, WeaponType.PISTOL, 1, None, ""),
    ("Bolter", "Boltgun", 4, 5, WeaponType.RAPID_FIRE, 1, None, ""),
    ("Fulgurant", "Storm bolter", 4, 5, WeaponType.ASSAULT, 2, None, ""),
    ("Bolter lourd", "Heavy bolter", 5, 4, WeaponType.HEAVY, 3, None, "Enrayement, Tirs soutenus"),
    (
        "Canon d'assaut",
        "Assault cannon",
        6,
        4,
        WeaponType.HEAVY,
        4,
        None,
        "Perforant, Enrayement, Tirs soutenus",
    ),
    ("Autocanon", "Autocannon", 7, 4, WeaponType.HEAVY, 2, None, ""),
    ("Pistolet melta", "Melta pistol", 8, 1, WeaponType.PISTOL, 1, None, "Melta, Embrasement"),
    ("Fusil melta", "Meltagun", 8, 1, WeaponType.ASSAULT, 1, None, "Melta, Embrasement"),
    ("Multi-melta", "Multi-melta", 8, 1, WeaponType.HEAVY, 1, None, "Melta, Embrasement"),
    (
        "Canon melta",
        "Melta cannon",
        8,
        1,
        WeaponType.HEAVY,
        1,
        Template.BLAST,
        "Melta, Embrasement",
    ),
    (
        "Pistolet plasma",
        "Plasma pistol",
        7,
        2,
        WeaponType.PISTOL,
        1,
        None,
        "Surchauffe, Embrasement",
    ),
    ("Fusil plasma", "Plasma gun", 7, 2, WeaponType.RAPID_FIRE, 1, None, "Surchauffe, Embrasement"),
    (
        "Canon plasma",
        "Plasma cannon",
        7,
        2,
        WeaponType.HEAVY,
        1,
        Template.BLAST,
        "Surchauffe, Embrasement",
    ),
    ("Missiles Frag", "Frag missile", 4, 6, WeaponType.HEAVY, 1, Template.BLAST, "Pilonnage"),
    (
        "Missiles de Glace",
        "Ice missile",
        4,
        5,
        WeaponType.HEAVY,
        1,
        Template.BLAST,
        "Pilonnage, Givrage",
    ),
    (
        "Missiles Plasma",
        "Plasma missile",
        4,
        4,
        WeaponType.HEAVY,
        1,
        Template.BLAST,
        "Pilonnage, Embrasement",
    ),
    ("Missiles Anti-aérien", "Flak missile", 7, 4, WeaponType.HEAVY, 1, None, "Anti-aérien"),
    ("Missiles Krak", "Krak missile", 8, 3, WeaponType.HEAVY, 1, None, ""),
    ("Canon laser", "Lascannon", 9, 2, WeaponType.HEAVY, 1, None, ""),
)


def _ranged(
    row: tuple[str, str, int | None, int | None, WeaponType, int, Template | None, str],
) -> Weapon:
    _french, english, strength, ap, kind, shots, template, props = row
    properties: tuple[RuleRef, ...] = parse_rules(p for p in props.split(", ") if p)
    if kind is WeaponType.GRENADE:
        properties = (*properties, *parse_rules(["Barrage"]))  # grenades are barrage [L498]
    return Weapon(
        name=english,
        kind=WeaponKind.RANGED,
        type=kind,
        shots=shots,
        strength=strength,
        ap=ap,
        template=template,
        properties=properties,
    )


STANDARD_WEAPONS: dict[str, Weapon] = {row[1]: _ranged(row) for row in _RANGED}
_RANGED_ALIASES: dict[str, str] = {}
for _row in _RANGED:
    _RANGED_ALIASES[normalise(_row[0])] = _row[1]
    _RANGED_ALIASES[normalise(_row[1])] = _row[1]


def standard_weapon(name: str) -> Weapon:
    """A standard ranged weapon of §6.1 by its French or English name."""
    key = normalise(name)
    if key in _RANGED_ALIASES:
        return STANDARD_WEAPONS[_RANGED_ALIASES[key]]
    close = difflib.get_close_matches(key, list(_RANGED_ALIASES), n=1, cutoff=0.6)
    raise UnknownName("weapon", name, _RANGED_ALIASES[close[0]] if close else None)
