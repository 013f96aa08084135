"""The last weapon into a line of identical models stepped forward (issue 18):
:meth:`exact._LineChain._forward_summed` gives the same answer as Horner's scheme over the
packed ``(r, e)`` state (itself checked against the plain engine in ``test_exact_line``), on
random lines (one to three weapons: the earlier ones still go through Horner) and at the
issue's sizes, where the plain engine would take minutes."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from app.engine.combat import CombatAnalysis
from app.engine.wh40k10e import analyze, exact
from app.engine.wh40k10e.allocation import Layout
from app.engine.wh40k10e.profiles import request_from_dict
from tests.engine.wh40k10e.factory import weapon
from tests.engine.wh40k10e.test_exact_line import assert_same, line_request

ALL = ["Sustained Hits 1", "Lethal Hits", "Devastating Wounds"]


def horner_only(raw: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> CombatAnalysis:
    """The same request with every weapon through Horner's scheme (``last`` ignored)."""
    original = exact._LineChain.apply_weapon

    def horner(self: exact._LineChain, *args: Any, last: bool = False) -> None:
        original(self, *args)

    with monkeypatch.context() as m:
        m.setattr(exact._LineChain, "apply_weapon", horner)
        m.setattr(exact, "WORK_BUDGET", 10**15)
        return analyze(request_from_dict(raw))


def forward(raw: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> CombatAnalysis:
    """The request as :func:`analyze` answers it, checking that the forward pass ran."""
    calls: list[int] = []
    original = exact._LineChain._forward_summed

    def spy(self: exact._LineChain, *args: Any) -> None:
        calls.append(1)
        original(self, *args)

    with monkeypatch.context() as m:
        m.setattr(exact._LineChain, "_forward_summed", spy)
        m.setattr(exact, "WORK_BUDGET", 10**15)
        got = analyze(request_from_dict(raw))
    assert calls, "the last weapon did not go through the forward pass"
    return got


@settings(max_examples=80, deadline=None)
@given(line_request())
def test_forward_identical_to_horner_on_random_lines(raw: dict[str, Any]) -> None:
    assert exact._LineChain.applies(Layout(request_from_dict(raw).target))
    with pytest.MonkeyPatch.context() as mp:
        got = forward(raw, mp)
        assert_same(got, horner_only(raw, mp))


def _heavy(models: int, wounds: int, abilities: list[str], fnp: int | None = 5) -> Any:
    return {
        "attacks": [
            {
                "models": 30,
                "weapon": weapon(attacks="D6+3", abilities=abilities, damage="D6+1"),
            }
        ],
        "target": {
            "models": models,
            "toughness": 4,
            "save": 4,
            "wounds": wounds,
            "feel_no_pain": fnp,
        },
    }


@pytest.mark.parametrize(
    "raw",
    [
        _heavy(30, 3, ALL),
        _heavy(30, 6, ALL),
        _heavy(1, 30, ALL, fnp=6),
        _heavy(30, 2, ALL[:2], fnp=None),
        {  # two weapons: the first through Horner, its (r, e) state the forward pass's start
            "attacks": [
                {"models": 10, "weapon": weapon(attacks="D6+3", abilities=ALL, damage="D6+1")},
                {"models": 10, "weapon": weapon(attacks="2", damage="D3", ap=-1)},
            ],
            "target": {"models": 10, "toughness": 4, "save": 4, "wounds": 3, "feel_no_pain": 5},
        },
    ],
    ids=["30 x W3", "30 x W6", "one W30 model", "30 x W2 no DW", "two weapons"],
)
def test_forward_identical_to_horner_at_the_issue_s_sizes(
    raw: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert_same(forward(raw, monkeypatch), horner_only(raw, monkeypatch))
