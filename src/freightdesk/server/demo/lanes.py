"""Where the demo shipper ships from and to: its own sites, its customers and its lanes.

The demo tenant is "Alder & Finch", a maker and distributor of home and kitchen goods with
plants and distribution centres in North America and Europe. Its sites become saved stop
locations with opening hours; its customers' receiving docks are stops given by address. Lanes
pair them by mode: truckload and LTL between sites and customers, parcel to customers,
intermodal rail between ramps and terminals, ocean between ports and air between airports.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import cache

from freightdesk.models.common import TransportationMode as Mode
from freightdesk.server.demo.geography import (
    PLACES,
    Place,
    PlaceKind,
    offset,
)
from freightdesk.server.domain.carrier_directory import Region

COMPANY = "Alder & Finch"


class Hours:
    """Opening-hour profiles of sites: (weekdays Monday to Sunday as 0/1, opens, closes)."""

    DC = (("1111100", "06:00", "22:00"), ("0000010", "07:00", "15:00"))
    ALWAYS = (("1111111", "00:00", "24:00"),)
    PLANT = (("1111100", "00:00", "24:00"), ("0000010", "06:00", "14:00"))
    RECEIVING = (("1111100", "07:00", "15:00"),)


_HOURS = {"DC": Hours.DC, "24x7": Hours.ALWAYS, "PLANT": Hours.PLANT}

# key | name | street | city | state | postal code | latitude | longitude | metro | hours
_SITES = """
joliet-dc | Alder & Finch Joliet DC | 2400 Channahon Rd | Joliet | IL | 60436 | 41.5034 | -88.1350 | chicago | DC
ontario-dc | Alder & Finch Ontario DC | 4500 E Airport Dr | Ontario | CA | 91761 | 34.0590 | -117.5740 | los-angeles | 24x7
lancaster-dc | Alder & Finch Dallas DC | 2300 W Belt Line Rd | Lancaster | TX | 75146 | 32.5921 | -96.7561 | dallas | DC
mcdonough-dc | Alder & Finch Atlanta DC | 1200 King Mill Rd | McDonough | GA | 30253 | 33.4473 | -84.1469 | atlanta | DC
allentown-dc | Alder & Finch Lehigh Valley DC | 7355 Industrial Blvd | Allentown | PA | 18106 | 40.5620 | -75.5600 | philadelphia | 24x7
groveport-dc | Alder & Finch Columbus DC | 4200 Alum Creek Dr | Groveport | OH | 43125 | 39.8784 | -82.8838 | columbus | DC
plainfield-dc | Alder & Finch Plainfield DC | 1800 S Perry Rd | Plainfield | IN | 46168 | 39.6900 | -86.3800 | indianapolis | DC
kent-dc | Alder & Finch Kent DC | 21000 72nd Ave S | Kent | WA | 98032 | 47.4100 | -122.2400 | seattle | DC
pooler-dc | Alder & Finch Savannah Import DC | 300 Jimmy Deloach Pkwy | Pooler | GA | 31322 | 32.1300 | -81.2300 | savannah | 24x7
katy-dc | Alder & Finch Houston DC | 2500 Peek Rd | Katy | TX | 77493 | 29.8100 | -95.8245 | houston | DC
sparks-dc | Alder & Finch Reno DC | 1200 Greg St | Sparks | NV | 89431 | 39.5349 | -119.7527 | reno | DC
memphis-plant | Alder & Finch Memphis Plant | 3500 Tchulahoma Rd | Memphis | TN | 38118 | 35.0600 | -89.9700 | memphis | PLANT
mississauga-dc | Alder & Finch Mississauga DC | 6600 Kennedy Rd | Mississauga | ON | L5T 2W4 | 43.6480 | -79.6900 | toronto | DC
boucherville-dc | Alder & Finch Montreal DC | 1500 Rue Eiffel | Boucherville | QC | J4B 5Y1 | 45.5910 | -73.4360 | montreal | DC
calgary-dc | Alder & Finch Calgary DC | 5200 72 Ave SE | Calgary | AB | T2C 4B7 | 50.9850 | -113.9600 | calgary | DC
apodaca-plant | Alder & Finch Monterrey Plant | Carretera Miguel Aleman km 24 | Apodaca | NLE | 66600 | 25.7818 | -100.1887 | monterrey | PLANT
queretaro-plant | Alder & Finch Queretaro Plant | Av. de la Industria 100 | Queretaro | QUE | 76120 | 20.6500 | -100.4000 | queretaro | PLANT
venlo-dc | Alder & Finch European DC Venlo | Celsiusweg 10 | Venlo | LI | 5928 PR | 51.3950 | 6.1350 | venlo | 24x7
duisburg-dc | Alder & Finch Duisburg DC | Hafenstrasse 50 | Duisburg | NW | 47119 | 51.4500 | 6.7400 | duisburg | DC
hersfeld-dc | Alder & Finch Bad Hersfeld DC | Am Weinberg 12 | Bad Hersfeld | HE | 36251 | 50.8690 | 9.7070 | kassel | DC
st-priest-dc | Alder & Finch Lyon DC | Rue de Chassieu 20 | Saint-Priest | ARA | 69800 | 45.6960 | 4.9440 | lyon | DC
coslada-dc | Alder & Finch Madrid DC | Avenida de la Industria 40 | Coslada | MD | 28820 | 40.4238 | -3.5613 | madrid | DC
piacenza-dc | Alder & Finch Piacenza DC | Strada Dogana Po 2 | Piacenza | PC | 29122 | 45.0526 | 9.6930 | milan | DC
poznan-plant | Alder & Finch Poznan Plant | ul. Poznanska 100 | Tarnowo Podgorne | WP | 62-080 | 52.4600 | 16.6800 | poznan | PLANT
northampton-dc | Alder & Finch Northampton DC | Brackmills Industrial Estate | Northampton | NTH | NN4 7PD | 52.2230 | -0.8700 | birmingham-uk | DC
jirny-dc | Alder & Finch Prague DC | Jirny 200 | Jirny | 20 | 250 90 | 50.1150 | 14.6980 | prague | DC
"""  # noqa: E501

# Customers by region, and the cities where they receive (network nodes with a UN/LOCODE).
_CUSTOMERS_NA = ("Hearth & Home", "Kitchen Collective", "Pantry Lane Markets", "Northfield Goods")
_CUSTOMERS_MX = ("Casa Clara Hogar",)
_CUSTOMERS_EU = ("Maison Claire", "Huis & Haard", "Kochwerk", "Cocina Viva", "Casa Serena")
_STREETS_NA = ("Commerce Dr", "Distribution Way", "Industrial Pkwy", "Logistics Blvd", "Trade Ct")
_STREETS_EU = (
    "Industriestrasse",
    "Rue de la Logistique",
    "Via dell'Industria",
    "Avenida del Comercio",
)


@dataclass(frozen=True)
class Site:
    """A shipper site or a customer dock: a place with hours and an owner."""

    place: Place
    hours: tuple[tuple[str, str, str], ...]
    is_own: bool


def _sites() -> dict[str, Site]:
    found: dict[str, Site] = {}
    for line in _SITES.strip().splitlines():
        key, name, street, city, state, postal, lat, lon, metro, hours = (
            field.strip() for field in line.split("|")
        )
        hub = PLACES[metro]
        found[key] = Site(
            Place(
                key=key,
                name=name,
                kind=PlaceKind.SITE,
                street=street,
                city=city,
                state=state,
                postal_code=postal,
                country=hub.country,
                latitude=float(lat),
                longitude=float(lon),
                time_zone=hub.time_zone,
                # A UN/LOCODE names a municipality: only a site inside the hub city has its code.
                unlocode=hub.unlocode if city == hub.city else None,
                metro=metro,
            ),
            _HOURS[hours],
            is_own=True,
        )
    return found


def _stable(text: str) -> int:
    """A number that depends only on `text` (not on the seed or Python's hash salt)."""
    return zlib.crc32(text.encode())


def _customers() -> dict[str, Site]:
    found: dict[str, Site] = {}
    for city in PLACES.values():
        if city.kind is not PlaceKind.CITY or city.unlocode is None:
            continue
        brands: tuple[str, ...]
        streets: tuple[str, ...]
        if city.region is Region.EUROPE:
            brands, streets = _CUSTOMERS_EU, _STREETS_EU
        elif city.country == "MX":
            brands, streets = _CUSTOMERS_MX, _STREETS_NA
        else:
            brands, streets = _CUSTOMERS_NA, _STREETS_NA
        number = _stable(city.key)
        brand = brands[number % len(brands)]
        street = streets[(number // 7) % len(streets)]
        house = 100 + (number // 53) % 8900
        # The dock lies in the city's industrial ring, a few kilometres from the centre.
        lat, lon = offset(city.point, (number // 11) % 360, 3.0 + (number // 13) % 50 / 10)
        line = f"{street} {house}" if city.region is Region.EUROPE else f"{house} {street}"
        key = f"customer-{city.key}"
        found[key] = Site(
            Place(
                key=key,
                name=f"{brand} {city.city}",
                kind=PlaceKind.SITE,
                street=line,
                city=city.city,
                state=city.state,
                postal_code=city.postal_code,
                country=city.country,
                latitude=round(lat, 5),
                longitude=round(lon, 5),
                time_zone=city.time_zone,
                unlocode=city.unlocode,
                metro=city.key,
            ),
            Hours.RECEIVING,
            is_own=False,
        )
    return found


OWN_SITES: dict[str, Site] = _sites()
CUSTOMERS: dict[str, Site] = _customers()
SITES: dict[str, Site] = {**OWN_SITES, **CUSTOMERS}


@cache
def own_sites(region: Region) -> tuple[Site, ...]:
    return tuple(s for s in OWN_SITES.values() if s.place.region is region)


@cache
def customers(region: Region) -> tuple[Site, ...]:
    return tuple(s for s in CUSTOMERS.values() if s.place.region is region)


# --- lanes of the long-haul modes ----------------------------------------------------------------

# Intermodal rail lanes (ramp or terminal pairs) and the railroad's region.
RAIL_LANES_NA: tuple[tuple[str, str], ...] = (
    ("ramp-los-angeles", "ramp-chicago"),
    ("ramp-chicago", "ramp-los-angeles"),
    ("ramp-seattle", "ramp-chicago"),
    ("ramp-los-angeles", "ramp-dallas"),
    ("ramp-los-angeles", "ramp-memphis"),
    ("ramp-chicago", "ramp-atlanta"),
    ("ramp-new-york", "ramp-chicago"),
    ("ramp-chicago", "ramp-new-york"),
    ("ramp-kansas-city", "ramp-los-angeles"),
    ("ramp-dallas", "ramp-atlanta"),
    ("ramp-vancouver", "ramp-toronto"),
    ("ramp-montreal", "ramp-vancouver"),
    ("ramp-toronto", "ramp-chicago"),
    ("ramp-mexico-city", "ramp-chicago"),
    ("ramp-monterrey", "ramp-kansas-city"),
)

RAIL_LANES_EU: tuple[tuple[str, str], ...] = (
    ("terminal-rotterdam", "terminal-milan"),
    ("terminal-duisburg", "terminal-verona"),
    ("terminal-hamburg", "terminal-prague"),
    ("terminal-hamburg", "terminal-vienna"),
    ("terminal-antwerp", "terminal-lyon"),
    ("terminal-duisburg", "terminal-poznan"),
    ("terminal-rotterdam", "terminal-munich"),
    ("terminal-hamburg", "terminal-munich"),
)

# Ocean lanes: (port of loading, port of discharge); most are imports into North America.
OCEAN_LANES: tuple[tuple[str, str], ...] = (
    ("port-rotterdam", "port-new-york"),
    ("port-rotterdam", "port-savannah"),
    ("port-antwerp", "port-new-york"),
    ("port-antwerp", "port-houston"),
    ("port-hamburg", "port-new-york"),
    ("port-hamburg", "port-montreal"),
    ("port-bremerhaven", "port-charleston"),
    ("port-le-havre", "port-norfolk"),
    ("port-felixstowe", "port-halifax"),
    ("port-valencia", "port-savannah"),
    ("port-algeciras", "port-houston"),
    ("port-genoa", "port-new-york"),
    ("port-rotterdam", "port-veracruz"),
    ("port-antwerp", "port-baltimore"),
    ("port-savannah", "port-rotterdam"),
    ("port-new-york", "port-antwerp"),
    ("port-charleston", "port-bremerhaven"),
    ("port-rotterdam", "port-gdansk"),
    ("port-rotterdam", "port-gothenburg"),
    ("port-valencia", "port-genoa"),
    ("port-houston", "port-antwerp"),
    ("port-miami", "port-algeciras"),
)

# Where each port's containers go next: the shipper's site trucked to from the port.
PORT_DESTINATIONS: dict[str, str] = {
    "port-new-york": "allentown-dc",
    "port-savannah": "pooler-dc",
    "port-charleston": "mcdonough-dc",
    "port-norfolk": "allentown-dc",
    "port-baltimore": "allentown-dc",
    "port-houston": "katy-dc",
    "port-miami": "mcdonough-dc",
    "port-halifax": "boucherville-dc",
    "port-montreal": "boucherville-dc",
    "port-veracruz": "queretaro-plant",
    "port-rotterdam": "venlo-dc",
    "port-antwerp": "venlo-dc",
    "port-hamburg": "hersfeld-dc",
    "port-bremerhaven": "hersfeld-dc",
    "port-gdansk": "poznan-plant",
    "port-gothenburg": "hersfeld-dc",
    "port-genoa": "piacenza-dc",
    "port-algeciras": "coslada-dc",
    "port-valencia": "coslada-dc",
    "port-le-havre": "st-priest-dc",
    "port-felixstowe": "northampton-dc",
}

# Air lanes: (origin airport, destination airport).
AIR_LANES: tuple[tuple[str, str], ...] = (
    ("fra", "ord"),
    ("ams", "jfk"),
    ("cdg", "atl"),
    ("lhr", "yyz"),
    ("lgg", "mem"),
    ("lej", "iah"),
    ("mxp", "jfk"),
    ("mad", "mia"),
    ("cph", "ord"),
    ("ord", "fra"),
    ("lax", "ams"),
    ("dfw", "lej"),
    ("yul", "cdg"),
    ("mex", "mad"),
    ("atl", "lhr"),
)

# Parcel hubs each carrier sorts through (network nodes).
PARCEL_HUBS: dict[str, tuple[str, ...]] = {
    "SWPC": ("memphis",),
    "PCWG": ("indianapolis", "louisville"),
    "MPCR": ("toronto",),
    "EUPK": ("cologne", "leipzig"),
    "CLRP": ("paris", "lyon"),
}

# Where each mode's shipments may go: own-region long-haul distance bounds in km.
TRUCK_DISTANCE = {Mode.TL: (250.0, 3400.0), Mode.LTL: (150.0, 2600.0), Mode.PARCEL: (80.0, 4000.0)}
