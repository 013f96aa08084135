"""Black Reach battle rules one at a time: hidden tokens, undo with the same dice, set-up
checks, token placement, assault support, sudden death, the match protocol."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, Deploy, sample_setup
from app.engine.black_reach.battle.game import headline
from app.engine.black_reach.turn import Token, TokenKind, verify
from app.engine.match.errors import Refusal, RefusalKind
from app.engine.match.game import MatchGame

SERGEANT = "ultramarines:tiles[0]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[0]/1:sample-um-tactical"
BOLTER = "ultramarines:tiles[0]/2:sample-um-heavy-bolter"
LIBRARIAN = "ultramarines:tiles[1]/0:sample-um-librarian"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
WEIRDBOY = "orks:tiles[1]/0:sample-ork-weirdboy"
BUGGY = "orks:tiles[0].slots[1]/0:sample-ork-buggy"
A, B = "A", "B"


def order(unit: str, number: int, kind: str = "numbered") -> dict[str, Any]:
    return {"unit": unit, "kind": kind, "number": number, "nonce": f"nonce-{unit}"}


def path(*squares: tuple[int, int]) -> list[dict[str, int]]:
    return [{"x": x, "y": y} for x, y in squares]


def ordered() -> BlackReachBattle:
    battle = BlackReachBattle.create(sample_setup())
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOYZ1, 1), order(BOYZ2, 2), order(NOB, 3), order(SHOOTAS, 4)],
        },
        B,
    )
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOLTER, 1), order(TACTICAL, 2), order(SERGEANT, 3)],
        },
        A,
    )
    return battle


def refused(battle: BlackReachBattle, seat: str, command: dict[str, Any], **kw: Any) -> Refusal:
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(command, seat, **kw)
    assert battle.version == version
    return info.value


# -- hidden tokens -----------------------------------------------------------------------------


def test_the_other_seat_never_sees_unplayed_tokens_and_the_reveal_matches_the_commitment() -> None:
    battle = BlackReachBattle.create(sample_setup())
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOYZ1, 1), order(BOYZ2, 2), order(NOB, 3), order(SHOOTAS, 4)],
        },
        B,
    )
    kinds = {seat: [e["event"]["type"] for e in battle.log_json(seat)] for seat in (A, B, None)}
    assert "orders_placed" in kinds[B]
    assert "orders_placed" not in kinds[A]
    assert "orders_placed" not in kinds[None]
    for viewer in (A, None):
        text = json.dumps([battle.view(viewer), battle.log_json(viewer), battle.legal_actions(A)])
        assert "nonce-" not in text
        assert all(u["token"] is None for u in battle.view(viewer)["units"])
    # B's own view shows the value of its tokens
    mine = {u["id"]: u["token"] for u in battle.view(B)["units"]}
    assert mine[NOB] == {"kind": "numbered", "number": 3}
    # A sees which units carry a token (face down) and its commitment
    commitments = battle.view(A)["turn"]["commitments"]["orks"]
    assert set(commitments) == {BOYZ1, BOYZ2, NOB, SHOOTAS}
    # placing orders cannot be undone (it holds a secret)
    assert refused(battle, B, {"type": "undo"}).code == "cannot_undo"

    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOLTER, 1), order(TACTICAL, 2), order(SERGEANT, 3)],
        },
        A,
    )
    battle.execute_json({"type": "hold", "unit": BOYZ1}, B)
    revealed = battle.log_json(A)[-1]["event"]
    assert revealed["type"] == "order_revealed"
    token = Token(TokenKind(revealed["token"]["kind"]), revealed["token"]["number"])
    assert verify(commitments[BOYZ1], 1, BOYZ1, token, revealed["nonce"])
    theirs = {u["id"]: u["token"] for u in battle.view(A)["units"]}
    assert theirs[BOYZ1] == {"kind": "numbered", "number": 1}
    assert theirs[BOYZ2] is None


def test_the_facade_draws_a_nonce_when_none_is_given() -> None:
    battle = BlackReachBattle.create(sample_setup())
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [
                {"unit": u, "number": n}
                for u, n in ((BOYZ1, 1), (BOYZ2, 2), (NOB, 3), (SHOOTAS, 4))
            ],
        },
        B,
    )
    nonces = {o.nonce for o in battle.state.secret["orks"].values()}
    assert len(nonces) == 4
    assert all(len(n) == 32 for n in nonces)


# -- token placement ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("orders", "code"),
    [
        ([order(BOYZ1, 1), order(BOYZ2, 2), order(NOB, 4), order(SHOOTAS, 5)], "no_such_token"),
        ([order(BOYZ1, 1), order(BOYZ2, 1)], "no_such_token"),
        ([order(BOYZ1, 1), order(BOYZ1, 2)], "one_token_per_unit"),
        ([order(BOYZ1, 2), order(BOYZ2, 3), order(NOB, 4)], "token_gap"),
        ([order(BOYZ1, 1), order(BOYZ2, 2)], "tokens_left"),
        (
            [order(BOYZ1, 1), order(BOYZ2, 2), order(NOB, 4), order(SHOOTAS, 0, "bluff")],
            "no_such_token",
        ),
        ([order(SERGEANT, 1)], "not_your_unit"),
        ([order("nobody", 1)], "unknown_unit"),
    ],
)
def test_bad_order_placements_are_refused(orders: list[dict[str, Any]], code: str) -> None:
    battle = BlackReachBattle.create(sample_setup())
    assert refused(battle, B, {"type": "place_orders", "orders": orders}).code == code


def test_numbered_tokens_go_on_any_units_once() -> None:
    battle = BlackReachBattle.create(sample_setup())
    orders = [order(BOYZ1, 4), order(BOYZ2, 1), order(NOB, 3), order(SHOOTAS, 2)]
    battle.execute_json({"type": "place_orders", "orders": orders}, B)
    assert battle.state.turn is not None
    assert "orks" in battle.state.turn.locked
    assert refused(battle, B, {"type": "place_orders", "orders": []}).code == "orders_placed"


# -- undo with the same dice ----------------------------------------------------------------------


def test_undo_then_resend_draws_the_same_dice() -> None:
    battle = ordered()
    # a move rolls nothing: its actor undoes it at once
    battle.execute_json({"type": "move", "unit": BOYZ1, "path": path((4, 9), (4, 8))}, B)
    battle.execute_json({"type": "undo"}, B)
    assert battle.state.units[BOYZ1].placement.anchor == (4, 10)
    battle.execute_json(
        {"type": "move", "unit": BOYZ1, "path": path((4, 9), (4, 8), (4, 7), (4, 6))}, B
    )

    shot = battle.decode({"type": "shoot", "unit": BOLTER, "target": BOYZ1})
    seed = battle.command_seed("match-secret", shot, A)
    first = battle.execute(shot, A, seed=seed)
    dice = first[1].event.roll.values
    assert first[1].event.roll.seed == seed
    assert battle.audit()[-1]["ok"] is True
    # undoing a roll takes the opponent's approval
    battle.execute_json({"type": "undo"}, A)
    assert battle.view(A)["undo_request"] is not None
    answers = [a["command"]["type"] for a in battle.legal_actions(B)[:2]]
    assert answers == ["approve_undo", "refuse_undo"]
    batch = battle.view(B)["undo_request"]["batch"]
    battle.execute_json({"type": "approve_undo", "batch": batch}, B)
    assert str(battle.state.units[BOYZ1].status.face) == "intact"
    # the same roll sent again, even at another target, has the same seed and dice
    other = battle.decode({"type": "shoot", "unit": BOLTER, "target": BOYZ2})
    assert battle.command_seed("match-secret", other, A) == seed
    again = battle.execute(shot, A, seed=battle.command_seed("match-secret", shot, A))
    assert again[1].event.roll.values == dice
    # and the unit's next roll (another turn) would not
    assert battle.command_seed("match-secret", shot, A) != seed


# -- set-up ---------------------------------------------------------------------------------


def test_a_deployment_outside_the_zone_or_on_another_unit_is_refused() -> None:
    setup = sample_setup()
    moved = tuple(
        Deploy(d.unit, 4, 6) if d.unit == NOB else Deploy(d.unit, 3, 1) if d.unit == SERGEANT else d
        for d in setup.deployment
    )
    bad = sample_setup(deployment=moved)
    with pytest.raises(Refusal) as info:
        BlackReachBattle.create(bad)
    assert info.value.code == "bad_deployment"
    assert info.value.kind is RefusalKind.INPUT
    problems = info.value.details["problems"]
    assert any(NOB in p and "outside the orks deployment zone" in p for p in problems)
    assert any(SERGEANT in p and "taken by" in p for p in problems)


def test_players_deploy_what_the_set_up_leaves_then_the_battle_starts() -> None:
    setup = sample_setup()
    by_unit = {d.unit: d for d in setup.deployment}
    battle = BlackReachBattle.create(sample_setup(deployment=()))
    status = battle.status()
    assert (status.stage, status.round) == ("setup", 0)
    assert battle.view(A)["turn"] is None
    offered = battle.legal_actions(A)
    assert len(offered) == 5  # one deploy per counter; no end before all are placed
    assert [0, 0] in offered[0]["zone"]
    assert [0, 11] not in offered[0]["zone"]
    assert refused(battle, A, {"type": "end_deployment"}).code == "not_deployed"
    assert refused(battle, A, {"type": "place_orders", "orders": []}).code == "wrong_stage"

    def deploy(seat: str, unit: str, **change: Any) -> None:
        d = by_unit[unit]
        battle.execute_json(
            {"type": "deploy", "unit": unit, "x": d.x, "y": d.y, "facing": d.facing, **change},
            seat,
        )

    # outside the zone, on another counter, another's counter, another face: refused
    bad = {"type": "deploy", "unit": SERGEANT, "x": 0, "y": 9}
    assert refused(battle, A, bad).code == "bad_deployment"
    assert refused(battle, A, {**bad, "unit": NOB}).code == "not_your_unit"
    assert refused(battle, A, {**bad, "y": 1, "face": "reduced"}).code == "bad_deployment"
    deploy(A, TACTICAL)
    taken = refused(battle, A, {"type": "deploy", "unit": SERGEANT, "x": 2, "y": 1})
    assert "taken by" in taken.message
    # a counter may be placed again before the side ends its deployment
    deploy(A, SERGEANT, x=0, y=0)
    deploy(A, SERGEANT)
    for unit in (BOLTER, TRANSPORT, LIBRARIAN):
        deploy(A, unit)
    battle.execute_json({"type": "end_deployment"}, A)
    assert refused(battle, A, {"type": "end_deployment"}).code == "deployment_ended"
    assert battle.legal_actions(A) == []
    for unit in (NOB, BOYZ1, BOYZ2, SHOOTAS, BUGGY, WEIRDBOY):
        deploy(B, unit)
    events = battle.execute_json({"type": "end_deployment"}, B)
    assert [e.event.kind for e in events] == ["deployment_ended", "turn_started"]
    assert battle.status().stage == "battle"
    # the same battle as the set-up that deploys everything
    ready = BlackReachBattle.create(setup)
    assert battle.view(A)["units"] == ready.view(A)["units"]
    assert BlackReachBattle.import_log(battle.export_log()).state == battle.state


def test_seats_must_name_the_scenario_sides() -> None:
    with pytest.raises(Refusal) as info:
        BlackReachBattle.create(sample_setup(seats={"A": "orks", "B": "eldar"}))
    assert info.value.code == "bad_seats"


# -- assault support --------------------------------------------------------------------------


def _close_quarters(target: str = BOYZ1) -> BlackReachBattle:
    """``target`` at (4,3) next to the tactical squad (3,2), the Sergeant (5,4) in its zone
    of control."""
    setup = sample_setup()
    where = {target: (4, 3), SERGEANT: (5, 4), TACTICAL: (3, 2)}
    data = copy.deepcopy(setup.scenario)
    assert isinstance(data, dict)
    data["sides"][0]["deployment"] = [{"from": [0, 0], "to": [7, 2]}, [5, 4]]
    data["sides"][1]["deployment"] = [{"from": [0, 6], "to": [7, 11]}, [4, 3]]
    deployment = tuple(
        Deploy(d.unit, *where[d.unit], d.facing) if d.unit in where else d for d in setup.deployment
    )
    battle = BlackReachBattle.create(
        BattleSetup(data, setup.catalogue, setup.boards, setup.seats, deployment)
    )
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOYZ1, 1), order(BOYZ2, 2), order(NOB, 3), order(SHOOTAS, 4)],
        },
        B,
    )
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(TACTICAL, 1), order(BOLTER, 2), order(SERGEANT, 3)],
        },
        A,
    )
    battle.execute_json({"type": "hold", "unit": BOYZ1}, B)
    return battle


def test_a_supporter_adds_one_and_is_activated() -> None:
    battle = _close_quarters()
    bad = {"type": "assault", "unit": TACTICAL, "target": BOYZ1, "supporters": [LIBRARIAN]}
    assert refused(battle, A, bad, dice=[1, 1, 1, 1]).code == "bad_supporter"
    # tactical (CV 2, Assaut +1) + 1 support: best of [4, 2] = 4 + 2 + 1 + 1 = 8; the Boyz in
    # the open (CV 2, Assaut +2, two dice): best of [3, 1] = 3 + 2 + 2 = 7
    events = battle.execute_json(
        {"type": "assault", "unit": TACTICAL, "target": BOYZ1, "supporters": [SERGEANT]},
        A,
        dice=[4, 2, 3, 1],
    )
    kinds = [e.event.kind for e in events]
    assert kinds[:3] == ["order_revealed", "units_activated", "assault_resolved"]
    fight = events[2].event
    assert (fight.attacker_total, fight.defender_total, fight.outcome) == (8, 7, "attacker_wins")
    assert SERGEANT in battle.state.activated
    # the beaten Boyz flip, then must retreat away from (3,2): straight back (5,4) is the
    # Sergeant's square, and both diagonals, (4,4) and (5,3), are steps inside the
    # Sergeant's zone of control: the retreat destroys them [L1619-L1622]
    assert events[3].event.kind == "steps_taken"
    assert events[3].event.flipped
    assert events[4].event.kind == "steps_taken"
    assert events[4].event.destroyed
    assert not battle.state.units[BOYZ1].alive
    # the attacker takes the freed square
    assert battle.state.units[TACTICAL].placement.anchor == (4, 3)
    # the Sergeant's token now does nothing: only hold
    battle.execute_json({"type": "hold", "unit": BOYZ2}, B)
    battle.execute_json({"type": "hold", "unit": BOLTER}, A)
    battle.execute_json({"type": "hold", "unit": NOB}, B)
    move = {"type": "move", "unit": SERGEANT, "path": path((5, 5))}
    assert refused(battle, A, move).code == "activated"


# -- sudden death ------------------------------------------------------------------------------


def test_a_side_with_no_order_token_loses_at_once() -> None:
    """The Orks field only their Weirdboy tile (1 token); once the Weirdboy is destroyed and
    its tile broken, the next Order phase finds them without a token [L97-L99]."""
    setup = sample_setup()
    data = copy.deepcopy(setup.scenario)
    assert isinstance(data, dict)
    data["sides"][1]["army"]["tiles"] = [data["sides"][1]["army"]["tiles"][1]]
    weirdboy = "orks:tiles[0]/0:sample-ork-weirdboy"  # now the army's first tile
    deployment = tuple(d for d in setup.deployment if d.unit.startswith("ultramarines"))
    deployment += (Deploy(weirdboy, 0, 10, "N"),)
    battle = BlackReachBattle.create(
        BattleSetup(data, setup.catalogue, setup.boards, setup.seats, deployment)
    )
    assert battle.view(A)["turn"]["pools"] == {"orks": 1, "ultramarines": 3}
    battle.execute_json({"type": "place_orders", "orders": [order(weirdboy, 1)]}, B)
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOLTER, 1), order(TACTICAL, 2), order(SERGEANT, 3)],
        },
        A,
    )
    battle.execute_json({"type": "hold", "unit": weirdboy}, B)
    events = battle.execute_json({"type": "shoot", "unit": BOLTER, "target": weirdboy}, A, dice=[6])
    assert events[-1].event.destroyed
    battle.execute_json({"type": "hold", "unit": TACTICAL}, A)
    battle.execute_json({"type": "hold", "unit": SERGEANT}, A)
    battle.execute_json({"type": "end_reserve"}, B)
    events = battle.execute_json({"type": "end_reserve"}, A)
    ended = events[-1].event
    assert (ended.kind, ended.winner, ended.reason) == (
        "battle_ended",
        "ultramarines",
        "sudden_death",
    )
    assert battle.status().winner == "A"


def test_the_facade_is_a_match_game() -> None:
    assert isinstance(BlackReachBattle.create(sample_setup()), MatchGame)
    battle = ordered()
    fork = battle.fork()
    fork.execute_json({"type": "hold", "unit": BOYZ1}, B)
    assert fork.version == battle.version + 1
    moves = [a for a in battle.legal_actions(B) if a["command"]["type"] == "move"]
    assert [m["command"]["unit"] for m in moves] == [BOYZ1]
    assert [4, 6] in moves[0]["to"]
    assert battle.legal_actions(A) == []
    assert headline(battle) == {"stage": "battle", "active": B, "phase": "activation"}
    assert headline(BlackReachBattle.create(sample_setup()))["active"] is None  # Order phase


def _bolter_with(ability: dict[str, Any], facing: str) -> BlackReachBattle:
    """The sample battle with the heavy-weapon team given one more ability and a facing."""
    setup = sample_setup()
    catalogue = copy.deepcopy(setup.catalogue)
    assert isinstance(catalogue, dict)
    bolter = next(c for c in catalogue["counters"] if c["id"] == "sample-um-heavy-bolter")
    bolter["faces"][0]["abilities"].append(ability)
    deployment = tuple(
        Deploy(d.unit, d.x, d.y, facing) if d.unit == BOLTER else d for d in setup.deployment
    )
    battle = BlackReachBattle.create(
        BattleSetup(setup.scenario, catalogue, setup.boards, setup.seats, deployment)
    )
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOYZ1, 1), order(BOYZ2, 2), order(NOB, 3), order(SHOOTAS, 4)],
        },
        B,
    )
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOLTER, 1), order(TACTICAL, 2), order(SERGEANT, 3)],
        },
        A,
    )
    battle.execute_json(
        {"type": "move", "unit": BOYZ1, "path": path((4, 9), (4, 8), (4, 7), (4, 6))}, B
    )
    return battle


def test_a_limited_arc_only_shoots_inside_it() -> None:
    shot = {"type": "shoot", "unit": BOLTER, "target": BOYZ1}
    facing_away = _bolter_with({"id": "limited_arc", "param": "90"}, "N")
    assert refused(facing_away, A, shot, dice=[4]).code == "out_of_arc"
    facing_them = _bolter_with({"id": "limited_arc", "param": "90"}, "S")
    events = facing_them.execute_json(shot, A, dice=[4])
    assert events[1].event.outcome == "step"


def test_a_limited_range_stops_at_n_squares() -> None:
    shot = {"type": "shoot", "unit": BOLTER, "target": BOYZ1}  # 5 squares away
    short = _bolter_with({"id": "limited_range", "param": 4}, "S")
    refusal = refused(short, A, shot, dice=[4])
    assert refusal.code == "out_of_range"
    assert "5 squares away" in refusal.message
    enough = _bolter_with({"id": "limited_range", "param": 5}, "S")
    assert enough.execute_json(shot, A, dice=[4])[1].event.final == 5


def test_beating_a_light_vehicle_leaves_the_attacker_on_its_start_square() -> None:
    battle = _close_quarters(BUGGY)
    # tactical (CV 1 against light vehicles, Assaut +1): best of [6, 1] = 6 + 1 + 1 = 8; the
    # buggy (CV 2 against infantry, no Assaut: one die): 1 + 2 = 3
    events = battle.execute_json(
        {"type": "assault", "unit": TACTICAL, "target": BUGGY}, A, dice=[6, 1, 1]
    )
    fight = events[1].event
    assert (fight.attacker_total, fight.defender_total, fight.outcome) == (8, 3, "attacker_wins")
    assert events[2].event.destroyed  # a light vehicle's step destroys it [L617-L620]
    assert "forced_move" not in [e.event.kind for e in events]
    assert battle.state.units[TACTICAL].placement.anchor == (3, 2)
    assert battle.state.groups["orks:tiles[0].slots[1]"].broken


# -- Tir en Mouvement ----------------------------------------------------------------------------


def _buggy_first() -> BlackReachBattle:
    battle = BlackReachBattle.create(sample_setup())
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BUGGY, 1), order(BOYZ1, 2), order(NOB, 3), order(SHOOTAS, 4)],
        },
        B,
    )
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOLTER, 1), order(TACTICAL, 2), order(SERGEANT, 3)],
        },
        A,
    )
    return battle


TRANSPORT = "ultramarines:tiles[0].slots[1]/0:sample-um-transport"


def test_shooting_on_the_move_takes_the_penalty_off_the_cv() -> None:
    battle = _buggy_first()
    # the buggy (Tir en Mouvement -1, CV 2 against light vehicles) drives to (6,8) and shoots
    # the transport (5,1)-(5,0): 7 squares (not long range), a clear line down the open
    # column. By hand: die 5 + (2 - 1) = 6 >= DV 6: one step destroys the transport, which
    # turns to its wreck face.
    move = {
        "type": "move",
        "unit": BUGGY,
        "path": path((6, 10), (6, 9), (6, 8)),
        "fire_at": TRANSPORT,
    }
    events = battle.execute_json(move, B, dice=[5])
    kinds = [e.event.kind for e in events]
    assert kinds == ["order_revealed", "unit_moved", "unit_shot", "steps_taken"]
    shot = events[2].event
    assert (shot.cv, shot.moving_penalty, shot.modified_cv, shot.penalties) == (2, 1, 1, 0)
    assert (shot.sight, shot.long_range, shot.final, shot.outcome) == ("clear", False, 6, "step")
    transport = battle.state.units[TRANSPORT]
    assert transport.status.destroyed
    assert str(transport.status.face) == "wreck"


def test_shooting_partway_through_a_move() -> None:
    battle = _buggy_first()
    move = {
        "type": "move",
        "unit": BUGGY,
        "path": path((6, 10), (6, 9), (6, 8)),
        "fire_at": TRANSPORT,
        "fire_after": 2,
    }
    events = battle.execute_json(move, B, dice=[1])
    kinds = [e.event.kind for e in events]
    assert kinds == ["order_revealed", "unit_moved", "unit_shot", "unit_moved"]
    # fired from (6,9): 8 squares from (5,1), long range
    assert events[2].event.long_range
    assert events[2].event.outcome == "miss"
    assert len(events[1].event.path) == 2
    assert len(events[3].event.path) == 1
    assert battle.state.units[BUGGY].placement.anchor == (6, 8)


def test_only_tir_en_mouvement_shoots_while_moving() -> None:
    battle = ordered()
    move = {"type": "move", "unit": BOYZ1, "path": path((4, 9)), "fire_at": TACTICAL}
    assert refused(battle, B, move, dice=[6]).code == "no_shoot_on_move"
    far = {"type": "move", "unit": BOYZ1, "path": path((4, 9)), "fire_after": 1}
    assert refused(battle, B, far).code == "no_target"


# -- armour saves ------------------------------------------------------------------------------


def _armoured_mob(extra_bolter_ability: dict[str, Any] | None = None) -> BlackReachBattle:
    setup = sample_setup()
    catalogue = copy.deepcopy(setup.catalogue)
    assert isinstance(catalogue, dict)
    mob = next(t for t in catalogue["tiles"] if t["id"] == "sample-ork-mob")
    mob["armour_save"] = {"value": 4, "colour": "green"}
    if extra_bolter_ability is not None:
        bolter = next(c for c in catalogue["counters"] if c["id"] == "sample-um-heavy-bolter")
        bolter["faces"][0]["abilities"].append(extra_bolter_ability)
    battle = BlackReachBattle.create(
        BattleSetup(setup.scenario, catalogue, setup.boards, setup.seats, setup.deployment)
    )
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOYZ1, 1), order(BOYZ2, 2), order(NOB, 3), order(SHOOTAS, 4)],
        },
        B,
    )
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOLTER, 1), order(TACTICAL, 2), order(SERGEANT, 3)],
        },
        A,
    )
    battle.execute_json(
        {"type": "move", "unit": BOYZ1, "path": path((4, 9), (4, 8), (4, 7), (4, 6))}, B
    )
    return battle


SHOT = {"type": "shoot", "unit": BOLTER, "target": BOYZ1}


def test_a_green_armour_save_ignores_the_step() -> None:
    # the same shot as the playthrough's (final 5 against DV 4: a step), then the mob's green
    # 4+ save: a 4 saves, a 3 does not
    saved = _armoured_mob().execute_json(SHOT, A, dice=[4, 4])
    assert [e.event.kind for e in saved][-1] == "armour_save"
    assert (saved[-1].event.result, saved[-1].event.saved) == (4, True)
    failed_battle = _armoured_mob()
    failed = failed_battle.execute_json(SHOT, A, dice=[4, 3])
    assert [e.event.kind for e in failed][-2:] == ["armour_save", "steps_taken"]
    assert str(failed_battle.state.units[BOYZ1].status.face) == "reduced"
    assert failed_battle.audit()[-1] == {"seq": failed[-2].seq, "event": "armour_save", "ok": None}


def test_a_piercing_shot_allows_no_save() -> None:
    battle = _armoured_mob({"id": "piercing"})
    events = battle.execute_json(SHOT, A, dice=[4])
    assert "armour_save" not in [e.event.kind for e in events]
    assert events[-1].event.kind == "steps_taken"


# -- Bluff and Special tokens ---------------------------------------------------------------------


def _with_ordnance(ordnance: dict[str, int]) -> BlackReachBattle:
    """The Ultramarines take the sample Bluff option (its ordnance replaced by ``ordnance``)
    instead of the Librarian's power."""
    setup = sample_setup()
    scenario = copy.deepcopy(setup.scenario)
    catalogue = copy.deepcopy(setup.catalogue)
    assert isinstance(scenario, dict)
    assert isinstance(catalogue, dict)
    scenario["sides"][0]["army"]["tiles"][1]["slots"] = [{"slot": 0, "option": "sample-um-bluff"}]
    bluff = next(o for o in catalogue["options"] if o["id"] == "sample-um-bluff")
    bluff["ordnance"] = ordnance
    return BlackReachBattle.create(
        BattleSetup(scenario, catalogue, setup.boards, setup.seats, setup.deployment)
    )


