"""Bookings over real HTTP: every state transition, the carrier's answers, tracking initiation,
the list filters, every bad input and tenant isolation."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import event, text
from sqlalchemy.orm import Session

from freightdesk.models.identifier_rules import LTL
from freightdesk.server.db import transaction, utcnow
from freightdesk.server.domain.carrier_answers import answer_booking
from tests.server.test_rating_support import (
    BOOKINGS,
    PROFILES,
    at,
    booking_of,
    booking_status,
    create_booking,
    error_sources,
    ltl_request,
    poll,
    quoted,
    set_profile,
    standalone_booking,
    tl_request,
)
from tests.support import TenantHandle


def _respond(tenant: TenantHandle, booking_id: str, **body: Any) -> Any:
    with tenant.as_role("CARRIER") as carrier:
        return carrier.post(f"{BOOKINGS}/{booking_id}/carrier-response", json=body)


def test_a_booked_ltl_shipment_names_its_carrier_by_its_account(tenant: TenantHandle) -> None:
    """Rule 6 gives LTL no CARRIER_SCAC: the tracked shipment of a booked LTL quote names its
    carrier by the account it moves on, whose code is the SCAC, and the list shows it (the
    SCAC was dropped as not an LTL identifier: an empty Carrier column)."""
    set_profile(tenant, "NBFL", behaviour="ACCEPT", responseDelaySeconds=0)
    unit = {"weight": {"value": 400, "unit": "LB"}, "freightClass": 70, "quantity": 1}
    quote = quoted(tenant, ltl_request(["NBFL"], [unit]))["quotes"][0]
    booked = booking_status(tenant, create_booking(tenant, booking_of(quote))["id"], "BOOKED")
    assert booked["transportationMode"] == "LTL"
    tracked = tenant.http.get(f"/api/v4/shipments/{booked['masterShipmentId']}/tracking")
    identifiers = {(i["type"], i["value"]) for i in tracked.json()["identifiers"]}
    assert ("CAPACITY_PROVIDER_ACCOUNT_CODE", "NBFL") in identifiers
    assert not {kind for kind, _value in identifiers} - LTL  # rule 6's LTL list only
    found = tenant.http.post("/api/v4/shipments/search", json={}).json()["results"]
    (summary,) = [s for s in found if s["id"] == booked["masterShipmentId"]]
    assert summary["mode"] == "LTL" and summary["carrier"] == "NBFL"


def _cancel(tenant: TenantHandle, booking_id: str) -> Any:
    return tenant.http.post(f"{BOOKINGS}/{booking_id}/cancellations")


def test_accepted_booking_initiates_tracking(tenant: TenantHandle) -> None:
    set_profile(tenant, "PRLF", behaviour="ACCEPT", responseDelaySeconds=0)
    request = quoted(
        tenant,
        tl_request(["PRLF"], quoteTypeFilter="CONTRACT", identifiers=[
            {"type": "PURCHASE_ORDER", "value": "PO-7781"},
            {"type": "CUSTOMER_REFERENCE", "value": "CR-1"},
        ]),
    )  # fmt: skip
    quote = request["quotes"][0]
    attributes = [{"name": "Dock", "values": ["4"]}]
    created = create_booking(tenant, booking_of(quote, attributes=attributes, notes="Fragile"))
    # Created together with its shipment: the rate request is the parent shipment.
    assert created["status"] == "PROCESSING" and created["shipmentId"] == request["id"]
    assert created["totalRate"] == quote["totalRate"]
    assert created["charges"][0] == {"code": "LINE_HAUL", **quote["lineHaul"]}
    segment = request["rateDetail"]["routeInfo"]["routeSegments"][0]
    assert created["routeSegmentIds"] == [segment["id"]]
    assert created["routeSegments"][0]["fromLocation"]["name"] == "Chicago DC"
    assert created["shipmentIdentifiers"][0] == {"type": "PURCHASE_ORDER", "value": "PO-7781"}
    assert created["transportationMode"] == "TL" and created["bookingSourceMethod"] == "API"

    booked = booking_status(tenant, created["id"], "BOOKED")
    assert booked["lastAcceptedDateTime"] >= booked["createdDateTime"]
    assert booked["carrierResponseMethod"] == "API"
    carrier_bol = booked["carrierProvidedIdentifiers"][0]
    assert carrier_bol["type"] == "BILL_OF_LADING"
    tracked = tenant.http.get(f"/api/v4/shipments/{booked['masterShipmentId']}/tracking")
    assert tracked.status_code == 200
    shipment = tracked.json()
    identifiers = {(i["type"], i["value"]) for i in shipment["identifiers"]}
    assert {("CARRIER_SCAC", "PRLF"), ("PURCHASE_ORDER", "PO-7781")} <= identifiers
    assert (carrier_bol["type"], carrier_bol["value"]) in identifiers
    assert [s["type"] for s in shipment["routeInfo"]["stops"]] == ["PICKUP", "DELIVERY"]
    assert shipment["attributes"][0] == {"name": "Dock", "values": ["4"]}


def test_declining_carrier_rejects(tenant: TenantHandle) -> None:
    set_profile(tenant, "DCLN", behaviour="DECLINE", responseDelaySeconds=0)
    created = create_booking(tenant, standalone_booking("DCLN"))
    rejected = booking_status(tenant, created["id"], "REJECTED")
    assert rejected["rejectionReason"] in {
        "NO_CAPACITY",
        "EQUIPMENT_UNAVAILABLE",
        "COST_NOT_AGREED",
    }
    assert rejected["carrierRejectionNotes"]
    assert "masterShipmentId" not in rejected
    late = _respond(tenant, created["id"], decision="ACCEPT")
    assert late.status_code == 409


def test_review_then_the_carrier_accepts_or_rejects(tenant: TenantHandle) -> None:
    set_profile(tenant, "RVWX", behaviour="REVIEW", responseDelaySeconds=0)
    first = create_booking(tenant, standalone_booking("RVWX"))
    booking_status(tenant, first["id"], "UNDER_REVIEW")
    # Only the carrier answers.
    shipper = tenant.http.post(
        f"{BOOKINGS}/{first['id']}/carrier-response", json={"decision": "ACCEPT"}
    )
    assert shipper.status_code == 403
    # Tracking needs an identifier that names the shipment.
    keyless = _respond(tenant, first["id"], decision="ACCEPT")
    assert keyless.status_code == 400 and error_sources(keyless) == ["carrierProvidedIdentifiers"]
    mixed = _respond(tenant, first["id"], decision="ACCEPT", rejectionReason="OTHER")
    assert mixed.status_code == 400 and error_sources(mixed) == ["rejectionReason"]
    accepted = _respond(
        tenant,
        first["id"],
        decision="ACCEPT",
        carrierProvidedIdentifiers=[{"type": "BILL_OF_LADING", "value": "RV-1"}],
        responseMethod="EMAIL",
    )
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["status"] == "BOOKED" and accepted.json()["masterShipmentId"]
    assert accepted.json()["carrierResponseMethod"] == "EMAIL"
    assert _respond(tenant, first["id"], decision="REJECT").status_code == 409

    second = create_booking(tenant, standalone_booking("RVWX"))
    booking_status(tenant, second["id"], "UNDER_REVIEW")
    rejected = _respond(
        tenant,
        second["id"],
        decision="REJECT",
        rejectionReason="COST_NOT_AGREED",
        carrierRejectionNotes="Fuel went up",
    )
    assert rejected.status_code == 200
    assert rejected.json()["status"] == "REJECTED"
    assert rejected.json()["rejectionReason"] == "COST_NOT_AGREED"
    assert rejected.json()["carrierRejectionNotes"] == "Fuel went up"
    wrong = _respond(tenant, second["id"], decision="MAYBE")
    assert wrong.status_code == 400 and error_sources(wrong) == ["decision"]


# How far ahead a booking that must expire during a test expires. It must outlast the request
# that creates it: under a load of 10 on 2 cores that took at most 0.1 s (measured), so this
# leaves a wide margin. The service's clock cannot be driven from outside (it reads the time
# itself), so the tests do their other work while the booking runs out.
EXPIRES_IN = 1.5


def test_cancel_from_every_state(tenant: TenantHandle) -> None:
    set_profile(tenant, "SLOW", behaviour="SLOW")
    set_profile(tenant, "RVWX", behaviour="REVIEW", responseDelaySeconds=0)
    set_profile(tenant, "ACPT", behaviour="ACCEPT", responseDelaySeconds=0)
    set_profile(tenant, "DCLN", behaviour="DECLINE", responseDelaySeconds=0)
    expired = create_booking(tenant, standalone_booking("SLOW", expirationDateTime=at(EXPIRES_IN)))
    processing = create_booking(tenant, standalone_booking("SLOW"))
    review = create_booking(tenant, standalone_booking("RVWX"))
    booked = create_booking(tenant, standalone_booking("ACPT"))
    rejected = create_booking(tenant, standalone_booking("DCLN"))
    booking_status(tenant, review["id"], "UNDER_REVIEW")
    booking_status(tenant, booked["id"], "BOOKED")
    booking_status(tenant, rejected["id"], "REJECTED")
    booking_status(tenant, expired["id"], "EXPIRED")
    for booking in (processing, review, booked, rejected, expired):
        answer = _cancel(tenant, booking["id"])
        assert answer.status_code == 200 and answer.json()["status"] == "CANCELLED"
    # The carrier side cancels too; cancelling again changes nothing.
    with tenant.as_role("CARRIER") as carrier:
        again = carrier.post(f"{BOOKINGS}/{processing['id']}/cancellations")
    assert again.status_code == 200 and again.json()["status"] == "CANCELLED"
    assert _respond(tenant, review["id"], decision="REJECT").status_code == 409


def test_expiry(tenant: TenantHandle) -> None:
    set_profile(tenant, "SLOW", behaviour="SLOW")
    created = create_booking(tenant, standalone_booking("SLOW", expirationDateTime=at(EXPIRES_IN)))
    assert created["status"] == "PROCESSING"
    # While it runs out: expirations that are refused.
    naive = tenant.http.post(
        BOOKINGS, json=standalone_booking("SLOW", expirationDateTime="2031-05-01T10:00:00")
    )
    assert naive.status_code == 400 and error_sources(naive) == ["expirationDateTime"]
    for when in (at(-60), at(400 * 86400), "9999-12-31T23:59:59-14:00"):
        refused = tenant.http.post(
            BOOKINGS, json=standalone_booking("SLOW", expirationDateTime=when)
        )
        assert refused.status_code == 400 and error_sources(refused) == ["expirationDateTime"]
    expired = booking_status(tenant, created["id"], "EXPIRED")
    assert expired["expirationDateTime"] == created["expirationDateTime"]
    assert _respond(tenant, created["id"], decision="ACCEPT").status_code == 409


def test_update_while_open_returns_to_processing(tenant: TenantHandle) -> None:
    set_profile(tenant, "RVWX", behaviour="REVIEW", responseDelaySeconds=0)
    created = create_booking(tenant, standalone_booking("RVWX", notes="first"))
    booking_status(tenant, created["id"], "UNDER_REVIEW")
    set_profile(tenant, "RVWX", behaviour="SLOW")
    replaced = tenant.http.put(
        f"{BOOKINGS}/{created['id']}",
        json=standalone_booking(
            "RVWX", notes="second", totalRate={"amount": 900, "currency": "USD"}
        ),
    )
    assert replaced.status_code == 200, replaced.text
    body = replaced.json()
    assert body["status"] == "PROCESSING" and body["notes"] == "second"
    assert body["totalRate"] == {"amount": 900.0, "currency": "USD"}
    assert body["createdDateTime"] == created["createdDateTime"]
    assert body["lastModifiedDateTime"] > created["lastModifiedDateTime"]
    # PUT replaces: a field left out is gone.
    bare = tenant.http.put(f"{BOOKINGS}/{created['id']}", json=standalone_booking("RVWX"))
    assert "notes" not in bare.json() and "totalRate" not in bare.json()
    assert _cancel(tenant, created["id"]).status_code == 200
    closed = tenant.http.put(f"{BOOKINGS}/{created['id']}", json=standalone_booking("RVWX"))
    assert closed.status_code == 409
    missing = tenant.http.put(f"{BOOKINGS}/{uuid.uuid4()}", json=standalone_booking("RVWX"))
    assert missing.status_code == 404


def test_one_live_booking_per_rate_request(tenant: TenantHandle) -> None:
    set_profile(tenant, "PRLF", behaviour="DECLINE", responseDelaySeconds=0.3)
    request = quoted(tenant, tl_request(["PRLF", "CSCX"], quoteTypeFilter="SPOT"))
    quotes = {q["capacityProviderIdentifier"]["value"]: q for q in request["quotes"]}
    first = create_booking(tenant, booking_of(quotes["PRLF"]))
    second = tenant.http.post(BOOKINGS, json=booking_of(quotes["CSCX"]))
    assert second.status_code == 409 and first["id"] in second.json()["errorMessage"]
    booking_status(tenant, first["id"], "REJECTED")
    # Rejected: the shipper books the next carrier.
    retry = tenant.http.post(BOOKINGS, json=booking_of(quotes["CSCX"]))
    assert retry.status_code == 200


def test_bad_bookings_name_the_field(tenant: TenantHandle) -> None:
    request = quoted(tenant, tl_request(["PRLF"], quoteTypeFilter="CONTRACT"))
    quote = request["quotes"][0]
    gbp = {"code": "X", "amount": 1, "currency": "GBP"}
    other_carrier = {"type": "CARRIER_SCAC", "value": "CSCX"}
    cases: list[tuple[dict[str, Any], list[str]]] = [
        ({**standalone_booking("ABCD"), "shipmentId": None}, ["shipmentId"]),
        ({**standalone_booking("ABCD"), "rateIdentifiers": []}, ["rateIdentifiers"]),
        ({**standalone_booking("ABCD"), "colour": "red"}, ["colour"]),
        ({**standalone_booking("ABCD"), "id": str(uuid.uuid4())}, ["id"]),
        (
            standalone_booking("ABCD", capacityProviderIdentifier={"type": "X", "value": "ABCD"}),
            ["capacityProviderIdentifier.type"],
        ),
        (booking_of(quote, shipmentId=str(uuid.uuid4())), ["shipmentId"]),
        (
            {**booking_of(quote), "capacityProviderIdentifier": other_carrier},
            ["capacityProviderIdentifier.value"],
        ),
        (booking_of(quote, routeSegmentIds=[str(uuid.uuid4())]), ["routeSegmentIds[0]"]),
        (standalone_booking("ABCD", charges=[gbp]), ["charges[0].currency"]),
        (standalone_booking("ABCD", attributes=[{"name": " "}]), ["attributes[0].name"]),
    ]  # fmt: skip
    for body, sources in cases:
        answer = tenant.http.post(BOOKINGS, json=body)
        assert answer.status_code == 400, (body, answer.text)
        assert error_sources(answer) == sources, answer.text
    assert (
        tenant.http.post(
            BOOKINGS, content=b"[", headers={"content-type": "application/json"}
        ).status_code
        == 400
    )
    assert tenant.http.get(f"{BOOKINGS}/{uuid.uuid4()}").status_code == 404


def test_list_filters_and_pages(tenant: TenantHandle) -> None:
    set_profile(tenant, "SLOW", behaviour="SLOW")
    set_profile(tenant, "DCLN", behaviour="DECLINE", responseDelaySeconds=0)
    red = create_booking(
        tenant,
        standalone_booking("SLOW", attributes=[{"name": "Colour", "values": ["Red", "Blue"]}]),
    )
    green = create_booking(
        tenant, standalone_booking("SLOW", attributes=[{"name": "colour", "values": ["green"]}])
    )
    plain = create_booking(tenant, standalone_booking("DCLN"))
    booking_status(tenant, plain["id"], "REJECTED")

    def ids(**params: Any) -> list[str]:
        answer = tenant.http.get(BOOKINGS, params=params)
        assert answer.status_code == 200, answer.text
        return [b["id"] for b in answer.json()["results"]]

    assert ids() == [plain["id"], green["id"], red["id"]]
    assert ids(statuses="REJECTED") == [plain["id"]]
    assert ids(statuses=["PROCESSING", "REJECTED"]) == ids(statuses="PROCESSING,REJECTED")
    assert set(ids(**{"attribute.name": "COLOUR"})) == {red["id"], green["id"]}
    assert ids(**{"attribute.name": "colour", "attribute.values": "blue"}) == [red["id"]]
    assert set(ids(**{"attribute.name": "colour", "attribute.values": ["red", "green"]})) == {
        red["id"],
        green["id"],
    }
    page = tenant.http.get(BOOKINGS, params={"pageSize": 2, "pageNumber": 2}).json()
    assert page["paginationInfo"] == {"pageNumber": 2, "pageSize": 2, "total": 3}
    assert [b["id"] for b in page["results"]] == [red["id"]]
    for params, source in (
        ({"statuses": "LOST"}, "statuses"),
        ({"attribute.values": "x"}, "attribute.values"),
        ({"pageSize": 0}, "pageSize"),
        ({"pageSize": 101}, "pageSize"),
        ({"pageNumber": 0}, "pageNumber"),
    ):
        answer = tenant.http.get(BOOKINGS, params=params)
        assert answer.status_code == 400 and error_sources(answer) == [source], answer.text


def test_reference_keys_beyond_25_are_left_out_of_tracking(tenant: TenantHandle) -> None:
    set_profile(tenant, "RVWX", behaviour="REVIEW", responseDelaySeconds=0)
    attributes = [{"name": f"shipper-{i}", "values": [str(i)]} for i in range(20)]
    created = create_booking(tenant, standalone_booking("RVWX", attributes=attributes))
    booking_status(tenant, created["id"], "UNDER_REVIEW")
    keys = [{"key": f"carrier-{i}", "values": [f"v{i}"]} for i in range(10)]
    accepted = _respond(
        tenant,
        created["id"],
        decision="ACCEPT",
        carrierProvidedIdentifiers=[{"type": "BILL_OF_LADING", "value": "B-25"}],
        capacityProviderReferenceKeys=keys,
    )
    assert accepted.status_code == 200, accepted.text
    # The booking keeps all ten; tracking got the 20 attributes and the first 5 keys.
    assert len(accepted.json()["capacityProviderReferenceKeys"]) == 10
    shipment = tenant.http.get(f"/api/v4/shipments/{accepted.json()['masterShipmentId']}/tracking")
    names = [a["name"] for a in shipment.json()["attributes"]]
    assert names == [f"shipper-{i}" for i in range(20)] + [f"carrier-{i}" for i in range(5)]


def test_carrier_profiles(tenant: TenantHandle) -> None:
    default = tenant.http.get(f"{PROFILES}/abcd").json()
    assert default["scac"] == "ABCD" and default["behaviour"] == "ACCEPT"
    assert default["configured"] is False and default["responseDelaySeconds"] == 2.0
    slow = set_profile(tenant, "ABCD", behaviour="SLOW", name="Abcd Freight")
    assert slow["configured"] is True and slow["responseDelaySeconds"] == 900.0
    listed = tenant.http.get(PROFILES).json()["carriers"]
    assert {"ABCD", "PRLF", "NBFL"} <= {c["scac"] for c in listed}
    for body, source in (
        ({"behaviour": "SULK"}, "behaviour"),
        ({"responseDelaySeconds": -1}, "responseDelaySeconds"),
        ({"modes": []}, "modes"),
        ({"speed": 3}, "speed"),
    ):
        answer = tenant.http.put(f"{PROFILES}/ABCD", json=body)
        assert answer.status_code == 400 and error_sources(answer) == [source], answer.text
    assert tenant.http.put(f"{PROFILES}/A1", json={}).status_code == 400
    assert tenant.http.delete(f"{PROFILES}/ABCD").status_code == 204
    assert tenant.http.delete(f"{PROFILES}/ABCD").status_code == 404
    assert tenant.http.get(f"{PROFILES}/ABCD").json()["configured"] is False


def test_tenants_are_isolated(
    tenant: TenantHandle, tenant_factory: Callable[[], TenantHandle]
) -> None:
    other = tenant_factory()
    set_profile(tenant, "RVWX", behaviour="REVIEW", responseDelaySeconds=0)
    mine = create_booking(tenant, standalone_booking("RVWX"))
    booking_status(tenant, mine["id"], "UNDER_REVIEW")
    assert other.http.get(f"{BOOKINGS}/{mine['id']}").status_code == 404
    assert (
        other.http.put(f"{BOOKINGS}/{mine['id']}", json=standalone_booking("RVWX")).status_code
        == 404
    )
    assert other.http.post(f"{BOOKINGS}/{mine['id']}/cancellations").status_code == 404
    assert _respond(other, mine["id"], decision="REJECT").status_code == 404
    assert other.http.get(BOOKINGS).json()["results"] == []
    # The other tenant's RVWX is its own: still the default, then what it sets.
    default = other.http.get(f"{PROFILES}/RVWX").json()
    assert (default["configured"], default["behaviour"]) == (False, "ACCEPT")
    set_profile(other, "RVWX", behaviour="ACCEPT", responseDelaySeconds=0)
    theirs = create_booking(other, standalone_booking("RVWX"))
    # Once the carriers have answered the other tenant, mine is still waiting for its review.
    booking_status(other, theirs["id"], "BOOKED")
    assert tenant.http.get(f"{BOOKINGS}/{mine['id']}").json()["status"] == "UNDER_REVIEW"
    assert tenant.http.get(f"{PROFILES}/RVWX").json()["behaviour"] == "REVIEW"
    assert [b["id"] for b in tenant.http.get(BOOKINGS).json()["results"]] == [mine["id"]]
    assert [b["id"] for b in other.http.get(BOOKINGS).json()["results"]] == [theirs["id"]]


def test_concurrent_bookings_of_one_rate_request_leave_one_live(tenant: TenantHandle) -> None:
    set_profile(tenant, "SLOW", behaviour="SLOW")
    request = quoted(tenant, tl_request(["SLOW"], quoteTypeFilter="CONTRACT"))
    body = booking_of(request["quotes"][0])

    def book(_: int) -> int:
        with tenant.as_role("SHIPPER") as client:
            return int(client.post(BOOKINGS, json=body).status_code)

    with ThreadPoolExecutor(max_workers=5) as pool:
        codes = sorted(pool.map(book, range(5)))
    assert codes == [200, 409, 409, 409, 409]
    live = tenant.http.get(BOOKINGS, params={"statuses": "PROCESSING"}).json()
    assert live["paginationInfo"]["total"] == 1


def _lock_waits(session: Session) -> list[str]:
    """The statements of this database's sessions now waiting for a lock."""
    rows = session.execute(
        text(
            "SELECT query FROM pg_stat_activity WHERE datname = current_database()"
            " AND wait_event_type = 'Lock'"
        )
    )
    waits = [str(query) for (query,) in rows]
    session.rollback()  # PostgreSQL keeps one snapshot of the statistics per transaction
    return waits


