"""Engine errors."""

from __future__ import annotations

import pytest

from app.engine.errors import EngineError, ProfileError, UnknownRuleSystem


def test_profile_error_is_an_engine_value_error() -> None:
    e = ProfileError("target.toughness", "must be 1..30")
    assert isinstance(e, EngineError)
    assert isinstance(e, ValueError)
    assert e.field == "target.toughness"
    assert e.errors == (("target.toughness", "must be 1..30"),)


def test_collect_and_prefix() -> None:
    e = ProfileError.collect([ProfileError("a", "x"), ProfileError("b", "y")])
    assert e.errors == (("a", "x"), ("b", "y"))
    assert e.field == "a"
    p = e.with_prefix("attacks[0]")
    assert p.errors == (("attacks[0].a", "x"), ("attacks[0].b", "y"))
    assert ProfileError("[1]", "z").with_prefix("groups").field == "groups[1]"
    with pytest.raises(ValueError):
        ProfileError.collect([])


def test_unknown_rule_system_lists_known() -> None:
    e = UnknownRuleSystem("nope", ["b", "a"])
    assert "known: a, b" in str(e)
    assert isinstance(e, LookupError)
