"""Pydantic schemas of the accounts feature (JSON API and form validation)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, EmailStr, Field, field_validator

Language = Literal["en", "fr"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Registration(Strict):
    email: EmailStr = Field(max_length=254)
    display_name: str = Field(min_length=1, max_length=60)
    password: str = Field(min_length=10, max_length=256)
    preferred_language: Language = "en"

    @field_validator("display_name")
    @classmethod
    def _strip(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("must not be blank")
        return value

    @field_validator("email")
    @classmethod
    def _lower(cls, value: str) -> str:
        return value.lower()


class ProfileUpdate(Strict):
    display_name: str | None = Field(default=None, min_length=1, max_length=60)
    preferred_language: Language | None = None

    @field_validator("display_name")
    @classmethod
    def _strip(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = " ".join(value.split())
        if not value:
            raise ValueError("must not be blank")
        return value


class UserOut(BaseModel):
    id: int
    email: str
    display_name: str
    preferred_language: str
    created_at: datetime


TOKEN_DEFAULT_DAYS = 90
TOKEN_MAX_DAYS = 365


class TokenCreate(Strict):
    name: str = Field(min_length=1, max_length=60)
    expires_in_days: int = Field(
        default=TOKEN_DEFAULT_DAYS,
        ge=1,
        le=TOKEN_MAX_DAYS,
        description=f"Lifetime in days (default {TOKEN_DEFAULT_DAYS}, at most {TOKEN_MAX_DAYS}); "
        "every token expires. A token created with another token never outlives it: it expires "
        "at the earlier of the two dates (see `expires_at` in the answer).",
    )


class TokenOut(BaseModel):
    id: int
    name: str
    prefix: str
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None
    revoked_at: datetime | None


class TokenCreated(TokenOut):
    token: str = Field(description="The secret token. Shown once: store it now.")
