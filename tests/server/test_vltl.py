"""Volume LTL quotes and dispatch over real HTTP: every body rule, the user query object,
units, currency, overrides, linear feet, dispatch rules, tracking and tenant isolation."""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.server.test_rating_support import (
    account_group,
    error_sources,
    set_profile,
    set_tenant_feature,
)
from tests.support import TenantHandle

V2 = "/api/v2/vltl/quotes/rates/query"
V3 = "/api/v3/vltl/shipments/rates/query"
DISPATCH = "/api/v4/vltl/dispatchedshipments"
USER = {"username": "dispatcher@example.com", "enabled": "true"}
PICKUP_DAY = (datetime.now(UTC) + timedelta(days=3)).date().isoformat()

HAZMAT = {
    "hazardClass": "3",
    "identificationNumber": "UN1203",
    "properShippingName": "Gasoline",
    "packingGroup": "II",
}
PALLETS = {
    "totalWeight": 6000,
    "freightClass": 70,
    "packageDimensions": {"length": 48, "width": 40, "height": 48},
    "totalPackages": 6,
    "description": "Canned goods",
}


def quote_body(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "originAddress": {"addressLines": ["1 Dock Rd"], "city": "Chicago", "state": "IL",
                          "postalCode": "60607"},
        "destinationAddress": {"city": "Dallas", "state": "TX", "postalCode": "75201"},
        "pickupWindow": {"date": PICKUP_DAY, "startTime": "08:00", "endTime": "12:00"},
        "lineItems": [dict(PALLETS)],
        "lengthUnit": "IN",
        "capacityProviderAccountGroup": {"accounts": [{"code": "NBFL"}, {"code": "RDRN"}]},
    }  # fmt: skip
    body.update(overrides)
    return body


def location(**contact: Any) -> dict[str, Any]:
    return {
        "address": {"addressLines": ["1 Dock Rd"], "city": "Chicago", "state": "IL",
                    "postalCode": "60607"},
        "contact": {"companyName": "Acme", "contactName": "Ann", "phoneNumber": "3125550100",
                    **contact},
    }  # fmt: skip


def dispatch_body(scac: str = "RDRN", **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "capacityProviderAccountGroup": {"accounts": [{"code": scac}]},
        "originLocation": location(),
        "destinationLocation": {
            **location(),
            "address": {
                "addressLines": ["9 Elm St"],
                "city": "Dallas",
                "state": "TX",
                "postalCode": "75201",
            },
        },
        "requesterLocation": location(email="ann@acme.example"),
        "lineItems": [dict(PALLETS)],
        "pickupWindow": {"date": PICKUP_DAY, "startTime": "08:00", "endTime": "12:00"},
        "capacityProviderQuoteNumber": "RDRN-EXT-1",
    }
    body.update(overrides)
    return body


def rates(tenant: TenantHandle, body: dict[str, Any], path: str = V2) -> list[dict[str, Any]]:
    answer = tenant.http.post(path, params=USER, json=body)
    assert answer.status_code == 200, answer.text
    return list(answer.json()["rateQuotes"])


def priced(quotes: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (q["carrierCode"], q["serviceLevel"]["code"]): q for q in quotes if "rateQuoteDetail" in q
    }


def test_both_paths_quote_alike_and_plausibly(tenant: TenantHandle) -> None:
    v2 = priced(rates(tenant, quote_body()))
    v3 = priced(rates(tenant, quote_body(), V3))
    assert set(v2) == set(v3) == {("NBFL", "STANDARD"), ("RDRN", "STANDARD")}
    for key, quote in v2.items():
        assert quote["rateQuoteDetail"] == v3[key]["rateQuoteDetail"]
        assert quote["capacityProviderQuoteNumber"] != v3[key]["capacityProviderQuoteNumber"]
        assert quote["mode"] == "VOLUME_LTL" and quote["currencyCode"] == "USD"
        # Six 48x40x48 pallets side by side two across: 3 rows of 4 ft.
        assert quote["totalLinearFeet"] == 12
        assert quote["billedWeight"] == {"value": 6000.0, "unit": "LB"}
        assert quote["direction"] == "SHIPPER" and quote["paymentTerms"] == "PREPAID"
        total = quote["rateQuoteDetail"]["total"]
        assert total == pytest.approx(sum(c["amount"] for c in quote["rateQuoteDetail"]["charges"]))
        # About 925 miles with a quarter of a truck: several hundred dollars, not thousands.
        assert 600 < total < 1600
        assert quote["deliveryDate"] > PICKUP_DAY and quote["transitDays"] >= 2


