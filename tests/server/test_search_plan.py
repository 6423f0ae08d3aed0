"""The shipment search reads its indexes: no full scan for an identifier prefix or a mode and
state, and the plans chosen by the number of matches give the same pages."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from freightdesk.models.shipment_search import ShipmentSearchRequest
from freightdesk.models.tracking import TrackedShipmentInput
from freightdesk.server.app import build_context
from freightdesk.server.context import ServiceContext
from freightdesk.server.db import transaction
from freightdesk.server.domain import shipment_search
from freightdesk.server.domain import shipments as store
from freightdesk.server.domain.driver_statements import kept_reader
from freightdesk.server.domain.tenants import ensure_tenant
from freightdesk.server.settings import ServerSettings, sqlite_url
from tests.server.test_tracking_search import fleet  # noqa: F401  (fixture)
from tests.server.test_tracking_support import SEARCH
from tests.support import TenantHandle

_FULL_SCAN = re.compile(r"\bSCAN (shipments|shipment_identifiers|shipment_documents)\b")


@pytest.fixture
def filled(tmp_path: Path) -> Iterator[tuple[ServiceContext, int]]:
    """A SQLite database with 400 shipments of two tenants."""
    context = build_context(
        ServerSettings(data_dir=tmp_path, database_url=sqlite_url(tmp_path / "db.sqlite3"))
    )
    try:
        with transaction(context.sessions) as session:
            tenants = [
                ensure_tenant(session, name, f"ops-{name}", "correct horse battery").tenant.id
                for name in ("Acme", "Globex")
            ]
            for tenant in tenants:
                bodies = [
                    TrackedShipmentInput.model_validate(
                        {"identifiers": [{"type": "PRO", "value": f"PRO{tenant}{n:06d}"}]}
                    )
                    for n in range(200)
                ]
                store.create_shipments(session, tenant, bodies)
        yield context, tenants[0]
    finally:
        context.engine.dispose()


def _plans(context: ServiceContext, tenant: int, body: dict[str, Any]) -> list[str]:
    """The query plan of every statement the search route runs for `body`, one string each."""
    # The statements as SQLite runs them (values in place): the search runs them on the
    # driver's cursor of the thread's kept connection, past SQLAlchemy's events. What the
    # route runs is `search_json`, whose statements differ from `search_shipments`' (a page
    # whose matches all fit is read in one statement with its summaries' JSON).
    statements: list[str] = []
    with context.sessions() as session:
        driver = kept_reader(context.engine)
        assert isinstance(driver, sqlite3.Connection)
        driver.set_trace_callback(statements.append)
        try:
            request = ShipmentSearchRequest.model_validate(body)
            answer = json.loads(shipment_search.search_json(session, tenant, request, 1, 50))
        finally:
            driver.set_trace_callback(None)
    assert answer["results"], "the search found nothing: its plan says little"
    plans = []
    with context.engine.connect() as conn:
        for statement in statements:
            rows = conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}")
            plans.append(" / ".join(row[3] for row in rows))
    return plans


# 200 matches: the page's keys, then their rows; 10 (all on the first page): the page with its
# summaries in one statement.
@pytest.mark.parametrize("prefix", ["pro1000", "pro100001"])
def test_an_identifier_prefix_is_found_in_its_index(
    filled: tuple[ServiceContext, int], prefix: str
) -> None:
    context, tenant = filled
    plans = _plans(context, tenant, {"text": prefix})
    assert not [plan for plan in plans if _FULL_SCAN.search(plan)], plans
    # The count and the page's candidates come from the covering index alone.
    reads = [plan for plan in plans if "shipment_identifiers" in plan]
    assert len(reads) >= 2, plans
    assert all("COVERING INDEX ix_shipment_identifiers_prefix" in plan for plan in reads), plans


def test_a_mode_and_state_are_counted_in_their_index(filled: tuple[ServiceContext, int]) -> None:
    context, tenant = filled
    with transaction(context.sessions) as session:
        session.execute(text("UPDATE shipments SET current_state = 'IN_TRANSIT'"))
    plans = _plans(context, tenant, {"transportationModes": ["LTL"], "states": ["IN_TRANSIT"]})
    assert not [plan for plan in plans if _FULL_SCAN.search(plan)], plans
    assert any("COVERING INDEX ix_shipments_tenant_mode_state" in plan for plan in plans), plans


@pytest.mark.parametrize("since", ["", "3"])
@pytest.mark.parametrize("token", ["", "5.5"])
def test_keyset_pages_are_read_in_the_change_index(
    filled: tuple[ServiceContext, int], since: str, token: str
) -> None:
    """A sync's keyset pages (full or since a token, first or later) walk the tenant's
    change index in its order: no full scan, no sort of the tenant's shipments."""
    context, tenant = filled
    plans = _plans(context, tenant, {"changesSince": since, "pageToken": token})
    assert not [plan for plan in plans if _FULL_SCAN.search(plan)], plans
    keyset = [plan for plan in plans if "ix_shipments_tenant_change_pk" in plan]
    assert keyset and not [plan for plan in keyset if "TEMP B-TREE" in plan], plans


@pytest.mark.usefixtures("fleet")
def test_few_matches_sorted_or_read_in_order_answer_the_same(
    tenant: TenantHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Filters on summary columns with few matches are sorted after the filter's index is
    read; with many, the sort order is walked. Both plans must give the same pages, in every
    order (shipments without an ETA or identifier last in either direction)."""
    bodies: list[dict[str, Any]] = [
        {"transportationModes": ["AIR", "OCEAN", "PARCEL", "LTL"]},
        {"states": ["SCHEDULED", "IN_TRANSIT"], "sort": {"field": "nextEta", "direction": "ASC"}},
        {"hasOpenExceptions": False, "sort": {"field": "nextEta", "direction": "DESC"}},
        {"transportationModes": ["OCEAN", "LTL"], "sort": {"field": "state", "direction": "ASC"}},
        {"hasOpenExceptions": False, "sort": {"field": "primaryIdentifier", "direction": "DESC"}},
        {"hasOpenExceptions": True},
    ]
    pages = [{"page": 1, "pageSize": 2}, {"page": 2, "pageSize": 2}]
    sorted_first = [
        tenant.http.post(SEARCH, json=body, params=page).json() for body in bodies for page in pages
    ]
    monkeypatch.setattr(shipment_search, "_FEW", 0)
    in_order = [
        tenant.http.post(SEARCH, json=body, params=page).json() for body in bodies for page in pages
    ]
    assert in_order == sorted_first
    assert sum(len(answer["results"]) for answer in sorted_first) >= 12
