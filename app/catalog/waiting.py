"""BattleScribe files waiting for their game system (issue 17).

A catalogue (.cat) uploaded without its game system (.gst) is imported with what it holds (its
units may lack profiles and keywords, the report says so), and the files of that upload are
kept, one set per user: the user then adds the .gst alone, and the kept files are read again
with it, so the catalogue is replaced by the complete one without uploading it again. Nothing
is lost on the way: a failed attempt leaves the kept files as they were, an attempt that still
lacks a game system keeps the files of both uploads (whether or not it read the kept ones), and
a game system made for another game than a kept catalogue leaves it waiting.

Flushes, never commits. The kept files are those of an upload the importer read within its
bounds (:class:`app.catalog.bsdata.ImportLimits`), stored as uploaded in a zip archive; they
are read back with the same bounds when they are imported again (a set past them is refused,
never cut short). They are read, unzipped and zipped again before the import takes the write
lock, which then only stores what was built.

Two uploads of one user at once (two tabs): each remembers the kept set it read by its
``updated_at`` (the stamp). Ending the wait deletes only the set that was read; keeping files
merges them with a set another upload kept meanwhile. Expired sets are removed by the next
write of any user.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import IO, Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.catalog import service
from app.catalog.bsdata import ImportLimits, IssueCode, Source
from app.catalog.deps import no_transaction
from app.catalog.exceptions import ImportTooLarge
from app.catalog.models import WaitingUpload
from app.catalog.service import ImportOutcome
from app.core.db import WRITE
from app.core.errors import Conflict
from app.core.i18n import lazy
from app.engine.errors import N_, Message

#: how long uploaded files wait for their game system
KEPT_FOR = timedelta(days=7)
#: the most files one upload may send (the pages' and the API's bound)
MAX_UPLOAD_FILES = 64
_LIMITS = ImportLimits()
#: writes of a kept set tried before giving up on another upload of the same user
_TRIES = 3
_NAME = 200  # characters of a file's name kept


class KeptFilesBusy(Conflict):
    """Other uploads of the same user changed the kept files each time this one tried to
    store its own (Postgres, several at once): nothing was stored, the upload may be sent
    again."""

    status, code, title = (
        409,
        "catalog-kept-files-busy",
        lazy("Your kept files were changed by another upload at the same time: send it again"),
    )


@dataclass(frozen=True, slots=True)
class Waiting:
    """What a user has waiting: the file names, and since when."""

    names: tuple[str, ...]
    since: datetime


@dataclass(frozen=True, slots=True)
class Kept:
    """A user's kept set as read at one moment. ``stamp``: its ``updated_at``, what a write
    compares to know it was not changed since (``None``: nothing waited)."""

    names: tuple[str, ...] = ()
    archive: bytes = b""
    stamp: datetime | None = None

    def files(self) -> list[tuple[str, bytes]]:
        """The kept files, as uploaded (refused, never cut short, past the import's bounds)."""
        return _unpack(self.names, self.archive) if self.stamp is not None else []


@dataclass(frozen=True, slots=True)
class _Packed:
    """Files to keep and their archive, built before the write lock is taken."""

    files: tuple[tuple[str, bytes], ...]
    names: tuple[str, ...]
    archive: bytes


def lacks_game_system(report: dict[str, Any] | None) -> bool:
    """The import report says the upload had no game system."""
    code = IssueCode.NO_GAME_SYSTEM
    return any(w.get("code") == code for w in (report or {}).get("warnings", []))


def _mismatched(report: dict[str, Any] | None, names: Sequence[str]) -> bool:
    """The report says one of these files was made for another game system than the one
    read with it."""
    code, kept = IssueCode.GAME_SYSTEM_MISMATCH, {n.casefold() for n in names}
    return any(
        w.get("code") == code and str(w.get("file") or "").casefold() in kept
        for w in (report or {}).get("warnings", [])
    )


def _cutoff() -> datetime:
    return datetime.now(UTC) - KEPT_FOR


def _read(db: Session, owner: User, *, archive: bool) -> Kept:
    """The user's kept set (one that waited longer than :data:`KEPT_FOR` counts as none).
    Columns, never the ORM object: what a session once loaded is not served again stale."""
    columns = [WaitingUpload.names, WaitingUpload.updated_at]
    if archive:
        columns.append(WaitingUpload.archive)
    row = db.execute(
        select(*columns).where(
            WaitingUpload.owner_id == owner.id, WaitingUpload.updated_at >= _cutoff()
        )
    ).one_or_none()
    if row is None:
        return Kept()
    return Kept(tuple(row.names), row.archive if archive else b"", row.updated_at)


@contextmanager
def _reading(db: Session) -> Iterator[None]:
    """A read in a transaction of its own that takes no write lock (a plain ``BEGIN`` on
    SQLite), ended at once; for a block run with no transaction open (:func:`no_transaction`).
    """
    opened = not db.in_transaction()
    if opened:
        db.connection(execution_options={WRITE: False})
    yield
    if opened:
        db.commit()


def waiting(db: Session, owner: User | None) -> Waiting | None:
    """The files this user uploaded that wait for their game system, if any."""
    if owner is None:
        return None
    seen = _read(db, owner, archive=False)
    return None if seen.stamp is None else Waiting(seen.names, seen.stamp)


def files(db: Session, owner: User) -> list[tuple[str, bytes]]:
    """The kept files, as uploaded (none if nothing waits)."""
    return _read(db, owner, archive=True).files()


def _too_large(template: Message, limit: str) -> ImportTooLarge:
    error = {
        "field": "files",
        "file": None,
        "code": IssueCode.TOO_LARGE.value,
        "message": str(template),
        "type": "too_large",
        "limit": limit,
    }
    refused = ImportTooLarge(str(template), errors=[error], limit=limit)
    refused.detail_template = template
    return refused


_KEPT_TOO_LARGE = N_(
    "The files kept from your earlier upload are more than one import may read: upload them "
    "again with their game system (.gst)."
)
_BOTH_TOO_LARGE = N_(
    "These files and those kept from your earlier upload are more than one import may read: "
    "upload them together with their game system (.gst)."
)


def _unpack(names: Sequence[str], data: bytes) -> list[tuple[str, bytes]]:
    """The files of a kept archive, read within the import's bounds: a set past them (not what
    :func:`_pack` wrote, or bounds lowered since) is refused whole."""
    out: list[tuple[str, bytes]] = []
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = archive.infolist()
        if len(members) != len(names) or len(members) > _LIMITS.max_files:
            raise _too_large(Message(_KEPT_TOO_LARGE), "files")
        budget = _LIMITS.max_total_bytes
        for info, name in zip(members, names, strict=True):
            if info.file_size > _LIMITS.max_file_bytes:
                raise _too_large(Message(_KEPT_TOO_LARGE), "file-bytes")
            if info.file_size > budget:
                raise _too_large(Message(_KEPT_TOO_LARGE), "total-bytes")
            data = archive.read(info)
            budget -= len(data)
            out.append((name, data))
    return out


def _pack(kept: Sequence[tuple[str, bytes]], template: str = _BOTH_TOO_LARGE) -> _Packed:
    """The files zipped, refused past the import's bounds (they could never be read back)."""
    if len(kept) > _LIMITS.max_files:
        raise _too_large(Message(template), "files")
    if sum(len(data) for _name, data in kept) > _LIMITS.max_total_bytes:
        raise _too_large(Message(template), "total-bytes")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for index, (_name, data) in enumerate(kept):
            archive.writestr(f"{index:03d}", data)  # names kept apart: any text a user sent
    cut = tuple((name[:_NAME], data) for name, data in kept)
    return _Packed(cut, tuple(name for name, _data in cut), buffer.getvalue())


def not_replaced(
    uploaded: Sequence[tuple[str, Source]], kept: Sequence[tuple[str, bytes]]
) -> list[tuple[str, bytes]]:
    """The kept files the new upload does not replace (a file of the same name)."""
    names = {n[:_NAME].casefold() for n, _data in uploaded}
    return [f for f in kept if f[0].casefold() not in names]


def read_back(upload: IO[bytes]) -> bytes:
    """An uploaded file the importer has read, read again from its start (within the bound
    the importer checked)."""
    upload.seek(0)
    return upload.read(_LIMITS.max_file_bytes + 1)


_SWEPT = 100  # expired sets removed by one write at most


def _sweep(db: Session) -> None:
    """Remove sets that waited longer than :data:`KEPT_FOR` (any user's), never waiting for a
    row another transaction holds (Postgres skips it: the next write removes it)."""
    expired = (
        select(WaitingUpload.id)
        .where(WaitingUpload.updated_at < _cutoff())
        .limit(_SWEPT)
        .with_for_update(skip_locked=True)
    )
    db.execute(delete(WaitingUpload).where(WaitingUpload.id.in_(expired)))


def _stamp_now(db: Session, owner: User) -> datetime | None:
    """The stamp of the user's kept set as it is now (write lock held)."""
    return db.scalar(select(WaitingUpload.updated_at).where(WaitingUpload.owner_id == owner.id))


def _store(db: Session, owner: User, packed: _Packed, seen: Kept) -> Waiting:
    """Store ``packed`` as the user's kept set, under the write lock: it replaces the set read
    as ``seen``; a set kept by another upload since is merged with it (read again here, the
    one case that unzips under the lock)."""
    _sweep(db)
    for _attempt in range(_TRIES):
        stamp = _stamp_now(db, owner)
        now = datetime.now(UTC)
        if stamp is None:
            try:
                with db.begin_nested():
                    db.execute(
                        insert(WaitingUpload).values(
                            owner_id=owner.id,
                            names=list(packed.names),
                            archive=packed.archive,
                            created_at=now,
                            updated_at=now,
                        )
                    )
            except IntegrityError:
                continue  # another upload of this user kept its files first (Postgres)
            return Waiting(packed.names, now)
        merged = packed
        if stamp != seen.stamp:  # kept by another upload since it was read: keep both
            other = _read(db, owner, archive=True)
            if other.stamp != stamp:
                continue
            merged = _pack([*packed.files, *not_replaced(packed.files, other.files())])
        later = max(now, stamp + timedelta(microseconds=1))  # a stamp never seen before
        done = db.execute(
            update(WaitingUpload)
            .where(WaitingUpload.owner_id == owner.id, WaitingUpload.updated_at == stamp)
            .values(names=list(merged.names), archive=merged.archive, updated_at=later)
            .execution_options(synchronize_session=False)
        )
        if done.rowcount == 1:  # type: ignore[attr-defined]
            return Waiting(merged.names, later)
        # changed or deleted by another upload between the read and the write: read again
    raise KeptFilesBusy()


def keep(db: Session, owner: User, uploaded: Sequence[tuple[str, bytes]]) -> Waiting:
    """Keep these files until their game system comes, replacing what waited (zipped here:
    call it before the write lock, or for a few small files)."""
    packed = _pack(uploaded)
    return _store(db, owner, packed, _read(db, owner, archive=False))


def forget(db: Session, owner: User, seen: Kept) -> bool:
    """Nothing waits any more (the files read as ``seen`` were imported with their game
    system); a set kept since by another upload stays. Whether ``seen`` was removed."""
    _sweep(db)
    if seen.stamp is None:
        return False
    done = db.execute(
        delete(WaitingUpload)
        .where(WaitingUpload.owner_id == owner.id, WaitingUpload.updated_at == seen.stamp)
        .execution_options(synchronize_session=False)
    )
    return bool(done.rowcount)  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class Uploaded:
    """An import of uploaded files: what was stored, the kept files read with them, and what
    waits for a game system afterwards."""

    outcome: ImportOutcome
    kept_used: tuple[str, ...]
    waiting: Waiting | None


def import_upload(
    db: Session, owner: User, uploads: Sequence[tuple[str, IO[bytes]]], *, with_waiting: bool
) -> Uploaded:
    """Import uploaded files (read with no transaction open, :mod:`app.catalog.deps`).

    ``with_waiting``: the kept files are read with them (a file of the same name here replaces
    the kept one). An import that still lacks its game system keeps its files with those that
    waited; one that has it ends the wait, unless a kept catalogue was made for another game
    system. A refused import (:class:`ImportFailed`, raised) leaves the kept files as they
    were, and so does one that brings no file of its own."""
    packed: _Packed | None = None
    with no_transaction(db):
        with _reading(db):
            seen = _read(db, owner, archive=True)
        kept = not_replaced(uploads, seen.files()) if with_waiting else []
        read = service.read_import([*uploads, *kept])
        if lacks_game_system(read.report) and uploads:  # no file of its own: nothing to keep
            also = kept if with_waiting else not_replaced(uploads, seen.files())
            packed = _pack([*((n, read_back(f)) for n, f in uploads), *also])
    outcome = service.store_import(db, owner, read)
    used = tuple(n for n, _d in kept)
    if packed is not None:
        return Uploaded(outcome, used, _store(db, owner, packed, seen))
    names = {name[:_NAME].casefold() for name, _f in uploads}
    ends = used or (seen.stamp is not None and all(n.casefold() in names for n in seen.names))
    if ends and not lacks_game_system(read.report) and not _mismatched(read.report, seen.names):
        forget(db, owner, seen)  # read with their game system: nothing of these waits any more
    return Uploaded(outcome, used, waiting(db, owner))


__all__ = [
    "KEPT_FOR",
    "MAX_UPLOAD_FILES",
    "Kept",
    "KeptFilesBusy",
    "Uploaded",
    "Waiting",
    "files",
    "forget",
    "import_upload",
    "keep",
    "lacks_game_system",
    "not_replaced",
    "read_back",
    "waiting",
]
