"""The Black Reach page's heavier actions (issue 16, ``app/matches/pages/black_reach.py``): a
heavy vehicle's weapons fired one by one (a select per weapon, the odds of each target and,
at a heavy vehicle, the edge hit and the exact odds of each Damage marker), its markers and
destroyed weapons on its card, a wreck drawn as terrain, a template placed on an intercase
(its squares for each quarter turn, its dispersion), a psyker's powers (the Perils of the
Warp odds, a Weirdboy's shared marker, Da Krunch's template) and their timeline sentences.

The battles are the engine tests' own boards (8 x 8, no terrain), set up for a match by
replacing the sample set-up the match system reads (``deployment=sample``)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.engine.black_reach.battle import BattleSetup
from app.matches.pages import black_reach
from app.matches.systems import black_reach as system
from tests.engine.black_reach.battle import test_heavy_vehicles as armour
from tests.engine.black_reach.battle import test_psykers as psykers
from tests.matches.test_pages_black_reach import (
    create,
    page_of,
    place_orders,
    post_form,
    slug,
    two_players,
)

TANK, NOB, SHOOTAS = armour.TANK, armour.NOB, armour.SHOOTAS
BOYZ1, BOYZ2 = armour.BOYZ1, armour.BOYZ2


def played_on(monkeypatch: pytest.MonkeyPatch, made: BattleSetup) -> None:
    """The matches created in this test are set up as ``made`` (its deployment included)."""
    monkeypatch.setattr(system, "sample_setup", lambda *args, **kw: made)


def taps_of(page: Any) -> dict[str, Any]:
    return dict(json.loads(page.css_first("#br-play").attributes["data-taps"]))


def table(node: Any, key: str = "data-outcome") -> dict[str, str]:
    return {tr.attributes[key]: tr.css("td")[0].text() for tr in node.css(f"tr[{key}]")}


def lines(page: Any) -> list[str]:
    return [li.text() for li in page.css("#timeline li")]


def actions(client: TestClient, match_id: int) -> list[dict[str, Any]]:
    return list(client.get(f"/api/v1/matches/{match_id}/actions").json()["actions"])


def test_a_shot_at_a_heavy_vehicle_shows_the_damage_odds_then_its_weapons_fire(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    played_on(monkeypatch, armour.setup())
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(bob, match_id, (SHOOTAS, NOB))
    place_orders(alice, match_id, (TANK,))
    # the Shootas (5, 7) behind the tank: the form says the rear is hit and gives the exact
    # odds of each marker of the set "grey" (a step, then the location die; a Coup Double
    # wrecks it): 2 + CV 4 + 2 (rear) against DV 8 needs 2+ for a step (6: still a step,
    # 8 + 6 = 14 is no Coup Double at 16); each marker 5/6 x 1/6, Hull on 2 faces
    page = page_of(bob, match_id)
    (shot_id,) = [f for f in taps_of(page)[SHOOTAS]["targets"][TANK] if f.startswith("form-shoot-")]
    form = page.css_first(f"#{shot_id}")
    damage = form.css_first("table.damage")
    assert "rear" in damage.css_first("caption").text()
    assert "grey" in damage.css_first("caption").text()
    got = {k: Fraction(v) for k, v in table(damage, "data-marker").items()}
    (entry,) = [
        a
        for a in actions(bob, match_id)
        if a["command"] == {"type": "shoot", "unit": SHOOTAS, "target": TANK, "suppression": False}
    ]
    assert (entry["side"], entry["damage_set"]) == ("rear", "grey")
    assert got == {k: Fraction(v) for k, v in entry["damage"].items()}
    step = Fraction(entry["odds"]["step"])
    assert got["hull"] == step * Fraction(2, 6)
    assert got["main_weapon_1"] == step / 6
    assert got["coup_double"] == Fraction(entry["odds"].get("coup_double", "0"))
    labels = [th.text() for th in damage.css("th")]
    assert "Main weapon 1 destroyed" in labels
    assert "Explosion!" in labels
    # 2 then 5: a step, the location roll 5 destroys the main weapon
    after = post_form(bob, match_id, f"#{shot_id}", page=page, dice="2 5")
    assert after.css_first("#match-error") is None
    said = lines(after)
    assert any(
        "Sample shootas shoots Sample battle tank (through its rear): 8 against 8, one step lost."
        in t
        for t in said
    ), said
    assert any(
        "Sample battle tank: location 5 on Damage set grey: Main weapon 1 destroyed." in t
        for t in said
    ), said
    # the tank's card: its marker and its weapons, the main one destroyed
    mine = page_of(alice, match_id)
    card = mine.css_first(f"#unit-{slug(TANK)}")
    assert [c.text() for c in card.css(".chip.damage")] == ["Main weapon 1 destroyed"]
    assert [w.text() for w in card.css(".weapon")] == [
        "main weapon 1 (destroyed)",
        "secondary weapon 1",
    ]
    assert card.css_first(".immobilised") is None
    # the tank fires: one select per working weapon, each target's odds on the form
    taps = taps_of(mine)
    fire_id = f"form-vehicle-fire-{slug(TANK)}"
    assert taps[TANK]["targets"][NOB] == [fire_id]
    fire = mine.css_first(f"#{fire_id}")
    assert [s.attributes["name"] for s in fire.css("select")] == ["shot.secondary_1"]
    options = [o.attributes["value"] for o in fire.css('select[name="shot.secondary_1"] option')]
    assert options[0] == ""  # the weapon may stay silent
    assert f"0|{NOB}" in options
    (fire_entry,) = [a for a in actions(alice, match_id) if a["command"]["type"] == "vehicle_fire"]
    (weapon,) = fire_entry["weapons"]
    at_nob = next(t for t in weapon["targets"] if t["target"] == NOB and not t["suppression"])
    shown = fire.css_first(f'div.weapon-choice[data-value="0|{NOB}"] table')
    assert table(shown) == at_nob["odds"]
    # the command the form posts: the shots in the weapons' order
    posted = black_reach.build_command(
        _form({"shot.secondary_1": f"0|{NOB}", "shot.main_1": ""}), dict(fire_entry["command"])
    )
    assert posted["shots"] == [{"weapon": "secondary_1", "target": NOB, "suppression": False}]
    after = post_form(
        alice, match_id, f"#{fire_id}", page=mine, dice="6", **{"shot.secondary_1": f"0|{NOB}"}
    )
    assert after.css_first("#match-error") is None
    shot = next(
        e["event"]
        for e in alice.get(f"/api/v1/matches/{match_id}/log").json()["entries"]
        if e["event"]["type"] == "unit_shot" and e["event"].get("weapon") == "secondary_1"
    )
    said = lines(after)
    expected = (
        f"Sample battle tank fires its secondary weapon 1 at Sample nob: "
        f"{shot['final']} against {shot['dv']}"
    )
    assert any(expected in t for t in said), said


def _form(data: dict[str, str]) -> Any:
    from starlette.datastructures import FormData

    return FormData(list(data.items()))


def hot_seat_on(browser: Callable[[str], TestClient]) -> tuple[TestClient, int]:
    """Alice creates a hot-seat match and starts it with Bruno on her device."""
    alice = browser("Alice")
    match_id = create(alice, deployment="sample", hot_seat="1")
    post_form(alice, match_id, "#hot-seat-form", name="Bruno")
    return alice, match_id


def hand_over(alice: TestClient, match_id: int, page: Any, name: str) -> Any:
    """The hand-off screen (no board, no token), then the next player's board."""
    assert page.css_first("#hand-off") is not None
    assert page.css_first("#br-board") is None
    assert 'class="token"' not in page.html
    assert "face-down" not in page.html
    assert name in page.css_first("#i-am").text()
    after = post_form(alice, match_id, "#hand-off-form", page=page)
    assert after.css_first("#playing-as").text().endswith(name)
    return after