def test_the_user_query_object(tenant: TenantHandle) -> None:
    missing = tenant.http.post(V2, json=quote_body())
    assert missing.status_code == 400 and error_sources(missing) == ["user"]
    disabled = tenant.http.post(V3, params={"username": "x", "enabled": "false"}, json=quote_body())
    assert disabled.status_code == 403
    locked = tenant.http.post(V2, params={"accountNonLocked": "false"}, json=quote_body())
    assert locked.status_code == 403
    foreign = tenant.http.post(V2, params={"tenantUuid": str(uuid.uuid4())}, json=quote_body())
    assert foreign.status_code == 400 and error_sources(foreign) == ["tenantUuid"]
    mine = tenant.http.post(V2, params={"tenantUuid": tenant.uuid}, json=quote_body())
    assert mine.status_code == 200
    for params, source in (
        ({"enabled": "perhaps"}, "enabled"),
        ({"id": "seven"}, "id"),
        ({"tenantPurpose": "FUN"}, "tenantPurpose"),
        ({"registrationDate": "2024-01-01T10:00:00"}, "registrationDate"),
    ):
        answer = tenant.http.post(V2, params=params, json=quote_body())
        assert answer.status_code == 400 and error_sources(answer) == [source], answer.text


def test_bad_quote_bodies_name_the_field(tenant: TenantHandle) -> None:
    hazmat = {k: v for k, v in HAZMAT.items() if k != "packingGroup"}
    bad_un = {**HAZMAT, "identificationNumber": "1203"}
    cases: list[tuple[dict[str, Any], str]] = [
        (quote_body(lineItems=[]), "lineItems"),
        (quote_body(lineItems=[{**PALLETS, "freightClass": 71}]), "lineItems[0].freightClass"),
        (quote_body(lineItems=[{**PALLETS, "totalWeight": None}]), "lineItems[0].totalWeight"),
        (
            quote_body(lineItems=[{**PALLETS, "hazmatDetail": hazmat}]),
            "lineItems[0].hazmatDetail.packingGroup",
        ),
        (
            quote_body(lineItems=[{**PALLETS, "hazmatDetail": bad_un}]),
            "lineItems[0].hazmatDetail.identificationNumber",
        ),
        (quote_body(preferredCurrency="GBP"), "preferredCurrency"),
        (quote_body(weightUnit="TON"), "weightUnit"),
        (quote_body(directionOverride="SIDEWAYS"), "directionOverride"),
        (quote_body(paymentTermsOverride="LATER"), "paymentTermsOverride"),
        (quote_body(accessorialServices=[{"code": "FLY"}]), "accessorialServices[0].code"),
        (
            quote_body(accessorialServices=[{"code": "GUR"}, {"code": "EXPEDITE"}]),
            "accessorialServices",
        ),
        (
            quote_body(destinationAddress={"state": "ZZ", "postalCode": "75201"}),
            "destinationAddress.state",
        ),
        # The postal code is required in the document, not only by the rules.
        (quote_body(destinationAddress={"state": "TX"}), "destinationAddress.postalCode"),
        (
            quote_body(destinationAddress={"state": "TX", "postalCode": " "}),
            "destinationAddress.postalCode",
        ),
        (quote_body(originAddress={"city": "Nowhere", "state": "IL"}), "originAddress.postalCode"),
        (quote_body(colour="red"), "colour"),
        (
            quote_body(capacityProviderAccountGroup={"code": "NONE"}),
            "capacityProviderAccountGroup.code",
        ),
        (
            quote_body(enhancedHandlingUnits=[{"freightClasses": ["70"]}], lineItems=[]),
            "enhancedHandlingUnits[0].weightPerHandlingUnit",
        ),
        (quote_body(totalLinearFeet=0), "totalLinearFeet"),
        (quote_body(pickupWindow={"date": "9999-12-31"}), "pickupWindow.date"),
        (quote_body(lineItems=[{**PALLETS, "totalWeight": 1e300}]), "lineItems[0].totalWeight"),
    ]  # fmt: skip
    for body, source in cases:
        answer = tenant.http.post(V2, params=USER, json=body)
        assert answer.status_code == 400, (source, answer.text)
        assert source in error_sources(answer), (source, answer.text)


