"""Turn structures as data: boundaries crossed when moving through a round."""

from __future__ import annotations

import pytest

from app.engine.match.turns import Boundary, PhaseSpec, TurnStructure

TURN = TurnStructure(
    (
        PhaseSpec("command", ("cp", "shock")),
        PhaseSpec("move", ("move",)),
        PhaseSpec("fight", ("f",)),
    ),
    turns_per_round=2,
)


def test_walking_two_rounds_step_by_step() -> None:
    pos = TURN.start()
    seen = []
    for _ in range(16):
        adv = TURN.next_step(pos)
        seen.append((pos.round, pos.turn, pos.phase, pos.step, adv.crossed))
        pos = adv.position
    assert seen[0] == (1, 0, "command", "cp", (Boundary.STEP,))
    assert seen[1] == (1, 0, "command", "shock", (Boundary.STEP, Boundary.PHASE))
    assert seen[3] == (1, 0, "fight", "f", (Boundary.STEP, Boundary.PHASE, Boundary.TURN))
    assert seen[7][4] == (Boundary.STEP, Boundary.PHASE, Boundary.TURN, Boundary.ROUND)
    assert (pos.round, pos.turn, pos.phase, pos.step) == (3, 0, "command", "cp")
    rounds = sum(1 for s in seen if Boundary.ROUND in s[4])
    assert rounds == 2


def test_invalid_structures_are_refused() -> None:
    with pytest.raises(ValueError, match="unique"):
        TurnStructure((PhaseSpec("a", ("x",)), PhaseSpec("a", ("y",))))
    with pytest.raises(ValueError, match="at least one step"):
        PhaseSpec("a", ())
    with pytest.raises(ValueError, match="not a step"):
        TURN.with_step(TURN.start(), "move")
