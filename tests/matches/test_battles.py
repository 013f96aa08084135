"""Complete battles played through the JSON API, two players, two clients.

Every accepted command is checked against the replay of the stored rows (``Player.send`` with
``db``): the view the API answered equals the view of a battle rebuilt from ``match_events``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.engine.wh40k10e.army import BattleSize, Roster, RosterUnit
from tests.matches.conftest import Game, finish_turn, setup_battle, step, wipe_out_b

FORMATIONS = {
    "A": {
        "attachments": [["a1", "a2"]],
        "embarked": [["a7", "a6"]],
        "reserves": [["a3", "deep_strike"]],
    },
    "B": {"reserves": [["b4", "strategic"], ["b6", "deep_strike"]]},
}


def unit(view: dict[str, Any], uid: str) -> dict[str, Any]:
    return next(u for u in view["units"] if u["id"] == uid)


def weapons(view_units: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [w for w in view_units if w["kind"] == kind]


def test_a_full_battle_with_undo_stale_writes_combat_and_confirmation(
    new_game: Callable[..., Game],
) -> None:
    g = new_game()
    setup_battle(g, FORMATIONS)
    view = g.a.view()
    assert (view["round"], view["active"], view["phase"]) == (1, "A", "command")
    assert unit(view, "a2")["leader"] == "a1"
    assert unit(view, "a7")["location"] == "embarked"
    assert unit(view, "a3")["location"] == "reserves"
    assert view["players"]["A"]["cp"] == view["players"]["B"]["cp"] == 1
    g.a.send({"type": "end_phase"})

    # -- movement, with an undo and a stale write ----------------------------------------------
    g.a.send({"type": "move", "unit": "a2", "mode": "normal"})
    g.a.send({"type": "move", "unit": "a6", "mode": "normal"})
    seen = g.b.get()["version"]
    g.a.send({"type": "disembark", "unit": "a7"})
    assert unit(g.a.last["view"], "a7")["location"] == "battlefield"
    assert g.a.last["view"]["can_undo"] is True
    refused = g.b.send({"type": "undo"}, version=g.a.version, status=403)
    assert refused["refusal"] == "not_your_action"
    g.a.send({"type": "undo"})
    assert unit(g.a.last["view"], "a7")["location"] == "embarked"
    # B acts on the version it saw before the disembark: 409 with the current version
    stale = g.b.send({"type": "pass"}, version=seen, status=409)
    assert stale["refusal"] == "stale_version"
    assert stale["current_version"] == g.a.version
    assert stale["expected_version"] == seen
    g.a.send({"type": "disembark", "unit": "a7"})
    g.a.send({"type": "arrive", "unit": "a3"})

    # B reacts with Fire Overwatch just after the Terminators are set up, and rolls live
    g.b.send({"type": "use_stratagem", "stratagem": "fire_overwatch", "unit": "b2", "enemy": "a3"})
    assert g.b.last["view"]["players"]["B"]["cp"] == 0
    unknown = g.b.client.post(
        f"{g.b.base}/combat/preview",
        json={"attacker": "b2", "target": "a3", "weapons": [{"weapon": "Lascannon", "models": 1}]},
    )
    assert unknown.status_code == 422
    assert unknown.json()["errors"][0]["field"] == "weapons[0].weapon"
    shooting = _ranged(g, "b2")
    preview = g.b.client.post(
        f"{g.b.base}/combat/preview",
        json={"attacker": "b2", "target": "a3", "weapons": shooting},
    )
    assert preview.status_code == 200, preview.text
    odds = preview.json()
    assert odds["request"]["situation"]["overwatch"] is True  # the match knows
    assert odds["request"]["target"]["models"] == 5
    before = sum(unit(g.b.view(), "a3")["wounds"])
    rolled = g.b.client.post(
        f"{g.b.base}/combat/resolve",
        json={
            "attacker": "b2",
            "target": "a3",
            "weapons": shooting,
            "expected_version": g.b.get()["version"],
        },
    )
    assert rolled.status_code == 200, rolled.text
    result = rolled.json()
    after = sum(unit(result["view"], "a3")["wounds"])
    assert before - after == result["resolution"]["totals"]["damage"]
    assert result["events"][-1]["event"]["type"] in ("attack_resolved", "units_destroyed")
    g.a.send({"type": "end_phase"})

    # -- shooting: the Hellblasters at the Boyz, with the odds first ------------------------------
    g.a.send({"type": "shoot", "unit": "a5", "targets": ["b2"]})
    picks = _ranged(g, "a5", seat="A")[1:]  # the plasma: Pistols or the other weapons
    odds = g.a.client.post(
        f"{g.a.base}/combat/preview", json={"attacker": "a5", "target": "b2", "weapons": picks}
    ).json()
    assert float(odds["analysis"]["damage"]["mean"]["approx"]) > 0
    rolled = g.a.client.post(
        f"{g.a.base}/combat/resolve",
        json={"attacker": "a5", "target": "b2", "weapons": picks, "expected_version": g.a.version},
    )
    assert rolled.status_code == 200, rolled.text
    g.a.get()
    refused = g.a.send({"type": "shoot", "unit": "a5", "targets": ["b2"]}, status=409)
    assert refused["refusal"] == "already_shot"

    # -- finish the battle: A holds objective 1 from round 2 --------------------------------------
    finish_turn(g)
    finish_turn(g)
    view = g.a.view()
    assert (view["round"], view["active"]) == (2, "A")
    on_field = [
        u["id"]
        for u in view["units"]
        if u["owner"] == "A" and u["location"] == "battlefield" and not u["destroyed"]
    ]
    g.a.send({"type": "report_objective", "marker": "1", "units": [{"unit": on_field[0]}]})
    while g.a.view()["stage"] == "battle":
        finish_turn(g)
    view = g.a.view()
    assert view["stage"] == "ended"
    assert view["result"]["reason"] == "rounds_complete"
    assert view["players"]["A"]["vp"] > 0

    # -- the result: both confirm; the match is then "confirmed" ----------------------------------
    g.b.send({"type": "confirm_result"})
    assert g.a.get()["status"] == "ended"
    g.a.send({"type": "confirm_result"})
    final = g.a.get()
    assert final["status"] == "confirmed"
    assert final["winner"] == view["result"]["winner"] or final["winner"] == "draw"
    assert g.a.checked + g.b.checked > 75  # the replay was compared after every command

    # every seeded roll re-draws from its seed
    audit = g.a.client.get(f"{g.a.base}/audit").json()["rolls"]
    assert audit
    assert all(r["ok"] in (True, None) for r in audit)
    assert any(r["ok"] is True for r in audit)


def _ranged(g: Game, uid: str, seat: str = "B") -> list[dict[str, Any]]:
    """The unit's ranged weapons as the snapshot lists them (via the web context helper)."""
    from app.engine.wh40k10e.battle import Seat
    from app.matches import combat

    p = g.a if seat == "A" else g.b
    db = p.db
    assert db is not None
    from app.matches.models import Match
    from app.matches.service import load_battle

    match = db.get(Match, g.match_id)
    assert match is not None
    db.refresh(match)
    battle = load_battle(db, match)
    rows = combat.unit_weapons({Seat.A: match.army_a, Seat.B: match.army_b}, battle.state, uid)
    db.commit()
    picks = [
        {"unit": w["unit"], "weapon": w["name"], "models": w["models"]}
        for w in rows
        if w["kind"] == "ranged" and w["models"] > 0
    ]
    assert picks, rows
    return picks[:2]


