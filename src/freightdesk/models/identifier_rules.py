"""Which identifier types each mode accepts (the interface's Shipment tracking, rule 6), and
the mode a shipment's identifiers and plan make it (`mode_of`).

Shared by the local service (which enforces them and answers the list's mode) and the app
(whose forms offer only the types the chosen mode accepts and check them before sending, and
whose Overview names the carrier by the list's mode).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from freightdesk.models.code_words import code_text
from freightdesk.models.common import LogisticsIdentifier, TransportationMode

Mode = TransportationMode

AIR = frozenset({"AIR_WAYBILL", "HOUSE_AIR_WAYBILL", "CARRIER_SCAC"})
RAIL_EUROPE = frozenset({"WAGON_ID", "TRAIN_NUMBER"})
RAIL_NORTH_AMERICA = frozenset(
    {"CONTAINER_ID", "TRAILER_ID", "RAIL_CAR_ID", "BILL_OF_LADING", "WAYBILL"}
)
OCEAN = frozenset({"BILL_OF_LADING", "BOOKING_NUMBER", "CARRIER_SCAC", "CONTAINER_ID"})
PARCEL = frozenset(
    {
        "CAPACITY_PROVIDER_ACCOUNT_GROUP",
        "CAPACITY_PROVIDER_ACCOUNT_CODE",
        "TRACKING_NUMBER",
        "CARRIER_SCAC",
        "REFERENCE_NUMBER",
    }
)
LTL = frozenset(
    {
        "CAPACITY_PROVIDER_ACCOUNT_GROUP",
        "CAPACITY_PROVIDER_ACCOUNT_CODE",
        "PRO",
        "PRO_NUMBER",
        "BILL_OF_LADING",
        "PICKUP",
        "PURCHASE_ORDER",
    }
)
OCEAN_DOOR_TO_DOOR = frozenset(
    {"HOUSE_BILL_OF_LADING", "FFW_SCAC", "BOOKING_NUMBER", "TRACKING_NUMBER"}
)
# TL is not in rule 6; truckload pushes name shipments by bill of lading or order number.
TRUCKLOAD = frozenset({"BILL_OF_LADING", "PURCHASE_ORDER", "CARRIER_SCAC"})

ACCEPTED_BY_MODE: dict[Mode, frozenset[str]] = {
    Mode.AIR: AIR,
    Mode.RAIL: RAIL_EUROPE | RAIL_NORTH_AMERICA,
    Mode.OCEAN: OCEAN | OCEAN_DOOR_TO_DOOR,
    Mode.PARCEL: PARCEL,
    Mode.LTL: LTL,
    Mode.VLTL: LTL,
    Mode.TL: TRUCKLOAD,
}

ACCEPTED_TYPES: frozenset[str] = frozenset().union(*ACCEPTED_BY_MODE.values())

# Types that only qualify another identifier (which carrier, which account).
QUALIFIERS = frozenset(
    {
        "CARRIER_SCAC",
        "FFW_SCAC",
        "CAPACITY_PROVIDER_ACCOUNT_GROUP",
        "CAPACITY_PROVIDER_ACCOUNT_CODE",
    }
)

# Where a shipment names its carrier, the first found: its SCAC (a forwarder's for ocean door
# to door).
CARRIER_TYPES = ("CARRIER_SCAC", "FFW_SCAC", "SCAC")
# The modes whose rule 6 list has no SCAC: their carrier is the account they move on, whose
# code is the carrier's SCAC (docs/spec-gaps.md, Rating and Booking). Volume LTL takes LTL's
# identifiers and its accounts are SCACs too. A parcel shipment's account code is the
# shipper's account number with its carrier, not a carrier.
CARRIER_BY_ACCOUNT = frozenset({Mode.LTL, Mode.VLTL})


def primary_of(
    identifiers: Sequence[LogisticsIdentifier], mode: Mode | None
) -> LogisticsIdentifier | None:
    """The identifier a shipment of `mode` is known by (the list's Shipment column, the
    detail's title): the first that names it on its own, not a qualifier (a booked truckload
    sent its carrier's SCAC first, and was titled "PRLF"); else the first; None without any."""
    keys = ACCEPTED_BY_MODE.get(mode, ACCEPTED_TYPES) if mode is not None else ACCEPTED_TYPES
    for identifier in identifiers:
        if identifier.type in keys - QUALIFIERS:
            return identifier
    return identifiers[0] if identifiers else None


# The mode chosen when the plan names none that fits; TL and VLTL only when planned.
PREFERENCE: tuple[Mode, ...] = (Mode.AIR, Mode.PARCEL, Mode.OCEAN, Mode.LTL, Mode.RAIL)


def sources_for(types: Collection[str]) -> frozenset[Mode]:
    """The tracking sources that can follow a shipment carrying these identifier types: those
    with one of their key types (a type that names a shipment on its own, not a qualifier)."""
    found: set[Mode] = set()
    carried = set(types)
    for mode, accepted in ACCEPTED_BY_MODE.items():
        keys = (accepted - QUALIFIERS) & carried
        if mode is Mode.AIR and keys == {"HOUSE_AIR_WAYBILL"} and "CARRIER_SCAC" not in types:
            continue
        if keys:
            found.add(mode)
    return frozenset(found)


def mode_of(types: Sequence[str], planned: Sequence[Mode] = ()) -> Mode | None:
    """The mode of a shipment carrying identifiers of `types`, as the service answers it in
    the list: the first planned mode a source of it can follow, else the mode accepting most
    of its identifiers (ties by `PREFERENCE`); None when nothing can follow it."""
    sources = sources_for(types)
    return choose_mode(sources, planned, types) if sources else None


def choose_mode(sources: frozenset[Mode], planned: Sequence[Mode], types: Sequence[str]) -> Mode:
    """`mode_of` for a shipment some of `sources` (not none) can follow."""
    for mode in planned:
        if mode in sources:
            return mode
    # The best fit: the mode that accepts most of the identifiers (TRACKING_NUMBER with a
    # CARRIER_SCAC and a REFERENCE_NUMBER is parcel, though ocean door-to-door knows the
    # tracking number too).
    candidates = [mode for mode in PREFERENCE if mode in sources]
    if not candidates:  # only planned-only sources follow it (an order number without TL)
        return sorted(sources)[0]
    return max(
        candidates,
        key=lambda mode: (
            sum(t in ACCEPTED_BY_MODE[mode] for t in types),
            -PREFERENCE.index(mode),
        ),
    )


def carrier_of(mode: Mode | None, identifiers: Sequence[LogisticsIdentifier]) -> str | None:
    """The carrier a shipment of `mode` names by its identifiers (a SCAC), or None."""
    wanted: tuple[str, ...] = CARRIER_TYPES
    if mode in CARRIER_BY_ACCOUNT:
        wanted += ("CAPACITY_PROVIDER_ACCOUNT_CODE",)
    for kind in wanted:
        for identifier in identifiers:
            if identifier.type == kind:
                return identifier.value.strip()
    return None


def problems_for(mode: Mode, types: list[str]) -> dict[int, str]:
    """Messages by identifier index for a shipment of `mode` (empty when all is well), in the
    words the form offers the types in ("Bill of lading is not an identifier of an air
    shipment"; it said BILL_OF_LADING and AIR)."""
    accepted = ACCEPTED_BY_MODE.get(mode, ACCEPTED_TYPES)
    problems: dict[int, str] = {}
    for index, kind in enumerate(types):
        if kind not in accepted:
            problems[index] = f"{code_text(kind)} is not an identifier of {_a_shipment(mode)}"
    if "HOUSE_AIR_WAYBILL" in types and "CARRIER_SCAC" not in types:
        problems.setdefault(
            types.index("HOUSE_AIR_WAYBILL"),
            f"a {code_text('HOUSE_AIR_WAYBILL').lower()} needs a {code_text('CARRIER_SCAC')}"
            " identifier of the airline as well",
        )
    if types and all(t in QUALIFIERS for t in types):
        problems.setdefault(0, "add an identifier that names the shipment itself")
    return problems


def _a_shipment(mode: Mode) -> str:
    """ "an ocean shipment", "a TL shipment", "an LTL shipment": letters are said as letters."""
    said = [word if word.isupper() else word.lower() for word in code_text(mode.value).split()]
    first = said[0]
    article = "an" if first[0] in ("AEFHILMNORSX" if first.isupper() else "aeiou") else "a"
    return " ".join([article, *said, "shipment"])
