"""The PEN battle's added rules, one focused test each, dice given by hand and the expected
numbers worked out from the seed's tables in the comments: the façade protocol of the match
feature, regeneration [L453], poison [L665], transports [L270-L335], multi-squad combats
[L1205-L1213] with their sweeping advance [L1256-L1258], vehicles in close combat [L209-L213]
and the passengers of a destroyed transport [L1453]."""

import json
from dataclasses import replace as dc_replace
from typing import Any

import pytest

from app.engine.match.errors import Refusal
from app.engine.match.game import MatchGame
from app.engine.pen.battle import (
    ArmySpec,
    BattleSetup,
    PenBattle,
    Place,
    UnitSpec,
    WeaponSpec,
)
from app.engine.pen.battle.commands import (
    ApproveUndo,
    Charge,
    ChooseFirst,
    Deploy,
    Disembark,
    Embark,
    EndActivation,
    EndPhase,
    EndStep,
    Fight,
    GoToGround,
    Move,
    Pairing,
    Ram,
    RamTarget,
    RollOff,
    Shoot,
    StartTurn,
    Undo,
)
from app.engine.pen.battle.events import CombatResolved, PassengersHit, Rammed
from app.engine.pen.battle.rules import decide
from app.engine.pen.battle.state import Phase, Speed
from app.engine.roller import Roller
from tests.engine.pen.battle.profiles import GUARD, MARINE

OGRYN: dict[str, Any] = {
    "ws": 4,
    "bs": 3,
    "strength": 5,
    "toughness": 5,
    "wounds": 3,
    "initiative": 2,
    "attacks": 3,
    "leadership": 6,
    "save": 5,
    "rules": ["Régénération"],
}
RHINO: dict[str, Any] = {"armour": {"front": 11, "side": 11, "rear": 10}, "hull_points": 3}
NEEDLE = WeaponSpec(
    "needle",
    {
        "kind": "ranged",
        "type": "heavy",
        "shots": 1,
        "strength": 1,
        "ap": 6,
        "properties": ["Empoisonnée (4+)"],
    },
)
BOLTER = WeaponSpec(
    "bolter", {"kind": "ranged", "type": "rapid fire", "shots": 1, "strength": 4, "ap": 5}
)


def battle_of(a_units: tuple[UnitSpec, ...], b_units: tuple[UnitSpec, ...]) -> PenBattle:
    """Both armies deployed (B's squads named in ``EMBARK`` go into the Rhino), A plays first;
    the first turn's dawn is not rolled yet."""
    a = ArmySpec("A", "Alpha", a_units)
    b = ArmySpec("B", "Beta", b_units)
    battle = PenBattle.create(BattleSetup((a, b), points_limit=400, objectives=0))
    battle.execute(EndStep(), "A")
    battle.execute(EndStep(), "B")
    battle.execute(RollOff(), "A", dice=[6, 1])
    battle.execute(ChooseFirst("A"), "A")
    for seat, units in (("A", a_units), ("B", b_units)):
        for spec in units:
            if spec.id.startswith("in-"):
                battle.execute(Embark(spec.id, "rhino"), seat)
            else:
                battle.execute(Deploy(spec.id), seat)
        battle.execute(EndStep(), seat)
    return battle


def replayed(battle: PenBattle) -> PenBattle:
    return PenBattle.import_log(battle.export_json())


# -- the façade ------------------------------------------------------------------------------


def test_pen_battle_is_a_match_game() -> None:
    battle = battle_of((UnitSpec("tac", "Tac", 50, 2, MARINE, (BOLTER,)),), GUARD_SQUAD)
    assert isinstance(battle, MatchGame)
    status = battle.status()
    assert (status.stage, status.round, status.winner) == ("battle", 1, None)
    assert not status.confirmed
    assert dict(status.scores) == {"A": 0, "B": 0}
    assert PenBattle.create(battle.state.setup).status().stage == "setup"  # type: ignore[arg-type]
    with pytest.raises(Refusal) as err:
        PenBattle.decode({"type": "shoot", "unit": 1})
    assert err.value.code == "bad_command"
    assert PenBattle.decode({"type": "end_phase"}) == EndPhase()


def test_fork_leaves_the_original_alone() -> None:
    battle = battle_of((UnitSpec("tac", "Tac", 50, 2, MARINE, (BOLTER,)),), GUARD_SQUAD)
    before = battle.version
    fork = battle.fork()
    fork.execute(StartTurn(), "A", dice=[6])
    assert fork.version > before
    assert not fork.state.night
    assert battle.version == before
    assert battle.state.night
    assert len(battle.envelopes) == before

    class Sub(PenBattle):
        pass

    assert type(Sub.import_log(battle.export_log()).fork()) is Sub


def test_an_undone_roll_sent_again_draws_the_same_dice() -> None:
    battle = battle_of((UnitSpec("tac", "Tac", 50, 2, MARINE, (BOLTER,)),), GUARD_SQUAD)
    battle.execute(StartTurn(), "A", dice=[6])
    battle.execute(Move("tac", Speed.STATIONARY), "A")
    shot = Shoot("tac", "inf", "bolter", 10, half_range=True)
    seed = battle.command_seed("secret", shot, "A")
    battle.execute(shot, "A", seed=seed)
    first = battle.envelopes[-1].event
    battle.execute(Undo(), "A")  # it rolled dice: the opponent approves
    battle.execute(ApproveUndo(battle.match.undo_request.batch), "B")  # type: ignore[union-attr]
    assert battle.command_seed("secret", shot, "A") == seed
    battle.execute(shot, "A", seed=battle.command_seed("secret", shot, "A"))
    assert battle.envelopes[-1].event == first
    # the next shot of the squad is another roll: another seed
    assert battle.command_seed("secret", shot, "A") != seed
    assert replayed(battle).state == battle.state


