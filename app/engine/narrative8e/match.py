"""The narrative scenarios as match missions (``auspex-mission/1``) for the 10th-edition battle.

:func:`match_missions` turns every scenario of the shipped packs into a
:class:`~app.engine.match.missions.Mission` the match layer lists beside Only War: the
scenario's id and names, the battle sizes of the 10th edition (the seed gives none), no
objective markers, the set-up skeleton the engine checks, random game length as length
extensions (end of round 5: the first player, 3+; round 6: the second player, 4+; never past
7 [L66-L70]), and ``options["narrative"]``: the pack id, its value measure, its narrative rules
and the scenario, as raw JSON, so a match records at creation everything it plays and replays
never depend on a later edit of the pack.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from app.engine.match.codec import CodecError, RawJson
from app.engine.match.missions import Mission, load_mission
from app.engine.narrative8e.pack import (
    MAX_PACK_BYTES,
    PACKS_DIR,
    MissionPack,
    PackError,
    load_pack,
)

__all__ = [
    "BATTLE_SIZES",
    "PACK_EXPANSIONS",
    "PackListing",
    "ReadPack",
    "RefusedPack",
    "apply_settings",
    "combat_zones",
    "expansions",
    "list_match_missions",
    "match_mission",
    "match_missions",
    "read_pack",
]

BATTLE_SIZES: list[RawJson] = [
    {
        "id": "incursion",
        "points": 1000,
        "battlefield": {"width": 60, "depth": 44},
        "name": {"en": "Incursion", "fr": "Incursion"},
    },
    {
        "id": "strike_force",
        "points": 2000,
        "battlefield": {"width": 60, "depth": 44},
        "name": {"en": "Strike Force", "fr": "Force de Frappe"},
    },
    {
        "id": "onslaught",
        "points": 3000,
        "battlefield": {"width": 90, "depth": 44},
        "name": {"en": "Onslaught", "fr": "Offensive"},
    },
]


PACK_EXPANSIONS = "pack_expansions"
"""The match mission's option listing its pack's expansions (raw): what a match of that
scenario may be played with besides the shipped ones; not recorded in the match (the one chosen
is, as ``options.expansion``)."""


def match_mission(pack: dict[str, RawJson], mission: dict[str, RawJson]) -> Mission:
    """One scenario of a (raw, already validated) pack as a match mission."""
    rules = pack["rules"]
    assert isinstance(rules, dict)
    checks = rules["game_length"]
    assert isinstance(checks, list)
    extensions: list[RawJson] = []
    for c in checks:
        assert isinstance(c, dict)
        roller = "first_player" if c["roller"] == "first" else "second_player"
        extensions.append(
            {"after_round": c["after_round"], "roller": roller, "continue_on": c["continue_on"]}
        )
    first_after = min(
        (int(str(c["after_round"])) for c in checks if isinstance(c, dict)), default=None
    )
    rounds = first_after if first_after is not None else rules["game_length_last_round"]
    doc: dict[str, RawJson] = {
        "format": "auspex-mission/1",
        "id": mission["id"],
        "rule_system": "wh40k-10e",
        "name": mission["name"],
        "source": f"{pack['id']} pack: {mission.get('source', '')}"[:400],
        "battle_sizes": BATTLE_SIZES,
        "objectives": {"markers": [], "placement": "fixed"},
        "deployment": {"order": "alternate", "first": "attacker", "zones": []},
        "sequence": [
            {"step": "roll_off", "purpose": "attacker"},
            {"step": "declare_formations"},
            {"step": "deploy"},
            {"step": "roll_off", "purpose": "first_turn"},
        ],
        "length": {"rounds": rounds, "extensions": extensions},
        "end_conditions": ["army_destroyed"],
        "scoring": [],
        "victory": {"army_destroyed": "opponent_wins", "otherwise": "most_vp", "tie": "draw"},
        "options": {
            "narrative": {
                "pack": pack["id"],
                "value_measure": pack.get("value_measure", "points"),
                "rules": rules,
                "mission": mission,
            },
        },
    }
    offered = pack.get("expansions")
    if isinstance(offered, list) and offered:
        # the pack's own expansions, offered with its scenarios; the match records only the
        # one chosen (``options.expansion``), never this list (PACK_EXPANSIONS)
        options = doc["options"]
        assert isinstance(options, dict)
        options[PACK_EXPANSIONS] = offered
    return load_mission(doc)


def apply_settings(
    mission: Mission,
    *,
    value_measure: str | None = None,
    troops_keywords: list[str] | tuple[str, ...] | None = None,
) -> Mission:
    """The mission a match records: the players' settings written into its narrative block
    (``value_measure``; ``troops_keywords`` as ``rules.sentries.troops_keywords``, which every
    Troops check of the battle reads), and its pack's offered expansions left out. Unset
    settings keep the pack's values, so a match created without them records what it always
    did (docs/rulings/narrative-8e.md, 84)."""
    options = {k: v for k, v in mission.options.items() if k != PACK_EXPANSIONS}
    narrative = options.get("narrative")
    if isinstance(narrative, dict) and (value_measure is not None or troops_keywords is not None):
        narrative = dict(narrative)
        if value_measure is not None:
            narrative["value_measure"] = value_measure
        if troops_keywords is not None:
            rules = narrative["rules"]
            assert isinstance(rules, dict)
            sentries = rules["sentries"]
            assert isinstance(sentries, dict)
            narrative["rules"] = rules | {
                "sentries": sentries | {"troops_keywords": list(troops_keywords)}
            }
        options["narrative"] = narrative
    if options == mission.options:
        return mission
    return dataclasses.replace(mission, options=options)


@cache
def combat_zones(directory: str | Path = PACKS_DIR) -> dict[str, dict[str, RawJson]]:
    """The combat zones of the shipped packs (raw, as a match records its zone), by id: any
    10th-edition battle may be fought in one if both players agree [L567-L571]."""
    out: dict[str, dict[str, RawJson]] = {}
    for path in sorted(Path(directory).glob("*.json")):
        text = path.read_text(encoding="utf-8")
        load_pack(text)  # refuses a malformed pack with its paths
        for zone in json.loads(text).get("combat_zones", []):
            out.setdefault(str(zone["id"]), zone)
    return out


@cache
def expansions(directory: str | Path = PACKS_DIR) -> dict[str, dict[str, RawJson]]:
    """The expansions of the shipped packs (raw, as a match records its expansion), by id:
    Planetstrike, Cities of Death, Stronghold Assault, Death from the Skies [L671-L919], each
    an option of a narrative mission."""
    out: dict[str, dict[str, RawJson]] = {}
    for path in sorted(Path(directory).glob("*.json")):
        text = path.read_text(encoding="utf-8")
        load_pack(text)  # refuses a malformed pack with its paths
        for x in json.loads(text).get("expansions", []):
            out.setdefault(str(x["id"]), x)
    return out


def match_missions(directory: str | Path = PACKS_DIR) -> dict[str, Mission]:
    """Every scenario of every pack in ``directory`` (validated by the pack loader), by id."""
    out: dict[str, Mission] = {}
    for path in sorted(Path(directory).glob("*.json")):
        text = path.read_text(encoding="utf-8")
        load_pack(text)  # refuses a malformed pack with its paths
        raw = json.loads(text)
        for m in raw["missions"]:
            mission = match_mission(raw, m)
            out[mission.id] = mission
    return out


@dataclass(frozen=True, slots=True)
class RefusedPack:
    """A pack file left out of the listing, and why (every problem, each with its path)."""

    path: Path
    errors: tuple[tuple[str, str], ...]

    @property
    def message(self) -> str:
        found = "; ".join(f"{p or '(root)'}: {m}" for p, m in self.errors)
        return f"mission pack {self.path.name} refused: {found}"


@dataclass(frozen=True, slots=True)
class PackListing:
    """The scenarios of every valid pack, by id, and the pack files refused."""

    missions: dict[str, Mission] = field(default_factory=dict)
    refused: tuple[RefusedPack, ...] = ()


def list_match_missions(
    directories: Iterable[str | Path] = (PACKS_DIR,), taken: Iterable[str] = ()
) -> PackListing:
    """Every scenario of every ``*.json`` pack of ``directories`` (each sorted by file name),
    without raising: a pack that is malformed (too big, not JSON, any problem the pack loader
    finds) or whose scenario ids are already used (by ``taken``, e.g. ``only-war``, or by an
    earlier pack) is left out whole and reported in :attr:`PackListing.refused`."""
    out: dict[str, Mission] = {}
    refused: list[RefusedPack] = []
    used = set(taken)
    for directory in directories:
        for path in sorted(Path(directory).glob("*.json")):
            try:
                found = _pack_missions(path)
            except PackError as exc:
                refused.append(RefusedPack(path, exc.errors))
                continue
            except CodecError as exc:
                refused.append(RefusedPack(path, ((exc.path, exc.message),)))
                continue
            except (OSError, UnicodeDecodeError) as exc:
                refused.append(RefusedPack(path, (("", f"cannot be read ({exc})"),)))
                continue
            clashes = [
                (f"missions[{i}].id", f"the mission id {m.id!r} is already used")
                for i, m in enumerate(found)
                if m.id in used
            ]
            if clashes:
                refused.append(RefusedPack(path, tuple(clashes)))
                continue
            for m in found:
                used.add(m.id)
                out[m.id] = m
    return PackListing(out, tuple(refused))


def _pack_missions(path: Path) -> list[Mission]:
    if path.stat().st_size > MAX_PACK_BYTES:
        raise PackError("", f"a pack is at most {MAX_PACK_BYTES // 1024} KiB")
    return read_pack(path.read_bytes()).missions


@dataclass(frozen=True, slots=True)
class ReadPack:
    """A pack checked by the loader (:attr:`pack`), its raw JSON (:attr:`raw`, what a match
    records) and its scenarios as match missions."""

    pack: MissionPack
    raw: dict[str, RawJson]
    missions: list[Mission]


def read_pack(data: str | bytes | dict[str, RawJson]) -> ReadPack:
    """A pack (JSON text, bytes, or already parsed) checked whole and turned into match
    missions; :class:`PackError` with every problem and its path (mission ids used twice
    included), or the path of a value the match mission format refuses."""
    pack = load_pack(data)  # refuses a malformed pack with every path (and its size)
    raw = json.loads(data) if isinstance(data, str | bytes) else data
    assert isinstance(raw, dict)
    found: list[Mission] = []
    for i, m in enumerate(raw["missions"]):  # type: ignore[arg-type]
        assert isinstance(m, dict)
        try:
            found.append(match_mission(raw, m))
        except CodecError as exc:
            raise PackError(f"missions[{i}]", f"{exc.path}: {exc.message}") from None
    ids = [m.id for m in found]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise PackError("missions", f"mission ids used twice: {', '.join(dupes)}")
    return ReadPack(pack, raw, found)
