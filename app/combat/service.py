"""Combat through any registered rule system: validation, exact analysis, live resolution.

Nothing here knows a rule system by name: a system is looked up in the engine registry and
used through its hooks; its request model (if it has one) comes from
:mod:`app.combat.rulesets`. Engine errors become :class:`InvalidCombatRequest` whose ``errors``
name each bad field in the same dotted form FastAPI uses (``attacks.0.weapon.skill``).
"""

from __future__ import annotations

import dataclasses
import re
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from app.combat.exceptions import (
    CombatNotOffered,
    InvalidCombatRequest,
    RuleSystemNotFound,
    TooManyDice,
)
from app.combat.rulesets import spec_for
from app.combat.schemas import MAX_RESOLVE_DICE, MAX_SEED
from app.core.i18n import gettext as _
from app.engine import registry, systems
from app.engine.combat import CombatAnalysis, CombatResolution, to_jsonable
from app.engine.errors import DiceExhausted, EngineError, Message, ProfileError, RollerError
from app.engine.registry import RuleSystem
from app.engine.roller import Roller

__all__ = [
    "BoundedRoller",
    "analysis_json",
    "analyze",
    "combat_system",
    "combat_systems",
    "field_error",
    "invalid",
    "new_seed",
    "path_parts",
    "resolution_json",
    "resolve",
    "validate",
]

_SUGGESTION = re.compile(r"did you mean '([^']+)'\?")
_PATH_PART = re.compile(r"[^.\[\]]+")


def combat_systems() -> list[RuleSystem]:
    """Every registered rule system that analyses and resolves attacks, in listing order."""
    return [
        s
        for s in systems.load_all()
        if s.analyze_combat is not None and s.resolve_combat is not None
    ]


def combat_system(system_id: str, hook: str = "analyze_combat") -> RuleSystem:
    """The rule system ``system_id``; 404 problems when it is unknown or lacks ``hook``
    (``"analyze_combat"`` or ``"resolve_combat"``)."""
    systems.load_all()
    try:
        system = registry.get(system_id)
    except LookupError:
        known = ", ".join(s.id for s in systems.load_all())
        raise RuleSystemNotFound(
            _("No rule system is registered as “%(id)s” (known: %(known)s).")
            % {"id": system_id, "known": known or "-"}
        ) from None
    if getattr(system, hook, None) is None:
        raise CombatNotOffered(
            _(
                "The rule system “%(name)s” has no combat capability: it neither analyses nor "
                "resolves attacks."
            )
            % {"name": system.name}
        )
    return system


# -- errors ---------------------------------------------------------------------------------


def path_parts(path: str) -> list[str]:
    """``"attacks[0].weapon.skill"`` -> ``["attacks", "0", "weapon", "skill"]``."""
    return _PATH_PART.findall(path)


def field_error(path: str, message: str, kind: str) -> dict[str, Any]:
    """One entry of a problem's ``errors``: ``field`` (dotted, as FastAPI names fields),
    ``loc``, ``message``, ``type``, and ``suggestion`` when the message offers one."""
    parts = path_parts(path)
    entry: dict[str, Any] = {
        "field": ".".join(parts) or None,
        "loc": ["body", *parts],
        "message": message,
        "type": kind,
    }
    match = _SUGGESTION.search(message)
    if match:
        entry["suggestion"] = match.group(1)
    return entry


def profile_errors(exc: ProfileError) -> list[dict[str, Any]]:
    """Every problem of a ProfileError, one entry per field."""
    return [field_error(field, message, "invalid_profile") for field, message in exc.errors]


def validation_errors(exc: ValidationError) -> list[dict[str, Any]]:
    """Pydantic's errors in the same shape (no ``body`` prefix in ``field``)."""
    return _validation_errors(exc)[0]


def _validation_errors(
    exc: ValidationError,
) -> tuple[list[dict[str, Any]], list[Message | None]]:
    """Pydantic's errors (:func:`validation_errors`) and, for each, the engine's message a
    validator passed in its context (``template``, or the ``template`` of the engine error it
    raised), if any."""
    templates: list[Message | None] = []
    for err in exc.errors():
        ctx = err.get("ctx") or {}
        # a validator's PydanticCustomError carries it; an engine error raised as the
        # ValueError of a validator (a dice expression) is itself in the context
        template = ctx.get("template") or getattr(ctx.get("error"), "template", None)
        templates.append(template if isinstance(template, Message) else None)
    return _validation_entries(exc), templates


def _validation_entries(exc: ValidationError) -> list[dict[str, Any]]:
    out = []
    for err in exc.errors():
        entry = field_error(".".join(str(part) for part in err["loc"]), err["msg"], err["type"])
        ctx = {
            k: v
            for k, v in (err.get("ctx") or {}).items()
            if isinstance(v, str | int | float) and not isinstance(v, bool)
        }
        if ctx:
            entry["ctx"] = ctx
        out.append(entry)
    return out


