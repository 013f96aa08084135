"""The match snapshot reads a unit as the validator does (issue 17, ruling D22): as it is in the
list's Detachment, with the keywords its taken choices add. A Predator that takes "Tank Ace
Character" in Headhunter Task Force is a CHARACTER once the match starts; the same vehicle
without the choice, or another vehicle beside it, is not."""

from __future__ import annotations

from typing import Any

from app.catalog.starter import starter_catalogue
from app.engine.wh40k10e.army import BattleSize, Roster, RosterUnit, validate
from app.engine.wh40k10e.battle import Seat
from app.matches.systems.wh40k10e import armies

ACE = "Tank Ace Character"
HUNT = "Headhunter Task Force"


def snap(roster: Roster) -> dict[str, Any]:
    return armies.snapshot_from_roster(
        starter_catalogue(),
        roster,
        source="test",
        army_id=None,
        catalogue_id=None,
        points_limit=2000,
    )


def hunt(*units: RosterUnit) -> Roster:
    return Roster("Adeptus Astartes", HUNT, BattleSize.STRIKE_FORCE, units, name="Aces")


def test_a_tank_ace_is_a_character_in_the_match_and_a_plain_vehicle_is_not() -> None:
    roster = hunt(
        RosterUnit("Predator Destructor", wargear={ACE: 1}, warlord=True),
        RosterUnit("Gladiator Lancer"),
    )
    assert validate(roster, starter_catalogue()).valid
    ace, plain = snap(roster)["units"]
    assert "CHARACTER" in ace["keywords"]
    assert "VEHICLE" in ace["keywords"]
    assert "CHARACTER" not in plain["keywords"]
    assert "VEHICLE" in plain["keywords"]
    spec = armies.army_spec(snap(roster), Seat.A)
    assert "CHARACTER" in spec.units[0].keywords
    assert "CHARACTER" not in spec.units[1].keywords


def test_the_same_predator_without_the_choice_stays_no_character() -> None:
    roster = hunt(
        RosterUnit("Predator Destructor", wargear={ACE: 1}, warlord=True),
        RosterUnit("Predator Destructor"),
    )
    first, second = snap(roster)["units"]
    assert "CHARACTER" in first["keywords"]
    assert "CHARACTER" not in second["keywords"]
    assert first["datasheet"] == second["datasheet"] == "Predator Destructor"
