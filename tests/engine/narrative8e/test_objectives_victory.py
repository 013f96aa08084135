"""Sabotage, the spy, mission stratagems and CP, and every scenario's victory evaluation, with
dice given by hand."""

from __future__ import annotations

import pytest

from app.engine.narrative8e.objectives import Sabotage, SpyHunt, StratagemLedger
from app.engine.narrative8e.pack import MissionPack, ResultKind, Side
from app.engine.narrative8e.setup import NarrativeError
from app.engine.narrative8e.victory import (
    BlitzFacts,
    EscapeFacts,
    LastStandFacts,
    PatrolFacts,
    RescueFacts,
    SabotageFacts,
    evaluate,
)
from app.engine.narrative8e.zones import (
    Arc,
    airspace_return,
    dogfight_modifier,
    fog_of_war_delayed,
    garrison_losses,
    night_fight_modifier,
    roll_on_table,
)
from app.engine.roller import Roller


def test_sabotage_attempts_once_per_unit_and_extra_explosives() -> None:
    """[L435] within 3", not VEHICLE/MONSTER, once per unit; [L463] one more, not same turn."""
    s = Sabotage().attempt("squad", 2, distance=2.5)
    with pytest.raises(NarrativeError, match="no sabotage attempt left"):
        s.attempt("squad", 3, distance=1)
    with pytest.raises(NarrativeError, match="VEHICLE"):
        s.attempt("tank", 2, distance=1, keywords=["Vehicle"])
    with pytest.raises(NarrativeError, match='more than 3"'):
        s.attempt("bikes", 2, distance=3.1)
    s = s.extra_explosives("squad")
    with pytest.raises(NarrativeError, match="one sabotage attempt per turn"):
        s.attempt("squad", 2, distance=1)
    s = s.attempt("squad", 3, distance=1).attempt("scouts", 3, distance=3)
    assert s.count == 3


def test_sabotage_victory_d6_plus_attempts_seven(pack: MissionPack) -> None:
    """[L437] D6 + attempts >= 7; [L473] Cut the Wires removes one first."""
    sab = pack.mission("sabotage")
    win = evaluate(sab, SabotageFacts(attempts=3), Roller.from_values([4]))
    assert (win.winner, win.result, win.dice) == (Side.ATTACKER, ResultKind.MAJOR_VICTORY, (4,))
    assert win.breakdown[1].detail == "4 + 3 = 7 (needs 7)"
    cut = evaluate(sab, SabotageFacts(attempts=3, cut_the_wires=True), Roller.from_values([4]))
    assert cut.winner is Side.DEFENDER
    floor = evaluate(sab, SabotageFacts(attempts=0, cut_the_wires=True), Roller.from_values([6]))
    assert floor.winner is Side.DEFENDER
    assert floor.breakdown[0].detail == "0"


def test_spy_search_six_or_last_place_and_beacon_scan(pack: MissionPack) -> None:
    """[L519] a 6, or the last place, finds it; [L545] the scan finds it on a 6 and the place
    is searched either way (A23); [L529] found and alive wins."""
    hunt = SpyHunt(("p1", "p2", "p3"))
    hunt, s = hunt.search("p1", Roller.from_values([5]))
    assert not s.found
    assert hunt.searched == ("p1",)
    hunt, s = hunt.beacon_scan("p2", Roller.from_values([4]))
    assert not s.found
    assert s.scan
    assert hunt.searched == ("p1", "p2")
    hunt, s = hunt.search("p3", Roller.from_values([1]))
    assert s.found
    assert s.last_place
    assert hunt.found_at == "p3"
    with pytest.raises(NarrativeError, match="already found"):
        hunt.search("p3", Roller(1))
    rescue = pack.mission("rescue")
    won = evaluate(rescue, RescueFacts(spy_found=hunt.found, spy_alive=hunt.spy_alive))
    assert (won.winner, won.result) == (Side.ATTACKER, ResultKind.VICTORY)
    dead = hunt.spy_killed()
    assert evaluate(rescue, RescueFacts(True, dead.spy_alive)).winner is Side.DEFENDER
    failed = hunt.placement_impossible()
    lost = evaluate(rescue, RescueFacts(True, False, failed.placement_failed))
    assert lost.winner is Side.DEFENDER
    assert lost.breakdown[0].item == "spy_could_not_be_placed"
    quick, s = SpyHunt(("a", "b")).search("a", Roller.from_values([6]))
    assert s.found
    assert not s.last_place
    assert quick.found_at == "a"


