"""How results are shown: percentages that never lie at the edges, bar charts, extra sections."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.combat import present
from app.engine.distributions import Dist


@pytest.mark.parametrize(
    ("p", "en", "fr"),
    [
        (Fraction(0), "0%", "0\u00a0%"),
        (Fraction(1), "100%", "100\u00a0%"),
        (Fraction(1, 2), "50%", "50\u00a0%"),
        (Fraction(1, 36), "2.8%", "2,8\u00a0%"),
        (Fraction(1, 10**6), "<0.1%", "<0,1\u00a0%"),
        (1 - Fraction(1, 10**6), ">99.9%", ">99,9\u00a0%"),
    ],
)
def test_percent(p: Fraction, en: str, fr: str) -> None:
    assert present.percent(p, "en") == en
    assert present.percent(p, "fr").replace("\u202f", "\u00a0") == fr


def test_chart_bars_heights_and_labels() -> None:
    two_d6 = Dist.die(6).repeat(2)
    chart = present.chart(two_d6, "c", "Sum", lambda n: f"{n} pips", "en")
    assert [b.value for b in chart.bars] == list(range(2, 13))
    tallest = max(chart.bars, key=lambda b: b.height)
    assert tallest.value == 7
    assert tallest.height == present.PLOT
    assert chart.bars[0].at_least == "100%"
    assert chart.bars[-1].at_least == "2.8%"  # P(12) = 1/36
    assert chart.hidden_above is None
    assert len(chart.rows) == 11
    assert chart.width == 2 * present.PAD + 11 * (present.BAR + present.GAP) - present.GAP


def test_chart_hides_a_negligible_tail_but_the_table_keeps_it() -> None:
    many = Dist.bernoulli(Fraction(1, 6)).repeat(30)
    chart = present.chart(many, "c", "Hits", lambda n: f"{n} hits", "en")
    assert chart.hidden_above is not None
    assert chart.bars[-1].value == chart.hidden_above
    assert len(chart.rows) == 31
    assert all(b.at_least != "<0.1%" for b in chart.bars)


def test_extra_sections_render_generic_values() -> None:
    node = present.extra_node(
        {"groups": [{"name": "main", "p": Fraction(1, 4), "d": Dist.die(3), "ok": True}]}, "en"
    )
    assert node.kind == "map"
    ((_label, groups),) = node.items
    assert groups.kind == "list"
    entry = groups.items[0][1]
    values = dict(entry.items)
    assert values["Name"].text == "main"
    assert (values["P"].text, values["P"].exact) == ("25%", "1/4")
    assert values["D"].kind == "dist"
    assert values["D"].exact == "2"
    assert values["Ok"].text == "yes"


def test_an_expected_count_is_a_number_not_a_percentage() -> None:
    """PEN's melee block: "expected sweeping advance casualties" of 2/5 is 0.4 models."""
    node = present.extra_node(
        {"expected_sweep_casualties": Fraction(2, 5), "p_sweep": Fraction(2, 5)}, "en"
    )
    shown = {label: n.text for label, n in node.items}
    assert shown["Expected sweep casualties"] == "0.4"
    assert shown["P sweep"] == "40%"


def test_die_tones_are_from_the_attackers_side() -> None:
    assert present._tone("critical hit") == "good"
    assert present._tone("no wound") == "bad"
    assert present._tone("saved") == "bad"
    assert present._tone("wound lost") == "good"
    assert present._tone("passed") == ""
