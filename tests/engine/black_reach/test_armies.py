"""Army building by points: every problem reported at once, located (note §3.1; seed
[L2265-L2466], [L2691-L2709])."""

from __future__ import annotations

from app.engine.black_reach.armies import (
    Army,
    Fielded,
    Filled,
    army_cost,
    groups,
    order_tokens,
    validate_army,
)
from app.engine.black_reach.forces import Faction
from app.engine.black_reach.loaders import load_sample_catalogue

CAT = load_sample_catalogue()


def legal() -> Army:
    return Army(
        Faction.ORKS,
        (
            Fielded(
                "sample-ork-mob",
                (
                    Filled(0, option="sample-ork-boss"),
                    Filled(1, fielded=Fielded("sample-ork-buggy")),
                ),
            ),
            Fielded("sample-ork-weirdboy", (Filled(0, option="sample-ork-warpath"),)),
        ),
    )


def test_a_legal_army_has_no_violation_and_its_cost_and_tokens() -> None:
    army = legal()
    assert validate_army(army, CAT, points=49) == ()
    assert army_cost(army, CAT) == 20 + 4 + 10 + 12 + 3
    tokens = order_tokens(army, CAT)
    assert (tokens.numbered, tokens.special, tokens.bluff) == (4, 0, 0)
    # a broken mob takes its stars, its nob's and its Boss with it [L639-L647]
    assert order_tokens(army, CAT, broken=frozenset({"tiles[0]"})).numbered == 1


def test_every_problem_is_reported_with_its_place() -> None:
    army = Army(
        Faction.ORKS,
        (
            Fielded(
                "sample-ork-weirdboy",
                (
                    Filled(0, option="sample-ork-boss"),  # red bands in a yellow slot
                    Filled(
                        0, option="sample-um-enfeeble"
                    ),  # slot taken, faction, bands, discipline
                    Filled(3, option="sample-ork-hammers"),
                ),
            ),
            Fielded("sample-ork-buggy"),  # a support tile on its own
            Fielded("nope"),
        ),
    )
    found = {(v.code, v.where) for v in validate_army(army, CAT, points=10)}
    assert ("bands_mismatch", "tiles[0].slots[0]") in found
    assert ("slot_taken", "tiles[0].slots[1]") in found
    assert ("wrong_faction", "tiles[0].slots[1]") in found
    assert ("bands_mismatch", "tiles[0].slots[1]") in found
    assert ("wrong_discipline", "tiles[0].slots[1]") in found
    assert ("no_such_slot", "tiles[0].slots[2]") in found
    assert ("unattached_support", "tiles[1].tile") in found
    assert ("unknown_tile", "tiles[2].tile") in found
    assert ("over_points", "points") in found
    for v in validate_army(army, CAT, points=10):
        assert v.message
        assert v.hint


def test_personalisation_needs_a_character_and_powers_a_psyker() -> None:
    army = Army(
        Faction.ULTRAMARINES,
        (
            Fielded("sample-um-armour"),
            Fielded(
                "sample-um-squad",
                (Filled(1, option="sample-um-enfeeble"),),  # the sergeant is no psyker
            ),
        ),
    )
    codes = {v.code for v in validate_army(army, CAT)}
    assert "needs_psyker" in codes


def test_support_tiles_need_identical_bands_and_recruitment_tiles_no_slot() -> None:
    army = Army(
        Faction.ORKS,
        (
            Fielded(
                "sample-ork-mob",
                (
                    Filled(0, fielded=Fielded("sample-ork-buggy")),  # slot 0 is red only
                    Filled(1, fielded=Fielded("sample-ork-weirdboy")),
                ),
            ),
        ),
    )
    found = {(v.code, v.where) for v in validate_army(army, CAT)}
    assert ("bands_mismatch", "tiles[0].slots[0]") in found
    assert ("not_a_support_tile", "tiles[0].slots[1].tile") in found


def test_an_army_with_no_order_token_loses_at_once_and_bluffs_are_capped() -> None:
    support_only = Army(Faction.ORKS, (Fielded("sample-ork-buggy"),))
    assert "no_order_token" in {v.code for v in validate_army(support_only, CAT)}
    bluffs = Army(
        Faction.ULTRAMARINES,
        tuple(
            Fielded("sample-um-librarian", (Filled(0, option="sample-um-bluff"),)) for _ in range(3)
        ),
    )
    assert "too_many_bluffs" in {v.code for v in validate_army(bluffs, CAT)}


def test_groups_name_each_counter_and_count_support_units_with_their_tile() -> None:
    mob, buggy, weirdboy = groups(legal(), CAT, "orks")
    assert len(mob.units) == 4
    assert mob.breaking_point == 2
    assert mob.victory_points == 3
    assert buggy.id == "orks:tiles[0].slots[1]"
    assert buggy.units[0].endswith("sample-ork-buggy")
    assert weirdboy.tile == "sample-ork-weirdboy"
