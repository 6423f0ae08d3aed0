"""`seed_demo` on a real service: what a user of `freightdesk serve --demo` finds over HTTP."""

from __future__ import annotations

import itertools
import random
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select

from freightdesk.models.common import TransportationMode as Mode
from freightdesk.models.identifier_rules import (
    ACCEPTED_BY_MODE,
    CARRIER_BY_ACCOUNT,
    CARRIER_TYPES,
)
from freightdesk.models.tracking import ShipmentStateType as S
from freightdesk.server.app import build_context
from freightdesk.server.db import transaction
from freightdesk.server.demo import DEMO_TENANT_NAME, DemoCredentials, commerce, seed_demo
from freightdesk.server.demo.geography import PLACES, distance_km
from freightdesk.server.demo.itineraries import ShipmentPlan, floor_hour
from freightdesk.server.demo.lanes import SITES
from freightdesk.server.demo.partners import PARTNER_NAME, SHARED_WITH_DEMO, SHARED_WITH_PARTNER
from freightdesk.server.demo.portfolio import plan_shipments
from freightdesk.server.domain.lifecycle import can_move
from freightdesk.server.domain.tenants import ensure_tenant
from freightdesk.server.settings import ServerSettings
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.tables.tracking import Shipment
from freightdesk.server.tables.webhooks import WebhookConfigRow
from tests.server.test_demo_plans import check_pdf
from tests.support import LiveService, running_service

NOW = datetime.now(UTC)
SEARCH = "/api/v4/shipments/search"


@dataclass
class Demo:
    service: LiveService
    credentials: DemoCredentials
    http: httpx.Client
    plans: list[ShipmentPlan]
    summaries: list[dict[str, object]]


@pytest.fixture(scope="module")
def demo() -> Iterator[Demo]:
    with running_service() as service:
        credentials = seed_demo(service.context, seed=7, now=NOW)
        assert credentials is not None
        token = httpx.post(
            f"{service.url}/api/v4/oauth2/token",
            data={
                "grant_type": "client_credentials",
                "client_id": credentials.client_id,
                "client_secret": credentials.client_secret,
            },
        )
        assert token.status_code == 200
        with httpx.Client(
            base_url=service.url,
            headers={"Authorization": f"Bearer {token.json()['access_token']}"},
            timeout=60,
        ) as http:
            found = http.post(f"{SEARCH}?pageSize=500", json={})
            assert found.status_code == 200
            yield Demo(
                service,
                credentials,
                http,
                plan_shipments(7, floor_hour(NOW)),
                found.json()["results"],
            )


def test_the_client_lists_hundreds_of_shipments_of_every_mode(demo: Demo) -> None:
    summaries = demo.summaries
    # The planned shipments, those the demo's accepted bookings track, and those its partner
    # shares with it.
    assert len(summaries) == len(demo.plans) + commerce.BOOKED_SHIPMENTS + SHARED_WITH_DEMO
    assert len(summaries) >= 300
    modes = Counter(s["mode"] for s in summaries)
    assert set(modes) == {"TL", "LTL", "PARCEL", "RAIL", "OCEAN", "AIR"}
    states = Counter(s["currentState"] for s in summaries)
    assert (
        states["COMPLETED"] and states["SCHEDULED"] and states["IN_TRANSIT"] and states["AT_STOP"]
    )
    assert sum(1 for s in summaries if s.get("openExceptionCount")) >= 5
    assert any(s.get("nextEta") for s in summaries)
    # The database holds exactly what the seed plans, whatever ids the service gave.
    planned = sorted(plan.identifiers[0][1] for plan in demo.plans)
    stored = sorted(str(s["primaryIdentifier"]) for s in summaries)
    assert [identifier for identifier in stored if identifier in set(planned)] == planned


def test_a_second_run_changes_nothing(demo: Demo) -> None:
    context = demo.service.context
    with context.sessions() as session:
        before = session.scalar(select(func.count()).select_from(Shipment))
    assert seed_demo(context, seed=7, now=NOW) is None
    assert seed_demo(context, seed=8) is None
    with context.sessions() as session:
        assert session.scalar(select(func.count()).select_from(Shipment)) == before
        assert (
            session.scalar(select(func.count()).select_from(Tenant)) == 2
        )  # the demo and its partner


def test_a_database_with_a_tenant_gets_no_demo() -> None:
    directory = Path(tempfile.mkdtemp(prefix="fd-demo-"))
    settings = ServerSettings(
        data_dir=directory, database_url=f"sqlite:///{directory / 'db.sqlite3'}"
    )
    context = build_context(settings)
    try:
        with transaction(context.sessions) as session:
            ensure_tenant(session, "Acme", "admin", "secret")
        assert seed_demo(context) is None
        with context.sessions() as session:
            assert session.scalar(select(func.count()).select_from(Shipment)) == 0
            names = list(session.scalars(select(Tenant.name)))
        assert names == ["Acme"]
    finally:
        context.engine.dispose()
        shutil.rmtree(directory, ignore_errors=True)