GUARD_SQUAD = (UnitSpec("inf", "Guard", 60, 6, GUARD),)


# -- start of turn: regeneration and poison ----------------------------------------------------


def test_poison_and_regeneration_at_the_start_of_turns() -> None:
    battle = battle_of(
        (UnitSpec("snip", "Snipers", 50, 1, MARINE, (NEEDLE,)),),
        (UnitSpec("ogr", "Ogryns", 90, 2, OGRYN),),
    )
    battle.execute(StartTurn(), "A", dice=[6])  # day breaks on a 6 in round 1 [L950]
    battle.execute(Move("snip", Speed.STATIONARY), "A")
    # to hit 6; poisoned 4+ wounds on 4 [L665]; save 5+ fails on 1: the first Ogryn loses 1 W
    battle.execute(Shoot("snip", "ogr", "needle", 10), "A", dice=[6, 4, 1])
    ogr = battle.state.units["ogr"]
    assert (ogr.models, ogr.wounds_taken, ogr.poisoned) == (2, 1, True)
    battle.execute(EndActivation("snip"), "A")
    battle.execute(EndPhase(), "A")
    battle.execute(EndPhase(), "A")
    # B's turn: regeneration 4 (< 5+: no W back); poison T test 6 fails: 1 W, no save
    battle.execute(StartTurn(), "B", dice=[4, 6])
    ogr = battle.state.units["ogr"]
    assert (ogr.models, ogr.wounds_taken, ogr.poisoned) == (2, 2, True)
    battle.execute(EndPhase(), "B")
    battle.execute(EndPhase(), "B")
    # A's turn 2: only the poison test (regeneration is the owner's turn): 3 <= T5 passes
    battle.execute(StartTurn(), "A", dice=[3])
    assert battle.state.units["ogr"].wounds_taken == 2
    battle.execute(EndPhase(), "A")
    battle.execute(EndPhase(), "A")
    # B's turn 2: regeneration 5 gives 1 W back (2 -> 1); the poison test 6 takes it again
    battle.execute(StartTurn(), "B", dice=[5, 6])
    assert battle.state.units["ogr"].wounds_taken == 2
    battle.execute(EndPhase(), "B")
    battle.execute(EndPhase(), "B")
    # A's turn 3: the poison test fails once more: the third W, the model dies, poison gone
    battle.execute(StartTurn(), "A", dice=[6])
    ogr = battle.state.units["ogr"]
    assert (ogr.models, ogr.wounds_taken, ogr.poisoned) == (1, 0, False)
    assert replayed(battle).state == battle.state


# -- transports ------------------------------------------------------------------------------


def transport_battle(rhino_a: dict[str, Any] = RHINO) -> PenBattle:
    return battle_of(
        (
            UnitSpec("tac", "Tac", 50, 2, MARINE, (BOLTER,)),
            UnitSpec("rhino-a", "Rhino", 50, 1, rhino_a, capacity=10),
        ),
        (
            UnitSpec("rhino", "Rhino", 60, 1, RHINO, capacity=10),
            UnitSpec("in-vet", "Veterans", 30, 3, MARINE, (BOLTER,)),
        ),
    )


def test_disembark_after_the_transport_moved_counts_as_a_normal_move() -> None:
    battle = transport_battle()
    assert battle.state.units["in-vet"].place is Place.EMBARKED
    battle.execute(StartTurn(), "A", dice=[1])
    battle.execute(EndPhase(), "A")
    battle.execute(EndPhase(), "A")
    battle.execute(StartTurn(), "B")
    battle.execute(Move("rhino", Speed.NORMAL, 6), "B")
    battle.execute(Disembark("in-vet"), "B")  # at the end of the transport's move [L282]
    vet = battle.state.units["in-vet"]
    assert (vet.place, vet.speed, vet.activated, vet.transport) == (
        Place.TABLE,
        Speed.NORMAL,
        True,
        None,
    )
    battle.execute(EndActivation("rhino"), "B")
    with pytest.raises(Refusal) as err:
        battle.execute(Move("in-vet", Speed.NORMAL, 6), "B")
    assert err.value.code == "already_moved"  # they cannot move, they may shoot
    with pytest.raises(Refusal) as err:
        battle.execute(Embark("in-vet", "rhino"), "B")
    assert err.value.code == "once_per_turn"  # embark or disembark, once a turn [L277]
    battle.execute(Shoot("in-vet", "tac", "bolter", 10, half_range=True), "B", seed=4)
    assert replayed(battle).state == battle.state


def test_disembark_before_the_move_forbids_the_transport_a_rapid_move() -> None:
    battle = transport_battle()
    battle.execute(StartTurn(), "A", dice=[1])
    battle.execute(EndPhase(), "A")
    battle.execute(EndPhase(), "A")
    battle.execute(StartTurn(), "B")
    battle.execute(Disembark("in-vet", emergency=True), "B")
    vet = battle.state.units["in-vet"]
    assert not vet.activated
    assert battle.state.gone_to_ground(vet)
    with pytest.raises(Refusal) as err:
        battle.execute(Move("rhino", Speed.RAPID, 12), "B")
    assert err.value.code == "no_rapid_move"  # [L279]
    battle.execute(Move("rhino", Speed.NORMAL, 6), "B")


