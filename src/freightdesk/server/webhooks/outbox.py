"""The durable outbox of webhook messages (synchronous database work, run in a thread).

- `fan_out` reads the shipment change journal on from the cursor, stores each distinct body
  once (`webhook_payloads`) and one narrow row per configuration that wants it
  (`webhook_deliveries`), and moves the cursor, in one transaction: a change is fanned out
  exactly once, and a restart carries on where the last commit left off.
- `load_pending`, `load_endpoints`, `load_bodies` give the worker's scheduler what it needs.
- `decide` turns an attempt into its outcome: delivered, retry later (the schedule in
  `tuning`) or given up; `record` stores outcomes (a failed attempt as a row of its own, the
  successful one on the delivery), and disables a configuration whose receiver answered 410.
  An outcome moves its message on only if the row is as the attempt found it (`Pending.stamp`):
  a redelivery accepted meanwhile keeps the message queued, and the attempt goes to its log.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from sqlalchemy import Select, Table, bindparam, delete, exists, insert, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from freightdesk.models.webhooks import DeliveryStatus
from freightdesk.server.db import sqlite_utc_text
from freightdesk.server.domain.tracking_reads import attributes_hidden
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.tables.tracking import Shipment, ShipmentChange, ShipmentShare
from freightdesk.server.tables.webhooks import (
    WebhookAttemptRow,
    WebhookConfigRow,
    WebhookDeliveryRow,
    WebhookPayloadRow,
)
from freightdesk.server.webhooks import failures
from freightdesk.server.webhooks.cursor import journal_mark, lock_configs, lock_cursor
from freightdesk.server.webhooks.events import FanOut, Head, Share, Target, may_receive
from freightdesk.server.webhooks.schedule import Pending
from freightdesk.server.webhooks.secret_box import SecretBox, SecretError
from freightdesk.server.webhooks.tuning import Tuning

log = logging.getLogger(__name__)

PENDING = DeliveryStatus.PENDING.value
DELIVERED = DeliveryStatus.DELIVERED.value
FAILED = DeliveryStatus.FAILED.value
_MAX_GAPS = 10_000
PURGE_BATCH = 1000


def table_of(entity: type[Any]) -> Table:
    return cast(Table, entity.__table__)


def _driver_time(connection: Connection, at: datetime) -> Any:
    """An instant as `UtcDateTime` stores it, for statements sent to the driver."""
    if connection.dialect.name == "sqlite":
        return sqlite_utc_text(at)
    return at.astimezone(UTC).replace(tzinfo=None)


# The two statements run once per delivery go straight to the driver: per row, SQLAlchemy's
# parameter handling (and insertmanyvalues' RETURNING) cost more than the database's own
# work. SQLite takes many rows through executemany in-process; PostgreSQL gets one statement
# over arrays, because even pipelined, a statement per row costs a parse, plan and execute.


def _insert_deliveries(
    connection: Connection, rows: list[tuple[int, int]]
) -> dict[tuple[int, int], int]:
    """New PENDING deliveries (config id, payload id); returns their ids by that pair (unique
    in a fan-out: a configuration gets a payload once)."""
    if connection.dialect.name == "postgresql":
        returned = connection.exec_driver_sql(
            "INSERT INTO webhook_deliveries (config_id, payload_id, status, attempt_count) "
            f"SELECT c, p, '{PENDING}', 0 FROM unnest(%s::bigint[], %s::bigint[]) "
            "WITH ORDINALITY AS r(c, p, n) ORDER BY n RETURNING id, config_id, payload_id",
            ([c for c, _ in rows], [p for _, p in rows]),
        )
    else:
        connection.exec_driver_sql(
            "INSERT INTO webhook_deliveries (config_id, payload_id, status, attempt_count) "
            f"VALUES (?, ?, '{PENDING}', 0)",
            rows,
        )
        # Read back by payload: only this transaction's rows refer to its payloads.
        table = table_of(WebhookDeliveryRow)
        returned = connection.execute(
            select(table.c.id, table.c.config_id, table.c.payload_id).where(
                table.c.payload_id.in_({p for _, p in rows})
            )
        )
    return {(config_id, payload_id): id_ for id_, config_id, payload_id in returned}


def _mark_delivered(connection: Connection, rows: list[tuple[int, Any, int, float, Any]]) -> None:
    """Delivered: (delivery id, when, status code, latency in ms, the stamp its attempt
    found), times as `_driver_time`; a row no longer PENDING with that stamp is left alone."""
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(
            f"UPDATE webhook_deliveries AS d SET status = '{DELIVERED}', "
            "next_attempt_at = NULL, delivered_at = u.at, status_code = u.code, "
            "latency_ms = u.latency FROM unnest(%s::bigint[], %s::timestamp[], "
            "%s::integer[], %s::float8[], %s::timestamp[]) AS u(id, at, code, latency, stamp) "
            f"WHERE d.id = u.id AND d.status = '{PENDING}' "
            "AND d.next_attempt_at IS NOT DISTINCT FROM u.stamp",
            tuple(list(column) for column in zip(*rows, strict=True)),
        )
        return
    connection.exec_driver_sql(
        f"UPDATE webhook_deliveries SET status = '{DELIVERED}', next_attempt_at = NULL, "
        f"delivered_at = ?, status_code = ?, latency_ms = ? WHERE id = ? AND status = '{PENDING}' "
        "AND next_attempt_at IS ?",
        [(at, code, latency, id_, stamp) for id_, at, code, latency, stamp in rows],
    )


# --- fan-out -------------------------------------------------------------------------------


@dataclass
class Fanned:
    """What one fan-out made: journal rows read, deliveries queued, and their bodies."""

    read: int = 0
    # Of which loaded whole, payload included (those some configuration may receive).
    loaded: int = 0
    pending: list[Pending] = field(default_factory=list)
    bodies: dict[int, bytes] = field(default_factory=dict)


def fan_out(
    session: Session,
    tuning: Tuning,
    now: datetime,
    *,
    base_url: str | None,
    max_positions: int,
) -> Fanned:
    """Fan out the next batch of journal rows."""
    cursor = lock_cursor(session)
    gaps: dict[int, datetime] = {int(i): datetime.fromisoformat(t) for i, t in cursor.gaps}
    newer = ShipmentChange.id > cursor.highest_seen
    wanted = or_(newer, ShipmentChange.id.in_(gaps)) if gaps else newer
    # Without payloads: most changes go to no configuration (a tenant without one, a kind
    # nobody wants); `_fan_out` loads only the changes some configuration may receive.
    row = ShipmentChange
    changes = session.execute(
        select(row.id, row.tenant_id, row.shipment_id, row.kind, row.created_at)
        .where(row.id > cursor.position, wanted)
        .order_by(row.id)
        .limit(tuning.journal_batch)
    ).all()
    highest = cursor.highest_seen
    for change in changes:
        if change.id in gaps:
            del gaps[change.id]
        elif change.id > highest:
            # Ids skipped over may belong to transactions that commit later (PostgreSQL
            # hands out sequence values before commit); look for them again for a while.
            for missing in range(highest + 1, min(change.id, highest + 1 + _MAX_GAPS)):
                gaps[missing] = now
            highest = change.id
    deadline = now - timedelta(seconds=tuning.gap_timeout_seconds)
    expired = [i for i, seen in gaps.items() if seen < deadline]
    for missing in expired:
        del gaps[missing]
    if expired:
        log.debug("journal ids %s never committed; moving on", expired[:10])
    made = Fanned(read=len(changes))
    if changes:
        made = _fan_out(session, changes, now, base_url, max_positions)
    cursor.highest_seen = highest
    cursor.position = min(gaps) - 1 if gaps else highest
    cursor.gaps = [[i, seen.isoformat()] for i, seen in sorted(gaps.items())]
    return made


def _shares(session: Session, shipment_ids: set[str]) -> dict[str, list[Share]]:
    """Every share, current or revoked, of these shipments."""
    found: dict[str, list[Share]] = {}
    rows = session.execute(
        select(
            Shipment.id,
            Shipment.tenant_id,
            ShipmentShare.tenant_id,
            ShipmentShare.created_at,
            ShipmentShare.revoked_at,
            Tenant.kind,
        )
        .join(Shipment, Shipment.pk == ShipmentShare.shipment_pk)
        .join(Tenant, Tenant.id == ShipmentShare.tenant_id)
        .where(Shipment.id.in_(shipment_ids))
    )
    for shipment_id, owner, tenant_id, since, until, kind in rows:
        hide = attributes_hidden(owner=tenant_id == owner, kind=kind)
        found.setdefault(shipment_id, []).append(Share(tenant_id, since, until, hide))
    return found


def _fan_out(
    session: Session,
    heads: Sequence[Head],
    now: datetime,
    base_url: str | None,
    max_positions: int,
) -> Fanned:
    made = Fanned(read=len(heads))
    config = WebhookConfigRow
    # Paused ones too while changes made before their pause may be in this batch.
    live = or_(config.enabled.is_(True), config.journal_paused_after >= min(c.id for c in heads))
    if not session.scalar(select(exists().where(live))):
        return made  # the usual case of a service nobody subscribed to: no more reading
    shares = _shares(session, {c.shipment_id for c in heads})
    tenants = {c.tenant_id for c in heads}
    tenants.update(share.tenant_id for items in shares.values() for share in items)
    targets: dict[int, list[Target]] = {}
    for row in session.execute(
        select(
            config.id,
            config.tenant_id,
            config.event_type,
            config.include_context,
            config.filters,
            config.journal_after,
            config.journal_paused_after,
            config.journal_paused,
        ).where(config.tenant_id.in_(tenants), live)
    ):
        targets.setdefault(row.tenant_id, []).append(Target.of(row))
    if not targets:
        return made
    # Every change of a shipment that one of them may receive: the batch's changes of a
    # shipment together describe it (a deleted one by what its last change kept).
    shipments = {c.shipment_id for c in heads if may_receive(c, targets, shares)}
    if not shipments:
        return made
    changes = list(
        session.scalars(
            select(ShipmentChange)
            .where(ShipmentChange.id.in_([c.id for c in heads if c.shipment_id in shipments]))
            .order_by(ShipmentChange.id)
        )
    )
    made.loaded = len(changes)
    fan = FanOut(session, base_url, max_positions)
    fan.run(changes, targets, shares)
    if not fan.deliveries:
        return made
    connection = session.connection()
    payloads = table_of(WebhookPayloadRow)
    payload_ids = list(
        connection.execute(
            insert(payloads).returning(payloads.c.id, sort_by_parameter_order=True),
            [
                {
                    "event_id": p.event_id,
                    "event_type": p.event_type,
                    "shipment_id": p.shipment_id,
                    "body": p.body,
                    "created_at": p.created_at,
                }
                for p in fan.payloads
            ],
        ).scalars()
    )
    ids = _insert_deliveries(
        connection, [(d.config_id, payload_ids[d.payload]) for d in fan.deliveries]
    )
    made.pending = [
        Pending(
            message_id=ids[(d.config_id, payload_ids[d.payload])],
            config_id=d.config_id,
            payload_id=payload_ids[d.payload],
            chain=d.shipment_id,
            event_id=fan.payloads[d.payload].event_id,
            failed=0,
            due_at=now,
        )
        for d in fan.deliveries
    ]
    made.bodies = {pid: p.body.encode() for pid, p in zip(payload_ids, fan.payloads, strict=True)}
    return made


# --- what to send ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Endpoint:
    """A configuration as delivery needs it (secrets in clear: never log this)."""

    id: int
    tenant_id: int
    name: str
    url: str
    method: str
    headers: dict[str, str]
    params: dict[str, str]
    methods: list[dict[str, Any]]
    secrets: tuple[str, ...]
    enabled: bool
    updated_at: datetime
    # Why nothing can be sent (its secrets cannot be decrypted); None when all is well.
    problem: str | None = None

    @classmethod
    def of(cls, row: WebhookConfigRow, now: datetime, box: SecretBox) -> Endpoint:
        problem = None
        try:
            secrets = [box.open(row.signing_secret)]
            if (
                row.previous_signing_secret
                and row.previous_secret_expires_at is not None
                and row.previous_secret_expires_at > now
            ):
                secrets.append(box.open(row.previous_signing_secret))
            methods = box.open_methods(list(row.authentication_methods or []))
        except SecretError as exc:
            log.error("push configuration %d: %s", row.id, exc)
            secrets, methods, problem = [], [], str(exc)
        return cls(
            id=row.id,
            tenant_id=row.tenant_id,
            name=row.config_name,
            url=row.url,
            method=row.method,
            headers=dict(row.method_headers or {}),
            params=dict(row.method_params or {}),
            methods=methods,
            secrets=tuple(secrets),
            enabled=row.enabled,
            updated_at=row.updated_at,
            problem=problem,
        )


# What `pending_query` selects: id, configuration, payload, shipment, eventId, failed attempts,
# due time.
PendingSelect = Select[int, int, int, str | None, str, int, datetime | None]


def pending_query() -> PendingSelect:
    """The PENDING messages with what the scheduler needs of them, oldest first (pings never
    are: they are not retried)."""
    delivery, payload = WebhookDeliveryRow, WebhookPayloadRow
    return (
        select(
            delivery.id,
            delivery.config_id,
            delivery.payload_id,
            payload.shipment_id,
            payload.event_id,
            delivery.attempt_count,
            delivery.next_attempt_at,
        )
        .join(payload, payload.id == delivery.payload_id)
        .where(delivery.status == PENDING)
        .order_by(delivery.id)
    )


def chain_of(shipment_id: str | None, message_id: int) -> str:
    """The chain a message belongs to (`Pending.chain`)."""
    return shipment_id or f"#{message_id}"


def pending_rows(rows: Iterable[Any], now: datetime) -> list[Pending]:
    """The messages of rows with the columns of `pending_query`."""
    return [
        Pending(
            message_id=row.id,
            config_id=row.config_id,
            payload_id=row.payload_id,
            chain=chain_of(row.shipment_id, row.id),
            event_id=row.event_id,
            failed=row.attempt_count,
            due_at=row.next_attempt_at or now,
            stamp=row.next_attempt_at,
        )
        for row in rows
    ]


def load_pending(session: Session, now: datetime) -> list[Pending]:
    """Every message still to be sent."""
    return pending_rows(session.execute(pending_query()), now)


def load_endpoints(
    session: Session,
    config_ids: Iterable[int],
    known: dict[int, Endpoint],
    now: datetime,
    box: SecretBox,
) -> dict[int, Endpoint]:
    """The current endpoints of these configurations (absent: deleted); rows that did not
    change since `known` are not read again."""
    ids = list(config_ids)
    if not ids:
        return {}
    config = WebhookConfigRow
    versions = session.execute(
        select(config.id, config.updated_at, config.enabled, config.previous_signing_secret).where(
            config.id.in_(ids)
        )
    ).all()
    found: dict[int, Endpoint] = {}
    stale: list[int] = []
    for config_id, updated_at, enabled, previous in versions:
        cached = known.get(config_id)
        if (
            cached is not None
            and cached.updated_at == updated_at
            and cached.enabled == enabled
            and (previous is not None) == (len(cached.secrets) > 1)
        ):
            found[config_id] = cached
        else:
            stale.append(config_id)
    if stale:
        for row in session.scalars(select(config).where(config.id.in_(stale))):
            found[row.id] = Endpoint.of(row, now, box)
    return found


def load_bodies(session: Session, payload_ids: Iterable[int]) -> dict[int, bytes]:
    """Bodies of these payloads."""
    ids = list(payload_ids)
    if not ids:
        return {}
    rows = session.execute(
        select(WebhookPayloadRow.id, WebhookPayloadRow.body).where(WebhookPayloadRow.id.in_(ids))
    )
    return {payload_id: body.encode() for payload_id, body in rows}


# --- outcomes ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """One attempt and what it decided: DELIVERED, PENDING again at `next_attempt_at`, or
    FAILED for good."""

    pending: Pending
    attempted_at: datetime
    latency_ms: float
    status: str
    # Failed attempts of the message after this one (its place in the retry schedule); taken
    # when decided, because the scheduler moves `pending` on before the outcome is stored.
    failures: int = 0
    next_attempt_at: datetime | None = None
    status_code: int | None = None
    # Why the attempt failed: plain words and the technical detail (`failures`).
    error: str | None = None
    detail: str | None = None
    # `pending.stamp` when the attempt began (the scheduler moves it on before the store).
    stamp: datetime | None = None

    @property
    def gone(self) -> bool:
        return self.status_code == 410


def decide(
    pending: Pending,
    *,
    attempted_at: datetime,
    latency_ms: float,
    status_code: int | None,
    error: str | None,
    detail: str | None = None,
    retry_after: float | None,
    tuning: Tuning,
) -> Outcome:
    if status_code is not None and 200 <= status_code < 300:
        status, next_at = DELIVERED, None
    else:
        delay = tuning.delay_after(pending.failed + 1, retry_after)
        if delay is None:
            status, next_at = FAILED, None
        else:
            status, next_at = PENDING, attempted_at + timedelta(seconds=delay)
    return Outcome(
        pending=pending,
        attempted_at=attempted_at,
        latency_ms=latency_ms,
        status=status,
        failures=pending.failed + (0 if status == DELIVERED else 1),
        next_attempt_at=next_at,
        status_code=status_code,
        error=error,
        detail=detail,
        stamp=pending.stamp,
    )


def record(session: Session, outcomes: Sequence[Outcome], now: datetime) -> set[int]:
    """Store attempts and move each message on; outcomes of deleted messages are dropped.
    Returns the messages redelivered since their attempt began: their rows stay as the
    redelivery queued them (PENDING, due), the attempts only join their log."""
    if not outcomes:
        return set()
    gone = {o.pending.config_id: o for o in outcomes if o.gone}
    # Before any message's row: the cursor, then the rows of the configurations to pause.
    pausing: set[int] = set()
    if gone:
        pausing = {row.id for row in lock_configs(session, gone) if row.enabled}
    else:
        # The cursor alone: lock_configs also writes it on SQLite, 0.2 ms more a cycle.
        lock_cursor(session)
    connection = session.connection()
    # A message tried twice since the last store: its row takes the later outcome, if it is
    # still as the earlier attempt found it.
    found: dict[int, datetime | None] = {}
    for o in outcomes:
        found.setdefault(o.pending.message_id, o.stamp)
    latest = {o.pending.message_id: o for o in outcomes}
    table = table_of(WebhookDeliveryRow)
    delivered = [o for o in latest.values() if o.status == DELIVERED]
    retried = [o for o in latest.values() if o.status != DELIVERED]
    if delivered:
        _mark_delivered(
            connection,
            [
                (
                    o.pending.message_id,
                    _driver_time(connection, o.attempted_at),
                    o.status_code or 0,
                    round(o.latency_ms, 1),
                    _stamp(connection, found[o.pending.message_id]),
                )
                for o in delivered
            ],
        )
    if retried:
        connection.execute(
            update(table)
            .where(
                table.c.id == bindparam("d_id"),
                table.c.status == PENDING,
                table.c.next_attempt_at.is_not_distinct_from(bindparam("d_found")),
            )
            .values(
                status=bindparam("d_status"),
                attempt_count=bindparam("d_count"),
                next_attempt_at=bindparam("d_next"),
            ),
            [
                {
                    "d_id": o.pending.message_id,
                    "d_found": found[o.pending.message_id],
                    "d_status": o.status,
                    "d_count": o.failures,
                    "d_next": o.next_attempt_at,
                }
                for o in retried
            ],
        )
    # Read after the writes, which hold the rows (or, on SQLite, the database) until commit.
    rows = connection.execute(
        select(table.c.id, table.c.status, table.c.attempt_count).where(table.c.id.in_(latest))
    ).all()
    existing = {id_ for id_, _status, _count in rows}
    stored = {id_ for id_, status, count in rows if _holds(latest[id_], status, count)}
    missed = existing - stored
    # Every attempt joins the log, but a success stored on its row.
    attempts = [
        failed_attempt(o)
        for o in outcomes
        if o.pending.message_id in existing
        and not (
            o.status == DELIVERED
            and o is latest[o.pending.message_id]
            and o.pending.message_id in stored
        )
    ]
    if attempts:
        connection.execute(insert(table_of(WebhookAttemptRow)), attempts)
    failed = [o for o in latest.values() if o.status == FAILED and o.pending.message_id in stored]
    for o in failed:
        log.warning(
            "webhook message %d to configuration %d given up after %d attempts",
            o.pending.message_id,
            o.pending.config_id,
            o.failures,
        )
    mark = journal_mark(session) if pausing else 0
    for config_id in sorted(pausing):
        outcome = gone[config_id]
        session.execute(
            update(WebhookConfigRow)
            .where(WebhookConfigRow.id == config_id)
            .values(
                enabled=False,
                journal_paused_after=mark,  # as a user's pause (configs.save)
                disabled_at=now,
                disabled_reason=(
                    f"The receiver answered 410 Gone at {outcome.attempted_at.isoformat()}; "
                    "a PUT with enabled true enables it again"
                ),
            )
        )
        log.warning("webhook configuration %d disabled: its receiver answered 410", config_id)
    if missed:
        log.info("webhook messages %s were redelivered during their attempt", sorted(missed))
    return missed


def _stamp(connection: Connection, at: datetime | None) -> Any:
    return None if at is None else _driver_time(connection, at)


def _holds(outcome: Outcome, status: str, count: int) -> bool:
    """Whether a row read after the store shows this outcome (a redelivery leaves it PENDING
    with no failed attempts; a retry has at least one)."""
    if outcome.status == PENDING:
        return status == PENDING and count == outcome.failures
    return status == outcome.status


def failed_attempt(outcome: Outcome) -> dict[str, Any]:
    return {
        "delivery_id": outcome.pending.message_id,
        "attempted_at": outcome.attempted_at,
        "status_code": outcome.status_code,
        "latency_ms": round(outcome.latency_ms, 1),
        "error": failures.stored(outcome.error, outcome.detail),
    }


def purge(session: Session, tuning: Tuning, now: datetime) -> int:
    """Forget payloads past retention that nothing waits for (with their deliveries and
    attempts); expire rotated secrets. Returns how many payloads went."""
    # The configurations' rows before their messages' (`lock_configs`).
    session.execute(
        update(WebhookConfigRow)
        .where(
            WebhookConfigRow.previous_secret_expires_at.is_not(None),
            WebhookConfigRow.previous_secret_expires_at <= now,
        )
        .values(previous_signing_secret=None, previous_secret_expires_at=None)
    )
    before = now - timedelta(seconds=tuning.retention_seconds)
    delivery, payload = WebhookDeliveryRow, WebhookPayloadRow
    waiting = exists().where(delivery.payload_id == payload.id, delivery.status == PENDING)
    ids = list(
        session.scalars(
            select(payload.id).where(payload.created_at < before, ~waiting).limit(PURGE_BATCH)
        )
    )
    if ids:
        of_payloads = select(delivery.id).where(delivery.payload_id.in_(ids))
        session.execute(
            delete(WebhookAttemptRow).where(WebhookAttemptRow.delivery_id.in_(of_payloads))
        )
        session.execute(delete(delivery).where(delivery.payload_id.in_(ids)))
        session.execute(delete(payload).where(payload.id.in_(ids)))
    return len(ids)
