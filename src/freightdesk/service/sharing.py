"""Who a shipment is shared with, sharing it with another tenant and stopping (the local
service's sharing extension, `docs/spec-gaps.md`).

The interface has no list of shares: the sharing context of a shipment's history names them
(the owner sees every recipient, a recipient only itself). The context does not say which of
the two the reader is, so when a shipment is shared the search extension's `sharedBy` is asked
once (a recipient reads "shared by"); without the extension the reader is taken as the owner,
and the service's refusal of a share says otherwise in words.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING
from uuid import UUID

from freightdesk.models.shipment_search import ShipmentSearchRequest
from freightdesk.models.tracking import SharingContext, SharingParty, TrackedShipment
from freightdesk.service.messages import explain
from freightdesk.service.public_view import PublicView, read_public_view

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

# The service's name of the field, so that its refusals land beside the same field.
TENANT_FIELD = "tenantUuid"


@dataclass(frozen=True)
class Party:
    """A tenant named by the sharing context."""

    name: str
    uuid: str
    since: datetime | None = None

    @classmethod
    def of(cls, party: SharingParty) -> Party:
        return cls(party.tenant_name, str(party.tenant_uuid), party.shared_date_time)


@dataclass(frozen=True)
class Sharing:
    """What the Sharing tab shows: the tenants the reader shares the shipment with, or the
    tenant that shared it with the reader (then the reader cannot share it further)."""

    recipients: tuple[Party, ...] = ()
    shared_by: Party | None = None
    link: str | None = None

    @property
    def owned(self) -> bool:
        return self.shared_by is None


def _recipients(context: SharingContext | None) -> tuple[Party, ...]:
    return tuple(Party.of(p) for p in context.recipients) if context else ()


def check_tenant(text: str) -> tuple[UUID | None, dict[str, str]]:
    """The tenant id typed, or the problem beside the field (`tenantUuid`)."""
    stripped = text.strip()
    if not stripped:
        return None, {TENANT_FIELD: "Enter the company id of the partner to share with"}
    try:
        return UUID(stripped), {}
    except ValueError:
        return None, {
            TENANT_FIELD: "A company id is a UUID: 32 hexadecimal digits, "
            "like 3f2b8c1e-5d4a-4e0b-9c7f-1a2b3c4d5e6f"
        }


def problems_of_error(error: BaseException) -> tuple[dict[str, str], str | None]:
    """A refused share as messages beside the field (`tenantUuid`) or one sentence."""
    from freightdesk.api.errors import ApiError, NotFound

    if isinstance(error, NotFound):
        return {}, (
            "The service refused: only the company that tracks this shipment can share it "
            "(it may have been shared with you, or deleted meanwhile)."
        )
    if isinstance(error, ApiError):
        fields = error.field_errors()
        if fields:
            return {k: _SAID.get(v.lower(), _sentence(v)) for k, v in fields.items()}, None
    return {}, explain(error)


# The service's refusals of the id, worded for API callers (tenants), as the app says them.
_SAID = {
    "no tenant has this uuid": "No company has this id: check it with your partner",
    "a shipment cannot be shared with its own tenant": (
        "This is your own company's id: enter your partner's"
    ),
}


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


class SharingService:
    """Sharing of shipments over one connection."""

    def __init__(
        self, client: Callable[[], ApiClient], changed: Callable[[], None] = lambda: None
    ) -> None:
        self._client = client
        # Told after a share or unshare: the shipment's row changed (its lastModifiedDateTime).
        self._changed = changed
        # Who shared a shipment with the reader never changes: asked once per shipment.
        self._shared_by: dict[str, Party | None] = {}
        self._own: Party | None = None  # the reader's own company, asked once

    async def own_company(self) -> Party | None:
        """The reader's own company (tenant) as the service names it, whose id a partner
        needs to share with it; None from a service that does not tell (without the
        extension: the interface has no operation naming the caller's tenant)."""
        if self._own is not None:
            return self._own
        from freightdesk.api.errors import ApiError

        try:
            tenant = await self._client().tenant.caller()
        except ApiError as exc:
            if exc.status not in (404, 405):
                raise
            return None
        self._own = Party(tenant.tenant_name, str(tenant.tenant_uuid))
        return self._own

    async def sharing(self, shipment: TrackedShipment, context: SharingContext | None) -> Sharing:
        """What a shipment's history (`shipment` and its `context`) says about its sharing."""
        link = shipment.shipment_share_link
        recipients = _recipients(context)
        if not recipients:
            return Sharing(link=link)  # a shipment shared with the reader always names it
        shared_by = await self._owner_if_shared_with_me(shipment)
        if shared_by is not None:
            # A recipient's context names only itself, with when it was shared.
            since = replace(shared_by, since=recipients[0].since)
            return Sharing(shared_by=since, link=link)
        return Sharing(recipients, link=link)

    async def _owner_if_shared_with_me(self, shipment: TrackedShipment) -> Party | None:
        key = str(shipment.id)
        if key in self._shared_by:
            return self._shared_by[key]
        from freightdesk.api.errors import ApiError

        found: Party | None = None
        if shipment.identifiers:
            first = shipment.identifiers[0]
            request = ShipmentSearchRequest(
                identifier_type=first.type, identifier_value=first.value
            )
            try:
                answer = await self._client().tracking.search_page(request, page_size=50)
            except ApiError as exc:
                if exc.status not in (404, 405):
                    raise
                answer = None  # no search extension: taken as the owner (see the module's doc)
            match = next((s for s in answer.results if str(s.id) == key), None) if answer else None
            if match is not None and match.shared_by is not None:
                found = Party.of(match.shared_by)
        self._shared_by[key] = found
        return found

    async def share(self, shipment_id: UUID | str, tenant_uuid: UUID) -> tuple[Party, ...]:
        """Let the tenant read the shipment; every tenant it is shared with now."""
        context = await self._client().tracking.share(shipment_id, tenant_uuid)
        self._changed()
        self._shared_by[str(shipment_id)] = None  # only an owner shares
        return _recipients(context)

    async def unshare(self, shipment_id: UUID | str, tenant_uuid: UUID | str) -> bool:
        """The tenant may no longer read the shipment. False when it already could not (the
        service's 404: someone stopped it meanwhile, or a retried request did already)."""
        from freightdesk.api.errors import NotFound

        try:
            await self._client().tracking.unshare(shipment_id, tenant_uuid)
        except NotFound:
            return False
        self._changed()
        return True

    async def preview(self, link: str) -> PublicView:
        """The shipment as its public `link` shows it to anyone who has it (read without
        credentials); `public_view.PreviewRefused` says in words when it shows nothing."""
        return await read_public_view(self._client(), link, datetime.now(UTC))
