"""Psykers in the Black Reach battle (issue 16): a power's cost in Suppressed markers, the
Perils of the Warp test (1 die + level - 2 per Suppressed marker, the cost included)
[L2713-L2741], the Librarian's Perils markers (the pool is data: ours is a sample) and the
Weirdboy's table (explodes, a step, works) [L2808-L2918], and the powers the match plays:
Endurance (an allied unit back to its intact face) and Scrier's Gaze (the Initiative kept).

The board is built here: 8 x 8, no terrain. The sample Librarian (level 2) stands on (1, 1)
with Endurance and Scrier's Gaze on his tile; the tactical squad on (2, 2). The Orks' Shootas
(CV 2 against infantry) on (5, 6), the Nob (5, 5), the Boyz (6, 6) and (7, 7), the Weirdboy
(level 2) on (5, 4) with a made-up Weirdboy power of cost 2 that keeps the Initiative.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.engine.black_reach.armies import validate_army
from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, Deploy, sample_setup
from app.engine.black_reach.loaders import army_from_dict, catalogue_from_dict
from app.engine.match.errors import Refusal, RefusalKind
from app.engine.roller import Roller

LIBRARIAN = "ultramarines:tiles[0]/0:sample-um-librarian"
SERGEANT = "ultramarines:tiles[1]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[1]/1:sample-um-tactical"
BOLTER = "ultramarines:tiles[1]/2:sample-um-heavy-bolter"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
WEIRDBOY = "orks:tiles[1]/0:sample-ork-weirdboy"
A, B = "A", "B"

BOARD = {"boards": [{"name": "flat", "width": 8, "height": 8, "sample": True}]}


def setup(first: str = "orks") -> BattleSetup:
    base = sample_setup()
    catalogue = copy.deepcopy(base.catalogue)
    assert isinstance(catalogue, dict)
    librarian_tile = next(t for t in catalogue["tiles"] if t["id"] == "sample-um-librarian")
    librarian_tile["slots"] = [{"bands": ["gold"]}, {"bands": ["gold"]}]
    weirdboy_tile = next(t for t in catalogue["tiles"] if t["id"] == "sample-ork-weirdboy")
    weirdboy_tile["slots"] = [{"bands": ["yellow"]}, {"bands": ["yellow"]}]
    catalogue["options"].append(
        {
            "id": "test-weirdboy-gaze",
            "name": "A made-up Weirdboy power",
            "faction": "orks",
            "type": "psychic_power",
            "cost": 1,
            "bands": ["yellow"],
            "power": {
                "psyker": "weirdboy",
                "discipline": "waaagh",
                "cost": 2,
                "effect": "scriers_gaze",
            },
        }
    )
    scenario = {
        "format": "auspex-black-reach-scenario/1",
        "id": "test-psykers",
        "name": "Test psykers",
        "turns": 3,
        "hand_size": 0,
        "first_initiative": first,
        "board": {"name": "flat", "boards": [{"board": "flat", "offset": [0, 0]}]},
        "sides": [
            {
                "id": "ultramarines",
                "deployment": [{"from": [0, 0], "to": [3, 3]}],
                "army": {
                    "faction": "ultramarines",
                    "tiles": [
                        {
                            "tile": "sample-um-librarian",
                            "slots": [
                                {"slot": 0, "option": "sample-um-endurance"},
                                {"slot": 1, "option": "sample-um-scrier"},
                            ],
                        },
                        {"tile": "sample-um-squad"},
                    ],
                },
            },
            {
                "id": "orks",
                "deployment": [{"from": [4, 4], "to": [7, 7]}],
                "army": {
                    "faction": "orks",
                    "tiles": [
                        {"tile": "sample-ork-mob"},
                        {
                            "tile": "sample-ork-weirdboy",
                            "slots": [
                                {"slot": 0, "option": "test-weirdboy-gaze"},
                                {"slot": 1, "option": "sample-ork-krunch"},
                            ],
                        },
                    ],
                },
            },
        ],
        "objectives": [],
    }
    deployment = (
        Deploy(LIBRARIAN, 1, 1, "S"),
        Deploy(SERGEANT, 0, 0, "S"),
        Deploy(TACTICAL, 2, 2, "S"),
        Deploy(BOLTER, 3, 0, "S"),
        Deploy(NOB, 6, 5, "N"),
        Deploy(BOYZ1, 6, 6, "N"),
        Deploy(BOYZ2, 7, 7, "N"),
        Deploy(SHOOTAS, 4, 7, "N"),
        Deploy(WEIRDBOY, 5, 5, "N"),
    )
    return BattleSetup(scenario, catalogue, BOARD, {"A": "ultramarines", "B": "orks"}, deployment)


def order(unit: str, number: int) -> dict[str, Any]:
    return {"unit": unit, "kind": "numbered", "number": number, "nonce": f"nonce-{unit}"}


UM_ORDERS = [order(LIBRARIAN, 1), order(TACTICAL, 2), order(SERGEANT, 3)]
ORK_ORDERS = [order(SHOOTAS, 1), order(WEIRDBOY, 2), order(NOB, 3)]


def ordered(first: str = "orks") -> BlackReachBattle:
    battle = BlackReachBattle.create(setup(first))
    battle.execute_json({"type": "place_orders", "orders": ORK_ORDERS}, B)
    battle.execute_json({"type": "place_orders", "orders": UM_ORDERS}, A)
    return battle


def seed_for(*dice: int) -> int:
    """The first seed whose roller draws ``dice`` first."""
    for seed in range(100_000):
        roller = Roller(seed)
        if all(roller.d6("test") == d for d in dice):
            return seed
    raise AssertionError(f"no seed draws {dice}")


def kinds(envelopes: Any) -> list[str]:
    return [e.event.kind for e in envelopes]


def heal(target: str = TACTICAL) -> dict[str, Any]:
    return {"type": "manifest", "unit": LIBRARIAN, "power": "sample-um-endurance", "target": target}


def reduced() -> BlackReachBattle:
    """The Shootas' shot flipped the tactical squad: 3 + CV 2 = 5 against DV 5."""
    battle = ordered()
    battle.execute_json({"type": "shoot", "unit": SHOOTAS, "target": TACTICAL}, B, dice=[3])
    assert str(battle.state.units[TACTICAL].status.face) == "reduced"
    return battle


