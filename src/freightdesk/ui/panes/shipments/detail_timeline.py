"""The detail's timeline rows: the exceptions, each stop with its appointment and the events
reported there, and the events along the way; the row chosen, kept across live updates and
shared with the map (which names rows as the timeline does)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QTreeWidgetItemIterator, QWidget

from freightdesk.models.code_words import event_text, words
from freightdesk.models.tracking import (
    ExceptionStatus,
    RouteStop,
    ShipmentException,
    TrackingHistory,
    place_name,
)
from freightdesk.service.clock import place_time
from freightdesk.service.shipments import DetailChange
from freightdesk.ui.panes.shipments.detail_room import TimelineColumns
from freightdesk.ui.panes.shipments.detail_route import stop_label

if TYPE_CHECKING:
    from freightdesk.ui.maps.shipment_map import ShipmentMapView
    from freightdesk.ui.panes.shipments.map_room import MapWindowOpener

_EXCEPTION_BRUSH = QBrush(QColor("#d0453a"))
# What a timeline row is, as the map names it: `stop:<id>`, `event:<id>`, `exception:<id>`.
_KEY = Qt.ItemDataRole.UserRole


def _exception_text(exception: ShipmentException) -> str:
    """`Damage: Receiver noted …`, and `Delay (closed): …` once closed: an open one is in
    red under "Exceptions (1 open)" (the words short enough for two lines beside the map),
    and the Source column says who reported a row, not how it stands."""
    said = words(exception.type)
    if exception.status is ExceptionStatus.CLOSED:
        said += " (closed)"
    return f"{said}: {exception.description}" if exception.description else said


class DetailTimeline(QWidget):
    """Filling the timeline and following its chosen row (mixed into `ShipmentDetailView`,
    which makes the tree)."""

    timeline: QTreeWidget
    timeline_columns: TimelineColumns
    map: ShipmentMapView | None
    map_window: MapWindowOpener
    _syncing: bool
    _selected_key: str | None

    def _render_timeline(
        self, history: TrackingHistory, stops: list[RouteStop], change: DetailChange | None
    ) -> None:
        self._syncing = True
        try:
            self.timeline.clear()
        finally:
            self._syncing = False
        new_ids = change.new_event_ids if change is not None else frozenset()
        zones = {
            str(s.id): (
                s.appointment_window.local_time_zone_identifier if s.appointment_window else None
            )
            for s in stops
        }
        names = {str(s.id): place_name(s) for s in stops}
        open_exceptions = [x for x in history.exceptions if x.status is ExceptionStatus.OPEN]
        if history.exceptions:
            group = QTreeWidgetItem(self.timeline, [f"Exceptions ({len(open_exceptions)} open)"])
            for exception in history.exceptions:
                # At its stop, its time reads as the stop's events do (the same moment the same).
                zone = zones.get(str(exception.stop_id)) if exception.stop_id else None
                item = QTreeWidgetItem(
                    group,
                    [
                        _exception_text(exception),
                        place_time(exception.created_date_time, zone),
                        "",
                        "",
                        "",
                    ],
                )
                item.setData(0, _KEY, f"exception:{exception.id}")
                item.setToolTip(0, f"{exception.status.value.title()} exception: {item.text(0)}")
                if exception.status is ExceptionStatus.OPEN:
                    for column in range(self.timeline.columnCount()):
                        item.setForeground(column, _EXCEPTION_BRUSH)
            group.setExpanded(bool(open_exceptions))
        groups: dict[str | None, QTreeWidgetItem] = {}
        for number, stop in enumerate(stops, start=1):
            window = stop.appointment_window
            group = QTreeWidgetItem(self.timeline, [stop_label(stop, number), "", "", "", ""])
            if window and window.start_date_time:
                # The appointment is the stop's Planned time (the window whole in the tooltip):
                # the Estimated column stays in sight beside the list at 1440x900.
                zone = window.local_time_zone_identifier
                group.setText(2, place_time(window.start_date_time, zone))
                whole = "Appointment " + group.text(2)
                if window.end_date_time:
                    whole += " to " + place_time(window.end_date_time, zone)
                group.setToolTip(2, whole)
            group.setData(0, _KEY, f"stop:{stop.id}")
            groups[str(stop.id)] = group
        unplaced: QTreeWidgetItem | None = None
        for event in history.events:
            parent = groups.get(str(event.stop_id)) if event.stop_id else None
            if parent is None:
                if unplaced is None:
                    unplaced = QTreeWidgetItem(self.timeline, ["Along the way", "", "", "", ""])
                parent = unplaced
            zone = zones.get(str(event.stop_id)) if event.stop_id else None
            source = next((d.source for d in event.date_times if d.source), "")
            item = QTreeWidgetItem(
                parent,
                [
                    event.description or event_text(event.type, names.get(str(event.stop_id))),
                    place_time(event.date_time, zone),
                    place_time(event.planned_date_time, zone),
                    place_time(event.estimate_date_time, zone),
                    source or "",
                ],
            )
            item.setToolTip(0, f"{event.type}: {event.description or ''}")
            item.setData(0, _KEY, f"event:{event.id}")
            if str(event.id) in new_ids:
                font = item.font(0)
                font.setBold(True)
                item.setFont(0, font)
        self.timeline.expandAll()
        self.timeline_columns.refit()  # after expanding: the times measured are all shown
        if self._selected_key is not None:
            # The same row stays selected across live updates.
            self._syncing = True
            try:
                self.select_in_timeline(self._selected_key)
            finally:
                self._syncing = False

    def _timeline_selected(self, current: QTreeWidgetItem | None, _previous: object) -> None:
        if self._syncing:
            return
        key = current.data(0, _KEY) if current is not None else None
        self._selected_key = key if isinstance(key, str) else None
        if self.map is not None:
            self.map.highlight(self._selected_key)
        self.map_window.highlight(self._selected_key)

    def select_in_timeline(self, key: str) -> None:
        """Select the timeline row of a stop, event or exception (clicked on the map)."""
        found = QTreeWidgetItemIterator(self.timeline)
        while (item := found.value()) is not None:
            if item.data(0, _KEY) == key:
                self._selected_key = key
                syncing, self._syncing = self._syncing, True
                try:
                    self.timeline.setCurrentItem(item)
                    self.timeline.scrollToItem(item)
                finally:
                    self._syncing = syncing
                return
            found += 1
