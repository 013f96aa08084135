"""Issue 14's proof through the API: a 5-turn Dynamics battle played by two users over HTTP,
every die given by hand (``dice`` in ``POST /matches/{id}/commands``; an order's nonce comes
from the match secret, never from dice).

Before every reveal, everything the opponent can fetch (the view, the log, the actions, the
audit, the export, the event stream, the match list) is scanned: no unrevealed order of the
revealing player, no nonce and no ``order`` field of a face-down token. After every reveal, the
opponent's phone checks the commitment it was shown at placement against the order and nonce
the reveal published (:func:`app.engine.dynamics.verify`).

The battle (Marines A against Guard B, the Rhino's pilot at Initiative 4 so both players have
orders in pass 4): night, then dawn; shots that kill, a morale test at 25% losses deferred to
the end of the shooting at the unit [L241]; the Rhino destroyed by lascannons; pending
casualties that still shoot in their pass [L231]; a charge and its round [L92]; a locked combat
fought on with Assault orders naming each other (rulings D10, D16); the game-length die after
turn 5; the objectives reported and the victory points."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy.orm import Session

from app.engine.dynamics import verify
from app.matches.systems.pen import PenMatch
from tests.matches.test_dynamics_match import (  # noqa: F401 (dyn_game is a fixture)
    dyn_game,
    everything,
    live,
    orders_of,
)
from tests.matches.test_pen_match import PenGame, Seat, set_up


class Table:
    """The two phones: places, reveals with the scans and the commitment checks."""

    def __init__(self, g: PenGame) -> None:
        self.g = g
        self.seen: dict[tuple[int, str], str] = {}  # (turn, unit) -> commitment shown
        self.scans = 0
        self.verified = 0

    def seat(self, name: str) -> Seat:
        return self.g.a if name == "A" else self.g.b

    def other(self, name: str) -> Seat:
        return self.g.b if name == "A" else self.g.a

    def dyn(self) -> dict[str, Any]:
        return dict(self.g.a.view()["dynamics"])

    def place(self, name: str, orders: dict[str, str]) -> None:
        p, them = self.seat(name), self.other(name)
        for unit, order in orders.items():
            p.send({"type": "place_order", "unit": unit, "order": order})
        p.send({"type": "lock_orders"})
        turn = self.dyn()["turn"]
        shown = orders_of(them)
        for unit in orders:
            assert "order" not in shown[unit]
            assert "nonce" not in shown[unit]
            self.seen[(turn, unit)] = shown[unit]["commitment"]

    def scan(self) -> None:
        """Nothing either player can fetch holds one of the other's face-down orders."""
        slots = live(self.g.match_id).state.slots
        for name in ("A", "B"):
            them = self.other(name)
            hidden = [s for s in slots.values() if s.seat == name and not s.revealed]
            seen = everything(them)
            view = orders_of(them)
            for slot in hidden:
                assert slot.nonce not in seen, slot.unit
                assert "order" not in view[slot.unit]
                assert "nonce" not in view[slot.unit]
            log = them.client.get(f"{them.base}/log").json()["entries"]
            assert not any(e["event"]["type"] == "order_chosen" and e["actor"] == name for e in log)
        self.scans += 1

    def reveal(self, name: str, unit: str, **declaration: Any) -> None:
        self.scan()
        self.seat(name).send({"type": "reveal_order", "unit": unit, **declaration})
        mine = orders_of(self.other(name))[unit]
        assert mine["revealed"] is True
        turn = mine["turn"]
        assert mine["commitment"] == self.seen[(turn, unit)]
        assert verify(mine["commitment"], turn, unit, mine["order"], mine["nonce"])
        self.verified += 1

    def send(
        self, name: str, command: dict[str, Any], dice: list[int] | None = None
    ) -> dict[str, Any]:
        return self.seat(name).send(command, dice=dice)


