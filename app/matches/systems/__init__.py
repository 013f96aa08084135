"""What the match feature knows of each rule system that can be played as a match (ADR 0013).

One :class:`MatchSystem` per rule-system id, each built by its own package
(``app.matches.systems.<system>``): the battle façade (any :class:`MatchGame`), its event
codec, its missions, how two army snapshots, a mission and the options become the engine's
set-up, which lists a seat may bring, and the optional combat-in-match hooks. The service,
the API, SSE, the read cache, undo, export/import, audits and league links look a system up
here by the match's ``rule_system`` and never ask ``if ruleset == ...``.

A rule system registered in :mod:`app.engine.registry` with the capability ``"match"`` has an
entry here, and an entry here is such a system (``tests/matches/test_systems.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from app.engine.match import Mission, TaggedCodec
from app.engine.match.game import MatchGame
from app.engine.match.seats import Seat
from app.matches.exceptions import ArmyUnusable, UnknownMission, UnknownRuleset

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from app.accounts.models import User
    from app.engine.combat import CombatResolution
    from app.matches.models import Match

__all__ = [
    "DEFAULT_RULESET",
    "CombatHooks",
    "GuestArmies",
    "Imported",
    "MatchSystem",
    "OwnForce",
    "SampleInfo",
    "SetupInput",
    "mission_and_size",
    "playable",
    "system",
    "systems",
]

DEFAULT_RULESET = "wh40k-10e"
"""The rule system of a match created without ``ruleset`` (the clients before issue 13)."""


@dataclass(frozen=True, slots=True)
class SetupInput:
    """What a system's set-up is made from when seat B joins."""

    armies: Mapping[Seat, Mapping[str, Any]]  # the two seats' army snapshots
    mission: Mission
    battle_size: str
    points: int  # the battle size's points limit
    options: Mapping[str, Any]  # the options as the system serialised them


@dataclass(frozen=True, slots=True)
class Imported:
    """What an imported log says of its match: mission, size, and the two army snapshots."""

    mission_id: str
    battle_size: str
    army_a: dict[str, Any]
    army_b: dict[str, Any]


@dataclass(frozen=True, slots=True)
class SampleInfo:
    """A sample list a guest seat may take (``name`` is a msgid)."""

    id: str
    name: str
    faction: str


@dataclass(frozen=True, slots=True)
class GuestArmies:
    """How a guest seat brings an army: a sample list, or a pasted army export;
    ``samples()`` lists the sample lists with their points."""

    sample: Callable[[Session, str, int], dict[str, Any]]
    pasted: Callable[[Session, str | Mapping[str, Any], int], dict[str, Any]]
    samples: Callable[[], list[tuple[SampleInfo, int]]] = field(default=list)


@dataclass(frozen=True, slots=True)
class CombatHooks:
    """Attacks between two units of a match, with their exact odds (10th edition)."""

    preview: Callable[..., dict[str, Any]]
    resolve: Callable[..., tuple[Any, CombatResolution]]