def test_units_and_conversion(tenant: TenantHandle) -> None:
    carriers = {"accounts": [{"code": "RDRN"}, {"code": "MPLF"}]}
    metric_item = {
        "totalWeight": 2721.554,
        "freightClass": 70,
        "packageDimensions": {"length": 121.92, "width": 101.6, "height": 121.92},
        "totalPackages": 6,
    }
    metric = quote_body(
        lineItems=[metric_item],
        weightUnit="KG",
        lengthUnit="CM",
        capacityProviderAccountGroup=carriers,
    )
    answer = {q["carrierCode"]: q for q in rates(tenant, metric)}
    # Without conversion only the carrier rating in metric units quotes.
    assert (
        answer["RDRN"]["alerts"][0]["severity"] == "ERROR"
        and "rateQuoteDetail" not in answer["RDRN"]
    )
    assert "enableUnitConversion" in answer["RDRN"]["alerts"][0]["message"]
    assert (
        answer["MPLF"]["currencyCode"] == "CAD" and answer["MPLF"]["billedWeight"]["unit"] == "KG"
    )
    converted = {
        q["carrierCode"]: q
        for q in rates(tenant, {**metric, "apiConfiguration": {"enableUnitConversion": True}})
    }
    imperial = {
        q["carrierCode"]: q
        for q in rates(tenant, quote_body(capacityProviderAccountGroup=carriers))
    }
    assert converted["RDRN"]["rateQuoteDetail"]["total"] == pytest.approx(
        imperial["RDRN"]["rateQuoteDetail"]["total"], abs=0.05
    )
    assert converted["RDRN"]["totalLinearFeet"] == 12
    # The preferred system of measurement decides the billed weight's unit.
    kilos = rates(tenant, quote_body(preferredSystemOfMeasurement="METRIC"))[0]
    assert kilos["billedWeight"] == {"value": pytest.approx(2721.6, abs=0.1), "unit": "KG"}


def test_currency_and_overrides(tenant: TenantHandle) -> None:
    usd = priced(rates(tenant, quote_body()))[("RDRN", "STANDARD")]
    cad = priced(rates(tenant, quote_body(preferredCurrency="CAD")))[("RDRN", "STANDARD")]
    assert cad["currencyCode"] == "CAD"
    assert cad["rateQuoteDetail"]["total"] == pytest.approx(
        usd["rateQuoteDetail"]["total"] * 1.36, abs=0.1
    )
    group = {"accounts": [{"code": "RDRN"}, {"code": "HRZN"}]}
    body = quote_body(
        directionOverride="CONSIGNEE",
        paymentTermsOverride="COLLECT",
        capacityProviderAccountGroup=group,
    )
    by_carrier = {q["carrierCode"]: q for q in rates(tenant, body)}
    assert (by_carrier["RDRN"]["direction"], by_carrier["RDRN"]["paymentTerms"]) == (
        "CONSIGNEE",
        "COLLECT",
    )
    # Horizon's account does not allow overrides: its own terms apply, with a warning.
    assert (by_carrier["HRZN"]["direction"], by_carrier["HRZN"]["paymentTerms"]) == (
        "SHIPPER",
        "PREPAID",
    )
    assert by_carrier["HRZN"]["alerts"][0]["code"] == "OVERRIDE_NOT_ALLOWED"


