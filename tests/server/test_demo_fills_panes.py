"""A fresh demo fills every pane: rate requests with quotes, bookings in every status,
packages, rail legs of the demo's intermodal moves (the seeding's COMMERCE step)."""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from freightdesk.models.booking import BookingStatus
from freightdesk.models.common import TransportationMode as Mode
from freightdesk.models.packaging import PackageStatus
from freightdesk.server.context import ServiceContext
from freightdesk.server.db import transaction
from freightdesk.server.demo import commerce, partners
from freightdesk.server.demo.portfolio import COUNTS, plan_shipments
from freightdesk.server.demo.progress import (
    DEMO_SHIPMENTS,
    DemoState,
    Stage,
    begin_demo,
    demo_status,
)
from freightdesk.server.demo.seed import continue_demo
from freightdesk.server.domain.booking_carriers import effective_status
from freightdesk.server.domain.tenants import ensure_tenant
from freightdesk.server.tables.booking import BookingRow, CarrierProfileRow
from freightdesk.server.tables.demo import DemoSeeding
from freightdesk.server.tables.packaging import PackageRow
from freightdesk.server.tables.rail import RailLegRow
from freightdesk.server.tables.rating import RateQuoteRow, RateRequestRow
from freightdesk.server.tables.tracking import Shipment
from tests.server.test_demo_cli import CREDENTIALS, _token, follow_preparation, serve
from tests.support import running_service

BOOKINGS = "/services/booking/v1/bookings"
RATE_REQUESTS = "/services/rating/v1/rate-requests"
PACKAGES = "/services/booking/v1/packaging"
RAIL = "/api/v4/rail/shipments"
DEALS = 10  # commerce._DEALS: every rate request of the demo


def test_the_status_counts_the_shipments_of_the_accepted_bookings() -> None:
    shared = partners.SHARED_WITH_DEMO
    assert sum(COUNTS.values()) + commerce.BOOKED_SHIPMENTS + shared == DEMO_SHIPMENTS


def test_a_fresh_serve_demo_lists_quotes_bookings_of_every_status_packages_and_rail() -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="fd-demo-panes-"))
    try:
        with serve(data_dir) as served:
            found = CREDENTIALS.search("".join(served.printed))
            assert found is not None
            bearer = {"Authorization": f"Bearer {_token(served.url, *found.groups())}"}
            seen = follow_preparation(served)
            assert seen[-1]["state"] == "ready"
            with httpx.Client(base_url=served.url, headers=bearer, timeout=30) as http:
                _check_panes(http, seen[-1]["shipmentsTotal"], _rail_identifiers(data_dir))
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def _check_panes(http: httpx.Client, total: int, waybills: list[str]) -> None:
    listed = http.get(BOOKINGS, params={"pageSize": 100})
    assert listed.status_code == 200, listed.text
    bookings = listed.json()["results"]
    assert {b["status"] for b in bookings} == {s.value for s in BookingStatus}
    # Each booking's rate request, with the carriers' quotes.
    for booking in bookings:
        request = http.get(f"{RATE_REQUESTS}/{booking['shipmentId']}")
        assert request.status_code == 200, request.text
        assert request.json()["quotes"], request.json()["name"]
    # Those awaiting their carrier expire in the future (they had no expiry: the Bookings
    # pane's Expires column was empty).
    waiting = [b for b in bookings if b["status"] in ("PROCESSING", "UNDER_REVIEW")]
    assert len(waiting) == 2
    for booking in waiting:
        expires = datetime.fromisoformat(booking["expirationDateTime"])
        assert datetime.now(UTC) < expires < datetime.now(UTC) + commerce.OFFER_STANDS
    statuses = Counter(b["status"] for b in bookings)
    assert statuses[BookingStatus.BOOKED.value] == commerce.BOOKED_SHIPMENTS
    # The accepted bookings track their shipments: the list has them besides the demo's own,
    # as many as the progress counted.
    search = http.post("/api/v4/shipments/search", params={"pageSize": 1}, json={})
    assert search.json()["paginationInfo"]["total"] == total == DEMO_SHIPMENTS
    for booking in bookings:
        if booking["status"] == BookingStatus.BOOKED.value:
            shipment = http.get(f"/api/v4/shipments/{booking['masterShipmentId']}/attributes")
            assert shipment.status_code == 200, shipment.text
            assert "CARRIER_LOAD_NUMBER" in shipment.text  # the carrier's reference key
    packages = http.get(PACKAGES, params={"pageSize": 100})
    assert packages.status_code == 200, packages.text
    assert {p["status"] for p in packages.json()["results"]} == {s.value for s in PackageStatus}
    assert packages.json()["paginationInfo"]["total"] == commerce.PACKAGES
    # The rail legs: found by the waybill of a demo shipment, linked to it, moving.
    assert len(waybills) == commerce.RAIL_LEGS
    for waybill in waybills:
        leg = http.get(
            f"{RAIL}/statuses",
            params={"shipmentIdentifier.type": "WAYBILL", "shipmentIdentifier.value": waybill},
        )
        assert leg.status_code == 200, leg.text
        master = leg.json()["shipment"]["masterShipmentId"]
        found = http.post(
            "/api/v4/shipments/search",
            json={"identifierType": "WAYBILL", "identifierValue": waybill},
        )
        assert [s["id"] for s in found.json()["results"]] == [master]
        assert leg.json()["equipmentStatuses"], waybill