def test_the_admin_is_demo_demo(demo: Demo) -> None:
    apps = httpx.get(f"{demo.service.url}/api/v4/oauth2/client-applications", auth=("demo", "demo"))
    assert apps.status_code == 200
    assert demo.credentials.client_id in apps.text
    assert (
        httpx.get(
            f"{demo.service.url}/api/v4/oauth2/client-applications", auth=("demo", "wrong")
        ).status_code
        == 401
    )


def _known(lat: float, lon: float) -> bool:
    """The coordinates of a real place of the demo (city, port, airport, terminal, site)."""
    places = [*PLACES.values(), *(site.place for site in SITES.values())]
    return any(distance_km((lat, lon), p.point) < 1 for p in places)


def _sample(demo: Demo, per_mode: int) -> list[dict[str, object]]:
    rng = random.Random(3)
    chosen = []
    planned = {plan.identifiers[0][1] for plan in demo.plans}  # not the bookings' shipments
    for mode in Mode:
        mine = [
            s
            for s in demo.summaries
            if s["mode"] == mode.value and s["primaryIdentifier"] in planned
        ]
        moving = [s for s in mine if s["currentState"] in ("IN_TRANSIT", "AT_STOP")]
        rest = [s for s in mine if s not in moving]
        chosen += rng.sample(moving, min(len(moving), per_mode))
        chosen += rng.sample(rest, min(len(rest), 2))
    return chosen


def test_histories_follow_the_tracking_lifecycle(demo: Demo) -> None:
    anchor = floor_hour(NOW)
    for summary in _sample(demo, 3):
        answer = demo.http.get(f"/api/v4/shipments/{summary['id']}/tracking/history")
        assert answer.status_code == 200
        history = answer.json()
        mode = summary["mode"]
        happened = [e["dateTime"] for e in history["events"] if e.get("dateTime")]
        assert happened == sorted(happened), mode
        assert happened or summary["currentState"] == "SCHEDULED", mode
        assert all(_time(t) <= anchor for t in happened)
        etas = [e for e in history["events"] if e["type"] == "ETA"]
        assert all(_time(e["estimateDateTime"]) > anchor - timedelta(hours=12) for e in etas)
        # The whole history in order: SCHEDULED from when the shipment was booked, each state
        # ending where the next begins, the last one open.
        states = sorted(history["states"], key=lambda s: s["startDateTime"])
        assert states[0]["type"] == "SCHEDULED", mode
        assert sum(1 for s in states if s["type"] == "SCHEDULED") == 1
        for before, after in itertools.pairwise(states):
            assert before.get("endDateTime") == after["startDateTime"], (mode, before, after)
        assert "endDateTime" not in states[-1]
        current = S.SCHEDULED
        for state in states[1:]:
            assert can_move(current, S(state["type"])), (mode, current, state["type"])
            current = S(state["type"])
        assert current.value == summary["currentState"]
        stops = history["shipment"]["routeInfo"]["stops"]
        assert len(stops) >= 2
        for stop in stops:
            point = stop["location"]["coordinates"]
            assert _known(point["latitude"], point["longitude"]), stop["name"]
            assert stop["appointmentWindow"]["localTimeZoneIdentifier"]
        positions = history["positions"]
        times = [p["dateTime"] for p in positions]
        assert times == sorted(times) and len(set(times)) == len(times)
        if positions and mode != "PARCEL":
            ends = [
                (
                    s["location"]["coordinates"]["latitude"],
                    s["location"]["coordinates"]["longitude"],
                )
                for s in stops
            ]
            for position in positions:
                point = (position["latitude"], position["longitude"])
                assert any(
                    distance_km(a, point) + distance_km(point, b) <= 1.7 * distance_km(a, b) + 60
                    for a, b in itertools.pairwise(ends)
                ), mode
        for exception in history["exceptions"]:
            assert (exception["status"] == "CLOSED") == bool(exception.get("resolvedDateTime"))


def test_moving_trucks_have_hundreds_of_recent_positions(demo: Demo) -> None:
    anchor = floor_hour(NOW)
    moving = [s for s in demo.summaries if s["mode"] == "TL" and s["currentState"] == "IN_TRANSIT"]
    counts = []
    for summary in moving[:8]:
        track = demo.http.get(f"/api/v4/shipments/{summary['id']}/positionhistory").json()
        positions = track["positions"]
        counts.append(len(positions))
        last = _time(positions[-1]["dateTime"])
        assert anchor - timedelta(minutes=35) <= last <= anchor
        assert all(p["speedUnit"] == "KILOMETERS_PER_HOUR" for p in positions)
    assert max(counts) >= 100


