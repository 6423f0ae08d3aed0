"""Triage on the Shipments list against the real local service: the Attention column says in
words (and colour) which shipments are late against their appointment, silent, in exception;
the filter buttons count and show them; the list puts them first; the settings move the
limits."""

from __future__ import annotations

import csv
import re
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QBrush, QColor, QPalette, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QTableView,
    QWidget,
)
from pytestqt.qtbot import QtBot

from freightdesk.models.code_words import mode_text
from freightdesk.service.session import AppSession
from freightdesk.service.triage import KIND_NAMES, KINDS, Attention, Verdict
from freightdesk.ui.panes.shipments.attention import SYMBOLS, TriageSettingsDialog, attention_data
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX, COLUMNS
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from freightdesk.ui.theme import dark_palette, light_palette
from tests.server.test_carrier_push_support import (
    PARCEL,
    TRUCKLOAD,
    accepted,
    iso,
    java_time,
    now,
    parcel_body,
    settled,
    truckload_body,
)
from tests.support import TenantHandle, wait_until
from tests.ui.plain_words import leaks, shown_text
from tests.ui.sort_arrows import arrow_of, click_header
from tests.ui.test_export_panes import SAVE_DIALOG_WARNINGS, export_view_to
from tests.ui.test_panes_support import connected
from tests.ui.test_shipments_list import _pane, window
from tests.ui.test_shipments_pane import _ltl, _put

__all__ = ["connected", "window"]


def _shipment(
    tenant: TenantHandle, mode: str, identifiers: list[tuple[str, str]], delivery_end: Any
) -> str:
    stops = [
        {"id": str(uuid.uuid4()), "type": "PICKUP", "name": "Louisville hub"},
        {
            "id": str(uuid.uuid4()),
            "type": "DELIVERY",
            "name": "Dallas DC",
            "appointmentWindow": {
                "startDateTime": iso(delivery_end - timedelta(hours=2)),
                "endDateTime": iso(delivery_end),
            },
        },
    ]
    return _put(
        tenant,
        {
            "identifiers": [{"type": t, "value": v} for t, v in identifiers],
            "plan": {"expectedTransportationModes": [mode]},
            "routeInfo": {"stops": stops},
        },
    )


def _parcel(tenant: TenantHandle, tracking: str, event: str, at: Any, **extra: Any) -> None:
    body = parcel_body(tracking, event, **extra)
    body["timestamp"] = java_time(at)
    assert settled(tenant, accepted(tenant.http.post(PARCEL, json=body)))["status"] == "PROCESSED"


def late_parcel(tenant: TenantHandle, start: datetime) -> tuple[str, str]:
    """A parcel whose ETA is 2 h 30 m after its delivery window: its id and tracking number."""
    number = f"1ZLATE{uuid.uuid4().hex[:8].upper()}"
    late = _shipment(tenant, "PARCEL", [("TRACKING_NUMBER", number)], start + timedelta(hours=2))
    _parcel(tenant, number, "PICKED_UP", start - timedelta(minutes=30))
    eta = java_time(start + timedelta(hours=4, minutes=30))
    _parcel(tenant, number, "ETA", start - timedelta(minutes=5), estimatedTimeOfArrival=eta)
    return late, number


def silent_truck(tenant: TenantHandle, since: datetime) -> tuple[str, str]:
    """A truck in transit, last heard from (its departure) at `since`: its id and bill of
    lading."""
    bol = f"BOLQUIET{uuid.uuid4().hex[:8].upper()}"
    silent = _shipment(tenant, "TL", [("BILL_OF_LADING", bol)], since + timedelta(days=2))
    departed = {"type": "DEPARTURE_FROM_STOP", "dateTime": iso(since)}
    body = truckload_body(bol, shipmentEvent=departed)
    assert settled(tenant, accepted(tenant.http.post(TRUCKLOAD, json=body)))["status"] == (
        "PROCESSED"
    )
    return silent, bol


