"""Accounts logic: registration, login with throttling, sessions, API tokens.

Services flush but never commit: the request's session dependency owns the transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts.exceptions import EmailTaken, LoginThrottled, TokenNotFound
from app.accounts.models import ApiToken, LoginFailure, User, WebSession
from app.accounts.schemas import ProfileUpdate, Registration, TokenCreate
from app.core import security
from app.core.config import Settings
from app.core.db import as_aware, utcnow

TOKEN_PREFIX = "apx_"  # noqa: S105 - a public prefix, not a secret


def register(db: Session, data: Registration) -> User:
    if db.scalar(select(User.id).where(User.email == data.email)) is not None:
        raise EmailTaken("An account with this e-mail already exists.")
    user = User(
        email=data.email,
        display_name=data.display_name,
        password_hash=security.hash_password(data.password),
        preferred_language=data.preferred_language,
    )
    db.add(user)
    try:
        with db.begin_nested():
            db.flush()
    except IntegrityError as exc:  # a concurrent registration won the race
        raise EmailTaken("An account with this e-mail already exists.") from exc
    return user


def _failure_keys(email: str, address: str) -> tuple[str, str]:
    return security.digest("account:" + email.lower()), security.digest("address:" + address)


def authenticate(
    db: Session, settings: Settings, email: str, password: str, address: str
) -> User | None:
    """Check credentials, throttling repeated failures per account and per client address.

    A wrong password returns None rather than raising, so that the recorded failure is committed
    with the request (an exception would roll it back and defeat the throttle).
    """
    account_key, address_key = _failure_keys(email, address)
    since = utcnow() - timedelta(seconds=settings.login_window_seconds)
    db.execute(delete(LoginFailure).where(LoginFailure.at < since))
    per_account = db.scalar(
        select(func.count())
        .select_from(LoginFailure)
        .where(LoginFailure.account_key == account_key, LoginFailure.at >= since)
    )
    per_address = db.scalar(
        select(func.count())
        .select_from(LoginFailure)
        .where(LoginFailure.address_key == address_key, LoginFailure.at >= since)
    )
    if (per_account or 0) >= settings.login_max_failures or (
        per_address or 0
    ) >= 4 * settings.login_max_failures:
        raise LoginThrottled(
            "Too many failed logins. Try again later.",
            headers={"Retry-After": str(settings.login_window_seconds)},
        )
    user = db.scalar(select(User).where(User.email == email.lower()))
    ok = security.verify_password(user.password_hash if user else None, password)
    if not ok or user is None or not user.is_active:
        db.add(LoginFailure(account_key=account_key, address_key=address_key))
        db.flush()
        return None
    if security.password_needs_rehash(user.password_hash):
        user.password_hash = security.hash_password(password)
    return user


def start_session(db: Session, settings: Settings, user: User) -> str:
    """Create a browser session and return the cookie value (the only copy of the secret)."""
    token = security.new_token()
    db.add(
        WebSession(
            token_digest=security.digest(token),
            user_id=user.id,
            expires_at=utcnow() + timedelta(hours=settings.session_ttl_hours),
        )
    )
    db.flush()
    return token


def user_for_session(db: Session, token: str) -> User | None:
    row = db.execute(
        select(WebSession, User)
        .join(User, User.id == WebSession.user_id)
        .where(WebSession.token_digest == security.digest(token))
    ).first()
    if row is None:
        return None
    web_session: WebSession = row[0]
    user: User = row[1]
    if as_aware(web_session.expires_at) <= utcnow() or not user.is_active:
        db.delete(web_session)
        db.flush()  # at once, next to the read (ADR 0007: a GET's transaction is deferred)
        return None
    return user


def end_session(db: Session, token: str) -> None:
    db.execute(delete(WebSession).where(WebSession.token_digest == security.digest(token)))


def update_profile(db: Session, user: User, data: ProfileUpdate) -> User:
    if data.display_name is not None:
        user.display_name = data.display_name
    if data.preferred_language is not None:
        user.preferred_language = data.preferred_language
    db.flush()
    return user


@dataclass(frozen=True, slots=True)
class NewToken:
    token: ApiToken
    secret: str


def create_token(db: Session, user: User, data: TokenCreate) -> NewToken:
    secret = security.new_token(TOKEN_PREFIX)
    expires_at = utcnow() + timedelta(days=data.expires_in_days) if data.expires_in_days else None
    token = ApiToken(
        user_id=user.id,
        name=data.name.strip(),
        token_digest=security.digest(secret),
        prefix=secret[: len(TOKEN_PREFIX) + 4],
        expires_at=expires_at,
    )
    db.add(token)
    db.flush()
    return NewToken(token=token, secret=secret)


def list_tokens(db: Session, user: User) -> list[ApiToken]:
    return list(
        db.scalars(select(ApiToken).where(ApiToken.user_id == user.id).order_by(ApiToken.id))
    )


def revoke_token(db: Session, user: User, token_id: int) -> ApiToken:
    token = db.scalar(select(ApiToken).where(ApiToken.id == token_id, ApiToken.user_id == user.id))
    if token is None:
        raise TokenNotFound(f"You have no API token with id {token_id}.")
    if token.revoked_at is None:
        token.revoked_at = utcnow()
        db.flush()
    return token


def user_for_api_token(db: Session, secret: str) -> User | None:
    if not secret.startswith(TOKEN_PREFIX) or len(secret) > 100:
        return None
    row = db.execute(
        select(ApiToken, User)
        .join(User, User.id == ApiToken.user_id)
        .where(ApiToken.token_digest == security.digest(secret))
    ).first()
    if row is None:
        return None
    token: ApiToken = row[0]
    user: User = row[1]
    now = utcnow()
    if token.revoked_at is not None or not user.is_active:
        return None
    if token.expires_at is not None and as_aware(token.expires_at) <= now:
        return None
    last = token.last_used_at
    if last is None or now - as_aware(last) > timedelta(minutes=1):
        token.last_used_at = now
        # written at once, next to the read: on SQLite a GET's transaction is deferred, and the
        # longer it reads before writing, the likelier a concurrent commit fails it (ADR 0007)
        db.flush()
    return user