def test_a_transport_carries_its_capacity_only() -> None:
    battle = battle_of(
        (UnitSpec("tac", "Tac", 50, 2, MARINE, (BOLTER,)),),
        (
            UnitSpec("rhino", "Rhino", 60, 1, RHINO, capacity=4),
            UnitSpec("in-vet", "Veterans", 30, 3, MARINE),
            UnitSpec("inf", "Guard", 30, 2, GUARD),
        ),
    )
    battle.execute(StartTurn(), "A", dice=[1])
    battle.execute(EndPhase(), "A")
    battle.execute(EndPhase(), "A")
    battle.execute(StartTurn(), "B")
    with pytest.raises(Refusal) as err:
        battle.execute(Embark("inf", "rhino"), "B")  # 3 + 2 > 4 [L290]
    assert err.value.code == "transport_full"


# -- close combat: several squads, vehicles ------------------------------------------------------


def test_a_combat_of_three_squads_with_a_sweeping_advance() -> None:
    battle = battle_of(
        (UnitSpec("tac", "Tac", 50, 2, MARINE), UnitSpec("asl", "Assault", 50, 2, MARINE)),
        GUARD_SQUAD,
    )
    battle.execute(StartTurn(), "A", dice=[6])
    battle.execute(EndPhase(), "A")
    battle.execute(Charge("tac", "inf", 4), "A")
    battle.execute(Charge("asl", "inf", 5), "A")
    dice = [
        # I4: Tac, 2 models x (1 A + 1 charging) [L1234]: WS4 vs WS3 hits on 3+
        *[6, 6, 6, 6],
        *[6, 6, 1, 1],  # S4 vs T3 wounds on 3+: 2 wounds
        *[1, 1],  # two saves failed: 2 Guardsmen dead
        # I4 (same step): Assault, 4 attacks: 2 hits, 1 wound, 1 save failed
        *[6, 6, 1, 1],
        *[6, 1],
        1,
        # I3: the 3 Guardsmen left strike the first squad they are locked with (Assault):
        # WS3 vs WS4 hits on 4+, S3 vs T4 wounds on 5+, 3+ save fails on 1: 1 Marine dead
        *[4, 4, 1],
        *[5, 1],
        1,
        # result: B lost 3, A lost 1 [L1212]: Guard morale at Ld 7 - 2 = 5: 3 + 4 fails
        *[3, 4],
        # sweep: 3 + I4 (the best pursuer) = 7 against 2 + I3 = 5: caught, 2 more dead
        *[3, 2],
    ]
    battle.execute(Fight("tac", "inf"), "A", dice=dice)
    event = battle.envelopes[-1].event
    assert isinstance(event, CombatResolved)
    assert (event.winner, event.retreating, event.swept) == ("A", ("inf",), 2)
    units = battle.state.units
    assert (units["tac"].models, units["asl"].models, units["inf"].models) == (2, 1, 1)
    assert units["inf"].retreating
    assert not units["inf"].locked
    assert not units["tac"].locked
    assert not units["asl"].locked
    assert replayed(battle).state == battle.state


def test_pairings_choose_whom_each_squad_attacks() -> None:
    battle = battle_of(
        (UnitSpec("tac", "Tac", 50, 2, MARINE), UnitSpec("asl", "Assault", 50, 2, MARINE)),
        GUARD_SQUAD,
    )
    battle.execute(StartTurn(), "A", dice=[6])
    battle.execute(EndPhase(), "A")
    battle.execute(Charge("tac", "inf", 4), "A")
    battle.execute(Charge("asl", "inf", 5), "A")
    with pytest.raises(Refusal) as err:
        battle.execute(Fight("tac", "inf", assign=(Pairing("inf", "nobody"),)), "A", seed=1)
    assert err.value.code == "bad_pairing"
    # the Guard strike Tac now: its survivors' hits land on Tac, not on Assault
    dice = [*[1, 1, 1, 1], *[1, 1, 1, 1], *[4, 4, 4, 4, 4, 4], *[6, 6, 6, 6, 6, 6]]
    dice += [1] * 6 + [3, 3]  # six failed saves; Assault's morale at Ld 8 - 2 = 6 passes
    battle.execute(Fight("tac", "inf", assign=(Pairing("inf", "tac"),)), "A", dice=dice)
    units = battle.state.units
    assert (units["tac"].models, units["asl"].models, units["inf"].models) == (0, 2, 6)
    assert battle.envelopes[-1].event.winner == "B"  # type: ignore[attr-defined]
    assert units["asl"].locked == frozenset({"inf"})
    assert not units["asl"].retreating


def test_marines_destroy_a_transport_in_close_combat_and_its_passengers_get_out() -> None:
    battle = battle_of(
        (UnitSpec("tac", "Tac", 50, 2, MARINE),),
        (
            UnitSpec("rhino", "Rhino", 60, 1, RHINO, capacity=10),
            UnitSpec("in-vet", "Veterans", 30, 3, MARINE),
        ),
    )
    battle.execute(StartTurn(), "A", dice=[6])
    battle.execute(EndPhase(), "A")
    battle.execute(Charge("tac", "rhino", 4), "A")
    dice = [
        *[5, 3, 6, 3],  # 4 attacks (charging) against the Rhino: 4 hits
        # S4 + D6 against the rear armour 10 [L213]: 6, 6, 6 glance, 5 does nothing
        *[6, 6, 6, 5],
        *[1, 4],  # first glance: hull, damaged (1 hull point)
        *[2, 6],  # second: hull, heavily damaged (2nd hull point); the third: 3 of 3 lost
        # the passengers: one S5 anti-cover hit each [L1453], T4 wounds on 3+... 6, 6, 1
        *[6, 6, 1],
        *[1, 6],  # 3+ saves: one Veteran dies
    ]
    battle.execute(Fight("tac", "rhino", facing="rear"), "A", dice=dice)
    fought, hit = (e.event for e in battle.envelopes[-2:])
    assert isinstance(fought, CombatResolved)
    assert fought.winner == "A"
    assert isinstance(hit, PassengersHit)
    assert hit.models_left == 2
    units = battle.state.units
    assert units["rhino"].place is Place.DESTROYED
    assert units["rhino"].hp_lost == 3
    vet = units["in-vet"]
    assert (vet.place, vet.models, vet.transport) == (Place.TABLE, 2, None)
    assert not units["tac"].locked  # a vehicle without WS is never locked [L209]
    assert replayed(battle).state == battle.state


