"""Searches ask for what the form shows (issue 14, point 9), the Available vehicles, Sailing
schedules and Carrier capacity panes: a user fills the search with keys and clicks, switches
its choices (round an address or a point, a window on or off, a lane or every carrier) away
and back, and the request the real local service received (caught by a recording proxy in
front of it: the body and the query string) is exactly what the form showed, a part hidden
by a switch sending nothing. One bad input per form is refused beside its field before
anything is sent. The forms that save are in tests/ui/test_forms_send_what_is_shown*.py."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from datetime import date, datetime, timedelta

import pytest
from PySide6.QtCore import QDate, Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot
from starlette.requests import Request
from starlette.responses import Response

from freightdesk.service.profiles import ProfileStore
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.capacity.pane import CapacityPane
from freightdesk.ui.panes.schedules.pane import SchedulesPane
from freightdesk.ui.panes.vehicles.pane import VehiclesPane
from freightdesk.ui.widgets.forms import ErrorLabel, FieldErrors
from tests.proxy import FaultyProxy
from tests.service.test_vehicles_service import demo_pool
from tests.support import LiveService, TenantHandle, make_tenant, wait_until
from tests.ui.conftest import close_session
from tests.ui.forms_keys import click, day_parts, keys, shown_day, type_parts
from tests.ui.test_export_panes import _from_loop
from tests.ui.test_forms_send_what_is_shown import _choose
from tests.ui.test_maps import OFFLINE_TILES, WEBENGINE_STARTUP, webengine_survives_loop_exits
from tests.ui.test_panes_support import _activate, shown_pane

__all__ = ["webengine_survives_loop_exits"]
pytestmark = pytest.mark.qt_log_ignore(*WEBENGINE_STARTUP)

VEHICLES = "/api/v4/tl/available-vehicles/query"
ROUTES = "/services/advanced-sailing-schedules/v1/point-to-point-routes"
CARRIERS = "/api/v4/tl/connected-capacity/carriers/search"
LANES = "/api/v4/tl/connected-capacity/lanes/search"
Query = dict[str, list[str]]


class RecordingProxy(FaultyProxy):
    """The test proxy, also keeping each request's query string (a search sent as a GET
    carries what was asked there, not in a body)."""

    def __init__(self, upstream: str) -> None:
        super().__init__(upstream)
        self.queries: list[tuple[str, str, Query]] = []
        self._queries_lock = threading.Lock()

    async def _forward(self, request: Request) -> Response:
        query = {key: request.query_params.getlist(key) for key in request.query_params}
        with self._queries_lock:
            self.queries.append((request.method, "/" + request.path_params["path"], query))
        return await super()._forward(request)

    def asked(self, method: str, path: str) -> list[Query]:
        with self._queries_lock:
            return [q for m, p, q in self.queries if m == method and p == path]


@pytest.fixture
async def recorded(
    sqlite_service: LiveService, session: AppSession, profiles: ProfileStore
) -> AsyncIterator[tuple[AppSession, TenantHandle, RecordingProxy]]:
    """A session of a fresh tenant reaching the local service through a recording proxy."""
    tenant = make_tenant(sqlite_service)
    proxy = RecordingProxy(sqlite_service.url)
    proxy.start()
    _activate(profiles, proxy.url, tenant)
    yield session, tenant, proxy
    await close_session(session)
    proxy.stop()
    tenant.http.close()


def _beside(errors: FieldErrors, name: str, field: QWidget) -> str:
    """The message shown for `name`, checked to be on screen right under `field`."""
    message = errors.message_for(name)
    assert message, name
    (label,) = [
        label
        for label in field.window().findChildren(ErrorLabel)
        if label.isVisible() and label.text() == message
    ]
    top = label.mapTo(label.window(), label.rect().topLeft()).y()
    bottom = field.mapTo(field.window(), field.rect().bottomLeft()).y()
    assert 0 <= top - bottom <= 40, (name, top, bottom)  # under the field, not elsewhere
    return message


def _qdate(value: date) -> QDate:
    return QDate(value.year, value.month, value.day)


# --- Available vehicles -----------------------------------------------------------------------


async def _vehicles(
    qtbot: QtBot, recorded: tuple[AppSession, TenantHandle, RecordingProxy]
) -> tuple[VehiclesPane, RecordingProxy]:
    """The pane shown for a tenant in a co-op pool holding the demo's trucks."""
    session, tenant, proxy = recorded
    demo_pool(tenant)
    pane = await shown_pane(qtbot, session, lambda s: VehiclesPane(s, tiles=OFFLINE_TILES))
    return pane, proxy


