"""While the demo is being written the empty Shipments list says so, never "No shipments"
(the walkthrough of session 18, at 5 s of a first run: the list said "No shipments to show:
New shipment tracks one…" while the status bar said "Preparing demo data: 0 of 307").

The state is held with a real service whose demo was begun and is never continued (no demo
worker runs in it): its status says "preparing" with none of the shipments written, and its
first list answers empty. The session follows the preparation as it does the Local sandbox's."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot
from sqlalchemy import update

from freightdesk.server.db import transaction
from freightdesk.server.demo.progress import Stage, begin_demo
from freightdesk.server.tables.demo import DemoSeeding
from freightdesk.service.profiles import Profile, ProfileKind, ProfileStore
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.list_feed import EMPTY_TEXT, LOADING_TEXT, PREPARING_TEXT
from tests.support import LiveService, running_service, wait_until
from tests.ui.conftest import close_session
from tests.ui.test_shipments_list import _pane, shipments_window

SECONDS = 30.0


@pytest.fixture
def preparing() -> Iterator[tuple[LiveService, str, str]]:
    """A service whose demo is being prepared, and stays so: with its client's credentials."""
    with running_service() as live:
        credentials = begin_demo(live.context)
        assert credentials is not None
        yield live, credentials.client_id, credentials.client_secret


@pytest.fixture
async def demo_session(
    preparing: tuple[LiveService, str, str], session: AppSession, profiles: ProfileStore
) -> AsyncIterator[AppSession]:
    live, client_id, secret = preparing
    profile = Profile(
        id="", name="Demo", kind=ProfileKind.REMOTE, base_url=live.url, client_id=client_id
    )
    profiles.activate(profiles.save(profile, secret=secret).id)
    yield session
    await close_session(session)


@pytest.fixture
def window(qtbot: QtBot, demo_session: AppSession, settings: QSettings) -> Iterator[QWidget]:
    yield from shipments_window(qtbot, demo_session, settings)


async def test_the_empty_list_says_the_demo_is_being_prepared(
    preparing: tuple[LiveService, str, str], demo_session: AppSession, window: QWidget
) -> None:
    pane = _pane(window)
    said: list[str] = []  # every text the empty list showed, in order

    def saying() -> str:
        text = pane.empty.text() if pane.empty.shown else ""
        if not said or said[-1] != text:
            said.append(text)
        return text

    assert saying() == LOADING_TEXT  # nothing asked yet
    # As the session does for the Local sandbox: a demo is expected as the service starts
    # (it said it begun one), and followed once connected.
    demo_session.demo.expect()
    await demo_session.connect()
    assert demo_session.shipments is not None
    coordinator = demo_session.shipments.coordinator
    demo_session.demo.follow(coordinator)
    await wait_until(
        lambda: saying() == PREPARING_TEXT and coordinator.status.last_success is not None,
        SECONDS,
    )
    # Held: the list answered empty, again and again; the empty list still says why.
    answered = coordinator.status.last_success
    await wait_until(
        lambda: saying() != PREPARING_TEXT or coordinator.status.last_success != answered, SECONDS
    )
    assert saying() == PREPARING_TEXT and pane.model.total == 0
    # The preparation over (with none written: the list is empty): now it says so.
    live = preparing[0]
    with transaction(live.context.sessions) as db:
        db.execute(update(DemoSeeding).values(stage=Stage.READY.value))
    await wait_until(lambda: saying() == EMPTY_TEXT, SECONDS)
    assert "No shipments" not in " ".join(said[:-1]), said
