"""What the army builder offers a unit before the player picks anything.

The data hides some wargear choices by what the bearer is ("not for a Daemon Prince", "only
for a Psyker") or by the chosen Detachment; the importer keeps them as restrictions of the
datasheet (ruling D16) that the validator decides on the list. A builder that offered such a
choice would have it refused as soon as it is taken, so :func:`unavailable_choices` decides
those restrictions where the choices are offered: with the unit's own keywords (in the
roster's Detachment) and the Detachment chosen, which are known before any choice. A condition
that also reads what the unit takes or the rest of the army is not decided here (the choice is
offered; the validator decides it on the list), so nothing the validator would accept is ever
withheld.
"""

from __future__ import annotations

from app.engine.wh40k10e.army.catalog import (
    ConditionOp,
    CountOf,
    Datasheet,
    RosterCondition,
)
from app.engine.wh40k10e.army.names import name_key

__all__ = ["decided", "unavailable_choices"]

Tri = bool | None


def decided(when: RosterCondition, keywords: frozenset[str], detachment: str | None) -> Tri:
    """``when`` decided from the unit's keywords (``name_key`` forms) and the chosen
    Detachment (``None``: not chosen); ``None`` when it needs anything else (three-valued)."""
    if when.op is ConditionOp.COUNT:
        if when.of is CountOf.UNIT_KEYWORD:
            return when.compare.holds(int(name_key(when.name) in keywords), when.value)
        if when.of is CountOf.DETACHMENT and detachment is not None:
            hit = int(name_key(when.name) == name_key(detachment))
            return when.compare.holds(hit, when.value)
        return None
    parts = [decided(a, keywords, detachment) for a in when.args]
    if when.op is ConditionOp.ALL:
        if any(p is False for p in parts):
            return False
        return None if any(p is None for p in parts) else True
    if any(p is True for p in parts):
        return True
    return None if any(p is None for p in parts) else False


def unavailable_choices(sheet: Datasheet, detachment: str | None = None) -> frozenset[str]:
    """The choices (``name_key`` forms) the data certainly hides on a unit of ``sheet`` (the
    datasheet as it is in the roster's Detachment, so with the keywords the Detachment adds)
    whatever the unit takes: not to be offered."""
    out: set[str] = set()
    keywords: frozenset[str] | None = None
    for r in sheet.restrictions:
        if not (r.unavailable and r.entry and r.wargear):
            continue
        if keywords is None:
            keywords = frozenset(name_key(k) for k in sheet.all_keywords())
        if decided(r.when, keywords, detachment) is True:
            out.add(name_key(r.wargear))
    return frozenset(out)
