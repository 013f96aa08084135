"""Catalogue logic: storage, who may see what, the parsed-catalogue cache, import, browsing.

Flushes, never commits. Access rules: the starter catalogue (and any catalogue imported without
an owner from the command line) is readable by everyone; an imported catalogue is readable by
the user who imported it and, once they share it with a club they administer, by that club's
members. To anyone else it does not exist (404, so names do not leak).

Parsing a stored document into a :class:`Catalogue` costs tens of milliseconds, so parsed
catalogues are cached in memory, keyed by (row id, version, digest of the document): a new
version, or any change to the document, is a new key.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, false, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, undefer

from app.accounts.models import User
from app.catalog import hooks
from app.catalog.bsdata import ImportLimits, IssueCode, Source, import_files
from app.catalog.bsdata.report import ImportReport
from app.catalog.exceptions import (
    CatalogueInUse,
    CatalogueNotFound,
    DatasheetNotFound,
    FactionNotFound,
    ImportFailed,
    ImportTooLarge,
    NotTheCatalogueOwner,
    ShownIssues,
)
from app.catalog.models import CatalogueRecord
from app.clubs import service as clubs
from app.clubs.models import Membership
from app.core.ids import MAX_ID, parse_int
from app.engine.errors import N_, Message
from app.engine.wh40k10e.army import Catalogue, Datasheet, Detachment, name_key
from app.engine.wh40k10e.army.catalog import slug as make_slug

STARTER_SLUG = "starter-wh40k10e"
CACHE_SIZE = 32
MAX_SEARCH_RESULTS = 200
MAX_QUERY = 100


# -- the parsed-catalogue cache ----------------------------------------------------------------


class _Cache:
    """A small thread-safe LRU of parsed catalogues (endpoints run in a thread pool)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[tuple[int, str, str], Catalogue] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple[int, str, str]) -> Catalogue | None:
        with self._lock:
            found = self._items.get(key)
            if found is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return found

    def put(self, key: tuple[int, str, str], catalogue: Catalogue) -> None:
        with self._lock:
            self._items[key] = catalogue
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def drop(self, record_id: int) -> None:
        with self._lock:
            for key in [k for k in self._items if k[0] == record_id]:
                del self._items[key]

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


cache = _Cache(CACHE_SIZE)


def canonical(document: object) -> str:
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(document: object) -> str:
    return hashlib.sha256(canonical(document).encode()).hexdigest()


def parsed(db: Session, record: CatalogueRecord) -> Catalogue:
    """The record's catalogue, parsed once per (id, version, digest) and then cached."""
    key = (record.id, record.version, record.digest)
    found = cache.get(key)
    if found is not None:
        return found
    document = db.scalar(select(CatalogueRecord.document).where(CatalogueRecord.id == record.id))
    catalogue = Catalogue.from_dict(document)
    cache.put(key, catalogue)
    return catalogue


# -- who sees what ---------------------------------------------------------------------------


def club_ids(db: Session, user: User | None) -> list[int]:
    if user is None:
        return []
    return list(db.scalars(select(Membership.club_id).where(Membership.user_id == user.id)))


def _visible(user: User | None) -> ColumnElement[bool]:
    if user is None:
        return CatalogueRecord.owner_id.is_(None)
    clubs_of_user = select(Membership.club_id).where(Membership.user_id == user.id)
    return or_(
        CatalogueRecord.owner_id.is_(None),
        CatalogueRecord.owner_id == user.id,
        CatalogueRecord.club_id.in_(clubs_of_user),
    )


def visible(db: Session, user: User | None) -> list[CatalogueRecord]:
    """The catalogues this user may use: public ones first, then theirs and their clubs'."""
    rows = db.scalars(select(CatalogueRecord).where(_visible(user)))
    return sorted(
        rows,
        key=lambda r: (r.owner_id is not None, r.slug != STARTER_SLUG, r.name.casefold(), r.id),
    )