def test_endurance_heals_an_allied_unit_when_the_perils_test_passes() -> None:
    battle = reduced()
    entry = next(a for a in battle.actions(A) if a["command"]["type"] == "manifest")
    assert entry["command"]["target"] == TACTICAL
    # 1 die + level 2 - 2 x 2 (the cost): 1 or less draws a marker on a 1 to 3
    assert entry["perils"] == {"draw_marker": "1/2", "works": "1/2"}
    events = battle.execute_json(heal(), A, dice=[4])
    assert kinds(events) == [
        "order_revealed",
        "suppressed_placed",
        "power_manifested",
        "unit_flipped",
    ]
    manifested = events[2].event
    assert (manifested.level, manifested.suppressed, manifested.result) == (2, 2, 2)
    assert (manifested.perils, manifested.applies) == ("works", True)
    assert events[3].event.face == "intact"
    assert battle.state.units[LIBRARIAN].suppressed == 2


@pytest.mark.parametrize(
    ("pick", "marker", "after"),
    [
        (1, "cancelled", {"lost": True, "suppressed": 0, "healed": False, "alive": True}),
        (2, "steps", {"lost": False, "suppressed": 0, "healed": True, "alive": False}),
        (4, "suppressed", {"lost": False, "suppressed": 3, "healed": True, "alive": True}),
        (5, "suppressed", {"lost": False, "suppressed": 4, "healed": True, "alive": True}),
        (6, "again", {"lost": False, "suppressed": 0, "healed": True, "alive": True}),
    ],
)
def test_a_librarian_failing_the_test_draws_a_perils_marker(
    pick: int, marker: str, after: dict[str, Any]
) -> None:
    battle = reduced()
    # 1 + 2 - 4 = -1: a marker drawn from the sample pool of 6 (the second die), always by the
    # match's own dice (rulings 124): a seed whose first two dice are 1 and ``pick``
    events = battle.execute_json(heal(), A, seed=seed_for(1, pick))
    manifested = next(e.event for e in events if e.event.kind == "power_manifested")
    assert (manifested.perils, manifested.marker) == ("draw_marker", marker)
    assert manifested.roll.values == (1, pick)
    state = battle.state
    assert ((LIBRARIAN, "sample-um-endurance") in state.lost_powers) is after["lost"]
    assert (str(state.units[TACTICAL].status.face) == "intact") is after["healed"]
    assert state.units[LIBRARIAN].alive is after["alive"]
    if after["alive"]:
        assert state.units[LIBRARIAN].suppressed == after["suppressed"]


