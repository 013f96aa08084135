"""Pydantic schemas of clubs."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _clean(value: str) -> str:
    value = " ".join(value.split())
    if not value:
        raise ValueError("must not be blank")
    return value


class ClubCreate(Strict):
    name: str = Field(min_length=1, max_length=80)
    description: str = Field(default="", max_length=1000)
    is_public: bool = False

    _name = field_validator("name")(_clean)


class ClubUpdate(Strict):
    name: str | None = Field(default=None, min_length=1, max_length=80)
    description: str | None = Field(default=None, max_length=1000)
    is_public: bool | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, value: str | None) -> str | None:
        return None if value is None else _clean(value)


class ClubOut(BaseModel):
    id: int
    name: str
    description: str
    is_public: bool
    created_at: datetime
    your_role: str | None = Field(description="owner, admin, member, or null for a visitor")
    member_count: int


class MemberOut(BaseModel):
    user_id: int
    display_name: str
    role: str
    joined_at: datetime


class RoleChange(Strict):
    role: Literal["admin", "member", "owner"] = Field(
        description="'owner' transfers ownership: the current owner becomes an admin"
    )


class InviteCreate(Strict):
    expires_in_days: int | None = Field(default=14, ge=1, le=365)
    max_uses: int | None = Field(default=None, ge=1, le=1000)


class InviteOut(BaseModel):
    id: int
    created_at: datetime
    expires_at: datetime | None
    max_uses: int | None
    uses: int
    revoked_at: datetime | None


class InviteCreated(InviteOut):
    code: str = Field(description="The invitation code. Shown once: share it now.")
    url: str = Field(description="The page where an invited user joins")


class JoinRequest(Strict):
    code: str = Field(min_length=8, max_length=100)
