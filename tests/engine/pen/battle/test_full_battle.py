"""A whole PEN battle through ``PenBattle.execute_json``, the dice given by hand, the state
checked at each key point against numbers worked out from the seed's tables (comments):
reserves (deep strike and standard), night then dawn, a transport destroyed with its
passengers hit, shooting and morale, a charge, a combat of three squads with a sweeping
advance, consolidation, the game-length rolls after rounds 5 and 6, the victory points; then
the log exported, re-imported and replayed to the same state, and the two seats' views."""

from typing import Any

from app.engine.pen.battle import ArmySpec, BattleSetup, PenBattle, Place, Stage, UnitSpec
from app.engine.pen.battle import WeaponSpec as W
from app.engine.pen.battle.events import CombatResolved, PassengersHit
from tests.engine.pen.battle.profiles import GUARD, MARINE

CHIMERA: dict[str, Any] = {"armour": {"front": 11, "side": 11, "rear": 10}, "hull_points": 3}
BOLTER = W("bolter", {"kind": "ranged", "type": "rapid fire", "shots": 1, "strength": 4, "ap": 5})
LASGUN = W("lasgun", {"kind": "ranged", "type": "rapid fire", "shots": 1, "strength": 3})
LASCANNON = W("lascannon", {"kind": "ranged", "type": "heavy", "shots": 1, "strength": 9, "ap": 2})


def setup() -> BattleSetup:
    marines = ArmySpec(
        "A",
        "Marines",
        (
            UnitSpec("tac", "Tactical", 100, 3, MARINE, (BOLTER,), troops=True),
            UnitSpec("dev", "Devastator", 60, 1, MARINE, (LASCANNON,)),
            UnitSpec(
                "asl", "Assault", 80, 2, MARINE | {"rules": ["Frappe en profondeur"]}, (BOLTER,)
            ),
        ),
    )
    guard = ArmySpec(
        "B",
        "Guard",
        (
            UnitSpec("inf", "Infantry", 40, 4, GUARD, (LASGUN,), troops=True),
            UnitSpec("chimera", "Chimera", 60, 1, CHIMERA, capacity=10),
            UnitSpec("crew", "Squad", 30, 3, GUARD, (LASGUN,)),
            UnitSpec("vet", "Veterans", 50, 2, GUARD, (LASGUN,)),
        ),
    )
    return BattleSetup((marines, guard), points_limit=250, objectives=1)


class Game:
    def __init__(self) -> None:
        self.battle = PenBattle.create(setup())

    def __call__(
        self, who: str, kind: str, dice: list[int] | None = None, /, **fields: Any
    ) -> None:
        self.battle.execute_json({"type": kind, **fields}, who, dice=dice or [])

    def unit(self, unit: str) -> Any:
        return self.battle.state.units[unit]

    def models(self, *units: str) -> tuple[int, ...]:
        return tuple(self.unit(u).models for u in units)

    def quiet_turn(self, seat: str, game_length: list[int] | None = None) -> None:
        self(seat, "start_turn")
        self(seat, "end_phase")
        self(seat, "end_phase", game_length)


