"""Bookings: the state machine, expiry, tracking initiation. The simulated carriers answer in
the background (`carrier_answers`).

    (created) -> PROCESSING -> BOOKED | REJECTED | UNDER_REVIEW
    UNDER_REVIEW -> BOOKED | REJECTED            (a carrier response)
    PROCESSING | UNDER_REVIEW -> EXPIRED         (expirationDateTime passes)
    any state -> CANCELLED                       (either party)

Every transition is a compare-and-set UPDATE (`... WHERE status IN (...)`), so a carrier's
answer, an expiry and a cancellation racing each other leave exactly one winner on SQLite and
on PostgreSQL. A booking made from a quote is linked to the quote's rate request; the
`active_rate_request_id` unique column keeps one live booking per rate request.

BOOKED initiates a tracked shipment (`booking_tracking`), found by
`masterShipmentId`: the carrier's SCAC and every identifier tracking accepts for the mode, the
route of the rate request, and as attributes the shipper's booking attributes followed by the
carrier's reference keys, 25 in all; reference keys beyond that are left out.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from freightdesk.models.booking import (
    LIVE_STATUSES,
    OPEN_STATUSES,
    Booking,
    BookingInput,
    BookingList,
    BookingStatus,
    CarrierDecision,
    CarrierResponse,
)
from freightdesk.models.common import PaginationInfo, TransportationMode
from freightdesk.models.rating import CarrierIdentifierType, RateRequestStatus
from freightdesk.models.rating_rules import future_problem
from freightdesk.server.db import wake_on_commit
from freightdesk.server.domain import carrier_profiles
from freightdesk.server.domain.booking_tracking import (
    fold,
    has_tracking_key,
    initiate_tracking,
    key_types,
)
from freightdesk.server.errors import conflict, field_error, not_found
from freightdesk.server.tables.booking import BookingAttributeRow, BookingRow
from freightdesk.server.tables.rating import RateQuoteRow, RateRequestRow

LOOP = "booking-carriers"
_OPEN = [s.value for s in OPEN_STATUSES]
_LIVE = [s.value for s in LIVE_STATUSES]
_OPEN_REQUEST = [RateRequestStatus.QUOTES_REQUESTED.value, RateRequestStatus.QUOTES_RECEIVED.value]


# --- reading -------------------------------------------------------------------------------


def owned_booking(session: Session, tenant_id: int, booking_id: uuid.UUID | str) -> BookingRow:
    row = session.get(BookingRow, str(booking_id), populate_existing=True)
    if row is None or row.tenant_id != tenant_id:
        raise not_found(f"Booking {booking_id}")
    return row


def effective_status(row: BookingRow, now: datetime) -> BookingStatus:
    status = BookingStatus(row.status)
    if status in OPEN_STATUSES and row.expires_at is not None and row.expires_at <= now:
        return BookingStatus.EXPIRED
    return status


def view(row: BookingRow, now: datetime) -> Booking:
    return Booking.model_validate(
        {
            **row.document,
            "id": row.id,
            "status": effective_status(row, now).value,
            "shipmentId": row.shipment_id,
            "masterShipmentId": row.master_shipment_id,
            "shipmentIdentifiers": row.shipment_identifiers,
            "carrierProvidedIdentifiers": row.carrier_provided_identifiers,
            "capacityProviderReferenceKeys": row.reference_keys,
            "carrierResponseMethod": row.carrier_response_method,
            "carrierRejectionNotes": row.carrier_rejection_notes,
            "rejectionReason": row.rejection_reason,
            "automatedFailureReason": row.automated_failure_reason,
            "bookingSourceMethod": "API",
            "transportationMode": row.transportation_mode,
            "createdDateTime": row.created_at,
            "lastModifiedDateTime": row.updated_at,
            "lastAcceptedDateTime": row.accepted_at,
        }
    )


def list_bookings(
    session: Session,
    tenant_id: int,
    *,
    statuses: Sequence[BookingStatus],
    attribute_name: str | None,
    attribute_values: Sequence[str],
    page_number: int,
    page_size: int,
    now: datetime,
) -> BookingList:
    query = select(BookingRow).where(BookingRow.tenant_id == tenant_id)
    if statuses:
        query = query.where(BookingRow.status.in_([s.value for s in statuses]))
    if attribute_name is not None:
        matching = select(BookingAttributeRow.booking_id).where(
            BookingAttributeRow.tenant_id == tenant_id,
            BookingAttributeRow.name == fold(attribute_name),
        )
        if attribute_values:
            matching = matching.where(
                BookingAttributeRow.value.in_([fold(v) for v in attribute_values])
            )
        query = query.where(BookingRow.id.in_(matching))
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    rows = session.scalars(
        query.order_by(BookingRow.created_at.desc(), BookingRow.id)
        .offset((page_number - 1) * page_size)
        .limit(page_size)
    )
    return BookingList(
        pagination_info=PaginationInfo(page_number=page_number, page_size=page_size, total=total),
        results=[view(row, now) for row in rows],
    )


# --- creating and replacing ----------------------------------------------------------------


@dataclass(frozen=True)
class _Link:
    """The rate request (and quote) a booking is made from, if any."""

    request: RateRequestRow | None
    quote: RateQuoteRow | None


def create_booking(
    session: Session, tenant_id: int, body: BookingInput, now: datetime
) -> BookingRow:
    _check_expiration(body, now)
    link = _link(session, tenant_id, body, now, current=None)
    row = BookingRow(id=str(uuid.uuid4()), tenant_id=tenant_id, created_at=now)
    _apply(session, row, body, link, now)
    session.add(row)
    _flush_live(session, link)  # the row first: its attributes refer to it
    _write_attributes(session, row, body)
    return row


def update_booking(
    session: Session, tenant_id: int, booking_id: uuid.UUID, body: BookingInput, now: datetime
) -> BookingRow:
    """PUT: replace the shipper's fields of a booking the carrier has not answered for good.

    The changed booking goes to the carrier again, so it returns to PROCESSING.
    """
    row = owned_booking(session, tenant_id, booking_id)
    if row.rate_request_id is not None:
        # The rate request before the booking, in the order a cancellation of it locks them.
        session.execute(
            select(RateRequestRow.id)
            .where(RateRequestRow.id == row.rate_request_id)
            .with_for_update()
        )
    settle_expiry(session, row, now)
    # Lock the booking while it is still open; the carrier may be answering right now.
    if not move(session, row.id, OPEN_STATUSES, BookingStatus.PROCESSING, now):
        row = owned_booking(session, tenant_id, booking_id)
        raise conflict(
            f"Booking {booking_id} is {row.status}; only PROCESSING or UNDER_REVIEW bookings "
            "can be updated",
            source="status",
        )
    row = owned_booking(session, tenant_id, booking_id)
    _check_expiration(body, now)
    link = _link(session, tenant_id, body, now, current=row.id)
    _apply(session, row, body, link, now)
    _flush_live(session, link)
    session.execute(delete(BookingAttributeRow).where(BookingAttributeRow.booking_id == row.id))
    _write_attributes(session, row, body)
    return row


def _check_expiration(body: BookingInput, now: datetime) -> None:
    if body.expiration_date_time is not None:
        problem = future_problem(body.expiration_date_time, now)
        if problem is not None:
            raise field_error("expirationDateTime", problem)


def _link(
    session: Session, tenant_id: int, body: BookingInput, now: datetime, current: str | None
) -> _Link:
    values = [identifier.value for identifier in body.rate_identifiers]
    quotes = session.scalars(
        select(RateQuoteRow).where(
            RateQuoteRow.tenant_id == tenant_id, RateQuoteRow.quote_number.in_(values)
        )
    ).all()
    if len(quotes) > 1:
        numbers = ", ".join(sorted(q.quote_number for q in quotes))
        raise field_error("rateIdentifiers", f"name several quotes ({numbers}); book one quote")
    quote = quotes[0] if quotes else None
    scac = carrier_profiles.normalize_scac(body.capacity_provider_identifier.value)
    request_id: str | None = None
    if quote is not None:
        request_id = quote.rate_request_id
        if body.shipment_id is not None and str(body.shipment_id) != request_id:
            raise field_error(
                "shipmentId",
                f"the quote named in rateIdentifiers belongs to rate request {request_id}",
            )
        if quote.scac != scac:
            raise field_error(
                "capacityProviderIdentifier.value",
                f"quote {quote.quote_number} is from carrier {quote.scac}, not {scac}",
            )
        if quote.expires_at <= now:
            raise conflict(
                f"Quote {quote.quote_number} expired at {quote.expires_at.isoformat()}",
                source="rateIdentifiers",
            )
    elif body.shipment_id is None:
        raise field_error(
            "shipmentId",
            "is required unless the booking is made from a quote (a rateIdentifiers value of "
            "a quote of one of your rate requests)",
        )
    else:
        candidate = session.get(RateRequestRow, str(body.shipment_id))
        if candidate is not None and candidate.tenant_id == tenant_id:
            request_id = candidate.id
    if request_id is None:
        return _Link(None, None)
    request = _lock_open_request(session, request_id, now)
    _check_one_live(session, request_id, current)
    return _Link(request, quote)


def _lock_open_request(session: Session, request_id: str, now: datetime) -> RateRequestRow:
    """The rate request, locked against a concurrent cancellation; 409 unless it is open."""
    locked = rowcount(
        session.execute(
            update(RateRequestRow)
            .where(
                RateRequestRow.id == request_id,
                RateRequestRow.status.in_(_OPEN_REQUEST),
                RateRequestRow.expires_at > now,
            )
            .values(status=RateRequestRow.status)
        )
    )
    request = session.get(RateRequestRow, request_id, populate_existing=True)
    assert request is not None
    if not locked:
        state = "CANCELLED" if request.status == "CANCELLED" else "EXPIRED"
        raise conflict(f"Rate request {request_id} is {state}; it cannot be booked", "shipmentId")
    return request


def _check_one_live(session: Session, request_id: str, current: str | None) -> None:
    live = session.scalar(
        select(BookingRow).where(
            BookingRow.active_rate_request_id == request_id, BookingRow.id != (current or "")
        )
    )
    if live is not None:
        raise conflict(
            f"Rate request {request_id} already has booking {live.id} ({live.status}); cancel "
            "it first",
            source="rateIdentifiers",
        )


def _flush_live(session: Session, link: _Link) -> None:
    try:
        session.flush()
    except IntegrityError:  # a concurrent booking of the same rate request won the race
        request_id = link.request.id if link.request else "?"
        raise conflict(
            f"Rate request {request_id} already has a booking in progress", "rateIdentifiers"
        ) from None


def _apply(
    session: Session, row: BookingRow, body: BookingInput, link: _Link, now: datetime
) -> None:
    """Set every shipper field of the row from the body (create and PUT alike)."""
    scac = carrier_profiles.normalize_scac(body.capacity_provider_identifier.value)
    profile = carrier_profiles.resolve(session, row.tenant_id, [scac])[scac]
    document = body.model_dump(mode="json", by_alias=True, exclude_none=True)
    document["capacityProviderIdentifier"]["value"] = scac
    request, quote = link.request, link.quote
    if quote is not None:
        _quote_defaults(document, quote.document)
    if request is not None:
        segment_ids, pairs = _route_segments(request, body)
        document["routeSegmentIds"] = segment_ids
        document["routeSegments"] = pairs
    row.status = BookingStatus.PROCESSING.value
    row.scac = scac
    row.shipment_id = (
        str(body.shipment_id) if body.shipment_id else (request.id if request else None)
    )
    row.rate_request_id = request.id if request else None
    row.active_rate_request_id = row.rate_request_id
    row.quote_id = quote.id if quote else None
    row.transportation_mode = _mode(body, request)
    row.document = document
    row.shipment_identifiers = list(request.document.get("identifiers", [])) if request else []
    row.carrier_provided_identifiers = []
    row.reference_keys = []
    row.carrier_response_method = None
    row.rejection_reason = None
    row.carrier_rejection_notes = None
    row.automated_failure_reason = None
    row.expires_at = (
        body.expiration_date_time.astimezone(UTC) if body.expiration_date_time else None
    )
    row.response_due_at = now + timedelta(seconds=profile.response_delay_seconds)
    row.updated_at = now
    wake_on_commit(session, LOOP)  # its answer and expiry fall due: the worker's next look


def _quote_defaults(document: dict[str, Any], quote: dict[str, Any]) -> None:
    """Fill the rate fields the shipper left out from the quote being booked."""
    document.setdefault("totalRate", quote["totalRate"])
    document.setdefault("fuelSurchargeRate", quote["fuelSurcharge"])
    if not document.get("charges"):
        lines = [("LINE_HAUL", quote["lineHaul"]), ("FUEL_SURCHARGE", quote["fuelSurcharge"])]
        lines += [(c["code"], c["amount"]) for c in quote.get("accessorialCharges", [])]
        document["charges"] = [
            {"code": code, "amount": money["amount"], "currency": money["currency"]}
            for code, money in lines
        ]


def _route_segments(
    request: RateRequestRow, body: BookingInput
) -> tuple[list[str], list[dict[str, Any]]]:
    route = request.document["rateDetail"]["routeInfo"]
    locations = {stop["id"]: stop.get("location") for stop in route["stops"]}
    segments = {segment["id"]: segment for segment in route.get("routeSegments", [])}
    wanted = [str(i) for i in body.route_segment_ids] or list(segments)
    for index, segment_id in enumerate(wanted):
        if segment_id not in segments:
            raise field_error(
                f"routeSegmentIds[{index}]", f"names no route segment of rate request {request.id}"
            )
    pairs = []
    for segment_id in wanted:
        segment = segments[segment_id]
        pairs.append(
            {
                "id": segment_id,
                "fromStopId": segment["fromStopId"],
                "toStopId": segment["toStopId"],
                "fromLocation": locations.get(segment["fromStopId"]),
                "toLocation": locations.get(segment["toStopId"]),
            }
        )
    return wanted, pairs


def _mode(body: BookingInput, request: RateRequestRow | None) -> str:
    if body.capacity_provider_identifier.type is CarrierIdentifierType.FFW_SCAC:
        return TransportationMode.OCEAN.value
    if request is not None:
        return request.mode
    shipping = body.shipping_details
    if shipping is not None and shipping.service_type is not None:
        return TransportationMode.OCEAN.value
    return TransportationMode.TL.value


def _write_attributes(session: Session, row: BookingRow, body: BookingInput) -> None:
    for attribute in body.attributes:
        values: list[str | None] = list(dict.fromkeys(fold(v) for v in attribute.values))
        for value in values or [None]:
            session.add(
                BookingAttributeRow(
                    booking_id=row.id,
                    tenant_id=row.tenant_id,
                    name=fold(attribute.name),
                    value=value,
                )
            )


# --- transitions ---------------------------------------------------------------------------


def rowcount(result: Any) -> int:
    return int(cast(CursorResult[Any], result).rowcount)


def move(
    session: Session,
    booking_id: str,
    allowed: Iterable[BookingStatus] | None,
    to: BookingStatus,
    now: datetime,
    version: datetime | None = None,
    **values: Any,
) -> bool:
    """Compare-and-set the status; False when the booking was not in an allowed state, or
    (given a `version`) when its `updated_at` is no longer the one the caller read."""
    statement = update(BookingRow).where(BookingRow.id == booking_id)
    if version is not None:
        statement = statement.where(BookingRow.updated_at == version)
    if allowed is None:
        statement = statement.where(BookingRow.status != to.value)
    else:
        statement = statement.where(BookingRow.status.in_([s.value for s in allowed]))
    changes: dict[str, Any] = {"status": to.value, "updated_at": now, **values}
    if to not in LIVE_STATUSES:  # it lets go of its rate request
        changes["active_rate_request_id"] = None
        changes["response_due_at"] = None
    return rowcount(session.execute(statement.values(**changes))) == 1


def settle_expiry(session: Session, row: BookingRow, now: datetime) -> None:
    """Record an expiry that is due but not yet written by the worker."""
    if effective_status(row, now) is BookingStatus.EXPIRED and row.status in _OPEN:
        move(session, row.id, OPEN_STATUSES, BookingStatus.EXPIRED, now)
        session.refresh(row)


def cancel_booking(
    session: Session, tenant_id: int, booking_id: uuid.UUID, now: datetime
) -> BookingRow:
    """Either party cancels, from any state; cancelling again changes nothing."""
    row = owned_booking(session, tenant_id, booking_id)
    if move(session, row.id, None, BookingStatus.CANCELLED, now):
        row = owned_booking(session, tenant_id, booking_id)
    return row


def cancel_for_rate_request(
    session: Session, tenant_id: int, request_id: str, now: datetime
) -> str | None:
    """Cancel the booking in progress of a rate request being cancelled; returns its id.

    409 when a carrier accepted a booking of the request (also when it did so just now).
    """
    live = session.scalars(
        select(BookingRow).where(
            BookingRow.tenant_id == tenant_id,
            BookingRow.rate_request_id == request_id,
            BookingRow.status.in_(_LIVE),
        )
    ).all()
    cancelled: str | None = None
    for booking in live:
        if booking.status != BookingStatus.BOOKED.value:
            if move(session, booking.id, OPEN_STATUSES, BookingStatus.CANCELLED, now):
                cancelled = booking.id
                continue
            session.refresh(booking)  # the carrier answered, or it expired, just now
            if booking.status != BookingStatus.BOOKED.value:
                continue
        raise conflict(
            f"A carrier accepted booking {booking.id} of rate request {request_id}; cancel the "
            "booking first",
            source="bookingId",
        )
    return cancelled


def carrier_response(
    session: Session, tenant_id: int, booking_id: uuid.UUID, body: CarrierResponse, now: datetime
) -> BookingRow:
    if body.decision is CarrierDecision.ACCEPT:
        for name, value in (
            ("rejectionReason", body.rejection_reason),
            ("carrierRejectionNotes", body.carrier_rejection_notes),
        ):
            if value is not None:
                raise field_error(name, "goes with decision REJECT only")
    row = owned_booking(session, tenant_id, booking_id)
    settle_expiry(session, row, now)
    if row.status not in _OPEN:
        raise conflict(
            f"Booking {booking_id} is {row.status}; only PROCESSING or UNDER_REVIEW bookings "
            "take a carrier response",
            source="status",
        )
    method = body.response_method.value
    if body.decision is CarrierDecision.ACCEPT:
        identifiers = [i.wire() for i in body.carrier_provided_identifiers]
        keys = [k.wire() for k in body.capacity_provider_reference_keys]
        if not has_tracking_key(row, identifiers):
            accepted = key_types(row.transportation_mode)
            raise field_error(
                "carrierProvidedIdentifiers",
                "tracking needs an identifier that names the shipment; give one of "
                + ", ".join(sorted(accepted)),
            )
        moved = accept(session, row, identifiers, keys, method, now)
    else:
        moved = move(
            session,
            row.id,
            OPEN_STATUSES,
            BookingStatus.REJECTED,
            now,
            rejection_reason=body.rejection_reason.value if body.rejection_reason else None,
            carrier_rejection_notes=body.carrier_rejection_notes,
            carrier_response_method=method,
        )
    row = owned_booking(session, tenant_id, booking_id)
    if not moved:
        raise conflict(f"Booking {booking_id} is {row.status} already", source="status")
    return row


def accept(
    session: Session,
    row: BookingRow,
    identifiers: list[dict[str, Any]],
    keys: list[dict[str, Any]],
    method: str,
    now: datetime,
    version: datetime | None = None,
) -> bool:
    moved = move(
        session,
        row.id,
        OPEN_STATUSES,
        BookingStatus.BOOKED,
        now,
        version,
        carrier_provided_identifiers=identifiers,
        reference_keys=keys,
        carrier_response_method=method,
        accepted_at=now,
        response_due_at=None,
    )
    if moved:
        session.refresh(row)
        row.master_shipment_id = initiate_tracking(session, row)
        session.flush()
    return moved


__all__ = [
    "LOOP",
    "accept",
    "cancel_booking",
    "cancel_for_rate_request",
    "carrier_response",
    "create_booking",
    "list_bookings",
    "move",
    "owned_booking",
    "rowcount",
    "settle_expiry",
    "update_booking",
    "view",
]
