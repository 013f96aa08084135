"""Migrations never lose rows, in either direction, on either database.

A database at head gets rows in every table (each pointing at real rows of the tables it
refers to: a match with its events, a league with its registrations and games...). It is then
stepped down one revision at a time to base and up again to head. At each step, every table that
exists both before and after the step keeps its number of rows. (Going below a table's first
revision drops it: that loses its rows by definition, and is not a step that keeps the table.)

On SQLite, downgrading the league-report revision rebuilt ``matches`` with foreign keys on, and
``ON DELETE CASCADE`` emptied ``match_events``. The revisions walked are whatever the script
directory holds, so a new revision is covered as soon as it exists.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from alembic import command
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import JSON, Connection, Engine, MetaData, Table, func, inspect, select
from sqlalchemy.types import Boolean, Date, DateTime, Integer, LargeBinary, String, Text

from app.core import migrate
from app.core.db import make_engine
from tests.core.test_migrations import scratch_url  # noqa: F401 - a fixture, used by name

ROWS_PER_TABLE = 2
VERSION_TABLE = "alembic_version"


def _value(column: Any, row: int) -> Any:
    """A value of the column's type, different on each row (so that unique columns hold)."""
    kind = column.type
    if isinstance(kind, Boolean):
        return True
    if isinstance(kind, Integer):
        return row + 1
    if isinstance(kind, DateTime):
        return datetime(2026, 1, 1 + row, tzinfo=UTC)
    if isinstance(kind, Date):
        return date(2026, 1, 1 + row)
    if isinstance(kind, JSON):
        return {}
    if isinstance(kind, LargeBinary):
        return bytes([row]) * 16
    if isinstance(kind, String | Text):
        # hex digits: a column read as hex (match secrets are 32 bytes in hex) can read it
        size = min(kind.length or 64, 64)
        return (f"{row:02x}" + "ab" * 32)[: size - size % 2 or 1]
    raise AssertionError(f"no sample value for {column.table.name}.{column.name} ({kind!r})")


def _fill(conn: Connection) -> None:
    """ROWS_PER_TABLE rows in every empty table, parents first; each foreign key names a real
    row (one already there, or one just made)."""
    metadata = MetaData()
    metadata.reflect(conn)
    ids: dict[str, list[Any]] = {}
    for table in metadata.sorted_tables:
        if table.name == VERSION_TABLE:
            continue
        (key,) = table.primary_key.columns
        ids[table.name] = list(conn.scalars(select(key).order_by(key)))
        if not ids[table.name]:
            ids[table.name] = [_insert(conn, table, row, ids) for row in range(ROWS_PER_TABLE)]


def _insert(conn: Connection, table: Table, row: int, ids: dict[str, list[Any]]) -> Any:
    (key,) = table.primary_key.columns
    values = {}
    for column in table.columns:
        if column is key and isinstance(column.type, Integer):
            continue  # the database numbers it
        references = [fk.column.table.name for fk in column.foreign_keys]
        if references:
            parents = ids.get(references[0])  # a table that points at itself: NULL
            values[column.name] = parents[row % len(parents)] if parents else None
        else:
            values[column.name] = _value(column, row)
    result = conn.execute(table.insert().values(values))
    return result.inserted_primary_key[0] if key.name not in values else values[key.name]


def _counts(conn: Connection) -> dict[str, int]:
    """Rows per table ("matches"), and non-NULL values per foreign-key column
    ("matches.league_game_id"): ``ON DELETE SET NULL`` loses a link without losing a row."""
    tables = set(inspect(conn).get_table_names()) - {VERSION_TABLE}
    metadata = MetaData()
    metadata.reflect(conn, only=sorted(tables))
    counts = {}
    for name in tables:
        table = metadata.tables[name]
        counts[name] = conn.scalar(select(func.count()).select_from(table)) or 0
        for column in table.columns:
            if column.foreign_keys:
                counts[f"{name}.{column.name}"] = conn.scalar(select(func.count(column))) or 0
    return counts


def _state(engine: Engine) -> tuple[str | None, dict[str, int]]:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision(), _counts(conn)


def _kept(before: dict[str, int], after: dict[str, int]) -> dict[str, tuple[int, int]]:
    """The tables (and foreign-key columns) present on both sides whose count changed:
    (before, after)."""
    return {
        name: (count, after[name])
        for name, count in before.items()
        if name in after and after[name] != count
    }


def _step(engine: Engine, config: Any, direction: str) -> tuple[str, dict[str, tuple[int, int]]]:
    """Fill every empty table, take one step ("-1" or "+1"); the tables that lost or gained
    rows while they existed on both sides of the step."""
    with engine.begin() as conn:
        _fill(conn)
    before, counts = _state(engine)
    engine.dispose()  # SQLite: no connection of ours in the way of a table rebuild
    getattr(command, "downgrade" if direction == "-1" else "upgrade")(config, direction)
    after, new_counts = _state(engine)
    assert after != before
    return f"{before} -> {after}", _kept(counts, new_counts)


def test_every_step_down_to_base_and_back_up_keeps_every_row(
    scratch_url: str,  # noqa: F811 - the fixture imported above
) -> None:
    config = migrate.alembic_config(scratch_url)
    script = ScriptDirectory.from_config(config)
    (head,) = script.get_heads()
    steps = len(list(script.walk_revisions("base", "heads")))
    command.upgrade(config, "head")
    engine = make_engine(scratch_url)
    try:
        with engine.begin() as conn:
            _fill(conn)
        filled = _state(engine)[1]
        assert {"matches", "match_events"} <= set(filled)
        assert {count for name, count in filled.items() if "." not in name} == {ROWS_PER_TABLE}
        assert filled["matches.league_game_id"] == ROWS_PER_TABLE  # links are filled in too

        changed = dict(_step(engine, config, "-1") for _ in range(steps))
        assert _state(engine) == (None, {})  # the first revision's downgrade drops its tables
        changed |= dict(_step(engine, config, "+1") for _ in range(steps))
        assert _state(engine)[0] == head
    finally:
        engine.dispose()
    lost = {step: tables for step, tables in changed.items() if tables}
    assert lost == {}, f"row counts changed by migrations (before, after): {lost}"
