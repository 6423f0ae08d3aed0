"""Booking: list, create, read and replace bookings; cancel them and answer them as the carrier
(both extensions); configure the simulated carriers (an extension).

The carriers' own answers arrive in the background (`domain/carrier_answers.py`).
"""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import Response

from freightdesk.models.auth import TenantRole
from freightdesk.models.booking import (
    MAX_PAGE_SIZE,
    Booking,
    BookingInput,
    BookingList,
    BookingStatus,
    CarrierName,
    CarrierNameList,
    CarrierProfile,
    CarrierProfileInput,
    CarrierProfileList,
    CarrierResponse,
)
from freightdesk.models.common import PageNumber
from freightdesk.server.auth import PrincipalDep
from freightdesk.server.context import ContextDep, SessionDep
from freightdesk.server.db import transaction, utcnow
from freightdesk.server.domain import booking_carriers, carrier_profiles
from freightdesk.server.errors import ApiError, field_error, not_found
from freightdesk.server.openapi import ERRORS, EXTENSION
from freightdesk.server.strict import strict_body

router = APIRouter(tags=["Booking"])

BOOKINGS = "/services/booking/v1/bookings"
PROFILES = "/services/carriers/v1/profiles"
NAMES = "/services/carriers/v1/names"

StrictBooking = Annotated[None, Depends(strict_body(BookingInput))]
StrictResponse = Annotated[None, Depends(strict_body(CarrierResponse))]
StrictProfile = Annotated[None, Depends(strict_body(CarrierProfileInput))]
ScacPath = Annotated[str, Path(pattern=r"^[A-Za-z]{2,4}$", description="The carrier's SCAC")]


def _statuses(values: list[str]) -> list[BookingStatus]:
    """Repeated (`statuses=A&statuses=B`) or comma-separated (`statuses=A,B`) values."""
    found: list[BookingStatus] = []
    for text in (part.strip().upper() for value in values for part in value.split(",")):
        if not text:
            continue
        try:
            found.append(BookingStatus(text))
        except ValueError:
            allowed = ", ".join(s.value for s in BookingStatus)
            raise field_error(
                "statuses", f"{text!r} is not a booking status; use {allowed}"
            ) from None
    return found


@router.get(BOOKINGS, responses=ERRORS, response_model_exclude_none=True)
def list_bookings(
    principal: PrincipalDep,
    session: SessionDep,
    attribute_name: Annotated[str | None, Query(alias="attribute.name", max_length=100)] = None,
    attribute_values: Annotated[list[str], Query(alias="attribute.values")] = [],  # noqa: B006
    statuses: Annotated[list[str], Query()] = [],  # noqa: B006
    page_number: Annotated[PageNumber, Query(alias="pageNumber")] = 1,
    page_size: Annotated[int, Query(alias="pageSize", ge=1, le=MAX_PAGE_SIZE)] = 10,
) -> BookingList:
    """Newest first. `attribute.values` (repeated or comma-separated) needs `attribute.name`;
    a booking matches when its attribute of that name has any of the values."""
    values = [v.strip() for value in attribute_values for v in value.split(",") if v.strip()]
    if values and attribute_name is None:
        raise field_error("attribute.values", "goes with attribute.name")
    return booking_carriers.list_bookings(
        session,
        principal.tenant_id,
        statuses=_statuses(statuses),
        attribute_name=attribute_name,
        attribute_values=values,
        page_number=page_number,
        page_size=page_size,
        now=utcnow(),
    )


@router.post(BOOKINGS, responses=ERRORS, response_model_exclude_none=True)
def create_booking(
    body: BookingInput, _strict: StrictBooking, principal: PrincipalDep, context: ContextDep
) -> Booking:
    """A new booking starts PROCESSING; the carrier answers in the background."""
    now = utcnow()
    with transaction(context.sessions) as session:
        row = booking_carriers.create_booking(session, principal.tenant_id, body, now)
        answer = booking_carriers.view(row, now)
    return answer


@router.get(f"{BOOKINGS}/{{bookingId}}", responses=ERRORS, response_model_exclude_none=True)
def get_booking(
    booking_id: Annotated[UUID, Path(alias="bookingId")],
    principal: PrincipalDep,
    session: SessionDep,
) -> Booking:
    row = booking_carriers.owned_booking(session, principal.tenant_id, booking_id)
    return booking_carriers.view(row, utcnow())


