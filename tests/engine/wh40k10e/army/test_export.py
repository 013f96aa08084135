"""Export as text and JSON; our JSON imports back losslessly."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    Roster,
    RosterError,
    RosterUnit,
    export_json,
    export_text,
    import_json,
)

MakeRoster = Callable[..., Roster]


def test_text_layout(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    r = make_roster(
        RosterUnit("Captain", enhancements=("Relic Blade",), warlord=True, attached_to=1),
        RosterUnit(
            "Battle Squad", models=10, wargear={"Power fist": 1, "Auspex array": 1}, label="Red"
        ),
        RosterUnit("Test Transport"),
        RosterUnit("Battle Tank"),
        name="Test list",
    )
    text = export_text(r, catalogue)
    assert text == (
        "Test list (555 points)\n"
        "\n"
        "Test Marines\n"
        "Strike Force (2000 points)\n"
        "Strike Force Alpha\n"
        "\n"
        "CHARACTERS\n"
        "\n"
        "Captain (95 points)\n"
        "  \u2022 Warlord\n"
        "  \u2022 Enhancement: Relic Blade (+15 points)\n"
        "  \u2022 Attached to: Red (#2)\n"
        "\n"
        "BATTLELINE\n"
        "\n"
        "Battle Squad [Red] (185 points)\n"
        "  \u2022 10 models\n"
        "  \u2022 1x Auspex array\n"
        "  \u2022 1x Power fist\n"
        "\n"
        "DEDICATED TRANSPORTS\n"
        "\n"
        "Test Transport (75 points)\n"
        "\n"
        "OTHER DATASHEETS\n"
        "\n"
        "Battle Tank (200 points)\n"
    )


def test_text_of_a_list_with_unknown_units(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    text = export_text(make_roster(RosterUnit("Mystery", models=3)), catalogue)
    assert "OTHER DATASHEETS\n\nMystery (0 points)\n  \u2022 3 models" in text
    assert text.startswith("Test Marines army (0 points)")


def test_json_round_trip(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    r = make_roster(
        RosterUnit("Captain", enhancements=("Relic Blade",), warlord=True, attached_to=1),
        RosterUnit("Battle Squad", models=10, wargear={"Power fist": 1}, label="Red"),
        size=BattleSize.ONSLAUGHT,
        name="List",
    )
    data = export_json(r, catalogue)
    assert data["summary"] == {
        "points": 95 + 180,
        "points_limit": 3000,
        "valid": True,
        "catalogue_version": "t1",
    }
    text = json.dumps(data)
    assert import_json(text) == r
    assert import_json(text.encode()) == r
    assert import_json(json.loads(text)) == r
    assert import_json(json.dumps(r.to_dict())) == r


def test_import_accepts_a_hand_written_request_body() -> None:
    r = import_json(
        '{"faction": "Adeptus Astartes", "detachment": "Gladius Task Force",'
        ' "battle_size": "strike-force", "units": [{"datasheet": "Captain", "models": 1,'
        ' "enhancements": ["Artificer Armour"], "warlord": true, "wargear": {}},'
        ' {"datasheet": "Intercessor Squad", "models": 10}]}'
    )
    assert r.units[0].warlord
    assert r.units[1].models == 10
    assert r.battle_size is BattleSize.STRIKE_FORCE


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ("not json", "(root)"),
        ("[]", "(root)"),
        ('{"faction": "F", "detachment": "D"}', "battle_size"),
        ('{"faction": "F", "detachment": "D", "battle_size": "huge"}', "battle_size"),
        ('{"faction": "F", "detachment": "D", "battle_size": "incursion", "units": [{}]}',
         "units[0].datasheet"),
        ('{"faction": "F", "detachment": "D", "battle_size": "incursion",'
         ' "units": [{"datasheet": "X", "models": 0}]}', "units[0].models"),
        ('{"faction": "F", "detachment": "D", "battle_size": "incursion",'
         ' "units": [{"datasheet": "X", "wargear": {"a": -1}}]}', "units[0].wargear.a"),
        ('{"faction": "F", "detachment": "D", "battle_size": "incursion", "extra": 1}', "extra"),
        ('{"faction": "F", "detachment": "D", "battle_size": "incursion", "schema_version": 2}',
         "schema_version"),
    ],
)  # fmt: skip
def test_bad_json_names_the_field(payload: str, field: str) -> None:
    with pytest.raises(RosterError) as info:
        import_json(payload)
    assert info.value.field == field


def test_oversized_json_is_refused() -> None:
    with pytest.raises(RosterError, match="larger than"):
        import_json(" " * 1_000_001)


def test_too_many_units_is_refused() -> None:
    body = {
        "faction": "F",
        "detachment": "D",
        "battle_size": "incursion",
        "units": [{"datasheet": "X"}] * 151,
    }
    with pytest.raises(RosterError, match="at most 150"):
        import_json(json.dumps(body))


text = st.text(min_size=1, max_size=15).filter(lambda s: s.strip() != "")


@given(
    st.lists(
        st.builds(
            RosterUnit,
            datasheet=text,
            models=st.none() | st.integers(1, 200),
            wargear=st.dictionaries(text, st.integers(0, 200), max_size=3),
            enhancements=st.lists(text, max_size=2).map(tuple),
            warlord=st.booleans(),
            attached_to=st.none() | st.integers(0, 20),
            label=st.text(max_size=10),
        ),
        max_size=6,
    ),
    st.sampled_from(list(BattleSize)),
    st.text(max_size=20),
)
def test_json_round_trip_property(units: list[RosterUnit], size: BattleSize, name: str) -> None:
    r = Roster("F", "D", size, tuple(units), name=name, catalogue="c", catalogue_version="v1")
    assert import_json(json.dumps(export_json(r))) == r
