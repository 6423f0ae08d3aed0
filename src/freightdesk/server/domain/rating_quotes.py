"""Rate requests: checking and planning a request, the carriers' quotes, cancellation.

A new request is checked, its lane and freight worked out once (the `plan`), market quotes
priced at once, and one solicitation written per carrier, due after that carrier's quote delay.
The worker answers due solicitations with quotes from the rate engine; when every carrier has
answered the request moves from QUOTES_REQUESTED to QUOTES_RECEIVED. A request whose
expirationDateTime passes before it is cancelled becomes EXPIRED (as soon as it passes for
readers, who see the status computed at read time; in the table when a late carrier's answer
finds it expired) and takes no more quotes.

Locking: every writer of a request's quotes or status locks the request row first (a write on
SQLite, where the first write takes the database lock; FOR UPDATE on PostgreSQL), so a
cancellation and a carrier's quote never interleave.
"""

from __future__ import annotations

import itertools
import logging
import uuid
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from freightdesk.models.addresses import country_code, subdivision_code
from freightdesk.models.booking import CarrierMode
from freightdesk.models.common import Address
from freightdesk.models.rating import (
    MAX_CARRIERS,
    AccountGroupRef,
    LtlAccountGroup,
    QuoteType,
    QuoteTypeFilter,
    RateDetail,
    RateRequestCancellation,
    RateRequestCreate,
    RateRequestStatus,
    RateRouteSegment,
    RatingMode,
)
from freightdesk.models.rating_rules import (
    Problems,
    accessorial_problems,
    date_problem,
    future_problem,
    ltl_problems,
    mode_problems,
    region_problems,
    stop_type_problems,
)
from freightdesk.server.context import ServiceContext
from freightdesk.server.db import iso, transaction, utcnow, wake_on_commit
from freightdesk.server.domain import booking_carriers, carrier_profiles, places
from freightdesk.server.domain import rate_engine as engine
from freightdesk.server.domain.account_groups import group_code
from freightdesk.server.domain.quote_pricing import market_quotes, price_quote
from freightdesk.server.errors import ApiError, field_error, not_found
from freightdesk.server.tables.rating import RateQuoteRow, RateRequestRow, RateSolicitationRow
from freightdesk.server.tables.tenancy import Tenant

log = logging.getLogger(__name__)

LOOP = "rating-quotes"
CANCELLATION_FEATURE = "rateRequestCancellation"
# On unless the tenant switched it off: cancelling is what a shipper expects to be able to do.
CANCELLATION_DEFAULT = True
DEFAULT_VALIDITY = timedelta(hours=72)
OPEN_STATUSES = (RateRequestStatus.QUOTES_REQUESTED, RateRequestStatus.QUOTES_RECEIVED)
BATCH_WINDOW = timedelta(milliseconds=25)


# --- creation ------------------------------------------------------------------------------


def create_rate_request(
    session: Session, tenant_id: int, body: RateRequestCreate, now: datetime
) -> RateRequestRow:
    """Check, plan and store a new rate request with one solicitation per carrier."""
    expires = now + DEFAULT_VALIDITY
    if body.expiration_date_time is not None:
        problem = future_problem(body.expiration_date_time, now)
        if problem is not None:
            raise field_error("expirationDateTime", problem)
        expires = body.expiration_date_time
    detail = body.rate_detail
    mode = _mode(detail)
    plan = _plan(detail, mode, now)
    quote_filter = body.quote_type_filter or QuoteTypeFilter.ALL
    plan["quoteTypes"] = _quote_types(quote_filter)
    scacs = _carriers(session, tenant_id, body, mode)
    profiles = carrier_profiles.resolve(session, tenant_id, scacs)

    row = RateRequestRow(
        id=str(uuid.uuid4()),
        tenant_id=tenant_id,
        name=body.name,
        status=RateRequestStatus.QUOTES_REQUESTED.value,
        mode=mode.value,
        quote_type_filter=quote_filter.value,
        expires_at=expires.astimezone(UTC),
        document=body.model_dump(mode="json", by_alias=True, exclude_none=True),
        plan=plan,
        market_quotes=market_quotes(plan, now),
        created_at=now,
        updated_at=now,
    )
    session.add(row)
    session.flush()
    session.add_all(
        RateSolicitationRow(
            rate_request_id=row.id,
            tenant_id=tenant_id,
            scac=scac,
            due_at=now + timedelta(seconds=profiles[scac].quote_delay_seconds),
            pending=True,
        )
        for scac in scacs
    )
    if not scacs:
        row.status = RateRequestStatus.QUOTES_RECEIVED.value
    wake_on_commit(session, LOOP)  # the solicitations fall due: the worker's next look
    return row


