"""Container ports of the world and the sea distances between them.

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


# locode | name | latitude | longitude | IANA zone | sea area
_PORTS = """
CNSHA | Shanghai | 30.630 | 122.070 | Asia/Shanghai | ECS
CNNGB | Ningbo | 29.930 | 121.850 | Asia/Shanghai | ECS
CNTAO | Qingdao | 36.010 | 120.230 | Asia/Shanghai | YELLOW
CNLYG | Lianyungang | 34.740 | 119.450 | Asia/Shanghai | YELLOW
CNTXG | Tianjin Xingang | 38.980 | 117.780 | Asia/Shanghai | BOHAI
CNDLC | Dalian | 38.930 | 121.650 | Asia/Shanghai | BOHAI
CNXMN | Xiamen | 24.450 | 118.070 | Asia/Shanghai | TAIWAN_ST
CNFOC | Fuzhou | 26.000 | 119.600 | Asia/Shanghai | TAIWAN_ST
CNYTN | Yantian | 22.570 | 114.270 | Asia/Shanghai | SCS_N
CNSHK | Shekou | 22.480 | 113.910 | Asia/Shanghai | SCS_N
CNNSA | Nansha | 22.750 | 113.620 | Asia/Shanghai | SCS_N
HKHKG | Hong Kong | 22.330 | 114.120 | Asia/Hong_Kong | SCS_N
TWKHH | Kaohsiung | 22.560 | 120.300 | Asia/Taipei | TAIWAN_ST
TWKEL | Keelung | 25.150 | 121.740 | Asia/Taipei | TAIWAN_ST
KRPUS | Busan | 35.080 | 128.820 | Asia/Seoul | KOREA_ST
KRKAN | Gwangyang | 34.900 | 127.680 | Asia/Seoul | KOREA_ST
KRINC | Incheon | 37.450 | 126.600 | Asia/Seoul | YELLOW
JPTYO | Tokyo | 35.620 | 139.790 | Asia/Tokyo | JP_S
JPYOK | Yokohama | 35.450 | 139.660 | Asia/Tokyo | JP_S
JPNGO | Nagoya | 35.050 | 136.850 | Asia/Tokyo | JP_S
JPSMZ | Shimizu | 35.010 | 138.500 | Asia/Tokyo | JP_S
JPOSA | Osaka | 34.640 | 135.420 | Asia/Tokyo | JP_S
JPUKB | Kobe | 34.670 | 135.220 | Asia/Tokyo | JP_S
JPHKT | Hakata | 33.620 | 130.400 | Asia/Tokyo | KOREA_ST
PHMNL | Manila | 14.600 | 120.960 | Asia/Manila | MANILA
VNHPH | Haiphong | 20.850 | 106.760 | Asia/Ho_Chi_Minh | TONKIN
VNCMT | Cai Mep | 10.530 | 107.020 | Asia/Ho_Chi_Minh | SCS
VNSGN | Ho Chi Minh City | 10.760 | 106.790 | Asia/Ho_Chi_Minh | SCS
THLCH | Laem Chabang | 13.080 | 100.880 | Asia/Bangkok | GULF_TH
THBKK | Bangkok | 13.700 | 100.570 | Asia/Bangkok | GULF_TH
KHKOS | Sihanoukville | 10.640 | 103.500 | Asia/Phnom_Penh | GULF_TH
SGSIN | Singapore | 1.265 | 103.780 | Asia/Singapore | SIN
MYTPP | Tanjung Pelepas | 1.360 | 103.550 | Asia/Kuala_Lumpur | SIN
MYPKG | Port Klang | 3.000 | 101.390 | Asia/Kuala_Lumpur | MALACCA
MYPEN | Penang | 5.410 | 100.350 | Asia/Kuala_Lumpur | MALACCA
IDTPP | Jakarta Tanjung Priok | -6.100 | 106.880 | Asia/Jakarta | JAVA
IDSUB | Surabaya | -7.200 | 112.730 | Asia/Jakarta | JAVA
MMRGN | Yangon | 16.770 | 96.170 | Asia/Yangon | MALACCA_N
BDCGP | Chittagong | 22.300 | 91.800 | Asia/Dhaka | BOB
LKCMB | Colombo | 6.950 | 79.840 | Asia/Colombo | LKA
INMAA | Chennai | 13.100 | 80.300 | Asia/Kolkata | BOB
INVTZ | Visakhapatnam | 17.690 | 83.290 | Asia/Kolkata | BOB
INCCU | Kolkata | 22.550 | 88.300 | Asia/Kolkata | BOB
INCOK | Kochi | 9.970 | 76.260 | Asia/Kolkata | ARB
INNSA | Nhava Sheva | 18.950 | 72.950 | Asia/Kolkata | ARB
INMUN | Mundra | 22.740 | 69.700 | Asia/Kolkata | ARB
INPAV | Pipavav | 20.920 | 71.510 | Asia/Kolkata | ARB
PKKHI | Karachi | 24.840 | 66.980 | Asia/Karachi | ARB
PKBQM | Port Qasim | 24.770 | 67.340 | Asia/Karachi | ARB
AEJEA | Jebel Ali | 25.010 | 55.060 | Asia/Dubai | GULF
AEKHL | Khalifa Port | 24.810 | 54.650 | Asia/Dubai | GULF
OMSOH | Sohar | 24.500 | 56.620 | Asia/Muscat | GULF
OMSLL | Salalah | 16.950 | 54.000 | Asia/Muscat | ARB
SADMM | Dammam | 26.500 | 50.210 | Asia/Riyadh | GULF
QAHMD | Hamad Port | 25.010 | 51.620 | Asia/Qatar | GULF
KWSWK | Shuwaikh | 29.350 | 47.930 | Asia/Kuwait | GULF
BHKBS | Khalifa Bin Salman | 26.200 | 50.670 | Asia/Bahrain | GULF
IQUQR | Umm Qasr | 30.030 | 47.950 | Asia/Baghdad | GULF
SAJED | Jeddah | 21.470 | 39.170 | Asia/Riyadh | RED
JOAQJ | Aqaba | 29.520 | 35.000 | Asia/Amman | RED
EGSOK | Ain Sokhna | 29.640 | 32.350 | Africa/Cairo | SUEZ_S
DJJIB | Djibouti | 11.600 | 43.130 | Africa/Djibouti | BAB
EGPSD | Port Said | 31.250 | 32.300 | Africa/Cairo | SUEZ_N
EGALY | Alexandria | 31.180 | 29.870 | Africa/Cairo | EMED
ILHFA | Haifa | 32.820 | 35.000 | Asia/Jerusalem | EMED
ILASH | Ashdod | 31.820 | 34.640 | Asia/Jerusalem | EMED
LBBEY | Beirut | 33.900 | 35.520 | Asia/Beirut | EMED
CYLMS | Limassol | 34.650 | 33.010 | Asia/Nicosia | EMED
TRMER | Mersin | 36.780 | 34.640 | Europe/Istanbul | EMED
TRIZM | Izmir | 38.440 | 27.150 | Europe/Istanbul | AEGEAN
TRIST | Istanbul Ambarli | 40.970 | 28.680 | Europe/Istanbul | MARMARA
GRPIR | Piraeus | 37.940 | 23.590 | Europe/Athens | AEGEAN
GRSKG | Thessaloniki | 40.630 | 22.930 | Europe/Athens | AEGEAN
ROCND | Constanta | 44.150 | 28.660 | Europe/Bucharest | BSEA
BGVAR | Varna | 43.190 | 27.910 | Europe/Sofia | BSEA
MTMAR | Marsaxlokk | 35.820 | 14.540 | Europe/Malta | CMED
ITGIT | Gioia Tauro | 38.450 | 15.900 | Europe/Rome | TYRR
ITNAP | Naples | 40.830 | 14.270 | Europe/Rome | TYRR
ITLIV | Livorno | 43.560 | 10.300 | Europe/Rome | TYRR
ITGOA | Genoa | 44.410 | 8.910 | Europe/Rome | WMED
ITSPE | La Spezia | 44.100 | 9.830 | Europe/Rome | WMED
ITTRS | Trieste | 45.630 | 13.760 | Europe/Rome | ADRIA
ITVCE | Venice | 45.450 | 12.250 | Europe/Rome | ADRIA
SIKOP | Koper | 45.550 | 13.730 | Europe/Ljubljana | ADRIA
HRRJK | Rijeka | 45.330 | 14.420 | Europe/Zagreb | ADRIA
TNRDS | Rades | 36.800 | 10.280 | Africa/Tunis | SICILY_CH
DZALG | Algiers | 36.770 | 3.070 | Africa/Algiers | WMED
FRFOS | Fos-sur-Mer | 43.400 | 4.880 | Europe/Paris | WMED
ESBCN | Barcelona | 41.340 | 2.160 | Europe/Madrid | WMED
ESVLC | Valencia | 39.440 | -0.320 | Europe/Madrid | WMED
ESALG | Algeciras | 36.130 | -5.440 | Europe/Madrid | GIB
MAPTM | Tanger Med | 35.890 | -5.500 | Africa/Casablanca | GIB
MACAS | Casablanca | 33.610 | -7.610 | Africa/Casablanca | IBER
PTSIE | Sines | 37.950 | -8.870 | Europe/Lisbon | IBER
PTLIS | Lisbon | 38.700 | -9.150 | Europe/Lisbon | IBER
ESBIO | Bilbao | 43.350 | -3.050 | Europe/Madrid | BISCAY
FRLEH | Le Havre | 49.470 | 0.170 | Europe/Paris | DOVER
FRDKK | Dunkirk | 51.030 | 2.230 | Europe/Paris | DOVER
GBSOU | Southampton | 50.900 | -1.430 | Europe/London | DOVER
GBFXT | Felixstowe | 51.950 | 1.310 | Europe/London | DOVER
GBLGP | London Gateway | 51.500 | 0.470 | Europe/London | DOVER
BEANR | Antwerp | 51.280 | 4.260 | Europe/Brussels | DOVER
NLRTM | Rotterdam | 51.950 | 4.050 | Europe/Amsterdam | NSEA
DEHAM | Hamburg | 53.540 | 9.930 | Europe/Berlin | NSEA
DEBRV | Bremerhaven | 53.580 | 8.540 | Europe/Berlin | NSEA
DEWVN | Wilhelmshaven | 53.600 | 8.150 | Europe/Berlin | NSEA
GBLIV | Liverpool | 53.450 | -3.020 | Europe/London | IRISH
IEDUB | Dublin | 53.350 | -6.210 | Europe/Dublin | IRISH
ISREY | Reykjavik | 64.150 | -21.940 | Atlantic/Reykjavik | ICELAND
NOOSL | Oslo | 59.900 | 10.740 | Europe/Oslo | SKAGEN
SEGOT | Gothenburg | 57.690 | 11.840 | Europe/Stockholm | SKAGEN
DKAAR | Aarhus | 56.150 | 10.230 | Europe/Copenhagen | SKAGEN
DKCPH | Copenhagen | 55.700 | 12.600 | Europe/Copenhagen | BALTIC
SESTO | Stockholm | 59.330 | 18.070 | Europe/Stockholm | BALTIC_N
PLGDN | Gdansk | 54.390 | 18.710 | Europe/Warsaw | BALTIC
PLGDY | Gdynia | 54.530 | 18.560 | Europe/Warsaw | BALTIC
LTKLJ | Klaipeda | 55.700 | 21.130 | Europe/Vilnius | BALTIC
LVRIX | Riga | 57.000 | 24.100 | Europe/Riga | BALTIC_N
EETLL | Tallinn | 59.450 | 24.770 | Europe/Tallinn | BALTIC_N
FIHEL | Helsinki | 60.210 | 25.190 | Europe/Helsinki | BALTIC_N
FIKTK | Kotka | 60.460 | 26.940 | Europe/Helsinki | BALTIC_N
SNDKR | Dakar | 14.680 | -17.430 | Africa/Dakar | DAKAR
CIABJ | Abidjan | 5.290 | -4.010 | Africa/Abidjan | GUINEA
GHTEM | Tema | 5.630 | 0.020 | Africa/Accra | GUINEA
TGLFW | Lome | 6.130 | 1.280 | Africa/Lome | GUINEA
BJCOO | Cotonou | 6.350 | 2.430 | Africa/Porto-Novo | GUINEA
NGAPP | Lagos Apapa | 6.440 | 3.370 | Africa/Lagos | GUINEA
NGTIN | Lagos Tin Can Island | 6.440 | 3.350 | Africa/Lagos | GUINEA
CMDLA | Douala | 4.040 | 9.690 | Africa/Douala | GUINEA
CGPNR | Pointe-Noire | -4.780 | 11.840 | Africa/Brazzaville | ANGOLA
AOLAD | Luanda | -8.800 | 13.240 | Africa/Luanda | ANGOLA
NAWVB | Walvis Bay | -22.950 | 14.500 | Africa/Windhoek | CAPE
ZACPT | Cape Town | -33.910 | 18.440 | Africa/Johannesburg | CAPE
ZAPLZ | Port Elizabeth | -33.960 | 25.630 | Africa/Johannesburg | CAPE
ZAZBA | Ngqura | -33.800 | 25.680 | Africa/Johannesburg | CAPE
ZADUR | Durban | -29.870 | 31.030 | Africa/Johannesburg | DURBAN
MZMPM | Maputo | -25.970 | 32.570 | Africa/Maputo | DURBAN
TZDAR | Dar es Salaam | -6.830 | 39.290 | Africa/Dar_es_Salaam | EAFR
KEMBA | Mombasa | -4.060 | 39.650 | Africa/Nairobi | EAFR
MUPLU | Port Louis | -20.160 | 57.500 | Indian/Mauritius | MASC
MGTMM | Toamasina | -18.150 | 49.420 | Indian/Antananarivo | MASC
USNYC | New York | 40.680 | -74.150 | America/New_York | USEC
USBOS | Boston | 42.350 | -71.040 | America/New_York | USEC
USPHL | Philadelphia | 39.900 | -75.140 | America/New_York | USEC
USBAL | Baltimore | 39.250 | -76.550 | America/New_York | USEC
USORF | Norfolk | 36.920 | -76.330 | America/New_York | USEC
USCHS | Charleston | 32.830 | -79.900 | America/New_York | USEC_S
USSAV | Savannah | 32.130 | -81.140 | America/New_York | USEC_S
USJAX | Jacksonville | 30.400 | -81.550 | America/New_York | USEC_S
USMIA | Miami | 25.770 | -80.160 | America/New_York | FLSTR
USPEF | Port Everglades | 26.090 | -80.120 | America/New_York | FLSTR
USMOB | Mobile | 30.680 | -88.040 | America/Chicago | GOM
USMSY | New Orleans | 29.930 | -90.060 | America/Chicago | GOM
USHOU | Houston | 29.610 | -95.020 | America/Chicago | GOM
MXATM | Altamira | 22.480 | -97.870 | America/Mexico_City | GOM
MXVER | Veracruz | 19.210 | -96.130 | America/Mexico_City | GOM
CAHAL | Halifax | 44.640 | -63.560 | America/Halifax | CABOT
CASJB | Saint John | 45.260 | -66.070 | America/Moncton | CABOT
CAMTR | Montreal | 45.560 | -73.520 | America/Toronto | GASPE
USLAX | Los Angeles | 33.730 | -118.260 | America/Los_Angeles | USWC
USLGB | Long Beach | 33.750 | -118.210 | America/Los_Angeles | USWC
USOAK | Oakland | 37.800 | -122.320 | America/Los_Angeles | USWC
USSEA | Seattle | 47.580 | -122.350 | America/Los_Angeles | PNW
USTIW | Tacoma | 47.270 | -122.410 | America/Los_Angeles | PNW
CAVAN | Vancouver | 49.290 | -123.080 | America/Vancouver | PNW
CAPRR | Prince Rupert | 54.300 | -130.350 | America/Vancouver | PNW
USANC | Anchorage | 61.240 | -149.890 | America/Anchorage | GOA
USHNL | Honolulu | 21.310 | -157.870 | Pacific/Honolulu | HAWAII
MXESE | Ensenada | 31.850 | -116.620 | America/Tijuana | USWC
MXZLO | Manzanillo | 19.060 | -104.300 | America/Mexico_City | MXPAC
MXLZC | Lazaro Cardenas | 17.930 | -102.180 | America/Mexico_City | MXPAC
GTPRQ | Puerto Quetzal | 13.920 | -90.780 | America/Guatemala | CAPAC
SVAQJ | Acajutla | 13.570 | -89.830 | America/El_Salvador | CAPAC
NICIO | Corinto | 12.480 | -87.170 | America/Managua | CAPAC
PABLB | Balboa | 8.950 | -79.570 | America/Panama | PAN_PAC
PAMIT | Manzanillo (Colon) | 9.360 | -79.880 | America/Panama | PAN_ATL
CRLIO | Puerto Limon | 9.990 | -83.020 | America/Costa_Rica | CARIB_W
HNPCR | Puerto Cortes | 15.840 | -87.940 | America/Tegucigalpa | YUCATAN
GTSTC | Santo Tomas de Castilla | 15.700 | -88.620 | America/Guatemala | YUCATAN
JMKIN | Kingston | 17.980 | -76.830 | America/Jamaica | CARIB
BSFPO | Freeport | 26.520 | -78.770 | America/Nassau | FLSTR
DOCAU | Caucedo | 18.420 | -69.630 | America/Santo_Domingo | CARIB
DOHAI | Rio Haina | 18.420 | -70.010 | America/Santo_Domingo | CARIB
PRSJU | San Juan | 18.450 | -66.100 | America/Puerto_Rico | CARIB_E
TTPOS | Port of Spain | 10.650 | -61.520 | America/Port_of_Spain | TRINIDAD
CWWIL | Willemstad | 12.110 | -68.930 | America/Curacao | CARIB
BBBGI | Bridgetown | 13.100 | -59.630 | America/Barbados | TRINIDAD
COCTG | Cartagena | 10.390 | -75.530 | America/Bogota | CARIB_W
COBAQ | Barranquilla | 11.000 | -74.780 | America/Bogota | CARIB_W
VEPBL | Puerto Cabello | 10.480 | -68.010 | America/Caracas | CARIB
GYGEO | Georgetown | 6.820 | -58.160 | America/Guyana | GUYANA
SRPBM | Paramaribo | 5.820 | -55.160 | America/Paramaribo | GUYANA
COBUN | Buenaventura | 3.880 | -77.070 | America/Bogota | ECUADOR
ECGYE | Guayaquil | -2.280 | -79.910 | America/Guayaquil | ECUADOR
ECPSJ | Posorja | -2.700 | -80.250 | America/Guayaquil | ECUADOR
PEPAI | Paita | -5.080 | -81.110 | America/Lima | PERU
PECLL | Callao | -12.050 | -77.150 | America/Lima | PERU
CLIQQ | Iquique | -20.200 | -70.150 | America/Santiago | CHILE
CLSAI | San Antonio | -33.590 | -71.620 | America/Santiago | CHILE
CLVAP | Valparaiso | -33.030 | -71.630 | America/Santiago | CHILE
CLSVE | San Vicente | -36.730 | -73.130 | America/Santiago | CHILE
ARBUE | Buenos Aires | -34.590 | -58.370 | America/Argentina/Buenos_Aires | PLATE
UYMVD | Montevideo | -34.900 | -56.210 | America/Montevideo | PLATE
BRRIG | Rio Grande | -32.070 | -52.100 | America/Sao_Paulo | PLATE
BRITJ | Itajai | -26.900 | -48.660 | America/Sao_Paulo | ECSA
BRNVT | Navegantes | -26.890 | -48.650 | America/Sao_Paulo | ECSA
BRPNG | Paranagua | -25.500 | -48.520 | America/Sao_Paulo | ECSA
BRSSZ | Santos | -23.950 | -46.300 | America/Sao_Paulo | ECSA
BRRIO | Rio de Janeiro | -22.890 | -43.190 | America/Sao_Paulo | ECSA
BRVIX | Vitoria | -20.320 | -40.330 | America/Sao_Paulo | ECSA
BRSSA | Salvador | -12.960 | -38.510 | America/Bahia | BRNE
BRSUA | Suape | -8.390 | -34.960 | America/Recife | BRNE
BRPEC | Pecem | -3.540 | -38.810 | America/Fortaleza | BRNE
BRMAO | Manaus | -3.140 | -60.020 | America/Manaus | AMAZON
AUBNE | Brisbane | -27.380 | 153.170 | Australia/Brisbane | TASMAN
AUSYD | Sydney | -33.970 | 151.220 | Australia/Sydney | TASMAN
AUMEL | Melbourne | -37.830 | 144.920 | Australia/Melbourne | BASS
AUADL | Adelaide | -34.780 | 138.500 | Australia/Adelaide | AUS_S
AUFRE | Fremantle | -32.050 | 115.740 | Australia/Perth | LEEUWIN
NZAKL | Auckland | -36.840 | 174.780 | Pacific/Auckland | NZ_N
NZTRG | Tauranga | -37.650 | 176.180 | Pacific/Auckland | NZ_N
NZLYT | Lyttelton | -43.610 | 172.720 | Pacific/Auckland | COOK
PGPOM | Port Moresby | -9.480 | 147.150 | Pacific/Port_Moresby | CORAL
FJSUV | Suva | -18.130 | 178.420 | Pacific/Fiji | FIJI
NCNOU | Noumea | -22.270 | 166.440 | Pacific/Noumea | NOUMEA
PFPPT | Papeete | -17.530 | -149.570 | Pacific/Tahiti | TAHITI
"""

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
    for line in _PORTS.strip().splitlines():
        locode, name, lat, lon, zone, area = (field.strip() for field in line.split("|"))
        if locode in ports or area not in WAYPOINTS:
            raise ValueError(f"port data: {locode} repeated or in unknown area {area}")
        ports[locode] = Port(locode, name, locode[:2], float(lat), float(lon), zone, area)
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
