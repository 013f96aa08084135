"""``MatchGame``: what a rule system's battle façade offers the match feature (ADR 0013).

Each rule system that can be played as a match brings a façade over
:class:`app.engine.match.log.Match` with its own rule book (the 10th edition's ``Battle``,
PEN's ``PenBattle``, ...). The match feature (``app.matches``: the service, the API, SSE, the
read cache, undo, export/import, audits, league links) drives any of them through this
protocol only, structurally: a façade does not inherit from it, it has these members. The
façades share what they have in common through :class:`app.engine.match.battle.BattleGame`
(the log's readers, the undo fields and answers, the undo dispatch, fork, import).

``GameStatus`` is what the match row and the league need to know of a battle, whatever its
rules: where it stands, whether both players confirmed its result, the winner and the score
of each seat.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, Self, runtime_checkable

from app.engine.match.codec import JsonObject
from app.engine.match.events import Envelope, Viewer

__all__ = ["GameStage", "GameStatus", "MatchGame"]

GameStage = Literal["setup", "battle", "ended"]


@dataclass(frozen=True, slots=True)
class GameStatus:
    """Where a battle stands, in the words every rule system shares.

    - ``stage``: ``"setup"`` (deployment and the steps before the first turn), ``"battle"``,
      ``"ended"``;
    - ``confirmed``: the battle has ended and both players confirmed its result;
    - ``winner``: the winning seat (``"A"``/``"B"``), ``"draw"``, or ``None`` while no result;
    - ``scores``: the victory points (or the system's equivalent) of each seat;
    - ``round``: the battle round being played (0 before the first one).
    """

    stage: GameStage
    confirmed: bool = False
    winner: str | None = None
    scores: Mapping[str, int] = field(default_factory=dict)
    round: int = 0


@runtime_checkable
class MatchGame(Protocol):
    """One battle of some rule system: its log, its state, its views, its commands.

    Every write may name ``expected_version``; a stale one raises ``StaleVersion`` (409). A
    refused command raises :class:`~app.engine.match.errors.Refusal`."""

    def __init__(self, envelopes: Iterable[Envelope] = ()) -> None:
        """The battle replayed from ``envelopes`` (the stored log, in order)."""

    @classmethod
    def create(cls, setup: Any, *, actor: str = "A", at: str | None = None) -> Self:
        """A new battle from the system's own set-up value."""

    @classmethod
    def import_log(cls, data: object) -> Self:
        """A battle replayed from ``export_log()`` data (or its JSON text)."""

    def fork(self) -> Self:
        """A copy that can execute commands without touching this battle."""

    # -- reading ----------------------------------------------------------------------------

    @property
    def state(self) -> Any: ...

    @property
    def version(self) -> int: ...

    @property
    def envelopes(self) -> tuple[Envelope, ...]: ...

    def view(self, viewer: Viewer) -> JsonObject:
        """What ``viewer`` (a seat, or ``None`` for a spectator) may see, with ``version``."""

    def legal_actions(self, seat: str) -> list[JsonObject]: ...

    def log_for(self, viewer: Viewer) -> list[Envelope]:
        """The envelopes ``viewer`` may see (the other seat's secrets left out)."""

    def log_json(self, viewer: Viewer, since: int = 0) -> list[JsonObject]:
        """``viewer``'s copy of the log after version ``since``, as JSON."""

    def audit(self) -> list[JsonObject]:
        """Every roll of the log re-drawn from its seed: ``{"seq", "event", "ok"}``."""

    def export_log(self) -> JsonObject: ...

    # -- writing ----------------------------------------------------------------------------

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
        """Run ``command`` for seat ``actor``; dice from ``seed`` or rolled by hand."""

    def execute_json(
        self,
        data: Mapping[str, object],
        actor: str,
        *,
        expected_version: int | None = None,
        seed: int | None = None,
        dice: Sequence[int] | None = None,
        at: str | None = None,
    ) -> list[Envelope]: ...

    @classmethod
    def decode(cls, data: object) -> Any:
        """The command in ``data`` (``{"type": kind, ...}``); a malformed one is a 422
        :class:`~app.engine.match.errors.Refusal` (``bad_command``)."""

    def command_seed(self, secret: str | bytes, command: Any, seat: str | None = None) -> int:
        """The seed of ``command``'s dice from the match secret and the roll's identity in the
        current state: undo-stable (an undone roll sent again draws the same dice)."""

    def status(self) -> GameStatus: ...
