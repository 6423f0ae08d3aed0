"""About FreightDesk: its version, what it runs on, the licences of what it bundles, where
its log is, and the user's own company (tenant) id, which a partner needs to share with it."""

from __future__ import annotations

import platform
from importlib.metadata import PackageNotFoundError, version

from PySide6.QtCore import qVersion
from PySide6.QtWidgets import QMessageBox, QWidget

from freightdesk import __version__
from freightdesk.service.session import AppSession
from freightdesk.service.sharing import Party
from freightdesk.ui.icons import app_icon
from freightdesk.ui.maps.shell import rendered_with
from freightdesk.ui.tasks import spawn

ICON_SIZE = 64


def component_version(distribution: str) -> str:
    """The installed version of `distribution`, "" when its metadata is not there."""
    try:
        return version(distribution)
    except PackageNotFoundError:
        return ""


def versions_text() -> str:
    return (
        f"FreightDesk {__version__}\n"
        f"Python {platform.python_version()} on {platform.system()} {platform.release()}\n"
        f"Qt {qVersion()}, PySide6 {component_version('PySide6')}\n"
        f"pydantic {component_version('pydantic')}\n"
        f"Interface version 4.0.0"
    )


def licences_text() -> str:
    """The components FreightDesk ships with (in the desktop bundle too) and their licences."""
    leaflet = component_version("XStatic-Leaflet").rsplit(".", 1)[0]  # 1.9.3.0: Leaflet 1.9.3
    return "\n\n".join(
        [
            f"FreightDesk {__version__} includes the following components.",
            f"Qt {qVersion()} and Qt for Python (PySide6 {component_version('PySide6')}), "
            "including Qt WebEngine (based on Chromium) and Qt PDF: GNU Lesser General Public "
            "License, version 3 (LGPL-3.0). The Qt Company Ltd. Source code: "
            "https://download.qt.io and https://code.qt.io. The Qt libraries of the "
            "desktop bundle may be replaced with other builds of the same version.",
            f"Leaflet {leaflet}: BSD 2-Clause License. Copyright (c) 2010-2023, Volodymyr "
            "Agafonkin; copyright (c) 2010-2011, CloudMade.",
            f"Leaflet.markercluster {component_version('XStatic-Leaflet-MarkerCluster')}: "
            "MIT License. Copyright (c) 2012 David Leaver.",
            # The map page was rendered ahead by folium, which is not installed with the app.
            f"folium {rendered_with()}: MIT License. Copyright (c) 2013, Rob Story.",
            "Offline basemap outlines (copied from bqplot 0.13.1): derived from the TopoJSON "
            "project's data, BSD 3-Clause License, copyright (c) 2012, Michael Bostock; from "
            "Natural Earth and U.S. Census Bureau boundaries (public domain). The licence's "
            "full text: freightdesk/ui/maps/assets/outlines/NOTICE.",
            "Map data (c) OpenStreetMap contributors, available under the Open Database "
            "License (ODbL): https://www.openstreetmap.org/copyright. Map tiles are credited "
            "on the map by their provider.",
            f"Python {platform.python_version()}: Python Software Foundation License.",
        ]
    )


def company_text(company: Party | None, *, connected: bool = True, asking: bool = False) -> str:
    if not connected:
        return "Your company id: not known until FreightDesk is connected"
    if asking:
        return "Your company id: asking the service…"
    if company is None:
        return "Your company id: this service does not tell (ask your administrator)"
    return f"Your company: {company.name}\nYour company id: {company.uuid}"


def show_about(parent: QWidget, log_file: str, session: AppSession | None = None) -> QMessageBox:
    box = QMessageBox(parent)
    box.setObjectName("aboutBox")
    box.setWindowTitle("About FreightDesk")
    box.setIconPixmap(app_icon().pixmap(ICON_SIZE, ICON_SIZE))
    box.setText(
        f"<b>FreightDesk {__version__}</b><br>Freight visibility for dispatchers: shipments, "
        "maps, documents, bookings, stop locations and webhooks."
    )
    about = versions_text() + f"\n\nLog file: {log_file}"
    connected = session is not None and session.client is not None
    box.setInformativeText(about + "\n\n" + company_text(None, connected=connected, asking=True))
    if session is not None and connected:
        spawn(
            session.sharing.own_company(),
            on_done=lambda company: box.setInformativeText(about + "\n\n" + company_text(company)),
            on_error=lambda error: box.setInformativeText(
                about + "\n\nYour company id: not known now (" + str(error) + ")"
            ),
            name="about-company",
            owner=box,
        )
    box.setDetailedText(licences_text())  # "Show Details…": the licences
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.open()
    return box