def test_documents_are_pdfs_linked_to_shipments(demo: Demo) -> None:
    found = demo.http.post("/services/document/v1/documents/search?size=500", json={})
    assert found.status_code == 200
    documents = found.json()["results"]
    assert len(documents) >= 50
    assert {"BILL_OF_LADING", "PROOF_OF_DELIVERY", "AIRWAY_BILL"} <= {d["type"] for d in documents}
    identifiers = {v for plan in demo.plans for _k, v in plan.identifiers}
    for document in documents[:: max(1, len(documents) // 6)]:
        assert {i["value"] for i in document["identifiers"]} <= identifiers
        file = document["files"][0]
        content = demo.http.get(file["downloadLink"])
        assert content.status_code == 200
        assert content.headers["content-type"].startswith("application/pdf")
        check_pdf(content.content, document["identifiers"][0]["value"])


def test_stop_locations_push_configurations_and_account_groups(demo: Demo) -> None:
    locations = demo.http.get("/api/v4/stoplocations?pageSize=100").json()
    assert locations["totalItems"] >= 20
    for location in locations["locations"]:
        assert location["openingHours"] and location["coordinates"]
    pushes = demo.http.get("/api/v4/webhooks").json()["webhookEndpoints"]
    assert len(pushes) >= 3
    assert all(p["enabled"] is False for p in pushes)  # nothing leaves the machine
    # Their secrets are sealed from the start, as any saved through the API.
    with demo.service.context.sessions() as session:
        rows = session.scalars(select(WebhookConfigRow)).all()
    assert rows and all(r.signing_secret.startswith("enc1:") for r in rows)
    groups = demo.http.get("/api/v4/capacityprovideraccountgroups").json()["groups"]
    assert {g["code"] for g in groups} >= {"AF-NA-DC", "AF-EU-DC"}
    # Shipments name their stops' saved locations.
    ids = {location["id"] for location in locations["locations"]}
    # (a planned shipment: those of the accepted bookings have the rate requests' stops)
    planned = {plan.identifiers[0][1] for plan in demo.plans}
    sample = next(
        s for s in demo.summaries if s["mode"] == "TL" and s["primaryIdentifier"] in planned
    )
    shipment = demo.http.get(f"/api/v4/shipments/{sample['id']}/tracking").json()
    named = [s["location"].get("id") for s in shipment["routeInfo"]["stops"]]
    assert any(n in ids for n in named if n)


def test_the_tenants_are_the_demo_tenant_and_its_partner(demo: Demo) -> None:
    with demo.service.context.sessions() as session:
        names = list(session.scalars(select(Tenant.name).order_by(Tenant.id)))
    assert names == [DEMO_TENANT_NAME, PARTNER_NAME]


def test_the_sharing_tab_has_rows_both_ways(demo: Demo) -> None:
    """The partner shares its moves with the demo ("Shared with you by ..."), and follows
    some of the demo's road moves (a recipient on their Sharing tab)."""
    theirs = [s for s in demo.summaries if s.get("sharedBy")]
    assert len(theirs) == SHARED_WITH_DEMO
    assert {s["sharedBy"]["tenantName"] for s in theirs} == {PARTNER_NAME}
    followed = []
    for summary in demo.summaries:
        if summary["mode"] in ("TL", "LTL") and not summary.get("sharedBy"):
            history = demo.http.get(f"/api/v4/shipments/{summary['id']}/tracking/history")
            recipients = (history.json().get("sharingContext") or {}).get("recipients", [])
            if [r["tenantName"] for r in recipients] == [PARTNER_NAME]:
                followed.append(summary["currentState"])
    assert len(followed) == SHARED_WITH_PARTNER
    assert set(followed) <= {"IN_TRANSIT", "AT_STOP"}


def _time(text: object) -> datetime:
    return datetime.fromisoformat(str(text).replace("Z", "+00:00"))


def test_every_shipment_names_its_carrier_where_its_mode_can(demo: Demo) -> None:
    """The list's Carrier column is filled for every demo shipment of a mode whose identifiers
    (rule 6) can name a carrier: a SCAC, or for LTL the account it moves on, whose code is the
    carrier's SCAC (the demo's LTL shipments had a random account number: no carrier)."""
    named = {
        m
        for m, accepted in ACCEPTED_BY_MODE.items()
        if accepted & set(CARRIER_TYPES) or m in CARRIER_BY_ACCOUNT
    }
    assert {Mode.TL, Mode.LTL, Mode.PARCEL, Mode.OCEAN, Mode.AIR} <= named
    without = Counter(
        str(s["mode"]) for s in demo.summaries if Mode(s["mode"]) in named and not s.get("carrier")
    )
    assert not without, without
    ltl = [s for s in demo.summaries if s["mode"] == "LTL"]
    assert ltl and all(str(s["carrier"]).isalpha() for s in ltl)  # a SCAC
