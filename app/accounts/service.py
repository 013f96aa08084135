"""Accounts logic: registration, login with throttling, sessions, API tokens.

Services flush but never commit: the request's session dependency owns the transaction.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, delete, func, or_, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, make_transient_to_detached

from app.accounts.exceptions import EmailTaken, LoginThrottled, TokenLimitReached, TokenNotFound
from app.accounts.models import ApiToken, LoginFailure, User, WebSession
from app.accounts.schemas import TOKEN_MAX_DAYS, ProfileUpdate, Registration, TokenCreate
from app.core import security
from app.core.config import Settings
from app.core.db import DeferredWrite, as_aware, defer_write, utcnow
from app.core.i18n import gettext as _

TOKEN_PREFIX = "apx_"  # noqa: S105 - a public prefix, not a secret
MAX_LIVE_TOKENS = 100  # API tokens of one user neither revoked nor expired (409 past it)
KEEP_DEAD_TOKENS = 50  # revoked or expired tokens kept for the account page, newest first


def lock_user(db: Session, user_id: int) -> None:
    """Hold the user's row until the transaction ends, so that two creations of one user at
    the same moment count what the user holds one after the other: neither passes a per-user
    cap on a count the other is about to change. Postgres: ``SELECT ... FOR UPDATE``; SQLite
    has no row lock, and a request that writes holds the database's write lock from its first
    statement (``BEGIN IMMEDIATE``, app.core.db), which serialises them the same way."""
    db.execute(select(User.id).where(User.id == user_id).with_for_update())


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


def _address(address: str) -> str:
    """The client address as the throttle counts it: an IPv6 address by its /64, which one
    subscriber holds whole (rotating within it must not reset the count)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def _failure_keys(email: str, address: str) -> tuple[str, str]:
    return (
        security.digest("account:" + email.lower()),
        security.digest("address:" + _address(address)),
    )


def _serialise_attempts(db: Session, account_key: str, address_key: str) -> None:
    """Make counting the failures and recording a new one atomic, per account and per address.

    Postgres: transaction-scoped advisory locks, the account's first then the address's (always
    in this order, in two key spaces: no deadlock), held until the request's transaction ends,
    so a concurrent attempt on the same account or from the same address counts after this one
    is recorded. SQLite: a POST's transaction already holds the database's write lock
    (``BEGIN IMMEDIATE``), which serialises every attempt.
    """
    if db.get_bind().dialect.name != "postgresql":
        return
    lock = text("SELECT pg_advisory_xact_lock(:space, hashtext(:key))")
    db.execute(lock, {"space": 1, "key": account_key})
    db.execute(lock, {"space": 2, "key": address_key})


def _failures(db: Session, since: datetime, *conditions: ColumnElement[bool]) -> int:
    return (
        db.scalar(
            select(func.count())
            .select_from(LoginFailure)
            .where(LoginFailure.at >= since, *conditions)
        )
        or 0
    )


def authenticate(
    db: Session, settings: Settings, email: str, password: str, address: str
) -> User | None:
    """Check credentials, throttling repeated failures.

    Within the window (N = ``login_max_failures``) an account takes at most N failures from one
    client address and 4N from all addresses together, and one address at most 4N failures over
    all accounts. So a stranger who fails N times locks the owner out from the stranger's own
    address only; the owner still logs in from theirs until 4N failures (from at least four
    addresses, four /64s for IPv6) have been spent on the account, which also bounds guessing
    by a botnet. The count and the recording of a failure are atomic
    (:func:`_serialise_attempts`): parallel attempts never check more passwords than allowed.

    A wrong password returns None rather than raising, so that the recorded failure is committed
    with the request (an exception would roll it back and defeat the throttle).
    """
    account_key, address_key = _failure_keys(email, address)
    _serialise_attempts(db, account_key, address_key)
    since = utcnow() - timedelta(seconds=settings.login_window_seconds)
    db.execute(delete(LoginFailure).where(LoginFailure.at < since))
    limit = settings.login_max_failures
    account = LoginFailure.account_key == account_key
    here = LoginFailure.address_key == address_key
    if (
        _failures(db, since, account, here) >= limit
        or _failures(db, since, account) >= 4 * limit
        or _failures(db, since, here) >= 4 * limit
    ):
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
        # Bookkeeping: removed after the response, outside this request's transaction, so
        # that requests sharing the cookie never queue on the row (ADR 0009).
        if not defer_write(("web_session_end", web_session.id), _end_session(web_session.id)):
            _end_session(web_session.id)(db)
        return None
    return user


def _end_session(session_id: int) -> DeferredWrite:
    def write(db: Session) -> None:
        db.execute(delete(WebSession).where(WebSession.id == session_id))

    return write


def end_session(db: Session, token: str) -> None:
    db.execute(delete(WebSession).where(WebSession.token_digest == security.digest(token)))


