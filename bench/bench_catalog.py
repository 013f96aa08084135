"""Benchmark the army builder's catalogue work.

    .venv/bin/python bench/bench_catalog.py

Cases (each printed with our time and a ratio against a baseline measured in this run):

1. Validating a 3000-point (Onslaught) list against the starter catalogue, the catalogue
   already loaded and indexed. Baseline: a naive stateless validation that re-reads and
   re-indexes the catalogue from its JSON every time (what an endpoint without a catalogue cache
   would do). Target: well under 20 ms per validation.
2. Importing the largest real BSData catalogue (Space Marines, with the game system and every
   library it links). Baseline: plain XML parsing of the same bytes with
   ``xml.etree.ElementTree.fromstring`` (the floor any importer pays). Skipped, saying why, if
   ../shared/data/bsdata-wh40k-10e is absent.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.catalog.bsdata import import_files  # noqa: E402
from app.engine.wh40k10e.army import (  # noqa: E402
    BattleSize,
    Catalogue,
    Roster,
    RosterUnit,
    load_catalogues,
    validate,
)

STARTER = ROOT / "data" / "catalog" / "starter-wh40k10e.json"
BSDATA = ROOT.parent / "shared" / "data" / "bsdata-wh40k-10e"
LARGEST_WITH_LINKS = (
    "Warhammer 40,000.gst",
    "Imperium - Space Marines.cat",
    "Imperium - Agents of the Imperium.cat",
    "Imperium - Imperial Knights - Library.cat",
    "Library - Titans.cat",
    "Library - Astartes Heresy Legends.cat",
    "Unaligned Forces.cat",
)


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median seconds of ``repeat`` calls."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def onslaught_list(catalogue: Catalogue) -> Roster:
    units = (
        RosterUnit("Ghazghkull Thraka", warlord=True, attached_to=4),
        RosterUnit("Warboss", enhancements=("Follow Me Ladz",), attached_to=5),
        RosterUnit("Big Mek", enhancements=("Kunnin’ But Brutal",), attached_to=6),
        RosterUnit("Painboy", attached_to=8),
        RosterUnit("Meganobz", models=6),
        RosterUnit("Boyz", models=20),
        RosterUnit("Boyz", models=20),
        RosterUnit("Beast Snagga Boyz", models=20),
        RosterUnit("Boyz", models=10),
        RosterUnit("Gretchin", models=22),
        RosterUnit("Nobz", models=10),
        RosterUnit("Kommandos", models=10),
        RosterUnit("Stormboyz", models=10),
        RosterUnit("Trukk"),
        RosterUnit("Trukk"),
        RosterUnit("Battlewagon"),
        RosterUnit("Deff Dread"),
        RosterUnit("Killa Kans", models=3),
        RosterUnit("Mek Gunz", models=3),
        RosterUnit("Deffkoptas", models=3),
        RosterUnit("Warbikers", models=3),
        RosterUnit("Lootas", models=5),
        RosterUnit("Gorkanaut"),
    )
    return Roster("Orks", "War Horde", BattleSize.ONSLAUGHT, units, name="Bench Onslaught")


def bench_validation() -> None:
    doc = json.loads(STARTER.read_text(encoding="utf-8"))
    (catalogue,) = load_catalogues(doc)
    roster = onslaught_list(catalogue)
    result = validate(roster, catalogue)
    ours = timed(lambda: validate(roster, catalogue), 300)
    naive = timed(lambda: validate(roster, load_catalogues(doc)[0]), 30)
    print(
        f"validate a {result.points}-point list ({len(roster.units)} units, "
        f"{len(result.violations)} violations): ours {ours * 1e3:.3f} ms, "
        f"naive re-read of the catalogue {naive * 1e3:.1f} ms, ratio naive/ours "
        f"{naive / ours:.0f}x; target < 20 ms: {'ok' if ours < 0.020 else 'MISSED'}"
    )


def bench_import() -> None:
    if not BSDATA.is_dir():
        print(f"import: skipped, {BSDATA} is absent")
        return
    files = [(name, (BSDATA / name).read_bytes()) for name in LARGEST_WITH_LINKS]
    size = sum(len(d) for _, d in files)
    ours = timed(lambda: import_files(files), 3)
    parse = timed(lambda: [ET.fromstring(d) for _, d in files], 3)
    result = import_files(files)
    sheets = sum(len(c.datasheets) for c in result.catalogues)
    print(
        f"import Space Marines + game system + linked libraries ({len(files)} files, "
        f"{size / 1e6:.1f} MB, {sheets} datasheets): ours {ours:.2f} s, "
        f"ElementTree.fromstring of the same bytes {parse:.2f} s, ratio ours/parse "
        f"{ours / parse:.1f}x"
    )


def main() -> int:
    bench_validation()
    bench_import()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
