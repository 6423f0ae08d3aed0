"""Export on every list pane (issue 14 point 8, issue 15): against the real local service
with the demo written, each pane is shown in the main window, File → Export view… is asked
for with its key (Ctrl+E), the path is typed into Qt's save dialog and Return pressed; the
file read back has the visible columns as its header, in the user's order, and the rows
shown."""

from __future__ import annotations

import asyncio
import csv
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest
from openpyxl import load_workbook
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QDialogButtonBox,
    QFileDialog,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableView,
    QWidget,
)
from pytestqt.qtbot import QtBot

from freightdesk.server.demo import seed_demo
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import Profile, ProfileKind, ProfileStore
from freightdesk.service.session import AppSession
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.account_groups.pane import AccountGroupsPane
from freightdesk.ui.panes.bookings.pane import BookingsPane
from freightdesk.ui.panes.capacity.pane import CapacityPane
from freightdesk.ui.panes.carriers.pane import CarrierProfilesPane
from freightdesk.ui.panes.documents.pane import DocumentsPane
from freightdesk.ui.panes.packages.pane import PackagesPane
from freightdesk.ui.panes.rail.pane import RailPane
from freightdesk.ui.panes.rates.pane import RatesPane
from freightdesk.ui.panes.schedules.pane import SchedulesPane
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from freightdesk.ui.panes.stop_locations.pane import StopLocationsPane
from freightdesk.ui.panes.vehicles.pane import VehiclesPane
from freightdesk.ui.panes.webhooks.pane import WebhooksPane
from freightdesk.ui.panes.yard.pane import YardPane
from freightdesk.ui.widgets.notice import Notice
from tests.server.test_vehicles import CHICAGO
from tests.support import LiveService, running_service, wait_until
from tests.ui.conftest import activated, close_session
from tests.ui.test_capacity_support import type_text
from tests.ui.test_maps import OFFLINE_TILES, WEBENGINE_STARTUP, webengine_survives_loop_exits

__all__ = ["webengine_survives_loop_exits"]
# Qt's own save dialog (its completer's popup) asks the window system for what the offscreen
# platform has not: a test typing into it ignores these.
SAVE_DIALOG_WARNINGS = "This plugin does not support (raise|grabbing)"
# The vehicles pane's map starts QtWebEngine.
pytestmark = pytest.mark.qt_log_ignore(SAVE_DIALOG_WARNINGS, *WEBENGINE_STARTUP)
CTRL = Qt.KeyboardModifier.ControlModifier
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")

DATA_SECONDS = 60.0  # a loaded machine answers slowly; a pane that never fills fails here
DIALOG_SECONDS = 30.0


async def _schedules(pane: QWidget) -> None:
    assert isinstance(pane, SchedulesPane)
    type_text(pane.origin, "cnsha")
    type_text(pane.destination, "NLRTM")


async def _vehicles(pane: QWidget) -> None:
    assert isinstance(pane, VehiclesPane)
    pane.form.where.setCurrentIndex(pane.form.where.findData("point"))
    type_text(pane.form.point.edits["latitude"], f"{CHICAGO.latitude}")
    type_text(pane.form.point.edits["longitude"], f"{CHICAGO.longitude}")


async def _yard(pane: QWidget) -> None:
    """The demo's first site (its list arrives with the connection) for a shipment's stop."""
    assert isinstance(pane, YardPane)
    await wait_until(lambda: bool(pane.sites) and _site_index(pane) >= 0, DATA_SECONDS)
    pane.site.setCurrentIndex(_site_index(pane))
    type_text(pane.reference, "SHP-1")


def _site_index(pane: YardPane) -> int:
    return pane.site.findData(pane.sites[0].code)


@dataclass(frozen=True)
class Case:
    key: str
    make: Callable[[AppSession, QSettings, QWidget], QWidget]
    table: str | None = "table"  # None: the pane's list is not a table (the yard's timeline)
    filled: bool = True  # the demo fills the list as the pane opens (else after Search)
    criteria: Callable[[QWidget], Awaitable[None]] | None = None  # typed before Search
    times: bool = True  # the list shows times (the rest: names, counts, states)
    leading: tuple[str, ...] = ()  # columns a file has before the ones shown (ids)