# -- the squad tokens of the aide-memoire ---------------------------------------------------------


def tokens_of(battle: PenBattle, unit: str) -> list[str]:
    view = battle.view("A")
    return next(u["tokens"] for u in view["units"] if u["id"] == unit)  # type: ignore[index,union-attr]


def test_squad_tokens_follow_the_aide_memoire() -> None:
    battle = transport_battle(RHINO | {"types": ["fast", "skimmer"]})  # 24 ps rapid [L1077]
    assert tokens_of(battle, "in-vet") == ["embarked"]
    battle.execute(StartTurn(), "A", dice=[1])
    battle.execute(Move("rhino-a", Speed.RAPID, 20), "A")  # M2: a move over 18 ps [L1486]
    assert tokens_of(battle, "rhino-a") == ["moved_over_18"]
    battle.execute(EndActivation("rhino-a"), "A")
    battle.execute(Move("tac", Speed.STATIONARY), "A")
    assert tokens_of(battle, "tac") == ["stationary"]
    battle.execute(EndActivation("tac"), "A")
    battle.execute(EndPhase(), "A")
    assert {"command": {"type": "charge", "unit": "tac"}, "needs": ["target", "distance"]} in (
        battle.legal_actions("A")
    )
    battle.execute(EndPhase(), "A")
    battle.execute(StartTurn(), "B")
    assert {"command": {"type": "disembark", "unit": "in-vet", "emergency": False}} in (
        battle.legal_actions("B")
    )


# -- ramming -------------------------------------------------------------------------------------


def ram_battle() -> PenBattle:
    battle = battle_of(
        (UnitSpec("rhino-a", "Rhino", 50, 1, RHINO), UnitSpec("tac", "Tac", 50, 2, MARINE)),
        (UnitSpec("inf", "Guard", 50, 5, GUARD), UnitSpec("rhino", "Rhino", 50, 1, RHINO)),
    )
    battle.execute(StartTurn(), "A", dice=[6])
    return battle


def test_a_rhino_rams_a_squad_then_a_vehicle_that_hits_back() -> None:
    battle = ram_battle()
    dice = [
        2,  # the Guard dodge on 5+ [L1016]: 2, hit
        *[3, 4],  # 2D6 = 7 hits for a vehicle rammer, at most the 5 Guardsmen [L1020]
        # S = front armour 11 - 5 = 6 [L1022] against T3: "2+ re": 6, 6, 6, 1 and 1
        # re-rolled into 1 and 1: 3 wounds; no cover; saves 5+: 6 holds, 1 and 1 fail
        *[6, 6, 6, 1, 1, 1, 1],
        *[6, 1, 1],
        *[6, 1],  # the Rhino cannot dodge: 2D6 = 7, one hit for its single model
        1,  # S6 + 1 = 7 against its side armour 11: nothing
        1,  # it hits back once at its own side 11 - 5 = 6 on the rammer's front: nothing
    ]
    battle.execute(
        Ram("rhino-a", 12, (RamTarget("inf"), RamTarget("rhino", "side"))), "A", dice=dice
    )
    event = battle.envelopes[-1].event
    assert isinstance(event, Rammed)
    assert event.dodged == ()
    assert [o.unit for o in event.squads] == ["inf", "rhino", "rhino-a"]
    assert battle.state.units["inf"].models == 3
    rammer = battle.state.units["rhino-a"]
    assert (rammer.speed, rammer.moved, rammer.rammed) == (Speed.RAPID, 12, True)
    assert "rammed" in tokens_of(battle, "rhino-a")
    with pytest.raises(Refusal) as err:
        battle.execute(Shoot("rhino-a", "inf", "none", 10), "A")
    assert err.value.code == "rammed"  # no shooting, no charge after a ram [L1012]
    assert replayed(battle).state == battle.state


def test_a_squad_that_dodges_takes_no_hit_and_infantry_cannot_ram() -> None:
    battle = ram_battle()
    with pytest.raises(Refusal) as err:
        battle.execute(Ram("tac", 6, (RamTarget("inf"),)), "A", dice=[1])
    assert err.value.code == "cannot_ram"
    battle.execute(Ram("rhino-a", 6, (RamTarget("inf"),)), "A", dice=[5])  # 5+: dodged
    event = battle.envelopes[-1].event
    assert isinstance(event, Rammed)
    assert (event.dodged, event.squads, event.speed) == (("inf",), (), Speed.NORMAL)
    assert battle.state.units["inf"].models == 5


# -- the alternation mode of §3.5 -----------------------------------------------------------------


