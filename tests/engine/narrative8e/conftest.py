from __future__ import annotations

import pytest

from app.engine.narrative8e.pack import MissionPack, load_packs


@pytest.fixture(scope="session")
def pack() -> MissionPack:
    return load_packs()["narrative-8e"]
