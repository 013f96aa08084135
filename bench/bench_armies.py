"""Benchmark the army endpoints, end to end, against the pure engine in the same run.

    .venv/bin/python bench/bench_armies.py

Cases (each printed with our time and a ratio against a baseline measured in this run):

1. ``POST /api/v1/rulesets/wh40k-10e/armies/validate`` with a 3000-point (Onslaught) list,
   through the whole app (routing, auth, schema, catalogue lookup and cache, validation,
   translated messages, JSON) on a scratch SQLite database. Baseline: the pure
   ``validate(roster, catalogue)`` on the same list. Target: the endpoint well under 20 ms.
2. ``GET /api/v1/armies/{id}`` of a stored list of that size (read + validate + render).
   Baseline: the same pure ``validate()``.
3. Importing the real BSData files through ``POST /api/v1/catalogs/import`` (parse, build,
   store). Baseline: the pure importer ``import_files`` on the same bytes. Skipped, saying why,
   if ../shared/data/bsdata-wh40k-10e is absent.
"""

from __future__ import annotations

import logging
import os
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BSDATA = ROOT.parent / "shared" / "data" / "bsdata-wh40k-10e"

ONSLAUGHT: list[tuple[str, dict[str, Any]]] = [
    ("Ghazghkull Thraka", {"warlord": True, "attached_to": 4}),
    ("Warboss", {"enhancements": ["Follow Me Ladz"], "attached_to": 5}),
    ("Big Mek", {"enhancements": ["Kunnin’ But Brutal"], "attached_to": 6}),
    ("Painboy", {"attached_to": 8}),
    ("Meganobz", {"models": 6}),
    ("Boyz", {"models": 20}),
    ("Boyz", {"models": 20}),
    ("Beast Snagga Boyz", {"models": 20}),
    ("Boyz", {"models": 10}),
    ("Gretchin", {"models": 22}),
    ("Nobz", {"models": 10}),
    ("Kommandos", {"models": 10}),
    ("Stormboyz", {"models": 10}),
    ("Trukk", {}),
    ("Trukk", {}),
    ("Battlewagon", {}),
    ("Deff Dread", {}),
    ("Killa Kans", {"models": 3}),
    ("Mek Gunz", {"models": 3}),
    ("Deffkoptas", {"models": 3}),
    ("Warbikers", {"models": 3}),
    ("Lootas", {"models": 5}),
    ("Gorkanaut", {}),
]


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median seconds of ``repeat`` calls (after one warm-up call)."""
    fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> int:
    workdir = Path(tempfile.mkdtemp(prefix="bench-armies-"))
    url = f"sqlite:///{workdir / 'bench.db'}"
    os.environ["W40K_DATABASE_URL"] = url

    warnings.filterwarnings("ignore", message=".*httpx.*")
    from fastapi.testclient import TestClient

    from app.catalog.bsdata import import_files
    from app.catalog.starter import starter_catalogue
    from app.core import migrate
    from app.core.config import Environment, Settings
    from app.core.db import Database
    from app.engine.wh40k10e.army import BattleSize, Roster, RosterUnit, validate
    from app.main import create_app
    from app.starter import load_all

    migrate.upgrade(url)
    database = Database(url)
    with database.sessions.begin() as session:
        load_all(session)
    settings = Settings(env=Environment.TEST, database_url=url, secret_key="b" * 48)
    app = create_app(settings, database)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    client = TestClient(app)

    body = {
        "faction": "Orks",
        "detachment": "War Horde",
        "battle_size": "onslaught",
        "units": [{"datasheet": name, **extra} for name, extra in ONSLAUGHT],
    }
    catalogue = starter_catalogue()
    roster = Roster(
        "Orks",
        "War Horde",
        BattleSize.ONSLAUGHT,
        tuple(
            RosterUnit(
                name,
                models=extra.get("models"),
                enhancements=tuple(extra.get("enhancements", ())),
                warlord=extra.get("warlord", False),
                attached_to=extra.get("attached_to"),
            )
            for name, extra in ONSLAUGHT
        ),
    )
    result = validate(roster, catalogue)
    answer = client.post("/api/v1/rulesets/wh40k-10e/armies/validate", json=body).json()
    assert answer["points"] == result.points
    assert answer["valid"] == result.valid

    pure = timed(lambda: validate(roster, catalogue), 300)
    endpoint = timed(
        lambda: client.post("/api/v1/rulesets/wh40k-10e/armies/validate", json=body), 100
    )
    print(
        f"validate endpoint, {result.points}-point list ({len(roster.units)} units): "
        f"ours {endpoint * 1e3:.2f} ms, pure validate() {pure * 1e3:.3f} ms, ratio "
        f"endpoint/pure {endpoint / pure:.0f}x; target < 20 ms: "
        f"{'ok' if endpoint < 0.020 else 'MISSED'}"
    )

    from app.accounts import service as accounts
    from app.accounts.schemas import Registration, TokenCreate

    with database.sessions.begin() as session:
        user = accounts.register(
            session,
            Registration(
                email="bench@example.com", display_name="Bench", password="a long enough password"
            ),
        )
        token = accounts.create_token(session, user, TokenCreate(name="bench")).secret
    headers = {"Authorization": f"Bearer {token}"}
    army = client.post(
        "/api/v1/armies", json={"name": "Bench Onslaught", **body}, headers=headers
    ).json()
    read = timed(lambda: client.get(f"/api/v1/armies/{army['id']}", headers=headers), 100)
    print(
        f"read a stored {army['validation']['points']}-point list: ours {read * 1e3:.2f} ms, "
        f"pure validate() {pure * 1e3:.3f} ms, ratio read/pure {read / pure:.0f}x"
    )

    if not BSDATA.is_dir():
        print(f"import through the API: skipped, {BSDATA} is absent")
        return 0
    files = [(p.name, p.read_bytes()) for p in sorted(BSDATA.iterdir()) if p.is_file()]
    size = sum(len(d) for _, d in files)
    start = time.perf_counter()
    response = client.post(
        "/api/v1/catalogs/import",
        files=[("files", (name, data)) for name, data in files],
        headers=headers,
    )
    api_time = time.perf_counter() - start
    assert response.status_code == 201, response.text[:500]
    start = time.perf_counter()
    imported = import_files(files)
    pure_import = time.perf_counter() - start
    sheets = sum(len(c.datasheets) for c in imported.catalogues)
    print(
        f"import {len(files)} BSData files ({size / 1e6:.1f} MB, {sheets} datasheets) through "
        f"the API: ours {api_time:.2f} s, pure import_files {pure_import:.2f} s, ratio "
        f"api/pure {api_time / pure_import:.2f}x"
    )
    database.engine.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
