"""The tables of PEN, cell for cell (note ``rules/pen.md`` §5, seed ``000_f613dfceef96221d``).

Pure data and lookups, no dice: every other module reads the rules from here.
Each table is typed in the shape the seed prints it, so a reviewer can hold it beside the seed line.
"""

from __future__ import annotations

from enum import StrEnum
from fractions import Fraction

from app.engine.pen.codes import RollCode

__all__ = [
    "BS_TABLE",
    "CHARACTERISTIC_MAX",
    "DAWN_TABLE",
    "GAME_LENGTH_TABLE",
    "HULL_ROWS",
    "MOBILITY_ROWS",
    "RESERVE_TABLE",
    "WEAPON_ROWS",
    "WOUND_TABLE",
    "WS_FROM_DISTANCE",
    "WS_TABLE",
    "DamageResult",
    "DamageTable",
    "Location",
    "OutflankEdge",
    "armour_save_after_ap",
    "bs_cover_malus",
    "clamp_characteristic",
    "cover_type_save",
    "damage_result",
    "dawn_target",
    "feel_no_pain_target",
    "game_continues_target",
    "hit_location",
    "outflank_edge",
    "reserve_target",
    "shooting_code",
    "snap_fire_bs",
    "wound_code",
    "ws_code",
    "ws_for_unit_without_ws",
]

CHARACTERISTIC_MAX = 10  # [L123] no characteristic above 10 ...
ARMOUR_MAX = 14  # [L123] ... 14 for armour values
CHARACTERISTIC_MIN = 1  # [L123] none below 1


def clamp_characteristic(value: int, *, armour: bool = False) -> int:
    """Clamp a modified characteristic to 1..10 (armour 1..14) [L123], note §8 item 8."""
    return max(CHARACTERISTIC_MIN, min(ARMOUR_MAX if armour else CHARACTERISTIC_MAX, value))


# --------------------------------------------------------------------------------------------
# §5.1 To hit, shooting [L1299-L1309]: CT -> (to-hit code, cover-save malus)
# --------------------------------------------------------------------------------------------
BS_TABLE: dict[int, tuple[str, int]] = {
    1: ("6", 0),  # [L1300]
    2: ("5+", 0),  # [L1301]
    3: ("4+", 0),  # [L1302]
    4: ("3+", 0),  # [L1303]
    5: ("2+", 0),  # [L1304]
    6: ("2+ re", 0),  # [L1305]
    7: ("2+ re", 1),  # [L1306]
    8: ("2+ re", 2),  # [L1307]
    9: ("2+ re", 3),  # [L1308]
    10: ("2+ re", 4),  # [L1309]
}


def shooting_code(bs: int) -> RollCode:
    """To-hit code for a final BS (clamped to 1..10: BS 1 at worst hits on a 6, [L1328])."""
    return RollCode.parse(BS_TABLE[clamp_characteristic(bs)][0])


def bs_cover_malus(bs: int) -> int:
    """Cover-save malus for a final BS >= 7: BS - 6 [L1327], capped by BS 10 [L1309]."""
    return BS_TABLE[clamp_characteristic(bs)][1]


