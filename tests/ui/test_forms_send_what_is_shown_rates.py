"""Forms never save what the user did not enter (issue 14, point 9), the rate request form: a
user types, switches the freight between truckload and LTL and back, ticks and unticks
carriers, and what the real local service stored (read back over the API) is exactly what the
form showed. The other list panes' forms are in tests/ui/test_forms_send_what_is_shown.py."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from freightdesk.service.carrier_names import CARRIER_NAMES
from freightdesk.service.session import AppSession
from tests.server.test_rating_support import RATE_REQUESTS
from tests.support import TenantHandle, wait_until
from tests.ui.forms_keys import click, day_parts, keys, ok_button, shown_day, type_parts
from tests.ui.test_capacity_support import settle
from tests.ui.test_forms_send_what_is_shown import _choose
from tests.ui.test_panes_support import connected
from tests.ui.test_rates_pane import new_rate_request

__all__ = ["connected"]


async def test_rate_request_switched_between_truck_and_ltl_saves_what_the_form_shows(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    pane, form = await new_rate_request(qtbot, session)

    await keys(qtbot, form.name, "Chicago to Dallas")
    await keys(qtbot, form.pickup.city, "Chicago")
    await keys(qtbot, form.pickup.state, "IL")
    await keys(qtbot, form.delivery.street, "12 Elm St")
    await keys(qtbot, form.delivery.city, "Dallas")
    await keys(qtbot, form.delivery.state, "TX")
    await keys(qtbot, form.delivery.postal_code, "75201")
    # The pickup day typed by the keyboard, shown as the clock writes days ("Dec 3 2026").
    pickup = date.today() + timedelta(days=3)
    await type_parts(qtbot, form.pickup_date, day_parts(pickup))
    assert form.pickup_date.text() == shown_day(pickup)

    # Freight: a reefer truck of 53 ft chosen, then LTL (the truck greys out), then the truck
    # again: the choices made are still there and sent; nothing of LTL is.
    form.tabs.setCurrentIndex(1)
    form.truckload.click()
    _choose(form.load_preference, "PARTIAL")
    _choose(form.trailer_type, "REEFER")
    form.trailer_length.setValue(53)
    form.ltl.click()
    assert not form.truck_box.isEnabled()
    assert form.wire()["rateDetail"]["shippingDetails"] == {"ltl": {}}
    form.truckload.click()
    assert form.truck_box.isEnabled() and form.trailer_type.currentData() == "REEFER"
    form.units.add_row()
    form.units.set_text(0, 0, "4")
    form.units.set_text(0, 2, "350")
    form.units.set_text(0, 10, "cartons")
    form.units.add_row()  # left empty: not sent

    # Carriers: one ticked, another ticked and unticked again; quotes wanted switched back.
    form.tabs.setCurrentIndex(2)
    scacs = [
        str(form.carriers.item(r).data(Qt.ItemDataRole.UserRole))
        for r in range(form.carriers.count())
    ]
    assert len(scacs) >= 2, scacs
    form.check_carrier(scacs[0])
    form.check_carrier(scacs[1])
    form.check_carrier(scacs[1], on=False)
    _choose(form.quote_types, "SPOT")
    _choose(form.quote_types, "ALL")
    # A carrier the list does not offer, typed by its name: asked by its SCAC.
    assert "BMFL" not in scacs and CARRIER_NAMES.name("BMFL") == "Blue Mesa Freight Lines"
    await keys(qtbot, form.other_carriers, "blue mesa")

    # Contact: a company typed, and a phone typed then taken out again.
    form.tabs.setCurrentIndex(3)
    await keys(qtbot, form.contact["companyName"], "ACME Foods")
    await keys(qtbot, form.contact["phoneNumber"], "+1 312 555 0100")
    form.contact["phoneNumber"].clear()
    shown = form.wire()

    await click(qtbot, ok_button(form.buttons))
    await wait_until(lambda: not form.isVisible(), seconds=30)
    await wait_until(lambda: pane.requests.rowCount() == 1, seconds=30)
    stored: dict[str, Any] = tenant.http.get(f"{RATE_REQUESTS}/{pane.requests.items[0].id}").json()
    detail = stored["rateDetail"]
    assert stored["name"] == "Chicago to Dallas"
    assert [
        (s["type"], {k: v for k, v in s["location"]["address"].items() if v})
        for s in detail["routeInfo"]["stops"]
    ] == [
        ("PICKUP", {"city": "Chicago", "state": "IL", "country": "US"}),
        (
            "DELIVERY",
            {"addressLines": ["12 Elm St"], "city": "Dallas", "state": "TX",
             "postalCode": "75201", "country": "US"},
        ),
    ]  # fmt: skip
    assert all(s.get("contacts") in (None, []) for s in detail["routeInfo"]["stops"])
    assert detail["pickupDate"] == pickup.isoformat()
    shipping = detail["shippingDetails"]
    assert shipping.get("ltl") is None and not shipping.get("accessorials")
    assert {k: v for k, v in shipping["truck"].items() if v is not None} == {
        "loadPreference": "PARTIAL",
        "trailerType": "REEFER",
        "trailerLength": {"value": 53.0, "unit": "FT"},
    }
    (units,) = [d["handlingUnits"] for d in detail["shipmentDetails"]]
    assert [{k: v for k, v in u.items() if v not in (None, [])} for u in units] == [
        {
            "quantity": 4,
            "handlingUnitType": "PALLET",
            "weight": {"value": 350.0, "unit": "LB"},
            "stackable": False,
            "description": "cartons",
        }
    ]
    assert stored["capacityProviderIdentifiers"] == [
        {"type": "CARRIER_SCAC", "value": scacs[0]},
        {"type": "CARRIER_SCAC", "value": "BMFL"},
    ]
    assert stored["capacityProviderAccountGroups"] == []
    assert stored["quoteTypeFilter"] == "ALL"
    assert {k: v for k, v in detail["shipperContactInfo"].items() if v} == {
        "companyName": "ACME Foods"
    }
    assert stored.get("attributes") in (None, [])
    # And that is what the form showed.
    assert shown["rateDetail"]["shippingDetails"] == {"truck": shipping["truck"]}
    assert shown["capacityProviderIdentifiers"] == stored["capacityProviderIdentifiers"]
    pane.shutdown()
    await settle(session)
