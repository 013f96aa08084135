"""The calculator page: GET form, htmx fragment vs page, field errors, presets, the roll page."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest

from tests.support.web import html

BOLT_RIFLES = [
    ("system", "wh40k-10e"),
    ("w0.models", "10"),
    ("w0.name", "Bolt rifle"),
    ("w0.kind", "ranged"),
    ("w0.attacks", "2"),
    ("w0.skill", "3+"),
    ("w0.strength", "4"),
    ("w0.ap", "-1"),
    ("w0.damage", "1"),
    ("w0.abilities", "Heavy, Assault"),
    ("t.models", "5"),
    ("t.toughness", "4"),
    ("t.save", "3+"),
    ("t.wounds", "2"),
    ("t.invulnerable_save", ""),
    ("t.feel_no_pain", ""),
    ("t.keywords", "INFANTRY"),
]
HX = {"HX-Request": "true"}


def url(params: list[tuple[str, str]], path: str = "/calculator", **changes: str) -> str:
    values = dict(params)
    values.update(changes)
    return f"{path}?{urlencode(list(values.items()))}"


def error_text(tree, name: str) -> str:  # type: ignore[no-untyped-def]
    node = tree.css_first(f"#err-{name.replace('.', '-')}")
    assert node is not None, name
    return "" if "hidden" in node.attributes else node.text().strip()


def test_page_is_a_get_form_wired_for_htmx(client) -> None:
    response = client.get("/calculator")
    assert response.status_code == 200
    assert response.headers["vary"] == "HX-Request"
    tree = html(response)
    form = tree.css_first("form#calculator-form")
    assert form.attributes["method"] == "get"
    assert form.attributes["action"] == "/calculator#results"  # lands on the results
    assert form.attributes["hx-get"] == "/calculator"
    assert form.attributes["hx-trigger"] == "change, keyup changed delay:400ms"
    assert form.attributes["hx-target"] == "#results"
    assert form.attributes["hx-push-url"] == "true"
    assert form.css_first("input[name=csrf_token]") is None  # a GET form needs none
    roll = tree.css_first("#roll-it")
    assert roll.attributes["formaction"] == "/calculator/roll"
    # a fresh page starts from the default presets and already shows results
    assert tree.css_first("input[name='w0.name']").attributes["value"] == "Bolt rifle"
    assert tree.css_first("#mean-damage .stat-value").text().strip()
    assert tree.css_first('link[href="/static/css/combat.css"]') is not None
    nav = tree.css_first('#main-nav a[href="/calculator"]')
    assert nav.attributes.get("aria-current") == "page"


def test_results_match_the_exact_analysis(client) -> None:
    tree = html(client.get(url(BOLT_RIFLES)))
    # 20 attacks, P(unsaved) = 1/6, 10 wounds in the unit (see test_api for the derivation)
    stages = {
        row.css_first("th").text(): row.css_first("td.exact").text()
        for row in tree.css("#stages tbody tr")
    }
    assert stages["Attacks"] == "20"
    assert stages["Hits"] == "40/3"
    assert stages["Failed saves"] == "10/3"
    assert tree.css_first("#mean-damage .stat-value").attributes["title"] == (
        "3046686871641815/914039610015744"
    )
    assert tree.css_first("#mean-damage .stat-value").text() == "3.33"


def test_charts_are_svg_bars_with_titles_and_a_table(client) -> None:
    tree = html(client.get(url(BOLT_RIFLES)))
    chart = tree.css_first("#chart-damage svg")
    assert chart.attributes["role"] == "img"
    bars = tree.css("#chart-damage g.bar")
    assert [b.attributes["data-value"] for b in bars][:3] == ["0", "1", "2"]
    for bar in bars:
        assert bar.css_first("title").text()
        assert bar.css_first("text.at-least").text()
    assert bars[0].css_first("text.at-least").text() == "100%"
    rows = tree.css("#chart-damage table tbody tr")
    assert len(rows) == 11  # 0..10 wounds lost, every value in the table fallback
    assert tree.css("#chart-models g.bar")


def test_htmx_request_gets_only_the_results_fragment(client) -> None:
    response = client.get(url(BOLT_RIFLES), headers=HX)
    assert response.status_code == 200
    assert response.headers["vary"] == "HX-Request"
    assert "<html" not in response.text
    tree = html(response)
    assert tree.css_first("section#results") is not None
    assert tree.css_first("form") is None
    # errors next to fields are updated out of band, and so is the phone summary
    slots = tree.css("[hx-swap-oob=true]")
    ids = {s.attributes["id"] for s in slots}
    assert {"err-w0-skill", "err-t-toughness", "live-summary"} <= ids


def test_field_errors_show_next_to_their_field(client) -> None:
    response = client.get(url(BOLT_RIFLES, **{"t.toughness": "0", "w0.skill": "7"}))
    assert response.status_code == 200
    tree = html(response)
    assert "at least 1" in error_text(tree, "t.toughness")
    assert "at most 6" in error_text(tree, "w0.skill")
    assert tree.css_first("#f-t-toughness").attributes["aria-invalid"] == "true"
    assert error_text(tree, "w0.strength") == ""
    assert tree.css_first("#form-has-errors") is not None
    assert tree.css_first("#mean-damage") is None
    # and as out-of-band updates for htmx
    fragment = html(client.get(url(BOLT_RIFLES, **{"t.toughness": "0"}), headers=HX))
    assert "at least 1" in error_text(fragment, "t.toughness")


def test_unreadable_numbers_and_engine_errors_are_field_errors(client) -> None:
    tree = html(
        client.get(
            url(
                BOLT_RIFLES,
                **{"w0.strength": "four", "w0.damage": "D7", "w0.abilities": "Heavy, Lethal Hitz"},
            )
        )
    )
    assert error_text(tree, "w0.strength") == "Enter a whole number."
    # the form stops at its own errors; fix them and the schema and engine speak
    tree = html(
        client.get(url(BOLT_RIFLES, **{"w0.damage": "D7", "w0.abilities": "Heavy, Lethal Hitz"}))
    )
    assert "D7" in error_text(tree, "w0.damage")
    tree = html(client.get(url(BOLT_RIFLES, **{"w0.abilities": "Heavy, Lethal Hitz"})))
    assert "did you mean 'Lethal Hits'" in error_text(tree, "w0.abilities")


def test_engine_errors_about_the_whole_unit_land_on_a_field(client) -> None:
    tree = html(client.get(url(BOLT_RIFLES, **{"t.models": "10", "t.wounds": "30"})))
    assert "200" in error_text(tree, "t.wounds")


def test_no_js_flow_with_two_weapons_and_a_group(client) -> None:
    params = [
        *BOLT_RIFLES,
        ("w1.models", "1"),
        ("w1.name", "Heavy bolter"),
        ("w1.kind", "ranged"),
        ("w1.attacks", "3"),
        ("w1.skill", "3"),
        ("w1.strength", "5"),
        ("w1.ap", "-1"),
        ("w1.damage", "2"),
        ("w1.abilities", "Sustained Hits 1"),
        ("g0.name", "Captain"),
        ("g0.models", "1"),
        ("g0.wounds", "5"),
        ("g0.save", "3+"),
        ("g0.invulnerable_save", "4+"),
        ("g0.keywords", "CHARACTER"),
        ("s.remained_stationary", "on"),
        ("s.reroll_hits", "ones"),
    ]
    tree = html(client.get(url(params)))
    assert tree.css_first("#weapon-1") is not None
    assert tree.css_first("#group-0") is not None
    assert "checked" in tree.css_first("input[name='s.remained_stationary']").attributes
    assert tree.css_first("#mean-damage") is not None
    assert not tree.css("#results .error")


@pytest.mark.parametrize(
    ("edit", "check"),
    [
        ({"add": "weapon"}, lambda q: "w1.name" in q and q["w1.name"] == "Bolt rifle"),
        (
            {"w0.preset": "lascannon"},
            lambda q: q["w0.name"] == "Lascannon" and q["w0.damage"] == "D6+1",
        ),
        ({"t.preset": "rhino"}, lambda q: q["t.toughness"] == "9" and q["t.wounds"] == "10"),
        ({"add": "group"}, lambda q: "g0.name" in q),
    ],
)
def test_edits_redirect_to_the_edited_canonical_url(client, edit, check) -> None:  # type: ignore[no-untyped-def]
    response = client.get(url(BOLT_RIFLES, **edit), follow_redirects=False)
    assert response.status_code == 303
    location = response.headers["location"]
    query = dict(parse_qsl(urlsplit(location).query, keep_blank_values=True))
    assert check(query)
    assert "add" not in query
    assert not any(k.endswith(".preset") for k in query)
    assert query["w0.models"] == "10"  # a weapon preset keeps the number of models
    # htmx gets the same target as HX-Redirect (a full page load with the filled fields)
    hx = client.get(url(BOLT_RIFLES, **edit), headers=HX, follow_redirects=False)
    assert hx.headers["hx-redirect"] == location


def test_remove_a_weapon_row(client) -> None:
    two = client.get(url(BOLT_RIFLES, add="weapon"), follow_redirects=False).headers["location"]
    query = parse_qsl(urlsplit(two).query, keep_blank_values=True)
    response = client.get(url(query, remove="w0"), follow_redirects=False)
    remaining = dict(parse_qsl(urlsplit(response.headers["location"]).query))
    assert "w1.name" not in remaining
    assert remaining["w0.name"] == "Bolt rifle"


def test_roll_without_seed_redirects_to_a_seeded_url(client) -> None:
    response = client.get(url(BOLT_RIFLES, path="/calculator/roll"), follow_redirects=False)
    assert response.status_code == 303
    query = dict(parse_qsl(urlsplit(response.headers["location"]).query))
    assert query["seed"].isdigit()
    assert query["w0.name"] == "Bolt rifle"


def test_roll_page_shows_every_die_and_the_target_after(client) -> None:
    page = client.get(url(BOLT_RIFLES, path="/calculator/roll", seed="42"))
    assert page.status_code == 200
    tree = html(page)
    assert tree.css_first("#seed code").text() == "42"
    dice = tree.css("#dice-list li.die-row")
    assert len(dice) >= 20  # 20 hit rolls at least
    first = dice[0]
    assert first.css_first(".die").text().strip().isdigit()
    assert "hit roll" in first.css_first(".die-label").text()
    assert first.css_first(".die-outcome").text().strip()
    assert len(tree.css("#target-after li.model")) == 5
    assert tree.css("#steps li")
    same = tree.css_first("#same-seed").attributes["href"]
    assert "seed=42" in same
    again = html(client.get(same))
    assert [d.text() for d in again.css("#dice-list .die")] == [
        d.text() for d in tree.css("#dice-list .die")
    ]
    assert "seed=" not in tree.css_first("#roll-again").attributes["href"]
    back = tree.css_first("#back-to-calculator").attributes["href"]
    assert back.startswith("/calculator?")
    assert "seed" not in back


def test_roll_page_reports_errors_without_a_500(client) -> None:
    page = client.get(url(BOLT_RIFLES, path="/calculator/roll", seed="1", **{"t.toughness": "0"}))
    assert page.status_code == 200
    tree = html(page)
    assert "t.toughness" in tree.css_first("#roll-errors").text()
    bad_seed = html(client.get(url(BOLT_RIFLES, path="/calculator/roll", seed="x1")))
    assert "seed" in bad_seed.css_first("#roll-errors").text()


def test_query_is_bounded(client) -> None:
    response = client.get("/calculator?" + urlencode([("w0.name", "x" * 201)]))
    assert response.status_code == 422
    response = client.get("/calculator?" + "&".join(f"k{i}=1" for i in range(301)))
    assert response.status_code == 422
    response = client.get(url(BOLT_RIFLES, **{f"w{i}.name": "x" for i in range(12)}))
    assert response.status_code == 200
    assert "At most 8 weapons" in html(response).css_first("#err-weapons").text()


def test_unknown_system_is_a_404_page(client) -> None:
    response = client.get("/calculator?system=nope", headers={"Accept": "text/html"})
    assert response.status_code == 404
    assert "<html" in response.text


def test_pen_form_and_vehicle_preset(client) -> None:
    tree = html(client.get("/calculator?system=pen"))
    assert tree.css_first("#system-tabs a[data-system=pen]").attributes["aria-current"] == "page"
    assert tree.css_first("input[name='w.name']").attributes["value"] == "Bolter"
    assert tree.css_first("#mean-damage") is not None
    location = client.get("/calculator?system=pen&t.preset=rhino", follow_redirects=False).headers[
        "location"
    ]
    query = dict(parse_qsl(urlsplit(location).query, keep_blank_values=True))
    assert (query["t.kind"], query["v.front"], query["v.hull_points"]) == ("vehicle", "11", "3")
    tree = html(client.get(location))
    assert tree.css_first("#mean-damage") is not None
    assert not tree.css("#results .error")


def test_pen_field_errors(client) -> None:
    tree = html(client.get("/calculator?system=pen&a.models=0&w.properties=Blast"))
    assert "at least 1" in error_text(tree, "a.models")
    tree = html(client.get("/calculator?system=pen&w.properties=Blast"))
    assert "Blessant" in error_text(tree, "w.properties")


def test_page_in_french(client) -> None:
    tree = html(client.get("/calculator", headers={"Accept-Language": "fr"}))
    assert tree.css_first("#calculator-title").text() == "Calculateur d'attaque"
    assert tree.css_first("#roll-it").text() == "Lancer les dés"
    label = tree.css_first("#mean-damage .stat-label").text()
    assert label == "Points de vie perdus en moyenne"
    assert "," in tree.css_first("#mean-damage .stat-value").text()  # 1,85
