"""The end of a Dynamics battle: a common turn counts as a game round for the game's length
(rulings D8, PEN [L826]); then the players report the objectives, the victory points and
the winner come from the PEN scoring, and ``status`` says it."""

from app.engine.dynamics import DynamicsBattle, DynStage
from app.engine.match.game import GameStatus
from tests.engine.dynamics.support import deployed


def quiet_turn(game: DynamicsBattle, turn: int) -> None:
    """Every unit on a Forced March that does nothing; the dice from seeds."""
    seed = 1000 * turn
    game.execute_json({"type": "start_turn"}, "A", seed=seed)
    for seat in ("A", "B"):
        for unit in game.state.needs_order(seat):
            data = {"type": "place_order", "unit": unit, "order": "forced_march"}
            game.execute_json(data, seat)
        game.execute_json({"type": "lock_orders"}, seat)
    while game.state.stage in (DynStage.REVEAL, DynStage.RESOLVE):
        s = game.state
        seed += 1
        if not s.to_act and not s.advantage:
            holder = s.bonus if s.bonus and not s.bonus_spent else "A"
            game.execute_json({"type": "roll_advantage"}, holder, seed=seed)
        elif not s.to_act:
            game.execute_json({"type": "choose_starter", "seat": s.advantage}, s.advantage)
        else:
            action = next(
                a["command"]
                for a in game.legal_actions(s.to_act)
                if a["command"]["type"] in ("reveal_order", "end_order")  # type: ignore[index]
            )
            game.execute_json(action, s.to_act, seed=seed)  # type: ignore[arg-type]
    assert game.state.turn == turn + 1 or game.state.stage is DynStage.OVER


def test_the_game_ends_after_turn_five_on_the_dice_and_is_scored() -> None:
    game = deployed()
    for turn in range(1, 5):
        quiet_turn(game, turn)
        assert game.status() == GameStatus("battle", scores=game.status().scores, round=turn + 1)
    quiet_turn(game, 5)  # these seeds roll the game-length die after turn 5 low: it ends
    assert game.state.stage is DynStage.OVER
    lengths = [e.event for e in game.envelopes if e.event.kind == "game_length_rolled"]
    assert len(lengths) == 1
    assert not lengths[0].continues  # type: ignore[attr-defined]
    assert {"command": {"type": "report_control", "objective": "objective-1", "seat": "A"}} in (
        game.legal_actions("A")
    )
    game.execute_json({"type": "report_control", "objective": "objective-1", "seat": "A"}, "A")
    status = game.status()
    assert status.stage == "ended"
    assert status.winner == "A"  # nobody died: A holds the only objective
    assert status.scores["A"] > status.scores["B"]
    assert DynamicsBattle.import_log(game.export_log()).status() == status
