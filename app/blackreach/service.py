"""Black Reach content sets: create, read, update (optimistic version), delete, copy, share.

A set belongs to one user and is private: another user's set does not exist for them (404).
Every save reads the three documents with the engine's readers (:mod:`.documents`) and refuses
the whole set with every problem located. The shipped sample set is never stored: it is read
from ``data/black_reach/`` and can be copied to edit. Flushes, never commits.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.blackreach.documents import (
    Checked,
    Documents,
    check,
    empty_documents,
    sample_documents,
)
from app.blackreach.exceptions import (
    ContentSetNotFound,
    InvalidContent,
    SharedContentNotFound,
    StaleContent,
)
from app.blackreach.models import ContentSet
from app.blackreach.schemas import MAX_SET_NAME, ContentCreate, ContentUpdate
from app.core import security
from app.core.config import get_settings
from app.core.db import as_aware, utcnow
from app.core.errors import InvalidInput
from app.core.i18n import gettext as _

SHARE_PREFIX = "brc_"
SAMPLE_SOURCE = "sample"
MAX_SETS = 50  # content sets per user


@dataclass(frozen=True, slots=True)
class Counts:
    counters: int
    tiles: int
    options: int
    boards: int
    scenarios: int


@dataclass(frozen=True, slots=True)
class ContentView:
    """A set as a reader sees it: the owner (editable), a share link or the sample (read-only)."""

    id: int | None
    name: str
    sample: bool
    version: int
    shared: bool
    copied_from: str | None
    documents: Documents
    updated_at: datetime | None
    read_only: bool
    share_token: str | None = None

    @property
    def counts(self) -> Counts:
        return counts(self.documents)


def _length(doc: Any, key: str) -> int:
    value = doc.get(key) if isinstance(doc, dict) else None
    return len(value) if isinstance(value, list) else 0


def counts(docs: Documents) -> Counts:
    return Counts(
        counters=_length(docs.forces, "counters"),
        tiles=_length(docs.forces, "tiles"),
        options=_length(docs.forces, "options"),
        boards=_length(docs.boards, "boards"),
        scenarios=len(docs.scenarios) if isinstance(docs.scenarios, list) else 0,
    )


def documents_of(row: ContentSet) -> Documents:
    return Documents(forces=row.forces, boards=row.boards, scenarios=row.scenarios)


def _view(row: ContentSet, *, read_only: bool) -> ContentView:
    return ContentView(
        id=row.id,
        name=row.name,
        sample=False,
        version=row.version,
        shared=row.share_digest is not None,
        copied_from=row.copied_from,
        documents=documents_of(row),
        updated_at=as_aware(row.updated_at),
        read_only=read_only,
        share_token=None if read_only else share_token(row),
    )


def sample_view() -> ContentView:
    return ContentView(
        id=None,
        name=_("Sample content"),
        sample=True,
        version=1,
        shared=False,
        copied_from=None,
        documents=sample_documents(),
        updated_at=None,
        read_only=True,
    )


def problems_json(checked: Checked) -> list[dict[str, Any]]:
    return [{"field": p.field, "message": p.message} for p in checked.problems]


def validated(docs: Documents) -> Checked:
    """The documents as the engine reads them, else InvalidContent listing every problem."""
    checked = check(docs)
    if not checked.ok:
        first = checked.problems[0]
        raise InvalidContent(
            _("%(num)d problem(s) in the content, first %(field)s: %(message)s")
            % {"num": len(checked.problems), "field": first.field, "message": first.message},
            errors=problems_json(checked),
        )
    return checked


# -- reading ------------------------------------------------------------------------------------


def own(db: Session, user: User, set_id: int, *, for_change: bool = False) -> ContentSet:
    """The user's set, else ContentSetNotFound (another user's set does not exist for them).
    ``for_change``: read afresh and locked until the transaction ends (ADR 0007)."""
    row = db.get(ContentSet, set_id, with_for_update=for_change, populate_existing=for_change)
    if row is None or row.owner_id != user.id:
        raise ContentSetNotFound(_("There is no content set %(id)d of yours.") % {"id": set_id})
    return row


def get(db: Session, user: User, set_id: int) -> ContentView:
    return _view(own(db, user, set_id), read_only=False)


def list_sets(db: Session, user: User) -> list[ContentView]:
    rows = db.scalars(
        select(ContentSet)
        .where(ContentSet.owner_id == user.id)
        .order_by(ContentSet.updated_at.desc(), ContentSet.id.desc())
    )
    return [_view(row, read_only=False) for row in rows]


# -- writing ------------------------------------------------------------------------------------


def _room_for_one_more(db: Session, user: User) -> None:
    held = db.scalar(
        select(func.count()).select_from(ContentSet).where(ContentSet.owner_id == user.id)
    )
    if (held or 0) >= MAX_SETS:
        raise InvalidInput(
            _("You have %(num)d content sets, the most one account may keep. Delete one first.")
            % {"num": MAX_SETS}
        )


def _store(
    db: Session, user: User, name: str, docs: Documents, copied_from: str | None
) -> ContentSet:
    validated(docs)
    _room_for_one_more(db, user)
    row = ContentSet(
        owner_id=user.id,
        name=name[:MAX_SET_NAME],
        forces=docs.forces,
        boards=docs.boards,
        scenarios=docs.scenarios,
        copied_from=copied_from[:160] if copied_from else None,
    )
    db.add(row)
    db.flush()
    return row


def create(db: Session, user: User, data: ContentCreate) -> ContentSet:
    empty = empty_documents()
    docs = Documents(
        forces=data.forces if data.forces is not None else empty.forces,
        boards=data.boards if data.boards is not None else empty.boards,
        scenarios=data.scenarios if data.scenarios is not None else empty.scenarios,
    )
    return _store(db, user, data.name, docs, None)


def update(db: Session, user: User, set_id: int, data: ContentUpdate) -> ContentSet:
    """Replace the name and the documents given; every document is checked again together
    (a scenario depends on the forces and boards). A stale ``version`` is refused (409)."""
    row = own(db, user, set_id, for_change=True)
    if data.version != row.version:
        raise StaleContent(
            _(
                "The content set is at version %(current)d, your changes were made on version "
                "%(seen)d. Reload it and make them again."
            )
            % {"current": row.version, "seen": data.version},
            current_version=row.version,
        )
    docs = Documents(
        forces=data.forces if data.forces is not None else row.forces,
        boards=data.boards if data.boards is not None else row.boards,
        scenarios=data.scenarios if data.scenarios is not None else row.scenarios,
    )
    validated(docs)
    if data.name is not None:
        row.name = data.name
    row.forces, row.boards, row.scenarios = docs.forces, docs.boards, docs.scenarios
    row.updated_at = utcnow()
    db.flush()
    return row


def delete(db: Session, user: User, set_id: int) -> None:
    db.delete(own(db, user, set_id, for_change=True))
    db.flush()


def _copy_name(name: str) -> str:
    return _("%(name)s (copy)") % {"name": name}


def copy(db: Session, user: User, set_id: int, name: str | None = None) -> ContentSet:
    source = own(db, user, set_id)
    return _store(
        db, user, name or _copy_name(source.name), documents_of(source), f"set:{source.id}"
    )


def copy_sample(db: Session, user: User, name: str | None = None) -> ContentSet:
    return _store(db, user, name or _copy_name(_("Sample content")), sample_documents(), "sample")


def copy_shared(db: Session, user: User, token: str, name: str | None = None) -> ContentSet:
    source = _shared_row(db, token)
    return _store(
        db, user, name or _copy_name(source.name), documents_of(source), f"shared:{source.id}"
    )


# -- share links ------------------------------------------------------------------------------


def _share_token(row: ContentSet) -> str | None:
    """Derived from the server key, the set and the moment the link was made: the owner can
    see it again, only its digest is stored, and a new link makes another one."""
    if row.shared_at is None:
        return None
    moment = as_aware(row.shared_at).strftime("%Y%m%dT%H%M%S.%f")
    mac = hmac.new(
        get_settings().secret_key.encode(),
        f"blackreach-share\x00{row.id}\x00{moment}".encode(),
        hashlib.sha256,
    ).digest()
    return SHARE_PREFIX + base64.urlsafe_b64encode(mac).decode().rstrip("=")


def share_token(row: ContentSet) -> str | None:
    token = _share_token(row)
    if token is None or row.share_digest is None:
        return None
    return token if security.hmac_equal(security.digest(token), row.share_digest) else None


def create_share(db: Session, user: User, set_id: int) -> tuple[ContentSet, str]:
    """A new read-only link (replacing any previous one)."""
    row = own(db, user, set_id, for_change=True)
    row.shared_at = utcnow()
    token = _share_token(row)
    assert token is not None
    row.share_digest = security.digest(token)
    db.flush()
    return row, token


def revoke_share(db: Session, user: User, set_id: int) -> ContentSet:
    row = own(db, user, set_id, for_change=True)
    row.share_digest = None
    row.shared_at = None
    db.flush()
    return row


def shared_row(db: Session, token: str) -> ContentSet:
    """The set behind a share link (read-only for whoever holds it), else 404."""
    return _shared_row(db, token)


def _shared_row(db: Session, token: str) -> ContentSet:
    if not token.startswith(SHARE_PREFIX) or len(token) > 100:
        raise SharedContentNotFound(_("This share link is invalid or revoked."))
    row = db.scalar(select(ContentSet).where(ContentSet.share_digest == security.digest(token)))
    if row is None:
        raise SharedContentNotFound(_("This share link is invalid or revoked."))
    return row


def shared(db: Session, token: str) -> ContentView:
    """The set behind a share link, read-only."""
    return _view(_shared_row(db, token), read_only=True)
