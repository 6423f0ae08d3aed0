"""Database engine, declarative base, column types and schema migrations.

SQLite (the default) and PostgreSQL are both first-class: types here store the same values on
both, and every migration runs on both.
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
from dataclasses import dataclass
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
    inspect,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.exc import SQLAlchemyError
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
            while not self._stopped(DATA_VERSION_SECONDS):
                version = connection.execute("PRAGMA data_version").fetchone()[0]
                if version != seen:
                    self._wakeups.fire_all()
                seen = version
            return True
        finally:
            connection.close()


# --- migrations --------------------------------------------------------------------------


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    apply: Callable[[Connection], None]


def add_column_if_missing(conn: Connection, table: str, column_ddl: str) -> None:
    """Idempotent ALTER TABLE ADD COLUMN, because create_all may already have made it."""
    name = column_ddl.split()[0]
    existing = {c["name"] for c in inspect(conn).get_columns(table)}
    if name not in existing:
        conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {column_ddl}"))


def add_indexes_if_missing(conn: Connection, table: str, *names: str) -> None:
    """Create indexes declared on a table's model that an older database lacks (create_all
    makes them only with the table)."""
    for index in Base.metadata.tables[table].indexes:
        if index.name in names:
            index.create(conn, checkfirst=True)


def _search_indexes(conn: Connection) -> None:
    add_indexes_if_missing(conn, "shipments", "ix_shipments_tenant_mode_state")
    add_indexes_if_missing(conn, "shipment_identifiers", "ix_shipment_identifiers_prefix")


def _next_eta_zones(conn: Connection) -> None:
    from freightdesk.server.domain.shipments.summary import fill_next_eta_zones

    add_column_if_missing(conn, "shipments", "next_eta_zone VARCHAR(64)")
    fill_next_eta_zones(conn)


def _latest_event_zones(conn: Connection) -> None:
    from freightdesk.server.domain.shipments.summary import fill_latest_event_zones

    add_column_if_missing(conn, "shipments", "latest_event_zone VARCHAR(64)")
    fill_latest_event_zones(conn)


def _kept_tracks(conn: Connection) -> None:
    """The table of kept tracks and its triggers. create_all made the table (and, through the
    metadata's after_create, the triggers) before the migrations run; made again here in case
    it was an earlier create_all. Each track is built by the first history read of its
    shipment, not here: a large database would otherwise spend its upgrade on tracks that
    nobody may open."""
    from freightdesk.server.tables.tracking import ShipmentTrack, make_track_triggers

    ShipmentTrack.__table__.create(conn, checkfirst=True)  # type: ignore[attr-defined]
    make_track_triggers(conn)


def _account_group_codes_without_case(conn: Connection) -> None:
    """The unique index on a tenant's account group codes whatever their case. A database
    that already holds codes differing only in case keeps them and goes without the index:
    the service refuses new ones either way, only two creates racing are not caught."""
    folded = text(
        "SELECT 1 FROM account_groups GROUP BY tenant_id, lower(code) HAVING count(*) > 1"
    )
    if conn.execute(folded).first() is not None:
        log.warning("account group codes differing only in case: their unique index is left out")
        return
    # Not add_indexes_if_missing: its check does not see an index on an expression.
    conn.execute(
        text(
            "CREATE UNIQUE INDEX IF NOT EXISTS ux_account_groups_tenant_code_lower "
            "ON account_groups (tenant_id, lower(code))"
        )
    )


def _change_seq(conn: Connection) -> None:
    """The shipments' change sequence for the list's incremental sync, and what keeps it.
    Shipments written before have none (NULL): the apps that sync with tokens list every
    shipment once at their first such sync."""
    from freightdesk.server.tables.tracking import make_change_seq_triggers

    add_column_if_missing(conn, "shipments", "change_seq BIGINT")
    add_indexes_if_missing(conn, "shipments", "ix_shipments_tenant_change")
    make_change_seq_triggers(conn)


def _change_seq_everywhere(conn: Connection) -> None:
    """A change sequence for the shipments written before version 7 (NULL until they
    changed): keyset pages in change order need a value on every row. The triggers number
    them (`CHANGE_SEQ_*`); the next token sync lists them once more. The change index gets
    the primary key after the sequence, the keyset's order on both databases."""
    conn.exec_driver_sql("UPDATE shipments SET change_seq = 0 WHERE change_seq IS NULL")
    conn.exec_driver_sql("DROP INDEX IF EXISTS ix_shipments_tenant_change")
    add_indexes_if_missing(conn, "shipments", "ix_shipments_tenant_change_pk")


# Append only; never edit a released migration. Version 1 is the first released schema.
MIGRATIONS: list[Migration] = [
    Migration(1, "initial schema", lambda conn: None),
    Migration(2, "shipment search indexes", _search_indexes),
    Migration(3, "the zone of a shipment's next ETA stop", _next_eta_zones),
    Migration(4, "the zone of a shipment's latest event stop", _latest_event_zones),
    Migration(5, "kept down-sampled tracks for history reads", _kept_tracks),
    Migration(
        6, "account group codes unique whatever their case", _account_group_codes_without_case
    ),
    Migration(7, "the shipments' change sequence for incremental sync", _change_seq),
    Migration(8, "a change sequence on every shipment", _change_seq_everywhere),
]

SCHEMA_VERSION = MIGRATIONS[-1].version

# The key of the PostgreSQL advisory lock held while the schema is checked and upgraded, so
# that instances starting together on one database take turns: the first migrates, the
# others then find the schema current. Any constant unlikely to be used by another program.
SCHEMA_LOCK_KEY = 0x46445343  # "FDSC"


def _lock_schema(conn: Connection) -> None:
    """Wait for the schema lock, held until this transaction ends (commit or rollback).

    SQLite needs none: a database file belongs to one instance (its data directory's lock),
    and SQLite serializes writers anyway.
    """
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK_KEY})


