"""A read of a newer version catches the cached battle up with the new rows only (issue 21):
the worker that did not take a write loads and evolves the k new events, never the N + k of
the whole log, and gets exactly what a full replay gets, undos included."""

from __future__ import annotations

import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.engine.black_reach.battle import BlackReachBattle
from app.engine.match import Envelope, LogError
from app.engine.match import log as match_log
from app.engine.match.events import UNDO_EVENTS, Undone, UndoRefused, UndoRequested
from app.matches import reads, systems
from app.matches.models import Match, MatchEvent
from app.matches.systems.pen import PenMatch
from tests.matches.conftest import Game, end_turn, finish_turn, setup_battle
from tests.matches.test_black_reach_match import (
    BOLTER,
    BOYZ1,
    BOYZ2,
    NOB,
    SERGEANT,
    SHOOTAS,
    TACTICAL,
    br_game,
    path,
)
from tests.matches.test_dynamics_match import dyn_game, place
from tests.matches.test_pen_match import PenGame, set_up

__all__ = ["br_game", "dyn_game"]  # the fixtures, shared with those matches' tests

SEATS = ("A", "B", None)  # None: a spectator


def _stored(db: Session, match_id: int) -> tuple[Any, list[Envelope]]:
    """The match row's key fields and its whole log, decoded from the rows."""
    match = db.get(Match, match_id)
    assert match is not None
    codec = systems.playable(match.rule_system).event_codec
    rows = db.execute(
        select(MatchEvent).where(MatchEvent.match_id == match_id).order_by(MatchEvent.seq)
    ).scalars()
    envelopes = [Envelope.from_json(reads.envelope_json(r), codec) for r in rows]
    row = SimpleNamespace(
        id=match.id, secret=match.secret, rule_system=match.rule_system, version=match.version
    )
    db.commit()
    return row, envelopes


def _at(row: Any, version: int) -> Any:
    return SimpleNamespace(
        id=row.id, secret=row.secret, rule_system=row.rule_system, version=version
    )


def _boundaries(envelopes: list[Envelope]) -> list[int]:
    """The versions a match row can have: the end of each batch."""
    return [
        env.seq
        for i, env in enumerate(envelopes)
        if i + 1 == len(envelopes) or envelopes[i + 1].batch == envelopes[i + 1].seq
    ]


def _seen(battle: Any) -> dict[str, Any]:
    """Everything a reader gets of a battle, for each seat and a spectator."""
    out: dict[str, Any] = {}
    for seat in SEATS:
        out[f"view {seat}"] = battle.view(seat)
        out[f"log {seat}"] = battle.log_json(seat)
        if seat is not None:
            out[f"actions {seat}"] = battle.legal_actions(seat)
    out["status"] = battle.status()
    out["audit"] = battle.audit()
    return out


def _inner(battle: Any) -> Any:
    return reads._log_of(battle)