class OwnForce(Protocol):
    """The hook ``own_force``: the snapshot of ``seat``'s force in a system whose seats bring
    no army list. ``db`` and ``user`` (the seat's player; ``None`` for a guest seat or when
    only the force's name is asked, e.g. a form) let a system read content the player owns
    and freeze it into the snapshot; without them it answers from the mission alone."""

    def __call__(
        self,
        mission: Mission,
        options: Mapping[str, Any],
        seat: Seat,
        *,
        db: Session | None = None,
        user: User | None = None,
    ) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class MatchSystem:
    """The match feature's view of one rule system (hooks; see the module docstring).

    - ``ready_snapshot(db, user, army_id, points_limit)``: the snapshot of one of the user's
      lists of this system, validated (422 if unusable, 409 if not ready);
    - ``check_snapshot(snapshot, seat)``: raises ``ArmyUnusable`` (422) if out of the engine's
      bounds;
    - ``parse_options(raw)``: the options as stored on the match (422 on a bad one);
    - ``new_setup(SetupInput)``: the engine's set-up value for ``game.create``;
    - ``imported(game, snapshots)``: the match an imported log describes (``InvalidLog``);
    - ``headline(game)``: the stage, the active seat and the phase (the streams' state);
    - ``check_command(command)``: raises a ``Refusal`` before a command is run (e.g. a
      concession must be confirmed);
    - ``own_force(mission, options, seat, *, db, user)``: for a system whose seats bring no
      army list (a Black Reach scenario's forces), the snapshot of ``seat``'s force (422 on a
      bad option; :class:`OwnForce`: ``db`` and ``user`` given when a seat is taken, so the
      force may come from content that player may read);
      ``None``: each seat names one of its lists (``ready_snapshot``) or, as a guest, a
      sample or a pasted export (``guests``). :meth:`seat_snapshot` and
      :meth:`guest_snapshot` are what the service asks;
    - ``owned_missions(db, user_id)``: the missions of the packs that user uploaded (the 10th
      edition's narrative packs, app.matches.packs), found by :func:`mission_and_size` when
      its owner is named; ``None``: the system takes no uploaded missions.
    """

    id: str
    game: type[MatchGame]
    event_codec: TaggedCodec
    load_missions: Callable[[], Mapping[str, Mission]]
    default_mission: str
    default_size: str
    ready_snapshot: Callable[[Session, User, int, int], dict[str, Any]]
    check_snapshot: Callable[[Mapping[str, Any], Seat], None]
    parse_options: Callable[[Mapping[str, Any] | None], dict[str, Any]]
    new_setup: Callable[[SetupInput], object]
    imported: Callable[[MatchGame, Mapping[str, Any]], Imported]
    headline: Callable[[MatchGame], dict[str, str | None]]
    check_command: Callable[[object], None] = field(default=lambda command: None)
    guests: GuestArmies | None = None
    combat: CombatHooks | None = None
    export_snapshot: Callable[[Mapping[str, Any]], dict[str, Any]] = field(
        default=lambda snapshot: dict(snapshot)
    )
    own_force: OwnForce | None = None
    owned_missions: Callable[[Session, int], Mapping[str, Mission]] | None = None
    #: refuses, at creation, options that do not fit the chosen mission (422)
    check_options: Callable[[Mission, Mapping[str, Any]], None] = field(
        default=lambda mission, options: None
    )
    #: what seat A's snapshot keeps once the battle is created (its log holds the rest)
    joined_snapshot: Callable[[Mapping[str, Any]], dict[str, Any]] = field(
        default=lambda snapshot: dict(snapshot)
    )
    #: the name of a match's mission the system does not list (a Black Reach content set's
    #: scenario), from the mission id and seat A's snapshot (a function that reads it: call it
    #: only when the id is one of yours); ``None``: not known
    mission_name: Callable[[str, Callable[[], Mapping[str, Any] | None]], str | None] = field(
        default=lambda mission_id, snapshot: None
    )
    #: whether the new-match form offers one of ``owned_missions`` for a new match (a Black
    #: Reach scenario frozen from a set shared by link is kept only to join its open match)
    creatable: Callable[[Mission], bool] = field(default=lambda mission: True)

    def seat_snapshot(
        self,
        db: Session,
        user: User,
        army_id: int | None,
        mission: Mission,
        points: int,
        options: Mapping[str, Any],
        seat: Seat,
    ) -> dict[str, Any]:
        """What a registered player's seat brings: the system's own force for the seat, or
        the snapshot of the list ``army_id`` (422 when the one is named with the other)."""
        if self.own_force is not None:
            if army_id is not None:
                raise ArmyUnusable(
                    "In this rule system each seat plays a force of the mission: name no army "
                    "list.",
                    errors=[{"field": "army_id", "message": "not used here", "type": "extra"}],
                )
            return self.own_force(mission, options, seat, db=db, user=user)
        if army_id is None:
            raise ArmyUnusable(
                "Name one of your army lists marked ready (army_id).",
                errors=[{"field": "army_id", "message": "required", "type": "missing"}],
            )
        return self.ready_snapshot(db, user, army_id, points)

    def guest_snapshot(
        self,
        db: Session,
        sample: str | None,
        army: str | Mapping[str, Any] | None,
        mission: Mission,
        points: int,
        options: Mapping[str, Any],
        seat: Seat,
    ) -> dict[str, Any]:
        """What a guest seat brings: the system's own force, else a sample list or a pasted
        army export (exactly one of the two)."""
        if self.own_force is not None:
            if sample is not None or army is not None:
                raise ArmyUnusable(
                    "In this rule system each seat plays a force of the mission: bring no "
                    "sample list nor army.",
                    errors=[{"field": "army", "message": "not used here", "type": "extra"}],
                )
            return self.own_force(mission, options, seat, db=db)
        if self.guests is None:
            raise ArmyUnusable("A guest seat cannot bring an army in this rule system.")
        if (sample is None) == (army is None):
            raise ArmyUnusable(
                "Choose a sample list or paste an army export (one of the two).",
                errors=[{"field": "army", "message": "one of sample or army", "type": "missing"}],
            )
        if sample is not None:
            return self.guests.sample(db, sample, points)
        assert army is not None
        return self.guests.pasted(db, army, points)

    def missions(self) -> Mapping[str, Mission]:
        return self.load_missions()

    def restore(self, envelopes: Sequence[Any]) -> MatchGame:
        """The battle replayed from its stored envelopes."""
        return self.game(envelopes)


