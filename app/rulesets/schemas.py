"""Schemas of the rule-system listing."""

from pydantic import BaseModel, Field


class RuleSystemOut(BaseModel):
    id: str
    name: str
    capabilities: list[str]
    turn_structures: list[str] = Field(
        default_factory=list,
        description="How a match of this system can play its turns (the match option "
        "turn_structure; the first is the default); empty when it has one way only",
    )