def test_a_bluff_token_looks_like_any_other_and_never_activates() -> None:
    battle = _with_ordnance({"bluff_tokens": 1})
    pool = battle.legal_actions(A)[0]["tokens"]
    assert {"kind": "bluff", "number": 0} in pool
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOYZ1, 1), order(BOYZ2, 2), order(NOB, 3), order(SHOOTAS, 4)],
        },
        B,
    )
    orders = [order(BOLTER, 1), order(TACTICAL, 2), order(SERGEANT, 3)]
    orders.append({"unit": LIBRARIAN, "kind": "bluff", "nonce": "bluff-nonce"})
    battle.execute_json({"type": "place_orders", "orders": orders}, A)
    seen = {u["id"]: u for u in battle.view(B)["units"]}
    assert seen[LIBRARIAN]["face_down_token"]
    assert seen[LIBRARIAN]["token"] is None
    # the pools are public (the option is on the table), where the Bluff went is not
    assert "bluff-nonce" not in json.dumps([battle.view(B), battle.log_json(B)])
    battle.execute_json({"type": "hold", "unit": BOYZ1}, B)
    assert refused(battle, A, {"type": "hold", "unit": LIBRARIAN}).code == "bluff"
    for seat, unit in ((A, BOLTER), (B, BOYZ2), (A, TACTICAL), (B, NOB), (A, SERGEANT)):
        battle.execute_json({"type": "hold", "unit": unit}, seat)
    events = battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    assert events[-1].event.kind == "activation_ended"  # the Bluff is never played
    battle.execute_json({"type": "end_reserve"}, B)
    # a unit under a Bluff may move in the Reserve phase [L703-L708]
    battle.execute_json({"type": "reserve_move", "unit": LIBRARIAN, "path": path((1, 1))}, A)
    assert battle.state.units[LIBRARIAN].placement.anchor == (1, 1)


