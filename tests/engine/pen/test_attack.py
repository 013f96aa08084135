"""The PEN planner: every §5.1 BS modifier, shot counts, cover, melee attacks and strength.

Expected values are worked out by hand from the seed line quoted beside each case.
"""

from dataclasses import replace
from typing import Any

import pytest

from app.engine.errors import ProfileError
from app.engine.pen.attack import (
    melee_attacks_per_model,
    melee_initiatives,
    melee_strength,
    plan_attack,
    shooting_bs,
    shots_per_model,
    stealth_malus,
)
from app.engine.pen.names import parse_rules
from app.engine.pen.profiles import (
    Armour,
    AttackRequest,
    Situation,
    Template,
    TwinLinkedMode,
    Unit,
    UnitType,
    Vehicle,
    VehicleType,
    Weapon,
    WeaponKind,
    WeaponType,
)
from app.engine.pen.weapons import melee_weapon

SHOOTER = Unit(models=1, ws=4, bs=4, strength=4, toughness=4, initiative=4, leadership=8, save=3)
TARGET = Unit(models=5, ws=3, toughness=3, wounds=1, save=5, initiative=3, leadership=7, strength=3)
ASSAULT = Weapon(name="storm bolter", type=WeaponType.ASSAULT, shots=2, strength=4, ap=5)
HEAVY = Weapon(name="heavy bolter", type=WeaponType.HEAVY, shots=3, strength=5, ap=4)
CCW = Weapon(name="ccw", kind=WeaponKind.MELEE, type=WeaponType.MELEE, ap=5)


def shoot(
    weapon: Weapon = ASSAULT,
    target: Unit | Vehicle = TARGET,
    shooter: Unit = SHOOTER,
    **situation: object,
) -> AttackRequest:
    return AttackRequest(shooter, weapon, target, Situation(**situation))  # type: ignore[arg-type]


def bs(request: AttackRequest) -> int:
    return shooting_bs(request)[0]


# --------------------------------------------------------------- §5.1 modifiers [L1311-L1324]
@pytest.mark.parametrize(
    ("situation", "expected", "line"),
    [
        ({}, 4, "base"),
        ({"target_invisible": True}, 1, "L1312 invisible -3"),
        ({"target_aircraft": True}, 1, "L1313 aircraft -3"),
        ({"target_shrouded": True}, 2, "L1314 shrouded -2"),
        ({"target_moved": 19}, 2, "L1315 moved > 18 -2"),
        ({"target_moved": 18}, 3, "L1318 moved > 12 (18 is not > 18) -1"),
        ({"target_moved": 13}, 3, "L1318 moved > 12 -1"),
        ({"target_moved": 12}, 4, "L1335 12 is not > 12"),
        ({"flying_mc_rapid_move": True}, 3, "L1316 flying MC rapid move -1"),
        ({"target_stealthy": True}, 3, "L1317 stealthy -1"),
        ({"target_locked_in_combat": True}, 3, "L1319 locked -1"),
        ({"target_gone_to_ground": True}, 3, "L1320 gone to ground -1"),
        ({"target_giant": True}, 5, "L1321 giant +1"),
        ({"stationary": True}, 5, "L1323 stationary with an assault weapon +1"),
        ({"half_range": True}, 5, "L1324 half range +1"),
        ({"half_range": True, "stationary": True, "target_giant": True}, 7, "sum"),
        ({"target_invisible": True, "target_moved": 20}, 1, "never below 1 [L1328]"),
        (
            {"target_locked_in_combat": True, "target_moved": 20, "half_range": True},
            3,
            "locked: no range / speed modifiers [L1329]",
        ),
    ],
)
def test_bs_modifier(situation: dict[str, Any], expected: int, line: str) -> None:
    assert bs(shoot(**situation)) == expected, line


