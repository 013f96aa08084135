"""Pydantic schemas of the Black Reach content API (/api/v1/black-reach/content)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.blackreach.documents import MAX_SCENARIOS

MAX_SET_NAME = 120


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _clean(value: str) -> str:
    value = " ".join(value.split())
    if not value:
        raise ValueError("must not be blank")
    return value


class ContentCreate(Strict):
    """A new set: a name, and optionally its documents (each empty when left out)."""

    name: str = Field(min_length=1, max_length=MAX_SET_NAME)
    forces: dict[str, Any] | None = None
    boards: dict[str, Any] | None = None
    scenarios: list[dict[str, Any]] | None = Field(default=None, max_length=MAX_SCENARIOS)

    _name = field_validator("name")(_clean)


class ContentUpdate(Strict):
    """Changes to a set, naming the ``version`` they were made on (409 when it is stale). A
    document left out is kept; one given replaces it whole and is checked with the others."""

    version: int = Field(ge=1, le=2**31 - 1)
    name: str | None = Field(default=None, min_length=1, max_length=MAX_SET_NAME)
    forces: dict[str, Any] | None = None
    boards: dict[str, Any] | None = None
    scenarios: list[dict[str, Any]] | None = Field(default=None, max_length=MAX_SCENARIOS)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str | None) -> str | None:
        return None if value is None else _clean(value)


class ContentCopy(Strict):
    name: str | None = Field(default=None, min_length=1, max_length=MAX_SET_NAME)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str | None) -> str | None:
        return None if value is None else _clean(value)


class ContentCounts(BaseModel):
    counters: int
    tiles: int
    options: int
    boards: int
    scenarios: int


class ContentSummaryOut(BaseModel):
    """A set in a list. The sample set has no ``id`` (its address is ``.../content/sample``)."""

    id: int | None
    name: str
    sample: bool
    version: int
    shared: bool
    copied_from: str | None
    counts: ContentCounts
    updated_at: datetime | None


class ContentOut(ContentSummaryOut):
    forces: dict[str, Any]
    boards: dict[str, Any]
    scenarios: list[dict[str, Any]]
    share_token: str | None = None
    read_only: bool


class ShareOut(BaseModel):
    token: str
    path: str
