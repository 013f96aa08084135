"""The exact odds against an independent brute-force enumeration of every die face, and the
properties any odds must have (hypothesis over random requests inside the bounds)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from app.engine.black_reach import analyze, outcome_odds, request_from_dict, resolve
from app.engine.black_reach.requests import BOUNDS
from app.engine.combat import to_jsonable
from app.engine.roller import Roller
from tests.engine.black_reach.oracle import all_faces, classify, oracle


def bounded(name: str) -> st.SearchStrategy[int]:
    lo, hi = BOUNDS[name]
    return st.integers(lo, hi)


def optional(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({}, optional=fields)


shots = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(["shot", "suppression_fire"]),
        "attacker": st.fixed_dictionaries(
            {"cv": bounded("cv")},
            optional={
                "bonuses": bounded("bonuses"),
                "moving_penalty": bounded("moving_penalty"),
                "dice": bounded("dice"),
                "suppressed": bounded("suppressed"),
                "penalties": bounded("penalties"),
                "assault_bonus": bounded("assault_bonus"),
            },
        ),
        "target": st.fixed_dictionaries(
            {"dv": bounded("dv")},
            optional={
                "defence_bonus": bounded("defence_bonus"),
                "cv": bounded("cv"),
                "has_assault": st.booleans(),
            },
        ),
        "situation": optional(long_range=st.booleans()),
    }
)


@st.composite
def assaults(draw: st.DrawFn) -> dict[str, Any]:
    has_assault = draw(st.booleans())
    target = draw(
        st.fixed_dictionaries(
            {"cv": bounded("cv")},
            optional={
                "dv": bounded("dv"),
                "defence_bonus": bounded("defence_bonus"),
                "bonuses": bounded("bonuses"),
                "suppressed": bounded("suppressed"),
                "penalties": bounded("penalties"),
            },
        )
    )
    target["has_assault"] = has_assault
    if has_assault:
        target["assault_bonus"] = draw(bounded("assault_bonus"))
    attacker = draw(
        st.fixed_dictionaries(
            {"cv": bounded("cv")},
            optional={
                "bonuses": bounded("bonuses"),
                "dice": bounded("dice"),
                "suppressed": bounded("suppressed"),
                "penalties": bounded("penalties"),
                "assault_bonus": bounded("assault_bonus"),
                "support": bounded("support"),
            },
        )
    )
    return {"kind": "assault", "attacker": attacker, "target": target}


requests = st.one_of(shots, assaults())


def positive(odds: dict[str, Fraction]) -> dict[str, Fraction]:
    return {k: p for k, p in odds.items() if p}


@given(requests)
def test_exact_odds_equal_the_brute_force_enumeration(raw: dict[str, Any]) -> None:
    odds = outcome_odds(request_from_dict(raw))
    assert sum(odds.values()) == 1
    assert all(p >= 0 for p in odds.values())
    assert positive(odds) == oracle(raw)


@given(requests)
def test_outcome_names_and_order(raw: dict[str, Any]) -> None:
    names = list(outcome_odds(request_from_dict(raw)))
    if raw["kind"] == "shot":
        assert names == ["miss", "step", "coup_double"]
    elif raw["kind"] == "assault":
        assert names == ["attacker_wins", "tie", "defender_wins"]
    else:
        assert names == [f"suppressed_{k}" for k in range(len(names))]
        assert outcome_odds(request_from_dict(raw))[names[-1]] > 0


@given(requests, st.data())
def test_a_live_roll_classifies_its_dice_as_the_oracle_does(
    raw: dict[str, Any], data: st.DataObject
) -> None:
    faces = data.draw(st.sampled_from(list(all_faces(raw))))
    roller = Roller.from_values(faces)
    resolution = resolve(request_from_dict(raw), roller)
    assert roller.remaining_given == 0  # exactly the dice the rules roll
    assert [d.value for d in resolution.dice] == list(faces)
    assert resolution.extra["outcome"] == classify(raw, faces)


@given(shots, st.integers(0, 3))
def test_more_bonus_never_lowers_the_odds_of_a_hit(raw: dict[str, Any], more: int) -> None:
    hi = BOUNDS["bonuses"][1]
    base = raw["attacker"].get("bonuses", 0)
    better = {**raw, "attacker": {**raw["attacker"], "bonuses": min(hi, base + more)}}

    def at_least_one(r: dict[str, Any]) -> Fraction:
        odds = outcome_odds(request_from_dict(r))
        return 1 - odds.get("miss", Fraction(0)) - odds.get("suppressed_0", Fraction(0))

    assert at_least_one(better) >= at_least_one(raw)


@given(assaults(), st.integers(1, 3))
def test_support_never_lowers_the_attacker_s_odds(raw: dict[str, Any], more: int) -> None:
    hi = BOUNDS["support"][1]
    support = raw["attacker"].get("support", 0)
    better = {**raw, "attacker": {**raw["attacker"], "support": min(hi, support + more)}}
    base = outcome_odds(request_from_dict(raw))
    helped = outcome_odds(request_from_dict(better))
    assert helped["attacker_wins"] >= base["attacker_wins"]
    assert helped["defender_wins"] <= base["defender_wins"]


@given(requests)
def test_the_analysis_agrees_with_the_outcomes(raw: dict[str, Any]) -> None:
    analysis = analyze(request_from_dict(raw))
    odds = analysis.outcomes
    if raw["kind"] == "shot":
        assert analysis.damage.prob(1) == odds["step"]
        assert analysis.damage.prob(2) == odds["coup_double"]
        assert analysis.wipe_probability == odds["coup_double"]
    elif raw["kind"] == "assault":
        assert analysis.damage.prob(1) == odds["attacker_wins"]
        assert analysis.extra["attacker_steps"].prob(1) == odds["defender_wins"]  # type: ignore[union-attr]
        for side in ("attacker", "defender"):
            die, total = analysis.stages[f"{side}_die"], analysis.stages[f"{side}_total"]
            assert total == die + analysis.extra[f"{side}_modifier"]  # type: ignore[operator]
    else:
        markers = analysis.stages["suppressed"]
        assert {f"suppressed_{k}": p for k, p in markers.items()} == positive(odds)
        assert analysis.damage.max == 0


def test_outcomes_serialise_as_a_list_in_order() -> None:
    raw = {"kind": "shot", "attacker": {"cv": 4, "dice": 2}, "target": {"dv": 4}}
    body = to_jsonable(analyze(request_from_dict(raw)))
    assert isinstance(body, dict)
    assert body["outcomes"] == [
        {"outcome": "miss", "exact": "0", "approx": 0.0},
        {"outcome": "step", "exact": "1/4", "approx": 0.25},
        {"outcome": "coup_double", "exact": "3/4", "approx": 0.75},
    ]
