"""Helpers of the pane tests (Documents, Stop locations, Webhooks, Bookings, Packages, Rate
requests, Account groups): a session connected to the real local service through a remote
profile, the pane shown and connected, the form it opened, and answering questions."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Protocol, TypeVar

import pytest
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.profiles import Profile, ProfileKind, ProfileStore
from freightdesk.service.session import AppSession
from freightdesk.ui.widgets.paging import PageBar
from tests.proxy import Fault, FaultyProxy
from tests.support import LiveService, TenantHandle, make_tenant, wait_until
from tests.ui.conftest import close_session

P = TypeVar("P", bound=QWidget)
W = TypeVar("W", bound=QWidget)

PANE_SIZE = (1400, 800)  # every column of the widest list pane fits


def _activate(
    profiles: ProfileStore, url: str, tenant: TenantHandle, poll_interval: float = 5
) -> None:
    profile = profiles.save(
        Profile(
            id="",
            name="Test service",
            kind=ProfileKind.REMOTE,
            base_url=url,
            client_id=tenant.client_id,
            poll_interval=poll_interval,
        ),
        secret=tenant.client_secret,
    )
    profiles.activate(profile.id)


@pytest.fixture
async def connected(
    sqlite_service: LiveService, session: AppSession, profiles: ProfileStore
) -> AsyncIterator[tuple[AppSession, TenantHandle]]:
    """A session whose active profile is a fresh tenant of the local service (not yet
    connected: a test builds its pane first, then awaits `session.connect()`)."""
    tenant = make_tenant(sqlite_service)
    _activate(profiles, sqlite_service.url, tenant)
    yield session, tenant
    await close_session(session)
    tenant.http.close()


@pytest.fixture
async def proxied(
    sqlite_service: LiveService, session: AppSession, profiles: ProfileStore
) -> AsyncIterator[tuple[AppSession, TenantHandle, FaultyProxy]]:
    """As `connected`, but the app reaches the service through a proxy that can misbehave."""
    tenant = make_tenant(sqlite_service)
    proxy = FaultyProxy(sqlite_service.url).start()
    _activate(profiles, proxy.url, tenant)
    yield session, tenant, proxy
    await close_session(session)
    proxy.stop()
    tenant.http.close()


def message_box(name: str) -> QMessageBox | None:
    """The open question box with this object name, if any."""
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, QMessageBox) and widget.objectName() == name and widget.isVisible():
            return widget
    return None


def answer(name: str, button: QMessageBox.StandardButton) -> None:
    box = message_box(name)
    assert box is not None, f"no question {name!r} is open"
    box.done(button)


async def click_answer(
    qtbot: QtBot, name: str, button: QMessageBox.StandardButton, text: str
) -> None:
    """Wait for the question `name`, then click its `button` as a user, checking that the
    button says `text` (what it does)."""
    from PySide6.QtCore import Qt

    await wait_until(lambda: message_box(name) is not None, seconds=30)
    box = message_box(name)
    assert box is not None
    found = box.button(button)
    assert found is not None and found.text() == text, found.text() if found else None
    qtbot.mouseClick(found, Qt.MouseButton.LeftButton)


def visible_dialogs(kind: type[QWidget]) -> list[QWidget]:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, kind) and w.isVisible()]


async def shown_pane(
    qtbot: QtBot,
    session: AppSession,
    make: Callable[[AppSession], P],
    size: tuple[int, int] = PANE_SIZE,
) -> P:
    """The pane `make` builds, shown as in the window, then the session connected (so the
    pane first shows what the cache holds, as at the app's start)."""
    pane = make(session)
    qtbot.addWidget(pane)
    pane.resize(*size)
    pane.show()
    await session.connect()
    return pane


class OpensDialogs(Protocol):
    @property
    def dialog(self) -> QWidget | None: ...


def shown_dialog(pane: OpensDialogs, kind: type[W]) -> W:
    """The form (or other dialog) the pane opened last: of `kind`, and on screen."""
    dialog = pane.dialog
    assert isinstance(dialog, kind) and dialog.isVisible(), dialog
    return dialog


class ListPane(OpensDialogs, Protocol):
    @property
    def page_bar(self) -> PageBar: ...

    def new_item(self) -> None: ...


async def new_form(pane: ListPane, kind: type[W], empty: str, seconds: float = 10.0) -> W:
    """New, once the pane's page bar says its list is empty (`empty`): the form it opens."""
    await wait_until(lambda: pane.page_bar.label.text() == empty, seconds)
    pane.new_item()
    return shown_dialog(pane, kind)


class SavingForm(Protocol):
    @property
    def general_error(self) -> QLabel: ...

    def save(self) -> None: ...

    def isVisible(self) -> bool: ...  # noqa: N802 (Qt's name)


async def saved_while_the_service_fails(form: SavingForm, proxy: FaultyProxy, path: str) -> None:
    """Save once while the service answers 503 at `path`: the form stays open and says the
    service had a problem, and the POST went out once (a create is never repeated blindly).
    What the form kept is the caller's to check."""
    proxy.inject(Fault(status=503, path_prefix=path))
    form.save()
    await wait_until(lambda: form.general_error.isVisible())
    assert "had a problem" in form.general_error.text()
    assert form.isVisible()
    assert proxy.count("POST", path) == 1
