"""Real North American places with centroids, and a geocoder that needs no network.

The local service has no geocoding provider, so an address is located from this small table
of freight cities: an exact postal code first, then the city with its state, then the postal
code's region (the first three characters of a US ZIP or a Canadian postal code, the first
three digits of a Mexican one). An address that matches none of these cannot be located, and
the caller is told so instead of being given a guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import cache

from freightdesk.models.addresses import country_code, region_key, subdivision_code
from freightdesk.models.distances import EARTH_RADIUS_KM as EARTH_RADIUS_KM
from freightdesk.models.distances import distance_km


@dataclass(frozen=True)
class Place:
    city: str
    state: str
    country: str
    postal_code: str  # a real code in the city; for Canada only the forward sortation area
    latitude: float
    longitude: float
    # Relative amount of truck freight around the place (1 to 10), used to seed vehicles.
    weight: int


def _p(
    city: str, state: str, country: str, postal: str, lat: float, lon: float, weight: int
) -> Place:
    return Place(city, state, country, postal, lat, lon, weight)


PLACES: tuple[Place, ...] = (
    # United States: Northeast
    _p("New York", "NY", "US", "10001", 40.7128, -74.0060, 10),
    _p("Newark", "NJ", "US", "07102", 40.7357, -74.1724, 8),
    _p("Jersey City", "NJ", "US", "07302", 40.7178, -74.0431, 5),
    _p("Elizabeth", "NJ", "US", "07201", 40.6640, -74.2107, 6),
    _p("Edison", "NJ", "US", "08817", 40.5187, -74.4121, 6),
    _p("Trenton", "NJ", "US", "08608", 40.2206, -74.7597, 3),
    _p("Philadelphia", "PA", "US", "19103", 39.9526, -75.1652, 8),
    _p("Allentown", "PA", "US", "18101", 40.6023, -75.4714, 6),
    _p("Harrisburg", "PA", "US", "17101", 40.2732, -76.8867, 6),
    _p("Carlisle", "PA", "US", "17013", 40.2015, -77.2003, 4),
    _p("Pittsburgh", "PA", "US", "15222", 40.4406, -79.9959, 6),
    _p("Scranton", "PA", "US", "18503", 41.4090, -75.6624, 3),
    _p("Boston", "MA", "US", "02108", 42.3601, -71.0589, 7),
    _p("Worcester", "MA", "US", "01608", 42.2626, -71.8023, 4),
    _p("Springfield", "MA", "US", "01103", 42.1015, -72.5898, 3),
    _p("Hartford", "CT", "US", "06103", 41.7658, -72.6734, 4),
    _p("New Haven", "CT", "US", "06510", 41.3083, -72.9279, 3),
    _p("Providence", "RI", "US", "02903", 41.8240, -71.4128, 4),
    _p("Portland", "ME", "US", "04101", 43.6591, -70.2568, 2),
    _p("Manchester", "NH", "US", "03101", 42.9956, -71.4548, 2),
    _p("Albany", "NY", "US", "12207", 42.6526, -73.7562, 4),
    _p("Syracuse", "NY", "US", "13202", 43.0481, -76.1474, 3),
    _p("Rochester", "NY", "US", "14604", 43.1566, -77.6088, 3),
    _p("Buffalo", "NY", "US", "14202", 42.8864, -78.8784, 5),
    # Mid-Atlantic and Southeast
    _p("Baltimore", "MD", "US", "21202", 39.2904, -76.6122, 7),
    _p("Hagerstown", "MD", "US", "21740", 39.6418, -77.7200, 3),
    _p("Wilmington", "DE", "US", "19801", 39.7391, -75.5398, 3),
    _p("Washington", "DC", "US", "20001", 38.9072, -77.0369, 6),
    _p("Richmond", "VA", "US", "23219", 37.5407, -77.4360, 5),
    _p("Norfolk", "VA", "US", "23510", 36.8508, -76.2859, 6),
    _p("Roanoke", "VA", "US", "24011", 37.2710, -79.9414, 2),
    _p("Charleston", "WV", "US", "25301", 38.3498, -81.6326, 2),
    _p("Charlotte", "NC", "US", "28202", 35.2271, -80.8431, 7),
    _p("Raleigh", "NC", "US", "27601", 35.7796, -78.6382, 5),
    _p("Greensboro", "NC", "US", "27401", 36.0726, -79.7920, 5),
    _p("Wilmington", "NC", "US", "28401", 34.2257, -77.9447, 3),
    _p("Columbia", "SC", "US", "29201", 34.0007, -81.0348, 4),
    _p("Charleston", "SC", "US", "29401", 32.7765, -79.9311, 6),
    _p("Greenville", "SC", "US", "29601", 34.8526, -82.3940, 5),
    _p("Atlanta", "GA", "US", "30303", 33.7490, -84.3880, 10),
    _p("Savannah", "GA", "US", "31401", 32.0809, -81.0912, 7),
    _p("Macon", "GA", "US", "31201", 32.8407, -83.6324, 3),
    _p("Jacksonville", "FL", "US", "32202", 30.3322, -81.6557, 7),
    _p("Orlando", "FL", "US", "32801", 28.5383, -81.3792, 6),
    _p("Lakeland", "FL", "US", "33801", 28.0395, -81.9498, 4),
    _p("Tampa", "FL", "US", "33602", 27.9506, -82.4572, 6),
    _p("Miami", "FL", "US", "33130", 25.7617, -80.1918, 7),
    _p("Tallahassee", "FL", "US", "32301", 30.4383, -84.2807, 2),
    _p("Birmingham", "AL", "US", "35203", 33.5186, -86.8104, 5),
    _p("Mobile", "AL", "US", "36602", 30.6954, -88.0399, 5),
    _p("Montgomery", "AL", "US", "36104", 32.3792, -86.3077, 3),
    _p("Huntsville", "AL", "US", "35801", 34.7304, -86.5861, 3),
    _p("Nashville", "TN", "US", "37203", 36.1627, -86.7816, 7),
    _p("Memphis", "TN", "US", "38103", 35.1495, -90.0490, 9),
    _p("Knoxville", "TN", "US", "37902", 35.9606, -83.9207, 4),
    _p("Chattanooga", "TN", "US", "37402", 35.0456, -85.3097, 5),
    _p("Louisville", "KY", "US", "40202", 38.2527, -85.7585, 7),
    _p("Lexington", "KY", "US", "40507", 38.0406, -84.5037, 3),
    _p("Jackson", "MS", "US", "39201", 32.2988, -90.1848, 3),
    _p("Gulfport", "MS", "US", "39501", 30.3674, -89.0928, 2),
    _p("New Orleans", "LA", "US", "70112", 29.9511, -90.0715, 7),
    _p("Baton Rouge", "LA", "US", "70801", 30.4515, -91.1871, 4),
    _p("Shreveport", "LA", "US", "71101", 32.5252, -93.7502, 3),
    _p("Lafayette", "LA", "US", "70501", 30.2241, -92.0198, 2),
    _p("Little Rock", "AR", "US", "72201", 34.7465, -92.2896, 4),
    _p("Fort Smith", "AR", "US", "72901", 35.3859, -94.3985, 2),
    _p("Bentonville", "AR", "US", "72712", 36.3729, -94.2088, 3),
    # Midwest
    _p("Cincinnati", "OH", "US", "45202", 39.1031, -84.5120, 7),
    _p("Columbus", "OH", "US", "43215", 39.9612, -82.9988, 8),
    _p("Cleveland", "OH", "US", "44113", 41.4993, -81.6944, 7),
    _p("Toledo", "OH", "US", "43604", 41.6528, -83.5379, 5),
    _p("Dayton", "OH", "US", "45402", 39.7589, -84.1916, 5),
    _p("Akron", "OH", "US", "44308", 41.0814, -81.5190, 3),
    _p("Detroit", "MI", "US", "48226", 42.3314, -83.0458, 8),
    _p("Grand Rapids", "MI", "US", "49503", 42.9634, -85.6681, 5),
    _p("Lansing", "MI", "US", "48933", 42.7325, -84.5555, 3),
    _p("Indianapolis", "IN", "US", "46204", 39.7684, -86.1581, 9),
    _p("Fort Wayne", "IN", "US", "46802", 41.0793, -85.1394, 4),
    _p("Gary", "IN", "US", "46402", 41.5934, -87.3464, 4),
    _p("Evansville", "IN", "US", "47708", 37.9716, -87.5711, 3),
    _p("Chicago", "IL", "US", "60601", 41.8781, -87.6298, 10),
    _p("Joliet", "IL", "US", "60432", 41.5250, -88.0817, 8),
    _p("Elwood", "IL", "US", "60421", 41.4039, -88.1117, 5),
    _p("Aurora", "IL", "US", "60505", 41.7606, -88.3201, 4),
    _p("Rockford", "IL", "US", "61101", 42.2711, -89.0940, 4),
    _p("Peoria", "IL", "US", "61602", 40.6936, -89.5890, 3),
    _p("Springfield", "IL", "US", "62701", 39.7817, -89.6501, 2),
    _p("Milwaukee", "WI", "US", "53202", 43.0389, -87.9065, 6),
    _p("Madison", "WI", "US", "53703", 43.0731, -89.4012, 3),
    _p("Green Bay", "WI", "US", "54301", 44.5133, -88.0133, 3),
    _p("Minneapolis", "MN", "US", "55401", 44.9778, -93.2650, 7),
    _p("Saint Paul", "MN", "US", "55102", 44.9537, -93.0900, 4),
    _p("Duluth", "MN", "US", "55802", 46.7867, -92.1005, 2),
    _p("Fargo", "ND", "US", "58102", 46.8772, -96.7898, 2),
    _p("Sioux Falls", "SD", "US", "57104", 43.5446, -96.7311, 2),
    _p("Rapid City", "SD", "US", "57701", 44.0805, -103.2310, 1),
    _p("Des Moines", "IA", "US", "50309", 41.5868, -93.6250, 4),
    _p("Cedar Rapids", "IA", "US", "52401", 41.9779, -91.6656, 3),
    _p("Davenport", "IA", "US", "52801", 41.5236, -90.5776, 3),
    _p("Omaha", "NE", "US", "68102", 41.2565, -95.9345, 5),
    _p("Lincoln", "NE", "US", "68508", 40.8136, -96.7026, 2),
    _p("Kansas City", "MO", "US", "64105", 39.0997, -94.5786, 9),
    _p("St. Louis", "MO", "US", "63101", 38.6270, -90.1994, 8),
    _p("Springfield", "MO", "US", "65806", 37.2090, -93.2923, 3),
    _p("Joplin", "MO", "US", "64801", 37.0842, -94.5133, 2),
    _p("Wichita", "KS", "US", "67202", 37.6872, -97.3301, 3),
    _p("Topeka", "KS", "US", "66603", 39.0473, -95.6752, 2),
    _p("Edgerton", "KS", "US", "66021", 38.7645, -95.0086, 3),
    # South Central and Southwest
    _p("Oklahoma City", "OK", "US", "73102", 35.4676, -97.5164, 5),
    _p("Tulsa", "OK", "US", "74103", 36.1540, -95.9928, 4),
    _p("Dallas", "TX", "US", "75201", 32.7767, -96.7970, 10),
    _p("Fort Worth", "TX", "US", "76102", 32.7555, -97.3308, 8),
    _p("Houston", "TX", "US", "77002", 29.7604, -95.3698, 10),
    _p("San Antonio", "TX", "US", "78205", 29.4241, -98.4936, 7),
    _p("Austin", "TX", "US", "78701", 30.2672, -97.7431, 6),
    _p("El Paso", "TX", "US", "79901", 31.7619, -106.4850, 6),
    _p("Laredo", "TX", "US", "78040", 27.5306, -99.4803, 8),
    _p("McAllen", "TX", "US", "78501", 26.2034, -98.2300, 5),
    _p("Corpus Christi", "TX", "US", "78401", 27.8006, -97.3964, 3),
    _p("Amarillo", "TX", "US", "79101", 35.2220, -101.8313, 3),
    _p("Lubbock", "TX", "US", "79401", 33.5779, -101.8552, 2),
    _p("Midland", "TX", "US", "79701", 31.9973, -102.0779, 3),
    _p("Beaumont", "TX", "US", "77701", 30.0802, -94.1266, 3),
    _p("Waco", "TX", "US", "76701", 31.5493, -97.1467, 3),
    _p("Texarkana", "TX", "US", "75501", 33.4251, -94.0477, 2),
    _p("Albuquerque", "NM", "US", "87102", 35.0844, -106.6504, 4),
    _p("Santa Teresa", "NM", "US", "88008", 31.8559, -106.6392, 3),
    _p("Phoenix", "AZ", "US", "85004", 33.4484, -112.0740, 8),
    _p("Tucson", "AZ", "US", "85701", 32.2226, -110.9747, 4),
    _p("Flagstaff", "AZ", "US", "86001", 35.1983, -111.6513, 2),
    # Mountain and West
    _p("Denver", "CO", "US", "80202", 39.7392, -104.9903, 7),
    _p("Colorado Springs", "CO", "US", "80903", 38.8339, -104.8214, 3),
    _p("Grand Junction", "CO", "US", "81501", 39.0639, -108.5506, 1),
    _p("Cheyenne", "WY", "US", "82001", 41.1400, -104.8202, 2),
    _p("Salt Lake City", "UT", "US", "84101", 40.7608, -111.8910, 6),
    _p("Ogden", "UT", "US", "84401", 41.2230, -111.9738, 3),
    _p("Boise", "ID", "US", "83702", 43.6150, -116.2023, 3),
    _p("Billings", "MT", "US", "59101", 45.7833, -108.5007, 2),
    _p("Missoula", "MT", "US", "59802", 46.8721, -113.9940, 1),
    _p("Las Vegas", "NV", "US", "89101", 36.1699, -115.1398, 5),
    _p("Reno", "NV", "US", "89501", 39.5296, -119.8138, 5),
    _p("Los Angeles", "CA", "US", "90012", 34.0522, -118.2437, 10),
    _p("Long Beach", "CA", "US", "90802", 33.7701, -118.1937, 8),
    _p("Ontario", "CA", "US", "91761", 34.0633, -117.6509, 9),
    _p("San Bernardino", "CA", "US", "92401", 34.1083, -117.2898, 7),
    _p("Riverside", "CA", "US", "92501", 33.9806, -117.3755, 6),
    _p("San Diego", "CA", "US", "92101", 32.7157, -117.1611, 6),
    _p("Bakersfield", "CA", "US", "93301", 35.3733, -119.0187, 4),
    _p("Fresno", "CA", "US", "93721", 36.7378, -119.7871, 5),
    _p("Stockton", "CA", "US", "95202", 37.9577, -121.2908, 6),
    _p("Sacramento", "CA", "US", "95814", 38.5816, -121.4944, 5),
    _p("Oakland", "CA", "US", "94607", 37.8044, -122.2712, 7),
    _p("San Jose", "CA", "US", "95113", 37.3382, -121.8863, 5),
    _p("San Francisco", "CA", "US", "94103", 37.7749, -122.4194, 5),
    _p("Redding", "CA", "US", "96001", 40.5865, -122.3917, 1),
    _p("Portland", "OR", "US", "97204", 45.5152, -122.6784, 6),
    _p("Eugene", "OR", "US", "97401", 44.0521, -123.0868, 2),
    _p("Medford", "OR", "US", "97501", 42.3265, -122.8756, 1),
    _p("Seattle", "WA", "US", "98104", 47.6062, -122.3321, 7),
    _p("Tacoma", "WA", "US", "98402", 47.2529, -122.4443, 6),
    _p("Spokane", "WA", "US", "99201", 47.6588, -117.4260, 3),
    _p("Yakima", "WA", "US", "98901", 46.6021, -120.5059, 2),
    # Canada (postal code: the forward sortation area only)
    _p("Toronto", "ON", "CA", "M5V", 43.6532, -79.3832, 9),
    _p("Brampton", "ON", "CA", "L6T", 43.7315, -79.7624, 6),
    _p("Mississauga", "ON", "CA", "L5B", 43.5890, -79.6441, 6),
    _p("Vaughan", "ON", "CA", "L4K", 43.8361, -79.4985, 5),
    _p("Hamilton", "ON", "CA", "L8P", 43.2557, -79.8711, 4),
    _p("London", "ON", "CA", "N6A", 42.9849, -81.2453, 3),
    _p("Windsor", "ON", "CA", "N9A", 42.3149, -83.0364, 4),
    _p("Ottawa", "ON", "CA", "K1P", 45.4215, -75.6972, 4),
    _p("Kingston", "ON", "CA", "K7L", 44.2312, -76.4860, 2),
    _p("Montreal", "QC", "CA", "H3B", 45.5017, -73.5673, 8),
    _p("Quebec", "QC", "CA", "G1R", 46.8139, -71.2080, 4),
    _p("Halifax", "NS", "CA", "B3H", 44.6488, -63.5752, 4),
    _p("Moncton", "NB", "CA", "E1C", 46.0878, -64.7782, 2),
    _p("Winnipeg", "MB", "CA", "R3C", 49.8951, -97.1384, 4),
    _p("Regina", "SK", "CA", "S4P", 50.4452, -104.6189, 2),
    _p("Saskatoon", "SK", "CA", "S7K", 52.1332, -106.6700, 2),
    _p("Calgary", "AB", "CA", "T2P", 51.0447, -114.0719, 6),
    _p("Edmonton", "AB", "CA", "T5J", 53.5461, -113.4938, 5),
    _p("Vancouver", "BC", "CA", "V6B", 49.2827, -123.1207, 7),
    _p("Surrey", "BC", "CA", "V3T", 49.1913, -122.8490, 5),
    _p("Kelowna", "BC", "CA", "V1Y", 49.8880, -119.4960, 1),
    _p("Prince George", "BC", "CA", "V2L", 53.9171, -122.7497, 1),
    # Mexico
    _p("Ciudad de Mexico", "CMX", "MX", "06000", 19.4326, -99.1332, 8),
    _p("Monterrey", "NLE", "MX", "64000", 25.6866, -100.3161, 7),
    _p("Guadalajara", "JAL", "MX", "44100", 20.6597, -103.3496, 6),
    _p("Nuevo Laredo", "TAM", "MX", "88000", 27.4779, -99.5496, 6),
    _p("Reynosa", "TAM", "MX", "88500", 26.0922, -98.2779, 4),
    _p("Tijuana", "BCN", "MX", "22000", 32.5149, -117.0382, 5),
    _p("Mexicali", "BCN", "MX", "21000", 32.6245, -115.4523, 3),
    _p("Ciudad Juarez", "CHH", "MX", "32000", 31.6904, -106.4245, 5),
    _p("Chihuahua", "CHH", "MX", "31000", 28.6320, -106.0691, 3),
    _p("Hermosillo", "SON", "MX", "83000", 29.0729, -110.9559, 2),
    _p("Saltillo", "COA", "MX", "25000", 25.4232, -100.9924, 4),
    _p("Queretaro", "QUE", "MX", "76000", 20.5888, -100.3899, 4),
    _p("San Luis Potosi", "SLP", "MX", "78000", 22.1565, -100.9855, 4),
    _p("Aguascalientes", "AGU", "MX", "20000", 21.8853, -102.2916, 3),
    _p("Leon", "GUA", "MX", "37000", 21.1250, -101.6860, 3),
    _p("Puebla", "PUE", "MX", "72000", 19.0414, -98.2063, 3),
    _p("Toluca", "MEX", "MX", "50000", 19.2826, -99.6557, 3),
    _p("Veracruz", "VER", "MX", "91700", 19.1738, -96.1342, 3),
    _p("Manzanillo", "COL", "MX", "28200", 19.0522, -104.3158, 3),
    _p("Lazaro Cardenas", "MIC", "MX", "60950", 17.9580, -102.2000, 2),
)


class Precision(StrEnum):
    """How closely a located address is known."""

    POSTAL_CODE = "POSTAL_CODE"
    CITY = "CITY"
    POSTAL_REGION = "POSTAL_REGION"


@dataclass(frozen=True)
class Located:
    place: Place
    precision: Precision


class NotLocated(ValueError):
    """The address matches no known place; the message says what was tried."""


def _postal_key(country: str, postal_code: str) -> str:
    compact = "".join(postal_code.split()).upper().replace("-", "")
    if country == "US":
        return compact[:5]
    if country == "CA":
        return compact[:3]
    return compact


def _region_key(country: str, postal_code: str) -> str:
    return _postal_key(country, postal_code)[:3]


@cache
def _indexes() -> tuple[
    dict[tuple[str, str], Place], dict[tuple[str, str, str], Place], dict[tuple[str, str], Place]
]:
    by_postal: dict[tuple[str, str], Place] = {}
    by_city: dict[tuple[str, str, str], Place] = {}
    by_region: dict[tuple[str, str], Place] = {}
    for place in PLACES:
        by_postal.setdefault((place.country, _postal_key(place.country, place.postal_code)), place)
        by_city.setdefault((place.country, place.state, region_key(place.city)), place)
        # The heaviest place of a postal region stands for the whole region.
        key = (place.country, _region_key(place.country, place.postal_code))
        if key not in by_region or by_region[key].weight < place.weight:
            by_region[key] = place
    return by_postal, by_city, by_region


def geocode(
    *, country: str | None, state: str | None, city: str | None, postal_code: str | None
) -> Located:
    """The place an address is in, or NotLocated."""
    code = country_code(country)
    if code is None:
        raise NotLocated(f"country {country!r} is not known")
    by_postal, by_city, by_region = _indexes()
    if postal_code and postal_code.strip():
        exact = by_postal.get((code, _postal_key(code, postal_code)))
        if exact is not None:
            return Located(exact, Precision.POSTAL_CODE)
    if city and city.strip():
        subdivision = subdivision_code(code, state) if state and state.strip() else None
        if subdivision is not None:
            found = by_city.get((code, subdivision, region_key(city)))
            if found is not None:
                return Located(found, Precision.CITY)
        elif not state or not state.strip():
            matches = [
                place
                for (c, _, name), place in by_city.items()
                if c == code and name == region_key(city)
            ]
            if len(matches) == 1:
                return Located(matches[0], Precision.CITY)
    if postal_code and postal_code.strip():
        region = by_region.get((code, _region_key(code, postal_code)))
        if region is not None:
            return Located(region, Precision.POSTAL_REGION)
    described = ", ".join(part for part in (postal_code, city, state, code) if part)
    raise NotLocated(
        f"no known place matches {described}; send geoCoordinates, or a postal code or city "
        "of a larger place nearby"
    )


def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    return distance_km((lat1, lon1), (lat2, lon2))


def nearest_place(latitude: float, longitude: float) -> Place:
    return min(PLACES, key=lambda p: haversine_km(latitude, longitude, p.latitude, p.longitude))