def _mode(detail: RateDetail) -> RatingMode:
    shipping = detail.shipping_details
    _refuse(mode_problems(shipping))
    if shipping is not None and shipping.ltl is not None:
        return RatingMode.LTL
    return RatingMode.TL


def _refuse(problems: Problems) -> None:
    """400 naming the first problem (the rules list them all, for the app's forms)."""
    if problems:
        raise field_error(*problems[0])


def _quote_types(quote_filter: QuoteTypeFilter) -> list[str]:
    if quote_filter is QuoteTypeFilter.ALL:
        return [QuoteType.CONTRACT.value, QuoteType.SPOT.value]
    return [quote_filter.value]


def _plan(detail: RateDetail, mode: RatingMode, now: datetime) -> dict[str, Any]:
    """What every carrier prices: route miles, lane, week, freight. Fills in missing ids."""
    route = detail.route_info
    base = "rateDetail.routeInfo"
    for stop in route.stops:
        if stop.id is None:
            stop.id = uuid.uuid4()
    ids = [stop.id for stop in route.stops]
    stop_ids = [stop_id for stop_id in ids if stop_id is not None]
    for index, stop_id in enumerate(ids):
        if ids.index(stop_id) != index:
            raise field_error(f"{base}.stops[{index}].id", "another stop has the same id")
    _refuse(stop_type_problems(route.stops))
    places = [_place_of(stop, f"{base}.stops[{i}].location") for i, stop in enumerate(route.stops)]
    by_id = dict(zip(ids, places, strict=True))
    position = {stop_id: index for index, stop_id in enumerate(ids)}
    if route.route_segments:
        legs = []
        for index, segment in enumerate(route.route_segments):
            path = f"{base}.routeSegments[{index}]"
            for name, stop_id in (
                ("fromStopId", segment.from_stop_id),
                ("toStopId", segment.to_stop_id),
            ):
                if stop_id not in by_id:
                    raise field_error(f"{path}.{name}", "names no stop of routeInfo.stops")
            if segment.from_stop_id == segment.to_stop_id:
                raise field_error(f"{path}.toStopId", "a segment joins two different stops")
            if segment.id is None:
                segment.id = uuid.uuid4()
            legs.append((position[segment.from_stop_id], position[segment.to_stop_id]))
    else:
        # Generated, so that a booking can name the segments it books (routeSegmentIds).
        route.route_segments = [
            RateRouteSegment(id=uuid.uuid4(), from_stop_id=a, to_stop_id=b)
            for a, b in itertools.pairwise(stop_ids)
        ]
        legs = list(itertools.pairwise(range(len(ids))))
    _check_road(route.stops, places, legs)
    _check_details(detail, set(stop_ids))

    pickup = detail.pickup_date or now.date()
    problem = date_problem(pickup, now.date())
    if problem is not None:
        raise field_error("rateDetail.pickupDate", problem)
    year, week, _ = pickup.isocalendar()
    accessorials = _accessorials(detail, mode)
    plan: dict[str, Any] = {
        "mode": mode.value,
        "miles": engine.route_miles((places[a], places[b]) for a, b in legs),
        "lane": f"{_lane_end(places[0])}>{_lane_end(places[-1])}",
        "week": f"{year}-W{week:02d}",
        "pickupDate": pickup.isoformat(),
        "accessorials": accessorials,
    }
    if mode is RatingMode.LTL:
        plan["pieces"] = _ltl_pieces(detail)
    else:
        plan.update(_truckload(detail, extra_stops=len(route.stops) - 2))
    return plan


