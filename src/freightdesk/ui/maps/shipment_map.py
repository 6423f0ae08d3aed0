"""One shipment on the map: its track, stops (with geofences), events, position and ETA.

Live updates reach the page as JavaScript calls, never as a reload: new positions extend the
drawn track and everything else is replaced in place, so the user's zoom and pan stay.
"""

from __future__ import annotations

import functools
import logging

from PySide6.QtWidgets import QWidget

from freightdesk.models.stop_locations import StopLocation
from freightdesk.models.tracking import RouteStop, TrackingHistory
from freightdesk.service.errors import NotFound
from freightdesk.service.session import AppSession
from freightdesk.service.shipments import DetailChange
from freightdesk.service.stop_locations import StopLocationsService
from freightdesk.ui.maps.page import MapView, NotePlace, TileSettings
from freightdesk.ui.maps.payload import (
    Json,
    ShipmentPicture,
    appended_points,
    fence_of,
    ordered_positions,
    place_stops,
    shipment_picture,
)
from freightdesk.ui.tasks import spawn

log = logging.getLogger(__name__)


def location_key(stop: RouteStop) -> str | None:
    """How a route stop names its saved stop location: by id, else by an identifier that may
    be the location's `suppliedId`."""
    location = stop.location
    if location is None:
        return None
    if location.id is not None:
        return f"id:{location.id}"
    for identifier in location.identifiers:
        if identifier.value:
            return f"supplied:{identifier.value.strip().upper()}"
    return None


class ShipmentMapView(MapView):
    def __init__(
        self,
        session: AppSession | None,
        parent: QWidget | None = None,
        *,
        tiles: TileSettings | None = None,
    ) -> None:
        # The note beside the zoom buttons: in the low detail below the list (1366 and 1440 px)
        # a box at the bottom left, over the scale, reached up over the zoom control.
        super().__init__("shipment", parent, tiles=tiles, note=NotePlace.STRIP)
        self.session = session
        self.shown: TrackingHistory | None = None
        self._picture: ShipmentPicture | None = None
        # Saved stop locations by `location_key`; None when there is none to be found.
        self._locations: dict[str, StopLocation | None] = {}
        self._looking: set[str] = set()

    @property
    def shipment_id(self) -> str | None:
        return str(self.shown.shipment.id) if self.shown is not None else None

    def show_history(self, history: TrackingHistory, change: DetailChange | None = None) -> int:
        """Draw `history`; returns the token `rendered` announces once the page painted it.

        The same shipment again is an update (the view stays); another one is fitted."""
        token = self.next_token()
        same = self._picture is not None and self.shipment_id == str(history.shipment.id)
        previous = self._picture
        self.shown = history
        picture = shipment_picture(history, self._fences(history))
        self._picture = picture
        if not same or previous is None:
            self.expect(token)  # "Loading map…" until this shipment is drawn
            self.call("showShipment", picture.payload, {"fit": True, "token": token}, state=True)
        else:
            payload = dict(picture.payload)
            appended = appended_points(previous, ordered_positions(history.positions))
            if appended is not None:
                payload.pop("route")
                payload["appendRoute"] = appended
            self.call("updateShipment", payload, {"token": token})
        self._look_up_locations(history)
        return token

    def restore(self) -> None:
        # The last full picture plus every update since: drawn again from the history.
        shown, self._picture = self.shown, None
        if shown is not None:
            self.show_history(shown)

    def clear(self) -> None:
        self.shown = None
        self._picture = None
        self.call("clearShipment", state=True)

    def highlight(self, key: str | None) -> None:
        """Select a stop, event or exception (`stop:<id>`, `event:<id>`, `exception:<id>`)."""
        self.call("highlight", key or "")

    def fit(self) -> None:
        self.call("fit")

    # --- geofences of saved stop locations -----------------------------------------------------

    def _fences(self, history: TrackingHistory) -> dict[str, Json]:
        stops = history.shipment.route_info.stops if history.shipment.route_info else []
        fences: dict[str, Json] = {}
        for placed in place_stops(stops):
            key = location_key(placed.stop)
            location = self._locations.get(key) if key else None
            if location is None or placed.latitude is None or placed.longitude is None:
                continue
            fence = fence_of(location, placed.latitude, placed.longitude)
            if fence is not None and placed.stop.id is not None:
                fences[str(placed.stop.id)] = fence
        return fences

    def _look_up_locations(self, history: TrackingHistory) -> None:
        service = self.session.stop_locations if self.session is not None else None
        if service is None:
            return
        stops = history.shipment.route_info.stops if history.shipment.route_info else []
        for stop in stops:
            key = location_key(stop)
            if key is None or key in self._locations or key in self._looking:
                continue
            self._looking.add(key)
            spawn(
                self._find(service, key),
                on_done=functools.partial(self._found, key),
                on_error=functools.partial(self._not_found, key),
                name="stop-location-for-map",
                owner=self,
            )

    @staticmethod
    async def _find(service: StopLocationsService, key: str) -> StopLocation | None:
        kind, _, value = key.partition(":")
        if kind != "id":
            return await service.by_supplied_id(value)
        try:
            return await service.get(value)
        except NotFound:
            return None

    def _found(self, key: str, location: StopLocation | None) -> None:
        self._looking.discard(key)
        self._locations[key] = location
        history = self.shown
        if location is None or location.geofence is None or history is None:
            return
        # Redraw stops (with their fences and popups); the track and the view stay.
        picture = shipment_picture(history, self._fences(history))
        self._picture = picture
        payload = dict(picture.payload)
        payload.pop("route")
        self.call("updateShipment", payload, {"token": self.next_token()})

    def _not_found(self, key: str, error: BaseException) -> None:
        # Not remembered: the next update tries again (the service may be back by then).
        self._looking.discard(key)
        log.info("no stop location for %s yet: %s", key, error)
