"""The rulings page: how Auspex reads the rules where they are silent or ambiguous.

Each rule system's readings live in ``docs/rulings/<name>.md`` (our own wording), rendered here
with raw HTML disabled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from markdown_it import MarkdownIt

from app.core.config import ROOT

RULINGS_DIR = ROOT / "docs" / "rulings"
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,60}$")
_markdown = MarkdownIt("commonmark", {"html": False}).enable("table")


@dataclass(frozen=True, slots=True)
class RulingsPage:
    name: str
    title: str
    html: str


def _title(text: str, name: str) -> str:
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return name


@cache
def _render(name: str, mtime_ns: int) -> RulingsPage:
    text = (RULINGS_DIR / f"{name}.md").read_text(encoding="utf-8")
    return RulingsPage(name=name, title=_title(text, name), html=_markdown.render(text))


def page(name: str) -> RulingsPage | None:
    if not _NAME.match(name):
        return None
    path = RULINGS_DIR / f"{name}.md"
    if not path.is_file():
        return None
    return _render(name, path.stat().st_mtime_ns)


def pages() -> list[RulingsPage]:
    if not RULINGS_DIR.is_dir():
        return []
    found = (page(path.stem) for path in sorted(RULINGS_DIR.glob("*.md")))
    return [p for p in found if p is not None and p.name != "README"]
