"""The detail's Sharing tab as a dispatcher uses it, against the real local service: who the
shipment is shared with (words when nobody), Share with… (a bad company id and the service's
refusal beside the field, what was typed kept), Stop sharing… after a confirmation whose
default keeps sharing, the public link copied (said to open on this computer only when it
names a loopback host); a shipment shared with the user says by whom."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialogButtonBox, QMessageBox, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.profiles import ProfileStore
from freightdesk.service.public_view import THIS_COMPUTER_ONLY
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from freightdesk.ui.panes.shipments.sharing import NOT_SHARED, STOP_TEXT, ShareDialog, SharingTab
from freightdesk.ui.widgets.empty_state import EmptyState
from tests.support import TenantHandle, make_tenant, running_service, wait_until
from tests.ui.conftest import close_session
from tests.ui.test_panes_support import _activate, click_answer, connected, message_box
from tests.ui.test_shipment_overview import _click_row_of, _click_tab, _showing
from tests.ui.test_shipments_list import _pane, shipments_window, window
from tests.ui.test_shipments_pane import _ltl, _put

__all__ = ["connected", "window"]


async def _open_sharing(
    qtbot: QtBot, session: AppSession, window: QWidget, shipment_id: str
) -> tuple[ShipmentsPane, SharingTab]:
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.row_of(shipment_id) is not None, seconds=30)
    _click_row_of(qtbot, pane, shipment_id)
    await wait_until(lambda: _showing(pane, shipment_id), seconds=30)
    _click_tab(qtbot, pane.detail, "Sharing")
    tab = pane.detail.sharing
    await wait_until(lambda: tab.sharing is not None, seconds=30)
    return pane, tab


def _empty_words(tab: SharingTab) -> EmptyState:
    words = tab.recipients.findChild(EmptyState)
    assert isinstance(words, EmptyState)
    return words


async def _share(qtbot: QtBot, tab: SharingTab, typed: str) -> ShareDialog:
    if tab.dialog is None or not tab.dialog.isVisible():
        qtbot.mouseClick(tab.share, Qt.MouseButton.LeftButton)
        await wait_until(lambda: tab.dialog is not None and tab.dialog.isVisible(), seconds=10)
    dialog = tab.dialog
    assert dialog is not None
    dialog.tenant.selectAll()
    qtbot.keyClick(dialog.tenant, Qt.Key.Key_Delete)
    qtbot.keyClicks(dialog.tenant, typed)
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    return dialog


def _stop_button(tab: SharingTab, row: int) -> QPushButton:
    button = tab.recipients.cellWidget(row, 3)
    assert isinstance(button, QPushButton) and button.text() == STOP_TEXT
    assert button.toolTip().startswith("Stop sharing with ")
    return button


async def test_share_with_a_partner_and_stop(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    session, tenant = connected
    shipment = _put(tenant, _ltl(f"PROSH{uuid.uuid4().hex[:6].upper()}"))
    partner = make_tenant(tenant.service)
    try:
        pane, tab = await _open_sharing(qtbot, session, window, shipment)
        # Nobody yet: the table says so and how to change it.
        assert _empty_words(tab).isVisible() and _empty_words(tab).text() == NOT_SHARED
        assert tab.status.text() == "Only your company follows this shipment."
        # Said as a dispatcher says it: a company and its id, not the service's "tenant".
        headers = [tab.recipients.horizontalHeaderItem(c).text() for c in range(3)]
        assert headers == ["Company", "Company id", "Shared since"]
        header = tab.recipients.horizontalHeader()
        assert header.sectionSize(1) > header.fontMetrics().horizontalAdvance("Company id")
        assert tab.share.isEnabled()
        # The public link, copied; it names this computer (the service listens on loopback):
        # said under it, since a partner who opens it reaches nothing.
        assert tab.link.text().startswith("http://127.0.0.1:")
        assert "/api/v4/public/shipments/" in tab.link.text()
        assert tab.link_scope.isVisible() and tab.link_scope.text() == THIS_COMPUTER_ONLY
        qtbot.mouseClick(tab.copy_link, Qt.MouseButton.LeftButton)
        assert QGuiApplication.clipboard().text() == tab.link.text()
        assert tab.message.text() == "Public link copied"

        # Not a company id: said beside the field before anything is sent; the text stays.
        dialog = await _share(qtbot, tab, "Acme Freight")
        error = dialog.errors.message_for("tenantUuid")
        assert error.startswith("A company id is a UUID"), error
        assert dialog.isVisible() and dialog.tenant.text() == "Acme Freight"
        # A well-formed id no tenant has: the service's refusal, beside the field.
        unknown = str(uuid.uuid4())
        await _share(qtbot, tab, unknown)
        await wait_until(
            lambda: dialog.errors.message_for("tenantUuid") not in ("", error), seconds=30
        )
        assert dialog.errors.message_for("tenantUuid") == (
            "No company has this id: check it with your partner"
        )
        assert dialog.isVisible() and dialog.tenant.text() == unknown

        await _share(qtbot, tab, partner.uuid)
        await wait_until(lambda: not dialog.isVisible(), seconds=30)
        assert tab.recipients.rowCount() == 1
        assert tab.recipients.item(0, 0).text() == partner.name
        assert tab.recipients.item(0, 1).text() == partner.uuid
        assert tab.recipients.item(0, 2).text()  # since when
        assert not _empty_words(tab).isVisible()
        assert tab.status.text().startswith("Shared with 1 company")
        assert tab.message.text() == "Shared"
        assert partner.http.get(f"/api/v4/shipments/{shipment}/tracking").status_code == 200

        # Stop sharing asks first; Return keeps sharing.
        qtbot.mouseClick(_stop_button(tab, 0), Qt.MouseButton.LeftButton)
        await wait_until(lambda: message_box("confirmStopSharing") is not None, seconds=10)
        box = message_box("confirmStopSharing")
        assert box is not None and partner.name in box.text()
        qtbot.keyClick(box, Qt.Key.Key_Return)
        await wait_until(lambda: message_box("confirmStopSharing") is None, seconds=10)
        assert tab.recipients.rowCount() == 1
        assert partner.http.get(f"/api/v4/shipments/{shipment}/tracking").status_code == 200

        qtbot.mouseClick(_stop_button(tab, 0), Qt.MouseButton.LeftButton)
        await click_answer(
            qtbot, "confirmStopSharing", QMessageBox.StandardButton.Yes, "&Stop sharing"
        )
        await wait_until(lambda: tab.recipients.rowCount() == 0, seconds=30)
        assert tab.message.text() == f"No longer shared with {partner.name}"
        assert _empty_words(tab).isVisible()
        assert partner.http.get(f"/api/v4/shipments/{shipment}/tracking").status_code == 404
        # The detail read the shipment again: still nobody (no stale row comes back).
        await wait_until(lambda: tab.status.text().startswith("Only your company"), seconds=30)
        assert pane.detail.history is not None
    finally:
        partner.http.close()


async def test_a_shipment_shared_with_the_user_says_by_whom(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    session, tenant = connected
    partner = make_tenant(tenant.service)
    try:
        theirs = _put(partner, _ltl(f"PROTH{uuid.uuid4().hex[:6].upper()}"))
        shared = partner.http.post(
            f"/api/v4/shipments/{theirs}/shares", json={"tenantUuid": tenant.uuid}
        )
        assert shared.status_code == 201, shared.text
        _, tab = await _open_sharing(qtbot, session, window, theirs)
        await wait_until(lambda: tab.status.text().startswith("Shared with you"), seconds=30)
        assert tab.status.text().startswith(f"Shared with you by {partner.name} since ")
        assert tab.status.text().endswith(f"Only {partner.name} can share it with others.")
        assert not tab.share.isEnabled()
        assert tab.recipients.rowCount() == 0
    finally:
        partner.http.close()


@pytest.fixture
async def team_server(session: AppSession, profiles: ProfileStore) -> AsyncIterator[TenantHandle]:
    """As `connected`, on a team server: a service that names its public address in links."""
    with running_service(public_url="https://freight.example.com") as service:
        tenant = make_tenant(service)
        _activate(profiles, service.url, tenant)
        yield tenant
        await close_session(session)
        tenant.http.close()


@pytest.fixture
def team_window(
    qtbot: QtBot, session: AppSession, team_server: TenantHandle, settings: QSettings
) -> Iterator[QWidget]:
    yield from shipments_window(qtbot, session, settings)


async def test_a_team_servers_public_link_says_nothing_of_this_computer(
    qtbot: QtBot, session: AppSession, team_server: TenantHandle, team_window: QWidget
) -> None:
    """A partner opens a team server's links (its `--public-url`) from anywhere: the tab
    does not say otherwise."""
    shipment = _put(team_server, _ltl(f"PROTS{uuid.uuid4().hex[:6].upper()}"))
    _, tab = await _open_sharing(qtbot, session, team_window, shipment)
    assert tab.link.text().startswith("https://freight.example.com/api/v4/public/")
    assert tab.link.isVisible() and not tab.link_scope.isVisible()