def test_a_special_token_is_played_between_any_two_activations() -> None:
    battle = _with_ordnance({"special_tokens": 1})
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOYZ1, 1), order(BOYZ2, 2), order(NOB, 3), order(SHOOTAS, 4)],
        },
        B,
    )
    orders = [order(BOLTER, 1), order(TACTICAL, 2), order(SERGEANT, 3)]
    orders.append({"unit": LIBRARIAN, "kind": "special", "nonce": "special-nonce"})
    battle.execute_json({"type": "place_orders", "orders": orders}, A)
    # the Orks' token 1 is due, yet A may play its Special token first [L178-L197]
    events = battle.execute_json({"type": "move", "unit": LIBRARIAN, "path": path((1, 1))}, A)
    assert events[0].event.token == Token(TokenKind.SPECIAL)
    assert battle.view(A)["turn"]["due"] == {"side": "orks", "number": 1}
    for seat, unit in (
        (B, BOYZ1),
        (A, BOLTER),
        (B, BOYZ2),
        (A, TACTICAL),
        (B, NOB),
        (A, SERGEANT),
    ):
        battle.execute_json({"type": "hold", "unit": unit}, seat)
    events = battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    assert events[-1].event.kind == "activation_ended"


def test_the_activation_phase_waits_for_an_unplayed_special_token() -> None:
    battle = _with_ordnance({"special_tokens": 1})
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOYZ1, 1), order(BOYZ2, 2), order(NOB, 3), order(SHOOTAS, 4)],
        },
        B,
    )
    orders = [order(BOLTER, 1), order(TACTICAL, 2), order(SERGEANT, 3)]
    orders.append({"unit": LIBRARIAN, "kind": "special", "nonce": "special-nonce"})
    battle.execute_json({"type": "place_orders", "orders": orders}, A)
    for seat, unit in (
        (B, BOYZ1),
        (A, BOLTER),
        (B, BOYZ2),
        (A, TACTICAL),
        (B, NOB),
        (A, SERGEANT),
    ):
        battle.execute_json({"type": "hold", "unit": unit}, seat)
    events = battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    assert events[-1].event.kind == "order_revealed"
    assert battle.state.phase == "activation"
    assert [a["command"]["unit"] for a in battle.legal_actions(A)][:1] == [LIBRARIAN]
    events = battle.execute_json({"type": "hold", "unit": LIBRARIAN}, A)
    assert events[-1].event.kind == "activation_ended"


