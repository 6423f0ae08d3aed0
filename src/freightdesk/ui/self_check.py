"""`freightdesk --self-check`: does this installation (the desktop bundle above all) work?

Offscreen, on a fresh temporary home, it first reads the offline basemap's outlines as the
maps will (vendored files, with their NOTICE: a bundle without them draws no outlines when
tiles cannot load, and says so only in its log), then does what the app does on a first run:
starts the Local sandbox's service as a child process (from the bundle: the bundle itself, `serve`),
waits until the demo data is written (GET /services/demo/v1/status), exports demo
shipments to an Excel workbook as File → Export does (its writer is a spawned child process:
in the bundle, the bundle itself through `multiprocessing.freeze_support`) and reads it back,
then draws one shipment on a map page (QtWebEngine, the bundled map assets) and one demo PDF
in the document preview (QtPdf); last, a second window that finds no client secret gets a new
one from the command line (the bundle itself) and connects. Exits 0 when all of that worked;
otherwise 1, with the step that failed and why on stderr. Each step says on stdout how long
it took.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from freightdesk.service.paths import AppPaths
    from freightdesk.service.session import AppSession

T = TypeVar("T")

START_SECONDS = 120.0  # the service up (a cold bundle on a busy machine is slow)
DEMO_SECONDS = 600.0  # the demo data written
DRAW_SECONDS = 120.0  # the map page or the PDF drawn
EXPORT_SECONDS = 120.0  # the workbook written by its child process and read back
EXPORT_ROWS = 50
POLL_SECONDS = 0.25
# Tiles from nowhere (a refused connection): the map is drawn from the bundled assets and
# the offline basemap, never waiting for a network.
NO_TILES_URL = "http://127.0.0.1:9/{z}/{x}/{y}.png"


class SelfCheckFailed(Exception):
    """A step of the self-check failed; the message says which and why."""


def run_self_check() -> int:
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ.setdefault("QT_API", "pyside6")
    from freightdesk.ui.launch import prepare_qt_environment

    prepare_qt_environment()
    import qasync
    from PySide6 import QtWebEngineWidgets  # noqa: F401  (before the QApplication)
    from PySide6.QtWidgets import QApplication

    app = QApplication([sys.argv[0]])
    app.setApplicationName("FreightDesk")
    app.setQuitOnLastWindowClosed(False)  # the map's and the preview's windows come and go
    home = Path(tempfile.mkdtemp(prefix="freightdesk-self-check-"))
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    started = time.monotonic()
    try:
        with loop:
            loop.run_until_complete(_check(home))
    except SelfCheckFailed as exc:
        print(f"self-check FAILED: {exc}", file=sys.stderr, flush=True)
        return 1
    except Exception as exc:  # whatever it was, the check has failed: say so, and where
        traceback.print_exc()
        print(f"self-check FAILED: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        return 1
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print(f"self-check passed in {time.monotonic() - started:.1f} s", flush=True)
    return 0


def _say(text: str, since: float) -> None:
    print(f"self-check: {text} ({time.monotonic() - since:.1f} s)", flush=True)


async def _check(home: Path) -> None:
    from freightdesk.service.paths import AppPaths
    from freightdesk.service.profiles import ProfileStore
    from freightdesk.service.secrets import MemorySecretStore
    from freightdesk.service.session import AppSession

    paths = AppPaths.under(home)
    session = AppSession(
        paths, ProfileStore(paths.profiles_file, MemorySecretStore()), simulate=False
    )
    try:
        step = time.monotonic()
        outlines = _outlines()
        _say(f"map outlines decoded, {outlines}", step)
        step = time.monotonic()
        await _step("starting the local service", session, START_SECONDS, session.connect())
        service = session.local_service
        _say(f"local service at {service.url if service else '?'}", step)
        step = time.monotonic()
        shipments = await _demo_ready(session)
        _say(f"demo data ready, {shipments} shipments", step)
        step = time.monotonic()
        exported = await _export_xlsx(session, home)
        _say(f"XLSX export written by its child process, {exported} rows read back", step)
        step = time.monotonic()
        await _draw_map(session)
        _say("map page drawn", step)
        step = time.monotonic()
        await _draw_pdf(session)
        _say("PDF preview drawn", step)
        step = time.monotonic()
        await _second_window(paths)  # last: it gives the app's client a new secret
        _say("a second window connected with a new client secret", step)
    finally:
        await session.close()


async def _second_window(paths: AppPaths) -> None:
    """A second window on this home that has no client secret (a machine without a keyring
    whose secret's file was lost, or a secret of an older database): it asks the command line
    for a new one (`freightdesk client rotate`: in the bundle, the bundle itself) and uses the
    running service."""
    from freightdesk.service.profiles import ProfileStore
    from freightdesk.service.secrets import LOCAL_SECRET_FILE, MemorySecretStore
    from freightdesk.service.session import AppSession

    # Without a keyring the first window kept the secret in this file, for every window.
    (paths.local_service_dir / LOCAL_SECRET_FILE).unlink(missing_ok=True)

    second = AppSession(
        paths, ProfileStore(paths.profiles_file, MemorySecretStore()), simulate=False
    )
    try:
        await _step("a second window connecting", second, START_SECONDS, second.connect())
    finally:
        await second.close()


async def _step(what: str, session: AppSession, seconds: float, work: Awaitable[T]) -> T:
    """`work`, failing with `what` when it raises or takes more than `seconds`, and at once
    when the local service has stopped (with its last lines)."""
    task = asyncio.ensure_future(work)
    deadline = time.monotonic() + seconds
    try:
        while not task.done():
            service = session.local_service
            if service is not None and service.returncode is not None:
                tail = "; ".join(service.log_tail[-5:]) or "no output"
                raise SelfCheckFailed(
                    f"{what}: the local service exited with {service.returncode}: {tail}"
                )
            if time.monotonic() > deadline:
                raise SelfCheckFailed(f"{what}: not done after {seconds:.0f} s")
            await asyncio.wait({task}, timeout=POLL_SECONDS)
        try:
            return task.result()
        except SelfCheckFailed:
            raise
        except Exception as exc:
            raise SelfCheckFailed(f"{what}: {type(exc).__name__}: {exc}") from exc
    finally:
        if not task.done():
            task.cancel()
            await asyncio.wait({task})


async def _until(what: str, session: AppSession, seconds: float, check: Callable[[], bool]) -> None:
    async def poll() -> None:
        # Widgets' state, with no event to await: read a few times a second.
        while not check():  # noqa: ASYNC110
            await asyncio.sleep(POLL_SECONDS)

    await _step(what, session, seconds, poll())


async def _demo_ready(session: AppSession) -> int:
    from freightdesk.service.demo import demo_status

    client = session.require_client()

    async def ready() -> int:
        while True:
            status = await demo_status(client)
            if status is None:
                raise SelfCheckFailed("the local service has no demo status")
            if status.state == "ready":
                return status.shipments_total
            if status.state == "none":
                raise SelfCheckFailed("the local service prepares no demo data")
            await asyncio.sleep(POLL_SECONDS)

    return await _step("waiting for the demo data", session, DEMO_SECONDS, ready())


async def _demo_shipments(session: AppSession, limit: int) -> frozenset[str]:
    """The ids of up to `limit` demo shipments (at least one)."""
    from freightdesk.models.shipment_search import ShipmentSearchRequest

    shipments = session.shipments
    if shipments is None:
        raise SelfCheckFailed("the app is not connected to the local service")
    found = await _step(
        "finding demo shipments",
        session,
        DRAW_SECONDS,
        shipments.matching_ids(ShipmentSearchRequest(), limit=limit),
    )
    if not found:
        raise SelfCheckFailed("the demo data has no shipment")
    return found


async def _export_xlsx(session: AppSession, home: Path) -> int:
    """Demo shipments written as File → Export writes an Excel workbook (`write_table` in a
    worker thread, the workbook in a spawned child process), read back with openpyxl; and
    the child ended. Returns the rows read."""
    import multiprocessing
    from datetime import UTC, datetime

    from freightdesk.service.clock import iso_time
    from freightdesk.service.export import Cell, ExportFormat, write_table

    found = await _demo_shipments(session, EXPORT_ROWS)
    now = datetime.now(UTC).replace(microsecond=0)
    rows: list[list[Cell]] = [[shipment, now] for shipment in sorted(found)]
    path = home / "shipments.xlsx"
    await _step(
        "exporting an Excel workbook (its writer is a child process)",
        session,
        EXPORT_SECONDS,
        asyncio.to_thread(write_table, path, ["Shipment", "Checked at"], rows, ExportFormat.XLSX),
    )
    from openpyxl import load_workbook

    workbook = load_workbook(path, read_only=True)
    try:
        sheet = workbook.active
        read = [list(row) for row in sheet.iter_rows(values_only=True)] if sheet else []
    finally:
        workbook.close()
    expected = [["Shipment", "Checked at"], *([s, iso_time(now)] for s in sorted(found))]
    if read != expected:
        raise SelfCheckFailed(
            f"the exported workbook reads back as {read[:3]}…, not {expected[:3]}…"
        )
    if leftover := multiprocessing.active_children():
        raise SelfCheckFailed(f"the workbook's writer did not end: {leftover}")
    return len(read) - 1


def _outlines() -> str:
    """The offline basemap's outlines decoded as the picker decodes them, and their licence
    beside them; what was found, as "N country and M state outlines". Read here rather than
    through `basemap_geojson`, which logs an unreadable file and goes on without it."""
    import json

    from freightdesk.ui.maps.basemap import OUTLINES, SOURCES, features

    if not (OUTLINES / "NOTICE").is_file():
        raise SelfCheckFailed(f"the map outlines' licence is missing: {OUTLINES / 'NOTICE'}")
    found = []
    for name, kind in SOURCES:
        try:
            decoded = features(json.loads((OUTLINES / name).read_text(encoding="utf-8")), kind)
        except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
            raise SelfCheckFailed(
                f"the map outlines {OUTLINES / name}: {type(exc).__name__}: {exc}"
            ) from exc
        if not decoded:
            raise SelfCheckFailed(f"the map outlines {OUTLINES / name} hold no {kind}")
        found.append(f"{len(decoded)} {kind}")
    return " and ".join(found) + " outlines"


async def _draw_map(session: AppSession) -> None:
    from freightdesk.ui.maps.page import TileSettings
    from freightdesk.ui.maps.shipment_map import ShipmentMapView

    found = await _demo_shipments(session, 1)
    shipments = session.shipments
    assert shipments is not None  # _demo_shipments read it
    history = await _step(
        "reading a shipment's history", session, DRAW_SECONDS, shipments.history(min(found))
    )
    view = ShipmentMapView(None, tiles=TileSettings(url=NO_TILES_URL, attribution=""))
    view.resize(900, 600)
    view.show()
    drawn = 0

    def rendered(token: int) -> None:
        nonlocal drawn
        drawn = max(drawn, token)

    view.rendered.connect(rendered)
    try:
        token = view.show_history(history)
        await _until("drawing the map page", session, DRAW_SECONDS, lambda: drawn >= token)
        if view.map_page.console_errors:
            raise SelfCheckFailed(f"the map page reported {view.map_page.console_errors}")
    finally:
        view.dispose()
        view.close()
        view.deleteLater()


async def _draw_pdf(session: AppSession) -> None:
    from PySide6.QtCore import QSize

    from freightdesk.service.documents import DocumentQuery
    from freightdesk.ui.panes.documents.preview import DocumentPreview, preview_kind

    documents = session.documents
    if documents is None:
        raise SelfCheckFailed("the session has no documents service")
    listing = await _step(
        "searching the demo documents", session, DRAW_SECONDS, documents.search(DocumentQuery())
    )
    pdf = next(
        (
            document
            for document in listing.items
            if document.files and preview_kind(document.files[0].content_type) == "pdf"
        ),
        None,
    )
    if pdf is None:
        raise SelfCheckFailed("the demo data's first page of documents has no PDF")
    preview = DocumentPreview(session)
    preview.resize(700, 900)
    preview.show()
    try:
        shown: list[str] = []  # what the preview said it shows: pdf, or a message

        def loaded(kind: str) -> None:
            text = preview.message.text()
            if kind != "message" or (text and not text.startswith("Loading")):
                shown.append(kind)

        preview.loaded.connect(loaded)
        preview.show_document(pdf)
        await _until("loading the PDF preview", session, DRAW_SECONDS, lambda: bool(shown))
        if shown[0] != "pdf":
            raise SelfCheckFailed(f"the PDF preview says: {preview.message.text()}")
        page = preview.pdf.render(0, QSize(600, 800))  # as the view draws it (QtPdf)
        if preview.pdf.pageCount() < 1 or page.isNull():
            raise SelfCheckFailed(f"QtPdf could not draw {pdf.files[0].file_name}")
    finally:
        preview.close()
        preview.deleteLater()