@pytest.mark.parametrize("service", ["postgresql"], indirect=True)
def test_an_update_during_the_carriers_answer_is_not_lost(tenant: TenantHandle) -> None:
    """A PUT sends the booking to the carrier again: an answer the carrier was giving to the
    version before it must not close the new version.

    The interleaving is made, not hoped for: the test holds the carrier profiles table (only
    PostgreSQL can), so the worker stops between reading the due booking and storing the
    answer, and the PUT stops after writing the booking; then the test lets both go."""
    sessions = tenant.service.context.sessions
    set_profile(tenant, "DCLN", behaviour="DECLINE", responseDelaySeconds=0)
    delay = 1.0
    while True:
        set_profile(tenant, "PRLF", behaviour="ACCEPT", responseDelaySeconds=delay)
        created = create_booking(tenant, standalone_booking("PRLF", notes="first"))
        holder = sessions()
        holder.execute(text("LOCK TABLE carrier_profiles IN ACCESS EXCLUSIVE MODE"))
        status = holder.execute(
            text("SELECT status FROM bookings WHERE id = :id"), {"id": created["id"]}
        ).scalar_one()
        if status == "PROCESSING":
            break  # held before the answer fell due: the worker cannot store one now
        holder.rollback()  # a machine too slow for the delay: again with a longer one
        holder.close()
        delay *= 2
    try:
        with sessions() as watcher:
            # The worker read the booking (due now) and waits for the carrier's profile.
            first = poll(lambda: _lock_waits(watcher), lambda waits: len(waits) >= 1, 30)
            with ThreadPoolExecutor(max_workers=1) as pool:
                put = pool.submit(
                    tenant.http.put,
                    f"{BOOKINGS}/{created['id']}",
                    json=standalone_booking("DCLN", notes="second"),
                )
                poll(lambda: _lock_waits(watcher), lambda waits: len(waits) > len(first), 30)
                holder.rollback()
                replaced = put.result()
    finally:
        holder.close()
    final = tenant.http.get(f"{BOOKINGS}/{created['id']}").json()
    if replaced.status_code == 409:
        # The worker held the booking first: the PUT came after the answer and was refused.
        assert final["status"] == "BOOKED" and final["notes"] == "first"
        return
    assert replaced.status_code == 200, replaced.text
    # The new version went to its own carrier, which declines; the answer to the old is gone.
    final = poll(
        lambda: tenant.http.get(f"{BOOKINGS}/{created['id']}").json(),
        lambda booking: booking["status"] != "PROCESSING",
    )
    assert (final["status"], final["notes"], final["carrierProvidedIdentifiers"]) == (
        "REJECTED",
        "second",
        [],
    )


