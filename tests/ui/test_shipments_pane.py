"""The Shipments pane against the real local service: find, filter, export, open, edit."""

from __future__ import annotations

import csv
import uuid
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.service.summary_rows import SUMMARIES, row_json
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import TenantHandle, wait_until
from tests.ui.test_export_panes import SAVE_DIALOG_WARNINGS, _from_loop, export_view_to
from tests.ui.test_panes_support import answer, connected, message_box, shown_pane
from tests.ui.test_shipment_model import row

__all__ = ["connected"]


def _put(tenant: TenantHandle, body: dict[str, object]) -> str:
    answer = tenant.http.put("/api/v4/shipments/tracking", json=body)
    assert answer.status_code in (200, 201), answer.text
    return str(answer.json()["id"])


def _ltl(pro: str, city: str = "Chicago") -> dict[str, object]:
    return {
        "identifiers": [
            {"type": "PRO", "value": pro},
            {"type": "BILL_OF_LADING", "value": f"B-{pro}"},
        ],
        "plan": {"expectedTransportationModes": ["LTL"]},
        "routeInfo": {
            "stops": [
                {
                    "id": str(uuid.uuid4()),
                    "type": "PICKUP",
                    "name": f"{city} DC",
                    "location": {
                        "address": {
                            "addressLines": [],
                            "city": city,
                            "state": "IL",
                            "country": "US",
                        }
                    },
                },
                {
                    "id": str(uuid.uuid4()),
                    "type": "DELIVERY",
                    "name": "Dallas DC",
                    "location": {
                        "address": {
                            "addressLines": [],
                            "city": "Dallas",
                            "state": "TX",
                            "country": "US",
                        }
                    },
                },
            ]
        },
    }