def test_sniper_gives_plus_one() -> None:
    sniper = Weapon(
        name="sniper", type=WeaponType.HEAVY, strength=4, ap=5, properties=parse_rules(["Sniper"])
    )
    assert bs(shoot(sniper, stationary=True)) == 5  # [L1322], [L691]


def test_stationary_bonus_only_for_assault_and_rapid_fire() -> None:
    rapid = Weapon(name="bolter", type=WeaponType.RAPID_FIRE, strength=4, ap=5)
    assert bs(shoot(rapid, stationary=True)) == 5  # [L1334]
    assert bs(shoot(HEAVY, stationary=True)) == 4


def test_half_range_not_for_flame_nor_against_aircraft() -> None:
    flamer = Weapon(name="flamer", strength=4, ap=5, template=Template.FLAME)
    assert bs(shoot(flamer, half_range=True)) == 4  # [L1333]
    assert bs(shoot(half_range=True, target_aircraft=True)) == 1  # 4 - 3, no +1


def test_giant_rule_on_the_target() -> None:
    giant = replace(TARGET, rules=parse_rules(["Géant"]))
    assert bs(shoot(target=giant)) == 5  # [L410]


# --------------------------------------------------------------- stealth never stacks
def test_stealth_levels_do_not_stack() -> None:
    every = shoot(target_invisible=True, target_shrouded=True, target_stealthy=True)
    assert stealth_malus(every)[0] == -3  # [L398], [L430]
    assert bs(shoot(target_shrouded=True, target_stealthy=True)) == 2


def test_stealthy_twice_by_different_processes_is_shrouded() -> None:
    furtif = replace(TARGET, rules=parse_rules(["Furtif"]))
    # own Furtif + night Furtif (> 12 ps) -> Dissimulé [L408]
    assert stealth_malus(shoot(target=furtif, night=True, range_inches=13))[0] == -2
    # the same source twice is still one source
    assert stealth_malus(shoot(target=furtif, target_stealthy=True))[0] == -1


@pytest.mark.parametrize(
    ("rng", "lit", "expected"),
    [
        (12, False, 0),
        (13, False, -1),
        (25, False, -2),
        (37, False, -3),
        (30, True, -1),
        (49, True, -2),
        (73, True, -3),
    ],
)
def test_night_fighting(rng: int, lit: bool, expected: int) -> None:
    # [L946] > 12 Furtif, > 24 Dissimulé, > 36 Invisible; lit by a searchlight x2 [L353]
    assert stealth_malus(shoot(night=True, range_inches=rng, target_lit=lit))[0] == expected


def test_night_vision_and_extra_senses() -> None:
    seer = replace(SHOOTER, rules=parse_rules(["Vision nocturne"]))
    assert stealth_malus(shoot(shooter=seer, night=True, range_inches=40))[0] == 0  # [L476]
    senses = replace(SHOOTER, rules=parse_rules(["Capteurs extrasensoriels"]))
    assert stealth_malus(shoot(shooter=senses, target_invisible=True))[0] == 0  # [L374]


@pytest.mark.parametrize(
    ("night", "rng", "expected"),
    [(False, 10, 0), (False, 13, -1), (True, 5, -1), (True, 13, -2), (True, 25, -3)],
)
def test_lurks_in_shadows(night: bool, rng: int, expected: int) -> None:
    lurker = replace(TARGET, rules=parse_rules(["Tapi dans l'ombre"]))
    got = stealth_malus(shoot(target=lurker, night=night, range_inches=rng))[0]
    assert got == expected  # [L463]


# --------------------------------------------------------------- speed exceptions and caps
def test_auto_targeting_and_anti_air_ignore_speed() -> None:
    seeker = replace(ASSAULT, properties=parse_rules(["Visée automatique"]))
    assert bs(shoot(seeker, target_moved=20)) == 4  # [L706]
    flak = Weapon(
        name="flak",
        type=WeaponType.HEAVY,
        strength=7,
        ap=4,
        properties=parse_rules(["Anti-aérien"]),
    )
    jetbikes = replace(TARGET, unit_type=UnitType.JETBIKE)
    assert bs(shoot(flak, target=jetbikes, target_moved=20, stationary=True)) == 4  # [L626]
    # non-Antigrav target: snap fire only
    assert bs(shoot(flak, stationary=True)) == 2