CASES = [
    Case("documents", lambda s, st, w: DocumentsPane(s, st, w)),
    Case("stop_locations", lambda s, st, w: StopLocationsPane(s, w), times=False),
    Case("webhooks", lambda s, st, w: WebhooksPane(s, w), times=False),
    Case("account_groups", lambda s, st, w: AccountGroupsPane(s, w), times=False),
    Case("carrier_profiles", lambda s, st, w: CarrierProfilesPane(s, w), times=False),
    Case("rates", lambda s, st, w: RatesPane(s, w), table="request_table"),
    Case("bookings", lambda s, st, w: BookingsPane(s, st, w), leading=("Booking id",)),
    Case("packages", lambda s, st, w: PackagesPane(s, w), times=False),
    Case("schedules", lambda s, st, w: SchedulesPane(s, w), filled=False, criteria=_schedules),
    Case("capacity", lambda s, st, w: CapacityPane(s, w), filled=False),
    Case(
        "vehicles",
        lambda s, st, w: VehiclesPane(s, w, tiles=OFFLINE_TILES),
        filled=False,
        criteria=_vehicles,
    ),
    Case("rail", lambda s, st, w: RailPane(s, w), filled=False),
    Case("yard", lambda s, st, w: YardPane(s, w), table=None, filled=False, criteria=_yard),
]


@dataclass(frozen=True)
class Demo:
    service: LiveService
    client_id: str
    client_secret: str


@pytest.fixture(scope="module")
def demo() -> Iterator[Demo]:
    """A service of its own with the whole demo written (the demo needs an empty database).

    Every test signs in afresh, as the app does when it starts; under the product's limit of
    5 new tokens a minute per client (tested in tests/server/test_auth.py) the sixth test of
    the module would sit out the 429's Retry-After, about a minute, for nothing."""
    with running_service(tokens_per_minute=1000) as live:
        credentials = seed_demo(live.context)
        assert credentials is not None
        yield Demo(live, credentials.client_id, credentials.client_secret)


@pytest.fixture
async def window(
    qtbot: QtBot,
    demo: Demo,
    session: AppSession,
    profiles: ProfileStore,
    settings: QSettings,
    paths: AppPaths,
) -> AsyncIterator[MainWindow]:
    profile = profiles.save(
        Profile(
            id="",
            name="Demo",
            kind=ProfileKind.REMOTE,
            base_url=demo.service.url,
            client_id=demo.client_id,
            poll_interval=30,
        ),
        secret=demo.client_secret,
    )
    profiles.activate(profile.id)
    main = MainWindow(session, settings, paths)
    qtbot.addWidget(main)
    main.resize(1440, 900)
    yield main
    dialog = _dialog()
    if dialog is not None:  # a failed step left it open: closed, so that nothing waits on it
        popup = QApplication.activePopupWidget()
        if popup is not None:
            popup.close()
        dialog.reject()
    await close_session(session)


def _pane(window: MainWindow, case: Case) -> QWidget:
    window.add_pane(
        case.key,
        case.key,
        lambda: case.make(window.session, window.settings, window),  # type: ignore[arg-type]
        window.style().StandardPixmap.SP_DirIcon,
    )
    window.nav.setCurrentRow(window.nav.count() - 1)
    pane = window.current_pane()
    assert pane is not None
    return pane


async def _export_with_keys(qtbot: QtBot, window: MainWindow, path: Path) -> None:
    """Ctrl+E, then the path typed into the save dialog's name box and Return."""
    name = await _type_path(qtbot, window, path)
    await _from_loop(lambda: qtbot.keyClick(name, Qt.Key.Key_Return))
    await wait_until(lambda: _dialog() is None, DIALOG_SECONDS)


async def _type_path(
    qtbot: QtBot, window: MainWindow, path: Path, *, there: bool = False
) -> QLineEdit:
    """Ctrl+E, then the path typed into the save dialog's name box; returns the box.
    `there`: the file is already there."""
    # The window system gives the window back its focus when a dialog closes; offscreen
    # does not: the window is activated again, as a user's click on it would.
    await activated(window)
    await _from_loop(lambda: qtbot.keyClick(window, Qt.Key.Key_E, CTRL))
    return await type_into_export_dialog(qtbot, path, there=there)


