"""The searches' kept read connection per thread (SQLite): it sees every commit, holds no read
transaction between statements, is let go when the engine is disposed of, and adds no
listener to the engine (one would slow every other route's connections)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic_core import from_json

from freightdesk.models.shipment_search import ShipmentSearchRequest
from freightdesk.models.tracking import TrackedShipmentInput
from freightdesk.server.app import build_context
from freightdesk.server.context import ServiceContext
from freightdesk.server.db import transaction
from freightdesk.server.domain import shipments as store
from freightdesk.server.domain.driver_statements import kept_reader
from freightdesk.server.domain.shipment_search import search_json
from freightdesk.server.domain.tenants import ensure_tenant
from freightdesk.server.settings import ServerSettings, sqlite_url


@pytest.fixture
def context(tmp_path: Path) -> Iterator[tuple[ServiceContext, int, Path]]:
    path = tmp_path / "db.sqlite3"
    context = build_context(ServerSettings(data_dir=tmp_path, database_url=sqlite_url(path)))
    try:
        with transaction(context.sessions) as session:
            tenant = ensure_tenant(session, "Acme", "ops-acme", "correct horse battery").tenant.id
        yield context, tenant, path
    finally:
        context.engine.dispose()


def _add(context: ServiceContext, tenant: int, value: str) -> None:
    body = TrackedShipmentInput.model_validate({"identifiers": [{"type": "PRO", "value": value}]})
    with transaction(context.sessions) as session:
        store.create_shipments(session, tenant, [body])


def _total(context: ServiceContext, tenant: int) -> int:
    with context.sessions() as session:
        answer = search_json(session, tenant, ShipmentSearchRequest.model_validate({}), 1, 50)
    total: int = from_json(answer)["paginationInfo"]["total"]
    return total


def test_each_search_sees_what_was_committed_before_it(
    context: tuple[ServiceContext, int, Path],
) -> None:
    service, tenant, path = context
    listeners = _listeners(service)
    _add(service, tenant, "PRO-1")
    assert _total(service, tenant) == 1
    _add(service, tenant, "PRO-2")
    assert _total(service, tenant) == 2
    # No read transaction left open on the kept connection: a full checkpoint is not busy.
    with sqlite3.connect(path) as other:
        busy, _log, _done = other.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    assert busy == 0
    # A listener on the engine sends every Connection through event dispatch: the kept
    # reader adds none (the workers' wake-ups have theirs, server/db.py).
    assert _listeners(service) == listeners


def _listeners(context: ServiceContext) -> dict[str, int]:
    dispatch = context.engine.dispatch
    return {name: len(getattr(dispatch, name)) for name in dir(dispatch) if _is_event(name)}


def _is_event(name: str) -> bool:
    return not name.startswith("_") and name not in ("dispatch", "_events")


def test_disposing_of_the_engine_lets_the_kept_connection_go(
    context: tuple[ServiceContext, int, Path],
) -> None:
    service, tenant, _path = context
    _add(service, tenant, "PRO-1")
    assert _total(service, tenant) == 1
    before = kept_reader(service.engine)
    assert before is kept_reader(service.engine)
    service.engine.dispose()
    after = kept_reader(service.engine)
    assert after is not None and after is not before
    with pytest.raises(sqlite3.ProgrammingError):  # closed once replaced
        before.execute("SELECT 1")
    assert _total(service, tenant) == 1
