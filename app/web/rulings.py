"""The rulings page: how Auspex reads the rules where they are silent or ambiguous.

Each rule system's readings live in ``docs/rulings/<name>.md`` (our own wording), rendered here
with raw HTML disabled. A translation lives beside it in ``docs/rulings/<language>/<name>.md``
and is served to readers of that language; a page not translated yet is served in English,
marked so (``lang``). A test keeps each translation's rulings and citations those of the English
page, so a ruling added in English without its translation fails the suite.
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
    lang: str = "en"  # the language the page is written in (English when not translated)


def _title(text: str, name: str) -> str:
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return name


def _html(text: str) -> str:
    """The page as HTML, every ruling under its own number: CommonMark numbers a list's items
    from its first, so the unused numbers between two rulings (140-142, then 146) would shift
    every later ruling's displayed number away from the one the code and tests cite."""
    tokens = _markdown.parse(text)
    for token in tokens:
        if token.type == "list_item_open" and token.info.isdigit():
            token.attrSet("value", str(int(token.info)))
    return str(_markdown.renderer.render(tokens, _markdown.options, {}))


@cache
def _render(path_text: str, name: str, lang: str, mtime_ns: int) -> RulingsPage:
    text = (RULINGS_DIR / path_text).read_text(encoding="utf-8")
    return RulingsPage(name=name, title=_title(text, name), html=_html(text), lang=lang)


def source(name: str, lang: str = "en") -> tuple[str, str] | None:
    """The file serving page ``name`` to a reader of ``lang`` (relative to the rulings
    directory) and the language it is written in; ``None`` for no such page."""
    if not _NAME.match(name) or not (RULINGS_DIR / f"{name}.md").is_file():
        return None
    if lang != "en" and _NAME.match(lang) and (RULINGS_DIR / lang / f"{name}.md").is_file():
        return f"{lang}/{name}.md", lang
    return f"{name}.md", "en"


def page(name: str, lang: str = "en") -> RulingsPage | None:
    found = source(name, lang)
    if found is None:
        return None
    relative, written = found
    return _render(relative, name, written, (RULINGS_DIR / relative).stat().st_mtime_ns)


def pages(lang: str = "en") -> list[RulingsPage]:
    if not RULINGS_DIR.is_dir():
        return []
    found = (page(path.stem, lang) for path in sorted(RULINGS_DIR.glob("*.md")))
    return [p for p in found if p is not None and p.name != "README"]
