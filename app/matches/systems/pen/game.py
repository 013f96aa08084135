"""``PenMatch``: a PEN battle under one of its turn structures, as one
:class:`~app.engine.match.game.MatchGame` (issue 14).

A PEN match is played under the turn structure its creator chose (the match option
``turn_structure``): ``classic`` and ``alternation`` (the set-up option of §3.5) are the PEN
battle engine's own (:class:`PenBattle`), ``dynamics`` is the Dynamics common turn
(:class:`DynamicsBattle`), whose events are the PEN battle's plus its own. ``PenMatch`` holds
the one the log starts with and hands every member of the protocol to it, so the match
feature (one entry per rule system) plays all three; the export names the turn structure and
the import replays the log with the game it names.

Secrets: the readers (``view``, ``log_for``, ``log_json``, ``audit``) are the engines' own,
which leave the other seat's secret events out (a Dynamics order stays in its owner's log
until it is revealed). The seed of a ``place_order`` (the key to the order's nonce) is derived
by the service from the match secret and never stored nor served: no event holds it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from app.engine.dynamics import DynamicsBattle, DynamicsRuleBook, DynamicsSetup
from app.engine.dynamics.events import DynamicsCreated
from app.engine.match.codec import JsonObject
from app.engine.match.errors import LogError, Refusal
from app.engine.match.events import Envelope, Viewer
from app.engine.match.game import GameStatus
from app.engine.pen import SYSTEM_ID
from app.engine.pen.battle import BattleSetup, PenBattle
from app.engine.pen.battle.events import BattleCreated

__all__ = ["TURN_STRUCTURES", "PenCommand", "PenMatch", "TurnStructure", "structure_of"]

TurnStructure = Literal["classic", "alternation", "dynamics"]
TURN_STRUCTURES: tuple[TurnStructure, ...] = ("classic", "alternation", "dynamics")
"""The turn structures of a PEN battle (``app.engine.pen.TURN_STRUCTURES``, in this order)."""

Inner = PenBattle | DynamicsBattle


@dataclass(frozen=True, slots=True)
class PenCommand:
    """A command's JSON, known to be a command of some PEN turn structure (``decode``)."""

    data: object


def _inner_for(envelopes: Sequence[Envelope]) -> Inner:
    """The engine that replays ``envelopes``: the Dynamics one when the log starts with a
    Dynamics battle, else the PEN battle engine (an empty log too)."""
    if envelopes and isinstance(envelopes[0].event, DynamicsCreated):
        return DynamicsBattle(envelopes)
    return PenBattle(envelopes)


def structure_of(inner: Inner) -> TurnStructure:
    """The turn structure a battle is played under (from its first event)."""
    if isinstance(inner, DynamicsBattle):
        return "dynamics"
    first = inner.envelopes[0].event if inner.envelopes else None
    if isinstance(first, BattleCreated) and first.setup.alternation:
        return "alternation"
    return "classic"


