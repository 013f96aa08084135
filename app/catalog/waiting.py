"""BattleScribe files waiting for their game system (issue 17).

A catalogue (.cat) uploaded without its game system (.gst) is imported with what it holds (its
units may lack profiles and keywords, the report says so), and the files of that upload are
kept, one set per user: the user then adds the .gst alone, and the kept files are read again
with it, so the catalogue is replaced by the complete one without uploading it again. Nothing
is lost on the way: a failed attempt leaves the kept files as they were, an attempt that still
lacks a game system keeps the files of both uploads.

Flushes, never commits. The kept files are those of an upload the importer read within its
bounds (:class:`app.catalog.bsdata.ImportLimits`), stored as uploaded in a zip archive; they
are read back with the same bounds when they are imported again.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import IO, Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, undefer

from app.accounts.models import User
from app.catalog import service
from app.catalog.bsdata import ImportLimits, Source
from app.catalog.deps import no_transaction
from app.catalog.models import WaitingUpload
from app.catalog.service import ImportOutcome
from app.core.db import as_aware

#: how long uploaded files wait for their game system
KEPT_FOR = timedelta(days=7)
#: the warning of the import report that says the game system was not uploaded
NO_GAME_SYSTEM = "no-game-system"
_LIMITS = ImportLimits()


@dataclass(frozen=True, slots=True)
class Waiting:
    """What a user has waiting: the file names, and since when."""

    names: tuple[str, ...]
    since: datetime


def lacks_game_system(report: dict[str, Any] | None) -> bool:
    """The import report says the upload had no game system."""
    return any(w.get("code") == NO_GAME_SYSTEM for w in (report or {}).get("warnings", []))


def _row(
    db: Session, owner: User, *, archive: bool = False, stale: bool = False
) -> WaitingUpload | None:
    """The user's row; one that waited longer than :data:`KEPT_FOR` counts as none unless
    ``stale`` (a write replaces or deletes it: reads never write)."""
    query = select(WaitingUpload).where(WaitingUpload.owner_id == owner.id)
    if archive:
        query = query.options(undefer(WaitingUpload.archive))
    row = db.scalar(query)
    if row is not None and not stale and as_aware(row.updated_at) < datetime.now(UTC) - KEPT_FOR:
        return None
    return row


def waiting(db: Session, owner: User | None) -> Waiting | None:
    """The files this user uploaded that wait for their game system, if any."""
    if owner is None:
        return None
    row = _row(db, owner)
    if row is None:
        return None
    return Waiting(tuple(row.names), as_aware(row.updated_at))


def files(db: Session, owner: User) -> list[tuple[str, bytes]]:
    """The kept files, as uploaded (none if nothing waits)."""
    row = _row(db, owner, archive=True)
    if row is None:
        return []
    out: list[tuple[str, bytes]] = []
    with zipfile.ZipFile(io.BytesIO(row.archive)) as archive:
        budget = _LIMITS.max_total_bytes
        for info, name in zip(archive.infolist()[: _LIMITS.max_files], row.names, strict=False):
            if info.file_size > min(budget, _LIMITS.max_file_bytes):
                break  # not what keep() wrote: read no further
            data = archive.read(info)
            budget -= len(data)
            out.append((name, data))
    return out


def not_replaced(
    uploaded: Sequence[tuple[str, Source]], kept: Sequence[tuple[str, bytes]]
) -> list[tuple[str, bytes]]:
    """The kept files the new upload does not replace (a file of the same name)."""
    names = {n.casefold() for n, _data in uploaded}
    return [f for f in kept if f[0].casefold() not in names]


def read_back(upload: IO[bytes]) -> bytes:
    """An uploaded file the importer has read, read again from its start (within the bound
    the importer checked)."""
    upload.seek(0)
    return upload.read(_LIMITS.max_file_bytes + 1)


def keep(db: Session, owner: User, uploaded: Sequence[tuple[str, bytes]]) -> Waiting:
    """Keep these files until their game system comes (replacing what waited)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for index, (_name, data) in enumerate(uploaded):
            archive.writestr(f"{index:03d}", data)  # names kept apart: any text a user sent
    names = [name[:200] for name, _data in uploaded]
    row = _row(db, owner, stale=True)
    if row is None:
        try:
            with db.begin_nested():
                row = WaitingUpload(owner_id=owner.id, names=names, archive=buffer.getvalue())
                db.add(row)
        except IntegrityError:
            # another upload of this user kept its files first (Postgres): replace them
            row = _row(db, owner, stale=True)
            assert row is not None
    row.names = names
    row.archive = buffer.getvalue()
    row.updated_at = datetime.now(UTC)
    db.flush()
    return Waiting(tuple(row.names), as_aware(row.updated_at))


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
    waited; one that has it ends the wait. A refused import (:class:`ImportFailed`, raised)
    leaves the kept files as they were."""
    kept = not_replaced(uploads, files(db, owner)) if with_waiting else []
    with no_transaction(db):
        read = service.read_import([*uploads, *kept])
    outcome = service.store_import(db, owner, read)
    if lacks_game_system(outcome.report):
        now = keep(db, owner, [*((n, read_back(f)) for n, f in uploads), *kept])
        return Uploaded(outcome, tuple(n for n, _d in kept), now)
    before = waiting(db, owner)
    names = {name.casefold() for name, _f in uploads}
    if kept or (before is not None and all(n.casefold() in names for n in before.names)):
        forget(db, owner)  # read with their game system: nothing waits any more
        before = None
    return Uploaded(outcome, tuple(n for n, _d in kept), before)


def forget(db: Session, owner: User) -> None:
    """Nothing waits any more (the files were imported with their game system)."""
    row = _row(db, owner, stale=True)
    if row is not None:
        db.delete(row)
        db.flush()


__all__ = [
    "KEPT_FOR",
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
