"""Form errors from pydantic: one message per field, by dotted path."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field, ValidationError

from app.web.forms import field_errors


class Inner(BaseModel):
    points: int = Field(ge=0)


class Form(BaseModel):
    name: str = Field(min_length=3, max_length=5)
    inner: Inner


def test_field_errors_keys_by_dotted_path_first_message_wins() -> None:
    with pytest.raises(ValidationError) as caught:
        Form.model_validate({"name": "x", "inner": {"points": -1}})
    errors = field_errors(caught.value)
    assert set(errors) == {"name", "inner.points"}
    assert "at least 3" in errors["name"]
    assert "greater than or equal to 0" in errors["inner.points"]
