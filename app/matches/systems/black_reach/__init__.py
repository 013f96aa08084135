"""Heroes of Black Reach as a match (ADR 0013, issue 16): ``BlackReachBattle``, the scenarios
offered as missions (``data/missions/black-reach``: a mission names its scenario in its option
``scenario``; the shipped sample ``sample-relay`` for now), and no army lists: each seat plays
one of the scenario's forces (the hook ``own_force``).

Options of a match: ``side`` (the scenario side seat A plays; default: the scenario's first;
seat B plays the other) and ``deployment`` (``players``, the default: each seat deploys its
counters with ``deploy`` and ``end_deployment``; ``sample``: the scenario's shipped sample
deployment, the battle starts at turn 1) and ``hot_seat`` (``True``: the creator may start the
match with both seats on one device, see ``app/matches/pages/black_reach.py``). The set-up
reads the scenario, the forces catalogue and the boards of ``data/black_reach`` (sample
content) into the log, so an export replays whatever the files become. The battle resolves
its own shots and assaults: no combat hooks.

A player's own content sets are offered too (``content.py``): each valid scenario of a set is
a mission of its owner (``owned_missions``), the content (trimmed to what the scenario uses,
no notes: ``content.trimmed``) frozen into seat A's snapshot when the match is created, so an
edit of the set never changes the match; at most ``content.MAX_OPEN`` such matches of a user
wait for their opponent at once. Once the battle is created its log holds that content, and
:func:`joined_snapshot` is what seat A's snapshot needs to keep of it (the set's name and the
scenario's id, name and sides).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from app.core.errors import InvalidInput
from app.core.i18n import gettext as _
from app.engine.black_reach import SYSTEM_ID
from app.engine.black_reach.battle import BattleSetup, BlackReachBattle
from app.engine.black_reach.battle.events import BattleCreated
from app.engine.black_reach.battle.game import headline as battle_headline
from app.engine.black_reach.battle.setup import parse_setup, sample_setup
from app.engine.errors import EngineError
from app.engine.match import Mission
from app.engine.match.game import MatchGame
from app.engine.match.missions import MISSIONS_DIR, load_missions
from app.engine.match.seats import Seat
from app.matches.exceptions import ArmyUnusable, InvalidLog, UnknownMission
from app.matches.systems import Imported, MatchSystem, SetupInput
from app.matches.systems.black_reach import content
from app.matches.systems.black_reach.game import EVENT_CODEC, BlackReachMatch

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from app.accounts.models import User

__all__ = ["SYSTEM", "BlackReachMatch", "joined_snapshot"]

DEPLOYMENTS = ("players", "sample")
SIZE = "scenario"


@cache
def missions() -> dict[str, Mission]:
    """The scenarios offered as missions (``data/missions/black-reach``), by id."""
    found = load_missions(MISSIONS_DIR / "black-reach")
    return {k: m for k, m in found.items() if m.rule_system == SYSTEM_ID}


@cache
def _scenario(scenario_id: str) -> dict[str, Any]:
    """The scenario (its JSON) a mission names, from the sample set-up's reader."""
    setup = sample_setup(scenario_id, deployment=())
    assert isinstance(setup.scenario, Mapping)
    return dict(setup.scenario)


def shipped_scenario(scenario_id: str) -> dict[str, Any]:
    """A shipped scenario's JSON (a copy)."""
    return dict(_scenario(scenario_id))


def _scenario_of(mission: Mission) -> dict[str, Any]:
    own = content.content_of(mission)
    if own is not None and isinstance(own.get("scenario"), Mapping):
        return dict(own["scenario"])
    return _scenario(str(mission.options.get("scenario") or mission.id))