def test_snap_fire_rules() -> None:
    assert bs(shoot(HEAVY)) == 2  # heavy after moving: snap [L494], BS4 -> 2 [L519]
    assert bs(shoot(HEAVY, stationary=True)) == 4
    relentless = replace(SHOOTER, rules=parse_rules(["Implacable"]))
    assert bs(shoot(HEAVY, shooter=relentless)) == 4  # [L420]
    bike = replace(SHOOTER, unit_type=UnitType.BIKE)  # bikes are Implacable [L158]
    assert bs(shoot(HEAVY, shooter=bike)) == 4
    artillery = Weapon(
        name="mortar",
        type=WeaponType.ARTILLERY,
        strength=4,
        ap=6,
        properties=parse_rules(["Barrage"]),
    )
    assert bs(shoot(artillery, shooter=relentless)) == 2  # [L645] even Implacable
    assert bs(shoot(snap_fire=True, half_range=True)) == 2  # (4 + 1) // 2 [L517]


def test_terrified_and_blinded() -> None:
    assert bs(shoot(terrified=True)) == 2  # [L474]
    assert bs(shoot(blinded=True, half_range=True)) == 1  # [L636]


def test_indirect_barrage_caps() -> None:
    mortar = Weapon(
        name="mortar", type=WeaponType.HEAVY, strength=4, ap=6, properties=parse_rules(["Barrage"])
    )
    good = replace(SHOOTER, bs=6)
    assert bs(shoot(mortar, shooter=good, indirect=True, stationary=True)) == 2  # [L646]
    blast = replace(mortar, template=Template.BLAST)
    assert bs(shoot(blast, shooter=good, indirect=True, stationary=True)) == 3  # [L647]
    with pytest.raises(ProfileError, match="barrage"):
        plan_attack(shoot(ASSAULT, indirect=True))


# --------------------------------------------------------------- shots (§2.6)
def test_shot_counts() -> None:
    rapid = Weapon(name="bolter", type=WeaponType.RAPID_FIRE, strength=4, ap=5)
    assert shots_per_model(shoot(rapid)) == 1  # [L492]
    assert shots_per_model(shoot(rapid, half_range=True)) == 2
    salvo = Weapon(name="salvo", type=WeaponType.SALVO, shots=4, salvo_moved=2, strength=4)
    assert shots_per_model(shoot(salvo, stationary=True)) == 4  # Y [L507]
    assert shots_per_model(shoot(salvo, half_range=True)) == 2  # moved, half range: X
    assert shots_per_model(shoot(salvo)) == 4  # moved, full range: Y snap
    assert bs(shoot(salvo)) == 2
    assert bs(shoot(salvo, half_range=True)) == 5
    sweep = Weapon(name="sweep", type=WeaponType.SWEEP, shots=2, strength=4)
    assert shots_per_model(shoot(sweep, models_under_template=3)) == 3  # [L509]


def test_grenade_one_thrower_and_twin_linked() -> None:
    squad = replace(SHOOTER, models=10)
    krak = Weapon(name="krak", type=WeaponType.GRENADE, strength=6, ap=4)
    assert plan_attack(shoot(krak, shooter=squad)).hit.attacks == 1  # [L498]
    twin = replace(ASSAULT, properties=parse_rules(["Jumelée"]))
    assert plan_attack(shoot(twin, shooter=squad)).hit.attacks == 40  # [L671]
    hits_twice = plan_attack(shoot(twin, shooter=squad, twin_linked=TwinLinkedMode.DOUBLE_HITS))
    assert hits_twice.hit.attacks == 20
    assert hits_twice.hit.hits_per_success == 2


