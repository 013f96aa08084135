"""Settings: safe local defaults, and no production start with the default secret."""

from __future__ import annotations

import pytest

from app.core.config import DEV_SECRET, Environment, InsecureConfiguration, Settings


def test_local_defaults_use_sqlite_under_var() -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.database_url.startswith("sqlite:///")
    assert settings.database_url.endswith("var/auspex.db")
    assert settings.secure_cookies is False


def test_settings_come_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("W40K_DATABASE_URL", "postgresql+psycopg://u@h/db")
    monkeypatch.setenv("W40K_SESSION_TTL_HOURS", "5")
    settings = Settings()
    assert settings.database_url == "postgresql+psycopg://u@h/db"
    assert settings.session_ttl_hours == 5


@pytest.mark.parametrize("secret", [DEV_SECRET, "short"])
def test_production_refuses_a_default_or_weak_secret(secret: str) -> None:
    settings = Settings(env=Environment.PRODUCTION, secret_key=secret, password_hash="strong")
    with pytest.raises(InsecureConfiguration, match="W40K_SECRET_KEY"):
        settings.check_production_ready()


def test_production_accepts_a_real_secret_and_secures_cookies() -> None:
    settings = Settings(env=Environment.PRODUCTION, secret_key="x" * 48, password_hash="strong")
    settings.check_production_ready()
    assert settings.secure_cookies is True


def test_app_factory_refuses_to_start_insecure() -> None:
    from app.main import create_app

    with pytest.raises(InsecureConfiguration):
        create_app(Settings(env=Environment.PRODUCTION, secret_key=DEV_SECRET))


def test_cli_check_reports_insecure_production(monkeypatch, capsys) -> None:
    from app.cli import main
    from app.core.config import get_settings

    monkeypatch.setenv("W40K_ENV", "production")
    monkeypatch.delenv("W40K_SECRET_KEY", raising=False)
    monkeypatch.delenv("W40K_PASSWORD_HASH", raising=False)
    get_settings.cache_clear()
    try:
        assert main(["check"]) == 1
        assert "W40K_SECRET_KEY" in capsys.readouterr().err
    finally:
        get_settings.cache_clear()


def test_production_refuses_the_fast_test_hash() -> None:
    settings = Settings(env=Environment.PRODUCTION, secret_key="x" * 48, password_hash="fast")
    with pytest.raises(InsecureConfiguration):
        settings.check_production_ready()


def test_without_the_test_switch_passwords_use_argon2_defaults(monkeypatch) -> None:
    """The module's own hasher, rebuilt as production builds it, has argon2's parameters."""
    import importlib

    from argon2 import PasswordHasher

    from app.core import security

    monkeypatch.delenv("W40K_PASSWORD_HASH", raising=False)
    assert Settings(_env_file=None).password_hash == "strong"  # type: ignore[call-arg]
    try:
        production = importlib.reload(security)
        defaults = PasswordHasher()
        assert production._hasher.time_cost == defaults.time_cost
        assert production._hasher.memory_cost == defaults.memory_cost
        assert production.hash_password("x" * 12).startswith(
            f"$argon2id$v=19$m={defaults.memory_cost},t={defaults.time_cost}"
        )
    finally:
        monkeypatch.setenv("W40K_PASSWORD_HASH", "fast")
        importlib.reload(security)
