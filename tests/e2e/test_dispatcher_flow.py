"""The real app on a fresh machine: the Local sandbox starts the local service with demo data;
a dispatcher finds a shipment, edits an attribute, and sees a carrier's push appear.

Every wait here ends as soon as what it waits for can no longer happen (the service's child
exited, or the app could not connect), saying why: the child's exit code and its last lines."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QPushButton, QTableWidget, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.connection import ConnectionState
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import LOCAL_PROFILE_ID, ProfileStore
from freightdesk.service.secrets import MemorySecretStore
from freightdesk.service.session import AppSession
from freightdesk.service.summary_rows import SummaryRow
from freightdesk.ui.application import AppController
from freightdesk.ui.panes.shipments.form import ShipmentFormDialog
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from freightdesk.ui.widgets.forms import ErrorLabel
from tests.support import wait_until
from tests.ui.test_maps import (  # the app warms its maps up: QtWebEngine comes up in the test
    WEBENGINE_STARTUP,
    webengine_survives_loop_exits,  # noqa: F401 (a fixture of this module too)
)
from tests.ui.test_panes_support import visible_dialogs
from tests.ui.test_row_tables import click_cell

pytestmark = pytest.mark.qt_log_ignore(*WEBENGINE_STARTUP)

PARCEL_PUSH = "/api/v4/capacityproviders/parcel/shipments/statusupdates"
# Generous for a loaded machine (writing the whole demo took 88 s at a load of 9 on 2 cores);
# a service that is gone fails the test at once instead (see _until).
DEMO_LIST_SECONDS = 300
ANSWER_SECONDS = 90


def _why_gone(session: AppSession) -> str | None:
    """Why the local service can no longer answer the app, or None while it still can."""
    service = session.local_service
    status = session.status
    if service is not None and (service.returncode is not None or service.restarts):
        reason = f"the local service exited (exit code {service.returncode})"
    elif session.client is None and status.state is ConnectionState.OFFLINE:
        reason = "the app could not connect to the local service"
    else:
        return None
    tail = "\n".join(service.log_tail) if service is not None else "(no service was started)"
    return f"{reason}: {status.message}\n--- the service's last lines ---\n{tail}"


async def _until(
    session: AppSession,
    holds: Callable[[], bool],
    seconds: float,
    refused: Callable[[], str | None] = lambda: None,
) -> None:
    """Wait until `holds`; fail at once, with the reason, when the service is gone or
    `refused` says the app gave up on what the test waits for."""

    def hopeless() -> str | None:
        return _why_gone(session) or refused()

    await wait_until(lambda: holds() or hopeless() is not None, seconds=seconds)
    if not holds():
        pytest.fail(str(hopeless()))


def _click(qtbot: QtBot, button: QPushButton) -> None:
    assert button.isVisible() and button.isEnabled(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def _editor(table: QTableWidget, row: int, column: int) -> QWidget:
    editor = table.indexWidget(table.model().index(row, column))
    assert editor is not None, f"no editor open on row {row}, column {column}"
    return editor


def _shown_errors(form: QWidget) -> str | None:
    texts = [label.text() for label in form.findChildren(ErrorLabel) if not label.isHidden()]
    return "the form refused the save: " + " / ".join(texts) if texts else None


@pytest.mark.slow
@pytest.mark.timeout(900)
async def test_find_edit_and_see_a_pushed_event(qtbot: QtBot, paths: AppPaths) -> None:
    secrets = MemorySecretStore()
    # A short refresh interval so the test need not wait half a minute for each poll.
    store = ProfileStore(paths.profiles_file, secrets)
    store.save(replace(store.get(LOCAL_PROFILE_ID), poll_interval=5))
    controller = AppController(paths, secrets=secrets, simulate=False)
    session = controller.session
    qtbot.addWidget(controller.window)
    try:
        controller.start()
        pane = controller.window.pane("shipments")
        assert isinstance(pane, ShipmentsPane)

        def parcel_in_transit() -> SummaryRow | None:
            rows = pane.model.visible_summaries()
            return next(
                (r for r in rows if r.mode == "PARCEL" and r.current_state == "IN_TRANSIT"), None
            )

        await _until(session, lambda: parcel_in_transit() is not None, DEMO_LIST_SECONDS)
        parcel = parcel_in_transit()
        assert parcel is not None
        tracking_number = dict(parcel.identifiers)["TRACKING_NUMBER"]

        # The dispatcher types the tracking number into the search and clicks the one row.
        pane.search.setFocus()
        qtbot.keyClicks(pane.search, tracking_number)
        await wait_until(lambda: [r.id for r in pane.model.visible_summaries()] == [parcel.id])
        first = pane.table.visualRect(pane.table.model().index(0, 0)).center()
        qtbot.mouseClick(pane.table.viewport(), Qt.MouseButton.LeftButton, pos=first)
        detail = pane.detail
        await _until(session, lambda: detail.history is not None, ANSWER_SECONDS)
        assert detail.title.text() in dict(parcel.identifiers).values()

        # Edit…, a new attribute typed into its row, Save.
        _click(qtbot, detail.edit_button)
        # The form opens once the shipment is read as the service has it now.
        await _until(session, lambda: len(visible_dialogs(ShipmentFormDialog)) == 1, ANSWER_SECONDS)
        forms = visible_dialogs(ShipmentFormDialog)
        form = forms[0]
        assert isinstance(form, ShipmentFormDialog)
        table = form.attributes
        add = next(
            b
            for b in table.parentWidget().findChildren(QPushButton)
            if b.text() == "Add" and b.parentWidget() is table.parentWidget()
        )
        _click(qtbot, add)
        row = table.rowCount() - 1
        click_cell(qtbot, table, row, 0, double=True)
        qtbot.keyClicks(_editor(table, row, 0), "dispatcher")
        qtbot.keyClick(_editor(table, row, 0), Qt.Key.Key_Tab)  # on to the value's cell
        qtbot.keyClicks(_editor(table, row, 1), "e2e")
        qtbot.keyClick(_editor(table, row, 1), Qt.Key.Key_Return)
        await wait_until(lambda: table.item(row, 1).text() == "e2e")  # taken a moment later
        save = form.buttons.button(QDialogButtonBox.StandardButton.Save)
        _click(qtbot, save)
        await _until(
            session,
            lambda: not form.isVisible(),
            ANSWER_SECONDS,
            refused=lambda: _shown_errors(form) if save.isEnabled() else None,
        )

        # The service has it, read back with a token of the app's client application.
        service = session.local_service
        assert service is not None and service.url is not None
        profile = controller.profiles.get(LOCAL_PROFILE_ID)
        async with httpx.AsyncClient(base_url=service.url, timeout=60) as http:
            token = await http.post(
                "/api/v4/oauth2/token",
                data={
                    "grant_type": "client_credentials",
                    "client_id": profile.client_id,
                    "client_secret": controller.profiles.secret(profile),
                },
            )
            token.raise_for_status()
            http.headers["Authorization"] = f"Bearer {token.json()['access_token']}"
            attributes = (await http.get(f"/api/v4/shipments/{parcel.id}/attributes")).json()
            assert {"attributeName": "dispatcher", "attributeValues": ["e2e"]} in attributes

            # A carrier pushes an event for the tracking number.
            stamp = (datetime.now(UTC) - timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%S+0000")
            answer = await http.post(
                PARCEL_PUSH,
                json={
                    "carrierIdentifier": {"type": "SCAC", "value": parcel.carrier or "UPSN"},
                    "shipmentIdentifiers": [{"type": "TRACKING_NUMBER", "value": tracking_number}],
                    "eventType": "OUT_FOR_DELIVERY",
                    "timestamp": stamp,
                    "description": "E2E out for delivery",
                },
            )
            assert answer.status_code == 202, answer.text

        def pushed_event_shown() -> bool:
            history = detail.history
            return history is not None and any(
                e.description == "E2E out for delivery" for e in history.events
            )

        # No click: the open shipment's background refresh brings it in.
        await _until(session, pushed_event_shown, ANSWER_SECONDS)
        texts = [
            detail.timeline.topLevelItem(i).child(j).text(0)
            for i in range(detail.timeline.topLevelItemCount())
            for j in range(detail.timeline.topLevelItem(i).childCount())
        ]
        assert "E2E out for delivery" in texts
        # The detail shows the saved attribute too.
        shown = [
            (detail.attributes.item(r, 0).text(), detail.attributes.item(r, 1).text())
            for r in range(detail.attributes.rowCount())
        ]
        assert ("dispatcher", "e2e") in shown
    finally:
        controller.window.close()
        await controller.shutdown()
    assert controller.session.local_service is None
