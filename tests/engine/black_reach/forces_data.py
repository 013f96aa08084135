"""The shipped sample forces file as a dict to mutate, and the problems its reader reports."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.engine.black_reach.board import DATA_DIR
from app.engine.black_reach.loaders import catalogue_from_dict
from app.engine.errors import ProfileError


def raw_forces() -> dict[str, Any]:
    data = json.loads((DATA_DIR / "forces.json").read_text())
    assert isinstance(data, dict)
    return data


def problems(raw: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(ProfileError) as err:
        catalogue_from_dict(raw)
    return dict(err.value.errors)
