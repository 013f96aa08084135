"""Fixtures for 10th-edition battle tests (helpers in ``table.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from app.engine.match.missions import Mission
from tests.engine.wh40k10e.battle.table import Table, make_table, only_war_mission, play_setup


@pytest.fixture(scope="session")
def only_war() -> Mission:
    return only_war_mission()


@pytest.fixture
def new_table(only_war: Mission) -> Callable[..., Table]:
    def make(mission: Mission | None = None, **kwargs: Any) -> Table:
        return make_table(mission or only_war, **kwargs)

    return make


@pytest.fixture
def setup_battle() -> Callable[..., None]:
    return play_setup