async def test_vehicle_search_switched_back_and_forth_asks_what_the_form_shows(
    qtbot: QtBot, recorded: tuple[AppSession, TenantHandle, RecordingProxy]
) -> None:
    pane, proxy = await _vehicles(qtbot, recorded)
    form = pane.form

    # Round an address first; then round a point, typed; then the address again.
    await keys(qtbot, form.street.edits["addressLines"], "233 S Wacker Dr")
    await keys(qtbot, form.place.edits["city"], "Chicago")
    await keys(qtbot, form.place.edits["state"], "IL")
    await keys(qtbot, form.place.edits["postalCode"], "60606")
    _choose(form.where, "point")
    await keys(qtbot, form.point.edits["latitude"], "41.88")
    await keys(qtbot, form.point.edits["longitude"], "-87.63")
    _choose(form.where, "address")
    assert not form.point.isEnabled()  # the point is greyed: it is not asked for
    # Kilometres, then miles, then kilometres again; 80 of them.
    _choose(form.unit, "KM")
    await keys(qtbot, form.radius, "80")
    _choose(form.unit, "MI")
    _choose(form.unit, "KM")
    # Reefers, then any truck, then reefers again; my shipments' trucks off.
    _choose(form.truck, "REEFER")
    _choose(form.truck, None)  # type: ignore[arg-type]
    _choose(form.truck, "REEFER")
    await click(qtbot, form.mine)
    await click(qtbot, form.mine)
    await click(qtbot, form.mine)
    assert not form.mine.isChecked()
    start, end = form.start.value(), form.end.value()  # the window shown

    await click(qtbot, pane.search_button)
    await wait_until(lambda: not pane.run.running and pane.model.rowCount() > 0, 30)
    (sent,) = proxy.sent("POST", VEHICLES)
    window = sent.pop("timeRange")
    assert sent == {
        "address": {
            "addressLines": ["233 S Wacker Dr"],
            "city": "Chicago",
            "state": "IL",
            "postalCode": "60606",
            "country": "US",
        },
        "radius": 80,
        "radiusUnit": "KM",
        "includeMyShipments": False,
        "truckType": "REEFER",
    }
    assert set(window) == {"startDateTime", "endDateTime"}
    assert datetime.fromisoformat(window["startDateTime"]) == start
    assert datetime.fromisoformat(window["endDateTime"]) == end
    (asked,) = proxy.asked("POST", VEHICLES)
    size = str(pane.page_bar.paging.size)
    assert asked == {"page": ["1"], "size": [size], "sort": ["distance,asc"]}
    assert {v.truck_type.value for v in pane.model.items} == {"REEFER"}
    pane.shutdown()


async def test_a_bad_vehicle_radius_is_refused_beside_it_and_nothing_is_sent(
    qtbot: QtBot, recorded: tuple[AppSession, TenantHandle, RecordingProxy]
) -> None:
    pane, proxy = await _vehicles(qtbot, recorded)
    _choose(pane.form.where, "point")
    await keys(qtbot, pane.form.point.edits["latitude"], "41.88")
    await keys(qtbot, pane.form.point.edits["longitude"], "-87.63")
    await keys(qtbot, pane.form.radius, "far")
    await click(qtbot, pane.search_button)
    assert "Enter a whole number, such as 15" in _beside(pane.errors, "radius", pane.form.radius)
    assert not pane.run.running and proxy.sent("POST", VEHICLES) == []
    assert proxy.asked("POST", VEHICLES) == []
    pane.shutdown()


async def test_an_emptied_vehicle_country_is_asked_for_not_sent_as_us_unseen(
    qtbot: QtBot, recorded: tuple[AppSession, TenantHandle, RecordingProxy]
) -> None:
    """The country shows "US" at first; emptied, it is not silently sent as "US" (the
    interface's default) but asked for beside it, and the search goes once it is typed."""
    pane, proxy = await _vehicles(qtbot, recorded)
    form = pane.form
    country = form.place.edits["country"]
    assert country.text() == "US"
    await keys(qtbot, form.street.edits["addressLines"], "233 S Wacker Dr")
    await keys(qtbot, form.place.edits["city"], "Chicago")
    await keys(qtbot, form.place.edits["state"], "IL")
    await keys(qtbot, form.place.edits["postalCode"], "60606")
    await keys(qtbot, country, "")
    await click(qtbot, pane.search_button)
    assert _beside(pane.errors, "address.country", country).startswith("Country: Required")
    assert not pane.run.running and proxy.sent("POST", VEHICLES) == []

    await keys(qtbot, country, "US")
    await click(qtbot, pane.search_button)
    await wait_until(lambda: not pane.run.running and pane.model.rowCount() > 0, 30)
    (sent,) = proxy.sent("POST", VEHICLES)
    assert sent["address"]["country"] == "US"
    assert not pane.errors.message_for("address.country")
    pane.shutdown()


