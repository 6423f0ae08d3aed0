"""The one write path to tracked shipments (tables in `server/tables/tracking.py`).

Every function takes a SQLAlchemy `Session` whose transaction the caller owns::

    with transaction(context.sessions) as session:
        ids = find_shipments_by_identifier(session, tenant_id, "BILL_OF_LADING", "BOL123")
        for shipment_id in ids:
            add_event(session, shipment_id, TrackedShipmentEvent(type="ARRIVAL_AT_STOP",
                      date_time=at, stop_id=stop), source=TL)
            add_positions(session, shipment_id, positions, source=TL)

Each write, in the caller's transaction: changes the rows, keeps the shipment's summary columns
(current state, next ETA, latest event, open exception count, last position, primary identifier,
carrier, origin and destination) current, sets `last_modified_at`, and appends what changed to
the `shipment_changes` journal (see `ChangeKind`). Nothing else may write these tables.

Shipments are named by their uuid string (`Shipment.id`). Functions that act for a tenant
(`create_shipment`, `replace_shipment`, `delete_shipment`, sharing, lookups) take its
`tenant_id` and answer 404 for a shipment of another tenant. Functions that record what a
tracking source reported (`add_event`, `add_positions`, `set_state`, `upsert_exception`,
`set_eta`, ...) take a shipment id the caller has already resolved for its tenant, and the
`source`: the transportation mode through which the data arrived (`TL` for truckload pushes,
`PARCEL` for parcel pushes, ...). The source matters: when a PUT changes the identifiers so
that a source can no longer follow the shipment, everything that source reported is removed
(interface rule 4; see `identifiers.py`). `USER` marks events recorded through PUT tracking.

The lifecycle (`set_state`, see `lifecycle.py`): every shipment starts SCHEDULED; a move the
lifecycle does not allow is a 409, setting the current state again is a no-op. An ETA is an
event of type `ETA` per stop (`set_eta`); the shipment's `next_eta` is the one calculated last,
ties to the soonest (`summary.set_next_eta`, by the app's rule `models.tracking.newest_estimate`).

Refusals are `ApiError`s (400 with field paths, 404, 409) so routes can let them through; an
unknown `source` is a ValueError (a programming mistake, not client input).

Bulk: `create_shipments`, `add_histories` (events, state moves, exceptions and ETAs of many
shipments, exactly as the one-call functions record them) and `add_positions_bulk` write many
shipments in a handful of statements (positions go to the driver directly). A position at an
instant already stored for the shipment is ignored, so retried pushes are harmless. For
trusted generated data (demo, simulator), pass `Position`s instead of
`TrackedShipmentPosition`s: building and validating the wire model costs more than storing the
position.

`Shipment.data` (the user-provided data as on the wire) is read-only: it lives in
`shipment_documents` and is replaced only here. Reads for the routes live in
`tracking_reads.py` (history, shipment views) and `shipment_search.py` (browsing); webhook
context: `shipment_context`, `share_link`.

Modules, one per concern: `lookup` (what a tenant sees), `locking` (`lock_shipments`, one lock
order), `lifecycle` (create, replace, delete, share), `facts` (events, ETAs, states,
exceptions of one shipment), `histories` (the same in bulk), `positions`, `summary` (the
summary columns), `journal` (`shipment_changes`), `rows` (row values the writers share) and
`views` (rows as the wire shows them). Import from this package, not from its modules.
"""

from freightdesk.server.db import sqlite_utc_text
from freightdesk.server.domain.shipments.facts import (
    add_event,
    add_events,
    remove_event,
    set_eta,
    set_state,
    update_event,
    upsert_exception,
)
from freightdesk.server.domain.shipments.histories import (
    EtaReport,
    History,
    StateMove,
    add_histories,
)
from freightdesk.server.domain.shipments.lifecycle import (
    create_shipment,
    create_shipments,
    delete_shipment,
    replace_shipment,
    share_shipment,
    unshare_shipment,
)
from freightdesk.server.domain.shipments.locking import lock_shipments
from freightdesk.server.domain.shipments.lookup import (
    TenantRef,
    Visible,
    find_shipments_by_identifier,
    owned_shipment,
    share_in_force,
    shared_with,
    visible_clause,
    visible_ids,
    visible_shipment,
)
from freightdesk.server.domain.shipments.positions import (
    Position,
    PositionLike,
    add_positions,
    add_positions_bulk,
)
from freightdesk.server.domain.shipments.rows import ETA_EVENT_TYPE, SOURCES, SYSTEM, USER
from freightdesk.server.domain.shipments.views import (
    exception_view,
    exception_wire,
    identifiers_of,
    share_link,
    shipment_context,
    state_view,
    state_wire,
)

__all__ = [
    "ETA_EVENT_TYPE",
    "SOURCES",
    "SYSTEM",
    "USER",
    "EtaReport",
    "History",
    "Position",
    "PositionLike",
    "StateMove",
    "TenantRef",
    "Visible",
    "add_event",
    "add_events",
    "add_histories",
    "add_positions",
    "add_positions_bulk",
    "create_shipment",
    "create_shipments",
    "delete_shipment",
    "exception_view",
    "exception_wire",
    "find_shipments_by_identifier",
    "identifiers_of",
    "lock_shipments",
    "owned_shipment",
    "remove_event",
    "replace_shipment",
    "set_eta",
    "set_state",
    "share_in_force",
    "share_link",
    "share_shipment",
    "shared_with",
    "shipment_context",
    "sqlite_utc_text",
    "state_view",
    "state_wire",
    "unshare_shipment",
    "update_event",
    "upsert_exception",
    "visible_clause",
    "visible_ids",
    "visible_shipment",
]
