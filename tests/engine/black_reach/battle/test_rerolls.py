"""Rerolls after the roll is seen (issue 16, rulings 153-158): Purity Seals [L2541-L2548] and
the Boss Pole's Grim [L2638-L2644]; and a Librarian's Perils marker "use the power again"
[L2846-L2851].

The battle of ``test_equipment`` (8 x 8, no terrain): the Ultramarines squad (Sergeant, a
Character, on (0, 0), tactical squad (2, 2), heavy-weapon team (5, 2)) and the Ork mob (Nob,
a Character, (6, 5), Boyz (2, 4) and (7, 7), Shootas (0, 6)). Here the squad carries made-up
Purity Seals (3 markers, sample content) beside the halo (a 5+ save for the Sergeant); the
mob a made-up Boss Pole (3 markers, Grim within 3 squares of the Nob) or its own Seals.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle
from app.engine.black_reach.battle.commands import KeepRoll, Reroll
from app.engine.black_reach.battle.game import roll_identity
from app.engine.match.errors import Refusal, RefusalKind
from tests.engine.black_reach.battle import test_equipment as eq
from tests.engine.black_reach.battle import test_psykers as psy

A, B = "A", "B"
UM_GROUP, ORK_GROUP = eq.UM_GROUP, eq.ORK_GROUP
SEALS = {
    "id": "test-seals",
    "name": "Made-up Purity Seals",
    "faction": "ultramarines",
    "type": "equipment",
    "cost": 2,
    "bands": ["blue"],
    "equipment": {"markers": 3, "reroll": True},
}
ORK_SEALS = {**SEALS, "id": "test-ork-seals", "faction": "orks", "bands": ["red"]}
POLE = {
    "id": "test-pole",
    "name": "A made-up Boss Pole",
    "faction": "orks",
    "type": "personalisation",
    "cost": 2,
    "bands": ["red"],
    "equipment": {"markers": 3, "reroll": True, "aura": 3},
}


def setup(first: str = "orks", ork_option: dict[str, Any] | None = None) -> BattleSetup:
    base = eq.setup(first)
    catalogue = copy.deepcopy(base.catalogue)
    scenario = copy.deepcopy(base.scenario)
    assert isinstance(catalogue, dict)
    assert isinstance(scenario, dict)
    made = [SEALS, ORK_SEALS, POLE]
    if ork_option is not None:  # a variant of one of them replaces it
        made = [ork_option if o["id"] == ork_option["id"] else o for o in made]
    catalogue["options"].extend(made)
    um, orks = scenario["sides"]
    um["army"]["tiles"][0]["slots"][0]["option"] = "test-seals"  # instead of the Ammo
    if ork_option is not None:
        orks["army"]["tiles"][0]["slots"][0]["option"] = ork_option["id"]  # not the Camo
    return BattleSetup(scenario, catalogue, base.boards, base.seats, base.deployment)


def ordered(first: str = "orks", ork_option: dict[str, Any] | None = None) -> BlackReachBattle:
    """UM: the team 1, the tactical squad 2; Orks: the Shootas 1, the Boyz (2, 4) 2."""
    battle = BlackReachBattle.create(setup(first, ork_option))
    battle.execute_json(
        {"type": "place_orders", "orders": [eq.order(eq.SHOOTAS, 1), eq.order(eq.BOYZ1, 2)]}, B
    )
    battle.execute_json(
        {"type": "place_orders", "orders": [eq.order(eq.BOLTER, 1), eq.order(eq.TACTICAL, 2)]}, A
    )
    return battle


def kinds(envelopes: Any) -> list[str]:
    return [e.event.kind for e in envelopes]


def seals(group: str = UM_GROUP, option: str = "test-seals") -> dict[str, Any]:
    return {"type": "reroll", "group": group, "option": option}


KEEP = {"type": "keep_roll"}
SHOOT_SERGEANT = {"type": "shoot", "unit": eq.SHOOTAS, "target": eq.SERGEANT}


def test_the_battle_waits_for_the_seal_holder_before_the_shot_applies() -> None:
    battle = ordered()
    assert battle.state.active_seat == B
    # the Shootas: 5 + CV 2 = 7 against the Sergeant's DV 7, a step if it stands
    events = battle.execute_json(SHOOT_SERGEANT, B, dice=[5])
    assert kinds(events) == ["reroll_offered"]
    offer = events[0].event
    assert (offer.side, offer.at, offer.dice) == ("ultramarines", (0,), (5,))
    assert offer.event["type"] == "unit_shot"
    assert offer.event["outcome"] == "step"
    state = battle.state
    assert state.active_seat == A  # the seal holder answers
    assert state.turn is not None
    assert eq.SHOOTAS not in state.turn.revealed["orks"]  # nothing of the shot applies yet
    view = battle.view(B)
    assert view["reroll"]["side"] == "ultramarines"
    assert view["reroll"]["values"] == [5]
    assert battle.actions(B) == []
    offered = [a["command"] for a in battle.actions(A)]
    assert offered == [
        {"type": "reroll", "group": UM_GROUP, "option": "test-seals"},
        {"type": "keep_roll"},
    ]
    # the Seal rerolls it: a 1 (1 + 2 = 3: a miss); the marker is used for good
    events = battle.execute_json(seals(), A, dice=[1])
    assert kinds(events)[:3] == ["reroll_answered", "order_revealed", "unit_shot"]
    answer, shot = events[0].event, events[2].event
    assert (answer.option, answer.values, answer.roll.values) == ("test-seals", (1,), (1,))
    assert shot.outcome == "miss"
    assert (shot.roll.dice[0].original, shot.roll.dice[0].value) == (5, 1)
    assert battle.state.equipment_used == {f"{UM_GROUP}|test-seals": 1}
    assert battle.state.reroll is None
    assert battle.state.units[eq.SERGEANT].status.face.value == "intact"
    replayed = BlackReachBattle.import_log(battle.export_log())
    assert replayed.state == battle.state


def test_a_roll_kept_goes_on_with_the_next_dice_and_the_save_is_offered_too() -> None:
    battle = ordered()
    battle.execute_json(SHOOT_SERGEANT, B, dice=[5])
    # kept: the step stands, then the Sergeant's 5+ save (the halo) is a roll offered too
    events = battle.execute_json(KEEP, A, dice=[2])
    assert kinds(events) == ["reroll_answered", "reroll_offered"]
    offer = events[1].event
    assert (offer.side, offer.at, offer.dice) == ("ultramarines", (1,), (5, 2))
    assert offer.event["type"] == "armour_save"
    assert offer.event["saved"] is False
    assert events[0].event.roll.values == (2,)  # the save's die, drawn by the answer
    # the save rerolled: a 6, saved; the step is ignored
    events = battle.execute_json(seals(), A, dice=[6])
    save = next(e.event for e in events if e.event.kind == "armour_save")
    assert (save.saved, save.roll.dice[0].original) == (True, 2)
    assert "steps_taken" not in kinds(events)
    assert battle.state.equipment_used == {f"{UM_GROUP}|test-seals": 1}
    assert battle.state.rolls[eq.SHOOTAS] == 1


def test_a_roll_is_rerolled_once_and_the_initiative_side_is_asked_first() -> None:
    battle = ordered(first="orks", ork_option=ORK_SEALS)
    # both sides hold Seals: the Orks (the Initiative) are asked about their own die first
    events = battle.execute_json(
        {"type": "shoot", "unit": eq.SHOOTAS, "target": eq.TACTICAL}, B, dice=[1]
    )
    assert events[0].event.side == "orks"
    events = battle.execute_json(seals(ORK_GROUP, "test-ork-seals"), B, dice=[4])
    # rerolled once: it stands, nobody is asked about it again (4 + 2 = 6 against DV 5)
    assert "reroll_offered" not in kinds(events)
    shot = next(e.event for e in events if e.event.kind == "unit_shot")
    assert (shot.outcome, shot.roll.dice[0].original) == ("step", 1)


def test_a_kept_roll_is_offered_to_the_other_side_then() -> None:
    battle = ordered(first="orks", ork_option=ORK_SEALS)
    battle.execute_json({"type": "shoot", "unit": eq.SHOOTAS, "target": eq.TACTICAL}, B, dice=[4])
    events = battle.execute_json(KEEP, B)
    assert kinds(events) == ["reroll_answered", "reroll_offered"]
    assert (events[1].event.side, events[1].event.at) == ("ultramarines", (0,))
    events = battle.execute_json(seals(), A, dice=[1])
    assert next(e.event for e in events if e.event.kind == "unit_shot").outcome == "miss"


def test_answers_out_of_turn_and_bad_markers_are_refused() -> None:
    battle = ordered()
    with pytest.raises(Refusal) as refused:
        battle.execute_json(KEEP, A)
    assert refused.value.code == "no_reroll"
    battle.execute_json(SHOOT_SERGEANT, B, dice=[5])
    version = battle.version
    cases = [
        (KEEP, B, "not_asked", RefusalKind.FORBIDDEN),
        ({"type": "hold", "unit": eq.SHOOTAS}, B, "waiting_reroll", RefusalKind.RULES),
        ({"type": "hold", "unit": eq.BOLTER}, A, "waiting_reroll", RefusalKind.RULES),
        (seals(option="sample-um-ammo"), A, "no_such_reroll", RefusalKind.RULES),
        (seals(group=ORK_GROUP), A, "no_such_reroll", RefusalKind.RULES),
        (seals(option="x" * 300), A, "bad_option", RefusalKind.INPUT),
    ]
    for command, seat, code, kind in cases:
        with pytest.raises(Refusal) as refused:
            battle.execute_json(command, seat, dice=[1])
        assert (refused.value.code, refused.value.kind) == (code, kind), command
    with pytest.raises(Refusal) as refused:
        battle.execute_json({"type": "reroll", "group": 1, "option": "test-seals"}, A)
    assert refused.value.code == "bad_command"
    assert battle.version == version


def test_no_roll_is_offered_once_the_markers_are_used() -> None:
    base = setup()
    catalogue = copy.deepcopy(base.catalogue)
    assert isinstance(catalogue, dict)
    next(o for o in catalogue["options"] if o["id"] == "test-seals")["equipment"]["markers"] = 1
    battle = BlackReachBattle.create(
        BattleSetup(base.scenario, catalogue, base.boards, base.seats, base.deployment)
    )
    battle.execute_json(
        {"type": "place_orders", "orders": [eq.order(eq.SHOOTAS, 1), eq.order(eq.BOYZ1, 2)]}, B
    )
    battle.execute_json(
        {"type": "place_orders", "orders": [eq.order(eq.BOLTER, 1), eq.order(eq.TACTICAL, 2)]}, A
    )
    battle.execute_json(SHOOT_SERGEANT, B, dice=[1])
    # its one marker rerolls the Shootas' die: 6 + 2 = 8, a step; the save is not offered
    events = battle.execute_json(seals(), A, dice=[6, 2])
    assert "reroll_offered" not in kinds(events)
    assert [e.event.kind for e in events].count("armour_save") == 1
    assert battle.state.equipment_used == {f"{UM_GROUP}|test-seals": 1}
    assert battle.view(A)["reroll"] is None


def grim_battle() -> BlackReachBattle:
    """The Ultramarines' team holds, then the Orks' Shootas: the tactical squad (2, 2) is due
    (the Ultramarines hold the Initiative; their Seals serve the squad: asked first)."""
    battle = ordered(first="ultramarines", ork_option=POLE)
    battle.execute_json({"type": "hold", "unit": eq.BOLTER}, A)
    battle.execute_json({"type": "hold", "unit": eq.SHOOTAS}, B)
    return battle


def test_a_grim_marker_serves_units_within_three_squares_of_the_character() -> None:
    battle = grim_battle()
    # the Boyz on (7, 7) stand 2 squares from the Nob (6, 5): Grim may reroll the shot at them
    shot = {"type": "shoot", "unit": eq.TACTICAL, "target": eq.BOYZ2}
    events = battle.execute_json(shot, A, dice=[6])
    assert events[0].event.side == "ultramarines"  # the Initiative side first, its own Seals
    events = battle.execute_json(KEEP, A)
    assert kinds(events) == ["reroll_answered", "reroll_offered"]
    assert events[1].event.side == "orks"
    choices = battle.view(A)["reroll"]["choices"]
    assert choices == [{"group": ORK_GROUP, "option": "test-pole", "left": 3}]
    events = battle.execute_json(seals(ORK_GROUP, "test-pole"), B, dice=[1])
    shot_event = next(e.event for e in events if e.event.kind == "unit_shot")
    assert (shot_event.roll.dice[0].original, shot_event.outcome) == (6, "miss")
    assert battle.state.equipment_used == {f"{ORK_GROUP}|test-pole": 1}


def test_a_grim_marker_does_not_reach_beyond_three_squares() -> None:
    battle = grim_battle()
    # the Boyz on (2, 4) stand 4 squares from the Nob: the Orks are never asked
    shot = {"type": "shoot", "unit": eq.TACTICAL, "target": eq.BOYZ1}
    events = battle.execute_json(shot, A, dice=[6])
    assert events[0].event.side == "ultramarines"
    events = battle.execute_json(KEEP, A)
    assert "reroll_offered" not in kinds(events)
    assert "unit_shot" in kinds(events)


def test_an_assault_offers_the_attackers_dice_and_the_defenders_apart() -> None:
    battle = ordered(first="orks")
    # the Boyz (2, 4) assault the tactical squad (2, 2) from (2, 3): 2 dice, then 1
    battle.execute_json({"type": "hold", "unit": eq.SHOOTAS}, B)
    battle.execute_json({"type": "hold", "unit": eq.BOLTER}, A)
    assault = {
        "type": "assault",
        "unit": eq.BOYZ1,
        "target": eq.TACTICAL,
        "path": [{"x": 2, "y": 3, "facing": "N"}],
    }
    # the squad has Assaut: it defends with two dice too
    events = battle.execute_json(assault, B, dice=[6, 5, 1, 2])
    assert kinds(events)[-1] == "reroll_offered"
    offer = events[-1].event
    assert (offer.at, offer.event["type"]) == ((0, 1), "assault_resolved")
    events = battle.execute_json(KEEP, A)
    assert (events[-1].event.at, events[-1].event.dice) == ((2, 3), (6, 5, 1, 2))
    events = battle.execute_json(seals(), A, dice=[6, 4])
    fight = next(e.event for e in events if e.event.kind == "assault_resolved")
    assert fight.roll.values == (6, 5, 6, 4)
    assert [d.original for d in fight.roll.dice] == [None, None, 1, 2]


def test_the_answers_draw_their_own_dice_and_an_undone_answer_draws_the_same() -> None:
    battle = ordered()
    battle.execute_json(SHOOT_SERGEANT, B, dice=[5])
    state = battle.state
    reroll = roll_identity(state, Reroll(UM_GROUP, "test-seals"), A)
    assert reroll == roll_identity(state, Reroll(UM_GROUP, "other"), A)
    assert reroll != roll_identity(state, KeepRoll(), A)
    assert reroll[-1] == 0  # the answers given before it
    first = battle.execute_json(seals(), A, seed=7)
    battle.execute_json({"type": "undo"}, A)
    battle.execute_json({"type": "approve_undo", "batch": first[0].batch}, B)
    assert battle.state.reroll is not None
    again = battle.execute_json(seals(), A, seed=7)
    assert again[0].event.values == first[0].event.values


def test_a_pass_with_nobody_holding_markers_changes_nothing() -> None:
    battle = BlackReachBattle.create(eq.setup("orks"))  # no Seals in this battle
    battle.execute_json(
        {"type": "place_orders", "orders": [eq.order(eq.SHOOTAS, 1), eq.order(eq.BOYZ1, 2)]}, B
    )
    battle.execute_json(
        {"type": "place_orders", "orders": [eq.order(eq.BOLTER, 1), eq.order(eq.TACTICAL, 2)]}, A
    )
    events = battle.execute_json(SHOOT_SERGEANT, B, dice=[5, 2])
    assert "reroll_offered" not in kinds(events)


# -- a Librarian's "use the power again" (rulings 157) -------------------------------------------


def again_battle() -> BlackReachBattle:
    battle = psy.reduced()
    # 1 + 2 - 4 = -1: a marker drawn, the sixth of the sample pool ("again")
    events = battle.execute_json(psy.heal(), A, seed=psy.seed_for(1, 6))
    assert kinds(events)[-1] == "power_again_offered"
    return battle


def test_a_librarian_may_use_the_power_again_at_once() -> None:
    battle = again_battle()
    state = battle.state
    assert state.again == (psy.LIBRARIAN, "sample-um-endurance")
    assert state.units[psy.LIBRARIAN].suppressed == 0  # discarded by the marker
    assert state.active_seat == A
    assert battle.view(B)["power_again"] == {
        "unit": psy.LIBRARIAN,
        "power": "sample-um-endurance",
    }
    offered = [a["command"]["type"] for a in battle.actions(A)]
    assert offered == ["decline_power"]  # the squad is healed: Endurance has no target left
    assert battle.actions(B) == []
    with pytest.raises(Refusal) as refused:
        battle.execute_json({"type": "hold", "unit": psy.SHOOTAS}, B)
    assert refused.value.code == "waiting_power_again"
    with pytest.raises(Refusal) as refused:
        battle.execute_json({"type": "decline_power"}, B)
    assert refused.value.code == "not_your_unit"
    events = battle.execute_json({"type": "decline_power"}, A)
    assert kinds(events) == ["power_again_declined"]
    assert battle.state.again is None
    assert battle.state.active_seat == B  # the Orks' token 2 is due


def test_the_power_used_again_pays_its_cost_and_tests_the_perils_again() -> None:
    battle = psy.reduced()
    gaze = {"type": "manifest", "unit": psy.LIBRARIAN, "power": "sample-um-scrier"}
    events = battle.execute_json(gaze, A, seed=psy.seed_for(1, 6))  # the "again" marker
    assert kinds(events)[-1] == "power_again_offered"
    offered = [a["command"] for a in battle.actions(A)]
    assert [c["type"] for c in offered] == ["manifest", "decline_power"]
    assert (offered[0]["unit"], offered[0]["power"]) == (psy.LIBRARIAN, "sample-um-scrier")
    events = battle.execute_json(gaze, A, dice=[5])  # 5 + 2 - 4 (the cost again) = 3: works
    assert kinds(events)[:2] == ["suppressed_placed", "power_manifested"]
    assert "order_revealed" not in kinds(events)  # no token: the same activation
    assert battle.state.again is None
    assert battle.state.units[psy.LIBRARIAN].suppressed == 2
    assert battle.state.active_seat == B
    with pytest.raises(Refusal) as refused:  # once: his token is played
        battle.execute_json(gaze, A, dice=[5])
    assert refused.value.code in ("no_order", "not_your_turn")


def test_a_boss_pole_whose_bonuses_name_grim_rerolls_and_shares_its_markers() -> None:
    """The Boss Pole of rulings 147 (Dakka, Boss, Zag, Grim): Grim rerolls (rulings 156), one
    of the same 3 markers."""
    pole = {**POLE, "equipment": {"markers": 3, "aura": 3, "bonuses": ["dakka", "grim"]}}
    battle = BlackReachBattle.create(setup("ultramarines", pole))
    battle.execute_json(
        {"type": "place_orders", "orders": [eq.order(eq.SHOOTAS, 1), eq.order(eq.BOYZ1, 2)]}, B
    )
    battle.execute_json(
        {"type": "place_orders", "orders": [eq.order(eq.BOLTER, 1), eq.order(eq.TACTICAL, 2)]}, A
    )
    battle.execute_json({"type": "hold", "unit": eq.BOLTER}, A)
    battle.execute_json({"type": "hold", "unit": eq.SHOOTAS}, B)
    shot = {"type": "shoot", "unit": eq.TACTICAL, "target": eq.BOYZ2}
    battle.execute_json(shot, A, dice=[6])
    battle.execute_json(KEEP, A)
    assert battle.state.reroll is not None
    assert battle.state.reroll.side == "orks"
    battle.execute_json(seals(ORK_GROUP, "test-pole"), B, dice=[1])
    assert battle.state.equipment_used == {f"{ORK_GROUP}|test-pole": 1}
