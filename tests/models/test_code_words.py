"""How a code reads in words: one rule for the app's panes and the service layer's texts
(the Sharing preview said "FFW SCAC" and "Volume ltl" where the Overview said "Forwarder
SCAC" and "Volume LTL"; the vehicles' radius said "kilometres" beside "Kilometers")."""

from __future__ import annotations

import pytest

from freightdesk.models.code_words import (
    code_text,
    event_text,
    mode_short,
    mode_text,
    unit_name,
    unit_text,
)
from freightdesk.models.enums import TransportationMode


@pytest.mark.parametrize(
    ("code", "said"),
    [
        ("FFW_SCAC", "Forwarder SCAC"),
        ("CARRIER_SCAC", "Carrier SCAC"),
        ("VOLUME_LTL", "Volume LTL"),
        ("PURCHASE_ORDER", "Purchase order"),
        ("OLPN", "OLPN"),
        ("TL", "TL"),
        ("KM", "Kilometers"),
        ("", ""),
        (None, ""),
    ],
)
def test_a_code_reads_in_words(code: str | None, said: str) -> None:
    assert code_text(code) == said


@pytest.mark.parametrize(
    ("code", "name", "after_a_number"),
    [("MI", "miles", "mi"), ("KM", "kilometers", "km"), ("FT", "feet", "ft"), ("M", "meters", "m")],
)
def test_a_unit_is_named_as_its_choice_says_it(code: str, name: str, after_a_number: str) -> None:
    assert unit_name(code) == name
    assert unit_text(code) == after_a_number


def test_every_mode_reads_in_words_in_a_choice_and_short_in_a_list() -> None:
    for mode in TransportationMode:
        full, short = mode_text(mode), mode_short(mode)
        assert (full and full != mode.value) or mode.value == "LTL", full  # never OCEAN, PARCEL
        assert short in (full, mode.value), (short, full)
    assert mode_text("TL") == "Truckload (TL)" and mode_short("TL") == "TL"
    assert mode_text("OCEAN") == mode_short("OCEAN") == "Ocean"
    assert mode_short("VLTL") == "VLTL" and mode_text("VLTL") == "Volume LTL"


@pytest.mark.parametrize(
    ("code", "stop", "said"),
    [
        ("ARRIVAL_AT_STOP", "Dallas DC", "Arrived at Dallas DC"),
        ("ARRIVED_AT_STOP", None, "Arrived at a stop"),
        ("DEPARTURE_FROM_STOP", "Dallas DC", "Departed Dallas DC"),
        ("PICKUP", "Venlo DC", "Picked up at Venlo DC"),
        ("IN_TRANSIT", None, "In transit"),
        ("DELIVERY", "Dallas DC", "Delivered to Dallas DC"),
        ("CANCELLED", "Dallas DC", "Shipment cancelled"),
        ("DISPATCHED", "Dallas DC", "Dispatched"),  # not in the table: code_text's words
        ("ARRIVED_AT_TERMINAL", None, "Arrived at terminal"),
    ],
)
def test_an_event_reads_as_what_happened_where(code: str, stop: str | None, said: str) -> None:
    assert event_text(code, stop) == said
