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
connection failure is logged and retried on a new connection with a short backoff
(:data:`RETRY_DELAYS`); only then is the batch dropped. Any other failure (a payload Postgres
refuses) sends the batch's notifications again one by one, so that one bad payload costs only
itself; a payload of :data:`PAYLOAD_MAX` bytes or more is sent as its head (``id:version``),
which wakes the streams all the same (they read the match).

The connection has TCP keep-alives and a user timeout (a database gone silent is noticed within
seconds, not at the kernel's retransmission limit) and a statement timeout, so that the thread
never hangs; while it waits, the queue is bounded (:data:`MAX_QUEUE`): when full, the oldest
notification is dropped (logged and counted), which is safe since every stream re-reads the
database on its keep-alive's turn whatever it heard.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import threading
import time
import weakref
from collections import deque
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.engine import make_url

log = logging.getLogger("auspex")

MAX_BATCH = 256  # notifications per transaction at most
MAX_QUEUE = 4096  # notifications waiting at most (the oldest is dropped beyond)
PAYLOAD_MAX = 8000  # bytes: Postgres refuses a payload of this size or more
RETRY_DELAYS = (0.05, 0.2, 0.5, 1.0, 2.0)  # seconds before each new try of a batch
EXIT_WAIT = 2.0  # seconds a process leaving waits for what it has queued to be sent
# The notifier's connection: TCP keep-alives and a user timeout (a silent peer is given up
# after some 10 s), and no statement runs longer than 5 s.
CONNECT_ARGS: dict[str, Any] = {
    "connect_timeout": 5,
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
    "tcp_user_timeout": 5000,
    "options": "-c statement_timeout=5000",
}
_SEND = (
    "SELECT pg_notify(n.channel, n.payload)"
    " FROM unnest(%s::text[], %s::text[]) AS n(channel, payload)"
)


class Notifier:
    """Sends ``(channel, payload)`` notifications in order, batched, from one thread with one
    connection of its own (started on the first :meth:`send`)."""

    def __init__(self, url: str, *, max_queue: int = MAX_QUEUE) -> None:
        self.url = url
        self.max_queue = max_queue
        self.sent = 0  # notifications sent (tests, benchmarks)
        self.batches = 0  # transactions that sent them
        self.failures = 0  # notifications dropped: retries exhausted, or refused alone
        self.dropped = 0  # notifications dropped from a full queue
        self.shortened = 0  # payloads too big, sent as their head
        self._items: deque[tuple[str, str]] = deque()
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._conn: Any = None
        self._pending = 0  # queued or being sent (not yet sent or dropped)
        self._cond = threading.Condition()
        self._dropped_logged = 0.0  # when a full queue was last logged

    def send(self, channel: str, payload: str) -> None:
        """Queue one notification (never blocks, never raises for the database)."""
        fitted = _fit(payload)
        with self._cond:
            if fitted is not payload:
                self.shortened += 1
                payload = fitted
            if len(self._items) >= self.max_queue:
                self._items.popleft()
                self._pending -= 1
                self.dropped += 1
                now = time.monotonic()
                if now - self._dropped_logged >= 10.0:
                    self._dropped_logged = now
                    log.warning(
                        "match notifications: queue full (%d), oldest dropped (%d so far); "
                        "streams see those writes at their next re-read",
                        self.max_queue,
                        self.dropped,
                    )
            self._items.append((channel, payload))
            self._pending += 1
            self._cond.notify_all()
        if self._thread is None:
            with self._lock:
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._run, name="auspex-notifier", daemon=True
                    )
                    self._thread.start()
                    # a command-line process that wrote a match sends its news before it exits
                    atexit.register(self.flush, EXIT_WAIT)

    def queued(self) -> int:
        """Notifications waiting for the thread (not those it is sending)."""
        with self._cond:
            return len(self._items)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until everything queued so far was sent (or dropped); ``False`` on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: self._pending == 0, timeout)

    def close(self) -> None:
        """Stop the thread once the queue is sent, and close the connection."""
        thread = self._thread
        if thread is not None:
            with self._cond:
                self._stopping = True
                self._cond.notify_all()
            thread.join(5)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: bool(self._items) or self._stopping)
                count = min(len(self._items), MAX_BATCH)
                batch = [self._items.popleft() for _ in range(count)]
                stop = self._stopping and not self._items
            if batch:
                try:
                    self._deliver(batch)
                finally:
                    with self._cond:
                        self._pending -= len(batch)
                        self._cond.notify_all()
            if stop:
                self._disconnect()
                return

    def _deliver(self, batch: list[tuple[str, str]]) -> None:
        """Send ``batch`` as one transaction; one by one if Postgres refuses it (a bad
        payload); each try retried after a lost connection (:data:`RETRY_DELAYS`)."""
        if self._try(batch):
            return
        if len(batch) > 1:
            for item in batch:
                self._try([item])

    def _try(self, batch: list[tuple[str, str]]) -> bool:
        """Send ``batch``: ``True`` once sent or dropped after the retries, ``False`` when
        Postgres refused it (nothing of it was sent: one statement, one transaction)."""
        channels = [c for c, _ in batch]
        payloads = [p for _, p in batch]
        error: Exception | None = None
        for delay in (0.0, *RETRY_DELAYS):
            if delay:
                time.sleep(delay)
            try:
                conn = self._connection()
                conn.execute(_SEND, (channels, payloads))
            except Exception as exc:
                if not self._lost(exc):
                    if len(batch) == 1:
                        self.failures += 1
                        log.warning("match notification refused (%s): %.60r", exc, payloads[0])
                        return True
                    return False
                self._disconnect()
                error = exc
                continue
            self.sent += len(batch)
            self.batches += 1
            return True
        self.failures += len(batch)
        log.warning(
            "match notifications: %d not sent (%s); other workers' streams see those writes "
            "at their next wake-up or re-read",
            len(batch),
            error,
        )
        return True

    def _lost(self, exc: Exception) -> bool:
        """Whether ``exc`` is the connection's (lost, timed out), not the batch's."""
        import psycopg

        conn = self._conn
        return (
            conn is None
            or conn.broken
            or conn.closed
            or isinstance(exc, (psycopg.OperationalError, psycopg.InterfaceError))
        )

    def _connection(self) -> Any:
        if self._conn is None:
            import psycopg

            conn = psycopg.connect(self.url, autocommit=True, **CONNECT_ARGS)
            # a notification's transaction need not wait for the disk (see the module docstring)
            conn.execute("SET synchronous_commit = off")
            self._conn = conn
        return self._conn

    def _disconnect(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):  # closing a broken connection
                conn.close()


def _fit(payload: str) -> str:
    """``payload``, or its head (``id:version``, the text before its second colon) when
    Postgres would refuse it (:data:`PAYLOAD_MAX`)."""
    if len(payload) * 4 < PAYLOAD_MAX or len(payload.encode()) < PAYLOAD_MAX:
        return payload
    return ":".join(payload.split(":", 2)[:2])


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


__all__ = ["MAX_BATCH", "MAX_QUEUE", "PAYLOAD_MAX", "Notifier", "notifier_for"]
