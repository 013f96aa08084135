"""The append-only log: versions, undo by compensating events, replay, export/import, secrets."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.engine.match.errors import LogError, Refusal, StaleVersion
from app.engine.match.events import Undone, UndoRequested
from app.engine.match.log import Match, replay
from app.engine.roller import Roller
from tests.engine.match.toy import BOOK, Add, Added, Hide, Reveal


def test_versions_batches_and_stale_writes() -> None:
    m = Match(BOOK)
    assert m.version == 0
    new = m.execute(Add(2), "A", expected_version=0, at="2026-01-01T10:00:00Z")
    assert [(e.seq, e.batch, e.actor, e.at) for e in new] == [(1, 1, "A", "2026-01-01T10:00:00Z")]
    m.execute(Add(3), "B", expected_version=1)
    with pytest.raises(StaleVersion) as info:
        m.execute(Add(1), "A", expected_version=1)
    assert info.value.code == "stale_version"
    assert info.value.kind == "conflict"
    assert info.value.details == {"expected_version": 1, "current_version": 2}
    assert m.version == 2
    assert m.state.total == 5


def test_undo_appends_a_compensating_event_and_never_deletes() -> None:
    m = Match(BOOK)
    m.execute(Add(2), "A")
    m.execute(Add(3), "A")
    m.execute(Add(4), "B")
    with pytest.raises(Refusal) as info:
        m.undo("A")
    assert info.value.code == "not_your_action"
    m.undo("B")
    m.undo("A")
    assert m.state.total == 2
    assert m.version == 5  # 3 events + 2 undo events: nothing deleted
    assert [e.event.kind for e in m.envelopes] == ["added", "added", "added", "undone", "undone"]
    assert m.envelopes[3].event == Undone(batch=3)
    assert m.envelopes[4].event == Undone(batch=2)
    m.execute(Add(10), "A")
    assert m.state.history == (2, 10)
    assert replay(BOOK, m.envelopes).state == m.state
    m.undo("A")
    m.undo("A")
    with pytest.raises(Refusal) as info:
        m.undo("A")
    assert info.value.code == "nothing_to_undo"


def test_barriers_and_secrets_cannot_be_undone() -> None:
    m = Match(BOOK)
    m.execute(Add(1), "A")
    m.execute(Hide("the plan"), "A")
    with pytest.raises(Refusal) as info:
        m.undo("A")
    assert info.value.code == "cannot_undo"
    m.execute(Reveal(), "B")
    with pytest.raises(Refusal):
        m.undo("B")
    assert m.undo_candidate() is None


def test_secret_events_are_absent_from_the_other_seats_log() -> None:
    m = Match(BOOK)
    m.execute(Hide("left flank"), "A")
    m.execute(Add(1), "B")
    assert [e.event.kind for e in m.log_for("A")] == ["hidden", "added"]
    for viewer in ("B", None):
        log = m.log_for(viewer)
        assert [e.event.kind for e in log] == ["added"]
        assert "left flank" not in json.dumps([e.to_json(BOOK.event_codec) for e in log])


def test_dice_seeded_by_hand_and_refused() -> None:
    m = Match(BOOK)
    with pytest.raises(Refusal) as info:
        m.execute(Add(0), "A")
    assert info.value.code == "dice_needed"
    with pytest.raises(Refusal) as info:
        m.execute(Add(0), "A", dice=Roller.from_values([4, 5]))
    assert info.value.code == "unused_dice"
    with pytest.raises(Refusal) as info:
        m.execute(Add(0), "A", dice=Roller.from_values([7]))
    assert info.value.code == "bad_die"
    with pytest.raises(Refusal) as info:
        m.execute(Add(0), "A", dice=Roller.from_values([]))
    assert info.value.code == "not_enough_dice"
    assert m.version == 0
    m.execute(Add(0), "A", dice=Roller.from_values([4]))
    m.execute(Add(0), "A", seed=99)
    first, second = (e.event.roll for e in m.envelopes if isinstance(e.event, Added))
    assert first is not None
    assert second is not None
    assert first.seed is None
    assert first.values == (4,)
    assert second.seed == 99
    assert second.values == (Roller(99).d6("x"),)


def test_export_import_round_trip_and_tampered_logs() -> None:
    m = Match(BOOK)
    m.execute(Add(0), "A", seed=5)
    m.execute(Hide("x"), "B")
    m.execute(Add(2), "A")
    m.undo("A")
    text = m.export_json()
    again = Match.import_log(BOOK, text)
    assert again.state == m.state
    assert again.export_json() == text
    assert again.undo_candidate() == m.undo_candidate()

    data = json.loads(text)
    bad = {**data, "rule_system": "other"}
    with pytest.raises(LogError, match="rule system"):
        Match.import_log(BOOK, bad)
    with pytest.raises(LogError, match="format"):
        Match.import_log(BOOK, {**data, "format": "v0"})
    events = data["events"]
    with pytest.raises(LogError, match="sequence"):
        Match.import_log(BOOK, {**data, "events": [events[1], events[0]]})
    wrong_undo = [*events[:3], {**events[3], "event": {"type": "undone", "batch": 1}}]
    with pytest.raises(LogError, match="undo"):
        Match.import_log(BOOK, {**data, "events": wrong_undo})
    unknown = [{**events[0], "event": {"type": "nuke"}}]
    with pytest.raises(LogError, match="unknown event"):
        Match.import_log(BOOK, {**data, "events": unknown})
    with pytest.raises(LogError, match="JSON"):
        Match.import_log(BOOK, "{nope")


ops = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.sampled_from("AB"), st.integers(0, 6)),
        st.tuples(st.just("undo"), st.sampled_from("AB"), st.just(0)),
        st.tuples(st.just("hide"), st.sampled_from("AB"), st.integers(0, 9)),
        st.tuples(st.sampled_from(["approve", "refuse"]), st.sampled_from("AB"), st.just(0)),
    ),
    max_size=40,
)


@given(ops)
def test_state_is_always_the_replay_of_the_log(operations: Any) -> None:
    """Undo of a roll (``Add(0)``) waits for the other seat; anything else is undone at once."""
    m = Match(BOOK)
    expected: list[tuple[str, int, bool]] = []  # (actor, n, rolled) of effective additions
    asking: str | None = None  # the seat whose undo request waits for an answer
    for op, seat, n in operations:
        if op == "add":
            new = m.execute(Add(n), seat, seed=n)
            added = new[0].event
            assert isinstance(added, Added)
            expected.append((seat, added.n, n == 0))
            asking = None
        elif op == "hide":
            m.execute(Hide(str(n)), seat)
            expected.append((seat, -1, False))  # a barrier
            asking = None
        elif op == "undo":
            top = m.undo_candidate()
            try:
                m.undo(seat)
            except Refusal:
                assert top is None or top[1] != seat or asking == seat
            else:
                assert expected[-1][0] == seat
                if expected[-1][2]:
                    asking = seat
                else:
                    expected.pop()
        else:
            request = m.undo_request
            try:
                m.answer_undo(seat, request.batch if request else 1, approve=op == "approve")
            except Refusal:
                assert request is None or request.actor == seat
            else:
                assert asking is not None
                assert asking != seat
                if op == "approve":
                    expected.pop()
                asking = None
        assert (m.undo_request.actor if m.undo_request else None) == asking
    assert m.state.history == tuple(n for _, n, _r in expected if n >= 0)
    replayed = replay(BOOK, m.envelopes)
    assert replayed.state == m.state
    assert replayed.pending == m.undo_request
    assert Match.import_log(BOOK, m.export_log()).state == m.state


def test_undoing_a_roll_takes_the_opponents_approval_and_keeps_the_dice() -> None:
    m = Match(BOOK)
    m.execute(Add(2), "A")
    rolled = m.execute(Add(0), "A", seed=7)[0]
    asked = m.undo("A")
    assert asked[0].event == UndoRequested(batch=rolled.batch)
    assert m.state.history[-1] == rolled.event.n  # nothing undone yet
    with pytest.raises(Refusal) as info:
        m.undo("A")
    assert info.value.code == "undo_already_requested"
    with pytest.raises(Refusal) as info:
        m.answer_undo("A", rolled.batch, approve=True)
    assert info.value.code == "not_your_answer"
    with pytest.raises(Refusal) as info:
        m.answer_undo("B", rolled.batch + 1, approve=True)
    assert info.value.code == "undo_request_changed"
    with pytest.raises(StaleVersion):
        m.answer_undo("B", rolled.batch, approve=True, expected_version=m.version - 1)
    m.answer_undo("B", rolled.batch, approve=False, expected_version=m.version)
    assert m.undo_request is None
    assert m.state.history == (2, rolled.event.n)  # refused: it stands
    m.undo("A")
    done = m.answer_undo("B", rolled.batch, approve=True)
    assert done[0].event == Undone(batch=rolled.batch)
    assert done[0].actor == "B"
    assert m.state.history == (2,)
    assert rolled in m.envelopes  # the undone dice stay in the log
    assert m.undo("A")[0].event == Undone(batch=1)  # no dice: at once


def test_a_new_action_voids_an_undo_request() -> None:
    m = Match(BOOK)
    rolled = m.execute(Add(0), "A", seed=1)[0]
    m.undo("A")
    m.execute(Add(3), "B")
    assert m.undo_request is None
    with pytest.raises(Refusal) as info:
        m.answer_undo("B", rolled.batch, approve=True)
    assert info.value.code == "no_undo_request"
    assert replay(BOOK, m.envelopes).pending is None
