"""Maps: a shipment's track, stops and events, and the fleet, in a QtWebEngine view.

The `fdmap:` URL scheme is registered when `scheme` is first imported, which every map does
before it makes QtWebEngine's first object (see `scheme.register_scheme`). Importing this
package alone loads no QtWebEngine: the window shows the map pane's icon from `ASSETS`
before the first paint.
"""

from pathlib import Path

ASSETS = Path(__file__).with_name("assets")
