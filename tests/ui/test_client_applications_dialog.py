"""File > Client applications against the real local service: a Customer Admin signs in,
creates an application (its secret shown once, Copy puts it on the clipboard), rotates its
secret (the old one stops working), deletes it; refused input is shown beside its field. Open
while the Local sandbox's service comes back on another port, the dialog follows it there."""

from __future__ import annotations

import httpx
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel, QMenu, QMessageBox
from pytestqt.qtbot import QtBot

from freightdesk.service.paths import AppPaths
from freightdesk.service.session import AppSession
from freightdesk.ui.dialogs.client_applications import ClientApplicationsDialog
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.widgets.elided import is_elided
from tests.support import TenantHandle, wait_until
from tests.ui.clock_forms import cell, clock_text
from tests.ui.conftest import activated
from tests.ui.test_documents_forms import mnemonics
from tests.ui.test_local_service_faults import _list_online, _moved_to_another_port
from tests.ui.test_panes_support import answer, connected, message_box, visible_dialogs

__all__ = ["connected"]

TOKEN = "/api/v4/oauth2/token"
APPS = "/api/v4/oauth2/client-applications"
MENU_TEXT = "Client &applications…"


def _token_status(tenant: TenantHandle, client_id: str, secret: str) -> int:
    return httpx.post(
        tenant.service.url + TOKEN,
        data={"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret},
    ).status_code


async def _window(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> MainWindow:
    window = MainWindow(session, settings, paths)
    qtbot.addWidget(window)
    window.resize(1366, 768)
    await session.connect()
    await activated(window)
    return window


async def _open_dialog() -> ClientApplicationsDialog:
    await wait_until(lambda: bool(visible_dialogs(ClientApplicationsDialog)))
    dialog = visible_dialogs(ClientApplicationsDialog)[0]
    assert isinstance(dialog, ClientApplicationsDialog)
    return dialog


async def _sign_in(qtbot: QtBot, dialog: ClientApplicationsDialog, tenant: TenantHandle) -> None:
    dialog.user.clear()
    qtbot.keyClicks(dialog.user, tenant.admin[0])
    qtbot.keyClicks(dialog.password, tenant.admin[1])
    qtbot.keyClick(dialog.password, Qt.Key.Key_Return)
    await wait_until(lambda: "signed in as" in dialog.count_label.text(), seconds=30)


async def _close(dialog: ClientApplicationsDialog) -> None:
    dialog.reject()
    assert not dialog.isVisible()
    assert dialog.closing is not None
    await dialog.closing
    assert not dialog.service.signed_in


async def test_create_copy_rotate_and_delete(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    paths: AppPaths,
    qtmodeltester: object,
) -> None:
    session, tenant = connected
    window = await _window(qtbot, session, settings, paths)
    handle = window.windowHandle()
    assert handle is not None
    QTest.keyClick(
        handle,
        Qt.Key.Key_A,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    dialog = await _open_dialog()
    assert not dialog.create_button.isEnabled() and not dialog.rotate_button.isEnabled()

    # Nothing typed: said beside each field. A wrong password: said beside the password.
    qtbot.mouseClick(dialog.sign_in_button, Qt.MouseButton.LeftButton)
    assert dialog.errors.message_for("user") and dialog.errors.message_for("password")
    qtbot.keyClicks(dialog.user, tenant.admin[0])
    qtbot.keyClicks(dialog.password, "not the password")
    qtbot.mouseClick(dialog.sign_in_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: bool(dialog.errors.message_for("password")), seconds=30)
    assert "did not accept" in dialog.errors.message_for("password")
    assert not dialog.errors.message_for("user")
    assert dialog.user.text() == tenant.admin[0]  # what was typed stays
    dialog.password.clear()
    await _sign_in(qtbot, dialog, tenant)
    assert dialog.password.text() == ""
    assert dialog.count_label.text().startswith("1 client application of your company account")
    # A dispatcher's words: their company account, not the service's "tenant".
    # (The test's admin is named after its tenant: the name is left out.)
    shown = [
        label.text().replace(tenant.admin[0], "")
        for label in dialog.findChildren(QLabel)
        if label.isVisible()
    ]
    assert not [text for text in shown if "tenant" in text.lower()], shown
    qtmodeltester.check(dialog.model)  # type: ignore[attr-defined]
    # The application the app itself connects with is marked as such.
    assert dialog.model.data(dialog.model.index(0, 0)) == "tests (this connection)"
    assert clock_text(cell(dialog.model, 0, "Created"))  # the one clock, the zone named

    # A refused name: shown beside the name, nothing sent, the text kept.
    qtbot.mouseClick(dialog.create_button, Qt.MouseButton.LeftButton)
    assert "name" in dialog.errors.message_for("name")
    qtbot.keyClicks(dialog.name, "x" * 201)
    qtbot.keyClick(dialog.name, Qt.Key.Key_Return)
    assert "200" in dialog.errors.message_for("name") and dialog.name.text() == "x" * 201
    assert len(tenant.http.get(APPS, auth=tenant.admin).json()["clientApplications"]) == 1

    dialog.name.clear()
    qtbot.keyClicks(dialog.name, "TMS integration")
    qtbot.keyClick(dialog.name, Qt.Key.Key_Return)
    await wait_until(lambda: dialog.secret_box.isVisible(), seconds=30)
    assert not dialog.errors.message_for("name") and dialog.name.text() == ""
    created = dialog.table.selected()
    assert created is not None and created.name == "TMS integration"
    secret = dialog.secret.text()
    assert secret and "You will not see it again" in dialog.secret_note.text()
    assert "TMS integration" in dialog.secret_box.title()
    assert dialog.count_label.text().startswith("2 client applications")
    keys = mnemonics(dialog)  # every Alt+letter of the window, the secret's Copy included
    assert len(keys) == len(set(keys)) and {"S", "U", "P", "T", "D", "R", "N", "O"} <= set(keys)
    QApplication.clipboard().clear()
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    assert QApplication.clipboard().text() == secret
    assert _token_status(tenant, created.id, secret) == 200

    # Rotate: asked first (Keep it changes nothing), then a new secret shown once.
    qtbot.mouseClick(dialog.rotate_button, Qt.MouseButton.LeftButton)
    box = message_box("confirmRotate")
    assert box is not None and "TMS integration" in box.text()
    assert "every token" in box.informativeText()
    assert "FreightDesk itself" not in box.informativeText()
    answer("confirmRotate", QMessageBox.StandardButton.Cancel)
    assert dialog.secret.text() == secret
    qtbot.mouseClick(dialog.rotate_button, Qt.MouseButton.LeftButton)
    answer("confirmRotate", QMessageBox.StandardButton.Yes)
    await wait_until(lambda: dialog.secret.text() not in ("", secret), seconds=30)
    rotated = dialog.secret.text()
    assert "old secret and its tokens no longer work" in dialog.notice.text()
    # The rotated-away secret no longer works at the real service; the new one does.
    assert _token_status(tenant, created.id, secret) == 401
    assert _token_status(tenant, created.id, rotated) == 200

    # Closing with the new secret not copied asks; Cancel keeps the window and the secret.
    dialog.reject()
    assert message_box("secretNotCopied") is not None
    answer("secretNotCopied", QMessageBox.StandardButton.Cancel)
    assert dialog.isVisible() and dialog.secret.text() == rotated
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    assert QApplication.clipboard().text() == rotated

    # Delete (the Delete key on the list): one question naming it.
    dialog.activateWindow()  # as the question box closed
    await wait_until(lambda: QApplication.activeWindow() is dialog)
    dialog.table.setFocus()
    qtbot.keyClick(dialog.table, Qt.Key.Key_Delete)
    box = message_box("confirmDelete")
    assert box is not None
    assert box.text() == "Delete the client application TMS integration?"
    assert box.button(QMessageBox.StandardButton.Yes).text() == "&Delete"
    answer("confirmDelete", QMessageBox.StandardButton.Yes)
    await wait_until(lambda: dialog.model.rowCount() == 1, seconds=30)
    assert "Deleted TMS integration" in dialog.notice.text()
    assert not dialog.secret_box.isVisible()  # its secret is of no use any more
    assert _token_status(tenant, created.id, rotated) == 401
    await _close(dialog)


# A popup menu on the offscreen platform: it cannot raise the menu or grab the keyboard for
# it, and says so; the menu works all the same.
@pytest.mark.qt_log_ignore(r"^This plugin does not support (raise\(\)|grabbing the keyboard)$")
async def test_opened_by_a_click_in_the_file_menu_and_the_services_refusal(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    paths: AppPaths,
) -> None:
    session, tenant = connected
    window = await _window(qtbot, session, settings, paths)
    bar = window.menuBar()
    file_action = bar.actions()[0]
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(file_action).center())
    menu = file_action.menu()
    assert isinstance(menu, QMenu)
    await wait_until(menu.isVisible)
    item = next(a for a in menu.actions() if a.text() == MENU_TEXT)
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(item).center())
    dialog = await _open_dialog()
    await _sign_in(qtbot, dialog, tenant)

    # Rotating the app's own application says FreightDesk goes on with the new secret,
    # kept for its connection: the app's next refresh still gets data.
    profile = session.profiles.get(session.profile.id)
    dialog.table.selectRow(0)
    qtbot.mouseClick(dialog.rotate_button, Qt.MouseButton.LeftButton)
    box = message_box("confirmRotate")
    assert box is not None and "FreightDesk itself connects" in box.informativeText()
    answer("confirmRotate", QMessageBox.StandardButton.Yes)
    await wait_until(lambda: dialog.secret_box.isVisible(), seconds=30)
    assert "keeps the new secret for its own connection" in dialog.notice.text()
    assert session.profiles.secret(profile) == dialog.secret.text() != tenant.client_secret
    assert _token_status(tenant, tenant.client_id, tenant.client_secret) == 401
    assert session.shipments is not None
    coordinator = session.shipments.coordinator
    assert await coordinator.fetch_now(), coordinator.status.last_error
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)

    # The service's own refusal (at most 20 applications) is said in the dialog, in words.
    for n in range(19):
        made = tenant.http.post(APPS, json={"name": f"app {n}"}, auth=tenant.admin)
        assert made.status_code == 201
    qtbot.keyClicks(dialog.name, "one too many")
    qtbot.mouseClick(dialog.create_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: dialog.general_error.isVisible(), seconds=30)
    assert "at most 20 client applications" in dialog.general_error.text()
    assert "Traceback" not in dialog.general_error.text()
    assert dialog.name.text() == "one too many" and dialog.create_button.isEnabled()

    # Closing with the name typed and not created asks before it is lost.
    dialog.reject()
    assert message_box("unsavedChanges") is not None
    answer("unsavedChanges", QMessageBox.StandardButton.Discard)
    assert not dialog.isVisible()
    assert dialog.closing is not None
    await dialog.closing
    client = await session.switch(profile.id)  # "Use this connection" again
    assert [g.code for g in await client.account_groups.list()] == []


