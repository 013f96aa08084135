"""Every rule-system package registers itself."""

from __future__ import annotations

from app.engine import registry, systems


def test_load_all_registers_wh40k10e() -> None:
    loaded = systems.load_all()
    assert loaded == registry.rule_systems()
    s = registry.get("wh40k-10e")
    assert s.name == "Warhammer 40,000 — 10th edition core rules"
    assert {"combat.analyze", "combat.resolve", "rolls"} <= set(s.capabilities)
    assert s.analyze_combat is not None
    assert s.resolve_combat is not None
    assert systems.load_all() == loaded  # idempotent
