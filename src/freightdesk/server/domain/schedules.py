"""Ocean carriers' weekly services and the point-to-point routes they offer.

The network is fixed data, built once: each service is a loop of port calls run by one
carrier with enough vessels for a weekly departure. Trade lanes (Asia - North Europe, the
transpacific, ...) are written out once; every carrier on a lane runs its own variant of it,
calling at the lane's hubs and most of its other ports, on its own weekday. Sailing times come
from sea distances (`ports.sea_leg`) at the service's speed, plus canal passages and a port
stay at every call. Voyage `n` of a service leaves its first port `n` weeks after the service's
first sailing; the vessel doing it comes back round as voyage `n + weeks of the loop`.

A route from one port to another is a sailing of one carrier, either on one service or with
transshipments between that carrier's services at a common port (at least 24 hours between
arriving at the hub and the connecting departure). Since every service sails weekly, a routing
takes the same time every week; the routings of a port pair are worked out once and then laid
out week by week over the published horizon: departures from two weeks ago to a year ahead.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache, lru_cache

from freightdesk.models.common import TransportationMode
from freightdesk.models.schedules import (
    OceanCarrier,
)
from freightdesk.server.domain.carrier_directory import carriers_for
from freightdesk.server.domain.ports import sea_leg

WEEK_HOURS = 168.0
EPOCH = datetime(2024, 1, 1, tzinfo=UTC)  # a Monday; voyage 0 of every service is that week
MIN_CONNECTION_HOURS = 24.0
MAINLINE_KNOTS = 16.5
FEEDER_KNOTS = 14.0
PORT_STAY_HOURS = 20.0

# Carriers beyond the demo's own ocean carriers, so that every trade has several.
_MORE_CARRIERS: tuple[tuple[str, str], ...] = (
    ("PCLN", "Pacific Crest Lines"),
    ("SCCL", "Southern Cross Container Line"),
    ("MNSX", "Monsoon Express Lines"),
)


@cache
def carrier_names() -> dict[str, str]:
    names = {c.scac: c.name for c in carriers_for(TransportationMode.OCEAN)}
    names.update(dict(_MORE_CARRIERS))
    return names


# Carriers that run every trade lane (as the largest carriers do), so any two ports have a
# carrier in common; the others run the lanes that name them.
GLOBAL_CARRIERS = ("HOCS", "AZMS", "MNSX")

# Ports every variant of a lane keeps (transshipment hubs and gateway ports).
HUBS = frozenset((
    "SGSIN", "CNSHA", "CNNGB", "CNYTN", "HKHKG", "KRPUS", "MYTPP", "MYPKG", "LKCMB", "AEJEA",
    "SAJED", "EGPSD", "ESALG", "MAPTM", "GRPIR", "MTMAR", "NLRTM", "BEANR", "DEHAM", "FRLEH",
    "USNYC", "USSAV", "USHOU", "USMIA", "USLAX", "PABLB", "PAMIT", "JMKIN", "COCTG", "BRSSZ",
    "ZADUR", "AUSYD", "NZAKL",
))  # fmt: skip


@dataclass(frozen=True)
class Lane:
    code: str
    name: str
    ports: tuple[str, ...]
    carriers: tuple[str, ...]
    knots: float = MAINLINE_KNOTS


def _lane(code: str, name: str, ports: str, carriers: str, knots: float = MAINLINE_KNOTS) -> Lane:
    return Lane(code, name, tuple(ports.split()), tuple(carriers.split()), knots)


LANES: tuple[Lane, ...] = (
    _lane("AEU", "Asia - North Europe",
          "KRPUS CNTAO CNSHA CNNGB CNXMN CNYTN SGSIN NLRTM DEHAM GBFXT BEANR FRLEH ESALG SGSIN",
          "HOCS AZMS NVKL PCLN"),
    _lane("AEN", "North China - North Europe",
          "CNTXG CNDLC CNTAO KRPUS CNSHA CNNGB HKHKG MYTPP NLRTM DEWVN GBLGP DEHAM BEANR FRDKK "
          "MYPKG SGSIN",
          "CRVN NVKL MNSX"),
    _lane("AMD", "Asia - Mediterranean",
          "CNSHA CNNGB CNSHK HKHKG SGSIN MYPKG GRPIR ITGOA ITSPE FRFOS ESBCN ESVLC MTMAR SGSIN",
          "AZMS CRVN HOCS"),
    _lane("AAD", "Asia - Adriatic and Levant",
          "CNSHA CNNGB CNYTN SGSIN EGPSD ILHFA TRMER ITTRS SIKOP HRRJK ITVCE GRPIR SGSIN",
          "CRVN MNSX"),
    _lane("TPS", "Transpacific South",
          "HKHKG CNYTN CNXMN CNSHA CNNGB KRPUS USLAX USLGB USOAK JPTYO",
          "PCLN GSMT AZMS HOCS"),
    _lane("TPN", "Transpacific North",
          "CNSHA CNNGB KRPUS CAPRR CAVAN USSEA USTIW JPTYO JPYOK", "PCLN NVKL GSMT"),
    _lane("TPJ", "Japan - US West Coast",
          "JPTYO JPYOK JPSMZ JPNGO JPOSA JPUKB USLAX USOAK", "PCLN HOCS"),
    _lane("AEC", "Asia - US East Coast via Panama",
          "CNYTN CNNGB CNSHA KRPUS PABLB USSAV USCHS USNYC USORF USJAX PAMIT",
          "GSMT PCLN AZMS"),
    _lane("AES", "Asia - US East Coast via Suez",
          "VNCMT SGSIN LKCMB USNYC USBAL USORF USSAV USCHS ESALG", "HOCS CRVN"),
    _lane("TAN", "North Europe - US East Coast",
          "NLRTM DEBRV BEANR GBLGP CAHAL USNYC USBAL USPHL USORF USCHS USSAV USJAX",
          "NVKL HOCS GSMT AZMS"),
    _lane("TAC", "North Europe - Canada and New England",
          "DEHAM NLRTM BEANR GBLIV CAMTR CASJB USBOS CAHAL", "NVKL HOCS AZMS"),
    _lane("TAG", "North Europe - US Gulf and Mexico",
          "DEHAM NLRTM BEANR FRLEH USMIA MXVER MXATM USHOU USMSY USMOB", "GSMT AZMS HOCS"),
    _lane("MUS", "Mediterranean - US East Coast",
          "ITGOA ITSPE ITLIV ITNAP FRFOS ESBCN ESVLC PTSIE USNYC USBAL USORF USCHS USSAV USJAX "
          "USPEF USMIA ESALG",
          "CRVN AZMS"),
    _lane("MGF", "Mediterranean - US Gulf",
          "TRMER GRPIR MTMAR ITGIT ESVLC ESALG USHOU USMSY USMOB USMIA", "CRVN GSMT"),
    _lane("EUS", "North Europe - South America East Coast",
          "NLRTM DEHAM BEANR FRLEH ESBIO PTLIS BRSUA BRSSA BRRIO BRSSZ BRPNG BRNVT BRITJ BRRIG "
          "UYMVD ARBUE BRSSZ",
          "HOCS NVKL SCCL"),
    _lane("MSA", "Mediterranean - South America East Coast",
          "ITGOA ITSPE FRFOS ESBCN ESVLC ESALG BRSSZ BRPNG BRITJ ARBUE UYMVD BRRIO", "CRVN AZMS"),
    _lane("ASA", "Asia - South America East Coast",
          "CNTAO CNSHA CNNGB CNSHK HKHKG SGSIN BRRIO BRSSZ BRPNG BRNVT BRITJ UYMVD ARBUE BRRIG "
          "ZADUR SGSIN",
          "SCCL PCLN MNSX"),
    _lane("AWS", "Asia - South America West Coast",
          "HKHKG CNSHK CNNGB CNSHA KRPUS MXLZC MXZLO COBUN ECPSJ PECLL CLIQQ CLSAI CLVAP CLSVE "
          "PEPAI ECGYE MXZLO",
          "SCCL PCLN GSMT"),
    _lane("AMG", "Asia - Middle East Gulf",
          "CNTAO CNSHA CNNGB TWKHH CNYTN SGSIN MYPKG OMSOH AEJEA AEKHL QAHMD BHKBS SADMM KWSWK "
          "IQUQR AEJEA",
          "MNSX AZMS HOCS"),
    _lane("AIN", "Asia - India and Pakistan",
          "CNSHA CNNGB CNSHK SGSIN MYPKG LKCMB INCOK INNSA INPAV INMUN PKKHI PKBQM LKCMB",
          "MNSX CRVN HOCS"),
    _lane("ARS", "Asia - Red Sea", "CNSHA CNNGB CNYTN SGSIN DJJIB SAJED JOAQJ EGSOK SAJED",
          "MNSX AZMS CRVN"),
    _lane("AEA", "Asia - East Africa",
          "CNSHA CNNGB CNNSA CNYTN SGSIN KEMBA TZDAR MGTMM MUPLU", "MNSX SCCL AZMS"),
    _lane("ASF", "Asia - South Africa",
          "CNSHA CNNGB CNYTN SGSIN MUPLU MZMPM ZADUR ZAZBA ZAPLZ ZACPT ZADUR", "SCCL MNSX AZMS"),
    _lane("AWA", "Asia - West Africa",
          "CNSHA CNNGB CNNSA CNYTN SGSIN TGLFW NGTIN NGAPP GHTEM CIABJ CGPNR AOLAD SGSIN",
          "SCCL CRVN MNSX"),
    _lane("EWA", "North Europe - West Africa",
          "DEHAM NLRTM BEANR FRDKK MAPTM SNDKR CIABJ GHTEM TGLFW BJCOO NGAPP CMDLA CGPNR AOLAD "
          "NAWVB MAPTM",
          "HOCS NVKL CRVN AZMS"),
    _lane("EME", "North Europe - Middle East and India",
          "NLRTM DEHAM BEANR GBFXT FRLEH SAJED OMSLL PKKHI INMUN INNSA AEJEA SAJED EGPSD",
          "HOCS AZMS"),
    _lane("EAF", "North Europe - East Africa",
          "NLRTM BEANR DEHAM FRLEH DJJIB KEMBA TZDAR MUPLU MGTMM DJJIB", "NVKL MNSX HOCS"),
    _lane("LEV", "East Mediterranean - Black Sea",
          "GRPIR EGALY ILASH ILHFA LBBEY CYLMS TRMER TRIZM TRIST BGVAR ROCND TRIST GRSKG",
          "CRVN AZMS HOCS MNSX", FEEDER_KNOTS),
    _lane("WMD", "Western Mediterranean - North Africa",
          "MAPTM MACAS ESALG ESVLC DZALG TNRDS MTMAR ITGIT ITNAP ITLIV ITGOA FRFOS ESBCN",
          "CRVN AZMS HOCS", FEEDER_KNOTS),
    _lane("NBX", "North Sea - Baltic",
          "NLRTM DEBRV DEHAM DKAAR SEGOT NOOSL DKCPH PLGDY PLGDN LTKLJ LVRIX FIKTK FIHEL EETLL "
          "SESTO",
          "NVKL HOCS AZMS", FEEDER_KNOTS),
    _lane("UKI", "North Europe - Ireland and Iceland",
          "NLRTM BEANR GBSOU IEDUB GBLIV ISREY DEHAM", "NVKL HOCS AZMS", FEEDER_KNOTS),
    _lane("CRE", "US - Eastern Caribbean",
          "USJAX USPEF BSFPO PRSJU DOCAU DOHAI BBBGI TTPOS GYGEO SRPBM CWWIL VEPBL JMKIN",
          "GSMT CRVN HOCS", FEEDER_KNOTS),
    _lane("CRW", "US - Western Caribbean and Central America",
          "USHOU USMSY USMIA JMKIN COCTG COBAQ PAMIT CRLIO HNPCR GTSTC",
          "GSMT AZMS SCCL", FEEDER_KNOTS),
    _lane("WCA", "US West Coast - Mexico, Central and South America",
          "USLAX USOAK MXESE MXZLO MXLZC GTPRQ SVAQJ NICIO PABLB COBUN ECGYE PEPAI PECLL",
          "GSMT SCCL PCLN"),
    _lane("ECA", "North Europe - Caribbean and South America West Coast",
          "NLRTM DEHAM BEANR FRLEH COCTG PAMIT PABLB ECGYE ECPSJ PECLL CLSAI CLVAP PABLB PAMIT "
          "CWWIL",
          "HOCS SCCL GSMT"),
    _lane("OCE", "Asia - Australia",
          "CNSHA CNNGB CNYTN HKHKG AUBNE AUSYD AUMEL AUADL SGSIN", "SCCL PCLN AZMS"),
    _lane("ONZ", "Asia - New Zealand", "KRPUS CNSHA CNNGB HKHKG NZAKL NZTRG NZLYT",
          "SCCL PCLN AZMS"),
    _lane("AFA", "Southeast Asia - Australia",
          "SGSIN IDTPP AUFRE AUADL AUMEL AUSYD AUBNE PGPOM", "SCCL MNSX PCLN"),
    _lane("SPX", "Australia - South Pacific", "AUBNE AUSYD NZAKL FJSUV PFPPT NCNOU", "SCCL PCLN",
          FEEDER_KNOTS),
    _lane("HAW", "US West Coast - Hawaii", "USLAX USOAK USHNL", "GSMT PCLN", FEEDER_KNOTS),
    _lane("ALK", "Pacific Northwest - Alaska", "USTIW USANC", "GSMT PCLN", FEEDER_KNOTS),
    _lane("IAN", "Intra-Asia North",
          "JPTYO JPYOK JPNGO JPOSA JPUKB JPHKT KRPUS KRKAN KRINC CNTXG CNDLC CNTAO CNLYG CNSHA",
          "PCLN MNSX SCCL", FEEDER_KNOTS),
    _lane("IAS", "Intra-Asia South",
          "CNSHA CNFOC TWKEL TWKHH CNXMN HKHKG CNSHK CNNSA VNHPH PHMNL VNCMT VNSGN THLCH THBKK "
          "KHKOS SGSIN",
          "PCLN MNSX SCCL", FEEDER_KNOTS),
    _lane("BOB", "Straits - Bay of Bengal",
          "SGSIN MYPKG MYPEN MMRGN BDCGP INCCU INVTZ INMAA LKCMB MYTPP",
          "MNSX PCLN SCCL", FEEDER_KNOTS),
    _lane("JVA", "Singapore - Java", "SGSIN IDTPP IDSUB MYTPP", "MNSX PCLN SCCL", FEEDER_KNOTS),
    _lane("SNA", "South America East Coast - North America",
          "BRSSZ BRRIO BRVIX BRSSA BRSUA BRPEC BRMAO USSAV USNYC USPHL", "GSMT SCCL HOCS"),
)  # fmt: skip


# --- the network ---------------------------------------------------------------------------

_WORDS = (
    "AURORA", "BOREAS", "CASSIOPEIA", "DELPHINE", "ELARA", "FORTUNA", "GALATEA", "HELIOS",
    "IONA", "JUNO", "KESTREL", "LYRA", "MERIDIAN", "NEREID", "ORION", "PERSEUS", "QUASAR",
    "RIGEL", "SIRIUS", "TRITON", "UMBRA", "VEGA", "WINDWARD", "ZEPHYR", "ALTAIR", "BELLATRIX",
    "CAPELLA", "DENEB", "ELECTRA", "FOMALHAUT", "GEMMA", "HYDRA", "ISOLDE", "JASPER", "KALLISTO",
    "LEDA", "MIRA", "NOVA", "OCEANA", "PHOENIX", "REGULUS", "SPICA", "THALIA", "URSA", "VIRGO",
    "ATLAS", "BOREALIS", "CORONA", "DRACO", "EOS", "FALCON", "GRACE", "HORIZON", "INFINITY",
    "JUBILEE", "LIBERTY", "MONARCH", "NAVIGATOR", "ODYSSEY", "PIONEER", "RESOLVE",
)  # fmt: skip
_PREFIX = {
    "HOCS": "HANSA",
    "AZMS": "AZURE",
    "CRVN": "CORVINA",
    "GSMT": "GULFSTREAM",
    "NVKL": "NORDVIK",
    "PCLN": "PACIFIC",
    "SCCL": "SOUTHERN",
    "MNSX": "MONSOON",
}


def _digest(*parts: object) -> int:
    text = "/".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


@dataclass(frozen=True)
class Service:
    carrier: str
    code: str
    name: str
    ports: tuple[str, ...]
    arrive: tuple[float, ...]  # hours after the voyage's start, per call
    depart: tuple[float, ...]
    cycle_hours: float  # a whole number of weeks
    start_hours: float  # voyage 0 arrives at the first port this long after EPOCH
    vessels: tuple[str, ...]

    def hours_to(self, origin_index: int, destination_index: int) -> float:
        """From leaving one call to arriving at a later one (going round the loop if needed)."""
        later = self.arrive[destination_index] - self.depart[origin_index]
        return later if destination_index > origin_index else later + self.cycle_hours


def _variant(lane: Lane, carrier: str, first: bool) -> tuple[str, ...]:
    """The lane's ports as this carrier calls them: the lane's first carrier and the global
    carriers call at all of them, the others skip about one port in six that is not a hub."""
    full = first or carrier in GLOBAL_CARRIERS
    ports = [
        p
        for p in lane.ports
        if full or p in HUBS or p == lane.ports[0] or _digest(lane.code, carrier, p) % 6
    ]
    tidy: list[str] = []
    for port in ports:
        if not tidy or tidy[-1] != port:
            tidy.append(port)
    while len(tidy) > 2 and tidy[-1] == tidy[0]:
        tidy.pop()
    return tuple(tidy)


def _vessel_name(carrier: str, start: int, used: set[str]) -> str:
    """A name of the carrier's fleet not yet given; sister ships get II, III, ..."""
    prefix = _PREFIX.get(carrier, carrier)
    for attempt in range(len(_WORDS) * 10):
        word = _WORDS[(start + attempt) % len(_WORDS)]
        generation = attempt // len(_WORDS)
        name = f"{prefix} {word}" + (f" {_ROMAN[generation]}" if generation else "")
        if name not in used:
            return name
    raise ValueError(f"{carrier} has more vessels than names")


_ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X")


def _build_service(lane: Lane, carrier: str, number: int, used: set[str]) -> Service:
    ports = _variant(lane, carrier, number == 1)
    arrive: list[float] = []
    depart: list[float] = []
    clock = 0.0
    for index, port in enumerate(ports):
        if index:
            leg = sea_leg(ports[index - 1], port)
            # Schedules are published on the hour.
            clock += round(leg.nautical_miles / lane.knots + leg.canal_hours)
        arrive.append(clock)
        clock += PORT_STAY_HOURS
        depart.append(clock)
    back = sea_leg(ports[-1], ports[0])
    round_trip = clock + back.nautical_miles / lane.knots + back.canal_hours
    weeks = max(1, math.ceil(round_trip / WEEK_HOURS))
    seed = _digest(lane.code, carrier)
    vessels: list[str] = []
    for k in range(weeks):
        name = _vessel_name(carrier, seed + k * 7, used)
        used.add(name)
        vessels.append(name)
    return Service(
        carrier=carrier,
        code=f"{lane.code}{number}",
        name=lane.name,
        ports=ports,
        arrive=tuple(arrive),
        depart=tuple(depart),
        cycle_hours=weeks * WEEK_HOURS,
        start_hours=float(seed % 7 * 24 + (seed // 7) % 12 * 2),
        vessels=tuple(vessels),
    )


@dataclass
class Network:
    services: list[Service]
    by_carrier: dict[str, list[Service]]
    # carrier -> port -> [(service, call index)]
    calls: dict[str, dict[str, list[tuple[Service, int]]]] = field(default_factory=dict)


@cache
def network() -> Network:
    services: list[Service] = []
    used: dict[str, set[str]] = {}
    for lane in LANES:
        operators = lane.carriers + tuple(c for c in GLOBAL_CARRIERS if c not in lane.carriers)
        for number, carrier in enumerate(operators, start=1):
            services.append(_build_service(lane, carrier, number, used.setdefault(carrier, set())))
    by_carrier: dict[str, list[Service]] = {}
    calls: dict[str, dict[str, list[tuple[Service, int]]]] = {}
    for service in services:
        by_carrier.setdefault(service.carrier, []).append(service)
        for index, port in enumerate(service.ports):
            calls.setdefault(service.carrier, {}).setdefault(port, []).append((service, index))
    return Network(services, by_carrier, calls)


def live_carriers() -> list[OceanCarrier]:
    names = carrier_names()
    found = []
    for scac, services in network().by_carrier.items():
        ports = {port for service in services for port in service.ports}
        found.append(
            OceanCarrier(
                carrier_code=scac,
                carrier_name=names[scac],
                service_count=len(services),
                port_count=len(ports),
            )
        )
    return sorted(found, key=lambda c: c.carrier_name)


def served_ports() -> frozenset[str]:
    return frozenset(port for service in network().services for port in service.ports)


# --- routings between two ports ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LegPlan:
    service: Service
    origin_index: int
    destination_index: int
    voyage_offset: int  # voyages after the first leg's voyage
    depart_hours: float  # after EPOCH, for first-leg voyage 0
    arrive_hours: float


@dataclass(frozen=True)
class Routing:
    carrier: str
    legs: tuple[LegPlan, ...]

    @property
    def depart_hours(self) -> float:
        return self.legs[0].depart_hours

    @property
    def arrive_hours(self) -> float:
        return self.legs[-1].arrive_hours

    @property
    def transshipments(self) -> int:
        return len(self.legs) - 1


def _first_leg(service: Service, origin: int, destination: int) -> LegPlan:
    depart = service.start_hours + service.depart[origin]
    return LegPlan(
        service, origin, destination, 0, depart, depart + service.hours_to(origin, destination)
    )


def _next_sailing(arrived: float, service: Service, call: int) -> tuple[int, float]:
    """The first voyage of `service` leaving its call `call` that cargo arriving at `arrived`
    can make, counted from the first leg's voyage 0, and when it leaves."""
    first_departure = service.start_hours + service.depart[call]
    voyage = math.ceil((arrived + MIN_CONNECTION_HOURS - first_departure) / WEEK_HOURS)
    return voyage, first_departure + voyage * WEEK_HOURS


MAX_SEARCH_TRANSSHIPMENTS = 4


def _length(routing: Routing) -> float:
    return routing.arrive_hours - routing.depart_hours


def _carrier_routings(
    calls: dict[str, list[tuple[Service, int]]],
    origin: str,
    destination: str,
    bound: list[float],
) -> list[Routing]:
    """For each first sailing from the origin, the routings to the destination that no other
    beats on both time and transshipments, found layer by layer (one more transshipment per
    layer). A port reached no earlier than before is not explored again, nor a path that
    cannot reach the destination (at full speed) before the best arrival so far or within
    the transit `bound[0]` that the answer keeps at most (lowered as faster routings appear).
    """
    found: list[Routing] = []
    # Fastest transit to each port from any first sailing: a path a week or more slower than
    # that cannot catch up, since from there on it waits at most a week less.
    quickest: dict[str, float] = {}
    for first, index in calls.get(origin, []):
        start = first.start_hours + first.depart[index]
        earliest: dict[str, float] = {}

        layer: list[tuple[LegPlan, ...]] = []
        for target in range(len(first.ports)):
            port = first.ports[target]
            if target == index or port == origin:
                continue
            leg = _first_leg(first, index, target)
            if leg.arrive_hours < earliest.get(port, math.inf):
                earliest[port] = leg.arrive_hours
                layer.append((leg,))
        for depth in range(MAX_SEARCH_TRANSSHIPMENTS + 1):
            following: list[tuple[LegPlan, ...]] = []
            for path in layer:
                last = path[-1]
                port = last.service.ports[last.destination_index]
                if last.arrive_hours > earliest[port]:
                    continue  # something faster reached this port since
                if port == destination:
                    routing = Routing(first.carrier, path)
                    found.append(routing)
                    bound[0] = min(bound[0], _keep_within(_length(routing)))
                    continue
                if depth == MAX_SEARCH_TRANSSHIPMENTS or not _promising(
                    last.arrive_hours, port, destination, start, earliest, bound
                ):
                    continue
                visited = {origin} | {leg.service.ports[leg.destination_index] for leg in path}
                for service, at in calls.get(port, []):
                    if any(leg.service is service for leg in path):
                        continue
                    voyage, depart = _next_sailing(last.arrive_hours, service, at)
                    for target, reached in enumerate(service.ports):
                        if target == at or reached in visited:
                            continue
                        arrive = depart + service.hours_to(at, target)
                        transit = arrive - start
                        if (
                            arrive < earliest.get(reached, math.inf)
                            and transit < quickest.get(reached, math.inf) + WEEK_HOURS
                            and _promising(arrive, reached, destination, start, earliest, bound)
                        ):
                            earliest[reached] = arrive
                            quickest[reached] = min(transit, quickest.get(reached, math.inf))
                            leg = LegPlan(service, at, target, voyage, depart, arrive)
                            following.append((*path, leg))
            layer = following
    return found


def _promising(
    arrive: float,
    port: str,
    destination: str,
    start: float,
    earliest: dict[str, float],
    bound: list[float],
) -> bool:
    at_best = arrive + _hours_left(port, destination)
    return at_best < earliest.get(destination, math.inf) and at_best - start < bound[0]


def _keep_within(fastest: float) -> float:
    """The longest transit the answer keeps when the market's fastest takes `fastest`."""
    return fastest * 1.6 + 7 * 24


@lru_cache(maxsize=65536)
def _hours_left(port: str, destination: str) -> float:
    """No ship gets there sooner than sailing straight on at mainline speed."""
    if port == destination:
        return 0.0
    return sea_leg(port, destination).nautical_miles / MAINLINE_KNOTS


def _pareto(options: list[Routing]) -> list[Routing]:
    """The fastest routing for each number of transshipments that beats all with fewer."""
    options.sort(key=lambda r: (r.transshipments, _length(r)))
    kept: list[Routing] = []
    for routing in options:
        if not kept or _length(routing) < min(_length(k) for k in kept):
            kept.append(routing)
    return kept


@lru_cache(maxsize=8192)
def routings(origin: str, destination: str) -> tuple[Routing, ...]:
    """Each carrier's sensible routings between two ports (the same every week).

    Per carrier: every direct service, and the routings with transshipments that are faster
    than anything with fewer; then routings far slower than the market's fastest are dropped.
    """
    chosen: list[Routing] = []
    bound = [math.inf]
    for calls in network().calls.values():
        if origin not in calls or destination not in calls:
            continue
        options = _carrier_routings(calls, origin, destination, bound)
        direct: dict[str, Routing] = {}
        for routing in options:
            if routing.transshipments == 0:
                code = routing.legs[0].service.code
                if code not in direct or _length(routing) < _length(direct[code]):
                    direct[code] = routing
        chosen += list(direct.values())
        chosen += [r for r in _pareto(options) if r.transshipments][:3]
    if not chosen:
        return ()
    # Nobody ships the long way round when the market sails in half the time.
    fastest = min(_length(r) for r in chosen)
    return tuple(r for r in chosen if _length(r) <= _keep_within(fastest))


# --- the search ----------------------------------------------------------------------------


# --- the answer ----------------------------------------------------------------------------
