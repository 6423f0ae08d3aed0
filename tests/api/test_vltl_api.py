"""The volume LTL client against the real local service: typed quotes, the user query object,
dispatch of a quote into a tracked shipment, typed refusals and isolation, the v2 fallback, a
dispatch never sent again blindly, and answers the interface does not promise."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import httpx
import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import BadRequest, PermissionDenied, ProtocolError, ServerError
from freightdesk.api.vltl import DISPATCH_PATH, V2_QUOTES_PATH, V3_QUOTES_PATH
from freightdesk.models.vltl import (
    AlertSeverity,
    DispatchRequest,
    DispatchStatus,
    RateQuote,
    VltlQuoteRequest,
    VltlUser,
)
from tests.api.conftest import client_via
from tests.proxy import Fault, FaultyProxy
from tests.server.test_vltl import PICKUP_DAY, dispatch_body, quote_body
from tests.support import LiveService, TenantHandle, make_tenant

USER = VltlUser(username="dispatcher@example.com", enabled=True)


class RecordingTransport(httpx.AsyncHTTPTransport):
    """The real transport, keeping the JSON bodies sent: what went on the wire."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[tuple[str, Any]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.headers.get("content-type") == "application/json":
            self.sent.append((request.url.path, json.loads(request.content)))
        return await super().handle_async_request(request)


def request(**overrides: Any) -> VltlQuoteRequest:
    return VltlQuoteRequest.model_validate(quote_body(**overrides))


def dispatch(scac: str = "RDRN", **overrides: Any) -> DispatchRequest:
    return DispatchRequest.model_validate(dispatch_body(scac, **overrides))


def priced(quotes: list[RateQuote], scac: str) -> RateQuote:
    return next(q for q in quotes if q.carrier_code == scac and q.rate_quote_detail is not None)


async def test_quotes_are_typed(client: ApiClient) -> None:
    quotes = await client.vltl.query_rates(request(), user=USER)
    assert {q.carrier_code for q in quotes} == {"NBFL", "RDRN"}
    totals = [q.rate_quote_detail.total for q in quotes if q.rate_quote_detail]
    assert totals == sorted(totals)  # cheapest first
    quote = priced(quotes, "RDRN")
    detail = quote.rate_quote_detail
    assert detail is not None and detail.total == pytest.approx(
        sum(c.amount for c in detail.charges)
    )
    assert quote.capacity_provider_quote_number and quote.currency_code == "USD"
    assert quote.total_linear_feet == 12 and quote.billed_weight is not None
    assert quote.delivery_date is not None and quote.delivery_date > date.today()
    assert quote.expiration_date_time is not None
    assert quote.expiration_date_time > datetime.now(UTC) + timedelta(hours=71)

    # A carrier that cannot quote answers why, without a price.
    metric = request(weightUnit="KG")
    refused = [q for q in await client.vltl.query_rates(metric, user=USER) if q.alerts]
    assert refused and refused[0].rate_quote_detail is None
    assert refused[0].alerts[0].severity is AlertSeverity.ERROR


async def test_the_user_object_is_required_and_checked(
    client: ApiClient, api_tenant: TenantHandle
) -> None:
    with pytest.raises(BadRequest) as missing:
        await client.vltl.query_rates(request(), user=VltlUser())
    assert list(missing.value.field_errors()) == ["user"]
    assert missing.value.support_reference_id
    with pytest.raises(PermissionDenied):
        await client.vltl.query_rates(request(), user=VltlUser(username="x", enabled=False))
    mine = VltlUser(tenant_uuid=uuid.UUID(api_tenant.uuid), account_non_locked=True)
    assert await client.vltl.query_rates(request(), user=mine)
    with pytest.raises(BadRequest) as foreign:
        await client.vltl.query_rates(request(), user=VltlUser(tenant_uuid=uuid.uuid4()))
    assert list(foreign.value.field_errors()) == ["tenantUuid"]


async def test_a_quote_is_dispatched_into_a_tracked_shipment(client: ApiClient) -> None:
    quote = priced(await client.vltl.query_rates(request(), user=USER), "RDRN")
    assert quote.capacity_provider_quote_number is not None
    shipped = await client.vltl.dispatch(
        dispatch(
            capacityProviderQuoteNumber=quote.capacity_provider_quote_number,
            rateQuoteId=str(quote.id),
            shipmentIdentifiers=[{"type": "PURCHASE_ORDER", "value": "PO-42"}],
            pickupNote="Dock 4",
        )
    )
    assert shipped.status is DispatchStatus.DISPATCHED and shipped.carrier_code == "RDRN"
    assert shipped.rate_quote_id == quote.id and shipped.pickup_number and shipped.pro_number
    assert shipped.pickup_note == "Dock 4"
    kinds = {i.type for i in shipped.shipment_identifiers}
    assert kinds == {"PURCHASE_ORDER", "BILL_OF_LADING", "SYSTEM_GENERATED"}
    assert shipped.shipment_id is not None
    tracked = await client.tracking.get(shipped.shipment_id)
    assert ("PRO", shipped.pro_number) in {(i.type, i.value) for i in tracked.identifiers}

    # A carrier with several SCACs is dispatched under the one named.
    northbridge = await client.vltl.dispatch(dispatch("NBFL", carrierCode="NBFC"))
    assert northbridge.carrier_code == "NBFC"