def test_linear_feet(tenant: TenantHandle) -> None:
    given = rates(tenant, quote_body(totalLinearFeet=20))[0]
    assert given["totalLinearFeet"] == 20
    stacked = {**PALLETS, "stackable": True}
    assert rates(tenant, quote_body(lineItems=[stacked]))[0]["totalLinearFeet"] == 8
    no_dims = {k: v for k, v in PALLETS.items() if k != "packageDimensions"}
    refused = tenant.http.post(V2, params=USER, json=quote_body(lineItems=[no_dims]))
    assert refused.status_code == 400 and error_sources(refused) == ["totalLinearFeet"]
    set_tenant_feature(tenant, "volumeVisualization", False)
    off = tenant.http.post(V2, params=USER, json=quote_body())
    assert off.status_code == 400 and error_sources(off) == ["totalLinearFeet"]
    assert rates(tenant, quote_body(totalLinearFeet=12))


def test_service_levels_and_accessorials(tenant: TenantHandle) -> None:
    config = {"accessorialServiceConfiguration": {"fetchAllServiceLevels": True}}
    levels = priced(rates(tenant, quote_body(apiConfiguration=config)))
    assert {level for carrier, level in levels if carrier == "RDRN"} == {
        "STANDARD", "GUARANTEED_PM", "GUARANTEED_AM", "EXPEDITED"
    }  # fmt: skip
    standard = levels[("RDRN", "STANDARD")]
    expedited = levels[("RDRN", "EXPEDITED")]
    assert expedited["rateQuoteDetail"]["total"] > standard["rateQuoteDetail"]["total"]
    assert expedited["transitDays"] < standard["transitDays"]
    guaranteed = rates(tenant, quote_body(accessorialServices=[{"code": "GUR"}]))[0]
    assert guaranteed["serviceLevel"]["code"] == "GUARANTEED_PM"
    inside = {"accessorialServiceConfiguration": {"fetchAllInsideDelivery": True}}
    variants = [
        q for q in rates(tenant, quote_body(apiConfiguration=inside)) if q["carrierCode"] == "RDRN"
    ]
    assert len(variants) == 2
    assert any(
        c["code"] == "INDEL"
        for c in variants[1]["rateQuoteDetail"]["charges"]
        + variants[0]["rateQuoteDetail"]["charges"]
    )
    liftgate = rates(tenant, quote_body(accessorialServices=[{"code": "LGDEL"}]))[0]
    assert {"code": "LGDEL", "description": "Liftgate at delivery", "amount": 75.0} in liftgate[
        "rateQuoteDetail"
    ]["charges"]
    lenient = {"accessorialServiceConfiguration": {"allowUnacceptedAccessorials": True}}
    flown = rates(
        tenant, quote_body(accessorialServices=[{"code": "FLY"}], apiConfiguration=lenient)
    )
    assert flown[0]["alerts"][0]["code"] == "ACCESSORIAL_NOT_ACCEPTED"
    hazmat = HAZMAT
    dangerous = rates(tenant, quote_body(lineItems=[{**PALLETS, "hazmatDetail": hazmat}]))[0]
    assert any(c["code"] == "HAZM" for c in dangerous["rateQuoteDetail"]["charges"])


