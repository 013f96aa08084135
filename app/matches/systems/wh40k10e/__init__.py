"""The 10th edition as a match (ADR 0013): its ``Battle``, missions (Only War and the narrative
scenarios of the mission packs), army snapshots from the army builder's lists (and the guests'
sample and pasted lists), options, and the attacks between two units of the match with their
exact odds."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ValidationError

from app.core.config import get_settings
from app.core.errors import InvalidInput
from app.engine.errors import EngineError
from app.engine.match import Mission, Refusal, RefusalKind, load_missions
from app.engine.match.game import MatchGame
from app.engine.match.seats import Seat
from app.engine.narrative8e.match import (
    PACK_EXPANSIONS,
    PackListing,
    RefusedPack,
    apply_settings,
    combat_zones,
    expansions,
    list_match_missions,
)
from app.engine.narrative8e.pack import (
    DEFAULT_NARRATIVE_STARTING_CP,
    PACKS_DIR,
    TROOPS_KEYWORDS,
    PackError,
    check_expansion,
    load_packs,
)
from app.engine.wh40k10e import SYSTEM_ID
from app.engine.wh40k10e.battle import EVENT_CODEC, ArmySpec, Battle, BattleOptions, MatchSetup
from app.engine.wh40k10e.battle import Seat as Seat10e
from app.engine.wh40k10e.battle.commands import Concede
from app.engine.wh40k10e.battle.events import MatchCreated
from app.matches.exceptions import ArmyUnusable, InvalidLog
from app.matches.systems import (
    CombatHooks,
    GuestArmies,
    Imported,
    MatchSystem,
    SampleInfo,
    SetupInput,
)
from app.matches.systems.wh40k10e import armies, attacks

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from app.accounts.models import User
    from app.matches.schemas import MatchOptions

__all__ = [
    "NARRATIVE_SETTINGS",
    "PACK_DIRECTORIES",
    "SYSTEM",
    "load_packs_at_start",
    "mission_expansions",
    "missions",
    "options_json",
    "pack_directories",
    "parse_options",
]

log = logging.getLogger(__name__)

PACK_DIRECTORIES: tuple[Path, ...] = (PACKS_DIR,)
"""Where the shipped narrative mission packs are read (``docs/mission-packs.md``)."""

_CONFIGURED: dict[str, Path | None] = {}
"""The club's packs directory given at start-up (:func:`load_packs_at_start`); unset, the
``W40K_MISSION_PACKS_DIR`` setting of the environment."""


def pack_directories() -> tuple[Path, ...]:
    """The shipped packs, then the club's directory (``W40K_MISSION_PACKS_DIR``) if any: a club
    adds a scenario by dropping a pack file there, no code."""
    extra = _CONFIGURED["dir"] if "dir" in _CONFIGURED else get_settings().mission_packs_dir
    return PACK_DIRECTORIES if extra is None else (*PACK_DIRECTORIES, extra)


@cache
def missions() -> dict[str, Mission]:
    """The 10th-edition missions, by id: those shipped as data (``data/missions``: Only War),
    then the scenarios of every valid narrative pack (:func:`pack_directories`). A malformed
    pack, or one reusing a mission id, is left out and logged with every problem and its path.
    Read once per process (at start-up: :func:`load_packs_at_start`)."""
    found = {k: m for k, m in load_missions().items() if m.rule_system == SYSTEM_ID}
    listing = narrative_listing(tuple(found))
    for refused in listing.refused:
        log.error("%s", refused.message)
    return found | listing.missions


def narrative_listing(taken: tuple[str, ...] = ()) -> PackListing:
    """The narrative scenarios of the pack directories, and the packs refused (a configured
    directory that is missing is refused as a whole)."""
    directories = pack_directories()
    listing = list_match_missions([d for d in directories if d.is_dir()], taken=taken)
    missing = tuple(
        RefusedPack(d, (("", "W40K_MISSION_PACKS_DIR is not a readable directory"),))
        for d in directories
        if not d.is_dir()
    )
    return PackListing(listing.missions, listing.refused + missing)


def load_packs_at_start(directory: Path | None) -> dict[str, Mission]:
    """Read the packs once at start-up, with ``directory`` as the club's packs directory: every
    refused pack is logged then (not at the first request), and never stops the app."""
    _CONFIGURED["dir"] = directory
    missions.cache_clear()
    return missions()


def ready_snapshot(db: Session, user: User, army_id: int, points_limit: int) -> dict[str, Any]:
    return armies.ready_snapshot(db, user, army_id, points_limit=points_limit)


def check_snapshot(snapshot: Mapping[str, Any], seat: Seat) -> None:
    """A Refusal of the engine (out of its bounds) becomes a 422."""
    try:
        armies.army_spec(snapshot, Seat10e(str(seat)))
    except Refusal as exc:
        raise ArmyUnusable(exc.message) from None


def options_json(options: BattleOptions) -> dict[str, Any]:
    return {
        "starting_cp": options.starting_cp,
        "deep_strike_from_round": options.deep_strike_from_round,
        "aircraft_count_toward_reserve_cap": options.aircraft_count_toward_reserve_cap,
        "prompt_rapid_ingress": options.prompt_rapid_ingress,
        "battle_shocked_fall_back_tests_fly": options.battle_shocked_fall_back_tests_fly,
        "battle_forged": options.battle_forged,
        "combat_zone": options.combat_zone,
        "expansion": options.expansion,
    }


@cache
def _options_model() -> type[MatchOptions]:
    """The 10e match options (with the narrative missions' Battle-forged gate [L125]) and the
    combat zone the battle is fought in, one of the shipped packs' [L563-L667]."""
    from pydantic import Field, field_validator

    from app.matches.schemas import MatchOptions

    zone_ids = ", ".join(sorted(combat_zones()))

    class TenthOptions(MatchOptions):
        combat_zone: str | None = Field(
            default=None,
            min_length=1,
            max_length=64,
            description=f"A combat zone the battle is fought in, agreed before deployment "
            f"[seed 003 L571] (one of: {zone_ids}); none by default",
        )

        @field_validator("combat_zone")
        @classmethod
        def _known_zone(cls, value: str | None) -> str | None:
            zones = combat_zones()
            if value is not None and value not in zones:
                raise ValueError(f"unknown combat zone (one of: {', '.join(sorted(zones))})")
            return value

        expansion: str | None = Field(
            default=None,
            min_length=1,
            max_length=64,
            description=f"Narrative missions only: the expansion the scenario is played with "
            f"[seed 003 L671-L919] (one of: {', '.join(sorted(expansions()))}); none by default",
        )

        @field_validator("expansion")
        @classmethod
        def _known_expansion(cls, value: str | None) -> str | None:
            known = expansions()
            if value is not None and value not in known:
                raise ValueError(f"unknown expansion (one of: {', '.join(sorted(known))})")
            return value

        value_measure: Literal["points", "power"] | None = Field(
            default=None,
            description="Narrative missions only: what an army's and a unit's value is, "
            "points or the Power Level the players enter (docs/rulings/narrative-8e.md, 1 and "
            "84); unset: the mission pack's",
        )
        troops_keywords: list[str] | None = Field(
            default=None,
            min_length=1,
            max_length=len(TROOPS_KEYWORDS),
            description="Narrative missions only: the keywords that make a unit Troops, at "
            f"least one of {', '.join(TROOPS_KEYWORDS)} (a list, or one text separated by "
            "commas); unset: the mission pack's (rulings 2 and 84)",
        )

        @field_validator("troops_keywords", mode="before")
        @classmethod
        def _split_keywords(cls, value: object) -> object:
            # the new-match form posts one choice as text: "BATTLELINE,INFANTRY"
            if isinstance(value, str):
                return [k.strip() for k in value.split(",")] if value.strip() else None
            return value

        @field_validator("troops_keywords")
        @classmethod
        def _known_keywords(cls, value: list[str] | None) -> list[str] | None:
            if value is None:
                return None
            for k in value:
                if k not in TROOPS_KEYWORDS:
                    raise ValueError(
                        f"unknown keyword {k[:40]!r} (any of: {', '.join(TROOPS_KEYWORDS)})"
                    )
            if len(set(value)) != len(value):
                raise ValueError("a keyword is named twice")
            return [k for k in TROOPS_KEYWORDS if k in value]  # one order: the log's

    return TenthOptions


NARRATIVE_SETTINGS = ("value_measure", "troops_keywords")
"""The options that change how a narrative mission maps the 8th edition (rulings 1-2, 84):
recorded in the match's mission, not in the battle's options."""


def _checked_options(raw: Mapping[str, Any] | None) -> MatchOptions:
    """The options checked by the 10e options model (422 naming each bad field)."""
    model = _options_model()
    try:
        return model.model_validate(dict(raw or {}))
    except ValidationError as exc:
        raise InvalidInput(
            "These options are not options of a 10th-edition match.",
            errors=[
                {
                    "field": "options." + ".".join(str(p) for p in e["loc"]),
                    "message": e["msg"],
                    "type": e["type"],
                }
                for e in exc.errors()
            ],
        ) from None


def mission_starting_cp(mission: Mission | None) -> int:
    """The CP each player starts with when the options leave it unset: a narrative mission's
    pack's ``rules.starting_cp`` (3 by default, so its set-up stratagems can be paid:
    docs/rulings/narrative-8e.md, 44), else 0 (the 10th edition's, RULINGS.md)."""
    narrative = None if mission is None else mission.options.get("narrative")
    if not isinstance(narrative, Mapping):
        return 0
    rules = narrative.get("rules")
    value = rules.get("starting_cp") if isinstance(rules, Mapping) else None
    return value if isinstance(value, int) else DEFAULT_NARRATIVE_STARTING_CP


def _options(raw: Mapping[str, Any] | None, mission: Mission | None = None) -> BattleOptions:
    values = _checked_options(raw).model_dump()
    for name in NARRATIVE_SETTINGS:  # the mission records them (new_setup)
        values.pop(name)
    if values["starting_cp"] is None:
        values["starting_cp"] = mission_starting_cp(mission)
    try:
        return BattleOptions(**values)
    except Refusal as exc:  # pragma: no cover - the schema has the engine's bounds
        raise InvalidInput(exc.message) from None


def parse_options(raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """The options as stored on the match: every field, ``starting_cp`` ``None`` when the
    players left it to the mission (resolved when the battle is created)."""
    _options(raw)  # the engine's bounds
    return _checked_options(raw).model_dump()


def mission_expansions(mission: Mission) -> dict[str, dict[str, Any]]:
    """The expansions a match of ``mission`` may be played with, by id: none for a mission that
    is not narrative; else the shipped packs', and those its own pack carries (an uploaded or
    club pack's, checked with the pack: the same id takes the pack's numbers) (ruling 86)."""
    if not isinstance(mission.options.get("narrative"), Mapping):
        return {}
    own = mission.options.get(PACK_EXPANSIONS)
    found: dict[str, dict[str, Any]] = dict(expansions())
    for raw in own if isinstance(own, list) else ():
        if isinstance(raw, dict) and isinstance(raw.get("id"), str):
            found[raw["id"]] = raw
    return found


def check_options(mission: Mission, options: Mapping[str, Any]) -> None:
    """The options that only a narrative mission takes (an expansion, the value measure, the
    Troops keywords), and an expansion the mission offers: 422 at creation, not at the
    join."""
    narrative = isinstance(mission.options.get("narrative"), Mapping)
    for name in ("expansion", *NARRATIVE_SETTINGS):
        if options.get(name) is not None and not narrative:
            raise InvalidInput(
                "An expansion, the value measure and the Troops keywords are settings of a "
                "narrative mission.",
                errors=[
                    {
                        "field": f"options.{name}",
                        "message": f"{mission.id} is not a narrative mission",
                        "type": "value_error",
                    }
                ],
            )
    x_id = options.get("expansion")
    offered = mission_expansions(mission)
    if x_id is not None and x_id not in offered:
        raise InvalidInput(
            f"Mission {mission.id} is not played with the expansion {x_id!r}.",
            errors=[
                {
                    "field": "options.expansion",
                    "message": f"unknown expansion (one of: {', '.join(sorted(offered))})",
                    "type": "value_error",
                }
            ],
        )


def new_setup(given: SetupInput) -> MatchSetup:
    options = _options(given.options, given.mission)
    settings = {n: _checked_options(given.options).model_dump()[n] for n in NARRATIVE_SETTINGS}
    offered = mission_expansions(given.mission)
    # the players' settings written into the mission's narrative block, the pack's list of
    # expansions left out: the creation event records what the battle plays (ruling 84)
    check_options(given.mission, settings)
    mission = apply_settings(given.mission, **settings)
    if options.combat_zone is not None:
        # the zone's numbers recorded with the match: a replay never reads a pack
        zone = combat_zones()[options.combat_zone]
        mission = dataclasses.replace(mission, options={**mission.options, "combat_zone": zone})
    if options.expansion is not None:
        check_options(given.mission, {"expansion": options.expansion})
        # the expansion's numbers recorded with the match, as a combat zone's are (the
        # mission's own pack's numbers where it carries that expansion)
        raw = offered[options.expansion]
        mission = dataclasses.replace(mission, options={**mission.options, "expansion": raw})
    return MatchSetup(
        {
            Seat10e.A: armies.army_spec(given.armies[Seat.A], Seat10e.A),
            Seat10e.B: armies.army_spec(given.armies[Seat.B], Seat10e.B),
        },
        given.battle_size,
        mission,
        options,
    )


def imported(game: MatchGame, snapshots: Mapping[str, Any]) -> Imported:
    first = game.envelopes[0].event if game.envelopes else None
    if not isinstance(first, MatchCreated):
        raise InvalidLog("The log does not start with the creation of the match.")
    setup = first.setup
    _check_imported_zone(setup)
    _check_imported_expansion(setup)
    return Imported(
        setup.mission.id,
        setup.battle_size,
        _imported_snapshot(snapshots.get("A"), setup.armies[Seat10e.A]),
        _imported_snapshot(snapshots.get("B"), setup.armies[Seat10e.B]),
    )


def _check_imported_zone(setup: MatchSetup) -> None:
    """A combat zone recorded in an imported log is one of the shipped zones, with the numbers
    the pack gives it: the battle reads them at every objective and attack, and the page at
    every render, so a log carrying others is refused at the door (422) instead of failing
    later (a 500 on the page, found in review)."""
    zone_id = setup.options.combat_zone
    recorded = setup.mission.options.get("combat_zone")
    if zone_id is None:
        if recorded is not None:
            raise InvalidLog("The log records a combat zone its options do not name.")
        return
    shipped = combat_zones().get(zone_id)
    if shipped is None:
        raise InvalidLog(f"The log's combat zone {zone_id!r} is not one of the shipped zones.")
    if recorded != shipped:
        raise InvalidLog(
            f"The log's combat zone {zone_id!r} does not carry the numbers of that zone."
        )


def _check_imported_expansion(setup: MatchSetup) -> None:
    """An expansion recorded in an imported log is one of the shipped ones, with its numbers
    (as a combat zone, above)."""
    x_id = setup.options.expansion
    recorded = setup.mission.options.get("expansion")
    if x_id is None:
        if recorded is not None:
            raise InvalidLog("The log records an expansion its options do not name.")
        return
    shipped = expansions().get(x_id)
    if recorded == shipped:
        return
    narrative = setup.mission.options.get("narrative")
    pack = narrative.get("pack") if isinstance(narrative, Mapping) else None
    if pack in _shipped_pack_ids() or not isinstance(recorded, dict):
        if shipped is None:
            raise InvalidLog(f"The log's expansion {x_id!r} is not one of the shipped expansions.")
        raise InvalidLog(f"The log's expansion {x_id!r} does not carry the numbers of it.")
    # a scenario of a club's or an uploaded pack: its expansion checked as its pack was
    try:
        found = check_expansion(recorded, "expansion")
    except PackError as exc:
        raise InvalidLog(f"The log's expansion is refused: {exc}") from None
    if found.id != x_id:
        raise InvalidLog(f"The log's expansion is not {x_id!r}, the one its options name.")


@cache
def _shipped_pack_ids() -> frozenset[str]:
    return frozenset(load_packs(PACKS_DIR))


def _imported_snapshot(given: object, spec: ArmySpec) -> dict[str, Any]:
    """The snapshot an export carried if it matches the log's army, else one rebuilt from the
    log (without weapon data: the odds of an attack then cannot be computed)."""
    rebuilt = {
        "format": armies.SNAPSHOT_FORMAT,
        "source": "import",
        "army_id": None,
        "name": spec.name,
        "faction": spec.faction,
        "points": sum(u.points for u in spec.units),
        "units": [
            {
                "index": i,
                "name": u.name,
                "datasheet": u.datasheet,
                "models": u.models,
                "wounds": u.wounds,
                "model_wounds": list(u.max_wounds),
                "oc": u.oc,
                "leadership": u.leadership,
                "points": u.points,
                "keywords": sorted(u.keywords),
                "abilities": sorted(str(a) for a in u.abilities),
                "scouts": u.scouts,
                "leads": list(u.leads),
                "transport_capacity": u.transport_capacity,
                "toughness": u.toughness,
                "profile": {"toughness": u.toughness, "save": 7, "wounds": u.wounds},
                "weapons": [],
                "attached_to": None,
            }
            for i, u in enumerate(spec.units)
        ],
    }
    if not isinstance(given, Mapping):
        return rebuilt
    try:
        from app.matches.schemas import SnapshotIn

        # the options (as stored at creation) are checked on their own: the army is compared
        # without them
        options = given.get("options")
        given = {k: v for k, v in given.items() if k != "options"}
        checked = SnapshotIn.model_validate(given).model_dump(exclude_unset=True)
        seat = Seat10e.A if spec.units[0].id.startswith("a") else Seat10e.B
        if armies.army_spec(checked, seat) != spec:
            return rebuilt
        if options is not None:
            model = _options_model().model_validate(options)
            checked["options"] = model.model_dump(exclude_unset=True)
        return checked
    except (ValueError, KeyError, TypeError, EngineError):
        return rebuilt


def headline(game: MatchGame) -> dict[str, str | None]:
    state = game.state
    return {
        "stage": str(state.stage),
        "active": None if state.active is None else str(state.active),
        "phase": None if state.phase is None else str(state.phase),
    }


def check_command(command: object) -> None:
    """Conceding ends the battle and cannot be undone: the command must say it is confirmed."""
    if isinstance(command, Concede) and not command.confirm:
        raise Refusal(
            "confirmation_required",
            "Conceding ends the battle and cannot be undone: "
            'send {"type": "concede", "confirm": true}.',
            kind=RefusalKind.INPUT,
            details={"field": "command.confirm"},
        )


def _sample(db: Session, sample_id: str, points_limit: int) -> dict[str, Any]:
    return armies.sample_snapshot(db, sample_id, points_limit=points_limit)


def _pasted(db: Session, army: str | Mapping[str, Any], points_limit: int) -> dict[str, Any]:
    return armies.pasted_snapshot(db, army, points_limit=points_limit)


def samples_with_points() -> list[tuple[SampleInfo, int]]:
    """The sample lists a guest seat may take, with their points on the starter catalogue."""
    from app.catalog.starter import starter_catalogue
    from app.engine.wh40k10e.army import validate

    catalogue = starter_catalogue()
    return [
        (SampleInfo(s.id, str(s.name), s.roster.faction), validate(s.roster, catalogue).points)
        for s in armies.SAMPLES
    ]


def export_snapshot(snapshot: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in snapshot.items() if k not in {"army_id", "catalogue_id"}}


def owned_missions(db: Session, owner_id: int) -> dict[str, Mission]:
    """The scenarios of the narrative packs ``owner_id`` uploaded (app.matches.packs)."""
    from app.matches import packs

    return packs.owned_missions(db, owner_id)


SYSTEM = MatchSystem(
    id=SYSTEM_ID,
    game=Battle,
    event_codec=EVENT_CODEC,
    load_missions=missions,
    default_mission="only-war",
    default_size="strike_force",
    ready_snapshot=ready_snapshot,
    check_snapshot=check_snapshot,
    parse_options=parse_options,
    new_setup=new_setup,
    imported=imported,
    headline=headline,
    check_command=check_command,
    guests=GuestArmies(sample=_sample, pasted=_pasted, samples=samples_with_points),
    combat=CombatHooks(preview=attacks.preview, resolve=attacks.resolve),
    export_snapshot=export_snapshot,
    owned_missions=owned_missions,
    check_options=check_options,
)
