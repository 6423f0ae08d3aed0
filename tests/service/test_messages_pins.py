"""Every rule of the plain-words table pinned to the words the local service really says.

Each case makes the real local service (over HTTP, SQLite) refuse a request or decline a quote,
reads its words as the app does (`error_from_response(...).field_errors()`, or a quote's alert),
and checks that the intended rule rewords them into the dispatcher's words. A change of the
service's wording fails here instead of reaching a dispatcher's screen as it is; a rule with
no case fails `test_every_rule_is_pinned`."""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any
from uuid import uuid4

import httpx
import pytest

from freightdesk.api.errors import error_from_response
from freightdesk.service.messages import _PLAIN, plain_words
from tests.server.test_carrier_push_support import (
    PARCEL,
    TRUCKLOAD,
    iso,
    now,
    parcel_body,
    truckload_body,
    unique,
)
from tests.server.test_documents import metadata, upload
from tests.server.test_rail import PATH as RAIL_LEGS
from tests.server.test_rail import leg_body
from tests.server.test_rating_support import (
    BOOKINGS,
    DALLAS,
    RATE_REQUESTS,
    booking_of,
    booking_status,
    create_booking,
    quoted,
    set_profile,
    standalone_booking,
    tl_request,
)
from tests.server.test_schedules import ROUTES
from tests.server.test_vehicles import PATH as VEHICLES
from tests.server.test_vehicles import join_coop
from tests.server.test_vehicles import query as vehicles_query
from tests.server.test_vltl import DISPATCH, PICKUP_DAY, USER, V2, dispatch_body, quote_body
from tests.server.test_webhooks import ALL_METHODS, CERT, KEY, MASK, OTHER_KEY
from tests.support import TenantHandle, tenant_of

WEBHOOKS = "/api/v4/webhooks"
STOP_LOCATIONS = "/api/v4/stoplocations"
P0 = "authenticationMethods[0].parameters"
P1 = "authenticationMethods[1].parameters"
ACCESSORIAL = "rateDetail.shippingDetails.accessorials[0].code"
BASIC = {"type": "BASIC", "parameters": {"username": "u", "password": "p"}}
MTLS = ALL_METHODS[3]

# A case: a fragment of the rule's pattern (naming the rule), what makes the service say its
# words (the field or alert code they are about, and the words), and the dispatcher's words.
Said = tuple[str, str]
Case = tuple[str, Callable[[TenantHandle], Said], str]


def _refused(answer: httpx.Response, source: str, status: int = 400) -> Said:
    """The service's words about `source` in its refusal, as the app's client reads them."""
    assert answer.status_code == status, answer.text
    problems = error_from_response(answer).field_errors()
    assert source in problems, problems
    return source, problems[source]


def _webhook(tenant: TenantHandle, source: str, **fields: Any) -> Said:
    body = {"configName": "orders", "url": "https://hooks.example.com/in", **fields}
    return _refused(tenant.http.put(WEBHOOKS, json=body), source)


def _methods(
    source: str, *methods: dict[str, Any], **fields: Any
) -> Callable[[TenantHandle], Said]:
    return lambda t: _webhook(t, source, authenticationMethods=list(methods), **fields)


def _rate_request(code: str) -> Callable[[TenantHandle], Said]:
    """A truckload rate request on the default dry van asking for `code`."""

    def send(tenant: TenantHandle) -> Said:
        body = tl_request(["NBFL"])
        body["rateDetail"]["shippingDetails"]["accessorials"] = [{"code": code}]
        return _refused(tenant.http.post(RATE_REQUESTS, json=body), ACCESSORIAL)

    return send


def _parcel(source: str, event_type: str, **extra: Any) -> Callable[[TenantHandle], Said]:
    body = parcel_body(unique("1Z"), event_type, **extra)
    return lambda t: _refused(t.http.post(PARCEL, json=body), source)


def _truckload(source: str, truckload: dict[str, Any]) -> Callable[[TenantHandle], Said]:
    return lambda t: _refused(t.http.post(TRUCKLOAD, json={"truckload": truckload}), source)


def _quote(source: str, **overrides: Any) -> Callable[[TenantHandle], Said]:
    body = quote_body(**overrides)
    return lambda t: _refused(t.http.post(V2, params=USER, json=body), source)