# Marines (WS4, I4) strike first: 3 hits (3+), 3 wounds, 3 failed saves; the 5 veterans
# left strike back and miss; the loser's morale at -3 (6+6) fails; the sweep, 4+4 against
# 4+3, catches it: three more dead (the casualty difference), two flee
FIGHT = [4] * 3 + [1] * 5 + [4] * 3 + [4] * 3 + [1] * 5 + [6, 6] + [4, 4]


def actions(p: Seat) -> list[dict[str, Any]]:
    return list(p.client.get(f"{p.base}/actions").json()["actions"])


def quiet_turn(t: Table, last: list[int] | None = None) -> None:
    """Every unit marches (a falling-back unit takes Fire [L179]); each order ends at once;
    an advantage test's dice by hand, 6 against 1 for whoever rolls."""
    g = t.g
    for name in ("A", "B"):
        p = t.seat(name)
        orders = {}
        for unit in live(g.match_id).state.needs_order(name):
            offered = [
                a["command"]["order"]
                for a in actions(p)
                if a["command"]["type"] == "place_order" and a["command"]["unit"] == unit
            ]
            orders[unit] = "forced_march" if "forced_march" in offered else offered[0]
        t.place(name, orders)
    while t.dyn()["stage"] in ("reveal", "resolve"):
        d = t.dyn()
        if not d["to_act"] and not d["advantage"]:
            holder = d["bonus"] if d["bonus"] and not d["bonus_spent"] else "A"
            t.send(holder, {"type": "roll_advantage"}, [6, 1] if holder == "A" else [1, 6])
            continue
        if not d["to_act"]:
            t.send(d["advantage"], {"type": "choose_starter", "seat": d["advantage"]})
            continue
        name = d["to_act"]
        offered = [a["command"] for a in actions(t.seat(name))]
        if d["stage"] == "reveal":
            cmd = next(c for c in offered if c["type"] == "reveal_order")
            t.reveal(
                name, cmd["unit"], **{k: v for k, v in cmd.items() if k not in ("type", "unit")}
            )
        else:
            cmd = next(c for c in offered if c["type"] == "end_order")
            left = [o for o in d["orders"] if not o["resolved"]]
            t.send(name, cmd, last if len(left) == 1 else None)


def models(g: PenGame) -> dict[str, int]:
    return {u["id"]: u["models"] for u in g.b.view()["units"]}


