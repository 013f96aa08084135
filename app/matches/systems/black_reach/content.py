"""Black Reach matches on a player's own content sets (issue 16, ``app/blackreach``).

Each valid scenario of a content set is offered to its owner as a mission (the hook
``owned_missions``), whose id is made from its content: ``c-<12 hex of a SHA-256>-<scenario
id>`` over the scenario, the forces and the boards it is read with. The mission carries that
content (``options["content"]``), so the seats' forces and the battle's set-up come from it.

The content is frozen when the match is created: seat A's snapshot keeps it (``content``), and
until seat B joins the creator's open matches still offer their frozen missions, so an edit or
the deletion of the set after the creation changes nothing of the match (the join reads the
mission by its id; equal ids have equal content). Once joined, the battle's log holds the
scenario, forces and boards it was set up with (``BattleCreated``), so a replay, an export and
an import stay equal whatever the set becomes.

Another user's set is never offered (its missions are not the creator's: 422 "no mission"),
but a set shared by link is offered to whoever holds the link (:func:`shared_missions`, named
by the route that creates the match): frozen and trimmed the same way, naming no set id.

What a match keeps of a set is trimmed first (:func:`trimmed`), since the opponent, a
spectator and an export reader all read the log's set-up: the scenario, only the boards it
places, and only the forces of the factions its sides play (their counters, tiles, options and
Action cards, the counters those name and the Damage sets they name; the templates and the
Perils of the Warp pool, which belong to no faction, whole), every free-text ``note`` left
out. The mission id is made from the trimmed content, so an edit of what a match never uses
keeps its id.

A user has at most :data:`MAX_OPEN` content-set matches nobody has joined yet (422 past it):
each keeps its frozen content until the join. The count is taken with the creator's row
locked (:func:`lock_owner`), so simultaneous creations never pass it.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.blackreach.documents import check
from app.blackreach.models import ContentSet
from app.blackreach.service import documents_of, shared_row
from app.engine.black_reach import SYSTEM_ID
from app.engine.match import Mission
from app.engine.match.missions import MissionError, load_mission
from app.matches.models import Match

__all__ = [
    "MAX_OPEN",
    "PREFIX",
    "content_id",
    "content_of",
    "creatable",
    "is_content",
    "lock_owner",
    "mission_for",
    "open_matches",
    "owned_missions",
    "set_missions",
    "shared_missions",
    "summary",
    "trimmed",
]

PREFIX = "c-"
DIGEST_CHARS = 12
MAX_MISSION_ID = 64  # matches.mission_id
SIZE = "scenario"
MAX_OPEN = 20  # a user's content-set matches nobody has joined yet
_CACHE_SIZE = 64

_cache: OrderedDict[tuple[int, int, str], tuple[Mission, ...]] = OrderedDict()
_lock = threading.Lock()


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def content_id(scenario: Mapping[str, Any], forces: Any, boards: Any) -> str:
    """The mission id of a scenario read with these forces and boards (content-addressed)."""
    digest = hashlib.sha256(_canonical([scenario, forces, boards])).hexdigest()[:DIGEST_CHARS]
    slug = "".join(c if c.isalnum() or c in "-_" else "-" for c in str(scenario.get("id", "")))
    head = f"{PREFIX}{digest}-"
    return head + slug[: MAX_MISSION_ID - len(head)]


def _without_note(doc: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "note"}


def _factions(scenario: Mapping[str, Any]) -> set[str]:
    out = set()
    for side in scenario.get("sides", ()):
        army = side.get("army") if isinstance(side, Mapping) else None
        if isinstance(army, Mapping) and isinstance(army.get("faction"), str):
            out.add(army["faction"])
    return out


def _items(doc: Mapping[str, Any], part: str) -> list[Any]:
    found = doc.get(part)
    return list(found) if isinstance(found, list) else []


def _trim_forces(forces: Any, factions: set[str]) -> Any:
    """The forces of ``factions``: their tiles, options and Action cards, their counters and
    those the kept tiles and options name, the Damage sets those name; templates and perils
    whole."""
    if not isinstance(forces, Mapping):
        return forces
    out = _without_note(forces)

    def mine(item: Any) -> bool:
        return isinstance(item, Mapping) and item.get("faction") in factions

    holders = {part: [i for i in _items(forces, part) if mine(i)] for part in ("tiles", "options")}
    if "cards" in forces:
        out["cards"] = [c for c in _items(forces, "cards") if mine(c)]
    named = {
        str(c)
        for items in holders.values()
        for item in items
        for c in (item.get("counters") if isinstance(item.get("counters"), list) else ())
    }
    sets = {i.get("damage_set") for items in holders.values() for i in items} - {None}
    for part, items in holders.items():
        if part in forces:
            out[part] = items
    if "counters" in forces:
        out["counters"] = [
            c
            for c in _items(forces, "counters")
            if mine(c) or (isinstance(c, Mapping) and c.get("id") in named)
        ]
    if "damage_sets" in forces:
        out["damage_sets"] = [
            d
            for d in _items(forces, "damage_sets")
            if isinstance(d, Mapping) and d.get("id") in sets
        ]
    return out


def _trim_boards(boards: Any, scenario: Mapping[str, Any]) -> Any:
    """The boards ``scenario`` places (as boards or as tiles), without their notes."""
    if not isinstance(boards, Mapping):
        return boards
    layout = scenario.get("board") if isinstance(scenario.get("board"), Mapping) else {}
    assert isinstance(layout, Mapping)
    used = {
        p.get("board")
        for part in ("boards", "tiles")
        for p in _items(layout, part)
        if isinstance(p, Mapping)
    }
    out = _without_note(boards)
    if "boards" in boards:
        out["boards"] = [
            _without_note(b)
            for b in _items(boards, "boards")
            if isinstance(b, Mapping) and b.get("name") in used
        ]
    return out


def trimmed(
    scenario: Mapping[str, Any], forces: Any, boards: Any
) -> tuple[dict[str, Any], Any, Any]:
    """What a match keeps of a set for ``scenario``: the scenario without its note, the
    forces of the factions its sides play and the boards it places (see the module's
    docstring); the same documents again give the same copy."""
    return (
        _without_note(scenario),
        _trim_forces(forces, _factions(scenario)),
        _trim_boards(boards, scenario),
    )


def summary(scenario: Mapping[str, Any]) -> dict[str, Any]:
    """What a joined or imported match keeps of its scenario beside the log: its id, name
    and side ids (the log's set-up holds the rest)."""
    return {
        "id": str(scenario.get("id", "")),
        "name": str(scenario.get("name") or ""),
        "sides": [
            {"id": str(s.get("id"))} for s in scenario.get("sides", ()) if isinstance(s, Mapping)
        ],
    }


def is_content(mission: Mission) -> bool:
    """Whether ``mission`` is a scenario of a content set (not a shipped one)."""
    return isinstance(mission.options.get("content"), Mapping)


def content_of(mission: Mission) -> Mapping[str, Any] | None:
    found = mission.options.get("content")
    return found if isinstance(found, Mapping) else None


def mission_for(
    scenario: Mapping[str, Any],
    forces: Any,
    boards: Any,
    *,
    set_name: str,
    set_id: int | None,
    width: int,
    height: int,
    label: str = "",
    joins_only: bool = False,
) -> Mission:
    """The mission offering ``scenario``: its name says the set, its options hold the content
    (``scenario``, ``forces``, ``boards``) and where it comes from (``set``, ``name``).
    ``joins_only``: offered only so that an open match on it may be joined (``joins_only`` in
    the content: no new match is created on it, see :func:`creatable`)."""
    sides = [s for s in scenario.get("sides", ()) if isinstance(s, Mapping)]
    points = max([int(s.get("points", 0) or 0) for s in sides] or [1]) or 1
    name = f"{set_name}: {scenario.get('name') or scenario.get('id')}"
    if label:
        name = f"{name} ({label})"
    mid = content_id(scenario, forces, boards)
    data = {
        "format": "auspex-mission/1",
        "id": mid,
        "rule_system": SYSTEM_ID,
        "name": {"en": name},
        "source": f"content set {set_name!r}" if set_id is None else f"content set {set_id}",
        "battle_sizes": [
            {
                "id": SIZE,
                "points": points,
                "battlefield": {"width": max(1, width), "depth": max(1, height)},
                "name": {"en": "The scenario's forces", "fr": "Les forces du scénario"},
            }
        ],
        "objectives": {"markers": [], "placement": "fixed"},
        "sequence": [{"step": "deploy"}],
        "length": {"rounds": max(1, int(scenario.get("turns", 1) or 1))},
        "end_conditions": ["last_round"],
        "options": {
            "scenario": str(scenario.get("id", "")),
            "content": {
                "id": mid,
                "set": set_id,
                "name": set_name,
                "scenario": dict(scenario),
                "forces": forces,
                "boards": boards,
            }
            | ({"joins_only": True} if joins_only else {}),
        },
    }
    return load_mission(data)


def creatable(mission: Mission) -> bool:
    """Whether a new match may be created on ``mission``: not on a mission frozen from a set
    shared by link (the link may be revoked since; its own route offers the set's current
    missions while it is valid), only on a joinable open match's."""
    own = content_of(mission)
    return own is None or not own.get("joins_only")


def set_missions(row: ContentSet, *, shared: bool = False) -> tuple[Mission, ...]:
    """The missions of one set: each scenario the engine reads (kept per set version).
    ``shared``: as offered through its share link to another user, naming no set id (the
    set is not theirs; the set's name says where it comes from)."""
    # every change raises the version and sets updated_at; the moment tells apart a row whose
    # id came back on SQLite after a deletion (its version from 1 again)
    moment = row.updated_at.isoformat() if row.updated_at else ""
    key = (row.id, row.version, moment + ("/shared" if shared else ""))
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    docs = documents_of(row)
    checked = check(docs)
    out: list[Mission] = []
    if checked.ok:
        for raw, scenario in zip(docs.scenarios, checked.scenarios, strict=False):
            if scenario is None or not isinstance(raw, Mapping):
                continue
            width = 1 + max((sq.x for sq in scenario.board.squares), default=0)
            height = 1 + max((sq.y for sq in scenario.board.squares), default=0)
            kept, forces, boards = trimmed(raw, docs.forces, docs.boards)
            try:
                out.append(
                    mission_for(
                        kept,
                        forces,
                        boards,
                        set_name=row.name,
                        set_id=None if shared else row.id,
                        width=width,
                        height=height,
                    )
                )
            except MissionError:
                continue
    found = tuple(out)
    with _lock:
        _cache[key] = found
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return found


def shared_missions(db: Session, token: str) -> dict[str, Mission]:
    """The missions of the set behind a share link, by id, frozen and trimmed as a set's own
    (no notes: :func:`trimmed`); 404 for a link invalid or revoked."""
    return {m.id: m for m in set_missions(shared_row(db, token), shared=True)}


def lock_owner(db: Session, owner_id: int) -> None:
    """Hold the creator's user row until the transaction ends, so that two creations of one
    user at the same moment count their open matches one after the other (neither passes
    :data:`MAX_OPEN` on a count the other is about to change). Postgres: ``SELECT ... FOR
    UPDATE``; SQLite has no row lock, and a request that writes holds the database's write
    lock from its first statement (``BEGIN IMMEDIATE``, app.core.db), as mission packs do
    (app.matches.packs)."""
    db.execute(select(User.id).where(User.id == owner_id).with_for_update())


def _open(owner_id: int) -> tuple[Any, ...]:
    """Where a row is one of the owner's content-set matches nobody has joined yet."""
    return (
        Match.created_by_id == owner_id,
        Match.rule_system == SYSTEM_ID,
        Match.version == 0,
        Match.mission_id.startswith(PREFIX),
    )


def _frozen(db: Session, owner_id: int, known: frozenset[str] = frozenset()) -> dict[str, Mission]:
    """The missions frozen in the owner's Black Reach matches nobody has joined yet, but
    those of ``known`` (offered already: their matches' snapshots are not read). Those that
    came from a set shared by link (their frozen ``set`` is None) are offered for the join
    only (``joins_only``: :func:`creatable` is false), so a revoked link creates nothing."""
    wanted: dict[str, int] = {}
    for match_id, mission_id in db.execute(
        select(Match.id, Match.mission_id).where(*_open(owner_id)).order_by(Match.id)
    ).all():
        if mission_id not in known:
            wanted.setdefault(mission_id, match_id)
    if not wanted:
        return {}
    rows = db.execute(
        select(Match.id, Match.mission_id, Match.army_a)
        .where(Match.id.in_(list(wanted.values())))
        .order_by(Match.id)
    ).all()
    out: dict[str, Mission] = {}
    for match_id, mission_id, army in rows:
        frozen = (army or {}).get("content")
        if not isinstance(frozen, Mapping) or mission_id in out:
            continue
        scenario = frozen.get("scenario")
        if not isinstance(scenario, Mapping):
            continue
        board = frozen.get("board") if isinstance(frozen.get("board"), Mapping) else {}
        assert isinstance(board, Mapping)
        set_id = frozen.get("set") if isinstance(frozen.get("set"), int) else None
        try:
            mission = mission_for(
                scenario,
                frozen.get("forces"),
                frozen.get("boards"),
                set_name=str(frozen.get("name") or ""),
                set_id=set_id,
                width=int(board.get("width", 1) or 1),
                height=int(board.get("height", 1) or 1),
                label=f"match {match_id}",
                joins_only=set_id is None,
            )
        except (MissionError, TypeError, ValueError):
            continue
        if mission.id == mission_id:
            out[mission_id] = mission
    return out


def owned_missions(db: Session, owner_id: int) -> dict[str, Mission]:
    """The scenarios of the owner's content sets as missions, by id, and those frozen in
    their open matches (an edited or deleted set's, so its match may still be joined)."""
    rows = db.scalars(
        select(ContentSet)
        .where(ContentSet.owner_id == owner_id)
        .order_by(ContentSet.name, ContentSet.id)
    )
    out: dict[str, Mission] = {}
    for row in rows:
        for mission in set_missions(row):
            out.setdefault(mission.id, mission)
    for mid, mission in _frozen(db, owner_id, frozenset(out)).items():
        out.setdefault(mid, mission)
    return out


def open_matches(db: Session, owner_id: int) -> int:
    """How many of the owner's content-set matches nobody has joined yet."""
    return int(db.scalar(select(func.count(Match.id)).where(*_open(owner_id))) or 0)
