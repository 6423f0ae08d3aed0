"""The deterministic rate engine of the simulated carriers and market rate providers.

Same lane, freight, carrier and week give the same price, so quotes can be reproduced and
tested. Levels follow the 2024 US market: dry van contract line haul about $2.10 a mile before
fuel, fuel surcharge from a $3.85 diesel price (DOE style, $1.25 base, 6 mpg), LTL priced per
hundredweight by freight class and weight break, volume LTL as a share of a truck by linear feet
or weight. Every amount is computed in USD and converted at the end with fixed exchange rates.

Distance is the great circle between stops times a road factor of 1.2. A stop without
coordinates is placed at the population centre of its state or province; two such stops in the
same state are taken as 35 miles apart within one 3-character postal area and 120 miles apart
otherwise.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from freightdesk.models.rating import ACCESSORIAL_NAMES
from freightdesk.models.vltl import VLTL_ACCESSORIAL_NAMES
from freightdesk.models.vltl import VLTL_SERVICE_CODES as VLTL_SERVICE_CODES

ROAD_FACTOR = 1.2
EARTH_RADIUS_MILES = 3958.8
KM_PER_MILE = 1.609344
LB_PER_KG = 2.20462
IN_PER_CM = 1 / 2.54
SAME_POSTAL_AREA_MILES = 35.0
SAME_REGION_MILES = 120.0

# Units of each currency per US dollar (fixed, so quotes stay reproducible).
UNITS_PER_USD: dict[str, float] = {"USD": 1.0, "CAD": 1.36, "MXN": 17.10, "EUR": 0.92}

DIESEL_PRICE = 3.85
FUEL_BASE_PRICE = 1.25
TRUCK_MPG = 6.0
FUEL_PER_MILE = round((DIESEL_PRICE - FUEL_BASE_PRICE) / TRUCK_MPG, 2)
LTL_FUEL_PERCENT = 0.27

# Contract line haul per loaded mile (USD, before fuel), by trailer type.
TL_RATE_PER_MILE: dict[str, float] = {
    "DRY_VAN": 2.10,
    "REEFER": 2.50,
    "FLATBED": 2.65,
    "STEP_DECK": 2.85,
    "DOUBLE_DROP": 3.40,
    "LOWBOY": 3.70,
    "CONESTOGA": 2.95,
    "CONTAINER": 2.25,
    "POWER_ONLY": 1.75,
    "TANKER": 3.05,
    "BOX_TRUCK": 1.95,
    "SPRINTER_VAN": 1.25,
}
TL_FIXED_CHARGE = 175.0  # dispatch, loading and unloading time
TL_MINIMUM = 450.0
TL_MILES_PER_DAY = 550.0
TRAILER_FEET = 53.0
TRUCK_PAYLOAD_LB = 44_000.0

LTL_MINIMUM = 115.0
LTL_MILES_PER_DAY = 400.0
VLTL_MINIMUM = 325.0
VLTL_MILES_PER_DAY = 450.0
# Interior of a 53 ft dry van, for placing pallets when computing linear feet.
TRAILER_WIDTH_IN = 100.0
TRAILER_HEIGHT_IN = 108.0

# Net rate per hundredweight falls with the weight of the whole shipment.
WEIGHT_BREAKS: tuple[tuple[float, float], ...] = (
    (500, 1.25),
    (1000, 1.00),
    (2000, 0.85),
    (5000, 0.70),
    (10000, 0.58),
    (math.inf, 0.50),
)

# NMFC density scale: (pounds per cubic foot below which, class).
DENSITY_CLASSES: tuple[tuple[float, str], ...] = (
    (1, "400"),
    (2, "300"),
    (4, "250"),
    (6, "175"),
    (8, "125"),
    (10, "100"),
    (12, "92.5"),
    (15, "85"),
    (22.5, "70"),
    (30, "65"),
    (35, "60"),
    (50, "55"),
    (math.inf, "50"),
)


@dataclass(frozen=True)
class Accessorial:
    code: str
    truckload_usd: float
    ltl_usd: float

    @property
    def description(self) -> str:
        return ACCESSORIAL_NAMES[self.code]


# Accessorial services of rate requests and bookings (truckload and LTL).
ACCESSORIALS: dict[str, Accessorial] = {
    a.code: a
    for a in (
        Accessorial("LIFTGATE", 85, 75),
        Accessorial("INSIDE_DELIVERY", 150, 95),
        Accessorial("INSIDE_PICKUP", 150, 95),
        Accessorial("RESIDENTIAL", 110, 90),
        Accessorial("APPOINTMENT", 40, 35),
        Accessorial("NOTIFY_BEFORE_DELIVERY", 25, 20),
        Accessorial("LIMITED_ACCESS", 95, 85),
        Accessorial("HAZMAT", 300, 65),
        Accessorial("TARP", 125, 0),
        Accessorial("DRIVER_ASSIST", 125, 60),
        Accessorial("LUMPER", 175, 0),
        Accessorial("REFRIGERATED", 0, 0),
        Accessorial("PROTECT_FROM_FREEZING", 75, 50),
        Accessorial("BLIND_SHIPMENT", 60, 45),
        Accessorial("TEAM_DRIVERS", 0, 0),
        Accessorial("STOP_OFF", 100, 0),
    )
}
TEAM_PREMIUM = 0.22  # of line haul; a team drives about twice the miles a day


# Accessorial services of volume LTL quotes and dispatch (their codes and names are the
# models': the app offers them). `api_field` False: the carrier's API has no field for it, so
# a dispatch sends it in the pickup note.
@dataclass(frozen=True)
class LtlAccessorial:
    code: str
    usd: float
    api_field: bool = True

    @property
    def description(self) -> str:
        return VLTL_ACCESSORIAL_NAMES[self.code]


VLTL_ACCESSORIALS: dict[str, LtlAccessorial] = {
    a.code: a
    for a in (
        LtlAccessorial("LGPU", 75),
        LtlAccessorial("LGDEL", 75),
        LtlAccessorial("INPU", 95),
        LtlAccessorial("INDEL", 95),
        LtlAccessorial("RESPU", 90),
        LtlAccessorial("RESDEL", 90),
        LtlAccessorial("APPTPU", 35),
        LtlAccessorial("APPTDEL", 35),
        LtlAccessorial("LTDPU", 85),
        LtlAccessorial("LTDDEL", 85),
        LtlAccessorial("NOTIFY", 20),
        LtlAccessorial("HAZM", 65),
        LtlAccessorial("PFZ", 50),
        LtlAccessorial("SORTSEG", 85, api_field=False),
        LtlAccessorial("MARKTAG", 40, api_field=False),
        LtlAccessorial("GUR", 0),
        LtlAccessorial("GURAM", 0),
        LtlAccessorial("EXPEDITE", 0),
    )
}


@dataclass(frozen=True)
class VltlServiceLevel:
    code: str
    description: str
    multiplier: float
    minimum_usd: float
    miles_per_day: float


VLTL_SERVICE_LEVELS: dict[str, VltlServiceLevel] = {
    s.code: s
    for s in (
        VltlServiceLevel("STANDARD", "Standard", 1.0, 0, VLTL_MILES_PER_DAY),
        VltlServiceLevel("GUARANTEED_PM", "Guaranteed by 5 PM", 1.15, 95, VLTL_MILES_PER_DAY),
        VltlServiceLevel("GUARANTEED_AM", "Guaranteed by noon", 1.25, 150, VLTL_MILES_PER_DAY),
        VltlServiceLevel("EXPEDITED", "Expedited (team)", 1.35, 200, 800),
    )
}
SERVICE_FOR_CODE = {"GUR": "GUARANTEED_PM", "GURAM": "GUARANTEED_AM", "EXPEDITE": "EXPEDITED"}


# --- geography -----------------------------------------------------------------------------

# Population centres (approximate) of US states, Canadian provinces and Mexican states.
REGION_POINTS: dict[str, tuple[float, float]] = {
    "US-AL": (33.0, -86.8), "US-AK": (61.4, -149.2), "US-AZ": (33.4, -111.8),
    "US-AR": (35.0, -92.4), "US-CA": (35.5, -119.3), "US-CO": (39.5, -105.2),
    "US-CT": (41.5, -72.9), "US-DE": (39.4, -75.6), "US-DC": (38.9, -77.0),
    "US-FL": (27.8, -81.6), "US-GA": (33.3, -84.1), "US-HI": (21.3, -157.8),
    "US-ID": (43.6, -115.4), "US-IL": (41.3, -88.4), "US-IN": (40.0, -86.3),
    "US-IA": (41.9, -93.0), "US-KS": (38.5, -97.0), "US-KY": (37.8, -85.5),
    "US-LA": (30.7, -91.4), "US-ME": (44.1, -69.9), "US-MD": (39.1, -76.8),
    "US-MA": (42.3, -71.4), "US-MI": (42.9, -84.2), "US-MN": (45.2, -93.6),
    "US-MS": (32.6, -89.6), "US-MO": (38.4, -92.2), "US-MT": (46.7, -110.6),
    "US-NE": (41.2, -97.3), "US-NV": (36.6, -115.7), "US-NH": (43.1, -71.5),
    "US-NJ": (40.4, -74.4), "US-NM": (34.6, -106.3), "US-NY": (41.5, -74.6),
    "US-NC": (35.5, -79.8), "US-ND": (47.4, -99.0), "US-OH": (40.5, -82.7),
    "US-OK": (35.6, -96.8), "US-OR": (44.7, -122.6), "US-PA": (40.5, -77.1),
    "US-RI": (41.8, -71.4), "US-SC": (34.0, -81.0), "US-SD": (44.0, -99.0),
    "US-TN": (35.8, -86.4), "US-TX": (30.9, -97.4), "US-UT": (40.5, -111.8),
    "US-VT": (44.1, -72.8), "US-VA": (38.0, -77.8), "US-WA": (47.3, -121.6),
    "US-WV": (38.7, -80.8), "US-WI": (43.8, -89.0), "US-WY": (42.6, -107.0),
    "US-PR": (18.3, -66.3),
    "CA-AB": (52.3, -113.9), "CA-BC": (49.6, -122.8), "CA-MB": (50.2, -97.5),
    "CA-NB": (46.2, -66.0), "CA-NL": (47.8, -53.6), "CA-NS": (45.0, -63.5),
    "CA-NT": (62.5, -114.4), "CA-NU": (63.7, -68.5), "CA-ON": (44.0, -79.6),
    "CA-PE": (46.3, -63.2), "CA-QC": (46.3, -72.6), "CA-SK": (51.4, -105.7),
    "CA-YT": (60.7, -135.0),
    "MX-AGU": (21.9, -102.3), "MX-BCN": (32.5, -116.9), "MX-BCS": (24.1, -110.3),
    "MX-CAM": (19.8, -90.5), "MX-CHP": (16.8, -93.1), "MX-CHH": (28.6, -106.1),
    "MX-CMX": (19.4, -99.1), "MX-COA": (25.4, -101.0), "MX-COL": (19.2, -103.7),
    "MX-DUR": (24.0, -104.7), "MX-GUA": (21.0, -101.3), "MX-GRO": (17.6, -99.5),
    "MX-HID": (20.1, -98.7), "MX-JAL": (20.7, -103.3), "MX-MEX": (19.3, -99.6),
    "MX-MIC": (19.7, -101.2), "MX-MOR": (18.9, -99.2), "MX-NAY": (21.5, -104.9),
    "MX-NLE": (25.7, -100.3), "MX-OAX": (17.1, -96.7), "MX-PUE": (19.0, -98.2),
    "MX-QUE": (20.6, -100.4), "MX-ROO": (21.2, -86.8), "MX-SLP": (22.2, -101.0),
    "MX-SIN": (24.8, -107.4), "MX-SON": (29.1, -110.9), "MX-TAB": (18.0, -92.9),
    "MX-TAM": (26.1, -98.3), "MX-TLA": (19.3, -98.2), "MX-VER": (19.2, -96.1),
    "MX-YUC": (21.0, -89.6), "MX-ZAC": (22.8, -102.6),
}  # fmt: skip


@dataclass(frozen=True)
class Place:
    """Where a stop is, exactly (coordinates) or approximately (its region's centre)."""

    latitude: float
    longitude: float
    region: str | None
    postal_area: str | None
    exact: bool
    country: str | None = None  # ISO code, when the stop's address gave one


def place(
    country: str | None,
    state: str | None,
    postal_code: str | None = None,
    coordinates: tuple[float, float] | None = None,
) -> Place | None:
    """The place of a stop, or None when neither coordinates nor a known region are given.

    `country` and `state` must already be codes (US and TX, CA and ON, MX and NLE).
    """
    region = f"{country}-{state}" if country and state else None
    if region not in REGION_POINTS:
        region = None
    area = postal_code.replace(" ", "").upper()[:3] if postal_code else None
    if coordinates is not None:
        return Place(coordinates[0], coordinates[1], region, area, exact=True, country=country)
    if region is None:
        return None
    lat, lon = REGION_POINTS[region]
    return Place(lat, lon, region, area, exact=False, country=country)


# Countries whose roads join: a truck (truckload or LTL) drives within one network only.
# North America is one (the US, Canada, Mexico); continental Europe with Great Britain
# (Channel Tunnel) another. A country not listed is not judged.
_EUROPE = "AT BE BG CH CZ DE DK EE ES FI FR GB GR HR HU IE IT LI LT LU LV NL NO PL PT RO SE SI SK"
ROAD_NETWORKS: dict[str, str] = {
    **dict.fromkeys(("US", "CA", "MX"), "North America"),
    **dict.fromkeys(_EUROPE.split(), "Europe"),
}


def road_gap(a: Place, b: Place) -> str | None:
    """Why no truck drives from `a` to `b` (e.g. "Europe and North America are not joined by
    road"), or None when they share a road network or a country's network is not known."""
    here = ROAD_NETWORKS.get(a.country or "")
    there = ROAD_NETWORKS.get(b.country or "")
    if here is None or there is None or here == there:
        return None
    return f"{here} and {there} are not joined by road"


def great_circle_miles(a: Place, b: Place) -> float:
    lat1, lon1, lat2, lon2 = map(math.radians, (a.latitude, a.longitude, b.latitude, b.longitude))
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * EARTH_RADIUS_MILES * math.asin(min(1.0, math.sqrt(h)))


def leg_miles(a: Place, b: Place) -> float:
    """Road miles of one leg."""
    if not (a.exact and b.exact) and a.region is not None and a.region == b.region:
        if a.postal_area and a.postal_area == b.postal_area:
            return SAME_POSTAL_AREA_MILES
        return SAME_REGION_MILES
    return max(1.0, great_circle_miles(a, b) * ROAD_FACTOR)


def route_miles(legs: Iterable[tuple[Place, Place]]) -> float:
    return round(sum(leg_miles(a, b) for a, b in legs), 1)


# --- determinism ---------------------------------------------------------------------------


def unit_interval(*parts: object) -> float:
    """A number in [0, 1) fixed by its inputs (stable across runs, unlike hash())."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def convert(usd: float, currency: str) -> float:
    return round(usd * UNITS_PER_USD[currency], 2)


@dataclass(frozen=True)
class CarrierTerms:
    """What the rate engine needs to know of a carrier."""

    scac: str
    distance_unit: str = "MI"
    currency: str = "USD"

    @property
    def price_level(self) -> float:
        """The carrier's price position against the market: 0.90 to 1.12."""
        return 0.90 + 0.22 * unit_interval("level", self.scac)

    @property
    def spot_appetite(self) -> float:
        """How the carrier prices spot freight against the spot market: 0.95 to 1.08."""
        return 0.95 + 0.13 * unit_interval("spot", self.scac)


# --- results -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChargeLine:
    code: str
    description: str
    usd: float


@dataclass(frozen=True)
class Price:
    """A priced shipment in USD; convert with :func:`convert`."""

    line_haul: float
    fuel: float
    accessorials: tuple[ChargeLine, ...]
    transit_days: int
    miles: float
    rate_per_mile: float | None = None
    billed_weight_lb: float | None = None
    service_level: str = "STANDARD"

    @property
    def total(self) -> float:
        return round(self.line_haul + self.fuel + sum(c.usd for c in self.accessorials), 2)


@dataclass(frozen=True)
class MarketRange:
    low: float
    average: float
    high: float
    sample_size: int
    miles: float


def delivery_date(pickup: date, transit_days: int, *, business_days: bool) -> date:
    """Truckload drivers run every day; LTL networks deliver on business days."""
    day = pickup
    remaining = transit_days
    while remaining > 0:
        day += timedelta(days=1)
        if not business_days or day.weekday() < 5:
            remaining -= 1
    return day


# --- truckload -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Truckload:
    trailer_type: str = "DRY_VAN"
    partial: bool = False
    trailer_length_ft: float | None = None
    weight_lb: float = 0.0
    extra_stops: int = 0
    accessorials: tuple[str, ...] = ()

    @property
    def share(self) -> float:
        """The part of a truck a partial load pays for (1 for a full truckload)."""
        if not self.partial:
            return 1.0
        by_length = (self.trailer_length_ft or 0.0) / TRAILER_FEET
        by_weight = self.weight_lb / TRUCK_PAYLOAD_LB
        return min(1.0, max(0.35, 1.15 * max(by_length, by_weight)))


def lane_market_factor(lane: str, trailer_type: str, week: str) -> float:
    """Spot market against contract on this lane this week: 0.82 to 1.30."""
    return 0.82 + 0.48 * unit_interval("lane", lane, trailer_type, week)


def truckload_rate_per_mile(
    carrier: CarrierTerms, load: Truckload, *, spot: bool, lane: str, week: str
) -> float:
    rate = TL_RATE_PER_MILE[load.trailer_type] * carrier.price_level
    if spot:
        rate *= lane_market_factor(lane, load.trailer_type, week) * carrier.spot_appetite
    return round(rate, 4)


def price_truckload(
    carrier: CarrierTerms, load: Truckload, miles: float, *, spot: bool, lane: str, week: str
) -> Price:
    rpm = truckload_rate_per_mile(carrier, load, spot=spot, lane=lane, week=week)
    scale = rpm / TL_RATE_PER_MILE["DRY_VAN"]
    line_haul = max(TL_MINIMUM * scale, rpm * miles + TL_FIXED_CHARGE * carrier.price_level)
    line_haul *= load.share
    fuel = FUEL_PER_MILE * miles * load.share
    charges: list[ChargeLine] = []
    team = "TEAM_DRIVERS" in load.accessorials
    for code in sorted(set(load.accessorials)):
        spec = ACCESSORIALS[code]
        if code == "TEAM_DRIVERS":
            charges.append(ChargeLine(code, spec.description, round(line_haul * TEAM_PREMIUM, 2)))
        elif spec.truckload_usd:
            charges.append(ChargeLine(code, spec.description, spec.truckload_usd))
    if load.extra_stops:
        stop = ACCESSORIALS["STOP_OFF"]
        charges.append(
            ChargeLine(stop.code, stop.description, stop.truckload_usd * load.extra_stops)
        )
    per_day = TL_MILES_PER_DAY * (1.8 if team else 1.0)
    days = max(1, math.ceil(miles / per_day)) + (1 if load.partial else 0)
    return Price(
        line_haul=round(line_haul, 2),
        fuel=round(fuel, 2),
        accessorials=tuple(charges),
        transit_days=days,
        miles=miles,
        rate_per_mile=rpm,
        billed_weight_lb=load.weight_lb or None,
        service_level="TEAM" if team else "STANDARD",
    )


# --- LTL -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LtlPiece:
    weight_lb: float
    freight_class: str


def density_class(weight_lb: float, length_in: float, width_in: float, height_in: float) -> str:
    """The NMFC class of freight by its density (pounds per cubic foot)."""
    cubic_feet = max(length_in * width_in * height_in / 1728.0, 0.01)
    density = weight_lb / cubic_feet
    for below, freight_class in DENSITY_CLASSES:
        if density < below:
            return freight_class
    return "50"


def _weight_break(total_lb: float) -> float:
    for below, factor in WEIGHT_BREAKS:
        if total_lb < below:
            return factor
    return WEIGHT_BREAKS[-1][1]


def price_ltl(
    carrier: CarrierTerms, pieces: Sequence[LtlPiece], miles: float, accessorials: Iterable[str]
) -> Price:
    total_lb = sum(p.weight_lb for p in pieces)
    per_cwt_base = (7.5 + 0.030 * miles) * _weight_break(total_lb) * carrier.price_level
    line_haul = sum(
        per_cwt_base * (float(p.freight_class) / 100) ** 0.85 * p.weight_lb / 100 for p in pieces
    )
    line_haul = max(LTL_MINIMUM * carrier.price_level, line_haul)
    charges = [
        ChargeLine(code, ACCESSORIALS[code].description, ACCESSORIALS[code].ltl_usd)
        for code in sorted(set(accessorials))
        if ACCESSORIALS[code].ltl_usd
    ]
    return Price(
        line_haul=round(line_haul, 2),
        fuel=round(line_haul * LTL_FUEL_PERCENT, 2),
        accessorials=tuple(charges),
        transit_days=math.ceil(miles / LTL_MILES_PER_DAY) + 1,
        miles=miles,
        billed_weight_lb=round(total_lb, 1),
    )


# --- volume LTL ----------------------------------------------------------------------------


@dataclass(frozen=True)
class FloorUnits:
    """Identical handling units to place on the trailer floor (inches)."""

    count: int
    length_in: float
    width_in: float
    height_in: float
    stackable: bool


def linear_feet(units: Iterable[FloorUnits]) -> int:
    """Trailer length the freight takes: units side by side across 100 in, stacked if allowed."""
    inches = 0.0
    for unit in units:
        across = max(1, math.floor(TRAILER_WIDTH_IN / unit.width_in))
        stack = max(1, math.floor(TRAILER_HEIGHT_IN / unit.height_in)) if unit.stackable else 1
        positions = math.ceil(unit.count / stack)
        inches += math.ceil(positions / across) * unit.length_in
    return max(1, math.ceil(inches / 12))


@dataclass(frozen=True)
class VolumeLoad:
    linear_feet: int
    weight_lb: float
    accessorials: tuple[str, ...] = ()
    hazmat: bool = False
    service_level: str = "STANDARD"


def price_volume_ltl(carrier: CarrierTerms, load: VolumeLoad, miles: float) -> Price:
    level = carrier.price_level
    truck = TL_RATE_PER_MILE["DRY_VAN"] * level * miles + TL_FIXED_CHARGE * level
    share = max(load.linear_feet / TRAILER_FEET, load.weight_lb / TRUCK_PAYLOAD_LB)
    factor = min(1.0, 0.10 + 1.25 * share)
    service = VLTL_SERVICE_LEVELS[load.service_level]
    base = max(VLTL_MINIMUM * level, truck * factor)
    line_haul = max(base * service.multiplier, base + service.minimum_usd)
    codes = set(load.accessorials) | ({"HAZM"} if load.hazmat else set())
    charges = [
        ChargeLine(code, VLTL_ACCESSORIALS[code].description, VLTL_ACCESSORIALS[code].usd)
        for code in sorted(codes)
        if VLTL_ACCESSORIALS[code].usd
    ]
    standard_days = math.ceil(miles / VLTL_MILES_PER_DAY) + 1
    days = max(1, math.ceil(miles / service.miles_per_day)) if service.code == "EXPEDITED" else 0
    return Price(
        line_haul=round(line_haul, 2),
        fuel=round(FUEL_PER_MILE * miles * factor, 2),
        accessorials=tuple(charges),
        transit_days=days or standard_days,
        miles=miles,
        billed_weight_lb=round(load.weight_lb, 1),
        service_level=service.code,
    )


# --- market rate providers -----------------------------------------------------------------


def market_truckload(
    load: Truckload, miles: float, *, spot: bool, lane: str, week: str
) -> MarketRange:
    """All-in (fuel included) rates shippers paid on the lane: low, average and high."""
    rpm = TL_RATE_PER_MILE[load.trailer_type]
    if spot:
        rpm *= lane_market_factor(lane, load.trailer_type, week)
    average = max(TL_MINIMUM, (rpm + FUEL_PER_MILE) * miles + TL_FIXED_CHARGE) * load.share
    sample = 40 + int(360 * unit_interval("sample", lane, load.trailer_type, week, spot))
    return MarketRange(
        low=round(average * 0.86, 2),
        average=round(average, 2),
        high=round(average * 1.18, 2),
        sample_size=sample,
        miles=miles,
    )


def market_ltl(
    pieces: Sequence[LtlPiece], miles: float, *, spot: bool, lane: str, week: str
) -> MarketRange:
    price = price_ltl(CarrierTerms(scac="MKT"), pieces, miles, ())
    # A neutral carrier (level 1.0) is the market average; spot LTL runs a little above it.
    average = price.total / CarrierTerms(scac="MKT").price_level * (1.06 if spot else 1.0)
    sample = 25 + int(200 * unit_interval("sample", lane, "LTL", week, spot))
    return MarketRange(
        low=round(average * 0.82, 2),
        average=round(average, 2),
        high=round(average * 1.25, 2),
        sample_size=sample,
        miles=miles,
    )


# --- units ---------------------------------------------------------------------------------

_INCHES_PER = {"IN": 1.0, "FT": 12.0, "CM": IN_PER_CM, "M": 100 * IN_PER_CM}


def pounds(value: float, unit: str) -> float:
    return value * LB_PER_KG if unit == "KG" else value


def kilograms(value: float, unit: str) -> float:
    return value if unit == "KG" else value / LB_PER_KG


def inches(value: float, unit: str) -> float:
    return value * _INCHES_PER[unit]


def feet(value: float, unit: str) -> float:
    return inches(value, unit) / 12.0