def test_meat_grinder_victory(pack: MissionPack) -> None:
    """[L155]: one Defender model left is a Defender major victory."""
    mg = pack.mission("meat-grinder")
    assert evaluate(mg, LastStandFacts(1)).winner is Side.DEFENDER
    r = evaluate(mg, LastStandFacts(0))
    assert (r.winner, r.result) == (Side.ATTACKER, ResultKind.MAJOR_VICTORY)


def test_ambush_victory_a_third_escaped(pack: MissionPack) -> None:
    """[L225]: escaped units' whole value >= 1/3 of the army."""
    ambush = pack.mission("ambush")
    r = evaluate(ambush, EscapeFacts({"convoy": 400, "escort": 200}, 1800))
    assert r.winner is Side.DEFENDER
    assert r.breakdown[-1].detail == "600 of 1800"
    assert evaluate(ambush, EscapeFacts({"convoy": 599}, 1800)).winner is Side.ATTACKER


def test_patrol_victory_units_destroyed_or_off_the_battlefield(pack: MissionPack) -> None:
    """[L293]: 1 VP per enemy unit destroyed; a unit not on the battlefield counts."""
    patrol = pack.mission("patrol")
    facts = PatrolFacts(
        attacker_units=["a1", "a2", "a3"],
        defender_units=["d1", "d2", "d3"],
        destroyed=["a1", "d1"],
        on_battlefield=["a2", "a3", "d2"],
    )
    r = evaluate(patrol, facts)
    assert (r.vp, r.winner, r.result) == ((2, 1), Side.ATTACKER, ResultKind.MAJOR_VICTORY)
    assert [(line.side, line.item, line.detail) for line in r.breakdown] == [
        (Side.DEFENDER, "unit_destroyed", "a1"),
        (Side.ATTACKER, "unit_destroyed", "d1"),
        (Side.ATTACKER, "unit_off_battlefield", "d3"),
    ]
    draw = evaluate(patrol, PatrolFacts(["a1"], ["d1"], ["a1", "d1"], []))
    assert (draw.vp, draw.winner, draw.result) == ((1, 1), None, ResultKind.DRAW)


def test_blitz_victory_breakthrough_against_contested_approach(pack: MissionPack) -> None:
    """[L369] 1 VP First Line, 2 instead in the Second Line (once per unit, A14); [L371] 1 VP
    per Attacker destruction, every time."""
    blitz = pack.mission("blitz")
    r = evaluate(blitz, BlitzFacts(["a", "b", "c"], ["b", "d"], attacker_destructions=5))
    assert r.vp == (1 + 1 + 2 + 2, 5)
    assert r.winner is Side.ATTACKER
    draw = evaluate(blitz, BlitzFacts(["a"], [], attacker_destructions=1))
    assert (draw.vp, draw.result) == ((1, 1), ResultKind.DRAW)


def test_evaluate_refuses_facts_of_another_mission(pack: MissionPack) -> None:
    with pytest.raises(NarrativeError, match="LastStandFacts, not BlitzFacts"):
        evaluate(pack.mission("meat-grinder"), BlitzFacts([], [], 0))
    with pytest.raises(NarrativeError, match="needs dice"):
        evaluate(pack.mission("sabotage"), SabotageFacts(1))


