"""The rulings pages in French (issue 18): each translation says what its English page says.

A translation lives in ``docs/rulings/fr/<name>.md``. It must carry the same rulings (their
numbers: ``114.``, ``**D20.``, ``**S19.``...), the same source citations (``[L1810-L1824]``) and
the same section structure as the English page, so a ruling added or changed in English without
its translation fails here, and a citation lost or mistyped in translation too.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from selectolax.lexbor import LexborHTMLParser

from app.web.context import LANG_COOKIE
from app.web.rulings import RULINGS_DIR, pages

LANGUAGES = ("fr",)
# a ruling's own number, where its paragraph starts: "12. **", "- **S19.", "**D20.", "**B8 "
_RULING = re.compile(
    r"^(?:\s*[-*]\s+)?(?:(\d+[a-z]?)\.\s+\*\*|\*\*([A-Z]{1,2}\d+[a-z]?)[.\s:])", re.MULTILINE
)
_CITATION = re.compile(r"\[L\d+(?:[-–]L?\d+)?(?:,\s*L?\d+(?:[-–]L?\d+)?)*\]")
_HEADING = re.compile(r"^(#{1,6})\s", re.MULTILINE)


def _rulings(text: str) -> list[str]:
    return [a or b for a, b in _RULING.findall(text)]


def _facts(text: str) -> tuple[list[str], Counter[str], list[str]]:
    citations = Counter(" ".join(c.split()) for c in _CITATION.findall(text))  # wrapped lines
    return _rulings(text), citations, _HEADING.findall(text)


def english_names() -> list[str]:
    return sorted(p.stem for p in RULINGS_DIR.glob("*.md") if p.stem != "README")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_rulings_page_is_translated(lang: str) -> None:
    translated = sorted(p.stem for p in (RULINGS_DIR / lang).glob("*.md"))
    assert translated == english_names()


@pytest.mark.parametrize("name", english_names())
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_translation_keeps_the_rulings_citations_and_sections(lang: str, name: str) -> None:
    english = (RULINGS_DIR / f"{name}.md").read_text(encoding="utf-8")
    translated = (RULINGS_DIR / lang / f"{name}.md").read_text(encoding="utf-8")
    rulings, citations, headings = _facts(english)
    assert rulings, f"{name}: no ruling numbers found: the pattern must match the English page"
    t_rulings, t_citations, t_headings = _facts(translated)
    assert t_rulings == rulings, f"{name}: rulings differ"
    assert t_citations == citations, f"{name}: citations differ"
    assert t_headings == headings, f"{name}: sections differ"


def test_a_french_reader_gets_the_french_page_and_an_english_reader_the_english(
    app: FastAPI,
) -> None:
    readers = {
        lang: TestClient(app, base_url="http://testserver", cookies={LANG_COOKIE: lang})
        for lang in ("en", "fr")
    }
    for page in pages():
        texts = {}
        for lang, reader in readers.items():
            response = reader.get(f"/rulings/{page.name}")
            assert response.status_code == 200
            tree = LexborHTMLParser(response.text)
            article = tree.css_first("#rulings-content")
            assert article is not None
            assert article.attributes.get("lang") == lang, (page.name, lang)
            assert tree.css_first("#rulings-english-only") is None, (page.name, lang)
            texts[lang] = article.text()
        assert texts["en"] != texts["fr"]
    index = LexborHTMLParser(readers["fr"].get("/rulings").text)
    assert {a.attributes.get("lang") for a in index.css("#rulings-index span")} == {"fr"}
