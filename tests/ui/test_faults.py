"""The app under a misbehaving service, through the faulty proxy (tests/proxy.py): the
connection cut mid-answer, 500 with the interface's Error body, 500 with a web server's HTML
page, 429 with Retry-After, 200 with garbage JSON, 200 with JSON of the wrong shape, and an
answer that does not come in time (the proxy holds it 30 s, the client waits 1 s here).

For each: the Shipments and Stop locations lists keep their rows and say in plain words what
happened and how old the data is, a form's save keeps everything typed with the reason beside
it and saves on the next try, the GUI answers all along, and once the fault is gone the next
poll brings fresh data and the status recovers.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Any

import httpx
import pytest
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from freightdesk.service.coordinator import Coordinator
from freightdesk.service.paths import AppPaths
from freightdesk.service.session import AppSession
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from freightdesk.ui.panes.stop_locations.form import StopLocationFormDialog
from freightdesk.ui.panes.stop_locations.pane import StopLocationsPane
from freightdesk.ui.watchdog import GuiWatchdog
from tests.proxy import Fault, FaultyProxy
from tests.support import TenantHandle, wait_until
from tests.ui.test_panes_support import PANE_SIZE, new_form, proxied, shown_pane
from tests.ui.test_shipments_pane import _ltl, _put
from tests.ui.test_stop_locations_pane import PATH, _body

__all__ = ["proxied"]

SEARCH = "/api/v4/shipments/search"  # what the Shipments list polls
CLIENT_TIMEOUT = 1.0  # seconds the client waits for an answer here (the app's: 30)
HELD = 30.0  # how long the proxy holds a "slow" answer
STALL = 0.5  # the longest the GUI may stand still during a fault
FAULT_SECONDS = 60.0  # a poll under a fault ends within ~6 s (4 attempts); load may slow it

ERROR_BODY = json.dumps(
    {
        "httpStatusCode": 500,
        "httpMessage": "Internal Server Error",
        "errorMessage": "The database is locked",
        "errors": [
            {
                "severity": "ERROR",
                "message": "Could not be stored just now",
                "diagnostic": "database is locked",
                "source": "name",
            }
        ],
        "supportReferenceId": "ref-fault-500",
    }
).encode()
HTML_PAGE = (
    b"<!DOCTYPE html><html><head><title>500 Internal Server Error</title></head>"
    b"<body><h1>Internal Server Error</h1><p>nginx</p></body></html>"
)
JSON = {"content-type": "application/json"}


@dataclass(frozen=True)
class Case:
    fault: Fault  # path_prefix and method are set per use
    state: str  # the indicator's word
    words: str  # in what the app says (the indicator's tooltip, a list's notice, a form)
    field: str = ""  # the form field the service named, if it did


CASES: dict[str, Case] = {
    "dropped": Case(
        Fault(drop=True), "Offline", "connection to the freight service broke off before"
    ),
    "500 Error body": Case(
        Fault(status=500, body=ERROR_BODY, headers=JSON, forward=False),
        "Degraded",
        "had a problem handling this. (support reference ref-fault-500)",
        field="name",
    ),
    "500 HTML": Case(
        Fault(status=500, body=HTML_PAGE, headers={"content-type": "text/html"}, forward=False),
        "Degraded",
        "had a problem handling this",
    ),
    "429": Case(
        Fault(status=429, headers={"Retry-After": "1"}),
        "Degraded",
        "busy (too many requests) and asked to wait 1 s",
    ),
    "garbage JSON": Case(
        Fault(status=200, body=b'{"items": [{"id": "12', headers=JSON, forward=False),
        "Degraded",
        "answer FreightDesk does not understand",
    ),
    "wrong shape": Case(
        Fault(status=200, body=b'{"items": "none", "total": "many"}', headers=JSON, forward=False),
        "Degraded",
        "answer FreightDesk does not understand",
    ),
    "slow": Case(Fault(delay=HELD), "Offline", f"did not answer within {CLIENT_TIMEOUT:g} s"),
}


def _inject(proxy: FaultyProxy, case: Case, path: str, method: str = "") -> None:
    """The case's fault on every request to `path` (by `method`) until `proxy.clear()`."""
    proxy.inject(replace(case.fault, path_prefix=path, method=method), times=500)


@contextmanager
def responsive() -> Iterator[None]:
    """Fails unless the GUI thread kept answering throughout the block: the app's watchdog
    saw no stall over STALL, and a 50 ms timer never beat later than that."""
    beats = [time.monotonic()]
    timer = QTimer()
    timer.setInterval(50)
    timer.timeout.connect(lambda: beats.append(time.monotonic()))
    dog = GuiWatchdog()
    dog.start()
    try:
        with dog.collecting(over=STALL) as stalls:
            timer.start()
            yield
            timer.stop()
    finally:
        timer.stop()
        dog.stop()
        dog.deleteLater()
    beats.append(time.monotonic())
    assert not stalls, stalls
    longest = max(b - a for a, b in pairwise(beats))
    assert longest < STALL, f"the GUI stood still {longest:.2f} s"


def _quick(coordinator: Coordinator[Any, Any]) -> None:
    """Poll every half second, and never back off beyond 2 s (the app's: its profile's
    interval, backing off to 5 minutes), so the test sees the next polls soon."""
    coordinator.interval = 0.5
    coordinator.max_backoff = 2.0
    coordinator.poke()


