"""Every cell of the PEN tables, against values typed from the note (rules/pen.md §2.8, §5).

Each expectation is typed here by hand from the note / seed line quoted beside it; the code
under test is never used to produce an expected value.
"""

from fractions import Fraction

import pytest

from app.engine.pen import tables
from app.engine.pen.codes import RollCode
from app.engine.pen.tables import DamageResult as R
from app.engine.pen.tables import DamageTable, Location

# Probability of each printed code (note §5.1 "Probabilities of the roll codes").
P = {
    "6": Fraction(1, 6),
    "5+": Fraction(1, 3),
    "4+": Fraction(1, 2),
    "3+": Fraction(2, 3),
    "2+": Fraction(5, 6),
    "2+ re": Fraction(35, 36),
    "6/4+": Fraction(1, 12),
}

# ---------------------------------------------------------------- BS table [L1299-L1309]
BS_EXPECTED = [
    (1, "6", 0, "L1300"),
    (2, "5+", 0, "L1301"),
    (3, "4+", 0, "L1302"),
    (4, "3+", 0, "L1303"),
    (5, "2+", 0, "L1304"),
    (6, "2+ re", 0, "L1305"),
    (7, "2+ re", 1, "L1306"),
    (8, "2+ re", 2, "L1307"),
    (9, "2+ re", 3, "L1308"),
    (10, "2+ re", 4, "L1309"),
]


@pytest.mark.parametrize(("bs", "code", "cover_malus", "line"), BS_EXPECTED)
def test_bs_table_cell(bs: int, code: str, cover_malus: int, line: str) -> None:
    assert str(tables.shooting_code(bs)) == code, line
    assert tables.shooting_code(bs).probability() == P[code], line
    assert tables.bs_cover_malus(bs) == cover_malus, line


def test_bs_below_one_still_hits_on_six_and_above_ten_caps() -> None:
    # [L1328] BS cannot go below 1: at worst a 6; [L123] no characteristic above 10.
    assert str(tables.shooting_code(-3)) == "6"
    assert str(tables.shooting_code(12)) == "2+ re"
    assert tables.bs_cover_malus(13) == 4


# Snap fire [L517-L519]: examples "BS 1-3 -> BS1, BS 4-5 -> BS2" and the note's derived row.
SNAP_EXPECTED = {1: 1, 2: 1, 3: 1, 4: 2, 5: 2, 6: 3, 7: 3, 8: 4, 9: 4, 10: 5}


@pytest.mark.parametrize(("bs", "snap"), sorted(SNAP_EXPECTED.items()))
def test_snap_fire_cell(bs: int, snap: int) -> None:
    assert tables.snap_fire_bs(bs) == snap


# ---------------------------------------------------------------- WS 10x10 [L1344-L1355]
WS_EXPECTED_ROWS = {
    1: "4+ 4+ 5+ 5+ 5+ 6 6 6 6 6",  # L1346
    2: "3+ 4+ 4+ 5+ 5+ 5+ 5+ 6 6 6",  # L1347
    3: "3+ 3+ 4+ 4+ 5+ 5+ 5+ 5+ 5+ 6",  # L1348
    4: "3+ 3+ 3+ 4+ 4+ 5+ 5+ 5+ 5+ 5+",  # L1349
    5: "2+ 3+ 3+ 3+ 4+ 4+ 5+ 5+ 5+ 5+",  # L1350
    6: "2+ 2+ 3+ 3+ 3+ 4+ 4+ 5+ 5+ 5+",  # L1351
    7: "2+ 2+ 2+ 3+ 3+ 3+ 4+ 4+ 5+ 5+",  # L1352
    8: "2+ 2+ 2+ 2+ 3+ 3+ 3+ 4+ 4+ 5+",  # L1353
    9: "2+ 2+ 2+ 2+ 2+ 3+ 3+ 3+ 4+ 4+",  # L1354
    10: "2+ 2+ 2+ 2+ 2+ 2+ 3+ 3+ 3+ 4+",  # L1355
}
WS_CELLS = [
    (att, dfn, cell, f"L{1345 + att}")
    for att, row in WS_EXPECTED_ROWS.items()
    for dfn, cell in enumerate(row.split(), start=1)
]


def test_ws_table_has_100_cells() -> None:
    assert len(WS_CELLS) == 100


@pytest.mark.parametrize(("att", "dfn", "cell", "line"), WS_CELLS)
def test_ws_table_cell(att: int, dfn: int, cell: str, line: str) -> None:
    code = tables.ws_code(att, dfn)
    assert str(code) == cell, line
    assert code.reroll is None  # no "re" cell in this table
    assert code.then is None
    assert code.probability() == P[cell]