def _shipments(tenant: TenantHandle) -> dict[str, str]:
    """A late parcel (ETA 2 h 30 m after its delivery window), a truck silent for 6 h 15 m, a
    parcel with an open exception and a calm LTL shipment: name -> id (and the late one's
    tracking number)."""
    start = now()
    late, late_number = late_parcel(tenant, start)
    # Silent since 6 h 15 m before now, as the pane (made before) judges it: 6 h and minutes.
    silent, _bol = silent_truck(tenant, start - timedelta(minutes=375))

    troubled_number = f"1ZEXC{uuid.uuid4().hex[:8].upper()}"
    troubled = _shipment(
        tenant, "PARCEL", [("TRACKING_NUMBER", troubled_number)], start + timedelta(days=2)
    )
    _parcel(tenant, troubled_number, "EXCEPTION", start - timedelta(minutes=20))
    calm = _put(tenant, _ltl(f"PROCALM{uuid.uuid4().hex[:5].upper()}"))
    return {
        "late": late,
        "silent": silent,
        "troubled": troubled,
        "calm": calm,
        "late tracking number": late_number,
    }


def _attention(pane: Any, shipment_id: str) -> str:
    row = pane.model.row_of(shipment_id)
    if row is None:
        return ""
    return str(pane.model.index(row, COLUMN_INDEX["attention"]).data() or "")


def _shown(pane: Any) -> list[str]:
    return [r.id for r in pane.model.visible_summaries()]


