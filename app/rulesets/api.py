"""JSON API: the rule systems the engine registers."""

from __future__ import annotations

from fastapi import APIRouter

from app.engine import systems
from app.engine.registry import RuleSystem
from app.rulesets.schemas import RuleSystemOut

router = APIRouter(tags=["rulesets"])


def turn_structures(rs: RuleSystem) -> list[str]:
    """The turn structures a system offers through its hook ``extras["turn_structures"]``."""
    hook = rs.extras.get("turn_structures")
    found = hook() if hook is not None else ()
    return [str(s) for s in found] if isinstance(found, tuple | list) else []


@router.get("/rulesets", response_model=list[RuleSystemOut], summary="The rule systems")
def list_rulesets() -> list[RuleSystemOut]:
    return [
        RuleSystemOut(
            id=rs.id,
            name=rs.name,
            capabilities=list(rs.capabilities),
            turn_structures=turn_structures(rs),
        )
        for rs in systems.load_all()
    ]