def _not_quoted(
    carrier: str, prepare: Callable[[TenantHandle], None], **overrides: Any
) -> Callable[[TenantHandle], Said]:
    """The alert by which `carrier` declines the quote, as the Volume LTL pane reads it."""

    def ask(tenant: TenantHandle) -> Said:
        prepare(tenant)
        body = quote_body(capacityProviderAccountGroup={"accounts": [{"code": carrier}]})
        answer = tenant.http.post(V2, params=USER, json={**body, **overrides})
        assert answer.status_code == 200, answer.text
        (quote,) = answer.json()["rateQuotes"]
        assert "rateQuoteDetail" not in quote, quote
        alert = quote["alerts"][0]
        return alert["code"], alert["message"]

    return ask


def _dispatch(
    source: str, change: Callable[[dict[str, Any]], object]
) -> Callable[[TenantHandle], Said]:
    def send(tenant: TenantHandle) -> Said:
        body = copy.deepcopy(dispatch_body())
        change(body)
        return _refused(tenant.http.post(DISPATCH, json=body), source)

    return send


def _unplaced(tenant: TenantHandle) -> Said:
    """A truckload rate request whose pickup is a city the service cannot place."""
    body = tl_request(["NBFL"])
    lancaster = {"address": {"city": "Lancaster", "country": "US"}}
    body["rateDetail"]["routeInfo"]["stops"] = [{"type": "PICKUP", "location": lancaster}, DALLAS]
    source = "rateDetail.routeInfo.stops[0].location"
    return _refused(tenant.http.post(RATE_REQUESTS, json=body), source)


def _sailings(source: str, **window: date) -> Callable[[TenantHandle], Said]:
    params = {"origin": "CNSHA", "destination": "NLRTM"}
    params.update({name: day.isoformat() for name, day in window.items()})
    return lambda t: _refused(t.http.get(ROUTES, params=params), source)


def _second_quote_booked(tenant: TenantHandle) -> Said:
    """Another quote of a rate request booked already (the Rates pane's Book this quote)."""
    set_profile(tenant, "ZZBK", behaviour="ACCEPT", responseDelaySeconds=0)
    request = quoted(tenant, tl_request(["ZZBK"]))
    first, second = request["quotes"][:2]  # its contract and spot quotes
    booking = create_booking(tenant, booking_of(first))
    booking_status(tenant, booking["id"], "BOOKED")
    return _refused(tenant.http.post(BOOKINGS, json=booking_of(second)), "rateIdentifiers", 409)


def _cancelled_booking_edited(tenant: TenantHandle) -> Said:
    """An edit of a booking cancelled meanwhile (the Bookings form's Save)."""
    set_profile(tenant, "ZZHD", behaviour="SLOW")
    booking = create_booking(tenant, standalone_booking("ZZHD"))
    path = f"{BOOKINGS}/{booking['id']}"
    assert tenant.http.post(f"{path}/cancellations").status_code == 200
    return _refused(tenant.http.put(path, json=standalone_booking("ZZHD")), "status", 409)


def _accepted_without_identifier(tenant: TenantHandle) -> Said:
    """A carrier accepting a truckload booking with no identifier tracking can follow (the
    Push pane's booking answer)."""
    set_profile(tenant, "ZZRV", behaviour="REVIEW", responseDelaySeconds=0)
    booking = create_booking(tenant, standalone_booking("ZZRV"))
    with tenant.as_role("CARRIER") as carrier:
        answer = carrier.post(
            f"{BOOKINGS}/{booking['id']}/carrier-response", json={"decision": "ACCEPT"}
        )
    return _refused(answer, "carrierProvidedIdentifiers")


def _unknown_shipper(tenant: TenantHandle) -> Said:
    """A document uploaded for a shipper company no one has (the Documents upload's)."""
    meta = metadata(identifiers=[{"type": "SHIPPER_TENANT_UUID", "value": str(uuid4())}])
    return _refused(upload(tenant.http, meta), "document.identifiers[0].value")


def _radius(tenant: TenantHandle) -> Said:
    """An available vehicles search 81 km around its centre (16 to 80 are searched)."""
    join_coop(tenant, f"POOL-{uuid4().hex[:8]}")
    body = vehicles_query(radius=81, radiusUnit="KM")
    return _refused(tenant.http.post(VEHICLES, json=body), "radius")


