"""The Alerts inbox in the window against the real local service: an exception pushed for a
shipment becomes an unread alert and a count on the pane's name; Enter opens the shipment in
the Shipments pane; Mark all read clears the count; a restart on the same cache keeps it read."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication, QTreeWidgetItem
from pytestqt.qtbot import QtBot

from freightdesk.api.tracking import SEARCH_PATH
from freightdesk.service.alerts import AlertKind
from freightdesk.service.connection import ConnectionState
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import ProfileStore
from freightdesk.service.session import AppSession
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.alerts.pane import AlertsPane
from freightdesk.ui.panes.setup import install_panes
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from freightdesk.ui.widgets.item_table import ROW_HEIGHT
from tests.proxy import Fault, FaultyProxy
from tests.server.test_carrier_push_support import now
from tests.support import LiveService, TenantHandle, make_tenant, wait_until
from tests.ui.clock_forms import clock_text
from tests.ui.conftest import close_session
from tests.ui.test_panes_support import _activate, connected
from tests.ui.test_shipments_pane import _ltl, _put
from tests.ui.test_shipments_triage import (
    _attention,
    _parcel,
    _shipment,
    late_parcel,
    silent_truck,
)

__all__ = ["connected"]

WAIT = 30.0  # seconds: the list polls every few seconds, on a loaded machine


@pytest.fixture
def windows_may_close(qapp: QApplication) -> Iterator[None]:
    """The test closes a window and goes on (a restart): closing it must not end the loop."""
    before = qapp.quitOnLastWindowClosed()
    qapp.setQuitOnLastWindowClosed(False)
    yield
    qapp.setQuitOnLastWindowClosed(before)


def _nav_text(window: MainWindow, key: str) -> str:
    for row in range(window.nav.count()):
        item = window.nav.item(row)
        if item.data(Qt.ItemDataRole.UserRole) == key:
            return item.text()
    raise KeyError(key)


async def _open_window(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> MainWindow:
    window = MainWindow(session, settings, paths)
    qtbot.addWidget(window)
    install_panes(window, session)
    window.resize(1440, 900)
    window.show()
    # Awaited, not qtbot.waitExposed: no nested event loop inside the test's task.
    await wait_until(window.isVisible)
    await session.connect()
    return window


def _alerts_pane(window: MainWindow) -> AlertsPane:
    window.show_pane("alerts")
    pane = window.current_pane()
    assert isinstance(pane, AlertsPane)
    return pane


def _bold(item: QTreeWidgetItem) -> bool:
    return item.font(2).bold()


async def test_an_exception_is_an_alert_that_opens_its_shipment_and_stays_read(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    paths: AppPaths,
    profiles: ProfileStore,
    windows_may_close: None,
) -> None:
    session, tenant = connected
    number = f"1ZALERT{uuid.uuid4().hex[:8].upper()}"
    start = now()
    shipment_id = _shipment(
        tenant, "PARCEL", [("TRACKING_NUMBER", number)], start + timedelta(days=2)
    )
    window = await _open_window(qtbot, session, settings, paths)
    shipments = window.pane("shipments")
    assert isinstance(shipments, ShipmentsPane)
    await wait_until(lambda: shipments.model.row_of(shipment_id) is not None, seconds=WAIT)
    assert _nav_text(window, "alerts") == "Alerts"  # the list as it was: nothing new

    _parcel(tenant, number, "EXCEPTION", start - timedelta(minutes=2))
    assert session.shipments is not None
    session.shipments.coordinator.poke()
    await wait_until(lambda: _nav_text(window, "alerts") == "Alerts  (1)", seconds=WAIT)

    pane = _alerts_pane(window)
    assert pane.tree.topLevelItemCount() == 1
    item = pane.tree.topLevelItem(0)
    assert item.text(1) == "New exception" and number in item.text(2)
    assert clock_text(item.text(0)), item.text(0)  # the one clock: the user's zone, named
    assert _bold(item) and pane.count.text() == "1 unread"
    # Only exceptions can be filtered in; bookings show none.
    pane.kind.setCurrentIndex(pane.kind.findData(AlertKind.BOOKING.value))
    assert pane.tree.topLevelItemCount() == 0 and pane.empty.shown
    pane.kind.setCurrentIndex(pane.kind.findData(AlertKind.EXCEPTION.value))
    assert pane.tree.topLevelItemCount() == 1

    pane.tree.setFocus()
    pane.tree.setCurrentItem(pane.tree.topLevelItem(0))
    qtbot.keyClick(pane.tree, Qt.Key.Key_Return)
    assert window.current_pane() is shipments
    assert shipments.detail.shipment_id == shipment_id
    assert shipments.selected_ids() == [shipment_id]
    # Opened is read; the count goes.
    assert _nav_text(window, "alerts") == "Alerts"

    # Another exception, then Mark all read.
    _parcel(tenant, number, "EXCEPTION", start - timedelta(minutes=1))
    session.shipments.coordinator.poke()
    await wait_until(lambda: _nav_text(window, "alerts") == "Alerts  (1)", seconds=WAIT)
    pane = _alerts_pane(window)
    assert [_bold(pane.tree.topLevelItem(i)) for i in range(2)] == [True, False]
    # Rows as tall as the other lists' (they were the font's height, bold ones crammed).
    rows = [pane.tree.visualItemRect(pane.tree.topLevelItem(i)) for i in range(2)]
    assert [r.height() for r in rows] == [ROW_HEIGHT, ROW_HEIGHT], rows
    qtbot.mouseClick(pane.mark_all, Qt.MouseButton.LeftButton)
    assert _nav_text(window, "alerts") == "Alerts"
    assert not _bold(pane.tree.topLevelItem(0)) and not pane.mark_all.isEnabled()
    window.close()
    await close_session(session)

    # A restart on the same cache: the alerts are there, read.
    again = AppSession(paths, profiles, simulate=False)
    try:
        window = await _open_window(qtbot, again, settings, paths)
        assert _nav_text(window, "alerts") == "Alerts"
        pane = _alerts_pane(window)
        assert pane.tree.topLevelItemCount() == 2
        assert not any(_bold(pane.tree.topLevelItem(i)) for i in range(2))
        assert pane.count.text() == "All read"
        window.close()
    finally:
        await again.close()


async def test_a_booking_answered_is_an_alert_that_opens_the_booking(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    paths: AppPaths,
    windows_may_close: None,
) -> None:
    from freightdesk.ui.panes.bookings.pane import BookingsPane
    from tests.server.test_rating_support import set_profile
    from tests.ui.test_bookings_pane import _booking

    session, tenant = connected
    # The carrier answers a few seconds after the booking: the watch sees it before and after.
    set_profile(tenant, "ZZAL", behaviour="REVIEW", responseDelaySeconds=4)
    created = _booking(tenant, "ZZAL")
    window = await _open_window(qtbot, session, settings, paths)
    await wait_until(lambda: _nav_text(window, "alerts") == "Alerts  (1)", seconds=60)
    pane = _alerts_pane(window)
    item = pane.tree.topLevelItem(0)
    assert item.text(1) == "Booking answered" and "under review" in item.text(2)
    pane.tree.setFocus()
    pane.tree.setCurrentItem(item)
    qtbot.keyClick(pane.tree, Qt.Key.Key_Return)
    bookings = window.current_pane()
    assert isinstance(bookings, BookingsPane)
    await wait_until(
        lambda: (
            bookings.detail.booking is not None and str(bookings.detail.booking.id) == created["id"]
        ),
        seconds=WAIT,
    )
    assert _nav_text(window, "alerts") == "Alerts"
    window.close()


def _failed_ping(tenant: TenantHandle, webhook_id: int) -> None:
    answer = tenant.http.post(f"/api/v4/webhooks/id/{webhook_id}/ping")
    assert answer.status_code == 200, answer.text
    assert answer.json()["delivered"] is False


async def test_a_failed_delivery_is_an_alert_that_opens_its_webhook(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    paths: AppPaths,
    windows_may_close: None,
) -> None:
    from freightdesk.ui.panes.webhooks.pane import WebhooksPane

    session, tenant = connected
    # Nothing listens on port 9 (discard): every delivery fails.
    hook = {"configName": "Dock system", "url": "http://127.0.0.1:9/in"}
    saved = tenant.http.put("/api/v4/webhooks", json=hook)
    assert saved.status_code in (200, 201), saved.text
    webhook_id = int(saved.json()["id"])
    _failed_ping(tenant, webhook_id)  # before the inbox's first look: old news, read
    window = await _open_window(qtbot, session, settings, paths)
    pane = _alerts_pane(window)
    await wait_until(lambda: pane.tree.topLevelItemCount() == 1, seconds=WAIT)
    assert not _bold(pane.tree.topLevelItem(0)) and _nav_text(window, "alerts") == "Alerts"

    _failed_ping(tenant, webhook_id)
    qtbot.keyClick(pane.tree, Qt.Key.Key_F5)  # look now rather than within the minute
    await wait_until(lambda: _nav_text(window, "alerts") == "Alerts  (1)", seconds=WAIT)
    item = pane.tree.topLevelItem(0)
    assert item.text(1) == "Webhook delivery failed" and "'Dock system'" in item.text(2)
    assert _bold(item)
    pane.tree.setFocus()
    pane.tree.setCurrentItem(item)
    qtbot.keyClick(pane.tree, Qt.Key.Key_Return)
    webhooks = window.current_pane()
    assert isinstance(webhooks, WebhooksPane)
    await wait_until(lambda: webhooks.table.selected() is not None, seconds=WAIT)
    selected = webhooks.table.selected()
    assert selected is not None and selected.id == webhook_id
    window.close()


@pytest.fixture
async def proxied_polled_by_hand(
    sqlite_service: LiveService, session: AppSession, profiles: ProfileStore
) -> AsyncIterator[tuple[AppSession, TenantHandle, FaultyProxy]]:
    """A session reaching a fresh tenant through a proxy that can misbehave, its list polled
    only when the test pokes it (so a shipment comes when the test has cut its reads)."""
    tenant = make_tenant(sqlite_service)
    proxy = FaultyProxy(sqlite_service.url).start()
    _activate(profiles, proxy.url, tenant, poll_interval=3600)
    yield session, tenant, proxy
    await close_session(session)
    proxy.stop()
    tenant.http.close()


def _history(shipment_id: str) -> str:
    return f"/api/v4/shipments/{shipment_id}/tracking/history"


@pytest.mark.parametrize("again", ["next minute", "online again"])
async def test_facts_not_read_are_read_again_late_shown_and_silence_announced(
    qtbot: QtBot,
    proxied_polled_by_hand: tuple[AppSession, TenantHandle, FaultyProxy],
    settings: QSettings,
    paths: AppPaths,
    windows_may_close: None,
    again: str,
) -> None:
    """Two shipments come while their histories cannot be read (the connection cut): a parcel
    late against its delivery window, a truck silent for 5 h. Until their facts are read, the
    list cannot say the parcel is late and the Alerts do not announce the truck (a position
    may say it was heard). They never changed, so they were never asked again: the truck went
    unannounced and the parcel unflagged for good. Now the next minute's tick reads them again,
    or the service answering again (the status bar back to Online) does."""
    session, tenant, proxy = proxied_polled_by_hand
    calm = _put(tenant, _ltl(f"PROCALM{uuid.uuid4().hex[:5].upper()}"))
    window = await _open_window(qtbot, session, settings, paths)
    shipments = window.pane("shipments")
    assert isinstance(shipments, ShipmentsPane) and session.alerts is not None
    await wait_until(lambda: shipments.model.row_of(calm) is not None, seconds=WAIT)
    await wait_until(lambda: session.alerts is not None and session.alerts.baselined)

    start = now()
    late, _number = late_parcel(tenant, start)
    truck, bol = silent_truck(tenant, start - timedelta(hours=5))
    attempts = session.require_client().retry.attempts
    for shipment_id in (late, truck):
        proxy.inject(Fault(drop=True, path_prefix=_history(shipment_id)), times=attempts)
    assert session.shipments is not None
    session.shipments.coordinator.poke()
    await wait_until(lambda: shipments.model.total == 3, seconds=WAIT)
    facts = shipments.triage.facts
    assert facts is not None

    def asked() -> list[int]:
        return [proxy.count("GET", _history(late)), proxy.count("GET", _history(truck))]

    await wait_until(lambda: facts.unread == 2, seconds=WAIT)
    assert asked() == [attempts, attempts]
    assert _attention(shipments, late) == ""  # its appointment comes with the facts
    assert _attention(shipments, truck).endswith("No signal 5 h")  # its events say it
    assert _nav_text(window, "alerts") == "Alerts"

    if again == "next minute":
        shipments.triage.minute()  # its timer's, the service answering
    else:
        # The list's next poll cut too: Offline; the one after answers: Online again.
        proxy.inject(Fault(drop=True, path_prefix=SEARCH_PATH), times=attempts)
        session.shipments.coordinator.poke()
        await wait_until(lambda: session.status.state is ConnectionState.OFFLINE, seconds=WAIT)
        proxy.clear()
        assert asked() == [attempts, attempts]  # not asked while the service is down
        session.shipments.coordinator.poke()
    await wait_until(lambda: _attention(shipments, late).endswith("Late 2 h 30 min"), seconds=WAIT)
    await wait_until(lambda: _nav_text(window, "alerts") == "Alerts  (1)", seconds=WAIT)
    assert asked() == [attempts + 1, attempts + 1]
    pane = _alerts_pane(window)
    assert pane.tree.topLevelItemCount() == 1
    item = pane.tree.topLevelItem(0)
    assert item.text(1) == "No signal" and "has gone silent" in item.text(2), item.text(2)
    assert bol in item.text(2), item.text(2)
    window.close()
