"""The Sharing tab on a fresh demo, against the real local service: "Preview as the
recipient sees it" shows the shipment as its public link does (stops, events, where it was
last reported, no attributes), a link that shows nothing any more says so in words, and the
user's own company id is copied for a partner."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from datetime import datetime
from typing import Any

import httpx
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QTableWidget, QWidget
from pytestqt.qtbot import QtBot
from sqlalchemy import select

from freightdesk.server.demo import DEMO_TENANT_NAME
from freightdesk.server.demo.partners import PARTNER_NAME, SHARED_WITH_PARTNER
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.tables.tracking import Shipment, ShipmentShare
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import ProfileStore
from freightdesk.service.public_view import GONE, WITHHELD
from freightdesk.service.session import AppSession
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.shipments.public_preview import PublicPreviewDialog
from freightdesk.ui.panes.shipments.sharing import SharingTab
from freightdesk.ui.widgets.empty_state import EmptyState
from freightdesk.ui.widgets.screen_fit import ROOM_AROUND
from tests.support import wait_until
from tests.ui.conftest import close_session, exposed
from tests.ui.test_about import open_about
from tests.ui.test_export_panes import Demo, demo
from tests.ui.test_panes_support import _activate
from tests.ui.test_shipment_overview import _click_tab, _showing
from tests.ui.test_shipments_list import _pane, window

__all__ = ["demo", "window"]

DATA_SECONDS = 60.0  # a loaded machine answers slowly


@pytest.fixture(scope="module")
def demo_http(demo: Demo) -> Iterator[httpx.Client]:
    """The demo tenant as another dispatcher of the same company."""
    token = httpx.post(
        f"{demo.service.url}/api/v4/oauth2/token",
        data={"grant_type": "client_credentials"},
        auth=(demo.client_id, demo.client_secret),
    )
    token.raise_for_status()
    bearer = {"Authorization": f"Bearer {token.json()['access_token']}"}
    with httpx.Client(base_url=demo.service.url, headers=bearer, timeout=30) as http:
        yield http


@pytest.fixture
async def connected(
    demo: Demo, session: AppSession, profiles: ProfileStore
) -> AsyncIterator[tuple[AppSession, Demo]]:
    """The session of the Shipments pane's `window`, its profile the demo's."""
    _activate(profiles, demo.service.url, demo)  # type: ignore[arg-type]
    yield session, demo
    await close_session(session)


def _under_way(http: httpx.Client) -> dict[str, Any]:
    """A demo shipment with a few events reported and stops still to come, shared with
    nobody (its history)."""
    found = http.post("/api/v4/shipments/search", params={"pageSize": 200}, json={})
    assert found.status_code == 200, found.text
    for summary in found.json()["results"]:
        if summary["currentState"] != "IN_TRANSIT" or summary.get("sharedBy"):
            continue
        history = http.get(f"/api/v4/shipments/{summary['id']}/tracking/history").json()
        shared = (history.get("sharingContext") or {}).get("recipients")
        if not shared and len([e for e in history["events"] if e.get("type") != "ETA"]) >= 2:
            return dict(history)
    raise AssertionError("the demo has no shipment under way among its first 200")


def _demo_tenant_uuid(demo: Demo) -> str:
    with demo.service.context.sessions() as session:
        found = session.scalar(select(Tenant.uuid).where(Tenant.name == DEMO_TENANT_NAME))
    assert found is not None
    return str(found)


def _shared(demo: Demo) -> tuple[str, str]:
    """A demo shipment the partner follows, and one the partner shares with the demo."""
    with demo.service.context.sessions() as session:
        partner = session.scalar(select(Tenant.id).where(Tenant.name == PARTNER_NAME))
        rows = session.execute(
            select(Shipment.id, Shipment.tenant_id)
            .join(ShipmentShare, ShipmentShare.shipment_pk == Shipment.pk)
            .where(ShipmentShare.revoked_at.is_(None), Shipment.deleted_at.is_(None))
            .order_by(Shipment.pk)
        ).all()
    ours = [str(shipment) for shipment, owner in rows if owner != partner]
    theirs = [str(shipment) for shipment, owner in rows if owner == partner]
    assert len(ours) == SHARED_WITH_PARTNER and theirs
    return ours[0], theirs[0]


async def _open_sharing(qtbot: QtBot, window: QWidget, shipment_id: str) -> SharingTab:
    pane = _pane(window)
    await pane.session.connect()
    await wait_until(lambda: pane.model.row_of(shipment_id) is not None, DATA_SECONDS)
    row = pane.model.row_of(shipment_id)
    assert row is not None
    index = pane.model.index(row, 0)
    pane.table.scrollTo(index)  # as the user scrolls to it
    cell = pane.table.visualRect(index)
    qtbot.mouseClick(pane.table.viewport(), Qt.MouseButton.LeftButton, pos=cell.center())
    await wait_until(lambda: _showing(pane, shipment_id), DATA_SECONDS)
    _click_tab(qtbot, pane.detail, "Sharing")
    tab = pane.detail.sharing
    await wait_until(lambda: tab.sharing is not None, DATA_SECONDS)
    return tab


def _column(table: QTableWidget, column: int) -> list[str]:
    return [table.item(r, column).text() for r in range(table.rowCount())]


async def test_the_preview_shows_what_the_link_shows(
    qtbot: QtBot, demo_http: httpx.Client, window: QWidget
) -> None:
    history = _under_way(demo_http)
    shipment = history["shipment"]
    tab = await _open_sharing(qtbot, window, shipment["id"])
    assert tab.link.text() == shipment["shipmentShareLink"]
    assert tab.preview.isEnabled()

    qtbot.mouseClick(tab.preview, Qt.MouseButton.LeftButton)
    await wait_until(
        lambda: tab.preview_dialog is not None and tab.preview_dialog.isVisible(), DATA_SECONDS
    )
    dialog = tab.preview_dialog
    assert isinstance(dialog, PublicPreviewDialog)
    # It fits the screen with room for its title bar and a taskbar (the suite's screen is
    # shorter than 760 + that room, as a 1366x768 laptop's is).
    available = dialog.screen().availableGeometry()
    assert available.height() < 760 + ROOM_AROUND
    assert dialog.height() <= available.height() - ROOM_AROUND
    first = shipment["identifiers"][0]["value"]
    assert dialog.windowTitle() == f"{first} as the recipient sees it"
    assert first in dialog.identifiers.text()
    # Each identifier named in words, its letters kept: "PRO", "Carrier SCAC" (not "Pro").
    lines = dialog.identifiers.text().splitlines()
    lettered = 0
    for identifier in shipment["identifiers"]:
        line = next(line for line in lines if line.endswith(f": {identifier['value']}"))
        label = line.rsplit(": ", 1)[0]
        assert label.lower() == identifier["type"].replace("_", " ").lower(), line
        for letters in {"SCAC", "PRO", "ID"} & set(identifier["type"].split("_")):
            assert letters in label.split(), line
            lettered += 1
    assert lettered, shipment["identifiers"]
    # Every stop of the route, in order, with its appointment.
    stops = shipment["routeInfo"]["stops"]
    assert dialog.stops.rowCount() == len(stops)
    for number, (stop, label) in enumerate(zip(stops, _column(dialog.stops, 0), strict=True), 1):
        assert label.startswith(f"{number}. "), label
        if stop.get("name"):
            assert stop["name"] in label
    # Every event the link carries, newest first, and where it was last reported.
    events = history["events"]
    assert dialog.events.rowCount() == len(events)
    assert not dialog.events.findChild(EmptyState).isVisible()
    happened = [e for e in events if e.get("type") != "ETA" and e.get("dateTime")]
    latest = max(datetime.fromisoformat(e["dateTime"]) for e in happened)
    # Events at the same moment (a border crossed as the yard is reached) may come in either
    # order: any of them is the newest.
    said = {
        e.get("description") or e["type"].replace("_", " ").capitalize()
        for e in happened
        if datetime.fromisoformat(e["dateTime"]) == latest
    }
    assert dialog.reported.text().startswith(tuple(said)), (dialog.reported.text(), said)
    assert dialog.next_stop.text() != "No route"
    # The row's label says ETA; its value says it not again ("ETA ● ETA Dec 1 09:03" was).
    assert dialog.eta.text()
    assert dialog.eta.text() == "No ETA yet" or "ETA" not in dialog.eta.text(), dialog.eta.text()
    assert "what the link showed then" in dialog.read.text()
    # The owner's business data is not in the preview (a value the link's answer has
    # elsewhere, a customer named as a stop, may show there), and the preview says so.
    public = await asyncio.to_thread(demo_http.get, tab.link.text())
    shown = " ".join(
        [dialog.identifiers.text(), dialog.reported.text()]
        + [dialog.events.item(r, c).text() for r in range(dialog.events.rowCount()) for c in (0, 3)]
        + _column(dialog.stops, 0)
    )
    private = [
        value
        for attribute in history["shipment"]["attributes"]
        for value in (attribute.get("values") or [attribute.get("value")])
        if value and value not in public.text
    ]
    assert private, "the shipment has attributes the link does not carry"
    assert [value for value in private if value in shown] == []
    withheld = dialog.findChild(QWidget, "previewWithheld")
    assert withheld is not None and withheld.text() == WITHHELD  # type: ignore[attr-defined]
    # Closed with its button; the tab stays as it was.
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    await wait_until(lambda: not dialog.isVisible(), 10)
    assert tab.message.text() == ""


async def test_a_link_that_shows_nothing_any_more_says_so(
    qtbot: QtBot, demo_http: httpx.Client, window: QWidget
) -> None:
    history = _under_way(demo_http)
    shipment_id = history["shipment"]["id"]
    tab = await _open_sharing(qtbot, window, shipment_id)
    link = tab.link.text()
    assert link
    # Another dispatcher stops tracking it: the link is revoked with it.
    gone = await asyncio.to_thread(demo_http.delete, f"/api/v4/shipments/{shipment_id}/tracking")
    assert gone.status_code in (200, 202, 204), gone.text
    assert (await asyncio.to_thread(demo_http.get, link)).status_code == 404

    qtbot.mouseClick(tab.preview, Qt.MouseButton.LeftButton)
    await wait_until(lambda: tab.message.text() != "", DATA_SECONDS)
    assert tab.message.text() == GONE
    assert tab.message.isVisible()
    assert tab.preview_dialog is None


async def test_a_fresh_demo_has_sharing_both_ways(
    qtbot: QtBot, demo: Demo, window: QWidget
) -> None:
    ours, theirs = _shared(demo)
    tab = await _open_sharing(qtbot, window, ours)
    # The user's own company id, for a partner to share with: copied.
    own = _demo_tenant_uuid(demo)
    await wait_until(lambda: tab.company_id.text() == own, DATA_SECONDS)
    qtbot.mouseClick(tab.copy_company_id, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == own
    assert tab.message.text() == f"Your company id ({DEMO_TENANT_NAME}) copied"
    assert _column(tab.recipients, 0) == [PARTNER_NAME]
    assert tab.status.text() == ("Shared with 1 company: they follow it in their own FreightDesk.")
    assert tab.share.isEnabled()

    tab = await _open_sharing(qtbot, window, theirs)
    await wait_until(lambda: tab.status.text().startswith("Shared with you"), DATA_SECONDS)
    assert tab.status.text().startswith(f"Shared with you by {PARTNER_NAME} since ")
    assert not tab.share.isEnabled()
    # The partner's own public link: the preview shows its move too.
    qtbot.mouseClick(tab.preview, Qt.MouseButton.LeftButton)
    await wait_until(
        lambda: tab.preview_dialog is not None and tab.preview_dialog.isVisible(), DATA_SECONDS
    )
    assert tab.preview_dialog is not None and tab.preview_dialog.stops.rowCount() >= 2
    tab.preview_dialog.close()


async def test_about_names_the_users_company_and_its_id(
    qtbot: QtBot,
    demo: Demo,
    connected: tuple[AppSession, Demo],
    settings: QSettings,
    paths: AppPaths,
) -> None:
    session, _demo = connected
    main = MainWindow(session, settings, paths)
    qtbot.addWidget(main)
    main.show()
    await exposed(main)
    await session.connect()
    box = open_about(main)
    await exposed(box)
    own = _demo_tenant_uuid(demo)
    await wait_until(lambda: own in box.informativeText(), DATA_SECONDS)
    assert f"Your company: {DEMO_TENANT_NAME}\nYour company id: {own}" in box.informativeText()
    box.accept()
