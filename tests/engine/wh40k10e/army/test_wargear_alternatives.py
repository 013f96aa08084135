"""Wargear alternatives [L3080-3091]: the items of one option share its slots.

"Replace its bolt rifle with one of the following" gives one slot per model of the type: a
Sergeant cannot take two of the alternatives. An item offered by two options (a power weapon
for either of the Sergeant's two weapons) may fill a slot of either, so whether a selection
fits is a matching question; it is checked here against a brute-force enumeration.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.wh40k10e.army import (
    Catalogue,
    Code,
    Roster,
    RosterUnit,
    WargearChoice,
    WargearOption,
    validate,
)
from app.engine.wh40k10e.army.validate import _overcommitted

MakeRoster = Callable[..., Roster]


def alternatives(result) -> list:  # type: ignore[no-untyped-def]
    return [
        v
        for v in result.violations
        if v.code is Code.WARGEAR_INVALID and v.message_id == "wargear-invalid.alternatives"
    ]


def test_two_alternatives_of_one_slot(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    units = (
        RosterUnit("Captain", warlord=True),
        RosterUnit("Battle Squad", models=5, wargear={"Bolt rifle": 1, "Power fist": 1}),
    )
    (found,) = alternatives(validate(make_roster(*units), catalogue))
    assert found.unit == 1
    assert found.params == {
        "datasheet": "Battle Squad (#2)",
        "wargear": "Bolt rifle, Power fist",
        "options": "Sergeant weapon",
        "count": 2,
        "limit": 1,
    }
    assert found.message == (
        "Battle Squad (#2) takes 2 of Bolt rifle, Power fist, which are alternatives "
        "(Sergeant weapon): at most 1 in all."
    )
    assert found.fix == "Keep at most 1 of Bolt rifle, Power fist."


def test_one_alternative_per_slot_is_fine(catalogue: Catalogue, make_roster: MakeRoster) -> None:
    units = (
        RosterUnit("Captain", warlord=True),
        RosterUnit("Battle Squad", models=10, wargear={"Power fist": 1, "Plasma pistol": 2}),
    )
    assert alternatives(validate(make_roster(*units), catalogue)) == []


# -- an item offered by two options --------------------------------------------------------------


def _two_weapon_sergeant(catalogue: Catalogue) -> Catalogue:
    """The Battle Squad again, its Sergeant with two weapon options both offering a power
    weapon."""
    squad = catalogue.datasheet("Battle Squad")
    assert squad is not None
    two = replace(
        squad,
        id="two-weapons",
        name="Two-weapon Squad",
        wargear_options=(
            WargearOption(
                "Weapon 1",
                "Sergeant",
                (WargearChoice("Hand flamer"), WargearChoice("Power weapon")),
            ),
            WargearOption(
                "Weapon 2",
                "Sergeant",
                (WargearChoice("Power weapon"), WargearChoice("Power fist")),
            ),
        ),
    )
    return replace(catalogue, datasheets=(*catalogue.datasheets, two))


def test_an_item_of_two_options_moves_to_make_room(
    catalogue: Catalogue, make_roster: MakeRoster
) -> None:
    cat = _two_weapon_sergeant(catalogue)

    def check(wargear: dict[str, int]) -> list:  # type: ignore[type-arg]
        units = (
            RosterUnit("Captain", warlord=True),
            RosterUnit("Two-weapon Squad", wargear=wargear),
        )
        return alternatives(validate(make_roster(*units), cat))

    assert check({"Power weapon": 2}) == []  # one in each slot
    assert check({"Power weapon": 1, "Hand flamer": 1}) == []  # the power weapon goes second
    assert check({"Power weapon": 1, "Power fist": 1}) == []
    (over,) = check({"Power weapon": 1, "Hand flamer": 1, "Power fist": 1})
    assert (over.params["count"], over.params["limit"]) == (3, 2)
    assert over.params["options"] == "Weapon 1, Weapon 2"
    assert over.params["wargear"] == "Hand flamer, Power fist, Power weapon"
    (over,) = check({"Hand flamer": 1, "Power fist": 1, "Power weapon": 2})
    assert (over.params["count"], over.params["limit"]) == (4, 2)  # each within its own limit


# -- against brute force -------------------------------------------------------------------------

ITEMS = ("a", "b", "c")


def _fits(taken: dict[str, int], slots: list[tuple[str, int, dict[str, int]]]) -> bool:
    """Try every way of putting each unit of each item into an option offering it."""
    units = [key for key, n in taken.items() if any(key in o[2] for o in slots) for _ in range(n)]
    choices = [[j for j, o in enumerate(slots) if key in o[2]] for key in units]
    for assignment in product(*choices):
        room = [o[1] for o in slots]
        per_edge: dict[tuple[str, int], int] = {}
        ok = True
        for key, j in zip(units, assignment, strict=True):
            room[j] -= 1
            per_edge[key, j] = per_edge.get((key, j), 0) + 1
            if room[j] < 0 or per_edge[key, j] > slots[j][2][key]:
                ok = False
                break
        if ok:
            return True
    return False


slot_strategy = st.lists(
    st.tuples(
        st.integers(0, 2),
        st.dictionaries(st.sampled_from(ITEMS), st.integers(0, 2), min_size=1, max_size=3),
    ),
    min_size=1,
    max_size=3,
)


@settings(max_examples=400)
@given(slot_strategy, st.dictionaries(st.sampled_from(ITEMS), st.integers(1, 2), max_size=3))
def test_the_matching_agrees_with_brute_force(
    raw: list[tuple[int, dict[str, int]]], taken: dict[str, int]
) -> None:
    slots = [
        (f"Option {j}", total, {k: min(c, total) for k, c in items.items()})
        for j, (total, items) in enumerate(raw)
    ]
    found = _overcommitted(taken, slots)
    assert (found is None) == _fits(taken, slots)
    if found is not None:
        keys, options, demand, capacity = found
        assert keys <= set(taken)
        assert options
        if all(c == o[1] for o in slots for c in o[2].values()):
            # without per-item caps, Hall's condition names a set that does not fit
            assert demand > capacity
