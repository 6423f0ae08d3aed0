"""The map page's shell: folium's map with every asset pointed at the local `fdmap:` scheme.

No Qt here. The shell is rendered ahead into `assets/map.html` (`python -m
freightdesk.ui.maps.shell` writes it; a test checks it is what `render_page` makes now), and
the scheme serves that file: importing folium (with branca and pandas) to render it took 1.0 to
1.7 s of a session's first map, on the GUI thread, while the page waited for its HTML.
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache
from typing import Any

from freightdesk.ui.maps import ASSETS

SCHEME = "fdmap"
ORIGIN = f"{SCHEME}://app"
PAGE_URL = f"{ORIGIN}/map.html"
SHELL = ASSETS / "map.html"
# folium names the map's element and variable after a random id: fixed, the shell is the same
# at every rendering, so the file can be checked against a fresh one.
MAP_ID = "freightdesk"
# The folium that rendered the shell, named in it: About credits it with no folium installed.
_GENERATOR = re.compile(r'<meta name="generator" content="folium ([^"]+)"')


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
    world._id = MAP_ID
    world.add_child(_boot())
    root = world.get_root()
    assert isinstance(root, Figure)
    html: str = root.render()
    # Not importlib.metadata.version("folium"): PyInstaller bundles the metadata of every
    # distribution such a call names, and the bundle has no use for folium's.
    folium_version = folium.__version__  # type: ignore[attr-defined]
    generator = f'<meta name="generator" content="folium {folium_version}" />'
    return html.replace("<head>", f"<head>\n    {generator}", 1)


@lru_cache(maxsize=1)
def page_html() -> bytes:
    """The shell as the scheme serves it: the file rendered ahead."""
    return SHELL.read_bytes()


def rendered_with() -> str:
    """The version of folium that rendered the shell, "" if the shell does not name it."""
    found = _GENERATOR.search(page_html().decode("utf-8", errors="replace"))
    return found.group(1) if found else ""


def write_page() -> None:
    """Render the shell into `SHELL` (after a change to `render_page` or a new folium)."""
    SHELL.write_text(render_page(), encoding="utf-8")


if __name__ == "__main__":
    write_page()
    sys.stdout.write(f"wrote {SHELL}\n")
