"""Fixtures for the catalogue import tests: our own hand-written BattleScribe files."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from app.catalog.bsdata import ImportResult, import_files

FIXTURES = Path(__file__).parent / "fixtures"
REAL_DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "bsdata-wh40k-10e"


def fixture_files() -> list[tuple[str, bytes]]:
    return [
        (p.name, p.read_bytes()) for p in sorted(FIXTURES.iterdir()) if p.suffix in (".gst", ".cat")
    ]


def zipped(name: str, data: bytes) -> tuple[str, bytes]:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(name, data)
    return name + "z", buf.getvalue()


@pytest.fixture(scope="session")
def zip_it() -> Callable[[str, bytes], tuple[str, bytes]]:
    """Zip one file the way BattleScribe does (``Orks.cat`` -> ``Orks.catz``)."""
    return zipped


@pytest.fixture(scope="session")
def files() -> list[tuple[str, bytes]]:
    return fixture_files()


@pytest.fixture(scope="session")
def imported(files: list[tuple[str, bytes]]) -> ImportResult:
    return import_files(files)


@pytest.fixture(scope="session")
def real_files() -> list[tuple[str, bytes]]:
    if not REAL_DATA.is_dir():
        pytest.skip(f"the BSData files are not present at {REAL_DATA}")
    return [(p.name, p.read_bytes()) for p in sorted(REAL_DATA.iterdir()) if p.is_file()]


@pytest.fixture(scope="session")
def real_import(real_files: list[tuple[str, bytes]]) -> ImportResult:
    return import_files(real_files)