@router.put(f"{BOOKINGS}/{{bookingId}}", responses=ERRORS, response_model_exclude_none=True)
def replace_booking(
    booking_id: Annotated[UUID, Path(alias="bookingId")],
    body: BookingInput,
    _strict: StrictBooking,
    principal: PrincipalDep,
    context: ContextDep,
) -> Booking:
    """Replace every shipper field of a PROCESSING or UNDER_REVIEW booking (409 otherwise).

    Answers the updated booking, back in PROCESSING: the carrier answers the new version.
    """
    now = utcnow()
    with transaction(context.sessions) as session:
        row = booking_carriers.update_booking(session, principal.tenant_id, booking_id, body, now)
        answer = booking_carriers.view(row, now)
    return answer


@router.post(
    f"{BOOKINGS}/{{bookingId}}/cancellations",
    responses=ERRORS,
    response_model_exclude_none=True,
    openapi_extra=EXTENSION,
)
def cancel_booking(
    booking_id: Annotated[UUID, Path(alias="bookingId")],
    principal: PrincipalDep,
    context: ContextDep,
) -> Booking:
    """Either party cancels the booking, from any state; cancelling again answers 200."""
    now = utcnow()
    with transaction(context.sessions) as session:
        row = booking_carriers.cancel_booking(session, principal.tenant_id, booking_id, now)
        return booking_carriers.view(row, now)


@router.post(
    f"{BOOKINGS}/{{bookingId}}/carrier-response",
    responses=ERRORS,
    response_model_exclude_none=True,
    openapi_extra=EXTENSION,
)
def carrier_response(
    booking_id: Annotated[UUID, Path(alias="bookingId")],
    body: CarrierResponse,
    _strict: StrictResponse,
    principal: PrincipalDep,
    context: ContextDep,
) -> Booking:
    """The carrier accepts or rejects a PROCESSING or UNDER_REVIEW booking.

    Needs `x-tenant-role: CARRIER`. ACCEPT books it and initiates tracking (give an
    identifier tracking can follow unless the booking has one); REJECT may carry
    `rejectionReason` and `carrierRejectionNotes`.
    """
    if principal.role is not TenantRole.CARRIER:
        raise ApiError(403, "Only the carrier answers a booking: send x-tenant-role: CARRIER")
    now = utcnow()
    with transaction(context.sessions) as session:
        row = booking_carriers.carrier_response(session, principal.tenant_id, booking_id, body, now)
        return booking_carriers.view(row, now)


# --- simulated carriers --------------------------------------------------------------------


@router.get(PROFILES, responses=ERRORS, response_model_exclude_none=True, openapi_extra=EXTENSION)
def list_carrier_profiles(principal: PrincipalDep, session: SessionDep) -> CarrierProfileList:
    """The built-in carriers and every carrier this tenant configured."""
    return CarrierProfileList(carriers=carrier_profiles.connected(session, principal.tenant_id))


@router.get(NAMES, responses=ERRORS, openapi_extra=EXTENSION)
def list_carrier_names(principal: PrincipalDep, session: SessionDep) -> CarrierNameList:
    """Every carrier this service knows a name of, as this tenant names it (its carrier
    profiles first), by code."""
    names = carrier_profiles.names(session, principal.tenant_id)
    return CarrierNameList(
        carriers=[CarrierName(carrier_code=c, carrier_name=n) for c, n in sorted(names.items())]
    )


@router.get(
    f"{PROFILES}/{{scac}}",
    responses=ERRORS,
    response_model_exclude_none=True,
    openapi_extra=EXTENSION,
)
def get_carrier_profile(
    scac: ScacPath, principal: PrincipalDep, session: SessionDep
) -> CarrierProfile:
    """Any SCAC has a profile: configured, built in, or derived defaults."""
    key = carrier_profiles.normalize_scac(scac)
    return carrier_profiles.resolve(session, principal.tenant_id, [key])[key]


@router.put(
    f"{PROFILES}/{{scac}}",
    responses=ERRORS,
    response_model_exclude_none=True,
    openapi_extra=EXTENSION,
)
def put_carrier_profile(
    scac: ScacPath,
    body: CarrierProfileInput,
    _strict: StrictProfile,
    principal: PrincipalDep,
    context: ContextDep,
) -> CarrierProfile:
    """Set how this carrier behaves for this tenant; fields left out keep the defaults."""
    with transaction(context.sessions) as session:
        return carrier_profiles.upsert_profile(session, principal.tenant_id, scac, body)


@router.delete(f"{PROFILES}/{{scac}}", status_code=204, responses=ERRORS, openapi_extra=EXTENSION)
def delete_carrier_profile(
    scac: ScacPath, principal: PrincipalDep, context: ContextDep
) -> Response:
    """Forget this tenant's settings for the carrier (it returns to its defaults)."""
    with transaction(context.sessions) as session:
        if not carrier_profiles.delete_profile(session, principal.tenant_id, scac):
            raise not_found(f"Carrier profile {scac.upper()}")
    return Response(status_code=204)