@pytest.mark.qt_log_ignore(SAVE_DIALOG_WARNINGS)
async def test_attention_says_what_is_late_silent_or_in_exception_and_filters_it(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    window: QWidget,
    settings: QSettings,
    tmp_path: Path,
) -> None:
    session, tenant = connected
    ids = _shipments(tenant)
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.total == 4, seconds=30)

    # The words come once the late shipment's appointment is read in the background.
    await wait_until(lambda: _attention(pane, ids["late"]).endswith("Late 2 h 30 min"), seconds=30)
    assert _attention(pane, ids["silent"]).endswith("No signal 6 h")
    assert _attention(pane, ids["troubled"]).endswith("Exception")
    assert _attention(pane, ids["calm"]) == ""
    # Colour paired with a symbol and words; the reasons in the tooltip.
    late_cell = pane.model.index(pane.model.row_of(ids["late"]) or 0, COLUMN_INDEX["attention"])
    assert isinstance(late_cell.data(Qt.ItemDataRole.ForegroundRole), QBrush)
    assert "after the appointment window" in late_cell.data(Qt.ItemDataRole.ToolTipRole)
    assert _attention(pane, ids["late"])[0] != _attention(pane, ids["silent"])[0]

    # Nobody sorted: what needs attention comes first, the worst first, the calm one last.
    header = pane.table.horizontalHeader()
    assert header.sortIndicatorSection() == COLUMN_INDEX["attention"]
    assert _shown(pane) == [ids["late"], ids["troubled"], ids["silent"], ids["calm"]]
    # The key columns, attention among them, are in view at 1366 px.
    viewport = pane.table.viewport().rect()
    assert header.sectionViewportPosition(COLUMN_INDEX["attention"]) >= 0
    right = header.sectionViewportPosition(COLUMN_INDEX["attention"]) + header.sectionSize(
        COLUMN_INDEX["attention"]
    )
    assert right <= viewport.width()

    # The buttons count each kind; a click shows only those.
    bar = pane.attention
    late_button = bar.buttons[Attention.LATE]
    silent_button = bar.buttons[Attention.NO_SIGNAL]
    assert late_button.text().endswith("Late (1)")
    assert silent_button.text().endswith("No signal (1)")
    assert bar.buttons[Attention.EXCEPTION].text().endswith("Exception (1)")
    assert bar.buttons[Attention.AT_RISK].text().endswith("At risk (0)")
    qtbot.mouseClick(late_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: _shown(pane) == [ids["late"]])
    assert pane.count_label.text() == "1 of 4 shipments"
    qtbot.mouseClick(silent_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: _shown(pane) == [ids["late"], ids["silent"]])
    # Counts stay those of the other filters: choosing one does not zero the others.
    assert bar.buttons[Attention.EXCEPTION].text().endswith("Exception (1)")
    # A saved view keeps the chosen kinds.
    pane.store_view("Late or silent")
    qtbot.mouseClick(late_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(silent_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: len(_shown(pane)) == 4)
    pane.apply_view("Late or silent")
    assert late_button.isChecked() and silent_button.isChecked()
    await wait_until(lambda: _shown(pane) == [ids["late"], ids["silent"]])
    qtbot.mouseClick(late_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(silent_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: len(_shown(pane)) == 4)

    # An export says it in words too.
    await export_view_to(qtbot, pane, tmp_path / "triage.csv")
    with (tmp_path / "triage.csv").open(encoding="utf-8-sig") as handle:
        exported = list(csv.reader(handle))
    attention = exported[0].index("Attention")
    assert [line[attention] for line in exported[1:]][:2] == ["Late 2 h 30 min", "Exception"]

    # The carrier sends a better ETA, 30 minutes inside the window: at risk, no longer late.
    better = java_time(now() + timedelta(hours=1, minutes=30))
    _parcel(tenant, ids["late tracking number"], "ETA", now(), estimatedTimeOfArrival=better)
    qtbot.mouseClick(pane.refresh_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: _attention(pane, ids["late"]).endswith("At risk"), seconds=30)
    assert bar.buttons[Attention.LATE].text().endswith("Late (0)")

    # The user allows trucks 8 silent hours: the truck is no longer flagged.
    hours = await set_in_attention_settings(qtbot, pane, "triageSilenceTL", 4, "8")
    assert hours.value() == 8
    assert hours.buttonSymbols() != QAbstractSpinBox.ButtonSymbols.NoButtons
    await wait_until(lambda: _attention(pane, ids["silent"]) == "")
    assert silent_button.text().endswith("No signal (0)")
    assert settings.value("triage/silenceHours/TL") in (8, "8")


async def set_in_attention_settings(
    qtbot: QtBot, pane: ShipmentsPane, box: str, before: int, typed: str
) -> QSpinBox:
    """Attention settings… clicked, `typed` keyed into the spin box `box` (showing `before`),
    OK clicked; the box, for what else a test checks of it."""
    qtbot.mouseClick(pane.attention_settings, Qt.MouseButton.LeftButton)
    await wait_until(lambda: pane.findChild(TriageSettingsDialog) is not None)
    dialog = pane.findChild(TriageSettingsDialog)
    assert isinstance(dialog, TriageSettingsDialog)
    await wait_until(dialog.isVisible)
    spin = dialog.findChild(QSpinBox, box)
    assert isinstance(spin, QSpinBox) and spin.value() == before
    spin.setFocus()
    spin.selectAll()
    qtbot.keyClicks(spin, typed)
    assert spin.value() == int(typed)
    buttons = dialog.findChild(QDialogButtonBox)
    assert isinstance(buttons, QDialogButtonBox)
    qtbot.mouseClick(buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    return spin


def _contrast(first: QColor, second: QColor) -> float:
    def luminance(color: QColor) -> float:
        def channel(value: float) -> float:
            return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

        red, green, blue = (channel(c) for c in (color.redF(), color.greenF(), color.blueF()))
        return 0.2126 * red + 0.7152 * green + 0.0722 * blue

    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


async def test_the_sort_arrow_points_the_way_the_rows_go(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    """Down while the highest (the worst, the most) come first, up for A to Z, as the app's
    other lists (widgets/sort_arrow.py); clicked on the header as a user does."""
    session, tenant = connected
    ids = _shipments(tenant)
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: _attention(pane, ids["late"]).endswith("Late 2 h 30 min"), seconds=30)
    worst_first = [ids["late"], ids["troubled"], ids["silent"], ids["calm"]]
    await wait_until(lambda: _shown(pane) == worst_first)
    header = pane.table.horizontalHeader()
    assert header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
    assert arrow_of(pane.table) == "down"  # it pointed up over the worst first

    click_header(qtbot, pane.table, COLUMN_INDEX["attention"])  # the calm first
    await wait_until(lambda: _shown(pane) == worst_first[::-1])
    assert header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
    assert arrow_of(pane.table) == "up"
    click_header(qtbot, pane.table, COLUMN_INDEX["attention"])
    await wait_until(lambda: _shown(pane) == worst_first)
    assert arrow_of(pane.table) == "down"

    click_header(qtbot, pane.table, COLUMN_INDEX["primaryIdentifier"])  # A to Z
    assert header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
    assert arrow_of(pane.table) == "up"
    # The first click on Exceptions puts the most first: descending, the arrow down.
    pane.table.scrollTo(pane.model.index(0, COLUMN_INDEX["exceptions"]))
    click_header(qtbot, pane.table, COLUMN_INDEX["exceptions"])
    assert header.sortIndicatorSection() == COLUMN_INDEX["exceptions"]
    await wait_until(lambda: _shown(pane)[0] == ids["troubled"])
    assert header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
    assert arrow_of(pane.table) == "down"


def test_attention_colours_are_readable_in_both_themes_and_never_alone(qapp: QApplication) -> None:
    before = qapp.palette()
    try:
        for palette in (light_palette(), dark_palette()):
            qapp.setPalette(palette)
            for kind in KINDS:
                verdict = Verdict(kind, frozenset({kind}), late_by=timedelta(minutes=5))
                brush = attention_data(verdict, Qt.ItemDataRole.ForegroundRole.value)
                assert isinstance(brush, QBrush)
                for role in (QPalette.ColorRole.Base, QPalette.ColorRole.AlternateBase):
                    assert _contrast(brush.color(), palette.color(role)) >= 4.5, (kind, role)
                # The kind in words, after a symbol of its own.
                text = attention_data(verdict, Qt.ItemDataRole.DisplayRole.value)
                assert KIND_NAMES[kind] in text and text.startswith(SYMBOLS[kind])
        assert len(set(SYMBOLS.values())) == len(KINDS)
    finally:
        qapp.setPalette(before)


def test_a_layout_kept_before_the_attention_column_keeps_its_columns_and_sort(
    qtbot: QtBot, settings: QSettings
) -> None:
    # As the list kept its header before: twelve columns, sorted by Last updated, Origin wide.
    old_model = QStandardItemModel(0, len(COLUMNS) - 1)
    old_table = QTableView()
    qtbot.addWidget(old_table)
    old_table.setModel(old_model)
    old_header = old_table.horizontalHeader()
    old_header.setSortIndicator(COLUMN_INDEX["lastModified"], Qt.SortOrder.AscendingOrder)
    old_header.resizeSection(COLUMN_INDEX["origin"], 321)
    settings.setValue("shipments/header", old_header.saveState())

    pane = ShipmentsPane(None, settings)
    qtbot.addWidget(pane)
    header = pane.table.horizontalHeader()
    assert header.sortIndicatorSection() == COLUMN_INDEX["lastModified"]
    assert header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
    assert header.sectionSize(COLUMN_INDEX["origin"]) == 321
    attention = header.visualIndex(COLUMN_INDEX["attention"])
    assert attention == header.visualIndex(COLUMN_INDEX["state"]) + 1
    pane.shutdown()

    # Placed once: where the user moves it afterwards is theirs.
    again = ShipmentsPane(None, settings)
    qtbot.addWidget(again)
    header = again.table.horizontalHeader()
    header.moveSection(header.visualIndex(COLUMN_INDEX["attention"]), len(COLUMNS) - 1)
    again.shutdown()
    last = ShipmentsPane(None, settings)
    qtbot.addWidget(last)
    assert last.table.horizontalHeader().visualIndex(COLUMN_INDEX["attention"]) == len(COLUMNS) - 1
    last.shutdown()


async def test_the_attention_settings_say_the_modes_in_words(
    qtbot: QtBot, window: QWidget, settings: QSettings
) -> None:
    """Attention settings…, pressed with the keyboard, names each mode's silence as the app's
    other choices do ("Truckload (TL)", "Parcel", "Ocean"), not in the wire's codes ("No
    signal, PARCEL, after")."""
    pane = _pane(window)
    pane.attention_settings.setFocus()
    qtbot.keyClick(pane.attention_settings, Qt.Key.Key_Space)
    await wait_until(lambda: pane.findChild(TriageSettingsDialog) is not None)
    dialog = pane.findChild(TriageSettingsDialog)
    assert isinstance(dialog, TriageSettingsDialog)
    await wait_until(dialog.isVisible)

    said = shown_text(dialog)
    assert [t for t in said if re.search(r"\b(?:PARCEL|RAIL|OCEAN|AIR|BARGE|VLTL)\b", t)] == []
    assert leaks(dialog) == []
    assert "No signal after" in said
    for mode, box in dialog.hours.items():
        assert box.isVisibleTo(dialog)
        label = _label_of(box)
        assert label == mode_text(mode), (mode, label)
        assert box.accessibleName() == f"No signal, {mode_text(mode)}, after"
    assert {_label_of(b) for b in dialog.hours.values()} >= {"Truckload (TL)", "Parcel", "Ocean"}
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    await wait_until(lambda: not dialog.isVisible())


def _label_of(field: QWidget) -> str:
    """The text of the label a form gives `field`."""
    parent = field.parentWidget()
    assert parent is not None
    form = parent.layout()
    assert isinstance(form, QFormLayout)
    label = form.labelForField(field)
    assert isinstance(label, QLabel)
    return label.text()
