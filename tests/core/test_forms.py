"""The one reading of a posted checkbox every page uses (app.core.forms)."""

from __future__ import annotations

import io

import pytest
from starlette.datastructures import UploadFile

from app.core.forms import checked


@pytest.mark.parametrize("value", ["on", "true", "1", "ON", " True "])
def test_ticked(value: str) -> None:
    assert checked(value)


@pytest.mark.parametrize("value", ["", "off", "false", "0", "yes", None])
def test_not_ticked(value: str | None) -> None:
    assert not checked(value)


def test_a_file_posted_under_the_name_is_not_a_tick() -> None:
    assert not checked(UploadFile(io.BytesIO(b"on"), filename="on"))
