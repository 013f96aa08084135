"""Whether an entry is hidden, in a builder's own context, is decided once for the catalogues
of one import that its ``primary-catalogue`` conditions do not name (issue 17: a chapter's
catalogue asks for its parent's entries); the import is the same as deciding it again in each
catalogue, with and without the reuse of datasheets, at every work limit."""

from __future__ import annotations

from typing import Any

import pytest

from app.catalog.bsdata import ImportLimits, ImportResult, import_files
from app.catalog.bsdata.build import Builder
from app.catalog.bsdata.model import Workspace
from tests.catalog import golden
from tests.catalog.bsdata.shared_sheet_files import FILES as SHEET_FILES
from tests.catalog.golden import plain

# The parent's Scouts hidden outside an Army Roster force (decided alike in every catalogue),
# and its Long rifle hidden when a catalogue that is not uploaded is the primary one (naming
# neither catalogue); Chosen stay hidden in Child (decided in each catalogue).
_SCOUTS = b'<selectionEntry id="e-scouts" name="Scouts" type="unit">'
_RIFLE = b'<selectionEntry id="e-rifle" name="Long rifle" type="upgrade">'


def _hidden_when(condition: bytes) -> bytes:
    return (
        b'<modifiers><modifier type="set" value="true" field="hidden"><conditions>'
        + condition
        + b"</conditions></modifier></modifiers>"
    )


FILES = [
    (
        name,
        data.replace(
            _SCOUTS,
            _SCOUTS
            + _hidden_when(
                b'<condition type="notInstanceOf" value="1" field="selections" scope="force"'
                b' childId="f-army" shared="true"/>'
            ),
        ).replace(
            _RIFLE,
            _RIFLE
            + _hidden_when(
                b'<condition type="instanceOf" value="1" field="selections"'
                b' scope="primary-catalogue" childId="cat-x" shared="true"/>'
            ),
        ),
    )
    for name, data in SHEET_FILES
]


def _decided_per_catalogue(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each builder gets its own table: nothing decided is shared."""
    real = Workspace.memo

    def memo(self: Workspace, name: str) -> dict[Any, Any]:
        return {} if name == "shared-hidden" else real(self, name)

    monkeypatch.setattr(Workspace, "memo", memo)


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The primary catalogue of each modifier list decided in the builder's own context
    (hidden() asks for those it does not take from another catalogue, info() for others)."""
    made: list[str] = []
    real = Builder._hidden_elem

    def hidden_elem(self: Builder, elems, self_ids, ctx=None):  # type: ignore[no-untyped-def]
        if ctx is None:
            made.append(self.primary.name)
        return real(self, elems, self_ids, ctx)

    monkeypatch.setattr(Builder, "_hidden_elem", hidden_elem)
    return made


def _same(a: ImportResult, b: ImportResult) -> None:
    assert plain(a.catalogues) == plain(b.catalogues)
    assert a.report.as_dict() == b.report.as_dict()


def _no_datasheet_reuse(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Builder, "_replay", lambda self, trace: False)


def test_a_decision_naming_no_catalogue_is_made_once(monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as m:
        _no_datasheet_reuse(m)
        shared_made = _counting(m)
        shared = import_files(FILES)
    with monkeypatch.context() as m:
        _no_datasheet_reuse(m)
        _decided_per_catalogue(m)
        alone_made = _counting(m)
        alone = import_files(FILES)
    _same(shared, alone)
    assert FILES != SHEET_FILES
    # Scouts and their rifle are decided by the first catalogue only; Chosen, whose
    # visibility names Child, in each
    # Child takes the Parent's answers for Scouts and their rifle as reached in Scouts and
    # through Captain's link (three entries as reached); Chosen, whose visibility names
    # Child, are decided in each catalogue, as are the entries' other modifiers (info())
    assert shared_made.count("Parent") == alone_made.count("Parent")
    assert alone_made.count("Child") - shared_made.count("Child") == 3


@pytest.mark.parametrize("reuse", [True, False])
def test_every_work_limit_stops_the_import_where_it_stopped(
    monkeypatch: pytest.MonkeyPatch, reuse: bool
) -> None:
    with monkeypatch.context() as m:
        if not reuse:
            _no_datasheet_reuse(m)
        results = {most: import_files(FILES, ImportLimits(max_steps=most)) for most in range(140)}
    assert len({repr(r.report.as_dict()) for r in results.values()}) > 3
    with monkeypatch.context() as m:
        _decided_per_catalogue(m)
        if not reuse:
            _no_datasheet_reuse(m)
        for most, shared in results.items():
            _same(shared, import_files(FILES, ImportLimits(max_steps=most)))


def test_all_of_the_shared_data_is_the_same_as_decided_per_catalogue(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if not golden.available("all-shared-data"):
        pytest.skip("../shared/data is not present")
    files = golden.SCENARIOS["all-shared-data"][1]()
    with monkeypatch.context() as m:
        made = _counting(m)
        shared = import_files(files)
    with monkeypatch.context() as m:
        _decided_per_catalogue(m)
        _no_datasheet_reuse(m)
        alone_made = _counting(m)
        alone = import_files(files)
    _same(shared, alone)
    assert len(made) < len(alone_made)