def _check_road(stops: list[Any], places: list[engine.Place], legs: list[tuple[int, int]]) -> None:
    """A truck (truckload or LTL) cannot cross an ocean: 400 naming the country of the stop
    it cannot reach."""
    for a, b in legs:
        gap = engine.road_gap(places[a], places[b])
        if gap is not None:
            location = stops[b].location
            name = location.name or (location.address.city if location.address else None)
            raise field_error(
                f"rateDetail.routeInfo.stops[{b}].location.address.country",
                f"{name or 'this stop'} ({places[b].country}) cannot be reached by road from "
                f"{places[a].country}: {gap}",
            )


def _place_of(stop: Any, path: str) -> engine.Place:
    location = stop.location
    coordinates = None
    if location.coordinates is not None:
        coordinates = (location.coordinates.latitude, location.coordinates.longitude)
    return locate(location.address, coordinates, path)


def locate(
    address: Address | None, coordinates: tuple[float, float] | None, path: str
) -> engine.Place:
    """Where a stop is: its coordinates, else its city or postal code (the offline geocoder),
    else the centre of its state or province. 400 naming `path` when none of these places it."""
    _refuse(region_problems(address, path))
    country = state = postal = None
    if address is not None:
        country = country_code(address.country)
        assert country is not None  # region_problems refused an unknown one
        if address.state:
            state = subdivision_code(country, address.state)
        postal = address.postal_code
        if coordinates is None and (address.city or postal):
            try:
                found = places.geocode(
                    country=country, state=state, city=address.city, postal_code=postal
                ).place
                coordinates = (found.latitude, found.longitude)
                state = state or found.state
            except places.NotLocated:
                pass
    place = engine.place(country, state, postal, coordinates)
    if place is None:
        raise field_error(
            path,
            "cannot be placed: give coordinates, or an address with a known city or postal "
            "code, or its state or province (US, CA, MX)",
        )
    return place


def _lane_end(place: engine.Place) -> str:
    return place.region or f"{place.latitude:.1f},{place.longitude:.1f}"


def _check_details(detail: RateDetail, stop_ids: set[uuid.UUID]) -> None:
    for index, shipment in enumerate(detail.shipment_details):
        path = f"rateDetail.shipmentDetails[{index}]"
        for name, stop_id in (
            ("pickupStopId", shipment.pickup_stop_id),
            ("deliveryStopId", shipment.delivery_stop_id),
        ):
            if stop_id is not None and stop_id not in stop_ids:
                raise field_error(f"{path}.{name}", "names no stop of rateDetail.routeInfo.stops")


def _accessorials(detail: RateDetail, mode: RatingMode) -> list[str]:
    shipping = detail.shipping_details
    if shipping is None:
        return []
    _refuse(accessorial_problems(shipping))
    return sorted({accessorial.code for accessorial in shipping.accessorials})


def _handling_units(detail: RateDetail) -> list[tuple[str, Any]]:
    return [
        (f"rateDetail.shipmentDetails[{i}].handlingUnits[{j}]", unit)
        for i, shipment in enumerate(detail.shipment_details)
        for j, unit in enumerate(shipment.handling_units)
    ]


def _ltl_pieces(detail: RateDetail) -> list[list[Any]]:
    _refuse(ltl_problems(detail))
    pieces: list[list[Any]] = []
    for _path, unit in _handling_units(detail):
        assert unit.weight is not None  # ltl_problems refused a unit without one
        weight = engine.pounds(unit.weight.value, unit.weight.unit.value) * unit.quantity
        freight_class = unit.freight_class
        if freight_class is None:
            dims = unit.dimensions
            assert dims is not None  # ltl_problems refused a unit without class or dimensions
            size = [
                engine.inches(v, dims.unit.value) for v in (dims.length, dims.width, dims.height)
            ]
            freight_class = engine.density_class(weight / unit.quantity, *size)
        pieces.append([round(weight, 2), freight_class])
    return pieces