def _build() -> dict[str, MatchSystem]:
    from app.matches.systems import black_reach, pen, wh40k10e

    entries = (wh40k10e.SYSTEM, pen.SYSTEM, black_reach.SYSTEM)
    return {e.id: e for e in entries}


_SYSTEMS: dict[str, MatchSystem] | None = None


def systems() -> dict[str, MatchSystem]:
    """Every rule system that can be played as a match, by id."""
    global _SYSTEMS
    if _SYSTEMS is None:
        _SYSTEMS = _build()
    return _SYSTEMS


def playable(ruleset: str) -> MatchSystem:
    """The system ``ruleset``; 422 naming the playable ones if it is unknown or not playable."""
    found = systems().get(ruleset)
    if found is None:
        known = ", ".join(sorted(systems()))
        raise UnknownRuleset(
            f"Rule system {ruleset!r} cannot be played as a match (playable: {known}).",
            errors=[{"field": "ruleset", "message": "not playable as a match", "type": "unknown"}],
        )
    return found


def system(match: Match) -> MatchSystem:
    """The system of a stored match."""
    return playable(match.rule_system)


def mission_and_size(
    entry: MatchSystem,
    mission_id: str,
    battle_size: str,
    *,
    db: Session | None = None,
    owner_id: int | None = None,
    given: Mapping[str, Mission] | None = None,
) -> tuple[Mission, int]:
    """The mission and the points of its battle size; 422 naming what is unknown. With ``db``
    and ``owner_id`` (the match's creator), a mission of a pack that user uploaded is found
    too (the system's listed missions come first); ``given``: missions the caller found
    elsewhere (a Black Reach set shared by link), looked at before the owner's."""
    mission = entry.missions().get(mission_id)
    if mission is None and given:
        mission = given.get(mission_id)
    if mission is None and db is not None and owner_id is not None and entry.owned_missions:
        mission = entry.owned_missions(db, owner_id).get(mission_id)
    if mission is None:
        raise UnknownMission(
            f"There is no mission {mission_id!r}.",
            errors=[{"field": "mission", "message": "unknown mission", "type": "unknown"}],
        )
    try:
        size = mission.battle_size(battle_size)
    except KeyError:
        sizes = ", ".join(s.id for s in mission.battle_sizes)
        raise UnknownMission(
            f"Mission {mission_id!r} has no battle size {battle_size!r} (it has: {sizes}).",
            errors=[{"field": "battle_size", "message": "unknown battle size", "type": "unknown"}],
        ) from None
    return mission, size.points
