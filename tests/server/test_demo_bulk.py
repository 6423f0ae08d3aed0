"""The demo's bulk history writer against the one-call functions it replaces.

`add_histories` must record exactly what `add_events`, `set_state`, `upsert_exception` and
`set_eta` record one call at a time: the same rows, summary columns and change journal (which
webhooks deliver), and the same refusals.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from freightdesk.models.tracking import ShipmentStateType as S
from freightdesk.models.tracking import TrackedShipmentEvent
from freightdesk.server.context import ServiceContext
from freightdesk.server.db import transaction
from freightdesk.server.demo.itineraries import ShipmentPlan, floor_hour
from freightdesk.server.demo.portfolio import iter_plans
from freightdesk.server.demo.seed import _history, shipment_input
from freightdesk.server.domain import shipments as tracking
from freightdesk.server.domain.tenants import ensure_tenant
from freightdesk.server.errors import ApiError
from freightdesk.server.tables.tracking import (
    Shipment,
    ShipmentChange,
    ShipmentEvent,
    ShipmentExceptionRow,
    ShipmentState,
)
from tests.support import running_service

ANCHOR = floor_hour(datetime(2025, 3, 12, 15, 30, tzinfo=UTC))
# What differs between two recordings of the same history: generated ids and the moment of
# writing (kept: every reported time, type, source, stop, description and the order).
VOLATILE = {"id", "shipmentId", "estimateLastCalculatedDateTime", "receivedDateTime"}
VOLATILE |= {"lastModifiedDateTime", "createdDateTime"}


@pytest.fixture(scope="module")
def context() -> Iterator[ServiceContext]:
    with running_service() as service:
        yield service.context


def _plans() -> list[ShipmentPlan]:
    """One shipment of each mode, with exceptions and ETAs among them."""
    found: dict[str, ShipmentPlan] = {}
    for plan in iter_plans(7, ANCHOR):
        found.setdefault(plan.mode.value, plan)
        if len(found) == 6 and any(p.incidents for p in found.values()):
            break
    return list(found.values())


def _recorded(session: Session, shipment_id: str) -> dict[str, Any]:
    row = session.scalar(select(Shipment).where(Shipment.id == shipment_id))
    assert row is not None
    pk = row.pk
    states = session.scalars(
        select(ShipmentState).where(ShipmentState.shipment_pk == pk).order_by(ShipmentState.pk)
    )
    events = session.scalars(
        select(ShipmentEvent).where(ShipmentEvent.shipment_pk == pk).order_by(ShipmentEvent.pk)
    )
    exceptions = session.scalars(
        select(ShipmentExceptionRow)
        .where(ShipmentExceptionRow.shipment_pk == pk)
        .order_by(ShipmentExceptionRow.pk)
    )
    journal = session.scalars(
        select(ShipmentChange)
        .where(ShipmentChange.shipment_id == shipment_id)
        .order_by(ShipmentChange.id)
    )
    return {
        "summary": (
            row.current_state,
            row.state_rank,
            row.next_eta,
            row.latest_event_type,
            row.latest_event_at,
            row.latest_event_description,
            row.open_exception_count,
        ),
        "states": [(s.type, s.source, s.start_at, s.end_at, s.stop_id) for s in states],
        "events": [(e.source, e.type, e.occurred_at, _stable(e.data)) for e in events],
        "exceptions": [
            (x.type, x.status, x.severity, x.source, x.stop_id, x.created_at, x.resolved_at)
            for x in exceptions
        ],
        "journal": [(c.kind, _stable(c.payload)) for c in journal],
    }


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _one_call_at_a_time(session: Session, history: tracking.History) -> None:
    """What the seeding did before the bulk writer."""
    shipment_id, source = history.shipment_id, history.source
    if history.events:
        tracking.add_events(session, shipment_id, history.events, source)
    for move in history.states:
        tracking.set_state(
            session, shipment_id, move.state, move.at, stop_id=move.stop_id, source=source
        )
    for exception in history.exceptions:
        tracking.upsert_exception(session, shipment_id, exception, source)
    for eta in history.etas:
        tracking.set_eta(
            session,
            shipment_id,
            eta.eta,
            stop_id=eta.stop_id,
            source=source,
            description=eta.description,
        )


def _record_both_ways(context: ServiceContext, tenant: str) -> list[tuple[Any, Any]]:
    plans = _plans()
    pairs = []
    with transaction(context.sessions) as session:
        tenant_id = ensure_tenant(session, tenant, f"{tenant}-admin", "secret").tenant.id
        bodies = [shipment_input(plan, {}, ANCHOR) for plan in plans]
        created = [min(plan.booked_at, ANCHOR) for plan in plans]
        one = tracking.create_shipments(session, tenant_id, bodies, created=created)
        bulk = tracking.create_shipments(session, tenant_id, bodies, created=created)
        histories = []
        for plan, first, second in zip(plans, one, bulk, strict=True):
            # The same draws for both: the same events, exceptions and estimates.
            seed = 7 * 7919 + plan.number
            _one_call_at_a_time(session, _history(first, plan, ANCHOR, random.Random(seed)))
            histories.append(_history(second, plan, ANCHOR, random.Random(seed)))
        tracking.add_histories(session, histories)
    with context.sessions() as session:
        for first, second in zip(one, bulk, strict=True):
            pairs.append((_recorded(session, first), _recorded(session, second)))
    return pairs


def test_the_bulk_writer_records_what_the_one_call_functions_record(
    context: ServiceContext,
) -> None:
    pairs = _record_both_ways(context, "Bulk equivalence")
    for one_at_a_time, bulk in pairs:
        assert bulk == one_at_a_time
    # The comparison saw every kind of record.
    recorded = [one for one, _bulk in pairs]
    assert all(r["states"] and r["journal"] for r in recorded)
    assert any(r["exceptions"] for r in recorded)
    assert any(e[1] == "ETA" for r in recorded for e in r["events"])
    assert any(s[3] is not None for r in recorded for s in r["states"])  # closed states


def test_the_bulk_writer_refuses_what_the_one_call_functions_refuse(
    context: ServiceContext,
) -> None:
    plan = _plans()[0]
    with transaction(context.sessions) as session:
        tenant_id = ensure_tenant(session, "Bulk refusals", "bulk-admin", "secret").tenant.id
        (shipment_id,) = tracking.create_shipments(
            session, tenant_id, [shipment_input(plan, {}, ANCHOR)]
        )
    moves = [tracking.StateMove(S.COMPLETED, ANCHOR), tracking.StateMove(S.IN_TRANSIT, ANCHOR)]
    with pytest.raises(ApiError) as refused, transaction(context.sessions) as session:
        tracking.add_histories(session, [tracking.History(shipment_id, "TL", states=moves)])
    assert refused.value.status == 409
    event = TrackedShipmentEvent(type="ARRIVAL_AT_STOP", date_time=ANCHOR, stop_id=plan.legs[0].id)
    with pytest.raises(ApiError) as refused, transaction(context.sessions) as session:
        tracking.add_histories(session, [tracking.History(shipment_id, "TL", events=[event])])
    assert refused.value.status == 400
    # Nothing of a refused batch was kept.
    with context.sessions() as session:
        assert _recorded(session, shipment_id)["summary"][0] == S.SCHEDULED.value
        assert len(_recorded(session, shipment_id)["journal"]) == 2  # created, SCHEDULED