def _for_another_company(tenant: TenantHandle) -> Said:
    """A shipper's truckload push naming a customer (a carrier's account alone may)."""
    body = {"customerAccountNumber": str(uuid4()), **truckload_body("B1")}
    return _refused(tenant.http.post(TRUCKLOAD, json=body), "customerAccountNumber", 403)


def _for_no_company(tenant: TenantHandle) -> Said:
    """A carrier's truckload push naming a customer id no company has."""
    with tenant_of(tenant.service, "CARRIER") as carrier:
        body = {"customerAccountNumber": str(uuid4()), **truckload_body("B1")}
        return _refused(carrier.http.post(TRUCKLOAD, json=body), "customerAccountNumber")


def _nothing(_tenant: TenantHandle) -> None:
    return None


def _no_handling_units(tenant: TenantHandle) -> None:
    set_profile(tenant, "WWWW", supportsEnhancedHandlingUnits=False)


METRIC_ITEM = {
    "totalWeight": 2721.554,
    "freightClass": 70,
    "packageDimensions": {"length": 121.92, "width": 101.6, "height": 121.92},
    "totalPackages": 6,
}
HANDLING_UNITS = [
    {
        "handlingUnitQuantity": 6,
        "weightPerHandlingUnit": 1000,
        "freightClasses": ["70"],
        "handlingUnitDimensions": {"length": 48, "width": 40, "height": 48},
    }
]
DAY_BEFORE_PICKUP = (date.fromisoformat(PICKUP_DAY) - timedelta(days=1)).isoformat()

