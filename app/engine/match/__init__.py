"""Shared, rule-system-neutral match machinery.

- :mod:`.codec`: strict JSON codec for frozen dataclasses (events, commands, mission data);
- :mod:`.events`: typed events, the envelope (who, when, for whom), the compensating ``Undone``;
- :mod:`.log`: the append-only log, ``replay``, versions, undo, JSON export/import (``Match``);
- :mod:`.dice`: rolls recorded with their seed, derived seeds, audits;
- :mod:`.turns`: rounds / turns / phases / steps as data;
- :mod:`.missions`: missions as data files (``data/missions``);
- :mod:`.errors`: coded refusals;
- :mod:`.game`: ``MatchGame``, what every rule system's battle façade offers the match feature;
- :mod:`.battle`: ``BattleGame``, the base class the battle façades share (readers, undo, fork).
"""

from app.engine.match.codec import (
    CodecError,
    JsonObject,
    JsonValue,
    RawJson,
    Tagged,
    TaggedCodec,
    to_json,
)
from app.engine.match.dice import Roll, audit_roll, derive_seed, take_roll
from app.engine.match.errors import LogError, Refusal, RefusalKind, StaleVersion
from app.engine.match.events import Emitted, Envelope, Event, Undone, Viewer, visible_to
from app.engine.match.game import GameStatus, MatchGame
from app.engine.match.log import LOG_FORMAT, Decision, Match, Replayed, RuleBook, replay
from app.engine.match.missions import Mission, MissionError, load_mission, load_missions
from app.engine.match.turns import Advance, Boundary, PhaseSpec, TurnPosition, TurnStructure

__all__ = [
    "LOG_FORMAT",
    "Advance",
    "Boundary",
    "CodecError",
    "Decision",
    "Emitted",
    "Envelope",
    "Event",
    "GameStatus",
    "JsonObject",
    "JsonValue",
    "LogError",
    "Match",
    "MatchGame",
    "Mission",
    "MissionError",
    "PhaseSpec",
    "RawJson",
    "Refusal",
    "RefusalKind",
    "Replayed",
    "Roll",
    "RuleBook",
    "StaleVersion",
    "Tagged",
    "TaggedCodec",
    "TurnPosition",
    "TurnStructure",
    "Undone",
    "Viewer",
    "audit_roll",
    "derive_seed",
    "load_mission",
    "load_missions",
    "replay",
    "take_roll",
    "to_json",
    "visible_to",
]
