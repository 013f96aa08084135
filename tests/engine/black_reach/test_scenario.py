"""Scenarios as data: the loader's located errors and bounds, the sample scenario, and the
end-of-turn checks (note §3.2, §5; seed [L97-L103], [L639-L647], [L2318-L2325])."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from app.engine.black_reach.armies import Tokens, groups
from app.engine.black_reach.board import Square, load_sample_boards
from app.engine.black_reach.loaders import (
    DATA_DIR,
    MAX_JSON_BYTES,
    load_sample_catalogue,
    load_sample_scenarios,
    parse_json,
    scenario_from_dict,
)
from app.engine.black_reach.scenario import (
    Outcome,
    end_of_turn,
    objective_holder,
    score,
    sudden_death,
)
from app.engine.errors import ProfileError

RAW: dict[str, Any] = json.loads((DATA_DIR / "scenarios" / "sample-relay.json").read_text())


def load(raw: Any) -> Any:
    return scenario_from_dict(raw, load_sample_catalogue(), load_sample_boards())


def test_the_sample_scenario_loads_and_says_it_is_a_sample() -> None:
    scenario = load_sample_scenarios()["sample-relay"]
    assert scenario.sample
    assert scenario.catalogue.sample
    assert scenario.board.sample
    assert "SAMPLE" in RAW["note"]
    assert (scenario.turns, scenario.hand_size, scenario.vp_to_win) == (5, 3, 6)
    assert len(scenario.board.squares) == 8 * 12  # two 8 × 6 boards, one above the other
    assert Square(3, 5) in scenario.objectives[0].squares
    assert scenario.opponent("orks") == "ultramarines"


def test_every_problem_of_a_scenario_is_reported_with_its_place() -> None:
    raw = copy.deepcopy(RAW)
    raw["turns"] = 0
    raw["colour"] = "red"
    raw["board"]["boards"][1]["board"] = "atlantis"
    raw["sides"][1]["id"] = "ultramarines"
    raw["sides"][0]["army"]["tiles"][0]["slots"][0]["option"] = "sample-ork-boss"
    raw["objectives"][0]["squares"] = [[99, 99]]
    raw["first_initiative"] = "eldar"
    with pytest.raises(ProfileError) as info:
        load(raw)
    fields = {f for f, _ in info.value.errors}
    assert {"turns", "colour", "board.boards[1].board", "sides[1].id"} <= fields
    assert "sides[0].army.tiles[0].slots[0]" in fields  # wrong faction, bands
    assert "first_initiative" in fields
    messages = dict(info.value.errors)
    assert "unknown field" in messages["colour"]
    assert "wrong_faction" in " ".join(m for f, m in info.value.errors if f.startswith("sides[0]"))


def test_objectives_must_lie_on_the_battlefield_and_zones_not_overlap() -> None:
    raw = copy.deepcopy(RAW)
    raw["objectives"][0]["squares"] = [[99, 99]]
    raw["sides"][1]["deployment"] = [{"from": [0, 1], "to": [1, 1]}]
    with pytest.raises(ProfileError) as info:
        load(raw)
    fields = {f for f, _ in info.value.errors}
    assert {"objectives[0].squares", "sides[1].deployment"} <= fields


def test_sizes_are_bounded() -> None:
    with pytest.raises(ProfileError, match="bytes"):
        parse_json(" " * (MAX_JSON_BYTES + 1))
    with pytest.raises(ProfileError, match="not JSON"):
        parse_json("{")
    raw = copy.deepcopy(RAW)
    raw["objectives"] = [{"id": f"o{i}", "squares": [[0, 5]]} for i in range(40)]
    raw["sides"][0]["deployment"] = [{"from": [0, 0], "to": [999, 999]}]
    with pytest.raises(ProfileError) as info:
        load(raw)
    fields = {f for f, _ in info.value.errors}
    assert {"objectives", "sides[0].deployment[0]"} <= fields


def test_breaking_points_give_their_vp_to_the_opponent() -> None:
    scenario = load(RAW)
    side = scenario.side("orks")
    mob = groups(side.army, scenario.catalogue, "orks")[0]
    holders: dict[str, str | None] = {"relay": None}
    assert score(scenario, [mob.lose(mob.units[1])], holders)["ultramarines"] == 0
    broken = mob.lose(mob.units[1]).lose(mob.units[2])
    assert score(scenario, [broken], holders) == {"ultramarines": 3, "orks": 0}
    assert score(scenario, [broken], {"relay": "orks"}) == {"ultramarines": 3, "orks": 2}


def test_objective_holder_is_the_only_side_on_it() -> None:
    objective = load(RAW).objectives[0]
    assert objective_holder(objective, {"orks": [Square(3, 5)], "ultramarines": []}) == "orks"
    both = {"orks": [Square(3, 5)], "ultramarines": [Square(4, 6)]}
    assert objective_holder(objective, both) is None
    assert objective_holder(objective, {"orks": [Square(0, 0)]}) is None


def test_end_of_turn_victory_check() -> None:
    scenario = load(RAW)
    um = groups(scenario.side("ultramarines").army, scenario.catalogue, "ultramarines")
    orks = groups(scenario.side("orks").army, scenario.catalogue, "orks")
    nobody: dict[str, str | None] = {"relay": None}
    assert end_of_turn(scenario, 1, [*um, *orks], nobody).outcome is Outcome.PLAY_ON
    # the squad (3 VP) and the librarian (2 VP) broken, relay held: 7 ≥ 6, Orks win at once
    squad, _, librarian = um
    lost = [squad.lose(squad.units[0]).lose(squad.units[1]), librarian.lose(librarian.units[0])]
    verdict = end_of_turn(scenario, 2, [*lost, *orks], {"relay": "orks"})
    assert (verdict.outcome, verdict.winner, verdict.reason) == (
        Outcome.WIN,
        "orks",
        "victory_points",
    )
    assert verdict.vp == {"ultramarines": 0, "orks": 7}
    # at the turn limit the most VP wins, equal VP is a draw
    last = end_of_turn(scenario, 5, [*um, *orks], {"relay": "ultramarines"})
    assert (last.outcome, last.winner, last.reason) == (Outcome.WIN, "ultramarines", "turn_limit")
    assert end_of_turn(scenario, 5, [*um, *orks], nobody).outcome is Outcome.DRAW
    with pytest.raises(ValueError):
        end_of_turn(scenario, 6, [], nobody)


def test_sudden_death_ignores_bluff_tokens() -> None:
    scenario = load(RAW)
    some, bluff_only = Tokens(2, 0, 0), Tokens(0, 0, 2)
    assert sudden_death(scenario, {"orks": some, "ultramarines": some}) is None
    verdict = sudden_death(scenario, {"orks": some, "ultramarines": bluff_only})
    assert verdict is not None
    assert verdict.winner == "orks"
    assert verdict.reason == "sudden_death"
    assert sudden_death(scenario, {"orks": Tokens(0, 1, 0), "ultramarines": some}) is None
    both = sudden_death(scenario, {"orks": bluff_only, "ultramarines": bluff_only})
    assert both is not None
    assert both.outcome is Outcome.DRAW