def test_carriers_of_the_account_group(tenant: TenantHandle) -> None:
    account_group(tenant, "VOLUME")
    set_profile(tenant, "VVVV", accountGroupCodes=["VOLUME"], maxLineItems=1)
    set_profile(tenant, "WWWW", accountGroupCodes=["VOLUME"], supportsEnhancedHandlingUnits=False)
    group = {"code": "VOLUME"}
    two_items = quote_body(
        lineItems=[dict(PALLETS), dict(PALLETS)], capacityProviderAccountGroup=group
    )
    answer = {q["carrierCode"]: q for q in rates(tenant, two_items)}
    assert set(answer) == {"VVVV", "WWWW"}
    assert "at most 1 line items" in answer["VVVV"]["alerts"][0]["message"]
    assert "rateQuoteDetail" in answer["WWWW"]
    units = [{"handlingUnitQuantity": 6, "weightPerHandlingUnit": 1000, "freightClasses": ["70"],
              "handlingUnitDimensions": {"length": 48, "width": 40, "height": 48}}]  # fmt: skip
    ehu = {q["carrierCode"]: q for q in rates(tenant, quote_body(
        lineItems=[], enhancedHandlingUnits=units, capacityProviderAccountGroup=group
    ))}  # fmt: skip
    assert "rateQuoteDetail" in ehu["VVVV"] and ehu["VVVV"]["totalLinearFeet"] == 12
    assert "enhancedHandlingUnits" in ehu["WWWW"]["alerts"][0]["message"]
    fallback = quote_body(
        capacityProviderAccountGroup={"code": "NONE"},
        apiConfiguration={"fallBackToDefaultAccountGroup": True},
    )
    defaults = rates(tenant, fallback)
    assert {"NBFL", "RDRN", "HRZN"} <= {q["carrierCode"] for q in defaults}
    assert defaults[0]["alerts"][0]["code"] == "DEFAULT_ACCOUNT_GROUP"
    slow = set_profile(tenant, "SLWV", quoteDelaySeconds=3)
    assert slow["quoteDelaySeconds"] == 3
    only_slow = {"accounts": [{"code": "SLWV"}]}
    timed = rates(
        tenant, quote_body(capacityProviderAccountGroup=only_slow, apiConfiguration={"timeout": 1})
    )
    assert "did not answer within 1 s" in timed[0]["alerts"][0]["message"]


def test_dispatch_creates_a_trackable_shipment(tenant: TenantHandle) -> None:
    quote = priced(rates(tenant, quote_body()))[("RDRN", "STANDARD")]
    body = dispatch_body(
        capacityProviderQuoteNumber=quote["capacityProviderQuoteNumber"],
        rateQuoteId=quote["id"],
        shipmentIdentifiers=[
            {"type": "PURCHASE_ORDER", "value": "PO-42"},
            {"type": "EXTERNAL", "value": "TMS-9"},
        ],
        pickupNote="Dock 4",
        deliveryNote="Call ahead",
        accessorialServices=[{"code": "LGDEL"}, {"code": "SORTSEG"}],
    )
    answer = tenant.http.post(DISPATCH, json=body)
    assert answer.status_code == 200, answer.text
    shipped = answer.json()
    assert shipped["status"] == "DISPATCHED" and shipped["carrierCode"] == "RDRN"
    assert shipped["rateQuoteId"] == quote["id"]
    assert shipped["pickupNumber"] and shipped["proNumber"]
    kinds = {i["type"]: i["value"] for i in shipped["shipmentIdentifiers"]}
    assert set(kinds) == {"PURCHASE_ORDER", "EXTERNAL", "BILL_OF_LADING", "SYSTEM_GENERATED"}
    # Accessorials without an API field and the delivery note go in the pickup note.
    assert shipped["pickupNote"] == "Dock 4 | Delivery: Call ahead | Services: Sort and segregate"
    tracked = tenant.http.get(f"/api/v4/shipments/{shipped['shipmentId']}/tracking").json()
    identifiers = {(i["type"], i["value"]) for i in tracked["identifiers"]}
    assert {("PRO", shipped["proNumber"]), ("BILL_OF_LADING", kinds["BILL_OF_LADING"]),
            ("PURCHASE_ORDER", "PO-42"), ("CARRIER_SCAC", "RDRN")} <= identifiers  # fmt: skip
    # EXTERNAL is kept and tracked, but not sent to the carrier as an identifier.
    assert not any(i["type"] == "EXTERNAL" for i in tracked["identifiers"])
    assert {"name": "EXTERNAL", "values": ["TMS-9"]} in tracked["attributes"]
    assert tracked["plan"]["expectedTransportationModes"] == ["VLTL"]


