"""The review's findings on the expansions and the PEN pilots through the API: bad input is a
4xx, never a 500, and server dice are drawn per building (docs/rulings/narrative-8e.md,
76-80)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.matches.conftest import FakeArmies, Game, Player
from tests.matches.test_narrative_expansions import (
    alive,
    blitz_to_bombardment,
    hide_and_deploy,
    unit,
    units_of,
)
from tests.matches.test_narrative_match import new_narrative_game, to_phase
from tests.matches.test_pen_match import MATCHES, marine, ready_pen_list


def post(p: Player, command: dict[str, Any], dice: list[int] | None = None) -> Any:
    p.get()
    body: dict[str, Any] = {"expected_version": p.version, "command": command}
    if dice is not None:
        body["dice"] = dice
    return p.client.post(f"{p.base}/commands", json=body)


def test_pen_pilots_of_the_form_are_ascii_digits(
    user_client: Callable[[str], TestClient],
) -> None:
    carol = user_client("Carol")
    mine = ready_pen_list(carol, [marine()])
    for value in ("\u00b2", "\u0663", "\u2460", "11", "0"):
        r = carol.post(
            MATCHES,
            json={
                "ruleset": "pen",
                "army_id": mine,
                "options": {"turn_structure": "dynamics", "pilot_a": value},
            },
        )
        assert r.status_code == 422, (value, r.text)
        assert [e["field"] for e in r.json()["errors"]] == ["options.pilot_a"]
    r = carol.post(
        MATCHES,
        json={
            "ruleset": "pen",
            "army_id": mine,
            "options": {"turn_structure": "dynamics", "pilot_a": "3"},
        },
    )
    assert r.status_code == 201, r.text


def planetstrike_firestorm_step(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> Game:
    g = new_narrative_game(
        user_client, armies, db, "blitz", {"expansion": "planetstrike", "starting_cp": 6}
    )
    blitz_to_bombardment(g, a_units=None)
    b_heads = units_of(g.a.view(), "B", "to_deploy")
    g.b.send({"type": "place_tokens", "tokens": {f"t{i}": u for i, u in enumerate(b_heads)}})
    todo = units_of(g.a.view(), "A", "to_deploy")
    g.a.send({"type": "deploy_forces", "units": [], "reserves": todo})
    g.a.send({"type": "bombard"}, dice=[1] * len(b_heads))
    return g


def test_firestorm_die_numbers_that_are_not_ascii_are_refused(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = planetstrike_firestorm_step(user_client, armies, db)
    for key in ("\u00b2", "\u0663"):
        r = post(g.a, {"type": "firestorm", "attacks": 1, "hits": {key: ["b3"]}}, [3, 4])
        assert r.status_code == 422, r.text
        assert "numbered 1 to 6" in r.text
    assert g.a.view()["narrative"]["expansion"]["firestorm_done"] is False
    # Scorched Skies once before the Firestorm (ruling 80)
    scorched = {"type": "use_mission_stratagem", "stratagem": "scorched-skies"}
    g.a.send(scorched, dice=[2])
    cp = g.a.view()["players"]["A"]["cp"]
    r = post(g.a, scorched, [3])
    assert r.status_code == 422, r.text
    assert "once, before the Firestorm" in r.text
    view = g.a.view()
    assert (view["players"]["A"]["cp"], view["narrative"]["expansion"]["firestorm_extra"]) == (
        cp,
        2,
    )


def test_rapid_drop_assault_after_a_reserve_roll_is_refused(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = planetstrike_firestorm_step(user_client, armies, db)
    g.a.send({"type": "firestorm", "attacks": 0, "hits": {}}, dice=[])
    g.a.send({"type": "roll_off"}, dice=[])
    to_phase(g, "A", "movement")
    g.a.send({"type": "reserve_roll", "unit": "a2"}, dice=[1])
    r = post(g.a, {"type": "use_mission_stratagem", "stratagem": "rapid-drop-assault"}, [3])
    assert r.status_code == 409, r.text
    assert "before your reserve rolls" in r.text
    assert g.a.view()["narrative"]["expansion"]["rapid_drop_left"] == 0


def stronghold_setup(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session, bunkers: int
) -> Game:
    g = new_narrative_game(
        user_client, armies, db, "blitz", {"expansion": "stronghold-assault", "starting_cp": 9}
    )
    blitz_to_bombardment(g, a_units=None)
    for _ in range(bunkers):
        g.b.send({"type": "place_building", "building": "bunker"})
    b_count = hide_and_deploy(g, None)
    g.a.send({"type": "bombard"}, dice=[1] * b_count)
    return g


def test_the_attacker_cannot_take_a_bunker_in_set_up(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = stronghold_setup(user_client, armies, db, 1)
    r = post(g.a, {"type": "occupy_building", "building": "bunker-1", "unit": "a2"})
    assert r.status_code == 409, r.text
    assert "until the battle begins" in r.text
    bunker = g.a.view()["narrative"]["expansion"]["buildings"][0]
    assert (bunker["controller"], bunker["occupants"]) == ("B", [])


def test_two_garrison_rolls_draw_their_own_dice_and_an_undo_draws_them_again(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = stronghold_setup(user_client, armies, db, 2)
    g.b.send({"type": "occupy_building", "building": "bunker-1", "unit": "b3"})
    g.b.send({"type": "occupy_building", "building": "bunker-2", "unit": "b2"})
    g.a.send({"type": "roll_off"}, dice=[])
    to_phase(g, "A", "fight")
    g.a.send({"type": "damage_building", "building": "bunker-1", "wounds": 15})
    g.a.send({"type": "damage_building", "building": "bunker-2", "wounds": 15})
    view = g.a.view()
    models = {u: alive(view, u) for u in ("b2", "b3")}

    def dice(r: dict[str, Any]) -> list[int]:
        rolled = [
            e["event"]["roll"]
            for e in r["events"]
            if e["event"]["type"] == "expansion_garrison_rolled"
        ]
        assert len(rolled) == 1
        return [d["value"] for d in rolled[0]["dice"]]

    one = dice(g.b.send({"type": "garrison_roll", "building": "bunker-1"}))
    two = dice(g.b.send({"type": "garrison_roll", "building": "bunker-2"}))
    assert (len(one), len(two)) == (models["b3"], models["b2"])
    assert one != two[: len(one)]
    g.b.send({"type": "undo"})  # dice were rolled: the opponent approves
    actions = g.a.client.get(f"{g.a.base}/actions").json()["actions"]
    approve = next(a["command"] for a in actions if a["command"]["type"] == "approve_undo")
    g.a.send(approve)
    assert g.b.view()["narrative"]["expansion"]["buildings"][1]["garrison_due"] == models["b2"]
    again = dice(g.b.send({"type": "garrison_roll", "building": "bunker-2"}))
    assert again == two
    slain = sum(1 for d in two if d <= 3)
    assert alive(g.b.view(), "b2") == models["b2"] - slain


def test_medical_centre_brings_back_no_destroyed_unit(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(
        user_client, armies, db, "blitz", {"expansion": "cities-of-death", "starting_cp": 9}
    )
    blitz_to_bombardment(g, a_units=None)
    b_count = hide_and_deploy(g, None)
    g.a.send({"type": "bombard"}, dice=[1] * b_count)
    g.a.send(
        {"type": "use_mission_stratagem", "stratagem": "medical-centre", "target": "Hab Block"}
    )
    g.a.send({"type": "roll_off"}, dice=[])
    to_phase(g, "A", "movement")
    before = unit(g.a.view(), "a2")["wounds"]
    top = before[0]
    # one model slain: its wounds may be rolled for, no more
    g.a.send({"type": "remove_models", "unit": "a2", "models": [0], "cause": "attack"})
    r = post(g.a, {"type": "medical_roll", "unit": "a2", "wounds": top + 1}, [6] * (top + 1))
    assert r.status_code == 422, r.text
    assert f"lost {top} wounds not yet rolled for" in r.text
    g.a.send({"type": "medical_roll", "unit": "a2", "wounds": top}, dice=[6] + [1] * (top - 1))
    assert unit(g.a.view(), "a2")["wounds"][0] == 1
    r = post(g.a, {"type": "medical_roll", "unit": "a2", "wounds": 1}, [6])
    assert r.status_code == 422, r.text
    # the whole unit slain: no roll brings it back
    left = [i for i, w in enumerate(unit(g.a.view(), "a2")["wounds"]) if w > 0]
    g.a.send({"type": "remove_models", "unit": "a2", "models": left, "cause": "attack"})
    for _ in range(3):
        r = post(g.a, {"type": "medical_roll", "unit": "a2", "wounds": 4}, [6, 6, 6, 6])
        assert r.status_code == 409, r.text
        assert "has been destroyed" in r.text
    assert set(unit(g.a.view(), "a2")["wounds"]) == {0}