def test_a_wrecked_tank_is_drawn_as_terrain_on_the_hot_seat(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    played_on(monkeypatch, armour.setup())
    alice, match_id = hot_seat_on(browser)
    page = place_orders(alice, match_id, (TANK,))
    page = hand_over(alice, match_id, page, "Bruno")
    page = place_orders(alice, match_id, (SHOOTAS, NOB), page=page)
    # the Shootas: 3 + 4 + 2 = 9 against 8, location 2: Hull (2 Suppressed markers)
    shot = f"#form-shoot-{slug(SHOOTAS)}-{slug(TANK)}"
    page = post_form(alice, match_id, shot, page=page, dice="3 2")
    page = hand_over(alice, match_id, page, "Alice")
    card = page.css_first(f"#unit-{slug(TANK)}")
    assert [c.text() for c in card.css(".chip.damage")] == ["Hull"]
    assert "2 Suppressed" in card.text()
    page = post_form(alice, match_id, f"#form-hold-{slug(TANK)}", page=page)
    page = hand_over(alice, match_id, page, "Bruno")
    # the Nob from the side: 4 + 4 = 8 against 8, location 4: a second Hull wrecks it
    page = post_form(
        alice, match_id, f"#form-shoot-{slug(NOB)}-{slug(TANK)}", page=page, dice="4 4"
    )
    said = lines(page)
    assert any(
        "Sample nob shoots Sample battle tank (through its side): 8 against 8, one step lost." in t
        for t in said
    ), said
    assert any("location 4 on Damage set grey: Hull." in t for t in said), said
    for seen in (page, page_of(alice, match_id)):
        if seen.css_first("#hand-off") is not None:
            continue
        # no counter of the tank: a wreck over its two squares, that no tap selects
        assert seen.css_first(f"#counter-{slug(TANK)}") is None
        wreck = seen.css_first(f"#wreck-{slug(TANK)}")
        assert wreck.attributes["pointer-events"] == "none"
        squares = [(r.attributes["x"], r.attributes["y"]) for r in wreck.css("rect.wreck-square")]
        assert squares == [("2.06", "3.06"), ("2.06", "4.06")]
        assert wreck.attributes["data-destruction"] == "0"
        assert TANK not in taps_of(seen)
        assert all(TANK not in t["targets"] for t in taps_of(seen).values())
        card = seen.css_first(f"#unit-{slug(TANK)}")
        assert card.css_first(".wreck-points").text() == "wreck: 0 Destruction point(s)"


def gunners_setup() -> BattleSetup:
    """The armour board; the Shootas with Tir Direct (template B) and Tir Indirect (L/2)."""
    base = armour.setup()
    catalogue = copy.deepcopy(base.catalogue)
    assert isinstance(catalogue, dict)
    counters = {c["id"]: c for c in catalogue["counters"]}
    counters["sample-ork-shootas"]["faces"][0]["abilities"] += [
        {"id": "direct_fire", "param": "B"},
        {"id": "indirect_fire", "param": "L/2"},
    ]
    return BattleSetup(base.scenario, catalogue, base.boards, base.seats, base.deployment)


def test_a_template_is_placed_on_an_intercase_from_the_hot_seat(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    played_on(monkeypatch, gunners_setup())
    alice, match_id = hot_seat_on(browser)
    page = place_orders(alice, match_id, (TANK,))
    page = hand_over(alice, match_id, page, "Bruno")
    page = place_orders(alice, match_id, (SHOOTAS, NOB), page=page)
    direct = page.css_first(f"#form-template-fire-{slug(SHOOTAS)}")
    indirect = page.css_first(f"#form-template-fire-{slug(SHOOTAS)}-ind")
    assert direct.css_first("p.form-title").text() == "Sample shootas: Tir Direct (template)"
    assert indirect.css_first("p.form-title").text() == "Sample shootas: Tir Indirect (template)"
    # the squares of template B for the preview, each quarter turn (offsets from the
    # intercase, its top-left corner)
    squares = json.loads(direct.css_first(".template").attributes["data-squares"])
    assert squares["N"] == [[-1, -1], [0, -1], [-1, 0], [0, 0]]
    assert squares["E"] == squares["N"]  # 2 x 2 around the intercase: the same turned
    assert direct.css_first(".dispersion") is None  # a direct shot never scatters
    assert "CV infantry 3 / light vehicle 2 / heavy vehicle 1" in direct.text()
    # L: 12 squares; turned E, its N bar (-1, -2), (0, -2) becomes (1, -1), (1, 0)
    turned = json.loads(indirect.css_first(".template").attributes["data-squares"])
    assert len(turned["E"]) == 12
    assert [1, -1] in turned["E"]
    assert [1, 0] in turned["E"]
    faces = [s.text() for s in indirect.css(".dispersion span[data-face]")]
    assert faces == ["1 NE", "2 SE", "3 SW", "4 NW"]
    assert "moves 2 intercase(s)" in indirect.css_first(".dispersion").text()
    # the x, y inputs bounded by the board's intercases (8 x 8 squares: 0 to 8)
    x = direct.css_first('input[name="x"]')
    assert (x.attributes["min"], x.attributes["max"]) == ("0", "8")
    facings = [o.attributes["value"] for o in direct.css('select[name="facing"] option')]
    assert facings == ["N", "E", "S", "W"]
    # an intercase left blank is refused with a message, nothing played
    version = alice.get(f"/api/v1/matches/{match_id}").json()["version"]
    blank = post_form(alice, match_id, f"#form-template-fire-{slug(SHOOTAS)}", page=page, x="")
    assert blank.css_first("#match-error") is not None
    assert alice.get(f"/api/v1/matches/{match_id}").json()["version"] == version
    # on (7, 1): the Orks' own Boyz under it, 1 + 3 = 4 against 4 then 6 + 3 = 9
    page = post_form(
        alice,
        match_id,
        f"#form-template-fire-{slug(SHOOTAS)}",
        page=page,
        x="7",
        y="1",
        facing="N",
        dice="1 6",
    )
    said = lines(page)
    assert any(
        "Sample shootas places template B on (7, 1). Under it: Sample boyz, Sample boyz." in t
        for t in said
    ), said
    assert any(
        "Template B of Sample shootas at Sample boyz: 4 against 4, one step lost." in t
        for t in said
    ), said
    assert any(
        "Template B of Sample shootas at Sample boyz: 9 against 4, Coup Double: two steps." in t
        for t in said
    ), said


def test_a_template_form_posts_its_intercase_and_quarter_turn() -> None:
    cmd = {"type": "template_fire", "unit": "u", "x": 0, "y": 0, "facing": "N", "indirect": True}
    got = black_reach.build_command(_form({"x": "3", "y": "5", "facing": "W"}), dict(cmd))
    assert got == cmd | {"x": 3, "y": 5, "facing": "W"}
    got = black_reach.build_command(_form({"x": "a", "y": "5", "facing": "NE"}), dict(cmd))
    assert "x" not in got
    assert "y" not in got
    assert got["facing"] == "N"
    shots = _form({"shot.main_1": "2|x", "shot.secondary_1": "1|orks:b", "shot.x": "nothing"})
    got = black_reach.build_command(shots, {"type": "vehicle_fire", "unit": "t"})
    assert got["shots"] == [{"weapon": "secondary_1", "target": "orks:b", "suppression": True}]
    # both weapons, the secondary one chosen to fire first
    both = _form(
        {"first": "secondary_1", "shot.main_1": "0|orks:n", "shot.secondary_1": "0|orks:b"}
    )
    got = black_reach.build_command(both, {"type": "vehicle_fire", "unit": "t"})
    assert [(s["weapon"], s["target"]) for s in got["shots"]] == [
        ("secondary_1", "orks:b"),
        ("main_1", "orks:n"),
    ]
    got = black_reach.build_command(
        _form({"shot.main_1": "0|orks:n", "shot.secondary_1": "0|orks:b"}),
        {"type": "vehicle_fire", "unit": "t"},
    )
    assert [s["weapon"] for s in got["shots"]] == ["main_1", "secondary_1"]


def test_a_psyker_manifests_with_the_perils_odds_and_a_weirdboy_shares_a_marker(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    played_on(monkeypatch, psykers.setup())
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(bob, match_id, (psykers.SHOOTAS, psykers.WEIRDBOY, psykers.NOB))
    place_orders(alice, match_id, (psykers.LIBRARIAN, psykers.TACTICAL, psykers.SERGEANT))
    # the Shootas flip the tactical squad (3 + 2 = 5 against 5)
    form = f"#form-shoot-{slug(psykers.SHOOTAS)}-{slug(psykers.TACTICAL)}"
    post_form(bob, match_id, form, dice="3")
    # the Librarian: Endurance on the squad, tapped on it; 1 die + 2 - 2 x 2 (its cost)
    page = page_of(alice, match_id)
    heal_id = (
        f"form-manifest-{slug(psykers.LIBRARIAN)}-sample-um-endurance-{slug(psykers.TACTICAL)}"
    )
    assert heal_id in taps_of(page)[psykers.LIBRARIAN]["targets"][psykers.TACTICAL]
    heal = page.css_first(f"#{heal_id}")
    assert heal.css_first("p.form-title").text() == (
        "Sample librarian manifests Sample healing power on Sample tactical squad"
    )
    assert heal.css_first("[data-cost]").attributes["data-cost"] == "2"
    assert table(heal.css_first("table.perils")) == {"draw_marker": "1/2", "works": "1/2"}
    assert heal.css_first('select[name="share"]') is None  # a Librarian shares nothing
    page = post_form(alice, match_id, f"#{heal_id}", page=page, dice="4")
    said = lines(page)
    assert any(
        "Sample librarian manifests Sample healing power on Sample tactical squad: "
        "Perils of the Warp 2, the power works. The power applies." in t
        for t in said
    ), said
    # the Weirdboy (level 2, cost 2): all on him, 1 die + 2 - 4: 1 to 3 explode, 4-5 a step;
    # one marker on a unit within 2 squares, 1 die + 2 - 2: 1 explodes, 2-3 a step
    page = page_of(bob, match_id)
    gaze_id = f"form-manifest-{slug(psykers.WEIRDBOY)}-test-weirdboy-gaze"
    gaze = page.css_first(f"#{gaze_id}")
    assert table(gaze.css_first("table.perils")) == {
        "explodes": "1/2",
        "step": "1/3",
        "works": "1/6",
    }
    assert table(gaze.css_first("table.perils-shared")) == {
        "explodes": "1/6",
        "step": "1/3",
        "works": "1/2",
    }
    offered = [o.attributes["value"] for o in gaze.css('select[name="share"] option')]
    assert offered == ["", psykers.NOB, psykers.BOYZ1, psykers.BOYZ2, psykers.SHOOTAS]
    krunch = page.css_first(f"#form-manifest-{slug(psykers.WEIRDBOY)}-sample-ork-krunch")
    assert "within 6 squares of the psyker" in krunch.css_first(".template").text()
    page = post_form(bob, match_id, f"#{gaze_id}", page=page, share=psykers.BOYZ1, dice="2")
    said = lines(page)
    assert any("Sample boyz takes 1 Suppressed marker(s)." in t for t in said), said
    assert any(
        "Perils of the Warp 2, the power works, the psyker loses a step. The power applies." in t
        for t in said
    ), said
    assert any("Bob (orks) keeps the initiative next turn." in t for t in said), said


def test_da_krunch_is_placed_from_the_hot_seat(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    played_on(monkeypatch, psykers.setup())
    alice, match_id = hot_seat_on(browser)
    page = place_orders(alice, match_id, (psykers.LIBRARIAN, psykers.TACTICAL, psykers.SERGEANT))
    page = hand_over(alice, match_id, page, "Bruno")
    page = place_orders(
        alice, match_id, (psykers.SHOOTAS, psykers.WEIRDBOY, psykers.NOB), page=page
    )
    page = post_form(alice, match_id, f"#form-hold-{slug(psykers.SHOOTAS)}", page=page)
    page = hand_over(alice, match_id, page, "Alice")
    page = post_form(alice, match_id, f"#form-hold-{slug(psykers.LIBRARIAN)}", page=page)
    page = hand_over(alice, match_id, page, "Bruno")
    form_id = f"#form-manifest-{slug(psykers.WEIRDBOY)}-sample-ork-krunch"
    krunch = page.css_first(form_id)
    squares = json.loads(krunch.css_first(".template").attributes["data-squares"])
    assert squares["N"] == [[-1, -1], [0, -1], [-1, 0], [0, 0]]
    # Perils 6 + 2 - 4 = 4: works; the template on (2, 2) over the Librarian and the squad
    page = post_form(alice, match_id, form_id, page=page, x="2", y="2", dice="6 6 5 6 6")
    said = lines(page)
    assert any(
        "Sample weirdboy manifests Sample crushing power: Perils of the Warp 4, the power works. "
        "The power applies." in t
        for t in said
    ), said
    assert any(
        "Sample crushing power of Sample weirdboy at Sample librarian: 7 against 5, one step lost."
        in t
        for t in said
    ), said
    assert any(
        "Sample weirdboy places template B on (2, 2). "
        "Under it: Sample librarian, Sample tactical squad." in t
        for t in said
    ), said


def test_the_new_events_in_sentences() -> None:
    names = {"t": "Tank", "w": "Wreck", "p": "Librarian", "opt": "Gate"}
    sides = {"orks": "Bob (orks)"}
    say = black_reach.describe
    assert (
        say(
            {"type": "destruction_dealt", "wreck": "w", "points": 2, "total": 3, "by": "t"},
            names,
            sides,
        )
        == "Tank drives into the wreck of Wreck: 2 Destruction point(s), 3 in all."
    )
    assert (
        say(
            {"type": "destruction_dealt", "wreck": "w", "points": 1, "total": 4, "removed": True},
            names,
            sides,
        )
        == "The wreck of Wreck takes 1 Destruction point(s), 4 in all. The wreck is removed."
    )
    assert (
        say({"type": "suppressed_removed", "unit": "p", "count": 2}, names, sides)
        == "Librarian: 2 Suppressed marker(s) removed."
    )
    assert (
        say({"type": "power_lost", "unit": "p", "power": "opt"}, names, sides)
        == "Librarian loses Gate for the rest of the battle."
    )
    assert (
        say({"type": "initiative_kept", "side": "orks"}, names, sides)
        == "Bob (orks) keeps the initiative next turn."
    )
    assert (
        say(
            {
                "type": "damage_located",
                "unit": "t",
                "damage_set": "grey",
                "result": 3,
                "marker": "secondary_weapon",
                "number": 2,
            },
            names,
            sides,
        )
        == "Tank: location 3 on Damage set grey: Secondary weapon 2 destroyed."
    )
    assert (
        say(
            {"type": "armour_save", "unit": "t", "result": 5, "value": 4, "saved": True},
            names,
            sides,
        )
        == "Tank saves: 5 against 4."
    )
    assert (
        say(
            {
                "type": "template_placed",
                "unit": "t",
                "template": "L",
                "indirect": True,
                "aimed": {"x": 2, "y": 4},
                "landed": {"x": 4, "y": 6},
                "targets": [],
            },
            names,
            sides,
        )
        == "Tank fires template L indirectly at (2, 4): it lands on (4, 6). Nobody is under it."
    )
    assert (
        say(
            {
                "type": "unit_shot",
                "unit": "t",
                "target": "p",
                "weapon": "main_2",
                "suppression": True,
                "final": 7,
                "dv": 5,
                "outcome": "suppressed_2",
            },
            names,
            sides,
        )
        == "Tank: suppression fire with its main weapon 2 at Librarian: 7 against 5, "
        "2 Suppressed marker(s)."
    )


def test_a_heavy_vehicle_counter_carries_its_markers_and_a_wreck_its_points() -> None:
    view = {
        "you": "ultramarines",
        "seats": {"A": "ultramarines", "B": "orks"},
        "units": [
            {
                "id": "t",
                "side": "ultramarines",
                "name": "Tank",
                "face": "intact",
                "at": {"x": 2, "y": 3},
                "squares": [[2, 3], [2, 4]],
                "damage": ["locomotion", "secondary_weapon_2"],
                "immobilised": True,
                "weapons": [
                    {"weapon": "main_1", "slot": "main", "number": 1, "destroyed": False},
                    {"weapon": "secondary_2", "slot": "secondary", "number": 2, "destroyed": True},
                ],
            },
            {
                "id": "w",
                "side": "orks",
                "name": "Trukk",
                "face": "wreck",
                "destroyed": True,
                "wreck": True,
                "destruction": 2,
                "at": {"x": 5, "y": 5},
                "squares": [[5, 5], [6, 5]],
            },
        ],
    }
    tank, wreck = black_reach.counters(view)
    assert tank.damage == ("Locomotion", "Secondary weapon 2 destroyed")
    assert tank.immobilised is True
    assert tank.weapons == (("main weapon 1", False), ("secondary weapon 2", True))
    assert (wreck.wreck, wreck.destruction, wreck.squares) == (True, 2, [(5, 5), (6, 5)])
    board = black_reach.Board("play", "A", False, "/act", view, None, [tank, wreck], [], None)
    assert [c.id for c in board.on_board] == ["t"]
    assert [c.id for c in board.wrecks] == ["w"]