CASES: dict[str, Case] = {
    "state-or-postal-code": (
        r"state or postalCode is required for a street address",
        lambda t: _refused(
            t.http.post(
                STOP_LOCATIONS,
                json={"name": "x", "address": {"addressLines": ["1 Main St"], "city": "Austin"}},
            ),
            "address.state",
        ),
        "Enter a state or a postal code (or place the stop by coordinates)",
    ),
    "reefer": (
        r"needs a reefer trailer",
        _rate_request("REFRIGERATED"),
        "Temperature control needs a reefer: choose Reefer as the trailer type",
    ),
    "open-trailer": (
        r"goes with an open trailer",
        _rate_request("TARP"),
        "Tarping needs an open trailer: choose Flatbed or another open one",
    ),
    "header-used-twice": (
        r"is also used by",
        _methods(
            f"{P1}.headerName",
            ALL_METHODS[0],
            {"type": "API_KEY", "parameters": {"headerName": "x-key", "apiKey": "k"}},
        ),
        "Method 1 sends this header already: choose another name",
    ),
    "header-authorization": (
        r"conflicts with",
        _methods(
            f"{P1}.headerName",
            BASIC,
            {"type": "API_KEY", "parameters": {"headerName": "Authorization", "apiKey": "k"}},
        ),
        "Method 1 sends the Authorization header already: choose another name",
    ),
    "header-reserved": (
        r"is set by the service and cannot carry the key",
        _methods(
            f"{P0}.headerName",
            {"type": "API_KEY", "parameters": {"apiKey": "k", "headerName": "webhook-signature"}},
        ),
        "The service sets webhook-signature itself: choose another header for the key",
    ),
    "username-colon": (
        r"must not contain ':'",
        _methods(
            f"{P0}.username", {"type": "BASIC", "parameters": {"username": "a:b", "password": "p"}}
        ),
        "A user name for HTTP Basic cannot contain a colon (:)",
    ),
    "key-of-another-certificate": (
        r"does not belong to certificatePem",
        _methods(
            f"{P0}.privateKeyPem",
            {"type": "MTLS", "parameters": {"certificatePem": CERT, "privateKeyPem": OTHER_KEY}},
        ),
        "This private key does not belong to the certificate above",
    ),
    "not-a-certificate": (
        r"is not a PEM certificate",
        _methods(
            f"{P0}.certificatePem",
            {"type": "MTLS", "parameters": {"certificatePem": "not a cert", "privateKeyPem": KEY}},
        ),
        "Paste a certificate in PEM form (-----BEGIN CERTIFICATE-----)",
    ),
    "not-a-key": (
        r"is not an unencrypted PEM private key",
        _methods(
            f"{P0}.privateKeyPem",
            {"type": "MTLS", "parameters": {"certificatePem": CERT, "privateKeyPem": "nope"}},
        ),
        "Paste an unencrypted private key in PEM form (-----BEGIN PRIVATE KEY-----)",
    ),
    "mask-without-secret": (
        r"is the mask of a secret",
        _methods(
            f"{P0}.password", {"type": "BASIC", "parameters": {"username": "u", "password": MASK}}
        ),
        "Type the secret: none is stored for this method",
    ),
    "two-authorization-methods": (
        r"only one of BASIC, OAUTH2 and AD_OAUTH2_CERT",
        _methods("authenticationMethods[1]", BASIC, ALL_METHODS[2]),
        "Only one method can sign in with the Authorization header (HTTP Basic or OAuth 2.0): "
        "remove this one or choose another type",
    ),
    "two-certificates": (
        r"only one client certificate",
        _methods("authenticationMethods[1]", MTLS, MTLS),
        "Only one client certificate can be presented: remove this method",
    ),
    "certificate-over-http": (
        r"must be https://",
        _methods("url", MTLS, url="http://plain.example/h"),
        "Use an https:// address: a client certificate is presented over TLS only",
    ),
    "bill-of-lading-or-order": (
        r"billOfLadingNumber or orderNumber",
        _truckload(
            "truckload.identifiers",
            {"identifiers": {}, "shipmentEvent": {"eventType": "ARRIVED_AT_PICKUP"}},
        ),
        "Enter a bill of lading or an order number",
    ),
    "event-or-readings": (
        r"shipmentEvent or readings",
        _truckload("truckload", {"identifiers": {"billOfLadingNumber": "BOL-1"}}),
        "Tick Shipment event, Readings, or both",
    ),
    "position-or-sensor": (
        r"position or sensor",
        _truckload(
            "truckload.readings",
            {
                "identifiers": {"billOfLadingNumber": "BOL-1"},
                "readings": {"dateTime": iso(now() - timedelta(minutes=1))},
            },
        ),
        "Enter a latitude and longitude, or a reading: ignition, temperature, fuel level or "
        "more sensors",
    ),
    "position-update-location": (
        r"for POSITION_UPDATE",
        _parcel("location", "POSITION_UPDATE", location={}),
        "A position update needs a latitude and longitude, or an address",
    ),
    "eta-event": (
        r"is required for an ETA event",
        _parcel("estimatedTimeOfArrival", "ETA"),
        "An ETA event needs its ETA",
    ),
    "units-not-converted": (
        r"enableUnitConversion",
        _not_quoted("RDRN", _nothing, lineItems=[METRIC_ITEM], weightUnit="KG", lengthUnit="CM"),
        "Redrun Logistics rates only in LB and FT or IN: it does not convert units",
    ),
    "no-handling-units": (
        r"does not take enhancedHandlingUnits",
        _not_quoted("WWWW", _no_handling_units, lineItems=[], enhancedHandlingUnits=HANDLING_UNITS),
        "Carrier WWWW does not take handling units: give the freight as line items",
    ),
    "empty-account-group": (
        r"no account group",
        _quote("capacityProviderAccountGroup.code", capacityProviderAccountGroup={"code": "NONE"}),
        "Account group NONE has no carriers: choose another group or All my volume LTL carriers",
    ),
    "accessorial-not-offered": (
        r"is not offered",
        _quote("accessorialServices[0].code", accessorialServices=[{"code": "FLY"}]),
        "Volume LTL carriers do not offer FLY: untick it",
    ),
    "contact-required": (
        r"set a default contact",
        _dispatch(
            "originLocation.contact.phoneNumber",
            lambda b: b["originLocation"]["contact"].pop("phoneNumber"),
        ),
        "Required: this carrier has no default contact to use",
    ),
    "pickup-note-too-long": (
        r"the note sent to the carrier",
        _dispatch("pickupNote", lambda b: b.update(pickupNote="x" * 300)),
        "The carrier takes notes of 250 characters; with the services it notes, this one comes "
        "to 300: shorten it",
    ),
    "end-before-start": (
        r"must be after startTime",
        _dispatch("pickupWindow.endTime", lambda b: b["pickupWindow"].update(endTime="07:00")),
        "Must be after the start time",
    ),
    "delivery-before-pickup": (
        r"must not be before pickupWindow",
        _dispatch(
            "deliveryWindow.date",
            lambda b: b.update(
                deliveryWindow={"date": DAY_BEFORE_PICKUP, "startTime": "08:00", "endTime": "12:00"}
            ),
        ),
        "Must not be before the pickup day",
    ),
    "field-required": (
        r"Field required",
        lambda t: _refused(
            t.http.put(WEBHOOKS, json={"url": "https://hooks.example.com/in"}), "configName"
        ),
        "Fill this in",
    ),
    "cannot-be-placed": (
        r"cannot be placed",
        _unplaced,
        "FreightDesk cannot find this place: enter a city or a postal code it knows, or the "
        "state or province (US, Canada, Mexico)",
    ),
    "tracking-start-or-identifier": (
        r"no shipment identifier",
        lambda t: _refused(
            t.http.post(RAIL_LEGS, json=leg_body(shipmentIdentifiers=[])), "trackingStartDateTime"
        ),
        "Tick Start tracking at, or enter a bill of lading or a waybill",
    ),
    "window-in-order": (
        r"StartDate$",
        _sailings(
            "departureEndDate",
            departureStartDate=date.today() + timedelta(days=9),
            departureEndDate=date.today() + timedelta(days=2),
        ),
        "Must not be before the first departure day",
    ),
    "window-whole": (
        r"is required together with",
        _sailings("arrivalEndDate", arrivalStartDate=date.today()),
        "Enter both days of the arrival window",
    ),
    "header-name-empty": (
        r"^'' is not a valid",
        lambda t: _webhook(t, "methodHeaders", methodHeaders={"": "v"}),
        "Enter a header name",
    ),
    "header-name-invalid": (
        r"'(.+)' is not a valid",
        _methods(
            f"{P0}.headerName",
            {"type": "API_KEY", "parameters": {"apiKey": "k", "headerName": "X Team"}},
        ),
        "'X Team' cannot be a header name: use letters, digits and dashes",
    ),
    "booked-already": (
        r"already has (?:booking",
        _second_quote_booked,
        "This request is booked already: cancel that booking in Bookings first to book another"
        " quote",
    ),
    "booking-answered": (
        r"only PROCESSING or UNDER_REVIEW",
        _cancelled_booking_edited,
        "This booking was cancelled; only a booking being processed or under review can be changed",
    ),
    "tracking-identifier": (
        r"names the shipment",
        _accepted_without_identifier,
        "Give a bill of lading or purchase order number so the shipment can be found",
    ),
    "no-such-company": (
        r"no tenant has",
        _unknown_shipper,
        "No company has this id: check it with your partner",
    ),
    "carrier-for-another": (
        r"only a carrier tenant",
        _for_another_company,
        "Only a carrier's account may push updates for another company: leave this empty to "
        "update your own shipments",
    ),
    "no-such-customer": (
        r"names no customer tenant",
        _for_no_company,
        "No company has this id: check it with your customer",
    ),
    "radius-bounds": (
        r"must be from",
        _radius,
        "Enter from 16 to 80 kilometers",
    ),
}


def _rule_of(path: str, message: str) -> str | None:
    """The pattern of the rule `plain_words` applies (the same order and field match)."""
    for ending, pattern, _words in _PLAIN:
        if ending and not (path == ending or path.endswith("." + ending)):
            continue
        if pattern.match(message):
            return pattern.pattern
    return None


@pytest.mark.parametrize("name", list(CASES))
def test_the_service_words_come_out_plain(tenant_: TenantHandle, name: str) -> None:
    rule, produce, words = CASES[name]
    path, message = produce(tenant_)
    chosen = _rule_of(path, message)
    assert chosen is not None and rule in chosen, (path, message, chosen)
    assert plain_words(path, message) == words


def test_every_rule_is_pinned() -> None:
    """One case names each rule (by a fragment found in its pattern alone)."""
    patterns = [pattern.pattern for _ending, pattern, _words in _PLAIN]
    named = {name: [p for p in patterns if rule in p] for name, (rule, _, _) in CASES.items()}
    assert {name: len(found) for name, found in named.items() if len(found) != 1} == {}
    assert sorted(found[0] for found in named.values()) == sorted(patterns)
