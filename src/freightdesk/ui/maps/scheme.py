"""The `fdmap:` URL scheme: the map page and everything it loads, served from installed
packages, never from a CDN (and never through `setHtml`, which refuses pages over 2 MB).

    fdmap://app/map.html              the page shell (rendered by folium ahead, see `shell`)
    fdmap://app/lib/leaflet/...       Leaflet 1.9.3 (XStatic-Leaflet)
    fdmap://app/lib/markercluster/... Leaflet.markercluster (XStatic-Leaflet-MarkerCluster)
    fdmap://app/qwebchannel.js        Qt's QWebChannel client, from Qt's resources
    fdmap://app/assets/...            our JavaScript and CSS (this package)
    fdmap://app/basemap.json          the offline basemap's outlines (TopoJSON by kind)

Qt needs the scheme registered before QtWebEngine makes its first object (a profile or a
page); the QApplication may exist already. `register_scheme()` runs when this module is
first imported, which every map module does before it makes a profile (`page.map_profile`).
"""

from __future__ import annotations

import importlib
import logging
import mimetypes
from functools import lru_cache
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QFile, QIODevice, QObject
from PySide6.QtWebEngineCore import (
    QWebEngineUrlRequestJob,
    QWebEngineUrlScheme,
    QWebEngineUrlSchemeHandler,
)

from freightdesk.ui.maps import ASSETS
from freightdesk.ui.maps.basemap import basemap_topologies
from freightdesk.ui.maps.shell import SCHEME, page_html

log = logging.getLogger(__name__)


# Served folders: URL prefix -> the XStatic package holding the files.
_LIBRARIES = {
    "lib/leaflet/": "xstatic.pkg.leaflet",
    "lib/markercluster/": "xstatic.pkg.leaflet_markercluster",
}
_TYPES = {
    ".js": "application/javascript",
    ".css": "text/css",
    ".html": "text/html; charset=utf-8",
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".json": "application/json",
}


def register_scheme() -> bool:
    """Register `fdmap:` with QtWebEngine; possible until QtWebEngine's first object."""
    if QWebEngineUrlScheme.schemeByName(SCHEME.encode()).name():
        return True
    scheme = QWebEngineUrlScheme(SCHEME.encode())
    scheme.setSyntax(QWebEngineUrlScheme.Syntax.Host)
    scheme.setDefaultPort(QWebEngineUrlScheme.SpecialPort.PortUnspecified.value)
    scheme.setFlags(
        QWebEngineUrlScheme.Flag.SecureScheme
        | QWebEngineUrlScheme.Flag.CorsEnabled
        | QWebEngineUrlScheme.Flag.FetchApiAllowed
    )
    QWebEngineUrlScheme.registerScheme(scheme)
    return True


def library_dir(module: str) -> Path | None:
    try:
        package = importlib.import_module(module)
    except ImportError:
        return None
    base = getattr(package, "BASE_DIR", None)
    return Path(base) if base else None


def _inside(folder: Path, relative: str) -> Path | None:
    """`folder/relative` if it is a file inside `folder` (no `..` escapes)."""
    root = folder.resolve()
    target = (root / relative).resolve()
    if target != root and root in target.parents and target.is_file():
        return target
    return None


@lru_cache(maxsize=1)
def qwebchannel_js() -> bytes:
    source = QFile(":/qtwebchannel/qwebchannel.js")
    if not source.open(QIODevice.OpenModeFlag.ReadOnly):
        return b""
    try:
        return bytes(source.readAll().data())
    finally:
        source.close()


def resolve(path: str) -> tuple[bytes, str] | None:
    """The body and content type for a path of the scheme, or None when there is none."""
    path = path.lstrip("/")
    if path == "map.html":
        return page_html(), _TYPES[".html"]
    if path == "basemap.json":
        return basemap_topologies(), _TYPES[".json"]
    if path == "qwebchannel.js":
        return qwebchannel_js(), _TYPES[".js"]
    found: Path | None = None
    if path.startswith("assets/"):
        found = _inside(ASSETS, path.removeprefix("assets/"))
    for prefix, module in _LIBRARIES.items():
        if path.startswith(prefix) and (folder := library_dir(module)) is not None:
            found = _inside(folder, path.removeprefix(prefix))
    if found is None:
        return None
    kind = _TYPES.get(found.suffix) or mimetypes.guess_type(found.name)[0]
    return found.read_bytes(), kind or "application/octet-stream"


class MapSchemeHandler(QWebEngineUrlSchemeHandler):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)

    def requestStarted(self, job: QWebEngineUrlRequestJob) -> None:  # noqa: N802 (Qt's name)
        url = job.requestUrl()
        if bytes(job.requestMethod().data()) != b"GET" or url.host() != "app":
            job.fail(QWebEngineUrlRequestJob.Error.RequestDenied)
            return
        try:
            found = resolve(url.path())
        except OSError as exc:
            log.warning("cannot serve %s: %s", url.toString(), exc)
            job.fail(QWebEngineUrlRequestJob.Error.RequestFailed)
            return
        if found is None:
            job.fail(QWebEngineUrlRequestJob.Error.UrlNotFound)
            return
        body, kind = found
        # The buffer belongs to the job: Qt reads it after this returns, then deletes both.
        buffer = QBuffer(job)
        buffer.setData(QByteArray(body))
        buffer.open(QIODevice.OpenModeFlag.ReadOnly)
        job.reply(QByteArray(kind.encode()), buffer)


register_scheme()