def update_profile(db: Session, user: User, data: ProfileUpdate) -> User:
    if data.display_name is not None:
        user.display_name = data.display_name
    if data.preferred_language is not None:
        user.preferred_language = data.preferred_language
    db.flush()
    token_grants.forget(user_id=user.id)  # this process's cached copy of the user is stale
    return user


@dataclass(frozen=True, slots=True)
class NewToken:
    token: ApiToken
    secret: str


def create_token(
    db: Session, user: User, data: TokenCreate, *, parent_digest: str | None = None
) -> NewToken:
    """A new token, expiring after ``data.expires_in_days``; created with another token (whose
    digest is ``parent_digest``), it expires no later than that one (a token without an expiry,
    from before every token had one, counts as expiring at the longest lifetime)."""
    now = utcnow()
    _room_for_a_token(db, user, now)
    secret = security.new_token(TOKEN_PREFIX)
    expires_at = now + timedelta(days=data.expires_in_days)
    if parent_digest is not None:
        parent = db.scalar(
            select(ApiToken.expires_at).where(ApiToken.token_digest == parent_digest)
        )
        cap = as_aware(parent) if parent is not None else now + timedelta(days=TOKEN_MAX_DAYS)
        expires_at = min(expires_at, cap)
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


def _live(now: datetime) -> ColumnElement[bool]:
    return (ApiToken.revoked_at.is_(None)) & (
        ApiToken.expires_at.is_(None) | (ApiToken.expires_at > now)
    )


def _room_for_a_token(db: Session, user: User, now: datetime) -> None:
    """409 when ``user`` holds :data:`MAX_LIVE_TOKENS` live tokens; otherwise the dead ones
    (revoked or expired) past the newest :data:`KEEP_DEAD_TOKENS` are deleted, so that
    creating and revoking in a loop never grows the account page or the table."""
    lock_user(db, user.id)
    live = db.scalar(
        select(func.count()).select_from(ApiToken).where(ApiToken.user_id == user.id, _live(now))
    )
    if (live or 0) >= MAX_LIVE_TOKENS:
        raise TokenLimitReached(
            _("You have %(n)d live API tokens, the most one account may hold: revoke one first.")
            % {"n": MAX_LIVE_TOKENS}
        )
    kept = (
        select(ApiToken.id)
        .where(ApiToken.user_id == user.id, ~_live(now))
        .order_by(ApiToken.id.desc())
        .limit(KEEP_DEAD_TOKENS)
    )
    db.execute(
        delete(ApiToken).where(
            ApiToken.user_id == user.id, ~_live(now), ApiToken.id.not_in(kept.scalar_subquery())
        )
    )


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
    token_grants.forget(token_id=token.id)  # at once here; other processes: TOKEN_GRANT_SECONDS
    return token


# -- API tokens: the lookup of every API request --------------------------------------------
#
# A token's check is cached per process for TOKEN_GRANT_SECONDS (issue 21: the lookup was a
# database query and a trip to the thread pool on every request, about a tenth of a tournament
# cycle's CPU). What that costs in security, bounded and documented (ADR 0009, addendum):
# a token revoked, or an account deactivated, in *another* process keeps working there for at
# most TOKEN_GRANT_SECONDS; in the revoking process it stops at once. An expiry is checked on
# every request against the cached expiry, so it takes effect on time. A profile change is
# seen at once by the process that made it, by the others within the same bound.

TOKEN_GRANT_SECONDS = 10.0
TOKEN_GRANT_ENTRIES = 4096


@dataclass(frozen=True, slots=True)
class TokenGrant:
    """A token found valid by the database, and its user's columns a request reads first."""

    token_id: int
    user_id: int
    expires_at: datetime | None
    email: str
    display_name: str
    preferred_language: str
    checked: float  # time.monotonic() of the database check
    used: datetime | None  # last_used_at as this process last read or wrote it


class TokenGrants:
    """Per-process cache: a token's digest -> its :class:`TokenGrant`, for ``ttl`` seconds."""

    def __init__(self, ttl: float = TOKEN_GRANT_SECONDS, size: int = TOKEN_GRANT_ENTRIES) -> None:
        self.ttl, self.size = ttl, size
        self._lock = threading.Lock()
        self._grants: dict[str, TokenGrant] = {}

    def get(self, digest: str) -> TokenGrant | None:
        with self._lock:
            grant = self._grants.get(digest)
            if grant is not None and time.monotonic() - grant.checked > self.ttl:
                del self._grants[digest]
                return None
            return grant

    def put(self, digest: str, grant: TokenGrant) -> None:
        with self._lock:
            self._grants.pop(digest, None)
            # Oldest check first (a put moves its digest to the end): the grants past their
            # ``ttl`` leave now, not when their token is used again (issue 21, the soak: the
            # tokens of a night's finished games each held a grant until 4096 of them filled
            # the cache, a worker's memory growing as games ended).
            now = time.monotonic()
            while self._grants:
                oldest = next(iter(self._grants))
                if now - self._grants[oldest].checked <= self.ttl:
                    break
                del self._grants[oldest]
            while len(self._grants) >= self.size:  # the oldest goes first
                del self._grants[next(iter(self._grants))]
            self._grants[digest] = grant

    def __len__(self) -> int:
        with self._lock:
            return len(self._grants)

    def forget(self, *, token_id: int | None = None, user_id: int | None = None) -> None:
        with self._lock:
            for digest, grant in list(self._grants.items()):
                if grant.token_id == token_id or grant.user_id == user_id:
                    del self._grants[digest]

    def mark_used(self, token_id: int, at: datetime) -> None:
        """The token's ``last_used_at`` was written: its next touch is due a minute on."""
        with self._lock:
            for digest, grant in list(self._grants.items()):
                if grant.token_id == token_id and (grant.used is None or grant.used < at):
                    self._grants[digest] = replace(grant, used=at)

    def clear(self) -> None:
        with self._lock:
            self._grants.clear()


