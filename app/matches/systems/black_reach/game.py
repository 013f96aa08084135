"""The Black Reach battle as the match feature drives it: the engine's façade as it is (its
event codec holds the shared undo events, so a log with an undo is stored and read back)."""

from __future__ import annotations

from app.engine.black_reach.battle import EVENT_CODEC
from app.engine.black_reach.battle import BlackReachBattle as BlackReachMatch

__all__ = ["EVENT_CODEC", "BlackReachMatch"]