def test_a_full_pen_battle_by_hand() -> None:
    g = Game()
    battle = g.battle
    # -- set-up: reserves, roll-off, deployment (the Squad inside its Chimera) -----------
    g("A", "declare_reserve", unit="asl", mode="deep_strike")
    g("B", "declare_reserve", unit="vet")
    g("A", "end_step")
    g("B", "end_step")
    g("A", "roll_off", [4, 2])  # 4 against 2: A chooses [L832]
    g("A", "choose_first", seat="A")
    g("A", "deploy", unit="tac")
    g("A", "deploy", unit="dev")
    g("A", "end_step")
    g("B", "deploy", unit="inf")
    g("B", "deploy", unit="chimera")
    g("B", "embark", unit="crew", transport="chimera")
    g("B", "end_step")
    assert battle.state.stage is Stage.BATTLE
    assert g.unit("crew").place is Place.EMBARKED

    # -- round 1, Marines ----------------------------------------------------------------
    g("A", "start_turn", [3, 2])  # dawn on a 6 in round 1: 3, still night [L950]; asl 2 < 5+
    assert battle.state.night
    assert g.unit("asl").place is Place.RESERVE
    g("A", "move", unit="dev", speed="stationary")
    # lascannon at the Chimera's side: hit 6, penetration 6 (S9 + 6 > 11), hull row 1,
    # damage 6: "Détruit" [L1453]; the 3 passengers take an S5 anti-cover hit each:
    # T3 wounds 6, 6, 1; saves 5+ at 1 (fails) and 5 (holds): one Guardsman dies
    g(
        "A",
        "shoot",
        [6, 6, 1, 6, 6, 6, 1, 1, 5],
        unit="dev",
        target="chimera",
        weapon="lascannon",
        range_inches=12,
        facing="side",
    )
    assert g.unit("chimera").place is Place.DESTROYED
    hit = battle.envelopes[-1].event
    assert isinstance(hit, PassengersHit)
    assert (g.unit("crew").place, g.unit("crew").models) == (Place.TABLE, 2)
    g("A", "end_activation", unit="dev")
    g("A", "move", unit="tac", speed="normal", inches=6)
    # 3 Marines, rapid fire at half range: 6 shots at BS4 + 1 (half range) = 2+; 3 hit,
    # S4 vs T3 wounds on 3+: 2 wounds, 2 saves failed: Infantry 4 -> 2
    g(
        "A",
        "shoot",
        [6, 6, 6, 1, 1, 1, 6, 6, 1, 1, 1],
        unit="tac",
        target="inf",
        weapon="bolter",
        range_inches=10,
        half_range=True,
    )
    assert g.models("inf") == (2,)
    # half the squad lost to one squad's fire: morale at Ld 7 - 1: 3 + 2 passes [L1164]
    g("A", "end_activation", [3, 2], unit="tac")
    assert not g.unit("inf").retreating
    g("A", "end_phase")
    g("A", "charge", unit="tac", target="inf", distance=5)
    # 3 Marines x (1 + 1 charging) attacks then 2 Guardsmen: all miss, a draw: locked
    g("A", "fight", [1] * 8, unit="tac", target="inf")
    assert g.unit("tac").locked == frozenset({"inf"})
    g("A", "end_phase")

    # -- round 1, Guard ------------------------------------------------------------------
    g("B", "start_turn", [6])  # the Veterans arrive on 6 (5+ in turn 1 [L860])
    assert g.unit("vet").place is Place.AVAILABLE
    g("B", "arrive", unit="vet", inches=6)
    g("B", "end_activation", unit="vet")
    g("B", "move", unit="crew", speed="normal", inches=4)
    g("B", "end_activation", unit="crew")
    g("B", "end_phase")
    g("B", "charge", unit="crew", target="tac", distance=3)  # three squads in one combat
    dice = [
        # I4: Tac (3 attacks, not charging) at the Squad (its first enemy): 3 hits on 3+,
        # wounds 6, 6, 1 on 3+, two saves failed: the Squad is wiped out before striking
        *[6, 6, 6, 6, 6, 1, 1, 1],
        # I3: the 2 Infantry strike Tac: hits on 4+: 4, 4; S3 vs T4 wounds on 5+: 5, 1;
        # the 3+ save fails on 1: one Marine dies
        *[4, 4, 5, 1, 1],
        # B lost 2 models, A 1 [L1212]: Infantry tests at Ld 7 - 1: 4 + 4 fails
        *[4, 4],
        # sweep: 3 + I4 = 7 against 1 + I3 = 4: caught, 1 more casualty (the gap) [L1258]
        *[3, 1],
    ]
    g("B", "fight", dice, unit="crew", target="tac")
    fought = battle.envelopes[-1].event
    assert isinstance(fought, CombatResolved)
    assert (fought.winner, fought.retreating, fought.swept) == ("A", ("inf",), 1)
    assert g.models("tac", "inf", "crew") == (2, 1, 0)
    assert g.unit("inf").retreating
    assert not g.unit("tac").locked
    g("A", "consolidate", unit="tac", inches=3)  # the winner consolidates [L1260]
    g("B", "end_phase")

    # -- round 2: dawn, the deep strike ---------------------------------------------------
    g("A", "start_turn", [4, 5])  # dawn on 3+ in round 2: day; asl 5 >= 4+: arrives
    assert not battle.state.night
    g("A", "arrive", [1], unit="asl", inches=0)  # scatter die 1: a hit face, no scatter
    assert g.unit("asl").on_table
    g("A", "end_activation", unit="asl")
    # 2 Marines, stationary at half range: BS 4 + 2 = 6, "2+ re" [L1305]: 6 then three 1s
    # re-rolled into 1s: 1 hit, wound 6, save 1: the last Guardsman of Infantry falls
    g(
        "A",
        "shoot",
        [6, 1, 1, 1, 1, 1, 1, 6, 1],
        unit="tac",
        target="inf",
        weapon="bolter",
        range_inches=8,
        half_range=True,
    )
    assert g.unit("inf").place is Place.DESTROYED
    g("A", "end_activation", unit="tac")
    g("A", "end_phase")
    g("A", "end_phase")
    g.quiet_turn("B")
    for _ in (3, 4):
        g.quiet_turn("A")
        g.quiet_turn("B")
    # -- rounds 5 and 6: the game length [L826] -------------------------------------------
    g.quiet_turn("A")
    g.quiet_turn("B", [4])  # after round 5: 4 >= 3+, the game goes on
    assert (battle.state.round, battle.state.stage) == (6, Stage.BATTLE)
    g.quiet_turn("A")
    g.quiet_turn("B", [2])  # after round 6: 2 < 5+, it ends
    assert battle.state.stage is Stage.SCORING
    g("A", "report_control", objective="objective-1", seat="A")
    # kill points [L818]: Chimera 60 + Squad 30 + Infantry 40 = 130 for A; Tactical lost 1
    # of 3 (under half): nothing for B; the objective is worth 250 / 10 = 25 [L821]
    assert battle.state.stage is Stage.ENDED
    assert dict(battle.state.result) == {"A": 155, "B": 0}
    status = battle.status()
    assert (status.stage, status.winner, dict(status.scores)) == ("ended", "A", {"A": 155, "B": 0})

    # -- the log: exported, re-imported, replayed -------------------------------------------
    again = PenBattle.import_log(battle.export_log())
    assert again.state == battle.state
    assert again.version == battle.version
    assert PenBattle.import_log(battle.export_json()).state == battle.state
    assert all(row["ok"] is None for row in battle.audit())  # dice by hand: not auditable
    # -- nothing is secret in PEN: both seats read the same log and the same table ----------
    assert battle.log_json("A") == battle.log_json("B") == battle.log_json(None)
    view_a, view_b = battle.view("A"), battle.view("B")
    for view in (view_a, view_b):
        view.pop("viewer")
    assert view_a == view_b