def test_ws_table_is_not_a_function_of_the_difference() -> None:
    # Note §5.3: WS1 vs WS1 hits on 4+ but WS10 vs WS10 also 4+, WS5 vs WS5 4+, while
    # WS1 vs WS3 (diff -2) is 5+ and WS3 vs WS5 (diff -2) is also 5+ but WS2 vs WS8 is 6.
    assert str(tables.ws_code(4, 6)) == "5+"
    assert str(tables.ws_code(2, 4)) == "5+"
    assert str(tables.ws_code(1, 3)) == "5+"
    assert str(tables.ws_code(8, 10)) == "5+"
    assert str(tables.ws_code(6, 8)) == "5+"
    assert str(tables.ws_code(3, 5)) == "5+"
    assert str(tables.ws_code(7, 9)) == "5+"
    assert str(tables.ws_code(1, 6)) == "6"
    assert str(tables.ws_code(4, 9)) == "5+"


@pytest.mark.parametrize(
    ("moved", "aircraft", "ws"),
    [
        (0, False, 1),
        (12, False, 1),
        (13, False, 3),
        (18, False, 3),
        (19, False, 5),
        (40, False, 5),
        (0, True, 7),
    ],
)
def test_ws_of_a_unit_without_ws(moved: int, aircraft: bool, ws: int) -> None:
    # [L1360-L1361] >=0..12: 1, >12..18: 3, >18: 5, aircraft passing: 7
    assert tables.ws_for_unit_without_ws(moved, aircraft_passing=aircraft) == ws


# ---------------------------------------------------------------- S-T table [L1376-L1387]
WOUND_EXPECTED_ROWS = {
    1: "4+|5+|6|6/4+|6/4+|6/4+|6/4+|6/4+|6/4+|6/4+",  # L1378
    2: "3+|4+|5+|6|6/4+|6/4+|6/4+|6/4+|6/4+|6/4+",  # L1379
    3: "2+|3+|4+|5+|6|6/4+|6/4+|6/4+|6/4+|6/4+",  # L1380
    4: "2+ re|2+|3+|4+|5+|6|6/4+|6/4+|6/4+|6/4+",  # L1381
    5: "2+ re|2+ re|2+|3+|4+|5+|6|6/4+|6/4+|6/4+",  # L1382
    6: "2+ re|2+ re|2+ re|2+|3+|4+|5+|6|6/4+|6/4+",  # L1383
    7: "2+ re|2+ re|2+ re|2+ re|2+|3+|4+|5+|6|6/4+",  # L1384
    8: "2+ re|2+ re|2+ re|2+ re|2+ re|2+|3+|4+|5+|6",  # L1385
    9: "2+ re|2+ re|2+ re|2+ re|2+ re|2+ re|2+|3+|4+|5+",  # L1386
    10: "2+ re|2+ re|2+ re|2+ re|2+ re|2+ re|2+ re|2+|3+|4+",  # L1387
}
WOUND_CELLS = [
    (s, t, cell, f"L{1377 + s}")
    for s, row in WOUND_EXPECTED_ROWS.items()
    for t, cell in enumerate(row.split("|"), start=1)
]

# The note's verified formula on d = S - T [L1390] (a second, independent oracle).
FORMULA = {3: "2+ re", 2: "2+", 1: "3+", 0: "4+", -1: "5+", -2: "6", -3: "6/4+"}


def test_wound_table_has_100_cells() -> None:
    assert len(WOUND_CELLS) == 100


@pytest.mark.parametrize(("s", "t", "cell", "line"), WOUND_CELLS)
def test_wound_table_cell(s: int, t: int, cell: str, line: str) -> None:
    code = tables.wound_code(s, t)
    assert str(code) == cell, line
    assert code.probability() == P[cell], line
    assert cell == FORMULA[max(-3, min(3, s - t))], line


@pytest.mark.parametrize(
    ("s", "t", "mortelle"),
    [
        (8, 4, True),
        (7, 4, False),
        (2, 1, True),
        (1, 1, False),
        (10, 5, True),
        (9, 5, False),
        (6, 3, True),
        (10, 6, False),
    ],
)
def test_mortelle_when_strength_at_least_double_toughness(s: int, t: int, mortelle: bool) -> None:
    assert tables.is_mortelle_by_strength(s, t) is mortelle  # [L1391]


@pytest.mark.parametrize(
    ("s", "t", "target"), [(5, 4, 6), (4, 4, 5), (3, 4, 4), (10, 1, 6), (1, 10, 4), (None, 4, 5)]
)
def test_feel_no_pain_by_strength_against_toughness(s: int | None, t: int, target: int) -> None:
    assert tables.feel_no_pain_target(s, t) == target  # [L426]; S "-" counts as S = T (§8.10)