async def test_the_selected_application_is_read_from_the_service(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    paths: AppPaths,
) -> None:
    session, tenant = connected
    window = await _window(qtbot, session, settings, paths)
    made = tenant.http.post(APPS, json={"name": "TMS integration"}, auth=tenant.admin).json()
    window.open_client_applications()
    dialog = await _open_dialog()
    await _sign_in(qtbot, dialog, tenant)
    assert [a.id for a in dialog.model.items] == [tenant.client_id, made["id"]]

    # At the dialog's own size every cell of short names is whole: the client id and the
    # machine user (app-<id>@clients...) are what an integrator copies.
    assert dialog.width() == dialog.minimumWidth()
    for row in range(2):
        for column in range(4):
            index = dialog.model.index(row, column)
            assert not is_elided(dialog.table, index), dialog.model.data(index)

    # Picked: its record as the service has it now, said under the list.
    rect = dialog.table.visualRect(dialog.model.index(1, 0))
    qtbot.mouseClick(dialog.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    await wait_until(lambda: dialog.details.text().startswith("TMS integration:"), seconds=30)
    assert f"client id {made['id']}, acting as {made['machineUser']}" in dialog.details.text()

    # Deleted elsewhere meanwhile: picked again, the dialog says so in words and drops it.
    assert tenant.http.delete(f"{APPS}/{made['id']}", auth=tenant.admin).status_code in (200, 204)
    rect = dialog.table.visualRect(dialog.model.index(0, 0))
    qtbot.mouseClick(dialog.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    await wait_until(lambda: dialog.details.text().startswith("tests:"), seconds=30)
    rect = dialog.table.visualRect(dialog.model.index(1, 0))
    qtbot.mouseClick(dialog.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    await wait_until(lambda: "no longer exists" in dialog.details.text(), seconds=30)
    assert dialog.details.text() == (
        "TMS integration no longer exists: it was deleted elsewhere, so it is no longer listed."
    )
    assert [a.id for a in dialog.model.items] == [tenant.client_id]
    assert "Traceback" not in dialog.details.text() and not dialog.rotate_button.isEnabled()
    await _close(dialog)


def test_not_connected_says_so(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    window = MainWindow(session, settings, paths)
    qtbot.addWidget(window)
    item = next(
        a
        for m in window.menuBar().findChildren(QMenu)
        for a in m.actions()
        if a.text() == MENU_TEXT
    )
    item.trigger()
    assert window.statusBar().currentMessage() == "Client applications: not connected yet"
    assert not visible_dialogs(ClientApplicationsDialog)


@pytest.mark.timeout(900)
async def test_the_dialog_follows_the_local_service_to_another_port(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    """The real `freightdesk serve` of the Local sandbox, killed with its port taken until it
    has come back on another (tests/ui/test_local_service_faults.py): signed in before, the
    dialog creates an application there; signed in again after, it lists them from there."""
    async with _list_online(qtbot, session, settings, paths) as (window, service, pid):
        dialog = window.open_client_applications()
        assert dialog is not None
        await activated(dialog)
        assert dialog.user.text() == "demo"  # the demo tenant's admin, offered
        qtbot.keyClicks(dialog.password, "demo")
        qtbot.keyClick(dialog.password, Qt.Key.Key_Return)
        await wait_until(lambda: "signed in as" in dialog.count_label.text(), seconds=60)
        await _moved_to_another_port(service, pid)

        # Signed in before the move: the next request goes where the service is now.
        qtbot.keyClicks(dialog.name, "After the move")
        qtbot.mouseClick(dialog.create_button, Qt.MouseButton.LeftButton)
        await wait_until(
            lambda: bool(dialog.notice.text() or dialog.general_error.text()), seconds=60
        )
        assert dialog.notice.text() == "Created After the move.", dialog.general_error.text()
        qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)  # its secret kept

        # Signed in again (a new connection for the admin): made at the new address.
        qtbot.keyClicks(dialog.password, "demo")
        qtbot.keyClick(dialog.password, Qt.Key.Key_Return)
        await wait_until(
            lambda: not dialog.password.text() or bool(dialog.general_error.text()), seconds=60
        )
        assert not dialog.general_error.text(), dialog.general_error.text()
        assert "After the move" in [a.name for a in dialog.model.items]
        assert dialog.service.base_url == service.url
        await _close(dialog)