def test_bad_manifestations_are_refused() -> None:
    battle = ordered()
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    for command, code in (
        (heal(), "not_reduced"),
        (heal(NOB), "enemy_unit"),
        ({**heal(), "power": "sample-um-enfeeble"}, "no_such_power"),
        ({**heal(), "target": None}, "target_needed"),
        (
            {"type": "manifest", "unit": LIBRARIAN, "power": "sample-um-scrier", "share": TACTICAL},
            "bad_share",
        ),
    ):
        version = battle.version
        with pytest.raises(Refusal) as info:
            battle.execute_json(command, A, dice=[6])
        assert info.value.code == code
        assert battle.version == version


def weirdboy_due() -> BlackReachBattle:
    battle = ordered()
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    battle.execute_json({"type": "hold", "unit": LIBRARIAN}, A)
    return battle


GAZE = {"type": "manifest", "unit": WEIRDBOY, "power": "test-weirdboy-gaze"}


def test_a_weirdboy_who_explodes_hits_the_most_units_around_him() -> None:
    battle = weirdboy_due()
    # 1 + 2 - 4 = -1: he explodes; of the 4 intercases around (5, 5), (6, 6) covers the Nob
    # (6, 5) and the Boyz (6, 6): the Nob 2 + CV 3 = 5 against DV 5, the Boyz 1 + 3 = 4
    events = battle.execute_json(GAZE, B, dice=[1, 2, 1])
    assert kinds(events) == [
        "order_revealed",
        "suppressed_placed",
        "power_manifested",
        "template_placed",
        "unit_shot",
        "steps_taken",
        "unit_shot",
        "steps_taken",
        "steps_taken",
    ]
    manifested, placed = events[2].event, events[3].event
    assert (manifested.perils, manifested.applies) == ("explodes", False)
    assert (placed.landed.x, placed.landed.y, placed.targets) == (6, 6, (NOB, BOYZ1))
    assert events[5].event.hit_points_used == 1
    assert events[7].event.face == "reduced"
    assert (events[8].event.unit, events[8].event.destroyed) == (WEIRDBOY, True)
    assert battle.state.keep_initiative is None


def test_a_weirdboy_shares_a_marker_and_takes_a_step_on_two_or_three() -> None:
    battle = weirdboy_due()
    # one of the 2 markers on the Boyz (within 2 squares): 2 + 2 - 2 = 2, a step
    events = battle.execute_json({**GAZE, "share": BOYZ1}, B, dice=[2])
    assert kinds(events)[1:5] == [
        "suppressed_placed",
        "suppressed_placed",
        "power_manifested",
        "initiative_kept",
    ]
    assert (events[1].event.unit, events[2].event.unit) == (BOYZ1, WEIRDBOY)
    manifested = events[3].event
    assert (manifested.suppressed, manifested.result, manifested.perils) == (1, 2, "step")
    assert battle.state.units[WEIRDBOY].alive is False  # his step symbol destroys him
    assert battle.state.units[BOYZ1].suppressed == 1