def _truckload(detail: RateDetail, *, extra_stops: int) -> dict[str, Any]:
    shipping = detail.shipping_details
    truck = shipping.truck if shipping is not None else None
    length = None
    if truck is not None and truck.trailer_length is not None:
        length = round(engine.feet(truck.trailer_length.value, truck.trailer_length.unit.value), 2)
    weight = sum(
        engine.pounds(unit.weight.value, unit.weight.unit.value) * unit.quantity
        for _path, unit in _handling_units(detail)
        if unit.weight is not None
    )
    return {
        "trailerType": truck.trailer_type.value if truck else "DRY_VAN",
        "partial": bool(truck and truck.load_preference.value == "PARTIAL"),
        "trailerLengthFt": length,
        "weightLb": round(weight, 2),
        "extraStops": max(0, extra_stops),
    }


def _carriers(
    session: Session, tenant_id: int, body: RateRequestCreate, mode: RatingMode
) -> list[str]:
    """The carriers asked: those named, those of the named account groups, else all connected."""
    named = [carrier_profiles.normalize_scac(c.value) for c in body.capacity_provider_identifiers]
    groups: list[tuple[str, AccountGroupRef | LtlAccountGroup]] = [
        (f"capacityProviderAccountGroups[{i}].code", g)
        for i, g in enumerate(body.capacity_provider_account_groups)
    ]
    shipping = body.rate_detail.shipping_details
    ltl_group = shipping.ltl.capacity_provider_account_group if shipping and shipping.ltl else None
    ltl_path = "rateDetail.shippingDetails.ltl.capacityProviderAccountGroup"
    if ltl_group is not None:
        if ltl_group.code is not None:
            groups.append((f"{ltl_path}.code", ltl_group))
        for index, account in enumerate(ltl_group.accounts):
            scac = carrier_profiles.normalize_scac(account.code)
            if not scac.isalpha() or not 2 <= len(scac) <= 4:
                raise field_error(f"{ltl_path}.accounts[{index}].code", "must be a carrier's SCAC")
            named.append(scac)
    for path, group in groups:
        assert group.code is not None
        code = group_code(session, tenant_id, group.code)
        if code is None:
            raise field_error(
                path, f"there is no capacity provider account group with code {group.code!r}"
            )
        group.code = code  # the request is kept, and answered, with the group's spelling
        members = carrier_profiles.group_members(session, tenant_id, code)
        if not members:
            raise field_error(
                path,
                f"account group {code!r} has no carriers; add its code to a carrier profile's "
                "accountGroupCodes",
            )
        named.extend(members)
    if not named:
        wanted = CarrierMode(mode.value)
        named = [
            p.scac for p in carrier_profiles.connected(session, tenant_id) if wanted in p.modes
        ]
    unique = list(dict.fromkeys(named))
    if len(unique) > MAX_CARRIERS:
        raise field_error(
            "capacityProviderIdentifiers",
            f"at most {MAX_CARRIERS} carriers per request, account groups included "
            f"(this one asks {len(unique)})",
        )
    return unique


# --- pricing -------------------------------------------------------------------------------


# --- reads ---------------------------------------------------------------------------------


def effective_status(row: RateRequestRow, now: datetime) -> RateRequestStatus:
    status = RateRequestStatus(row.status)
    if status in OPEN_STATUSES and row.expires_at <= now:
        return RateRequestStatus.EXPIRED
    return status


def owned_request(session: Session, tenant_id: int, request_id: uuid.UUID | str) -> RateRequestRow:
    row = session.get(RateRequestRow, str(request_id))
    if row is None or row.tenant_id != tenant_id:
        raise not_found(f"Rate request {request_id}")
    return row


