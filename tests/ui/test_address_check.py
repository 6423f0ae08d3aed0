"""What the rate request's stops and the stop location form say once the service has
validated an address (the suggestion path is also walked in their pane tests)."""

from __future__ import annotations

from freightdesk.models.common import Address
from freightdesk.ui.widgets.address_check import address_checked

NORMAL = Address(
    address_lines=["100 Congress Ave"], city="Austin", state="TX", postal_code="78701-1234"
)
WIRE = {
    "addressLines": ["100 Congress Ave"],
    "city": "Austin",
    "state": "TX",
    "postalCode": "78701-1234",
    "country": "US",
}


def test_an_address_valid_as_entered_offers_no_suggestion() -> None:
    assert address_checked(NORMAL, WIRE) == ("✓ The address is valid.", None)


def test_an_address_the_service_normalized_is_offered() -> None:
    typed = {**WIRE, "city": "austin", "postalCode": "787011234", "state": None}
    assert address_checked(NORMAL, typed) == (
        "Suggested: 100 Congress Ave, Austin, TX 78701-1234, US",
        NORMAL,
    )
