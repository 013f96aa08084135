"""The turn skeleton: Order, Activation and Reserve phases and the Initiative (note §3.2-§3.4,
§3.14; seed [L88-L255], [L701-L761], [L3051-L3128]).

A small pure state machine over :class:`TurnState`; every transition returns a new state or
raises :class:`TurnError`. Order tokens are placed face down: the state keeps only a public
SHA-256 commitment per unit (:func:`commitment`, as ``app/engine/dynamics`` does), and the token
and its nonce become public when it is revealed (:func:`reveal`), so the opponent's view never
holds an unplayed token. Readings: docs/rulings/black-reach.md.

- Order phase: each side places its tokens, one per unit [L123-L141] (simultaneous commit, note
  §8 item 7), then :func:`lock` starts the Activation phase.
- Activation phase: the Initiative side reveals its token 1, then the other its token 1, and so
  on in ascending order; a side out of tokens lets the other go on alone [L219-L237]
  (:func:`due`). A Special token (value 0) may be revealed between any two activations
  [L178-L197]; a Bluff is never revealed to activate [L172-L176].
- Reserve phase: Bluff tokens are discarded [L720-L724]; :func:`end_turn` passes the
  Initiative [L755-L759] (Scrier's Gaze keeps it [L3017-L3023]).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum

from app.engine.errors import EngineError

__all__ = [
    "COMMITMENT_FORMAT",
    "Phase",
    "Token",
    "TokenKind",
    "TurnError",
    "TurnState",
    "commitment",
    "due",
    "end_activation",
    "end_turn",
    "lock",
    "out_of_tokens",
    "place",
    "reveal",
    "start_turn",
    "verify",
]

COMMITMENT_FORMAT = "auspex-black-reach-order/1"


class TurnError(EngineError):
    """A move the turn does not allow now."""


class Phase(StrEnum):
    ORDER = "order"
    ACTIVATION = "activation"
    RESERVE = "reserve"


class TokenKind(StrEnum):
    NUMBERED = "numbered"
    SPECIAL = "special"
    BLUFF = "bluff"


@dataclass(frozen=True, order=True)
class Token:
    kind: TokenKind
    number: int = 0  # numbered tokens 1..n; Special and Bluff 0

    def __str__(self) -> str:
        return f"{self.kind.value}:{self.number}"


def commitment(turn: int, unit: str, token: Token, nonce: str) -> str:
    """The hex SHA-256 of ``format|turn|unit|token|nonce`` (fields separated by 0x1f)."""
    text = "\x1f".join((COMMITMENT_FORMAT, str(turn), unit, str(token), nonce))
    return hashlib.sha256(text.encode()).hexdigest()


def verify(digest: str, turn: int, unit: str, token: Token, nonce: str) -> bool:
    return commitment(turn, unit, token, nonce) == digest


@dataclass(frozen=True)
class TurnState:
    """What everybody may see of a turn: the committed tokens by side and unit, and the
    revealed ones. ``pools``: the tokens each side took this turn (their count is public, the
    unit each went to is not)."""

    turn: int
    initiative: str
    other: str
    phase: Phase
    pools: Mapping[str, tuple[Token, ...]]
    committed: Mapping[str, Mapping[str, str]]  # side -> unit -> commitment
    revealed: Mapping[str, Mapping[str, Token]]  # side -> unit -> token
    locked: frozenset[str] = frozenset()  # sides done placing
    out: frozenset[str] = frozenset()  # sides with no numbered token left to reveal

    def sides(self) -> tuple[str, str]:
        return self.initiative, self.other

    def opponent(self, side: str) -> str:
        return self.other if side == self.initiative else self.initiative


def start_turn(
    turn: int, initiative: str, other: str, pools: Mapping[str, int | tuple[Token, ...]]
) -> TurnState:
    """The Order phase of ``turn``; ``pools[side]`` is the number of numbered tokens (taken 1..n
    in ascending order [L153-L160]) or the tokens themselves (Special, Bluff included)."""
    tokens: dict[str, tuple[Token, ...]] = {}
    for side in (initiative, other):
        pool = pools[side]
        if isinstance(pool, int):
            pool = tuple(Token(TokenKind.NUMBERED, n) for n in range(1, pool + 1))
        tokens[side] = tuple(sorted(pool))
    return TurnState(
        turn,
        initiative,
        other,
        Phase.ORDER,
        tokens,
        {initiative: {}, other: {}},
        {initiative: {}, other: {}},
    )


def place(state: TurnState, side: str, unit: str, digest: str) -> TurnState:
    """``side`` places a face-down token on ``unit``, known to others only by ``digest``."""
    if state.phase is not Phase.ORDER or side in state.locked:
        raise TurnError("tokens are placed in the Order phase, before the side is done")
    mine = state.committed[side]
    if unit in mine:
        raise TurnError(f"{unit!r} already has a token: one per unit [L164-L170]")
    if len(mine) >= len(state.pools[side]):
        raise TurnError("every token of the side is placed")
    return replace(state, committed={**state.committed, side: {**mine, unit: digest}})


def lock(state: TurnState, side: str) -> TurnState:
    """``side`` is done placing; when both are, the Activation phase starts."""
    if state.phase is not Phase.ORDER:
        raise TurnError("not in the Order phase")
    locked = state.locked | {side}
    phase = Phase.ACTIVATION if locked == set(state.sides()) else Phase.ORDER
    return replace(state, locked=locked, phase=phase)


def _next_number(state: TurnState, side: str) -> int | None:
    """The lowest numbered token of ``side`` not yet played, or None when the side is out: it
    said so (:func:`out_of_tokens`), or every token it placed is revealed."""
    if side in state.out or len(state.revealed[side]) >= len(state.committed[side]):
        return None
    used = {t.number for t in state.revealed[side].values() if t.kind is TokenKind.NUMBERED}
    left = [t.number for t in state.pools[side] if t.kind is TokenKind.NUMBERED]
    return min((n for n in left if n not in used), default=None)


def out_of_tokens(state: TurnState, side: str) -> TurnState:
    """``side`` says it has no numbered token left on the board (it placed fewer than it took,
    or only Special and Bluff tokens remain): the other side goes on alone [L235-L237]."""
    if state.phase is not Phase.ACTIVATION:
        raise TurnError("not in the Activation phase")
    return replace(state, out=state.out | {side})


def due(state: TurnState) -> tuple[str, int] | None:
    """The side whose numbered token is due and its number: ascending, alternating, the
    Initiative side first at each number; a side out of tokens lets the other go on alone
    [L219-L237]. None when every placed numbered token is played."""
    if state.phase is not Phase.ACTIVATION:
        return None
    candidates: list[tuple[int, int, str]] = []
    for rank, side in enumerate(state.sides()):
        number = _next_number(state, side)
        if number is not None:
            candidates.append((number, rank, side))
    if not candidates:
        return None
    number, _, side = min(candidates)
    return side, number


def reveal(state: TurnState, side: str, unit: str, token: Token, nonce: str) -> TurnState:
    """``side`` reveals the token on ``unit``: it must match its commitment and be the one due
    (a Special token may come between any two activations [L178-L197]; a Bluff never
    activates [L172-L176]). A token revealed for a destroyed or Activated unit does nothing
    but is played all the same [L239-L243]: the caller decides what the unit does."""
    if state.phase is not Phase.ACTIVATION:
        raise TurnError("tokens are revealed in the Activation phase")
    digest = state.committed[side].get(unit)
    if digest is None or unit in state.revealed[side]:
        raise TurnError(f"{unit!r} has no face-down token of that side")
    if token not in state.pools[side] or not verify(digest, state.turn, unit, token, nonce):
        raise TurnError("the token does not match its commitment")
    if token.kind is TokenKind.BLUFF:
        raise TurnError("a Bluff token never activates a unit")
    if token.kind is TokenKind.NUMBERED and due(state) != (side, token.number):
        raise TurnError(f"token {token.number} of {side} is not the one due")
    return replace(state, revealed={**state.revealed, side: {**state.revealed[side], unit: token}})


def end_activation(state: TurnState) -> TurnState:
    """To the Reserve phase once no numbered token is due; Bluff tokens are discarded
    [L720-L724] (they are simply never revealed)."""
    if state.phase is not Phase.ACTIVATION or due(state) is not None:
        raise TurnError("numbered tokens are still to be played")
    return replace(state, phase=Phase.RESERVE)


def end_turn(state: TurnState, keep_initiative: bool = False) -> tuple[str, str]:
    """Who holds the Initiative next turn (then the other side): it passes to the opponent
    [L755-L759], unless the holder's Scrier's Gaze keeps it [L3017-L3023]."""
    if state.phase is not Phase.RESERVE:
        raise TurnError("the turn ends after the Reserve phase")
    if keep_initiative:
        return state.initiative, state.other
    return state.other, state.initiative
