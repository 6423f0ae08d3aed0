"""North American intermodal ramps and the gateways where railroads interchange.

Positions are those of the real terminals (rounded to about a kilometre); railroads are named
by their reporting marks.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Ramp:
    code: str
    name: str
    railroad: str
    city: str
    state: str
    country: str
    latitude: float
    longitude: float


def _r(
    code: str,
    name: str,
    railroad: str,
    city: str,
    state: str,
    lat: float,
    lon: float,
    country: str = "US",
) -> Ramp:
    return Ramp(code, name, railroad, city, state, country, lat, lon)


RAMPS: tuple[Ramp, ...] = (
    # BNSF Railway
    _r("BNSF-LPC", "BNSF Logistics Park Chicago", "BNSF", "Elwood", "IL", 41.4120, -88.1180),
    _r("BNSF-CORWITH", "BNSF Corwith", "BNSF", "Chicago", "IL", 41.8180, -87.7040),
    _r("BNSF-HOBART", "BNSF Hobart Yard", "BNSF", "Commerce", "CA", 34.0010, -118.1830),
    _r("BNSF-SBD", "BNSF San Bernardino", "BNSF", "San Bernardino", "CA", 34.0960, -117.2960),
    _r("BNSF-STOCKTON", "BNSF Stockton", "BNSF", "Stockton", "CA", 37.9220, -121.2310),
    _r("BNSF-ALLIANCE", "BNSF Alliance", "BNSF", "Haslet", "TX", 32.9780, -97.3200),
    _r("BNSF-PEARLAND", "BNSF Pearland", "BNSF", "Pearland", "TX", 29.5840, -95.3100),
    _r("BNSF-LPKC", "BNSF Logistics Park Kansas City", "BNSF", "Edgerton", "KS", 38.7700, -94.9800),
    _r("BNSF-MEMPHIS", "BNSF Memphis Intermodal", "BNSF", "Memphis", "TN", 35.0300, -90.0200),
    _r("BNSF-DENVER", "BNSF Denver", "BNSF", "Denver", "CO", 39.7800, -104.9800),
    _r("BNSF-PHOENIX", "BNSF Phoenix", "BNSF", "Glendale", "AZ", 33.5300, -112.1900),
    _r(
        "BNSF-SIG",
        "BNSF Seattle International Gateway",
        "BNSF",
        "Seattle",
        "WA",
        47.5700,
        -122.3300,
    ),
    _r("BNSF-PORTLAND", "BNSF Portland", "BNSF", "Portland", "OR", 45.5650, -122.7500),
    # Union Pacific
    _r("UP-GLOBAL4", "UP Global IV", "UP", "Joliet", "IL", 41.4480, -88.1540),
    _r("UP-GLOBAL2", "UP Global II", "UP", "Northlake", "IL", 41.9100, -87.9100),
    _r(
        "UP-ICTF",
        "UP Intermodal Container Transfer Facility",
        "UP",
        "Carson",
        "CA",
        33.8100,
        -118.2300,
    ),
    _r("UP-ELA", "UP East Los Angeles", "UP", "Commerce", "CA", 34.0200, -118.1600),
    _r("UP-OAKLAND", "UP Oakland", "UP", "Oakland", "CA", 37.8100, -122.3000),
    _r("UP-DIT", "UP Dallas Intermodal Terminal", "UP", "Wilmer", "TX", 32.5700, -96.6900),
    _r("UP-ENGLEWOOD", "UP Englewood", "UP", "Houston", "TX", 29.7800, -95.3100),
    _r("UP-SANTATERESA", "UP Santa Teresa", "UP", "Santa Teresa", "NM", 31.8700, -106.6700),
    _r("UP-LAREDO", "UP Port Laredo", "UP", "Laredo", "TX", 27.6000, -99.4800),
    _r("UP-MARION", "UP Marion", "UP", "Marion", "AR", 35.2200, -90.1900),
    _r("UP-SLC", "UP Salt Lake City", "UP", "Salt Lake City", "UT", 40.7600, -112.0200),
    _r("UP-ARGO", "UP Seattle Argo", "UP", "Seattle", "WA", 47.5600, -122.3200),
    # CSX Transportation
    _r("CSX-BEDFORD", "CSX Bedford Park", "CSXT", "Bedford Park", "IL", 41.7800, -87.8100),
    _r("CSX-NWO", "CSX Northwest Ohio", "CSXT", "North Baltimore", "OH", 41.1800, -83.6400),
    _r("CSX-FAIRBURN", "CSX Fairburn", "CSXT", "Fairburn", "GA", 33.5500, -84.6000),
    _r("CSX-KEARNY", "CSX Kearny", "CSXT", "Kearny", "NJ", 40.7400, -74.1100),
    _r("CSX-JAX", "CSX Jacksonville", "CSXT", "Jacksonville", "FL", 30.3800, -81.7200),
    _r("CSX-CHARLOTTE", "CSX Charlotte", "CSXT", "Charlotte", "NC", 35.2400, -80.8900),
    _r("CSX-WORCESTER", "CSX Worcester", "CSXT", "Worcester", "MA", 42.2600, -71.7900),
    # Norfolk Southern
    _r("NS-47TH", "NS 47th Street", "NS", "Chicago", "IL", 41.8100, -87.6300),
    _r("NS-RICKENBACKER", "NS Rickenbacker", "NS", "Columbus", "OH", 39.8200, -82.9300),
    _r("NS-AUSTELL", "NS Austell", "NS", "Austell", "GA", 33.8000, -84.6200),
    _r("NS-RUTHERFORD", "NS Rutherford", "NS", "Harrisburg", "PA", 40.2700, -76.7700),
    _r("NS-ERAIL", "NS E-Rail", "NS", "Elizabeth", "NJ", 40.6700, -74.1700),
    _r(
        "NS-CHARLOTTE",
        "NS Charlotte Regional Intermodal",
        "NS",
        "Charlotte",
        "NC",
        35.2100,
        -80.9400,
    ),
    _r("NS-PORTLOCK", "NS Portlock", "NS", "Chesapeake", "VA", 36.8000, -76.2900),
    _r("NS-RIMF", "NS Memphis Regional Intermodal", "NS", "Rossville", "TN", 35.0400, -89.5400),
    # Canadian National
    _r("CN-BRAMPTON", "CN Brampton Intermodal", "CN", "Brampton", "ON", 43.7400, -79.7200, "CA"),
    _r("CN-TASCHEREAU", "CN Taschereau", "CN", "Montreal", "QC", 45.5000, -73.7000, "CA"),
    _r("CN-CALGARY", "CN Calgary Logistics Park", "CN", "Calgary", "AB", 51.0900, -113.9500, "CA"),
    _r("CN-THORNTON", "CN Thornton", "CN", "Surrey", "BC", 49.2000, -122.8400, "CA"),
    _r("CN-HARVEY", "CN Harvey", "CN", "Harvey", "IL", 41.6100, -87.6600),
    # Canadian Pacific Kansas City
    _r("CPKC-VAUGHAN", "CPKC Vaughan Intermodal", "CPKC", "Vaughan", "ON", 43.8300, -79.5500, "CA"),
    _r("CPKC-LACHINE", "CPKC Lachine", "CPKC", "Montreal", "QC", 45.4500, -73.6700, "CA"),
    _r("CPKC-CALGARY", "CPKC Calgary", "CPKC", "Calgary", "AB", 51.0200, -114.0000, "CA"),
    _r("CPKC-BENSENVILLE", "CPKC Bensenville", "CPKC", "Bensenville", "IL", 41.9500, -87.9300),
    _r("CPKC-KC", "CPKC Kansas City", "CPKC", "Kansas City", "MO", 39.1200, -94.5500),
    _r(
        "CPKC-MONTERREY",
        "CPKC Monterrey",
        "CPKC",
        "San Nicolas de los Garza",
        "NLE",
        25.7400,
        -100.2600,
        "MX",
    ),
    _r("CPKC-PANTACO", "CPKC Pantaco", "CPKC", "Ciudad de Mexico", "CMX", 19.4800, -99.1700, "MX"),
    _r(
        "CPKC-LZC",
        "CPKC Lazaro Cardenas",
        "CPKC",
        "Lazaro Cardenas",
        "MIC",
        17.9500,
        -102.2000,
        "MX",
    ),
)

RAMPS_BY_CODE = {ramp.code: ramp for ramp in RAMPS}


@dataclass(frozen=True)
class Gateway:
    """A city where two railroads hand over cars (by rubber tire or steel wheel)."""

    name: str
    state: str
    country: str
    latitude: float
    longitude: float
    railroads: frozenset[str]


GATEWAYS: tuple[Gateway, ...] = (
    Gateway(
        "Chicago",
        "IL",
        "US",
        41.8500,
        -87.6500,
        frozenset({"BNSF", "UP", "CSXT", "NS", "CN", "CPKC"}),
    ),
    Gateway(
        "Memphis", "TN", "US", 35.1500, -90.0500, frozenset({"BNSF", "UP", "CSXT", "NS", "CN"})
    ),
    Gateway("St. Louis", "MO", "US", 38.6300, -90.2000, frozenset({"BNSF", "UP", "CSXT", "NS"})),
    Gateway("Kansas City", "MO", "US", 39.1000, -94.5800, frozenset({"BNSF", "UP", "NS", "CPKC"})),
    Gateway(
        "New Orleans", "LA", "US", 29.9500, -90.0700, frozenset({"BNSF", "UP", "CSXT", "NS", "CN"})
    ),
    Gateway("Laredo", "TX", "US", 27.5300, -99.4800, frozenset({"UP", "CPKC"})),
    Gateway("Detroit", "MI", "US", 42.3300, -83.0500, frozenset({"CSXT", "NS", "CN", "CPKC"})),
    Gateway("Buffalo", "NY", "US", 42.8900, -78.8800, frozenset({"CSXT", "NS", "CN", "CPKC"})),
    Gateway("Minneapolis", "MN", "US", 44.9800, -93.2700, frozenset({"BNSF", "UP", "CN", "CPKC"})),
)
