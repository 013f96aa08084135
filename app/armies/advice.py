"""Better fixes than a rule alone can offer, found by trying them on the whole list.

Over the points limit, the engine suggests the cheapest unit that covers the excess. A player
is better served by the removal that also clears other errors: with four copies of a datasheet
(one over the Rule of Three) and 60 points too many, removing the fourth copy fixes both, where
removing an unrelated squad fixes one. :func:`refine` tries each removal that covers the excess
on the list itself and names the one that leaves the fewest errors (then the cheapest, then
the last of equal copies).
"""

from __future__ import annotations

import dataclasses

from app.engine.wh40k10e.army import (
    FIXES,
    Catalogue,
    Code,
    Roster,
    RosterUnit,
    Severity,
    ValidationResult,
    validate,
)

MAX_TRIALS = 60  # bound on the lists tried for one fix


def without(roster: Roster, index: int) -> Roster:
    """The roster with unit ``index`` removed (Leader attachments follow their new index)."""
    units: list[RosterUnit] = []
    for i, u in enumerate(roster.units):
        if i == index:
            continue
        target = u.attached_to
        if target == index:
            target = None
        elif target is not None and target > index:
            target -= 1
        units.append(dataclasses.replace(u, attached_to=target, wargear=dict(u.wargear)))
    return dataclasses.replace(roster, units=tuple(units))


def _errors(result: ValidationResult) -> int:
    return sum(1 for v in result.violations if v.severity == Severity.ERROR)


def refine(roster: Roster, catalogue: Catalogue, result: ValidationResult) -> ValidationResult:
    """``result`` with the points-over-limit fix naming the best unit to remove."""
    over_at = next(
        (i for i, v in enumerate(result.violations) if v.code == Code.POINTS_OVER_LIMIT), None
    )
    if over_at is None:
        return result
    violation = result.violations[over_at]
    over = result.points - result.points_limit
    fitting = [u for u in result.units if u.points >= over][:MAX_TRIALS]
    if not fitting:
        return result
    ranked = sorted(
        fitting,
        key=lambda u: (_errors(validate(without(roster, u.index), catalogue)), u.points, -u.index),
    )
    best = ranked[0]
    unit = roster.units[best.index]
    params = dict(violation.params)
    name = unit.label or unit.datasheet
    params["suggestion"] = f"{name} (#{best.index + 1}), {best.points} points"
    template = FIXES.get(violation.fix_id)
    fix = template.format(**params) if template else violation.fix
    better = dataclasses.replace(violation, params=params, fix=fix)
    violations = list(result.violations)
    violations[over_at] = better
    return dataclasses.replace(result, violations=tuple(violations))
