"""The world's container ports by UN/LOCODE: reference data both sides use.

The interface has no port lookup: a sailing search takes UN/LOCODEs. The app offers these
ports by name before any search has named one (a dispatcher types "Shanghai", not CNSHA), and
the local service simulates its sailings between them (server/domain/ports.py adds the sea
distances). Each row: the code, the port's usual English name, the container terminal's
position (to about a kilometre), its IANA time zone and the sea area it is reached through.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class PortRow:
    locode: str
    name: str
    latitude: float
    longitude: float
    time_zone: str
    sea_area: str

    @property
    def country(self) -> str:
        """The ISO country code: a UN/LOCODE's first two letters."""
        return self.locode[:2]


# locode | name | latitude | longitude | IANA zone | sea area
_TABLE = """
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


@cache
def port_rows() -> tuple[PortRow, ...]:
    """Every port of the table, in its order (a code repeated is refused)."""
    rows: list[PortRow] = []
    seen: set[str] = set()
    for line in _TABLE.strip().splitlines():
        locode, name, lat, lon, zone, area = (part.strip() for part in line.split("|"))
        if locode in seen:
            raise ValueError(f"port data: {locode} repeated")
        seen.add(locode)
        rows.append(PortRow(locode, name, float(lat), float(lon), zone, area))
    return tuple(rows)
