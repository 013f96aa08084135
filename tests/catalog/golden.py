"""The golden digest of what the BSData importer produces (issue 17: a faster importer must
produce exactly the same catalogues and report).

:func:`digests` imports a few fixed sets of files and reduces each result to SHA-256 digests of
a canonical JSON form of *every* field of every value built (each catalogue with its
datasheets, profiles, models, points tiers, wargear options and choices, restrictions,
variants, detachments, enhancements, limits; then the report's files and issues, in order).
``tests/catalog/golden_import.json`` holds the digests the importer produced before it was
optimised; :mod:`tests.catalog.test_import_golden` compares. When a deliberate change of the
importer changes its output, regenerate the file with the change's own code:

    .venv/bin/python -m tests.catalog.golden --write
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from app.catalog.bsdata import ImportResult, import_files

HERE = Path(__file__).parent
GOLDEN = HERE / "golden_import.json"
FIXTURES = HERE / "fixtures"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
CORE = SHARED / "bsdata-wh40k-10e"
MORE = SHARED / "bsdata-wh40k-10e-more"


def plain(value: object) -> object:
    """A JSON-ready form of ``value`` that does not depend on hash order or object ids."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, enum.Enum):
        return plain(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, object] = {"__type__": type(value).__name__}
        for f in dataclasses.fields(value):
            if f.metadata.get("presentation"):
                continue  # a value's wording for a page (ImportIssue.template), not the value
            out[f.name] = plain(getattr(value, f.name))
        return out
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    if isinstance(value, frozenset | set):
        return sorted((plain(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    raise TypeError(f"no canonical form for {type(value).__name__}")


def _sha(value: object) -> str:
    text = json.dumps(plain(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _folder(*folders: Path) -> Callable[[], list[tuple[str, bytes]]]:
    def files() -> list[tuple[str, bytes]]:
        return [
            (p.name, p.read_bytes())
            for d in folders
            for p in sorted(d.iterdir())
            if p.is_file() and p.suffix in (".gst", ".cat", ".gstz", ".catz")
        ]

    return files


def _named(folder: Path, *names: str) -> Callable[[], list[tuple[str, bytes]]]:
    return lambda: [(n, (folder / n).read_bytes()) for n in names]


# name -> (the folders it needs, the files imported)
SCENARIOS: dict[str, tuple[tuple[Path, ...], Callable[[], list[tuple[str, bytes]]]]] = {
    "fixtures": ((FIXTURES,), _folder(FIXTURES)),
    # every catalogue of ../shared/data, as `make bench` imports it
    "all-shared-data": ((CORE, MORE), _folder(CORE, MORE)),
    # a catalogue whose libraries are missing: unresolved links and missing catalogue links
    "space-marines-alone": (
        (CORE,),
        _named(CORE, "Warhammer 40,000.gst", "Imperium - Space Marines.cat"),
    ),
    # two chapters without their parent: the same missing links met by two builders
    "chapters-without-parent": (
        (CORE, MORE),
        lambda: [
            ("Warhammer 40,000.gst", (CORE / "Warhammer 40,000.gst").read_bytes()),
            ("Imperium - Blood Angels.cat", (MORE / "Imperium - Blood Angels.cat").read_bytes()),
            ("Imperium - Space Wolves.cat", (MORE / "Imperium - Space Wolves.cat").read_bytes()),
        ],
    ),
    # no game system: categories, profile types and costs it defines are unknown
    "orks-without-game-system": ((CORE,), _named(CORE, "Orks.cat")),
}


def result_digests(result: ImportResult) -> dict[str, object]:
    return {
        "catalogues": {c.id: _sha(c) for c in result.catalogues},
        "report": _sha(result.report),
        "issues": len(result.report.issues),
    }


def available(name: str) -> bool:
    return all(d.is_dir() for d in SCENARIOS[name][0])


def digests(name: str) -> dict[str, object]:
    return result_digests(import_files(SCENARIOS[name][1]()))


def main(argv: list[str]) -> int:
    missing = [n for n in SCENARIOS if not available(n)]
    if missing:
        print(f"cannot compute {missing}: their files are absent", file=sys.stderr)
        return 1
    found = {name: digests(name) for name in SCENARIOS}
    text = json.dumps(found, indent=2, sort_keys=True) + "\n"
    if "--write" in argv:
        GOLDEN.write_text(text, encoding="utf-8")
        print(f"wrote {GOLDEN}")
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
