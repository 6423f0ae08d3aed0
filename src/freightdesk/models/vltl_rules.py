"""What a volume LTL dispatch must carry, beyond its model's shapes: locations with their
addresses and contacts (or the account's default contacts), pickup and delivery times, line
items a carrier can load, one identifier per type, an emergency contact for hazardous freight.

The local service refuses a dispatch with these problems; the app runs the same functions to
show each problem beside its field before sending. Problems are `(field path, message)` pairs
with the interface's paths (`originLocation.contact.phoneNumber`).
"""

from __future__ import annotations

import re
from datetime import time

from freightdesk.models.addresses import InvalidAddressError, normalize_address
from freightdesk.models.booking import DefaultContacts
from freightdesk.models.common import Address, LocalDateWindow, LtlContact, LtlLocation
from freightdesk.models.vltl import (
    VLTL_SERVICE_CODES,
    DispatchRequest,
    EnhancedHandlingUnit,
    LineItem,
)

Problems = list[tuple[str, str]]

SENT_IDENTIFIERS = ("BILL_OF_LADING", "PURCHASE_ORDER", "CUSTOMER_REFERENCE")
ACCEPTED_IDENTIFIERS = frozenset({*SENT_IDENTIFIERS, "EXTERNAL"})
_HHMM = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")


