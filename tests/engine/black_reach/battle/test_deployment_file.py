"""A deployment file (``data/black_reach/deployments/<scenario>.json``) is read like the other
data files: its top-level keys and each unit's are known ones, its ``note`` is a bounded text,
it names its scenario, and every problem is reported at once with where it is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.engine.black_reach.battle.setup import DEPLOYMENT_FORMAT, Deploy, load_deployment
from app.engine.black_reach.board import MAX_NOTE
from app.engine.errors import ProfileError


def write(tmp_path: Path, data: Any, name: str = "demo") -> Path:
    (tmp_path / f"{name}.json").write_text(json.dumps(data))
    return tmp_path


def good(**extra: Any) -> dict[str, Any]:
    return {
        "format": DEPLOYMENT_FORMAT,
        "sample": True,
        "note": "made up",
        "scenario": "demo",
        "units": [
            {"unit": "a:tiles[0]/0:x", "x": 1, "y": 2, "facing": "S"},
            {"unit": "b", "x": 0, "y": 0},
        ],
    } | extra


def problems(tmp_path: Path, data: Any) -> str:
    with pytest.raises(ProfileError) as info:
        load_deployment("demo", write(tmp_path, data))
    return str(info.value)


def test_a_good_deployment_reads() -> None:
    assert load_deployment("sample-relay")  # the shipped one


def test_a_good_file_gives_its_counters(tmp_path: Path) -> None:
    assert load_deployment("demo", write(tmp_path, good())) == (
        Deploy("a:tiles[0]/0:x", 1, 2, "S"),
        Deploy("b", 0, 0, "N"),
    )


def test_unknown_keys_are_refused_with_their_path(tmp_path: Path) -> None:
    data = good(turns=3)
    data["units"][0]["face"] = "reduced"
    text = problems(tmp_path, data)
    assert "demo.json.turns" in text
    assert "demo.json.units[0].face" in text


@pytest.mark.parametrize("note", [3, "x" * (MAX_NOTE + 1)])
def test_the_note_is_a_bounded_text(tmp_path: Path, note: Any) -> None:
    assert "note" in problems(tmp_path, good(note=note))


def test_every_problem_at_once(tmp_path: Path) -> None:
    data = good(scenario="another", format="v0", sample="yes")
    data["units"] = [{"unit": "", "x": -1, "y": 999, "facing": "UP"}, 7]
    text = problems(tmp_path, data)
    for where in ("scenario", "format", "sample", "units[0].unit", "units[0].x", "units[0].y"):
        assert where in text, where
    assert "units[0].facing" in text
    assert "units[1]" in text


def test_not_an_object_nor_a_list_of_units(tmp_path: Path) -> None:
    assert "an object" in problems(tmp_path, [1, 2])
    assert "units" in problems(tmp_path, good(units={"a": 1}))
