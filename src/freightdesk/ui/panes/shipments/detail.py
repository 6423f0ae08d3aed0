"""One shipment's whole story: identifiers, attributes, stops, timeline, states, costs."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING
from uuid import UUID

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QResizeEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QTreeWidget,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.code_words import code_text
from freightdesk.models.tracking import ExceptionStatus, TrackingHistory
from freightdesk.service.clock import user_time
from freightdesk.service.session import AppSession
from freightdesk.service.shipments import (
    DetailChange,
    ShipmentDetail,
    ShipmentsChange,
    primary_identifier,
)
from freightdesk.ui.dialogs.shipment_choice import shipment_text
from freightdesk.ui.formatting import free_code_text, money_text, state_text
from freightdesk.ui.panes.shipments.detail_actions import DetailActions, HeaderMessage, explain
from freightdesk.ui.panes.shipments.detail_room import scrolled, set_up_timeline
from freightdesk.ui.panes.shipments.detail_route import DetailRoute
from freightdesk.ui.panes.shipments.detail_timeline import DetailTimeline
from freightdesk.ui.panes.shipments.history_bar import HistoryExportBar
from freightdesk.ui.panes.shipments.map_room import DetailMap, MapRoom, MapWindowOpener
from freightdesk.ui.panes.shipments.overview import OverviewTab
from freightdesk.ui.panes.shipments.sharing import SharingTab
from freightdesk.ui.panes.shipments.tables import fill, make_table, stacked_tables
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.elided_label import ElidedLabel
from freightdesk.ui.widgets.empty_state import EmptyState, say_when_empty
from freightdesk.ui.widgets.form_dialog import ask
from freightdesk.ui.widgets.tabs import size_to_current_tab

if TYPE_CHECKING:
    # Imported when the Map tab first opens: the map view loads QtWebEngine.
    from freightdesk.ui.maps.shipment_map import ShipmentMapView


# What each empty view of the detail says while no shipment is chosen: its own words ("No
# events yet — they appear here as the carrier reports them") are about a chosen shipment.
NOTHING_CHOSEN = "Select a shipment in the list to see its {}"
UNCHOSEN_WORDS = {
    "timeline": "events",
    "stops": "stops",
    "segments": "route segments",
    "states": "states",
    "costs": "costs",
    "related": "related shipments",
    "identifiers": "identifiers",
    "attributes": "attributes",
    "recipients": "partners it is shared with",
}

# A related shipment the list does not have (another tenant's, or one not tracked any more).
NOT_LISTED = "A shipment the list does not show"

# From this height (the detail beside the list, on a tall screen) the subtitle has two lines, so
# a long route reads whole; lower (below the list) one line leaves the tabs their room.
TWO_LINE_SUBTITLE_HEIGHT = 600


class ShipmentDetailView(DetailActions, DetailTimeline, DetailRoute, DetailMap):
    shipmentRequested = Signal(str)  # a related shipment to open
    # A shipment shown where none was, or none any more: the list gives the detail its room.
    chosenChanged = Signal()

    def __init__(self, session: AppSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.shipment_id: str | None = None
        self.history: TrackingHistory | None = None
        self._detail: ShipmentDetail | None = None
        self._unlisten: Callable[[], None] | None = None
        self._unlisten_connected = session.listen_connected(self._connected)

        # The header is one line each, whatever it says: the tabs below never move.
        self.title = ElidedLabel("Select a shipment", self)
        self.title.setObjectName("detailTitle")
        title_font = QFont(self.title.font())
        title_font.setPointSizeF(title_font.pointSizeF() * 1.3)
        title_font.setBold(True)
        self.title.setFont(title_font)
        self.subtitle = ElidedLabel("", self)
        self.subtitle.setObjectName("detailSubtitle")
        self.share_button = QPushButton("Copy share link", self)
        self.edit_button = QPushButton("Edit…", self)
        self.delete_button = QPushButton("Stop tracking…", self)
        self.message = HeaderMessage(self)
        buttons = QHBoxLayout()
        buttons.addWidget(self.share_button)
        # In the buttons' row: a message never pushes the tabs down.
        buttons.addWidget(self.message, 1)
        buttons.addWidget(self.edit_button)
        buttons.addWidget(self.delete_button)

        self.tabs = QTabWidget(self)
        self.timeline = QTreeWidget(self)
        self.timeline.setObjectName("timeline")
        self.timeline_columns = set_up_timeline(self.timeline)
        self.overview = OverviewTab(session, self)
        self.overview.setObjectName("overviewTab")
        # The Overview's tables, as the rest of the app and its tests know them.
        self.identifiers = self.overview.identifiers
        self.attributes = self.overview.attributes
        self.save_attributes = self.overview.save_attributes
        self.attribute_error = self.overview.attribute_error
        say_when_empty(
            self.timeline, "No events yet — they appear here as the carrier reports them"
        )
        # The appointment beside the stop, read in the narrow detail; every text whole, wrapped
        # where the columns share a narrow table (`TableFit`).
        self.stops = make_table(
            ["Stop", "Appointment (local time)", "Address", "Coordinates"],
            self,
            "No stops — Edit… adds the pickup and delivery",
        )
        self.segments = make_table(
            ["From", "To", "Mode", "Distance", "CO₂"],
            self,
            "No route segments — the legs between stops appear once the route is planned",
        )
        route = QWidget(self)
        stacked_tables(route, [("Stops", self.stops), ("Route segments", self.segments)])
        self.states = make_table(
            ["State", "From", "Until"],
            self,
            "No states yet — the first event from the carrier starts one",
        )
        self.costs = make_table(
            ["Type", "Total", "Tier"], self, "No costs — Edit… adds planned or actual costs"
        )
        states_costs = QWidget(self)
        stacked_tables(states_costs, [("States", self.states), ("Costs", self.costs)])
        self.related = make_table(
            ["Related shipment", "Relation"],
            self,
            # Edit… only carries links over: they are made where the shipment is sent to
            # the service (relatedShipments of the interface), by the shipper's systems.
            "No related shipments — your systems link them over the API",
        )
        self.related.setObjectName("related")
        self.raw = QPlainTextEdit(self)
        self.raw.setReadOnly(True)
        self.raw.setObjectName("rawJson")
        self.raw.setFont(QFont("monospace"))
        # The map tab shows the map above the timeline (the same tree, moved there while the
        # tab is open), so that selecting on one shows it on the other. The map's web view is
        # made the first time the tab opens.
        self.map: ShipmentMapView | None = None
        # Called once before the first map is made (the window sets the maps' tiles there).
        self.before_first_map: Callable[[], None] | None = None
        self._syncing = False
        self._selected_key: str | None = None
        self.timeline_tab = QWidget(self)
        timeline_layout = QVBoxLayout(self.timeline_tab)
        timeline_layout.setContentsMargins(0, 0, 0, 0)
        timeline_layout.addWidget(self.timeline, 1)  # the Map tab puts it back here too
        self.history_export = HistoryExportBar(session, self.timeline_tab)
        timeline_layout.addWidget(self.history_export)
        self.map_tab = QWidget(self)
        self.map_tab.setObjectName("mapTab")
        self.map_splitter = QSplitter(Qt.Orientation.Vertical, self.map_tab)
        map_layout = QVBoxLayout(self.map_tab)
        map_layout.setContentsMargins(0, 0, 0, 0)
        map_layout.addWidget(self.map_splitter)
        self.map_room = MapRoom(self.map_tab, self.map_splitter)
        self.tabs.addTab(self.timeline_tab, "Timeline")
        self.tabs.addTab(self.map_tab, "Map")
        self.tabs.addTab(scrolled(self.overview), "Overview")
        self.tabs.addTab(route, "Route")
        self.tabs.addTab(states_costs, "States && costs")
        self.tabs.addTab(self.related, "Related")
        self.sharing = SharingTab(session, self)
        self.sharing.setObjectName("sharingTab")
        self.tabs.addTab(scrolled(self.sharing), "Sharing")
        self.tabs.addTab(self.raw, "JSON")
        self.map_window = MapWindowOpener(self)  # "Map in window", while the Map tab is open

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.subtitle)
        layout.addLayout(buttons)
        layout.addWidget(self.tabs, 1)

        self.share_button.clicked.connect(self.copy_share_link)
        self.edit_button.clicked.connect(self.edit_shipment)
        self.delete_button.clicked.connect(self.confirm_delete)
        self.overview.attributesSaved.connect(self.refresh)
        self.sharing.changed.connect(self.refresh)
        self.related.cellDoubleClicked.connect(self._open_related)
        self.tabs.currentChanged.connect(self._tab_changed)
        size_to_current_tab(self.tabs)  # the Sharing tab's preview would narrow the list
        self.timeline.currentItemChanged.connect(self._timeline_selected)
        views = {
            "timeline": self.timeline,
            "stops": self.stops,
            "segments": self.segments,
            "states": self.states,
            "costs": self.costs,
            "related": self.related,
            "identifiers": self.identifiers,
            "attributes": self.attributes,
            "recipients": self.sharing.recipients,
        }
        # Each empty view's words with a shipment chosen, and with none.
        self._empty_words: list[tuple[EmptyState, str, str]] = []
        for name, view in views.items():
            words = view.findChild(EmptyState)
            assert words is not None, name
            unchosen = NOTHING_CHOSEN.format(UNCHOSEN_WORDS[name])
            self._empty_words.append((words, words.text(), unchosen))
        self._set_enabled(False)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        # Only the detail's size sets the subtitle's lines: the tabs stay put between shipments.
        self.subtitle.set_lines(2 if event.size().height() >= TWO_LINE_SUBTITLE_HEIGHT else 1)
        super().resizeEvent(event)

    # --- showing -----------------------------------------------------------------------------

    def _set_enabled(self, enabled: bool) -> None:
        """Enabled with a shipment shown; without one, the empty views say to choose one."""
        if enabled != self.tabs.isEnabled():
            for words, chosen, unchosen in self._empty_words:
                words.setText(chosen if enabled else unchosen)
        for widget in (self.share_button, self.edit_button, self.delete_button, self.tabs):
            widget.setEnabled(enabled)

    def show_shipment(self, shipment_id: str) -> None:
        if shipment_id == self.shipment_id:
            return
        self._stop_following()
        chosen_now = self.shipment_id is None
        self.shipment_id = shipment_id
        if chosen_now:
            self.chosenChanged.emit()
        self.history = None
        self.overview.stop()
        self.sharing.stop()
        self.history_export.show_shipment(None)
        self.message.show_message(None)
        self.title.setText("Loading…")
        self.subtitle.clear()
        if self.session.client is None:
            self.title.setText("Not connected")
            self.subtitle.setText("The shipment's details appear once the service answers.")
            return
        detail = self.session.open_shipment(shipment_id)
        self._detail = detail
        self._unlisten = detail.coordinator.listen(self._on_detail_change)
        detail.coordinator.listen_status(self._on_detail_status)

    def show_nothing(self, title: str = "Select a shipment") -> None:
        """No shipment shown, nothing of the last one left in any tab (it left the list, or
        its tracking stopped): each view says to choose one."""
        self._stop_following()
        unchosen_now = self.shipment_id is not None
        self.shipment_id = None
        if unchosen_now:
            self.chosenChanged.emit()
        self.history = None
        self.overview.stop()
        self.overview.clear()
        self.sharing.stop()
        self.history_export.show_shipment(None)
        self.message.show_message(None)
        self.title.setText(title)
        self.subtitle.clear()
        self._set_enabled(False)
        self.timeline.clear()
        for table in (self.stops, self.segments, self.states, self.costs, self.related):
            fill(table, [])
        self.raw.clear()
        if self.map is not None:
            self.map.clear()
        self.map_window.clear()

    def _connected(self) -> None:
        """A shipment chosen before the service answered ("Not connected") is shown now."""
        if self.shipment_id is not None and self._detail is None:
            chosen, self.shipment_id = self.shipment_id, None
            self.show_shipment(chosen)

    def _on_detail_status(self, status: object) -> None:
        detail = self._detail
        if detail is None or detail.coordinator.status.last_error is None:
            return
        error = detail.coordinator.status.last_error
        if self.history is None:
            self.title.setText("Cannot show this shipment")
        self.message.show_message(explain(error))

    def _on_detail_change(self, change: DetailChange) -> None:
        detail = self._detail
        if detail is None or detail.coordinator.data is None:
            return
        self.message.show_message(None)
        self.show_history(detail.coordinator.data, change)
        if (shipments := self.session.shipments) is not None:  # its list row agrees at once
            spawn(shipments.take_fresher(detail.coordinator.data), name="fresher-row", owner=self)

    def show_history(self, history: TrackingHistory, change: DetailChange | None = None) -> None:
        """Show `history`; keeps the user's unsaved attribute edits."""
        self.history = history
        shipment = history.shipment
        self.title.setText(self._name(history))
        states = sorted(history.states, key=lambda s: s.start_date_time)
        latest = history.current_state()  # the list's row reads it by the same rule
        current = state_text(latest.type) if latest else "No state yet"
        open_exceptions = [x for x in history.exceptions if x.status is ExceptionStatus.OPEN]
        stops = shipment.route_info.stops if shipment.route_info else []
        places = [
            s.name or (s.location.address.city if s.location and s.location.address else "?") or "?"
            for s in stops
        ]
        exceptions = ""
        if open_exceptions:
            count = len(open_exceptions)
            exceptions = f"{count} open exception{'s' if count != 1 else ''}"
        parts = [current, " → ".join(places), exceptions]
        # On two lines, broken between the state, the stops and the exceptions, not in one.
        self.subtitle.setText(
            " · ".join(p for p in parts if p), whole=[current, *places, exceptions]
        )
        self._set_enabled(True)
        self.share_button.setEnabled(bool(shipment.shipment_share_link))
        self._render_timeline(history, stops, change)
        if self.map is not None:
            self.map.show_history(history, change)
        self.map_window.show_history(history, change)
        self.overview.show_history(history)
        self.sharing.show_history(history)
        self.history_export.show_shipment(str(shipment.id))
        self._render_route(stops, history)
        fill(
            self.states,
            [
                [
                    state_text(s.type),
                    user_time(s.start_date_time),
                    user_time(s.end_date_time),
                ]
                for s in states
            ],
        )
        fill(
            self.costs,
            [
                [
                    free_code_text(c.type),
                    money_text(c.total_cost.amount, c.total_cost.currency.value),
                    free_code_text(c.tier),
                ]
                for c in history.costs
            ],
        )
        self._render_related(history)
        self.raw.setPlainText(json.dumps(history.wire(), indent=2, sort_keys=True))

    def _name(self, history: TrackingHistory) -> str:
        """The shipment's name as its list row reads (its primary identifier: a booked
        truckload's carrier SCAC came first, and the title said "PRLF" beside PRLF200731813)."""
        shipment = history.shipment
        shipments = self.session.shipments
        listed = shipments.coordinator.data if shipments is not None else None
        row = listed.summaries.get(str(shipment.id)) if listed is not None else None
        if row is not None and row.primary_identifier:
            return row.primary_identifier
        return primary_identifier(shipment) or str(shipment.id)

    def _render_related(self, history: TrackingHistory) -> None:
        """Each related shipment named as the Shipments list names it ("PRO1234 · LTL ·
        Chicago DC → Dallas DC"), its id kept for opening it and in its tooltip only (the tab
        showed the uuid alone)."""
        shipments = self.session.shipments
        listed = shipments.coordinator.data if shipments is not None else None
        related = history.shipment.related_shipments
        rows = []
        for shipment in related:
            row = listed.summaries.get(str(shipment.id)) if listed is not None else None
            relation = code_text(shipment.relation_type) if shipment.relation_type else ""
            rows.append([shipment_text(row) if row else NOT_LISTED, relation])
        fill(self.related, rows)
        for index, shipment in enumerate(related):
            item = self.related.item(index, 0)
            if item is not None:
                item.setData(Qt.ItemDataRole.UserRole, str(shipment.id))
                item.setToolTip(f"Shipment id {shipment.id} (double-click opens it)")

    # --- actions -----------------------------------------------------------------------------

    def confirm_delete(self) -> None:
        if self.history is None:
            return
        shipment = self.history.shipment
        name = self._name(self.history)
        # Cancel is the default: Return must not delete a shipment's history.
        ask(
            self,
            "Stop tracking",
            f"Stop tracking {name} and remove it from the list? Its history is deleted.",
            lambda: self._delete(shipment.id),
            name="confirmStopTracking",
            answers=("&Stop tracking", "&Keep it"),
        )

    def _delete(self, shipment_id: UUID) -> None:
        service = self.session.shipments
        if service is None:
            return

        spawn(
            service.delete(shipment_id),
            on_done=lambda _result: self.show_nothing("Tracking stopped"),
            on_error=lambda e: self.message.show_message(explain(e)),
            name="delete-shipment",
        )

    def rewrite_times(self) -> None:
        """The user's zone changed (the one clock): the shown history is written again (the
        Overview keeps unsaved attribute edits)."""
        if self.history is not None:
            self.show_history(self.history)

    def refresh(self) -> None:
        if self._detail is not None:
            spawn(self._detail.coordinator.refresh(), name="refresh-detail", owner=self)

    def shipment_list_changed(self, change: ShipmentsChange) -> None:
        if self.shipment_id and self.shipment_id in change.changed and self._detail is not None:
            self._detail.coordinator.poke()
        if self.history is not None and any(
            str(r.id) in change.changed for r in self.history.shipment.related_shipments
        ):
            self._render_related(self.history)  # a related shipment's name as listed now

    def _stop_following(self) -> None:
        # Dropping the last listener cancels the coordinator's polling task.
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        self._detail = None

    def shutdown(self) -> None:
        self._stop_following()
        self.overview.stop()
        self.sharing.shutdown()
        self._unlisten_connected()
        if self.map is not None:
            self.map.dispose()
        self.map_window.close()
