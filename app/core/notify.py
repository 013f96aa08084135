"""Postgres notifications sent after the writer's commit, from a connection of their own
(issue 21, ADR 0009).

A transaction that has run ``NOTIFY`` (or ``pg_notify``) takes, at its commit, a lock that is
one for the whole Postgres cluster (``AccessExclusiveLock`` on "object 0 of class 1262", the
notification queue's) and holds it until its commit record is flushed to disk. Every
notifying commit of the cluster therefore waits for the previous one's ``fsync``, one at a
time: measured at 200 writes/s (``bench_tournament``, ``pg_stat_activity`` sampled every
20 ms), some three writes were waiting on that lock at any moment and one more on its WAL flush;
it was most of a write's database time, and the admission slots were held all along.

So a write no longer notifies in its own transaction. Once it has committed, its notification
is handed to this process's :class:`Notifier`: one thread, one autocommit connection (outside
the pool, whose size is counted for the requests, see ``Settings``), which sends whatever is
waiting as one ``SELECT pg_notify(...)`` transaction with ``synchronous_commit = off``. That
transaction writes nothing that a crash could lose but the notification itself (which Postgres
never keeps over a restart anyway), so it need not wait for the disk, and the lock is held for
microseconds. The writes' commits no longer queue on each other: they flush together, as
Postgres groups concurrent commits.

What changes for a listener: a notification still comes only after its write committed (it is
sent after the commit returned), now a round trip later. A process that dies between its
commit and the notifier's send loses that wake-up: the other workers' streams of that match
then see the write at their next wake-up or their periodic re-read
(``app.matches.events.KEEPALIVE``), as they did for a LISTEN connection lost for a moment. A
connection failure is logged and retried once on a new connection; the batch is then dropped.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import queue
import threading
import weakref
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.engine import make_url

log = logging.getLogger("auspex")

MAX_BATCH = 256  # notifications per transaction at most
EXIT_WAIT = 2.0  # seconds a process leaving waits for what it has queued to be sent
_SEND = (
    "SELECT pg_notify(n.channel, n.payload)"
    " FROM unnest(%s::text[], %s::text[]) AS n(channel, payload)"
)


class Notifier:
    """Sends ``(channel, payload)`` notifications in order, batched, from one thread with one
    connection of its own (started on the first :meth:`send`)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.sent = 0  # notifications sent (tests, benchmarks)
        self.batches = 0  # transactions that sent them
        self.failures = 0  # batches dropped after a retry
        self._queue: queue.SimpleQueue[tuple[str, str] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._conn: Any = None
        self._pending = 0  # queued and not yet sent (or dropped)
        self._done = threading.Condition()

    def send(self, channel: str, payload: str) -> None:
        """Queue one notification (never blocks, never raises for the database)."""
        with self._done:
            self._pending += 1
        self._queue.put((channel, payload))
        if self._thread is None:
            with self._lock:
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._run, name="auspex-notifier", daemon=True
                    )
                    self._thread.start()
                    # a command-line process that wrote a match sends its news before it exits
                    atexit.register(self.flush, EXIT_WAIT)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until everything queued so far was sent (or dropped); ``False`` on timeout."""
        with self._done:
            return self._done.wait_for(lambda: self._pending == 0, timeout)

    def close(self) -> None:
        """Stop the thread once the queue is sent, and close the connection."""
        thread = self._thread
        if thread is not None:
            self._queue.put(None)
            thread.join(5)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            batch: list[tuple[str, str]] = []
            stop = item is None
            if item is not None:
                batch.append(item)
            while not stop and len(batch) < MAX_BATCH:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    stop = True
                else:
                    batch.append(item)
            if batch:
                self._deliver(batch)
                with self._done:
                    self._pending -= len(batch)
                    if self._pending == 0:
                        self._done.notify_all()
            if stop:
                self._disconnect()
                return

    def _deliver(self, batch: list[tuple[str, str]]) -> None:
        channels = [c for c, _ in batch]
        payloads = [p for _, p in batch]
        for attempt in (1, 2):
            try:
                conn = self._connection()
                conn.execute(_SEND, (channels, payloads))
            except Exception as exc:
                self._disconnect()
                if attempt == 2:
                    self.failures += 1
                    log.warning(
                        "match notifications: %d not sent (%s); other workers' streams see "
                        "those writes at their next wake-up or re-read",
                        len(batch),
                        exc,
                    )
                continue
            self.sent += len(batch)
            self.batches += 1
            return

    def _connection(self) -> Any:
        if self._conn is None:
            import psycopg

            conn = psycopg.connect(self.url, autocommit=True, connect_timeout=5)
            # a notification's transaction need not wait for the disk (see the module docstring)
            conn.execute("SET synchronous_commit = off")
            self._conn = conn
        return self._conn

    def _disconnect(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):  # closing a broken connection
                conn.close()


_notifiers: dict[tuple[int, str], Notifier] = {}  # by (process, database URL)
# the same, found by engine (once per write); an engine dropped is forgotten
_by_engine: weakref.WeakKeyDictionary[Engine, tuple[int, Notifier]] = weakref.WeakKeyDictionary()
_notifiers_lock = threading.Lock()


def notifier_for(engine: Engine) -> Notifier | None:
    """This process's notifier for ``engine``'s database (``None`` unless Postgres)."""
    if engine.dialect.name != "postgresql":
        return None
    pid = os.getpid()  # a forked child starts its own thread
    known = _by_engine.get(engine)
    if known is not None and known[0] == pid:
        return known[1]
    url = make_url(engine.url).set(drivername="postgresql").render_as_string(hide_password=False)
    with _notifiers_lock:
        found = _notifiers.get((pid, url))
        if found is None:
            found = _notifiers[(pid, url)] = Notifier(url)
        _by_engine[engine] = (pid, found)
    return found


__all__ = ["MAX_BATCH", "Notifier", "notifier_for"]