def test_a_wipe_out_ends_the_battle_at_once(new_game: Callable[..., Game]) -> None:
    small_a = Roster(
        "Adeptus Astartes",
        "Gladius Task Force",
        BattleSize.INCURSION,
        (RosterUnit("Captain", warlord=True), RosterUnit("Intercessor Squad", 5)),
        name="Few",
    )
    small_b = Roster(
        "Orks",
        "War Horde",
        BattleSize.INCURSION,
        (RosterUnit("Warboss", warlord=True),),
        name="Alone",
    )
    g = new_game(small_a, small_b, battle_size="incursion")
    setup_battle(g)
    wipe_out_b(g)
    view = g.a.last["view"]
    assert view["stage"] == "ended"
    assert view["result"] == {
        "reason": "army_destroyed",
        "winner": "A",
        "vp": {"A": 0, "B": 0},
        "destroyed_in_reserve": [],
    }
    refused = g.b.send({"type": "end_phase"}, status=409)
    assert refused["refusal"] == "battle_over"
    g.b.send({"type": "dispute_result", "reason": "the Warboss was out of sight"})
    assert g.a.view()["players"]["B"]["result"] == "disputed"
    g.b.send({"type": "confirm_result"})
    g.a.send({"type": "confirm_result"})
    assert g.a.get()["status"] == "confirmed"
    assert g.a.get()["winner"] == "A"