def _lookup(ref: str | int) -> ColumnElement[bool]:
    if isinstance(ref, str) and not ref.isdigit():
        return CatalogueRecord.slug == ref
    # an id, unless no row can have it (too big, or digits int() will not read, such as "²")
    number = ref if isinstance(ref, int) else parse_int(ref, 1)
    return CatalogueRecord.id == number if number and 1 <= number <= MAX_ID else false()


def resolve(db: Session, user: User | None, ref: str | int) -> CatalogueRecord:
    """The catalogue named by ``ref`` (its numeric id or its slug) if this user may use it."""
    record = db.scalar(select(CatalogueRecord).where(_lookup(ref), _visible(user)))
    if record is None:
        raise CatalogueNotFound(f"There is no catalogue {ref} you can use.")
    return record


def by_id(db: Session, record_id: int) -> CatalogueRecord | None:
    """A catalogue by id, without an access check (an army keeps using the catalogue it was
    built with even if its owner stops sharing it)."""
    return db.get(CatalogueRecord, record_id)


def starter(db: Session) -> CatalogueRecord:
    record = db.scalar(select(CatalogueRecord).where(CatalogueRecord.slug == STARTER_SLUG))
    if record is None:
        raise CatalogueNotFound(
            "The starter catalogue is not loaded: run `auspex seed` (it is idempotent)."
        )
    return record


def is_owner(record: CatalogueRecord, user: User | None) -> bool:
    return user is not None and record.owner_id == user.id


# -- storing ---------------------------------------------------------------------------------


def _free_slug(db: Session, base: str, *, exact_first: bool) -> str:
    base = make_slug(base)[:100].strip("-") or "catalogue"
    if (
        exact_first
        and db.scalar(select(CatalogueRecord.id).where(CatalogueRecord.slug == base)) is None
    ):
        return base
    while True:
        candidate = f"{base}-{secrets.token_hex(3)}"
        if db.scalar(select(CatalogueRecord.id).where(CatalogueRecord.slug == candidate)) is None:
            return candidate


def store(
    db: Session,
    catalogue: Catalogue,
    *,
    owner_id: int | None,
    report: dict[str, Any] | None = None,
    slug: str | None = None,
) -> tuple[CatalogueRecord, bool]:
    """Insert ``catalogue`` for ``owner_id``, or replace the document of the row that owner
    already has for the same catalogue (a new version). Returns (row, created).

    Two imports of one catalogue at the same time (Postgres): the second insert waits for the
    first to commit, then breaks the unique constraint; it is rolled back to its savepoint and
    stored again as a new version of the row the first one created."""
    try:
        with db.begin_nested():
            return _store(db, catalogue, owner_id=owner_id, report=report, slug=slug)
    except IntegrityError:
        pass  # a concurrent import committed this catalogue first: update its row
    return _store(db, catalogue, owner_id=owner_id, report=report, slug=slug)


def _store(
    db: Session,
    catalogue: Catalogue,
    *,
    owner_id: int | None,
    report: dict[str, Any] | None,
    slug: str | None,
) -> tuple[CatalogueRecord, bool]:
    document = catalogue.to_dict()
    doc_digest = digest(document)
    query = select(CatalogueRecord).where(CatalogueRecord.source_id == catalogue.id)
    if slug is not None:
        query = select(CatalogueRecord).where(CatalogueRecord.slug == slug)
    elif owner_id is None:
        query = query.where(CatalogueRecord.owner_id.is_(None))
    else:
        query = query.where(CatalogueRecord.owner_id == owner_id)
    record = db.scalar(query.options(undefer(CatalogueRecord.document)))
    created = record is None
    if record is None:
        record = CatalogueRecord(
            slug=slug or _free_slug(db, catalogue.id, exact_first=owner_id is None),
            source_id=catalogue.id,
            owner_id=owner_id,
        )
        db.add(record)
    elif record.digest == doc_digest:
        if report is not None:
            record.report = report
        db.flush()
        return record, False
    else:
        cache.drop(record.id)
    record.rule_system = catalogue.rule_system
    record.name = catalogue.name
    record.version = catalogue.version
    record.digest = doc_digest
    record.factions = list(catalogue.factions)
    record.datasheet_count = len(catalogue.datasheets)
    record.document = document
    if report is not None:
        record.report = report
    db.flush()
    cache.put((record.id, record.version, record.digest), catalogue)
    return record, created


