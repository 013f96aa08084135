"""Muster validation: every rule of wh40k-10e-core-2.md §2.10 / §6.1, every code, all at once.

Points are hand-computed from the test catalogue (conftest): Captain 80, Lieutenant 60,
Librarian 70, Terminator Captain 95, Brother Hero 100, Battle Squad 90 (5) / 180 (6-10),
Veteran Squad 150 (5) / 300 (10), Test Transport 75, Battle Tank 200.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.engine.wh40k10e.army import (
    FIXES,
    MESSAGES,
    BattleSize,
    Catalogue,
    Code,
    Roster,
    RosterUnit,
    Severity,
    validate,
)

MakeRoster = Callable[..., Roster]


def codes(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [v.code.value for v in result.violations]


def only(result, code: Code):  # type: ignore[no-untyped-def]
    found = [v for v in result.violations if v.code is code]
    assert found, f"expected {code}, got {codes(result)}"
    return found


def test_legal_list_is_valid_with_exact_points(
    catalogue: Catalogue, make_roster: MakeRoster, legal_units: tuple[RosterUnit, ...]
) -> None:
    res = validate(make_roster(*legal_units), catalogue)
    assert res.violations == ()
    assert res.valid
    assert res.points == 95 + 180 + 90 + 75 + 200 == 640
    assert res.points_limit == 2000
    assert [u.points for u in res.units] == [95, 180, 90, 75, 200]
    assert res.units[0].base_points == 80
    assert res.units[0].enhancement_points == 15


@pytest.mark.parametrize(
    ("size", "limit"),
    [(BattleSize.INCURSION, 1000), (BattleSize.STRIKE_FORCE, 2000), (BattleSize.ONSLAUGHT, 3000)],
)
def test_battle_size_limits(size: BattleSize, limit: int) -> None:
    # [L4235-4248] T2
    assert size.points_limit == limit


def test_points_over_limit_suggests_the_cheapest_fix(
    catalogue: Catalogue, make_roster: MakeRoster, legal_units: tuple[RosterUnit, ...]
) -> None:
    # 640 + 2 Battle Tanks (400) = 1040 > 1000: 40 over; the cheapest single unit worth at least
    # 40 points is the Test Transport (75) [L4323].
    units = (*legal_units, RosterUnit("Battle Tank"), RosterUnit("Battle Tank"))
    res = validate(make_roster(*units, size=BattleSize.INCURSION), catalogue)
    (v,) = only(res, Code.POINTS_OVER_LIMIT)
    assert res.points == 1040
    assert v.unit is None
    assert v.severity is Severity.ERROR
    assert v.params["over"] == 40
    assert "Test Transport (#4), 75 points" in v.fix
    assert "1040" in v.message
    assert "Incursion" in v.message
    assert not res.valid


def test_points_exactly_at_limit_is_fine(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    # 80 + 180*5 + 20 (enh) = 1000 exactly: within the limit.
    units = (
        RosterUnit("Captain", warlord=True, enhancements=("Master Tactician",)),
        *(RosterUnit("Battle Squad", models=10) for _ in range(5)),
    )
    res = validate(make_roster(*units, size=BattleSize.INCURSION), catalogue)
    assert res.points == 1000
    assert Code.POINTS_OVER_LIMIT.value not in codes(res)


def test_rule_of_three(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    # 4 Battle Tanks: at most 3 units with the same datasheet name [L4324-4331]
    units = (RosterUnit("Captain", warlord=True), *(RosterUnit("Battle Tank") for _ in range(4)))
    res = validate(make_roster(*units), catalogue)
    (v,) = only(res, Code.DATASHEET_LIMIT_EXCEEDED)
    assert v.unit == 4  # the 4th tank
    assert v.params == {
        "datasheet": "Battle Tank",
        "count": 4,
        "limit": 3,
        "excess": 1,
        "units": "5",
    }
    assert v.fix == "Remove 1 Battle Tank unit(s)."


def test_battleline_and_dedicated_transport_allow_six(
    catalogue: Catalogue, make_roster: MakeRoster
) -> None:
    six: tuple[RosterUnit, ...] = (RosterUnit("Captain", warlord=True),)
    six += tuple(RosterUnit("Battle Squad") for _ in range(6))
    six += tuple(RosterUnit("Test Transport") for _ in range(6))
    assert Code.DATASHEET_LIMIT_EXCEEDED.value not in codes(validate(make_roster(*six), catalogue))
    seven = (*six, RosterUnit("Battle Squad"), RosterUnit("Test Transport"))
    found = only(validate(make_roster(*seven), catalogue), Code.DATASHEET_LIMIT_EXCEEDED)
    assert sorted(v.params["datasheet"] for v in found) == ["Battle Squad", "Test Transport"]
    assert all(v.params["limit"] == 6 for v in found)


def test_epic_hero_once(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    units = (RosterUnit("Brother Hero", warlord=True), RosterUnit("Brother Hero"))
    res = validate(make_roster(*units), catalogue)
    (v,) = only(res, Code.EPIC_HERO_DUPLICATE)
    assert v.unit == 1
    assert v.params["count"] == 2
    assert Code.DATASHEET_LIMIT_EXCEEDED.value not in codes(res)


def test_no_character(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    res = validate(make_roster(RosterUnit("Battle Squad")), catalogue)
    (v,) = only(res, Code.NO_CHARACTER)
    assert v.unit is None
    assert "e.g. Captain" in v.fix
    assert Code.NO_WARLORD.value in codes(res)


def test_no_character_not_claimed_when_a_datasheet_is_unknown(
    catalogue: Catalogue, make_roster: MakeRoster
) -> None:
    # The unknown unit may be a Character: only unknown-datasheet is certain (ruling M3).
    res = validate(make_roster(RosterUnit("Battle Squad"), RosterUnit("Captian")), catalogue)
    assert Code.NO_CHARACTER.value not in codes(res)
    assert Code.UNKNOWN_DATASHEET.value in codes(res)


def test_no_warlord_names_a_candidate(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    res = validate(make_roster(RosterUnit("Battle Squad"), RosterUnit("Captain")), catalogue)
    (v,) = only(res, Code.NO_WARLORD)
    assert "Captain (#2)" in v.fix


def test_multiple_warlords(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    units = (RosterUnit("Captain", warlord=True), RosterUnit("Lieutenant", warlord=True))
    (v,) = only(validate(make_roster(*units), catalogue), Code.MULTIPLE_WARLORDS)
    assert v.unit == 1
    assert v.params["count"] == 2
    assert v.params["units"] == "1, 2"


def test_warlord_must_be_a_character(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    units = (RosterUnit("Captain"), RosterUnit("Battle Tank", warlord=True))
    (v,) = only(validate(make_roster(*units), catalogue), Code.WARLORD_NOT_CHARACTER)
    assert v.unit == 1


def test_faction_mismatch_on_a_unit(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    units = (RosterUnit("Captain", warlord=True), RosterUnit("Boyz"))
    (v,) = only(validate(make_roster(*units), catalogue), Code.FACTION_MISMATCH)
    assert v.unit == 1
    assert v.params["factions"] == "Test Orks"


def test_unknown_army_faction_is_reported_once_with_choices(
    catalogue: Catalogue, make_roster: MakeRoster
) -> None:
    res = validate(
        make_roster(RosterUnit("Captain", warlord=True), faction="Test Marine"), catalogue
    )
    found = only(res, Code.FACTION_MISMATCH)
    assert len(found) == 1
    assert found[0].unit is None
    assert found[0].message_id == "faction-mismatch.unknown-faction"
    assert "Test Marines" in found[0].params["closest"]


def test_enhancement_limit_three_per_army(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    units = (
        RosterUnit("Captain", warlord=True, enhancements=("Relic Blade",)),
        RosterUnit("Lieutenant", enhancements=("Heavy Plate",)),
        RosterUnit("Librarian", enhancements=("Mind Shield",)),
        RosterUnit("Terminator Captain", enhancements=("Master Tactician",)),
    )
    res = validate(make_roster(*units), catalogue)
    (v,) = only(res, Code.ENHANCEMENT_LIMIT_EXCEEDED)
    assert v.unit == 3
    assert v.params == {"count": 4, "limit": 3, "excess": 1}
    # Points still count all four: 80+15 + 60+25 + 70+10 + 95+20
    assert res.points == 375


def test_enhancement_duplicate(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    units = (
        RosterUnit("Captain", warlord=True, enhancements=("Relic Blade",)),
        RosterUnit("Lieutenant", enhancements=("relic blade",)),
    )
    (v,) = only(validate(make_roster(*units), catalogue), Code.ENHANCEMENT_DUPLICATE)
    assert v.unit == 1
    assert v.params["first_unit"] == 1


def test_enhancement_not_character(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    units = (
        RosterUnit("Captain", warlord=True),
        RosterUnit("Battle Tank", enhancements=("Relic Blade",)),
    )
    (v,) = only(validate(make_roster(*units), catalogue), Code.ENHANCEMENT_NOT_CHARACTER)
    assert v.unit == 1


def test_enhancement_the_data_offers_to_non_characters(
    catalogue: Catalogue, make_roster: MakeRoster
) -> None:
    # Ruling M6: a detachment's vehicle upgrade (characters_only = False)
    units = (
        RosterUnit("Captain", warlord=True),
        RosterUnit("Battle Tank", enhancements=("Armoured Ram",)),
    )
    res = validate(make_roster(*units, detachment="Siege Cohort"), catalogue)
    assert res.violations == ()
    assert res.units[1].points == 210


def test_enhancement_on_epic_hero(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    units = (RosterUnit("Brother Hero", warlord=True, enhancements=("Relic Blade",)),)
    res = validate(make_roster(*units), catalogue)
    (v,) = only(res, Code.ENHANCEMENT_ON_EPIC_HERO)
    assert v.unit == 0
    assert Code.ENHANCEMENT_NOT_CHARACTER.value not in codes(res)


def test_multiple_enhancements_on_one_unit(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    units = (RosterUnit("Captain", warlord=True, enhancements=("Relic Blade", "Mind Shield")),)
    (v,) = only(validate(make_roster(*units), catalogue), Code.MULTIPLE_ENHANCEMENTS_ON_UNIT)
    assert v.unit == 0
    assert v.params["count"] == 2


def test_enhancement_of_another_detachment(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    units = (RosterUnit("Captain", warlord=True, enhancements=("Siege Master",)),)
    res = validate(make_roster(*units), catalogue)
    (v,) = only(res, Code.ENHANCEMENT_WRONG_DETACHMENT)
    assert v.params["enhancement_detachment"] == "Siege Cohort"
    assert v.params["detachment"] == "Strike Force Alpha"
    assert res.points == 80 + 30  # still priced


@pytest.mark.parametrize(
    ("bearer", "enhancement", "ok"),
    [
        ("Captain", "Master Tactician", True),  # requires Captain
        ("Lieutenant", "Master Tactician", False),
        ("Captain", "Heavy Plate", True),  # non-Terminator
        ("Terminator Captain", "Heavy Plate", False),
        ("Librarian", "Mind Shield", True),  # Captain or Psyker
        ("Lieutenant", "Mind Shield", False),
    ],
)
def test_enhancement_eligibility(
    catalogue: Catalogue, make_roster: MakeRoster, bearer: str, enhancement: str, ok: bool
) -> None:
    units = (RosterUnit(bearer, warlord=True, enhancements=(enhancement,)),)
    res = validate(make_roster(*units), catalogue)
    assert (Code.ENHANCEMENT_NOT_ELIGIBLE.value not in codes(res)) is ok
    if not ok:
        (v,) = only(res, Code.ENHANCEMENT_NOT_ELIGIBLE)
        assert v.params["requirement"] in ("Captain", "non-Terminator", "Captain or Psyker")


def test_unit_size_invalid(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    units = (
        RosterUnit("Captain", warlord=True),
        RosterUnit("Battle Squad", models=11),
        RosterUnit("Veteran Squad", models=7),  # 5 or 10 only
        RosterUnit("Battle Squad", models=3),
    )
    res = validate(make_roster(*units), catalogue)
    found = only(res, Code.UNIT_SIZE_INVALID)
    assert [v.unit for v in found] == [1, 2, 3]
    assert found[0].params["allowed"] == "between 5 and 10 (points change at 6)"
    assert found[1].params["allowed"] == "5 or 10"
    assert found[1].fix == "Set Veteran Squad (#3) to 5 or 10 models."
    # Priced at the nearest size: 180 (10), 150 or 300 (5 / 10: 7 is nearer 5), 90 (5)
    assert [u.points for u in res.units] == [80, 180, 150, 90]


def test_default_model_count_is_the_minimum(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    res = validate(
        make_roster(RosterUnit("Captain", warlord=True), RosterUnit("Battle Squad")), catalogue
    )
    assert res.units[1].models == 5
    assert res.units[1].points == 90


def test_wargear(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    units = (
        RosterUnit("Captain", warlord=True),
        RosterUnit(
            "Battle Squad",
            models=10,
            wargear={"Power fist": 1, "Auspex array": 1, "Plasma pistol": 2, "Gunner": 1},
        ),
    )
    res = validate(make_roster(*units), catalogue)
    assert res.violations == ()
    assert res.units[1].wargear_points == 5
    assert res.units[1].points == 185


def test_wargear_unknown_and_too_many(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    units = (
        RosterUnit("Captain", warlord=True),
        RosterUnit(
            "Battle Squad",
            models=10,
            wargear={"Power fists": 1, "Plasma pistol": 3, "Power fist": 2},
        ),
    )
    found = only(validate(make_roster(*units), catalogue), Code.WARGEAR_INVALID)
    assert len(found) == 3
    unknown = next(v for v in found if v.message_id == "wargear-invalid")
    assert unknown.params["closest"].startswith("Power fist")
    too_many = {
        v.params["wargear"]: v.params["limit"] for v in found if v.message_id.endswith("too-many")
    }
    # Plasma pistol: 1 per Trooper but capped at 2 per unit; Power fist: the Sergeant's option.
    assert too_many == {"Plasma pistol": 2, "Power fist": 1}


def test_leader_attachments(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    units = (
        RosterUnit("Captain", warlord=True, attached_to=1),  # legal
        RosterUnit("Battle Squad"),
        RosterUnit("Librarian", attached_to=1),  # the squad already has a Leader
        RosterUnit("Battle Tank", attached_to=1),  # not a Leader
        RosterUnit("Librarian", attached_to=5),  # cannot lead a transport
        RosterUnit("Test Transport"),
        RosterUnit("Lieutenant", attached_to=9),  # no such unit
        RosterUnit("Lieutenant", attached_to=7),  # itself
    )
    res = validate(make_roster(*units), catalogue)
    found = {v.unit: v.message_id for v in only(res, Code.LEADER_ATTACHMENT_ILLEGAL)}
    assert found == {
        2: "leader-attachment-illegal.bodyguard-taken",
        3: "leader-attachment-illegal.not-a-leader",
        4: "leader-attachment-illegal.not-a-bodyguard",
        6: "leader-attachment-illegal.no-such-unit",
        7: "leader-attachment-illegal.self",
    }


def test_a_leader_cannot_join_a_unit_that_is_itself_attached(
    catalogue: Catalogue, make_roster: MakeRoster
) -> None:
    # Ruling M9: Leaders attached to each other are refused.
    units = (
        RosterUnit("Captain", warlord=True, attached_to=2),
        RosterUnit("Battle Squad"),
        RosterUnit("Lieutenant", attached_to=0),
    )
    found = only(validate(make_roster(*units), catalogue), Code.LEADER_ATTACHMENT_ILLEGAL)
    assert [(v.unit, v.message_id) for v in found] == [
        (0, "leader-attachment-illegal.not-a-bodyguard"),
        (2, "leader-attachment-illegal.not-a-bodyguard"),
    ]
    # A Bodyguard unit marked as attached (it is no Leader) cannot be led either.
    units = (
        RosterUnit("Captain", warlord=True, attached_to=1),
        RosterUnit("Battle Squad", attached_to=2),
        RosterUnit("Battle Squad"),
    )
    found = only(validate(make_roster(*units), catalogue), Code.LEADER_ATTACHMENT_ILLEGAL)
    assert [(v.unit, v.message_id) for v in found] == [
        (0, "leader-attachment-illegal.target-attached"),
        (1, "leader-attachment-illegal.not-a-leader"),
    ]


def test_extra_leader_may_join_a_led_unit(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    # The Lieutenant's datasheet lets it join a unit that already has a Leader; a third
    # Leader is still refused.
    units = (
        RosterUnit("Captain", warlord=True, attached_to=1),
        RosterUnit("Battle Squad"),
        RosterUnit("Lieutenant", attached_to=1),
        RosterUnit("Librarian", attached_to=1),
    )
    found = only(validate(make_roster(*units), catalogue), Code.LEADER_ATTACHMENT_ILLEGAL)
    assert [(v.unit, v.message_id) for v in found] == [
        (3, "leader-attachment-illegal.bodyguard-taken")
    ]


@pytest.mark.parametrize(("models", "ok"), [(20, True), (19, False), (None, False)])
def test_a_big_bodyguard_unit_may_take_two_leaders(
    catalogue: Catalogue, make_roster: MakeRoster, models: int | None, ok: bool
) -> None:
    # Boyz: two Leaders from 20 models up (``two_leaders_from`` in the data)
    units = (
        RosterUnit("Boss", warlord=True, attached_to=2),
        RosterUnit("Boss", attached_to=2),
        RosterUnit("Boyz", models=models),
    )
    res = validate(make_roster(*units, faction="Test Orks", detachment="Waaagh Band"), catalogue)
    assert (res.violations == ()) is ok
    if not ok:
        (v,) = res.violations
        assert v.unit == 1
        assert v.message_id == "leader-attachment-illegal.bodyguard-taken"


def test_conditional_bodyguard_is_a_warning(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    units = (RosterUnit("Captain", warlord=True, attached_to=1), RosterUnit("Veteran Squad"))
    res = validate(make_roster(*units), catalogue)
    (v,) = only(res, Code.LEADER_ATTACHMENT_ILLEGAL)
    assert v.severity is Severity.WARNING
    assert res.valid  # a warning does not make the list invalid
    assert res.warnings == (v,)
    assert res.errors == ()


def test_unknown_names_come_with_closest_matches(
    catalogue: Catalogue, make_roster: MakeRoster
) -> None:
    units = (
        RosterUnit("Captian", warlord=True),
        RosterUnit("Captain", enhancements=("Relic Blaed",)),
    )
    res = validate(make_roster(*units, detachment="Strike Force Alfa"), catalogue)
    (ds,) = only(res, Code.UNKNOWN_DATASHEET)
    assert ds.params["closest"].split(", ")[0] == "Captain"
    assert ds.unit == 0
    assert "did you mean Captain" in ds.fix
    (det,) = only(res, Code.UNKNOWN_DETACHMENT)
    assert det.params["closest"] == "Strike Force Alpha"
    assert det.unit is None
    (enh,) = only(res, Code.UNKNOWN_ENHANCEMENT)
    assert enh.params["closest"].split(", ")[0] == "Relic Blade"
    assert enh.unit == 1
    assert res.units[0].points == 0


def test_names_are_matched_leniently(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    units = (RosterUnit("  captain ", warlord=True, enhancements=("RELIC   BLADE",)),)
    res = validate(
        make_roster(*units, detachment="strike force alpha", faction="test marines"), catalogue
    )
    assert res.violations == ()
    assert res.points == 95


def test_every_violation_at_once(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    """A list breaking many rules reports all of them (never stops at the first)."""
    units = (
        RosterUnit("Battle Tank", warlord=True, enhancements=("Relic Blade",)),
        RosterUnit("Boyz"),
        *(RosterUnit("Battle Tank") for _ in range(3)),
        RosterUnit("Battle Squad", models=12),
        RosterUnit("Nonexistent Unit"),
    )
    res = validate(make_roster(*units, detachment="Nope", size=BattleSize.INCURSION), catalogue)
    assert set(codes(res)) >= {
        Code.WARLORD_NOT_CHARACTER.value,
        Code.ENHANCEMENT_NOT_CHARACTER.value,
        Code.FACTION_MISMATCH.value,
        Code.DATASHEET_LIMIT_EXCEEDED.value,
        Code.UNIT_SIZE_INVALID.value,
        Code.UNKNOWN_DATASHEET.value,
        Code.UNKNOWN_DETACHMENT.value,
        Code.POINTS_OVER_LIMIT.value,
    }


def test_every_code_has_messages_and_round_trips_as_dict(
    catalogue: Catalogue, make_roster: MakeRoster
) -> None:
    assert {c.value for c in Code} <= {k.split(".")[0] for k in MESSAGES}
    res = validate(make_roster(RosterUnit("Battle Tank", warlord=True)), catalogue)
    data: Any = res.as_dict()
    assert data["valid"] is False
    assert data["points_limit"] == 2000
    for v, d in zip(res.violations, data["violations"], strict=True):
        assert d["code"] == v.code.value
        assert d["unit"] == v.unit
        assert MESSAGES[v.message_id].format(**v.params) == v.message
        assert FIXES[v.fix_id].format(**v.params) == v.fix


def test_issue_codes_are_the_published_strings() -> None:
    published = {
        "points-over-limit", "datasheet-limit-exceeded", "no-character", "no-warlord",
        "multiple-warlords", "warlord-not-character", "faction-mismatch", "epic-hero-duplicate",
        "enhancement-limit-exceeded", "enhancement-duplicate", "enhancement-not-character",
        "enhancement-on-epic-hero", "multiple-enhancements-on-unit",
        "enhancement-wrong-detachment", "unit-size-invalid", "wargear-invalid",
        "leader-attachment-illegal", "unknown-datasheet", "unknown-detachment",
        "unknown-enhancement",
    }  # fmt: skip
    assert published <= {c.value for c in Code}
    assert {c.value for c in Code} - published == {
        "enhancement-not-eligible",
        "datasheet-not-in-detachment",
        "legends-not-included",
        "data-restriction",
        "category-limit-exceeded",
        "category-minimum-not-met",
        "warlord-not-eligible",
    }


UNIT_NAMES = [
    "Captain",
    "Lieutenant",
    "Brother Hero",
    "Battle Squad",
    "Battle Tank",
    "Boyz",
    "Ghost",
]


@given(
    st.lists(
        st.tuples(
            st.sampled_from(UNIT_NAMES),
            st.integers(1, 12),
            st.booleans(),
            st.lists(st.sampled_from(["Relic Blade", "Siege Master", "Mind Shield"]), max_size=2),
        ),
        max_size=10,
    )
)
def test_properties_points_and_validity(catalogue: Catalogue, spec: list) -> None:  # type: ignore[type-arg]
    """Total = sum of units; valid iff no error; each violation names a unit in range; the
    result does not depend on anything but the roster (same input, same output)."""
    units = tuple(
        RosterUnit(name, models=n, warlord=w, enhancements=tuple(e)) for name, n, w, e in spec
    )
    r = Roster("Test Marines", "Strike Force Alpha", BattleSize.STRIKE_FORCE, units)
    res = validate(r, catalogue)
    assert res.points == sum(u.points for u in res.units)
    assert len(res.units) == len(units)
    assert res.valid == (not any(v.severity is Severity.ERROR for v in res.violations))
    assert all(v.unit is None or 0 <= v.unit < len(units) for v in res.violations)
    assert validate(r, catalogue) == res
    if res.points > 2000:
        assert Code.POINTS_OVER_LIMIT in {v.code for v in res.violations}
