"""The club deployment, checked by parsing it (no Docker engine runs here)."""

from __future__ import annotations

import re

import yaml

from app.core.config import ROOT


def _compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_runs_the_app_on_postgres_16_with_a_healthcheck_and_volume() -> None:
    compose = _compose()
    db = compose["services"]["db"]
    assert db["image"].startswith("postgres:16")
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    assert any(v.endswith(":/var/lib/postgresql/data") for v in db["volumes"])
    assert "pgdata" in compose["volumes"]


def test_compose_app_waits_for_a_healthy_database_and_is_configured_for_production() -> None:
    app = _compose()["services"]["app"]
    assert app["depends_on"]["db"]["condition"] == "service_healthy"
    env = app["environment"]
    assert env["W40K_ENV"] == "production"
    assert env["W40K_DATABASE_URL"].startswith("postgresql+psycopg://")
    assert "@db:5432/" in env["W40K_DATABASE_URL"]
    # the secret must be provided: compose refuses to start without it
    assert re.fullmatch(r"\$\{W40K_SECRET_KEY:\?.+\}", env["W40K_SECRET_KEY"])
    assert int(env["WORKERS"].split(":-")[-1].rstrip("}")) > 1


def test_image_applies_migrations_then_runs_several_workers() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    cmd = next(line for line in dockerfile.splitlines() if line.startswith("CMD"))
    assert cmd.index("auspex migrate") < cmd.index("uvicorn")
    assert "--workers" in cmd
    assert "auspex check" in cmd
    for needed in ("migrations", "templates", "static", "translations", "alembic.ini"):
        assert f"COPY {needed}" in dockerfile, needed


def test_readme_documents_the_compose_environment() -> None:
    readme = (ROOT / "README.md").read_text()
    for name in ("W40K_SECRET_KEY", "POSTGRES_PASSWORD", "W40K_DATABASE_URL", "docker compose up"):
        assert name in readme, name


def test_forwarded_headers_are_believed_from_the_configured_proxies_only() -> None:
    """uvicorn trusts no forwarded header (the app does, from W40K_TRUSTED_PROXIES): with
    `--forwarded-allow-ips='*'` and the port published, any client could name its address."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    cmd = next(line for line in dockerfile.splitlines() if line.startswith("CMD"))
    assert "--no-proxy-headers" in cmd
    assert "forwarded-allow-ips" not in cmd
    env = _compose()["services"]["app"]["environment"]
    assert env["W40K_TRUSTED_PROXIES"] == "${W40K_TRUSTED_PROXIES:-}"  # none unless named


def test_auspex_serve_leaves_forwarded_headers_to_the_app(monkeypatch) -> None:
    import uvicorn

    from app import cli

    calls: list[dict] = []
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: calls.append(kwargs))
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "*")
    assert cli.main(["serve", "--port", "8123"]) == 0
    assert calls[0]["proxy_headers"] is False
    assert "forwarded_allow_ips" not in calls[0]