async def type_into_export_dialog(qtbot: QtBot, path: Path, *, there: bool = False) -> QLineEdit:
    """`path` typed into the name box of the export dialog being opened, keys from Qt's loop
    as a user's; returns the box (Return in it saves). `there`: the file is already there."""
    await wait_until(lambda: _dialog() is not None, DIALOG_SECONDS)
    dialog = _dialog()
    assert dialog is not None
    name = dialog.findChild(QLineEdit, "fileNameEdit")
    assert isinstance(name, QLineEdit)
    # Keys go where the caret is: into the name box of the dialog, the active window. (Typed
    # into an unfocused box, the dialog keeps the folders the typing passed by selected, and
    # its Save button opens one of them instead.)
    await wait_until(
        lambda: QApplication.activeWindow() is dialog and name.hasFocus(), DIALOG_SECONDS
    )
    await _from_loop(lambda: qtbot.keyClick(name, Qt.Key.Key_A, CTRL))
    await _from_loop(lambda: qtbot.keyClicks(name, str(path)))
    assert name.text() == str(path)
    # The completer offers the folder's files that begin with what is typed: the file itself
    # when it is there (Escape puts that offer away), else none.
    completer = name.completer()
    assert completer is not None
    if there:
        await wait_until(completer.popup().isVisible, DIALOG_SECONDS)
        await _from_loop(lambda: qtbot.keyClick(completer.popup(), Qt.Key.Key_Escape))
    await wait_until(lambda: not completer.popup().isVisible(), DIALOG_SECONDS)
    save = _accept_button(dialog)
    await wait_until(
        lambda: save.isEnabled() and save.text().replace("&", "") == "Save", DIALOG_SECONDS
    )
    return name


async def _from_loop(act: Callable[[], None], *, wait: bool = True) -> None:
    """Do `act` (keys pressed) from Qt's event loop, as a user's input arrives, not from inside
    the test's task: QTest handles Qt's events as it sends keys, and a modal question a key
    opens runs its own event loop; inside the task, qasync would step other tasks there,
    which asyncio refuses (those tasks never run again). `wait`: until `act` has returned
    (not for a key that opens a modal question: it returns once the question is answered)."""
    done: list[bool] = []

    def run() -> None:
        act()
        done.append(True)

    QTimer.singleShot(0, run)
    if wait:
        await wait_until(lambda: bool(done), DIALOG_SECONDS)


def _accept_button(dialog: QFileDialog) -> QPushButton:
    buttons = dialog.findChild(QDialogButtonBox)
    assert buttons is not None
    button = next(
        b
        for b in buttons.buttons()
        if buttons.buttonRole(b) == QDialogButtonBox.ButtonRole.AcceptRole
    )
    assert isinstance(button, QPushButton)
    return button


async def export_view_to(qtbot: QtBot, pane: ShipmentsPane, path: Path) -> None:
    """The Shipments pane's Export… button clicked, `path` chosen, and the file written."""
    qtbot.mouseClick(pane.export_button, Qt.MouseButton.LeftButton)
    await save_export(qtbot, path)
    notice = pane.bulk.notice
    await wait_until(lambda: f"to {path}" in notice.text(), DIALOG_SECONDS)
    assert notice.text().startswith("Exported "), notice.text()


async def save_export(qtbot: QtBot, path: Path) -> None:
    """The export dialog a click opened: `path` typed into its name box and Return, as a
    user saves; until the dialog is gone. The file is written after, off the GUI thread:
    the pane's notice says when. (Told with selectFile instead, the dialog sometimes kept
    its own name and wrote that file: seen in a CI run under load.)"""
    name = await type_into_export_dialog(qtbot, path)
    await _from_loop(lambda: qtbot.keyClick(name, Qt.Key.Key_Return))
    await wait_until(lambda: _dialog() is None, DIALOG_SECONDS)


def _dialog() -> QFileDialog | None:
    for widget in QApplication.topLevelWidgets():
        if (
            isinstance(widget, QFileDialog)
            and widget.objectName() == "exportDialog"
            and widget.isVisible()
        ):
            return widget
    return None


def _shown(view: QTableView) -> tuple[list[str], int]:
    model, header = view.model(), view.horizontalHeader()
    columns = sorted(
        (c for c in range(model.columnCount()) if not header.isSectionHidden(c)),
        key=header.visualIndex,
    )
    # A header drawn on two lines (Carrier capacity's "On-time\ndeliveries") is one title in a file.
    titles = [
        " ".join(str(model.headerData(c, Qt.Orientation.Horizontal)).split("\n")) for c in columns
    ]
    return titles, model.rowCount()


def _read(path: Path) -> list[list[object]]:
    if path.suffix == ".csv":
        with path.open(encoding="utf-8-sig", newline="") as handle:
            return [list(r) for r in csv.reader(handle)]
    workbook = load_workbook(path, read_only=True)
    rows = [list(r) for r in workbook.active.iter_rows(values_only=True)]  # type: ignore[union-attr]
    workbook.close()
    return rows


