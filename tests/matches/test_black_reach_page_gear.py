"""The Black Reach page's controls for brengine's flamer, grenades and mechanics (issue 16,
``app/matches/pages/black_reach_gear.py``): Lance-Flammes one form per direction naming the
units the flame reaches (friends too), tapped from a target and fired with the dice by hand;
a grenade's template placed on an intercase as Tir Direct is, its markers left named; a
Mekaniak readied with the change chosen in a select; and their timeline sentences. The
battles are the engine tests' own (tests/engine/black_reach/battle/test_flamer.py,
test_grenades.py, test_repairs.py), played with two browsers over the page's forms."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.datastructures import FormData

from app.matches.pages import black_reach
from app.matches.systems import black_reach as system
from tests.engine.black_reach.battle import test_beam_and_dome as beam
from tests.engine.black_reach.battle import test_equipment as equipment
from tests.engine.black_reach.battle import test_flamer as flamer
from tests.engine.black_reach.battle import test_grenades as grenades
from tests.engine.black_reach.battle import test_repairs as repairs
from tests.matches.test_pages_black_reach import (
    fields,
    page_of,
    place_orders,
    post_form,
    slug,
    two_players,
)


@pytest.fixture(autouse=True)
def _fresh_scenarios() -> Iterator[None]:
    """The tests here replace the sample set-up the system reads: its cached scenarios are
    dropped afterwards, so that a later test's sample match reads the shipped one again."""
    yield
    system._scenario.cache_clear()
    system._shipped_content_id.cache_clear()


def lines(page: Any) -> list[str]:
    return [li.text() for li in page.css("#timeline li")]


def played_on(monkeypatch: pytest.MonkeyPatch, made: Any) -> None:
    monkeypatch.setattr(system, "sample_setup", lambda *args, **kw: made)