def snake_name(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def hhmm_time(text: str) -> time:
    """A time of day written as the interface has it, hh:mm (`08:30`)."""
    found = _HHMM.match(text.strip())
    if found is None:
        raise ValueError(f"{text.strip()!r} is not a time of day as hh:mm (e.g. 08:00)")
    return time(int(found.group(1)), int(found.group(2)))


def quote_address(address: Address, path: str, problems: Problems) -> Address:
    """A quote's origin or destination in canonical form; it needs a postal code."""
    try:
        clean = normalize_address(address)
    except InvalidAddressError as exc:
        problems.extend((f"{path}.{p.source}", p.message) for p in exc.problems)
        return address
    if not clean.postal_code:
        problems.append((f"{path}.postalCode", "is required"))
    return clean


def merged_contact(given: LtlContact | None, default: LtlContact | None) -> LtlContact:
    """The location's contact, its missing fields taken from the account's default contact."""
    if given is None:
        return default or LtlContact()
    if default is None:
        return given
    return default.model_copy(update=given.model_dump(exclude_none=True))


def checked_location(
    location: LtlLocation,
    path: str,
    default: LtlContact | None,
    problems: Problems,
    *,
    needs_email: bool = False,
) -> LtlLocation:
    """The location with its address normalized and its contact completed from `default`;
    what is missing goes to `problems`."""
    address = location.address
    clean: Address | None = None
    if address is None:
        problems.append((f"{path}.address", "is required"))
    else:
        lines = [line for line in address.address_lines if line.strip()]
        missing = [
            name
            for name, value in (
                ("postalCode", address.postal_code),
                ("addressLines", lines),
                ("city", address.city),
                ("state", address.state),
            )
            if not value
        ]
        problems.extend((f"{path}.address.{name}", "is required") for name in missing)
        if not missing:
            try:
                clean = normalize_address(address)
            except InvalidAddressError as exc:
                problems.extend((f"{path}.address.{p.source}", p.message) for p in exc.problems)
    contact = merged_contact(location.contact, default)
    required = ["companyName", "contactName", "phoneNumber"] + (["email"] if needs_email else [])
    for name in required:
        if not getattr(contact, snake_name(name)):
            problems.append(
                (
                    f"{path}.contact.{name}",
                    "is required (or set a default contact on the carrier account)",
                )
            )
    return LtlLocation(address=clean or address, contact=contact)


def window_time_problems(window: LocalDateWindow, path: str, problems: Problems) -> None:
    for name, value in (("startTime", window.start_time), ("endTime", window.end_time)):
        if value is None:
            problems.append((f"{path}.{name}", "is required (hh:mm)"))
    if window.start_time and window.end_time and window.end_time <= window.start_time:
        problems.append((f"{path}.endTime", "must be after startTime"))


def window_problems(body: DispatchRequest, problems: Problems) -> None:
    """The pickup window with its times; a delivery window, required for guaranteed or
    expedited service, not before the pickup."""
    window_time_problems(body.pickup_window, "pickupWindow", problems)
    codes = {service.code.strip().upper() for service in body.accessorial_services}
    if body.delivery_window is not None:
        window_time_problems(body.delivery_window, "deliveryWindow", problems)
        if body.delivery_window.date < body.pickup_window.date:
            problems.append(("deliveryWindow.date", "must not be before pickupWindow.date"))
    elif codes & set(VLTL_SERVICE_CODES):
        problems.append(("deliveryWindow", "is required for guaranteed or expedited service"))


def item_problems(items: list[LineItem], problems: Problems) -> None:
    for index, item in enumerate(items):
        path = f"lineItems[{index}]"
        for name, value in (
            ("totalWeight", item.total_weight),
            ("packageDimensions", item.package_dimensions),
            ("freightClass", item.freight_class),
        ):
            if value is None:
                problems.append((f"{path}.{name}", "is required"))


def identifier_problems(body: DispatchRequest, problems: Problems) -> None:
    seen: dict[str, int] = {}
    for index, identifier in enumerate(body.shipment_identifiers):
        path = f"shipmentIdentifiers[{index}].type"
        kind = identifier.type
        if kind == "SYSTEM_GENERATED":
            problems.append((path, "SYSTEM_GENERATED is assigned by the service; do not send it"))
        elif kind not in ACCEPTED_IDENTIFIERS:
            allowed = ", ".join(sorted(ACCEPTED_IDENTIFIERS))
            problems.append((path, f"{kind} is not accepted; use {allowed}"))
        elif kind in seen:
            problems.append(
                (
                    path,
                    f"one identifier per type: {kind} is already shipmentIdentifiers[{seen[kind]}]",
                )
            )
        else:
            seen[kind] = index


def carries_hazmat(items: list[LineItem], units: list[EnhancedHandlingUnit]) -> bool:
    return any(item.hazmat_detail is not None for item in items) or any(
        content.hazmat_details
        for unit in units
        for package in unit.packages
        for content in package.package_contents
    )


def emergency_contact_problems(body: DispatchRequest, problems: Problems) -> None:
    """Hazardous freight needs someone to call, with a name and a phone number."""
    if not carries_hazmat(body.line_items, body.enhanced_handling_units):
        return
    contact = body.emergency_contact
    if contact is None:
        problems.append(
            ("emergencyContact", "is required when the shipment has hazardous materials")
        )
        return
    problems.extend(
        (f"emergencyContact.{name}", "is required for hazardous materials")
        for name in ("contactName", "phoneNumber")
        if not getattr(contact, snake_name(name))
    )


def freight_problems(
    items: list[LineItem], units: list[EnhancedHandlingUnit], problems: Problems
) -> None:
    """A quote or a dispatch names its freight as line items or handling units (or both)."""
    if not items and not units:
        problems.append(
            ("lineItems", "at least one of lineItems or enhancedHandlingUnits is required")
        )


def dispatch_problems(body: DispatchRequest, defaults: DefaultContacts | None) -> dict[str, str]:
    """Every problem of a dispatch that does not depend on the carrier's own limits or the
    day, by field path (the first one per path). `defaults`: the carrier account's default
    contacts, None where none are set."""
    problems: Problems = []
    for location, path, default, email in (
        (body.origin_location, "originLocation", defaults.origin if defaults else None, False),
        (
            body.destination_location,
            "destinationLocation",
            defaults.destination if defaults else None,
            False,
        ),
        (
            body.requester_location,
            "requesterLocation",
            defaults.requester if defaults else None,
            True,
        ),
    ):
        checked_location(location, path, default, problems, needs_email=email)
    freight_problems(body.line_items, body.enhanced_handling_units, problems)
    item_problems(body.line_items, problems)
    emergency_contact_problems(body, problems)
    window_problems(body, problems)
    identifier_problems(body, problems)
    found: dict[str, str] = {}
    for path, message in problems:
        found.setdefault(path, message)
    return found