def view(session: Session, row: RateRequestRow, now: datetime) -> dict[str, Any]:
    """The rate request in wire form, ready to send.

    Built from the stored wire documents without a round through the models: polling a
    request with many quotes is the hot path of rating. The tests check it against
    `RateRequest` with unknown fields forbidden.
    """
    quotes = session.scalars(
        select(RateQuoteRow.document)
        .where(RateQuoteRow.rate_request_id == row.id)
        .order_by(RateQuoteRow.total_usd, RateQuoteRow.quote_number)
    ).all()
    return {
        "id": row.id,
        **row.document,
        "expirationDateTime": iso(row.expires_at),
        "quoteTypeFilter": row.quote_type_filter,
        "quotes": list(quotes),
        "marketQuotes": row.market_quotes,
        "status": effective_status(row, now).value,
        "ratingSourceMethod": "API",
        "createdDateTime": iso(row.created_at),
        "lastModifiedDateTime": iso(row.updated_at),
    }


def list_requests(
    session: Session, tenant_id: int, page_number: int, page_size: int, now: datetime
) -> dict[str, Any]:
    """A page of the tenant's rate requests, newest first (an extension), in wire form."""
    mine = RateRequestRow.tenant_id == tenant_id
    total = session.scalar(select(func.count()).select_from(RateRequestRow).where(mine)) or 0
    rows = session.scalars(
        select(RateRequestRow)
        .where(mine)
        .order_by(RateRequestRow.created_at.desc(), RateRequestRow.id)
        .offset((page_number - 1) * page_size)
        .limit(page_size)
    )
    page = {"pageNumber": page_number, "pageSize": page_size, "total": total}
    return {"paginationInfo": page, "results": [view(session, row, now) for row in rows]}


# --- cancellation --------------------------------------------------------------------------


def cancellation_enabled(tenant: Tenant) -> bool:
    return bool((tenant.features or {}).get(CANCELLATION_FEATURE, CANCELLATION_DEFAULT))


def cancel_rate_request(
    session: Session, tenant_id: int, request_id: uuid.UUID, now: datetime
) -> RateRequestCancellation:
    """Cancel a request and its booking in progress; 409 if a carrier accepted a booking."""
    tenant = session.get(Tenant, tenant_id)
    if tenant is None or not cancellation_enabled(tenant):
        raise ApiError(
            403,
            "Rate request cancellation is not enabled for this tenant; ask an administrator "
            f"to switch on the {CANCELLATION_FEATURE} feature",
        )
    key = str(request_id)
    # The status write comes first: it takes the row (PostgreSQL) or database (SQLite) lock.
    changed = booking_carriers.rowcount(
        session.execute(
            update(RateRequestRow)
            .where(
                RateRequestRow.id == key,
                RateRequestRow.tenant_id == tenant_id,
                RateRequestRow.status != RateRequestStatus.CANCELLED.value,
            )
            .values(status=RateRequestStatus.CANCELLED.value, updated_at=now)
        )
    )
    row = owned_request(session, tenant_id, key)
    if not changed:
        # Already cancelled: answer what the first cancellation answered.
        return _cancellation(row)
    booking_id = booking_carriers.cancel_for_rate_request(session, tenant_id, key, now)
    row.cancelled_booking_id = booking_id
    session.execute(
        update(RateSolicitationRow)
        .where(RateSolicitationRow.rate_request_id == key, RateSolicitationRow.pending.is_(True))
        .values(pending=False, outcome="WITHDRAWN", answered_at=now)
    )
    session.flush()
    return _cancellation(row)


def _cancellation(row: RateRequestRow) -> RateRequestCancellation:
    return RateRequestCancellation(
        rate_request_id=uuid.UUID(row.id),
        booking_id=uuid.UUID(row.cancelled_booking_id) if row.cancelled_booking_id else None,
    )


