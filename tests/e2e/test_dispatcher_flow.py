"""The real app on a fresh machine: the Local sandbox starts the local service with demo data;
a dispatcher finds a shipment, edits an attribute, and sees a carrier's push appear."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from PySide6.QtWidgets import QTableWidgetItem
from pytestqt.qtbot import QtBot

from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import LOCAL_PROFILE_ID, ProfileStore
from freightdesk.service.secrets import MemorySecretStore
from freightdesk.ui.application import AppController
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import wait_until

PARCEL_PUSH = "/api/v4/capacityproviders/parcel/shipments/statusupdates"


@pytest.mark.slow
@pytest.mark.timeout(900)
async def test_find_edit_and_see_a_pushed_event(qtbot: QtBot, paths: AppPaths) -> None:
    secrets = MemorySecretStore()
    # A short refresh interval so the test need not wait half a minute for each poll.
    store = ProfileStore(paths.profiles_file, secrets)
    store.save(replace(store.get(LOCAL_PROFILE_ID), poll_interval=5))
    controller = AppController(paths, secrets=secrets, simulate=False)
    qtbot.addWidget(controller.window)
    try:
        controller.start()
        pane = controller.window.pane("shipments")
        assert isinstance(pane, ShipmentsPane)
        await wait_until(lambda: pane.model.total >= 300, seconds=600)

        parcel = next(
            row
            for row in pane.model.visible_summaries()
            if row.mode == "PARCEL" and row.current_state == "IN_TRANSIT"
        )
        tracking_number = dict(parcel.identifiers)["TRACKING_NUMBER"]
        pane.search.setText(tracking_number)
        pane.apply_filter()
        assert [row.id for row in pane.model.visible_summaries()] == [parcel.id]
        pane.table.selectRow(0)
        detail = pane.detail
        await wait_until(lambda: detail.history is not None, seconds=60)
        assert detail.title.text() in dict(parcel.identifiers).values()

        detail._add_attribute_row()
        row = detail.attributes.rowCount() - 1
        detail.attributes.setItem(row, 0, QTableWidgetItem("dispatcher"))
        detail.attributes.setItem(row, 1, QTableWidgetItem("e2e"))
        detail.save_attribute_edits()
        await wait_until(lambda: detail.attribute_error.text() == "Attributes saved", seconds=60)

        client = controller.session.require_client()
        stamp = (datetime.now(UTC) - timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%S+0000")
        answer = await client.request(
            "POST",
            PARCEL_PUSH,
            json={
                "carrierIdentifier": {"type": "SCAC", "value": parcel.carrier or "UPSN"},
                "shipmentIdentifiers": [{"type": "TRACKING_NUMBER", "value": tracking_number}],
                "eventType": "OUT_FOR_DELIVERY",
                "timestamp": stamp,
                "description": "E2E out for delivery",
            },
            idempotent=False,
        )
        assert answer.status_code == 202

        def pushed_event_shown() -> bool:
            history = detail.history
            return history is not None and any(
                e.description == "E2E out for delivery" for e in history.events
            )

        # No click: the open shipment's background refresh brings it in.
        await wait_until(pushed_event_shown, seconds=120)
        texts = [
            detail.timeline.topLevelItem(i).child(j).text(0)
            for i in range(detail.timeline.topLevelItemCount())
            for j in range(detail.timeline.topLevelItem(i).childCount())
        ]
        assert "E2E out for delivery" in texts
    finally:
        controller.window.close()
        await controller.shutdown()
    assert controller.session.local_service is None
