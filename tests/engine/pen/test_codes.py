"""Roll codes of the PEN tables: parsing and exact probabilities (note §5.1, [L1326], [L1390])."""

from fractions import Fraction

import pytest

from app.engine.pen.codes import RollCode, p_at_least


@pytest.mark.parametrize(
    ("text", "code", "probability"),
    [
        ("6", RollCode(6), Fraction(1, 6)),  # [L1300]
        ("5+", RollCode(5), Fraction(1, 3)),  # [L1301]
        ("4+", RollCode(4), Fraction(1, 2)),  # [L1302]
        ("3+", RollCode(3), Fraction(2, 3)),  # [L1303]
        ("2+", RollCode(2), Fraction(5, 6)),  # [L1304]
        ("2+ re", RollCode(2, 2), Fraction(35, 36)),  # [L1305], [L1326]
        ("6/4+", RollCode(6, None, 4), Fraction(1, 12)),  # [L1378], [L1390]
        ("2+ re 4+", RollCode(2, 4), Fraction(5, 6) + Fraction(1, 6) * Fraction(1, 2)),  # [L1412]
    ],
)
def test_parse_print_and_probability(text: str, code: RollCode, probability: Fraction) -> None:
    assert RollCode.parse(text) == code
    assert str(code) == text
    assert code.probability() == probability


@pytest.mark.parametrize("bad", ["", "1+", "7+", "re", "2+ again", "6/", "x"])
def test_parse_rejects_non_codes(bad: str) -> None:
    with pytest.raises(ValueError, match="roll code"):
        RollCode.parse(bad)


def test_target_out_of_range_rejected() -> None:
    with pytest.raises(ValueError, match=r"2\.\.6"):
        RollCode(1)
    with pytest.raises(ValueError, match=r"2\.\.6"):
        p_at_least(7)


def test_with_reroll_adds_a_reroll_once() -> None:
    assert RollCode(4).with_reroll() == RollCode(4, 4)
    assert RollCode(4).with_reroll().probability() == Fraction(3, 4)
    assert RollCode(2, 2).with_reroll() == RollCode(2, 2)