def test_a_flame_from_the_page(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    played_on(monkeypatch, flamer.setup())
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(bob, match_id, (flamer.SHOOTAS, flamer.NOB))
    place_orders(alice, match_id, (flamer.TACTICAL, flamer.SERGEANT))
    page = page_of(bob, match_id)
    west = page.css_first(f"#form-flame-{slug(flamer.SHOOTAS)}-W")
    assert west.css_first("p.form-title").text() == "Sample shootas: Lance-Flammes, direction west"
    reached = west.css_first(".flame-targets").text()
    assert reached == (
        "The flame reaches (friends too): Sample sergeant, Sample tactical squad, Sample boyz"
    )
    assert west.css_first("details.hand-dice") is not None
    assert west.css_first("button[type=submit]").text().strip() == "Fire"
    # a tap on the Sergeant opens the flames that reach him
    taps = json.loads(page.css_first("#br-play").attributes["data-taps"])
    assert (
        f"form-flame-{slug(flamer.SHOOTAS)}-W" in taps[flamer.SHOOTAS]["targets"][flamer.SERGEANT]
    )
    ids = [f.attributes["id"] for f in page.css("form.action-flame")]
    assert len(ids) == len(set(ids)) >= 2  # one form per direction
    after = post_form(
        bob, match_id, f"#form-flame-{slug(flamer.SHOOTAS)}-W", page=page, dice="4 1 6"
    )
    assert after.css_first("#match-error") is None
    said = lines(after)
    assert any(
        "Sample shootas fires its flamer, direction west (template F). It reaches: "
        "Sample sergeant, Sample tactical squad, Sample boyz." in t
        for t in said
    ), said


def test_a_grenade_from_the_page(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    played_on(monkeypatch, grenades.setup())
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(bob, match_id, (grenades.BOYZ2, grenades.NOB))
    place_orders(alice, match_id, (grenades.TACTICAL, grenades.SERGEANT))
    page = page_of(alice, match_id)
    css = f"#form-grenade-{slug(grenades.TACTICAL)}-test-grenades"
    form = page.css_first(css)
    assert form is not None, [f.attributes.get("id") for f in page.css("form")]
    assert form.css_first("p.form-title").text().endswith("(1 left)")
    template = form.css_first(".template")
    assert "within 3 intercases of the thrower" in template.text()
    assert json.loads(template.attributes["data-squares"])["N"]
    assert form.css_first("button[type=submit]").text().strip() == "Throw"
    after = post_form(alice, match_id, css, page=page, x="5", y="4", facing="N", dice="1 2")
    assert after.css_first("#match-error") is None
    said = lines(after)
    assert any(" on (5, 4). Under it: Sample shootas, Sample boyz." in t for t in said), said
    assert after.css_first(css) is None  # its only marker is used


def test_a_mekaniak_is_readied_from_the_page(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    played_on(monkeypatch, repairs.setup("mekaniak"))
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(bob, match_id, (repairs.SHOOTAS, repairs.NOB))
    place_orders(alice, match_id, (repairs.TANK, repairs.SERGEANT, repairs.TACTICAL))
    page = page_of(alice, match_id)
    css = f"#form-ready-repair-{slug(repairs.SERGEANT)}"
    form = page.css_first(css)
    assert form is not None, [f.attributes.get("id") for f in page.css("form")]
    options = [o.attributes["value"] for o in form.css('select[name="modifier"] option')]
    assert options == ["-2", "-1", "1", "2"]
    assert form.css_first(".readied-now") is None
    after = post_form(alice, match_id, css, page=page, modifier="-1")
    assert after.css_first("#match-error") is None
    assert any("Sample sergeant is readied for a location roll: -1." in t for t in lines(after))
    assert after.css_first(f"{css} .readied-now").text() == "Readied now: -1."


def test_equipment_markers_are_readied_from_the_page(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    played_on(monkeypatch, equipment.setup())
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(bob, match_id, (equipment.SHOOTAS, equipment.BOYZ1))
    place_orders(alice, match_id, (equipment.BOLTER, equipment.TACTICAL))
    page = page_of(alice, match_id)
    css = f"#form-ready-equipment-{slug(equipment.BOLTER)}-sample-um-ammo"
    form = page.css_first(css)
    assert form is not None, [f.attributes.get("id") for f in page.css("form")]
    assert form.css_first("p.form-title").text().endswith("use Sample ammunition (3 left)")
    assert [o.attributes["value"] for o in form.css('select[name="count"] option')] == [
        "1",
        "2",
        "3",
    ]
    after = post_form(alice, match_id, css, page=page, count="2")
    assert after.css_first("#match-error") is None
    said = lines(after)
    assert any("readies 2 Sample ammunition marker(s) for its next action." in t for t in said), (
        said
    )
    assert after.css_first(f"{css} .readied-now").text() == "Readied now: 2."
    assert [o.attributes["value"] for o in after.css(f'{css} select[name="count"] option')] == ["1"]


def test_a_killbolt_from_the_page_names_the_units_under_its_beam(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    played_on(monkeypatch, beam.setup())
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(bob, match_id, (beam.SHOOTAS, beam.WEIRDBOY, beam.NOB))
    place_orders(alice, match_id, (beam.LIBRARIAN, beam.TACTICAL, beam.SERGEANT))
    post_form(bob, match_id, f"#form-hold-{slug(beam.SHOOTAS)}")
    post_form(alice, match_id, f"#form-hold-{slug(beam.LIBRARIAN)}")
    page = page_of(bob, match_id)
    css = f"#form-manifest-{slug(beam.WEIRDBOY)}-test-killbolt-{slug(beam.TACTICAL)}"
    form = page.css_first(css)
    assert form is not None, [f.attributes.get("id") for f in page.css("form")]
    assert (
        form.css_first("p.form-title")
        .text()
        .endswith("manifests A made-up killbolt on Sample tactical squad")
    )
    after = post_form(bob, match_id, css, page=page, dice="6 5 6")
    assert after.css_first("#match-error") is None
    said = lines(after)
    assert any(
        "fires A made-up killbolt at (2, 2); under the beam: Sample boyz, Sample tactical squad."
        in t
        for t in said
    ), said


def test_an_equipment_form_reads_only_one_to_three() -> None:
    cmd = {"type": "ready_equipment", "unit": "u", "option": "o", "count": 1}
    for bad in ("0", "4", "²", "٣", ""):
        assert black_reach.build_command(FormData([("count", bad)]), dict(cmd)) == cmd
    assert black_reach.build_command(FormData([("count", "3")]), dict(cmd))["count"] == 3


def test_a_readying_form_reads_only_known_choices() -> None:
    cmd = {"type": "ready_repair", "unit": "tm", "modifier": 0, "pick": ""}
    form = FormData([("modifier", "²"), ("pick", "middle")])
    assert black_reach.build_command(form, dict(cmd)) == cmd
    form = FormData([("pick", "high")])
    assert black_reach.build_command(form, dict(cmd))["pick"] == "high"


def test_en_alerte_by_a_heavy_vehicle_names_the_weapons_that_fire() -> None:
    entry = {
        "command": {"type": "overwatch", "unit": "tank", "after": 1, "suppression": False},
        "target": "boyz",
        "square": [3, 4],
        "odds": {"miss": "1/2", "step": "1/2"},
        "weapons": ["main_1", "secondary_1"],
    }
    forms, _orders = black_reach.action_forms([entry], {"tank": "Tank", "boyz": "Boyz"})
    assert forms[0].note == "With: main weapon 1, secondary weapon 1"
    plain = {k: v for k, v in entry.items() if k != "weapons"}
    assert black_reach.action_forms([plain], {})[0][0].note == ""


def test_a_double_tir_weapon_of_a_heavy_vehicle_takes_two_targets(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """brengine's Double Tir on a vehicle's weapon: two target selects of one name; both
    shots are posted and fired in the one action."""
    from starlette.datastructures import FormData as Posted

    from tests.engine.black_reach.battle import test_vehicle_double_shot as double

    played_on(monkeypatch, double.double_setup())
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(bob, match_id, (double.SHOOTAS, double.NOB))
    place_orders(alice, match_id, (double.TANK,))
    post_form(bob, match_id, f"#form-hold-{slug(double.SHOOTAS)}")
    page = page_of(alice, match_id)
    fire = page.css_first(f"#form-vehicle-fire-{slug(double.TANK)}")
    main = fire.css_first('fieldset.weapon[data-weapon="main_1"]')
    assert main.attributes["data-shots"] == "2"
    assert len(main.css('select[name="shot.main_1"]')) == 2
    assert len(fire.css('select[name="shot.secondary_1"]')) == 1
    entry = {"command": {"type": "vehicle_fire", "unit": double.TANK, "shots": []}}
    posted = Posted(
        [
            ("shot.main_1", f"0|{double.BOYZ1}"),
            ("shot.main_1", f"0|{double.BOYZ2}"),
            ("shot.secondary_1", ""),
        ]
    )
    assert black_reach.build_command(posted, dict(entry["command"]))["shots"] == [
        {"weapon": "main_1", "target": double.BOYZ1, "suppression": False},
        {"weapon": "main_1", "target": double.BOYZ2, "suppression": False},
    ]
    data = {k: v for k, v in fields(fire).items() if not k.startswith("shot.")} | {"dice": "1 2"}
    body: dict[str, Any] = data | {
        "shot.main_1": [f"0|{double.BOYZ1}", f"0|{double.BOYZ2}"]
    }  # two values of one name, as the two selects post them
    r = alice.post(str(fire.attributes["action"]), data=body, headers={"HX-Request": "true"})
    assert r.status_code == 200, r.text
    from tests.support.web import html

    assert html(r).css_first("#match-error") is None, html(r).css_first("#match-error").text()
    said = lines(page_of(alice, match_id))
    assert sum("fires its main weapon 1 at Sample boyz" in t for t in said) == 2, said


def test_a_vehicle_rafale_names_its_weapon_in_the_timeline() -> None:
    ev = {"type": "burst_declared", "unit": "tank", "weapon": "main_1", "modified_cv": 3,
          "shares": [{"target": "a", "cv": 2}, {"target": "b", "cv": 1}]}  # fmt: skip
    assert black_reach.describe(ev, {"tank": "Tank"}, {}) == (
        "Tank announces a Rafale with its main weapon 1: its CV 3 split between 2 targets."
    )
    plain = {k: v for k, v in ev.items() if k != "weapon"}
    assert black_reach.describe(plain, {"tank": "Tank"}, {}) == (
        "Tank announces a Rafale: its CV 3 split between 2 targets."
    )


def test_a_destruction_form_picks_the_structure_and_says_it() -> None:
    entry = {
        "command": {"type": "demolish", "unit": "nob", "structure": ""},
        "structures": ["ruin", "wreck:tank"],
    }
    names = {"nob": "Nob", "tank": "Tank"}
    forms, _orders = black_reach.action_forms([entry], names)
    (form,) = forms
    assert form.label == "Nob: Destruction at a structure"
    assert form.settings == [("ruin", "ruin"), ("wreck:tank", "the wreck of Tank")]
    assert form.dice  # its Destruction dice, by hand if the players roll them
    posted = black_reach.build_command(FormData([("structure", "wreck:tank")]), dict(form.command))
    assert posted["structure"] == "wreck:tank"
    said = {"type": "demolished", "unit": "nob", "structure": "wreck:tank", "how": "shot"}
    assert (
        black_reach.describe(said, names, {}) == "Nob rolls its Destruction at the wreck of Tank."
    )
    said["how"] = "demolisher"
    assert black_reach.describe(said, names, {}) == (
        "Nob demolishes the wreck of Tank at the end of its move."
    )


def test_a_demolisher_names_its_structure_with_the_move_and_the_page_lists_structures(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.engine.black_reach.battle import test_structures as structures

    played_on(monkeypatch, structures.setup([structures.DEMOLISHER]))
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(bob, match_id, (structures.SHOOTAS, structures.NOB))
    place_orders(alice, match_id, (structures.TACTICAL, structures.SERGEANT))
    page = page_of(alice, match_id)
    listed = {
        li.attributes["data-structure"]: (li.attributes["data-points"], li.text())
        for li in page.css("#br-structures li")
    }
    assert set(listed) == {"bunker", "hut"}
    assert listed["bunker"][0] == "0"
    assert "0 of 2 Destruction point(s) · standing" in listed["bunker"][1]
    assert "(4, 3)" in listed["bunker"][1]
    css = f"#form-move-{slug(structures.TACTICAL)}"
    form = page.css_first(css)
    chosen = [o.attributes.get("value") for o in form.css("select[name=demolish] option")]
    assert chosen == ["", "bunker", "hut"]
    assert "bunker (0 of 2 Destruction points)" in form.css_first("select[name=demolish]").text()
    # a unit without Démolisseur is not asked
    assert page.css_first(f"#form-move-{slug(structures.SERGEANT)} select[name=demolish]") is None
    to = form.css_first('select[name=path] option[data-to="3,3"]').attributes["value"]
    after = post_form(alice, match_id, css, page=page, path=str(to), demolish="bunker")
    assert after.css_first("#match-error") is None
    said = lines(after)
    assert any("demolishes bunker at the end of its move." in t for t in said), said
    # the list shows the points the dice dealt (the match's own dice: whatever they were)
    from tests.matches.test_black_reach_match import live

    dealt = {s["id"]: s["points"] for s in live(match_id).view("A")["structures"]}
    shown = after.css_first('#br-structures li[data-structure="bunker"]').attributes
    assert shown["data-points"] == str(dealt["bunker"])


def test_a_move_form_posts_the_structure_and_a_flame_during_it() -> None:
    cmd = {"type": "move", "unit": "u"}
    posted = FormData(
        [("path", '[[1,2,"N"]]'), ("demolish", "bunker"), ("flame", "W"), ("fire_after", "1")]
    )
    made = black_reach.build_command(posted, dict(cmd))
    assert made["demolish"] == "bunker"
    assert (made["flame"], made["fire_after"]) == ("W", 1)
    # none chosen, a direction not a quarter turn, a step count not ASCII: nothing sent
    for bad in (
        [("demolish", ""), ("flame", "")],
        [("flame", "NE"), ("fire_after", "1")],
        [("flame", "N"), ("fire_after", "\u0663")],
    ):
        made = black_reach.build_command(FormData(bad), dict(cmd))
        assert "demolish" not in made
        assert "fire_after" not in made
    assert black_reach.build_command(FormData([("flame", "N")]), dict(cmd))["flame"] == "N"
    # a reserve move names a structure too, never a flame
    reserve = black_reach.build_command(
        FormData([("demolish", "hut"), ("flame", "N")]), {"type": "reserve_move", "unit": "u"}
    )
    assert reserve["demolish"] == "hut"
    assert "flame" not in reserve


def test_a_flame_during_a_move_from_the_page(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    played_on(monkeypatch, flamer.setup())
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(bob, match_id, (flamer.SHOOTAS, flamer.NOB))
    place_orders(alice, match_id, (flamer.TACTICAL, flamer.SERGEANT))
    page = page_of(bob, match_id)
    css = f"#form-move-{slug(flamer.SHOOTAS)}"
    form = page.css_first(css)
    directions = [o.attributes.get("value") for o in form.css("select[name=flame] option")]
    assert directions == ["", "N", "E", "S", "W"]
    assert form.css_first("input[name=fire_after]") is not None
    # a unit whose flamer may not fire now is not asked
    assert page.css_first(f"#form-move-{slug(flamer.NOB)} select[name=flame]") is None
    first = form.css_first("select[name=path] option")
    after = post_form(
        bob,
        match_id,
        css,
        page=page,
        path=str(first.attributes["value"]),
        flame="W",
        fire_after="0",
    )
    assert after.css_first("#match-error") is None, after.css_first("#match-error").text()
    said = lines(after)
    assert any("fires its flamer, direction west" in t for t in said), said


def test_a_rafale_weapon_of_a_heavy_vehicle_splits_its_cv_from_the_page(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    import copy

    from app.engine.black_reach.battle import BattleSetup
    from tests.engine.black_reach.battle import test_vehicle_double_shot as double

    base = double.setup()
    catalogue = copy.deepcopy(base.catalogue)
    tank = next(c for c in catalogue["counters"] if c["id"] == "sample-um-battle-tank")
    tank["faces"][0]["weapons"][0]["abilities"].append({"id": "burst"})
    played_on(
        monkeypatch,
        BattleSetup(base.scenario, catalogue, base.boards, base.seats, base.deployment),
    )
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(bob, match_id, (double.SHOOTAS, double.NOB))
    place_orders(alice, match_id, (double.TANK,))
    post_form(bob, match_id, f"#form-hold-{slug(double.SHOOTAS)}")
    page = page_of(alice, match_id)
    fire = page.css_first(f"#form-vehicle-fire-{slug(double.TANK)}")
    main = fire.css_first('fieldset.weapon[data-weapon="main_1"]')
    inputs = [i.attributes["name"] for i in main.css("details.weapon-burst input")]
    assert f"burst.main_1.{double.BOYZ1}" in inputs
    assert f"burst.main_1.{double.BOYZ2}" in inputs
    # the weapon without Rafale offers none
    assert fire.css_first('fieldset.weapon[data-weapon="secondary_1"] details.weapon-burst') is None
    data = fields(fire) | {
        f"burst.main_1.{double.BOYZ1}": "2",
        f"burst.main_1.{double.BOYZ2}": "1",
        "shot.main_1": f"0|{double.NOB}",  # replaced by the Rafale
        "dice": "2 3",
    }
    r = alice.post(str(fire.attributes["action"]), data=data, headers={"HX-Request": "true"})
    assert r.status_code == 200, r.text
    from tests.support.web import html

    assert html(r).css_first("#match-error") is None, html(r).css_first("#match-error").text()
    said = lines(page_of(alice, match_id))
    assert any(
        "announces a Rafale with its main weapon 1: its CV 3 split between 2 targets." in t
        for t in said
    ), said


def test_a_vehicle_rafale_form_posts_its_shares() -> None:
    cmd = {"type": "vehicle_fire", "unit": "tank", "shots": []}
    posted = FormData(
        [
            ("shot.main_1", "0|c"),
            ("shot.secondary_1", "1|c"),
            ("burst.main_1.a", "2"),
            ("burst.main_1.b", "1"),
            ("burst.main_1.c", "0"),
            ("burst.main_1.d", ""),
            ("burst.main_1.e", "\u0663"),
        ]
    )
    assert black_reach.build_command(posted, dict(cmd))["shots"] == [
        {"weapon": "secondary_1", "target": "c", "suppression": True},
        {"weapon": "main_1", "target": "a", "suppression": False, "share": 2},
        {"weapon": "main_1", "target": "b", "suppression": False, "share": 1},
    ]


def test_the_page_reads_ascii_digits_only() -> None:
    for text in ("\u0663", "²", "1\u0663", "+1", " 3 "):
        expected = 3 if text == " 3 " else None
        assert black_reach._int(text, 0, 99) == expected, text
    posted = FormData([("square", "\u0663,2"), ("facing", "N")])
    assert "x" not in black_reach.build_command(posted, {"type": "deploy", "unit": "u"})


def test_the_sentences_of_da_jump() -> None:
    names = {"wb": "Weirdboy", "nob": "Nob"}
    jumped = {"type": "units_jumped", "unit": "wb", "units": ["wb", "nob"], "turn": 1}
    assert black_reach.describe(jumped, names, {}) == "Weirdboy jumps off the battlefield with Nob."
    alone = {"type": "units_jumped", "unit": "wb", "units": ["wb"], "turn": 1}
    assert black_reach.describe(alone, names, {}) == "Weirdboy jumps off the battlefield."
    landed = {"type": "jump_landed", "unit": "nob", "edges": ["E"]}
    assert black_reach.describe(landed, names, {}) == "Nob comes back by the east edge."
