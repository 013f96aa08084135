"""What the combat feature knows of each rule system: its request model and calculator form.

One entry per rule-system id. The API generates one documented route pair per registered
system that has an entry here; the calculator page offers every system whose entry has a form.
A registered system without an entry still works through the generic routes (the engine
validates the raw body). Shared code looks systems up here by id, never by an ``if``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import BaseModel

from app.combat.rulesets import black_reach, pen, wh40k10e
from app.combat.schemas import resolve_model

if TYPE_CHECKING:
    from app.combat.forms import CalculatorForm

__all__ = ["CombatSpec", "spec_for", "specs"]


@dataclass(frozen=True, slots=True)
class CombatSpec:
    """The combat feature's view of one rule system."""

    system_id: str
    request_model: type[BaseModel]
    resolve_model: type[BaseModel]
    limits: Mapping[str, int] = field(default_factory=dict)
    limits_note: str = ""
    form: CalculatorForm | None = None


def _build() -> dict[str, CombatSpec]:
    from app.combat.forms.pen import PenForm
    from app.combat.forms.wh40k10e import Wh40k10eForm

    entries = (
        CombatSpec(
            wh40k10e.SYSTEM_ID,
            wh40k10e.Wh40k10eCombatRequest,
            resolve_model(wh40k10e.Wh40k10eCombatRequest),
            wh40k10e.LIMITS,
            wh40k10e.LIMITS_NOTE,
            Wh40k10eForm(),
        ),
        CombatSpec(
            pen.SYSTEM_ID,
            pen.PenCombatRequest,
            resolve_model(pen.PenCombatRequest),
            pen.LIMITS,
            pen.LIMITS_NOTE,
            PenForm(),
        ),
        CombatSpec(
            black_reach.SYSTEM_ID,
            black_reach.BlackReachCombatRequest,
            resolve_model(black_reach.BlackReachCombatRequest),
            black_reach.LIMITS,
            black_reach.LIMITS_NOTE,
        ),
    )
    return {e.system_id: e for e in entries}


_SPECS: dict[str, CombatSpec] | None = None


def specs() -> dict[str, CombatSpec]:
    global _SPECS
    if _SPECS is None:
        _SPECS = _build()
    return _SPECS


def spec_for(system_id: str) -> CombatSpec | None:
    return specs().get(system_id)