def test_templates() -> None:
    flamer = Weapon(
        name="flamer",
        strength=4,
        ap=5,
        template=Template.FLAME,
        properties=parse_rules(["Anti-couvert", "Embrasement"]),
    )
    plan = plan_attack(shoot(flamer, models_under_template=4))
    assert str(plan.hit.code) == "2+"  # always hits on 2+ [L541]
    assert plan.hit.hits_per_success == 4  # [L538]
    blast = Weapon(name="frag", type=WeaponType.HEAVY, strength=4, ap=6, template=Template.BLAST)
    assert plan_attack(shoot(blast, stationary=True)).hit.hits_per_success == 1


# --------------------------------------------------------------- cover (§5.4)
def test_cover_in_the_plan() -> None:
    in_cover = replace(TARGET, cover_save=4)
    assert plan_attack(shoot(target=in_cover)).cover == 4
    marines = replace(TARGET, save=3, cover_save=4)
    assert plan_attack(shoot(target=marines)).cover == 5  # [L1368]
    daemons = replace(TARGET, rules=parse_rules(["Démon"]), cover_save=4)
    assert plan_attack(shoot(target=daemons)).cover == 5  # invulnerable 5+ [L388], [L1368]
    sharp = replace(SHOOTER, bs=6)
    # BS 6 + half range + stationary = 8: malus +2 [L1327]
    assert (
        plan_attack(shoot(target=in_cover, shooter=sharp, half_range=True, stationary=True)).cover
        == 6
    )
    assert plan_attack(shoot(target=in_cover, target_hidden=True)).cover == 2  # [L1099]
    bikes = replace(in_cover, unit_type=UnitType.BIKE)
    assert plan_attack(shoot(target=bikes, target_hidden=True)).cover == 3
    ignores = replace(ASSAULT, properties=parse_rules(["Anti-couvert"]))
    assert plan_attack(shoot(ignores, target=in_cover)).cover is None  # [L628]


def test_vehicles_cannot_hide_and_visible_percentage() -> None:
    tank = Vehicle(armour=Armour(12, 12, 10), cover_save=4)
    lascannon = Weapon(name="las", type=WeaponType.HEAVY, strength=9, ap=2)
    with pytest.raises(ProfileError, match="cannot hide"):
        plan_attack(shoot(lascannon, target=tank, target_hidden=True))
    assert plan_attack(shoot(lascannon, target=tank, target_visible_75=True)).cover == 6
    assert plan_attack(shoot(lascannon, target=tank, target_visible_50=True)).cover == 5


# --------------------------------------------------------------- melee (§2.7, §4.4, §5.3)
def melee(
    weapon: Weapon = CCW,
    attacker: Unit = SHOOTER,
    target: Unit | Vehicle = TARGET,
    **situation: object,
) -> AttackRequest:
    return AttackRequest(attacker, weapon, target, Situation(**situation))  # type: ignore[arg-type]


def test_melee_attacks() -> None:
    assert melee_attacks_per_model(melee()) == 1
    assert melee_attacks_per_model(melee(charged=True)) == 2  # [L1234]
    rage = replace(SHOOTER, rules=parse_rules(["Rage"]))
    assert melee_attacks_per_model(melee(attacker=rage, charged=True)) == 3  # [L451]
    assert melee_attacks_per_model(melee(charged=True, defensive_grenades=True)) == 1  # [L1195]
    assert (
        melee_attacks_per_model(
            melee(charged=True, defensive_grenades=True, target_already_locked=True)
        )
        == 2
    )
    two = replace(SHOOTER, two_weapons=True, attacks=2)
    assert melee_attacks_per_model(melee(attacker=two, charged=True)) == 4  # [L584]
    mc = Unit(
        models=1,
        ws=5,
        strength=6,
        toughness=6,
        attacks=3,
        initiative=2,
        unit_type=UnitType.MONSTROUS_CREATURE,
    )
    assert melee_attacks_per_model(melee(attacker=mc, charged=True, smash=True)) == 2  # [L372]
    with pytest.raises(ProfileError, match="smash"):
        plan_attack(melee(smash=True))
    bomb = melee_weapon("melta bombs")
    assert melee_attacks_per_model(melee(bomb, charged=True)) == 1  # [L1197]