# ---------------------------------------------------------------- AP matrix (note §2.8)
AP_COLUMNS = [1, 2, 3, 4, 5, 6, None]
AP_EXPECTED_ROWS = {  # "-" = no save; typed from the note's matrix, rule [L619-L621]
    2: "- 6 3 2 2 2 2",
    3: "- - 6 4 3 3 3",
    4: "- - - 6 5 4 4",
    5: "- - - - 6 6 5",
    6: "- - - - - - 6",
}
AP_CELLS = [
    (save, ap, None if cell == "-" else int(cell))
    for save, row in AP_EXPECTED_ROWS.items()
    for ap, cell in zip(AP_COLUMNS, row.split(), strict=True)
]


def test_ap_matrix_has_35_cells() -> None:
    assert len(AP_CELLS) == 35


@pytest.mark.parametrize(("save", "ap", "after"), AP_CELLS)
def test_ap_matrix_cell(save: int, ap: int | None, after: int | None) -> None:
    assert tables.armour_save_after_ap(save, ap) == after


def test_ap_seed_example_and_no_save() -> None:
    assert tables.armour_save_after_ap(3, 4) == 4  # [L621] "PA4 turns a 3+ into 4+"
    assert tables.armour_save_after_ap(None, 1) is None


@pytest.mark.parametrize(
    ("save", "ap", "after"),
    [(1, None, 1), (1, 1, 6), (1, 2, 2), (1, 3, 1), (1, 6, 1)],
)
def test_ap_on_a_save_better_than_two_plus(save: int, ap: int | None, after: int) -> None:
    # The same three rules [L619-L621] applied to a "1+" save, before the [L1412] cap.
    assert tables.armour_save_after_ap(save, ap) == after


def test_best_save_is_two_plus_reroll_four_plus() -> None:
    # [L1412] "la meilleure svg possible est 2+ relançable à 4+"; note §8 item 9.
    assert tables.save_code(1) == RollCode(2, 4)
    assert tables.save_code(1).probability() == Fraction(11, 12)  # type: ignore[union-attr]
    assert tables.save_code(2) == RollCode(2)
    assert tables.save_code(None) is None


# ---------------------------------------------------------------- cover (note §5.4)
@pytest.mark.parametrize(
    ("cover", "save"),
    [
        (tables.CoverType.HEAVY, 3),
        (tables.CoverType.MEDIUM, 4),
        (tables.CoverType.LIGHT, 5),
        (tables.CoverType.SCREEN, 3),
    ],
)
def test_cover_types(cover: tables.CoverType, save: int) -> None:
    assert tables.cover_type_save(cover) == save  # [L734-L736], [L743]


COVER_CASES = [
    # base, hardened, bs_malus, hidden, visible, expected, why
    (4, False, 0, 0, 0, 4, "plain 4+ [L735]"),
    (4, True, 0, 0, 0, 5, "2+/3+/inv: -1 [L1368]"),
    (3, True, 0, 0, 0, 4, "heavy cover, hardened [L1368]"),
    (5, True, 0, 0, 0, 6, "light cover, hardened [L1368]"),
    (5, True, 1, 0, 0, 6, "never worse than 6+ [L1370]"),
    (3, False, 4, 0, 0, 6, "BS10 malus +4 clamped [L1309], [L1370]"),
    (3, False, 2, 0, 0, 5, "BS8 malus +2 [L1307]"),
    (4, False, 1, 0, 0, 5, "BS7 malus +1 [L1306]"),
    (4, False, 0, 2, 0, 2, "hidden +2 [L1099]"),
    (3, False, 0, 2, 0, 2, "hidden never better than 2+ [L1102]"),
    (5, False, 0, 1, 0, 4, "hidden bike +1 [L1099]"),
    (4, False, 0, 0, 1, 5, "vehicle 50% visible -1 [L762]"),
    (4, False, 0, 0, 2, 6, "vehicle 75% visible -2 [L762]"),
    (4, True, 1, 2, 0, 4, "summed then clamped (note §8 item 44)"),
    (None, True, 0, 2, 0, None, "no cover, no save"),
]


@pytest.mark.parametrize(("base", "hard", "bsm", "hidden", "vis", "expected", "why"), COVER_CASES)
def test_modified_cover_save(
    base: int | None, hard: bool, bsm: int, hidden: int, vis: int, expected: int | None, why: str
) -> None:
    got = tables.modified_cover_save(
        base, hardened=hard, bs_malus=bsm, hidden_bonus=hidden, visible_malus=vis
    )
    assert got == expected, why


# ---------------------------------------------------------------- vehicles (note §5.9)
@pytest.mark.parametrize(
    ("total", "announced", "location"),
    [
        (2, Location.HULL, Location.WEAPONS),  # [L1423]
        (3, Location.HULL, Location.MOBILITY),  # [L1424]
        (4, Location.WEAPONS, Location.HULL),  # [L1425]
        (5, Location.WEAPONS, Location.HULL),
        (6, Location.MOBILITY, Location.HULL),
        (7, Location.MOBILITY, Location.HULL),
        (8, Location.WEAPONS, Location.WEAPONS),  # [L1426] announced
        (8, Location.MOBILITY, Location.MOBILITY),
        (16, Location.HULL, Location.HULL),
    ],
)
def test_hit_location(total: int, announced: Location, location: Location) -> None:
    assert tables.hit_location(total, announced) == location