def test_a_unit_with_personal_order_must_get_a_token() -> None:
    setup = sample_setup()
    catalogue = copy.deepcopy(setup.catalogue)
    assert isinstance(catalogue, dict)
    nob = next(c for c in catalogue["counters"] if c["id"] == "sample-ork-nob")
    nob["faces"][0]["abilities"].append({"id": "personal_order"})
    battle = BlackReachBattle.create(
        BattleSetup(setup.scenario, catalogue, setup.boards, setup.seats, setup.deployment)
    )
    # one more token (Ordre Personnel [L1926-L1942]): 5
    assert battle.view(B)["turn"]["pools"]["orks"] == 5
    orders = [order(BOYZ1, 1), order(BOYZ2, 2), order(SHOOTAS, 3), order(BUGGY, 4)]
    orders.append(order(WEIRDBOY, 5))
    refusal = refused(battle, B, {"type": "place_orders", "orders": orders})
    assert refusal.code == "personal_order"
    assert NOB in refusal.message
    orders[-1] = order(NOB, 5)
    battle.execute_json({"type": "place_orders", "orders": orders}, B)


def test_a_counter_s_ordre_counts_on_the_face_it_shows() -> None:
    """Boyz given an Ordre star on their intact face only: flipped, they give no token from
    the next Order phase on [L1926-L1931]."""
    setup = sample_setup()
    catalogue = copy.deepcopy(setup.catalogue)
    assert isinstance(catalogue, dict)
    boyz = next(c for c in catalogue["counters"] if c["id"] == "sample-ork-boyz")
    boyz["faces"][0]["abilities"].append({"id": "orders", "param": 1})
    battle = BlackReachBattle.create(
        BattleSetup(setup.scenario, catalogue, setup.boards, setup.seats, setup.deployment)
    )
    assert battle.view(B)["turn"]["pools"]["orks"] == 6  # two Boyz counters, a star each
    orders = [order(BOYZ1, 1), order(BOYZ2, 2), order(NOB, 3), order(SHOOTAS, 4)]
    orders += [order(BUGGY, 5), order(WEIRDBOY, 6)]
    battle.execute_json({"type": "place_orders", "orders": orders}, B)
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOLTER, 1), order(TACTICAL, 2), order(SERGEANT, 3)],
        },
        A,
    )
    battle.execute_json(
        {"type": "move", "unit": BOYZ1, "path": path((4, 9), (4, 8), (4, 7), (4, 6))}, B
    )
    # the playthrough's shot: a step, the Boyz flip
    battle.execute_json({"type": "shoot", "unit": BOLTER, "target": BOYZ1}, A, dice=[4])
    assert str(battle.state.units[BOYZ1].status.face) == "reduced"
    # still 6 this turn; the rest of the turn passes
    for seat, unit in (
        (B, BOYZ2),
        (A, TACTICAL),
        (B, NOB),
        (A, SERGEANT),
        (B, SHOOTAS),
        (B, BUGGY),
        (B, WEIRDBOY),
    ):
        battle.execute_json({"type": "hold", "unit": unit}, seat)
    battle.execute_json({"type": "end_reserve"}, B)
    battle.execute_json({"type": "end_reserve"}, A)
    assert battle.view(B)["turn"]["pools"]["orks"] == 5