def alternation_battle() -> PenBattle:
    a = ArmySpec(
        "A",
        "Alpha",
        (
            UnitSpec("tac", "Tac", 50, 2, MARINE, (BOLTER,)),
            UnitSpec("dev", "Dev", 50, 2, MARINE, (BOLTER,)),
        ),
    )
    b = ArmySpec(
        "B",
        "Beta",
        (UnitSpec("inf", "Guard", 50, 5, GUARD), UnitSpec("vet", "Vets", 50, 2, GUARD)),
    )
    setup = BattleSetup((a, b), points_limit=400, objectives=0, alternation=True)
    battle = PenBattle.create(setup)
    battle.execute(EndStep(), "A")
    battle.execute(EndStep(), "B")
    battle.execute(RollOff(), "A", dice=[6, 1])
    battle.execute(ChooseFirst("A"), "A")
    return battle


def play_still(battle: PenBattle, seat: str, unit: str) -> None:
    battle.execute(Move(unit, Speed.STATIONARY), seat)
    battle.execute(EndActivation(unit), seat)
    battle.execute(EndPhase(), seat)
    battle.execute(EndPhase(), seat)


def test_alternation_deploys_and_plays_one_squad_each_in_turn() -> None:
    battle = alternation_battle()
    battle.execute(Deploy("tac"), "A")
    with pytest.raises(Refusal) as err:
        battle.execute(Deploy("dev"), "A")  # one squad each in turn [L838]
    assert err.value.code == "not_your_turn"
    battle.execute(Deploy("inf"), "B")
    battle.execute(Deploy("dev"), "A")
    battle.execute(Deploy("vet"), "B")
    battle.execute(EndStep(), "A")
    battle.execute(EndStep(), "B")
    battle.execute(StartTurn(), "A", dice=[1])  # round 1 in the set-up's order; dawn 1
    battle.execute(Move("tac", Speed.NORMAL, 6), "A")  # Tac is the squad played [L842]
    battle.execute(EndActivation("tac"), "A")
    with pytest.raises(Refusal) as err:
        battle.execute(Move("dev", Speed.NORMAL, 6), "A")
    assert err.value.code == "one_squad"
    battle.execute(GoToGround("inf"), "B")  # B's squads react as in a player turn
    battle.execute(EndPhase(), "A")
    battle.execute(EndPhase(), "A")  # Tac is marked as played: B plays one squad
    assert battle.state.active_seat == "B"
    assert battle.state.units["tac"].activated
    play_still(battle, "B", "inf")
    with pytest.raises(Refusal) as err:
        battle.execute(EndPhase(), "A")
    assert err.value.code == "play_a_squad"
    with pytest.raises(Refusal) as err:
        battle.execute(Shoot("tac", "vet", "bolter", 10), "A", dice=[])
    assert err.value.code == "already_played"
    play_still(battle, "A", "dev")
    play_still(battle, "B", "vet")  # both have played everything: round 2
    assert (battle.state.round, battle.state.phase) == (2, Phase.START)
    # round 2: the D6 says who plays first [L840]: A 2, B 5: B; dawn 3 (3+): day
    battle.execute(StartTurn(), "A", dice=[2, 5, 3])
    assert (battle.state.first, battle.state.active_seat, battle.state.night) == ("B", "B", False)
    assert not battle.state.units["tac"].activated
    # gone to ground in round 1 lasts until the end of round 2 (the squad's next
    # activation at the latest [L845])
    assert battle.state.gone_to_ground(battle.state.units["inf"])
    for seat, unit in (("B", "vet"), ("A", "tac"), ("B", "inf"), ("A", "dev")):
        play_still(battle, seat, unit)
    battle.execute(StartTurn(), "B", dice=[4, 1])  # round 3: A 4 against B 1: A first
    assert battle.state.first == "A"
    assert not battle.state.gone_to_ground(battle.state.units["inf"])
    assert replayed(battle).state == battle.state


def test_logs_written_before_the_new_fields_still_replay() -> None:
    battle = transport_battle()
    battle.execute(StartTurn(), "A", dice=[6])
    battle.execute(Move("tac", Speed.STATIONARY), "A")
    battle.execute(Shoot("tac", "rhino", "bolter", 10, half_range=True), "A", seed=3)
    data = json.loads(battle.export_json())

    def strip(node: object) -> None:  # the fields this engine added, all optional
        if isinstance(node, dict):
            for key in ("alternation", "capacity", "poisoned"):
                node.pop(key, None)
            for value in node.values():
                strip(value)
        elif isinstance(node, list):
            for value in node:
                strip(value)

    strip(data)
    old = PenBattle.import_log(json.dumps(data))
    assert old.state.setup is not None
    assert not old.state.setup.alternation
    assert old.state.units["tac"] == battle.state.units["tac"]


# -- shooting into a melee ------------------------------------------------------------------------


LASGUN = WeaponSpec("lasgun", {"kind": "ranged", "type": "rapid fire", "shots": 1, "strength": 3})


def melee_battle() -> PenBattle:
    """Tac (A) locked with the Guard (B); B's Veterans are free to shoot, in B's turn."""
    battle = battle_of(
        (UnitSpec("tac", "Tac", 50, 2, MARINE),),
        (UnitSpec("inf", "Guard", 50, 5, GUARD), UnitSpec("vet", "Vets", 50, 2, GUARD, (LASGUN,))),
    )
    battle.execute(StartTurn(), "A", dice=[6])
    battle.execute(EndPhase(), "A")
    battle.execute(Charge("tac", "inf", 3), "A")
    battle.execute(Fight("tac", "inf"), "A", dice=[1] * 9)  # all miss: a draw, locked
    battle.execute(EndPhase(), "A")
    battle.execute(StartTurn(), "B")
    return battle