def test_dispatch_options(tenant: TenantHandle) -> None:
    pickup_only = tenant.http.post(
        DISPATCH, json=dispatch_body(apiConfiguration={"pickupOnly": True})
    )
    assert pickup_only.status_code == 200 and "proNumber" not in pickup_only.json()
    scheduled = tenant.http.post(
        DISPATCH, json=dispatch_body(apiConfiguration={"preScheduledPickup": True})
    )
    assert scheduled.status_code == 200 and "pickupNumber" not in scheduled.json()
    long_note = "x" * 300
    cut = tenant.http.post(
        DISPATCH,
        json=dispatch_body(
            pickupNote=long_note, apiConfiguration={"noteConfiguration": {"enableTruncation": True}}
        ),
    )
    assert cut.status_code == 200 and len(cut.json()["pickupNote"]) == 250
    assert cut.json()["alerts"][0]["code"] == "PICKUP_NOTE_TRUNCATED"
    only_pickup = {"noteConfiguration": {"noteSections": [{"name": "PICKUP_NOTE"}]}}
    sections = tenant.http.post(
        DISPATCH, json=dispatch_body(pickupNote="A", deliveryNote="B", apiConfiguration=only_pickup)
    )
    assert sections.json()["pickupNote"] == "A"
    # A carrier with several SCACs needs carrierCode.
    northbridge = tenant.http.post(DISPATCH, json=dispatch_body("NBFL", carrierCode="NBFC"))
    assert northbridge.status_code == 200 and northbridge.json()["carrierCode"] == "NBFC"
    # The account's default contacts stand in for missing ones.
    set_profile(
        tenant,
        "DFLT",
        defaultContacts={
            "origin": {"companyName": "Acme", "contactName": "Bo", "phoneNumber": "1"}
        },
    )
    body = dispatch_body("DFLT")
    body["originLocation"] = {"address": body["originLocation"]["address"]}
    assert tenant.http.post(DISPATCH, json=body).status_code == 200


def _dispatch_cases() -> list[tuple[Callable[[dict[str, Any]], Any], list[str]]]:
    hazmat = HAZMAT

    def drop(*path: str) -> Callable[[dict[str, Any]], Any]:
        def change(body: dict[str, Any]) -> None:
            target = body
            for key in path[:-1]:
                target = target[key]
            del target[path[-1]]

        return change

    return [
        (drop("capacityProviderQuoteNumber"), ["capacityProviderQuoteNumber"]),
        (drop("capacityProviderAccountGroup"), ["capacityProviderAccountGroup"]),
        (drop("pickupWindow"), ["pickupWindow"]),
        (drop("pickupWindow", "startTime"), ["pickupWindow.startTime"]),
        (lambda b: b["pickupWindow"].update(endTime="07:00"), ["pickupWindow.endTime"]),
        (lambda b: b["pickupWindow"].update(date="2001-01-01"), ["pickupWindow.date"]),
        (drop("originLocation", "contact", "phoneNumber"), ["originLocation.contact.phoneNumber"]),
        (drop("requesterLocation", "contact", "email"), ["requesterLocation.contact.email"]),
        (
            drop("destinationLocation", "address", "addressLines"),
            ["destinationLocation.address.addressLines"],
        ),
        (drop("originLocation", "address", "state"), ["originLocation.address.state"]),
        (
            lambda b: b["lineItems"][0].pop("packageDimensions"),
            ["lineItems[0].packageDimensions"],
        ),
        (lambda b: b["lineItems"][0].pop("freightClass"), ["lineItems[0].freightClass"]),
        (lambda b: b.update(lineItems=[]), ["lineItems"]),
        (lambda b: b["lineItems"][0].update(hazmatDetail=hazmat), ["emergencyContact"]),
        (
            lambda b: b.update(accessorialServices=[{"code": "HAZM"}]),
            ["lineItems"],
        ),
        (
            lambda b: b.update(shipmentIdentifiers=[{"type": "SYSTEM_GENERATED", "value": "1"}]),
            ["shipmentIdentifiers[0].type"],
        ),
        (
            lambda b: b.update(shipmentIdentifiers=[{"type": "PRO", "value": "1"}]),
            ["shipmentIdentifiers[0].type"],
        ),
        (
            lambda b: b.update(
                shipmentIdentifiers=[
                    {"type": "PURCHASE_ORDER", "value": "1"},
                    {"type": "PURCHASE_ORDER", "value": "2"},
                ]
            ),
            ["shipmentIdentifiers[1].type"],
        ),
        (lambda b: b.update(accessorialServices=[{"code": "GUR"}]), ["deliveryWindow"]),
        (
            lambda b: b.update(accessorialServices=[{"code": "FLY"}]),
            ["accessorialServices[0].code"],
        ),
        (
            lambda b: b["capacityProviderAccountGroup"]["accounts"].append({"code": "NBFL"}),
            ["capacityProviderAccountGroup.accounts"],
        ),
        (lambda b: b.update(carrierCode="ZZZZ"), ["carrierCode"]),
        (lambda b: b.update(rateQuoteId=str(uuid.uuid4())), ["rateQuoteId"]),
        (
            lambda b: b.update(apiConfiguration={"pickupOnly": True, "preScheduledPickup": True}),
            ["apiConfiguration.preScheduledPickup"],
        ),
        (lambda b: b.update(weightUnit="KG"), ["weightUnit"]),
        (lambda b: b.update(pickupNote="x" * 300), ["pickupNote"]),
        (
            lambda b: b.update(
                capacityProviderAccountGroup={"code": "NOPE", "accounts": [{"code": "RDRN"}]}
            ),
            ["capacityProviderAccountGroup.code"],
        ),
        (lambda b: b.update(unknown=1), ["unknown"]),
    ]


