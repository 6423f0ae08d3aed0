"""Sharing a shipment with another tenant and stopping, against the real local service: what
the owner and the recipient each read, and every refusal in words or beside the field."""

from __future__ import annotations

import uuid

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import ApiError
from freightdesk.models.shipment_search import ShipmentSearchRequest
from freightdesk.service.sharing import TENANT_FIELD, Sharing, SharingService, check_tenant
from freightdesk.service.sharing import problems_of_error as sharing_problems
from tests.api.conftest import signed_in
from tests.support import TenantHandle, make_tenant


def _create(tenant: TenantHandle) -> str:
    pro = f"PRO{uuid.uuid4().hex[:8]}"
    answer = tenant.http.put(
        "/api/v4/shipments/tracking", json={"identifiers": [{"type": "PRO", "value": pro}]}
    )
    assert answer.status_code in (200, 201), answer.text
    return str(answer.json()["id"])


async def _read(service: SharingService, client: ApiClient, shipment_id: str) -> Sharing:
    history = await client.tracking.history(shipment_id)
    return await service.sharing(history.shipment, history.sharing_context)


def test_a_tenant_id_is_checked_before_it_is_sent() -> None:
    assert check_tenant("")[1] == {
        TENANT_FIELD: "Enter the company id of the partner to share with"
    }
    assert "UUID" in check_tenant("acme freight")[1][TENANT_FIELD]
    known = uuid.uuid4()
    assert check_tenant(f"  {known}  ") == (known, {})


async def test_the_owner_shares_and_stops_the_recipient_reads_who_shared(
    client: ApiClient, tenant_: TenantHandle
) -> None:
    shipment_id = _create(tenant_)
    partner = make_tenant(tenant_.service)
    owner_side = SharingService(lambda: client)
    try:
        nobody = await _read(owner_side, client, shipment_id)
        assert nobody.owned and nobody.recipients == ()
        assert nobody.link and "/api/v4/public/shipments/" in nobody.link

        recipients = await owner_side.share(shipment_id, uuid.UUID(partner.uuid))
        assert [(p.name, p.uuid) for p in recipients] == [(partner.name, partner.uuid)]
        assert recipients[0].since is not None
        # Sharing twice changes nothing.
        assert await owner_side.share(shipment_id, uuid.UUID(partner.uuid)) == recipients

        read = await _read(owner_side, client, shipment_id)
        assert read.owned and [p.uuid for p in read.recipients] == [partner.uuid]

        async with signed_in(partner) as partner_client:
            partner_side = SharingService(lambda: partner_client)
            theirs = await _read(partner_side, partner_client, shipment_id)
            assert not theirs.owned and theirs.recipients == ()
            assert theirs.shared_by is not None and theirs.shared_by.name == tenant_.name
            assert theirs.shared_by.since == recipients[0].since  # when it was shared
            # The recipient cannot share it on: the service's 404, in words.
            with pytest.raises(ApiError) as refused:
                await partner_side.share(shipment_id, uuid.UUID(tenant_.uuid))
            fields, general = sharing_problems(refused.value)
            assert fields == {}
            assert general is not None and "only the company that tracks" in general

            assert await owner_side.unshare(shipment_id, partner.uuid) is True
            # Stopped twice (another window did it, or a retried request): said, not an error.
            assert await owner_side.unshare(shipment_id, partner.uuid) is False
            assert (await _read(owner_side, client, shipment_id)).recipients == ()
            gone = await partner_client.tracking.search_page(ShipmentSearchRequest())
            assert shipment_id not in {str(s.id) for s in gone.results}
    finally:
        partner.http.close()


async def test_refusals_land_beside_the_tenant_field(
    client: ApiClient, tenant_: TenantHandle
) -> None:
    shipment_id = _create(tenant_)
    service = SharingService(lambda: client)
    for tenant_uuid, words in (
        (uuid.uuid4(), "No company has this id: check it with your partner"),
        (uuid.UUID(tenant_.uuid), "This is your own company's id: enter your partner's"),
    ):
        with pytest.raises(ApiError) as refused:
            await service.share(shipment_id, tenant_uuid)
        assert sharing_problems(refused.value) == ({TENANT_FIELD: words}, None)