def test_shooting_into_a_melee_hits_friends_on_the_ones() -> None:
    battle = melee_battle()
    with pytest.raises(Refusal) as err:
        battle.execute(Shoot("vet", "tac", "lasgun", 10, friend="vet"), "B", dice=[])
    assert err.value.code == "bad_friend"
    dice = [
        *[3, 3],  # the morale test to shoot at a squad in melee [L1130]: 6 <= Ld 7
        # 4 lasgun shots; BS 3 - 1 (the Marines are not twice the Guard's 5 [L1132]) + 1
        # standing still [L1323], no range modifier [L1329]: 4+. 1, 1, 6, 2: one hit; and
        # the two 1s hit the Guard
        *[1, 1, 6, 2],
        *[5, 1],  # S3 vs T4 on 5+: wounds; the 3+ save fails: one Marine dies
        *[4, 1, 1],  # the two friendly hits, S3 vs T3 on 4+: one wound, 5+ save failed
    ]
    battle.execute(Shoot("vet", "tac", "lasgun", 10, half_range=True), "B", dice=dice)
    units = battle.state.units
    assert (units["tac"].models, units["inf"].models) == (1, 4)
    assert replayed(battle).state == battle.state


def test_a_squad_that_fails_its_test_does_not_shoot_into_the_melee() -> None:
    battle = melee_battle()
    battle.execute(Shoot("vet", "tac", "lasgun", 10), "B", dice=[6, 5])  # 11 > Ld 7
    assert battle.state.units["tac"].models == 2
    assert battle.state.active_unit == "vet"
    with pytest.raises(Refusal) as err:
        battle.execute(Shoot("vet", "tac", "lasgun", 10), "B", dice=[1, 1])
    assert err.value.code == "no_shooting"  # no second try
    battle.execute(EndActivation("vet"), "B")
    with pytest.raises(Refusal) as err:
        battle.execute(Shoot("inf", "tac", "lasgun", 10, friend="vet"), "B")
    assert err.value.code == "cannot_shoot"  # locked squads do not shoot


def test_the_charged_squad_has_the_charge_bonus_only_when_told_it_charged_too() -> None:
    battle = battle_of(
        (UnitSpec("tac", "Tac", 50, 2, MARINE),),
        (UnitSpec("inf", "Guard", 50, 5, GUARD), UnitSpec("vet", "Vets", 50, 2, GUARD, (LASGUN,))),
    )
    battle.execute(StartTurn(), "A", dice=[6])
    battle.execute(EndPhase(), "A")
    battle.execute(Charge("tac", "inf", 3), "A")
    fight = Fight("tac", "inf")

    def to_hit(decision: Any) -> int:
        rolls = [e.event.roll for e in decision.events if hasattr(e.event, "roll")]
        return sum(1 for r in rolls for d in r.dice if d.label == "to hit")

    # PEN: 2 Marines x (1 + 1 charging) and 5 Guardsmen x 1 [L1234]; all miss
    assert to_hit(decide(battle.state, fight, "A", Roller.from_values([1] * 9))) == 9
    # the Dynamics variant's mutual assault in one pass: 5 Guardsmen x (1 + 1) too [Dyn L96]
    both = decide(battle.state, fight, "A", Roller.from_values([1] * 14), defender_charged=True)
    assert to_hit(both) == 14


def big_melee_battle() -> PenBattle:
    """Ten Marines (A) locked with two Guardsmen (B): the Marines are twice the friends."""
    battle = battle_of(
        (UnitSpec("tac", "Tac", 50, 10, MARINE),),
        (UnitSpec("inf", "Guard", 50, 2, GUARD), UnitSpec("vet", "Vets", 50, 2, GUARD, (LASGUN,))),
    )
    battle.execute(StartTurn(), "A", dice=[6])
    battle.execute(EndPhase(), "A")
    battle.execute(Charge("tac", "inf", 3), "A")
    # 10 Marines x (1 + 1 charging) and 2 Guardsmen x 1: all 22 miss, a draw, still locked
    battle.execute(Fight("tac", "inf"), "A", dice=[1] * 22)
    battle.execute(EndPhase(), "A")
    battle.execute(StartTurn(), "B")
    return battle


def shoot_json(battle: PenBattle, dice: list[int]) -> None:
    command = {
        "type": "shoot",
        "unit": "vet",
        "target": "tac",
        "weapon": "lasgun",
        "range_inches": 10,
        "half_range": True,
    }
    battle.execute_json(command, "B", dice=dice)


def test_shooting_into_a_melee_at_twice_the_friends_drops_range_without_malus() -> None:
    battle = big_melee_battle()
    dice = [
        *[3, 3],  # the morale test to shoot at a squad in melee [L1130]: 6 <= Ld 7
        # 4 lasgun shots at half range; no -1 as the Marines are twice the two Guardsmen
        # [L1132], no +1 for the half range in a melee [L1329], +1 standing still [L1323]:
        # BS 4, 3+ (with the +1 for the range, 2+: the 2s would hit). 2, 2, 3, 1: one hit,
        # and the 1 hits the Guard
        *[2, 2, 3, 1],
        *[5, 1],  # S3 vs T4 on 5+: wounds; the 3+ save fails: one Marine dies
        *[4, 1],  # the friendly hit, S3 vs T3 on 4+: a wound, the 5+ save fails
    ]
    shoot_json(battle, dice)
    units = battle.state.units
    assert (units["tac"].models, units["inf"].models) == (9, 1)
    assert replayed(battle).state == battle.state


