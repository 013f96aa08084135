"""Schemas shared by every rule system: the answers of the combat API and the resolve fields.

Each rule system's *request* model lives in ``app.combat.rulesets.<system>``; this module holds
what is common: the response shapes (exactly what :func:`app.engine.combat.to_jsonable` gives,
plus ``ruleset``), the dice-expression field type, and :func:`resolve_model`, which adds
``seed`` and ``dice`` to any request model.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, create_model

from app.engine.dice import MAX_TEXT, DiceExpr
from app.engine.errors import DiceExpressionError

MAX_SEED = 2**53 - 1  # a seed every JSON client can hold exactly (an IEEE double's integers)
MAX_RESOLVE_DICE = 5000  # dice one live resolution may roll, and hand-given dice accepted


def _dice_text(value: str | int) -> str:
    """A dice expression checked by the engine's own parser, returned in its canonical form.

    The engine's error is a ``ValueError``: pydantic writes ``"Value error, " + str(error)``
    (the API's English message) and keeps the error in its context, whose ``template`` the
    page shows in the reader's language (service.validation_errors)."""
    try:
        return str(DiceExpr.parse(value))
    except DiceExpressionError as exc:
        raise exc from None


DiceText = Annotated[
    str | Annotated[int, Field(ge=0, le=100)],
    Field(
        description=(
            "A number or a dice expression: `2`, `D3`, `D6`, `2D6`, `D6+1`, `D3+3`... "
            f"(D3 or D6 only, at most 10 dice, added constant at most 100, {MAX_TEXT} characters)."
        ),
        examples=["D6+1"],
    ),
    AfterValidator(_dice_text),
]


class StrictRequest(BaseModel):
    """Base of every request model: unknown fields are refused, types are not coerced."""

    model_config = ConfigDict(extra="forbid", strict=True)


def resolve_model(model: type[BaseModel]) -> type[BaseModel]:
    """``model`` plus the optional ``seed`` and ``dice`` fields of a live resolution."""
    return create_model(
        model.__name__.removesuffix("Request") + "ResolveRequest",
        __base__=model,
        __doc__=(model.__doc__ or "").strip()
        + "\n\nPlus `seed` (the server picks one when absent and returns it) or `dice` "
        "(dice rolled by hand, used in order).",
        seed=(
            int | None,
            Field(
                default=None,
                ge=0,
                le=MAX_SEED,
                description="Seed of the roller: the same seed gives the same dice. "
                "Absent: the server picks one and returns it.",
            ),
        ),
        dice=(
            list[Annotated[int, Field(ge=1, le=6)]] | None,
            Field(
                default=None,
                max_length=MAX_RESOLVE_DICE,
                description="Dice rolled by hand (1..6; a D3 is given as 1..3), used in the "
                "order the rules roll them instead of a seeded roller. Not with `seed`.",
            ),
        ),
    )


# -- answers --------------------------------------------------------------------------------


class ExactOut(BaseModel):
    exact: str = Field(description='A reduced fraction "p/q", or "p" when q = 1.')
    approx: float


class DistRowOut(BaseModel):
    value: int
    exact: str
    approx: float
    at_least_exact: str = Field(description="P(at least `value`) as a reduced fraction.")
    at_least_approx: float


class DistOut(BaseModel):
    mean: ExactOut
    distribution: list[DistRowOut]


class OutcomeOut(BaseModel):
    outcome: str = Field(description="The outcome's name (e.g. `miss`, `step`, `coup_double`).")
    exact: str = Field(description='Its probability as a reduced fraction "p/q", or "p".')
    approx: float


class AnalysisOut(BaseModel):
    """Exact distributions of an attack request."""

    ruleset: str
    damage: DistOut = Field(description="Wounds actually lost by the target.")
    models_destroyed: DistOut
    wipe_probability: ExactOut
    stages: dict[str, DistOut] = Field(
        description="Counts per stage of the attack sequence (attacks, hits, wounds...)."
    )
    extra: dict[str, Any] = Field(
        description="Named sections a rule system adds (may be empty); distributions and "
        "fractions in it have the same shapes as above."
    )
    outcomes: list[OutcomeOut] | None = Field(
        default=None,
        description="Only from a rule system whose attack ends in one of a few named results "
        "(black-reach): each result with its exact probability, in the system's order.",
    )


class DieOut(BaseModel):
    index: int
    label: str = Field(description="What the die was rolled for (stage, weapon...).")
    sides: int
    value: int = Field(description="The unmodified value used (after any re-roll).")
    original: int | None = Field(description="The first value when the die was re-rolled.")
    rerolled: bool
    face: int | None = Field(description="The D6 face rolled for a D3 (D3 = ceil(D6/2)).")
    modifier: int
    modified: int
    outcome: str
    stage: str = Field(description="The step of the rules it was rolled for (hit, wound...).")


class ModelOut(BaseModel):
    group: str
    wounds: int
    wounds_remaining: int
    destroyed: bool
    keywords: list[str]


class TargetAfterOut(BaseModel):
    models: list[ModelOut]
    wounds_lost: int
    models_destroyed: int
    models_remaining: int
    wiped: bool


class StepOut(BaseModel):
    stage: str
    text: str
    dice: list[int] = Field(description="Indexes of the dice this step used.")


class ResolutionOut(BaseModel):
    """One live resolution: every die, the totals, the target afterwards."""

    ruleset: str
    seed: int | None = Field(description="The seed used (null when the dice were given).")
    dice: list[DieOut]
    totals: dict[str, int]
    target_after: TargetAfterOut
    steps: list[StepOut]
    extra: dict[str, Any]


# -- saved profiles and recent matchups --------------------------------------------------------


class ProfileIn(StrictRequest):
    """A calculation to keep under a name: the calculator's query (see docs/api-combat.md)."""

    name: str = Field(min_length=1, max_length=80, description="Your name for it.")
    kind: Literal["attacker", "target", "matchup"] = Field(
        description="What is kept: the attacker's fields only, the target's only, or the "
        "whole matchup (attacker, target and situation)."
    )
    query: str = Field(
        min_length=1,
        max_length=8000,
        description="A calculator query string or link (`/calculator?system=wh40k-10e&w0.…`); "
        "stored in the calculator's canonical form, keeping only the part `kind` names.",
        examples=["system=wh40k-10e&w0.models=5&w0.attacks=2&w0.skill=3%2B&w0.strength=4"],
    )


class ProfileOut(BaseModel):
    id: int
    kind: Literal["attacker", "target", "matchup", "recent"]
    ruleset: str
    name: str
    query: str = Field(description="The stored calculator query string.")
    calculator_url: str = Field(
        description="The calculator with this profile (an attacker or target alone fills "
        "that side and leaves the calculator's default for the rest)."
    )
    created_at: datetime
    updated_at: datetime
