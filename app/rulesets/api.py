"""JSON API: the rule systems the engine registers."""

from __future__ import annotations

from fastapi import APIRouter

from app.engine import systems
from app.rulesets.schemas import RuleSystemOut

router = APIRouter(tags=["rulesets"])


@router.get("/rulesets", response_model=list[RuleSystemOut], summary="The rule systems")
def list_rulesets() -> list[RuleSystemOut]:
    return [
        RuleSystemOut(id=rs.id, name=rs.name, capabilities=list(rs.capabilities))
        for rs in systems.load_all()
    ]