# -- Changement d'état ----------------------------------------------------------------------------


def _setting_up_team(face: str | None = None) -> BlackReachBattle:
    """The heavy-weapon team as an Inactive / Active counter: Inactive moves (MV 3) and cannot
    shoot, Active shoots (CV 3) and never moves (MV X)."""
    setup = sample_setup()
    catalogue = copy.deepcopy(setup.catalogue)
    assert isinstance(catalogue, dict)
    team = next(c for c in catalogue["counters"] if c["id"] == "sample-um-heavy-bolter")
    change = {"id": "state_change"}
    team["faces"] = [
        {"kind": "inactive", "dv": 5, "mv": 3, "cv": {}, "abilities": [change]},
        {"kind": "active", "dv": 5, "mv": None, "cv": {"infantry": 3}, "abilities": [change]},
    ]
    deployment = tuple(
        Deploy(d.unit, d.x, d.y, d.facing, face) if d.unit == BOLTER else d
        for d in setup.deployment
    )
    battle = BlackReachBattle.create(
        BattleSetup(setup.scenario, catalogue, setup.boards, setup.seats, deployment)
    )
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOYZ1, 1), order(BOYZ2, 2), order(NOB, 3), order(SHOOTAS, 4)],
        },
        B,
    )
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOLTER, 1), order(TACTICAL, 2), order(SERGEANT, 3)],
        },
        A,
    )
    battle.execute_json(
        {"type": "move", "unit": BOYZ1, "path": path((4, 9), (4, 8), (4, 7), (4, 6))}, B
    )
    return battle


