"""Container ports of the world (their table is models/ports.py) and the sea distances
between them.

Ports carry their real UN/LOCODE, position (the container terminal, to about a kilometre) and
IANA time zone. Sea distances follow open water: every port belongs to a sea area reached
through a waypoint offshore, and waypoints are joined where ships actually sail (the Strait of
Malacca, the Suez and Panama canals, the Cape of Good Hope, the Dover Strait, ...). The
distance between two ports is the shortest path port -> waypoint -> ... -> waypoint -> port
over great circles; within one area it is the great circle itself with 10% for the approach.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from functools import cache

from freightdesk.models.ports import port_rows

EARTH_RADIUS_KM = 6371.0088
KM_PER_NM = 1.852


@dataclass(frozen=True)
class Port:
    locode: str
    name: str
    country: str
    latitude: float
    longitude: float
    time_zone: str
    area: str


# Waypoints at sea: each sea area's own (named like the area) and passages between them.
WAYPOINTS: dict[str, tuple[float, float]] = {
    "ECS": (31.0, 124.5),
    "YELLOW": (35.5, 123.0),
    "BOHAI": (38.6, 120.5),
    "TAIWAN_ST": (24.0, 119.5),
    "SCS_N": (21.0, 115.5),
    "KOREA_ST": (34.3, 128.8),
    "OSUMI": (30.8, 131.0),
    "JP_S": (33.5, 137.5),
    "LUZON": (20.5, 121.5),
    "MANILA": (14.3, 120.2),
    "TONKIN": (19.5, 107.5),
    "HAINAN_S": (17.3, 110.5),
    "SCS": (7.0, 106.5),
    "GULF_TH": (11.0, 101.5),
    "SIN": (1.2, 104.0),
    "MALACCA": (3.3, 100.6),
    "MALACCA_N": (6.3, 96.8),
    "JAVA": (-5.5, 110.0),
    "LOMBOK": (-8.9, 115.8),
    "BOB": (13.0, 86.0),
    "LKA": (5.6, 80.5),
    "ARB": (17.0, 66.5),
    "RAS_AL_HADD": (22.8, 60.2),
    "GULF": (26.4, 56.6),
    "SOCOTRA": (13.0, 53.0),
    "SOMALIA": (5.0, 52.0),
    "ADEN": (12.4, 46.5),
    "BAB": (12.6, 43.4),
    "RED": (21.0, 38.0),
    "SUEZ_S": (29.8, 32.55),
    "SUEZ_N": (31.3, 32.35),
    "EMED": (33.6, 31.0),
    "CRETE": (35.0, 24.0),
    "AEGEAN": (37.6, 25.0),
    "DARDANELLES": (40.1, 26.3),
    "MARMARA": (40.8, 28.5),
    "BOSPHORUS": (41.25, 29.1),
    "BSEA": (43.5, 30.5),
    "CMED": (35.7, 16.0),
    "OTRANTO": (40.0, 19.0),
    "ADRIA": (42.5, 16.2),
    "TYRR": (39.6, 12.8),
    "SICILY_CH": (37.4, 11.5),
    "WMED": (38.6, 4.5),
    "GIB": (35.95, -5.6),
    "IBER": (37.5, -10.5),
    "BISCAY": (45.0, -6.0),
    "USHANT": (48.6, -6.0),
    "DOVER": (50.9, 1.4),
    "NSEA": (53.6, 4.2),
    "NSEA_N": (57.0, 6.8),
    "SKAGEN": (57.9, 10.8),
    "ORESUND": (55.6, 12.8),
    "BALTIC": (55.6, 17.0),
    "BALTIC_N": (58.5, 21.0),
    "CELTIC": (51.0, -7.5),
    "IRISH": (53.4, -5.0),
    "ICELAND": (63.5, -23.0),
    "CANARY": (28.0, -15.8),
    "DAKAR": (14.5, -18.0),
    "PALMAS": (4.0, -8.0),
    "GUINEA": (3.5, 3.0),
    "ANGOLA": (-9.0, 11.0),
    "CAPE": (-35.3, 19.0),
    "DURBAN": (-30.5, 32.5),
    "MOZAMBIQUE": (-18.0, 40.0),
    "EAFR": (-5.0, 41.0),
    "MASC": (-20.5, 56.0),
    "USEC": (38.0, -72.5),
    "USEC_S": (31.5, -79.5),
    "CABOT": (46.5, -60.0),
    "GASPE": (49.2, -64.5),
    "FLSTR": (25.5, -79.7),
    "KEY_WEST": (24.3, -82.0),
    "GOM": (26.0, -90.0),
    "YUCATAN": (21.5, -86.0),
    "WINDWARD": (20.0, -73.8),
    "CARIB_E": (19.5, -65.5),
    "CARIB": (15.0, -72.0),
    "CARIB_W": (11.5, -78.5),
    "PAN_ATL": (9.5, -79.9),
    "PAN_PAC": (8.7, -79.5),
    "TRINIDAD": (11.5, -60.5),
    "GUYANA": (8.0, -56.0),
    "AMAZON": (1.0, -47.5),
    "BRNE": (-7.0, -33.8),
    "ECSA": (-25.5, -44.0),
    "PLATE": (-36.0, -54.0),
    "HORN": (-57.0, -67.0),
    "CHILE": (-30.0, -73.0),
    "PERU": (-12.5, -78.5),
    "ECUADOR": (-1.5, -82.0),
    "CAPAC": (12.0, -90.0),
    "MXPAC": (17.0, -103.0),
    "USWC": (33.5, -119.5),
    "PNW": (48.4, -125.5),
    "GOA": (57.5, -148.0),
    "HAWAII": (21.0, -158.5),
    "TAHITI": (-17.4, -149.8),
    "FIJI": (-18.5, 178.5),
    "NOUMEA": (-22.6, 166.3),
    "NZ_N": (-35.8, 175.5),
    "COOK": (-41.6, 174.8),
    "TASMAN": (-34.5, 152.5),
    "BASS": (-39.5, 146.5),
    "AUS_S": (-36.3, 136.0),
    "LEEUWIN": (-35.3, 114.5),
    "ARAFURA": (-10.0, 132.0),
    "TORRES": (-10.5, 142.0),
    "CORAL": (-11.5, 152.0),
    "PHIL_SEA": (12.0, 130.0),
}

# Open-water links between waypoints (both directions); canals add their passage time.
_LINKS = """
ECS YELLOW | YELLOW BOHAI | ECS TAIWAN_ST | TAIWAN_ST SCS_N | ECS KOREA_ST | ECS OSUMI
KOREA_ST OSUMI | OSUMI JP_S | KOREA_ST YELLOW | TAIWAN_ST LUZON | SCS_N LUZON | LUZON JP_S
SCS_N MANILA | MANILA SCS | SCS_N HAINAN_S | HAINAN_S TONKIN | HAINAN_S SCS | SCS_N SCS
SCS GULF_TH | SCS SIN | SIN MALACCA | MALACCA MALACCA_N | MALACCA_N BOB | MALACCA_N LKA
SIN JAVA | JAVA LOMBOK | BOB LKA | LKA ARB | LKA SOCOTRA | ARB RAS_AL_HADD
RAS_AL_HADD GULF | ARB SOCOTRA | SOCOTRA ADEN | ADEN BAB | BAB RED | RED SUEZ_S
SUEZ_S SUEZ_N | SUEZ_N EMED | EMED CRETE | CRETE AEGEAN | CRETE CMED | AEGEAN DARDANELLES
DARDANELLES MARMARA | MARMARA BOSPHORUS | BOSPHORUS BSEA | CMED OTRANTO | OTRANTO ADRIA
CMED TYRR | CMED SICILY_CH | SICILY_CH TYRR | SICILY_CH WMED | TYRR WMED | WMED GIB
GIB IBER | IBER BISCAY | BISCAY USHANT | IBER USHANT | USHANT DOVER | DOVER NSEA
NSEA NSEA_N | NSEA_N SKAGEN | SKAGEN ORESUND | ORESUND BALTIC | BALTIC BALTIC_N
USHANT CELTIC | CELTIC IRISH | NSEA_N ICELAND | CELTIC ICELAND | IBER CANARY | CANARY DAKAR
DAKAR PALMAS | PALMAS GUINEA | GUINEA ANGOLA | ANGOLA CAPE | CAPE DURBAN | DURBAN MOZAMBIQUE
MOZAMBIQUE EAFR | EAFR SOMALIA | SOMALIA ADEN | SOMALIA ARB | SOMALIA LKA | DURBAN MASC
MASC MOZAMBIQUE | MASC LKA | MASC SIN | CAPE LKA | CAPE MASC | CAPE ECSA | CAPE PLATE
USHANT USEC | USHANT CABOT | CELTIC CABOT | ICELAND CABOT | CABOT GASPE | CABOT USEC
USEC USEC_S | USEC_S FLSTR | FLSTR KEY_WEST | KEY_WEST GOM | KEY_WEST YUCATAN | GOM YUCATAN
YUCATAN CARIB_W | FLSTR WINDWARD | WINDWARD CARIB | USEC CARIB_E | CARIB_E CARIB
CARIB CARIB_W | CARIB_W PAN_ATL | PAN_ATL PAN_PAC | CARIB TRINIDAD | CARIB_E TRINIDAD
TRINIDAD GUYANA | GUYANA AMAZON | AMAZON BRNE | BRNE ECSA | ECSA PLATE | PLATE HORN
HORN CHILE | CHILE PERU | PERU ECUADOR | ECUADOR PAN_PAC | PAN_PAC CAPAC | CAPAC MXPAC
MXPAC USWC | USWC PNW | PNW GOA | GOA JP_S | PNW JP_S | USWC JP_S | USWC LUZON | USWC HAWAII
HAWAII JP_S | HAWAII LUZON | HAWAII FIJI | HAWAII TAHITI | TAHITI FIJI | TAHITI USWC
FIJI NOUMEA | FIJI NZ_N | NOUMEA TASMAN | NZ_N TASMAN | NZ_N COOK | COOK TASMAN | COOK BASS
TASMAN BASS | BASS AUS_S | AUS_S LEEUWIN | LEEUWIN LOMBOK | LEEUWIN MASC | TASMAN CORAL
CORAL TORRES | TORRES ARAFURA | ARAFURA LOMBOK | CORAL PHIL_SEA | PHIL_SEA LUZON
PHIL_SEA JP_S | PHIL_SEA MANILA | CANARY BRNE | DAKAR BRNE | GUINEA BRNE | CARIB_E BRNE
CARIB_E CANARY | USEC_S CARIB_E | CHILE TAHITI
"""

# Extra hours a passage takes beyond sailing (waiting, pilotage, the lock transit).
CANAL_HOURS: dict[frozenset[str], float] = {
    frozenset({"SUEZ_S", "SUEZ_N"}): 14.0,
    frozenset({"PAN_ATL", "PAN_PAC"}): 24.0,
}


def gc_km(a: tuple[float, float], b: tuple[float, float]) -> float:
    lat1, lon1 = map(math.radians, a)
    lat2, lon2 = map(math.radians, b)
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))


def _parse_ports() -> dict[str, Port]:
    ports: dict[str, Port] = {}
    for row in port_rows():
        if row.sea_area not in WAYPOINTS:
            raise ValueError(f"port data: {row.locode} in unknown area {row.sea_area}")
        ports[row.locode] = Port(
            row.locode,
            row.name,
            row.country,
            row.latitude,
            row.longitude,
            row.time_zone,
            row.sea_area,
        )
    return ports


PORTS: dict[str, Port] = _parse_ports()


def _links() -> dict[str, dict[str, float]]:
    graph: dict[str, dict[str, float]] = {name: {} for name in WAYPOINTS}
    for line in _LINKS.strip().splitlines():
        for pair in line.split("|"):
            a, b = pair.split()
            distance = gc_km(WAYPOINTS[a], WAYPOINTS[b])
            graph[a][b] = graph[b][a] = distance
    return graph


@cache
def _sea_paths(origin: str) -> tuple[dict[str, float], dict[str, str]]:
    """Dijkstra from one waypoint: distance and predecessor of every other waypoint."""
    graph = _graph()
    distance = {origin: 0.0}
    previous: dict[str, str] = {}
    queue = [(0.0, origin)]
    while queue:
        d, node = heapq.heappop(queue)
        if d > distance.get(node, math.inf):
            continue
        for other, step in graph[node].items():
            candidate = d + step
            if candidate < distance.get(other, math.inf):
                distance[other] = candidate
                previous[other] = node
                heapq.heappush(queue, (candidate, other))
    return distance, previous


@cache
def _graph() -> dict[str, dict[str, float]]:
    return _links()


@dataclass(frozen=True)
class SeaLeg:
    km: float
    canal_hours: float

    @property
    def nautical_miles(self) -> float:
        return self.km / KM_PER_NM


@cache
def sea_leg(origin: str, destination: str) -> SeaLeg:
    """The sea distance between two ports and the canal time on the way."""
    a, b = PORTS[origin], PORTS[destination]
    here, there = (a.latitude, a.longitude), (b.latitude, b.longitude)
    if a.area == b.area:
        return SeaLeg(gc_km(here, there) * 1.1, 0.0)
    distances, previous = _sea_paths(a.area)
    if b.area not in distances:
        raise ValueError(f"no sea route from {origin} to {destination}")
    km = gc_km(here, WAYPOINTS[a.area]) + distances[b.area] + gc_km(WAYPOINTS[b.area], there)
    canal = 0.0
    node = b.area
    while node != a.area:
        before = previous[node]
        canal += CANAL_HOURS.get(frozenset({before, node}), 0.0)
        node = before
    return SeaLeg(km, canal)
