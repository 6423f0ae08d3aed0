"""Which identifiers a tracked shipment may carry, and which tracking sources can follow it.

The interface (Shipment tracking, rule 6) lists the identifier types each mode accepts. From a
shipment's identifiers we derive:

- the *tracking sources* that can follow it: a source can when the shipment has one of that
  source's *key* types (an identifier that names a shipment on its own; CARRIER_SCAC, FFW_SCAC
  and the capacity provider account types only qualify a key). Rule 4 removes the data of a
  source that can no longer follow the shipment;
- its *mode*: the first source of `plan.expectedTransportationModes` that can follow it, else
  the one accepting most of its identifiers, ties broken by `PREFERENCE` (the rule is
  `models.identifier_rules.mode_of`, which the app's Overview uses too).

TL and VLTL are not in rule 6; we follow truckload pushes by bill of lading or order number and
volume LTL by the LTL keys, but only pick them as the mode when the plan asks for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from freightdesk.models.common import LogisticsIdentifier, TransportationMode
from freightdesk.models.identifier_rules import (
    ACCEPTED_BY_MODE,
    ACCEPTED_TYPES,
    AIR,
    LTL,
    OCEAN,
    OCEAN_DOOR_TO_DOOR,
    PARCEL,
    QUALIFIERS,
    RAIL_EUROPE,
    RAIL_NORTH_AMERICA,
    TRUCKLOAD,
    carrier_of,
    choose_mode,
    primary_of,
    sources_for,
)
from freightdesk.server.errors import field_error, field_errors

Mode = TransportationMode

# Rule 6's lists live in the models package, shared with the app's forms.
__all__ = [
    "ACCEPTED_BY_MODE",
    "ACCEPTED_TYPES",
    "AIR",
    "LTL",
    "OCEAN",
    "OCEAN_DOOR_TO_DOOR",
    "PARCEL",
    "QUALIFIERS",
    "RAIL_EUROPE",
    "RAIL_NORTH_AMERICA",
    "TRUCKLOAD",
    "sources_for",
]


@dataclass(frozen=True)
class IdentifierAnalysis:
    mode: Mode
    sources: frozenset[Mode]
    primary: LogisticsIdentifier
    carrier: str | None


def normalize_value(value: str) -> str:
    """How identifier values are compared: trimmed, case-insensitive."""
    return value.strip().upper()


def analyze(
    identifiers: Sequence[LogisticsIdentifier], planned: Sequence[Mode] = ()
) -> IdentifierAnalysis:
    """Check rules 5 and 6 and derive mode, sources, primary identifier and carrier.

    Raises a 400 ApiError whose sources are field paths such as `identifiers[3].type`.
    """
    if not identifiers:
        raise field_error("identifiers", "at least one identifier with type and value is required")
    problems: list[tuple[str, str]] = []
    seen: dict[tuple[str, str], int] = {}
    for index, identifier in enumerate(identifiers):
        path = f"identifiers[{index}]"
        if identifier.type not in ACCEPTED_TYPES:
            problems.append(
                (
                    f"{path}.type",
                    f"{identifier.type} is not accepted for tracking; accepted types are "
                    + ", ".join(sorted(ACCEPTED_TYPES)),
                )
            )
        value = normalize_value(identifier.value)
        if not value:
            problems.append((f"{path}.value", "must not be blank"))
        elif len(identifier.value) > 200:
            problems.append((f"{path}.value", "must be at most 200 characters"))
        key = (identifier.type, value)
        if key in seen:
            problems.append((path, f"duplicates identifiers[{seen[key]}]"))
        else:
            seen[key] = index
    if problems:
        raise field_errors(problems)
    types = {identifier.type for identifier in identifiers}
    if "HOUSE_AIR_WAYBILL" in types and "CARRIER_SCAC" not in types:
        index = next(i for i, x in enumerate(identifiers) if x.type == "HOUSE_AIR_WAYBILL")
        raise field_error(
            f"identifiers[{index}].type",
            "a HOUSE_AIR_WAYBILL needs a CARRIER_SCAC identifier of the airline as well",
        )
    sources = sources_for(types)
    if not sources:
        raise field_error(
            "identifiers",
            f"{', '.join(sorted(types))} only qualify a shipment; add an identifier that names "
            "it, such as AIR_WAYBILL, BILL_OF_LADING, CONTAINER_ID or TRACKING_NUMBER",
        )
    # The one rule the app's Overview names the carrier by, too.
    mode = choose_mode(sources, planned, [identifier.type for identifier in identifiers])
    return IdentifierAnalysis(
        mode=mode,
        sources=sources,
        primary=primary_of(identifiers, mode) or identifiers[0],  # never empty here
        carrier=carrier_of(mode, identifiers),
    )
