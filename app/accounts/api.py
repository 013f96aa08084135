"""JSON API of accounts: the current user's profile and personal API tokens."""

from __future__ import annotations

from fastapi import APIRouter, Request, status

from app.accounts import service
from app.accounts.deps import CurrentUser
from app.accounts.models import ApiToken
from app.accounts.schemas import ProfileUpdate, TokenCreate, TokenCreated, TokenOut, UserOut
from app.core.deps import DbSession

router = APIRouter(tags=["accounts"])


def _token_out(token: ApiToken) -> TokenOut:
    return TokenOut.model_validate(token, from_attributes=True)


@router.get("/me", response_model=UserOut, summary="The authenticated user")
def me(user: CurrentUser) -> UserOut:
    return UserOut.model_validate(user, from_attributes=True)


@router.patch("/me", response_model=UserOut, summary="Change display name or language")
def update_me(data: ProfileUpdate, user: CurrentUser, db: DbSession) -> UserOut:
    return UserOut.model_validate(service.update_profile(db, user, data), from_attributes=True)


@router.get("/tokens", response_model=list[TokenOut], summary="Your personal API tokens")
def list_tokens(user: CurrentUser, db: DbSession) -> list[TokenOut]:
    return [_token_out(t) for t in service.list_tokens(db, user)]


@router.post(
    "/tokens",
    response_model=TokenCreated,
    status_code=status.HTTP_201_CREATED,
    summary="Create a personal API token (the secret is in this response only)",
)
def create_token(
    request: Request, data: TokenCreate, user: CurrentUser, db: DbSession
) -> TokenCreated:
    """Every token expires (90 days unless asked, at most 365); a token created with a token
    expires no later than the token that created it."""
    parent = getattr(request.state, "token_digest", None)
    created = service.create_token(db, user, data, parent_digest=parent)
    return TokenCreated(**_token_out(created.token).model_dump(), token=created.secret)


@router.delete("/tokens/{token_id}", response_model=TokenOut, summary="Revoke an API token")
def revoke_token(token_id: int, user: CurrentUser, db: DbSession) -> TokenOut:
    return _token_out(service.revoke_token(db, user, token_id))