# --- the carriers' answers (background) ----------------------------------------------------


def answer_due_quotes(context: ServiceContext) -> None:
    """Answer every solicitation due now (for the loop of `carrier_answers`).

    Solicitations due within BATCH_WINDOW are answered together: a few milliseconds early
    costs nothing and saves the loop a round per carrier.
    """
    now = utcnow()
    with context.sessions() as session:
        due = session.execute(
            select(RateSolicitationRow.id, RateSolicitationRow.rate_request_id)
            .where(
                RateSolicitationRow.pending.is_(True),
                RateSolicitationRow.due_at <= now + BATCH_WINDOW,
            )
            .order_by(RateSolicitationRow.due_at)
            .limit(1000)
        ).all()
    by_request: dict[str, list[int]] = defaultdict(list)
    for solicitation_id, request_id in due:
        by_request[request_id].append(solicitation_id)
    for request_id, ids in by_request.items():
        try:
            with transaction(context.sessions) as session:
                answer_solicitations(session, request_id, ids, now)
        except Exception:
            log.exception("quotes for rate request %s failed", request_id)
            with transaction(context.sessions) as session:
                _settle(session, ids, "FAILED", now)


def _settle(session: Session, ids: list[int], outcome: str, now: datetime) -> None:
    session.execute(
        update(RateSolicitationRow)
        .where(RateSolicitationRow.id.in_(ids), RateSolicitationRow.pending.is_(True))
        .values(pending=False, outcome=outcome, answered_at=now)
    )


def answer_solicitations(session: Session, request_id: str, ids: list[int], now: datetime) -> None:
    # Lock order: the request row, then its solicitations (as cancellation does).
    session.execute(
        select(RateRequestRow.id).where(RateRequestRow.id == request_id).with_for_update()
    )
    claimed = session.execute(
        update(RateSolicitationRow)
        .where(RateSolicitationRow.id.in_(ids), RateSolicitationRow.pending.is_(True))
        .values(pending=False, answered_at=now)
        .returning(RateSolicitationRow.id, RateSolicitationRow.scac)
    ).all()
    request = session.execute(
        select(RateRequestRow)
        .where(RateRequestRow.id == request_id)
        .execution_options(populate_existing=True)
    ).scalar_one()
    status = effective_status(request, now)
    if status not in OPEN_STATUSES:
        _outcomes(session, {sid: "WITHDRAWN" for sid, _scac in claimed})
        if status.value != request.status:  # expired: record what readers already see
            request.status = status.value
            request.updated_at = now
        return
    profiles = carrier_profiles.resolve(session, request.tenant_id, [s for _i, s in claimed])
    wanted = CarrierMode(request.mode)
    outcomes: dict[int, str] = {}
    for solicitation_id, scac in claimed:
        profile = profiles[scac]
        if wanted not in profile.modes:
            outcomes[solicitation_id] = "NO_QUOTE"
            continue
        for quote_type in request.plan["quoteTypes"]:
            session.add(price_quote(request.plan, request, profile, quote_type, now))
        outcomes[solicitation_id] = "QUOTED"
    _outcomes(session, outcomes)
    pending = session.scalar(
        select(func.count())
        .select_from(RateSolicitationRow)
        .where(
            RateSolicitationRow.rate_request_id == request_id, RateSolicitationRow.pending.is_(True)
        )
    )
    if not pending and request.status == RateRequestStatus.QUOTES_REQUESTED.value:
        request.status = RateRequestStatus.QUOTES_RECEIVED.value
    request.updated_at = now


def _outcomes(session: Session, outcomes: dict[int, str]) -> None:
    by_outcome: dict[str, list[int]] = defaultdict(list)
    for solicitation_id, outcome in outcomes.items():
        by_outcome[outcome].append(solicitation_id)
    for outcome, ids in by_outcome.items():
        session.execute(
            update(RateSolicitationRow)
            .where(RateSolicitationRow.id.in_(ids))
            .values(outcome=outcome)
        )