def _sides(scenario: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [s for s in scenario.get("sides", []) if isinstance(s, Mapping)]


def parse_options(raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """``side`` (a string, checked against the scenario when seat A takes it),
    ``deployment`` (``players`` or ``sample``) and ``hot_seat`` (a boolean, or the form's
    ``"1"``/``"0"``); anything else is a 422 naming the field."""
    raw = raw or {}
    errors = [
        {
            "field": f"options.{k}",
            "message": "not an option of a Black Reach match",
            "type": "extra",
        }
        for k in sorted(raw)
        if k not in ("side", "deployment", "hot_seat")
    ]
    side = raw.get("side", "")
    if not isinstance(side, str) or len(side) > 64:
        errors.append({"field": "options.side", "message": "a side id", "type": "string"})
    deployment = raw.get("deployment", DEPLOYMENTS[0])
    if deployment not in DEPLOYMENTS:
        errors.append(
            {
                "field": "options.deployment",
                "message": f"one of {', '.join(DEPLOYMENTS)}",
                "type": "enum",
            }
        )
    hot = raw.get("hot_seat", False)
    if hot in ("1", "0", ""):
        hot = hot == "1"
    if not isinstance(hot, bool):
        errors.append({"field": "options.hot_seat", "message": "true or false", "type": "bool"})
    if errors:
        raise InvalidInput("These are not options of a Black Reach match.", errors=errors)
    return {"side": side, "deployment": deployment} | ({"hot_seat": True} if hot else {})


def _force(scenario: Mapping[str, Any], side_id: str) -> dict[str, Any]:
    """A seat's snapshot: the side it plays and what the match pages show of it."""
    side = next(s for s in _sides(scenario) if s.get("id") == side_id)
    army = side.get("army") if isinstance(side.get("army"), Mapping) else {}
    assert isinstance(army, Mapping)
    return {
        "name": side_id,
        "faction": str(army.get("faction", "")),
        "points": int(side.get("points", 0)),
        "side": side_id,
        "scenario": str(scenario.get("id", "")),
    }


def _frozen(mission: Mission) -> dict[str, Any]:
    """What seat A's snapshot keeps of a content set's mission: the scenario, forces and
    boards the battle will be set up with, and where they come from."""
    own = content.content_of(mission)
    assert own is not None
    size = mission.battle_sizes[0].battlefield
    return {
        "id": mission.id,
        "set": own.get("set"),
        "name": str(own.get("name") or ""),
        "scenario": own.get("scenario"),
        "forces": own.get("forces"),
        "boards": own.get("boards"),
        "board": {"width": size.width, "height": size.depth},
    }


def own_force(
    mission: Mission,
    options: Mapping[str, Any],
    seat: Seat,
    *,
    db: Session | None = None,
    user: User | None = None,
) -> dict[str, Any]:
    """Seat A plays the side of the option ``side`` (the scenario's first by default), seat
    B the other one (422 naming a side the scenario lacks). On a content set's scenario,
    seat A's snapshot freezes the content (``content``: what the battle is set up with), seat
    B's names the set; such a scenario has no sample deployment (422). The mission is the
    creator's own (``owned_missions`` found it for them); ``db`` and ``user`` (seat A's
    creator) count their open content-set matches: 422 past ``content.MAX_OPEN``."""
    own = content.content_of(mission)
    if seat is Seat.A and not content.creatable(mission):
        # frozen from a set shared by link: kept for its open match's join, not a new match
        raise UnknownMission(
            f"There is no mission {mission.id!r}: a scenario shared by link is played "
            "through its link.",
            errors=[{"field": "mission", "message": "unknown mission", "type": "unknown"}],
        )
    waiting = False
    if own is not None and seat is Seat.A and db is not None and user is not None:
        content.lock_owner(db, user.id)  # the count holds until the creation commits
        waiting = content.open_matches(db, user.id) >= content.MAX_OPEN
    if waiting:
        raise InvalidInput(
            f"You already have {content.MAX_OPEN} matches on your content sets waiting "
            "for an opponent: cancel one, or wait for a join, before creating another.",
            errors=[
                {
                    "field": "mission",
                    "message": f"at most {content.MAX_OPEN} open content-set matches",
                    "type": "limit",
                }
            ],
        )
    if own is not None and options.get("deployment") == "sample":
        raise ArmyUnusable(
            "A scenario of your own content has no sample deployment: the players deploy.",
            errors=[
                {
                    "field": "options.deployment",
                    "message": "players only for your own content",
                    "type": "enum",
                }
            ],
        )
    scenario = _scenario_of(mission)
    ids = [str(s.get("id")) for s in _sides(scenario)]
    chosen = str(options.get("side") or ids[0])
    if chosen not in ids:
        raise ArmyUnusable(
            f"The scenario {scenario.get('id')!r} has no side {chosen!r} "
            f"(its sides: {', '.join(ids)}).",
            errors=[
                {"field": "options.side", "message": "not a side of the scenario", "type": "enum"}
            ],
        )
    side = chosen if seat is Seat.A else next(i for i in ids if i != chosen)
    force = _force(scenario, side)
    if own is not None:
        about = {"id": mission.id, "name": str(own.get("name") or "")}
        force["content"] = _frozen(mission) if seat is Seat.A else about
    return force


def export_snapshot(snapshot: Mapping[str, Any]) -> dict[str, Any]:
    """A seat's snapshot in an export: the frozen content is named, not copied (the log's
    set-up holds it)."""
    out = dict(snapshot)
    frozen = out.get("content")
    if isinstance(frozen, Mapping):
        out["content"] = {"id": frozen.get("id"), "name": frozen.get("name")}
    return out


def _about(frozen: Mapping[str, Any], scenario: Mapping[str, Any] | None) -> dict[str, Any]:
    about: dict[str, Any] = {"id": frozen.get("id"), "name": str(frozen.get("name") or "")}
    if isinstance(frozen.get("set"), int):
        about["set"] = frozen["set"]
    if isinstance(scenario, Mapping):
        about["scenario"] = content.summary(scenario)
    return about


def joined_snapshot(snapshot: Mapping[str, Any]) -> dict[str, Any]:
    """Seat A's snapshot once the battle is created: the frozen documents dropped (the log's
    set-up holds them), the set's name and the scenario's id, name and sides kept for the
    pages (``GET .../content``, the match header). Any other snapshot unchanged."""
    out = dict(snapshot)
    frozen = out.get("content")
    if isinstance(frozen, Mapping) and isinstance(frozen.get("scenario"), Mapping):
        out["content"] = _about(frozen, frozen["scenario"])
    return out


def ready_snapshot(db: Any, user: Any, army_id: int, points: int) -> dict[str, Any]:
    """Never a list of the army builder: the seats play the scenario's forces."""
    raise ArmyUnusable(
        "A Black Reach match is played with the scenario's forces, not an army list.",
        errors=[{"field": "army_id", "message": "not used here", "type": "extra"}],
    )


def check_snapshot(snapshot: Mapping[str, Any], seat: Seat) -> None:
    if not isinstance(snapshot.get("side"), str) or not snapshot["side"]:
        raise ArmyUnusable(
            f"Seat {seat} plays no side of the scenario.",
            errors=[{"field": "side", "message": "missing", "type": "missing"}],
        )


def new_setup(given: SetupInput) -> BattleSetup:
    scenario_id = str(given.mission.options.get("scenario") or given.mission.id)
    seats = {str(seat): str(given.armies[seat]["side"]) for seat in (Seat.A, Seat.B)}
    frozen = given.armies[Seat.A].get("content")
    if isinstance(frozen, Mapping) and isinstance(frozen.get("scenario"), Mapping):
        # a content set's scenario, as seat A froze it at the creation (players deploy)
        # trimmed again: a match frozen before the trimming keeps its mission id, but its
        # log (read by the opponent, spectators and exports) holds only what is used
        kept, forces, boards = content.trimmed(
            frozen["scenario"], frozen.get("forces"), frozen.get("boards")
        )
        setup = BattleSetup(
            scenario=kept,
            catalogue=forces,
            boards=boards,
            seats=seats,
            deployment=(),
        )
        try:
            parse_setup(setup)
        except (EngineError, TypeError, ValueError, KeyError) as exc:
            raise InvalidInput(f"The scenario {scenario_id!r} cannot be set up: {exc}") from None
        return setup
    sample = given.options.get("deployment") == "sample"
    try:
        return sample_setup(scenario_id, seats, None if sample else ())
    except (EngineError, OSError) as exc:
        raise InvalidInput(f"The scenario {scenario_id!r} cannot be set up: {exc}") from None


@cache
def _shipped_content_id(scenario_id: str) -> str:
    made = sample_setup(scenario_id, deployment=())
    assert isinstance(made.scenario, Mapping)
    return content.content_id(made.scenario, made.catalogue, made.boards)


def _shipped_id(mission: Mission) -> str:
    """The content id of a shipped mission's scenario, forces and boards (as the files are)."""
    return _shipped_content_id(str(mission.options.get("scenario") or mission.id))


def imported(game: MatchGame, snapshots: Mapping[str, Any]) -> Imported:
    first = game.envelopes[0].event if game.envelopes else None
    if not isinstance(first, BattleCreated):
        raise InvalidLog("The log does not start with the creation of the battle.")
    setup = first.setup
    scenario = setup.scenario
    if not isinstance(scenario, Mapping):
        raise InvalidLog("The log's scenario is not a scenario object.")
    shipped = next(
        (m for m in missions().values() if m.options.get("scenario") == scenario.get("id")),
        None,
    )
    # a scenario no shipped mission offers as it is (a content set's): its mission is named
    # by its content, as when the match was created
    mission_id = content.content_id(scenario, setup.catalogue, setup.boards)
    if shipped is not None and mission_id == _shipped_id(shipped):
        mission_id = shipped.id
    own = mission_id != getattr(shipped, "id", None)
    try:
        forces = {seat: _force(scenario, side) for seat, side in setup.seats.items()}
    except StopIteration:
        raise InvalidLog("The log's seats play sides its scenario lacks.") from None
    if own:
        named = snapshots.get("A") if isinstance(snapshots.get("A"), Mapping) else {}
        assert isinstance(named, Mapping)
        about = named.get("content") if isinstance(named.get("content"), Mapping) else {}
        assert isinstance(about, Mapping)
        # the scenario's name and sides from the log (the export names only the set)
        kept = _about({"id": mission_id, "name": about.get("name")}, scenario)
        for seat in forces:
            forces[seat]["content"] = dict(kept)
    options = {"side": setup.seats.get("A", ""), "deployment": "players"}
    return Imported(mission_id, SIZE, forces["A"] | {"options": options}, forces["B"])


def mission_name(
    mission_id: str, read_snapshot: Callable[[], Mapping[str, Any] | None]
) -> str | None:
    """A content set's scenario named as the match froze it ("Content set <set>: <scenario>",
    as the match page's header says), from seat A's snapshot (its frozen copy before the
    join, what :func:`joined_snapshot` or an import kept after it); ``None`` for any other
    mission, or a snapshot that names another one."""
    if not mission_id.startswith(content.PREFIX):
        return None
    snapshot = read_snapshot()
    if not isinstance(snapshot, Mapping):
        return None
    frozen = snapshot.get("content")
    if not isinstance(frozen, Mapping) or frozen.get("id") != mission_id:
        return None
    scenario = frozen.get("scenario") if isinstance(frozen.get("scenario"), Mapping) else {}
    assert isinstance(scenario, Mapping)
    name = str(scenario.get("name") or scenario.get("id") or "").strip()
    set_name = str(frozen.get("name") or "").strip()
    if not name or not set_name:
        return name or set_name or None
    return _("Content set %(set)s: %(scenario)s") % {"set": set_name, "scenario": name}


def headline(game: MatchGame) -> dict[str, str | None]:
    assert isinstance(game, BlackReachBattle)
    return battle_headline(game)


SYSTEM = MatchSystem(
    id=SYSTEM_ID,
    game=BlackReachMatch,
    event_codec=EVENT_CODEC,
    load_missions=missions,
    default_mission="sample-relay",
    default_size=SIZE,
    ready_snapshot=ready_snapshot,
    check_snapshot=check_snapshot,
    parse_options=parse_options,
    new_setup=new_setup,
    imported=imported,
    headline=headline,
    export_snapshot=export_snapshot,
    own_force=own_force,
    owned_missions=content.owned_missions,
    creatable=content.creatable,
    joined_snapshot=joined_snapshot,
    mission_name=mission_name,
)
