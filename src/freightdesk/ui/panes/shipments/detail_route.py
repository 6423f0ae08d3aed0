"""The detail's Route tab: the stops (each with its appointment in the stop's own zone, its
address and coordinates) and the route's legs between them, with their distance and CO₂."""

from __future__ import annotations

from PySide6.QtWidgets import QTableWidget, QWidget

from freightdesk.models.code_words import code_text, unit_text
from freightdesk.models.common import Measure
from freightdesk.models.tracking import RouteStop, TrackingHistory
from freightdesk.service.clock import place_time
from freightdesk.ui.panes.shipments.tables import fill

STOP_WIDTH = 150  # the stop's name, cut; its appointment beside it in the narrow detail


def stop_label(stop: RouteStop, number: int) -> str:
    kind = code_text(stop.type.value) if stop.type else "Stop"
    name = stop.name or ""
    address = stop.location.address if stop.location else None
    place = (
        ", ".join(p for p in [address.city, address.state, address.country] if p) if address else ""
    )
    return f"{number}. {kind}: {name}" + (f" — {place}" if place and place not in name else "")


def _measure_text(measure: Measure | None) -> str:
    return f"{measure.value:,.0f} {unit_text(measure.unit)}" if measure is not None else ""


class DetailRoute(QWidget):
    """Filling the Route tab (mixed into `ShipmentDetailView`, which makes its tables)."""

    stops: QTableWidget
    segments: QTableWidget

    def _render_route(self, stops: list[RouteStop], history: TrackingHistory) -> None:
        rows = []
        for number, stop in enumerate(stops, start=1):
            address = stop.location.address if stop.location else None
            lines = ", ".join(
                [
                    *(address.address_lines if address else []),
                    *(
                        p
                        for p in (
                            [address.city, address.state, address.postal_code, address.country]
                            if address
                            else []
                        )
                        if p
                    ),
                ]
            )
            window = stop.appointment_window
            zone = window.local_time_zone_identifier if window else None
            appointment = ""
            if window and window.start_date_time:
                appointment = place_time(window.start_date_time, zone)
                if window.end_date_time:
                    appointment += " to " + place_time(window.end_date_time, zone)
            coordinates = stop.location.coordinates if stop.location else None
            rows.append(
                [
                    stop_label(stop, number),
                    appointment,
                    lines,
                    f"{coordinates.latitude:.4f}, {coordinates.longitude:.4f}"
                    if coordinates
                    else "",
                ]
            )
        fill(self.stops, rows)
        names = {str(s.id): s.name or "" for s in stops}
        segments = history.shipment.route_info.route_segments if history.shipment.route_info else []
        fill(
            self.segments,
            [
                [
                    names.get(str(s.from_stop_id), ""),
                    names.get(str(s.to_stop_id), ""),
                    code_text(s.transportation_mode.value) if s.transportation_mode else "",
                    _measure_text(s.emissions.distance if s.emissions else None),
                    _measure_text(s.emissions.total_co2_emissions if s.emissions else None),
                ]
                for s in segments
            ],
        )
