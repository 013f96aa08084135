"""The match snapshot reads a unit as the validator does (rulings D24, D25): without the
keywords its taken choices remove (a Champion on a Bike is MOUNTED, no INFANTRY) and with
those its Enhancement gives (Warp Touch: a PSYKER), on the hand-written files of
:mod:`tests.catalog.bsdata.keyword_change_files`."""

from __future__ import annotations

from typing import Any

import pytest

from app.catalog.bsdata import import_files
from app.engine.wh40k10e.army import BattleSize, Catalogue, Roster, RosterUnit, validate
from app.engine.wh40k10e.battle import Seat
from app.matches.systems.wh40k10e import armies
from tests.catalog.bsdata.keyword_change_files import FILES


@pytest.fixture(scope="module")
def riders() -> Catalogue:
    (catalogue,) = import_files(FILES).catalogues
    return catalogue


def snap(catalogue: Catalogue, *units: RosterUnit) -> dict[str, Any]:
    roster = Roster("Riders", "First Host", BattleSize.STRIKE_FORCE, units, name="Riders")
    assert validate(roster, catalogue).valid
    return armies.snapshot_from_roster(
        catalogue, roster, source="test", army_id=None, catalogue_id=None, points_limit=2000
    )


def test_a_champion_on_a_bike_is_mounted_and_no_infantry_in_the_match(
    riders: Catalogue,
) -> None:
    found = snap(
        riders,
        RosterUnit("Champion", wargear={"Bike": 1}, warlord=True),
        RosterUnit("Champion"),
    )
    biker, walker = found["units"]
    assert "MOUNTED" in biker["keywords"]
    assert "INFANTRY" not in biker["keywords"]
    assert "CHARACTER" in biker["keywords"]
    assert "INFANTRY" in walker["keywords"]
    assert "MOUNTED" not in walker["keywords"]
    spec = armies.army_spec(found, Seat.A)
    assert "INFANTRY" not in spec.units[0].keywords
    assert "INFANTRY" in spec.units[1].keywords


def test_the_bearer_of_warp_touch_is_a_psyker_in_the_match(riders: Catalogue) -> None:
    found = snap(
        riders,
        RosterUnit("Champion", warlord=True, enhancements=("Warp Touch",)),
        RosterUnit("Mob", enhancements=("Winged Crown",)),
    )
    touched, mob = found["units"]
    assert "PSYKER" in touched["keywords"]
    assert "FLY" not in touched["keywords"]  # the Fly it gives the model is not read
    assert "DISPLAY FLAG" not in touched["keywords"]  # a hidden category is not read
    assert "FLY" in mob["keywords"]
    assert "PSYKER" not in mob["keywords"]
