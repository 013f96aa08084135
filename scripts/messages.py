"""Extract the translatable messages and merge them into every locale's catalogue.

``make messages`` runs this; then translate the new empty entries in
``translations/fr/LC_MESSAGES/*.po`` (the test suite fails while one is missing).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POT = ROOT / "translations" / "messages.pot"


def main() -> int:
    bin_dir = Path(sys.executable).parent
    subprocess.run(
        [
            str(bin_dir / "pybabel"),
            "extract",
            "-F",
            "babel.cfg",
            "-k",
            "lazy",
            "--no-location",
            "--sort-output",
            "-o",
            str(POT),
            ".",
        ],
        cwd=ROOT,
        check=True,
    )
    subprocess.run(
        [
            str(bin_dir / "pybabel"),
            "update",
            "-i",
            str(POT),
            "-d",
            "translations",
            "-D",
            "messages",
            "--no-fuzzy-matching",
            "--ignore-obsolete",
        ],
        cwd=ROOT,
        check=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
