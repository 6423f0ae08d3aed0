"""The summaries of a page of shipment search: read from the summary columns of `shipments`
and, of the user's data, only the identifiers; as values for `ShipmentSummary`, or on SQLite
as the summary's JSON written by the database (what the route sends)."""

from __future__ import annotations

import uuid
from typing import Any

from pydantic_core import from_json
from sqlalchemy import ColumnElement, bindparam, func, literal_column, select
from sqlalchemy.orm import Session

from freightdesk.models.tracking import SharingParty
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.tables.tracking import Shipment, ShipmentDocument


def owner_names(session: Session, tenant_ids: set[int]) -> dict[int, SharingParty]:
    if not tenant_ids:
        return {}
    return {
        tenant.id: SharingParty(tenant_name=tenant.name, tenant_uuid=uuid.UUID(tenant.uuid))
        for tenant in session.scalars(select(Tenant).where(Tenant.id.in_(tenant_ids)))
    }


# What a summary shows: the summary columns and, of the user's data, only its identifiers
# (extracted by the database: decoding each whole document, routes and all, cost more than
# the rest of the page).
_IDENTIFIERS = (
    select(ShipmentDocument.data["identifiers"])
    .where(ShipmentDocument.shipment_pk == Shipment.pk)
    .scalar_subquery()
)
_PAGE_COLUMNS: tuple[Any, ...] = (
    Shipment.pk,
    Shipment.id,
    Shipment.tenant_id,
    Shipment.primary_identifier,
    Shipment.mode,
    Shipment.current_state,
    Shipment.origin_name,
    Shipment.destination_name,
    Shipment.next_eta,
    Shipment.next_eta_zone,
    Shipment.latest_event_type,
    Shipment.latest_event_at,
    Shipment.latest_event_description,
    Shipment.latest_event_zone,
    Shipment.open_exception_count,
    Shipment.carrier,
    Shipment.created_at,
    Shipment.last_modified_at,
)
_PAGE_KEYS = Shipment.pk.in_(bindparam("keys", expanding=True))
PAGE_ROWS = select(*_PAGE_COLUMNS, _IDENTIFIERS.label("identifiers")).where(_PAGE_KEYS)
# On SQLite (run on the driver's cursor, see `driver_statements`) the four date-times and the
# identifiers come as the text they are stored as, which is what the answer shows; the keys
# are one JSON array.
_KEYS_IN_ARRAY = func.json_each(bindparam("keys")).table_valued("value")
PAGE_ROWS_BY_ARRAY = select(*_PAGE_COLUMNS, _IDENTIFIERS.label("identifiers")).where(
    Shipment.pk.in_(select(_KEYS_IN_ARRAY.c.value))
)


def _wire_time_sql(column: str) -> str:
    """A date-time column as SQLite stores it ("2026-01-02 03:04:05.120000", UTC) as pydantic
    writes the aware instant ("2026-01-02T03:04:05.120000Z"; no fraction when it is zero)."""
    day, time_of_day = f"substr({column}, 1, 10) || 'T' || ", f"substr({column}, 12"
    return (
        f"CASE WHEN substr({column}, 20) = '.000000' THEN {day}{time_of_day}, 8) || 'Z' "
        f"ELSE {day}{time_of_day}) || 'Z' END"
    )


def _member(name: str, value: str, *, present: str | None = None) -> str:
    """The member `name` as `exclude_none` writes it, after a comma: left out when `present`
    (by default `value`) is null. `json_quote` quotes text as `json_object` would and writes
    numbers bare."""
    return (
        f"CASE WHEN {present or value} IS NULL THEN '' "
        f"ELSE ',\"{name}\":' || json_quote({value}) END"
    )