def test_a_unit_flips_its_state_at_the_start_or_the_end_of_a_move() -> None:
    battle = _setting_up_team()
    assert str(battle.state.units[BOLTER].status.face) == "inactive"
    # Inactive: it cannot shoot (X against infantry)
    shot = {"type": "shoot", "unit": BOLTER, "target": BOYZ1}
    assert refused(battle, A, shot, dice=[4]).code == "cannot_attack"
    # one square, then set up: Active at the end of the move
    events = battle.execute_json(
        {"type": "move", "unit": BOLTER, "path": path((4, 1)), "flip": "end"}, A
    )
    assert [e.event.kind for e in events] == ["order_revealed", "unit_moved", "unit_flipped"]
    assert str(battle.state.units[BOLTER].status.face) == "active"
    # the tactical squad has no Changement d'état
    battle.execute_json({"type": "hold", "unit": BOYZ2}, B)
    flip = {"type": "move", "unit": TACTICAL, "path": [], "flip": "start"}
    assert refused(battle, A, flip).code == "no_state_change"


def test_an_mv_x_unit_flips_with_a_null_move() -> None:
    battle = _setting_up_team("active")  # deployed Active (either face [L1123-L1124])
    assert str(battle.state.units[BOLTER].status.face) == "active"
    # MV X: it may not move, but it flips at the start of a null move
    move = {"type": "move", "unit": BOLTER, "path": path((3, 2))}
    assert refused(battle, A, move).code == "illegal_move"
    battle.execute_json({"type": "move", "unit": BOLTER, "path": [], "flip": "start"}, A)
    assert str(battle.state.units[BOLTER].status.face) == "inactive"
    assert battle.state.units[BOLTER].placement.anchor == (3, 1)