@pytest.mark.parametrize("case", CASES, ids=[c.key for c in CASES])
async def test_every_list_pane_exports_what_it_shows(
    qtbot: QtBot, window: MainWindow, case: Case, tmp_path: Path
) -> None:
    pane = _pane(window, case)
    await activated(window)
    await window.session.connect()
    notice = getattr(pane, "notice")  # noqa: B009
    assert isinstance(notice, Notice)
    if case.criteria is not None:
        await case.criteria(pane)
    if not case.filled:
        button = getattr(pane, "search_button", None) or getattr(pane, "refresh_button", None)
        if isinstance(button, QPushButton) and button.isEnabled():
            qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    view = getattr(pane, case.table) if case.table else None
    if view is not None:
        assert isinstance(view, QTableView)
        await wait_until(lambda: view.model().rowCount() > 0, DATA_SECONDS)
        header = view.horizontalHeader()
        if header.count() > 2:  # the user's order and columns: the last moved first, one hidden
            header.moveSection(header.count() - 1, 0)
            header.setSectionHidden(header.logicalIndex(1), True)
    else:
        assert isinstance(pane, YardPane)
        await wait_until(
            lambda: pane.answer is not None and bool(pane.answer.results), DATA_SECONDS
        )
    for suffix in ("xlsx", "csv"):
        path = tmp_path / f"{case.key}.{suffix}"
        await _export_with_keys(qtbot, window, path)
        said = f" to {path}"
        await wait_until(
            lambda said=said: notice.text().startswith("Exported") and notice.text().endswith(said),
            DATA_SECONDS,
        )
        rows = _read(path)
        if view is not None:
            titles, count = _shown(view)
            assert rows[0] == [*case.leading, *titles]
            assert len(rows) - 1 == count
        else:
            assert isinstance(pane, YardPane)
            assert rows[0][:3] == ["Site", "Start", "End"]
            assert pane.answer is not None
            assert len(rows) - 1 == len(pane.answer.results)
        times = [c for r in rows[1:] for c in r if isinstance(c, str) and TIME.match(c)]
        # A time is the instant with its offset, never the screen's "11-28 06:30".
        for cell in times:
            assert datetime.fromisoformat(cell).utcoffset() is not None, cell
        assert bool(times) == case.times, times


async def test_exporting_over_a_file_asks_first(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    """A file already there is replaced only once the user says so: No keeps it and the save
    dialog stays for another name; Yes writes the list over it."""
    case = next(c for c in CASES if c.key == "bookings")
    pane = _pane(window, case)
    assert isinstance(pane, BookingsPane)
    await activated(window)
    await window.session.connect()
    await wait_until(lambda: pane.table.model().rowCount() > 0, DATA_SECONDS)
    path = tmp_path / "bookings.csv"
    path.write_text("the user's own file\n", encoding="utf-8")

    name = await _type_path(qtbot, window, path, there=True)
    await save_over(qtbot, name, path, "the user's own file\n")
    said = f" to {path}"
    await wait_until(
        lambda: pane.notice.text().startswith("Exported") and pane.notice.text().endswith(said),
        DATA_SECONDS,
    )
    rows = _read(path)
    titles, count = _shown(pane.table)
    assert rows[0] == [*case.leading, *titles] and len(rows) - 1 == count


async def save_over(qtbot: QtBot, name: QLineEdit, path: Path, there: str) -> None:
    """Return in the export dialog's name box `name` when `path` (holding `there`) is already
    there: the question names the file; No keeps it and the dialog stays for another name,
    then Return again and Yes writes over it (the dialog closes; the file is written after)."""
    for answer in (QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes):
        # Return opens the question modal: from Qt's loop, not waited for (see _from_loop).
        await _from_loop(lambda: qtbot.keyClick(name, Qt.Key.Key_Return), wait=False)
        await wait_until(lambda: _question() is not None, DIALOG_SECONDS)
        question = _question()
        assert question is not None
        assert f"{path.name} already exists" in question.text(), question.text()
        assert "replace" in question.text()
        button = question.button(answer)
        await _from_loop(lambda b=button: qtbot.mouseClick(b, Qt.MouseButton.LeftButton))
        await wait_until(lambda: _question() is None, DIALOG_SECONDS)
        if answer == QMessageBox.StandardButton.No:
            assert _dialog() is not None and name.text() == str(path)
            assert await asyncio.to_thread(path.read_text, encoding="utf-8") == there
    await wait_until(lambda: _dialog() is None, DIALOG_SECONDS)


def _question() -> QMessageBox | None:
    dialog = _dialog()
    found = dialog.findChildren(QMessageBox) if dialog is not None else []
    return next((box for box in found if box.isVisible()), None)