def test_a_five_turn_dynamics_battle_through_the_api(
    dyn_game: Callable[..., PenGame],  # noqa: F811 (a fixture)
    db: Session,
) -> None:
    g = dyn_game(pilots={"B": 4})
    set_up(g)
    t = Table(g)
    # -- turn 1: night ----------------------------------------------------------------------
    t.send("A", {"type": "start_turn"}, [1])  # dawn 1: still night [L948]
    t.place("A", {"a1": "fire", "a2": "fire"})  # A locks first: +1 once this turn [L185]
    t.place("B", {"b1": "fire", "b2": "tactical_move", "b3": "forced_march"})
    d = t.dyn()
    assert (d["stage"], d["step"], d["to_act"], d["bonus"]) == ("reveal", 3, "B", "A")
    # Initiative 3: only B's Guardsmen; Initiative 4: the Marines and the Rhino's pilot
    t.reveal("B", "b1", target="a1")
    t.reveal("B", "b3")
    t.send("A", {"type": "roll_advantage"}, [2, 5])  # the +1 holder rolls first, keeps it
    t.send("B", {"type": "choose_starter", "seat": "B"})
    t.reveal("B", "b2", target="a1")
    t.reveal("A", "a1", target="b1")
    t.reveal("A", "a2", target="b2")
    # resolution from 10 down: pass 4, A spends its +1: 5+1 beats 5
    d = t.dyn()
    assert (d["stage"], d["step"], d["to_act"]) == ("resolve", 4, "")
    t.send("A", {"type": "roll_advantage", "spend_bonus": True}, [5, 5])
    assert t.dyn()["advantage"] == "A"
    t.send("A", {"type": "choose_starter", "seat": "A"})
    # 10 bolter shots at 20 ps: 6 hits (3+), 4 wounds (3+), 4 failed saves (5+)
    hits, wounds = [3] * 6 + [1] * 4, [4] * 4 + [2] * 2
    bolters = {"type": "shoot", "unit": "a1", "target": "b1", "weapon": "Bolter"}
    t.send("A", bolters | {"range_inches": 20}, hits + wounds + [3] * 4)
    assert models(g)["b1"] == 6
    assert t.dyn()["pending_casualties"] == {"b1": 4}
    # nothing else of pass 4 shoots at b1: its morale test at 40% now, 3+3 passes [L241]
    t.send("A", {"type": "end_order", "unit": "a1"}, [3, 3])
    t.send("B", {"type": "move", "unit": "b2", "speed": "normal", "inches": 6})
    # the Rhino's storm bolter: 2 hits, 2 wounds, one save failed
    fulgurant = {"type": "shoot", "unit": "b2", "target": "a1", "weapon": "Fulgurant"}
    t.send("B", fulgurant | {"range_inches": 18}, [4, 4, 4, 4, 4, 1])
    t.send("B", {"type": "end_order", "unit": "b2"})
    # five lascannon hits, five penetrating: a crash, then destroyed
    lascannons = {"type": "shoot", "unit": "a2", "target": "b2", "weapon": "Lascannon"}
    t.send("A", lascannons | {"range_inches": 30}, [5] * 14)
    t.send("A", {"type": "end_order", "unit": "a2"})
    # pass 3: only B; b1's four dead are gone now (pending casualties end with their pass)
    d = t.dyn()
    assert (d["step"], d["to_act"], d["pending_casualties"]) == (3, "B", {})
    assert models(g)["a1"] == 9
    # six lasguns at 20 ps: 6 hits, 2 wounds (5+ against T4), one failed save (3+)
    lasguns = {"type": "shoot", "unit": "b1", "target": "a1", "weapon": "Lasgun"}
    t.send("B", lasguns | {"range_inches": 20}, [4] * 6 + [5, 5, 4, 4, 4, 1] + [2, 6])
    t.send("B", {"type": "end_order", "unit": "b1"})
    t.send("B", {"type": "move", "unit": "b3", "speed": "rapid", "inches": 9})  # D5
    t.send("B", {"type": "end_order", "unit": "b3"})
    d = t.dyn()
    assert (d["stage"], d["turn"]) == ("turn_start", 2)
    assert models(g) == {"a1": 8, "a2": 5, "b1": 6, "b2": 0, "b3": 10}
    # -- turn 2: dawn; the veterans assault the Marines ------------------------------------
    t.send("B", {"type": "start_turn"}, [6])
    assert g.a.view()["night"] is False
    t.place("B", {"b1": "fire", "b3": "assault"})
    t.place("A", {"a1": "fire", "a2": "fire"})
    d = t.dyn()
    assert (d["stage"], d["step"], d["to_act"], d["bonus"]) == ("reveal", 3, "B", "B")
    t.reveal("B", "b1", target="a1")
    t.reveal("B", "b3", target="a1")
    t.reveal("A", "a1", target="b3")  # pass 4: A alone, no advantage test [L203]
    t.reveal("A", "a2", target="b1")
    assert (t.dyn()["stage"], t.dyn()["to_act"]) == ("resolve", "A")
    # one Marine's two bolter shots at half range, every die a 3: two dead, 20%: no test
    aimed = {"range_inches": 12, "half_range": True, "target": "b3", "models": 1}
    t.send("A", bolters | aimed, [3] * 6)
    t.send("A", {"type": "end_order", "unit": "a1"})
    # one lascannon hit (the fifth die) wounding on the 6; no save against AP2
    t.send("A", lascannons | {"range_inches": 30, "target": "b1"}, [1, 1, 1, 1, 5, 6])
    assert t.dyn()["pending_casualties"] == {"b3": 2, "b1": 1}
    t.send("A", {"type": "end_order", "unit": "a2"})
    d = t.dyn()
    assert (d["step"], d["to_act"], d["pending_casualties"]) == (3, "B", {})
    assert models(g) == {"a1": 8, "a2": 5, "b1": 5, "b2": 0, "b3": 8}
    t.send("B", lasguns | {"range_inches": 20}, [1] * 5)  # five misses
    t.send("B", {"type": "end_order", "unit": "b1"})
    t.send("B", {"type": "move", "unit": "b3", "speed": "normal", "inches": 6})
    t.send("B", {"type": "charge", "unit": "b3", "target": "a1", "distance": 5})
    # one round [L92]: 8 veterans with the charge bonus (16 attacks) and 8 Marines: all miss
    t.send("B", {"type": "fight", "unit": "b3", "target": "a1"}, [1] * 24)
    locked = {u["id"]: u["locked_with"] for u in g.a.view()["units"]}
    assert (locked["a1"], locked["b3"]) == (["b3"], ["a1"])  # a draw: still locked
    t.send("B", {"type": "end_order", "unit": "b3"})
    # -- turn 3: the locked combat goes on, Assault orders naming each other (D10) ---------
    t.send("A", {"type": "start_turn"})  # day, no reserves, nobody falling back: no die
    refused = g.a.send({"type": "place_order", "unit": "a1", "order": "fire"}, status=409)
    assert refused["refusal"] == "assault_only"
    t.place("A", {"a1": "assault", "a2": "fire"})
    t.place("B", {"b1": "fire", "b3": "assault"})
    t.reveal("B", "b1", target="a2")
    t.reveal("B", "b3", target="a1")
    t.reveal("A", "a1", target="b3")
    t.reveal("A", "a2", target="b1")
    t.send("A", {"type": "fight", "unit": "a1", "target": "b3"}, FIGHT)
    b3 = next(u for u in g.a.view()["units"] if u["id"] == "b3")
    assert (b3["models"], b3["tokens"], b3["locked_with"]) == (2, ["retreating"], [])
    assert t.dyn()["pending_casualties"] == {"b3": 6}
    t.send("A", {"type": "end_order", "unit": "a1"})
    t.send("A", lascannons | {"range_inches": 30, "target": "b1"}, [1] * 5)  # five misses
    t.send("A", {"type": "end_order", "unit": "a2"})
    t.send("B", lasguns | {"range_inches": 20, "target": "a2"}, [1] * 5)
    t.send("B", {"type": "end_order", "unit": "b1"})
    # the veterans broke: no second round [L305]; their order ends
    assert [a["command"] for a in actions(g.b)] == [{"type": "end_order", "unit": "b3"}]
    t.send("B", {"type": "end_order", "unit": "b3"})
    assert (t.dyn()["stage"], t.dyn()["turn"]) == ("turn_start", 4)
    # -- turns 4 and 5: the veterans regroup or fall back (Fire only [L179]), the rest march
    t.send("A", {"type": "start_turn"}, [6, 6])  # the veterans' regroup test fails
    quiet_turn(t)
    t.send("B", {"type": "start_turn"}, [6, 6])
    quiet_turn(t, last=[1])  # the game-length die after turn 5: 1, the battle ends
    assert t.dyn()["stage"] == "over"
    assert g.a.get()["status"] == "battle"  # the objectives are reported next
    for objective, holder in (("objective-1", "A"), ("objective-2", "A"), ("objective-3", "")):
        t.send("A", {"type": "report_control", "objective": objective, "seat": holder})
    match = g.b.get()
    assert match["status"] == "ended", match
    view = g.b.view()
    assert view["winner"] == "A"
    assert view["result"]["A"] > view["result"]["B"]
    # every order of every turn was checked against its commitment, after a scan
    assert t.verified == len(t.seen) == 5 + 4 * 4
    assert t.scans == t.verified
    # the audit: every die given by hand is listed and checks
    audit = g.b.client.get(f"{g.b.base}/audit").json()["rolls"]
    assert audit
    assert all(r["ok"] is not False for r in audit)
    # the battle is over: the full log is public now and replays to the live state
    data = g.b.client.get(f"{g.b.base}/export")
    assert data.status_code == 200, data.text
    assert PenMatch.import_log(data.json()).state == live(g.match_id).state
