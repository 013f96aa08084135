"""Schemas of the rule-system listing."""

from pydantic import BaseModel


class RuleSystemOut(BaseModel):
    id: str
    name: str
    capabilities: list[str]