token_grants = TokenGrants()


def cached_grant_for_api_token(secret: str) -> TokenGrant | None:
    """The token's grant from this process's cache, with no I/O (so on the event loop); None
    when the cache cannot tell (unknown, stale or expired: ask :func:`user_for_api_token`).
    A hit whose ``last_used_at`` is due defers its touch to after the response."""
    if not secret.startswith(TOKEN_PREFIX) or len(secret) > 100:
        return None
    digest = security.digest(secret)
    grant = token_grants.get(digest)
    if grant is None:
        return None
    now = utcnow()
    if grant.expires_at is not None and grant.expires_at <= now:
        token_grants.forget(token_id=grant.token_id)
        return None
    # until a touch is written (``mark_used``), each use asks again, as without the cache;
    # outside a request nothing can be deferred: the database path writes it
    due = grant.used is None or now - grant.used > timedelta(minutes=1)
    touch = ("api_token_used", grant.token_id)
    if due and not defer_write(touch, _touch_token(grant.token_id, now)):
        return None
    return grant


def cached_user_for_api_token(db: Session, secret: str) -> User | None:
    """The token's user from this process's cache (:func:`cached_grant_for_api_token`), attached
    to ``db`` as if loaded (its other columns load on first access); None on a miss."""
    grant = cached_grant_for_api_token(secret)
    if grant is None:
        return None
    user = User(
        id=grant.user_id,
        email=grant.email,
        display_name=grant.display_name,
        preferred_language=grant.preferred_language,
        is_active=True,
    )
    make_transient_to_detached(user)
    db.add(user)
    return user


def user_for_api_token(db: Session, secret: str) -> User | None:
    if not secret.startswith(TOKEN_PREFIX) or len(secret) > 100:
        return None
    # One query: the user as an entity, the token as the four plain columns its check needs
    # (building an ApiToken instance cost as much as the query itself; issue 21).
    digest = security.digest(secret)
    started = time.monotonic()
    row = db.execute(
        select(User, ApiToken.id, ApiToken.revoked_at, ApiToken.expires_at, ApiToken.last_used_at)
        .join(User, User.id == ApiToken.user_id)
        .where(ApiToken.token_digest == digest)
    ).first()
    if row is None:
        return None
    user: User = row[0]
    token_id, revoked_at, expires_at, last = row[1], row[2], row[3], row[4]
    now = utcnow()
    if revoked_at is not None or not user.is_active:
        return None
    if expires_at is not None and as_aware(expires_at) <= now:
        return None
    # At most once a minute, and after the response in a short transaction of its own that
    # skips a locked row: one token used by 50 matches at once never makes them queue on its
    # row (issue 21, ADR 0009).
    due = last is None or now - as_aware(last) > timedelta(minutes=1)
    if due and not defer_write(("api_token_used", token_id), _touch_token(token_id, now)):
        _touch_token(token_id, now)(db)
    token_grants.put(
        digest,
        TokenGrant(
            token_id=token_id,
            user_id=user.id,
            expires_at=as_aware(expires_at) if expires_at is not None else None,
            email=user.email,
            display_name=user.display_name,
            preferred_language=user.preferred_language,
            checked=started,  # the bound counts from before the read
            used=None if last is None else as_aware(last),  # the touch above may be skipped
        ),
    )
    return user


def _touch_token(token_id: int, at: datetime) -> DeferredWrite:
    def write(db: Session) -> None:
        free = (
            select(ApiToken.id)
            .where(ApiToken.id == token_id)
            .with_for_update(skip_locked=True)
            .scalar_subquery()
        )
        done = db.execute(
            update(ApiToken)
            .where(
                ApiToken.id == free,
                or_(ApiToken.last_used_at.is_(None), ApiToken.last_used_at < at),
            )
            .values(last_used_at=at)
            .execution_options(synchronize_session=False)
        )
        if getattr(done, "rowcount", 0):  # written (not skipped): this process's cache knows
            token_grants.mark_used(token_id, at)

    return write
