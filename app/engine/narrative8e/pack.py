"""Narrative mission packs as data: the format ``auspex-narrative-pack/1`` and its loader.

A pack is one JSON document (``data/missions/narrative-8e/*.json``; ``docs/mission-packs.md``
describes every field) holding the numbers and tables of a set of narrative missions: the
parameters of the narrative rules, the missions (who attacks, how each side deploys, reserves,
first turn, victory), their stratagems, and optional combat zones and expansions. It carries no
rules prose: names in English and French, short ids, numbers and seed line references.

:func:`load_pack` decodes a pack with the match codec (unknown keys, missing keys and wrong
types are refused with the path of the offending value), then checks bounds (sizes, counts,
lengths) and cross references (a mission's stratagem scopes, evaluator ids, dice thresholds).
Every problem found is reported at once in :attr:`PackError.errors`, each with its path.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from app.engine.match.codec import CodecError, RawJson, decoder_for

__all__ = [
    "DEFAULT_NARRATIVE_STARTING_CP",
    "EXPANSION_IDS",
    "MAX_PACK_BYTES",
    "PACKS_DIR",
    "PACK_FORMAT",
    "TROOPS_KEYWORDS",
    "VALUE_MEASURES",
    "AttackerSelection",
    "BombardmentRule",
    "CombatZone",
    "Cost",
    "CostKind",
    "DetectionBand",
    "Evaluator",
    "Expansion",
    "FirstTurn",
    "GameLengthCheck",
    "HiddenDeploymentMode",
    "Mission",
    "MissionPack",
    "NarrativeRules",
    "PackError",
    "ReserveMode",
    "ReservePolicy",
    "ResultKind",
    "RulesRef",
    "SentryRule",
    "Side",
    "Stratagem",
    "SustainedAssaultRule",
    "TableRow",
    "WeaponProfile",
    "check_expansion",
    "load_pack",
    "load_pack_file",
    "load_packs",
]

PACK_FORMAT = "auspex-narrative-pack/1"
PACKS_DIR = Path(__file__).resolve().parents[3] / "data" / "missions" / "narrative-8e"
"""Where the shipped packs live in a source checkout."""

MAX_PACK_BYTES = 512 * 1024
MAX_MISSIONS = 32
MAX_STRATAGEMS = 24
MAX_LIST = 64
MAX_TEXT = 400
MAX_ID = 40
LANGUAGES = ("en", "fr")
VALUE_MEASURES = ("points", "power")
"""What "army value" and "unit value" mean (docs/rulings/narrative-8e.md, 1 and 84)."""
TROOPS_KEYWORDS = ("BATTLELINE", "INFANTRY")
"""The 10th-edition keywords a match may choose to stand for the book's Troops (rulings 2, 84):
any non-empty subset; a pack may name others as its default."""
EXPANSION_IDS = ("planetstrike", "cities-of-death", "stronghold-assault", "death-from-the-skies")
"""The expansions the engine plays (its mechanics are keyed by these ids): a pack's expansion,
shipped or uploaded, is one of them with its own numbers (ruling 86)."""
DEFAULT_NARRATIVE_STARTING_CP = 3
"""The 8th edition's CP of a Battle-forged army before the battle, the base the seed's set-up
stratagems are priced on (Preliminary Bombardment: 3 CP)."""


class PackError(CodecError):
    """A pack that is not a valid ``auspex-narrative-pack/1`` document.

    ``errors`` lists every (path, message) found, the first one also in ``path``/``message``.
    """

    def __init__(self, path: str, message: str) -> None:
        super().__init__(path, message)
        self.errors: tuple[tuple[str, str], ...] = ((path, message),)

    @classmethod
    def collect(cls, problems: list[tuple[str, str]]) -> PackError:
        err = cls(*problems[0])
        err.errors = tuple(problems)
        err.args = ("; ".join(f"{p or '(root)'}: {m}" for p, m in problems),)
        return err


class Side(enum.StrEnum):
    ATTACKER = "attacker"
    DEFENDER = "defender"
    BOTH = "both"


class AttackerSelection(enum.StrEnum):
    HIGHER = "higher"
    """The army worth more is the Attacker; equal values roll off."""
    RATIO = "ratio"
    """The army worth at least ``ratio`` times the other is the Attacker; otherwise roll off."""


class FirstTurn(enum.StrEnum):
    ATTACKER = "attacker"
    ATTACKER_D6 = "attacker_d6"
    """The Attacker rolls a D6: at most ``attacker_first_up_to`` the Attacker goes first."""
    ROLL_OFF_CHOOSE = "roll_off_choose"
    """Roll off, re-rolling ties; the winner chooses who goes first."""


class HiddenDeploymentMode(enum.StrEnum):
    NONE = "none"
    DEFENDER = "defender"
    REVERSED = "reversed"
    """The Attacker places tokens and deploys first."""


class ReserveMode(enum.StrEnum):
    NONE = "none"
    """No unit may arrive later."""
    ROLL = "roll"
    """A D6 per unit at the end of own Movement phases from ``from_round``/``from_own_phase``."""
    FREE = "free"
    """Any reserve unit may arrive at the end of any own Movement phase."""
    ALARM = "alarm"
    """Nothing before the alarm; the first own turn after it rolls ``first_turn_after_alarm_on``,
    later turns arrive freely."""


class CostKind(enum.StrEnum):
    FIXED = "fixed"
    VARIABLE = "variable"
    TIERED = "tiered"


class Evaluator(enum.StrEnum):
    LAST_STAND = "last_stand"
    ESCAPE = "escape"
    UNITS_DESTROYED = "units_destroyed"
    BREAKTHROUGH = "breakthrough"
    SABOTAGE = "sabotage"
    RESCUE = "rescue"


class ResultKind(enum.StrEnum):
    MAJOR_VICTORY = "major_victory"
    VICTORY = "victory"
    DRAW = "draw"


@dataclass(frozen=True, slots=True)
class GameLengthCheck:
    after_round: int
    roller: str
    """``"first"`` (the player who had the first turn) or ``"second"``."""
    continue_on: int


@dataclass(frozen=True, slots=True)
class DetectionBand:
    up_to: int | None
    """Highest unit value (points or Power Level) in this band; ``None``: no upper bound."""
    range: int


@dataclass(frozen=True, slots=True)
class BombardmentRule:
    hit_on: int = 6
    damage: str = "D6"
    ground_damage: str = "D3"
    source: str = ""


@dataclass(frozen=True, slots=True)
class SentryRule:
    max_models: int
    max_points: int
    max_power: int
    troops_keywords: tuple[str, ...]
    detection_points: tuple[DetectionBand, ...]
    detection_power: tuple[DetectionBand, ...]
    source: str = ""


@dataclass(frozen=True, slots=True)
class SustainedAssaultRule:
    return_on: int
    troops_bonus: int
    edge_distance: int
    cull_numerator: int
    cull_denominator: int
    source: str = ""


@dataclass(frozen=True, slots=True)
class NarrativeRules:
    dawn_raid_modifier: int
    dawn_raid_rounds: int
    bombardment: BombardmentRule
    game_length: tuple[GameLengthCheck, ...]
    game_length_last_round: int
    reserves_from_own_phase: int
    reserves_arrive_on: int
    sentries: SentryRule
    sustained_assault: SustainedAssaultRule
    decoys_per_use: int
    starting_cp: int = DEFAULT_NARRATIVE_STARTING_CP
    """The CP each player starts with when the match options leave it unset (not in the
    seed, which only spends CP: docs/rulings/narrative-8e.md, 44)."""
    source: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ReservePolicy:
    mode: ReserveMode
    arrive_on: int | None = None
    from_round: int = 1
    from_own_phase: int = 1
    automatic_at_own_phase: int | None = None
    first_turn_after_alarm_on: int | None = None
    edge: str = ""
    min_enemy_distance: int | None = None


@dataclass(frozen=True, slots=True)
class Cost:
    kind: CostKind
    cp: int = 0
    min: int = 0
    max: int = 0

    def allows(self, spent: int) -> bool:
        if self.kind is CostKind.FIXED:
            return spent == self.cp
        return self.min <= spent <= self.max


@dataclass(frozen=True, slots=True)
class Stratagem:
    id: str
    name: Mapping[str, str]
    side: Side
    cost: Cost
    timing: str
    effect: str
    source: str
    once_per_battle: bool = False
    params: RawJson = None


@dataclass(frozen=True, slots=True)
class RulesRef:
    hidden_deployment: HiddenDeploymentMode = HiddenDeploymentMode.NONE
    preliminary_bombardment: bool = False
    dawn_raid: bool = False
    sustained_assault_edge: str | None = None
    sustained_assault_wholly: bool = False
    sentries_near_centre_numerator: int = 0
    sentries_near_centre_denominator: int = 1
    sentries_centre_range: int = 12


@dataclass(frozen=True, slots=True)
class Mission:
    id: str
    name: Mapping[str, str]
    source: str
    attacker_selection: AttackerSelection
    first_turn: FirstTurn
    rules: RulesRef
    reserves: Mapping[str, ReservePolicy]
    setup: tuple[str, ...]
    zones: tuple[str, ...]
    evaluator: Evaluator
    stratagems: tuple[Stratagem, ...]
    ratio_numerator: int = 1
    ratio_denominator: int = 1
    attacker_first_up_to: int = 0
    random_game_length: bool = True
    recommended_power: tuple[int, ...] = ()
    extra_units: tuple[str, ...] = ()
    deployment_counts: Mapping[str, int] = field(default_factory=dict)
    params: Mapping[str, RawJson] = field(default_factory=dict)

    def stratagem(self, stratagem_id: str) -> Stratagem:
        for s in self.stratagems:
            if s.id == stratagem_id:
                return s
        raise KeyError(stratagem_id)

    def reserve_policy(self, side: Side) -> ReservePolicy:
        return self.reserves[side.value]


@dataclass(frozen=True, slots=True)
class TableRow:
    roll: int
    id: str
    name: Mapping[str, str] = field(default_factory=dict)
    params: RawJson = None


@dataclass(frozen=True, slots=True)
class WeaponProfile:
    id: str
    name: Mapping[str, str]
    type: str
    attacks: str
    range: int
    strength: int
    ap: int
    damage: str
    min_range: int | None = None


@dataclass(frozen=True, slots=True)
class CombatZone:
    id: str
    name: Mapping[str, str]
    source: str
    params: Mapping[str, RawJson] = field(default_factory=dict)
    tables: Mapping[str, tuple[TableRow, ...]] = field(default_factory=dict)
    stratagems: tuple[Stratagem, ...] = ()


@dataclass(frozen=True, slots=True)
class Expansion:
    id: str
    name: Mapping[str, str]
    source: str
    params: Mapping[str, RawJson] = field(default_factory=dict)
    weapons: tuple[WeaponProfile, ...] = ()
    structures: tuple[Mapping[str, RawJson], ...] = ()
    stratagems: tuple[Stratagem, ...] = ()


@dataclass(frozen=True, slots=True)
class MissionPack:
    format: str
    id: str
    name: Mapping[str, str]
    rule_system: str
    source: str
    value_measure: str
    """``"points"`` (default for the 10th edition) or ``"power"`` (Power Level)."""
    rules: NarrativeRules
    missions: tuple[Mission, ...]
    combat_zones: tuple[CombatZone, ...] = ()
    expansions: tuple[Expansion, ...] = ()

    def mission(self, mission_id: str) -> Mission:
        for m in self.missions:
            if m.id == mission_id:
                return m
        raise KeyError(mission_id)

    def combat_zone(self, zone_id: str) -> CombatZone:
        for z in self.combat_zones:
            if z.id == zone_id:
                return z
        raise KeyError(zone_id)

    def expansion(self, expansion_id: str) -> Expansion:
        for x in self.expansions:
            if x.id == expansion_id:
                return x
        raise KeyError(expansion_id)


# -- checks --------------------------------------------------------------------------------

_KEYWORD = re.compile(r"[A-Z][A-Z0-9 _-]{0,39}")


class _Checker:
    def __init__(self) -> None:
        self.problems: list[tuple[str, str]] = []

    def add(self, path: str, message: str) -> None:
        self.problems.append((path, message))

    def ident(self, path: str, value: str) -> None:
        if not value or len(value) > MAX_ID or not all(c.isalnum() or c in "-_" for c in value):
            self.add(path, f"an id of 1 to {MAX_ID} letters, digits, '-' or '_'")

    def names(self, path: str, names: Mapping[str, str]) -> None:
        for lang in LANGUAGES:
            if not names.get(lang, "").strip():
                self.add(f"{path}.{lang}", "a name is needed in English and French")
        for lang, text in names.items():
            if lang not in LANGUAGES:
                self.add(f"{path}.{lang}", f"unknown language (expected one of {LANGUAGES})")
            if len(text) > MAX_TEXT:
                self.add(f"{path}.{lang}", f"at most {MAX_TEXT} characters")

    def die(self, path: str, value: int | None) -> None:
        if value is not None and not 1 <= value <= 7:
            self.add(path, "a D6 threshold from 1 to 7 (7: never)")

    def count(self, path: str, items: tuple[object, ...], bound: int = MAX_LIST) -> None:
        if len(items) > bound:
            self.add(path, f"at most {bound} entries")

    def unique(self, path: str, ids: list[str]) -> None:
        seen: set[str] = set()
        for i in ids:
            if i in seen:
                self.add(path, f"the id {i!r} is used twice")
            seen.add(i)

    def stratagems(self, path: str, items: tuple[Stratagem, ...]) -> None:
        self.count(path, items, MAX_STRATAGEMS)
        self.unique(path, [s.id for s in items])
        for i, s in enumerate(items):
            p = f"{path}[{i}]"
            self.ident(f"{p}.id", s.id)
            self.names(f"{p}.name", s.name)
            c = s.cost
            if c.kind is CostKind.FIXED and not 0 <= c.cp <= 10:
                self.add(f"{p}.cost.cp", "a fixed cost from 0 to 10 CP")
            if c.kind is not CostKind.FIXED and not 0 <= c.min <= c.max <= 10:
                self.add(f"{p}.cost", "variable and tiered costs need 0 <= min <= max <= 10")
            for name, text in (("timing", s.timing), ("effect", s.effect), ("source", s.source)):
                if not text or len(text) > MAX_ID * 2:
                    self.add(f"{p}.{name}", f"1 to {MAX_ID * 2} characters")

    def bands(self, path: str, bands: tuple[DetectionBand, ...]) -> None:
        if not bands or bands[-1].up_to is not None:
            self.add(path, "the last band must have no upper bound (up_to: null)")
        last = -1
        for i, b in enumerate(bands):
            if b.up_to is not None:
                if b.up_to <= last:
                    self.add(f"{path}[{i}].up_to", "bands must rise strictly")
                last = b.up_to
            if not 0 < b.range <= 48:
                self.add(f"{path}[{i}].range", "a range from 1 to 48 inches")


def _check_rules(c: _Checker, r: NarrativeRules) -> None:
    if not -3 <= r.dawn_raid_modifier <= 0:
        c.add("rules.dawn_raid_modifier", "a hit modifier from -3 to 0")
    if not 1 <= r.dawn_raid_rounds <= 7:
        c.add("rules.dawn_raid_rounds", "from 1 to 7 rounds")
    c.die("rules.bombardment.hit_on", r.bombardment.hit_on)
    for name in ("damage", "ground_damage"):
        if getattr(r.bombardment, name) not in ("D3", "D6"):
            c.add(f"rules.bombardment.{name}", "'D3' or 'D6'")
    previous = 0
    for i, g in enumerate(r.game_length):
        if g.after_round <= previous or g.after_round >= r.game_length_last_round:
            c.add(f"rules.game_length[{i}].after_round", "rising, below the last round")
        previous = g.after_round
        if g.roller not in ("first", "second"):
            c.add(f"rules.game_length[{i}].roller", "'first' or 'second'")
        c.die(f"rules.game_length[{i}].continue_on", g.continue_on)
    if not 1 <= r.game_length_last_round <= 10:
        c.add("rules.game_length_last_round", "from 1 to 10")
    c.die("rules.reserves_arrive_on", r.reserves_arrive_on)
    s = r.sentries
    c.bands("rules.sentries.detection_points", s.detection_points)
    c.bands("rules.sentries.detection_power", s.detection_power)
    if not s.troops_keywords:
        c.add("rules.sentries.troops_keywords", "at least one keyword stands for Troops")
    c.count("rules.sentries.troops_keywords", s.troops_keywords, 8)
    for i, k in enumerate(s.troops_keywords):
        if not _KEYWORD.fullmatch(k):
            c.add(f"rules.sentries.troops_keywords[{i}]", "a keyword in capitals (BATTLELINE)")
    for name in ("max_models", "max_points", "max_power"):
        if not 0 < getattr(s, name) <= 10_000:
            c.add(f"rules.sentries.{name}", "from 1 to 10000")
    sa = r.sustained_assault
    c.die("rules.sustained_assault.return_on", sa.return_on)
    if not 0 < sa.cull_numerator <= sa.cull_denominator <= 10:
        c.add("rules.sustained_assault", "0 < cull_numerator <= cull_denominator <= 10")
    if not 0 <= r.decoys_per_use <= 10:
        c.add("rules.decoys_per_use", "from 0 to 10")
    if not 0 <= r.starting_cp <= 20:
        c.add("rules.starting_cp", "from 0 to 20 CP")


def _check_mission(c: _Checker, p: str, m: Mission) -> None:
    c.ident(f"{p}.id", m.id)
    c.names(f"{p}.name", m.name)
    if m.attacker_selection is AttackerSelection.RATIO and not (
        0 < m.ratio_denominator <= m.ratio_numerator <= 100
    ):
        c.add(f"{p}.ratio_numerator", "a ratio of at least 1 (numerator >= denominator > 0)")
    if m.first_turn is FirstTurn.ATTACKER_D6 and not 1 <= m.attacker_first_up_to <= 5:
        c.add(f"{p}.attacker_first_up_to", "from 1 to 5 when the Attacker rolls for it")
    for side in ("attacker", "defender"):
        if side not in m.reserves:
            c.add(f"{p}.reserves.{side}", "a reserve policy is needed for each side")
    for key, policy in m.reserves.items():
        q = f"{p}.reserves.{key}"
        if key not in ("attacker", "defender"):
            c.add(q, "only 'attacker' and 'defender' have reserves")
        c.die(f"{q}.arrive_on", policy.arrive_on)
        c.die(f"{q}.first_turn_after_alarm_on", policy.first_turn_after_alarm_on)
        if policy.mode is ReserveMode.ROLL and policy.arrive_on is None:
            c.add(f"{q}.arrive_on", "a rolled policy needs its threshold")
        if policy.mode is ReserveMode.ALARM and policy.first_turn_after_alarm_on is None:
            c.add(f"{q}.first_turn_after_alarm_on", "an alarm policy needs its threshold")
    rr = m.rules
    if rr.sentries_near_centre_numerator and not (
        0 < rr.sentries_near_centre_numerator <= rr.sentries_near_centre_denominator <= 10
    ):
        c.add(f"{p}.rules.sentries_near_centre_numerator", "a fraction from 0 to 1")
    c.count(f"{p}.setup", m.setup, 24)
    c.count(f"{p}.zones", m.zones, 8)
    c.count(f"{p}.extra_units", m.extra_units, 4)
    for name in ("setup", "zones", "extra_units"):
        for i, step in enumerate(getattr(m, name)):
            c.ident(f"{p}.{name}[{i}]", step)
    for side, n in m.deployment_counts.items():
        if side not in ("attacker", "defender", "attacker_troops", "defender_troops"):
            c.add(f"{p}.deployment_counts.{side}", "attacker, defender or their _troops")
        if not 0 <= n <= 20:
            c.add(f"{p}.deployment_counts.{side}", "from 0 to 20 units")
    c.stratagems(f"{p}.stratagems", m.stratagems)
    for i, s in enumerate(m.stratagems):
        if s.side is Side.BOTH:
            c.add(f"{p}.stratagems[{i}].side", "a mission stratagem belongs to one side")
    if len(m.source) > MAX_TEXT:
        c.add(f"{p}.source", f"at most {MAX_TEXT} characters")


_EXPANSION_PARAMS: dict[str, tuple[int, int]] = {
    "firestorm_dice": (1, 12),
    "firestorm_attacks": (0, 12),
    "reserves_arrive_on": (1, 7),
    "dogfight_front": (-3, 3),
    "dogfight_side": (-3, 3),
    "dogfight_rear": (-3, 3),
    "airspace_delayed_up_to": (0, 6),
}
"""The expansion numbers the match reads, and their bounds (docs/mission-packs.md)."""

_STRUCTURE_NUMBERS: dict[str, tuple[int, int]] = {
    "wounds": (1, 100),
    "capacity": (0, 100),
    "garrison_slain_up_to": (0, 6),
    "extra_heavy_bolters_up_to": (0, 9),
    "toughness": (1, 20),
    "save": (2, 7),
    "skill": (2, 6),
    "power": (0, 100),
    "points": (0, 1000),
    "hit_vs_fly_or_orbit": (-3, 3),
    "hit_otherwise": (-3, 3),
}
"""The numbers of a building the match reads or shows, and their bounds."""

_DICE = re.compile(r"[0-9]{1,2}|[0-9]?D[36]([+][0-9]{1,2})?")


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _plain(c: _Checker, path: str, value: RawJson) -> None:
    """Any other number of an expansion: a number, a short text (a dice expression) or null;
    never a nested object a reader would not expect."""
    if value is None or _number(value):
        return
    if isinstance(value, str) and len(value) <= MAX_ID:
        return
    c.add(path, f"a number, null or a text of at most {MAX_ID} characters")


def _check_expansion(c: _Checker, p: str, x: Expansion) -> None:
    """An expansion's id, names, numbers, weapons and buildings: every field the match reads is
    checked with its bounds, so that a pack (shipped, a club's or uploaded) can never hand the
    battle a number it cannot use."""
    if x.id not in EXPANSION_IDS:
        c.add(f"{p}.id", f"one of the expansions the engine plays: {', '.join(EXPANSION_IDS)}")
    c.names(f"{p}.name", x.name)
    if len(x.source) > MAX_TEXT:
        c.add(f"{p}.source", f"at most {MAX_TEXT} characters")
    c.count(f"{p}.params", tuple(x.params), MAX_LIST)
    for key, value in x.params.items():
        bounds = _EXPANSION_PARAMS.get(key)
        if bounds is None:
            _plain(c, f"{p}.params.{key}", value)
        elif not (value is None and key == "firestorm_attacks") and not (
            isinstance(value, int)
            and not isinstance(value, bool)
            and bounds[0] <= value <= bounds[1]
        ):
            c.add(f"{p}.params.{key}", f"a whole number from {bounds[0]} to {bounds[1]}")
    c.stratagems(f"{p}.stratagems", x.stratagems)
    c.count(f"{p}.weapons", x.weapons, 16)
    c.unique(f"{p}.weapons", [w.id for w in x.weapons])
    weapons = {w.id for w in x.weapons}
    for j, w in enumerate(x.weapons):
        q = f"{p}.weapons[{j}]"
        c.ident(f"{q}.id", w.id)
        c.names(f"{q}.name", w.name)
        if not (0 < w.range <= 240 and 1 <= w.strength <= 20 and -6 <= w.ap <= 0):
            c.add(q, "range 1..240, S 1..20, AP -6..0")
        for name in ("attacks", "damage"):
            if not _DICE.fullmatch(getattr(w, name)):
                c.add(f"{q}.{name}", "a number or a dice expression (3, D6, 2D3, D6+1)")
        if not w.type or len(w.type) > MAX_ID:
            c.add(f"{q}.type", f"1 to {MAX_ID} characters")
        if w.min_range is not None and not 0 <= w.min_range < w.range:
            c.add(f"{q}.min_range", "from 0 to below the range")
    c.count(f"{p}.structures", x.structures, 16)
    kinds: list[str] = []
    for j, st in enumerate(x.structures):
        _check_structure(c, f"{p}.structures[{j}]", st, weapons, kinds)
    c.unique(f"{p}.structures", kinds)


def _check_structure(
    c: _Checker, q: str, st: Mapping[str, RawJson], weapons: set[str], kinds: list[str]
) -> None:
    kind = st.get("id")
    if not isinstance(kind, str):
        c.add(f"{q}.id", "a building needs its id")
    else:
        c.ident(f"{q}.id", kind)
        kinds.append(kind)
    if "wounds" not in st:
        c.add(f"{q}.wounds", "a building needs its wounds")
    c.count(q, tuple(st), 32)
    for key, value in st.items():
        if key == "id":
            continue
        bounds = _STRUCTURE_NUMBERS.get(key)
        if key in ("weapons", "weapons_one_of"):
            items = value if isinstance(value, list) else None
            if items is None or len(items) > 8 or (key == "weapons_one_of" and not items):
                c.add(f"{q}.{key}", "a list of 1 to 8 weapon ids")
                continue
            for k, w in enumerate(items):
                if not isinstance(w, str) or w not in weapons:
                    c.add(f"{q}.{key}[{k}]", "one of this expansion's weapons")
        elif bounds is not None:
            if not (
                isinstance(value, int)
                and not isinstance(value, bool)
                and bounds[0] <= value <= bounds[1]
            ):
                c.add(f"{q}.{key}", f"a whole number from {bounds[0]} to {bounds[1]}")
        else:
            _plain(c, f"{q}.{key}", value)


def check_expansion(data: RawJson, path: str = "expansion") -> Expansion:
    """One expansion (raw JSON, as a match records it) decoded and checked as a pack's are:
    :class:`PackError` with every problem and its path."""
    try:
        x = decoder_for(Expansion)(data, path)
    except CodecError as exc:
        raise PackError(exc.path, exc.message) from None
    assert isinstance(x, Expansion)
    c = _Checker()
    _check_expansion(c, path, x)
    if c.problems:
        raise PackError.collect(c.problems)
    return x


def _check(pack: MissionPack) -> MissionPack:
    c = _Checker()
    if pack.format != PACK_FORMAT:
        c.add("format", f"expected {PACK_FORMAT!r}")
    c.ident("id", pack.id)
    c.names("name", pack.name)
    if pack.value_measure not in ("points", "power"):
        c.add("value_measure", "'points' or 'power'")
    _check_rules(c, pack.rules)
    if not pack.missions:
        c.add("missions", "a pack needs at least one mission")
    c.count("missions", pack.missions, MAX_MISSIONS)
    c.unique("missions", [m.id for m in pack.missions])
    for i, m in enumerate(pack.missions):
        _check_mission(c, f"missions[{i}]", m)
    c.count("combat_zones", pack.combat_zones, 16)
    c.unique("combat_zones", [z.id for z in pack.combat_zones])
    for i, z in enumerate(pack.combat_zones):
        c.ident(f"combat_zones[{i}].id", z.id)
        c.names(f"combat_zones[{i}].name", z.name)
        c.stratagems(f"combat_zones[{i}].stratagems", z.stratagems)
        for t, rows in z.tables.items():
            c.count(f"combat_zones[{i}].tables.{t}", rows, 12)
            rolls = [r.roll for r in rows]
            if sorted(rolls) != list(range(1, len(rows) + 1)):
                c.add(f"combat_zones[{i}].tables.{t}", "rows must cover the rolls 1..n once each")
    c.count("expansions", pack.expansions, 16)
    c.unique("expansions", [x.id for x in pack.expansions])
    for i, x in enumerate(pack.expansions):
        _check_expansion(c, f"expansions[{i}]", x)
    if c.problems:
        raise PackError.collect(c.problems)
    return pack


def load_pack(data: object) -> MissionPack:
    """Decode and check a pack (JSON text, bytes or already parsed data)."""
    if isinstance(data, str | bytes):
        if len(data) > MAX_PACK_BYTES:
            raise PackError("", f"a pack is at most {MAX_PACK_BYTES // 1024} KiB")
        try:
            data = json.loads(data)
        except ValueError as exc:
            raise PackError("", f"not JSON: {exc}") from None
        except RecursionError:  # "[[[[..." nested past the parser's stack
            raise PackError("", "not JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise PackError("", "a pack is a JSON object")
    if data.get("format") != PACK_FORMAT:
        raise PackError("format", f"expected {PACK_FORMAT!r}")
    try:
        pack = decoder_for(MissionPack)(data, "")
    except CodecError as exc:
        raise PackError(exc.path, exc.message) from None
    assert isinstance(pack, MissionPack)
    return _check(pack)


def load_pack_file(path: str | Path) -> MissionPack:
    p = Path(path)
    if p.stat().st_size > MAX_PACK_BYTES:
        raise PackError("", f"a pack is at most {MAX_PACK_BYTES // 1024} KiB")
    return load_pack(p.read_bytes())


def load_packs(directory: str | Path = PACKS_DIR) -> dict[str, MissionPack]:
    """Every ``*.json`` pack of a directory, by id (sorted by file name)."""
    out: dict[str, MissionPack] = {}
    for path in sorted(Path(directory).glob("*.json")):
        pack = load_pack_file(path)
        if pack.id in out:
            raise PackError("id", f"two pack files use the id {pack.id!r}")
        out[pack.id] = pack
    return out
