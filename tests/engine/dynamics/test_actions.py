"""Legal actions: whatever a seat is offered is accepted, at every step of several turns (the
offered command, its table measures filled in), and a seat is offered nothing while it has
nothing to do; a battle can be played to its end by the offers alone."""

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine.dynamics import DynStage
from app.engine.match.codec import JsonObject
from tests.engine.dynamics.support import SECRET, deployed

STAND_IN: dict[str, Any] = {
    "inches": 0,
    "range_inches": 0,
    "half_range": True,
    "distance": 0,
    "speed": "normal",
    "edge": "",
    "targets": [],
}


def complete(entry: JsonObject) -> dict[str, Any]:
    command = dict(entry["command"])  # type: ignore[arg-type]
    for need in entry.get("needs", []):  # type: ignore[union-attr]
        command[str(need)] = STAND_IN[str(need)]
    return command


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, 10_000), min_size=250, max_size=250))
def test_every_offer_is_accepted(picks: list[int]) -> None:
    battle = deployed()
    turns = set()
    for i, pick in enumerate(picks):
        offers = {seat: battle.legal_actions(seat) for seat in ("A", "B")}
        seats = [seat for seat in ("A", "B") if offers[seat]]
        if not seats:
            break
        s = battle.state
        if s.stage in (DynStage.REVEAL, DynStage.RESOLVE) and s.to_act:
            other = "B" if s.to_act == "A" else "A"
            assert offers[other] == []  # not your go: nothing to offer
        seat = seats[pick % len(seats)]
        placed = set(battle.state.slots)
        fresh = [  # a unit's order placed again is offered too: drive on with the others
            e
            for e in offers[seat]
            if not (e["command"]["type"] == "place_order" and e["command"]["unit"] in placed)  # type: ignore[index]
        ]
        entry = fresh[(pick // 2) % len(fresh)]
        data = complete(entry)
        command = battle.decode(data)
        battle.execute_json(data, seat, seed=battle.command_seed(SECRET, command, seat) + i)
        turns.add(battle.state.turn)
    assert len(turns) >= 2 or battle.state.stage is DynStage.OVER
