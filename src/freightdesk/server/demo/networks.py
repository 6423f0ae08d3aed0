"""The demo's transport networks: highways, rail corridors and sea lanes between real places.

A route between two places is the shortest path over a small graph whose links follow real
corridors (the interstates, the Trans-Canada, the European motorways; shipping lanes through
the Dover Strait, the Florida Straits, the Kiel Canal, ...). A truck from Chicago to Dallas
therefore passes St. Louis, Memphis and Little Rock or Oklahoma City rather than flying
straight, and a ship from Rotterdam to Houston goes round Florida. North American rail lines
run mostly beside the interstates, so rail uses the road graph.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable
from functools import cache

from freightdesk.server.demo.geography import PLACES, Place, Point, distance_km

# Highway links between city nodes of `geography` (both directions).
_ROADS = """
vancouver seattle | seattle tacoma | tacoma portland | portland sacramento | sacramento oakland
sacramento los-angeles | sacramento reno | reno salt-lake-city | salt-lake-city rock-springs
rock-springs cheyenne | cheyenne north-platte | north-platte omaha | omaha des-moines
des-moines chicago | chicago toledo | toledo cleveland | cleveland pittsburgh
pittsburgh harrisburg | harrisburg philadelphia | harrisburg new-york | philadelphia new-york
salt-lake-city boise | boise portland | seattle spokane | spokane billings | billings fargo
fargo minneapolis | minneapolis milwaukee | milwaukee chicago | fargo winnipeg
salt-lake-city las-vegas | las-vegas barstow | barstow los-angeles | barstow flagstaff
flagstaff albuquerque | albuquerque amarillo | amarillo oklahoma-city
oklahoma-city little-rock | little-rock memphis | memphis nashville | nashville knoxville
knoxville charlotte | los-angeles phoenix | phoenix tucson | tucson el-paso
el-paso san-antonio | san-antonio houston | houston baton-rouge | baton-rouge new-orleans
new-orleans mobile | mobile tallahassee | tallahassee jacksonville | flagstaff phoenix
el-paso albuquerque | albuquerque denver | denver cheyenne | denver kansas-city
kansas-city st-louis | st-louis indianapolis | indianapolis columbus | columbus pittsburgh
denver north-platte | laredo san-antonio | san-antonio dallas | dallas oklahoma-city
oklahoma-city kansas-city | kansas-city des-moines | des-moines minneapolis
laredo nuevo-laredo | nuevo-laredo monterrey | monterrey san-luis-potosi
san-luis-potosi queretaro | queretaro mexico-city | queretaro guadalajara
mexico-city veracruz | dallas shreveport | shreveport jackson | jackson birmingham-al
birmingham-al atlanta | atlanta columbia | columbia charlotte | columbia charleston
chicago st-louis | st-louis memphis | memphis jackson | jackson new-orleans
chicago indianapolis | indianapolis louisville | louisville nashville
nashville birmingham-al | birmingham-al mobile | detroit toledo | toledo cincinnati
cincinnati knoxville | knoxville chattanooga | chattanooga atlanta | chattanooga nashville
cincinnati columbus | columbus cleveland | cincinnati louisville | indianapolis cincinnati
atlanta savannah | savannah jacksonville | jacksonville orlando | orlando miami
savannah charleston | savannah richmond | richmond baltimore | baltimore philadelphia
new-york hartford | hartford boston | richmond norfolk | charlotte richmond
charlotte atlanta | detroit chicago | detroit london-on | london-on toronto
toronto kingston-on | kingston-on montreal | montreal albany | albany new-york
albany syracuse | syracuse buffalo | buffalo toronto | albany boston | buffalo cleveland
montreal halifax | winnipeg regina | regina calgary | calgary edmonton | calgary vancouver
harrisburg baltimore | little-rock dallas | dallas houston | kansas-city omaha
rotterdam amsterdam | rotterdam antwerp | rotterdam eindhoven | amsterdam eindhoven
eindhoven venlo | venlo duisburg | duisburg dusseldorf | duisburg dortmund
dusseldorf cologne | cologne frankfurt | cologne liege | liege brussels | brussels antwerp
antwerp eindhoven | brussels lille | lille calais | lille paris | calais dover
dover london | london felixstowe | london birmingham-uk | birmingham-uk manchester
paris rouen | paris reims | reims metz | metz luxembourg | luxembourg liege | metz strasbourg
strasbourg basel | paris dijon | dijon lyon | lyon marseille | marseille montpellier
montpellier toulouse | montpellier barcelona | toulouse bordeaux | bordeaux paris
bordeaux bilbao | bilbao madrid | barcelona zaragoza | zaragoza madrid | barcelona valencia
valencia madrid | madrid seville | seville algeciras | madrid lisbon | basel zurich
zurich milan | basel mannheim | mannheim frankfurt | mannheim stuttgart | stuttgart munich
frankfurt nuremberg | nuremberg munich | munich innsbruck | innsbruck verona | verona milan
verona bologna | milan genoa | milan bologna | munich salzburg | salzburg linz | linz vienna
vienna bratislava | bratislava budapest | vienna brno | brno prague | nuremberg prague
prague dresden | dresden leipzig | leipzig berlin | leipzig nuremberg | leipzig kassel
kassel frankfurt | kassel hannover | hannover hamburg | hannover dortmund | hannover berlin
hamburg bremen | bremen dortmund | hamburg berlin | berlin poznan | poznan warsaw
warsaw lodz | lodz wroclaw | wroclaw dresden | poznan wroclaw | gdansk lodz | warsaw gdansk
hamburg kolding | kolding aarhus | kolding copenhagen | copenhagen malmo | malmo gothenburg
gothenburg jonkoping | jonkoping stockholm | malmo jonkoping | lyon basel
"""

# Sea waypoints: approaches, straits and open-ocean turning points (latitude, longitude).
_SEA_POINTS: dict[str, Point] = {
    "maas": (52.00, 3.90),
    "north-sea": (53.40, 3.50),
    "german-bight": (54.05, 7.00),
    "elbe": (53.98, 8.40),
    "brunsbuttel": (53.89, 9.14),
    "kiel": (54.40, 10.20),
    "fehmarn-belt": (54.57, 11.30),
    "arkona": (54.85, 13.60),
    "bornholm": (54.85, 15.50),
    "gdansk-bay": (54.55, 18.95),
    "weser": (53.86, 8.20),
    "scheldt-1": (51.37, 4.22),
    "scheldt-2": (51.38, 3.90),
    "scheldt-3": (51.42, 3.55),
    "scheldt-out": (51.45, 3.00),
    "felixstowe-out": (51.90, 1.75),
    "dover-strait": (51.02, 1.55),
    "seine-bay": (49.55, -0.10),
    "channel": (50.35, -0.80),
    "lizard": (49.75, -4.50),
    "ushant": (48.90, -6.00),
    "skagerrak": (57.60, 8.20),
    "skagen": (57.90, 10.90),
    "vinga": (57.62, 11.55),
    "finisterre": (43.20, -9.90),
    "st-vincent": (36.90, -9.40),
    "gibraltar": (35.95, -5.60),
    "alboran": (36.30, -2.50),
    "palos": (37.40, -0.30),
    "la-nao": (38.70, 0.70),
    "balearic": (41.00, 3.00),
    "gulf-of-lion": (42.50, 5.50),
    "ligurian": (43.80, 8.50),
    "mid-atlantic-north": (46.00, -30.00),
    "mid-atlantic-south": (38.00, -40.00),
    "grand-banks": (43.00, -50.00),
    "cape-race": (46.20, -53.00),
    "cabot-strait": (47.35, -59.90),
    "gaspe": (48.60, -62.50),
    "anticosti": (49.35, -65.50),
    "rimouski": (48.75, -68.60),
    "saint-simeon": (47.70, -69.90),
    "ile-d-orleans": (47.05, -70.75),
    "quebec": (46.84, -71.15),
    "trois-rivieres": (46.35, -72.50),
    "halifax-approach": (44.40, -63.40),
    "nantucket": (40.30, -69.00),
    "ambrose": (40.45, -73.82),
    "narrows": (40.61, -74.04),
    "chesapeake": (36.95, -75.90),
    "chesapeake-north": (38.50, -76.40),
    "charleston-approach": (32.65, -79.65),
    "savannah-approach": (31.95, -80.75),
    "bahamas-north": (27.60, -79.40),
    "florida-straits": (25.20, -79.95),
    "key-west": (24.30, -81.80),
    "gulf": (26.50, -88.00),
    "galveston": (29.25, -94.60),
    "bolivar": (29.35, -94.75),
    "campeche": (22.00, -92.00),
    "veracruz-approach": (19.30, -95.90),
}

_SEA_LANES = """
port-rotterdam maas | maas north-sea | north-sea german-bight | maas dover-strait
port-hamburg elbe | elbe german-bight | port-hamburg brunsbuttel | brunsbuttel kiel
kiel fehmarn-belt | fehmarn-belt arkona | arkona bornholm | bornholm gdansk-bay
gdansk-bay port-gdansk | port-bremerhaven weser | weser german-bight
port-antwerp scheldt-1 | scheldt-1 scheldt-2 | scheldt-2 scheldt-3 | scheldt-3 scheldt-out
scheldt-out dover-strait | scheldt-out maas | port-felixstowe felixstowe-out
felixstowe-out dover-strait | felixstowe-out maas | dover-strait channel
port-le-havre seine-bay | seine-bay channel | channel lizard | lizard ushant
german-bight skagerrak | skagerrak skagen | skagen vinga | vinga port-gothenburg
ushant finisterre | finisterre st-vincent | st-vincent gibraltar | gibraltar port-algeciras
gibraltar alboran | alboran palos | palos la-nao | la-nao port-valencia | la-nao balearic
balearic gulf-of-lion | gulf-of-lion ligurian | ligurian port-genoa
ushant mid-atlantic-north | mid-atlantic-north grand-banks | ushant mid-atlantic-south
st-vincent mid-atlantic-south | mid-atlantic-north cape-race | grand-banks cape-race
cape-race cabot-strait | cabot-strait gaspe | gaspe anticosti | anticosti rimouski
rimouski saint-simeon | saint-simeon ile-d-orleans | ile-d-orleans quebec
quebec trois-rivieres | trois-rivieres port-montreal | grand-banks halifax-approach
halifax-approach port-halifax | grand-banks nantucket | nantucket ambrose | ambrose narrows
narrows port-new-york | mid-atlantic-south chesapeake | chesapeake port-norfolk
chesapeake chesapeake-north | chesapeake-north port-baltimore
mid-atlantic-south charleston-approach | charleston-approach port-charleston
mid-atlantic-south savannah-approach | savannah-approach port-savannah
mid-atlantic-south bahamas-north | bahamas-north florida-straits | florida-straits port-miami
florida-straits key-west | key-west gulf | gulf galveston | galveston bolivar
bolivar port-houston | key-west campeche | campeche veracruz-approach
veracruz-approach port-veracruz | grand-banks mid-atlantic-south | nantucket chesapeake
"""

# Roads bend: the distance a truck drives is longer than the links' great circles.
ROAD_CIRCUITY = 1.12


def _links(table: str) -> list[tuple[str, str]]:
    links = []
    for line in table.strip().splitlines():
        for pair in line.split("|"):
            a, b = pair.split()
            links.append((a, b))
    return links


def _point(key: str) -> Point:
    if key in _SEA_POINTS:
        return _SEA_POINTS[key]
    return PLACES[key].point


Graph = dict[str, list[tuple[str, float]]]


def _graph(links: Iterable[tuple[str, str]]) -> Graph:
    graph: Graph = {}
    for a, b in links:
        length = distance_km(_point(a), _point(b))
        graph.setdefault(a, []).append((b, length))
        graph.setdefault(b, []).append((a, length))
    return graph


ROAD_GRAPH: Graph = _graph(_links(_ROADS))
SEA_GRAPH: Graph = _graph(_links(_SEA_LANES))


def _shortest(graph: Graph, start: str, goal: str) -> list[str]:
    """Dijkstra; ties break on node names so the answer never depends on dict order."""
    if start == goal:
        return [start]
    best = {start: 0.0}
    previous: dict[str, str] = {}
    queue: list[tuple[float, str]] = [(0.0, start)]
    while queue:
        cost, node = heapq.heappop(queue)
        if node == goal:
            break
        if cost > best.get(node, float("inf")):
            continue
        for neighbour, length in graph[node]:
            candidate = cost + length
            if candidate < best.get(neighbour, float("inf")) - 1e-9:
                best[neighbour] = candidate
                previous[neighbour] = node
                heapq.heappush(queue, (candidate, neighbour))
    if goal not in previous:
        raise ValueError(f"no route from {start} to {goal}")
    path = [goal]
    while path[-1] != start:
        path.append(previous[path[-1]])
    return path[::-1]


@cache
def road_nodes(start: str, goal: str) -> tuple[str, ...]:
    """The city nodes a truck passes between two network nodes (both included)."""
    return tuple(_shortest(ROAD_GRAPH, start, goal))


def road_waypoints(a: Place, b: Place) -> list[Point]:
    """Points a truck passes from place a to place b, both included.

    A place off the network (a port, terminal, airport or warehouse) joins it at its metro
    city's node, which a truck leaves towards the next node directly rather than through the
    city centre.
    """
    inner = [PLACES[key].point for key in road_nodes(a.node, b.node)][1:-1]
    return [a.point, *inner, b.point]


def sea_waypoints(origin_port: str, destination_port: str) -> list[Point]:
    """The sea lane from one port to another, both ports included."""
    return [_point(key) for key in _shortest(SEA_GRAPH, origin_port, destination_port)]


def path_length_km(points: list[Point]) -> float:
    return sum(distance_km(a, b) for a, b in itertools.pairwise(points))
