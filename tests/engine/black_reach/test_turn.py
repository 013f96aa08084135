"""The turn skeleton: hidden Order tokens committed by hash, ascending alternating
activations with the Initiative first, the Reserve phase and the Initiative passing (note
§3.2-§3.4, §3.14; seed [L88-L255], [L755-L759])."""

from __future__ import annotations

import pytest

from app.engine.black_reach.turn import (
    Phase,
    Token,
    TokenKind,
    TurnError,
    TurnState,
    commitment,
    due,
    end_activation,
    end_turn,
    lock,
    out_of_tokens,
    place,
    reveal,
    start_turn,
)

ONE, TWO, THREE = (Token(TokenKind.NUMBERED, n) for n in (1, 2, 3))
BLUFF, SPECIAL = Token(TokenKind.BLUFF), Token(TokenKind.SPECIAL)


def placed(
    orks: dict[str, Token], um: dict[str, Token], pools: dict[str, tuple[Token, ...]]
) -> TurnState:
    state = start_turn(1, "orks", "um", pools)
    for side, tokens in (("orks", orks), ("um", um)):
        for unit, token in tokens.items():
            state = place(state, side, unit, commitment(1, unit, token, f"n-{unit}"))
    return lock(lock(state, "orks"), "um")


def test_activations_alternate_ascending_with_the_initiative_first() -> None:
    state = placed(
        {"boyz": ONE, "nob": TWO, "shootas": THREE},
        {"squad": ONE, "sarge": BLUFF},
        {"orks": (ONE, TWO, THREE), "um": (ONE, BLUFF)},
    )
    assert state.phase is Phase.ACTIVATION
    order = []
    units = {("orks", 1): "boyz", ("orks", 2): "nob", ("orks", 3): "shootas", ("um", 1): "squad"}
    while (step := due(state)) is not None:
        side, number = step
        unit = units[step]
        state = reveal(state, side, unit, Token(TokenKind.NUMBERED, number), f"n-{unit}")
        order.append(step)
        if step == ("um", 1):
            state = out_of_tokens(state, "um")  # only its Bluff is left
    assert order == [("orks", 1), ("um", 1), ("orks", 2), ("orks", 3)]
    reserve = end_activation(state)
    assert reserve.phase is Phase.RESERVE
    assert "sarge" not in reserve.revealed["um"]  # the Bluff is discarded unseen
    assert end_turn(reserve) == ("um", "orks")
    assert end_turn(reserve, keep_initiative=True) == ("orks", "um")  # Scrier's Gaze


def test_the_opponent_sees_only_commitments_until_a_token_is_played() -> None:
    state = placed({"boyz": ONE}, {"squad": ONE}, {"orks": (ONE,), "um": (ONE,)})
    public = repr(state.committed) + repr(state.revealed)
    assert "numbered" not in public
    assert "n-boyz" not in public
    state = reveal(state, "orks", "boyz", ONE, "n-boyz")
    assert state.revealed["orks"] == {"boyz": ONE}


def test_reveals_are_checked() -> None:
    state = placed(
        {"boyz": ONE, "nob": TWO},
        {"squad": ONE, "sarge": SPECIAL},
        {"orks": (ONE, TWO), "um": (SPECIAL, ONE)},
    )
    with pytest.raises(TurnError, match="commitment"):
        reveal(state, "orks", "boyz", TWO, "n-boyz")  # not the token it committed to
    with pytest.raises(TurnError, match="commitment"):
        reveal(state, "orks", "boyz", ONE, "guess")
    with pytest.raises(TurnError, match="not the one due"):
        reveal(state, "um", "squad", ONE, "n-squad")  # the Initiative side goes first
    # a Special token may be played between any two activations [L178-L197]
    state = reveal(state, "um", "sarge", SPECIAL, "n-sarge")
    assert due(state) == ("orks", 1)
    with pytest.raises(TurnError, match="still to be played"):
        end_activation(state)


def test_order_phase_rules() -> None:
    state = start_turn(2, "um", "orks", {"um": 1, "orks": 2})
    assert state.pools["orks"] == (ONE, TWO)  # taken in ascending order [L153-L160]
    state = place(state, "um", "squad", "x")
    with pytest.raises(TurnError, match="one per unit"):
        place(state, "um", "squad", "y")
    with pytest.raises(TurnError, match="every token"):
        place(state, "um", "sarge", "y")
    state = lock(state, "um")
    with pytest.raises(TurnError):
        place(state, "um", "sarge", "y")
    assert state.phase is Phase.ORDER  # the other side is still placing
    with pytest.raises(TurnError):
        reveal(state, "um", "squad", ONE, "n")
