"""The shared battle façade (``BattleGame``) over the toy rule book: what every rule system's
façade inherits (views' undo fields, undo answers offered, the undo dispatch, audit, fork,
export/import, secrets in the readers, undo-stable seeds, decoding)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest

from app.engine.match.battle import BattleGame, UndoAnswer, decode_command
from app.engine.match.codec import JsonObject, Tagged, TaggedCodec
from app.engine.match.errors import Refusal, StaleVersion
from app.engine.match.events import Event, Viewer
from app.engine.match.game import GameStatus, MatchGame
from app.engine.match.log import Decision, RuleBook
from app.engine.roller import Roller
from tests.engine.match.toy import BOOK, Add, Hide, Reveal, Toy


@dataclass(frozen=True, slots=True)
class Undo(Tagged):
    kind: ClassVar[str] = "undo"


@dataclass(frozen=True, slots=True)
class ApproveUndo(Tagged):
    kind: ClassVar[str] = "approve_undo"
    batch: int


@dataclass(frozen=True, slots=True)
class RefuseUndo(Tagged):
    kind: ClassVar[str] = "refuse_undo"
    batch: int


COMMANDS = TaggedCodec("command", [Add, Hide, Reveal, Undo, ApproveUndo, RefuseUndo])


class Book:
    """The toy rule book, with the undo commands in its command codec."""

    rule_system = BOOK.rule_system
    event_codec = BOOK.event_codec
    command_codec = COMMANDS

    def initial_state(self) -> Toy:
        return BOOK.initial_state()

    def evolve(self, state: Toy, event: Event) -> Toy:
        return BOOK.evolve(state, event)

    def decide(self, state: Toy, command: Tagged, actor: str, dice: Roller) -> Decision[Toy]:
        return BOOK.decide(state, command, actor, dice)


class ToyBattle(BattleGame[Toy, Tagged, int]):
    undo_command = Undo
    approve_command = ApproveUndo
    undo_answers: ClassVar[tuple[type[UndoAnswer], ...]] = (RefuseUndo, ApproveUndo)

    def rule_book(self) -> RuleBook[Toy]:
        return Book()

    @classmethod
    def creation(cls, setup: int) -> Tagged:
        return Add(setup)

    def render(self, viewer: Viewer) -> JsonObject:
        secret = None if viewer is None else self.state.secrets.get(viewer)
        return {"total": self.state.total, "secret": secret}

    def actions(self, seat: str) -> list[JsonObject]:
        return [{"command": {"type": "add", "n": 0}}]

    def roll_identity(self, command: Tagged, seat: str | None = None) -> tuple[str | int, ...]:
        return ("toy-1", command.kind, len(self.state.history), seat or "")

    @classmethod
    def decode(cls, data: object) -> Tagged:
        return decode_command(COMMANDS, data, Tagged)

    def prepared(self, command: Tagged) -> Tagged:
        return Hide("?") if isinstance(command, Hide) and not command.secret else command

    def status(self) -> GameStatus:
        return GameStatus("battle", scores={"A": self.state.total}, round=len(self.state.history))


class ApproveFirst(ToyBattle):
    undo_answers = (ApproveUndo, RefuseUndo)


def rolled(battle: ToyBattle) -> int:
    """A rolls a die (an action whose undo takes B's approval); the batch it made."""
    [env] = battle.execute(Add(0), "A", seed=battle.command_seed("secret", Add(0), "A"))
    return env.batch


def test_a_subclass_is_a_match_game_created_from_its_setup() -> None:
    battle = ToyBattle.create(3, actor="B", at="2026-01-01T10:00:00Z")
    assert isinstance(battle, MatchGame)
    assert (battle.version, battle.state.total) == (1, 3)
    [env] = battle.envelopes
    assert (env.actor, env.at) == ("B", "2026-01-01T10:00:00Z")
    assert battle.status() == GameStatus("battle", scores={"A": 3}, round=1)


def test_view_says_who_may_undo_and_what_waits_for_an_answer() -> None:
    battle = ToyBattle.create(3)
    assert battle.view("A") == {
        "total": 3,
        "secret": None,
        "version": 1,
        "can_undo": True,
        "undo_needs_approval": False,
        "undo_request": None,
    }
    assert battle.view("B")["can_undo"] is False
    assert battle.view(None)["can_undo"] is False
    batch = rolled(battle)
    assert battle.view("A")["undo_needs_approval"] is True
    battle.execute_json({"type": "undo"}, "A", expected_version=2)
    assert battle.view("A")["can_undo"] is False
    assert battle.view("A")["undo_needs_approval"] is False
    assert battle.view("B")["undo_request"] == {"batch": batch, "by": "A"}


def test_the_answers_to_an_undo_request_come_first_in_the_systems_order() -> None:
    for game, first in ((ToyBattle, "refuse_undo"), (ApproveFirst, "approve_undo")):
        battle = game.create(3)
        batch = rolled(battle)
        battle.execute(Undo(), "A")
        offered = [a["command"] for a in battle.legal_actions("B")]
        second = "approve_undo" if first == "refuse_undo" else "refuse_undo"
        assert offered == [
            {"type": first, "batch": batch},
            {"type": second, "batch": batch},
            {"type": "add", "n": 0},
        ]
        assert battle.legal_actions("A") == [{"command": {"type": "add", "n": 0}}]


def test_undo_commands_go_to_the_logs_undo() -> None:
    battle = ToyBattle.create(3)
    battle.execute(Add(4), "A")
    battle.execute_json({"type": "undo"}, "A")  # no dice: undone at once
    assert battle.state.total == 3
    batch = rolled(battle)
    total = battle.state.total
    battle.execute(Undo(), "A")
    with pytest.raises(Refusal) as info:
        battle.execute(ApproveUndo(batch), "A")
    assert info.value.code == "not_your_answer"
    battle.execute(RefuseUndo(batch), "B")
    assert battle.state.total == total  # the roll stands
    battle.execute(Undo(), "A")
    with pytest.raises(StaleVersion):
        battle.execute_json({"type": "approve_undo", "batch": batch}, "B", expected_version=1)
    battle.execute_json({"type": "approve_undo", "batch": batch}, "B")
    assert battle.state.total == 3
    assert [e.event.kind for e in battle.envelopes][-3:] == [
        "undo_refused",
        "undo_requested",
        "undone",
    ]


def test_dice_come_from_a_seed_or_by_hand_and_seeds_are_undo_stable() -> None:
    battle = ToyBattle.create(3)
    seed = battle.command_seed("secret", Add(0), "A")
    battle.execute(Add(0), "A", seed=seed)
    first = battle.envelopes[-1].event
    battle.execute(Undo(), "A")
    battle.execute(ApproveUndo(battle.envelopes[-1].event.batch), "B")  # type: ignore[attr-defined]
    assert battle.command_seed("secret", Add(0), "A") == seed
    battle.execute(Add(0), "A", seed=seed)
    assert battle.envelopes[-1].event == first
    assert battle.command_seed("secret", Add(0), "A") != seed  # the next roll is another
    battle.execute(Add(0), "B", dice=[5])
    assert battle.state.history[-1] == 5
    assert [a["ok"] for a in battle.audit()] == [True, True, None]
    assert [a["seq"] for a in battle.audit()] == [2, 5, 6]


def test_decode_refuses_a_malformed_command_with_a_422() -> None:
    assert ToyBattle.decode({"type": "add", "n": 2}) == Add(2)
    with pytest.raises(Refusal) as info:
        ToyBattle.create(3).execute_json({"type": "add", "n": "two"}, "A")
    assert (info.value.code, info.value.kind) == ("bad_command", "input")
    assert info.value.details == {"field": "n"}


def test_readers_leave_the_other_seats_secrets_out() -> None:
    battle = ToyBattle.create(3)
    battle.execute(Hide(""), "A")  # completed by the system before it runs
    assert battle.state.secrets == {"A": "?"}
    assert battle.view("A")["secret"] == "?"
    assert [e.seq for e in battle.log_for("B")] == [1]
    assert [e["seq"] for e in battle.log_json("A", since=1)] == [2]
    assert battle.log_json("B", since=1) == []
    assert len(battle.export_log()["events"]) == 2


def test_fork_and_import_keep_the_type_and_leave_the_original_alone() -> None:
    battle = ApproveFirst.create(3)
    fork = battle.fork()
    fork.execute(Add(4), "B")
    assert type(fork) is ApproveFirst
    assert (battle.version, battle.state.total) == (1, 3)
    assert (fork.version, fork.state.total) == (2, 7)
    again = ApproveFirst.import_log(fork.export_json())
    assert type(again) is ApproveFirst
    assert again.state == fork.state
    assert again.envelopes == fork.envelopes
