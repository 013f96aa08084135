"""Issue 18, the page's weight: a heavy attack's results page stays small on a phone (the
readable values and the charts, not every cell's exact fraction of thousands of digits in a
``title``), while its exact values stay on demand."""

from __future__ import annotations

from fractions import Fraction

from tests.combat.test_web import BOLT_RIFLES, url
from tests.support.web import html

# bench/bench_combat_heavy.py "full scope: 30 x D6+3, SH1 LH DW, D6+1 vs 28 W3 + sgt +
# Captain FNP5+", as the calculator's form submits it
FULL_SCOPE = [
    ("system", "wh40k-10e"),
    ("w0.models", "30"),
    ("w0.name", "g"),
    ("w0.kind", "ranged"),
    ("w0.attacks", "D6+3"),
    ("w0.skill", "3+"),
    ("w0.strength", "4"),
    ("w0.ap", "0"),
    ("w0.damage", "D6+1"),
    ("w0.abilities", "Sustained Hits 1, Lethal Hits, Devastating Wounds"),
    ("t.models", "28"),
    ("t.toughness", "4"),
    ("t.save", "4+"),
    ("t.wounds", "3"),
    ("t.invulnerable_save", ""),
    ("t.feel_no_pain", "5+"),
    ("t.keywords", "INFANTRY"),
    ("g0.name", "sgt"),
    ("g0.models", "1"),
    ("g0.wounds", "3"),
    ("g0.save", "3+"),
    ("g0.feel_no_pain", "5+"),
    ("g1.name", "Captain"),
    ("g1.models", "1"),
    ("g1.wounds", "5"),
    ("g1.save", "2+"),
    ("g1.invulnerable_save", "4+"),
    ("g1.feel_no_pain", "5+"),
    ("g1.keywords", "CHARACTER"),
]
HX = {"HX-Request": "true"}


# the page with its readable values and charts weighs about 114 kB here (the htmx fragment 95
# kB); with every cell's exact fraction in a title it weighed 1.63 MB (1.61 MB)
MAX_PAGE_BYTES = 250_000
MAX_TITLE = 40  # characters of an exact fraction shown as a tooltip


def test_a_heavy_attack_page_stays_light_with_the_exact_values_on_demand(client) -> None:
    for headers in ({}, HX):
        response = client.get(url(FULL_SCOPE), headers=headers)
        assert response.status_code == 200
        assert len(response.content) < MAX_PAGE_BYTES, len(response.content)
        tree = html(response)
        assert tree.css_first("#mean-damage") is not None
        titles = [n.attributes["title"] or "" for n in tree.css("#results [title]")]
        assert all(len(t) <= MAX_TITLE for t in titles), max(titles, key=len)[:80]
        # every value of the damage chart is still in its table, readable
        rows = tree.css("#chart-damage table tbody tr")
        assert len(rows) == 93  # 0..92 wounds lost (28 x 3 + 3 + 5)
        # the three headline values keep their whole fraction in the page, on demand
        fractions = [c.text() for c in tree.css("#exact-values details.fraction code")]
        assert len(fractions) == 3
        assert all(len(f) > 1000 for f in fractions)
        # the rest: one link gives every exact fraction, and each long table points to it
        link = tree.css_first("#exact-link").attributes["href"]
        assert link.startswith("/calculator/exact?")
        assert tree.css_first("#chart-damage .exact-elsewhere a").attributes["href"] == link
    body = client.get(link).json()
    assert body["ruleset"] == "wh40k-10e"
    mean = Fraction(body["damage"]["mean"]["exact"])
    assert fractions[0] == f"{mean.numerator}/{mean.denominator}"
    dist = {r["value"]: Fraction(r["exact"]) for r in body["damage"]["distribution"]}
    assert sum(dist.values()) == 1
    assert sum(k * q for k, q in dist.items()) == mean
    assert [int(r.css_first("th").text()) for r in rows] == list(dist)
    assert max(len(r["exact"]) for r in body["damage"]["distribution"]) > 1000


def test_short_fractions_stay_in_titles(client) -> None:
    tree = html(client.get(url(BOLT_RIFLES)))
    assert tree.css_first("#mean-damage .stat-value").attributes["title"] == (
        "3046686871641815/914039610015744"
    )
    cells = tree.css("#chart-damage table tbody td")
    assert cells
    assert all("/" in c.attributes["title"] or c.attributes["title"] in "01" for c in cells)
    assert tree.css_first(".exact-elsewhere") is None  # nothing left out of the tables


def test_exact_values_of_a_form_with_errors_are_a_422_naming_the_field(client) -> None:
    response = client.get(url(BOLT_RIFLES, "/calculator/exact", **{"t.toughness": "0"}))
    assert response.status_code == 422
    assert [e["field"] for e in response.json()["errors"]] == ["t.toughness"]