# --- Sailing schedules ------------------------------------------------------------------------


async def test_sailing_search_switched_back_and_forth_asks_what_the_form_shows(
    qtbot: QtBot, recorded: tuple[AppSession, TenantHandle, RecordingProxy]
) -> None:
    session, _tenant, proxy = recorded
    pane = await shown_pane(qtbot, session, SchedulesPane)
    today = date.today()

    await keys(qtbot, pane.origin, "CNSHA")
    await keys(qtbot, pane.destination, "NLRTM")
    # The departure window (on at first) moved, then switched off; the arrival window on,
    # off and on again with its own days.
    pane.departure.end.setDate(_qdate(today + timedelta(days=40)))
    await click(qtbot, pane.departure.enabled)
    assert not pane.departure.start.isEnabled()
    await click(qtbot, pane.arrival.enabled)
    # Its days typed by the keyboard, shown as the clock writes days ("Dec 3 2026").
    first, last = today + timedelta(days=20), today + timedelta(days=60)
    await type_parts(qtbot, pane.arrival.start, day_parts(first))
    await type_parts(qtbot, pane.arrival.end, day_parts(last, month_number=True))
    assert (pane.arrival.start.text(), pane.arrival.end.text()) == (
        shown_day(first),
        shown_day(last),
    )
    await click(qtbot, pane.arrival.enabled)
    await click(qtbot, pane.arrival.enabled)
    # Two carriers, then one; direct only, at most two, direct only again; sorts switched.
    await keys(qtbot, pane.carrier_codes, "HOCS, AZMS")
    await keys(qtbot, pane.carrier_codes, "HOCS")
    _choose(pane.transshipments, 0)  # type: ignore[arg-type]
    _choose(pane.transshipments, 2)  # type: ignore[arg-type]
    _choose(pane.transshipments, 0)  # type: ignore[arg-type]
    _choose(pane.sort, "TRANSIT_TIME")
    _choose(pane.sort, "ARRIVAL_DATE_TIME")

    await click(qtbot, pane.search_button)
    await wait_until(lambda: not pane.run.running and bool(proxy.asked("GET", ROUTES)), 30)
    (asked,) = proxy.asked("GET", ROUTES)
    assert asked == {
        "origin": ["CNSHA"],
        "destination": ["NLRTM"],
        "arrivalStartDate": [first.isoformat()],
        "arrivalEndDate": [last.isoformat()],
        "carrierCodes": ["HOCS"],
        "transshipmentsMax": ["0"],
        "sort": ["ARRIVAL_DATE_TIME"],
        "pageNumber": ["1"],
        "pageSize": [str(pane.page_bar.paging.size)],
    }
    assert proxy.sent("GET", ROUTES) == []  # nothing in a body
    assert pane.errors.general.isHidden()
    pane.shutdown()


async def test_a_bad_carrier_code_is_refused_beside_it_and_nothing_is_sent(
    qtbot: QtBot, recorded: tuple[AppSession, TenantHandle, RecordingProxy]
) -> None:
    session, _tenant, proxy = recorded
    pane = await shown_pane(qtbot, session, SchedulesPane)
    await keys(qtbot, pane.origin, "CNSHA")
    await keys(qtbot, pane.destination, "NLRTM")
    await keys(qtbot, pane.carrier_codes, "HOCS, not a SCAC")
    await click(qtbot, pane.search_button)
    assert _beside(pane.errors, "carrierCodes", pane.carrier_codes)
    assert not pane.run.running and proxy.asked("GET", ROUTES) == []
    pane.shutdown()


async def test_carriers_typed_by_name_are_asked_for_by_their_scacs(
    qtbot: QtBot, recorded: tuple[AppSession, TenantHandle, RecordingProxy]
) -> None:
    """A dispatcher knows the carriers by name: the first typed in part, the second picked
    from the carriers offered, the list sent as their SCACs; a name no carrier has, refused
    beside the field in words that say so."""
    session, _tenant, proxy = recorded
    pane = await shown_pane(qtbot, session, SchedulesPane)
    await keys(qtbot, pane.origin, "CNSHA")
    await keys(qtbot, pane.destination, "NLRTM")
    pane.activateWindow()
    pane.carrier_codes.setFocus()
    await keys(qtbot, pane.carrier_codes, "Hanseatic, azure mer")
    popup = pane.carrier_codes.completer().popup()
    await wait_until(popup.isVisible)
    await _from_loop(lambda: qtbot.keyClick(popup, Qt.Key.Key_Down))
    await _from_loop(lambda: qtbot.keyClick(popup, Qt.Key.Key_Return))
    assert pane.carrier_codes.text() == "Hanseatic, Azure Meridian Shipping (AZMS)"
    await click(qtbot, pane.search_button)
    await wait_until(lambda: not pane.run.running and bool(proxy.asked("GET", ROUTES)), 30)
    (asked,) = proxy.asked("GET", ROUTES)
    assert asked["carrierCodes"] == ["HOCS,AZMS"], asked
    assert pane.errors.message_for("carrierCodes") == ""

    await keys(qtbot, pane.carrier_codes, "Hanseatic, Azur Meridain")
    await click(qtbot, pane.search_button)
    message = pane.errors.message_for("carrierCodes")
    assert message == "No carrier the app knows is named 'Azur Meridain'; type its SCAC"
    assert len(proxy.asked("GET", ROUTES)) == 1
    pane.shutdown()


