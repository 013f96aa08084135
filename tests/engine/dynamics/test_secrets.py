"""Secrets: before its reveal, an order is in nothing its opponent can get (view, log, export,
audit); two games that differ only in one player's hidden orders look the same to the other
player, commitments aside (non-interference, hypothesis)."""

import json
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine.dynamics import DynamicsBattle, Order
from app.engine.dynamics.commands import (
    ChooseStarter,
    LockOrders,
    PlaceOrder,
    RevealOrder,
    RollAdvantage,
    StartTurn,
)
from tests.engine.dynamics.support import deployed

ORDERS_A = [Order.TACTICAL_MOVE, Order.FORCED_MARCH, Order.FIRE, Order.ASSAULT]
HEX = re.compile(r"[0-9a-f]{32,64}")


def seen_by(battle: DynamicsBattle, seat: str) -> str:
    """Everything ``seat`` can get, hashes and nonces masked (they differ by design)."""
    material = {
        "view": battle.view(seat),
        "log": battle.log_json(seat),
        "export": battle.export_for(seat),
        "audit": battle.audit(),
        "actions": battle.legal_actions(seat),
        "status": repr(battle.status()),
    }
    return HEX.sub("<hex>", json.dumps(material, sort_keys=True))


def play(
    a_orders: list[Order], b_orders: list[Order], times: int
) -> tuple[DynamicsBattle, list[str]]:
    """Place (``times`` times each), lock, reveal up to A's first reveal; B's observations at
    every step."""
    battle = deployed()
    seen: list[str] = [seen_by(battle, "B")]
    battle.execute(StartTurn(), "A", dice=[1])
    for _ in range(times):
        for unit, order in zip(("tac", "dev"), a_orders, strict=True):
            battle.execute(PlaceOrder(unit, order), "A")
            seen.append(seen_by(battle, "B"))
        for unit, order in zip(("inf", "vet", "rhino"), b_orders, strict=True):
            battle.execute(PlaceOrder(unit, order), "B")
            seen.append(seen_by(battle, "B"))
    battle.execute(LockOrders(), "A")
    battle.execute(LockOrders(), "B")
    seen.append(seen_by(battle, "B"))
    for unit in ("inf", "rhino"):  # Initiative 3: B alone
        order = battle.state.slots[unit].order
        target = "tac" if order in (Order.FIRE, Order.ASSAULT) else ""
        battle.execute(RevealOrder(unit, target=target), "B")
        seen.append(seen_by(battle, "B"))
    battle.execute(RollAdvantage(), "A", dice=[1, 6])  # B wins Initiative 4
    battle.execute(ChooseStarter("B"), "B")
    order = battle.state.slots["vet"].order
    battle.execute(
        RevealOrder("vet", target="tac" if order in (Order.FIRE, Order.ASSAULT) else ""), "B"
    )
    seen.append(seen_by(battle, "B"))
    return battle, seen


orders = st.sampled_from(ORDERS_A)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(orders, min_size=2, max_size=2),
    st.lists(orders, min_size=2, max_size=2),
    st.lists(
        st.sampled_from([Order.FIRE, Order.FORCED_MARCH, Order.TACTICAL_MOVE]),
        min_size=3,
        max_size=3,
    ),
    st.integers(1, 3),
)
def test_hidden_orders_never_reach_the_opponent(
    one: list[Order], two: list[Order], b_orders: list[Order], times: int
) -> None:
    first, seen_first = play(one, b_orders, times)
    second, seen_second = play(two, b_orders, times)
    assert seen_first == seen_second  # B learns nothing of A's choices before their reveal
    for battle in (first, second):
        raw = json.dumps(
            [battle.view("B"), battle.log_json("B"), battle.audit(), battle.legal_actions("B")]
        )
        for unit in ("tac", "dev"):
            slot = battle.state.slots[unit]
            assert slot.nonce not in raw
            assert not slot.revealed
        assert "order_chosen" not in {e["event"]["type"] for e in battle.log_json("B")} - {
            e["event"]["type"] for e in battle.log_json("B") if e["actor"] == "B"
        }
        # the spectator sees no order at all, the server's export keeps them all
        spectator = battle.view(None)["dynamics"]["orders"]
        assert all("order" not in o for o in spectator if not o["revealed"])
        assert (
            len([e for e in battle.export_log()["events"] if e["event"]["type"] == "order_chosen"])
            == 5 * times
        )