def test_melee_strength() -> None:
    fist = melee_weapon("Gantelet énergétique")
    assert melee_strength(melee(fist)) == 8  # S4 x 2 [L609]
    strong = replace(SHOOTER, strength=6, rules=parse_rules(["Charge furieuse"]))
    assert melee_strength(melee(fist, attacker=strong)) == 10  # max 10
    fc = replace(SHOOTER, rules=parse_rules(["Charge furieuse"]))
    assert melee_strength(melee(fist, attacker=fc, charged=True)) == 9  # 4 x 2 + 1 [L114]
    assert melee_strength(melee(attacker=fc, charged=True, furious_charge_initiative=True)) == 4
    witch = melee_weapon("Lame sorcière")
    assert melee_strength(melee(witch), vs_vehicle=True) == 9  # [L601]


def test_melee_to_hit_cell() -> None:
    assert str(plan_attack(melee()).hit.code) == "3+"  # WS4 vs WS3 [L1349]
    giant = replace(TARGET, rules=parse_rules(["Géant"]))
    assert str(plan_attack(melee(target=giant)).hit.code) == "3+"  # WS5 vs WS3 [L1350]
    invisible = replace(TARGET, rules=parse_rules(["Invisible"]))
    assert str(plan_attack(melee(target=invisible)).hit.code) == "5+"  # WS1 vs 3 [L1346]
    ghost = replace(SHOOTER, rules=parse_rules(["Invisible"]))
    assert str(plan_attack(melee(attacker=ghost)).hit.code) == "3+"  # WS4 vs WS1 [L1349]
    walker = Vehicle(armour=Armour(12, 12, 10), types=frozenset({VehicleType.WALKER}), ws=4)
    krak = melee_weapon("grenades krak")
    assert str(plan_attack(melee(krak, target=walker)).hit.code) == "6"  # [L237]
    tank = Vehicle(armour=Armour(12, 12, 10))
    assert str(plan_attack(melee(target=tank)).hit.code) == "3+"  # no WS: WS1 [L1361], [L1349]
    assert str(plan_attack(melee(target=tank, target_moved=13)).hit.code) == "3+"  # WS3
    assert str(plan_attack(melee(target=tank, target_moved=19)).hit.code) == "4+"  # WS5
    weak = replace(SHOOTER, ws=2)
    assert str(plan_attack(melee(attacker=weak, target=tank, target_moved=19)).hit.code) == "5+"


def test_initiative_order() -> None:
    assert melee_initiatives(melee()) == (4, 3)
    fist = melee_weapon("power fist")
    assert melee_initiatives(melee(fist)) == (1, 3)  # [L609]
    # charged models in cover strike at I10 [L1183] unless offensive grenades [L1194]
    assert melee_initiatives(melee(charged=True, target_in_cover=True)) == (4, 10)
    assert melee_initiatives(
        melee(charged=True, target_in_cover=True, offensive_grenades=True)
    ) == (4, 3)
    fisted = replace(TARGET, weapon=fist)
    assert melee_initiatives(melee(target=fisted, charged=True, target_in_cover=True)) == (4, 3)
    assert melee_initiatives(melee(target=fisted)) == (4, 1)
    fc = replace(SHOOTER, rules=parse_rules(["Charge furieuse"]))
    assert melee_initiatives(melee(attacker=fc, charged=True, furious_charge_initiative=True)) == (
        5,
        3,
    )


