"""``PenMatch``: the PEN battle façade as a :class:`~app.engine.match.game.MatchGame`.

``PenBattle`` (app/engine/pen/battle/game.py) is being given the protocol's members by the
PEN engine's owners; until it has them all, this subclass supplies what it lacks (a
``status`` in the shared words) and keeps its battles and forks of its own type."""

from __future__ import annotations

from typing import Any

from app.engine.match.game import GameStatus
from app.engine.match.log import Match
from app.engine.pen.battle import BattleSetup, PenBattle
from app.engine.pen.battle.commands import CreateBattle
from app.engine.pen.battle.rules import RULE_BOOK
from app.engine.pen.battle.state import Stage

__all__ = ["PenMatch"]

_SETUP_STAGES = frozenset(
    {Stage.CREATED, Stage.RESERVES, Stage.ROLL_OFF, Stage.CHOOSE, Stage.DEPLOY}
    | {Stage.INFILTRATE, Stage.SCOUT}
)


class PenMatch(PenBattle):
    """A PEN battle driven by the match feature."""

    @classmethod
    def create(cls, setup: BattleSetup, *, actor: str = "A", at: str | None = None) -> PenMatch:
        battle = cls()
        battle.match.execute(CreateBattle(setup), actor, at=at)
        return battle

    @classmethod
    def import_log(cls, data: object) -> PenMatch:
        battle = cls()
        battle.match = Match.import_log(RULE_BOOK, data)
        return battle

    def fork(self) -> PenMatch:
        clone = type(self).__new__(type(self))
        clone.match = self.match.fork()
        return clone

    def status(self) -> GameStatus:
        """Where the battle stands. A PEN battle ends once both players have reported who
        holds each objective (the scoring step): its result needs no other confirmation."""
        engine: Any = getattr(super(), "status", None)
        if engine is not None:
            found = engine()
            assert isinstance(found, GameStatus)
            return found
        state = self.state
        if state.stage is Stage.ENDED:
            return GameStatus(
                "ended",
                confirmed=True,
                winner=state.winner or "draw",
                scores={str(k): int(v) for k, v in state.result.items()},
                round=state.round,
            )
        if state.stage in _SETUP_STAGES:
            return GameStatus("setup", round=state.round)
        return GameStatus("battle", round=state.round)
