"""The map page's shell: folium's map with every asset pointed at the local `fdmap:` scheme.

No Qt here, and folium (with branca and pandas: about a second to import) is imported when the
shell is first rendered, so that this can happen on a worker thread while the app warms its
maps up (see `warm`), and the scheme's names cost nothing to import.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

SCHEME = "fdmap"
ORIGIN = f"{SCHEME}://app"
PAGE_URL = f"{ORIGIN}/map.html"


def _boot() -> Any:
    """An element that hands folium's map object to our script once folium has created it."""
    from branca.element import MacroElement
    from jinja2 import Template

    class Boot(MacroElement):
        _template = Template(
            "{% macro script(this, kwargs) %}FD.boot({{ this._parent.get_name() }});{% endmacro %}"
        )

        def __init__(self) -> None:
            super().__init__()  # type: ignore[no-untyped-call]
            self._name = "FreightDeskBoot"

    return Boot()


def render_page() -> str:
    """The page shell: folium's map with local assets only."""
    import folium
    from branca.element import Figure

    world = folium.Map(
        location=[39.5, -98.35],
        zoom_start=4,
        tiles=None,
        prefer_canvas=True,
        control_scale=True,
        min_zoom=2,
        world_copy_jump=True,
    )
    # Leaflet first: the plugin and our script extend it.
    world.default_js = [
        ("leaflet", f"{ORIGIN}/lib/leaflet/leaflet.js"),
        ("markercluster", f"{ORIGIN}/lib/markercluster/leaflet.markercluster.js"),
        ("qwebchannel", f"{ORIGIN}/qwebchannel.js"),
        ("freightdesk", f"{ORIGIN}/assets/map.js"),
    ]
    world.default_css = [
        ("leaflet_css", f"{ORIGIN}/lib/leaflet/leaflet.css"),
        ("markercluster_css", f"{ORIGIN}/lib/markercluster/MarkerCluster.css"),
        ("freightdesk_css", f"{ORIGIN}/assets/map.css"),
    ]
    world.add_child(_boot())
    root = world.get_root()
    assert isinstance(root, Figure)
    html: str = root.render()
    return html


@lru_cache(maxsize=1)
def page_html() -> bytes:
    """The shell as the scheme serves it, rendered once."""
    return render_page().encode()
