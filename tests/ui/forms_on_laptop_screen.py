"""Run by tests/ui/test_forms_fit_laptop.py in a process of its own whose offscreen screen is
a laptop's (FREIGHTDESK_TEST_SCREEN: 1366x768, or it or 1280x720 at 125 % scale): each form the app
opens fits the screen with room for a title bar and a taskbar, its Save button in sight,
centred on the window it opens over; so does each of its other dialogs, its buttons in sight.
Not collected with the suite (its name): the suite's own offscreen screen is 800x800."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings, Qt
from PySide6.QtWidgets import QApplication, QDialog, QDialogButtonBox, QScrollArea, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.models.auth import TenantRole
from freightdesk.service.client_applications import ClientApplications
from freightdesk.service.profiles import ProfileStore
from freightdesk.service.session import AppSession
from freightdesk.ui.dialogs.booking_form import BookingFormDialog
from freightdesk.ui.dialogs.client_applications import ClientApplicationsDialog
from freightdesk.ui.dialogs.connections import ConnectionsDialog
from freightdesk.ui.dialogs.log_file import LogFileDialog
from freightdesk.ui.dialogs.name_dialog import NameDialog
from freightdesk.ui.panes.documents.upload import UploadDialog
from freightdesk.ui.panes.packages.form import PackageFormDialog
from freightdesk.ui.panes.rates.form import RateRequestFormDialog
from freightdesk.ui.panes.shipments.attention import TriageSettingsDialog
from freightdesk.ui.panes.shipments.bulk_dialogs import BulkResultDialog
from freightdesk.ui.panes.shipments.form import ShipmentFormDialog
from freightdesk.ui.panes.shipments.manage_views import ManageViewsDialog
from freightdesk.ui.panes.stop_locations.form import StopLocationFormDialog
from freightdesk.ui.panes.webhooks.form import WebhookFormDialog
from freightdesk.ui.panes.webhooks.secret import SigningSecretDialog
from freightdesk.ui.widgets.edit_table import EditTable
from freightdesk.ui.widgets.forms import ErrorLabel
from freightdesk.ui.widgets.screen_fit import ROOM_AROUND
from tests.support import wait_until
from tests.ui.conftest import activated
from tests.ui.forms_keys import keys
from tests.ui.test_export_panes import _from_loop

SCREEN = os.environ.get("FREIGHTDESK_TEST_SCREEN", "")
# The forms whose fields scroll on a screen: those too tall for it (a tabbed form's in its
# tab). The booking's first tab needs 625 px at 1366 for its two tables at their usual height:
# squeezed, they were drawn over by their buttons once problems were said under the fields.
SCROLLED = {
    "1366x768": ("new booking",),
    "1093x614": ("new booking",),
    "1024x576": ("new shipment", "new booking"),
}
PRESSES = 200  # a table takes a Tab per cell; far more than any form's fields and cells
SAVING = (QDialogButtonBox.ButtonRole.AcceptRole, QDialogButtonBox.ButtonRole.ApplyRole)

FORMS: dict[str, Callable[[AppSession, QWidget, Path], QDialog]] = {
    "new shipment": lambda s, w, _p: ShipmentFormDialog(s, None, w),
    "new stop location": lambda s, w, _p: StopLocationFormDialog(s, None, w),
    "new rate request": lambda s, w, _p: RateRequestFormDialog(s, None, w),
    "new package": lambda s, w, _p: PackageFormDialog(s, None, w),
    "new booking": lambda s, w, _p: BookingFormDialog(s, parent=w),
    "new webhook": lambda s, w, _p: WebhookFormDialog(s, None, w),
    "upload documents": lambda _s, w, p: UploadDialog([p], TenantRole.SHIPPER, parent=w),
}

# The other dialogs, with more than they usually hold where what they hold can grow: each fits
# the smallest screen as it is (measured at 1024x576: the tallest, Connections, 440 px; the
# widest, Client applications, 1010 px), so none is fitted (fit_on_screen); this keeps it so.
REASON = "the carrier refused the change: the shipment is already delivered"
DIALOGS: dict[str, Callable[[QWidget, Path, ProfileStore], QDialog]] = {
    "view name": lambda w, _p, _s: NameDialog(
        w,
        title="Save view",
        label="Name of the view",
        offered="Late at the dock",
        problem=lambda _name: None,
        taken=lambda _name: False,
        on_name=lambda _name: None,
        what="view",
    ),
    "manage views": lambda w, _p, _s: ManageViewsDialog(
        [f"Saved view {n}" for n in range(40)], "Saved view 3", w
    ),
    "triage settings": lambda w, p, _s: TriageSettingsDialog(
        QSettings(str(p.with_name("triage.ini")), QSettings.Format.IniFormat), w
    ),
    "bulk result": lambda w, _p, _s: BulkResultDialog(
        "12 of 52 not done", [(f"SHIP-{n}", REASON) for n in range(40)], w
    ),
    "log file": lambda w, p, _s: LogFileDialog(p.with_name("freightdesk.log"), w),
    "signing secret": lambda w, _p, _s: SigningSecretDialog("Dock updates", "s" * 64, w),
    "connections": lambda w, _p, profiles: ConnectionsDialog(profiles, w),
    "client applications": lambda w, _p, _s: ClientApplicationsDialog(
        ClientApplications("http://127.0.0.1:9", local=True), w
    ),
}


@pytest.mark.parametrize("kind", list(DIALOGS))
async def test_the_dialog_fits_the_screen_its_buttons_in_sight(
    qtbot: QtBot, profiles: ProfileStore, tmp_path: Path, kind: str
) -> None:
    main = _main_window(qtbot)
    dialog = DIALOGS[kind](main, tmp_path / "bol.pdf", profiles)
    await activated(dialog)
    _assert_fits(dialog, main)
    for button in dialog.findChildren(QDialogButtonBox)[-1].buttons():
        _assert_in_sight(dialog, button)
    dialog.close()


def _main_window(qtbot: QtBot) -> QWidget:
    """The main window, as big as the screen leaves room for."""
    available = QApplication.primaryScreen().availableGeometry()
    assert f"{available.width()}x{available.height()}" == SCREEN, available
    main = QWidget()
    qtbot.addWidget(main)
    main.setGeometry(available.adjusted(0, 0, 0, -ROOM_AROUND))
    main.show()
    return main


def _assert_fits(dialog: QDialog, main: QWidget) -> None:
    """Within the screen with room for a title bar and a taskbar, centred on `main`."""
    available = QApplication.primaryScreen().availableGeometry()
    frame = dialog.frameGeometry()
    assert dialog.height() <= available.height() - ROOM_AROUND, dialog.size()
    assert available.contains(frame), (frame, available)
    assert (frame.center() - main.frameGeometry().center()).manhattanLength() <= 2, frame


def _assert_in_sight(dialog: QDialog, button: QWidget) -> None:
    at = QRect(button.mapTo(dialog, QPoint(0, 0)), button.size())
    assert button.isVisible() and dialog.rect().contains(at), (at, dialog.size())
    assert dialog.childAt(at.center()) is button, dialog.childAt(at.center())


@pytest.mark.parametrize("kind", list(FORMS))
async def test_the_form_fits_the_screen_save_in_sight(
    qtbot: QtBot, session: AppSession, tmp_path: Path, kind: str
) -> None:
    main = _main_window(qtbot)
    document = tmp_path / "bol.pdf"
    document.write_bytes(b"%PDF-1.4\n")
    dialog = FORMS[kind](session, main, document)
    await activated(dialog)
    _assert_fits(dialog, main)
    (buttons,) = dialog.findChildren(QDialogButtonBox)
    save = next(b for b in buttons.buttons() if buttons.buttonRole(b) in SAVING)
    _assert_in_sight(dialog, save)
    # Fields too tall for the screen scroll (a tabbed form's in their tab), the buttons under.
    areas = [a for a in dialog.findChildren(QScrollArea, "formFields") if a.isVisible()]
    assert not any(area.isAncestorOf(save) for area in areas)
    scrolled = [area for area in areas if area.verticalScrollBar().isVisible()]
    if scrolled:
        await _tab_shows_each_field(qtbot, dialog, scrolled, save)
    assert bool(scrolled) == (kind in SCROLLED.get(SCREEN, ())), scrolled
    dialog.close()


async def _tab_shows_each_field(
    qtbot: QtBot, dialog: QDialog, areas: list[QScrollArea], save: QWidget
) -> None:
    """Tab from field to field scrolls the one the keyboard is in into sight, to Save."""
    for _ in range(PRESSES):
        here = QApplication.focusWidget()
        assert here is not None
        if here is save:
            return
        for fields in (area for area in areas if area.isAncestorOf(here)):
            viewport = fields.viewport()
            at = QRect(here.mapTo(viewport, QPoint(0, 0)), here.size())
            assert viewport.rect().intersects(at), (here, at, viewport.rect())
        await _from_loop(lambda: qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab))
    raise AssertionError(f"Save not reached by Tab on {type(dialog).__name__}")


async def test_the_booking_form_with_its_problems_said_overlaps_nothing(
    qtbot: QtBot, session: AppSession
) -> None:
    """Its problems said under their fields, the form grows: its tables keep their buttons
    under them (the walkthrough saw Add charge and Remove drawn over the charges at 1366x768,
    the fields squeezed below their least height), its Book button in sight."""
    main = _main_window(qtbot)
    dialog = BookingFormDialog(session, parent=main)
    await activated(dialog)
    await keys(qtbot, dialog.scac, "X1")
    await keys(qtbot, dialog.shipment_id, "NOSUCHSHIPMENT")
    await keys(qtbot, dialog.total_rate.amount, "12,50.x")
    (buttons,) = dialog.findChildren(QDialogButtonBox)
    book = next(b for b in buttons.buttons() if buttons.buttonRole(b) in SAVING)
    await _from_loop(lambda: qtbot.mouseClick(book, Qt.MouseButton.LeftButton))
    await wait_until(lambda: len([e for e in dialog.findChildren(ErrorLabel) if e.text()]) >= 2)
    await asyncio.sleep(0.1)  # laid out again
    _assert_fits(dialog, main)
    _assert_in_sight(dialog, book)
    for table in dialog.findChildren(EditTable):
        if table.isVisible():
            under = table.table.geometry().bottom()
            assert table.add_button.geometry().top() > under, (table.objectName(), under)
    dialog.close()