async def _pane(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> ShipmentsPane:
    session, _tenant = connected
    return await shown_pane(qtbot, session, lambda s: ShipmentsPane(s, settings), (1300, 700))


async def _detail_of_new_shipment(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> tuple[ShipmentsPane, str]:
    """The pane with a new LTL shipment's detail open."""
    _session, tenant = connected
    shipment_id = _put(tenant, _ltl(f"PROD{uuid.uuid4().hex[:5].upper()}"))
    pane = await _pane(qtbot, connected, settings)
    await wait_until(lambda: pane.model.rowCount() == 1)
    pane.open_shipment(shipment_id)
    await wait_until(lambda: pane.detail.history is not None)
    return pane, shipment_id


async def test_finds_filters_and_reports_missing_values(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> None:
    _session, tenant = connected
    pros = [f"PRO{n}{uuid.uuid4().hex[:5].upper()}" for n in range(3)]
    for pro in pros:
        _put(tenant, _ltl(pro))
    _put(
        tenant,
        {
            "identifiers": [{"type": "TRACKING_NUMBER", "value": "1ZPARCEL0001"}],
            "plan": {"expectedTransportationModes": ["PARCEL"]},
        },
    )
    pane = await _pane(qtbot, connected, settings)
    await wait_until(lambda: pane.model.rowCount() == 4)
    assert pane.count_label.text() == "4 shipments"

    pane.search.setText(pros[1][:6].lower())
    pane.apply_filter()
    assert {pane.model.summary_at(r).primary_identifier for r in range(pane.model.rowCount())} >= {
        pros[1]
    }

    pane.search.setText(f"{pros[0]}\n{pros[2]}\nNOPE-123")
    result = pane.apply_filter()
    assert sorted(s.primary_identifier for s in pane.model.visible_summaries()) == sorted(
        [pros[0], pros[2]]
    )
    assert result.not_found == ["NOPE-123"]
    assert "NOPE-123" in pane.notice.text() and pane.notice.isVisible()

    pane.search.clear()
    pane.mode.setCurrentIndex(pane.mode.findData("PARCEL"))
    pane.apply_filter()
    assert [s.primary_identifier for s in pane.model.visible_summaries()] == ["1ZPARCEL0001"]
    assert "LTL (3)" in [pane.mode.itemText(i) for i in range(pane.mode.count())]
    pane.shutdown()


async def _search_and_return(qtbot: QtBot, pane: ShipmentsPane, text: str) -> None:
    def act() -> None:
        pane.search.clear()
        qtbot.keyClicks(pane.search, text)
        qtbot.keyClick(pane.search, Qt.Key.Key_Return)

    await _from_loop(act)


async def test_return_in_the_search_opens_the_one_shipment_it_finds(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> None:
    _session, tenant = connected
    pros = [f"PRO{n}{uuid.uuid4().hex[:5].upper()}" for n in range(2)]
    ids = [_put(tenant, _ltl(pro)) for pro in pros]
    pane = await _pane(qtbot, connected, settings)
    await wait_until(lambda: pane.model.rowCount() == 2)
    # Typed and Return at once: the list is filtered then (not after its pause) and the one
    # shipment found is chosen and shown.
    await _from_loop(
        lambda: (
            qtbot.keyClicks(pane.search, pros[1]),
            qtbot.keyClick(pane.search, Qt.Key.Key_Return),
        )
    )
    assert [s.primary_identifier for s in pane.model.visible_summaries()] == [pros[1]]
    assert pane.selected_ids() == [ids[1]]
    await wait_until(lambda: pane.detail.shipment_id == ids[1])
    # Two found: filtered, nothing opened for the user.
    await _from_loop(
        lambda: (
            pane.search.clear(),
            qtbot.keyClicks(pane.search, "PRO"),
            qtbot.keyClick(pane.search, Qt.Key.Key_Return),
        )
    )
    assert pane.model.rowCount() == 2
    assert pane.selected_ids() == [ids[1]]  # the choice made before stays
    pane.shutdown()


def _click_row(qtbot: QtBot, pane: ShipmentsPane, shipment_id: str, *, ctrl: bool = False) -> None:
    row = pane.model.row_of(shipment_id)
    assert row is not None
    rect = pane.table.visualRect(pane.model.index(row, 0))
    modifier = Qt.KeyboardModifier.ControlModifier if ctrl else Qt.KeyboardModifier.NoModifier
    qtbot.mouseClick(pane.table.viewport(), Qt.MouseButton.LeftButton, modifier, rect.center())


async def test_a_search_that_hides_the_chosen_shipment_takes_it_out_of_the_detail(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> None:
    _session, tenant = connected
    tag = uuid.uuid4().hex[:5].upper()
    denver = _put(tenant, _ltl(f"PROD{tag}", city="Denver"))
    chicago = [_put(tenant, _ltl(f"PROC{n}{tag}", city="Chicago")) for n in range(2)]
    pane = await _pane(qtbot, connected, settings)
    await wait_until(lambda: pane.model.rowCount() == 3)
    await _from_loop(lambda: _click_row(qtbot, pane, denver))
    await wait_until(lambda: pane.detail.history is not None)
    assert pane.detail.timeline.topLevelItemCount() > 0

    # Ctrl+F's box: the Denver shipment is no longer in the list, nor in the detail.
    await _from_loop(lambda: qtbot.keyClicks(pane.search, "Chicago"))
    await wait_until(lambda: pane.model.rowCount() == 2)
    assert pane.detail.shipment_id is None
    assert pane.detail.title.text() == "Select a shipment"
    assert pane.detail.subtitle.text() == ""
    assert pane.detail.timeline.topLevelItemCount() == 0
    assert pane.detail.identifiers.rowCount() == 0
    assert not pane.detail.tabs.isEnabled()

    # Two chosen, one filtered out: the other one is shown.
    await _from_loop(lambda: pane.search.clear())
    await wait_until(lambda: pane.model.rowCount() == 3)
    await _from_loop(lambda: _click_row(qtbot, pane, chicago[0]))
    await _from_loop(lambda: _click_row(qtbot, pane, denver, ctrl=True))
    await wait_until(lambda: pane.detail.shipment_id == denver)
    await _from_loop(lambda: qtbot.keyClicks(pane.search, "Chicago"))
    await wait_until(lambda: pane.model.rowCount() == 2)
    assert pane.selected_ids() == [chicago[0]]
    await wait_until(lambda: pane.detail.shipment_id == chicago[0])
    pane.shutdown()


@pytest.mark.qt_log_ignore(SAVE_DIALOG_WARNINGS)
async def test_export_of_the_current_view(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings, tmp_path: Path
) -> None:
    _session, tenant = connected
    pro = f"PROX{uuid.uuid4().hex[:5].upper()}"
    _put(tenant, _ltl(pro, city="Joliet"))
    pane = await _pane(qtbot, connected, settings)
    await wait_until(lambda: pane.model.rowCount() == 1)
    await export_view_to(qtbot, pane, tmp_path / "view.csv")
    with (tmp_path / "view.csv").open(encoding="utf-8-sig") as handle:
        rows = list(csv.reader(handle))
    assert rows[0][0] == "Shipment"
    assert rows[1][0] == pro
    assert "Joliet DC" in rows[1]
    await export_view_to(qtbot, pane, tmp_path / "view.xlsx")
    from openpyxl import load_workbook

    sheet = load_workbook(tmp_path / "view.xlsx").active
    assert sheet is not None and sheet.cell(row=2, column=1).value == pro
    pane.shutdown()


async def test_background_update_keeps_selection_and_highlights(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> None:
    session, tenant = connected
    ids = [_put(tenant, _ltl(f"PROS{n}{uuid.uuid4().hex[:4].upper()}")) for n in range(5)]
    pane = await _pane(qtbot, connected, settings)
    await wait_until(lambda: pane.model.rowCount() == 5)
    target = ids[2]
    pane.open_shipment(target)
    assert pane.selected_ids() == [target]
    changed = ids[4]
    _put(tenant, {"id": changed, **_ltl("PROCHANGED")})
    assert session.shipments is not None
    await session.shipments.coordinator.fetch_now()
    await wait_until(lambda: pane.model.is_highlighted(changed))
    assert pane.selected_ids() == [target]
    pane.shutdown()


async def test_detail_shows_story_and_saves_attributes(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> None:
    _session, tenant = connected
    pane, shipment_id = await _detail_of_new_shipment(qtbot, connected, settings)
    detail = pane.detail
    assert detail.stops.rowCount() == 2
    assert "Chicago DC" in detail.stops.item(0, 0).text()
    # The appointment sits beside the stop, not after its address, in the narrow detail.
    stops = detail.stops
    assert stops.horizontalHeaderItem(1).text() == "Appointment (local time)"
    assert stops.horizontalHeader().visualIndex(1) == 1
    detail._add_attribute_row()
    row = detail.attributes.rowCount() - 1
    from PySide6.QtWidgets import QTableWidgetItem

    detail.attributes.setItem(row, 0, QTableWidgetItem("customer"))
    detail.attributes.setItem(row, 1, QTableWidgetItem("ACME"))
    detail.save_attribute_edits()
    await wait_until(lambda: detail.attribute_error.text() == "Attributes saved")
    attributes = tenant.http.get(f"/api/v4/shipments/{shipment_id}/attributes").json()
    assert {"attributeName": "customer", "attributeValues": ["ACME"]} in attributes
    pane.shutdown()


async def test_a_refused_attribute_keeps_the_edit(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> None:
    _session, tenant = connected
    shipment_id = _put(tenant, _ltl(f"PROE{uuid.uuid4().hex[:5].upper()}"))
    pane = await _pane(qtbot, connected, settings)
    await wait_until(lambda: pane.model.rowCount() == 1)
    pane.open_shipment(shipment_id)
    detail = pane.detail
    await wait_until(lambda: detail.history is not None)
    for n in range(26):
        detail.attributes.insertRow(n)
        from PySide6.QtWidgets import QTableWidgetItem

        detail.attributes.setItem(n, 0, QTableWidgetItem(f"a{n}"))
        detail.attributes.setItem(n, 1, QTableWidgetItem("v"))
    detail.save_attribute_edits()
    assert "at most 25" in detail.attribute_error.text()
    assert detail.attributes.rowCount() == 26
    pane.shutdown()


async def test_stop_tracking_asks_first_and_keeps_it_by_default(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> None:
    _session, tenant = connected
    pane, shipment_id = await _detail_of_new_shipment(qtbot, connected, settings)
    pane.detail.confirm_delete()
    box = message_box("confirmStopTracking")
    assert box is not None and box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    assert [b.text() for b in box.buttons()].count("&Keep it") == 1
    answer("confirmStopTracking", QMessageBox.StandardButton.Cancel)
    assert tenant.http.get(f"/api/v4/shipments/{shipment_id}/tracking").status_code == 200
    pane.detail.confirm_delete()
    answer("confirmStopTracking", QMessageBox.StandardButton.Yes)
    await wait_until(
        lambda: tenant.http.get(f"/api/v4/shipments/{shipment_id}/tracking").status_code == 404
    )
    await wait_until(lambda: pane.model.rowCount() == 0)
    pane.shutdown()


async def test_a_list_painted_before_the_session_keeps_the_chosen_row_once_whole(
    qtbot: QtBot, session: AppSession, settings: QSettings
) -> None:
    rows = [row(n) for n in range(30)]
    newest_first = sorted(rows, key=lambda r: r.last_modified, reverse=True)
    pane = ShipmentsPane(None, settings)
    qtbot.addWidget(pane)
    pane.resize(1300, 700)
    pane.show()
    # The first screen kept at the last close: the list's length, blank rows below it.
    pane.show_cached(newest_first[:12], total=30)
    assert pane.model.rowCount() == 30 and not pane.model.complete
    assert pane.count_label.text() == "30 shipments"
    assert pane.model.index(2, 0).data() == newest_first[2].primary_identifier
    assert pane.model.index(20, 0).data() is None
    pane.new_item()  # Ctrl+N before the session: nothing yet, and no error
    pane.refresh()
    # The dispatcher clicks a row before the session is there.
    cell = pane.table.visualRect(pane.model.index(2, 0)).center()
    qtbot.mouseClick(pane.table.viewport(), Qt.MouseButton.LeftButton, pos=cell)
    assert pane.selected_ids() == [newest_first[2].id]

    cache = session.open_cache(session.profiles.active)
    cache.replace_kind(SUMMARIES, [(r.id, row_json(r)) for r in rows])
    pane.attach(session)
    await pane.cached_list_shown()
    assert pane.model.complete and pane.model.rowCount() == 30
    top = [pane.model.summary_at(r) for r in range(12)]
    assert [s.id for s in top if s is not None] == [r.id for r in newest_first[:12]]
    assert pane.selected_ids() == [newest_first[2].id]  # still the row chosen
    assert pane.detail.shipment_id == newest_first[2].id
    assert pane.detail.title.text() == "Not connected"
    pane.shutdown()


async def test_a_shipment_chosen_before_the_service_answers_is_shown_once_it_does(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> None:
    session, tenant = connected
    shipment_id = _put(tenant, _ltl("PROCONN1"))
    pane = ShipmentsPane(session, settings)
    qtbot.addWidget(pane)
    pane.show()
    pane.detail.show_shipment(shipment_id)  # a cached row clicked while connecting
    assert pane.detail.title.text() == "Not connected"
    await session.connect()
    await wait_until(lambda: pane.detail.history is not None)
    assert pane.detail.title.text() != "Not connected"
    pane.shutdown()