def _fast_client(session: AppSession) -> None:
    """The client gives up on an answer after CLIENT_TIMEOUT instead of 30 s."""
    assert session.client is not None
    session.client.http.timeout = httpx.Timeout(CLIENT_TIMEOUT)


def _names(pane: StopLocationsPane) -> list[str]:
    return [item.name for item in pane.model.items]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", list(CASES))
async def test_lists_keep_their_rows_and_say_what_happened(
    name: str,
    qtbot: QtBot,
    proxied: tuple[AppSession, TenantHandle, FaultyProxy],
    settings: QSettings,
    paths: AppPaths,
) -> None:
    case = CASES[name]
    session, tenant, proxy = proxied
    _put(tenant, _ltl("FAULT0001"))
    tenant.http.post(PATH, json=_body("Austin DC")).raise_for_status()
    window = MainWindow(session, settings, paths)
    qtbot.addWidget(window)
    window.show()
    shipments = ShipmentsPane(session, settings)
    shipments.attach(session)
    for pane in (shipments, locations := StopLocationsPane(session)):
        qtbot.addWidget(pane)
        pane.resize(*PANE_SIZE)
        pane.show()
    await session.connect()
    _fast_client(session)
    await wait_until(lambda: shipments.model.rowCount() == 1 and _names(locations) == ["Austin DC"])
    assert session.shipments is not None and session.stop_locations is not None
    _quick(session.shipments.coordinator)
    _quick(session.stop_locations.coordinator)
    indicator = window.indicator
    await wait_until(lambda: indicator.state_label.text().startswith("Online"))

    def told() -> bool:
        return (
            indicator.state_label.text().startswith(case.state)
            and case.words in indicator.toolTip()
            and indicator.reason_label.isVisible()
            and case.words in locations.notice.text()
        )

    with responsive():
        _inject(proxy, case, SEARCH)
        _inject(proxy, case, PATH)
        await wait_until(told, seconds=FAULT_SECONDS)
        # The last rows stay, marked as saved data with their age.
        assert shipments.model.rowCount() == 1
        assert _names(locations) == ["Austin DC"]
        assert indicator.age_label.text().startswith("showing saved data, updated ")
        words = indicator.reason_label.text().rstrip("…")  # elided to fit, whole in the tooltip
        assert words and indicator.toolTip().startswith(words)
        assert locations.notice.text().startswith("Showing the last known list (")
        proxy.clear()
        # Fresh data with the next polls, and the status recovers.
        _put(tenant, _ltl("FAULT0002"))
        tenant.http.post(PATH, json=_body("Dallas DC")).raise_for_status()
        await wait_until(
            lambda: (
                shipments.model.rowCount() == 2 and _names(locations) == ["Austin DC", "Dallas DC"]
            ),
            seconds=FAULT_SECONDS,
        )
        await wait_until(lambda: indicator.state_label.text().startswith("Online"))
        await wait_until(lambda: not locations.notice.isVisible())
        assert not indicator.reason_label.isVisible()
    assert indicator.age_label.text().startswith("updated ")  # no longer "showing saved data"
    shipments.shutdown()
    locations.shutdown()


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", list(CASES))
async def test_a_save_that_meets_the_fault_keeps_the_form(
    name: str,
    qtbot: QtBot,
    proxied: tuple[AppSession, TenantHandle, FaultyProxy],
) -> None:
    case = CASES[name]
    session, tenant, proxy = proxied
    pane = await shown_pane(qtbot, session, StopLocationsPane)
    _fast_client(session)
    form = await new_form(pane, StopLocationFormDialog, "No stop locations yet")
    typed: dict[str, str] = {
        "name": "Fort Worth yard",
        "supplied_id": "FW-1",
        "city": "Fort Worth",
        "state": "TX",
        "postal_code": "76102",
    }
    for field, text in typed.items():
        getattr(form, field).clear()
        qtbot.keyClicks(getattr(form, field), text)
    qtbot.keyClicks(form.lines[0], "500 W 7th St")

    save = form.buttons.button(QDialogButtonBox.StandardButton.Save)

    def shows_why() -> bool:
        if case.field:
            return bool(form.errors.message_for(case.field))
        return form.general_error.isVisible() and case.words in form.general_error.text()

    with responsive():
        _inject(proxy, case, PATH, method="POST")
        qtbot.mouseClick(save, Qt.MouseButton.LeftButton)
        await wait_until(shows_why, seconds=FAULT_SECONDS)
        assert form.buttons.isEnabled()  # the user can try again
    if case.field:
        assert form.errors.message_for(case.field) == "Could not be stored just now"
    assert form.isVisible()
    assert {field: getattr(form, field).text() for field in typed} == typed
    assert form.lines[0].text() == "500 W 7th St"
    assert tenant.http.get(PATH).json()["locations"] == []  # nothing reached the service

    proxy.clear()
    qtbot.mouseClick(save, Qt.MouseButton.LeftButton)
    # Until the form closes or the save ends without closing it (then what it said is shown:
    # a wait for the close alone failed once in CI at load 12 without saying why).
    await wait_until(lambda: not form.isVisible() or save.isEnabled(), seconds=FAULT_SECONDS)
    assert not form.isVisible(), (form.general_error.text(), form.errors.message_for("name"))
    saved = tenant.http.get(PATH).json()["locations"]
    assert [(s["name"], s["suppliedId"], s["address"]["city"]) for s in saved] == [
        ("Fort Worth yard", "FW-1", "Fort Worth")
    ]
    await wait_until(lambda: _names(pane) == ["Fort Worth yard"])
    pane.shutdown()
