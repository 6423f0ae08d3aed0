"""Ocean point-to-point schedules: the live carriers and the sailings between two ports."""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated

from fastapi import APIRouter, Query

from freightdesk.models.common import PageNumber, PaginationInfo
from freightdesk.models.schedule_rules import (
    Problems,
    any_window_problems,
    ports_problems,
    scac_problems,
    window_problems,
)
from freightdesk.models.schedules import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    MAX_TRANSSHIPMENTS,
    OceanCarriers,
    PointToPointRoutes,
    ScheduleSort,
)
from freightdesk.server.auth import PrincipalDep
from freightdesk.server.db import utcnow
from freightdesk.server.domain import sailings
from freightdesk.server.domain import schedules as domain
from freightdesk.server.domain.ports import PORTS
from freightdesk.server.errors import field_error, field_errors
from freightdesk.server.openapi import ERRORS

router = APIRouter(prefix="/services/advanced-sailing-schedules/v1", tags=["Sailing schedules"])

_LOCODE = re.compile(r"^[A-Z]{2}[A-Z2-9]{3}$")


@router.get("/carriers", responses=ERRORS, response_model_exclude_none=True)
def list_carriers(principal: PrincipalDep) -> OceanCarriers:
    return OceanCarriers(carriers=domain.live_carriers())


def _port(name: str, value: str | None) -> str:
    if value is None or not value.strip():
        raise field_error(name, "is required: the UN/LOCODE of a port, for example NLRTM")
    code = value.strip().upper()
    if not _LOCODE.match(code):
        raise field_error(
            name, f"{value!r} is not a UN/LOCODE: two letters of country and three of place"
        )
    if code not in PORTS:
        raise field_error(name, f"{code} is not a port that any live carrier calls at")
    return code


def _window(
    start_name: str, start: date | None, end_name: str, end: date | None
) -> tuple[date, date] | None:
    _refuse(window_problems(start_name, start, end_name, end, utcnow().date()))
    return (start, end) if start is not None and end is not None else None


def _refuse(problems: Problems) -> None:
    """400 naming the first problem (the rules list them all, for the app's form)."""
    if problems:
        raise field_error(*problems[0])


def _carriers(value: str | None) -> list[str] | None:
    if value is None:
        return None
    codes = [part.strip().upper() for part in value.split(",") if part.strip()]
    if not codes:
        raise field_error("carrierCodes", "name at least one SCAC, for example HOCS,AZMS")
    _refuse(scac_problems(codes))
    live = domain.carrier_names()
    for code in codes:
        if code not in live:
            raise field_error(
                "carrierCodes",
                f"{code} is not a live carrier; live carriers are {', '.join(sorted(live))}",
            )
    return codes


@router.get("/point-to-point-routes", responses=ERRORS, response_model_exclude_none=True)
def point_to_point_routes(
    principal: PrincipalDep,
    origin: Annotated[str | None, Query(max_length=20)] = None,
    destination: Annotated[str | None, Query(max_length=20)] = None,
    departure_start: Annotated[date | None, Query(alias="departureStartDate")] = None,
    departure_end: Annotated[date | None, Query(alias="departureEndDate")] = None,
    arrival_start: Annotated[date | None, Query(alias="arrivalStartDate")] = None,
    arrival_end: Annotated[date | None, Query(alias="arrivalEndDate")] = None,
    carrier_codes: Annotated[
        str | None,
        Query(
            alias="carrierCodes",
            max_length=500,
            description="One comma-separated string of SCACs; a repeated parameter keeps "
            "only its last value",
        ),
    ] = None,
    transshipments_max: Annotated[
        int | None, Query(alias="transshipmentsMax", ge=0, le=MAX_TRANSSHIPMENTS)
    ] = None,
    sort: ScheduleSort = ScheduleSort.DEPARTURE_DATE_TIME,
    page_number: Annotated[PageNumber, Query(alias="pageNumber")] = 1,
    page_size: Annotated[int, Query(alias="pageSize", ge=1, le=MAX_PAGE_SIZE)] = (
        DEFAULT_PAGE_SIZE
    ),
) -> PointToPointRoutes:
    origin_code = _port("origin", origin)
    destination_code = _port("destination", destination)
    _refuse(ports_problems(origin_code, destination_code))
    departure = _window("departureStartDate", departure_start, "departureEndDate", departure_end)
    arrival = _window("arrivalStartDate", arrival_start, "arrivalEndDate", arrival_end)
    no_window = any_window_problems(departure, arrival)
    if no_window:
        raise field_errors(no_window)
    carriers = _carriers(carrier_codes)
    found = sailings.sailings(
        origin_code,
        destination_code,
        departure=sailings.local_window(PORTS[origin_code], *departure) if departure else None,
        arrival=sailings.local_window(PORTS[destination_code], *arrival) if arrival else None,
        carriers=carriers,
        transshipments_max=transshipments_max,
        now=utcnow(),
    )
    sailings.sort_sailings(found, sort)
    start = (page_number - 1) * page_size
    return PointToPointRoutes(
        pagination_info=PaginationInfo(
            page_number=page_number, page_size=page_size, total=len(found)
        ),
        results=[sailings.route_view(s) for s in found[start : start + page_size]],
    )
