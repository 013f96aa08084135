"""The narrative missions' 8th-to-10th mappings as match settings (issue 15; rulings 1-2, 84-86):
``options.value_measure`` and ``options.troops_keywords`` chosen at creation, checked, recorded
in the mission the creation event carries, shown on the page and honoured by the battle; and an
uploaded pack's own expansions offered with its scenarios."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.engine.narrative8e.pack import PACKS_DIR
from tests.matches.conftest import FakeArmies, Game, Player, marines, orks
from tests.matches.test_narrative_match import club_pack, new_narrative_game, upload
from tests.support.web import html

HX = {"HX-Request": "true"}


def created_event(g: Game) -> dict[str, Any]:
    event: dict[str, Any] = g.a.client.get(g.a.base + "/log").json()["entries"][0]["event"]
    assert event["type"] == "match_created"
    return event


def recorded_narrative(g: Game) -> dict[str, Any]:
    narrative: dict[str, Any] = created_event(g)["setup"]["mission"]["options"]["narrative"]
    return narrative


def shipped() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PACKS_DIR / "narrative-8e.json").read_text("utf-8"))
    return data


def create(client: TestClient, armies: FakeArmies, mission: str, options: Any) -> Any:
    return client.post(
        "/api/v1/matches",
        json={"army_id": armies.ready(client, marines()), "mission": mission, "options": options},
    )


def errors_of(r: Any) -> dict[str, str]:
    assert r.status_code == 422, r.text
    return {e["field"]: e["message"] for e in r.json()["errors"]}


# -- the settings at creation ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "measure", "troops"),
    [
        ({"value_measure": "points"}, "points", ["BATTLELINE", "INFANTRY"]),
        ({"value_measure": "power"}, "power", ["BATTLELINE", "INFANTRY"]),
        ({"troops_keywords": ["BATTLELINE"]}, "points", ["BATTLELINE"]),
        ({"troops_keywords": ["INFANTRY"]}, "points", ["INFANTRY"]),
        # any order, and the form's one text: recorded in one order
        ({"troops_keywords": ["INFANTRY", "BATTLELINE"]}, "points", ["BATTLELINE", "INFANTRY"]),
        ({"troops_keywords": "BATTLELINE,INFANTRY"}, "points", ["BATTLELINE", "INFANTRY"]),
    ],
)
def test_each_setting_is_recorded_in_the_creation_event_and_shown_in_the_view(
    user_client: Callable[[str], TestClient],
    armies: FakeArmies,
    db: Session,
    options: dict[str, Any],
    measure: str,
    troops: list[str],
) -> None:
    g = new_narrative_game(user_client, armies, db, "patrol", options)
    narrative = recorded_narrative(g)
    assert narrative["value_measure"] == measure
    assert narrative["rules"]["sentries"]["troops_keywords"] == troops
    # everything else of the pack's rules is recorded as the pack gives it
    pack_rules = shipped()["rules"]
    assert {k: v for k, v in narrative["rules"].items() if k != "sentries"} == {
        k: v for k, v in pack_rules.items() if k != "sentries"
    }
    view = g.b.view()["narrative"]
    assert (view["value_measure"], view["troops_keywords"]) == (measure, troops)
    # the settings are the mission's, not the battle's options
    assert "value_measure" not in created_event(g)["setup"]["options"]


def test_bad_settings_are_refused_at_creation_with_their_field(
    user_client: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    alice = user_client("Alice")
    before = alice.get("/api/v1/matches").json()
    bad: list[tuple[dict[str, Any], str]] = [
        ({"troops_keywords": ["TROOPS"]}, "options.troops_keywords"),
        ({"troops_keywords": ["BATTLELINE", "VEHICLE"]}, "options.troops_keywords"),
        ({"troops_keywords": []}, "options.troops_keywords"),
        ({"troops_keywords": ["INFANTRY", "INFANTRY"]}, "options.troops_keywords"),
        ({"troops_keywords": ["battleline"]}, "options.troops_keywords"),
        ({"troops_keywords": ["BATTLELINE²"]}, "options.troops_keywords"),
        ({"troops_keywords": [3]}, "options.troops_keywords.0"),
        ({"value_measure": "power_level"}, "options.value_measure"),
        ({"value_measure": "²"}, "options.value_measure"),
        ({"value_measure": 1}, "options.value_measure"),
    ]
    for options, field in bad:
        errors = errors_of(create(alice, armies, "patrol", options))
        assert field in errors, (options, errors)
    errors = errors_of(create(alice, armies, "patrol", {"troops_keywords": ["TROOPS"]}))
    assert "BATTLELINE, INFANTRY" in errors["options.troops_keywords"]
    # a mission that is not narrative takes neither
    for options, field in (
        ({"value_measure": "points"}, "options.value_measure"),
        ({"troops_keywords": ["BATTLELINE"]}, "options.troops_keywords"),
    ):
        errors = errors_of(create(alice, armies, "only-war", options))
        assert errors == {field: "only-war is not a narrative mission"}
    assert alice.get("/api/v1/matches").json() == before  # nothing was made


def test_a_match_created_without_the_settings_records_what_it_always_did_and_replays(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    """The mission a match without settings records is the pack's scenario as before (no
    setting written, no list of the pack's expansions): its log, exported and imported, gives
    the same battle; an imported log recorded with a setting replays it too."""
    from app.engine.narrative8e.match import match_mission

    pack = shipped()
    patrol = next(m for m in pack["missions"] if m["id"] == "patrol")
    before = match_mission({k: v for k, v in pack.items() if k != "expansions"}, patrol)
    g = new_narrative_game(user_client, armies, db, "patrol")
    mission = created_event(g)["setup"]["mission"]
    assert mission["options"] == json.loads(json.dumps(dict(before.options)))
    assert set(mission["options"]) == {"narrative"}
    g.a.send({"type": "roll_off"}, dice=[6, 1])
    exported = g.a.client.get(g.a.base + "/export").json()
    for log in (exported, edited(exported)):
        r = g.a.client.post("/api/v1/matches/import", json=log)
        assert r.status_code == 201, r.text
        imported = Player(g.a.client, r.json()["id"], "A")
        theirs = imported.view()
        mine = g.a.view()
        for v in (mine, theirs):
            v.pop("version")
        if log is exported:
            assert theirs == mine
        else:
            assert theirs["narrative"]["troops_keywords"] == ["BATTLELINE"]


def edited(exported: dict[str, Any]) -> dict[str, Any]:
    """The same log, as if created with Troops narrowed to BATTLELINE."""
    log = copy.deepcopy(exported)
    rules = log["events"][0]["event"]["setup"]["mission"]["options"]["narrative"]["rules"]
    rules["sentries"]["troops_keywords"] = ["BATTLELINE"]
    return log


# -- the battle honours them ----------------------------------------------------------------------


def to_defender_patrol(g: Game) -> None:
    """Patrol: A (725 points) against B (605) is under the ratio: a roll-off, A attacks."""
    view = g.a.send({"type": "roll_off"}, dice=[6, 1])["view"]
    assert view["narrative"]["attacker"] == "A"
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})


def test_battleline_only_leaves_infantry_out_of_patrols_troops(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    """B's patrol of the Kommandos, the Nobz (INFANTRY, not BATTLELINE) and the Battlewagon:
    Troops by the pack's keywords, not when the match narrows Troops to BATTLELINE; the Boyz
    (BATTLELINE) then make the patrol."""
    patrol = {"type": "deploy_forces", "units": ["b3", "b4", "b5"], "reserves": ["b1", "b2", "b6"]}
    g = new_narrative_game(user_client, armies, db, "patrol")
    to_defender_patrol(g)
    g.b.send(patrol)
    assert g.b.view()["narrative"]["step"] == "attacker_patrol"

    g = new_narrative_game(
        user_client, armies, db, "patrol", {"troops_keywords": ["BATTLELINE"]}, ("Cid", "Dee")
    )
    to_defender_patrol(g)
    refused = g.b.send(patrol, status=422)
    assert refused["detail"] == "your patrol needs 1 unit(s) with BATTLELINE"
    # the suggestion the page offers puts the BATTLELINE unit first
    hint = next(a["command"] for a in g.b.actions() if a["command"]["type"] == "deploy_forces")
    assert "b2" in hint["units"]
    g.b.send({"type": "deploy_forces", "units": ["b2", "b3", "b4"], "reserves": ["b1", "b5", "b6"]})
    assert g.b.view()["narrative"]["step"] == "attacker_patrol"


# -- the page -----------------------------------------------------------------------------------


def test_the_new_match_form_offers_the_settings_and_the_match_page_shows_them(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    from app.matches import pages
    from app.matches.systems import wh40k10e

    fields = {f.name: f for f in pages.new_match_fields("wh40k-10e", wh40k10e.missions()["patrol"])}
    assert [c.value for c in fields["value_measure"].choices] == ["", "points", "power"]
    assert [c.value for c in fields["troops_keywords"].choices] == [
        "",
        "BATTLELINE,INFANTRY",
        "BATTLELINE",
        "INFANTRY",
    ]
    assert (
        fields["troops_keywords"].choices[0].label == "The mission pack's: BATTLELINE or INFANTRY"
    )
    only_war = pages.new_match_fields("wh40k-10e", wh40k10e.missions()["only-war"])
    assert [f.name for f in only_war] == ["combat_zone"]

    alice, bob = browser("Alice"), browser("Bob")
    form = html(alice.get("/matches?ruleset=wh40k-10e"))
    r = alice.post(
        "/matches",
        data={
            "army_id": armies.ready(alice, marines()),
            "battle_size": "strike_force",
            "mission": "patrol",
            "opponent": "user",
            "option.troops_keywords": "BATTLELINE",
            "option.value_measure": "points",
        },
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    match_id = int(r.headers["location"].rsplit("/", 1)[1])
    code = html(alice.get(f"/matches/{match_id}")).css_first("#invite-code").text()
    r = bob.post(
        "/matches/join",
        data={"code": code, "army_id": armies.ready(bob, orks())},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    page = html(alice.get(f"/matches/{match_id}"))
    assert page.css_first("#narrative-troops").text() == "BATTLELINE"
    assert page.css_first("#narrative-value-measure").text() == "Points"
    assert form is not None
    # a bad value posted is refused, nothing made
    r = alice.post(
        "/matches",
        data={
            "army_id": armies.ready(alice, marines()),
            "battle_size": "strike_force",
            "mission": "patrol",
            "opponent": "user",
            "option.troops_keywords": "VEHICLE",
        },
        headers=HX,
    )
    assert r.status_code == 422, r.text
    error = html(r).css_first("#new-match-error").text()
    assert error == "These options are not options of a 10th-edition match."


# -- an uploaded pack's expansions ---------------------------------------------------------------


def pack_with_expansion(wounds: int = 35) -> dict[str, Any]:
    """Alice's pack: one scenario, and Stronghold Assault with a Fortress of its own."""
    pack = club_pack("alices", "night-bridge")
    stronghold = copy.deepcopy(
        next(x for x in pack["expansions"] if x["id"] == "stronghold-assault")
    )
    fortress = next(s for s in stronghold["structures"] if s["id"] == "fortress")
    fortress["wounds"] = wounds
    stronghold["name"] = {"en": "Alice's Stronghold", "fr": "Le bastion d'Alice"}
    return pack | {"expansions": [stronghold]}


