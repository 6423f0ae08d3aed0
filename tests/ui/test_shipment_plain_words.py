"""A dispatcher reads no codes in the shipments' form and detail (the walkthrough of session 18
saw BILL_OF_LADING and PICKUP offered in the New shipment form, CONTAINER_ID in the Overview,
BUNKER_SURCHARGE and PLANNED in the costs, OCEAN in the route): every detail tab of a demo
shipment of each mode is read for codes, uuids and ISO times (`plain_words.leaks`), and the
form offers its choices in words while the service still gets the codes."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
from PySide6.QtCore import QSettings, QSize, Qt
from PySide6.QtWidgets import QDialogButtonBox, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.profiles import Profile, ProfileKind, ProfileStore
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.server.test_tracking_support import SEARCH, air_body, create, route
from tests.support import TenantHandle, wait_until
from tests.ui.conftest import close_session
from tests.ui.new_shipment_form import combo_in, open_new_shipment
from tests.ui.plain_words import leaks
from tests.ui.test_export_panes import Demo, demo
from tests.ui.test_panes_support import connected
from tests.ui.test_shipment_overview import _click_tab, _showing
from tests.ui.test_shipments_list import _pane, shipments_window, window

__all__ = ["connected", "demo", "window"]

DATA_SECONDS = 60.0
# The Map is a web page (no codes of ours in widgets); the JSON tab is the wire itself.
NOT_READ = {"Map", "JSON"}


@pytest.fixture
async def demo_session(
    demo: Demo, session: AppSession, profiles: ProfileStore
) -> AsyncIterator[AppSession]:
    """A session signed in to the demo (not yet connected)."""
    profile = profiles.save(
        Profile(
            id="",
            name="Demo",
            kind=ProfileKind.REMOTE,
            base_url=demo.service.url,
            client_id=demo.client_id,
            poll_interval=30,
        ),
        secret=demo.client_secret,
    )
    profiles.activate(profile.id)
    yield session
    await close_session(session)


@pytest.fixture
def demo_window(qtbot: QtBot, demo_session: AppSession, settings: QSettings) -> Iterator[QWidget]:
    """The Shipments pane at 1920x1080, on the demo."""
    for shown in shipments_window(qtbot, demo_session, settings):
        shown.resize(QSize(1920, 1080))
        yield shown


async def test_every_detail_tab_of_a_demo_shipment_of_each_mode_reads_in_words(
    qtbot: QtBot, demo_window: QWidget, demo_session: AppSession
) -> None:
    pane = _pane(demo_window)
    await demo_session.connect()
    await wait_until(lambda: pane.model.rowCount() > 0, DATA_SECONDS)
    by_mode: dict[str, str] = {}
    for summary in pane.model.visible_summaries():
        if summary.mode is not None:
            by_mode.setdefault(str(summary.mode), str(summary.id))
    assert {"TL", "LTL", "OCEAN", "PARCEL", "AIR", "RAIL"} <= set(by_mode), by_mode
    detail = pane.detail
    found: dict[str, list[str]] = {}
    for mode, shipment_id in sorted(by_mode.items()):
        _click_row(qtbot, pane, shipment_id)
        await wait_until(lambda s=shipment_id: _showing(pane, s), DATA_SECONDS)  # type: ignore[misc]
        bar = detail.tabs.tabBar()
        for index in range(bar.count()):
            title = bar.tabText(index).replace("&&", "&")
            if title in NOT_READ:
                continue
            _click_tab(qtbot, detail, title)
            # A company's id is a value the user gives a partner to share with, not a code.
            ids = {detail.sharing.company_id.text()} | {
                p.uuid
                for p in (detail.sharing.sharing.recipients if detail.sharing.sharing else ())
            }
            said = [t for t in leaks(detail.tabs.currentWidget()) if t not in ids]
            if said := said + leaks(detail.title) + leaks(detail.subtitle):
                found[f"{mode} {title}"] = said
    assert not found, found


def _click_row(qtbot: QtBot, pane: ShipmentsPane, shipment_id: str) -> None:
    row = pane.model.row_of(shipment_id)
    assert row is not None
    index = pane.model.index(row, COLUMN_INDEX["primaryIdentifier"])
    pane.table.scrollTo(index)
    cell = pane.table.visualRect(index)
    qtbot.mouseClick(pane.table.viewport(), Qt.MouseButton.LeftButton, pos=cell.center())


async def test_an_identifier_the_mode_does_not_take_is_said_in_words(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    """The form said "BILL_OF_LADING is not an identifier of a AIR shipment"."""
    session, _tenant = connected
    form = await open_new_shipment(qtbot, session, window)
    assert combo_in(form.identifiers, 0, 0).currentText() == "Bill of lading"
    value = form.identifiers.item(0, 1)
    assert value is not None
    value.setText("BOL-1")
    # The user changes the mode to Air by its first letter: the row keeps its bill of lading.
    form.mode.setFocus()
    qtbot.keyClicks(form.mode, "A")
    assert form.mode.currentText() == "Air"
    assert combo_in(form.identifiers, 0, 0).currentText() == "Bill of lading"
    save = form.buttons.button(QDialogButtonBox.StandardButton.Save)
    qtbot.mouseClick(save, Qt.MouseButton.LeftButton)
    said = form.errors.message_for("identifiers")
    assert said == "Row 1: Bill of lading is not an identifier of an air shipment"
    assert form.isVisible() and leaks(form) == []
    form.mark_clean()
    form.close()


async def test_the_new_shipment_form_offers_words_and_sends_codes(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    session, tenant = connected
    form = await open_new_shipment(qtbot, session, window)
    kind = combo_in(form.identifiers, 0, 0)
    assert [kind.itemText(i) for i in range(kind.count())] == [
        "Bill of lading",
        "Carrier SCAC",
        "Purchase order",
    ]
    assert [combo_in(form.stops, r, 0).currentText() for r in (0, 1)] == ["Pickup", "Delivery"]
    assert leaks(form) == []
    # The user picks the order number by typing its first letter, as in any drop-down.
    qtbot.mouseClick(kind, Qt.MouseButton.LeftButton)
    kind.hidePopup()
    qtbot.keyClicks(kind, "P")
    assert kind.currentText() == "Purchase order"
    order = f"PO-{uuid.uuid4().hex[:8].upper()}"
    value = form.identifiers.item(0, 1)
    assert value is not None
    value.setText(order)
    for row, city in enumerate(("Dallas", "Austin")):
        item = form.stops.item(row, 3)
        assert item is not None
        item.setText(city)
    save = form.buttons.button(QDialogButtonBox.StandardButton.Save)
    qtbot.mouseClick(save, Qt.MouseButton.LeftButton)
    await wait_until(lambda: not form.isVisible(), seconds=30)
    found = tenant.http.post(SEARCH, json={"text": order}).json()["results"]
    assert len(found) == 1
    stored = tenant.http.get(f"/api/v4/shipments/{found[0]['id']}/tracking").json()
    assert stored["identifiers"] == [{"type": "PURCHASE_ORDER", "value": order}]
    assert [s["type"] for s in stored["routeInfo"]["stops"]] == ["PICKUP", "DELIVERY"]


async def test_a_related_shipment_is_named_as_the_list_names_it(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    """The Related tab showed a related shipment as its uuid (walkfix1, session 18)."""
    session, tenant = connected
    pro = f"PRO{uuid.uuid4().hex[:8].upper()}"
    parent = create(
        tenant,
        {
            "identifiers": [{"type": "PRO", "value": pro}],
            "plan": {"expectedTransportationModes": ["LTL"]},
            "routeInfo": route("Dallas", "Austin"),
        },
    )
    child = create(
        tenant,
        air_body(
            f"020-{uuid.uuid4().int % 10**7:07d}1"[:12],
            relatedShipments=[{"id": parent["id"], "relationType": "PARENT"}],
        ),
    )
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.rowCount() == 2, DATA_SECONDS)
    _click_row(qtbot, pane, child["id"])
    await wait_until(lambda: _showing(pane, child["id"]), DATA_SECONDS)
    detail = pane.detail
    _click_tab(qtbot, detail, "Related")
    related = detail.related
    assert related.rowCount() == 1
    name, relation = (related.item(0, c) for c in (0, 1))
    assert name is not None and relation is not None
    assert name.text() == f"{pro} · LTL · Dallas terminal → Austin terminal"
    assert relation.text() == "Parent"
    assert parent["id"] in name.toolTip()
    assert leaks(related) == []
    # A double-click opens it, by its id.
    cell = related.visualItemRect(name).center()
    qtbot.mouseClick(related.viewport(), Qt.MouseButton.LeftButton, pos=cell)
    qtbot.mouseDClick(related.viewport(), Qt.MouseButton.LeftButton, pos=cell)
    await wait_until(lambda: _showing(pane, parent["id"]), DATA_SECONDS)
