"""The sample scenario (sample content of our own, ``data/black_reach/``) played through
``execute_json`` for two turns with dice given by hand: Order tokens placed face down and
revealed when played, moves checked on the grid, shots through the modified-CV pipeline, an
assault, a flip, step losses, a unit destroyed, a broken group, the Reserve phase and the
end-of-turn victory check; then the log exported, imported and replayed.

The numbers are checked by hand against ``data/black_reach/forces.json`` and
``boards.json`` (see the comments), not read back from the engine.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.engine.black_reach.battle import BlackReachBattle, Stage, sample_setup
from app.engine.match.errors import Refusal, RefusalKind

SERGEANT = "ultramarines:tiles[0]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[0]/1:sample-um-tactical"
BOLTER = "ultramarines:tiles[0]/2:sample-um-heavy-bolter"
TRANSPORT = "ultramarines:tiles[0].slots[1]/0:sample-um-transport"
LIBRARIAN = "ultramarines:tiles[1]/0:sample-um-librarian"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
BUGGY = "orks:tiles[0].slots[1]/0:sample-ork-buggy"
WEIRDBOY = "orks:tiles[1]/0:sample-ork-weirdboy"

A, B = "A", "B"  # A: ultramarines, B: orks (the Initiative on turn 1)


def order(unit: str, number: int, turn: int) -> dict[str, Any]:
    return {"unit": unit, "number": number, "nonce": f"secret-{turn}-{unit}"}


def path(*squares: tuple[int, int]) -> list[dict[str, int]]:
    return [{"x": x, "y": y} for x, y in squares]


class Table:
    """A battle and a secrecy scan after every command: no seat (nor a spectator) ever sees
    the nonce or the value of a token the other seat has not played."""

    def __init__(self, turns: int = 5) -> None:
        setup = sample_setup()
        if turns != 5:
            setup.scenario["turns"] = turns  # type: ignore[index]
        self.battle = BlackReachBattle.create(setup)

    def __call__(
        self, seat: str, command: dict[str, Any], dice: list[int] | None = None
    ) -> list[Any]:
        envelopes = self.battle.execute_json(command, seat, dice=dice)
        self.scan()
        return [e.event for e in envelopes]

    def refused(self, seat: str, command: dict[str, Any], dice: list[int] | None = None) -> Refusal:
        version = self.battle.version
        with pytest.raises(Refusal) as info:
            self.battle.execute_json(command, seat, dice=dice)
        assert self.battle.version == version
        return info.value

    def scan(self) -> None:
        state = self.battle.state
        if state.turn is None:
            return
        for side, orders in state.secret.items():
            seat = state.seat_of(side)
            for o in orders.values():
                if o.unit in state.turn.revealed[side]:
                    continue
                for viewer in ({A, B} - {seat}) | {None}:
                    seen = json.dumps([self.battle.view(viewer), self.battle.log_json(viewer)])
                    assert o.nonce not in seen, (viewer, o)
                    own = json.dumps(self.battle.view(seat))
                    assert o.nonce not in own  # nonces stay in the log, views show values
                units = {u["id"]: u for u in self.battle.view(None)["units"]}
                assert units[o.unit]["token"] is None
                assert units[o.unit]["face_down_token"] is True

    def unit(self, uid: str) -> Any:
        return self.battle.state.units[uid]


def play_turn_one(t: Table) -> None:
    # -- Order phase: 4 tokens for the Orks (mob star, Nob's Ordre, Weirdboy tile, Boss
    # option), 3 for the Ultramarines (squad star, Sergeant's Ordre, Librarian tile)
    view = t.battle.view(A)
    assert view["turn"]["pools"] == {"orks": 4, "ultramarines": 3}
    assert view["turn"]["initiative"] == "orks"
    t(
        B,
        {
            "type": "place_orders",
            "orders": [
                order(BOYZ1, 1, 1),
                order(BOYZ2, 2, 1),
                order(NOB, 3, 1),
                order(SHOOTAS, 4, 1),
            ],
        },
    )
    # B's tokens are face down for A: placed on units, values unknown
    theirs = {u["id"]: u for u in t.battle.view(A)["units"]}
    assert theirs[BOYZ1]["face_down_token"]
    assert theirs[BOYZ1]["token"] is None
    mine = {u["id"]: u for u in t.battle.view(B)["units"]}
    assert mine[BOYZ1]["token"] == {"kind": "numbered", "number": 1}
    t(
        A,
        {
            "type": "place_orders",
            "orders": [order(BOLTER, 1, 1), order(TACTICAL, 2, 1), order(SERGEANT, 3, 1)],
        },
    )
    assert t.battle.view(A)["turn"]["phase"] == "activation"
    assert t.battle.view(A)["turn"]["due"] == {"side": "orks", "number": 1}

    # -- Activation: the Orks' token 1. Five squares is more than the Boyz' MV 4
    refusal = t.refused(
        B, {"type": "move", "unit": BOYZ1, "path": path((4, 9), (4, 8), (4, 7), (4, 6), (4, 5))}
    )
    assert refusal.code == "illegal_move"
    assert "the path costs 5, the unit may move 4" in refusal.message
    assert t.refused(A, {"type": "hold", "unit": BOLTER}).code == "not_your_turn"
    assert t.refused(B, {"type": "hold", "unit": BOYZ2}).code == "not_due"
    events = t(B, {"type": "move", "unit": BOYZ1, "path": path((4, 9), (4, 8), (4, 7), (4, 6))})
    assert [e.kind for e in events] == ["order_revealed", "unit_moved"]
    assert events[0].token.number == 1
    assert events[0].nonce == f"secret-1-{BOYZ1}"
    assert t.unit(BOYZ1).placement.anchor == (4, 6)

    # -- A's token 1: the heavy-weapon team (CV 3 against infantry) shoots the Boyz. By hand:
    # die 4 + CV 3 = 7; the line from (3,1) to (4,6) crosses the ruin square (3,2) (-1) and
    # the low wall between (4,4) and (4,5) (-1): final 5 >= DV 4 (no terrain at (4,6)), below
    # 8: one step, the Boyz flip to their reduced face.
    # the odds offered before the shot, by hand: a step needs die + 3 - 2 >= 4, a die of 3 or
    # more (2/3); a Coup Double needs 8, beyond any die; the suppression fire (6 + die - 2)
    # puts 2 markers from a 4 up (1/2), else 1
    offered = {
        (a["command"]["target"], a["command"]["suppression"]): a["odds"]
        for a in t.battle.legal_actions(A)
        if a["command"]["type"] == "shoot" and a["command"]["unit"] == BOLTER
    }
    assert offered[BOYZ1, False] == {"miss": "1/3", "step": "2/3", "coup_double": "0"}
    assert offered[BOYZ1, True] == {
        "suppressed_0": "0",
        "suppressed_1": "1/2",
        "suppressed_2": "1/2",
    }
    assert (BUGGY, False) not in offered  # the rocks at (5,7) block the line to (6,11)
    events = t(A, {"type": "shoot", "unit": BOLTER, "target": BOYZ1}, dice=[4])
    shot = events[1]
    assert (shot.cv, shot.modified_cv, shot.penalties, shot.dv, shot.final, shot.outcome) == (
        3,
        3,
        2,
        4,
        5,
        "step",
    )
    assert shot.sight == "reduced"
    assert shot.roll.values == (4,)
    assert shot.roll.seed is None
    assert events[2].kind == "steps_taken"
    assert events[2].flipped
    assert str(t.unit(BOYZ1).status.face) == "reduced"

    # -- B2: the second Boyz go round the rocks
    t(B, {"type": "move", "unit": BOYZ2, "path": path((5, 9), (6, 8), (6, 7), (5, 6))})

    # -- A2: the tactical squad (CV 2) finishes the reduced Boyz, whose reduced face has the
    # destroy symbol: die 6 + 2 - 2 (the line from (2,1) crosses the ruin squares (2,2) and
    # (3,2), -1 each; it passes west of the low wall) = 6 >= 4
    events = t(A, {"type": "shoot", "unit": TACTICAL, "target": BOYZ1}, dice=[6])
    assert (events[1].final, events[1].outcome) == (6, "step")
    assert events[2].destroyed
    assert not t.unit(BOYZ1).alive
    mob = t.battle.state.groups["orks:tiles[0]"]
    assert len(mob.destroyed) == 1
    assert not mob.broken

    # -- B3 Nob moves; A3 the Sergeant moves up; B4 the Shootas cannot see the Sergeant
    # (the Nob, infantry, stands on the line) and hold
    t(B, {"type": "move", "unit": NOB, "path": path((3, 9), (3, 8), (3, 7))})
    t(A, {"type": "move", "unit": SERGEANT, "path": path((1, 2), (2, 3), (3, 4))})
    refusal = t.refused(B, {"type": "shoot", "unit": SHOOTAS, "target": SERGEANT}, dice=[6])
    assert refusal.code == "no_line_of_sight"
    events = t(B, {"type": "hold", "unit": SHOOTAS})
    assert [e.kind for e in events] == ["order_revealed", "activation_ended"]

    # -- Reserve: the Initiative side (Orks) first; units that had a token may not move
    offered = [(a["command"]["type"], a["command"].get("unit")) for a in t.battle.legal_actions(B)]
    assert offered == [
        ("reserve_move", BUGGY),
        ("reserve_move", WEIRDBOY),
        ("end_reserve", None),
    ]
    assert t.battle.legal_actions(A) == []
    assert t.refused(A, {"type": "end_reserve"}).code == "not_your_turn"
    assert t.refused(B, {"type": "reserve_move", "unit": NOB, "path": path((3, 6))}).code == (
        "had_order"
    )
    t(
        B,
        {
            "type": "reserve_move",
            "unit": BUGGY,
            "path": path((6, 10), (5, 9), (4, 8), (4, 7), (4, 6)),
        },
    )
    assert t.battle.state.active_seat == B
    t(B, {"type": "end_reserve"})
    assert t.battle.state.active_seat == A
    t(A, {"type": "reserve_move", "unit": LIBRARIAN, "path": path((1, 1))})
    events = t(A, {"type": "end_reserve"})
    ended = next(e for e in events if e.kind == "turn_ended")
    # the buggy stands alone on the relay (3..4, 5..6): 2 VP to the Orks; nothing broken
    assert dict(ended.vp) == {"ultramarines": 0, "orks": 2}
    assert ended.initiative == "ultramarines"


def play_turn_two(t: Table) -> list[Any]:
    view = t.battle.view(A)
    assert view["turn"]["number"] == 2
    assert view["turn"]["initiative"] == "ultramarines"
    # the destroyed Boyz had no Ordre of their own: still 4 tokens
    assert view["turn"]["pools"] == {"ultramarines": 3, "orks": 4}
    t(
        A,
        {
            "type": "place_orders",
            "orders": [order(SERGEANT, 1, 2), order(BOLTER, 2, 2), order(TACTICAL, 3, 2)],
        },
    )
    refusal = t.refused(B, {"type": "place_orders", "orders": [order(BOYZ2, 1, 2)]})
    assert refusal.code == "tokens_left"
    t(
        B,
        {
            "type": "place_orders",
            "orders": [
                order(BOYZ2, 1, 2),
                order(NOB, 2, 2),
                order(SHOOTAS, 3, 2),
                order(BUGGY, 4, 2),
            ],
        },
    )

    # -- A1: the Sergeant (CV 2, Assaut +2) assaults the Boyz at (5,6) from (4,5). By hand:
    # best of [5, 3] = 5 + 2 + 2 = 9 against the Boyz (CV 2, Assaut +2, two dice with
    # Assaut): best of [2, 4] = 4 + 2 + 2 = 8. The attacker wins: the Boyz lose a step (flip),
    # retreat straight back to (6,7) (their owner's choice among the open squares, rulings
    # 142), and the Sergeant takes their square.
    events = t(
        A,
        {"type": "assault", "unit": SERGEANT, "target": BOYZ2, "path": path((3, 5), (4, 5))},
        dice=[5, 3, 2, 4],
    )
    kinds = [e.kind for e in events]
    assert kinds == [
        "order_revealed",
        "unit_moved",
        "assault_resolved",
        "steps_taken",
        "square_awaited",
    ]
    assert (events[4].squares[0].x, events[4].squares[0].y) == (6, 7)  # straight back first
    moved = t(B, {"type": "choose_square", "unit": BOYZ2, "x": 6, "y": 7})
    assert [e.kind for e in moved] == ["forced_move", "forced_move"]
    fight = events[2]
    assert (fight.attacker_total, fight.defender_total, fight.outcome) == (9, 8, "attacker_wins")
    assert fight.roll.values == (5, 3, 2, 4)
    assert fight.attacker_dice == 2
    assert events[3].flipped
    assert t.unit(BOYZ2).placement.anchor == (6, 7)
    assert t.unit(SERGEANT).placement.anchor == (5, 6)

    # -- B1: the reduced Boyz (CV 1, Assaut +1) assault the Sergeant back, from where they
    # stand: best of [1, 2] = 2 + 1 + 1 = 4 against best of [3, 3] = 3 + 2 + 2 = 7. The
    # defender wins: the Boyz lose a step on their destroy face and are destroyed; the mob
    # has lost 2 counters, its Breaking Point: broken.
    events = t(B, {"type": "assault", "unit": BOYZ2, "target": SERGEANT}, dice=[1, 2, 3, 3])
    assert (events[1].attacker_total, events[1].defender_total, events[1].outcome) == (
        4,
        7,
        "defender_wins",
    )
    assert events[2].destroyed
    assert t.battle.state.groups["orks:tiles[0]"].broken

    # -- A2: suppression fire by the heavy-weapon team at the Nob (3,7). By hand: CV 3
    # doubled = 6; die 5 + 6 = 11, minus the ruin square (3,2) crossed: 10; DV 5: 10 // 5 =
    # 2 Suppressed markers.
    events = t(A, {"type": "shoot", "unit": BOLTER, "target": NOB, "suppression": True}, dice=[5])
    assert (events[1].modified_cv, events[1].penalties, events[1].final) == (6, 1, 10)
    assert events[1].outcome == "suppressed_2"
    assert events[2].kind == "suppressed_placed"
    assert events[2].count == 2
    assert t.unit(NOB).suppressed == 2
    # -- B2: the Nob, 2 markers (-4 MV): MV 0, it cannot move
    refusal = t.refused(B, {"type": "move", "unit": NOB, "path": path((3, 6))})
    assert refusal.code == "illegal_move"
    assert "may move 0" in refusal.message
    t(B, {"type": "hold", "unit": NOB})

    # -- A3: the tactical squad shoots the buggy (a light vehicle: CV 1). By hand: die 6 + 1
    # = 7, minus the ruin squares (2,2) and (3,2) (-2): 5 >= DV 5: one step destroys a
    # light vehicle; it has no wreck face and is removed: its support tile breaks.
    events = t(A, {"type": "shoot", "unit": TACTICAL, "target": BUGGY}, dice=[6])
    assert (events[1].cv, events[1].final, events[1].dv, events[1].outcome) == (1, 5, 5, "step")
    assert events[2].destroyed
    # -- B3 Shootas hold; B4: the buggy is gone, its token is revealed with no effect
    t(B, {"type": "hold", "unit": SHOOTAS})
    assert t.refused(B, {"type": "move", "unit": BUGGY, "path": path((4, 5))}).code == ("unit_gone")
    events = t(B, {"type": "hold", "unit": BUGGY})
    assert events[-1].kind == "activation_ended"

    t(A, {"type": "end_reserve"})
    t(B, {"type": "reserve_move", "unit": WEIRDBOY, "path": path((0, 10))})
    return t(B, {"type": "end_reserve"})


def test_two_turns_of_the_sample_scenario() -> None:
    t = Table()
    play_turn_one(t)
    events = play_turn_two(t)
    ended = next(e for e in events if e.kind == "turn_ended")
    # Ultramarines: the broken mob (3 VP) and the broken buggy tile (1 VP); nobody on the
    # relay. Below the 6 VP that win: the game goes on.
    assert dict(ended.vp) == {"ultramarines": 4, "orks": 0}
    assert events[-1].kind == "turn_started"
    assert events[-1].turn == 3
    # the broken mob gives no token any more (its star, the Nob's Ordre, the Boss option):
    # only the Weirdboy tile's star is left
    assert t.battle.view(B)["turn"]["pools"] == {"orks": 1, "ultramarines": 3}
    status = t.battle.status()
    assert (status.stage, status.round, dict(status.scores)) == ("battle", 3, {"A": 4, "B": 0})

    # the log replays to an equal state
    again = BlackReachBattle.import_log(t.battle.export_log())
    assert again.state == t.battle.state
    assert again.view(A) == t.battle.view(A)
    assert again.view(B) == t.battle.view(B)
    assert json.loads(t.battle.export_json())["rule_system"] == "black-reach"
    # every roll was given by hand: recorded, not checkable against a seed
    audit = t.battle.audit()
    assert len(audit) == 6
    assert all(a["ok"] is None for a in audit)


def test_the_turn_limit_ends_the_battle_and_both_players_confirm() -> None:
    t = Table(turns=2)
    play_turn_one(t)
    events = play_turn_two(t)
    assert events[-1].kind == "battle_ended"
    assert (events[-1].winner, events[-1].reason) == ("ultramarines", "turn_limit")
    assert t.battle.state.stage is Stage.ENDED
    assert t.refused(A, {"type": "end_reserve"}).code == "battle_over"
    assert t.battle.status().winner == "A"
    assert not t.battle.status().confirmed
    assert t.battle.legal_actions(A) == [{"command": {"type": "confirm_result"}}]
    t(A, {"type": "confirm_result"})
    t(B, {"type": "confirm_result"})
    assert t.battle.status().confirmed


def test_a_malformed_command_is_a_422_refusal() -> None:
    t = Table()
    for bad in (
        {"type": "fly"},
        {"type": "move", "unit": BOYZ1},
        {"type": "hold", "unit": 3},
        {"type": "move", "unit": BOYZ1, "path": [], "extra": 1},
    ):
        with pytest.raises(Refusal) as info:
            BlackReachBattle.decode(bad)
        assert info.value.kind is RefusalKind.INPUT
        assert info.value.code == "bad_command"
    # in the Order phase nothing moves
    refusal = t.refused(B, {"type": "move", "unit": BOYZ1, "path": path((4, 9))})
    assert refusal.code == "wrong_phase"
