"""The rulings page renders our docs/rulings files, safely."""

from __future__ import annotations

from app.web import rulings
from tests.support.web import HTMLParser, html


def test_rulings_index_lists_every_page(client) -> None:
    response = client.get("/rulings")
    assert response.status_code == 200
    links = [a.attributes["href"] for a in html(response).css("#rulings-index a")]
    assert links == [f"/rulings/{p.name}" for p in rulings.pages()]


def test_each_rulings_page_renders(client) -> None:
    for p in rulings.pages():
        response = client.get(f"/rulings/{p.name}")
        assert response.status_code == 200
        assert html(response).css_first("#rulings-content") is not None


def test_unknown_or_traversing_names_are_404(client) -> None:
    for name in ("nope", "..%2F..%2Fetc%2Fpasswd", "README"):
        assert client.get(f"/rulings/{name}", headers={"Accept": "text/html"}).status_code == 404


def test_raw_html_in_markdown_is_escaped(tmp_path, monkeypatch) -> None:
    (tmp_path / "evil.md").write_text("# Evil\n\n<script>alert(1)</script>\n")
    monkeypatch.setattr(rulings, "RULINGS_DIR", tmp_path)
    rendered = rulings.page("evil")
    assert rendered is not None
    assert "<script>" not in rendered.html
    assert rendered.title == "Evil"


def test_a_ruling_keeps_its_number_after_unused_ones(tmp_path, monkeypatch) -> None:
    """CommonMark numbers a list from its first item: the rulings page shows each ruling under
    the number the code and tests cite, gaps and all."""
    (tmp_path / "gaps.md").write_text(
        "# Gaps\n\n141. **One.**\n\n142. **Two.**\n\n146. **Three.**\n"
    )
    monkeypatch.setattr(rulings, "RULINGS_DIR", tmp_path)
    rendered = rulings.page("gaps")
    assert rendered is not None
    items = HTMLParser(rendered.html).css("li")
    assert [li.attributes.get("value") for li in items] == ["141", "142", "146"]


def test_the_black_reach_page_shows_each_ruling_under_its_number(client) -> None:
    doc = html(client.get("/rulings/black-reach"))
    values = [int(li.attributes["value"] or 0) for li in doc.css("#rulings-content ol > li")]
    assert 146 in values
    assert values == sorted(values)
