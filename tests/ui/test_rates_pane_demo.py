"""A fresh demo's Rates pane lists the demo's rate requests (issue 14.10): the app never made
them, so it shows them only through the service's listing (an extension). The tenant gets the
demo's commercial data as the seeding's COMMERCE step writes it, then the pane is opened as a
user opens it, on an empty cache."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot
from sqlalchemy import select

from freightdesk.server.db import transaction, utcnow
from freightdesk.server.demo import commerce
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.rates.pane import RatesPane
from tests.support import TenantHandle, wait_until
from tests.ui.clock_forms import clock_text
from tests.ui.test_capacity_support import settle
from tests.ui.test_panes_support import connected, shown_pane

__all__ = ["connected"]

DEMO_REQUESTS = 10  # commerce._DEALS


def _seed_commerce(tenant: TenantHandle) -> None:
    with transaction(tenant.service.context.sessions) as session:
        tenant_id = session.scalar(select(Tenant.id).where(Tenant.name == tenant.name))
        assert tenant_id is not None
        commerce.fill(session, tenant_id, 7, utcnow(), [])


def _column(pane: RatesPane, title: str) -> list[str]:
    model = pane.requests
    (column,) = [
        c
        for c in range(model.columnCount())
        if model.headerData(c, Qt.Orientation.Horizontal) == title
    ]
    return [str(model.index(row, column).data()) for row in range(model.rowCount())]


async def test_a_fresh_demo_lists_its_rate_requests_with_quotes(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    _seed_commerce(tenant)
    pane = await shown_pane(qtbot, session, RatesPane)
    await wait_until(lambda: pane.requests.rowCount() == DEMO_REQUESTS, seconds=30)
    # Newest first, as the service lists them; every request has its carriers' quotes.
    created = [r.created_date_time for r in pane.requests.items]
    assert created == sorted(created, reverse=True)
    assert all(int(count) > 0 for count in _column(pane, "Quotes"))
    assert all(name for name in _column(pane, "Name"))
    statuses = set(_column(pane, "Status"))
    assert len(statuses) >= 3, statuses  # quoted, booked, cancelled, expired...
    # A click on the newest request shows its quotes beside the list.
    table = pane.request_table
    first = table.visualRect(pane.requests.index(0, 0)).center()
    QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=first)
    newest = pane.requests.items[0]
    await wait_until(lambda: pane.quotes.rowCount() == len(newest.quotes))
    assert pane.quotes.rowCount() > 0
    pane.shutdown()
    await settle(session)


# How long a quote can be booked, as a dispatcher says it ("in 22 h 00 min" read before).
VALID_FOR = re.compile(r"\d+ d( \d+ h)?|\d+ h( \d\d min)?|\d+ min|under 1 min|expired")


async def test_a_quotes_validity_reads_as_a_countdown_with_its_end_by_the_clock(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """The demo's quotes say how long each can still be booked under "Valid for" ("22 h",
    "2 d 22 h"; no "in", no "00 min"), and in the cell's tooltip until when, by the one clock;
    the request's line says until when it can be booked too."""
    session, tenant = connected
    _seed_commerce(tenant)
    pane = await shown_pane(qtbot, session, RatesPane)
    await wait_until(lambda: pane.requests.rowCount() == DEMO_REQUESTS, seconds=30)
    table = pane.request_table
    first = table.visualRect(pane.requests.index(0, 0)).center()
    QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=first)
    newest = pane.requests.items[0]
    await wait_until(lambda: pane.quotes.rowCount() == len(newest.quotes) > 0)
    (column,) = [
        c
        for c in range(pane.quotes.columnCount())
        if pane.quotes.headerData(c, Qt.Orientation.Horizontal) == "Valid for"
    ]
    for row in range(pane.quotes.rowCount()):
        index = pane.quotes.index(row, column)
        shown = str(index.data())
        assert VALID_FOR.fullmatch(shown) and not shown.endswith(" 00 min"), shown
        tip = str(index.data(Qt.ItemDataRole.ToolTipRole))
        until = re.fullmatch(r"Valid until (.+) \((.+) more\)", tip)
        assert until is not None and clock_text(until[1]), tip
        assert until[2] == shown, (tip, shown)  # the same countdown
    said = re.search(r"request valid until (.+?) \((.+?) more\)", pane.subtitle.text())
    assert said is not None and clock_text(said[1]), pane.subtitle.text()
    assert VALID_FOR.fullmatch(said[2]), said[2]
    pane.shutdown()
    await settle(session)