def readiness_problem(engine: Engine) -> str | None:
    """Why requests that need the database cannot be served now, or None when they can: the
    database answers and its schema is the one this release migrates to (not older, and not
    newer, made by a later release on the same database)."""
    try:
        with engine.connect() as conn:
            row = conn.execute(text("SELECT max(version) FROM schema_version")).scalar()
    except SQLAlchemyError as exc:
        log.warning("readiness: the database does not answer: %s", exc)
        return "The database does not answer"
    if row is None or int(row) != SCHEMA_VERSION:
        return f"The database's schema is version {row}; this release needs {SCHEMA_VERSION}"
    return None


def upgrade(engine: Engine) -> int:
    """Bring the database to the current schema in place; returns the version it had."""
    import freightdesk.server.tables  # noqa: F401  (registers every table on Base.metadata)

    with engine.begin() as conn:
        # First: two instances creating the same table at once fail on PostgreSQL even with
        # IF NOT EXISTS (a unique violation in its catalog).
        _lock_schema(conn)
        conn.execute(text("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"))
        row = conn.execute(text("SELECT max(version) FROM schema_version")).scalar()
        current = int(row) if row is not None else 0
        existing = set(inspect(conn).get_table_names())
        fresh = current == 0 and "tenants" not in existing
        # Tables of areas added since the database was made are created here. create_all asks
        # the database about each table in turn; a restart, which finds them all, needs none.
        if not existing.issuperset(Base.metadata.tables):
            Base.metadata.create_all(conn)
        if fresh:
            conn.execute(
                text("INSERT INTO schema_version (version) VALUES (:v)"), {"v": SCHEMA_VERSION}
            )
            log.info("created database schema version %d", SCHEMA_VERSION)
            return 0
        for migration in MIGRATIONS:
            if migration.version > current:
                log.info("migrating database to %d: %s", migration.version, migration.description)
                migration.apply(conn)
                conn.execute(
                    text("INSERT INTO schema_version (version) VALUES (:v)"),
                    {"v": migration.version},
                )
        return current