def _rail_identifiers(data_dir: Path) -> list[str]:
    """The waybills of the demo's shipments that have rail legs."""
    from freightdesk.server.db import make_engine
    from freightdesk.server.settings import sqlite_url

    engine = make_engine(sqlite_url(data_dir / "freightdesk.sqlite3"))
    try:
        with engine.connect() as connection:
            seed, anchor = connection.execute(select(DemoSeeding.seed, DemoSeeding.anchor)).one()
            masters = set(connection.execute(select(RailLegRow.master_shipment_id)).scalars())
            primaries = set(
                connection.execute(
                    select(Shipment.primary_identifier).where(Shipment.id.in_(masters))
                ).scalars()
            )
    finally:
        engine.dispose()
    return [
        dict(plan.identifiers)["WAYBILL"]
        for plan in plan_shipments(seed, anchor)
        if plan.mode is Mode.RAIL and plan.identifiers[0][1] in primaries
    ]


class _StopAt(threading.Event):
    """Set once the demo's progress has reached `stage`: the seeding stops there, as a
    service stopped between two steps does."""

    def __init__(self, context: ServiceContext, stage: Stage) -> None:
        super().__init__()
        self._context, self._stage = context, stage

    def is_set(self) -> bool:
        with self._context.sessions() as session:
            return session.scalar(select(DemoSeeding.stage)) == self._stage.value


def _counts(context: ServiceContext) -> dict[str, int]:
    with context.sessions() as session:
        return {
            table.__name__: int(session.scalar(select(func.count()).select_from(table)) or 0)
            for table in (
                RateRequestRow,
                RateQuoteRow,
                BookingRow,
                PackageRow,
                RailLegRow,
                CarrierProfileRow,
                Shipment,
            )
        }