# -- transports --------------------------------------------------------------------------------


def _transport_turn() -> BlackReachBattle:
    battle = BlackReachBattle.create(sample_setup())
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOYZ1, 1), order(BUGGY, 2), order(NOB, 3), order(SHOOTAS, 4)],
        },
        B,
    )
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(TACTICAL, 1), order(BOLTER, 2), order(SERGEANT, 3)],
        },
        A,
    )
    battle.execute_json({"type": "hold", "unit": BOYZ1}, B)
    return battle


def test_infantry_gets_into_a_transport_and_out_again() -> None:
    battle = _transport_turn()
    # the tactical squad walks to (4,2), next to the transport (5,1)-(5,0), and gets in
    far = {"type": "move", "unit": TACTICAL, "path": path((3, 2)), "embark": TRANSPORT}
    assert refused(battle, A, far).code == "not_adjacent"
    on = {"type": "move", "unit": TACTICAL, "path": path((3, 2), (4, 2)), "embark": TRANSPORT}
    events = battle.execute_json(on, A)
    assert [e.event.kind for e in events] == ["order_revealed", "unit_moved", "unit_embarked"]
    tactical = battle.state.units[TACTICAL]
    assert tactical.embarked_in == TRANSPORT
    assert tactical.placement is None
    seen = {u["id"]: u for u in battle.view(B)["units"]}
    assert seen[TACTICAL]["embarked_in"] == TRANSPORT
    assert seen[TACTICAL]["at"] is None
    # aboard, it cannot be shot [L2052-L2054]
    shot = {"type": "move", "unit": BUGGY, "path": path((6, 10)), "fire_at": TACTICAL}
    assert refused(battle, B, shot, dice=[6]).code == "embarked"
    battle.execute_json({"type": "hold", "unit": BUGGY}, B)
    battle.execute_json({"type": "hold", "unit": BOLTER}, A)
    battle.execute_json({"type": "hold", "unit": NOB}, B)
    battle.execute_json({"type": "hold", "unit": SERGEANT}, A)
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    battle.execute_json({"type": "end_reserve"}, B)
    battle.execute_json({"type": "end_reserve"}, A)
    # next turn (A's Initiative): it may get an Order token aboard, and gets out: the first
    # square of the move is a free square next to the transport [L2026-L2028]
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(TACTICAL, 1), order(BOLTER, 2), order(SERGEANT, 3)],
        },
        A,
    )
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOYZ1, 1), order(BUGGY, 2), order(NOB, 3), order(SHOOTAS, 4)],
        },
        B,
    )
    out = {"type": "move", "unit": TACTICAL, "path": path((6, 2), (6, 3))}
    leap = {"type": "move", "unit": TACTICAL, "path": path((6, 4))}
    assert refused(battle, A, leap).code == "illegal_move"
    battle.execute_json(out, A)
    tactical = battle.state.units[TACTICAL]
    assert tactical.embarked_in is None
    assert tactical.placement.anchor == (6, 3)