def _read_through(
    db: Session,
    row: Any,
    envelopes: list[Envelope],
    versions: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[int, int, int]:
    """Read the match at each of ``versions`` in turn, as the worker that took none of the
    writes; check each read against a full replay and that the battles read before are
    untouched. Returns the number of reads caught up from the version held, of those that
    undid a batch held (the state replayed from the envelopes in memory) and of those that
    undid a batch of their own new rows (evolved without it)."""
    system = systems.playable(row.rule_system)
    replayed: list[int] = []
    original = match_log.replay

    def counting(book: Any, log: Any) -> Any:
        replayed.append(len(log))
        return original(book, log)

    reads.cache.clear()
    held: list[tuple[Any, int, dict[str, Any]]] = []
    caught_up = undid_held = undid_new = 0
    previous = 0
    for version in versions:
        loaded, extends, replays = reads.cache.loaded, reads.cache.extends, reads.cache.replays
        replayed.clear()
        with monkeypatch.context() as m:
            m.setattr(match_log, "replay", counting)
            snap = reads.snapshot(db, _at(row, version))
        db.commit()
        undone = [e.event.batch for e in envelopes[previous:version] if isinstance(e.event, Undone)]
        if previous:  # the whole log is replayed (in memory) only to undo a batch held
            assert replayed == ([version] if any(b <= previous for b in undone) else [])
            undid_held += bool(replayed)
            undid_new += bool(undone) and not replayed
        else:
            assert replayed == [version]
        full = system.restore(envelopes[:version])
        assert snap.version == version == snap.battle.version
        assert snap.battle.envelopes == full.envelopes
        log, expected = _inner(snap.battle), _inner(full)
        assert log.state == expected.state
        assert log._stack == expected._stack
        assert log.undo_request == expected.undo_request
        seen = _seen(snap.battle)
        assert seen == _seen(full), version
        if previous:
            # only the k new events were loaded, and no replay of the whole log
            assert reads.cache.loaded - loaded == version - previous
            assert (reads.cache.extends - extends, reads.cache.replays - replays) == (1, 1)
            caught_up += 1
        else:
            assert reads.cache.loaded - loaded == version
            assert (reads.cache.extends - extends, reads.cache.replays - replays) == (0, 1)
        held.append((snap.battle, version, seen))
        previous = version
    for battle, version, seen in held:  # never mutated by the reads that caught up from them
        assert battle.version == version
        assert _seen(battle) == seen
    return caught_up, undid_held, undid_new


def _undo_kinds(envelopes: list[Envelope]) -> set[type]:
    return {type(e.event) for e in envelopes if isinstance(e.event, UNDO_EVENTS)}


def _play_with_undos(g: Game) -> None:
    """A battle with every kind of undo: a rolled batch asked, refused, asked again and
    approved (undoing a batch long read), plain undos, then several turns."""
    g.a.send({"type": "roll_off"}, dice=[6, 1])
    g.a.send({"type": "undo"})
    batch = g.b.actions()[0]["command"]["batch"]
    g.b.send({"type": "refuse_undo", "batch": batch})
    g.a.send({"type": "undo"})
    g.b.send({"type": "approve_undo", "batch": batch})
    setup_battle(g)
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "undo"})  # no dice: undone at once
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "undo"})
    for _ in range(3):
        finish_turn(g)
        view = g.a.view()
        if view["stage"] != "battle":
            break
        active = g.a if view["active"] == "A" else g.b
        active.send({"type": "end_phase"})
        active.send({"type": "undo"})
    end_turn(g)


def _every_way(
    db: Session, row: Any, envelopes: list[Envelope], monkeypatch: pytest.MonkeyPatch
) -> None:
    versions = _boundaries(envelopes)
    assert versions[-1] == row.version
    # one version after the other, as a stream that sees every write: each undo undoes a
    # batch held
    caught_up, undid_held, undid_new = _read_through(db, row, envelopes, versions, monkeypatch)
    assert caught_up == len(versions) - 1
    assert undid_held == sum(isinstance(e.event, Undone) for e in envelopes)
    assert undid_new == 0
    # several batches at a time: a batch and its undo read together too
    new_undone = 0
    for stride in (2, 3, 7):
        picked = sorted({*versions[::stride], versions[-1]})
        caught_up, undid_held, undid_new = _read_through(db, row, envelopes, picked, monkeypatch)
        assert caught_up == len(picked) - 1
        new_undone += undid_new
    assert new_undone > 0


