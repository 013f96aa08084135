"""Missions as data files: the shipped Only War, and the format's checks."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.engine.match.missions import (
    MISSIONS_DIR,
    MissionError,
    load_mission,
    load_missions,
    mission_to_json,
)


def test_only_war_as_shipped() -> None:
    """[L4672-4812]: 4 markers placed alternately (> 6" from edges, > 9" apart), 5 rounds,
    1 VP per marker at the end of your Command phase from round 2, at most 3."""
    missions = load_missions(MISSIONS_DIR)
    ow = missions["only-war"]
    assert ow.name == {"en": "Only War", "fr": "Que la Guerre"}
    assert [(s.id, s.points) for s in ow.battle_sizes] == [
        ("incursion", 1000),
        ("strike_force", 2000),
        ("onslaught", 3000),
    ]
    assert ow.battle_size("onslaught").battlefield.width == 90
    assert ow.marker_ids() == ("1", "2", "3", "4")
    assert (ow.objectives.min_edge_distance, ow.objectives.min_separation) == (6, 9)
    assert ow.length.rounds == 5
    assert ow.length.max_rounds == 5
    (rule,) = ow.scoring
    assert (rule.when, rule.who, rule.per_marker, rule.max_per_window, rule.from_round) == (
        "end_of_command_phase",
        "active_player",
        1,
        3,
        2,
    )
    assert not rule.applies_in(1)
    assert rule.applies_in(5)
    assert load_mission(json.dumps(mission_to_json(ow))) == ow


def _doc(**change: object) -> dict[str, object]:
    data: dict[str, object] = json.loads((MISSIONS_DIR / "only-war.json").read_text())
    data.update(change)
    return data


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"format": "auspex-mission/0"}, "format"),
        ({"battle_sizes": []}, "battle_sizes"),
        ({"objectives": {"markers": [{"id": "a"}, {"id": "a"}]}}, "objectives.markers"),
        ({"objectives": {"markers": [{"id": "a"}], "placement": "fixed"}}, "objectives.markers"),
        ({"length": {"rounds": 0}}, "length.rounds"),
        (
            {
                "length": {
                    "rounds": 5,
                    "extensions": [{"after_round": 3, "roller": "x", "continue_on": 3}],
                }
            },
            "length.extensions[0]",
        ),
        ({"surprise": 1}, ""),
        ({"length": {"rounds": "five"}}, "length.rounds"),
    ],
)
def test_bad_missions_are_refused(change: Any, where: Any) -> None:
    with pytest.raises(MissionError) as info:
        load_mission(_doc(**change))
    assert info.value.path == where


def test_a_narrative_style_mission_loads_as_data() -> None:
    doc = _doc(
        id="meat-grinder-test",
        rule_system="narrative-8e",
        objectives={"markers": [{"id": "centre", "x": 36, "y": 24}], "placement": "fixed"},
        sequence=[
            {"step": "hidden_deployment", "params": {"reversed": False}},
            {"step": "first_turn", "params": {"attacker_on": [1, 2, 3]}},
        ],
        length={
            "rounds": 5,
            "extensions": [
                {"after_round": 5, "roller": "first_player", "continue_on": 3},
                {"after_round": 6, "roller": "second_player", "continue_on": 4},
            ],
        },
        victory={"otherwise": "defender_has_a_model_left"},
    )
    mission = load_mission(doc)
    assert mission.length.max_rounds == 7
    assert mission.sequence[0].params == {"reversed": False}
    assert mission.objectives.markers[0].x == 36.0
