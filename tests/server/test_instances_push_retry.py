"""Two services on one PostgreSQL database retry the same failed batch of carrier pushes, and
each push is still applied once (push_processing's one-by-one retry claims every push again).

A batch with one bad push fails and rolls back, letting its rows go; the service then applies
them one by one. Meanwhile another instance may take the same rows in its own batch, see it
fail too and apply them one by one itself. The interleaving is made, not hoped for: at the
first statement the first instance sends after its batch rolled back, the second instance runs
its whole pass; then the first goes on. Neither runs a push worker of its own.

A second apply would leave the shipment as it was (positions are stored once per instant,
events under ids derived from the push), so the judge is also what the first instance writes
after the second's pass: nothing (without the claim, it marks every push again).
"""

from __future__ import annotations

import threading
import uuid
from datetime import timedelta
from typing import Any

from sqlalchemy import event, select

from freightdesk.server.domain.push_processing import process_pending
from freightdesk.server.tables.push import PushIngestion
from tests.server.test_carrier_push_support import (
    create_shipment,
    history,
    iso,
    now,
    store_pending_truckloads,
    truckload_body,
    unique,
)
from tests.support import PostgresServer, make_tenant, running_service

GOOD = 3


def test_two_instances_retrying_one_failed_batch_apply_each_push_once(
    postgres: PostgresServer,
) -> None:
    database = postgres.create_database()
    with (
        running_service(database, process_pushes=False) as first,
        running_service(database, process_pushes=False) as second,
    ):
        tenant = make_tenant(first)
        bol = unique("BOL")
        shipment = create_shipment(tenant, [("BILL_OF_LADING", bol)])
        base = now() - timedelta(hours=1)
        # The bad push first (a payload an older version stored, say), then good ones, each
        # one position of its own.
        bad = {"truckload": {"identifiers": {"billOfLadingNumber": bol}}}
        payloads: list[dict[str, Any]] = [bad]
        for k in range(GOOD):
            readings = {
                "dateTime": iso(base + timedelta(minutes=k)),
                "position": {"latitude": 41.0 + k / 100, "longitude": -87.6},
            }
            payloads.append(truckload_body(bol, readings=readings))
        ids = [str(uuid.uuid4()) for _ in payloads]
        store_pending_truckloads(
            first.context.sessions, tenant.uuid, list(zip(ids, payloads, strict=True))
        )

        # Only this thread's statements: the services' own workers share the engine.
        mine = threading.get_ident()
        rolled_back = threading.Event()
        second_took: list[int] = []
        # What the first instance writes once the second has been through (nothing is left
        # for it: the second applied and marked every push).
        written_after: list[str] = []

        def on_rollback(_conn: object) -> None:
            if threading.get_ident() == mine:
                rolled_back.set()

        def before(_conn: object, _cursor: object, statement: str, *_rest: object) -> None:
            if threading.get_ident() != mine or not rolled_back.is_set():
                return
            if not second_took:
                second_took.append(process_pending(second.context))
            if statement.lstrip().split(None, 1)[0].upper() in ("INSERT", "UPDATE", "DELETE"):
                written_after.append(statement)

        engine = first.context.engine
        event.listen(engine, "rollback", on_rollback)
        event.listen(engine, "before_cursor_execute", before)
        try:
            first_took = process_pending(first.context)
        finally:
            event.remove(engine, "before_cursor_execute", before)
            event.remove(engine, "rollback", on_rollback)
        # Both batches held every push, and both failed (else nothing was retried).
        assert (first_took, second_took) == (len(ids), [len(ids)])
        assert written_after == []

        with first.context.sessions() as session:
            rows = session.execute(
                select(PushIngestion.ingestion_id, PushIngestion.status, PushIngestion.attempts)
            ).all()
        found = {row.ingestion_id: (row.status, row.attempts) for row in rows}
        # Each push marked once (a mark counts an attempt) and applied once: one position each.
        assert [found[i] for i in ids] == [("FAILED", 1)] + [("PROCESSED", 1)] * GOOD
        assert len(history(tenant, shipment["id"])["positions"]) == GOOD
        tenant.http.close()