def invalid(
    errors: list[dict[str, Any]], templates: Sequence[Message | None] = ()
) -> InvalidCombatRequest:
    """The 422 of ``errors``; ``templates`` (one per entry, when known) lets a page show each
    engine message in the reader's language, the problem document staying as it is."""
    detail = "; ".join(f"{e['field'] or 'body'}: {e['message']}" for e in errors[:10])
    refused = InvalidCombatRequest(detail, errors=errors)
    if len(templates) == len(errors):
        refused.templates = tuple(templates)
    return refused


def _engine_error(exc: EngineError, field: str = "") -> InvalidCombatRequest:
    if isinstance(exc, ProfileError):
        return invalid(profile_errors(exc), exc.templates)
    if isinstance(exc, TooManyDice):
        return invalid([field_error(field, str(exc), type(exc).__name__)], [exc.template])
    return invalid([field_error(field, str(exc), type(exc).__name__)])


# -- validation, analysis, resolution ---------------------------------------------------------


def validate(system_id: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """The request as the engine takes it: checked against the system's request model when it
    has one (raises InvalidCombatRequest), else passed as given for the engine to check."""
    spec = spec_for(system_id)
    if spec is None:
        return dict(payload)
    try:
        model = spec.request_model.model_validate(payload)
    except ValidationError as exc:
        raise invalid(*_validation_errors(exc)) from None
    return engine_payload(model)


def engine_payload(model: BaseModel) -> dict[str, Any]:
    """A validated request model as the plain dict the engine hook takes."""
    return model.model_dump(mode="json", exclude_unset=True, exclude={"seed", "dice"})


def analyze(system_id: str, request: Mapping[str, Any]) -> CombatAnalysis:
    """Exact analysis (CPU-bound: call it from a sync endpoint, i.e. the thread pool)."""
    system = combat_system(system_id)
    assert system.analyze_combat is not None
    try:
        return system.analyze_combat(request)
    except EngineError as exc:
        raise _engine_error(exc) from None


class BoundedRoller(Roller):
    """A :class:`Roller` that refuses to roll more than ``limit`` dice (re-rolls included), so
    that no request can make a worker roll (and answer with) an unbounded list of dice."""

    limit: int = MAX_RESOLVE_DICE
    _rolled: int = 0

    def _count(self) -> None:
        self._rolled += 1
        if self._rolled > self.limit:
            raise TooManyDice(self.limit)

    # every fresh die goes through roll() or reroll(); their arguments pass through untouched
    def roll(self, *args: Any, **kwargs: Any) -> int:
        self._count()
        return super().roll(*args, **kwargs)

    def reroll(self, *args: Any, **kwargs: Any) -> int:
        self._count()
        return super().reroll(*args, **kwargs)


def new_seed() -> int:
    """A fresh seed for a resolution asked without one (short enough to read aloud)."""
    return secrets.randbelow(min(MAX_SEED, 10**9))


def resolve(
    system_id: str,
    request: Mapping[str, Any],
    *,
    seed: int | None = None,
    dice: Sequence[int] | None = None,
) -> CombatResolution:
    """One live resolution, seeded (a fresh seed when ``seed`` is None) or with given dice."""
    system = combat_system(system_id, "resolve_combat")
    assert system.resolve_combat is not None
    if seed is not None and dice is not None:
        raise invalid(
            [field_error("dice", "give a seed or dice rolled by hand, not both", "seed_and_dice")]
        )
    roller = (
        BoundedRoller.from_values(dice)
        if dice is not None
        else BoundedRoller(new_seed() if seed is None else seed)
    )
    try:
        resolution = system.resolve_combat(request, roller)
    except TooManyDice as exc:
        raise _engine_error(exc) from None
    except (DiceExhausted, RollerError) as exc:
        raise _engine_error(exc, "dice" if dice is not None else "") from None
    except EngineError as exc:
        raise _engine_error(exc) from None
    if resolution.seed != roller.seed:  # the seed used is the roller's, whatever the hook says
        resolution = _with_seed(resolution, roller.seed)
    return resolution


def _with_seed(resolution: CombatResolution, seed: int | None) -> CombatResolution:
    return dataclasses.replace(resolution, seed=seed)


def analysis_json(system_id: str, analysis: CombatAnalysis) -> dict[str, Any]:
    body = to_jsonable(analysis)
    assert isinstance(body, dict)
    return {"ruleset": system_id, **body}


def resolution_json(system_id: str, resolution: CombatResolution) -> dict[str, Any]:
    body = to_jsonable(resolution)
    assert isinstance(body, dict)
    return {"ruleset": system_id, **body}
