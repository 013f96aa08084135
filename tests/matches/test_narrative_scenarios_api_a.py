"""Meat Grinder, Ambush and Patrol played through the JSON API to their victory evaluation
(issue 15's proof), every die given by hand: two users, their armies (A's marines, 725 points,
against B's orks, 605), from the creation of the match to the ``narrative_evaluated`` event,
with each scenario's own mechanics on the way: the hidden deployment of Meat Grinder revealed
and its sustained assault returning a unit; the reversed hidden deployment, the dawn raid and
the escapes of Ambush; the patrols, the reserves and the units-destroyed score of Patrol."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.matches.conftest import FakeArmies, Game, finish_turn, player, step
from tests.matches.test_narrative_match import new_narrative_game, offered, to_phase


def unit(view: dict[str, Any], unit_id: str) -> dict[str, Any]:
    return next(u for u in view["units"] if u["id"] == unit_id)


def events(g: Game, kind: str) -> list[dict[str, Any]]:
    """The events of type ``kind`` in the match log, as seat A reads it."""
    log = g.a.client.get(g.a.base + "/log").json()["entries"]
    return [e["event"] for e in log if e["event"]["type"] == kind]


def shoot_down(g: Game, shooter: str, target: str, damage: list[int]) -> dict[str, Any]:
    """In its owner's turn, ``shooter`` shoots ``target``: ``damage`` is every failed save's."""
    seat = unit(g.a.view(), shooter)["owner"]
    to_phase(g, seat, "shooting")
    p = player(g, seat)
    p.send({"type": "shoot", "unit": shooter, "targets": [target]})
    command = {"type": "resolve_attack", "attacker": shooter, "target": target, "damage": damage}
    view: dict[str, Any] = p.send(command)["view"]
    return view


def play_to_the_end(g: Game, game_length_die: int = 1) -> dict[str, Any]:
    """Both sides end their turns to the end of round 5, where the first player's game length
    die (1: the battle ends) is given to the command that ends the last turn; returns the one
    ``narrative_evaluated`` event."""
    while (view := g.a.view())["stage"] == "battle":
        last_turn = view["round"] == 5 and view["active"] != view["first_player"]
        busy = view["reaction_window"] or view["pending"]["coherency"]
        if last_turn and view["phase"] == "fight" and not busy:
            player(g, view["active"]).send({"type": "end_phase"}, dice=[game_length_die])
            continue
        step(g, view)
    for seat in g.a.view()["pending"]["coherency"]:
        player(g, seat).send({"type": "confirm_coherency", "removals": []})
    assert g.a.view()["stage"] == "ended"
    (evaluated,) = events(g, "narrative_evaluated")
    return evaluated


# -- Meat Grinder ---------------------------------------------------------------------------------


def test_meat_grinder_hidden_deployment_revealed_and_a_unit_returned_to_the_last_stand(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(user_client, armies, db, "meat-grinder")
    view = g.a.send({"type": "roll_off"}, dice=[])["view"]  # 725 v 605 points: A attacks
    assert view["narrative"]["attacker"] == "A"
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    # the Defender hides: Decoys (1 CP) first, two tokens more, then eight tokens, two empty
    view = g.b.send({"type": "use_mission_stratagem", "stratagem": "decoys"})["view"]
    assert view["narrative"]["decoys_allowed"] == 2
    secret = {f"t{i}": f"b{i}" for i in range(1, 7)} | {"t7": None, "t8": None}
    g.b.send({"type": "place_tokens", "tokens": secret})
    hidden = g.a.view()["narrative"]["tokens"]
    assert hidden == [{"token": f"t{i}", "revealed": False, "unit": None} for i in range(1, 9)]
    assert all(unit(g.a.view(), f"b{i}")["location"] == "to_deploy" for i in range(1, 7))
    # the Attacker's Spies (1 CP) turn t4 over now: the Nobz are set up on it
    view = g.a.send({"type": "use_mission_stratagem", "stratagem": "spies", "target": "t4"})["view"]
    assert view["narrative"]["tokens"][3] == {"token": "t4", "revealed": True, "unit": "b4"}
    assert unit(view, "b4")["location"] == "battlefield"
    assert [t["revealed"] for t in view["narrative"]["tokens"]].count(True) == 1
    # the Attacker deploys (a6, the empty Rhino, held back): every token is revealed, the two
    # decoys with no unit
    view = g.a.send({"type": "deploy_forces", "units": ["a1", "a2", "a3", "a4", "a5", "a7"]})[
        "view"
    ]
    assert view["narrative"]["tokens"] == [
        {"token": t, "revealed": True, "unit": u} for t, u in secret.items()
    ]
    assert all(unit(view, f"b{i}")["location"] == "battlefield" for i in range(1, 7))
    assert view["narrative"]["step"] == "preliminary_bombardment"
    # the Kommandos go to ground; the bombardment, one D6 a Defender unit, b1 to b6: the
    # Kommandos hit (6) take D3 = 2, the Nobz hit (6) take D6 = 3
    g.b.send({"type": "go_to_ground", "units": ["b3"]})
    view = g.a.send({"type": "bombard"}, dice=[1, 1, 6, 2, 6, 3, 1, 1])["view"]
    assert unit(view, "b3")["wounds"] == [0, 0, 1, 1, 1, 1, 1, 1, 1, 2]
    assert unit(view, "b4")["wounds"] == [0, 1, 2, 2, 2]
    assert (view["players"]["A"]["cp"], view["players"]["B"]["cp"]) == (2, 2)
    view = g.a.send({"type": "roll_off"}, dice=[2])["view"]  # 1-3: the Attacker first
    assert (view["stage"], view["active"], view["round"]) == ("battle", "A", 1)
    finish_turn(g)

    # B's turn 1: the Boyz shoot the Scouts down (five failed saves, 2 damage each)
    view = shoot_down(g, "b2", "a4", [2] * 5)
    assert unit(view, "a4")["destroyed"] is True
    assert view["narrative"]["destroyed_attacker_units"] == ["a4"]
    assert view["narrative"]["destructions"] == 1
    finish_turn(g)
    # round 2, the end of A's Movement phase: one D6 for the Scouts, 2, +2 (INFANTRY): 4, back
    to_phase(g, "A", "movement")
    assert "assault_return" in [a["command"]["type"] for a in g.a.actions()]
    view = g.a.send({"type": "assault_return"}, dice=[2])["view"]
    scouts = unit(view, "a4")
    assert (scouts["destroyed"], scouts["location"]) == (False, "battlefield")
    assert scouts["wounds"] == [2, 2, 2, 2, 2]
    assert view["narrative"]["destroyed_attacker_units"] == []
    assert view["narrative"]["returned"] == ["a4"]
    (returned,) = events(g, "narrative_assault_return")
    assert returned["returned"] == ["a4"]
    assert [d["value"] for d in returned["roll"]["dice"]] == [2]
    g.a.send({"type": "assault_return"}, dice=[6], status=422)  # nothing left to return
    finish_turn(g)

    # to the end of round 5: the game length die, 1, ends the battle; the Defender still has
    # 29 models on the battlefield (1 + 10 + 8 + 4 + 1 + 5): its major victory
    evaluated = play_to_the_end(g)
    assert (evaluated["result"], evaluated["winner"], evaluated["vp"]) == (
        "major_victory",
        "B",
        None,  # no VP: a last stand is won or lost
    )
    assert evaluated["breakdown"] == [
        {"side": "defender", "item": "models_on_battlefield", "vp": 0, "detail": "29"}
    ]
    assert g.b.view()["result"]["winner"] == "B"


# -- Ambush ---------------------------------------------------------------------------------------


def dawn_raid_modifier(g: Game) -> int:
    """The hit modifier of B's Boyz shooting at A's Intercessors now, as the preview says."""
    r = g.b.client.post(
        g.b.base + "/combat/preview",
        json={"attacker": "b2", "target": "a2", "weapons": [{"weapon": "Slugga", "models": 10}]},
    )
    assert r.status_code == 200, r.text
    modifier: int = r.json()["request"]["situation"].get("hit_modifier", 0)
    return modifier


def test_ambush_reversed_hidden_deployment_dawn_raid_and_a_third_of_the_convoy_escaped(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(user_client, armies, db, "ambush", {"starting_cp": 4})
    view = g.a.send({"type": "roll_off"}, dice=[])["view"]  # 725 v 605 points: A attacks
    assert view["narrative"]["attacker"] == "A"
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    # reversed: the Attacker lays the tokens, the Terminators (a3) wait in Reserve
    hidden = ["a1", "a2", "a4", "a5", "a7"]
    tokens = {f"t{i}": u for i, u in enumerate(hidden, 1)}
    g.a.send({"type": "place_tokens", "tokens": tokens, "reserves": ["a3"]})
    view = g.b.view()
    assert view["narrative"]["tokens"] == [
        {"token": t, "revealed": False, "unit": None} for t in tokens
    ]
    assert view["narrative"]["reserves"] == ["a3"]
    assert {unit(view, u)["location"] for u in hidden} == {"to_deploy"}
    # the Defender's convoy deploys: the tokens are revealed, the ambushers set up on them
    view = g.b.send({"type": "deploy_forces", "units": [f"b{i}" for i in range(1, 7)]})["view"]
    assert view["narrative"]["tokens"] == [
        {"token": t, "revealed": True, "unit": u} for t, u in tokens.items()
    ]
    assert {unit(view, u)["location"] for u in hidden} == {"battlefield"}
    assert unit(view, "a3")["location"] == "reserves"
    assert view["narrative"]["step"] == "first_turn"
    # Night Raider for 1 CP (one more round of dawn raid); the Defender's Lightning Reaction
    # rolls a 3 (a 6 was needed): the Attacker keeps the first turn
    assert offered(g.a) == ["night-raider", "preliminary-bombardment"]
    assert offered(g.b) == ["lightning-reaction"]
    g.a.send({"type": "use_mission_stratagem", "stratagem": "night-raider", "cp": 1})
    g.b.send({"type": "use_mission_stratagem", "stratagem": "lightning-reaction"})
    view = g.a.send({"type": "roll_off"}, dice=[3])["view"]
    assert (view["stage"], view["active"], view["round"]) == ("battle", "A", 1)
    assert view["narrative"]["dawn_raid_rounds"] == 2
    (first,) = events(g, "narrative_first_turn")
    assert first["first"] == "A"
    finish_turn(g)

    # B's turn 1: the Nobz (105 points) leave by the escape route; no escape out of the
    # Movement phase; the dawn raid takes 1 from B's hit rolls
    to_phase(g, "B", "movement")
    assert {"type": "escape_unit", "unit": "b4"} in [a["command"] for a in g.b.actions()]
    view = g.b.send({"type": "escape_unit", "unit": "b4"})["view"]
    assert unit(view, "b4")["location"] == "escaped"
    assert view["narrative"]["escaped"] == ["b4"]
    to_phase(g, "B", "shooting")
    refused = g.b.send({"type": "escape_unit", "unit": "b3"}, status=409)
    assert refused["refusal"] == "wrong_phase"
    assert dawn_raid_modifier(g) == -1
    finish_turn(g)

    # round 2: the Terminators arrive on a 3 (3+); only the Defender escapes
    to_phase(g, "A", "movement")
    g.a.send({"type": "escape_unit", "unit": "a7"}, status=422)
    view = g.a.send({"type": "reserve_roll", "unit": "a3"}, dice=[3])["view"]
    assert unit(view, "a3")["location"] == "battlefield"
    assert view["narrative"]["reserves"] == []
    finish_turn(g)
    # B's turn 2: the Kommandos (120) escape too; Night Raider's round: still -1
    to_phase(g, "B", "movement")
    view = g.b.send({"type": "escape_unit", "unit": "b3"})["view"]
    assert view["narrative"]["escaped"] == ["b4", "b3"]
    to_phase(g, "B", "shooting")
    assert dawn_raid_modifier(g) == -1
    finish_turn(g)
    finish_turn(g)
    to_phase(g, "B", "shooting")
    assert dawn_raid_modifier(g) == 0  # round 3: daylight
    finish_turn(g)

    # the end of round 5: 225 of the convoy's 605 points escaped, a third or more (201.7):
    # the Defender's major victory
    evaluated = play_to_the_end(g)
    assert (evaluated["result"], evaluated["winner"], evaluated["vp"]) == (
        "major_victory",
        "B",
        None,
    )
    assert evaluated["breakdown"] == [
        {"side": "defender", "item": "escaped", "vp": 0, "detail": "b4: 105"},
        {"side": "defender", "item": "escaped", "vp": 0, "detail": "b3: 120"},
        {"side": "defender", "item": "escaped_total", "vp": 0, "detail": "225 of 605"},
    ]


# -- Patrol ---------------------------------------------------------------------------------------


def reserve_rolled(g: Game) -> dict[str, Any]:
    """The last reserve roll's event: the unit, whether it arrived, why, the die, the modifier."""
    return events(g, "narrative_reserve_rolled")[-1]