# A summary as `ShipmentSummary` dumps it (by alias, without nulls, fields in the model's
# order but `sharedBy`), written by SQLite as text: the null members are never written, so
# no pass over the page takes them out (`json_object` writes them, and taking them out again
# cost a fifth of a narrow search). The identifiers are stored as the interface writes them
# (type and value, by alias; see `shipment_rules.prepare`); `json_extract` gives them
# minified, as `json` did.
SUMMARY_JSON: ColumnElement[str] = literal_column(
    "'{\"id\":' || json_quote(shipments.id) || ',\"identifiers\":' || "
    "coalesce((SELECT json_extract(shipment_documents.data, '$.identifiers') "
    "FROM shipment_documents WHERE shipment_documents.shipment_pk = shipments.pk), '[]') || "
    + " || ".join(
        (
            _member("primaryIdentifier", "shipments.primary_identifier"),
            _member("mode", "shipments.mode"),
            _member("currentState", "nullif(shipments.current_state, '')"),
            _member("originName", "shipments.origin_name"),
            _member("destinationName", "shipments.destination_name"),
            _member("nextEta", _wire_time_sql("shipments.next_eta"), present="shipments.next_eta"),
            _member("nextEtaTimeZone", "shipments.next_eta_zone"),
            "CASE WHEN shipments.latest_event_type IS NULL THEN '' "
            'ELSE \',"latestEvent":{"type":\' || json_quote(shipments.latest_event_type) || '
            + " || ".join(
                (
                    _member(
                        "dateTime",
                        _wire_time_sql("shipments.latest_event_at"),
                        present="shipments.latest_event_at",
                    ),
                    _member("description", "shipments.latest_event_description"),
                    _member("timeZone", "shipments.latest_event_zone"),
                )
            )
            + " || '}' END",
            _member("openExceptionCount", "shipments.open_exception_count"),
            _member("carrier", "shipments.carrier"),
            _member(
                "createdDateTime",
                _wire_time_sql("shipments.created_at"),
                present="shipments.created_at",
            ),
            _member(
                "lastModifiedDateTime",
                _wire_time_sql("shipments.last_modified_at"),
                present="shipments.last_modified_at",
            ),
        )
    )
    + " || '}'"
)


PAGE_JSON_BY_ARRAY = select(Shipment.pk, Shipment.tenant_id, SUMMARY_JSON).where(
    Shipment.pk.in_(select(_KEYS_IN_ARRAY.c.value))
)


def _stored_utc(value: str | None) -> str | None:
    """A date-time as `UtcDateTime` stores it on SQLite (UTC without an offset), as ISO 8601
    text in UTC for pydantic to parse."""
    return None if value is None else value + "Z"


def summary_fields(row: Any, owners: dict[int, SharingParty], as_text: bool) -> dict[str, Any]:
    """A summary's fields from a page row, for `ShipmentSearchResult`'s validation."""
    (
        _pk,
        shipment_id,
        owner,
        primary_identifier,
        mode,
        current_state,
        origin_name,
        destination_name,
        next_eta,
        next_eta_zone,
        latest_event_type,
        latest_event_at,
        latest_event_description,
        latest_event_zone,
        open_exception_count,
        carrier,
        created_at,
        last_modified_at,
        identifiers,
    ) = row
    if as_text:
        next_eta = _stored_utc(next_eta)
        latest_event_at = _stored_utc(latest_event_at)
        created_at = _stored_utc(created_at)
        last_modified_at = _stored_utc(last_modified_at)
        # pydantic's parser: about five times json.loads' speed on these short arrays.
        identifiers = from_json(identifiers) if identifiers is not None else None
    latest = None
    if latest_event_type is not None:
        latest = {
            "type": latest_event_type,
            "date_time": latest_event_at,
            "description": latest_event_description,
            "time_zone": latest_event_zone,
        }
    return {
        "id": shipment_id,
        "identifiers": identifiers or [],
        "primary_identifier": primary_identifier,
        "mode": mode,
        "current_state": current_state or None,
        "origin_name": origin_name,
        "destination_name": destination_name,
        "next_eta": next_eta,
        "next_eta_time_zone": next_eta_zone,
        "latest_event": latest,
        "open_exception_count": open_exception_count,
        "carrier": carrier,
        "created_date_time": created_at,
        "last_modified_date_time": last_modified_at,
        "shared_by": owners.get(owner),
    }
