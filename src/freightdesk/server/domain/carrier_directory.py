"""The carriers the service knows by code: fictional companies with plausible codes, which the
demo's shipments travel with and the capacity and schedule searches name.

SCACs are four letters, container owner codes three letters (ISO 6346 adds the `U`), air
waybill prefixes three digits, rail reporting marks four letters. None of the names is meant to
be a real company.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from freightdesk.models.common import TransportationMode as Mode


class Region(StrEnum):
    """Where a carrier serves (and where a demo place lies)."""

    NORTH_AMERICA = "NA"
    EUROPE = "EU"


@dataclass(frozen=True)
class Carrier:
    name: str
    scac: str
    mode: Mode
    region: Region
    # Mode-specific codes: container owner (ocean, intermodal rail), air waybill prefix and
    # two-letter flight designator (air), PRO prefix (LTL), tracking number prefix (parcel),
    # reporting mark (North American rail), UIC keeper country (European rail).
    owner_code: str = ""
    awb_prefix: str = ""
    flight_code: str = ""
    pro_prefix: str = ""
    tracking_prefix: str = ""
    reporting_mark: str = ""
    keeper_country: str = ""


NA = Region.NORTH_AMERICA
EU = Region.EUROPE

CARRIERS: tuple[Carrier, ...] = (
    # Truckload
    Carrier("Prairie Wind Transport", "PWTR", Mode.TL, NA),
    Carrier("Blue Mesa Freight Lines", "BMFL", Mode.TL, NA),
    Carrier("Great Lakes Haulers", "GLKH", Mode.TL, NA),
    Carrier("Copperline Logistics", "CPLG", Mode.TL, NA),
    Carrier("Red Rock Carriers", "RRKC", Mode.TL, NA),
    Carrier("Tidewater Express", "TDWX", Mode.TL, NA),
    Carrier("Northern Spruce Trucking", "NSPT", Mode.TL, NA),
    Carrier("Sierra Madre Autotransportes", "SMAT", Mode.TL, NA),
    Carrier("Rheinland Spedition", "RHSP", Mode.TL, EU),
    Carrier("Van der Berg Transport", "VDBT", Mode.TL, EU),
    Carrier("Transportes Meseta", "TRMS", Mode.TL, EU),
    Carrier("Vistula Cargo", "VSTC", Mode.TL, EU),
    Carrier("Alpina Logistik", "ALPL", Mode.TL, EU),
    # Less than truckload
    Carrier("Keystone Freight Lines", "KYFL", Mode.LTL, NA, pro_prefix="427"),
    Carrier("Pinecrest LTL", "PCLT", Mode.LTL, NA, pro_prefix="318"),
    Carrier("Heartland Consolidated Freight", "HCFR", Mode.LTL, NA, pro_prefix="562"),
    Carrier("Coastal Crescent Freight", "CCFT", Mode.LTL, NA, pro_prefix="705"),
    Carrier("EuroGroupage Netz", "EGNZ", Mode.LTL, EU, pro_prefix="914"),
    Carrier("Benelux Stukgoed", "BNSG", Mode.LTL, EU, pro_prefix="883"),
    # Parcel
    Carrier("SwiftParcel", "SWPC", Mode.PARCEL, NA, tracking_prefix="SP"),
    Carrier("Parcelwing", "PCWG", Mode.PARCEL, NA, tracking_prefix="PW"),
    Carrier("Maple Post Courier", "MPCR", Mode.PARCEL, NA, tracking_prefix="MP"),
    Carrier("Europaket", "EUPK", Mode.PARCEL, EU, tracking_prefix="EP"),
    Carrier("Colis Rapide", "CLRP", Mode.PARCEL, EU, tracking_prefix="CR"),
    # Rail
    Carrier(
        "Transcontinental Plains Railroad",
        "TPRR",
        Mode.RAIL,
        NA,
        owner_code="TPX",
        reporting_mark="TPRR",
    ),
    Carrier(
        "Atlantic & Gulf Railway", "AGRY", Mode.RAIL, NA, owner_code="AGX", reporting_mark="AGRY"
    ),
    Carrier(
        "Laurentian Northern Railway",
        "LNRY",
        Mode.RAIL,
        NA,
        owner_code="LNX",
        reporting_mark="LNRY",
    ),
    Carrier("Rhein-Alpen Cargo", "RACG", Mode.RAIL, EU, keeper_country="80"),
    Carrier("Baltic Rail Freight", "BRFT", Mode.RAIL, EU, keeper_country="51"),
    Carrier("Lowlands Rail Cargo", "LRCG", Mode.RAIL, EU, keeper_country="84"),
    # Ocean
    Carrier("Hanseatic Ocean Carriers", "HOCS", Mode.OCEAN, EU, owner_code="HOC"),
    Carrier("Azure Meridian Shipping", "AZMS", Mode.OCEAN, EU, owner_code="AZM"),
    Carrier("Corvina Lines", "CRVN", Mode.OCEAN, EU, owner_code="CVN"),
    Carrier("Gulfstream Maritime", "GSMT", Mode.OCEAN, NA, owner_code="GSM"),
    Carrier("Nordvik Line", "NVKL", Mode.OCEAN, EU, owner_code="NVK"),
    # Air
    Carrier("Polaris Air Cargo", "PLRA", Mode.AIR, NA, awb_prefix="712", flight_code="PX"),
    Carrier("Aurora Cargo Airlines", "AURC", Mode.AIR, EU, awb_prefix="781", flight_code="AQ"),
    Carrier("Meridian Air Freight", "MRDA", Mode.AIR, EU, awb_prefix="694", flight_code="MZ"),
)

# Forwarders that sell ocean door-to-door (house bill of lading, FFW_SCAC).
FORWARDERS: tuple[Carrier, ...] = (
    Carrier("Harborline Forwarding", "HBLF", Mode.OCEAN, EU),
    Carrier("Keel & Compass Logistics", "KCLG", Mode.OCEAN, NA),
)


def carriers_for(mode: Mode, region: Region | None = None) -> list[Carrier]:
    """Carriers of a mode; ocean and air carriers serve both regions."""
    return [
        c
        for c in CARRIERS
        if c.mode is mode and (region is None or c.region is region or mode in _GLOBAL)
    ]


_GLOBAL = frozenset({Mode.OCEAN, Mode.AIR})
