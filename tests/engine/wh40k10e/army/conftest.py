"""A small hand-built catalogue (invented names and numbers) for the army tests."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    Datasheet,
    Detachment,
    Enhancement,
    KeywordRule,
    ModelProfile,
    ModelType,
    PointsTier,
    Roster,
    RosterUnit,
    WargearChoice,
    WargearOption,
    Weapon,
    WeaponKind,
    WeaponProfile,
)

MARINES = "Test Marines"
ORKS = "Test Orks"

BOLT_RIFLE = Weapon(
    "Bolt rifle",
    (WeaponProfile("Bolt rifle", WeaponKind.RANGED, 24, "2", 3, "4", -1, "1", ("Assault",)),),
)
PLASMA = Weapon(
    "Plasma pistol",
    (
        WeaponProfile(
            "Plasma pistol - standard", WeaponKind.RANGED, 12, "1", 3, "7", -2, "1", ("Pistol",)
        ),
        WeaponProfile(
            "Plasma pistol - supercharge",
            WeaponKind.RANGED,
            12,
            "1",
            3,
            "8",
            -3,
            "2",
            ("Pistol", "Hazardous"),
        ),
    ),
)
FIST = Weapon(
    "Power fist",
    (WeaponProfile("Power fist", WeaponKind.MELEE, None, "3", 3, "8", -2, "2"),),
)


def _single(
    id_: str,
    name: str,
    points: int,
    keywords: tuple[str, ...],
    faction: str = MARINES,
    **kw: object,
) -> Datasheet:
    profile = ModelProfile(name, '6"', 4, 3, 5, 6, 1, None)
    flags = {
        "character": "Character" in keywords,
        "epic_hero": "Epic Hero" in keywords,
        "battleline": "Battleline" in keywords,
        "dedicated_transport": "Dedicated Transport" in keywords,
    }
    return Datasheet(
        id=id_,
        name=name,
        faction_keywords=(faction,),
        keywords=keywords,
        profiles=(profile,),
        models=(ModelType(name, 1, 1, name),),
        min_models=1,
        max_models=1,
        points=(PointsTier(1, 1, points),),
        **flags,  # type: ignore[arg-type]
        **kw,  # type: ignore[arg-type]
    )


def build_catalogue() -> Catalogue:
    captain = _single(
        "captain",
        "Captain",
        80,
        ("Character", "Infantry", "Captain"),
        weapons=(BOLT_RIFLE, FIST),
        leader_of=("Battle Squad", "Veteran Squad"),
        leader_of_conditional=("Veteran Squad",),
        abilities=("Leader", "Rites of Testing"),
    )
    lieutenant = _single(
        "lieutenant",
        "Lieutenant",
        60,
        ("Character", "Infantry"),
        leader_of=("Battle Squad",),
        extra_leader=True,
    )
    librarian = _single(
        "librarian",
        "Librarian",
        70,
        ("Character", "Infantry", "Psyker"),
        leader_of=("Battle Squad",),
    )
    terminator_captain = _single(
        "tcaptain", "Terminator Captain", 95, ("Character", "Infantry", "Captain", "Terminator")
    )
    hero = _single("hero", "Brother Hero", 100, ("Character", "Epic Hero", "Infantry"))
    transport = _single(
        "transport",
        "Test Transport",
        75,
        ("Dedicated Transport", "Vehicle", "Transport"),
        transport_capacity=10,
    )
    tank = _single("tank", "Battle Tank", 200, ("Vehicle",))
    squad = Datasheet(
        id="squad",
        name="Battle Squad",
        faction_keywords=(MARINES,),
        keywords=("Battleline", "Infantry"),
        profiles=(ModelProfile("Trooper", '6"', 4, 3, 2, 6, 2),),
        models=(
            ModelType("Sergeant", 1, 1, "Trooper", default_wargear=("Bolt rifle",)),
            ModelType("Trooper", 4, 9, "Trooper", default_wargear=("Bolt rifle",)),
            ModelType("Gunner", 0, 1, "Trooper", default_wargear=("Plasma pistol",)),
        ),
        min_models=5,
        max_models=10,
        points=(PointsTier(5, 5, 90), PointsTier(6, 10, 180)),
        weapons=(BOLT_RIFLE, PLASMA, FIST),
        wargear_options=(
            WargearOption(
                "Sergeant weapon",
                "Sergeant",
                (
                    WargearChoice("Bolt rifle", ("Bolt rifle",)),
                    WargearChoice("Power fist", ("Power fist",)),
                ),
                min=1,
                max=1,
                default="Bolt rifle",
            ),
            WargearOption("Auspex array", "", (WargearChoice("Auspex array", points=5),), 0, 1),
            WargearOption(
                "Special weapon",
                "Trooper",
                (WargearChoice("Plasma pistol", ("Plasma pistol",), max_per_unit=2),),
                0,
                1,
            ),
        ),
        battleline=True,
    )
    veterans = Datasheet(
        id="veterans",
        name="Veteran Squad",
        faction_keywords=(MARINES,),
        keywords=("Infantry", "Terminator"),
        profiles=(ModelProfile("Veteran", '5"', 5, 2, 3, 6, 1, 4),),
        models=(ModelType("Veteran", 5, 10, "Veteran"),),
        min_models=5,
        max_models=10,
        points=(PointsTier(5, 5, 150), PointsTier(10, 10, 300)),
    )
    boss = _single("boss", "Boss", 70, ("Character", "Infantry"), faction=ORKS, leader_of=("Boyz",))
    boyz = Datasheet(
        id="boyz",
        name="Boyz",
        faction_keywords=(ORKS,),
        keywords=("Battleline", "Infantry"),
        profiles=(ModelProfile("Boy", '6"', 5, 5, 1, 7, 2),),
        models=(ModelType("Boy", 10, 20, "Boy"),),
        min_models=10,
        max_models=20,
        points=(PointsTier(10, 10, 80), PointsTier(11, 20, 170)),
        battleline=True,
        two_leaders_from=20,
    )
    alpha = Detachment(
        "Strike Force Alpha",
        MARINES,
        (
            Enhancement("Relic Blade", 15, "Strike Force Alpha"),
            Enhancement("Master Tactician", 20, "Strike Force Alpha", KeywordRule.has("Captain")),
            Enhancement(
                "Heavy Plate",
                25,
                "Strike Force Alpha",
                KeywordRule.negate(KeywordRule.has("Terminator")),
            ),
            Enhancement(
                "Mind Shield",
                10,
                "Strike Force Alpha",
                KeywordRule.any_of(KeywordRule.has("Captain"), KeywordRule.has("Psyker")),
            ),
            Enhancement("Banner of Haste", 5, "Strike Force Alpha"),
        ),
    )
    siege = Detachment(
        "Siege Cohort",
        MARINES,
        (
            Enhancement("Siege Master", 30, "Siege Cohort"),
            Enhancement("Armoured Ram", 10, "Siege Cohort", characters_only=False),
        ),
    )
    waaagh = Detachment("Waaagh Band", ORKS, (Enhancement("Big Horns", 15, "Waaagh Band"),))
    return Catalogue(
        id="test",
        name="Test catalogue",
        version="t1",
        factions=(MARINES, ORKS),
        datasheets=(
            captain,
            lieutenant,
            librarian,
            terminator_captain,
            hero,
            squad,
            veterans,
            transport,
            tank,
            boss,
            boyz,
        ),
        detachments=(alpha, siege, waaagh),
    )


@pytest.fixture(scope="session")
def catalogue() -> Catalogue:
    return build_catalogue()


def _roster(
    *units: RosterUnit,
    faction: str = MARINES,
    detachment: str = "Strike Force Alpha",
    size: BattleSize = BattleSize.STRIKE_FORCE,
    name: str = "",
) -> Roster:
    return Roster(faction=faction, detachment=detachment, battle_size=size, units=units, name=name)


@pytest.fixture(scope="session")
def make_roster() -> Callable[..., Roster]:
    """Build a roster: ``make_roster(*units, faction=..., detachment=..., size=...)``."""
    return _roster


@pytest.fixture(scope="session")
def legal_units() -> tuple[RosterUnit, ...]:
    """A legal Strike Force list: (80 + 15) + 180 + 90 + 75 + 200 = 640 points."""
    return (
        RosterUnit("Captain", enhancements=("Relic Blade",), warlord=True, attached_to=1),
        RosterUnit("Battle Squad", models=10),
        RosterUnit("Battle Squad", models=5),
        RosterUnit("Test Transport"),
        RosterUnit("Battle Tank"),
    )
