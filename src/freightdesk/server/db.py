"""Database engine, declarative base, column types and the wake-ups a commit sends.

SQLite (the default) and PostgreSQL are both first-class: types here store the same values on
both (as the schema's migrations, in migrations.py, run on both).
"""

from __future__ import annotations

import logging
import select
import socket
import threading
import uuid
import weakref
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    Engine,
    Integer,
    MetaData,
    String,
    TypeDecorator,
    create_engine,
    event,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

log = logging.getLogger(__name__)

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class UtcDateTime(TypeDecorator[datetime]):
    """Stores UTC without an offset (SQLite has none) and always returns aware UTC values."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC)


JsonType = JSON().with_variant(JSONB(), "postgresql")
UuidStr = String(36)
# int64 ids; SQLite only auto-increments a column declared exactly INTEGER PRIMARY KEY.
BigId = BigInteger().with_variant(Integer(), "sqlite")


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """ISO 8601 in UTC, spelt as the models spell it (`Z`)."""
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def sqlite_utc_text(at: datetime) -> str:
    """How `UtcDateTime` stores an instant on SQLite (SQLAlchemy's DATETIME text format), for
    writers that go to the driver directly (positions, the webhook outbox)."""
    at = at.astimezone(UTC)
    return (
        f"{at.year:04d}-{at.month:02d}-{at.day:02d} "
        f"{at.hour:02d}:{at.minute:02d}:{at.second:02d}.{at.microsecond:06d}"
    )


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": 30}, pool_size=20
        )
        event.listen(engine, "connect", _sqlite_pragmas)
    else:
        engine = create_engine(url, pool_size=20, max_overflow=10, pool_pre_ping=True)
    _WAKEUPS[engine] = Wakeups(engine)
    return engine


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets readers run beside the one writer; NORMAL keeps commits durable against
    # application crashes, which is what an accepted push needs.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """A session that commits when the block succeeds and rolls back when it raises; then
    wakes the workers its writes asked for (`wake_on_commit`), and only if it committed."""
    with factory() as session:
        channels: set[str] = set()
        session.info[_PENDING_KEY] = channels
        with session.begin():
            yield session
            if channels:
                _notify_others(session, channels)
        if channels:
            wakeups(_engine_of(session)).fire(channels)


# --- wake-ups ----------------------------------------------------------------------------
#
# Background workers sleep until a commit gives them work instead of polling the database.
# The domain function that writes what a worker consumes (a shipment change journaled, a
# push accepted, a booking or rate request due an answer, a webhook configuration saved, a
# webhook message redelivered)
# calls `wake_on_commit` in its transaction; `transaction` then wakes the channel's
# subscribers in this process once the transaction committed, and on PostgreSQL those of
# every other instance through one NOTIFY sent in the transaction (delivered by PostgreSQL
# only if it commits). Nothing listens on the engine: statements pay nothing for this.
# Workers still look now and then (a writer in another process on SQLite, seen through
# `data_version`; a notification lost while the listening connection was down).

NOTIFY_CHANNEL = "freightdesk_wake"
WEBHOOKS_CHANNEL = "webhooks"  # shipment changes to fan out, configurations saved
# Messages queued again (a redelivery) or chains let go (a graceful stop): what no instance
# finds by looking for new messages, so every instance's delivery reloads its view.
WEBHOOKS_RELOAD_CHANNEL = "webhooks-reload"
PUSHES_CHANNEL = "pushes"  # carrier pushes accepted, to apply
# The channels of a transaction's wake-ups, in its session's `info` (set by `transaction`).
_PENDING_KEY = "freightdesk.wake.pending"
# The listening connection is tried again this long after it failed.
LISTEN_RETRY_SECONDS = 5.0
# How often SQLite's data_version is read for commits of other processes.
DATA_VERSION_SECONDS = 0.25


def wake_on_commit(session: Session, channel: str) -> None:
    """Wake `channel`'s workers, in every instance, once `session`'s transaction commits
    (none if it rolls back). Channel names have no spaces or commas."""
    pending = session.info.get(_PENDING_KEY)
    if pending is None:
        # Nothing would wake the workers: their work would wait for their fallback poll.
        raise RuntimeError("wake_on_commit needs a session of db.transaction")
    pending.add(channel)


def _notify_others(session: Session, channels: set[str]) -> None:
    """On PostgreSQL, the other instances' wake-up, sent in the transaction about to commit."""
    connection = session.connection()
    if connection.dialect.name != "postgresql":
        return
    payload = f"{wakeups(connection.engine).token} {','.join(sorted(channels))}"
    # On the connection: through the session, the statement would autoflush first.
    connection.execute(
        text("SELECT pg_notify(:channel, :payload)"),
        {"channel": NOTIFY_CHANNEL, "payload": payload},
    )


def _engine_of(session: Session) -> Engine:
    bind = session.get_bind()
    return bind if isinstance(bind, Engine) else bind.engine


class Wakeups:
    """The subscribers of one engine's channels, and its listening thread (PostgreSQL's
    notifications of other instances, SQLite's data_version)."""

    def __init__(self, engine: Engine) -> None:
        # Names this engine in its notifications, so that it does not wake itself twice.
        self.token = uuid.uuid4().hex
        self._engine_ref = weakref.ref(engine)
        self._postgres = engine.dialect.name == "postgresql"
        self._watched = self._postgres or engine.url.database not in (None, "", ":memory:")
        self._lock = threading.Lock()
        self._subscribers: dict[str, list[Callable[[], None]]] = {}
        self._listener: _Listener | None = None

    def subscribe(self, channel: str, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback` (from any thread) whenever `channel` is woken; returns the
        unsubscribe function. It must not block: it hands the news to its worker."""
        with self._lock:
            self._subscribers.setdefault(channel, []).append(callback)
            engine = self._engine_ref()
            if self._watched and self._listener is None and engine is not None:
                kind = _Notifications if self._postgres else _DataVersion
                self._listener = kind(engine, self)
                self._listener.start()

        def unsubscribe() -> None:
            with self._lock:
                callbacks = self._subscribers.get(channel, [])
                if callback in callbacks:
                    callbacks.remove(callback)
                listener = self._listener
                if listener is None or any(self._subscribers.values()):
                    return
                self._listener = None
            listener.stop()

        return unsubscribe

    def listening(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds until commits of other processes wake the subscribers
        (the listener has its baseline or LISTENs); False if they do not by then. Only tests
        wait for it: in the service, a commit before then waits for the fallback poll."""
        with self._lock:
            listener = self._listener
        return listener is not None and listener.listening.wait(timeout)

    def fire(self, channels: Iterable[str]) -> None:
        """Wake `channels`' subscribers in this process (now: for work already committed)."""
        with self._lock:
            callbacks = [c for name in set(channels) for c in self._subscribers.get(name, ())]
        for callback in callbacks:
            try:
                callback()
            except Exception:
                log.exception("a wake-up subscriber failed")

    def fire_all(self) -> None:
        with self._lock:
            names = list(self._subscribers)
        self.fire(names)


_WAKEUPS: weakref.WeakKeyDictionary[Engine, Wakeups] = weakref.WeakKeyDictionary()


def wakeups(engine: Engine) -> Wakeups:
    """The engine's wake-ups (made with it by `make_engine`, else on first use)."""
    found = _WAKEUPS.get(engine)
    if found is None:
        found = _WAKEUPS.setdefault(engine, Wakeups(engine))
    return found


class _Listener:
    """A thread on a connection of its own that wakes subscribers for commits made by other
    processes; it stops through a socket of its own."""

    def __init__(self, engine: Engine, wakeups: Wakeups) -> None:
        self._dialect = engine.dialect
        self._url = engine.url
        self._wakeups = wakeups
        self._stop_in, self._stop_out = socket.socketpair()
        self._thread = threading.Thread(target=self._run, name="db-wakeups", daemon=True)
        # Set while a commit of another process would wake: its baseline read, or LISTENing.
        self.listening = threading.Event()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop_out.send(b"x")
        self._thread.join(timeout=10)
        self._stop_in.close()
        self._stop_out.close()

    def _stopped(self, seconds: float | None) -> bool:
        return bool(select.select([self._stop_in], [], [], seconds)[0])

    def _run(self) -> None:
        while True:
            try:
                if self._listen():
                    return
            except Exception as exc:
                log.warning("listening for wake-ups failed (%s); looking again shortly", exc)
            # Notifications may have been missed meanwhile: let the workers look.
            self._wakeups.fire_all()
            if self._stopped(LISTEN_RETRY_SECONDS):
                return

    def _connect(self) -> Any:
        cargs, cparams = self._dialect.create_connect_args(self._url)
        return self._dialect.connect(*cargs, **cparams)

    def _listen(self) -> bool:
        """Listen until stopped (True) or the connection fails (raises)."""
        raise NotImplementedError


class _Notifications(_Listener):
    """PostgreSQL: LISTENs, waking the subscribers of the channels other instances notify.
    It waits on the connection's socket: nothing runs while nobody notifies."""

    def _listen(self) -> bool:
        connection = self._connect()
        try:
            connection.autocommit = True
            connection.execute(f"LISTEN {NOTIFY_CHANNEL}")
            pgconn = connection.pgconn
            self.listening.set()
            # What was notified before the LISTEN took effect was missed.
            self._wakeups.fire_all()
            while True:
                ready = select.select([pgconn.socket, self._stop_in], [], [])[0]
                if self._stop_in in ready:
                    return True
                pgconn.consume_input()
                channels: set[str] = set()
                while (notice := pgconn.notifies()) is not None:
                    token, _, named = notice.extra.decode().partition(" ")
                    if token != self._wakeups.token:
                        channels.update(named.split(","))
                if channels:
                    self._wakeups.fire(channels)
        finally:
            self.listening.clear()
            connection.close()


class _DataVersion(_Listener):
    """SQLite: a commit of another process (a tool writing the database) changes the file's
    `data_version`, read every `DATA_VERSION_SECONDS` (some microseconds, where a worker's
    look for work costs milliseconds and statements), and wakes every subscriber.

    Every change wakes, ours included: data_version cannot tell them apart (it changes once
    for any number of other connections' commits since the last read), so a change skipped
    for being ours could hold another process's commit that would then wait for the fallback
    poll (8.3 s seen). Our workers' own commits cost them one more look, which finds nothing
    and commits nothing, so the wake-ups stop there."""

    def _listen(self) -> bool:
        # Its own connection, never a pooled one that writes: data_version is per connection,
        # and its own commits would not change it.
        connection = self._connect()
        try:
            # Read at once: a commit made before the first look is read would be its baseline.
            seen = connection.execute("PRAGMA data_version").fetchone()[0]
            self.listening.set()
            while not self._stopped(DATA_VERSION_SECONDS):
                version = connection.execute("PRAGMA data_version").fetchone()[0]
                if version != seen:
                    self._wakeups.fire_all()
                seen = version
            return True
        finally:
            self.listening.clear()
            connection.close()
