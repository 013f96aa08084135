"""Save re-rolls (``Situation.reroll_saves``): Scatter field re-rolls saving throws of 1
[narrative L613], Evasive Manoeuvres re-rolls failed saves [narrative L913-L915]. The exact
engine against hand fractions, the plain oracle (closed form) and the brute-force enumerator
(die by die) on random profiles with each policy; the live roll keeps the first die."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.errors import ProfileError
from app.engine.roller import Roller
from app.engine.wh40k10e import analyze, exact, resolve
from app.engine.wh40k10e.allocation import Layout
from app.engine.wh40k10e.profiles import RerollPolicy, Situation, request_from_dict
from app.engine.wh40k10e.rules import SaveChoice, save_fail_weights, should_reroll_save
from tests.engine.wh40k10e import plain
from tests.engine.wh40k10e.brute import enumerate_request
from tests.engine.wh40k10e.factory import request, weapon
from tests.engine.wh40k10e.test_exact import small_request
from tests.engine.wh40k10e.test_exact_line import line_request
from tests.engine.wh40k10e.test_exact_pruned import mixed_request

F = Fraction
POLICIES = ("none", "ones", "failed")
# one automatic S8 hit on T4 (wounds on 2+), damage 1, against 3+ saves
TORRENT = weapon(skill=None, strength=8, abilities=["Torrent"])


def _with_policy(raw: dict[str, Any], policy: str) -> dict[str, Any]:
    return {**raw, "situation": {**raw.get("situation", {}), "reroll_saves": policy}}


def test_fail_weights_by_hand() -> None:
    three_up = SaveChoice("armour", 3, 0)  # fails on 1, 2
    assert save_fail_weights(three_up, RerollPolicy.NONE) == (2, 6)
    # 1s re-rolled: fail on a 2 (6/36) or a 1 then a 1 or 2 (2/36)
    assert save_fail_weights(three_up, RerollPolicy.ONES) == (8, 36)
    # failures re-rolled: fail twice
    assert save_fail_weights(three_up, RerollPolicy.FAILED) == (4, 36)
    never = SaveChoice("armour", 7, -1)  # no face saves: the re-roll changes nothing
    assert save_fail_weights(never, RerollPolicy.FAILED) == (36, 36)
    assert not should_reroll_save(RerollPolicy.ONES, 2, False)
    assert should_reroll_save(RerollPolicy.ONES, 1, False)
    assert should_reroll_save(RerollPolicy.FAILED, 2, False)
    assert not should_reroll_save(RerollPolicy.FAILED, 5, True)
    assert not should_reroll_save(RerollPolicy.NONE, 1, False)


@pytest.mark.parametrize(
    ("policy", "unsaved"), [("none", F(2, 6)), ("ones", F(2, 9)), ("failed", F(1, 9))]
)
def test_exact_numbers(policy: str, unsaved: Fraction) -> None:
    req = request(TORRENT, target={"models": 5, "save": 3}, situation={"reroll_saves": policy})
    a = analyze(req)
    assert a.damage.mean() == F(5, 6) * unsaved
    assert a.stages["failed_saves"].mean() == F(5, 6) * unsaved


def test_the_invulnerable_save_is_re_rolled_too() -> None:
    # AP -3 on Sv 3+: the 4+ invulnerable is used; failed saves re-rolled: (1/2)^2
    req = request(
        weapon(skill=None, strength=8, ap=-3, abilities=["Torrent"]),
        target={"models": 5, "save": 3, "invulnerable_save": 4},
        situation={"reroll_saves": "failed"},
    )
    assert analyze(req).damage.mean() == F(5, 6) * F(1, 4)


def test_other_policies_are_refused() -> None:
    with pytest.raises(ProfileError, match="reroll_saves"):
        Situation(reroll_saves=RerollPolicy.NON_CRITICAL)
    with pytest.raises(ProfileError) as info:
        request(situation={"reroll_saves": "non_critical"})
    assert info.value.errors[0][0].endswith("reroll_saves")
    with pytest.raises(ProfileError):
        request(situation={"reroll_saves": "twice"})
    assert Situation().reroll_saves is RerollPolicy.NONE


@settings(max_examples=40, deadline=None)
@given(small_request(), st.sampled_from(POLICIES))
def test_exact_equals_plain_and_brute_force(raw: dict[str, Any], policy: str) -> None:
    req = request_from_dict(_with_policy(raw, policy))
    a, p, o = analyze(req), plain.analyze(req), enumerate_request(req)
    assert a.damage == p.damage
    assert a.stages == p.stages
    assert a.wipe_probability == p.wipe_probability
    assert dict(a.damage.items()) == o.damage
    assert dict(a.models_destroyed.items()) == o.models_destroyed


@settings(max_examples=30, deadline=None)
@given(mixed_request(), st.sampled_from(POLICIES))
def test_exact_equals_plain_on_mixed_units(raw: dict[str, Any], policy: str) -> None:
    req = request_from_dict(_with_policy(raw, policy))
    new, old = analyze(req), plain.analyze(req)
    assert new.damage == old.damage
    assert new.models_destroyed == old.models_destroyed
    assert new.stages == old.stages
    assert new.extra == old.extra


@settings(max_examples=30, deadline=None)
@given(line_request(), st.sampled_from(POLICIES))
def test_exact_equals_plain_on_lines(raw: dict[str, Any], policy: str) -> None:
    req = request_from_dict(_with_policy(raw, policy))
    assert exact._LineChain.applies(Layout(req.target))
    new, old = analyze(req), plain.analyze(req)
    assert new.damage == old.damage
    assert new.models_destroyed == old.models_destroyed
    assert new.wipe_probability == old.wipe_probability


def _saves(policy: str, dice: list[int]) -> tuple[list[tuple[Any, ...]], int]:
    req = request(TORRENT, target={"models": 5, "save": 3}, situation={"reroll_saves": policy})
    res = resolve(req, Roller.from_values(dice))
    rows = [(d.stage, d.value, d.original, d.outcome) for d in res.dice]
    return rows, res.totals["failed_saves"]


def test_live_re_rolls_a_one_and_keeps_it_as_original() -> None:
    # wound roll 6, save 1 re-rolled into 4: saved
    assert _saves("ones", [6, 1, 4]) == (
        [("wound", 6, None, "critical wound"), ("save", 4, 1, "saved")],
        0,
    )
    # the same 1 without the re-roll fails; a 2 is not re-rolled by Scatter field
    assert _saves("none", [6, 1]) == (
        [("wound", 6, None, "critical wound"), ("save", 1, None, "failed")],
        1,
    )
    assert _saves("ones", [6, 2]) == (
        [("wound", 6, None, "critical wound"), ("save", 2, None, "failed")],
        1,
    )
    # a re-rolled 1 that fails again stays failed (re-rolled once only)
    assert _saves("ones", [6, 1, 1]) == (
        [("wound", 6, None, "critical wound"), ("save", 1, 1, "failed")],
        1,
    )


def test_live_re_rolls_a_failed_save() -> None:
    assert _saves("failed", [6, 2, 5]) == (
        [("wound", 6, None, "critical wound"), ("save", 5, 2, "saved")],
        0,
    )
    # a success is kept
    assert _saves("failed", [6, 3]) == (
        [("wound", 6, None, "critical wound"), ("save", 3, None, "saved")],
        0,
    )


def test_live_seeded_same_dice_every_time() -> None:
    req = request(
        weapon(attacks="D6", strength=8, damage="D3"),
        models=5,
        target={"models": 10, "save": 4, "wounds": 2},
        situation={"reroll_saves": "failed"},
    )
    first = resolve(req, Roller(1234))
    assert first == resolve(req, Roller(1234))
    assert any(d.stage == "save" and d.rerolled for d in first.dice)
    # every re-rolled save was a failure first
    for d in first.dice:
        if d.stage == "save" and d.rerolled:
            assert d.original is not None
            assert d.original < 4


@pytest.mark.parametrize("policy", ["ones", "failed"])
def test_seeded_live_rolls_agree_with_the_exact_mean(policy: str) -> None:
    req = request(
        TORRENT, models=10, target={"models": 10, "save": 3}, situation={"reroll_saves": policy}
    )
    exact_mean = float(analyze(req).stages["failed_saves"].mean())
    n = 2000
    total = sum(resolve(req, Roller(seed)).totals["failed_saves"] for seed in range(n))
    # 10 wounds to save at most, variance below 2.5: the mean of 2000 within 0.1 (> 5 sd)
    assert abs(total / n - exact_mean) < 0.1
    none = request(TORRENT, models=10, target={"models": 10, "save": 3})
    assert exact_mean < float(analyze(none).stages["failed_saves"].mean()) - 0.5