def test_stratagem_ledger_battle_forged_variable_cost_and_once_per_battle(
    pack: MissionPack,
) -> None:
    """[L125] Battle-forged gate; [L233] Night Raider 1+X CP; [L323] Delayed Reserves 1-2."""
    ambush = pack.mission("ambush")
    raider = ambush.stratagem("night-raider")
    ledger = StratagemLedger(cp=(3, 2))
    with pytest.raises(NarrativeError, match="Battle-forged"):
        ledger.use(raider, Side.ATTACKER, cp=2, round_=1, battle_forged=False)
    with pytest.raises(NarrativeError, match="say how many"):
        ledger.use(raider, Side.ATTACKER, round_=1, battle_forged=True)
    with pytest.raises(NarrativeError, match="attacker stratagem"):
        ledger.use(raider, Side.DEFENDER, cp=1, round_=1, battle_forged=True)
    ledger = ledger.use(raider, Side.ATTACKER, cp=2, round_=1, battle_forged=True)
    assert ledger.cp == (1, 2)
    assert ledger.cp_spent_on("night-raider", Side.ATTACKER) == 2
    with pytest.raises(NarrativeError, match="once per battle"):
        ledger.use(raider, Side.ATTACKER, cp=1, round_=1, battle_forged=True)
    vision = ambush.stratagem("night-vision")
    ledger = ledger.use(vision, Side.ATTACKER, round_=1, battle_forged=True)
    with pytest.raises(NarrativeError, match="has 0"):
        ledger.use(vision, Side.ATTACKER, round_=2, battle_forged=True)
    delayed = pack.mission("patrol").stratagem("delayed-reserves")
    with pytest.raises(NarrativeError, match="costs 1 to 2 CP, not 3"):
        ledger.use(delayed, Side.DEFENDER, cp=3, round_=2, battle_forged=True)
    zone = pack.combat_zone("night-fight").stratagems[0]
    ledger = ledger.gain(Side.ATTACKER, 1).use(
        zone, Side.ATTACKER, round_=2, battle_forged=False, mission_scope=False
    )
    assert ledger.cp == (0, 2)


def test_night_fight_bands_take_the_lower_penalty_at_the_boundary(pack: MissionPack) -> None:
    """[L577-L587]."""
    nf = pack.combat_zone("night-fight")
    assert [night_fight_modifier(nf, d) for d in (12, 12.5, 24, 30, 36, 36.1)] == [
        0,
        -1,
        -1,
        -2,
        -2,
        -3,
    ]
    assert night_fight_modifier(nf, 40, lit=True) == 0
    assert fog_of_war_delayed(nf, Roller.from_values([2]), "u")  # [L591]
    assert not fog_of_war_delayed(nf, Roller.from_values([3]), "u")
    assert (
        roll_on_table(nf, "mysterious_objectives", Roller.from_values([4]), "obj 1").id
        == "targeting-relay"
    )


def test_expansion_mechanics(pack: MissionPack) -> None:
    """[L891-L895] dogfight as written; [L905] 3+ returns; [L919]; [L703, L867] garrison."""
    dfts = pack.expansion("death-from-the-skies")
    assert [dogfight_modifier(dfts, a) for a in Arc] == [1, -2, 0]
    assert not airspace_return(dfts, Roller.from_values([2]), "jet")
    assert airspace_return(dfts, Roller.from_values([3]), "jet")
    assert airspace_return(dfts, Roller.from_values([]), "jet", refuelled=True)
    losses = garrison_losses(4, Roller.from_values([1, 3, 4, 6]))
    assert losses.slain == 2
    assert garrison_losses(4, Roller.from_values([1, 3, 4, 6]), escape_hatch=True).slain == 1
    pm = pack.combat_zone("psychic-maelstrom")
    assert roll_on_table(pm, "terrors_of_the_warp", Roller.from_values([6]), "perils").params == {
        "strength": 10,
        "invulnerable": 2,
    }
