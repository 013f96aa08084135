"""The rule-system registry."""

from __future__ import annotations

import pytest

from app.engine import registry
from app.engine.errors import DuplicateRuleSystem, UnknownRuleSystem
from app.engine.registry import RuleSystem


def test_register_get_list_and_unregister() -> None:
    a = RuleSystem(id="zz-test-a", name="A", capabilities=("x",), order=900)
    b = RuleSystem(id="zz-test-b", name="B", order=899)
    try:
        registry.register(a)
        registry.register(b)
        registry.register(a)  # the same system again: fine
        assert registry.get("zz-test-a") is a
        ids = [s.id for s in registry.rule_systems()]
        assert ids.index("zz-test-b") < ids.index("zz-test-a")  # by order, then id
        assert a.has("x")
        assert not a.has("y")
        with pytest.raises(DuplicateRuleSystem):
            registry.register(RuleSystem(id="zz-test-a", name="other"))
        registry.register(RuleSystem(id="zz-test-a", name="other"), replace=True)
        assert registry.get("zz-test-a").name == "other"
    finally:
        registry.unregister("zz-test-a")
        registry.unregister("zz-test-b")
    with pytest.raises(UnknownRuleSystem):
        registry.get("zz-test-a")
