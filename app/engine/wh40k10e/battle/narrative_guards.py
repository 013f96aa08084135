"""What every narrative command checks first: a narrative mission, its Attacker chosen, the
actor's side. Shared by the scenarios' rules and the expansions' rules."""

from __future__ import annotations

from app.engine.narrative8e.pack import Side
from app.engine.wh40k10e.battle.errors import Code, refuse
from app.engine.wh40k10e.battle.flow import Builder
from app.engine.wh40k10e.battle.narrative import NarrativeState, side_of
from app.engine.wh40k10e.battle.setup import Seat


def need_narrative(b: Builder) -> NarrativeState:
    n = b.state.narrative
    if n is None:
        raise refuse(Code.WRONG_STAGE, "this match does not play a narrative mission")
    return n


def attacker(b: Builder) -> Seat:
    a = b.state.attacker
    if a is None:
        raise refuse(Code.WRONG_STAGE, "the Attacker is not chosen yet")
    return a


def actor_side(b: Builder) -> Side:
    return side_of(attacker(b), b.actor)
