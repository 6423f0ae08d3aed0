"""Browsing tracked shipments (a FreightDesk extension): filters, sort, paging and summaries."""

from __future__ import annotations

from enum import StrEnum
from uuid import UUID

from pydantic import AwareDatetime, Field

from freightdesk.models.base import WireModel
from freightdesk.models.common import LogisticsIdentifier, PaginationInfo, TransportationMode
from freightdesk.models.tracking import SharingParty, ShipmentStateType, UtcTime

MAX_PAGE_SIZE = 500
DEFAULT_PAGE_SIZE = 50
MAX_PASTED_VALUES = 1000


class ShipmentSortField(StrEnum):
    LAST_MODIFIED_DATE_TIME = "lastModifiedDateTime"
    CREATED_DATE_TIME = "createdDateTime"
    NEXT_ETA = "nextEta"
    PRIMARY_IDENTIFIER = "primaryIdentifier"
    STATE = "state"


class SortDirection(StrEnum):
    ASC = "ASC"
    DESC = "DESC"


class ShipmentSort(WireModel):
    field: ShipmentSortField = ShipmentSortField.LAST_MODIFIED_DATE_TIME
    direction: SortDirection = SortDirection.DESC


class DateTimeWindow(WireModel):
    """The interface's offset date-time window; instants are compared in UTC."""

    start_date_time: UtcTime | None = None
    end_date_time: UtcTime | None = None


class ShipmentSearchRequest(WireModel):
    """Every filter is optional; all given filters must hold (AND). Lists mean "any of"."""

    # Prefix of any identifier value, case-insensitive ("1ZX" finds 1ZX99...).
    text: str | None = Field(default=None, max_length=200)
    identifier_type: str | None = Field(default=None, min_length=1, max_length=60)
    identifier_value: str | None = Field(default=None, min_length=1, max_length=200)
    # Pasted lists: exact identifier values (case-insensitive); the answer names those not found.
    identifier_values: list[str] | None = Field(default=None, max_length=MAX_PASTED_VALUES)
    transportation_modes: list[TransportationMode] = Field(default_factory=list, max_length=8)
    states: list[ShipmentStateType] = Field(default_factory=list, max_length=4)
    has_open_exceptions: bool | None = None
    attribute_name: str | None = Field(default=None, min_length=1, max_length=100)
    attribute_value: str | None = Field(default=None, max_length=500)
    # Windows are inclusive at the start and exclusive at the end.
    created_date_time: DateTimeWindow | None = None
    last_modified_date_time: DateTimeWindow | None = None
    # Incremental sync: changed strictly after this instant; the answer also lists removals.
    last_modified_after: UtcTime | None = None
    # Incremental sync without clocks: the `changeToken` of an earlier answer ("" for the first
    # sync, which lists everything); changed since that answer was read, committed in whatever
    # order. The answer lists removals and carries the token for the next sync.
    changes_since: str | None = Field(default=None, max_length=18, pattern=r"^[0-9]*$")
    sort: ShipmentSort = Field(default_factory=ShipmentSort)
    # Keyset paging: "" for the first page, then the answer's `nextPageToken`. The pages come
    # in the order changes became visible (`sort` and the `page` parameter are not used), and
    # a shipment entering or leaving the matches between two pages moves no other across a
    # page boundary (offset paging skipped one for each that left a page already read).
    page_token: str | None = Field(default=None, max_length=40, pattern=r"^([0-9]+\.[0-9]+)?$")


class LatestEvent(WireModel):
    type: str
    date_time: AwareDatetime | None = None
    description: str | None = None
    # The IANA zone of the stop the event happened at (its appointment window's), so the
    # time reads in the stop's time; absent when the event names no stop or the stop no zone.
    time_zone: str | None = Field(default=None, max_length=64)


class ShipmentSummary(WireModel):
    id: UUID
    identifiers: list[LogisticsIdentifier]
    primary_identifier: str | None = None
    mode: TransportationMode | None = None
    current_state: ShipmentStateType | None = None
    origin_name: str | None = None
    destination_name: str | None = None
    next_eta: AwareDatetime | None = None
    # The IANA zone of the stop nextEta is for (its appointment window's), so the ETA reads
    # in the stop's time; absent when that stop has no zone.
    next_eta_time_zone: str | None = Field(default=None, max_length=64)
    latest_event: LatestEvent | None = None
    open_exception_count: int = 0
    carrier: str | None = None
    created_date_time: AwareDatetime
    last_modified_date_time: AwareDatetime
    # Set when another tenant shared the shipment with the caller.
    shared_by: SharingParty | None = None


class ShipmentSearchResult(WireModel):
    pagination_info: PaginationInfo
    results: list[ShipmentSummary]
    # Only with identifierValues: the pasted values that matched no visible shipment.
    not_found_values: list[str] | None = None
    # Only with lastModifiedAfter or changesSince: shipments deleted or no longer shared since.
    removed_ids: list[UUID] | None = None
    # Only with changesSince: what the next sync sends as changesSince.
    change_token: str | None = None
    # Only with pageToken, while more shipments follow: the next page's pageToken.
    next_page_token: str | None = None
