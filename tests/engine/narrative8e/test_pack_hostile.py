"""A pack nested past the JSON parser's stack is a refused pack, never an unhandled
``RecursionError``: uploads (``POST /api/v1/matches/mission-packs``) answer 422 and a packs
directory holding such a file still lets the app start, the file listed as refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.engine.narrative8e.match import list_match_missions, read_pack
from app.engine.narrative8e.pack import PACKS_DIR, PackError, load_pack

DEEP = "[" * 100_000


def test_a_pack_nested_too_deeply_is_refused_as_not_json() -> None:
    for data in (DEEP, DEEP.encode()):
        with pytest.raises(PackError) as raised:
            load_pack(data)
        assert raised.value.errors == (("", "not JSON: nested too deeply"),)
        with pytest.raises(PackError):
            read_pack(data)


def test_a_directory_with_a_pack_nested_too_deeply_lists_it_as_refused(tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text(DEEP, encoding="utf-8")
    listing = list_match_missions((PACKS_DIR, tmp_path))
    assert [(r.path.name, r.errors) for r in listing.refused] == [
        ("deep.json", (("", "not JSON: nested too deeply"),))
    ]
    assert "meat-grinder" in listing.missions
