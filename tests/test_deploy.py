"""The club deployment, checked by parsing it (no Docker engine runs here)."""

from __future__ import annotations

import ipaddress
import re

import yaml

from app.core.config import ROOT


def _compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def _default(value: object) -> str:
    """What compose makes of ``${VAR:-default}`` when VAR is not set (plain text unchanged)."""
    text = str(value)
    found = re.fullmatch(r"\$\{\w+:-(.*)\}", text)
    return found.group(1) if found else text


def _caddyfile() -> list[object]:
    """deploy/Caddyfile as nested lists: a directive is its tokens, then its block (a list)."""
    root: list[object] = []
    stack = [root]
    for raw in (ROOT / "deploy" / "Caddyfile").read_text().splitlines():
        line = raw.split("#", 1)[0].strip() if not raw.strip().startswith("#") else ""
        if not line:
            continue
        if line == "}":
            stack.pop()
            continue
        tokens = line.split()
        if tokens[-1] == "{":
            block: list[object] = []
            stack[-1].append((tokens[:-1], block))
            stack.append(block)
        else:
            stack[-1].append((tokens, []))
    assert len(stack) == 1, "unbalanced braces in deploy/Caddyfile"
    return root


def _directives(block: list[object], name: str) -> list[tuple[list[str], list[object]]]:
    return [d for d in block if d[0][0] == name]  # type: ignore[index]


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
    compose = _compose()
    trusted = _default(compose["services"]["app"]["environment"]["W40K_TRUSTED_PROXIES"])
    # the compose network only (the proxy's), and the app's port is not published: nobody
    # outside the network can reach the app to name an address of their choosing
    assert trusted == _default(compose["networks"]["auspex"]["ipam"]["config"][0]["subnet"])
    assert "*" not in trusted
    assert "ports" not in compose["services"]["app"]


def test_auspex_serve_leaves_forwarded_headers_to_the_app(monkeypatch) -> None:
    import uvicorn

    from app import cli

    calls: list[dict] = []
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: calls.append(kwargs))
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "*")
    assert cli.main(["serve", "--port", "8123"]) == 0
    assert calls[0]["proxy_headers"] is False
    assert "forwarded_allow_ips" not in calls[0]


# -- scale out: N replicas behind the reverse proxy --------------------------------------------


def _proxy_block() -> tuple[list[object], list[object]]:
    """(the site's block, its reverse_proxy block)."""
    (site,) = _caddyfile()
    tokens, block = site  # type: ignore[misc]
    assert tokens == ["{$AUSPEX_SITE:localhost}"]  # the address comes from compose's env
    ((_, proxy),) = _directives(block, "reverse_proxy")
    return block, proxy


def test_compose_runs_several_app_replicas_and_publishes_only_the_proxy() -> None:
    services = _compose()["services"]
    app = services["app"]
    assert int(_default(app["deploy"]["replicas"])) >= 2
    assert app["deploy"]["replicas"] == "${REPLICAS:-2}"  # `--scale app=N` overrides it
    assert "ports" not in app
    assert "container_name" not in app
    assert app["expose"] == ["8000"]
    published = {name for name, service in services.items() if service.get("ports")}
    assert published == {"proxy"}
    proxy = services["proxy"]
    assert proxy["image"] == "caddy:2"
    targets = {re.sub(r"\$\{\w+:-(\d+)\}", r"\1", p) for p in proxy["ports"]}
    assert targets == {"80:80", "443:443", "443:443/udp"}
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in proxy["volumes"]
    assert any(v.startswith("caddy_data:") for v in proxy["volumes"])  # certificates kept
    for name in ("db", "app", "proxy"):
        assert services[name]["networks"] == ["auspex"], name


def test_the_proxy_balances_over_every_app_replica() -> None:
    _, proxy = _proxy_block()
    ((tokens, source),) = _directives(proxy, "dynamic")
    assert tokens == ["dynamic", "a"]  # Docker's DNS: one A record per replica
    settings = {d[0][0]: d[0][1:] for d in source}  # type: ignore[index]
    assert settings["name"] == ["app"]  # the compose service
    expose = _compose()["services"]["app"]["expose"]
    assert settings["port"] == expose  # the port the app listens on
    assert "EXPOSE 8000" in (ROOT / "Dockerfile").read_text()
    assert settings["refresh"]  # new and restarted replicas are picked up
    ((lb, _),) = _directives(proxy, "lb_policy")
    assert lb == ["lb_policy", "least_conn"]  # long-lived streams spread by open connections
    assert _directives(proxy, "lb_try_duration")  # a restarting replica: another one is tried


def test_the_proxy_passes_live_updates_unbuffered() -> None:
    _, proxy = _proxy_block()
    ((flush, _),) = _directives(proxy, "flush_interval")
    assert flush == ["flush_interval", "-1"]
    # nothing in the site compresses (a compressor would hold SSE bytes back), and nothing
    # cuts a stream short (the app ends its streams itself, within 600 s)
    site, _ = _proxy_block()
    assert not _directives(site, "encode")
    assert not _directives(proxy, "stream_timeout")


def test_the_proxy_names_the_client_and_the_app_believes_it_from_the_proxy_only() -> None:
    from app.core.config import Settings

    _, proxy = _proxy_block()
    headers = {d[0][1]: d[0][2:] for d in _directives(proxy, "header_up")}  # type: ignore[index]
    # replaced with the address Caddy saw, never appended to what the client sent
    assert headers["X-Forwarded-For"] == ["{remote_host}"]
    assert headers["X-Forwarded-Proto"] == ["{scheme}"]
    compose = _compose()
    trusted = _default(compose["services"]["app"]["environment"]["W40K_TRUSTED_PROXIES"])
    network = ipaddress.ip_network(trusted)
    assert network.is_private
    assert network.prefixlen >= 16
    settings = Settings(trusted_proxies=trusted)  # the app accepts it at start-up
    assert settings.trusted_proxy_list == [str(network)]


def test_the_replicas_connections_fit_in_postgres() -> None:
    """Each worker holds its pool and one LISTEN connection for live updates."""
    from app.core.config import Settings

    app = _compose()["services"]["app"]
    replicas = int(_default(app["deploy"]["replicas"]))
    workers = int(_default(app["environment"]["WORKERS"]))
    per_worker = Settings().db_pool_size + 1
    assert replicas * workers * per_worker <= 100 - 3  # Postgres' max_connections, superusers'
