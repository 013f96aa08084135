"""End-to-end fixtures: the real app under uvicorn, driven by Debian's headless Chromium."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator

import pytest

from app.core.config import ROOT

CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app as `make run` starts it (migrate, seed, serve) on a scratch SQLite database.

    One server for every browser test, as a club's server lives through many players' flows.
    """
    workdir = tmp_path_factory.mktemp("e2e")
    db = workdir / "e2e.db"
    log = workdir / "server.log"  # a file, not a pipe: a pipe nobody reads fills and blocks
    port = _free_port()
    env = {**os.environ, "W40K_DATABASE_URL": f"sqlite:///{db}", "W40K_ENV": "development"}
    env.pop("W40K_TEST_DATABASE_URL", None)
    cli = [sys.executable, "-m", "app.cli"]
    subprocess.run([*cli, "migrate"], env=env, cwd=ROOT, check=True, capture_output=True)
    subprocess.run([*cli, "seed"], env=env, cwd=ROOT, check=True, capture_output=True)
    with log.open("wb") as log_file:
        server = subprocess.Popen(
            [*cli, "serve", "--port", str(port)],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=log_file,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(base + "/healthz", timeout=1) as response:  # noqa: S310
                    if response.status == 200:
                        break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(log.read_text(errors="replace")[-4000:]) from None
                time.sleep(0.2)
        yield base
        # a 500 the pages swallowed is still a failure
        crashes = [
            line
            for line in log.read_text(errors="replace").splitlines()
            if "unhandled error" in line
        ]
        assert not crashes, "the server logged unhandled errors: " + "; ".join(crashes[:5])
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium")
    assert executable, "Debian's chromium is missing: run `make browser` (apt-get install chromium)"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, live_server):  # type: ignore[no-untyped-def]
    context = browser.new_context(base_url=live_server, locale="en-GB")
    page = context.new_page()
    yield page
    context.close()