DAMAGE_CASES = [
    # table, modified roll, result [line]
    (DamageTable.WEAPONS, -3, R.NO_EFFECT),  # <= 0 [L1435]
    (DamageTable.WEAPONS, 0, R.NO_EFFECT),
    (DamageTable.WEAPONS, 1, R.SHAKEN),  # [L1436]
    (DamageTable.WEAPONS, 2, R.SHAKEN),
    (DamageTable.WEAPONS, 3, R.WEAPONS_DAMAGED),  # [L1437]
    (DamageTable.WEAPONS, 4, R.WEAPONS_DAMAGED),
    (DamageTable.WEAPONS, 5, R.WEAPON_DESTROYED),  # [L1438]
    (DamageTable.WEAPONS, 6, R.WEAPON_EXPLODES),  # [L1439]
    (DamageTable.WEAPONS, 9, R.WEAPON_EXPLODES),
    (DamageTable.MOBILITY, 0, R.NO_EFFECT),  # [L1442]
    (DamageTable.MOBILITY, 1, R.DRIVER_STUNNED),  # [L1443]
    (DamageTable.MOBILITY, 2, R.DRIVER_STUNNED),
    (DamageTable.MOBILITY, 3, R.REDUCED_MOBILITY),  # [L1444]
    (DamageTable.MOBILITY, 4, R.REDUCED_MOBILITY),
    (DamageTable.MOBILITY, 5, R.IMMOBILISED),  # [L1445]
    (DamageTable.MOBILITY, 6, R.CRASH),  # [L1446]
    (DamageTable.MOBILITY, 8, R.CRASH),
    (DamageTable.HULL, -1, R.NO_EFFECT),  # [L1449]
    (DamageTable.HULL, 0, R.NO_EFFECT),
    (DamageTable.HULL, 1, R.DAMAGED),  # 1 à 3 [L1450]
    (DamageTable.HULL, 2, R.DAMAGED),
    (DamageTable.HULL, 3, R.DAMAGED),
    (DamageTable.HULL, 4, R.HEAVILY_DAMAGED),  # [L1451]
    (DamageTable.HULL, 5, R.VIOLENT_CRASH),  # [L1452]
    (DamageTable.HULL, 6, R.DESTROYED),  # [L1453]
    (DamageTable.HULL, 7, R.EXPLODED),  # [L1454]
    (DamageTable.HULL, 11, R.EXPLODED),
]


@pytest.mark.parametrize(("table", "roll", "result"), DAMAGE_CASES)
def test_damage_table_cell(table: DamageTable, roll: int, result: R) -> None:
    assert tables.damage_result(table, roll) == result


# ---------------------------------------------------------------- other tables (§5.10)
@pytest.mark.parametrize(("turn", "target"), [(1, 5), (2, 4), (3, 3), (4, 2), (5, None), (9, None)])
def test_reserve_table(turn: int, target: int | None) -> None:
    assert tables.reserve_target(turn) == target  # [L861-L865]


@pytest.mark.parametrize(("game_round", "target"), [(1, 6), (2, 3), (3, 2), (6, 2)])
def test_dawn_table(game_round: int, target: int) -> None:
    assert tables.dawn_target(game_round) == target  # [L951-L953]


@pytest.mark.parametrize(("game_round", "target"), [(4, 1), (5, 3), (6, 5), (7, None)])
def test_game_length_table(game_round: int, target: int | None) -> None:
    assert tables.game_continues_target(game_round) == target  # [L826]


@pytest.mark.parametrize(
    ("roll", "edge"),
    [(1, "left"), (2, "left"), (3, "right"), (4, "right"), (5, "chosen"), (6, "chosen")],
)
def test_outflank_table(roll: int, edge: str) -> None:
    assert tables.outflank_edge(roll) == edge  # [L876-L878]


@pytest.mark.parametrize("bad", [0, -1])
def test_turn_numbers_start_at_one(bad: int) -> None:
    with pytest.raises(ValueError, match="start at 1"):
        tables.reserve_target(bad)
    with pytest.raises(ValueError, match="start at 1"):
        tables.dawn_target(bad)


@pytest.mark.parametrize(
    ("value", "armour", "clamped"), [(0, False, 1), (11, False, 10), (15, True, 14), (13, True, 13)]
)
def test_characteristic_caps(value: int, armour: bool, clamped: int) -> None:
    assert tables.clamp_characteristic(value, armour=armour) == clamped  # [L123]
