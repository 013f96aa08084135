"""Before the first turn, with dice given by hand: roles, first turn, hidden deployment,
preliminary bombardment, dawn raid."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.engine.narrative8e.pack import MissionPack, Side
from app.engine.narrative8e.setup import (
    BombardmentTarget,
    DeploymentPhase,
    HiddenDeployment,
    NarrativeError,
    Player,
    choose_roles,
    dawn_raid_modifier,
    first_turn,
    iron_discipline,
    preliminary_bombardment,
)
from app.engine.roller import Roller


def test_higher_value_attacks_without_dice(pack: MissionPack) -> None:
    """[L125]: the army worth more should be the Attacker."""
    choice = choose_roles(pack.mission("meat-grinder"), 1000, 1005, Roller.from_values([]))
    assert (choice.attacker, choice.defender, choice.reason) == (Player.B, Player.A, "higher")


def test_equal_values_roll_off_and_ties_are_rolled_again(pack: MissionPack) -> None:
    """[L125] a roll-off; ties re-rolled (rulings A4)."""
    choice = choose_roles(pack.mission("blitz"), 1500, 1500, Roller.from_values([4, 4, 2, 5]))
    assert choice.reason == "roll_off"
    assert choice.attacker is Player.B
    assert choice.roll_off is not None
    assert choice.roll_off.rolls == ((4, 4), (2, 5))


def test_patrol_ratio_is_four_thirds(pack: MissionPack) -> None:
    """[L265]: at least a third more (rulings A3: high >= low x 4/3)."""
    patrol = pack.mission("patrol")
    assert choose_roles(patrol, 1200, 900, Roller.from_values([])).reason == "ratio"  # exactly 4/3
    close = choose_roles(patrol, 1199, 900, Roller.from_values([1, 6]))
    assert (close.reason, close.attacker) == ("roll_off", Player.B)


def test_meat_grinder_first_turn_on_the_attackers_d6(pack: MissionPack) -> None:
    """[L143]: 1-3 the Attacker, 4-6 the Defender."""
    mg = pack.mission("meat-grinder")
    assert first_turn(mg, Roller.from_values([3])).first is Side.ATTACKER
    assert first_turn(mg, Roller.from_values([4])).first is Side.DEFENDER


def test_patrol_first_turn_roll_off_winner_chooses_and_known_ground_keeps_the_best(
    pack: MissionPack,
) -> None:
    """[L279] roll off, re-roll ties, the winner chooses; [L327] Known Ground: 2 dice, best."""
    patrol = pack.mission("patrol")
    r = first_turn(patrol, Roller.from_values([3, 3, 2, 5]), roll_off_winner_goes_first=False)
    assert (r.chosen_by, r.first, r.dice) == (Side.DEFENDER, Side.ATTACKER, (3, 3, 2, 5))
    r = first_turn(patrol, Roller.from_values([5, 2, 6]), known_ground=Side.DEFENDER)
    assert (r.chosen_by, r.first) == (Side.DEFENDER, Side.DEFENDER)


def test_lightning_reaction_steals_the_first_turn_on_a_six(pack: MissionPack) -> None:
    """[L247]."""
    ambush = pack.mission("ambush")
    assert first_turn(ambush, Roller.from_values([6]), lightning_reaction=True).stolen
    assert (
        first_turn(ambush, Roller.from_values([5]), lightning_reaction=True).first is Side.ATTACKER
    )


def deployed(pack: MissionPack, mission: str = "meat-grinder") -> HiddenDeployment:
    hd = HiddenDeployment.for_mission(pack.mission(mission)).add_decoys(2)
    return hd.place(
        ["u-guard", "u-tank", "u-squad"],
        {"t1": "u-guard", "t2": None, "t3": "u-tank", "t4": None},
        embarked=["u-squad"],
    )


def test_hidden_deployment_decoys_forced_reveal_and_reveal(pack: MissionPack) -> None:
    """[L50-L52] one token per unit, none for embarked units; [L177] 2 decoys; [L167] Spies."""
    hd = deployed(pack)
    assert hd.deployer is Side.DEFENDER
    assert hd.phase is DeploymentPhase.PLACED
    hd = hd.force_reveal("t3")
    assert hd.public_view()["tokens"] == [
        {"token": "t1"},
        {"token": "t2"},
        {"token": "t3", "unit": "u-tank", "decoy": False, "forced": True},
        {"token": "t4"},
    ]
    hd = hd.reveal_all()
    assert [(r.token, r.unit) for r in hd.revealed] == [
        ("t3", "u-tank"),
        ("t1", "u-guard"),
        ("t2", None),
        ("t4", None),
    ]
    with pytest.raises(NarrativeError, match="only after all tokens are placed"):
        hd.force_reveal("t1")


def test_ambush_reverses_hidden_deployment(pack: MissionPack) -> None:
    """[L205]: the Attacker uses tokens."""
    assert HiddenDeployment.for_mission(pack.mission("ambush")).deployer is Side.ATTACKER
    with pytest.raises(NarrativeError, match="does not use hidden deployment"):
        HiddenDeployment.for_mission(pack.mission("patrol"))


def test_token_mistakes_are_all_reported(pack: MissionPack) -> None:
    hd = HiddenDeployment.for_mission(pack.mission("blitz"))
    with pytest.raises(NarrativeError) as err:
        hd.place(["a", "b", "c"], {"t1": "a", "t2": "a", "t3": "c", "t4": None}, embarked=["c"])
    text = str(err.value)
    assert "unit 'a' has 2 tokens" in text
    assert "unit 'b' has no token" in text
    assert "unit 'c' is embarked" in text
    assert "1 decoys, but only 0 allowed" in text


@given(
    units=st.lists(st.integers(0, 10**6), min_size=1, max_size=12, unique=True),
    decoys=st.integers(0, 2),
    forced=st.integers(0, 20),
)
def test_public_view_never_holds_an_unrevealed_unit(
    units: list[int], decoys: int, forced: int
) -> None:
    """Before its reveal, no token's unit ever appears in what the opponent sees."""
    names = [f"UNIT-{u}" for u in units]
    tokens: dict[str, str | None] = {f"tok{i}": n for i, n in enumerate(names)}
    tokens.update({f"tok{len(names) + j}": None for j in range(decoys)})
    hd = HiddenDeployment(deployer=Side.DEFENDER, decoys_allowed=decoys).place(names, tokens)
    before = json.dumps(hd.public_view())
    assert "UNIT-" not in before
    assert "decoy" not in before
    opened = f"tok{forced % len(tokens)}"
    hd = hd.force_reveal(opened)
    view = json.dumps(hd.public_view())
    hidden = [n for t, n in tokens.items() if n is not None and t != opened]
    assert not any(f'"{n}"' in view for n in hidden)
    assert json.dumps(hd.reveal_all().public_view()).count("UNIT-") == len(names)


