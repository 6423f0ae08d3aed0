"""Render the app icon's PNG sizes, .ico and .icns from its SVG source.

    python3 packaging/make_icons.py

Reads resources/icons/hicolor/scalable/apps/freightdesk.svg and writes, beside it in the
freedesktop icon theme layout, resources/icons/hicolor/<N>x<N>/apps/freightdesk.png for
every size in SIZES, plus resources/icons/freightdesk.ico (Windows) and
resources/icons/freightdesk.icns (macOS). Uses Qt's SVG renderer (PySide6, already a
dependency); the .ico and .icns are PNG-based containers written here, so their bytes are
exactly the PNGs above. Run it again after changing the SVG, and commit what it writes.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"
SOURCE = ICONS / "hicolor" / "scalable" / "apps" / "freightdesk.svg"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)  # 256 is the largest an .ico entry holds
# The .icns element types holding PNG data, by pixel size (1024 is left out: no use here).
ICNS_TYPES = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08", 512: b"ic09"}


def render(renderer: QSvgRenderer, size: int) -> bytes:
    """The SVG drawn at size x size pixels, as PNG bytes."""
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise RuntimeError(f"could not encode the {size} px icon")
    buffer.close()
    return bytes(data.data())


def ico(pngs: dict[int, bytes]) -> bytes:
    """An .ico holding `pngs` (PNG entries: Windows Vista and later)."""
    sizes = [s for s in ICO_SIZES if s in pngs]
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries, images = b"", b""
    for size in sizes:
        data = pngs[size]
        side = size % 256  # 0 means 256
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(data), offset)
        images += data
        offset += len(data)
    return header + entries + images


def icns(pngs: dict[int, bytes]) -> bytes:
    """An .icns holding `pngs` (PNG elements: macOS 10.7 and later)."""
    body = b"".join(
        kind + struct.pack(">I", 8 + len(pngs[size])) + pngs[size]
        for size, kind in ICNS_TYPES.items()
    )
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # no window is shown
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(SOURCE))
    if not renderer.isValid():
        print(f"make_icons: {SOURCE} is not an SVG Qt can draw", file=sys.stderr)
        return 1
    pngs = {size: render(renderer, size) for size in sorted({*SIZES, *ICO_SIZES})}
    for size in SIZES:
        target = ICONS / "hicolor" / f"{size}x{size}" / "apps" / "freightdesk.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(pngs[size])
    (ICONS / "freightdesk.ico").write_bytes(ico(pngs))
    (ICONS / "freightdesk.icns").write_bytes(icns(pngs))
    print(f"make_icons: {len(SIZES)} PNG sizes, freightdesk.ico and freightdesk.icns in {ICONS}")
    del app
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
