"""Every form's check before sending speaks the form's words: a representative bad input for
each (a negative weight, a latitude of 200, an empty rail leg, a window ending before it
starts...) and none of its messages reads like a validator or the wire (pydantic's "Input
should", a camelCase field name, a CODE, a uuid); each is a sentence. Beside the fields:
tests/ui/test_plain_messages.py."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from freightdesk.service.bookings import check_booking
from freightdesk.service.carrier_push import ParcelInput, check_parcel, check_truckload
from freightdesk.service.messages import plain
from freightdesk.service.rail import check_leg
from freightdesk.service.rating import check_rate_request
from freightdesk.service.schedules import SearchInput
from freightdesk.service.schedules import check_search as check_sailings
from freightdesk.service.stop_locations import check_location
from freightdesk.service.vehicles import check_search as check_vehicles
from freightdesk.service.vltl import check_quote
from freightdesk.service.webhooks import check_configuration
from freightdesk.service.yard import SiteInput, SlotSearchInput, check_site
from freightdesk.service.yard import check_search as check_slots
from tests.server.test_rating_support import ltl_request
from tests.server.test_vltl import quote_body
from tests.service.test_carrier_push_service import arrival

# What only a programmer would say (tests/ui/plain_words.py's, without Qt).
CODE = re.compile(r"\b[A-Z][A-Z0-9]+(?:_[A-Z0-9]+)+\b")  # BILL_OF_LADING
WIRE_NAME = re.compile(r"\b[a-z]+[0-9]*[A-Z]\w*\b|\b[a-z]+_[a-z_]+\b")  # departureStartDate
VALIDATOR = re.compile(
    r"Input should|String should|List should|should have at least|Field required|"
    r"Value error|inputs are not permitted|\buuid\b|must not be blank|\d{4}-\d\d-\d\dT\d\d:\d\d",
    re.IGNORECASE,
)

TODAY = datetime.now(UTC).date()
POINT = {"latitude": 41.88, "longitude": -87.63}


def _rates() -> dict[str, str]:
    unit = {"quantity": 1, "weight": {"value": -5, "unit": "LB"}, "freightClass": "70"}
    return check_rate_request(ltl_request(["NBFL"], [unit]))[1]


def _rail() -> dict[str, str]:
    empty = {"equipmentIdentifiers": [{"type": "CONTAINER_ID", "value": ""}]}
    return check_leg(empty)[1]


def _sailings() -> dict[str, str]:
    later = TODAY + timedelta(days=9)
    search = SearchInput("CNSHA", "NLRTM", departure=(later, later - timedelta(days=7)))
    return check_sailings(search, [])[1]


def _push() -> dict[str, str]:
    return check_truckload(arrival("BOL-1", latitude="200"))[1]


def _parcel() -> dict[str, str]:
    return check_parcel(ParcelInput(carrier_value="UPSN", tracking_numbers="1Z9", timestamp="x"))[1]


def _bookings() -> dict[str, str]:
    wire = {
        "shipmentId": "not-a-shipment",
        "capacityProviderIdentifier": {"type": "CARRIER_SCAC", "value": "ZZHD"},
        "rateIdentifiers": [{"source": "EXTERNAL", "type": "CONTRACT", "value": ""}],
        "totalRate": {"amount": -10, "currency": "USD"},
    }
    return check_booking(wire)[1]


def _vltl() -> dict[str, str]:
    bad = quote_body()
    bad["lineItems"][0] = {**bad["lineItems"][0], "totalWeight": -5, "totalPackages": 0}
    return check_quote(bad)[1]


def _slots() -> dict[str, str]:
    start = datetime(2030, 3, 4, 8, tzinfo=UTC)
    return check_slots(SlotSearchInput("dock-1", "", -1, start, start - timedelta(hours=2)))[1]


def _site() -> dict[str, str]:
    return check_site(SiteInput("a b", "", "Mars/Olympus", -1, 0, "MON 10:00-09:00"))[1]


def _stop_location() -> dict[str, str]:
    wire: dict[str, Any] = {
        "name": "Austin DC",
        "address": {"addressLines": ["100 Congress Ave"], "city": "Austin", "country": "US"},
        "coordinates": {"latitude": 200, "longitude": -97.7},
        "geofence": {"type": "DISTANCE", "units": "MILES", "value": -1},
        "openingHours": [{"appliesMonday": True, "opens": "25:00", "closes": "17:00"}],
    }
    # The form shows the rules' words through messages.plain (stop_locations/form.py); the
    # model's (the latitude's) come plain from the check.
    return plain(check_location(wire)[1])


def _vehicles() -> dict[str, str]:
    window = {"startDateTime": "tomorrow", "endDateTime": datetime.now(UTC).isoformat()}
    return check_vehicles({"geoCoordinates": POINT, "timeRange": window, "radius": 0})[1]


def _webhooks() -> dict[str, str]:
    wire = {
        "configName": "Orders",
        "url": "https://hooks.example.com/in",
        "methodHeaders": {"X Team": "dispatch"},
        "authenticationMethods": [{"type": "API_KEY", "parameters": {"headerName": ""}}],
    }
    return check_configuration(wire)[1]


FORMS: dict[str, Callable[[], dict[str, str]]] = {
    "rate request": _rates,
    "rail leg": _rail,
    "sailing schedules": _sailings,
    "carrier push truckload": _push,
    "carrier push parcel": _parcel,
    "booking": _bookings,
    "volume LTL quote": _vltl,
    "yard slots": _slots,
    "yard site": _site,
    "stop location": _stop_location,
    "available vehicles": _vehicles,
    "webhook": _webhooks,
}


def leaks(problems: dict[str, str]) -> dict[str, str]:
    """The messages a dispatcher should not read: a validator's or the wire's words, or not
    a sentence (text typed, quoted, may begin one)."""
    return {
        path: message
        for path, message in problems.items()
        if CODE.search(_unquoted(message))
        or WIRE_NAME.search(_unquoted(message))
        or VALIDATOR.search(message)
        or not (message[:1].isupper() or message[:1] in "'\"0123456789")
    }


def _unquoted(message: str) -> str:
    return re.sub(r"'[^']*'|\"[^\"]*\"", "''", message)


@pytest.mark.parametrize("form", FORMS)
def test_a_forms_check_speaks_the_forms_words(form: str) -> None:
    problems = FORMS[form]()
    assert problems, "the bad input is refused"
    assert leaks(problems) == {}, problems


def test_the_walkthroughs_messages() -> None:
    """The words the new-user walkthrough met beside these fields, now."""
    weight = "rateDetail.shipmentDetails[0].handlingUnits[0].weight.value"
    assert _rates()[weight] == "Enter 0 or more"
    assert _push()["truckload.readings.position.latitude"] == "Enter 90 or less"
    rail = _rail()
    assert rail["equipmentIdentifiers[0].value"] == "Fill this in"
    assert rail["trackingStartDateTime"] == (
        "Tick Start tracking at, or enter a bill of lading or a waybill"
    )
    assert _sailings() == {"departureEndDate": "Must not be before the first departure day"}
    assert _parcel()["timestamp"] == "Enter a date and a time"
    assert _slots()["appointmentWindow"] == "Must end after it starts"


def test_pydantics_words_by_type() -> None:
    """Each type of pydantic error a form can meet, from the models' own refusals."""
    from pydantic import BaseModel, Field, ValidationError

    from freightdesk.models.rail import RailShipmentIdentifierType
    from freightdesk.service.validation import problems_of

    class Form(BaseModel):
        count: int = Field(ge=1)
        latitude: float = Field(le=90)
        above: float = Field(gt=0)
        below: float = Field(lt=10)
        name: str = Field(min_length=1)
        rows: list[int] = Field(min_length=1)
        kind: RailShipmentIdentifierType
        day: date
        moment: datetime
        reference: Any = None

    given: dict[str, Any] = {
        "count": 0,
        "latitude": 200,
        "above": 0,
        "below": 10,
        "name": "",
        "rows": [],
        "kind": "SEAL",
        "day": "someday",
        "moment": "soon",
    }
    with pytest.raises(ValidationError) as refused:
        Form.model_validate(given)
    said = problems_of(refused.value)
    assert said == {
        "count": "Enter 1 or more",
        "latitude": "Enter 90 or less",
        "above": "Enter more than 0",
        "below": "Enter less than 10",
        "name": "Fill this in",
        "rows": "Add at least one",
        "kind": "Choose Bill of lading or Waybill",
        "day": "Enter a date",
        "moment": "Enter a date and a time",
    }
    assert leaks(said) == {}
