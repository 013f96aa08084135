"""JSON API: exact analysis and live resolution of attacks, for every rule system.

``POST /rulesets/{ruleset}/combat/analyze`` and ``.../combat/resolve``. One concrete route pair
is generated per registered rule system that has a request model in
:mod:`app.combat.rulesets`, so that OpenAPI documents each body; a generic route pair behind
them answers the rest (404 problems for an unknown system or one without combat, and the
engine's own validation for a system that has no request model here).

The endpoints are sync: the exact analysis is CPU-bound and runs in FastAPI's thread pool.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, status
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel

from app.accounts.deps import CurrentUser
from app.combat import profiles, service
from app.combat.models import CombatProfile
from app.combat.rulesets import CombatSpec, specs
from app.combat.schemas import (
    MAX_RESOLVE_DICE,
    MAX_SEED,
    AnalysisOut,
    ProfileIn,
    ProfileOut,
    ResolutionOut,
)
from app.core.db import as_aware
from app.core.deps import DbSession
from app.core.errors import PROBLEM_JSON
from app.core.fastjson import FastJSONResponse

router = APIRouter(tags=["combat"])

_PROBLEM: dict[str, Any] = {"content": {PROBLEM_JSON: {}}}
_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"description": "Unknown rule system, or one without combat.", **_PROBLEM},
    422: {
        "description": "Invalid request: `errors` names each bad field (`field`, `message`, "
        "`type`, and `suggestion` for a misspelt ability).",
        **_PROBLEM,
    },
}


def _limits_text(spec: CombatSpec) -> str:
    lines = "\n".join(f"- {name}: at most {value}" for name, value in spec.limits.items())
    note = f"\n\n{spec.limits_note}" if spec.limits_note else ""
    return (
        f"\n\n**Size limits** (beyond them: a 422 naming the field; within them every request "
        f"is answered in well under a second):\n\n{lines}{note}\n\nSee docs/api-combat.md."
    )


def _analyze(system_id: str, payload: dict[str, Any]) -> JSONResponse:
    analysis = service.analyze(system_id, payload)
    # orjson: the same bytes as the standard library's encoder, several times faster on the
    # megabytes of a heavy answer (issue 18: 15 ms -> 1.5 ms for 6.7 MB)
    return FastJSONResponse(service.analysis_json(system_id, analysis))


def _resolve(
    system_id: str, payload: dict[str, Any], seed: int | None, dice: list[int] | None
) -> JSONResponse:
    resolution = service.resolve(system_id, payload, seed=seed, dice=dice)
    return FastJSONResponse(service.resolution_json(system_id, resolution))


def _with_body(function: Callable[..., JSONResponse], model: type[BaseModel]) -> None:
    """Give ``function`` the signature ``(body: model)`` for FastAPI to validate and document."""
    function.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("body", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=model)]
    )


def _add_system_routes(spec: CombatSpec, name: str) -> None:
    system_id = spec.system_id
    slug = system_id.replace("-", "_")

    def analyze(body: BaseModel) -> JSONResponse:
        return _analyze(system_id, service.engine_payload(body))

    def resolve(body: BaseModel) -> JSONResponse:
        return _resolve(
            system_id,
            service.engine_payload(body),
            getattr(body, "seed", None),
            getattr(body, "dice", None),
        )

    _with_body(analyze, spec.request_model)
    _with_body(resolve, spec.resolve_model)
    limits = _limits_text(spec)
    router.add_api_route(
        f"/rulesets/{system_id}/combat/analyze",
        analyze,
        methods=["POST"],
        operation_id=f"combat_analyze_{slug}",
        summary=f"Exact analysis of an attack ({name})",
        description=(
            "Exact distributions of the wounds lost, the models destroyed, the probability "
            "that the target is wiped out, and the counts of each stage of the attack "
            "sequence. Exact numbers are reduced fractions as strings next to a float." + limits
        ),
        response_class=JSONResponse,
        responses={200: {"model": AnalysisOut}, **_ERRORS},
    )
    router.add_api_route(
        f"/rulesets/{system_id}/combat/resolve",
        resolve,
        methods=["POST"],
        operation_id=f"combat_resolve_{slug}",
        summary=f"One live resolution of an attack ({name})",
        description=(
            "The same attack rolled once with a seeded roller: every die (stage, value, "
            "re-roll, modifier, outcome), the totals, the steps and the target afterwards. "
            f"The same seed gives the same dice. `seed` is optional (0..{MAX_SEED}; the server "
            "picks one and returns it); `dice` (at most "
            f"{MAX_RESOLVE_DICE}) replays dice rolled by hand instead. A resolution rolls at "
            f"most {MAX_RESOLVE_DICE} dice." + limits
        ),
        response_class=JSONResponse,
        responses={200: {"model": ResolutionOut}, **_ERRORS},
    )


for _system in service.combat_systems():
    _spec = specs().get(_system.id)
    if _spec is not None:
        _add_system_routes(_spec, _system.name)


RulesetId = Annotated[str, Path(max_length=64, description="A rule-system id (GET /rulesets).")]
AnyBody = Annotated[dict[str, Any], Body()]


@router.post("/rulesets/{ruleset}/combat/analyze", include_in_schema=False)
def analyze_any(ruleset: RulesetId, body: AnyBody) -> JSONResponse:
    """Systems without a request model here: the engine validates the raw body."""
    service.combat_system(ruleset, "analyze_combat")
    return _analyze(ruleset, service.validate(ruleset, body))


@router.post("/rulesets/{ruleset}/combat/resolve", include_in_schema=False)
def resolve_any(ruleset: RulesetId, body: AnyBody) -> JSONResponse:
    service.combat_system(ruleset, "resolve_combat")
    payload = dict(body)
    seed = payload.pop("seed", None)
    dice = payload.pop("dice", None)
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED
    ):
        raise service.invalid(
            [service.field_error("seed", f"must be an integer 0..{MAX_SEED}", "seed")]
        )
    if dice is not None and (
        not isinstance(dice, list)
        or len(dice) > MAX_RESOLVE_DICE
        or not all(isinstance(d, int) and not isinstance(d, bool) for d in dice)
    ):
        raise service.invalid(
            [
                service.field_error(
                    "dice", f"must be a list of at most {MAX_RESOLVE_DICE} integers", "dice"
                )
            ]
        )
    return _resolve(ruleset, service.validate(ruleset, payload), seed, dice)


# -- saved profiles and recent matchups -------------------------------------------------------

ProfileId = Annotated[int, Path(ge=1, le=2**31 - 1)]
_OWNED: dict[int | str, dict[str, Any]] = {
    401: {"description": "Not authenticated", **_PROBLEM},
    404: {"description": "No such saved calculation of yours", **_PROBLEM},
}


def _profile_json(profile: CombatProfile) -> dict[str, Any]:
    return ProfileOut(
        id=profile.id,
        kind=profile.kind,
        ruleset=profile.ruleset,
        name=profile.name,
        query=profile.query,
        calculator_url=f"/calculator?{profile.query}",
        created_at=as_aware(profile.created_at),
        updated_at=as_aware(profile.updated_at),
    ).model_dump(mode="json")


@router.get(
    "/combat/profiles",
    response_model=list[ProfileOut],
    summary="Your saved attackers, targets and matchups",
    responses={401: _OWNED[401]},
)
def list_profiles(user: CurrentUser, db: DbSession) -> list[dict[str, Any]]:
    """By name. At most 50 per account (attackers, targets and matchups together)."""
    return [_profile_json(p) for p in profiles.saved(db, user)]


@router.post(
    "/combat/profiles",
    response_model=ProfileOut,
    status_code=status.HTTP_201_CREATED,
    summary="Save an attacker, a target or a matchup under a name",
    responses={
        401: _OWNED[401],
        409: {"description": "Already 50 saved profiles: delete one first", **_PROBLEM},
        422: {"description": "A name or query out of bounds, or no rule system", **_PROBLEM},
    },
)
def create_profile(
    data: Annotated[ProfileIn, Body()], user: CurrentUser, db: DbSession
) -> dict[str, Any]:
    """`query` is a calculator query (docs/api-combat.md); it is stored in the calculator's
    canonical form, keeping only what `kind` names."""
    return _profile_json(profiles.save(db, user, data.kind, data.name, data.query))


@router.get(
    "/combat/recent",
    response_model=list[ProfileOut],
    summary="Your recent matchups (kept automatically, newest first)",
    responses={401: _OWNED[401]},
)
def list_recent(user: CurrentUser, db: DbSession) -> list[dict[str, Any]]:
    """The last 10 calculations you made on the calculator page while logged in; a
    calculation changed within a minute of the newest replaces it."""
    return [_profile_json(p) for p in profiles.recent(db, user)]


@router.get(
    "/combat/profiles/{profile_id}",
    response_model=ProfileOut,
    summary="One of your saved profiles or recent matchups",
    responses=_OWNED,
)
def get_profile(profile_id: ProfileId, user: CurrentUser, db: DbSession) -> dict[str, Any]:
    return _profile_json(profiles.get(db, user, profile_id))


@router.delete(
    "/combat/profiles/{profile_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Delete one of your saved profiles or recent matchups",
    responses=_OWNED,
)
def delete_profile(profile_id: ProfileId, user: CurrentUser, db: DbSession) -> Response:
    profiles.delete_profile(db, user, profile_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
