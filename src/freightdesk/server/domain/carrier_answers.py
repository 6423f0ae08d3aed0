"""The simulated carriers' answers, given in the background: bookings and quotes, by one loop.

Carriers answer when their work falls due: a booking's answer (`response_due_at`) or its expiry
(`expirationDateTime`), a rate request's solicitations (`due_at`). One worker looks after both:
a single statement tells when the next work of either kind falls due, so an idle service looks
once per period, and the loop sleeps until then, until a commit of new work wakes it (the
channels `booking_carriers.LOOP` and `rating_quotes.LOOP`), or at most IDLE_SECONDS.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from freightdesk.models.booking import (
    OPEN_STATUSES,
    BookingStatus,
    CarrierBehaviour,
    RejectionReason,
)
from freightdesk.server.context import ServiceContext
from freightdesk.server.db import transaction, utcnow, wakeups
from freightdesk.server.domain import booking_carriers as bookings
from freightdesk.server.domain import carrier_profiles, rating_quotes
from freightdesk.server.tables.booking import BookingRow
from freightdesk.server.tables.rating import RateSolicitationRow
from freightdesk.server.workers import IDLE_POLL_SECONDS, Worker, setter, wait_for_any

log = logging.getLogger(__name__)

# Work no wake-up announced (a writer in another process on SQLite) is found this late.
IDLE_SECONDS = IDLE_POLL_SECONDS

_OPEN = [s.value for s in OPEN_STATUSES]
# The identifier a simulated carrier issues on acceptance, by mode: what tracking follows.
_CARRIER_KEY = {"TL": "BILL_OF_LADING", "LTL": "PRO", "OCEAN": "BOOKING_NUMBER"}
_DECLINES = {
    RejectionReason.NO_CAPACITY: "No truck available on this lane for the requested date.",
    RejectionReason.EQUIPMENT_UNAVAILABLE: "The requested equipment is not available.",
    RejectionReason.COST_NOT_AGREED: "The rate does not cover our cost on this lane.",
}


# --- the loop ------------------------------------------------------------------------------


async def answer_carriers(context: ServiceContext, stop: asyncio.Event) -> None:
    """Run `answer_due_work` (in a thread: it uses the database) whenever work is due."""
    nudged = asyncio.Event()
    subscribed = wakeups(context.engine)
    unsubscribes = [
        subscribed.subscribe(channel, setter(nudged))
        for channel in (bookings.LOOP, rating_quotes.LOOP)
    ]
    try:
        while not stop.is_set():
            nudged.clear()
            next_due = await asyncio.to_thread(answer_due_work, context)
            delay = IDLE_SECONDS
            if next_due is not None:
                delay = min(IDLE_SECONDS, max(0.0, (next_due - utcnow()).total_seconds()))
            if delay > 0:
                await wait_for_any(delay, stop, nudged)
    finally:
        for unsubscribe in unsubscribes:
            unsubscribe()


def answer_due_work(context: ServiceContext) -> datetime | None:
    """Answer the bookings and the quotes due now; returns when more falls due (None when
    nothing is scheduled). With nothing due, one statement."""
    with context.sessions() as session:
        bookings_due, quotes_due = next_due(session)
    now = utcnow()
    booking_work = bookings_due is not None and bookings_due <= now
    quote_work = quotes_due is not None and quotes_due <= now
    if booking_work:
        answer_due_bookings(context)
    if quote_work:
        rating_quotes.answer_due_quotes(context)
    if booking_work or quote_work:
        with context.sessions() as session:
            bookings_due, quotes_due = next_due(session)
    due = [t for t in (bookings_due, quotes_due) if t is not None]
    return min(due) if due else None


def next_due(session: Session) -> tuple[datetime | None, datetime | None]:
    """When the next booking work (an expiry or an answer) and the next quote fall due."""
    expiry = select(func.min(BookingRow.expires_at)).where(BookingRow.status.in_(_OPEN))
    answer = select(func.min(BookingRow.response_due_at)).where(
        BookingRow.status == BookingStatus.PROCESSING.value
    )
    quote = select(func.min(RateSolicitationRow.due_at)).where(
        RateSolicitationRow.pending.is_(True)
    )
    found = session.execute(
        select(expiry.scalar_subquery(), answer.scalar_subquery(), quote.scalar_subquery())
    ).one()
    booking = [t for t in (found[0], found[1]) if t is not None]
    return (min(booking) if booking else None), found[2]


# --- bookings ------------------------------------------------------------------------------


def answer_due_bookings(context: ServiceContext) -> None:
    """Expire what is due, let carriers answer what is due."""
    now = utcnow()
    with context.sessions() as session:
        expiring = session.scalars(
            select(BookingRow.id)
            .where(BookingRow.status.in_(_OPEN), BookingRow.expires_at <= now)
            .limit(500)
        ).all()
        answering = session.execute(
            select(BookingRow.id, BookingRow.updated_at)
            .where(
                BookingRow.status == BookingStatus.PROCESSING.value,
                BookingRow.response_due_at <= now,
            )
            .order_by(BookingRow.response_due_at)
            .limit(500)
        ).all()
    for booking_id in expiring:
        with transaction(context.sessions) as session:
            bookings.move(session, booking_id, OPEN_STATUSES, BookingStatus.EXPIRED, now)
    for booking_id, version in answering:
        try:
            with transaction(context.sessions) as session:
                answer_booking(session, booking_id, now)
        except Exception:
            log.exception("the carrier's answer to booking %s failed", booking_id)
            # Only the version whose answer failed: a version a PUT sent meanwhile stays due.
            with transaction(context.sessions) as session:
                bookings.move(
                    session,
                    booking_id,
                    [BookingStatus.PROCESSING],
                    BookingStatus.REJECTED,
                    now,
                    version,
                    automated_failure_reason="CARRIER_SYSTEM_ERROR",
                )


def answer_booking(session: Session, booking_id: str, now: datetime) -> None:
    """The carrier's answer to the booking as read here. A PUT sends a new version to the
    carrier and keeps it PROCESSING, so the answer is stored only if the booking is still the
    version read (`updated_at`); an answer to a replaced version is dropped and the new one
    stays due. PostgreSQL also locks the row, as a PUT does: a PUT waits for the answer."""
    row = session.scalars(
        select(BookingRow)
        .where(BookingRow.id == booking_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    ).one_or_none()
    if row is None:
        return
    bookings.settle_expiry(session, row, now)
    due = row.response_due_at
    if row.status != BookingStatus.PROCESSING.value or due is None or due > now:
        return
    version = row.updated_at
    profile = carrier_profiles.resolve(session, row.tenant_id, [row.scac])[row.scac]
    if profile.behaviour in (CarrierBehaviour.ACCEPT, CarrierBehaviour.SLOW):
        number = int(uuid.UUID(row.id)) % 10**9
        key_type = _CARRIER_KEY.get(row.transportation_mode or "TL", "BOOKING_NUMBER")
        identifiers = [{"type": key_type, "value": f"{row.scac}{number:09d}"}]
        keys = [{"key": "CARRIER_LOAD_NUMBER", "values": [f"L{number:09d}"]}]
        moved = bookings.accept(session, row, identifiers, keys, "API", now, version)
    elif profile.behaviour is CarrierBehaviour.DECLINE:
        reasons = list(_DECLINES)
        reason = reasons[int(uuid.UUID(row.id)) % len(reasons)]
        moved = bookings.move(
            session,
            row.id,
            [BookingStatus.PROCESSING],
            BookingStatus.REJECTED,
            now,
            version,
            rejection_reason=reason.value,
            carrier_rejection_notes=_DECLINES[reason],
            carrier_response_method="API",
        )
    else:
        moved = bookings.move(
            session,
            row.id,
            [BookingStatus.PROCESSING],
            BookingStatus.UNDER_REVIEW,
            now,
            version,
            response_due_at=None,
        )
    if not moved:
        log.info("booking %s changed while its carrier answered; answer dropped", booking_id)


WORKERS: list[Worker] = [answer_carriers]

__all__ = ["WORKERS", "answer_booking", "answer_due_work", "next_due"]
