"""Issue 13's proof through the API: a whole PEN battle played by two users over HTTP, every
roll that matters given by hand (``dice`` in ``POST /matches/{id}/commands``), and the state
checked after each key step in both seats' views against numbers worked out from the seed's
tables (comments, with the seed's lines).

The two lists come from the army builder (PEN units: squads, a transport with hull points
and its passengers, a squad held in reserve on each side, an independent character, a
sergeant's power fist). The battle: night on round 1 then dawn on round 2, reserves arriving
on their rolls, shooting that kills models and a morale test at 25% losses, a transport taking
damage results until its hull points are gone and its passengers hit, a charge fought with two
close-combat weapons, the combat result, a failed morale test and a sweeping advance that
destroys the loser, consolidation, a squad fleeing and regrouping, the game-length rolls after
rounds 5 and 6, the objectives reported (one corrected) and confirmed by both players, the
victory points. Then the per-seat logs, the audit, the export replayed by
``PenMatch.import_log`` to the live state, and the import as a new match with the same
view."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.catalog.pen_units import PenArmy
from app.engine.pen.battle import BattleSetup, PenBattle
from app.matches import reads
from app.matches.models import Match
from app.matches.systems.pen import PenMatch
from app.matches.systems.pen.armies import army_spec, snapshot_from_army
from tests.engine.pen.battle.profiles import GUARD, MARINE
from tests.matches.test_pen_match import (  # noqa: F401 (pen_game is a fixture)
    MATCHES,
    PenGame,
    Seat,
    pen_game,
    ready_pen_list,
    set_up,
)

BOLTER = {"name": "Bolter", "type": "tir rapide", "shots": 1, "strength": 4, "ap": 5}
PISTOL = {"name": "Pistolet bolter", "type": "pistolet", "shots": 1, "strength": 4, "ap": 5}
LASGUN = {"name": "Fusil laser", "type": "tir rapide", "shots": 1, "strength": 3}
KNIFE = {"name": "Couteau", "kind": "melee", "type": "Arme de corps à corps"}
FIST = {"name": "Gantelet", "kind": "melee", "type": "Gantelet énergétique"}


def squad(
    name: str, points: int, models: int, ch: dict[str, Any], weapons: list[Any], **extra: Any
) -> dict[str, Any]:
    return {
        "name": name,
        "points": points,
        "models": models,
        "unit_type": "infanterie",
        "characteristics": dict(ch),
        "weapons": weapons,
        **extra,
    }


def marines() -> list[dict[str, Any]]:
    """a1 Tactical (the sergeant's power fist), a2 Devastators, a3 Assault (in reserve),
    a4 a Captain (an independent character, W3)."""
    return [
        squad("Escouade tactique", 150, 5, MARINE, [BOLTER, KNIFE, FIST], troops=True),
        squad(
            "Devastators",
            120,
            2,
            MARINE,
            [{"name": "Canon laser", "type": "lourde", "shots": 1, "strength": 9, "ap": 2}],
        ),
        squad("Escouade d'assaut", 100, 5, MARINE, [PISTOL, KNIFE]),
        squad(
            "Capitaine",
            90,
            1,
            MARINE | {"wounds": 3, "attacks": 3, "initiative": 5, "leadership": 10},
            [PISTOL, {"name": "Épée", "kind": "melee", "type": "Arme énergétique"}],
            independent_character=True,
        ),
    ]


def guard() -> list[dict[str, Any]]:
    """b1 Infantry, b2 a Chimera (3 hull points, carries 10), b3 Command squad (deployed in
    the Chimera), b4 Veterans (in reserve)."""
    return [
        squad("Escouade d'infanterie", 60, 10, GUARD, [LASGUN], troops=True),
        {
            "name": "Chimère",
            "points": 55,
            "unit_type": None,
            "characteristics": {"bs": 3},
            "armour": {"front": 12, "side": 10, "rear": 10},
            "hull_points": 3,
            "vehicle_types": ["tank", "transport"],
            "transport_capacity": 10,
            "weapons": [
                {"name": "Multilaser", "type": "lourde", "shots": 3, "strength": 6, "ap": 6}
            ],
        },
        squad("Escouade de commandement", 50, 5, GUARD, [LASGUN]),
        squad("Vétérans", 70, 5, GUARD, [LASGUN]),
    ]


def squads(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {u["id"]: u for u in view["units"]}


def rolled(result: dict[str, Any]) -> list[tuple[str, int]]:
    """(label, value) of every die the command's events hold."""
    return [
        (d["label"], d["value"])
        for e in result["events"]
        for d in ((e["event"].get("roll") or {}).get("dice") or [])
    ]


def same_table(a: Seat, b: Seat) -> dict[str, Any]:
    """Both seats' views, which differ only in the viewer (nothing is secret in PEN)."""
    va, vb = a.view(), b.view()
    assert va["viewer"] == "A"
    assert vb["viewer"] == "B"
    strip = ("viewer", "can_undo", "undo_needs_approval")
    assert {k: v for k, v in va.items() if k not in strip} == {
        k: v for k, v in vb.items() if k not in strip
    }
    return va


def test_a_full_pen_battle_through_the_api_with_dice_by_hand(
    user_client: Callable[[str], TestClient], db: Session
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    mine = ready_pen_list(alice, marines(), "Marines")
    theirs = ready_pen_list(bob, guard(), "Garde")
    # both players confirm the objectives reported before the battle ends (pen rulings B18)
    r = alice.post(
        MATCHES,
        json={
            "options": {"confirm_result": True},
            "ruleset": "pen",
            "army_id": mine,
            "mission": "pen-objectives",
            "battle_size": "1000",
        },
    )
    assert r.status_code == 201, r.text
    created = r.json()
    r = bob.post(f"{MATCHES}/join", json={"code": created["invitation"]["code"], "army_id": theirs})
    assert r.status_code == 200, r.text
    base = f"{MATCHES}/{created['id']}"
    a, b = Seat(alice, base), Seat(bob, base)

    # -- set-up: reserves, roll-off, deployment (the Command squad inside its Chimera) -------
    a.send({"type": "declare_reserve", "unit": "a3"})
    b.send({"type": "declare_reserve", "unit": "b4"})
    a.send({"type": "end_step"})
    b.send({"type": "end_step"})
    a.send({"type": "roll_off"}, dice=[5, 2])  # 5 against 2: Alice chooses [L832]
    assert a.view()["stage"] == "choose"
    a.send({"type": "choose_first", "seat": "A"})
    for unit in ("a1", "a2", "a4"):
        a.send({"type": "deploy", "unit": unit})
    a.send({"type": "end_step"})
    b.send({"type": "deploy", "unit": "b1"})
    b.send({"type": "deploy", "unit": "b2"})
    b.send({"type": "embark", "unit": "b3", "transport": "b2"})
    b.send({"type": "end_step"})
    view = same_table(a, b)
    assert (view["stage"], view["round"], view["active_seat"], view["phase"]) == (
        "battle",
        1,
        "A",
        "start",
    )
    assert view["victory"] == {  # the mission's victory conditions [L805-L822]
        "points_limit": 1000,
        "objectives": ["objective-1", "objective-2", "objective-3"],
        "objective_value": 100,
        "kill_points": True,
    }
    units = squads(view)
    assert (units["a3"]["place"], units["a3"]["reserve"]) == ("reserve", "standard")
    assert "in_reserve" in units["b4"]["tokens"]
    assert (units["b3"]["place"], units["b3"]["transport"]) == ("embarked", "b2")
    assert (units["b2"]["hull_points"], units["b2"]["hull_points_lost"]) == (3, 0)
    # the squads' names and weapons, for the commands that name a weapon
    assert (units["a1"]["name"], units["a1"]["weapons"]) == (
        "Escouade tactique",
        [
            {"name": "Bolter", "kind": "ranged"},
            {"name": "Couteau", "kind": "melee"},
            {"name": "Gantelet", "kind": "melee"},
        ],
    )
    assert units["b2"]["weapons"] == [{"name": "Multilaser", "kind": "ranged"}]

    # -- round 1, Alice: night, a reserve that waits -------------------------------------------
    # dawn on a 6 in round 1 [L950]: 1, still night; the Assault squad needs 5+ [L860]: 2
    done = a.send({"type": "start_turn"}, dice=[1, 2])
    assert rolled(done) == [("dawn, round 1", 1), ("reserves a3", 2)]
    view = a.view()
    assert view["night"] is True
    assert view["phase"] == "movement"
    assert squads(view)["a3"]["place"] == "reserve"
    # B may only go to ground in A's movement phase
    theirs_now = b.client.get(f"{base}/actions").json()["actions"]
    assert {x["command"]["type"] for x in theirs_now} == {"go_to_ground"}

    # the lascannon at the Chimera's side: hit 6, penetration 3 (S9 + 3 = 12 > 10: penetrating),
    # location 1 + BS4 = 5: hull [L1422], damage 2: "Endommagé", -1 HP and +1 on later damage
    # rolls [L1450], [L1461]
    a.send({"type": "move", "unit": "a2", "speed": "stationary"})
    a.send(
        {
            "type": "shoot",
            "unit": "a2",
            "target": "b2",
            "weapon": "Canon laser",
            "range_inches": 18,
            "facing": "side",
        },
        dice=[6, 1, 3, 1, 2],
    )
    chimera = squads(a.view())["b2"]
    assert (chimera["hull_points_lost"], chimera["place"]) == (1, "table")
    assert "damaged" in chimera["tokens"]
    a.send({"type": "end_activation", "unit": "a2"})

    # 5 Marines rapid fire at half range: 10 shots; 8 hit, 6 wound (S4 vs T3), 6 saves failed
    # (AP5 against 5+: 6+ [L619]): the Infantry 10 -> 4
    a.send({"type": "move", "unit": "a1", "speed": "normal", "inches": 6})
    a.send(
        {
            "type": "shoot",
            "unit": "a1",
            "target": "b1",
            "weapon": "Bolter",
            "range_inches": 10,
            "half_range": True,
        },
        dice=[6] * 8 + [1, 1] + [6] * 6 + [1, 1] + [1] * 6,
    )
    assert squads(b.view())["b1"]["models"] == 4
    # more than half lost to one squad's shooting: morale at Ld 7 - 1; 3 + 2 passes [L1162-L1166]
    done = a.send({"type": "end_activation", "unit": "a1"}, dice=[3, 2])
    test = next(e["event"] for e in done["events"] if e["event"]["type"] == "test_taken")
    assert (test["unit"], test["test"], test["malus"], test["passed"]) == ("b1", "morale", 1, True)
    assert "retreating" not in squads(b.view())["b1"]["tokens"]

    # the Captain's bolt pistol at the Chimera's front, rolled by the server (seeded): S4 + D6
    # never beats armour 12, so whatever the dice the Chimera is untouched
    a.send({"type": "move", "unit": "a4", "speed": "normal", "inches": 6})
    seeded = a.send(
        {
            "type": "shoot",
            "unit": "a4",
            "target": "b2",
            "weapon": "Pistolet bolter",
            "range_inches": 10,
            "half_range": True,
        }
    )
    seeded_rolls = [e["event"]["roll"] for e in seeded["events"] if e["event"].get("roll")]
    assert seeded_rolls
    assert all(r["seed"] is not None for r in seeded_rolls)
    assert squads(a.view())["b2"]["hull_points_lost"] == 1
    a.send({"type": "end_activation", "unit": "a4"})
    a.send({"type": "end_phase"})
    assert a.view()["phase"] == "assault"

    # the charge, fought with two weapons: the sergeant's power fist (I1, S x2, AP2 [L609])
    a.send({"type": "charge", "unit": "a1", "target": "b1", "distance": 4})
    assert squads(a.view())["a1"]["locked_with"] == ["b1"]
    fight = {
        "type": "fight",
        "unit": "a1",
        "target": "b1",
        "weapons": [{"unit": "a1", "weapon": "Gantelet", "models": 1}],
    }
    dice = [
        # I4: 4 Marines with knives, 2 attacks each (+1 charging [L1186]): WS4 vs WS3 hits on 3+:
        # 4 hits; S4 vs T3 wounds on 3+: 2; 6+ saves (AP5 vs 5+) fail: Infantry 4 -> 2
        *[6, 6, 6, 6, 1, 1, 1, 1],
        *[6, 6, 1, 1],
        *[1, 1],
        # I3: the 2 Guardsmen strike back (no charge bonus [L1234]): both miss
        *[1, 1],
        # I1: the power fist, 2 attacks: 1 hit, wound 6 (no save against AP2): Infantry 2 -> 1
        *[6, 1],
        6,
        # 3 casualties to 0: Infantry tests at Ld 7 - 3 [L1252]: 3 + 3 fails
        *[3, 3],
        # sweeping advance: 4 + I4 against 1 + I3: caught [L1256-L1258]; the difference (3)
        # is more than the one Guardsman left: the squad is destroyed
        *[4, 1],
    ]
    done = a.send(fight, dice=dice)
    result = next(e["event"] for e in done["events"] if e["event"]["type"] == "combat_resolved")
    assert (result["winner"], result["swept"]) == ("A", 1)
    assert ("to hit", 6) in rolled(done)
    view = same_table(a, b)
    units = squads(view)
    assert (units["b1"]["place"], units["b1"]["models"]) == ("destroyed", 0)
    assert (units["a1"]["models"], units["a1"]["locked_with"]) == (5, [])
    consolidate = a.client.get(f"{base}/actions").json()["actions"]
    assert {"command": {"type": "consolidate", "unit": "a1"}, "needs": ["inches"]} in consolidate
    a.send({"type": "consolidate", "unit": "a1", "inches": 3})  # [L1260]
    a.send({"type": "end_phase"})

    # -- round 1, Bob: the Veterans wait; the Chimera shoots -----------------------------------
    view = b.view()
    assert (view["active_seat"], view["phase"], view["night"]) == ("B", "start", True)
    done = b.send({"type": "start_turn"}, dice=[3])  # no dawn roll on the second turn [L948]
    assert rolled(done) == [("reserves b4", 3)]  # 3 < 5+: it waits
    b.send({"type": "move", "unit": "b2", "speed": "normal", "inches": 6})
    # the multilaser (3 shots): 1 hit, wound 6, save 1: one Devastator falls
    b.send(
        {
            "type": "shoot",
            "unit": "b2",
            "target": "a2",
            "weapon": "Multilaser",
            "range_inches": 20,
        },
        dice=[6, 1, 1, 6, 1],
    )
    # half the squad lost: morale at Ld 8 - 1, 4 + 3 passes
    b.send({"type": "end_activation", "unit": "b2"}, dice=[4, 3])
    units = squads(a.view())
    assert (units["a2"]["models"], units["b2"]["speed"], units["b2"]["moved"]) == (1, "normal", 6)
    b.send({"type": "end_phase"})
    b.send({"type": "end_phase"})

    # -- round 2, Alice: dawn; the Assault squad arrives; the Chimera goes ----------------------
    # dawn on 3+ in round 2: 4, day [L951]; the Assault squad on 4+ in turn 2: 5, available
    a.send({"type": "start_turn"}, dice=[4, 5])
    view = same_table(a, b)
    assert (view["round"], view["night"]) == (2, False)
    assert squads(view)["a3"]["place"] == "available"
    # end_phase is refused while a reserve waits to come on [L867]
    refused = a.send({"type": "end_phase"}, status=409)
    assert refused["refusal"] == "reserves_waiting"
    # the lascannon again: hit 6, penetration 4 (13 > 10), hull, damage 3 + 1 (Endommagé) = 4:
    # "Très endommagé", -2 HP: 3 of 3 lost, the Chimera is destroyed [L1461]; as "Détruit"
    # (pen rulings B12) its 5 passengers take an S5 hit each: wounds 6, 6, 1, 1, 1, saves 1, 5
    a.send({"type": "move", "unit": "a2", "speed": "stationary"})
    done = a.send(
        {
            "type": "shoot",
            "unit": "a2",
            "target": "b2",
            "weapon": "Canon laser",
            "range_inches": 18,
            "facing": "side",
        },
        dice=[6, 4, 1, 3, 6, 6, 1, 1, 1, 1, 5],
    )
    assert [e["event"]["type"] for e in done["events"]] == ["unit_shot", "passengers_hit"]
    units = squads(b.view())
    assert (units["b2"]["place"], units["b2"]["hull_points_lost"]) == ("destroyed", 3)
    assert "destroyed" in units["b2"]["tokens"]
    assert (units["b3"]["place"], units["b3"]["models"], units["b3"]["transport"]) == (
        "table",
        4,
        None,
    )
    a.send({"type": "end_activation", "unit": "a2"})
    a.send({"type": "arrive", "unit": "a3", "inches": 6})
    # 5 bolt pistols at half range: 3 hit, 2 wound, 2 saves (6+) fail: Command squad 4 -> 2
    a.send(
        {
            "type": "shoot",
            "unit": "a3",
            "target": "b3",
            "weapon": "Pistolet bolter",
            "range_inches": 6,
            "half_range": True,
        },
        dice=[6, 6, 6, 1, 1, 6, 6, 1, 1, 1],
    )
    # half lost: morale at Ld 7 - 1: 5 + 4 fails, the squad retreats [L1164]
    a.send({"type": "end_activation", "unit": "a3"}, dice=[5, 4])
    units = squads(b.view())
    assert units["b3"]["models"] == 2
    assert "retreating" in units["b3"]["tokens"]
    a.send({"type": "end_phase"})
    a.send({"type": "end_phase"})

    # -- round 2, Bob: the Veterans arrive, the Command squad regroups ------------------------
    # the Veterans on 4+ in turn 2: 4; regroup at Ld 7 - 1 (under half left [L977]): 3 + 3
    done = b.send({"type": "start_turn"}, dice=[4, 3, 3])
    assert rolled(done) == [("reserves b4", 4), ("regroup test", 3), ("regroup test", 3)]
    units = squads(b.view())
    assert units["b4"]["place"] == "available"
    assert "retreating" not in units["b3"]["tokens"]
    assert "regrouped" in units["b3"]["tokens"]
    b.send({"type": "arrive", "unit": "b4", "inches": 6})
    # 5 lasguns at half range at the Captain: 2 hits, 2 wounds (S3 vs T4: 5+), saves 1 and 4:
    # the Captain loses 1 W of 3, carried to the next attack (pen rulings B6)
    b.send(
        {
            "type": "shoot",
            "unit": "b4",
            "target": "a4",
            "weapon": "Fusil laser",
            "range_inches": 9,
            "half_range": True,
        },
        dice=[6, 6] + [1] * 8 + [5, 6, 1, 4],
    )
    captain = squads(a.view())["a4"]
    assert (captain["models"], captain["wounds"], captain["wounds_taken"]) == (1, 3, 1)
    b.send({"type": "end_activation", "unit": "b4"})
    b.send({"type": "end_phase"})
    b.send({"type": "end_phase"})

    # -- rounds 3 to 6: quiet turns; the game length after rounds 5 and 6 [L824-L828] ---------
    def quiet(p: Seat, game_length: list[int] | None = None) -> dict[str, Any]:
        done = p.send({"type": "start_turn"}, dice=[])  # day, no reserves: no die
        assert rolled(done) == []
        p.send({"type": "end_phase"})
        return p.send({"type": "end_phase"}, dice=game_length)

    for _ in (3, 4):
        quiet(a)
        quiet(b)
    quiet(a)
    done = quiet(b, [4])  # after round 5: 4 >= 3+, the game goes on
    assert rolled(done) == [("game length after round 5", 4)]
    assert (a.view()["round"], a.view()["stage"]) == (6, "battle")
    quiet(a)
    quiet(b, [2])  # after round 6: 2 < 5+, it ends
    view = same_table(a, b)
    assert (view["stage"], view["round"]) == ("scoring", 6)
    # the score so far: kill points only [L818-L820]: A killed the Infantry (60) and the
    # Chimera (55), the Command squad is under half (50 / 2); B: the Devastators at half (60)
    assert b.get()["vp"] == {"A": 140, "B": 60}

    # -- the end: the players report who holds each objective, then both confirm -------------
    reports = {x["command"]["objective"] for x in a.client.get(f"{base}/actions").json()["actions"]}
    assert reports == {"objective-1", "objective-2", "objective-3"}
    a.send({"type": "report_control", "objective": "objective-1", "seat": "A"})
    b.send({"type": "report_control", "objective": "objective-2", "seat": "B"})
    a.send({"type": "report_control", "objective": "objective-3", "seat": ""})  # a slip
    assert b.view()["stage"] == "scoring"  # nothing ends before both players confirm
    b.send({"type": "confirm_result"})
    assert (a.view()["confirmed"], b.get()["status"]) == (["B"], "battle")
    refused = b.send({"type": "confirm_result"}, status=409)
    assert refused["refusal"] == "already_confirmed"
    # Alice sees her slip: objective 3 is hers; the correction asks Bob to confirm again
    a.send({"type": "report_control", "objective": "objective-3", "seat": "A"})
    assert a.view()["confirmed"] == []
    a.send({"type": "confirm_result"})
    b.send({"type": "confirm_result"})
    # each objective is worth 1000 / 10 = 100 [L821]: A 140 + 200, B 60 + 100; the gap (180)
    # is at least X: A wins [L822]
    view = same_table(a, b)
    assert (view["stage"], view["result"], view["winner"]) == (
        "ended",
        {"A": 340, "B": 160},
        "A",
    )
    for p in (a, b):
        match = p.get()
        assert (match["status"], match["vp"], match["winner"]) == (
            "confirmed",
            {"A": 340, "B": 160},
            "A",
        )

    # -- the logs, the audit, the export, the replay, the import -------------------------------
    logs = [p.client.get(f"{base}/log").json() for p in (a, b)]
    assert logs[0]["entries"] == logs[1]["entries"]  # nothing is secret in PEN
    entries = logs[0]["entries"]
    assert [e["seq"] for e in entries] == list(range(1, a.version + 1))
    audit = a.client.get(f"{base}/audit").json()["rolls"]
    by_seq = {row["seq"]: row["ok"] for row in audit}
    seeded_seqs = {e["seq"] for e in seeded["events"] if e["event"].get("roll")}
    assert seeded_seqs
    assert all(by_seq[s] is True for s in seeded_seqs)
    assert all(ok is None for s, ok in by_seq.items() if s not in seeded_seqs)  # by hand
    exported = a.client.get(f"{base}/export")
    assert exported.status_code == 200, exported.text
    data = exported.json()
    assert (data["rule_system"], data["turn_structure"]) == ("pen", "classic")
    replayed = PenMatch.import_log(data)
    row = db.get(Match, created["id"])
    assert row is not None
    live = reads.snapshot(db, row).battle
    assert replayed.state == live.state
    reads.cache.clear()  # the stored rows replayed afresh give the same state
    assert reads.snapshot(db, row).battle.state == replayed.state
    # the lists reached the battle whole: the Tactical squad's two close-combat weapons
    tactical = replayed.state.unit_spec("a1")
    assert [w.name for w in tactical.weapons] == ["Bolter", "Couteau", "Gantelet"]
    assert tactical.melee == tactical.weapon("Couteau").profile  # type: ignore[union-attr]
    imported = a.client.post(f"{MATCHES}/import", json=data)
    assert imported.status_code == 201, imported.text
    copy = imported.json()
    assert (copy["ruleset"], copy["mission"], copy["battle_size"], copy["vp"]) == (
        "pen",
        "pen-objectives",
        "1000",
        {"A": 340, "B": 160},
    )
    original = a.view()
    for key in ("stage", "round", "units", "night", "control", "result", "winner"):
        assert copy["view"][key] == original[key], key


def test_a_pen_list_brings_every_close_combat_weapon_into_the_battle() -> None:
    """Each close-combat weapon of a list is a named weapon of its squad (its catalogue name
    in ``type``), so a fight can give it to some models; the first is the squad's own; a
    second weapon of the same name (two close-combat weapons [L584]) is named once."""
    twice = squad("Berserks", 80, 5, MARINE, [PISTOL, KNIFE, KNIFE, FIST])
    army = PenArmy.from_dict({"name": "Liste", "units": [marines()[0], twice]})
    snapshot = snapshot_from_army(army, source="paste", army_id=None, points_limit=1000)
    tactical, berserks = snapshot["units"]
    assert [(w["name"], w["profile"]["kind"]) for w in tactical["weapons"]] == [
        ("Bolter", "ranged"),
        ("Couteau", "melee"),
        ("Gantelet", "melee"),
    ]
    fist = tactical["weapons"][2]["profile"]
    assert fist["type"] == "Gantelet énergétique"
    assert "strength" not in fist
    assert "ap" not in fist
    assert tactical["melee"] == tactical["weapons"][1]["profile"]
    assert [w["name"] for w in berserks["weapons"]] == ["Pistolet bolter", "Couteau", "Gantelet"]
    spec = army_spec(snapshot, "A")
    assert spec.units[0].weapon("Gantelet") is not None
    assert spec.units[0].melee == spec.units[0].weapon("Couteau").profile  # type: ignore[union-attr]


def test_an_independent_character_plays_as_its_own_squad() -> None:
    """Pen rulings B30: a character that joins a squad in the list [L438] is a squad of its
    own in the battle, with its rule; the joining is played on the table."""
    captain = marines()[3] | {"joins": 0}
    army = PenArmy.from_dict({"name": "Liste", "units": [marines()[0], captain]})
    snapshot = snapshot_from_army(army, source="paste", army_id=None, points_limit=1000)
    assert all("joins" not in u for u in snapshot["units"])
    theirs = PenArmy.from_dict({"name": "Garde", "units": guard()[:1]})
    setup = BattleSetup(
        (
            army_spec(snapshot, "A"),
            army_spec(
                snapshot_from_army(theirs, source="paste", army_id=None, points_limit=1000), "B"
            ),
        ),
        points_limit=1000,
    )
    state = PenBattle.create(setup).state
    assert (state.units["a1"].models, state.units["a2"].models) == (5, 1)
    assert "independent_character" in state.units["a2"].rules
    assert "independent_character" not in state.units["a1"].rules
    assert state.units["a2"].wounds == 3


def test_a_squad_retreats_by_choice_through_the_api(
    pen_game: Callable[..., PenGame],  # noqa: F811 (the fixture imported above)
) -> None:
    """Pen rulings B29 over HTTP: after a draw the charged squad's player (not the active one)
    is offered ``retreat`` and breaks off; the charger is free and consolidates."""
    g = pen_game()
    set_up(g)
    g.a.send({"type": "start_turn"}, dice=[1])
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "charge", "unit": "a1", "target": "b1", "distance": 4})
    # 10 Marines x 2 attacks, then 10 Guardsmen: every blow misses, a draw, still locked
    g.a.send({"type": "fight", "unit": "a1", "target": "b1"}, dice=[1] * 30)
    offered = g.b.client.get(f"{g.b.base}/actions").json()["actions"]
    assert {"command": {"type": "retreat", "unit": "b1"}} in offered
    done = g.b.send({"type": "retreat", "unit": "b1"}, dice=[])  # a difference of 0: no roll
    assert [e["event"]["type"] for e in done["events"]] == ["retreated"]
    units = squads(g.a.view())
    assert "retreating" in units["b1"]["tokens"]
    assert (units["a1"]["locked_with"], units["b1"]["locked_with"]) == ([], [])
    g.a.send({"type": "consolidate", "unit": "a1", "inches": 2})


def test_the_confirmation_is_a_match_option_of_the_pen_battle_s_own_turns(
    user_client: Callable[[str], TestClient],
) -> None:
    alice = user_client("Alice")
    mine = ready_pen_list(alice, marines()[:1])
    for options, field in (
        ({"confirm_result": "yes"}, "options.confirm_result"),
        ({"turn_structure": "dynamics", "confirm_result": True}, "options.confirm_result"),
    ):
        r = alice.post(MATCHES, json={"ruleset": "pen", "army_id": mine, "options": options})
        assert r.status_code == 422, r.text
        assert [e["field"] for e in r.json()["errors"]] == [field]
    r = alice.post(
        MATCHES,
        json={
            "ruleset": "pen",
            "army_id": mine,
            "options": {"turn_structure": "alternation", "confirm_result": True},
        },
    )
    assert r.status_code == 201, r.text
