"""Maps: a shipment's track, stops and events, and the fleet, in a QtWebEngine view.

Importing the package registers the `fdmap:` URL scheme, which Qt allows only before the
QApplication exists (see `scheme.register_scheme`).
"""

from freightdesk.ui.maps.scheme import register_scheme

register_scheme()
