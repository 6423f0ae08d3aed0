"""Real places of the demo: cities, container ports, cargo airports and rail terminals.

Coordinates are those of the real place (city centre, terminal or airport) to about a
kilometre; time zones are IANA names; UN/LOCODEs and IATA codes are the real ones. Places are
the nodes the demo's road, rail and sea networks join (see `networks`), and where shipments
stop. Addresses are in the canonical form `normalize_address` produces, so they can be saved as
stop locations unchanged.

Only places whose UN/LOCODE we are sure of carry one; a place without one is only ever a
waypoint that a truck passes, never a stop.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from freightdesk.server.domain.carrier_directory import Region

EARTH_RADIUS_KM = 6371.0088


class PlaceKind(StrEnum):
    CITY = "CITY"
    PORT = "PORT"
    AIRPORT = "AIRPORT"
    RAIL_TERMINAL = "RAIL_TERMINAL"
    # A shipper's warehouse or plant, or a customer's receiving dock.
    SITE = "SITE"


NORTH_AMERICAN_COUNTRIES = frozenset({"US", "CA", "MX"})


@dataclass(frozen=True)
class Place:
    key: str
    name: str
    kind: PlaceKind
    street: str
    city: str
    state: str
    postal_code: str
    country: str
    latitude: float
    longitude: float
    time_zone: str
    unlocode: str | None = None
    iata: str | None = None
    # The city whose network node a port, airport or terminal is reached through.
    metro: str | None = None

    @property
    def region(self) -> Region:
        if self.country in NORTH_AMERICAN_COUNTRIES:
            return Region.NORTH_AMERICA
        return Region.EUROPE

    @property
    def node(self) -> str:
        """The network node this place hangs off."""
        return self.metro or self.key

    @property
    def point(self) -> tuple[float, float]:
        return (self.latitude, self.longitude)

    def address(self) -> dict[str, object]:
        """The place's address as the interface's bodies carry it (wire names)."""
        return {
            "addressLines": [self.street],
            "city": self.city,
            "state": self.state,
            "postalCode": self.postal_code,
            "country": self.country,
        }

    def coordinates(self) -> dict[str, float]:
        return {"latitude": self.latitude, "longitude": self.longitude}


# The tables below are parsed once at import. Fields are separated by " | ".

# key | city | state | postal code | country | latitude | longitude | time zone | UN/LOCODE
_CITIES = """
seattle | Seattle | WA | 98108 | US | 47.6062 | -122.3321 | America/Los_Angeles | USSEA
tacoma | Tacoma | WA | 98421 | US | 47.2529 | -122.4443 | America/Los_Angeles | USTIW
portland | Portland | OR | 97217 | US | 45.5152 | -122.6784 | America/Los_Angeles | USPDX
spokane | Spokane | WA | 99202 | US | 47.6588 | -117.426 | America/Los_Angeles |
boise | Boise | ID | 83702 | US | 43.615 | -116.2023 | America/Boise |
sacramento | Sacramento | CA | 95814 | US | 38.5816 | -121.4944 | America/Los_Angeles | USSAC
oakland | Oakland | CA | 94607 | US | 37.8044 | -122.2712 | America/Los_Angeles | USOAK
los-angeles | Los Angeles | CA | 90021 | US | 34.0522 | -118.2437 | America/Los_Angeles | USLAX
barstow | Barstow | CA | 92311 | US | 34.8958 | -117.0173 | America/Los_Angeles |
reno | Reno | NV | 89502 | US | 39.5296 | -119.8138 | America/Los_Angeles | USRNO
las-vegas | Las Vegas | NV | 89118 | US | 36.1699 | -115.1398 | America/Los_Angeles | USLAS
salt-lake-city | Salt Lake City | UT | 84104 | US | 40.7608 | -111.891 | America/Denver | USSLC
flagstaff | Flagstaff | AZ | 86001 | US | 35.1983 | -111.6513 | America/Phoenix |
phoenix | Phoenix | AZ | 85043 | US | 33.4484 | -112.074 | America/Phoenix | USPHX
tucson | Tucson | AZ | 85706 | US | 32.2226 | -110.9747 | America/Phoenix | USTUS
el-paso | El Paso | TX | 79901 | US | 31.7619 | -106.485 | America/Denver | USELP
albuquerque | Albuquerque | NM | 87102 | US | 35.0844 | -106.6504 | America/Denver | USABQ
denver | Denver | CO | 80216 | US | 39.7392 | -104.9903 | America/Denver | USDEN
cheyenne | Cheyenne | WY | 82001 | US | 41.14 | -104.8202 | America/Denver |
rock-springs | Rock Springs | WY | 82901 | US | 41.5875 | -109.2029 | America/Denver |
billings | Billings | MT | 59101 | US | 45.7833 | -108.5007 | America/Denver |
north-platte | North Platte | NE | 69101 | US | 41.1239 | -100.7654 | America/Chicago |
omaha | Omaha | NE | 68102 | US | 41.2565 | -95.9345 | America/Chicago | USOMA
des-moines | Des Moines | IA | 50309 | US | 41.5868 | -93.625 | America/Chicago | USDSM
fargo | Fargo | ND | 58102 | US | 46.8772 | -96.7898 | America/Chicago |
minneapolis | Minneapolis | MN | 55401 | US | 44.9778 | -93.265 | America/Chicago | USMSP
milwaukee | Milwaukee | WI | 53204 | US | 43.0389 | -87.9065 | America/Chicago | USMKE
chicago | Chicago | IL | 60607 | US | 41.8781 | -87.6298 | America/Chicago | USCHI
detroit | Detroit | MI | 48209 | US | 42.3314 | -83.0458 | America/Detroit | USDET
toledo | Toledo | OH | 43604 | US | 41.6528 | -83.5379 | America/New_York | USTOL
cleveland | Cleveland | OH | 44114 | US | 41.4993 | -81.6944 | America/New_York | USCLE
columbus | Columbus | OH | 43215 | US | 39.9612 | -82.9988 | America/New_York | USCMH
cincinnati | Cincinnati | OH | 45202 | US | 39.1031 | -84.512 | America/New_York | USCVG
indianapolis | Indianapolis | IN | 46225 | US | 39.7684 | -86.1581 | America/Indiana/Indianapolis | USIND
louisville | Louisville | KY | 40202 | US | 38.2527 | -85.7585 | America/Kentucky/Louisville |
pittsburgh | Pittsburgh | PA | 15222 | US | 40.4406 | -79.9959 | America/New_York | USPIT
harrisburg | Harrisburg | PA | 17101 | US | 40.2732 | -76.8867 | America/New_York |
philadelphia | Philadelphia | PA | 19148 | US | 39.9526 | -75.1652 | America/New_York | USPHL
new-york | New York | NY | 10001 | US | 40.7128 | -74.006 | America/New_York | USNYC
hartford | Hartford | CT | 06103 | US | 41.7658 | -72.6734 | America/New_York |
boston | Boston | MA | 02210 | US | 42.3601 | -71.0589 | America/New_York | USBOS
albany | Albany | NY | 12207 | US | 42.6526 | -73.7562 | America/New_York |
syracuse | Syracuse | NY | 13202 | US | 43.0481 | -76.1474 | America/New_York |
buffalo | Buffalo | NY | 14203 | US | 42.8864 | -78.8784 | America/New_York | USBUF
baltimore | Baltimore | MD | 21224 | US | 39.2904 | -76.6122 | America/New_York | USBAL
richmond | Richmond | VA | 23219 | US | 37.5407 | -77.436 | America/New_York | USRIC
norfolk | Norfolk | VA | 23510 | US | 36.8508 | -76.2859 | America/New_York | USORF
charlotte | Charlotte | NC | 28208 | US | 35.2271 | -80.8431 | America/New_York | USCLT
columbia | Columbia | SC | 29201 | US | 34.0007 | -81.0348 | America/New_York |
charleston | Charleston | SC | 29401 | US | 32.7765 | -79.9311 | America/New_York | USCHS
savannah | Savannah | GA | 31401 | US | 32.0809 | -81.0912 | America/New_York | USSAV
atlanta | Atlanta | GA | 30336 | US | 33.749 | -84.388 | America/New_York | USATL
jacksonville | Jacksonville | FL | 32202 | US | 30.3322 | -81.6557 | America/New_York | USJAX
orlando | Orlando | FL | 32801 | US | 28.5383 | -81.3792 | America/New_York |
miami | Miami | FL | 33132 | US | 25.7617 | -80.1918 | America/New_York | USMIA
tallahassee | Tallahassee | FL | 32301 | US | 30.4383 | -84.2807 | America/New_York |
mobile | Mobile | AL | 36602 | US | 30.6954 | -88.0399 | America/Chicago | USMOB
birmingham-al | Birmingham | AL | 35203 | US | 33.5186 | -86.8104 | America/Chicago | USBHM
chattanooga | Chattanooga | TN | 37402 | US | 35.0456 | -85.3097 | America/New_York |
knoxville | Knoxville | TN | 37902 | US | 35.9606 | -83.9207 | America/New_York |
nashville | Nashville | TN | 37203 | US | 36.1627 | -86.7816 | America/Chicago | USBNA
memphis | Memphis | TN | 38118 | US | 35.1495 | -90.049 | America/Chicago | USMEM
jackson | Jackson | MS | 39201 | US | 32.2988 | -90.1848 | America/Chicago |
new-orleans | New Orleans | LA | 70130 | US | 29.9511 | -90.0715 | America/Chicago | USMSY
baton-rouge | Baton Rouge | LA | 70801 | US | 30.4515 | -91.1871 | America/Chicago |
shreveport | Shreveport | LA | 71101 | US | 32.5252 | -93.7502 | America/Chicago |
little-rock | Little Rock | AR | 72201 | US | 34.7465 | -92.2896 | America/Chicago |
st-louis | St. Louis | MO | 63102 | US | 38.627 | -90.1994 | America/Chicago | USSTL
kansas-city | Kansas City | MO | 64105 | US | 39.0997 | -94.5786 | America/Chicago | USMKC
oklahoma-city | Oklahoma City | OK | 73102 | US | 35.4676 | -97.5164 | America/Chicago | USOKC
amarillo | Amarillo | TX | 79101 | US | 35.222 | -101.8313 | America/Chicago |
dallas | Dallas | TX | 75207 | US | 32.7767 | -96.797 | America/Chicago | USDAL
houston | Houston | TX | 77029 | US | 29.7604 | -95.3698 | America/Chicago | USHOU
san-antonio | San Antonio | TX | 78205 | US | 29.4241 | -98.4936 | America/Chicago | USSAT
laredo | Laredo | TX | 78040 | US | 27.5306 | -99.4803 | America/Chicago | USLRD
vancouver | Vancouver | BC | V6B 1A1 | CA | 49.2827 | -123.1207 | America/Vancouver | CAVAN
calgary | Calgary | AB | T2G 0P6 | CA | 51.0447 | -114.0719 | America/Edmonton | CACAL
edmonton | Edmonton | AB | T5J 0N3 | CA | 53.5461 | -113.4938 | America/Edmonton | CAEDM
regina | Regina | SK | S4P 3Y2 | CA | 50.4452 | -104.6189 | America/Regina |
winnipeg | Winnipeg | MB | R3C 4T3 | CA | 49.8951 | -97.1384 | America/Winnipeg | CAWNP
london-on | London | ON | N6A 3N7 | CA | 42.9849 | -81.2453 | America/Toronto |
toronto | Toronto | ON | M5J 2N8 | CA | 43.6532 | -79.3832 | America/Toronto | CATOR
kingston-on | Kingston | ON | K7L 2Z1 | CA | 44.2312 | -76.486 | America/Toronto |
montreal | Montreal | QC | H3B 4W8 | CA | 45.5017 | -73.5673 | America/Toronto | CAMTR
halifax | Halifax | NS | B3J 3K5 | CA | 44.6488 | -63.5752 | America/Halifax | CAHAL
nuevo-laredo | Nuevo Laredo | TAM | 88000 | MX | 27.4779 | -99.5157 | America/Matamoros | MXNLD
monterrey | Monterrey | NLE | 64000 | MX | 25.6866 | -100.3161 | America/Monterrey | MXMTY
san-luis-potosi | San Luis Potosi | SLP | 78000 | MX | 22.1565 | -100.9855 | America/Mexico_City |
queretaro | Queretaro | QUE | 76000 | MX | 20.5888 | -100.3899 | America/Mexico_City | MXQRO
guadalajara | Guadalajara | JAL | 44100 | MX | 20.6597 | -103.3496 | America/Mexico_City | MXGDL
mexico-city | Mexico City | CMX | 06000 | MX | 19.4326 | -99.1332 | America/Mexico_City | MXMEX
veracruz | Veracruz | VER | 91700 | MX | 19.1738 | -96.1342 | America/Mexico_City | MXVER
rotterdam | Rotterdam | ZH | 3011 AD | NL | 51.9244 | 4.4777 | Europe/Amsterdam | NLRTM
amsterdam | Amsterdam | NH | 1012 JS | NL | 52.3676 | 4.9041 | Europe/Amsterdam | NLAMS
eindhoven | Eindhoven | NB | 5611 EM | NL | 51.4416 | 5.4697 | Europe/Amsterdam | NLEIN
venlo | Venlo | LI | 5911 AK | NL | 51.3704 | 6.1724 | Europe/Amsterdam |
antwerp | Antwerp | VAN | 2000 | BE | 51.2194 | 4.4025 | Europe/Brussels | BEANR
brussels | Brussels | BRU | 1000 | BE | 50.8503 | 4.3517 | Europe/Brussels | BEBRU
liege | Liege | WLG | 4000 | BE | 50.6326 | 5.5797 | Europe/Brussels | BELGG
luxembourg | Luxembourg | LU | 1118 | LU | 49.6116 | 6.1319 | Europe/Luxembourg | LULUX
lille | Lille | HDF | 59000 | FR | 50.6292 | 3.0573 | Europe/Paris | FRLLE
calais | Calais | HDF | 62100 | FR | 50.9513 | 1.8587 | Europe/Paris | FRCQF
paris | Paris | IDF | 75012 | FR | 48.8566 | 2.3522 | Europe/Paris | FRPAR
rouen | Rouen | NOR | 76000 | FR | 49.4432 | 1.0999 | Europe/Paris |
reims | Reims | GES | 51100 | FR | 49.2583 | 4.0317 | Europe/Paris |
metz | Metz | GES | 57000 | FR | 49.1193 | 6.1757 | Europe/Paris |
strasbourg | Strasbourg | GES | 67000 | FR | 48.5734 | 7.7521 | Europe/Paris | FRSXB
dijon | Dijon | BFC | 21000 | FR | 47.322 | 5.0415 | Europe/Paris |
lyon | Lyon | ARA | 69002 | FR | 45.764 | 4.8357 | Europe/Paris | FRLIO
marseille | Marseille | PAC | 13002 | FR | 43.2965 | 5.3698 | Europe/Paris | FRMRS
montpellier | Montpellier | OCC | 34000 | FR | 43.6108 | 3.8767 | Europe/Paris |
toulouse | Toulouse | OCC | 31000 | FR | 43.6047 | 1.4442 | Europe/Paris | FRTLS
bordeaux | Bordeaux | NAQ | 33000 | FR | 44.8378 | -0.5792 | Europe/Paris | FRBOD
bilbao | Bilbao | PV | 48001 | ES | 43.263 | -2.935 | Europe/Madrid | ESBIO
madrid | Madrid | MD | 28045 | ES | 40.4168 | -3.7038 | Europe/Madrid | ESMAD
zaragoza | Zaragoza | AR | 50001 | ES | 41.6488 | -0.8891 | Europe/Madrid | ESZAZ
barcelona | Barcelona | CT | 08039 | ES | 41.3851 | 2.1734 | Europe/Madrid | ESBCN
valencia | Valencia | VC | 46002 | ES | 39.4699 | -0.3763 | Europe/Madrid | ESVLC
seville | Seville | AN | 41001 | ES | 37.3891 | -5.9845 | Europe/Madrid | ESSVQ
algeciras | Algeciras | AN | 11201 | ES | 36.1408 | -5.4562 | Europe/Madrid | ESALG
lisbon | Lisbon | 11 | 1100-148 | PT | 38.7223 | -9.1393 | Europe/Lisbon | PTLIS
dover | Dover | KEN | CT16 1JA | GB | 51.1279 | 1.3134 | Europe/London | GBDVR
london | London | LND | E14 5AB | GB | 51.5072 | -0.1276 | Europe/London | GBLON
felixstowe | Felixstowe | SFK | IP11 7JX | GB | 51.9617 | 1.3513 | Europe/London | GBFXT
birmingham-uk | Birmingham | BIR | B5 4BU | GB | 52.4862 | -1.8904 | Europe/London | GBBHM
manchester | Manchester | MAN | M1 1AE | GB | 53.4808 | -2.2426 | Europe/London | GBMNC
hamburg | Hamburg | HH | 20457 | DE | 53.5511 | 9.9937 | Europe/Berlin | DEHAM
bremen | Bremen | HB | 28195 | DE | 53.0793 | 8.8017 | Europe/Berlin | DEBRE
hannover | Hannover | NI | 30159 | DE | 52.3759 | 9.732 | Europe/Berlin | DEHAJ
berlin | Berlin | BE | 10117 | DE | 52.52 | 13.405 | Europe/Berlin | DEBER
leipzig | Leipzig | SN | 04109 | DE | 51.3397 | 12.3731 | Europe/Berlin | DELEJ
dresden | Dresden | SN | 01067 | DE | 51.0504 | 13.7373 | Europe/Berlin | DEDRS
dortmund | Dortmund | NW | 44137 | DE | 51.5136 | 7.4653 | Europe/Berlin | DEDTM
duisburg | Duisburg | NW | 47051 | DE | 51.4344 | 6.7623 | Europe/Berlin | DEDUI
dusseldorf | Dusseldorf | NW | 40213 | DE | 51.2277 | 6.7735 | Europe/Berlin | DEDUS
cologne | Cologne | NW | 50667 | DE | 50.9375 | 6.9603 | Europe/Berlin | DECGN
kassel | Kassel | HE | 34117 | DE | 51.3127 | 9.4797 | Europe/Berlin |
frankfurt | Frankfurt am Main | HE | 60311 | DE | 50.1109 | 8.6821 | Europe/Berlin | DEFRA
mannheim | Mannheim | BW | 68159 | DE | 49.4875 | 8.466 | Europe/Berlin | DEMHG
stuttgart | Stuttgart | BW | 70173 | DE | 48.7758 | 9.1829 | Europe/Berlin | DESTR
nuremberg | Nuremberg | BY | 90403 | DE | 49.4521 | 11.0767 | Europe/Berlin | DENUE
munich | Munich | BY | 80331 | DE | 48.1351 | 11.582 | Europe/Berlin | DEMUC
basel | Basel | BS | 4051 | CH | 47.5596 | 7.5886 | Europe/Zurich | CHBSL
zurich | Zurich | ZH | 8001 | CH | 47.3769 | 8.5417 | Europe/Zurich | CHZRH
innsbruck | Innsbruck | 7 | 6020 | AT | 47.2692 | 11.4041 | Europe/Vienna |
salzburg | Salzburg | 5 | 5020 | AT | 47.8095 | 13.055 | Europe/Vienna |
linz | Linz | 4 | 4020 | AT | 48.3069 | 14.2858 | Europe/Vienna | ATLNZ
vienna | Vienna | 9 | 1010 | AT | 48.2082 | 16.3738 | Europe/Vienna | ATVIE
milan | Milan | MI | 20121 | IT | 45.4642 | 9.19 | Europe/Rome | ITMIL
genoa | Genoa | GE | 16121 | IT | 44.4056 | 8.9463 | Europe/Rome | ITGOA
verona | Verona | VR | 37121 | IT | 45.4384 | 10.9916 | Europe/Rome | ITVRN
bologna | Bologna | BO | 40121 | IT | 44.4949 | 11.3426 | Europe/Rome | ITBLQ
prague | Prague | 10 | 110 00 | CZ | 50.0755 | 14.4378 | Europe/Prague | CZPRG
brno | Brno | 64 | 602 00 | CZ | 49.1951 | 16.6068 | Europe/Prague |
bratislava | Bratislava | BL | 811 01 | SK | 48.1486 | 17.1077 | Europe/Bratislava | SKBTS
budapest | Budapest | BU | 1051 | HU | 47.4979 | 19.0402 | Europe/Budapest | HUBUD
wroclaw | Wroclaw | DS | 50-001 | PL | 51.1079 | 17.0385 | Europe/Warsaw | PLWRO
poznan | Poznan | WP | 61-001 | PL | 52.4064 | 16.9252 | Europe/Warsaw | PLPOZ
lodz | Lodz | LD | 90-001 | PL | 51.7592 | 19.456 | Europe/Warsaw |
warsaw | Warsaw | MZ | 00-001 | PL | 52.2297 | 21.0122 | Europe/Warsaw | PLWAW
gdansk | Gdansk | PM | 80-001 | PL | 54.352 | 18.6466 | Europe/Warsaw | PLGDN
kolding | Kolding | 83 | 6000 | DK | 55.4904 | 9.4722 | Europe/Copenhagen |
aarhus | Aarhus | 82 | 8000 | DK | 56.1629 | 10.2039 | Europe/Copenhagen | DKAAR
copenhagen | Copenhagen | 84 | 1050 | DK | 55.6761 | 12.5683 | Europe/Copenhagen | DKCPH
malmo | Malmo | M | 211 20 | SE | 55.605 | 13.0038 | Europe/Stockholm | SEMMA
gothenburg | Gothenburg | O | 411 03 | SE | 57.7089 | 11.9746 | Europe/Stockholm | SEGOT
jonkoping | Jonkoping | F | 553 20 | SE | 57.7826 | 14.1618 | Europe/Stockholm |
stockholm | Stockholm | AB | 111 20 | SE | 59.3293 | 18.0686 | Europe/Stockholm | SESTO
"""  # noqa: E501

# key | IATA | name | street | city | state | postal code | lat | lon | metro | UN/LOCODE
_AIRPORTS = """
ord | ORD | Chicago O'Hare International Airport | 10000 W O'Hare Ave | Chicago | IL | 60666 | 41.9786 | -87.9048 | chicago | USCHI
jfk | JFK | John F. Kennedy International Airport | JFK Cargo Area, Building 151 | Jamaica | NY | 11430 | 40.6413 | -73.7781 | new-york | USNYC
lax | LAX | Los Angeles International Airport | 6181 W Imperial Hwy | Los Angeles | CA | 90045 | 33.9416 | -118.4085 | los-angeles | USLAX
atl | ATL | Hartsfield-Jackson Atlanta International Airport | 1200 Toffie Terrace | Atlanta | GA | 30320 | 33.6407 | -84.4277 | atlanta | USATL
dfw | DFW | Dallas Fort Worth International Airport | 2400 Aviation Dr | DFW Airport | TX | 75261 | 32.8998 | -97.0403 | dallas | USDFW
iah | IAH | George Bush Intercontinental Airport | 19175 Lee Rd | Houston | TX | 77032 | 29.9902 | -95.3368 | houston | USHOU
mem | MEM | Memphis International Airport | 2491 Winchester Rd | Memphis | TN | 38116 | 35.0421 | -89.9792 | memphis | USMEM
mia | MIA | Miami International Airport | 2100 NW 42nd Ave | Miami | FL | 33122 | 25.7959 | -80.287 | miami | USMIA
yyz | YYZ | Toronto Pearson International Airport | 6301 Silver Dart Dr | Mississauga | ON | L5P 1B2 | 43.6777 | -79.6248 | toronto | CATOR
yul | YUL | Montreal-Trudeau International Airport | 975 Blvd Romeo-Vachon N | Dorval | QC | H4Y 1H1 | 45.4706 | -73.7408 | montreal | CAMTR
mex | MEX | Mexico City International Airport | Av. Capitan Carlos Leon S/N | Mexico City | CMX | 15620 | 19.4361 | -99.0719 | mexico-city | MXMEX
fra | FRA | Frankfurt Airport CargoCity South | Tor 26, Gebaude 532 | Frankfurt am Main | HE | 60549 | 50.0379 | 8.5622 | frankfurt | DEFRA
ams | AMS | Amsterdam Airport Schiphol | Anchoragelaan 2 | Schiphol | NH | 1118 LD | 52.3105 | 4.7683 | amsterdam | NLAMS
cdg | CDG | Paris Charles de Gaulle Airport | Zone de Fret 4, Rue du Te | Roissy-en-France | IDF | 95700 | 49.0097 | 2.5479 | paris | FRPAR
lhr | LHR | London Heathrow Airport | Shoreham Rd W | London | LND | TW6 3RR | 51.47 | -0.4543 | london | GBLON
lgg | LGG | Liege Airport | Rue de l'Aeroport | Grace-Hollogne | WLG | 4460 | 50.6374 | 5.4432 | liege | BELGG
lej | LEJ | Leipzig/Halle Airport | Terminalring 11 | Schkeuditz | SN | 04435 | 51.4239 | 12.2364 | leipzig | DELEJ
mad | MAD | Adolfo Suarez Madrid-Barajas Airport | Centro de Carga Aerea | Madrid | MD | 28042 | 40.4983 | -3.5676 | madrid | ESMAD
mxp | MXP | Milan Malpensa Airport | Cargo City | Ferno | VA | 21010 | 45.6301 | 8.7255 | milan | ITMIL
cph | CPH | Copenhagen Airport | Copenhagen Cargo Center | Kastrup | 84 | 2770 | 55.618 | 12.6508 | copenhagen | DKCPH
"""  # noqa: E501

# key | name | street | city | state | postal code | latitude | longitude | metro | UN/LOCODE
_PORTS = """
port-new-york | Port Newark Container Terminal | 241 Calcutta St | Newark | NJ | 07114 | 40.684 | -74.1487 | new-york | USNYC
port-savannah | Garden City Terminal | 2 Main St | Garden City | GA | 31408 | 32.1285 | -81.1398 | savannah | USSAV
port-charleston | Wando Welch Terminal | 400 Long Point Rd | Mount Pleasant | SC | 29464 | 32.8331 | -79.895 | charleston | USCHS
port-norfolk | Norfolk International Terminals | 7737 Hampton Blvd | Norfolk | VA | 23505 | 36.918 | -76.3266 | norfolk | USORF
port-baltimore | Seagirt Marine Terminal | 2600 Broening Hwy | Baltimore | MD | 21224 | 39.2548 | -76.5496 | baltimore | USBAL
port-houston | Bayport Container Terminal | 12619 Port Rd | Seabrook | TX | 77586 | 29.6114 | -95.0166 | houston | USHOU
port-miami | PortMiami | 1015 N America Way | Miami | FL | 33132 | 25.7743 | -80.1637 | miami | USMIA
port-halifax | Halifax South End Container Terminal | 1215 Marginal Rd | Halifax | NS | B3H 4P8 | 44.6357 | -63.5628 | halifax | CAHAL
port-montreal | Port of Montreal, Racine Terminal | 2100 Av. Pierre-Dupuy | Montreal | QC | H3C 3R5 | 45.5606 | -73.5236 | montreal | CAMTR
port-veracruz | Puerto de Veracruz | Av. Marina Mercante 210 | Veracruz | VER | 91700 | 19.2085 | -96.1315 | veracruz | MXVER
port-rotterdam | ECT Delta Terminal, Maasvlakte | Europaweg 875 | Rotterdam | ZH | 3199 LD | 51.9572 | 4.0323 | rotterdam | NLRTM
port-antwerp | Antwerp Gateway, Deurganck Dock | Deurganckdoklaan 1 | Beveren | VOV | 9130 | 51.2803 | 4.2551 | antwerp | BEANR
port-hamburg | Container Terminal Burchardkai | Burchardkai 1 | Hamburg | HH | 21129 | 53.5353 | 9.933 | hamburg | DEHAM
port-bremerhaven | Container Terminal Bremerhaven | Senator-Borttscheller-Str. 1 | Bremerhaven | HB | 27568 | 53.5775 | 8.535 | bremen | DEBRV
port-le-havre | Port 2000 Terminal de France | Route de l'Estuaire | Le Havre | NOR | 76600 | 49.4727 | 0.1656 | rouen | FRLEH
port-felixstowe | Port of Felixstowe | Tomline House, The Dock | Felixstowe | SFK | IP11 3SY | 51.9554 | 1.3078 | felixstowe | GBFXT
port-valencia | Port of Valencia | Avenida del Muelle del Turia | Valencia | VC | 46024 | 39.4439 | -0.3186 | valencia | ESVLC
port-algeciras | Port of Algeciras, Juan Carlos I Terminal | Avenida de la Hispanidad 2 | Algeciras | AN | 11207 | 36.134 | -5.437 | algeciras | ESALG
port-genoa | Port of Genoa, Pra' Terminal | Via Pra' 1 | Genoa | GE | 16158 | 44.4218 | 8.777 | genoa | ITGOA
port-gdansk | Baltic Hub Container Terminal | ul. Kontenerowa 7 | Gdansk | PM | 80-601 | 54.3953 | 18.7058 | gdansk | PLGDN
port-gothenburg | Skandia Container Terminal | Skandiahamnen | Gothenburg | O | 418 34 | 57.69 | 11.842 | gothenburg | SEGOT
"""  # noqa: E501

# key | name | street | city | state | postal code | latitude | longitude | metro
_RAIL_TERMINALS = """
ramp-chicago | Chicago (Elwood) intermodal ramp | 26664 S Baseline Rd | Elwood | IL | 60421 | 41.4284 | -88.1167 | chicago
ramp-los-angeles | Los Angeles (Commerce) intermodal ramp | 3770 E Washington Blvd | Commerce | CA | 90023 | 34.0055 | -118.184 | los-angeles
ramp-kansas-city | Kansas City (Edgerton) intermodal ramp | 32880 W 191st St | Edgerton | KS | 66021 | 38.765 | -94.991 | kansas-city
ramp-dallas | Dallas (Alliance) intermodal ramp | 2500 Eagle Pkwy | Fort Worth | TX | 76177 | 32.99 | -97.317 | dallas
ramp-memphis | Memphis intermodal ramp | 4900 Tchulahoma Rd | Memphis | TN | 38118 | 35.033 | -89.971 | memphis
ramp-atlanta | Atlanta (Fairburn) intermodal ramp | 8000 Hwy 29 | Fairburn | GA | 30213 | 33.563 | -84.59 | atlanta
ramp-new-york | Kearny intermodal ramp | 125 Central Ave | Kearny | NJ | 07032 | 40.746 | -74.112 | new-york
ramp-seattle | Seattle (South Seattle) intermodal ramp | 4700 Denver Ave S | Seattle | WA | 98108 | 47.562 | -122.333 | seattle
ramp-toronto | Toronto (Brampton) intermodal terminal | 6675 Intermodal Dr | Brampton | ON | L6T 5G5 | 43.731 | -79.69 | toronto
ramp-montreal | Montreal (Taschereau) intermodal terminal | 1800 Av. Dutrisac | Dorval | QC | H8T 1A1 | 45.488 | -73.699 | montreal
ramp-vancouver | Vancouver (Port Coquitlam) intermodal terminal | 1800 Kingsway Ave | Port Coquitlam | BC | V3C 1S5 | 49.246 | -122.762 | vancouver
ramp-monterrey | Monterrey (Escobedo) intermodal terminal | Carretera a Laredo km 16 | General Escobedo | NLE | 66050 | 25.79 | -100.32 | monterrey
ramp-mexico-city | Mexico City (Pantaco) intermodal terminal | Av. Ceylan 501 | Mexico City | CMX | 02300 | 19.48 | -99.185 | mexico-city
terminal-duisburg | Duisburg logport I terminal | Logport-Allee 1 | Duisburg | NW | 47229 | 51.389 | 6.717 | duisburg
terminal-rotterdam | Rotterdam Rail Service Center | Sevillaweg 2 | Rotterdam | ZH | 3089 JM | 51.886 | 4.401 | rotterdam
terminal-antwerp | Antwerp Main Hub terminal | Noorderlaan 633 | Antwerp | VAN | 2030 | 51.256 | 4.353 | antwerp
terminal-hamburg | Hamburg-Billwerder terminal | Rungedamm 6 | Hamburg | HH | 21035 | 53.519 | 10.1 | hamburg
terminal-milan | Milano Melzo terminal | Via Trieste 3 | Melzo | MI | 20066 | 45.499 | 9.42 | milan
terminal-verona | Verona Quadrante Europa terminal | Via Sommacampagna 61 | Verona | VR | 37137 | 45.418 | 10.933 | verona
terminal-munich | Munich-Riem terminal | Am Moosfeld 80 | Munich | BY | 81829 | 48.129 | 11.703 | munich
terminal-poznan | Poznan Franowo terminal | ul. Krzywa Gora 1 | Poznan | WP | 61-306 | 52.389 | 17.01 | poznan
terminal-prague | Praha-Uhrineves terminal | Prumyslova 1 | Prague | 10 | 104 00 | 50.034 | 14.6 | prague
terminal-vienna | Wien Inzersdorf terminal | Gutheil-Schoder-Gasse 1 | Vienna | 9 | 1230 | 48.144 | 16.336 | vienna
terminal-lyon | Lyon Venissieux terminal | Rue du Dauphine 2 | Venissieux | ARA | 69200 | 45.705 | 4.887 | lyon
"""  # noqa: E501


def _rows(table: str) -> list[list[str]]:
    return [[field.strip() for field in line.split("|")] for line in table.strip().splitlines()]


def _build() -> dict[str, Place]:
    places: dict[str, Place] = {}
    for key, city, state, postal, country, lat, lon, zone, locode in _rows(_CITIES):
        north_american = country in NORTH_AMERICAN_COUNTRIES
        places[key] = Place(
            key=key,
            name=f"{city}, {state}" if north_american else city,
            kind=PlaceKind.CITY,
            street="",
            city=city,
            state=state,
            postal_code=postal,
            country=country,
            latitude=float(lat),
            longitude=float(lon),
            time_zone=zone,
            unlocode=locode or None,
        )
    facilities: list[tuple[PlaceKind, str, str | None, list[str]]] = [
        (PlaceKind.AIRPORT, row[0], row[1], row[2:]) for row in _rows(_AIRPORTS)
    ]
    facilities += [(PlaceKind.PORT, row[0], None, row[1:]) for row in _rows(_PORTS)]
    facilities += [
        (PlaceKind.RAIL_TERMINAL, row[0], None, [*row[1:], ""]) for row in _rows(_RAIL_TERMINALS)
    ]
    for kind, key, iata, (name, street, city, state, postal, lat, lon, metro, locode) in facilities:
        hub = places[metro]
        places[key] = Place(
            key=key,
            name=name,
            kind=kind,
            street=street,
            city=city,
            state=state,
            postal_code=postal,
            country=hub.country,
            latitude=float(lat),
            longitude=float(lon),
            time_zone=hub.time_zone,
            unlocode=locode or hub.unlocode,
            iata=iata,
            metro=metro,
        )
    return places


PLACES: dict[str, Place] = _build()


# --- geodesy ---------------------------------------------------------------------------------

Point = tuple[float, float]  # (latitude, longitude) in degrees


def distance_km(a: Point, b: Point) -> float:
    """Great-circle distance (haversine)."""
    lat1, lon1 = math.radians(a[0]), math.radians(a[1])
    lat2, lon2 = math.radians(b[0]), math.radians(b[1])
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))


def short_km(a: Point, b: Point) -> float:
    """Distance between nearby points (a few kilometres apart) on the local plane; much
    cheaper than `distance_km` and as exact at that scale."""
    north = math.radians(b[0] - a[0])
    east = math.radians(b[1] - a[1]) * math.cos(math.radians((a[0] + b[0]) / 2))
    return EARTH_RADIUS_KM * math.hypot(north, east)


def bearing_deg(a: Point, b: Point) -> float:
    """Initial course from a to b, 0 to 360 degrees clockwise from north."""
    lat1, lat2 = math.radians(a[0]), math.radians(b[0])
    dlon = math.radians(b[1] - a[1])
    x = math.sin(dlon) * math.cos(lat2)
    y = math.cos(lat1) * math.sin(lat2) - math.sin(lat1) * math.cos(lat2) * math.cos(dlon)
    return (math.degrees(math.atan2(x, y)) + 360.0) % 360.0


def intermediate(a: Point, b: Point, fraction: float) -> Point:
    """The point a fraction of the way along the great circle from a to b."""
    lat1, lon1 = math.radians(a[0]), math.radians(a[1])
    lat2, lon2 = math.radians(b[0]), math.radians(b[1])
    delta = distance_km(a, b) / EARTH_RADIUS_KM
    if delta < 1e-9:
        return a
    sin_delta = math.sin(delta)
    wa = math.sin((1 - fraction) * delta) / sin_delta
    wb = math.sin(fraction * delta) / sin_delta
    x = wa * math.cos(lat1) * math.cos(lon1) + wb * math.cos(lat2) * math.cos(lon2)
    y = wa * math.cos(lat1) * math.sin(lon1) + wb * math.cos(lat2) * math.sin(lon2)
    z = wa * math.sin(lat1) + wb * math.sin(lat2)
    return (math.degrees(math.atan2(z, math.hypot(x, y))), math.degrees(math.atan2(y, x)))


def offset(point: Point, bearing: float, km: float) -> Point:
    """The point `km` away from `point` on the given initial course."""
    lat1, lon1 = math.radians(point[0]), math.radians(point[1])
    course = math.radians(bearing)
    d = km / EARTH_RADIUS_KM
    lat2 = math.asin(math.sin(lat1) * math.cos(d) + math.cos(lat1) * math.sin(d) * math.cos(course))
    lon2 = lon1 + math.atan2(
        math.sin(course) * math.sin(d) * math.cos(lat1),
        math.cos(d) - math.sin(lat1) * math.sin(lat2),
    )
    return (math.degrees(lat2), (math.degrees(lon2) + 540.0) % 360.0 - 180.0)
