"""Missions as data: objective markers, set-up sequence, battle length, scoring, victory.

A mission is a JSON file (``data/missions/*.json``, format ``auspex-mission/1``) decoded into
the frozen :class:`Mission`. The format is shared by every rule system: it names the rule system
it is written for, and a rule system refuses a mission that uses a step, scoring window or
victory rule it does not implement (see ``wh40k10e.battle.check_mission``), so a narrative
mission of another edition can be added as data without touching this module.

Fields (every distance in inches):

- ``battle_sizes``: ``[{id, points, battlefield: {width, depth}, duration_hours?}]``;
- ``objectives``: ``markers`` (``[{id, x?, y?}]``: fixed positions when given), ``placement``
  (``"fixed"`` or ``"alternate"``: players place them in turn), ``first_placer`` (who places
  first, e.g. ``"roll_off:objectives"``), ``min_edge_distance`` / ``min_separation`` (checked
  when positions are given; strictly more than), ``range`` (``{horizontal, vertical}``);
- ``deployment``: ``order``, ``first`` and ``zones`` (described, not computed);
- ``sequence``: the set-up steps in order (``{step, purpose?, params?}``);
- ``length``: ``rounds`` and optional ``extensions`` (a die roll at the end of a round decides
  whether the battle goes on: ``{after_round, roller, continue_on}``);
- ``end_conditions``: e.g. ``["army_destroyed"]``;
- ``scoring``: windows ``{id, when, who, source, per_marker, max_per_window, from_round,
  to_round}``;
- ``victory``: ``{army_destroyed, otherwise, tie}``;
- ``options``: rule-system options (JSON values).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from app.engine.match.codec import CodecError, RawJson, decoder_for, to_json

__all__ = [
    "MISSIONS_DIR",
    "MISSION_FORMAT",
    "BattleLength",
    "BattleSizeSpec",
    "Battlefield",
    "DeploymentSpec",
    "LengthExtension",
    "MarkerSpec",
    "Mission",
    "MissionError",
    "ObjectiveRange",
    "ObjectivesSpec",
    "ScoringRule",
    "SetupStep",
    "VictorySpec",
    "ZoneSpec",
    "load_mission",
    "load_mission_file",
    "load_missions",
    "mission_to_json",
]

MISSION_FORMAT = "auspex-mission/1"
MISSIONS_DIR = Path(__file__).resolve().parents[3] / "data" / "missions"
"""Where the shipped missions live in a source checkout (the repository's ``data/missions``)."""


class MissionError(CodecError):
    """A mission file that is not a valid ``auspex-mission/1`` document."""


def _floats(obj: object, *names: str) -> None:
    """Store int values of float fields as floats, so that JSON round trips are exact."""
    for name in names:
        value = getattr(obj, name)
        if isinstance(value, int) and not isinstance(value, bool):
            object.__setattr__(obj, name, float(value))


@dataclass(frozen=True, slots=True)
class Battlefield:
    width: float
    depth: float

    def __post_init__(self) -> None:
        _floats(self, "width", "depth")


@dataclass(frozen=True, slots=True)
class BattleSizeSpec:
    id: str
    points: int
    battlefield: Battlefield
    name: Mapping[str, str] = field(default_factory=dict)
    duration_hours: int | None = None


@dataclass(frozen=True, slots=True)
class MarkerSpec:
    id: str
    x: float | None = None
    y: float | None = None

    def __post_init__(self) -> None:
        _floats(self, "x", "y")


@dataclass(frozen=True, slots=True)
class ObjectiveRange:
    horizontal: float = 3.0
    vertical: float = 5.0

    def __post_init__(self) -> None:
        _floats(self, "horizontal", "vertical")


@dataclass(frozen=True, slots=True)
class ObjectivesSpec:
    markers: tuple[MarkerSpec, ...]
    placement: str = "fixed"
    first_placer: str | None = None
    min_edge_distance: float | None = None
    min_separation: float | None = None
    range: ObjectiveRange = field(default_factory=ObjectiveRange)

    def __post_init__(self) -> None:
        _floats(self, "min_edge_distance", "min_separation")


@dataclass(frozen=True, slots=True)
class ZoneSpec:
    role: str
    shape: str
    depth: float | None = None
    note: str = ""

    def __post_init__(self) -> None:
        _floats(self, "depth")


@dataclass(frozen=True, slots=True)
class DeploymentSpec:
    order: str = "alternate"
    first: str = "attacker"
    zones: tuple[ZoneSpec, ...] = ()


@dataclass(frozen=True, slots=True)
class SetupStep:
    step: str
    purpose: str | None = None
    params: RawJson = None


@dataclass(frozen=True, slots=True)
class LengthExtension:
    after_round: int
    roller: str
    continue_on: int


@dataclass(frozen=True, slots=True)
class BattleLength:
    rounds: int
    extensions: tuple[LengthExtension, ...] = ()

    @property
    def max_rounds(self) -> int:
        return max([self.rounds, *(e.after_round + 1 for e in self.extensions)])


@dataclass(frozen=True, slots=True)
class ScoringRule:
    id: str
    when: str
    who: str
    source: str = "controlled_markers"
    per_marker: int = 1
    max_per_window: int | None = None
    from_round: int = 1
    to_round: int | None = None
    name: Mapping[str, str] = field(default_factory=dict)

    def applies_in(self, round_: int) -> bool:
        return round_ >= self.from_round and (self.to_round is None or round_ <= self.to_round)


@dataclass(frozen=True, slots=True)
class VictorySpec:
    army_destroyed: str = "opponent_wins"
    otherwise: str = "most_vp"
    tie: str = "draw"


@dataclass(frozen=True, slots=True)
class Mission:
    format: str
    id: str
    rule_system: str
    name: Mapping[str, str]
    battle_sizes: tuple[BattleSizeSpec, ...]
    objectives: ObjectivesSpec
    sequence: tuple[SetupStep, ...]
    length: BattleLength
    source: str = ""
    deployment: DeploymentSpec = field(default_factory=DeploymentSpec)
    end_conditions: tuple[str, ...] = ()
    scoring: tuple[ScoringRule, ...] = ()
    victory: VictorySpec = field(default_factory=VictorySpec)
    options: Mapping[str, RawJson] = field(default_factory=dict)

    def battle_size(self, size_id: str) -> BattleSizeSpec:
        for s in self.battle_sizes:
            if s.id == size_id:
                return s
        raise KeyError(size_id)

    def marker_ids(self) -> tuple[str, ...]:
        return tuple(m.id for m in self.objectives.markers)

    def option(self, name: str, default: object = None) -> object:
        return self.options.get(name, default)


def _check(mission: Mission) -> Mission:
    problems: list[tuple[str, str]] = []
    if mission.format != MISSION_FORMAT:
        problems.append(("format", f"expected {MISSION_FORMAT!r}"))
    if not mission.id:
        problems.append(("id", "must not be empty"))
    sizes = [s.id for s in mission.battle_sizes]
    if not sizes:
        problems.append(("battle_sizes", "at least one battle size is needed"))
    if len(set(sizes)) != len(sizes):
        problems.append(("battle_sizes", "battle size ids must be unique"))
    for i, s in enumerate(mission.battle_sizes):
        if s.points <= 0 or s.battlefield.width <= 0 or s.battlefield.depth <= 0:
            problems.append((f"battle_sizes[{i}]", "points and battlefield must be positive"))
    markers = mission.marker_ids()
    if len(set(markers)) != len(markers):
        problems.append(("objectives.markers", "marker ids must be unique"))
    if mission.objectives.placement not in ("fixed", "alternate"):
        problems.append(("objectives.placement", "expected 'fixed' or 'alternate'"))
    if mission.objectives.placement == "fixed" and any(
        m.x is None or m.y is None for m in mission.objectives.markers
    ):
        problems.append(("objectives.markers", "fixed markers need x and y"))
    if mission.length.rounds < 1:
        problems.append(("length.rounds", "must be at least 1"))
    for i, ext in enumerate(mission.length.extensions):
        if ext.after_round < mission.length.rounds or not 1 <= ext.continue_on <= 7:
            problems.append((f"length.extensions[{i}]", "after_round >= rounds, continue_on 1..7"))
    ids = [r.id for r in mission.scoring]
    if len(set(ids)) != len(ids):
        problems.append(("scoring", "scoring rule ids must be unique"))
    for i, r in enumerate(mission.scoring):
        if r.per_marker < 0 or r.from_round < 1 or (r.max_per_window or 0) < 0:
            problems.append((f"scoring[{i}]", "per_marker, max_per_window >= 0, from_round >= 1"))
    if problems:
        path, message = problems[0]
        err = MissionError(path, message)
        err.args = ("; ".join(f"{p}: {m}" for p, m in problems),)
        raise err
    return mission


def load_mission(data: object) -> Mission:
    """Decode and check a mission (a JSON string or already parsed data)."""
    if isinstance(data, str | bytes):
        try:
            data = json.loads(data)
        except ValueError as exc:
            raise MissionError("", f"not JSON: {exc}") from None
    try:
        mission = decoder_for(Mission)(data, "")
    except MissionError:
        raise
    except CodecError as exc:
        raise MissionError(exc.path, exc.message) from None
    assert isinstance(mission, Mission)
    return _check(mission)


def load_mission_file(path: str | Path) -> Mission:
    return load_mission(Path(path).read_text(encoding="utf-8"))


def load_missions(directory: str | Path = MISSIONS_DIR) -> dict[str, Mission]:
    """Every ``*.json`` mission of a directory, by id (sorted by file name)."""
    out: dict[str, Mission] = {}
    for path in sorted(Path(directory).glob("*.json")):
        mission = load_mission_file(path)
        if mission.id in out:
            raise MissionError("id", f"two mission files use the id {mission.id!r}")
        out[mission.id] = mission
    return out


def mission_to_json(mission: Mission) -> dict[str, object]:
    data = to_json(mission)
    assert isinstance(data, dict)
    return data
