"""Settings from the environment (prefix ``W40K_``), with safe local defaults.

The app refuses to start in production with the development secret: see
:meth:`Settings.check_production_ready`.
"""

from __future__ import annotations

import ipaddress
from enum import StrEnum
from functools import lru_cache
from pathlib import Path

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ROOT = Path(__file__).resolve().parents[2]
DEV_SECRET = "dev-only-insecure-secret-change-me"  # noqa: S105 - the known default we refuse in production


class Environment(StrEnum):
    DEVELOPMENT = "development"
    TEST = "test"
    PRODUCTION = "production"


class InsecureConfiguration(RuntimeError):
    """Raised at start-up when production settings are unsafe."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="W40K_", extra="ignore")

    env: Environment = Environment.DEVELOPMENT
    database_url: str = f"sqlite:///{ROOT / 'var' / 'auspex.db'}"
    secret_key: str = DEV_SECRET
    # Browser sessions.
    session_cookie: str = "auspex_session"
    session_ttl_hours: int = Field(default=24 * 14, ge=1, le=24 * 365)
    cookie_secure: bool | None = None  # None: secure in production only
    # Failed-login throttling, per window: at most N failures per account from one address, 4N
    # per account from all addresses, 4N per address (app.accounts.service.authenticate).
    login_max_failures: int = Field(default=5, ge=1)
    login_window_seconds: int = Field(default=15 * 60, ge=1)
    # Reverse proxies whose X-Forwarded-For / X-Forwarded-Proto are believed: IP addresses or
    # networks, comma-separated (e.g. "172.18.0.0/16"). Empty: no forwarded header is believed,
    # from anyone; the client is the socket's peer.
    trusted_proxies: str = ""
    # Request bounds.
    max_body_bytes: int = Field(default=1024 * 1024, ge=1024)
    max_upload_bytes: int = Field(default=32 * 1024 * 1024, ge=1024)
    sql_echo: bool = False
    # Capacity of one worker process, chosen together (ADR 0009): every admitted request holds
    # at most one pool connection, stream reads have their own few, /healthz one of its own,
    # and after-response bookkeeping one more, so the pool never runs dry and nothing waits
    # on it: db_pool_size >= max_in_flight + stream_reads + 2.
    db_pool_size: int = Field(default=12, ge=3, le=200)
    db_pool_timeout: float = Field(default=3.0, gt=0, le=30)
    # SQLite: seconds a request's writer waits for another writer's lock before its 503 (the
    # command line and migrations wait 15 s: app.core.db.BUSY_TIMEOUT_MS)
    db_busy_timeout: float = Field(default=2.0, gt=0, le=60)
    max_in_flight: int = Field(default=8, ge=1, le=200)  # requests at work at once
    admission_queue: int = Field(default=64, ge=0, le=10_000)  # requests waiting for a slot
    admission_wait_seconds: float = Field(default=1.0, ge=0, le=30)
    stream_reads: int = Field(default=2, ge=1, le=50)  # SSE reads of the database at once
    threads: int = Field(default=24, ge=4, le=400)  # AnyIO worker threads (sync endpoints)
    retry_after_seconds: int = Field(default=2, ge=1, le=300)
    # A server process's full garbage collection every this many seconds (0: none), a backstop
    # for reference cycles now that the collector's own full collections come rarely
    # (app.core.runtime, ADR 0009).
    full_gc_seconds: float = Field(default=600.0, ge=0, le=86_400)
    # A directory of narrative mission packs (docs/mission-packs.md) read at start-up beside the
    # shipped ones: a club adds its scenarios without code. A bad pack is logged and skipped.
    mission_packs_dir: Path | None = None
    # "fast" makes argon2 cheap for the test suite; refused in production.
    password_hash: str = "strong"  # noqa: S105 - a mode name, not a password

    @field_validator("trusted_proxies")
    @classmethod
    def _proxy_addresses(cls, value: str) -> str:
        for item in _items(value):
            try:
                ipaddress.ip_network(item, strict=False)
            except ValueError:
                raise ValueError(
                    f"W40K_TRUSTED_PROXIES: {item!r} is not an IP address or network; name the "
                    "reverse proxy's address (or its network), never '*'."
                ) from None
        return value

    @property
    def trusted_proxy_list(self) -> list[str]:
        return _items(self.trusted_proxies)

    @model_validator(mode="after")
    def _capacity_fits(self) -> Settings:
        needed = self.max_in_flight + self.stream_reads + 2
        if self.db_pool_size < needed:
            raise ValueError(
                f"W40K_DB_POOL_SIZE ({self.db_pool_size}) must be at least W40K_MAX_IN_FLIGHT + "
                f"W40K_STREAM_READS + 2 ({needed}): otherwise requests wait on the pool."
            )
        if self.threads < needed:
            raise ValueError(
                f"W40K_THREADS ({self.threads}) must be at least W40K_MAX_IN_FLIGHT + "
                f"W40K_STREAM_READS + 2 ({needed}): otherwise admitted requests wait for a thread."
            )
        return self

    @property
    def secure_cookies(self) -> bool:
        if self.cookie_secure is not None:
            return self.cookie_secure
        return self.env is Environment.PRODUCTION

    def check_production_ready(self) -> None:
        if self.env is not Environment.PRODUCTION:
            return
        if self.password_hash != "strong":  # noqa: S105
            raise InsecureConfiguration("W40K_PASSWORD_HASH must not be set in production.")
        if self.secret_key == DEV_SECRET or len(self.secret_key) < 32:
            raise InsecureConfiguration(
                "W40K_SECRET_KEY must be set to a random value of at least 32 characters in "
                "production, e.g. `python3 -c 'import secrets; print(secrets.token_urlsafe(48))'`."
            )


def _items(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


@lru_cache
def get_settings() -> Settings:
    return Settings()