def test_shooting_into_a_melee_under_twice_the_friends_takes_the_malus_by_json() -> None:
    battle = melee_battle()
    dice = [
        *[3, 3],  # the morale test [L1130]
        # 4 shots at half range, BS 3 - 1 (two Marines are not twice five Guardsmen
        # [L1132]) + 1 standing still [L1323], no +1 for the range [L1329]: 4+.
        # 2, 3, 4, 6: two hits (without the -1, 3+: three)
        *[2, 3, 4, 6],
        *[5, 5, 1, 2],  # S3 vs T4 on 5+: two wounds; both 3+ saves fail: the squad is gone
    ]
    shoot_json(battle, dice)
    assert battle.state.units["tac"].models == 0
    assert battle.state.units["inf"].models == 5  # no 1: no friendly hit
    assert replayed(battle).state == battle.state


# -- dangerous terrain -----------------------------------------------------------------------------


def terrain_battle() -> PenBattle:
    battle = battle_of(
        (UnitSpec("tac", "Tac", 50, 3, MARINE), UnitSpec("rhino-a", "Rhino", 50, 1, RHINO)),
        GUARD_SQUAD,
    )
    battle.execute(StartTurn(), "A", dice=[6])
    return battle


def test_dangerous_terrain_wounds_at_ap4_and_the_armour_save_counts() -> None:
    battle = terrain_battle()
    # one test per model: 1, 4, 6; the 1 is a wound at PA4 [L728]: the 3+ save, 2: fails
    battle.execute(Move("tac", Speed.NORMAL, 6, dangerous=True), "A", dice=[1, 4, 6, 2])
    assert battle.state.units["tac"].models == 2


def test_dangerous_and_difficult_terrain_wounds_at_ap2_without_save() -> None:
    battle = terrain_battle()
    move = Move("tac", Speed.NORMAL, 6, difficult=True, dangerous=True)
    battle.execute(move, "A", dice=[1, 1, 6])  # PA2 beats the 3+ save: two Marines die
    assert battle.state.units["tac"].models == 1


def test_a_vehicle_failing_a_dangerous_terrain_test_takes_a_glancing_damage() -> None:
    battle = terrain_battle()
    # the 1 is a glancing damage [L729]: location 1D6 + 1 = 3 + 1: hull; 4 - 2 (glancing):
    # "Endommagé": +1 to later damage rolls, and a hull point
    battle.execute(Move("rhino-a", Speed.RAPID, 12, dangerous=True), "A", dice=[1, 3, 4])
    rhino = battle.state.units["rhino-a"]
    assert (rhino.hp_lost, rhino.damage_bonus, rhino.immobilised) == (1, 1, False)
    assert replayed(battle).state == battle.state


def test_difficult_terrain_shortens_the_move() -> None:
    battle = terrain_battle()
    # 4 ps inside difficult terrain: two started 3 ps segments, -2 ps of 6 [L723]
    with pytest.raises(Refusal) as err:
        battle.execute(Move("tac", Speed.NORMAL, 5, difficult_inches=4), "A")
    assert err.value.code == "too_far"
    # very difficult: -2 ps a segment, -4 ps [L724]
    with pytest.raises(Refusal) as err:
        battle.execute(Move("tac", Speed.NORMAL, 4, difficult_inches=4, very_difficult=True), "A")
    assert err.value.code == "too_far"
    battle.execute(Move("tac", Speed.NORMAL, 4, difficult_inches=4), "A")
    assert battle.state.units["tac"].moved == 4


def test_a_ground_vehicle_in_difficult_terrain_at_a_rapid_move_tests() -> None:
    battle = terrain_battle()
    battle.execute(Move("rhino-a", Speed.RAPID, 12, difficult=True), "A", dice=[6])  # [L198]
    rolled = battle.envelopes[-1].event.roll.dice  # type: ignore[attr-defined]
    assert [d.label for d in rolled] == ["dangerous terrain rhino-a #1"]


# -- accident ------------------------------------------------------------------------------------

BIKE: dict[str, Any] = GUARD | {"toughness": 4, "wounds": 2, "save": 3, "unit_type": "moto"}


def test_a_wounded_bike_takes_an_accident_test_at_the_end_of_the_enemy_fire() -> None:
    battle = battle_of(
        (UnitSpec("tac", "Tac", 50, 2, MARINE, (BOLTER,)),),
        (UnitSpec("bikes", "Bikes", 60, 2, BIKE),),
    )
    battle.execute(StartTurn(), "A", dice=[6])
    battle.execute(Move("tac", Speed.STATIONARY), "A")
    shot = Shoot("tac", "bikes", "bolter", 20)
    # 2 shots at 2+: 6 and 1, one hit; S4 against T4 + 1 (bike [L156]) wounds on 5+: 5;
    # the 3+ save fails on 1: the first bike loses 1 W of 2
    battle.execute(shot, "A", dice=[6, 1, 5, 1])
    assert battle.state.units["bikes"].wounds_taken == 1
    # the bike lost a single W: the lower of 2D6 (1 and 4) is 1, a dangerous terrain
    # wound at PA4 [L1160], [L728]: the 3+ save at 2 fails, the second W: the bike falls
    battle.execute(EndActivation("tac"), "A", dice=[1, 4, 2])
    bikes = battle.state.units["bikes"]
    assert (bikes.models, bikes.wounds_taken) == (1, 0)
    assert replayed(battle).state == battle.state