# --- Carrier capacity -------------------------------------------------------------------------


async def _first_list(pane: CapacityPane, proxy: RecordingProxy) -> None:
    """The pane's first answer in: every carrier, in the order the form shows at first."""
    await wait_until(lambda: not pane.run.running and len(proxy.sent("POST", CARRIERS)) == 1, 30)
    await wait_until(lambda: pane.page.binding.data is not None, 30)
    assert proxy.sent("POST", CARRIERS) == [{"sortBy": "SHIPMENT_VOLUME", "sortDirection": "DESC"}]


async def test_capacity_search_switched_back_and_forth_asks_what_the_form_shows(
    qtbot: QtBot, recorded: tuple[AppSession, TenantHandle, RecordingProxy]
) -> None:
    session, _tenant, proxy = recorded
    pane = await shown_pane(qtbot, session, CapacityPane)
    await _first_list(pane, proxy)

    # A lane: ticked, its ends typed, unticked (greyed), ticked again (kept).
    await click(qtbot, pane.lane)
    await keys(qtbot, pane.origin.parts["city"], "Toronto")
    await keys(qtbot, pane.origin.parts["country"], "CA")
    await keys(qtbot, pane.destination.parts["postalCode"], "606")
    await click(qtbot, pane.lane)
    assert not pane.origin.isEnabled()
    await click(qtbot, pane.lane)
    await keys(qtbot, pane.carrier, "ABCD")
    await keys(qtbot, pane.minimums["minimumTrackingPercentage"], "75")
    await keys(qtbot, pane.minimums["minimumPickupScheduleReliability"], "50")
    pane.minimums["minimumPickupScheduleReliability"].clear()  # typed, then taken out
    _choose(pane.volume, "VOLUME_51_TO_100_SHIPMENTS")
    _choose(pane.volume, None)  # type: ignore[arg-type]
    _choose(pane.volume, "VOLUME_11_TO_50_SHIPMENTS")
    _choose(pane.sort_by, "PERCENT_TRACKED")
    _choose(pane.sort_by, "PICKUP_SCHEDULE_RELIABILITY")
    _choose(pane.direction, "ASC")

    await click(qtbot, pane.search_button)
    await wait_until(lambda: not pane.run.running and bool(proxy.sent("POST", LANES)), 30)
    common = {
        "carrierIdentifier": {"type": "SCAC", "value": "ABCD"},
        "minimumTrackingPercentage": 75,
        "minimumVolume": "VOLUME_11_TO_50_SHIPMENTS",
        "sortBy": "PICKUP_SCHEDULE_RELIABILITY",
        "sortDirection": "ASC",
    }
    (sent,) = proxy.sent("POST", LANES)
    assert sent == {
        **common,
        "origin": {"city": "Toronto", "country": "CA"},
        "destination": {"postalCode": "606"},
    }

    # The lane switched off: its ends (still typed, greyed) are not sent; every carrier.
    await click(qtbot, pane.lane)
    await click(qtbot, pane.search_button)
    await wait_until(lambda: not pane.run.running and len(proxy.sent("POST", CARRIERS)) == 2, 30)
    assert proxy.sent("POST", CARRIERS)[1:] == [common]
    assert len(proxy.sent("POST", LANES)) == 1
    pane.shutdown()


async def test_a_bad_capacity_minimum_is_refused_beside_it_and_nothing_is_sent(
    qtbot: QtBot, recorded: tuple[AppSession, TenantHandle, RecordingProxy]
) -> None:
    session, _tenant, proxy = recorded
    pane = await shown_pane(qtbot, session, CapacityPane)
    await _first_list(pane, proxy)
    edit = pane.minimums["minimumTrackingPercentage"]
    await keys(qtbot, edit, "120")
    await click(qtbot, pane.search_button)
    assert "100" in _beside(pane.errors, "minimumTrackingPercentage", edit)
    assert not pane.run.running and len(proxy.sent("POST", CARRIERS)) == 1
    assert proxy.sent("POST", LANES) == []
    pane.shutdown()