class PenMatch:
    """A PEN battle driven by the match feature, whatever its turn structure."""

    __slots__ = ("inner",)

    def __init__(self, envelopes: Iterable[Envelope] = ()) -> None:
        self.inner: Inner = _inner_for(tuple(envelopes))

    @classmethod
    def _of(cls, inner: Inner) -> PenMatch:
        game = cls.__new__(cls)
        game.inner = inner
        return game

    @classmethod
    def create(
        cls, setup: BattleSetup | DynamicsSetup, *, actor: str = "A", at: str | None = None
    ) -> PenMatch:
        if isinstance(setup, DynamicsSetup):
            return cls._of(DynamicsBattle.create(setup, actor=actor, at=at))
        return cls._of(PenBattle.create(setup, actor=actor, at=at))

    @classmethod
    def import_log(cls, data: object) -> PenMatch:
        """The battle an export describes, replayed by the game of the turn structure it
        names (``classic`` when it names none: the exports made before issue 14)."""
        if isinstance(data, str | bytes):
            try:
                data = json.loads(data)
            except ValueError as exc:
                raise LogError(f"not JSON: {exc}") from None
        if not isinstance(data, Mapping):
            raise LogError("a match log must be a JSON object")
        named = data.get("turn_structure", "classic")
        if named not in TURN_STRUCTURES:
            known = ", ".join(TURN_STRUCTURES)
            raise LogError(f"unknown turn structure {named!r} (a PEN battle has: {known})")
        if data.get("rule_system") != SYSTEM_ID:
            raise LogError(f"this log is for rule system {data.get('rule_system')!r}, not 'pen'")
        inner: Inner
        if named == "dynamics":
            # the Dynamics engine names its logs apart; a PEN match's export names PEN
            inner = DynamicsBattle.import_log(
                {**data, "rule_system": DynamicsRuleBook().rule_system}
            )
        else:
            inner = PenBattle.import_log(data)
        found = structure_of(inner)
        if found != named:
            raise LogError(f"the log names the turn structure {named!r} but plays {found!r}")
        return cls._of(inner)

    def fork(self) -> PenMatch:
        return self._of(self.inner.fork())

    @property
    def turn_structure(self) -> TurnStructure:
        return structure_of(self.inner)

    # -- reading ----------------------------------------------------------------------------

    @property
    def state(self) -> Any:
        """The engine's state: a PEN ``BattleState`` or a ``DynamicsState``."""
        return self.inner.state

    @property
    def version(self) -> int:
        return self.inner.version

    @property
    def envelopes(self) -> tuple[Envelope, ...]:
        return self.inner.envelopes

    def view(self, viewer: Viewer) -> JsonObject:
        view = self.inner.view(viewer)
        view["turn_structure"] = self.turn_structure
        return view

    def legal_actions(self, seat: str) -> list[JsonObject]:
        return self.inner.legal_actions(seat)

    def log_for(self, viewer: Viewer) -> list[Envelope]:
        return self.inner.log_for(viewer)

    def log_json(self, viewer: Viewer, since: int = 0) -> list[JsonObject]:
        return self.inner.log_json(viewer, since)

    def audit(self) -> list[JsonObject]:
        return self.inner.audit()

    def export_log(self) -> JsonObject:
        """The whole log (the server's copy, secrets included) naming its turn structure."""
        data = self.inner.export_log()
        data["rule_system"] = SYSTEM_ID  # the match's rule system (ADR 0013), whatever its turn
        data["turn_structure"] = self.turn_structure
        return data

    def status(self) -> GameStatus:
        return self.inner.status()

    # -- writing ----------------------------------------------------------------------------

    @classmethod
    def decode(cls, data: object) -> PenCommand:
        """A command of some PEN turn structure (a 422 ``Refusal`` when it is none's); the
        battle reads it with its own turn structure's commands when it runs it (a command of
        another structure is then a 422 ``bad_command``)."""
        refused: Refusal | None = None
        for engine in (PenBattle, DynamicsBattle):
            try:
                engine.decode(data)
            except Refusal as exc:
                refused = refused or exc
            else:
                return PenCommand(data)
        assert refused is not None
        raise refused

    def _own(self, command: object) -> Any:
        """``command`` as the battle's engine reads it."""
        return self.inner.decode(command.data) if isinstance(command, PenCommand) else command

    def command_seed(self, secret: str | bytes, command: Any, seat: str | None = None) -> int:
        return self.inner.command_seed(secret, self._own(command), seat)

    def execute(
        self,
        command: Any,
        actor: str,
        *,
        expected_version: int | None = None,
        seed: int | None = None,
        dice: Sequence[int] | None = None,
        at: str | None = None,
    ) -> list[Envelope]:
        return self.inner.execute(
            self._own(command),
            actor,
            expected_version=expected_version,
            seed=seed,
            dice=dice,
            at=at,
        )

    def execute_json(
        self,
        data: Mapping[str, object],
        actor: str,
        *,
        expected_version: int | None = None,
        seed: int | None = None,
        dice: Sequence[int] | None = None,
        at: str | None = None,
    ) -> list[Envelope]:
        return self.inner.execute_json(
            data, actor, expected_version=expected_version, seed=seed, dice=dice, at=at
        )
