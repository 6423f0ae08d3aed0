"""Finding and locking live shipments for a write (one global lock order, issue 22)."""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Iterable
from typing import Concatenate, ParamSpec, TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from freightdesk.server.errors import ApiError, not_found
from freightdesk.server.tables.tracking import (
    Shipment,
)


def by_id(session: Session, shipment_id: str | uuid.UUID, *, lock: bool = False) -> Shipment | None:
    key = uuid_text(shipment_id)
    if key is None:
        return None
    held = held_locks(session) if lock else None
    if held is not None:
        cached = held.get(key)
        if cached is not None and cached.deleted_at is None:
            return cached  # locked earlier in this transaction: no second round trip
    query = select(Shipment).where(Shipment.id == key, Shipment.deleted_at.is_(None))
    if lock:
        # Serializes concurrent writers of one shipment on PostgreSQL (SQLite has one writer).
        query = query.with_for_update()
    row = session.scalar(query)
    if held is not None and row is not None:
        held[key] = row
    return row


# Shipment ids per locking statement (SQLite allows a few thousand bound parameters at most).
_LOCK_CHUNK = 500


def lock_shipments(
    session: Session, shipment_ids: Iterable[str | uuid.UUID]
) -> dict[str, Shipment]:
    """Lock these live shipments for the transaction, in one global order (by id), and return
    them by id in that order; unknown and deleted ones are left out.

    Transactions that lock several shipments one by one, in whatever order their work meets
    them, deadlock each other when the orders differ (two instances applying pushes for the
    same shipments did, issue 22). A writer of several shipments takes them all here first,
    before any other shipment lock; its later single locks of them cost no round trip."""
    keys = sorted({key for key in map(uuid_text, shipment_ids) if key is not None})
    held = held_locks(session)
    wanted = [key for key in keys if key not in held]
    # Byte order, the order `sorted` gave: the chunks then follow one order whatever the
    # database's collation (FOR UPDATE locks rows in the order the query returns them).
    order = Shipment.id.collate("C") if _dialect(session) == "postgresql" else Shipment.id
    for start in range(0, len(wanted), _LOCK_CHUNK):
        query = (
            select(Shipment)
            .where(
                Shipment.id.in_(wanted[start : start + _LOCK_CHUNK]),
                Shipment.deleted_at.is_(None),
            )
            .order_by(order)
            .with_for_update()
        )
        for row in session.scalars(query):
            held[row.id] = row
    return {key: held[key] for key in keys if key in held and held[key].deleted_at is None}


def _dialect(session: Session) -> str:
    return session.get_bind().dialect.name


def held_locks(session: Session) -> dict[str, Shipment]:
    """Shipments this transaction has locked (by id): a seeder or a push makes many calls on
    one shipment in one transaction."""
    transaction = session.get_transaction()
    held = session.info.get("freightdesk.locked_shipments")
    if held is None or held[0] is not transaction:
        held = (transaction, {})
        session.info["freightdesk.locked_shipments"] = held
    locked: dict[str, Shipment] = held[1]
    return locked


_P = ParamSpec("_P")
_R = TypeVar("_R")


def no_autoflush(
    function: Callable[Concatenate[Session, _P], _R],
) -> Callable[Concatenate[Session, _P], _R]:
    """Run a write without autoflush: its summary-column changes to the shipment then reach
    the database once, at the next flush, however many calls the transaction makes. The
    function flushes itself where a query of its own must see an ORM change."""

    def wrapper(session: Session, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with session.no_autoflush:
            return function(session, *args, **kwargs)

    functools.update_wrapper(wrapper, function)
    return wrapper


def uuid_text(value: str | uuid.UUID) -> str | None:
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        return None


def missing(shipment_id: str | uuid.UUID) -> ApiError:
    return not_found(f"Shipment {shipment_id}")


def live_shipment(session: Session, shipment_id: str | uuid.UUID) -> Shipment:
    row = by_id(session, shipment_id, lock=True)
    if row is None:
        raise missing(shipment_id)
    return row