@pytest.mark.parametrize("service", ["sqlite"], indirect=True)
def test_an_update_during_the_carriers_answer_is_not_lost_on_sqlite(tenant: TenantHandle) -> None:
    """The SQLite side of the race above. SQLite takes no lock for a read (WAL), and the
    driver begins the transaction at its first write: between the carrier's reading the due
    booking and its storing the answer, a PUT on another connection commits. The interleaving
    is made: the carrier's answer is given here (due in an hour, the service's worker leaves
    it alone), and its first write is held until the real PUT, through the service, is in."""
    sessions = tenant.service.context.sessions
    set_profile(tenant, "PRLF", behaviour="ACCEPT", responseDelaySeconds=3600)
    set_profile(tenant, "DCLN", behaviour="DECLINE", responseDelaySeconds=3600)
    created = create_booking(tenant, standalone_booking("PRLF", notes="first"))
    replaced: list[httpx.Response] = []

    def replace_first(_conn: object, _cursor: object, statement: str, *_rest: object) -> None:
        if statement.startswith("UPDATE bookings") and not replaced:
            second = standalone_booking("DCLN", notes="second")
            replaced.append(tenant.http.put(f"{BOOKINGS}/{created['id']}", json=second))

    later = utcnow() + timedelta(hours=2)  # both versions' answers are due by then
    with transaction(sessions) as session:
        connection = session.connection()
        event.listen(connection, "before_cursor_execute", replace_first)
        try:
            answer_booking(session, created["id"], later)
        finally:
            event.remove(connection, "before_cursor_execute", replace_first)
    assert [answer.status_code for answer in replaced] == [200], replaced[0].text
    # The answer to the first version was dropped: the second waits for its own carrier.
    kept = tenant.http.get(f"{BOOKINGS}/{created['id']}").json()
    assert (kept["status"], kept["notes"], kept["carrierProvidedIdentifiers"]) == (
        "PROCESSING",
        "second",
        [],
    )
    with transaction(sessions) as session:
        answer_booking(session, created["id"], later)
    final = tenant.http.get(f"{BOOKINGS}/{created['id']}").json()
    assert (final["status"], final["notes"], final["capacityProviderIdentifier"]["value"]) == (
        "REJECTED",
        "second",
        "DCLN",
    )