def test_scriers_gaze_keeps_the_initiative() -> None:
    battle = ordered(first="ultramarines")
    gaze = {"type": "manifest", "unit": LIBRARIAN, "power": "sample-um-scrier"}
    events = battle.execute_json(gaze, A, dice=[6])  # 6 + 2 - 4 = 4: works
    assert kinds(events)[-1] == "initiative_kept"
    for seat, unit in (
        (B, SHOOTAS),
        (A, TACTICAL),
        (B, WEIRDBOY),
        (A, SERGEANT),
        (B, NOB),
    ):
        battle.execute_json({"type": "hold", "unit": unit}, seat)
    battle.execute_json({"type": "end_reserve"}, A)
    battle.execute_json({"type": "end_reserve"}, B)
    assert battle.state.turn is not None
    assert (battle.state.turn.turn, battle.state.turn.initiative) == (2, "ultramarines")
    again = BlackReachBattle.import_log(battle.export_log())
    assert again.state == battle.state


KRUNCH = {"type": "manifest", "unit": WEIRDBOY, "power": "sample-ork-krunch", "x": 2, "y": 2}


def test_da_krunch_rolls_two_dice_at_every_unit_under_its_template() -> None:
    battle = weirdboy_due()
    entry = next(
        a
        for a in battle.actions(B)
        if a["command"]["type"] == "manifest" and a["effect"] == "da_krunch"
    )
    assert (entry["template"], entry["range"], entry["cost"]) == ("B", 6, 2)
    # Perils 6 + 2 - 4 = 4: works. The template on (2, 2) covers the Librarian (1, 1) and the
    # tactical squad (2, 2): 6 + 5 - 4 (his 2 Suppressed) = 7 against DV 5, a step; a double
    # 6 destroys the squad (2 steps)
    events = battle.execute_json(KRUNCH, B, dice=[6, 6, 5, 6, 6])
    assert kinds(events) == [
        "order_revealed",
        "suppressed_placed",
        "power_manifested",
        "template_placed",
        "unit_shot",
        "steps_taken",
        "unit_shot",
        "steps_taken",
    ]
    placed, first, second = events[3].event, events[4].event, events[6].event
    assert placed.targets == (LIBRARIAN, TACTICAL)
    assert (first.target, first.final, first.dv, first.outcome) == (LIBRARIAN, 7, 5, "step")
    assert (second.target, second.roll.values, second.outcome) == (TACTICAL, (6, 6), "coup_double")
    assert battle.state.units[LIBRARIAN].alive is False
    assert battle.state.units[TACTICAL].alive is False


def test_da_krunch_needs_a_placed_template() -> None:
    battle = weirdboy_due()
    for command, code in (
        ({**KRUNCH, "x": None}, "intercase_needed"),
        ({**KRUNCH, "x": 0, "y": 0, "facing": "NE"}, "bad_facing"),
    ):
        with pytest.raises(Refusal) as info:
            battle.execute_json(command, B, dice=[6, 6, 6, 6, 6])
        assert info.value.code == code
    assert battle.state.units[WEIRDBOY].suppressed == 0  # nothing paid


# -- review fixes (issue 16) ----------------------------------------------------------------------


def _without_perils() -> BlackReachBattle:
    base = setup()
    catalogue = copy.deepcopy(base.catalogue)
    assert isinstance(catalogue, dict)
    catalogue["perils"] = []
    given = BattleSetup(base.scenario, catalogue, base.boards, base.seats, base.deployment)
    battle = BlackReachBattle.create(given)  # a match replays it: refused at use (rulings 86)
    battle.execute_json({"type": "place_orders", "orders": ORK_ORDERS}, B)
    battle.execute_json({"type": "place_orders", "orders": UM_ORDERS}, A)
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    return battle


@pytest.mark.parametrize("die", [1, 2, 3, 4, 5, 6])
def test_a_librarian_without_a_perils_pool_is_refused_before_the_die(die: int) -> None:
    # the review: the die was rolled, then no_perils_pool refused on 1-3 only, telling the die
    battle = _without_perils()
    scrier = {"type": "manifest", "unit": LIBRARIAN, "power": "sample-um-scrier"}
    assert not [a for a in battle.actions(A) if a["command"]["type"] == "manifest"]
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(scrier, A, dice=[die])
    assert info.value.code == "no_perils_pool"
    with pytest.raises(Refusal) as seeded:  # a server seed: the same refusal, no die drawn
        battle.execute(battle.decode(scrier), A, seed=die)
    assert seeded.value.code == "no_perils_pool"
    assert battle.version == version


