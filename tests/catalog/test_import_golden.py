"""The importer's output is pinned (issue 17): the catalogues and report built from fixed sets
of files have the digests recorded before the importer was optimised, so a speed-up cannot
change a single imported value. See :mod:`tests.catalog.golden` to regenerate after a
deliberate change of the output."""

from __future__ import annotations

import json

import pytest

from tests.catalog.golden import GOLDEN, SCENARIOS, available, digests, plain


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_import_output_is_unchanged(name: str) -> None:
    if not available(name):
        pytest.skip(f"the files of {name!r} are absent")
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))[name]
    found = digests(name)
    assert found["issues"] == expected["issues"]
    assert found["catalogues"] == expected["catalogues"]
    assert found["report"] == expected["report"]


def test_the_canonical_form_sees_every_field_and_ignores_hash_order() -> None:
    from app.catalog.bsdata import ImportLimits

    a = plain((frozenset({"b", "a"}), ImportLimits(max_files=3), 1.5, {"k": None}))
    assert a == [["a", "b"], plain(ImportLimits(max_files=3)), "1.5", {"k": None}]
    assert plain(ImportLimits(max_files=3)) != plain(ImportLimits(max_files=4))
    with pytest.raises(TypeError):
        plain(object())
