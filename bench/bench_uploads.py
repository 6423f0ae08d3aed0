"""Uploads from the app: how fast a drop of 20 files gets going, and whether the window stays
responsive and the client's memory flat during a 1 GB upload.

Runs the real Documents pane (Qt, offscreen unless DISPLAY is set) on qasync's loop against the
local service in a separate process (its upload limit raised for the 1 GB file). A QTimer probe
ticking every 10 ms measures the longest stall of the window's event loop; the client's
resident memory is sampled by the same probe.

    python -m bench.bench_uploads [--gigabytes 1.0] [--files 20] [--file-kib 256]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")

import qasync
from PySide6.QtCore import QMimeData, QPointF, QSettings, Qt, QTimer, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import Profile, ProfileKind, ProfileStore
from freightdesk.service.secrets import MemorySecretStore
from freightdesk.service.session import AppSession
from freightdesk.service.uploads import UploadState
from freightdesk.ui.panes.documents.pane import DocumentsPane
from freightdesk.ui.panes.documents.upload import UploadDialog

ROOT = Path(__file__).resolve().parents[1]
MIB = 1024 * 1024

# The service in its own process, so its work and memory are not the client's.
SERVICE = textwrap.dedent(
    """
    import json, sys
    from tests.support import make_tenant, running_service
    with running_service(upload_limit_bytes=int(sys.argv[1])) as service:
        tenant = make_tenant(service)
        print(json.dumps({"url": service.url, "id": tenant.client_id,
                          "secret": tenant.client_secret}), flush=True)
        sys.stdin.read()  # until the benchmark closes our stdin
    """
)


def rss_mib() -> float:
    with open("/proc/self/statm") as handle:
        resident_pages = int(handle.read().split()[1])
    return resident_pages * os.sysconf("SC_PAGE_SIZE") / MIB


class Probe:
    """A 10 ms timer on the GUI thread: the longest gap between ticks is the worst stall.

    On a busy machine a gap can also be the scheduler running other processes, so the probe
    also records the GUI thread's own CPU time between ticks: the longest stretch the app
    itself kept the loop busy.
    """

    def __init__(self, interval_ms: int = 10) -> None:
        self.interval = interval_ms / 1000
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)
        self.last = 0.0
        self.last_cpu = 0.0
        self.worst = 0.0
        self.worst_cpu = 0.0
        self.over_50ms = 0
        self.peak_rss = 0.0
        self.ticks = 0

    def start(self) -> None:
        self.last = time.perf_counter()
        self.last_cpu = time.thread_time()
        self.worst = self.worst_cpu = 0.0
        self.over_50ms = 0
        self.peak_rss = rss_mib()
        self.ticks = 0
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def _tick(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        gap = now - self.last - self.interval
        self.worst = max(self.worst, gap)
        self.over_50ms += gap > 0.05
        self.worst_cpu = max(self.worst_cpu, cpu - self.last_cpu)
        self.last, self.last_cpu = now, cpu
        self.ticks += 1
        if self.ticks % 5 == 0:
            self.peak_rss = max(self.peak_rss, rss_mib())


def make_file(path: Path, size: int) -> None:
    block = os.urandom(4 * MIB)
    with path.open("wb") as handle:
        written = 0
        while written < size:
            chunk = block[: min(len(block), size - written)]
            handle.write(chunk)
            written += len(chunk)


def drop(widget: object, files: list[Path]) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(f)) for f in files])
    point = QPointF(20, 20)
    buttons, modifiers = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    # QDragEnterEvent takes a whole-pixel QPoint, QDropEvent a QPointF.
    enter = QDragEnterEvent(point.toPoint(), Qt.DropAction.CopyAction, mime, buttons, modifiers)
    QApplication.sendEvent(widget, enter)  # type: ignore[arg-type]
    event = QDropEvent(point, Qt.DropAction.CopyAction, mime, buttons, modifiers)
    QApplication.sendEvent(widget, event)  # type: ignore[arg-type]


async def until(predicate: Callable[[], bool], seconds: float) -> float:
    """Seconds until `predicate` holds, polled every millisecond on the loop (a poll costs
    microseconds, so it does not hide stalls from the probe)."""
    start = time.perf_counter()
    while not predicate():
        if time.perf_counter() - start > seconds:
            raise SystemExit("timed out waiting for the uploads")
        await asyncio.sleep(0.001)
    return time.perf_counter() - start


async def run(args: argparse.Namespace, credentials: dict[str, str], work: Path) -> None:
    paths = AppPaths.under(work / "home")
    profiles = ProfileStore(paths.profiles_file, MemorySecretStore())
    profile = profiles.save(
        Profile(
            id="",
            name="Bench",
            kind=ProfileKind.REMOTE,
            base_url=credentials["url"],
            client_id=credentials["id"],
        ),
        secret=credentials["secret"],
    )
    profiles.activate(profile.id)
    session = AppSession(paths, profiles, simulate=False)
    paths.config_dir.mkdir(parents=True, exist_ok=True)
    settings = QSettings(str(paths.config_dir / "bench.ini"), QSettings.Format.IniFormat)
    pane = DocumentsPane(session, settings)
    pane.resize(1300, 800)
    pane.show()
    await session.connect()
    queue = session.uploads
    assert queue is not None
    probe = Probe()

    # --- 20 files dropped at once ---------------------------------------------------------
    small = []
    for n in range(args.files):
        path = work / f"BOL {n:03d}.pdf"
        make_file(path, args.file_kib * 1024)
        small.append(path)
    dropped = time.perf_counter()
    drop(pane.table.viewport(), small)
    dialog = pane.dialog
    assert isinstance(dialog, UploadDialog) and dialog.isVisible()
    dialog_shown = time.perf_counter() - dropped
    dialog.identifiers.set_identifiers([("BILL_OF_LADING", "BENCH-1")])
    await asyncio.sleep(0.2)
    probe.start()
    confirmed, confirmed_cpu = time.perf_counter(), time.thread_time()
    dialog.request_uploads()  # the Upload button
    handler = time.perf_counter() - confirmed
    uploads = list(queue.uploads.values())
    await until(lambda: all(u.state is not UploadState.QUEUED for u in uploads), 10)
    all_started = time.perf_counter() - confirmed
    started_cpu = time.thread_time() - confirmed_cpu
    await until(lambda: all(u.sent > 0 for u in uploads), 30)
    all_sending = time.perf_counter() - confirmed
    await until(lambda: all(u.finished for u in uploads), 120)
    all_done = time.perf_counter() - confirmed
    probe.stop()
    failed = [u for u in uploads if u.state is not UploadState.DONE]
    print(f"drop of {args.files} files: the upload dialog shows {1000 * dialog_shown:.0f} ms later")
    print(
        f"  Upload clicked: handled in {1000 * handler:.0f} ms; all {args.files} uploads started "
        f"{1000 * all_started:.0f} ms after the click ({1000 * started_cpu:.0f} ms of the "
        f"app's CPU time), all sending bytes after "
        f"{1000 * all_sending:.0f} ms, all done after {all_done:.2f} s"
        + (f" ({len(failed)} failed)" if failed else "")
    )
    print(
        f"  longest stall of the window meanwhile: {1000 * probe.worst:.1f} ms wall clock, "
        f"{1000 * probe.worst_cpu:.1f} ms of the app's own work"
    )
    queue.forget_finished()
    pane.uploads.clear_finished()

    # --- one large file ---------------------------------------------------------------------
    size = int(args.gigabytes * 1024 * MIB)
    big = work / "scan archive.pdf"
    make_file(big, size)
    await asyncio.sleep(0.5)
    before = rss_mib()
    probe.start()
    start = time.perf_counter()
    upload = queue.add(big, uploads[0].metadata)
    await until(lambda: upload.finished, 3600)
    elapsed = time.perf_counter() - start
    probe.stop()
    big.unlink()
    state = "done" if upload.state is UploadState.DONE else f"{upload.state}: {upload.error}"
    rate = size / MIB / elapsed
    print(f"upload of {size / MIB:,.0f} MiB: {elapsed:.1f} s ({rate:.0f} MiB/s), {state}")
    print(
        f"  longest stall of the window: {1000 * probe.worst:.1f} ms wall clock "
        f"({probe.over_50ms} gaps over 50 ms in {probe.ticks} ticks), "
        f"{1000 * probe.worst_cpu:.1f} ms of the app's own work"
    )
    print(
        f"  client memory: {before:.0f} MiB before, peak {probe.peak_rss:.0f} MiB "
        f"(+{probe.peak_rss - before:.1f} MiB)"
    )
    pane.shutdown()
    await session.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gigabytes", type=float, default=1.0)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--file-kib", type=int, default=256)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fd-bench-uploads-"))
    limit = int(args.gigabytes * 1024 * MIB) + 64 * MIB
    service = subprocess.Popen(
        [sys.executable, "-c", SERVICE, str(limit)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert service.stdout is not None
        credentials = json.loads(service.stdout.readline())
        app = QApplication.instance() or QApplication([])
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        with loop:
            loop.run_until_complete(run(args, credentials, work))
    finally:
        if service.stdin is not None:
            service.stdin.close()
        service.wait(timeout=60)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