def test_a_seeding_killed_in_the_commercial_step_finishes_it_once() -> None:
    with running_service() as service:
        context = service.context
        assert begin_demo(context, seed=7) is not None
        assert not continue_demo(context, _StopAt(context, Stage.COMMERCE))
        status = demo_status(context)
        assert status.state is DemoState.PREPARING
        assert status.shipments_ready == sum(COUNTS.values()) < status.shipments_total
        # Killed half way through the step: its transaction never commits.
        with context.sessions() as session, session.begin():
            tenant_id, anchor = session.execute(
                select(DemoSeeding.tenant_id, DemoSeeding.anchor)
            ).one()
        with pytest.raises(RuntimeError), transaction(context.sessions) as session:
            commerce.fill(session, tenant_id, 7, anchor, plan_shipments(7, anchor))
            raise RuntimeError("killed")
        assert _counts(context)["RateRequestRow"] == 0
        assert continue_demo(context)
        counts = _counts(context)
        assert continue_demo(context)  # nothing left: nothing written again
        assert _counts(context) == counts
        assert counts["RateRequestRow"] == DEALS and counts["RateQuoteRow"] > DEALS
        assert counts["BookingRow"] == len(BookingStatus) + 1  # two accepted
        assert counts["PackageRow"] == commerce.PACKAGES
        assert counts["RailLegRow"] == commerce.RAIL_LEGS
        assert counts["CarrierProfileRow"] == 1
        assert counts["Shipment"] == DEMO_SHIPMENTS
        status = demo_status(context)
        assert (status.state, status.shipments_ready) == (DemoState.READY, DEMO_SHIPMENTS)


def _what_was_made(session: Session, tenant_id: int, now: datetime) -> dict[str, Any]:
    """What the seed made for `tenant_id`, as of `now`: the service's carrier worker expires
    an open booking some while after its expiry, so its stored status depends on when the
    worker last ran; its status as of one moment does not."""
    requests = session.scalars(
        select(RateRequestRow)
        .where(RateRequestRow.tenant_id == tenant_id)
        .order_by(RateRequestRow.created_at)
    ).all()
    quotes = session.execute(
        select(RateQuoteRow.scac, RateQuoteRow.quote_type, RateQuoteRow.total_usd)
        .where(RateQuoteRow.tenant_id == tenant_id)
        .order_by(RateQuoteRow.scac, RateQuoteRow.quote_type, RateQuoteRow.total_usd)
    ).all()
    bookings = session.scalars(
        select(BookingRow).where(BookingRow.tenant_id == tenant_id).order_by(BookingRow.created_at)
    ).all()
    packages = session.scalars(
        select(PackageRow.body).where(PackageRow.tenant_id == tenant_id)
    ).all()
    legs = session.execute(
        select(RailLegRow.equipment_value, RailLegRow.tracking_start)
        .where(RailLegRow.tenant_id == tenant_id)
        .order_by(RailLegRow.equipment_value)
    ).all()
    return {
        "requests": [(r.name, r.status, r.mode, r.plan["miles"]) for r in requests],
        "quotes": [tuple(q) for q in quotes],
        "bookings": [(effective_status(b, now), b.scac, b.created_at) for b in bookings],
        "packages": sorted(str(p) for p in packages),
        "legs": [tuple(leg) for leg in legs],
    }


def test_the_same_seed_makes_the_same_commercial_data() -> None:
    anchor = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    plans = plan_shipments(7, anchor)
    with running_service() as service:
        context = service.context
        tenants = []
        for name in ("first", "second"):
            with transaction(context.sessions) as session:
                tenant_id = ensure_tenant(session, name, f"admin-{name}", "secret").tenant.id
                commerce.fill(session, tenant_id, 7, anchor, plans)
            tenants.append(tenant_id)
        # Both read as of one moment: the service's workers run meanwhile.
        now = datetime.now(UTC)
        with transaction(context.sessions) as session:
            made = [_what_was_made(session, tenant_id, now) for tenant_id in tenants]
        assert made[0] == made[1]
        assert made[0]["bookings"] and made[0]["packages"] and made[0]["legs"]
        # Another seed, other lanes.
        with transaction(context.sessions) as session:
            tenant_id = ensure_tenant(session, "third", "admin-third", "secret").tenant.id
            commerce.fill(session, tenant_id, 8, anchor, plans)
            third = _what_was_made(session, tenant_id, now)
        assert third["requests"] != made[0]["requests"]
