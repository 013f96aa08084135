"""JSON API of Black Reach content sets (/api/v1/black-reach/content)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, Request, Response, status

from app.accounts.deps import CurrentUser, OptionalUser
from app.blackreach import service
from app.blackreach.schemas import (
    ContentCopy,
    ContentCounts,
    ContentCreate,
    ContentOut,
    ContentSummaryOut,
    ContentUpdate,
    ShareOut,
)
from app.core.deps import DbSession
from app.core.errors import PROBLEM_JSON
from app.core.i18n import DEFAULT_LOCALE, current_locale


async def _language(request: Request, user: OptionalUser) -> None:
    current_locale.set(getattr(request.state, "locale", DEFAULT_LOCALE))


router = APIRouter(
    prefix="/black-reach/content", tags=["black-reach"], dependencies=[Depends(_language)]
)

_PROBLEM: dict[str, Any] = {"content": {PROBLEM_JSON: {}}}
_OWNED: dict[int | str, dict[str, Any]] = {
    401: {"description": "Not authenticated", **_PROBLEM},
    404: {"description": "No such content set of yours", **_PROBLEM},
}
_INVALID: dict[int | str, dict[str, Any]] = {
    422: {
        "description": "A document the engine refuses: `errors` lists each problem with the "
        "path of its field (`forces.counters[0].faces[0].dv`)",
        **_PROBLEM,
    }
}
SetId = Annotated[int, Path(ge=1, le=2**31 - 1)]
Token = Annotated[str, Path(min_length=1, max_length=100)]


def summary(view: service.ContentView) -> ContentSummaryOut:
    c = view.counts
    return ContentSummaryOut(
        id=view.id,
        name=view.name,
        sample=view.sample,
        version=view.version,
        shared=view.shared,
        copied_from=view.copied_from,
        counts=ContentCounts(
            counters=c.counters,
            tiles=c.tiles,
            options=c.options,
            boards=c.boards,
            scenarios=c.scenarios,
        ),
        updated_at=view.updated_at,
    )


def full(view: service.ContentView) -> ContentOut:
    return ContentOut(
        **summary(view).model_dump(),
        forces=view.documents.forces,
        boards=view.documents.boards,
        scenarios=view.documents.scenarios,
        share_token=view.share_token,
        read_only=view.read_only,
    )


def _mine(db: DbSession, user: CurrentUser, set_id: int) -> ContentOut:
    return full(service.get(db, user, set_id))


@router.get("", response_model=list[ContentSummaryOut], summary="The sample set and your sets")
def list_content(user: CurrentUser, db: DbSession) -> list[ContentSummaryOut]:
    """The shipped sample set first (`sample: true`, read-only, no `id`), then yours."""
    return [summary(service.sample_view()), *map(summary, service.list_sets(db, user))]


@router.post(
    "",
    response_model=ContentOut,
    status_code=status.HTTP_201_CREATED,
    summary="Create a content set",
    responses={401: _OWNED[401], **_INVALID},
)
def create_content(
    data: Annotated[ContentCreate, Body()], user: CurrentUser, db: DbSession
) -> ContentOut:
    """`forces` (format `auspex-black-reach-forces/1`), `boards` (`{"boards": [...]}`) and
    `scenarios` (a list of `auspex-black-reach-scenario/1` documents), as in
    docs/black-reach-data.md; each left out starts empty. Each document is at most 512 KiB."""
    row = service.create(db, user, data)
    return _mine(db, user, row.id)


@router.get("/sample", response_model=ContentOut, summary="The shipped sample set (read-only)")
def sample_content(user: CurrentUser) -> ContentOut:
    return full(service.sample_view())


@router.post(
    "/sample/copy",
    response_model=ContentOut,
    status_code=status.HTTP_201_CREATED,
    summary="Copy the sample set to edit it",
    responses={401: _OWNED[401]},
)
def copy_sample(
    user: CurrentUser, db: DbSession, data: Annotated[ContentCopy | None, Body()] = None
) -> ContentOut:
    row = service.copy_sample(db, user, data.name if data else None)
    return _mine(db, user, row.id)


@router.get(
    "/shared/{token}",
    response_model=ContentOut,
    summary="A set shared by link (read-only)",
    responses={404: {"description": "Invalid or revoked link", **_PROBLEM}},
)
def shared_content(token: Token, db: DbSession) -> ContentOut:
    return full(service.shared(db, token))


@router.post(
    "/shared/{token}/copy",
    response_model=ContentOut,
    status_code=status.HTTP_201_CREATED,
    summary="Copy a shared set into your own",
    responses={401: _OWNED[401], 404: {"description": "Invalid or revoked link", **_PROBLEM}},
)
def copy_shared(
    token: Token,
    user: CurrentUser,
    db: DbSession,
    data: Annotated[ContentCopy | None, Body()] = None,
) -> ContentOut:
    row = service.copy_shared(db, user, token, data.name if data else None)
    return _mine(db, user, row.id)


@router.get("/{set_id}", response_model=ContentOut, summary="One of your sets", responses=_OWNED)
def get_content(set_id: SetId, user: CurrentUser, db: DbSession) -> ContentOut:
    return _mine(db, user, set_id)


@router.put(
    "/{set_id}",
    response_model=ContentOut,
    summary="Update a set (naming the version you read)",
    responses={
        **_OWNED,
        **_INVALID,
        409: {"description": "The set changed since that version", **_PROBLEM},
    },
)
def update_content(
    set_id: SetId, data: Annotated[ContentUpdate, Body()], user: CurrentUser, db: DbSession
) -> ContentOut:
    """Send the `version` you read; a document left out is kept, one given replaces it whole.
    All three are checked together (a scenario uses the forces and boards)."""
    service.update(db, user, set_id, data)
    return _mine(db, user, set_id)


@router.delete(
    "/{set_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Delete a set",
    responses=_OWNED,
)
def delete_content(set_id: SetId, user: CurrentUser, db: DbSession) -> Response:
    service.delete(db, user, set_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post(
    "/{set_id}/copy",
    response_model=ContentOut,
    status_code=status.HTTP_201_CREATED,
    summary="Copy one of your sets",
    responses=_OWNED,
)
def copy_content(
    set_id: SetId,
    user: CurrentUser,
    db: DbSession,
    data: Annotated[ContentCopy | None, Body()] = None,
) -> ContentOut:
    row = service.copy(db, user, set_id, data.name if data else None)
    return _mine(db, user, row.id)


@router.put(
    "/{set_id}/share",
    response_model=ShareOut,
    summary="Turn the read-only share link on (a new one each time)",
    responses=_OWNED,
)
def share_content(set_id: SetId, user: CurrentUser, db: DbSession) -> ShareOut:
    _row, token = service.create_share(db, user, set_id)
    return ShareOut(token=token, path=f"/black-reach/content/shared/{token}")


@router.delete(
    "/{set_id}/share",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Turn the share link off",
    responses=_OWNED,
)
def unshare_content(set_id: SetId, user: CurrentUser, db: DbSession) -> Response:
    service.revoke_share(db, user, set_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