def test_monstrous_creature_melee_is_ap2_and_penetrating() -> None:
    mc = Unit(
        models=1,
        ws=5,
        strength=6,
        toughness=6,
        attacks=3,
        initiative=2,
        unit_type=UnitType.MONSTROUS_CREATURE,
    )
    plan = plan_attack(melee(attacker=mc))
    assert plan.wound is not None
    assert plan.wound.ap == 2  # [L173]
    tank = Vehicle(armour=Armour(12, 12, 10))
    vplan = plan_attack(melee(attacker=mc, target=tank))
    assert vplan.penetration is not None
    assert vplan.penetration.mode.value == "best_of_two"


def test_wound_cells() -> None:
    poisoned = replace(ASSAULT, strength=3, properties=parse_rules(["Empoisonnée (4+)"]))
    toughs = replace(TARGET, toughness=5)
    plan = plan_attack(shoot(poisoned, target=toughs))
    assert plan.wound is not None
    assert str(plan.wound.code) == "4+"  # S3 T5 is 6 [L665]
    assert not plan.wound.reroll_failed
    strong = replace(ASSAULT, strength=6, properties=parse_rules(["Anti-endurance"]))
    plan = plan_attack(shoot(strong, target=TARGET))
    assert plan.wound is not None
    assert str(plan.wound.code) == "2+ re"  # S6 T3 is better than 4+: keep it [L630]
    even = replace(ASSAULT, strength=4, properties=parse_rules(["Anti-endurance (3+)"]))
    plan = plan_attack(shoot(even, target=replace(TARGET, toughness=4)))
    assert plan.wound is not None
    assert str(plan.wound.code) == "3+"
    assert not plan.wound.reroll_failed
    better = replace(ASSAULT, strength=5, properties=parse_rules(["Anti-endurance (4+)"]))
    plan = plan_attack(shoot(better, target=replace(TARGET, toughness=4)))
    assert plan.wound is not None
    assert str(plan.wound.code) == "3+"
    assert plan.wound.reroll_failed
    witch = melee_weapon("witchblade")
    plan = plan_attack(melee(witch, target=replace(TARGET, toughness=8)))
    assert plan.wound is not None
    assert str(plan.wound.code) == "2+"  # [L601]


def test_bike_toughness_bonus_and_mortelle() -> None:
    bikes = replace(TARGET, toughness=4, unit_type=UnitType.BIKE)
    lascannon = Weapon(name="las", type=WeaponType.HEAVY, strength=9, ap=2)
    plan = plan_attack(shoot(lascannon, target=bikes, stationary=True))
    assert plan.wound is not None
    assert str(plan.wound.code) == "2+ re"  # S9 vs T5 [L1386]
    assert not plan.wound.mortelle  # 9 < 2 x 5 [L1391]
    plan = plan_attack(
        shoot(lascannon, target=replace(bikes, unit_type=UnitType.INFANTRY), stationary=True)
    )
    assert plan.wound is not None
    assert plan.wound.mortelle  # 9 >= 2 x 4


def test_no_strength_cannot_wound() -> None:
    flash = Weapon(
        name="flash",
        type=WeaponType.GRENADE,
        strength=None,
        ap=None,
        properties=parse_rules(["Aveuglant"]),
    )
    plan = plan_attack(shoot(flash))
    assert plan.wound is None
    assert any("cannot wound" in n for n in plan.notes)


def test_notes_name_rules_without_effect_or_not_modelled() -> None:
    weapon = replace(ASSAULT, properties=parse_rules(["Sonique", "Pilonnage", "Précision (5+)"]))
    notes = plan_attack(shoot(weapon, target=replace(TARGET, rules=parse_rules(["Scout"])))).notes
    assert "weapon: Sonique not modelled (volleys of simultaneous shots [L687])" in notes
    assert "weapon: Pilonnage does not change this attack's dice" in notes
    assert any(n.startswith("weapon: Précision not modelled") for n in notes)
    assert "target: Scout does not change this attack's dice" in notes