def test_a_full_transport_takes_nobody_more() -> None:
    battle = _transport_turn()
    # capacity 4: the tactical squad (2) and the sergeant (a Character: 1) fit, the
    # heavy-weapon team (2) would make 5
    battle.execute_json(
        {"type": "move", "unit": TACTICAL, "path": path((3, 2), (4, 2)), "embark": TRANSPORT},
        A,
    )
    battle.execute_json({"type": "hold", "unit": BUGGY}, B)
    battle.execute_json(
        {"type": "move", "unit": BOLTER, "path": path((4, 1)), "embark": TRANSPORT}, A
    )
    assert battle.state.units[BOLTER].embarked_in == TRANSPORT
    battle.execute_json({"type": "hold", "unit": NOB}, B)
    sergeant = {
        "type": "move",
        "unit": SERGEANT,
        "path": path((1, 2), (2, 3), (3, 3), (4, 2)),
        "embark": TRANSPORT,
    }
    assert refused(battle, A, sergeant).code == "transport_full"


def test_the_passengers_of_a_destroyed_transport_get_out_suppressed() -> None:
    battle = _transport_turn()
    battle.execute_json(
        {"type": "move", "unit": TACTICAL, "path": path((3, 2), (4, 2)), "embark": TRANSPORT},
        A,
    )
    # the buggy's shot on the move of test_shooting_on_the_move_takes_the_penalty_off_the_cv:
    # 5 + 2 - 1 = 6 >= DV 6, the transport is destroyed
    move = {
        "type": "move",
        "unit": BUGGY,
        "path": path((6, 10), (6, 9), (6, 8)),
        "fire_at": TRANSPORT,
    }
    events = battle.execute_json(move, B, dice=[5])
    kinds = [e.event.kind for e in events]
    assert kinds[-2:] == ["steps_taken", "square_awaited"]  # its owner chooses (rulings 143)
    events = battle.execute_json({"type": "choose_square", "unit": TACTICAL, "x": 4, "y": 0}, A)
    kinds = [e.event.kind for e in events]
    assert kinds[:2] == ["forced_move", "suppressed_placed"]
    tactical = battle.state.units[TACTICAL]
    assert tactical.alive
    assert tactical.embarked_in is None
    assert tactical.suppressed == 1
    # the first free square next to the wreck (5,0)-(5,1) in reading order, the default: (4,0)
    assert tactical.placement.anchor == (4, 0)
    assert str(tactical.status.face) == "intact"  # it has no Inactive face


def test_a_passenger_shoots_from_its_transport() -> None:
    battle = _transport_turn()
    battle.execute_json(
        {"type": "move", "unit": TACTICAL, "path": path((3, 2), (4, 2)), "embark": TRANSPORT},
        A,
    )
    battle.execute_json(
        {"type": "move", "unit": BUGGY, "path": path((6, 10), (6, 9), (6, 8), (6, 7))}, B
    )
    battle.execute_json(
        {"type": "move", "unit": BOLTER, "path": path((4, 1)), "embark": TRANSPORT}, A
    )
    battle.execute_json(
        {"type": "move", "unit": NOB, "path": path((3, 9), (4, 8), (4, 7), (4, 6))}, B
    )
    battle.execute_json({"type": "hold", "unit": SERGEANT}, A)
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    # turn 2: the passengers act from inside
    battle.execute_json({"type": "end_reserve"}, B)
    battle.execute_json({"type": "end_reserve"}, A)
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOLTER, 1), order(TACTICAL, 2), order(SERGEANT, 3)],
        },
        A,
    )
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOYZ1, 1), order(BUGGY, 2), order(NOB, 3), order(SHOOTAS, 4)],
        },
        B,
    )
    # the heavy-weapon team has no Tir en Mouvement: it cannot shoot from the transport
    heavy = {"type": "shoot", "unit": BOLTER, "target": NOB}
    assert refused(battle, A, heavy, dice=[6]).code == "heavy_weapon_aboard"
    battle.execute_json({"type": "hold", "unit": BOLTER}, A)
    battle.execute_json({"type": "hold", "unit": BOYZ1}, B)
    # the tactical squad (CV 2) shoots the Nob (4,6) from the transport's square (5,1): the
    # line crosses (5,2), the crater (5,3) (no obstacle), (4,4), (4,5) and the low wall between
    # them (-1). By hand: die 4 + 2 - 1 = 5 >= DV 5: a step; the Nob's Hit Point takes it
    events = battle.execute_json({"type": "shoot", "unit": TACTICAL, "target": NOB}, A, dice=[4])
    shot = events[1].event
    assert (shot.penalties, shot.final, shot.dv, shot.outcome) == (1, 5, 5, "step")
    assert events[2].event.hit_points_used == 1
    assert battle.state.units[NOB].status.hit_points == 0
    assert battle.state.units[TACTICAL].embarked_in == TRANSPORT