def test_reading_every_version_of_a_battle_with_undos_catches_up_to_the_full_replay(
    new_game: Callable[..., Game], db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    g = new_game(check=False)
    _play_with_undos(g)
    row, envelopes = _stored(db, g.match_id)
    assert _undo_kinds(envelopes) == {Undone, UndoRefused, UndoRequested}
    assert len(_boundaries(envelopes)) > 40
    _every_way(db, row, envelopes, monkeypatch)


def test_a_dynamics_match_with_hidden_orders_catches_up_to_the_full_replay(
    dyn_game: Callable[..., PenGame], db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A PEN match under the Dynamics turn (its façade hands everything to an inner engine),
    whose orders are each seat's secret until revealed: every seat's and a spectator's reads
    caught up are the full replay's, secrets left out alike."""
    g = dyn_game()
    set_up(g)
    view = g.a.view()
    p = g.a if view["active_seat"] in ("A", None) else g.b
    other = g.b if p is g.a else g.a
    p.send({"type": "start_turn"})
    p.send({"type": "undo"})  # dice were rolled: the opponent approves the undo
    offered = other.client.get(f"{other.base}/actions").json()["actions"]
    approve = next(a["command"] for a in offered if a["command"]["type"] == "approve_undo")
    other.send(approve)
    p.send({"type": "start_turn"})
    place(g.a, {"a1": "fire", "a2": "forced_march"})
    place(g.b, {"b1": "fire", "b2": "forced_march", "b3": "forced_march"})
    row, envelopes = _stored(db, g.match_id)
    assert isinstance(reads.snapshot(db, row).battle, PenMatch)
    db.commit()
    assert any(e.audience is not None for e in envelopes)  # secret events
    _every_way(db, row, envelopes, monkeypatch)


def test_a_black_reach_match_with_face_down_orders_catches_up_to_the_full_replay(
    br_game: Callable[..., PenGame], db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    g = br_game(deployment="sample")
    for p, units in ((g.b, (BOYZ1, BOYZ2, NOB, SHOOTAS)), (g.a, (BOLTER, TACTICAL, SERGEANT))):
        chosen = [{"unit": u, "number": n} for n, u in enumerate(units, start=1)]
        p.send({"type": "place_orders", "orders": chosen})
    g.b.send({"type": "move", "unit": BOYZ1, "path": path((4, 9), (4, 8), (4, 7), (4, 6))})
    shoot = {"type": "shoot", "unit": BOLTER, "target": BOYZ1}
    g.a.send(shoot)
    g.a.send({"type": "undo"})  # a die was rolled: the opponent approves the undo
    offered = g.b.client.get(f"{g.b.base}/actions").json()["actions"]
    g.b.send(next(a["command"] for a in offered if a["command"]["type"] == "approve_undo"))
    g.a.send(shoot)
    row, envelopes = _stored(db, g.match_id)
    assert isinstance(reads.snapshot(db, row).battle, BlackReachBattle)
    db.commit()
    assert any(e.audience is not None for e in envelopes)  # the face-down tokens
    _every_way(db, row, envelopes, monkeypatch)


def test_a_read_loads_only_the_new_events(new_game: Callable[..., Game], db: Session) -> None:
    g = new_game(check=False)
    setup_battle(g)
    before = g.a.get()["version"]
    for _ in range(3):
        g.a.send({"type": "end_phase"})
    row, _ = _stored(db, g.match_id)
    k = row.version - before
    assert k >= 3
    reads.cache.clear()  # the other worker: it read the match at ``before``
    reads.snapshot(db, _at(row, before))
    loaded, replays, extends = reads.cache.loaded, reads.cache.replays, reads.cache.extends
    snap = reads.snapshot(db, row)
    assert snap.version == row.version
    assert reads.cache.loaded - loaded == k  # not before + k
    assert (reads.cache.replays - replays, reads.cache.extends - extends) == (1, 1)
    # a read of an older version than the one held takes the prefix it holds: no row decoded
    reads.cache.clear()
    reads.snapshot(db, row)
    loaded = reads.cache.loaded
    older = reads.snapshot(db, _at(row, before))
    assert older.version == before
    assert reads.cache.loaded == loaded


def test_a_log_rewritten_under_the_same_match_is_replayed_whole(
    new_game: Callable[..., Game], db: Session
) -> None:
    g = new_game(check=False)
    setup_battle(g)
    held = g.a.get()["version"]
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})
    row, _ = _stored(db, g.match_id)
    reads.cache.clear()
    reads.snapshot(db, _at(row, held))
    # the event at the version held is no longer what this process holds
    db.execute(
        update(MatchEvent)
        .where(MatchEvent.match_id == row.id, MatchEvent.seq == held)
        .values(at="2001-01-01T00:00:00.000+00:00")
    )
    db.commit()
    _, rewritten = _stored(db, g.match_id)
    replays, extends = reads.cache.replays, reads.cache.extends
    snap = reads.snapshot(db, row)
    assert (reads.cache.replays - replays, reads.cache.extends - extends) == (1, 0)
    assert snap.battle.envelopes == tuple(rewritten)
    assert snap.battle.envelopes[held - 1].at == "2001-01-01T00:00:00.000+00:00"


def test_extend_refuses_what_does_not_go_on_from_the_log(
    new_game: Callable[..., Game], db: Session
) -> None:
    g = new_game(check=False)
    setup_battle(g)
    g.a.send({"type": "end_phase"})
    row, envelopes = _stored(db, g.match_id)
    system = systems.playable(row.rule_system)
    versions = _boundaries(envelopes)
    held = versions[-3]
    battle = system.restore(envelopes[:held])
    log = _inner(battle)
    state, stack = log.state, list(log._stack)
    follow = envelopes[held:]
    with pytest.raises(LogError):  # a gap
        log.extend(follow[1:])
    with pytest.raises(LogError):  # an overlap
        log.extend(envelopes[held - 1 :])
    inside = system.restore(envelopes[: held - 1]) if envelopes[held - 1].batch != held else None
    if inside is not None:  # the rows start inside a batch
        with pytest.raises(LogError):
            _inner(inside).extend(envelopes[held - 1 :])
    assert (log.version, log.state, log._stack) == (held, state, stack)  # unchanged
    log.extend(follow)
    assert log.state == _inner(system.restore(envelopes)).state


def test_cpu_of_a_read_of_a_new_version_of_a_long_match(
    new_game: Callable[..., Game], db: Session
) -> None:
    """Measured for the report (CPU time): a read of the next version of a 200-event match by
    the worker holding the version before, caught up against the replay it made before."""
    g = new_game(check=False)
    setup_battle(g)
    while g.a.get()["version"] < 200:
        view = g.a.view()
        if view["stage"] != "battle" or g.a.version > 160:
            break
        finish_turn(g)
    while g.a.version < 199:  # actions undone at once: two events each
        active = g.a if g.a.view()["active"] == "A" else g.b
        active.send({"type": "end_phase"})
        active.send({"type": "undo"})
    (g.a if g.a.view()["active"] == "A" else g.b).send({"type": "end_phase"})
    row, envelopes = _stored(db, g.match_id)
    assert row.version >= 200
    held = _boundaries(envelopes)[-2]
    system = systems.playable(row.rule_system)

    def timed(read: Callable[[Any], Any], n: int = 30) -> float:
        total = 0.0
        for _ in range(n):
            reads.cache.clear()
            near = reads.snapshot(db, _at(row, held))
            start = time.process_time()
            read(near)
            total += time.process_time() - start
        db.commit()
        return total / n

    def before(near: Any) -> Any:  # the read of this version before the catch-up
        known = list(near.battle.envelopes[: row.version])
        new = reads._rows(db, row.id, len(known), row.version, system.event_codec)
        return system.restore(known + new)

    after = timed(lambda near: reads.snapshot(db, row))
    old = timed(before)
    assert (
        reads.snapshot(db, row).battle.envelopes
        == before(reads.cache.nearest((row.id, row.secret))).envelopes
    )
    print(
        f"\n{row.version} events, {row.version - held} new: {old * 1e3:.3f} -> {after * 1e3:.3f} ms"
    )
    assert after < old
