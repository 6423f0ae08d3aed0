"""Rate requests over real HTTP: quotes arriving, filters, account groups, the rate engine's
plausibility, every bad input, cancellation outcomes and tenant isolation."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from freightdesk.models.rating import (
    ACCESSORIAL_NAMES,
    CHARGED_NOT_ASKED,
    REQUESTABLE_ACCESSORIALS,
    RateRequest,
)
from freightdesk.server.domain import rate_engine
from tests.server.test_rating_support import (
    BOOKINGS,
    RATE_REQUESTS,
    account_group,
    at,
    booking_of,
    booking_status,
    create_booking,
    error_sources,
    ltl_request,
    poll,
    quoted,
    set_profile,
    set_tenant_feature,
    tl_request,
)
from tests.support import TenantHandle

QUOTE_FIELDS = {
    "id",
    "capacityProviderIdentifier",
    "carrierName",
    "quoteType",
    "transportationMode",
    "serviceLevel",
    "totalRate",
    "lineHaul",
    "fuelSurcharge",
    "accessorialCharges",
    "distance",
    "transitDays",
    "estimatedDeliveryDate",
    "expirationDateTime",
    "rateIdentifiers",
    "createdDateTime",
}


def _by(quotes: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(q["capacityProviderIdentifier"]["value"], q["quoteType"]): q for q in quotes}


def test_quotes_arrive_from_every_carrier_named(tenant: TenantHandle) -> None:
    created = tenant.http.post(RATE_REQUESTS, json=tl_request(["PRLF", "ZZTL", "CSCX"]))
    assert created.status_code == 200
    body = created.json()
    assert body["status"] == "QUOTES_REQUESTED" and body["quotes"] == []
    assert body["ratingSourceMethod"] == "API" and body["quoteTypeFilter"] == "ALL"
    stops = body["rateDetail"]["routeInfo"]["stops"]
    assert all(uuid.UUID(s["id"]) for s in stops)
    segment = body["rateDetail"]["routeInfo"]["routeSegments"][0]
    assert (segment["fromStopId"], segment["toStopId"]) == (stops[0]["id"], stops[1]["id"])
    assert body["expirationDateTime"] > body["createdDateTime"]
    assert {m["quoteType"] for m in body["marketQuotes"]} == {"CONTRACT", "SPOT"}

    done = quoted(tenant, tl_request(["PRLF", "ZZTL", "CSCX"]))
    assert done["status"] == "QUOTES_RECEIVED"
    # The answer is exactly the documented shape: nothing more, nothing missing.
    RateRequest.model_validate(done, extra="forbid")
    quotes = _by(done["quotes"])
    assert set(quotes) == {(c, t) for c in ("PRLF", "ZZTL", "CSCX") for t in ("CONTRACT", "SPOT")}
    for quote in done["quotes"]:
        assert set(quote) >= QUOTE_FIELDS
        assert quote["transportationMode"] == "TL" and quote["totalRate"]["currency"] == "USD"
        parts = quote["lineHaul"]["amount"] + quote["fuelSurcharge"]["amount"]
        assert quote["totalRate"]["amount"] == pytest.approx(parts, abs=0.02)
        assert quote["rateIdentifiers"][0]["type"] == quote["quoteType"]
    # Cheapest first.
    totals = [q["totalRate"]["amount"] for q in done["quotes"]]
    assert totals == sorted(totals)
    assert quotes[("ZZTL", "SPOT")]["carrierName"] == "Carrier ZZTL"


def test_rates_are_plausible_and_deterministic(tenant: TenantHandle) -> None:
    dry = quoted(tenant, tl_request(["PRLF"], quoteTypeFilter="CONTRACT"))
    again = quoted(tenant, tl_request(["PRLF"], quoteTypeFilter="CONTRACT"))
    quote = dry["quotes"][0]
    assert quote["totalRate"] == again["quotes"][0]["totalRate"]
    # Chicago to Dallas is about 925 road miles; dry van about $2.5 to $3.5 a mile all-in.
    miles = quote["distance"]["value"]
    assert quote["distance"]["unit"] == "MI" and 850 < miles < 1100
    assert 2.2 < quote["totalRate"]["amount"] / miles < 3.6
    assert quote["transitDays"] == 2
    reefer = tl_request(["PRLF"], quoteTypeFilter="CONTRACT")
    reefer["rateDetail"]["shippingDetails"] = {
        "truck": {"trailerType": "REEFER"},
        "accessorials": [{"code": "REFRIGERATED", "details": {"min": 34, "max": 38}}],
    }
    cold = quoted(tenant, reefer)["quotes"][0]
    assert cold["totalRate"]["amount"] > quote["totalRate"]["amount"]
    # A Canadian carrier quotes per kilometre in Canadian dollars.
    maple = quoted(tenant, tl_request(["MPLF"], quoteTypeFilter="CONTRACT"))["quotes"][0]
    assert maple["distance"]["unit"] == "KM" and maple["totalRate"]["currency"] == "CAD"
    assert maple["distance"]["value"] == pytest.approx(miles * 1.609344, rel=0.01)
    # A partial load of 20 ft costs less than the full truck.
    partial = tl_request(["PRLF"], quoteTypeFilter="CONTRACT")
    partial["rateDetail"]["shippingDetails"] = {
        "truck": {"loadPreference": "PARTIAL", "trailerLength": {"value": 20, "unit": "FT"}}
    }
    part = quoted(tenant, partial)["quotes"][0]
    assert 0.35 < part["totalRate"]["amount"] / quote["totalRate"]["amount"] < 0.6


def test_quote_type_filter(tenant: TenantHandle) -> None:
    for wanted in ("CONTRACT", "SPOT"):
        done = quoted(tenant, tl_request(["PRLF", "CSCX"], quoteTypeFilter=wanted))
        assert done["quoteTypeFilter"] == wanted
        assert {q["quoteType"] for q in done["quotes"]} == {wanted}
        assert len(done["quotes"]) == 2
        assert {m["quoteType"] for m in done["marketQuotes"]} == {wanted}
    bad = tenant.http.post(RATE_REQUESTS, json=tl_request(["PRLF"], quoteTypeFilter="CHEAP"))
    assert bad.status_code == 400 and error_sources(bad) == ["quoteTypeFilter"]


def test_account_groups_resolve_to_carriers(tenant: TenantHandle) -> None:
    account_group(tenant, "MIDWEST")
    account_group(tenant, "EMPTY")
    set_profile(tenant, "AAAA", accountGroupCodes=["MIDWEST"])
    set_profile(tenant, "BBBB", accountGroupCodes=["MIDWEST"])
    body = tl_request(["CCCC"], capacityProviderAccountGroups=[{"code": "MIDWEST"}])
    done = quoted(tenant, body)
    carriers = {q["capacityProviderIdentifier"]["value"] for q in done["quotes"]}
    assert carriers == {"AAAA", "BBBB", "CCCC"}
    assert done["capacityProviderAccountGroups"] == [{"code": "MIDWEST"}]

    unknown = tenant.http.post(
        RATE_REQUESTS, json=tl_request(capacityProviderAccountGroups=[{"code": "NOPE"}])
    )
    assert unknown.status_code == 400
    assert error_sources(unknown) == ["capacityProviderAccountGroups[0].code"]
    empty = tenant.http.post(
        RATE_REQUESTS, json=tl_request(capacityProviderAccountGroups=[{"code": "EMPTY"}])
    )
    assert empty.status_code == 400 and "no carriers" in empty.json()["errorMessage"]
    # A profile cannot join a group that does not exist.
    wrong = tenant.http.put(
        "/services/carriers/v1/profiles/AAAA", json={"accountGroupCodes": ["X"]}
    )
    assert wrong.status_code == 400 and error_sources(wrong) == ["accountGroupCodes[0]"]


def test_without_carriers_every_connected_carrier_of_the_mode_quotes(tenant: TenantHandle) -> None:
    done = quoted(tenant, tl_request(quoteTypeFilter="CONTRACT"))
    carriers = {q["capacityProviderIdentifier"]["value"] for q in done["quotes"]}
    assert {"PRLF", "BLRT", "CSCX", "IRHX"} <= carriers
    assert "NBFL" not in carriers  # an LTL carrier


def test_ltl_is_rated_by_class_and_weight(tenant: TenantHandle) -> None:
    light = {"weight": {"value": 400, "unit": "LB"}, "freightClass": 70, "quantity": 1}
    heavy = {"weight": {"value": 1200, "unit": "LB"}, "freightClass": "70", "quantity": 2}
    small = quoted(tenant, ltl_request(["NBFL"], [light]))
    big = quoted(tenant, ltl_request(["NBFL"], [heavy]))
    contract = _by(small["quotes"])[("NBFL", "CONTRACT")]
    bulk = _by(big["quotes"])[("NBFL", "CONTRACT")]
    assert contract["transportationMode"] == "LTL" and contract["billedWeight"]["value"] == 400
    assert bulk["billedWeight"] == {"value": 2400, "unit": "LB"}
    # Weight breaks: six times the weight costs less than six times the money.
    assert contract["totalRate"]["amount"] < bulk["totalRate"]["amount"]
    assert bulk["totalRate"]["amount"] < 6 * contract["totalRate"]["amount"]
    high = {**light, "freightClass": 250}
    assert (
        _by(quoted(tenant, ltl_request(["NBFL"], [high]))["quotes"])[("NBFL", "CONTRACT")][
            "totalRate"
        ]["amount"]
        > contract["totalRate"]["amount"]
    )
    # The class comes from density when only dimensions are given.
    dims = {
        "weight": {"value": 181.4, "unit": "KG"},
        "dimensions": {"length": 48, "width": 40, "height": 48, "unit": "IN"},
    }
    assert quoted(tenant, ltl_request(["NBFL"], [dims]))["quotes"]
    # A truckload-only carrier has nothing to quote.
    only_tl = quoted(tenant, ltl_request(["PRLF"], [light]))
    assert only_tl["status"] == "QUOTES_RECEIVED" and only_tl["quotes"] == []


# A handling unit longer than the 10,000 (of its unit) rating takes.
TOO_LONG = {"length": 10_001, "width": 40, "height": 48}

BAD_REQUESTS: list[tuple[Callable[[dict[str, Any]], Any], str]] = [
    (lambda b: b.pop("rateDetail"), "rateDetail"),
    (lambda b: b["rateDetail"]["routeInfo"]["stops"].pop(), "rateDetail.routeInfo.stops"),
    (
        lambda b: b["rateDetail"]["routeInfo"]["stops"].reverse(),
        "rateDetail.routeInfo.stops[0].type",
    ),
    (lambda b: b.update(expirationDateTime="2030-01-01T10:00:00"), "expirationDateTime"),
    (lambda b: b.update(expirationDateTime="2020-01-01T10:00:00Z"), "expirationDateTime"),
    (lambda b: b.update(colour="red"), "colour"),
    (lambda b: b["rateDetail"]["shippingDetails"].update(ltl={}), "rateDetail.shippingDetails"),
    (
        lambda b: b["rateDetail"]["shippingDetails"]["truck"].update(trailerType="SPACESHIP"),
        "rateDetail.shippingDetails.truck.trailerType",
    ),
    (
        lambda b: b["rateDetail"]["shippingDetails"].update(accessorials=[{"code": "MAGIC"}]),
        "rateDetail.shippingDetails.accessorials[0].code",
    ),
    (
        lambda b: b["rateDetail"]["shippingDetails"].update(
            accessorials=[{"code": "REFRIGERATED"}]
        ),
        "rateDetail.shippingDetails.accessorials[0].code",
    ),
    (
        lambda b: b["rateDetail"]["routeInfo"]["stops"][1]["location"].update(
            address={"country": "US"}
        ),
        "rateDetail.routeInfo.stops[1].location",
    ),
    (
        lambda b: b["rateDetail"]["routeInfo"]["stops"][1]["location"]["address"].update(
            state="Atlantis"
        ),
        "rateDetail.routeInfo.stops[1].location.address.state",
    ),
    (
        lambda b: b["rateDetail"]["routeInfo"].update(
            routeSegments=[{"fromStopId": str(uuid.uuid4()), "toStopId": str(uuid.uuid4())}]
        ),
        "rateDetail.routeInfo.routeSegments[0].fromStopId",
    ),
    (
        lambda b: b["rateDetail"]["routeInfo"]["stops"][0]["location"].update(timeZone="Mars/Base"),
        "rateDetail.routeInfo.stops[0].location.timeZone",
    ),
    (
        lambda b: b.update(capacityProviderIdentifiers=[{"type": "CARRIER_SCAC", "value": "T00L"}]),
        "capacityProviderIdentifiers[0].value",
    ),
    (lambda b: b["rateDetail"].update(pickupDate="2001-01-01"), "rateDetail.pickupDate"),
    (lambda b: b["rateDetail"].update(pickupDate="9999-12-31"), "rateDetail.pickupDate"),
    (lambda b: b.update(expirationDateTime="9999-12-31T23:59:59-14:00"), "expirationDateTime"),
    (
        lambda b: b["rateDetail"].update(
            shipmentDetails=[{"handlingUnits": [{"weight": {"value": 1e300, "unit": "KG"}}]}]
        ),
        "rateDetail.shipmentDetails[0].handlingUnits[0].weight.value",
    ),
    (
        lambda b: b["rateDetail"].update(
            shipmentDetails=[{"handlingUnits": [{"dimensions": {**TOO_LONG, "unit": "IN"}}]}]
        ),
        "rateDetail.shipmentDetails[0].handlingUnits[0].dimensions.length",
    ),
]


def test_bad_rate_requests_name_the_field(tenant: TenantHandle) -> None:
    for change, source in BAD_REQUESTS:
        body = tl_request(["PRLF"])
        body["rateDetail"]["routeInfo"]["stops"] = [
            {**s, "location": {**s["location"], "address": dict(s["location"]["address"])}}
            for s in body["rateDetail"]["routeInfo"]["stops"]
        ]
        change(body)
        answer = tenant.http.post(RATE_REQUESTS, json=body)
        assert answer.status_code == 400, (source, answer.text)
        assert source in error_sources(answer), (source, answer.text)


def test_bad_ltl_freight_names_the_field(tenant: TenantHandle) -> None:
    unit = "rateDetail.shipmentDetails[0].handlingUnits[0]"
    five = {"value": 5, "unit": "LB"}
    cases = [
        ([{"freightClass": 70}], f"{unit}.weight"),
        ([{"weight": five}], f"{unit}.freightClass"),
        ([{"weight": five, "freightClass": 71}], f"{unit}.freightClass"),
        ([], "rateDetail.shipmentDetails"),
    ]
    for units, source in cases:
        answer = tenant.http.post(RATE_REQUESTS, json=ltl_request(["NBFL"], units))
        assert answer.status_code == 400, answer.text
        assert error_sources(answer) == [source]
    text = tenant.http.post(
        RATE_REQUESTS, content=b"{", headers={"content-type": "application/json"}
    )
    assert text.status_code == 400
    assert tenant.http.get(f"{RATE_REQUESTS}/not-a-uuid").status_code == 400


def test_cancellation_is_idempotent_and_returns_the_booking_in_progress(
    tenant: TenantHandle,
) -> None:
    set_profile(tenant, "PRLF", behaviour="SLOW")
    done = quoted(tenant, tl_request(["PRLF"], quoteTypeFilter="CONTRACT"))
    booking = create_booking(tenant, booking_of(done["quotes"][0]))
    first = tenant.http.post(f"{RATE_REQUESTS}/{done['id']}/cancellations")
    assert first.status_code == 200
    assert first.json() == {"rateRequestId": done["id"], "bookingId": booking["id"]}
    again = tenant.http.post(f"{RATE_REQUESTS}/{done['id']}/cancellations")
    assert again.status_code == 200 and again.json() == first.json()
    assert tenant.http.get(f"{RATE_REQUESTS}/{done['id']}").json()["status"] == "CANCELLED"
    assert tenant.http.get(f"{BOOKINGS}/{booking['id']}").json()["status"] == "CANCELLED"
    # A cancelled request cannot be booked.
    late = tenant.http.post(BOOKINGS, json=booking_of(done["quotes"][0]))
    assert late.status_code == 409
    # Without a booking there is no bookingId.
    plain = quoted(tenant, tl_request(["CSCX"]))
    answer = tenant.http.post(f"{RATE_REQUESTS}/{plain['id']}/cancellations")
    assert answer.json() == {"rateRequestId": plain["id"]}


def test_cancellation_with_an_accepted_booking_is_a_conflict(tenant: TenantHandle) -> None:
    set_profile(tenant, "PRLF", behaviour="ACCEPT", responseDelaySeconds=0)
    done = quoted(tenant, tl_request(["PRLF"], quoteTypeFilter="SPOT"))
    booking = create_booking(tenant, booking_of(done["quotes"][0]))
    booking_status(tenant, booking["id"], "BOOKED")
    refused = tenant.http.post(f"{RATE_REQUESTS}/{done['id']}/cancellations")
    assert refused.status_code == 409
    assert tenant.http.get(f"{RATE_REQUESTS}/{done['id']}").json()["status"] == "QUOTES_RECEIVED"
    # Once the booking itself is cancelled, the request can be cancelled.
    assert tenant.http.post(f"{BOOKINGS}/{booking['id']}/cancellations").status_code == 200
    assert tenant.http.post(f"{RATE_REQUESTS}/{done['id']}/cancellations").status_code == 200


def test_cancellation_needs_the_tenant_feature(tenant: TenantHandle) -> None:
    created = tenant.http.post(RATE_REQUESTS, json=tl_request(["PRLF"])).json()
    set_tenant_feature(tenant, "rateRequestCancellation", False)
    refused = tenant.http.post(f"{RATE_REQUESTS}/{created['id']}/cancellations")
    assert refused.status_code == 403
    assert "rateRequestCancellation" in refused.json()["errorMessage"]
    assert tenant.http.get(f"{RATE_REQUESTS}/{created['id']}").json()["status"] != "CANCELLED"
    set_tenant_feature(tenant, "rateRequestCancellation", True)
    assert tenant.http.post(f"{RATE_REQUESTS}/{created['id']}/cancellations").status_code == 200
    missing = tenant.http.post(f"{RATE_REQUESTS}/{uuid.uuid4()}/cancellations")
    assert missing.status_code == 404


def test_cancelled_or_expired_requests_take_no_more_quotes(tenant: TenantHandle) -> None:
    # The carrier quotes `quote_delay` after a request. The requests below must be made (and one
    # cancelled) within `expires_in`, and one expires before its quote is due. Under a load of 10
    # on 2 cores a request took at most 0.15 s (measured): a wide margin either way.
    quote_delay, expires_in = 1.5, 1.0
    set_profile(tenant, "SLWQ", quoteDelaySeconds=quote_delay)
    expiring = tenant.http.post(
        RATE_REQUESTS, json=tl_request(["SLWQ"], expirationDateTime=at(expires_in))
    )
    assert expiring.status_code == 200, expiring.text
    cancelled = tenant.http.post(RATE_REQUESTS, json=tl_request(["SLWQ"])).json()
    assert tenant.http.post(f"{RATE_REQUESTS}/{cancelled['id']}/cancellations").status_code == 200
    # Asked last, so quoted last: once it has its quote, the other two were due theirs.
    control = quoted(tenant, tl_request(["SLWQ"]))
    assert control["status"] == "QUOTES_RECEIVED" and control["quotes"]
    for request_id, status in ((expiring.json()["id"], "EXPIRED"), (cancelled["id"], "CANCELLED")):
        answer = tenant.http.get(f"{RATE_REQUESTS}/{request_id}").json()
        assert (answer["status"], answer["quotes"]) == (status, [])


def test_tenants_are_isolated(
    tenant: TenantHandle, tenant_factory: Callable[[], TenantHandle]
) -> None:
    other = tenant_factory()
    mine = quoted(tenant, tl_request(["PRLF"]))
    assert other.http.get(f"{RATE_REQUESTS}/{mine['id']}").status_code == 404
    assert other.http.post(f"{RATE_REQUESTS}/{mine['id']}/cancellations").status_code == 404
    # Another tenant cannot book my quote: to it, the rate identifier names nothing.
    theirs = other.http.post(BOOKINGS, json=booking_of(mine["quotes"][0]))
    assert theirs.status_code == 400 and error_sources(theirs) == ["shipmentId"]
    # Account groups and carrier profiles are the tenant's own.
    account_group(tenant, "MINE")
    set_profile(tenant, "QQQQ", accountGroupCodes=["MINE"], name="My carrier")
    assert other.http.get("/services/carriers/v1/profiles/QQQQ").json()["name"] == "Carrier QQQQ"
    denied = other.http.post(
        RATE_REQUESTS, json=tl_request(capacityProviderAccountGroups=[{"code": "MINE"}])
    )
    assert denied.status_code == 400


def test_cancellation_racing_the_carriers_answer_has_one_outcome(tenant: TenantHandle) -> None:
    """Whichever wins, the request and its booking agree; never a 500."""
    set_profile(tenant, "RACE", behaviour="ACCEPT", responseDelaySeconds=0.02)
    for _ in range(6):
        done = quoted(tenant, tl_request(["RACE"], quoteTypeFilter="SPOT"))
        booking = create_booking(tenant, booking_of(done["quotes"][0]))
        time.sleep(0.015)
        answer = tenant.http.post(f"{RATE_REQUESTS}/{done['id']}/cancellations")
        assert answer.status_code in (200, 409), answer.text
        final = poll(
            lambda b=booking: tenant.http.get(f"{BOOKINGS}/{b['id']}").json(),
            lambda b: b["status"] in ("BOOKED", "CANCELLED"),
        )
        status = tenant.http.get(f"{RATE_REQUESTS}/{done['id']}").json()["status"]
        if answer.status_code == 200:
            assert (final["status"], status) == ("CANCELLED", "CANCELLED")
            assert answer.json()["bookingId"] == booking["id"]
        else:
            assert (final["status"], status) == ("BOOKED", "QUOTES_RECEIVED")


def test_strict_bodies_answer_after_authentication_and_refuse_nul(tenant: TenantHandle) -> None:
    misspelt = {**tl_request(["PRLF"]), "quoteTypes": "ALL"}
    anonymous = httpx.post(f"{tenant.service.url}{RATE_REQUESTS}", json=misspelt)
    assert anonymous.status_code == 401  # the shape of the body is not told to strangers
    assert tenant.http.post(RATE_REQUESTS, json=misspelt).status_code == 400
    answer = tenant.http.post(RATE_REQUESTS, json=tl_request(["PRLF"], name="Chicago\x00Dallas"))
    assert answer.status_code == 400
    assert error_sources(answer) == ["name"]


def test_every_accessorial_the_engine_rates_has_a_name_the_app_shows() -> None:
    assert set(rate_engine.ACCESSORIALS) == set(ACCESSORIAL_NAMES)
    assert set(REQUESTABLE_ACCESSORIALS) == set(ACCESSORIAL_NAMES) - CHARGED_NOT_ASKED


HERSFELD = {
    "type": "PICKUP",
    "location": {
        "name": "Bad Hersfeld DC",
        "address": {"addressLines": ["Am Weinberg 12"], "city": "Bad Hersfeld", "state": "HE",
                    "postalCode": "36251", "country": "DE"},
        "coordinates": {"latitude": 50.869, "longitude": 9.707},
    },
}  # fmt: skip


def test_a_road_lane_across_an_ocean_is_refused_naming_its_destination(
    tenant: TenantHandle,
) -> None:
    dallas = "rateDetail.routeInfo.stops[1].location.address.country"
    body = tl_request(["PRLF"])
    body["rateDetail"]["routeInfo"]["stops"] = [
        HERSFELD,
        body["rateDetail"]["routeInfo"]["stops"][1],
    ]
    answer = tenant.http.post(RATE_REQUESTS, json=body)
    assert answer.status_code == 400, answer.text
    assert error_sources(answer) == [dallas]
    message = answer.json()["errors"][0]["message"]
    assert "Dallas store" in message and "not joined by road" in message, message
    # LTL goes by road too; the other way round names the German stop.
    ltl = ltl_request(["NBFL"], [{"weight": {"value": 500, "unit": "LB"}, "freightClass": 70}])
    ltl["rateDetail"]["routeInfo"]["stops"][1] = {**HERSFELD, "type": "DELIVERY"}
    answer = tenant.http.post(RATE_REQUESTS, json=ltl)
    assert answer.status_code == 400, answer.text
    assert "Bad Hersfeld DC" in answer.json()["errors"][0]["message"]
    # Across a land border of North America a truck drives: Mexico is quoted.
    body = tl_request(["PRLF"])
    mexico = {"addressLines": ["Av. Constitución 100"], "city": "Monterrey", "state": "NLE",
              "postalCode": "64000", "country": "MX"}  # fmt: skip
    body["rateDetail"]["routeInfo"]["stops"][1] = {
        "type": "DELIVERY", "location": {"name": "Monterrey DC", "address": mexico}
    }  # fmt: skip
    assert tenant.http.post(RATE_REQUESTS, json=body).status_code == 200
