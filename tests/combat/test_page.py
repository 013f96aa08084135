"""Issue 18, the page: the roll page in French (outcomes, steps, the dice Save), failed saves
coloured as the attacker's success, the target named, readable exact values, the comparison of
profiles, the ability picker, and PEN's error slots and target-kind fields."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit

from tests.combat.test_web import BOLT_RIFLES, url
from tests.support.web import html

FR = {"Accept-Language": "fr"}
HX = {"HX-Request": "true"}


def test_roll_page_in_french_names_the_target_and_colours_failed_saves(client) -> None:
    query = [*BOLT_RIFLES, ("t.name", "Intercessors"), ("seed", "5")]
    tree = html(client.get(url(query, "/calculator/roll"), headers=FR))
    stages = {n.text().strip() for n in tree.css(".die-stage")}
    assert "Sauvegarde" in stages
    assert "Enregistrer" not in stages
    outcomes = {n.text().strip() for n in tree.css(".die-outcome")}
    assert outcomes & {"touche", "raté", "ratée"}
    assert not outcomes & {"hit", "miss", "failed", "critical hit"}
    groups = {n.text().strip() for n in tree.css(".model-group")}
    assert groups == {"Intercessors"}  # not the engine's "main"
    # a failed save is a success for the attacker: the legend's green
    for row in tree.css(".die-row"):
        if row.css_first(".die-stage").text().strip() == "Sauvegarde":
            word = row.css_first(".die-outcome").text().strip()
            assert ("good" in row.attributes["class"]) == (word == "ratée"), word
    steps = " ".join(n.text() for n in tree.css("#steps li"))
    assert "Intercessors" in steps
    assert "main" not in steps
    assert "sauvegarde ratée sur Intercessors" in steps  # the engine's English, rebuilt


def test_step_texts_agree_with_their_numbers() -> None:
    from app.combat.forms.wh40k10e_words import words

    names = {"main": "Intercessors"}
    assert words("Bolt rifle: 1 wounds", names) == "Bolt rifle: 1 wound"
    assert words("Bolt rifle: 1 attacks", names) == "Bolt rifle: 1 attack"
    assert words("Bolt rifle: 2 hits (1 critical)", names) == "Bolt rifle: 2 hits (1 critical)"
    assert (
        words("Bolt rifle: failed save on main, 2 damage, 1 wounds lost - model destroyed", names)
        == "Bolt rifle: failed save on Intercessors, 2 damage, 1 wound lost - model destroyed"
    )
    assert words("Bolt rifle: armour save (main, 3+)", names) == (
        "Bolt rifle: armour save (Intercessors, 3+)"
    )
    assert words("something new", names) == "something new"


def test_plurals_and_readable_exact_values(client) -> None:
    tree = html(client.get(url(BOLT_RIFLES)))
    titles = [t.text() for t in tree.css("#chart-damage g.bar > title")]
    assert any(t.startswith("1 wound lost:") for t in titles), titles
    assert any(t.startswith("2 wounds lost:") for t in titles), titles
    for node in tree.css("#exact-values .readable, #stages .readable"):
        assert len(node.text()) < 16, node.text()  # never a 30-digit number in plain view
    fractions = [c.text() for c in tree.css("#exact-values details.fraction code")]
    assert fractions
    assert all("/" in f for f in fractions)


def test_compare_pins_the_profile_and_draws_both_on_one_chart(client) -> None:
    response = client.get(url(BOLT_RIFLES, pin="1"), follow_redirects=False)
    assert response.status_code == 303
    pinned = dict(parse_qsl(urlsplit(response.headers["location"]).query))["vs"]
    assert ("w0.models", "10") in parse_qsl(pinned)
    # the player changes the weapon count: both profiles on one chart, the pinned one kept
    query = [*BOLT_RIFLES, ("vs", pinned)]
    tree = html(client.get(url(query, **{"w0.models": "20"})))
    legend = [li.text() for li in tree.css("#compare-legend li")]
    assert len(legend) == 2
    assert "10×" in legend[0]
    assert "20×" in legend[1]
    group = tree.css_first("#compare g.compare-group")
    assert len(group.css("rect")) == 2
    share = tree.css_first("#share-link").attributes["href"]
    assert "vs=" in share
    assert "w0.models=20" in share
    assert tree.css_first('input[type=hidden][name="vs"]').attributes["value"] == pinned
    # unpinning drops it
    unpin = tree.css_first("#unpin-0").attributes["href"]
    response = client.get(unpin, follow_redirects=False)
    assert "vs=" not in response.headers["location"]
    # a third pin keeps at most two pinned profiles
    three = [*BOLT_RIFLES, ("vs", pinned), ("vs", pinned), ("pin", "1")]
    location = client.get(url(three), follow_redirects=False).headers["location"]
    assert len([k for k, _v in parse_qsl(urlsplit(location).query) if k == "vs"]) == 2


def test_unreadable_compared_profile_is_a_message_not_a_500(client) -> None:
    tree = html(client.get(url([*BOLT_RIFLES, ("vs", "w0.models=0&t.toughness=x")])))
    assert "Compared profile 1" in tree.css_first("#general-errors").text()
    too_long = client.get(url([*BOLT_RIFLES, ("vs", "x" * 3001)]))
    assert too_long.status_code == 422


def test_ability_picker_adds_a_bsdata_spelling_once(client) -> None:
    tree = html(client.get(url(BOLT_RIFLES)))
    assert tree.css_first("#f-w0-pick").attributes["list"] == "ability-choices"
    choices = [o.attributes["value"] for o in tree.css("#ability-choices option")]
    assert "Lethal Hits" in choices
    assert "Anti-Infantry 4+" in choices
    response = client.get(url(BOLT_RIFLES, **{"w0.pick": "Lethal Hits"}), follow_redirects=False)
    assert response.status_code == 303
    values = dict(parse_qsl(urlsplit(response.headers["location"]).query))
    assert values["w0.abilities"] == "Heavy, Assault, Lethal Hits"
    again = client.get(url(BOLT_RIFLES, **{"w0.pick": "heavy"}), follow_redirects=False)
    assert dict(parse_qsl(urlsplit(again.headers["location"]).query))["w0.abilities"] == (
        "Heavy, Assault"
    )


def test_pen_htmx_answer_swaps_only_slots_the_page_has(client) -> None:
    page = client.get("/calculator?system=pen").text
    fragment = client.get("/calculator?system=pen", headers=HX).text
    oob = re.findall(r'id="(err-[^"]+)"[^>]*hx-swap-oob', fragment)
    assert oob
    assert [o for o in oob if f'id="{o}"' not in page] == []


def test_pen_fields_of_the_other_target_kind_are_gated(client) -> None:
    tree = html(client.get("/calculator?" + urlencode({"system": "pen", "t.kind": "vehicle"})))
    front = tree.css_first("#f-v-front").parent.parent
    assert front.attributes.get("data-when") == "t.kind=vehicle"
    toughness = tree.css_first("#f-t-toughness").parent.parent
    assert toughness.attributes.get("data-when") == "t.kind=unit"


def test_result_groups_name_the_target_not_main(client) -> None:
    # issue 18: the analysis page's "Target groups" section names the target, as the roll page
    query = [*BOLT_RIFLES, ("t.name", "Intercessors")]
    tree = html(client.get(url(query), headers=FR))
    pairs = [
        (dt.text().strip(), dt.next.text().strip() if dt.next else "")
        for dt in tree.css("dl.extra > dt")
    ]
    names = [value for label, value in pairs if label == "Nom"]
    assert names == ["Intercessors"], pairs
    unnamed = html(client.get(url(BOLT_RIFLES), headers=FR))
    texts = [dd.text().strip() for dd in unnamed.css("dl.extra > dd")]
    assert "main" not in texts
    assert "la cible" in texts


def test_pen_situation_has_the_melee_and_mutual_charge_boxes_in_french(client) -> None:
    query = {"system": "pen", "s.target_in_melee": "on", "s.defender_charged": "on"}
    tree = html(client.get("/calculator?" + urlencode(query), headers=FR))
    boxes = {n.attributes.get("name"): n for n in tree.css("input[type=checkbox]")}
    assert {"s.target_in_melee", "s.into_melee_malus", "s.defender_charged"} <= set(boxes)
    assert "checked" in boxes["s.target_in_melee"].attributes
    assert "checked" in boxes["s.defender_charged"].attributes
    assert "checked" not in boxes["s.into_melee_malus"].attributes
    text = tree.body.text() if tree.body else ""
    assert "Cible engagée au corps à corps" in text
    assert "L'unité chargée compte aussi comme ayant chargé" in text