def snap_fire_bs(bs: int) -> int:
    """Snap fire: BS halved, rounded down, never below 1, after all BS modifiers [L517-L519]."""
    return max(1, clamp_characteristic(bs) // 2)


# --------------------------------------------------------------------------------------------
# §5.3 To hit, close combat [L1344-L1355]: row = attacker WS, column = defender WS 1..10
# --------------------------------------------------------------------------------------------
WS_TABLE: dict[int, tuple[str, ...]] = {
    1: ("4+", "4+", "5+", "5+", "5+", "6", "6", "6", "6", "6"),  # [L1346]
    2: ("3+", "4+", "4+", "5+", "5+", "5+", "5+", "6", "6", "6"),  # [L1347]
    3: ("3+", "3+", "4+", "4+", "5+", "5+", "5+", "5+", "5+", "6"),  # [L1348]
    4: ("3+", "3+", "3+", "4+", "4+", "5+", "5+", "5+", "5+", "5+"),  # [L1349]
    5: ("2+", "3+", "3+", "3+", "4+", "4+", "5+", "5+", "5+", "5+"),  # [L1350]
    6: ("2+", "2+", "3+", "3+", "3+", "4+", "4+", "5+", "5+", "5+"),  # [L1351]
    7: ("2+", "2+", "2+", "3+", "3+", "3+", "4+", "4+", "5+", "5+"),  # [L1352]
    8: ("2+", "2+", "2+", "2+", "3+", "3+", "3+", "4+", "4+", "5+"),  # [L1353]
    9: ("2+", "2+", "2+", "2+", "2+", "3+", "3+", "3+", "4+", "4+"),  # [L1354]
    10: ("2+", "2+", "2+", "2+", "2+", "2+", "3+", "3+", "3+", "4+"),  # [L1355]
}


def ws_code(attacker_ws: int, defender_ws: int) -> RollCode:
    """Close-combat to-hit code (a lookup, not a formula on the WS difference) [L1344-L1355]."""
    row = WS_TABLE[clamp_characteristic(attacker_ws)]
    return RollCode.parse(row[clamp_characteristic(defender_ws) - 1])


# [L1360-L1361] a unit without WS gets one from the distance it moved
WS_FROM_DISTANCE: tuple[tuple[str, int], ...] = (
    (">= 0 to 12", 1),
    ("> 12 to 18", 3),
    ("> 18", 5),
    ("aircraft passing", 7),
)


def ws_for_unit_without_ws(moved_inches: int, *, aircraft_passing: bool = False) -> int:
    """WS of a model with no WS, from the distance it moved this turn [L1358-L1361]."""
    if aircraft_passing:
        return 7
    if moved_inches > 18:
        return 5
    if moved_inches > 12:
        return 3
    return 1


# --------------------------------------------------------------------------------------------
# §5.5 To wound [L1376-L1387]: row = S 1..10, column = T 1..10
# --------------------------------------------------------------------------------------------
_R = "2+ re"
_L = "6/4+"
WOUND_TABLE: dict[int, tuple[str, ...]] = {
    1: ("4+", "5+", "6", _L, _L, _L, _L, _L, _L, _L),  # [L1378]
    2: ("3+", "4+", "5+", "6", _L, _L, _L, _L, _L, _L),  # [L1379]
    3: ("2+", "3+", "4+", "5+", "6", _L, _L, _L, _L, _L),  # [L1380]
    4: (_R, "2+", "3+", "4+", "5+", "6", _L, _L, _L, _L),  # [L1381]
    5: (_R, _R, "2+", "3+", "4+", "5+", "6", _L, _L, _L),  # [L1382]
    6: (_R, _R, _R, "2+", "3+", "4+", "5+", "6", _L, _L),  # [L1383]
    7: (_R, _R, _R, _R, "2+", "3+", "4+", "5+", "6", _L),  # [L1384]
    8: (_R, _R, _R, _R, _R, "2+", "3+", "4+", "5+", "6"),  # [L1385]
    9: (_R, _R, _R, _R, _R, _R, "2+", "3+", "4+", "5+"),  # [L1386]
    10: (_R, _R, _R, _R, _R, _R, _R, "2+", "3+", "4+"),  # [L1387]
}


def wound_code(strength: int, toughness: int) -> RollCode:
    """To-wound code for S against T [L1376-L1390] (both clamped to 1..10, [L123])."""
    row = WOUND_TABLE[clamp_characteristic(strength)]
    return RollCode.parse(row[clamp_characteristic(toughness) - 1])


def is_mortelle_by_strength(strength: int, toughness: int) -> bool:
    """A wound with S >= 2 x T is *mortelle* [L1391]."""
    return strength >= 2 * toughness


def feel_no_pain_target(strength: int | None, toughness: int) -> int:
    """Insensible à la douleur: S > T -> 6; S = T -> 5+; S < T -> 4+ [L426].

    A wound without a strength counts as S = T (note §8 item 10).
    """
    if strength is None or strength == toughness:
        return 5
    return 6 if strength > toughness else 4


# --------------------------------------------------------------------------------------------
# §2.8 AP [L617-L622]: the armour save left after AP (None = no save)
# --------------------------------------------------------------------------------------------
def armour_save_after_ap(save: int | None, ap: int | None) -> int | None:
    """Armour save after AP: > AP ignored; = AP -> 6+ (AP6 ignores a 6+); = AP-1 -> -1 [L619-L621].

    ``ap`` None is "PA -" (no penetration); ``save`` may be 1 (better than 2+, capped later by
    [L1412]). A 6+ save worsened to 7+ is no save.
    """
    if save is None:
        return None
    if ap is None:
        return save
    if save > ap:
        return None  # [L619]
    if save == ap:
        return None if ap == 6 else 6  # [L620]
    if save == ap - 1:
        worse = save + 1  # [L621]
        return worse if worse <= 6 else None
    return save


def save_code(save: int | None) -> RollCode | None:
    """The save actually rolled: saves better than 2+ become "2+ re 4+" [L1412] (note §8 item 9)."""
    if save is None:
        return None
    if save <= 1:
        return RollCode(2, 4)
    return RollCode(save)


# --------------------------------------------------------------------------------------------
# §5.4 Cover [L734-L736], [L1363-L1370]
# --------------------------------------------------------------------------------------------
class CoverType(StrEnum):
    HEAVY = "heavy"  # couvert lourd [L734]
    MEDIUM = "medium"  # couvert moyen [L735]
    LIGHT = "light"  # couvert léger [L736]
    SCREEN = "screen"  # escouade écran / open transport [L743], [L319]


_COVER_SAVES: dict[CoverType, int] = {
    CoverType.HEAVY: 3,
    CoverType.MEDIUM: 4,
    CoverType.LIGHT: 5,
    CoverType.SCREEN: 3,
}


def cover_type_save(cover: CoverType) -> int:
    """Base cover save of a cover type [L734-L736], screens 3+ [L743]."""
    return _COVER_SAVES[cover]


def modified_cover_save(
    base: int | None,
    *,
    hardened: bool,
    bs_malus: int = 0,
    hidden_bonus: int = 0,
    visible_malus: int = 0,
) -> int | None:
    """Cover save after every modifier, summed then clamped to 2+..6+ (note §8 item 44).

    ``hardened``: the model has a 2+ or 3+ armour save or an invulnerable save: -1 [L1368].
    ``bs_malus``: (BS - 6) of the shooter [L1327]; ``hidden_bonus``: +2 (+1 bikes) [L1099];
    ``visible_malus``: 1 or 2 for vehicles / MCs 50% / 75% visible [L762].
    Maluses never make it worse than 6+ [L1370]; the bonus never better than 2+ [L1102].
    """
    if base is None:
        return None
    value = base + (1 if hardened else 0) + bs_malus + visible_malus - hidden_bonus
    return max(2, min(6, value))


# --------------------------------------------------------------------------------------------
# §5.9 Vehicle hit location [L1420-L1426] and damage tables [L1434-L1454]
# --------------------------------------------------------------------------------------------
class Location(StrEnum):
    WEAPONS = "weapons"  # Armement
    MOBILITY = "mobility"  # Système de locomotion
    HULL = "hull"  # Coque


def hit_location(total: int, announced: Location = Location.HULL) -> Location:
    """Location from 1D6 + BS: 2 weapons, 3 mobility, 4-7 hull, >= 8 announced [L1422-L1426].

    The seed starts the table at 2 (the lowest D6 + BS); a total below 2 cannot occur.
    """
    if total <= 2:
        return Location.WEAPONS
    if total == 3:
        return Location.MOBILITY
    if total <= 7:
        return Location.HULL
    return announced


class DamageTable(StrEnum):
    WEAPONS = "weapons"
    MOBILITY = "mobility"
    HULL = "hull"


class DamageResult(StrEnum):
    NO_EFFECT = "no_effect"  # Aucun effet
    SHAKEN = "shaken"  # Secoué [L1436]
    WEAPONS_DAMAGED = "weapons_damaged"  # Armes endommagées [L1437]
    WEAPON_DESTROYED = "weapon_destroyed"  # Arme détruite [L1438]
    WEAPON_EXPLODES = "weapon_explodes"  # Arme explosée [L1439]
    DRIVER_STUNNED = "driver_stunned"  # Pilote sonné [L1443]
    REDUCED_MOBILITY = "reduced_mobility"  # Mobilité réduite [L1444]
    IMMOBILISED = "immobilised"  # Immobilisé [L1445]
    CRASH = "crash"  # Crash [L1446]
    DAMAGED = "damaged"  # Endommagé [L1450]
    HEAVILY_DAMAGED = "heavily_damaged"  # Très endommagé [L1451]
    VIOLENT_CRASH = "violent_crash"  # Crash violent [L1452]
    DESTROYED = "destroyed"  # Détruit [L1453]
    EXPLODED = "exploded"  # Explosé [L1454]


# Rows of each table in order, each with the lowest modified roll that reads it.
WEAPON_ROWS: tuple[tuple[int | None, DamageResult], ...] = (
    (None, DamageResult.NO_EFFECT),  # <= 0 [L1435]
    (1, DamageResult.SHAKEN),  # 1 ou 2 [L1436]
    (3, DamageResult.WEAPONS_DAMAGED),  # 3 ou 4 [L1437]
    (5, DamageResult.WEAPON_DESTROYED),  # 5 [L1438]
    (6, DamageResult.WEAPON_EXPLODES),  # >= 6 [L1439]
)
MOBILITY_ROWS: tuple[tuple[int | None, DamageResult], ...] = (
    (None, DamageResult.NO_EFFECT),  # <= 0 [L1442]
    (1, DamageResult.DRIVER_STUNNED),  # 1 ou 2 [L1443]
    (3, DamageResult.REDUCED_MOBILITY),  # 3 ou 4 [L1444]
    (5, DamageResult.IMMOBILISED),  # 5 [L1445]
    (6, DamageResult.CRASH),  # >= 6 [L1446]
)
HULL_ROWS: tuple[tuple[int | None, DamageResult], ...] = (
    (None, DamageResult.NO_EFFECT),  # <= 0 [L1449]
    (1, DamageResult.DAMAGED),  # 1 à 3 [L1450]
    (4, DamageResult.HEAVILY_DAMAGED),  # 4 [L1451]
    (5, DamageResult.VIOLENT_CRASH),  # 5 [L1452]
    (6, DamageResult.DESTROYED),  # 6 [L1453]
    (7, DamageResult.EXPLODED),  # >= 7 [L1454]
)
TABLE_ROWS: dict[DamageTable, tuple[tuple[int | None, DamageResult], ...]] = {
    DamageTable.WEAPONS: WEAPON_ROWS,
    DamageTable.MOBILITY: MOBILITY_ROWS,
    DamageTable.HULL: HULL_ROWS,
}


def damage_row(table: DamageTable, roll: int) -> int:
    """Index of the row of ``table`` read by a modified damage roll [L1434-L1454]."""
    index = 0
    for i, (low, _result) in enumerate(TABLE_ROWS[table]):
        if low is not None and roll >= low:
            index = i
    return index


def damage_result(table: DamageTable, roll: int) -> DamageResult:
    """Result read on ``table`` by a modified damage roll [L1434-L1454]."""
    return TABLE_ROWS[table][damage_row(table, roll)][1]


# --------------------------------------------------------------------------------------------
# §5.10 Other tables
# --------------------------------------------------------------------------------------------
# Reserves [L860-L865]: your n-th turn -> D6 target; None = automatically available
RESERVE_TABLE: dict[int, int | None] = {1: 5, 2: 4, 3: 3, 4: 2}


def reserve_target(turn: int) -> int | None:
    """D6 needed for a reserve squad on your ``turn`` (None: automatic from turn 5) [L860-L865]."""
    if turn < 1:
        raise ValueError(f"turns start at 1, got {turn}")
    return RESERVE_TABLE.get(turn)


# Dawn [L950-L953]: game round -> D6 target for day to break
DAWN_TABLE: dict[int, int] = {1: 6, 2: 3}


def dawn_target(game_round: int) -> int:
    """D6 target for day to break at the start of ``game_round`` (>= 3: 2+) [L950-L953]."""
    if game_round < 1:
        raise ValueError(f"rounds start at 1, got {game_round}")
    return DAWN_TABLE.get(game_round, 2)


# Game length [L826]: end of round -> D6 target to continue (7: the game always ends)
GAME_LENGTH_TABLE: dict[int, int | None] = {5: 3, 6: 5, 7: None}


def game_continues_target(game_round: int) -> int | None:
    """D6 needed for the game to go on after ``game_round`` (None: it ends) [L826]."""
    if game_round < 5:
        return 1  # no roll before the end of round 5: the game always goes on
    return GAME_LENGTH_TABLE.get(game_round)


class OutflankEdge(StrEnum):
    LEFT = "left"
    RIGHT = "right"
    CHOSEN = "chosen"


def outflank_edge(roll: int) -> OutflankEdge:
    """Outflank D6: 1-2 left, 3-4 right, 5-6 the chosen edge [L875-L878]."""
    if roll <= 2:
        return OutflankEdge.LEFT
    if roll <= 4:
        return OutflankEdge.RIGHT
    return OutflankEdge.CHOSEN


def code_probability(code: str) -> Fraction:
    """Probability of a printed code, e.g. "2+ re" = 35/36 (note §5.1)."""
    return RollCode.parse(code).probability()
