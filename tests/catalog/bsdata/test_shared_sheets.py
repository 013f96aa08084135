"""A datasheet built for one catalogue is reused by another catalogue of the same import that
offers the same entry (a chapter offers its parent's datasheets, issue 17), only when its build
read no fact that differs there; the import is the same as building it again."""

from __future__ import annotations

import pytest

from app.catalog.bsdata import ImportLimits, ImportResult, IssueCode, import_files
from app.catalog.bsdata.build import Builder
from app.engine.wh40k10e.army import Catalogue
from tests.catalog import golden
from tests.catalog.bsdata.shared_sheet_files import FILES
from tests.catalog.golden import plain


def _unshared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Builder, "_replay", lambda self, trace: False)


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(catalogue, datasheet) of each datasheet built, not reused."""
    built: list[tuple[str, str]] = []
    real = Builder.datasheet

    def datasheet(self: Builder, root):  # type: ignore[no-untyped-def]
        built.append((self.primary.name, root.name))
        return real(self, root)

    monkeypatch.setattr(Builder, "datasheet", datasheet)
    return built


def _same(a: ImportResult, b: ImportResult) -> None:
    assert plain(a.catalogues) == plain(b.catalogues)
    assert a.report.as_dict() == b.report.as_dict()


def _by_name(result: ImportResult) -> dict[str, Catalogue]:
    return {c.name: c for c in result.catalogues}


@pytest.mark.parametrize("order", [(0, 1, 2), (0, 2, 1)])
def test_the_parent_datasheets_are_reused_unless_they_read_the_catalogue(
    monkeypatch: pytest.MonkeyPatch, order: tuple[int, int, int]
) -> None:
    files = [FILES[i] for i in order]
    with monkeypatch.context() as m:
        built = _counting(m)
        shared = import_files(files)
    first, second = ("Parent", "Child") if order[1] == 1 else ("Child", "Parent")
    parents = ["Scouts", "Captain", "Chosen", "Veterans"]
    # built once for the first catalogue; for the second, only Veterans (whose build reads
    # which catalogue is primary) are built again, and Chosen, hidden in Child, are built for
    # Parent
    offered = {"Parent": parents, "Child": ["Scouts", "Captain", "Veterans"]}
    assert sorted(n for c, n in built if c == first and n != "Child Hero") == sorted(offered[first])
    again = ["Veterans"] if second == "Child" else ["Chosen", "Veterans"]
    assert [n for c, n in built if c == second and n != "Child Hero"] == again
    cats = _by_name(shared)
    parent, child = cats["Parent"], cats["Child"]
    assert [s.name for s in parent.datasheets] == parents
    assert [s.name for s in child.datasheets] == ["Child Hero", "Scouts", "Captain", "Veterans"]
    assert parent.datasheet("Veterans").points[0].points == 50
    assert child.datasheet("Veterans").points[0].points == 60
    assert parent.datasheet("Scouts") == child.datasheet("Scouts")
    # what a reused build reports is reported for each catalogue, as a new build would
    assert len(shared.report.of(IssueCode.UNRESOLVED_LINK)) == 2
    assert len(shared.report.of(IssueCode.BAD_CHARACTERISTIC)) == 2
    (unmapped,) = shared.report.of(IssueCode.UNMAPPED_ABILITY)
    # the rifle (Scouts and Captain) is read once per catalogue
    assert unmapped.params["count"] == 2
    assert parent.datasheet("Captain").weapons == parent.datasheet("Scouts").weapons

    with monkeypatch.context() as m:
        _unshared(m)
        _same(shared, import_files(files))


def test_the_work_limits_stop_a_reused_build_where_they_stop_a_new_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    results: dict[int, ImportResult] = {}
    for most in range(140):
        results[most] = import_files(FILES, ImportLimits(max_steps=most))
    stopped = {r.report.as_dict().__repr__() for r in results.values()}
    assert len(stopped) > 3  # the limits cut the imports at many places
    with monkeypatch.context() as m:
        _unshared(m)
        for most, shared in results.items():
            _same(shared, import_files(FILES, ImportLimits(max_steps=most)))


def test_every_catalogue_of_the_shared_data_is_the_same_as_built_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if not golden.available("all-shared-data"):
        pytest.skip("../shared/data is not present")
    files = golden.SCENARIOS["all-shared-data"][1]()
    with monkeypatch.context() as m:
        built = _counting(m)
        shared = import_files(files)
    with monkeypatch.context() as m:
        alone_built = _counting(m)
        _unshared(m)
        alone = import_files(files)
    _same(shared, alone)
    # the chapters (Blood Angels, Dark Angels, Space Wolves) reuse most of the datasheets
    # of Space Marines
    assert len(alone_built) - len(built) > 600