def test_patrol_patrols_reserves_and_their_stratagems_to_a_draw_on_units_destroyed(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(user_client, armies, db, "patrol", {"starting_cp": 6})
    # 725 v 605 points is under Patrol's ratio (4/3): a roll-off, A's 6 against B's 1
    view = g.a.send({"type": "roll_off"}, dice=[6, 1])["view"]
    assert view["narrative"]["attacker"] == "A"
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    # the Defender's patrol is three units (the Boyz, BATTLELINE, among them); the rest waits
    refused = g.b.send(
        {"type": "deploy_forces", "units": ["b2", "b4"], "reserves": ["b1", "b3", "b5", "b6"]},
        status=422,
    )
    assert refused["detail"] == "your patrol is 3 units"
    g.b.send({"type": "deploy_forces", "units": ["b2", "b4", "b5"], "reserves": ["b1", "b3", "b6"]})
    # Reconnaissance in Force (2 CP): the Attacker sets up a fourth unit, the Tacticals
    # (BATTLELINE); a6, the empty Rhino, is held back
    assert offered(g.a) == ["reconnaissance-in-force"]
    g.a.send({"type": "use_mission_stratagem", "stratagem": "reconnaissance-in-force"})
    view = g.a.send(
        {"type": "deploy_forces", "units": ["a2", "a3", "a5", "a7"], "reserves": ["a1", "a4"]}
    )["view"]
    assert view["narrative"]["reserves"] == ["a1", "a4", "b1", "b3", "b6"]
    assert unit(view, "a6")["location"] == "held_back"
    # Known Ground (2 CP): the Defender rolls two dice for the first turn, keeps the 6 (the
    # Attacker rolled 5): B wins the roll-off and takes the first turn
    assert offered(g.b) == ["known-ground"]
    g.b.send({"type": "use_mission_stratagem", "stratagem": "known-ground"})
    view = g.a.send({"type": "roll_off"}, dice=[5, 2, 6])["view"]
    assert (view["stage"], view["active"], view["round"]) == ("battle", "B", 1)
    (first,) = events(g, "narrative_first_turn")
    assert first["first"] == "B"
    assert [d["value"] for d in first["roll"]["dice"]] == [5, 2, 6]
    assert (view["players"]["A"]["cp"], view["players"]["B"]["cp"]) == (5, 5)  # 6 - 2 + 1

    to_phase(g, "B", "movement")
    refused = g.b.send({"type": "reserve_roll", "unit": "b3"}, dice=[6], status=409)
    assert refused["refusal"] == "reserves_not_yet"  # from round 2
    finish_turn(g)
    # A's turn 1: the Intercessors shoot the Nobz down
    view = shoot_down(g, "a2", "b4", [2] * 5)
    assert unit(view, "b4")["destroyed"] is True
    finish_turn(g)

    # round 2, B's Movement phase (the Defender arrives on 3+): Rapid Reinforcements (1 CP)
    # name the Warboss before any roll, and only him: the Kommandos roll 3 and arrive, the
    # Stormboyz 2 and wait, the Warboss comes with no roll. The stratagem cannot name an
    # enemy unit.
    to_phase(g, "B", "movement")
    rapid = {"type": "use_mission_stratagem", "stratagem": "rapid-reinforcements"}
    g.b.send(rapid | {"target": "a1"}, status=422)
    g.b.send(rapid | {"target": "b1"})
    view = g.b.send({"type": "reserve_roll", "unit": "b3"}, dice=[3])["view"]
    assert unit(view, "b3")["location"] == "battlefield"
    view = g.b.send({"type": "reserve_roll", "unit": "b6"}, dice=[2])["view"]
    assert unit(view, "b6")["location"] == "reserves"
    view = g.b.send({"type": "reserve_roll", "unit": "b1"}, dice=[])["view"]
    assert unit(view, "b1")["location"] == "battlefield"
    assert (reserve_rolled(g)["arrives"], reserve_rolled(g)["reason"]) == (True, "stratagem")
    # the Boyz shoot the Hellblasters down
    view = shoot_down(g, "b2", "a5", [2] * 5)
    assert unit(view, "a5")["destroyed"] is True
    finish_turn(g)
    # A's Movement phase (the Attacker arrives on 4+): Signal the Attack! (2 CP, +1 to every
    # roll this turn) and the Defender's Delayed Reserves for 2 CP on the Captain, both before
    # the rolls: the Scouts roll 3, +1: 4, they arrive (the -2 is the Captain's alone); the
    # Captain rolls 4, +1 -2: 3, he waits. Delayed Reserves cannot name the Defender's own unit.
    to_phase(g, "A", "movement")
    g.a.send({"type": "use_mission_stratagem", "stratagem": "signal-the-attack"})
    delayed = {"type": "use_mission_stratagem", "stratagem": "delayed-reserves", "cp": 2}
    g.b.send(delayed | {"target": "b6"}, status=422)
    g.b.send(delayed | {"target": "a1"})
    g.a.send({"type": "reserve_roll", "unit": "a4"}, dice=[3])
    assert (reserve_rolled(g)["arrives"], reserve_rolled(g)["modifier"]) == (True, 1)
    view = g.a.send({"type": "reserve_roll", "unit": "a1"}, dice=[4])["view"]
    assert (reserve_rolled(g)["arrives"], reserve_rolled(g)["modifier"]) == (False, -1)
    assert unit(view, "a1")["location"] == "reserves"
    assert unit(view, "a4")["location"] == "battlefield"
    g.a.send({"type": "reserve_roll", "unit": "a1"}, dice=[6], status=422)  # once a phase
    # each Command phase gave both players 1 CP (four so far): A 6 - 2 + 4 - 2, B 6 - 2 + 4
    # - 1 - 2
    assert (view["players"]["A"]["cp"], view["players"]["B"]["cp"]) == (6, 5)
    finish_turn(g)

    # round 3: the Stormboyz roll 1, the Captain 3 (4+, no modifier now): both wait
    to_phase(g, "B", "movement")
    g.b.send({"type": "reserve_roll", "unit": "b6"}, dice=[1])
    assert reserve_rolled(g)["arrives"] is False
    finish_turn(g)
    to_phase(g, "A", "movement")
    g.a.send({"type": "reserve_roll", "unit": "a1"}, dice=[3])
    assert (reserve_rolled(g)["arrives"], reserve_rolled(g)["modifier"]) == (False, 0)
    finish_turn(g)
    # round 4: each player's 4th Movement phase: what is left arrives with no roll
    to_phase(g, "B", "movement")
    view = g.b.send({"type": "reserve_roll", "unit": "b6"}, dice=[])["view"]
    assert unit(view, "b6")["location"] == "battlefield"
    finish_turn(g)
    to_phase(g, "A", "movement")
    view = g.a.send({"type": "reserve_roll", "unit": "a1"}, dice=[])["view"]
    assert unit(view, "a1")["location"] == "battlefield"
    assert view["narrative"]["reserves"] == []
    # the Intercessors shoot the Stormboyz down
    view = shoot_down(g, "a2", "b6", [1, 1, 1, 1, 2])
    assert unit(view, "b6")["destroyed"] is True
    finish_turn(g)

    # the end of round 5: A scores the Nobz and the Stormboyz; B the Hellblasters and the
    # Rhino, never on the battlefield (it counts as destroyed): 2 VP each, a draw
    evaluated = play_to_the_end(g)
    assert (evaluated["result"], evaluated["winner"], evaluated["vp"]) == ("draw", None, [2, 2])
    assert evaluated["breakdown"] == [
        {"side": "defender", "item": "unit_destroyed", "vp": 1, "detail": "a5"},
        {"side": "defender", "item": "unit_destroyed", "vp": 1, "detail": "a6"},
        {"side": "attacker", "item": "unit_destroyed", "vp": 1, "detail": "b4"},
        {"side": "attacker", "item": "unit_destroyed", "vp": 1, "detail": "b6"},
    ]
    assert g.a.view()["result"]["winner"] is None