async def test_times_of_day_are_sent_as_hh_mm(api_tenant: TenantHandle) -> None:
    wire = RecordingTransport()
    async with ApiClient(
        api_tenant.service.url,
        client_id=api_tenant.client_id,
        client_secret=api_tenant.client_secret,
        transport=wire,
    ) as api:
        asked = request()
        assert asked.pickup_window is not None and asked.pickup_window.start_time is not None
        await api.vltl.query_rates(asked, user=USER)
        shipped = await api.vltl.dispatch(dispatch())
    (quote_body_sent,) = [body for path, body in wire.sent if path == V3_QUOTES_PATH]
    (dispatch_body_sent,) = [body for path, body in wire.sent if path == DISPATCH_PATH]
    for sent in (quote_body_sent, dispatch_body_sent):
        assert sent["pickupWindow"] == {
            "date": PICKUP_DAY,
            "startTime": "08:00",
            "endTime": "12:00",
        }
    assert shipped.pickup_window.start_time == time(8, 0)


async def test_dispatch_refusals_are_typed(client: ApiClient, sqlite_service: LiveService) -> None:
    with pytest.raises(BadRequest) as several:
        await client.vltl.dispatch(dispatch("NBFL"))
    assert list(several.value.field_errors()) == ["carrierCode"]
    no_freight = dispatch(lineItems=[])
    with pytest.raises(BadRequest) as empty:
        await client.vltl.dispatch(no_freight)
    assert "lineItems" in empty.value.field_errors()

    # Another tenant's quote names nothing for it.
    quote = priced(await client.vltl.query_rates(request(), user=USER), "NBFL")
    assert quote.capacity_provider_quote_number is not None
    theirs = dispatch(
        "NBFL",
        carrierCode="NBFL",
        rateQuoteId=str(quote.id),
        capacityProviderQuoteNumber=quote.capacity_provider_quote_number,
    )
    other = make_tenant(sqlite_service)
    try:
        async with ApiClient(
            other.service.url, client_id=other.client_id, client_secret=other.client_secret
        ) as foreign:
            with pytest.raises(BadRequest) as stolen:
                await foreign.vltl.dispatch(theirs)
            assert list(stolen.value.field_errors()) == ["rateQuoteId"]
    finally:
        other.http.close()
    assert (await client.vltl.dispatch(theirs)).rate_quote_id == quote.id


async def test_paths_retries_and_strange_answers(
    api_tenant: TenantHandle, proxy: FaultyProxy
) -> None:
    async with client_via(proxy, api_tenant) as api:
        # A quote query only prices: a lost answer is asked for again.
        proxy.inject(Fault(status=502, body=b"gateway trouble", path_prefix=V3_QUOTES_PATH))
        assert await api.vltl.query_rates(request(), user=USER)
        assert proxy.count("POST", V3_QUOTES_PATH) == 2
        # A deployment without the v3 path: v2 from then on.
        proxy.inject(Fault(status=404, path_prefix=V3_QUOTES_PATH))
        assert await api.vltl.query_rates(request(), user=USER)
        assert await api.vltl.query_rates(request(), user=USER)
        assert proxy.count("POST", V3_QUOTES_PATH) == 3
        assert proxy.count("POST", V2_QUOTES_PATH) == 2

        # A dispatch orders a pickup: never sent again blindly.
        proxy.inject(Fault(status=503, body=b"unavailable", path_prefix=DISPATCH_PATH))
        with pytest.raises(ServerError):
            await api.vltl.dispatch(dispatch())
        assert proxy.count("POST", DISPATCH_PATH) == 1

        proxy.inject(Fault(body=b'{"rateQuotes": [{"carrierCode": "RDRN"}]}'))
        with pytest.raises(ProtocolError) as strange:
            await api.vltl.query_rates(request(), user=USER)
        assert f"POST {V2_QUOTES_PATH}" in str(strange.value)
        proxy.inject(Fault(body=b'{"status": "DISPATCHED"}', path_prefix=DISPATCH_PATH))
        with pytest.raises(ProtocolError):
            await api.vltl.dispatch(dispatch())