def test_a_librarian_power_without_a_perils_pool_is_an_army_violation() -> None:
    base = setup()
    raw = copy.deepcopy(base.catalogue)
    assert isinstance(raw, dict)
    raw["perils"] = []
    catalogue = catalogue_from_dict(raw)
    assert isinstance(base.scenario, dict)
    army = army_from_dict(base.scenario["sides"][0]["army"])
    found = [(v.code, v.where) for v in validate_army(army, catalogue)]
    assert found == [
        ("no_perils_pool", "tiles[0].slots[0].option"),
        ("no_perils_pool", "tiles[0].slots[1].option"),
    ]
    # a Weirdboy draws no marker: the Orks' army is legal
    assert validate_army(army_from_dict(base.scenario["sides"][1]["army"]), catalogue) == ()


def test_the_other_sides_scriers_gaze_does_not_cancel_the_holders() -> None:
    # the review: the second Gaze, by the side without the Initiative, took it over
    battle = BlackReachBattle.create(setup("orks"))
    battle.execute_json({"type": "place_orders", "orders": ORK_ORDERS}, B)
    um = [order(TACTICAL, 1), order(LIBRARIAN, 2), order(SERGEANT, 3)]
    battle.execute_json({"type": "place_orders", "orders": um}, A)
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    battle.execute_json({"type": "hold", "unit": TACTICAL}, A)
    held = battle.execute_json(GAZE, B, dice=[6])  # 6 + 2 - 4 = 4: works, Orks hold it
    assert kinds(held)[-1] == "initiative_kept"
    scrier = {"type": "manifest", "unit": LIBRARIAN, "power": "sample-um-scrier"}
    used = battle.execute_json(scrier, A, dice=[6])  # works, but does nothing [L3017-L3023]
    assert kinds(used) == ["order_revealed", "suppressed_placed", "power_manifested"]
    assert used[-1].event.applies is True
    assert battle.state.keep_initiative == "orks"
    battle.execute_json({"type": "hold", "unit": NOB}, B)
    battle.execute_json({"type": "hold", "unit": SERGEANT}, A)
    battle.execute_json({"type": "end_reserve"}, B)
    battle.execute_json({"type": "end_reserve"}, A)
    assert battle.state.turn is not None
    assert (battle.state.turn.turn, battle.state.turn.initiative) == (2, "orks")


def test_a_gaze_by_the_side_without_the_initiative_alone_does_nothing() -> None:
    battle = BlackReachBattle.create(setup("orks"))
    battle.execute_json({"type": "place_orders", "orders": ORK_ORDERS}, B)
    battle.execute_json({"type": "place_orders", "orders": UM_ORDERS}, A)
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    scrier = {"type": "manifest", "unit": LIBRARIAN, "power": "sample-um-scrier"}
    assert "initiative_kept" not in kinds(battle.execute_json(scrier, A, dice=[6]))
    assert battle.state.keep_initiative is None


def test_a_perils_marker_is_never_drawn_with_dice_given_by_hand() -> None:
    """Dice by hand would choose the face-down marker (the pool's order is the forces
    file's): the manifestation that draws one is refused, 422, and nothing happens
    (rulings 124); a test that draws no marker still takes its die by hand."""
    battle = reduced()
    version = battle.version
    with pytest.raises(Refusal) as refused:
        battle.execute_json(heal(), A, dice=[1, 6])
    assert refused.value.code == "match_dice_only"
    assert refused.value.kind is RefusalKind.INPUT  # a 422
    assert battle.version == version
    assert battle.state.units[LIBRARIAN].suppressed == 0
    events = battle.execute_json(heal(), A, dice=[4])  # 4 + 2 - 4 = 2: works, no marker
    assert next(e.event for e in events if e.event.kind == "power_manifested").perils == "works"
