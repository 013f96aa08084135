"""Import BattleScribe / BSData files (``.gst``, ``.cat``, ``.gstz``, ``.catz``) into catalogues.

Pure (no web, no database)::

    result = import_files([("Warhammer 40,000.gst", gst_bytes), ("Orks.cat", cat_file)])
    result.catalogues   # one Catalogue per non-library catalogue uploaded
    result.report       # every file read and every problem met (errors and warnings)

A file is its bytes or a seekable binary file (an upload spooled to disk), read in chunks.
A bound of :class:`ImportLimits` hit while reading (unzipped bytes or XML elements across all
the files, a file's size or nesting depth, an archive's members) stops the whole import at once
with a ``too-large`` error naming the limit: the trees read so far are dropped, nothing is built.

Rules text in the files (ability descriptions) is read in memory to find names and numbers
(Leader lists, transport capacity, invulnerable saves) and is never put in a catalogue.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from app.catalog.bsdata.assemble import build_catalogue
from app.catalog.bsdata.build import WorkLimitExceeded
from app.catalog.bsdata.files import (
    BSDataFileError,
    Budget,
    Document,
    ImportLimits,
    LimitExceeded,
    Source,
    read_document,
)
from app.catalog.bsdata.model import Workspace
from app.catalog.bsdata.report import (
    FileSummary,
    ImportIssue,
    ImportReport,
    IssueCode,
    IssueSeverity,
    Reporter,
)
from app.engine.errors import N_, Message
from app.engine.wh40k10e.army.catalog import Catalogue

__all__ = [
    "BSDataFileError",
    "FileSummary",
    "ImportIssue",
    "ImportLimits",
    "ImportReport",
    "ImportResult",
    "IssueCode",
    "IssueSeverity",
    "LimitExceeded",
    "Source",
    "import_files",
]


@dataclass(frozen=True, slots=True)
class ImportResult:
    catalogues: tuple[Catalogue, ...]
    report: ImportReport

    @property
    def ok(self) -> bool:
        """At least one catalogue was built and no error was met."""
        return bool(self.catalogues) and not self.report.errors


def import_files(
    files: Sequence[tuple[str, Source]], limits: ImportLimits | None = None
) -> ImportResult:
    """Import uploaded ``(filename, content)`` pairs: a game system and catalogues, zipped or
    not, in any order. Unreadable files are reported and skipped; the others are imported,
    unless a limit is hit (then nothing is)."""
    lim = limits or ImportLimits()
    reporter = Reporter()
    if len(files) > lim.max_files:
        reporter.error(
            IssueCode.TOO_MANY_FILES,
            Message(
                N_("%(count)s files uploaded; at most %(most)s per import"),
                {"count": len(files), "most": lim.max_files},
            ),
            count=len(files),
            limit="files",
            max=lim.max_files,
        )
        return ImportResult((), reporter.report(()))
    with _collector_paused():
        try:
            docs = _read_all(files, lim, reporter)
        except LimitExceeded as exc:
            reporter.error(
                IssueCode.TOO_LARGE,
                exc.template,
                file=exc.filename,
                limit=exc.limit,
                max=exc.maximum,
            )
            return ImportResult((), reporter.report(()))
        result = _build(docs, lim, reporter)
        # the trees go (by reference counting) before the collector resumes: its first
        # collection, which scans whatever was allocated during the pause, then scans the
        # catalogues only (a tenth of the import's time otherwise)
        del docs
    return result


_pause_lock = threading.Lock()
_pause_state = {"ended": 0.0, "length": 0.0}  # the last pause: when it ended, how long it was


@contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection during an import (it is resumed after, if it ran before).

    An import allocates some 200,000 XML elements and the objects built from them, nearly all
    alive until it ends and none of them garbage: each collection (every 700 allocations with
    CPython's defaults) scanned them all again for nothing, a third of the import's time
    (issue 17: 3.2 s of CPU for all of ../shared/data, 2.1 s without; 2.3 s with a server's
    thresholds, :mod:`app.core.runtime`). Memory is still freed by reference counting as it
    goes. The switch is process-wide, so it is rationed: one import at a time pauses the
    collector (an import that overlaps it runs with the collector as it is), and a pause starts
    only once the collector has run for a quarter of the time the last pause lasted, so that
    back-to-back imports on a busy server keep it on at least a fifth of the time (a file read
    between two imports, as the benchmark's alternation does, is gap enough). When a pause ends, the
    first allocation collects the youngest generation, which holds everything allocated
    during the pause: other threads' cycles made meanwhile are collected then."""
    now = time.monotonic()
    if not _pause_lock.acquire(blocking=False):
        yield
        return
    # judged with the lock held: a pause that ended as this import began has written its state
    if not gc.isenabled() or now - _pause_state["ended"] < _pause_state["length"] / 4:
        _pause_lock.release()
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        ended = time.monotonic()
        _pause_state["ended"], _pause_state["length"] = ended, ended - now
        _pause_lock.release()


def _read_all(
    files: Sequence[tuple[str, Source]], lim: ImportLimits, reporter: Reporter
) -> list[Document]:
    """Every readable document, within one budget for the whole import."""
    budget = Budget.of(lim)
    docs: list[Document] = []
    for filename, data in files:
        try:
            doc = read_document(filename, data, lim, budget)
        except LimitExceeded:
            raise
        except BSDataFileError as exc:
            reporter.error(IssueCode.FILE_UNREADABLE, exc.template, file=filename)
            continue
        if any(d.id == doc.id for d in docs):
            reporter.warning(
                IssueCode.DUPLICATE_FILE,
                Message(
                    N_("%(file)s: %(name)s was uploaded twice; the first copy is used"),
                    {"file": filename, "name": doc.name},
                ),
                file=filename,
            )
            continue
        docs.append(doc)
    return docs


def _build(docs: list[Document], lim: ImportLimits, reporter: Reporter) -> ImportResult:
    ws = Workspace(docs)
    gst = ws.game_system
    if gst is None and docs:
        reporter.warning(
            IssueCode.NO_GAME_SYSTEM,
            Message(
                N_(
                    "no game system (.gst) uploaded: shared rules, profiles and categories it "
                    "defines are missing"
                )
            ),
        )
    for d in docs:
        if d.kind == "catalogue" and gst is not None and d.game_system_id != gst.id:
            reporter.warning(
                IssueCode.GAME_SYSTEM_MISMATCH,
                Message(
                    N_("%(file)s is made for the game system %(id)s, not %(name)s"),
                    {"file": d.filename, "id": repr(d.game_system_id), "name": gst.name},
                ),
                file=d.filename,
            )

    catalogues: list[Catalogue] = []
    for d in docs:
        if d.kind != "catalogue" or d.library:
            continue
        try:
            built = build_catalogue(ws, d, reporter, lim)
        except WorkLimitExceeded:
            reporter.error(
                IssueCode.TOO_DEEP,
                Message(
                    N_("%(file)s: its entries link to each other too many times; not imported"),
                    {"file": d.filename},
                ),
                file=d.filename,
            )
            continue
        if built is not None:
            catalogues.append(built)
    if not catalogues:
        reporter.error(
            IssueCode.NO_CATALOGUE,
            Message(N_("no faction catalogue (a non-library .cat) could be imported")),
        )
    summaries = tuple(
        FileSummary(
            filename=d.filename,
            kind="library" if d.library else d.kind,
            id=d.id,
            name=d.name,
            revision=d.revision,
            bytes=d.size,
        )
        for d in docs
    )
    return ImportResult(tuple(catalogues), reporter.report(summaries))


# Re-exported for callers that only need the severity enum.
_ = IssueSeverity