def test_bombardment_hits_on_six_and_grounded_infantry_take_d3(pack: MissionPack) -> None:
    """[L64]: a 6 hits for D6 mortal wounds; INFANTRY gone to ground D3; none for embarked."""
    rule = pack.rules.bombardment
    roller = Roller.from_values([6, 5, 5, 6, 3])
    hits = preliminary_bombardment(
        rule,
        [
            BombardmentTarget("tank"),
            BombardmentTarget("passengers", infantry=True, embarked=True),
            BombardmentTarget("squad", infantry=True),
            BombardmentTarget("guards", infantry=True, go_to_ground=True),
        ],
        roller,
    )
    assert [(h.unit, h.dice, h.hit, h.mortal_wounds, h.went_to_ground) for h in hits] == [
        ("tank", (6,), True, 5, False),
        ("squad", (5,), False, 0, False),
        ("guards", (6,), True, 3, True),
    ]
    assert roller.remaining_given == 0


def test_bombardment_stratagems(pack: MissionPack) -> None:
    """Sustained Bombardment 3 dice, one hit if any is a 6 [L163] (A8); Intensive 4+ [L379];
    Foxholes halve rounding up [L181] (A9)."""
    rule = pack.rules.bombardment
    hits = preliminary_bombardment(
        rule,
        [
            BombardmentTarget("a", dice=3),
            BombardmentTarget("b", hit_on=4, infantry=True, foxholes=True),
        ],
        Roller.from_values([2, 6, 6, 4, 4, 5]),
    )
    assert [(h.dice, h.mortal_wounds) for h in hits] == [((2, 6, 6), 4), ((4,), 3)]
    with pytest.raises(NarrativeError, match="only INFANTRY"):
        preliminary_bombardment(rule, [BombardmentTarget("x", go_to_ground=True)], Roller(1))


def test_iron_discipline_acts_on_two_plus() -> None:
    """[L255]."""
    assert iron_discipline(["a", "b"], Roller.from_values([1, 2])) == {"a": False, "b": True}


def test_dawn_raid_first_round_shooting_only_and_night_raider_extends() -> None:
    """[L58] -1 to hit in the Shooting phase of round 1; [L233] one more round per CP."""
    assert dawn_raid_modifier(1, "shooting", active=True) == -1
    assert dawn_raid_modifier(1, "fight", active=True) == 0
    assert dawn_raid_modifier(2, "shooting", active=True) == 0
    assert dawn_raid_modifier(3, "shooting", active=True, rounds=1 + 2) == -1
    assert dawn_raid_modifier(1, "shooting", active=True, night_vision=True) == 0
    assert dawn_raid_modifier(1, "shooting", active=False) == 0
