"""How bookings read, in the Bookings pane and the booking form: status colours, lanes, freight
and contacts in words."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from PySide6.QtGui import QColor

from freightdesk.models.booking import (
    Booking,
    BookingShipmentDetail,
    BookingShippingDetails,
    BookingStatus,
)
from freightdesk.models.code_words import code_text, words
from freightdesk.models.common import ContactInfo
from freightdesk.models.rating import ACCESSORIAL_NAMES, RateStopLocation
from freightdesk.service.bookings import status_text
from freightdesk.service.carrier_names import CARRIER_NAMES, carrier_text
from freightdesk.service.clock import user_time
from freightdesk.ui.formatting import place_text

TIMES = "\u00d7"  # a multiplication sign, as in 48x40x50

# Readable on the light and the dark theme alike.
STATUS_COLORS = {
    BookingStatus.PROCESSING: QColor("#2f6fde"),
    BookingStatus.UNDER_REVIEW: QColor("#c47a00"),
    BookingStatus.BOOKED: QColor("#2e9d5b"),
    BookingStatus.REJECTED: QColor("#d0453a"),
    BookingStatus.CANCELLED: QColor("#7a8294"),
    BookingStatus.EXPIRED: QColor("#8d6e63"),
}


def carrier_of(booking: Booking) -> str:
    """The booking's carrier in words: 'Prairie Line Freight (PRLF)', or its code."""
    return carrier_text(booking.capacity_provider_identifier.value)


# Who set a rate, as a dispatcher says it (others: their code in words).
RATE_SOURCES = {"CAPACITY_PROVIDER": "the carrier's", "EXTERNAL": "from outside"}


def rate_choice_text(code: str) -> str:
    """A rate identifier's source or type as a form offers it: "The carrier's", "Contract"."""
    source = RATE_SOURCES.get(code)
    return source[:1].upper() + source[1:] if source else code_text(code)


def charge_text(code: str) -> str:
    """A charge or accessorial code as a dispatcher reads it: LIFTGATE -> "Liftgate",
    APPOINTMENT -> "Delivery appointment", LINE_HAUL -> "Line haul"."""
    return ACCESSORIAL_NAMES.get(code) or words(code)


def status_color(status: BookingStatus) -> QColor:
    return STATUS_COLORS.get(status, QColor("#7a8294"))


def status_html(status: BookingStatus) -> str:
    color = status_color(status).name()
    return f'<b style="color:{color}">{status_text(status)}</b>'


def lane_text(booking: Booking) -> str:
    """ "Chicago DC (Chicago, IL) → Dallas store (Dallas, TX)"; blank for a booking that is
    not linked to a rate request (its route is not known here)."""
    return _lane(booking, place_text)


def _lane(booking: Booking, place: Callable[[RateStopLocation | None], str]) -> str:
    """The booking's route, each of its places in `place`'s words, "?" for one without any."""
    segments = booking.route_segments
    if not segments:
        return ""
    places = [place(segments[0].from_location), *(place(s.to_location) for s in segments)]
    return " → ".join(p or "?" for p in places)


def city_text(location: RateStopLocation | None) -> str:
    address = location.address if location else None
    place = ", ".join(p for p in ((address.city, address.state) if address else ()) if p)
    return place or (location.name or "" if location else "")


def short_lane_text(booking: Booking) -> str:
    """ "Joliet, IL → Lancaster, TX": the lane as a list shows it (the names in its tooltip)."""
    return _lane(booking, city_text)


def reference_text(booking: Booking) -> str:
    """What a dispatcher knows the booking by: the shipment's identifiers shared with the
    carrier (a purchase order), then the carrier's own (its PRO or bill of lading); without
    any (a booking made without a rate request), its rate (the carrier's contract or quote)."""
    shared = (*booking.shipment_identifiers, *booking.carrier_provided_identifiers)
    values = [i.value for i in shared] or [r.value for r in booking.rate_identifiers]
    return ", ".join(dict.fromkeys(values))


def carrier_short(booking: Booking) -> str:
    """The booking's carrier for a narrow column or a line: 'Prairie Line', or its code."""
    return CARRIER_NAMES.short(booking.capacity_provider_identifier.value)


def booking_names(bookings: Sequence[Booking]) -> list[str]:
    """Each booking as the Bookings list shows it, for a choice among them: its reference,
    carrier and lane ("PO-71437 · CDRF · Joliet, IL → Lancaster, TX"), never its id. Two that
    would read the same (the same rate to the same carrier) are told apart by when they were
    made, and made in the same second, by their place in the list ("1 of 2")."""
    names = [
        " · ".join(p for p in (reference_text(b), carrier_short(b), short_lane_text(b)) if p)
        for b in bookings
    ]
    names = _told_apart(
        names, [f"made {user_time(b.created_date_time, seconds=True)}" for b in bookings]
    )
    seen: Counter[str] = Counter()
    places = []
    for name in names:
        seen[name] += 1
        places.append(seen[name])
    return _told_apart(
        names, [f"{n} of {seen[name]}" for n, name in zip(places, names, strict=True)]
    )


def _told_apart(names: list[str], more: list[str]) -> list[str]:
    """Each name that is not the only one so named followed by its `more`."""
    counts = Counter(names)
    return [
        f"{name}, {extra}" if counts[name] > 1 else name
        for name, extra in zip(names, more, strict=True)
    ]


def contact_text(contact: ContactInfo | None) -> str:
    if contact is None:
        return ""
    name = " ".join(p for p in (contact.given_name, contact.family_name) if p)
    parts = [contact.company_name, name, contact.phone_number, contact.mobile_phone_number,
             contact.email]  # fmt: skip
    return ", ".join(p for p in parts if p)


def _unit(code: str) -> str:
    """A unit in a sentence: LB -> "pounds" (its code is what the wire keeps)."""
    return code_text(code).lower()


def units_text(details: Iterable[BookingShipmentDetail]) -> str:
    """ "10 x pallet, 900 pounds each, class 70; 2 x crate" (with a multiplication sign)."""
    lines = []
    for detail in details:
        for unit in detail.handling_units:
            kind = code_text(unit.handling_unit_type or "unit").lower()
            text = f"{unit.quantity} {TIMES} {kind}"
            if unit.weight is not None:
                text += f", {unit.weight.value:,.0f} {_unit(unit.weight.unit.value)} each"
            if unit.dimensions is not None:
                d = unit.dimensions
                size = f"{d.length:g}{TIMES}{d.width:g}{TIMES}{d.height:g}"
                text += f", {size} {_unit(d.unit.value)}"
            if unit.freight_class:
                text += f", class {unit.freight_class}"
            if unit.stackable:
                text += ", stackable"
            lines.append(text)
    return "; ".join(lines)


def equipment_text(shipping: BookingShippingDetails | None) -> str:
    if shipping is None:
        return ""
    parts = []
    if shipping.trailer_type is not None:
        parts.append(words(shipping.trailer_type.value))
    if shipping.load_preference is not None:
        parts.append("full load" if shipping.load_preference.value == "FULL" else "partial load")
    if shipping.trailer_length is not None:
        length = shipping.trailer_length
        parts.append(f"{length.value:g} {_unit(length.unit.value)}")
    if shipping.accessorials:
        parts.append(", ".join(charge_text(a.code).lower() for a in shipping.accessorials))
    text = ", ".join(parts)
    return text[:1].upper() + text[1:]