def test_charged_squads_in_cover_strike_first_in_a_multi_squad_combat() -> None:
    battle = battle_of(
        (UnitSpec("tac", "Tac", 50, 2, MARINE), UnitSpec("asl", "Assault", 50, 2, MARINE)),
        GUARD_SQUAD,
    )
    battle.execute(StartTurn(), "A", dice=[6])
    battle.execute(EndPhase(), "A")
    battle.execute(Charge("tac", "inf", 4), "A")
    battle.execute(Charge("asl", "inf", 5), "A")
    # the Guard were in cover when charged: I10 [L1183], before the Marines' I4. Their 6
    # attacks go to Assault (their first enemy): 4+ to hit: 4, 4; S3 vs T4 on 5+: 5, 5; the
    # 3+ saves fail: Assault is wiped out before it strikes
    dice = [4, 4, 1, 1, 1, 1, 5, 5, 1, 1]
    dice += [1, 1, 1, 1]  # I4: Tac's 4 attacks miss
    dice += [3, 3]  # B won by 2: Tac's morale at Ld 8 - 2 = 6 passes
    battle.execute(Fight("tac", "inf", target_in_cover=True), "A", dice=dice)
    units = battle.state.units
    assert (units["asl"].models, units["tac"].models, units["inf"].models) == (0, 2, 6)
    assert battle.envelopes[-1].event.winner == "B"  # type: ignore[attr-defined]
    assert units["tac"].locked == frozenset({"inf"})


def test_a_walker_stays_locked_and_is_hit_on_the_facing_stated() -> None:
    walker = RHINO | {"ws": 4, "types": ["walker"], "armour": {"front": 12, "side": 12, "rear": 10}}
    battle = battle_of(
        (UnitSpec("tac", "Tac", 50, 2, MARINE),), (UnitSpec("dread", "Walker", 90, 1, walker),)
    )
    battle.execute(StartTurn(), "A", dice=[6])
    battle.execute(EndPhase(), "A")
    battle.execute(Charge("tac", "dread", 4), "A")
    # 4 attacks (charging), all hit; S4 + D6 against the rear 10: only the 6 glances; its
    # location 1 (hull), damage 4 - 2 (glancing) = 2: "Endommagé", a hull point
    dice = [6, 6, 6, 6, 6, 1, 1, 1, 1, 4]
    battle.execute(Fight("tac", "dread", facing="rear"), "A", dice=dice)
    dread = battle.state.units["dread"]
    assert (dread.hp_lost, dread.damage_bonus) == (1, 1)
    assert dread.locked == frozenset({"tac"})  # a walker has a WS: it stays in the combat


# -- out of control --------------------------------------------------------------------------------

LASCANNON = WeaponSpec(
    "lascannon", {"kind": "ranged", "type": "heavy", "shots": 1, "strength": 9, "ap": 2}
)


def test_a_crashed_vehicle_rams_first_then_is_immobilised() -> None:
    battle = battle_of(
        (UnitSpec("dev", "Dev", 50, 1, MARINE, (LASCANNON,)),),
        (UnitSpec("rhino", "Rhino", 50, 1, RHINO), UnitSpec("inf", "Guard", 50, 5, GUARD)),
    )
    battle.execute(StartTurn(), "A", dice=[6])
    battle.execute(Move("dev", Speed.STATIONARY), "A")
    # hit 4, penetration 3 (S9 + 3 > 11), hull row 6, damage 5: "Crash violent" [L1452]
    shot = Shoot("dev", "rhino", "lascannon", 20, facing="side")
    battle.execute(shot, "A", dice=[4, 3, 6, 5])
    assert battle.state.units["rhino"].out_of_control
    assert "out_of_control" in tokens_of(battle, "rhino")
    battle.execute(EndActivation("dev"), "A")
    battle.execute(EndPhase(), "A")
    battle.execute(EndPhase(), "A")
    battle.execute(StartTurn(), "B")
    with pytest.raises(Refusal) as err:
        battle.execute(Move("inf", Speed.NORMAL, 6), "B")
    assert err.value.code == "out_of_control_first"  # played first [L995]
    with pytest.raises(Refusal) as err:
        battle.execute(Move("rhino", Speed.NORMAL, 6), "B")
    assert err.value.code == "must_ram"
    # the scatter die shows an arrow (4): its rapid move, here 10 ps, straight on
    with pytest.raises(Refusal) as err:  # a hit face (2): its normal move, 6 ps at most
        battle.execute(Ram("rhino", 10), "B", dice=[2])
    assert err.value.code == "too_far"
    battle.execute(Ram("rhino", 10), "B", dice=[4])
    battle.execute(EndActivation("rhino"), "B")
    battle.execute(EndPhase(), "B")  # the end of its movement phase: immobilised [L1452]
    rhino = battle.state.units["rhino"]
    assert (rhino.out_of_control, rhino.immobilised) == (False, True)
    assert replayed(battle).state == battle.state


def test_a_stunned_vehicle_out_of_control_still_rams() -> None:
    battle = ram_battle()
    rhino = battle.state.units["rhino-a"]
    state = battle.state.with_unit(dc_replace(rhino, stunned=True, out_of_control=True))
    with pytest.raises(Refusal) as err:
        decide(state, Move("tac", Speed.NORMAL, 6), "A", Roller.from_values([]))
    assert err.value.code == "out_of_control_first"
    decision = decide(state, Ram("rhino-a", 5), "A", Roller.from_values([4]))
    assert any(isinstance(e.event, Rammed) for e in decision.events)
    # a stunned vehicle that is not out of control does not ram
    state = battle.state.with_unit(dc_replace(rhino, stunned=True))
    with pytest.raises(Refusal) as err:
        decide(state, Ram("rhino-a", 5), "A", Roller.from_values([]))
    assert err.value.code == "immobilised"