def test_bad_dispatches_name_the_field(tenant: TenantHandle) -> None:
    for change, sources in _dispatch_cases():
        body = copy.deepcopy(dispatch_body())
        change(body)
        answer = tenant.http.post(DISPATCH, json=body)
        assert answer.status_code == 400, (sources, answer.text)
        assert error_sources(answer) == sources, answer.text
    # Several problems are reported at once.
    body = dispatch_body()
    del body["originLocation"]["contact"]
    answer = tenant.http.post(DISPATCH, json=body)
    assert error_sources(answer) == [
        "originLocation.contact.companyName",
        "originLocation.contact.contactName",
        "originLocation.contact.phoneNumber",
    ]
    multi = tenant.http.post(DISPATCH, json=dispatch_body("NBFL"))
    assert multi.status_code == 400 and error_sources(multi) == ["carrierCode"]
    hazardous = dispatch_body()
    hazardous["lineItems"][0]["hazmatDetail"] = HAZMAT
    hazardous["emergencyContact"] = {"contactName": "Chemtrec", "phoneNumber": "8004249300"}
    assert tenant.http.post(DISPATCH, json=hazardous).status_code == 200


def test_dispatch_of_a_quote_checks_it(
    tenant: TenantHandle, tenant_factory: Callable[[], TenantHandle]
) -> None:
    quote = priced(rates(tenant, quote_body()))[("NBFL", "STANDARD")]
    wrong_number = dispatch_body(
        "NBFL", carrierCode="NBFL", rateQuoteId=quote["id"], capacityProviderQuoteNumber="X"
    )
    answer = tenant.http.post(DISPATCH, json=wrong_number)
    assert answer.status_code == 400 and error_sources(answer) == ["capacityProviderQuoteNumber"]
    wrong_carrier = dispatch_body(capacityProviderQuoteNumber=quote["capacityProviderQuoteNumber"])
    answer = tenant.http.post(DISPATCH, json=wrong_carrier)
    assert answer.status_code == 400
    assert error_sources(answer) == ["capacityProviderAccountGroup.accounts[0].code"]
    # Another tenant's quote id names nothing for it.
    other = tenant_factory()
    stolen = dispatch_body(
        "NBFL",
        carrierCode="NBFL",
        rateQuoteId=quote["id"],
        capacityProviderQuoteNumber=quote["capacityProviderQuoteNumber"],
    )
    answer = other.http.post(DISPATCH, json=stolen)
    assert answer.status_code == 400 and error_sources(answer) == ["rateQuoteId"]
    assert tenant.http.post(DISPATCH, json=stolen).status_code == 200
    # The other tenant's carrier profiles and account groups are its own.
    account_group(tenant, "VOLUME")
    set_profile(tenant, "VVVV", accountGroupCodes=["VOLUME"])
    refused = other.http.post(
        V2, params=USER, json=quote_body(capacityProviderAccountGroup={"code": "VOLUME"})
    )
    assert refused.status_code == 400
