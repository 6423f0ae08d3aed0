"""The Sharing tab's "Preview as the recipient sees it": the shipment as its public link
shows it, read-only (where it was last reported, the next stop's appointment and ETA, the
stops, the events) and what the link does not show.

The facts come from `service.public_view` (read through the service layer without
credentials); this module only words them with the app's one clock.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.code_words import event_text
from freightdesk.models.tracking import ETA_EVENT_TYPE, RouteStop, place_name
from freightdesk.service.clock import place_time, user_time
from freightdesk.service.public_view import WITHHELD, PublicView
from freightdesk.ui.panes.shipments.detail_route import stop_label
from freightdesk.ui.panes.shipments.overview import eta_text, window_text
from freightdesk.ui.panes.shipments.tables import fill, make_table
from freightdesk.ui.widgets.screen_fit import resize_to_fit

NO_STOPS = "The link shows no stops: the shipment has no route yet"
NO_EVENTS = "No events yet: the recipient sees them as the carrier reports them"


def _zone(stop: RouteStop) -> str | None:
    window = stop.appointment_window
    return window.local_time_zone_identifier if window is not None else None


def last_reported(view: PublicView) -> str:
    """The newest event that happened (not an estimate), with its stop and time: by its time,
    not its place in the list (an event can be recorded after a later one happened); of
    events at the same moment, the one recorded last."""
    stops = {str(s.id): (n, s) for n, s in enumerate(view.stops, start=1) if s.id}
    happened = [e for e in view.events if e.date_time is not None and e.type != ETA_EVENT_TYPE]
    if not happened:
        return "Nothing reported yet"
    _, event = max(enumerate(happened), key=lambda pair: (pair[1].date_time, pair[0]))
    found = stops.get(str(event.stop_id)) if event.stop_id else None
    what = event.description or event_text(event.type)
    zone = _zone(found[1]) if found else None
    where = f" at {stop_label(found[1], found[0])}" if found else ""
    return f"{what}{where}, {place_time(event.date_time, zone)}"


class PublicPreviewDialog(QDialog):
    """What whoever has the public link sees, beside the app's own detail (not modal)."""

    def __init__(self, view: PublicView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("publicPreview")
        self.setWindowTitle(f"{view.name} as the recipient sees it")
        self.view = view
        intro = QLabel(
            "This is what anyone who opens the public link sees, without an account. "
            "It is read-only and follows the shipment as its carrier reports.",
            self,
        )
        intro.setWordWrap(True)
        self.link = QLabel(view.link, self)
        self.link.setObjectName("previewLink")
        self.link.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.link.setWordWrap(True)
        self.identifiers = QLabel("\n".join(view.identifiers) or view.name, self)
        self.identifiers.setObjectName("previewIdentifiers")
        self.reported = QLabel(last_reported(view), self)
        self.reported.setObjectName("previewReported")
        self.reported.setWordWrap(True)
        self.next_stop = QLabel(self._next_text(), self)
        self.next_stop.setObjectName("previewNextStop")
        self.next_stop.setWordWrap(True)
        self.eta = QLabel(eta_text(view.overview), self)
        self.eta.setObjectName("previewEta")
        self.eta.setWordWrap(True)
        self.updated = QLabel(user_time(view.last_modified) or "Not known", self)
        self.read = QLabel(
            f"{user_time(view.read_at, seconds=True)}: what the link showed then (Preview "
            "again for what came since)",
            self,
        )
        self.read.setObjectName("previewReadAt")
        self.read.setWordWrap(True)
        facts = QFormLayout()
        facts.addRow("Link", self.link)
        facts.addRow("Shipment", self.identifiers)
        facts.addRow("Last reported", self.reported)
        facts.addRow("Next stop", self.next_stop)
        facts.addRow("ETA", self.eta)
        facts.addRow("Updated", self.updated)
        facts.addRow("Read", self.read)

        self.stops = make_table(["Stop", "Appointment"], self, NO_STOPS)
        self.stops.setObjectName("previewStops")
        fill(self.stops, [self._stop_row(n, s) for n, s in enumerate(view.stops, start=1)])
        self.events = make_table(["Event", "When", "Estimated", "Stop"], self, NO_EVENTS)
        self.events.setObjectName("previewEvents")
        fill(self.events, self._event_rows())
        withheld = QLabel(WITHHELD, self)
        withheld.setObjectName("previewWithheld")
        withheld.setWordWrap(True)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(facts)
        layout.addWidget(QLabel("Stops", self))
        layout.addWidget(self.stops, 1)
        layout.addWidget(QLabel("Events", self))
        layout.addWidget(self.events, 2)
        layout.addWidget(withheld)
        layout.addWidget(buttons)
        # Its stops and events without scrolling where the screen allows (760 at 1440x900);
        # on a laptop's 768 px the title bar and the taskbar need their share, and Close
        # stays in sight.
        resize_to_fit(self, 900, 760)

    def _next_text(self) -> str:
        stop = self.view.overview.next_stop
        if stop is None:
            return "None: every stop is done" if self.view.stops else "No route"
        return f"{stop.place.name} (stop {stop.place.number}) · {window_text(self.view.overview)}"

    @staticmethod
    def _stop_row(number: int, stop: RouteStop) -> list[str]:
        window = stop.appointment_window
        zone = _zone(stop)
        if window is None or window.start_date_time is None:
            return [stop_label(stop, number), "No appointment"]
        start = place_time(window.start_date_time, zone)
        end = place_time(window.end_date_time, zone) if window.end_date_time else ""
        return [stop_label(stop, number), f"{start} to {end}" if end else start]

    def _event_rows(self) -> list[list[str]]:
        stops = {str(s.id): (n, s) for n, s in enumerate(self.view.stops, start=1) if s.id}
        rows = []
        for event in reversed(self.view.events):  # newest first, as a recipient reads it
            found = stops.get(str(event.stop_id)) if event.stop_id else None
            zone = _zone(found[1]) if found else None
            rows.append(
                [
                    event.description
                    or event_text(event.type, place_name(found[1]) if found else None),
                    place_time(event.date_time, zone),
                    place_time(event.estimate_date_time, zone),
                    stop_label(found[1], found[0]) if found else "Along the way",
                ]
            )
        return rows