def test_scouts_and_a_concession(new_game: Callable[..., Game]) -> None:
    g = new_game()
    g.a.send({"type": "roll_off"}, dice=[2, 5])
    view = g.a.view()
    assert view["roll_offs"] == {"objectives": "B"}
    for i in range(4):
        (g.b if i % 2 == 0 else g.a).send({"type": "place_objective"})
    g.a.send({"type": "roll_off"}, dice=[3, 3])  # a tie by hand: recorded, roll again
    assert g.a.view()["attacker"] is None
    g.a.send({"type": "roll_off"}, dice=[1, 6])
    assert g.a.view()["attacker"] == "B"
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    while (view := g.a.view())["stage"] == "deploy":
        seat = view["next_seat"]
        todo = sorted(
            u["id"]
            for u in view["units"]
            if u["owner"] == seat and u["location"] == "to_deploy" and u["bodyguard"] is None
        )
        (g.a if seat == "A" else g.b).send({"type": "deploy_unit", "unit": todo[0]})
    g.a.send({"type": "roll_off"}, dice=[5, 4])
    view = g.a.view()
    assert view["stage"] == "scouts"
    scout = view["next_seat"]
    p = g.a if scout == "A" else g.b
    moves = [a["command"] for a in p.actions() if a["command"]["type"] == "scout_move"]
    assert moves  # the Scout Squad (A) has Scouts 6"
    p.send(moves[0])
    while (view := g.a.view())["stage"] == "scouts":
        (g.a if view["next_seat"] == "A" else g.b).send({"type": "end_scouts"})
    assert view["stage"] == "battle"
    step(g, view)
    g.b.send({"type": "concede", "confirm": True})
    view = g.a.view()
    assert view["result"]["reason"] == "concession"
    assert view["result"]["winner"] == "A"


def _to_shooting(g: Game) -> None:
    setup_battle(g)
    g.a.send({"type": "end_phase"})  # command -> movement
    g.a.send({"type": "end_phase"})  # movement -> shooting
    assert g.a.view()["phase"] == "shooting"


def test_the_boss_nob_keeps_its_own_wounds_over_http(new_game: Callable[..., Game]) -> None:
    """Boyz (b2): nine Boys at W1 then the Boss Nob at W2, tracked slot by slot."""
    g = new_game()
    _to_shooting(g)
    boyz = unit(g.a.view(), "b2")
    assert (boyz["wounds"], boyz["max_wounds"]) == ([1] * 9 + [2], [1] * 9 + [2])
    assert boyz["wounds_per_model"] == 1
    g.a.send({"type": "shoot", "unit": "a5", "targets": ["b2"]})
    g.a.send({"type": "resolve_attack", "attacker": "a5", "target": "b2", "damage": [1] * 10})
    boyz = unit(g.a.last["view"], "b2")
    assert boyz["wounds"] == [0] * 9 + [1]
    assert (boyz["models_alive"], boyz["destroyed"]) == (1, False)
    damage = g.a.last["events"][-1]["event"]["damage"]
    assert damage[-1] == {"unit": "b2", "model": 9, "damage": 1}
    # the attack engine sees the Nob as one model with the 1 wound it has left
    odds = g.a.client.post(
        f"{g.a.base}/combat/preview",
        json={"attacker": "a2", "target": "b2", "weapons": [{"weapon": "Bolt Rifle", "models": 5}]},
    )
    assert odds.status_code == 200, odds.text
    target = odds.json()["request"]["target"]
    assert (target["models"], target["wounds"]) == (1, 1)


def test_a_match_stored_before_per_slot_wounds_still_plays(
    new_game: Callable[..., Game], db: Any
) -> None:
    """A snapshot and a match_created event without ``model_wounds`` (stored before it
    existed) replay as before: every Boy and the Boss Nob at the unit's W1."""
    from sqlalchemy import select

    from app.matches import reads
    from app.matches.models import Match, MatchEvent

    g = new_game()
    match = db.get(Match, g.match_id)
    old_b = dict(match.army_b)
    old_b["units"] = [{k: v for k, v in u.items() if k != "model_wounds"} for u in old_b["units"]]
    match.army_b = old_b
    created = (
        db.execute(
            select(MatchEvent).where(MatchEvent.match_id == g.match_id).order_by(MatchEvent.seq)
        )
        .scalars()
        .first()
    )
    event = dict(created.event)
    setup = dict(event["setup"])
    setup["armies"] = {
        seat: {**army, "units": [dict(u) for u in army["units"]]}
        for seat, army in setup["armies"].items()
    }
    dropped = {u["id"]: u.pop("model_wounds") for a in setup["armies"].values() for u in a["units"]}
    assert (dropped["a2"], dropped["b2"]) == ([], [1] * 9 + [2])
    event["setup"] = setup
    created.event = event
    db.flush()
    reads.cache.clear()
    _to_shooting(g)
    boyz = unit(g.a.view(), "b2")
    assert (boyz["wounds"], boyz["max_wounds"]) == ([1] * 10, [1] * 10)
    g.a.send({"type": "shoot", "unit": "a5", "targets": ["b2"]})
    g.a.send({"type": "resolve_attack", "attacker": "a5", "target": "b2", "damage": [1] * 10})
    assert unit(g.a.last["view"], "b2")["destroyed"] is True
