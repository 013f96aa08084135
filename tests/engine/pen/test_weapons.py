"""The weapon catalogue: close-combat weapons of §2.7 and the standard weapons of §6.1."""

import pytest

from app.engine.pen.names import Rule, UnknownName
from app.engine.pen.profiles import Template, WeaponKind, WeaponType
from app.engine.pen.weapons import STANDARD_WEAPONS, melee_weapon, standard_weapon


@pytest.mark.parametrize(
    ("name", "ap", "multiplier", "initiative", "rule", "line"),
    [
        ("Arme de corps à corps", 5, 1, None, None, "L597"),
        ("arme energetique", 2, 1, None, None, "L599"),
        ("Griffe éclair", 2, 1, None, Rule.WOUNDING, "L607"),
        ("Gantelet énergétique", 2, 2, 1, None, "L609"),
        ("Poing tronçonneur", 2, 2, 1, Rule.ANTI_VEHICLE, "L611"),
        ("Marteau tonnerre", 2, 2, 1, Rule.CONCUSSIVE, "L613"),
        ("Arme de corps à corps de Dreadnought", 2, 2, None, None, "L615"),
    ],
)
def test_close_combat_weapons(
    name: str, ap: int, multiplier: int, initiative: int | None, rule: Rule | None, line: str
) -> None:
    w = melee_weapon(name)
    assert w.kind is WeaponKind.MELEE, line
    assert w.ap == ap, line
    assert w.strength_multiplier == multiplier, line
    assert w.initiative == initiative, line
    if rule is not None:
        assert w.has(rule), line


def test_witchblade_grenades_and_bombs() -> None:
    witch = melee_weapon("witchblade")
    assert witch.wounds_on == 2  # [L601]
    assert witch.strength_vs_vehicles == 9
    krak = melee_weapon("Grenades anti-véhicules")
    assert krak.strength == 6  # [L1196]
    assert krak.single_attack
    bomb = melee_weapon("bombes à fusion")
    assert bomb.strength == 8  # [L1197]
    assert bomb.ap == 1
    assert bomb.has(Rule.ANTI_VEHICLE)


@pytest.mark.parametrize(
    ("name", "strength", "ap", "kind", "shots", "template"),
    [  # [L553-L580]
        ("Grenades frag", 4, 6, WeaponType.GRENADE, 1, Template.BLAST),
        ("Grenades krak", 6, 4, WeaponType.GRENADE, 1, None),
        ("Lance-flammes", 4, 5, WeaponType.ASSAULT, 1, Template.FLAME),
        ("Fusil sniper", 4, 5, WeaponType.HEAVY, 1, None),
        ("Bolter", 4, 5, WeaponType.RAPID_FIRE, 1, None),
        ("Fulgurant", 4, 5, WeaponType.ASSAULT, 2, None),
        ("Bolter lourd", 5, 4, WeaponType.HEAVY, 3, None),
        ("Canon d'assaut", 6, 4, WeaponType.HEAVY, 4, None),
        ("Autocanon", 7, 4, WeaponType.HEAVY, 2, None),
        ("Fusil melta", 8, 1, WeaponType.ASSAULT, 1, None),
        ("Canon plasma", 7, 2, WeaponType.HEAVY, 1, Template.BLAST),
        ("Missiles Krak", 8, 3, WeaponType.HEAVY, 1, None),
        ("Canon laser", 9, 2, WeaponType.HEAVY, 1, None),
        ("lascannon", 9, 2, WeaponType.HEAVY, 1, None),
    ],
)
def test_standard_weapons(
    name: str, strength: int, ap: int, kind: WeaponType, shots: int, template: Template | None
) -> None:
    w = standard_weapon(name)
    assert (w.strength, w.ap, w.type, w.shots, w.template) == (strength, ap, kind, shots, template)


def test_standard_weapon_properties() -> None:
    assert len(STANDARD_WEAPONS) == 28  # the 28 rows of §6.1
    assert standard_weapon("Canon d'assaut").has(Rule.REND)
    assert standard_weapon("Canon d'assaut").has(Rule.SUSTAINED_FIRE)
    assert standard_weapon("Fusil plasma").has(Rule.IGNITE)
    assert standard_weapon("Grenades frag").has(Rule.BARRAGE)  # grenades are barrage [L498]
    assert standard_weapon("Grenades IEM").strength is None


def test_unknown_weapon_names() -> None:
    with pytest.raises(UnknownName) as err:
        standard_weapon("Bolterr")
    assert err.value.suggestion == "Boltgun"
    with pytest.raises(UnknownName):
        melee_weapon("banana")
