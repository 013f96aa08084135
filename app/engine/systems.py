"""Import every rule-system package so that each registers itself in the registry.

Call :func:`load_all` (idempotent) before listing :func:`app.engine.registry.rule_systems`.
A package that does not exist yet (the project grows one system at a time) is skipped; an
error inside a package that exists is raised, never hidden.
"""

from __future__ import annotations

import importlib
import importlib.util

from app.engine.registry import RuleSystem, rule_systems

__all__ = ["SYSTEM_PACKAGES", "load_all"]

SYSTEM_PACKAGES: tuple[str, ...] = (
    "app.engine.wh40k10e",
    "app.engine.pen",
    "app.engine.dynamics",
    "app.engine.narrative8e",
    "app.engine.black_reach",
)


def load_all() -> list[RuleSystem]:
    """Import every existing system package; return the registered systems in order."""
    for name in SYSTEM_PACKAGES:
        if importlib.util.find_spec(name) is None:
            continue
        importlib.import_module(name)
    return rule_systems()