@dataclass(frozen=True, slots=True)
class ImportOutcome:
    records: tuple[CatalogueRecord, ...]
    created: tuple[bool, ...]
    report: dict[str, Any]
    shown: ShownIssues = field(default_factory=ShownIssues)  # the messages as the reader reads


@dataclass(frozen=True, slots=True)
class ReadImport:
    """Uploaded files read and built into catalogues, ready to store (the trees are gone)."""

    catalogues: tuple[Catalogue, ...]
    report: dict[str, Any]
    shown: ShownIssues = field(default_factory=ShownIssues)  # the messages as the reader reads


def _shown(report: ImportReport) -> ShownIssues:
    return ShownIssues(
        errors=tuple(i.template for i in report.errors),
        warnings=tuple(i.template for i in report.warnings),
    )


def _import_errors(report: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for issue in report.get("errors", []):
        error = {
            "field": "files",
            "file": issue.get("file"),
            "code": issue.get("code"),
            "message": issue.get("message"),
            "type": "import_error",
        }
        params = issue.get("params") or {}
        if "limit" in params:
            error.update(limit=params["limit"], max=params.get("max"))
        out.append(error)
    return out


def read_import(
    files: Sequence[tuple[str, Source]], limits: ImportLimits | None = None
) -> ReadImport:
    """Read and build uploaded BattleScribe files. No database: run it before the request's
    write transaction, which then only stores the result (:func:`store_import`).

    A bound hit while reading refuses the import with :class:`ImportTooLarge` (413, its
    ``limit`` named); any other error in the report (an unreadable file, a catalogue that could
    not be built) with :class:`ImportFailed` (422), whose ``errors`` name each file. Warnings
    (unmapped weapon abilities, unresolved links...) are kept in the report.
    """
    if not files:
        nothing = N_("No file was uploaded: send a game system (.gst) and catalogues (.cat/.catz).")
        empty = ImportFailed(
            nothing,
            errors=[{"field": "files", "file": None, "message": "no file", "type": "missing"}],
        )
        empty.detail_template = Message(nothing)
        raise empty
    result = import_files(list(files), limits)
    refused: ImportFailed
    report = result.report.as_dict()
    shown = _shown(result.report)
    if result.report.errors:
        errors = _import_errors(report)
        first = next((e for e in errors if e["file"]), errors[0])
        at = errors.index(first)
        reason = shown.errors[at] or Message(first["message"])
        where = bool(first["file"]) and first["file"] not in first["message"]
        too_large = {IssueCode.TOO_LARGE.value, IssueCode.TOO_MANY_FILES.value}
        limit = next((e for e in errors if e["code"] in too_large), None)
        if limit is not None:
            refused = ImportTooLarge(
                limit["message"], errors=errors, report=report, limit=limit.get("limit")
            )
            refused.detail_template = shown.errors[errors.index(limit)]
        else:
            refused = ImportFailed(
                f"{first['file']}: {first['message']}" if where else first["message"],
                errors=errors,
                report=report,
            )
            refused.detail_template = (
                Message(N_("%(file)s: %(problem)s"), {"file": first["file"], "problem": reason})
                if where
                else reason
            )
        refused.shown = shown
        raise refused
    return ReadImport(result.catalogues, report, shown)


def store_import(db: Session, owner: User | None, read: ReadImport) -> ImportOutcome:
    """Store what :func:`read_import` built: one catalogue per faction catalogue."""
    owner_id = owner.id if owner is not None else None
    records: list[CatalogueRecord] = []
    created: list[bool] = []
    for catalogue in read.catalogues:
        record, new = store(db, catalogue, owner_id=owner_id, report=read.report)
        records.append(record)
        created.append(new)
    return ImportOutcome(tuple(records), tuple(created), read.report, read.shown)


def import_catalogues(
    db: Session,
    owner: User | None,
    files: Sequence[tuple[str, Source]],
    limits: ImportLimits | None = None,
) -> ImportOutcome:
    """:func:`read_import` then :func:`store_import`, in one go (for callers that hold no
    write lock yet, or do not mind holding it while the files are read)."""
    return store_import(db, owner, read_import(files, limits))


def share(db: Session, user: User, ref: str | int, club_id: int | None) -> CatalogueRecord:
    """Share the user's catalogue with a club they administer (``None``: stop sharing)."""
    record = resolve(db, user, ref)
    if not is_owner(record, user):
        raise NotTheCatalogueOwner("Only the user who imported a catalogue shares it.")
    if club_id is not None:
        clubs.require_admin(db, club_id, user)
    record.club_id = club_id
    db.flush()
    return record


def delete(db: Session, user: User, ref: str | int) -> None:
    """Delete the user's catalogue, unless army lists are built with it."""
    record = resolve(db, user, ref)
    if not is_owner(record, user):
        raise NotTheCatalogueOwner("Only the user who imported a catalogue deletes it.")
    reason = hooks.in_use(db, record.id)  # the army lists, registered by app.armies.models
    if reason:
        raise CatalogueInUse(reason)
    cache.drop(record.id)
    db.delete(record)
    db.flush()


# -- browsing ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FactionView:
    name: str
    datasheets: int
    detachments: tuple[Detachment, ...]


def factions(catalogue: Catalogue) -> list[FactionView]:
    return [
        FactionView(f, len(catalogue.datasheets_of(f)), catalogue.detachments_of(f))
        for f in catalogue.factions
    ]


def faction(catalogue: Catalogue, name: str) -> str:
    found = catalogue.faction(name)
    if found is None:
        raise FactionNotFound(
            f"The catalogue has no faction {name!r} (it has {', '.join(catalogue.factions)})."
        )
    return found


ROLE_ORDER = ("character", "battleline", "transport", "other")


def role(sheet: Datasheet) -> str:
    """Where the builder lists a datasheet: Characters, Battleline, Dedicated Transports, other."""
    if sheet.character:
        return "character"
    if sheet.battleline:
        return "battleline"
    if sheet.dedicated_transport:
        return "transport"
    return "other"


def _matches(sheet: Datasheet, words: Iterable[str]) -> tuple[bool, bool]:
    """(every word is in the name or a keyword, every word is in the name)."""
    name = name_key(sheet.name)
    keywords = " ".join(name_key(k) for k in sheet.all_keywords())
    words = list(words)
    in_name = all(w in name for w in words)
    return in_name or all(w in name or w in keywords for w in words), in_name


def search(
    catalogue: Catalogue,
    faction_name: str | None = None,
    query: str = "",
    limit: int = MAX_SEARCH_RESULTS,
) -> list[Datasheet]:
    """Datasheets of ``faction_name`` (all if None) whose name or keywords hold every word of
    ``query``; name matches first, then by role (Characters, Battleline...) and name."""
    sheets = catalogue.datasheets_of(faction_name) if faction_name else catalogue.datasheets
    words = name_key(query[:MAX_QUERY]).split()
    ranked: list[tuple[int, int, str, Datasheet]] = []
    for sheet in sheets:
        hit, in_name = _matches(sheet, words)
        if not hit:
            continue
        ranked.append(
            (0 if in_name else 1, ROLE_ORDER.index(role(sheet)), name_key(sheet.name), sheet)
        )
    ranked.sort(key=lambda r: r[:3])
    return [r[3] for r in ranked[:limit]]


def datasheet(catalogue: Catalogue, datasheet_id: str) -> Datasheet:
    found = catalogue.datasheet_by_id(datasheet_id)
    if found is None:
        raise DatasheetNotFound(f"The catalogue has no datasheet {datasheet_id!r}.")
    return found
