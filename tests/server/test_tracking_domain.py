"""The domain write API of tracked shipments, as push processing, demo data and webhooks use it:
lifecycle, exceptions, ETAs, positions, lookups and the change journal (checked over HTTP where
an integrator would notice)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from freightdesk.models.tracking import (
    ExceptionStatus,
    ShipmentException,
    ShipmentStateType,
    SpeedUnit,
    TrackedShipmentEvent,
    TrackedShipmentInput,
    TrackedShipmentPosition,
)
from freightdesk.server.domain import shipments as store
from freightdesk.server.errors import ApiError
from tests.server.test_tracking_support import (
    SEARCH,
    air_body,
    create,
    journal,
    receive,
    route,
    shipment_path,
    tenant_id,
)
from tests.support import TenantHandle

S = ShipmentStateType
T0 = datetime(2024, 5, 1, 8, 0, tzinfo=UTC)


def test_lifecycle_moves_and_refusals(tenant: TenantHandle) -> None:
    shipment = create(tenant, air_body(routeInfo=route("Chicago", "Dallas")))
    sid = shipment["id"]
    stop_a, stop_b = (stop["id"] for stop in shipment["routeInfo"]["stops"])

    # Moves happen after the shipment was created (when it became SCHEDULED).
    base = datetime.now(UTC).replace(microsecond=0) + timedelta(days=1)

    def move(state: S, hours: int, stop: str | None = None) -> str | None:
        return receive(
            tenant,
            lambda s: store.set_state(
                s, sid, state, base + timedelta(hours=hours), stop_id=stop, source="AIR"
            ),
        )

    assert move(S.AT_STOP, 1, stop_a) is not None
    assert move(S.AT_STOP, 2, stop_a) is None  # the same state again changes nothing
    assert move(S.IN_TRANSIT, 3) is not None
    with pytest.raises(ApiError) as refused:
        move(S.SCHEDULED, 4)
    assert refused.value.status == 409
    assert move(S.AT_STOP, 5, stop_b) is not None
    assert move(S.COMPLETED, 6) is not None
    with pytest.raises(ApiError) as final:
        move(S.IN_TRANSIT, 7)
    assert "COMPLETED" in final.value.message
    with pytest.raises(ApiError) as unknown_stop:
        receive(
            tenant,
            lambda s: store.set_state(
                s, sid, S.AT_STOP, T0, stop_id=str(uuid.uuid4()), source="AIR"
            ),
        )
    assert unknown_stop.value.status == 400

    states = tenant.http.get(shipment_path(sid, "eventhistory")).json()["states"]
    by_type = sorted((s["startDateTime"], s["type"], s.get("endDateTime")) for s in states)
    assert [t for _, t, _ in by_type] == [
        "SCHEDULED",
        "AT_STOP",
        "IN_TRANSIT",
        "AT_STOP",
        "COMPLETED",
    ]
    closed_at = (base + timedelta(hours=3)).isoformat().replace("+00:00", "Z")
    assert by_type[1][2] == closed_at  # closed when IN_TRANSIT began
    assert by_type[-1][2] is None
    kinds = [kind for kind, _ in journal(tenant, sid)]
    assert kinds.count("shipments.v1.state.added") == 5
    assert kinds.count("shipments.v1.state.updated") == 4  # each state closed by the next


def test_exceptions_and_eta_keep_the_summary_current(tenant: TenantHandle) -> None:
    shipment = create(tenant, air_body(routeInfo=route("Chicago", "Dallas")))
    sid = shipment["id"]
    stop_b = shipment["routeInfo"]["stops"][1]["id"]
    eta = datetime(2030, 1, 1, 12, tzinfo=UTC)

    def work(session: Any) -> str:
        first = store.upsert_exception(
            session, sid, ShipmentException(type="DELAY", description="late"), "AIR"
        )
        store.upsert_exception(session, sid, ShipmentException(type="DAMAGE"), "AIR")
        store.set_eta(session, sid, eta, stop_id=stop_b, source="AIR")
        store.set_eta(session, sid, eta + timedelta(hours=3), stop_id=stop_b, source="AIR")
        return first

    first = receive(tenant, work)
    summary = tenant.http.post(SEARCH, json={}).json()["results"][0]
    assert summary["openExceptionCount"] == 2
    assert summary["nextEta"] == "2030-01-01T15:00:00Z"
    events = tenant.http.get(shipment_path(sid, "eventhistory")).json()["events"]
    assert [(e["type"], e["estimateDateTime"], e["stopId"]) for e in events] == [
        ("ETA", "2030-01-01T15:00:00Z", stop_b)
    ]

    receive(
        tenant,
        lambda s: store.upsert_exception(
            s,
            sid,
            ShipmentException(id=uuid.UUID(first), type="DELAY", status=ExceptionStatus.CLOSED),
            "AIR",
        ),
    )
    history = tenant.http.get(shipment_path(sid, "eventhistory")).json()
    closed = next(e for e in history["exceptions"] if e["id"] == first)
    assert closed["status"] == "CLOSED" and closed["resolvedDateTime"]
    assert tenant.http.post(SEARCH, json={}).json()["results"][0]["openExceptionCount"] == 1
    receive(tenant, lambda s: store.set_state(s, sid, S.IN_TRANSIT, T0, source="AIR"))
    receive(tenant, lambda s: store.set_state(s, sid, S.COMPLETED, T0, source="AIR"))
    assert "nextEta" not in tenant.http.post(SEARCH, json={}).json()["results"][0]
    kinds = [kind for kind, _ in journal(tenant, sid)]
    assert kinds.count("shipments.v1.exception.addedOrUpdated") == 3
    assert "shipments.v1.event.updated" in kinds  # the second ETA updated the first


def test_events_update_remove_and_latest_event(tenant: TenantHandle) -> None:
    sid = create(tenant, air_body())["id"]

    def add(session: Any) -> list[str]:
        return store.add_events(
            session,
            sid,
            [
                TrackedShipmentEvent(type="PICKED_UP", date_time=T0, description="picked"),
                TrackedShipmentEvent(type="DEPARTED", date_time=T0 + timedelta(hours=1)),
            ],
            "AIR",
        )

    picked, departed = receive(tenant, add)
    latest = tenant.http.post(SEARCH, json={}).json()["results"][0]["latestEvent"]
    assert latest == {"type": "DEPARTED", "dateTime": "2024-05-01T09:00:00Z"}
    with pytest.raises(ApiError) as twice:
        receive(
            tenant,
            lambda s: store.add_event(
                s, sid, TrackedShipmentEvent(id=uuid.UUID(picked), type="X"), "AIR"
            ),
        )
    assert twice.value.status == 409
    receive(tenant, lambda s: store.remove_event(s, sid, departed))
    latest = tenant.http.post(SEARCH, json={}).json()["results"][0]["latestEvent"]
    assert latest["type"] == "PICKED_UP" and latest["description"] == "picked"
    receive(
        tenant,
        lambda s: store.update_event(
            s,
            sid,
            TrackedShipmentEvent(
                id=uuid.UUID(picked), type="PICKED_UP", date_time=T0, description="new"
            ),
            "AIR",
        ),
    )
    latest = tenant.http.post(SEARCH, json={}).json()["results"][0]["latestEvent"]
    assert latest["description"] == "new"
    with pytest.raises(ApiError):
        receive(tenant, lambda s: store.remove_event(s, sid, departed))
    removed = [p for k, p in journal(tenant, sid) if k == "shipments.v1.event.removed"]
    assert removed[0]["event"]["id"] == departed  # the last value of the removed event


def test_positions_convert_speeds_and_journal(tenant: TenantHandle) -> None:
    sid = create(tenant, air_body())["id"]
    positions = [
        TrackedShipmentPosition(
            date_time=T0, latitude=1, longitude=2, speed=10, speed_unit="MILES_PER_HOUR"
        ),
        TrackedShipmentPosition(
            date_time=T0 + timedelta(minutes=1), latitude=1.1, longitude=2, speed=10, heading=90
        ),
    ]
    assert receive(tenant, lambda s: store.add_positions(s, sid, positions, "AIR")) == 2
    answer = tenant.http.get(shipment_path(sid, "positionhistory")).json()["positions"]
    assert answer[0]["speed"] == 16.09 and answer[0]["speedUnit"] == "KILOMETERS_PER_HOUR"
    assert answer[1]["heading"] == 90
    added = [p for k, p in journal(tenant, sid) if k == "positions.added"]
    assert len(added) == 1 and len(added[0]["positions"]) == 2 and added[0]["source"] == "AIR"
    with pytest.raises(ValueError):
        receive(tenant, lambda s: store.add_positions(s, sid, positions, "CARRIER_PIGEON"))
    with pytest.raises(ApiError) as missing:
        receive(tenant, lambda s: store.add_positions(s, str(uuid.uuid4()), positions, "AIR"))
    assert missing.value.status == 404


def test_a_failed_transaction_leaves_no_change_and_no_journal(tenant: TenantHandle) -> None:
    sid = create(tenant, air_body())["id"]
    before = journal(tenant, sid)

    def half_then_fail(session: Any) -> None:
        store.add_event(session, sid, TrackedShipmentEvent(type="X", date_time=T0), "AIR")
        store.set_state(session, sid, S.COMPLETED, T0, source="AIR")  # refused from SCHEDULED

    with pytest.raises(ApiError):
        receive(tenant, half_then_fail)
    assert journal(tenant, sid) == before
    assert tenant.http.get(shipment_path(sid, "eventhistory")).json()["events"] == []


def test_lookups_and_bulk_creation(tenant: TenantHandle) -> None:
    owner = tenant_id(tenant)
    bodies = [
        TrackedShipmentInput.model_validate(
            {
                "identifiers": [
                    {"type": "PRO", "value": f"bulk-{i}"},
                    {"type": "PICKUP", "value": "P"},
                ]
            }
        )
        for i in range(300)
    ]
    ids = receive(tenant, lambda s: store.create_shipments(s, owner, bodies))
    assert len(set(ids)) == 300
    tracks = {
        sid: [
            TrackedShipmentPosition(
                date_time=T0 + timedelta(minutes=m), latitude=30 + m / 100, longitude=-90
            )
            for m in range(20)
        ]
        for sid in ids
    }
    assert receive(tenant, lambda s: store.add_positions_bulk(s, tracks, "LTL")) == 6000

    def lookups(session: Any) -> None:
        assert store.find_shipments_by_identifier(session, owner, "PRO", " BULK-7 ") == [ids[7]]
        assert store.find_shipments_by_identifier(session, owner, None, "bulk-7") == [ids[7]]
        assert store.find_shipments_by_identifier(session, owner, "PICKUP", "p") == ids
        assert store.find_shipments_by_identifier(session, owner, "AIR_WAYBILL", "bulk-7") == []
        assert store.find_shipments_by_identifier(session, owner + 10_000, None, "bulk-7") == []

    receive(tenant, lookups)
    total = tenant.http.post(SEARCH, json={"text": "bulk-"}).json()["paginationInfo"]["total"]
    assert total == 300
    history = tenant.http.get(shipment_path(ids[0], "positionhistory")).json()
    assert len(history["positions"]) == 20
    created = [k for k, _ in journal(tenant, ids[0])]
    assert created[:2] == ["shipments.v1.shipment.created", "shipments.v1.state.added"]


def test_fast_position_inserts_store_exactly_what_the_orm_stores() -> None:
    """Positions bypass SQLAlchemy's parameter processing on SQLite; the text must be the one
    UtcDateTime writes, or duplicate instants and ordering would break."""
    from sqlalchemy.dialects import sqlite

    from freightdesk.server.db import UtcDateTime

    dialect = sqlite.dialect()
    orm = UtcDateTime().dialect_impl(dialect).bind_processor(dialect)
    assert orm is not None
    for at in (
        datetime(2024, 5, 1, 8, 0, tzinfo=UTC),
        datetime(2024, 5, 1, 8, 0, 0, 1, tzinfo=UTC),
        datetime(1999, 12, 31, 23, 59, 59, 999_999, tzinfo=timezone(timedelta(hours=-5))),
        datetime(2030, 2, 3, 4, 5, 6, 70_000, tzinfo=timezone(timedelta(hours=5, minutes=30))),
    ):
        assert store.sqlite_utc_text(at) == orm(at)


def test_light_positions_for_bulk_writes(tenant: TenantHandle) -> None:
    """Generated data may use `Position` (no validation); it is stored like the wire model,
    offsets included."""
    sid = create(tenant, air_body())["id"]
    plus_two = timezone(timedelta(hours=2))
    light = [
        store.Position(T0.astimezone(plus_two), 10.0, 20.0, speed=10.0, speed_unit=SpeedUnit.KNOTS),
        store.Position(T0 + timedelta(minutes=1), 10.5, 20.5),
        store.Position(T0.astimezone(plus_two), 99.0, 99.0),  # the same instant again
    ]
    assert receive(tenant, lambda s: store.add_positions_bulk(s, {sid: light}, "AIR")) == 2
    positions = tenant.http.get(shipment_path(sid, "positionhistory")).json()["positions"]
    assert [(p["dateTime"], p["latitude"]) for p in positions] == [
        ("2024-05-01T08:00:00Z", 10.0),
        ("2024-05-01T08:01:00Z", 10.5),
    ]
    assert positions[0]["speed"] == 18.52 and positions[0]["speedUnit"] == "KILOMETERS_PER_HOUR"