def test_an_uploaded_packs_expansion_is_offered_and_played_with_its_numbers(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    assert upload(alice, pack_with_expansion(35)).status_code == 201
    r = alice.post(
        "/api/v1/matches",
        json={
            "army_id": armies.ready(alice, marines()),
            "mission": "night-bridge",
            "options": {"expansion": "stronghold-assault", "troops_keywords": ["BATTLELINE"]},
        },
    )
    assert r.status_code == 201, r.text
    created = r.json()
    r = bob.post(
        "/api/v1/matches/join",
        json={"code": created["invitation"]["code"], "army_id": armies.ready(bob, orks())},
    )
    assert r.status_code == 200, r.text
    g = Game(Player(alice, created["id"], "A", db), Player(bob, created["id"], "B", db), 0)
    event = created_event(g)
    options = event["setup"]["mission"]["options"]
    fortress = next(s for s in options["expansion"]["structures"] if s["id"] == "fortress")
    assert fortress["wounds"] == 35  # the pack's, not the shipped 30
    assert options["expansion"]["name"]["en"] == "Alice's Stronghold"
    assert "pack_expansions" not in options  # only the one chosen is recorded
    assert options["narrative"]["rules"]["sentries"]["troops_keywords"] == ["BATTLELINE"]
    assert g.a.view()["narrative"]["expansion"]["id"] == "stronghold-assault"
    # the expansions the pack does not carry are the shipped ones, as for any scenario
    from app.matches.systems import wh40k10e

    mission = wh40k10e.owned_missions(db, alice.user_id)["night-bridge"]
    offered = wh40k10e.mission_expansions(mission)
    assert sorted(offered) == sorted(
        ["planetstrike", "cities-of-death", "stronghold-assault", "death-from-the-skies"]
    )
    from app.matches import pages

    (field,) = [f for f in pages.new_match_fields("wh40k-10e", mission) if f.name == "expansion"]
    assert "Alice's Stronghold" in [c.label for c in field.choices]
    # its log exported and imported: the pack's numbers are checked, not compared to the shipped
    exported = g.a.client.get(g.a.base + "/export").json()
    r = g.a.client.post("/api/v1/matches/import", json=exported)
    assert r.status_code == 201, r.text
    bad = copy.deepcopy(exported)
    recorded = bad["events"][0]["event"]["setup"]["mission"]["options"]["expansion"]
    recorded["structures"][0]["wounds"] = "lots"
    r = g.a.client.post("/api/v1/matches/import", json=bad)
    assert r.status_code == 422, r.text
    assert "expansion.structures[0].wounds" in r.json()["detail"]


def test_a_pack_with_a_bad_expansions_block_is_refused_with_each_path(
    user_client: Callable[[str], TestClient],
) -> None:
    from tests.matches.test_narrative_match import refusal

    alice = user_client("Alice")
    bad = pack_with_expansion()
    x = bad["expansions"][0]
    x["structures"][0]["wounds"] = "lots"
    x["structures"][1]["weapons"] = ["icarus-lascannon", "doomsday-gun"]
    x["params"]["demolition_wound_roll"] = {"nested": 1}
    errors = refusal(upload(alice, bad))
    assert errors == {
        "expansions[0].structures[0].wounds": "a whole number from 1 to 100",
        "expansions[0].structures[1].weapons[1]": "one of this expansion's weapons",
        "expansions[0].params.demolition_wound_roll": (
            "a number, null or a text of at most 40 characters"
        ),
    }
    other = pack_with_expansion()
    other["expansions"][0]["id"] = "space-hulk"
    errors = refusal(upload(alice, other))
    assert list(errors) == ["expansions[0].id"]
    assert "stronghold-assault" in errors["expansions[0].id"]
    skies = club_pack("alices", "night-bridge")
    dfts = next(x for x in skies["expansions"] if x["id"] == "death-from-the-skies")
    dfts["params"]["dogfight_rear"] = -9
    errors = refusal(upload(alice, skies | {"expansions": [dfts]}))
    assert errors == {"expansions[0].params.dogfight_rear": "a whole number from -3 to 3"}
    assert alice.get("/api/v1/matches/mission-packs/mine").json() == []


# -- Power Level ---------------------------------------------------------------------------------


def declare(p: Player, levels: dict[str, Any], status: int = 200) -> dict[str, Any]:
    return p.send({"type": "declare_power_levels", "levels": levels}, status=status)


def test_power_level_is_entered_before_the_roll_off_and_chooses_the_attacker(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    """Patrol counting Power Level: by points (725 v 605) the Attacker is rolled for; by the
    Power Levels entered (7 v 30, at least 4/3) B attacks with no die."""
    g = new_narrative_game(user_client, armies, db, "patrol", {"value_measure": "power"})
    a_units = [f"a{i}" for i in range(1, 8)]
    b_units = [f"b{i}" for i in range(1, 7)]
    offered = [a for a in g.a.actions() if a["command"]["type"] == "declare_power_levels"]
    assert [a["choices"]["units"] for a in offered] == [a_units]
    # the roll-off waits for both players' levels; a refusal rolls nothing
    refused = g.a.send({"type": "roll_off"}, dice=[6, 1], status=422)
    assert "declare_power_levels" in refused["detail"]
    assert "a1" in refused["detail"]
    # every unit once, 1 to 100, only one's own
    for bad in (
        dict.fromkeys(a_units[:-1], 1),  # one missing
        dict.fromkeys(a_units, 1) | {"b1": 2},  # not A's
        dict.fromkeys(a_units, 1) | {"a1": 0},
        dict.fromkeys(a_units, 1) | {"a1": 101},
    ):
        assert "Power Level" in declare(g.a, bad, 422)["detail"]
    assert declare(g.a, dict.fromkeys(a_units, 1) | {"a1": "²"}, 422)  # not a number: the codec
    assert declare(g.a, dict.fromkeys(a_units, 1) | {"a1": 1.5}, 422)
    assert declare(g.a, dict.fromkeys(a_units, 1) | {"a1": True}, 422)
    view = declare(g.a, dict.fromkeys(a_units, 2))["view"]
    view = declare(g.a, dict.fromkeys(a_units, 1))["view"]  # corrected
    assert view["narrative"]["power_levels"] == dict.fromkeys(a_units, 1)
    refused = g.a.send({"type": "roll_off"}, dice=[6, 1], status=422)
    assert "player B" in refused["detail"]
    assert "b1" in refused["detail"]
    view = declare(g.b, dict.fromkeys(b_units, 5))["view"]
    assert view["narrative"]["power_levels"] == dict.fromkeys(a_units, 1) | dict.fromkeys(
        b_units, 5
    )
    view = g.a.send({"type": "roll_off"}, dice=[])["view"]  # no die: the ratio decides
    assert view["narrative"]["attacker"] == "B"
    (roles,) = [
        e["event"]
        for e in g.a.client.get(g.a.base + "/log").json()["entries"]
        if e["event"]["type"] == "narrative_roles_chosen"
    ]
    assert (roles["reason"], roles["values"]) == ("ratio", [7, 30])
    # entered before the Attacker is chosen only
    assert "before the Attacker" in declare(g.a, dict.fromkeys(a_units, 1), 409)["detail"]
    assert not [a for a in g.a.actions() if a["command"]["type"] == "declare_power_levels"]
    # exported and imported: the same battle, its levels and the Attacker they chose
    exported = g.a.client.get(g.a.base + "/export").json()
    r = g.a.client.post("/api/v1/matches/import", json=exported)
    assert r.status_code == 201, r.text
    theirs, mine = Player(g.a.client, r.json()["id"], "A").view(), g.a.view()
    for v in (mine, theirs):
        v.pop("version")
    assert theirs == mine


def test_power_level_sets_the_sentries_limit_and_points_matches_take_no_levels(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    """Sabotage counting Power Level: the Boyz (10 models, 12 PL) are over the sentries' 10 PL,
    which by points (199) they are not; a match counting points refuses levels."""
    g = new_narrative_game(user_client, armies, db, "sabotage", {"value_measure": "power"})
    declare(g.a, {f"a{i}": 10 for i in range(1, 8)})
    declare(g.b, {"b1": 3, "b2": 12, "b3": 5, "b4": 5, "b5": 10, "b6": 4})
    view = g.a.send({"type": "roll_off"}, dice=[])["view"]  # 70 v 39: A attacks
    assert view["narrative"]["attacker"] == "A"
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    refused = g.b.send(
        {"type": "deploy_forces", "units": ["b2"], "reserves": ["b1", "b3", "b4", "b5", "b6"]},
        status=422,
    )
    assert refused["detail"] == "Boyz: sentries are up to 10 models and 10 Power Level"
    hint = next(a["command"] for a in g.b.actions() if a["command"]["type"] == "deploy_forces")
    assert "b2" not in hint["units"]
    g.b.send({"type": "deploy_forces", "units": ["b3"], "reserves": ["b1", "b2", "b4", "b5", "b6"]})

    g = new_narrative_game(user_client, armies, db, "sabotage", None, ("Cid", "Dee"))
    refused = declare(g.a, {f"a{i}": 10 for i in range(1, 8)}, 422)
    assert refused["detail"] == "this match counts points, not Power Level"
    assert not [a for a in g.a.actions() if a["command"]["type"] == "declare_power_levels"]


def test_power_levels_entered_through_the_page_form(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    """The match page's form takes one number per unit ("power_<unit>"); a unit left out or a
    number that is not 1 to 100 (a Unicode digit included) is refused naming it; the panel
    shows each army's total and the timeline says who entered them."""
    from tests.matches.test_pages_narrative import (
        find_form,
        hidden_fields,
        page,
        submit,
        timeline,
    )

    alice, bob = browser("Alice"), browser("Bob")
    r = alice.post(
        "/api/v1/matches",
        json={
            "army_id": armies.ready(alice, marines()),
            "mission": "patrol",
            "options": {"value_measure": "power"},
        },
    )
    assert r.status_code == 201, r.text
    created = r.json()
    r = bob.post(
        "/api/v1/matches/join",
        json={"code": created["invitation"]["code"], "army_id": armies.ready(bob, orks())},
    )
    assert r.status_code == 200, r.text
    a = Player(alice, created["id"], "A")
    root = page(a)
    assert root.css_first("#narrative-value-measure").text() == "Power Level"
    form = find_form(root, "declare_power_levels")
    inputs = [i.attributes["name"] for i in form.css("#power-levels input[type=number]")]
    assert inputs == [f"power_a{i}" for i in range(1, 8)]
    typed = {f"power_a{i}": str(i) for i in range(1, 8)}
    for bad in ({"power_a3": "²"}, {"power_a3": "0"}, {"power_a3": "101"}, {"power_a3": ""}):
        body = {**typed, **bad}
        fields = {k: v for k, v in body.items() if v}
        r = alice.post(
            form.attributes["action"],
            data={**hidden_fields(form), **fields},
            headers=HX,
        )
        assert r.headers.get("x-match-refusal") is not None, bad
        assert "a3" in html(r).css_first("#match-error").text(), bad
    root = submit(a, form, typed)
    assert root.css_first("#narrative-power-levels").text() == "Alice (you): 28"
    assert any("entered the Power Levels of their units" in t for t in timeline(root))
    # the form shows the levels entered, to correct them
    form = find_form(page(a), "declare_power_levels")
    assert form.css_first("input[name=power_a7]").attributes["value"] == "7"
