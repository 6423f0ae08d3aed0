"""The public link's token: taken from the link's last segment, so the preview asks this
service only, and anything that is not a token is refused before anything is sent; and what
the link withholds, the same for the local service's answer and the preview's words."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.models.code_words import code_text
from freightdesk.models.public_link import NOT_IN_A_SHIPMENT, WITHHELD_FIELDS
from freightdesk.models.tracking import TrackedShipment, TrackingHistory
from freightdesk.service.public_view import (
    WITHHELD,
    public_view_of,
    share_token,
    this_computer_only,
)
from tests.support import TenantHandle

PUT = "/api/v4/shipments/tracking"


@pytest.mark.parametrize(
    ("link", "token"),
    [
        ("http://127.0.0.1:8123/api/v4/public/shipments/AbC-_09xyz", "AbC-_09xyz"),
        ("https://freight.example.com/api/v4/public/shipments/AbC-_09xyz/", "AbC-_09xyz"),
        ("https://elsewhere.example/x/AbC?utm=1", "AbC"),
        (" AbC-_09xyz ", "AbC-_09xyz"),
    ],
)
def test_the_token_is_the_links_last_segment(link: str, token: str) -> None:
    assert share_token(link) == token


@pytest.mark.parametrize(
    "link",
    ["", "https://freight.example.com/", "https://x/api/v4/public/shipments/a%2Fb", "x" * 65],
)
def test_what_is_not_a_token_is_refused(link: str) -> None:
    assert share_token(link) is None


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("BILL_OF_LADING", "Bill of lading"),
        ("CARRIER_SCAC", "Carrier SCAC"),
        ("FFW_SCAC", "Forwarder SCAC"),
        ("PRO_NUMBER", "PRO number"),
        ("CONTAINER_ID", "Container ID"),
        ("VOLUME_LTL", "Volume LTL"),
        ("SKU", "SKU"),
    ],
)
def test_an_identifier_type_in_words_keeps_its_letters(code: str, words: str) -> None:
    """The preview names each identifier as a person reads it (was "Carrier scac"), as the
    app's Overview names it (`code_text`: the preview said "FFW SCAC", "Volume ltl")."""
    shipment = TrackedShipment.model_validate(
        {"id": str(uuid.uuid4()), "identifiers": [{"type": code, "value": "X1"}]}
    )
    view = public_view_of("http://127.0.0.1:8123/a", shipment, datetime.now(UTC))
    assert view.identifiers == (f"{words}: X1",)
    assert code_text(code) == words


async def test_the_preview_says_what_the_link_withholds_and_the_link_withholds_it(
    client: ApiClient, tenant_: TenantHandle
) -> None:
    """The service's public answer and the app's preview follow one rule: every field the
    owner reads filled and the link answers empty is one the preview names, and no other."""
    parent = tenant_.http.put(PUT, json={"identifiers": [{"type": "PRO", "value": "PV1"}]})
    assert parent.status_code in (200, 201), parent.text
    body = {
        "identifiers": [{"type": "PRO", "value": f"PV{uuid.uuid4().hex[:8]}"}],
        "attributes": [{"name": "customer", "value": "Acme"}],
        "accessGroups": [{"id": str(uuid.uuid4())}],
        "costs": [{"type": "FREIGHT", "totalCost": {"amount": 1200.5, "currency": "USD"}}],
        "relatedShipments": [{"id": parent.json()["id"], "relationType": "PARENT"}],
    }
    created = tenant_.http.put(PUT, json=body)
    assert created.status_code in (200, 201), created.text
    owned = await client.tracking.history(created.json()["id"])
    assert owned.shipment.shipment_share_link is not None
    token = share_token(owned.shipment.shipment_share_link)
    assert token is not None
    public = await client.tracking.public_shipment(token)

    # The owner reads the costs beside the shipment (its history's), the rest in it.
    mine = owned.shipment.model_copy(update={"costs": owned.costs})
    filled = {name for name, value in mine if value}
    business = {"attributes", "costs", "access_groups", "related_shipments"}
    assert business <= filled
    withheld = {name for name in filled if not getattr(public, name)}
    assert withheld == business == set(WITHHELD_FIELDS)
    assert public.identifiers == owned.shipment.identifiers  # what it is, still shown
    for words in WITHHELD_FIELDS.values():
        assert words in WITHHELD, words
    # What only a history holds is named too, and a shipment (the link's answer) has none.
    for name in NOT_IN_A_SHIPMENT:
        assert name in WITHHELD and name in TrackingHistory.model_fields, name
        assert name not in TrackedShipment.model_fields, name


@pytest.mark.parametrize(
    ("link", "here_only"),
    [
        ("http://127.0.0.1:41783/api/v4/public/shipments/abc", True),
        ("http://127.8.0.1:8044/api/v4/public/shipments/abc", True),
        ("http://[::1]:8044/api/v4/public/shipments/abc", True),
        ("http://localhost:8044/api/v4/public/shipments/abc", True),
        ("https://freight.example.com/api/v4/public/shipments/abc", False),
        ("http://10.20.0.7:8044/api/v4/public/shipments/abc", False),  # the office's network
        ("", False),
    ],
)
def test_a_link_naming_a_loopback_host_works_on_this_computer_only(
    link: str, here_only: bool
) -> None:
    assert this_computer_only(link) is here_only
