"""What production serves: ``app.asgi:app`` under the Dockerfile's uvicorn command (issue 21).

``app.asgi`` tunes the process it is imported in (the garbage collector), so it is imported in
a child process, as a uvicorn worker imports it."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app import cli
from app.core import runtime
from app.core.config import ROOT

PROBE = """
import gc, json, signal, threading
import app.asgi
from fastapi.testclient import TestClient
from app.matches.api import HotRoute

with TestClient(app.asgi.app) as client:
    health = client.get("/healthz")
print(json.dumps({
    "health": [health.status_code, health.json()],
    "first_routes": [type(r).__name__ for r in app.asgi.app.router.routes[:3]],
    "hot_routes": sum(isinstance(r, HotRoute) for r in app.asgi.app.router.routes),
    "threshold": list(gc.get_threshold()),
    "frozen": gc.get_freeze_count(),
    "sigusr1_default": signal.getsignal(signal.SIGUSR1) is signal.SIG_DFL,
    "sigusr2_default": signal.getsignal(signal.SIGUSR2) is signal.SIG_DFL,
    "gc_backstop": any(t.name == "gc-backstop" for t in threading.enumerate()),
}))
"""


def _probe(tmp_path: Path, **env: str) -> dict[str, Any]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("W40K_")}
    environ.update(W40K_DATABASE_URL=f"sqlite:///{tmp_path / 'asgi.db'}", **env)
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_the_asgi_app_answers_with_the_hot_lane_first_and_its_start_up_frozen(
    tmp_path: Path,
) -> None:
    found = _probe(tmp_path)
    assert found["health"] == [200, {"status": "ok", "database": "ok"}]
    # the two hot routes (a command, a refresh) are tried before any FastAPI route, once each
    assert found["first_routes"][:2] == ["HotRoute", "HotRoute"]
    assert found["first_routes"][2] != "HotRoute"
    assert found["hot_routes"] == 2
    # tune_gc(): what start-up built is frozen out of the collector, collections spaced out
    assert found["threshold"] == list(runtime.GC_THRESHOLDS)
    assert found["frozen"] > 10_000
    if hasattr(__import__("signal"), "SIGUSR1"):
        assert found["sigusr1_default"] is True  # the memory diagnostic is off unless set
        assert found["sigusr2_default"] is True  # so is the latency trace
    assert found["gc_backstop"] is True  # a full collection every W40K_FULL_GC_SECONDS


def test_the_full_collection_backstop_can_be_turned_off(tmp_path: Path) -> None:
    assert _probe(tmp_path, W40K_FULL_GC_SECONDS="0")["gc_backstop"] is False


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGUSR2"), reason="POSIX signals only")
def test_the_latency_trace_is_installed_only_when_asked_for(tmp_path: Path) -> None:
    assert _probe(tmp_path, W40K_LATENCY_TRACE=str(tmp_path / "trace"))["sigusr2_default"] is False


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGUSR1"), reason="POSIX signals only")
def test_the_memory_diagnostic_is_installed_only_when_asked_for(tmp_path: Path) -> None:
    found = _probe(tmp_path, W40K_TRACEMALLOC=str(tmp_path / "dumps"))
    assert found["sigusr1_default"] is False
    assert (tmp_path / "dumps").is_dir()


# -- the production command and the benchmarks' server are the same --------------------------


def _dockerfile() -> tuple[str, dict[str, str]]:
    """The Dockerfile's CMD line and its ENV settings."""
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    cmd = next(line for line in lines if line.startswith("CMD"))
    env: dict[str, str] = {}
    for line in lines:
        if line.startswith("ENV "):
            for pair in line.removeprefix("ENV ").split():
                name, _, value = pair.partition("=")
                env[name] = value
    return cmd, env


def _bench_flags() -> tuple[str, ...]:
    """``bench/_support.py``'s ``PRODUCTION_FLAGS`` (read, not imported: a benchmark module)."""
    tree = ast.parse((ROOT / "bench" / "_support.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "PRODUCTION_FLAGS" for t in node.targets
        ):
            flags: tuple[str, ...] = ast.literal_eval(node.value)
            return flags
    raise AssertionError("bench/_support.py has no PRODUCTION_FLAGS")


def test_production_runs_uvicorn_without_an_access_log_on_uvloop_and_httptools() -> None:
    cmd, env = _dockerfile()
    assert "uvicorn app.asgi:app" in cmd
    assert env.get("UVICORN_ACCESS_LOG") == "false"  # uvicorn reads it; true turns it back on
    assert "--access-log" not in cmd.replace("--no-access-log", "")
    # what the benchmarks run is what the image runs
    for flag in _bench_flags():
        assert f" {flag}" in cmd, flag


def test_compose_keeps_the_access_log_off_unless_asked() -> None:
    import yaml

    env = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["app"][
        "environment"
    ]
    assert env["UVICORN_ACCESS_LOG"] == "${ACCESS_LOG:-false}"


def test_auspex_serve_has_no_access_log_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    seen: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.append({"app": app, **kw}))
    monkeypatch.delenv("UVICORN_ACCESS_LOG", raising=False)
    assert cli.main(["serve", "--port", "8123"]) == 0
    monkeypatch.setenv("UVICORN_ACCESS_LOG", "true")
    assert cli.main(["serve"]) == 0
    monkeypatch.setenv("UVICORN_ACCESS_LOG", "false")
    assert cli.main(["serve", "--access-log"]) == 0
    assert cli.main(["serve"]) == 0
    assert [s["access_log"] for s in seen] == [False, True, True, False]
    assert {s["app"] for s in seen} == {"app.asgi:app"}
    assert {s["proxy_headers"] for s in seen} == {False}
    assert seen[0]["port"] == 8123
