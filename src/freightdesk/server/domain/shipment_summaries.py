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


def _member(name: str, value: str, *, present: str | None = None) -> str:
    """The member `name` as `exclude_none` writes it, after a comma; null (written as nothing
    by `printf`'s `%s`) when `present` (by default `value`) is null. `json_quote` quotes text
    as `json_object` would and writes numbers bare."""
    return f"CASE WHEN {present or value} IS NULL THEN NULL ELSE ',\"{name}\":' || {value} END"


def _text_member(name: str, column: str) -> str:
    return _member(name, f"json_quote({column})", present=column)


def _time_member(name: str, column: str) -> str:
    """A date-time column as SQLite stores it ("2026-01-02 03:04:05.120000", UTC) as pydantic
    writes the aware instant ("2026-01-02T03:04:05.120000Z"; no fraction when it is zero): the
    stored text has one space, and a dot only before its fraction; it needs no quoting."""
    wire = f"'\"' || replace(replace({column}, ' ', 'T'), '.000000', '') || 'Z\"'"
    return _member(name, wire, present=column)


def _printf(template: str, *arguments: str) -> str:
    """`template`'s `%s` filled with `arguments` (text; null writes nothing), in one pass:
    a chain of `||` copies the growing text at each step."""
    return f"printf('{template}', {', '.join(arguments)})"


# A summary as `ShipmentSummary` dumps it (by alias, without nulls, fields in the model's
# order but `sharedBy`), written by SQLite as text: the null members are never written, so
# no pass over the page takes them out (`json_object` writes them, and taking them out again
# cost a fifth of a narrow search). The identifiers are stored as the interface writes them
# (type and value, by alias; see `shipment_rules.prepare`); `json_extract` gives them
# minified, as `json` did.
_LATEST_EVENT = _printf(
    ',"latestEvent":{"type":%s%s%s%s}',
    "json_quote(shipments.latest_event_type)",
    _time_member("dateTime", "shipments.latest_event_at"),
    _text_member("description", "shipments.latest_event_description"),
    _text_member("timeZone", "shipments.latest_event_zone"),
)
SUMMARY_JSON: ColumnElement[str] = literal_column(
    _printf(
        '{"id":%s,"identifiers":%s' + "%s" * 12 + "}",
        "json_quote(shipments.id)",
        "coalesce((SELECT json_extract(shipment_documents.data, '$.identifiers') "
        "FROM shipment_documents WHERE shipment_documents.shipment_pk = shipments.pk), '[]')",
        _text_member("primaryIdentifier", "shipments.primary_identifier"),
        _text_member("mode", "shipments.mode"),
        _text_member("currentState", "nullif(shipments.current_state, '')"),
        _text_member("originName", "shipments.origin_name"),
        _text_member("destinationName", "shipments.destination_name"),
        _time_member("nextEta", "shipments.next_eta"),
        _text_member("nextEtaTimeZone", "shipments.next_eta_zone"),
        f"CASE WHEN shipments.latest_event_type IS NULL THEN NULL ELSE {_LATEST_EVENT} END",
        _text_member("openExceptionCount", "shipments.open_exception_count"),
        _text_member("carrier", "shipments.carrier"),
        _time_member("createdDateTime", "shipments.created_at"),
        _time_member("lastModifiedDateTime", "shipments.last_modified_at"),
    )
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
