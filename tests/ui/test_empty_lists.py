"""A list pane with nothing in it yet says how to fill it, against the real local service (a
fresh tenant): its empty state names the pane's own way to add or find what it lists. A list
that fills itself says it is loading until its first answer, not that there is nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.account_groups.pane import AccountGroupsPane
from freightdesk.ui.panes.carriers.pane import CarrierProfilesPane
from freightdesk.ui.panes.packages.pane import PackagesPane
from freightdesk.ui.panes.push.pane import PushPane
from freightdesk.ui.panes.rail.pane import RailPane
from freightdesk.ui.panes.schedules.pane import SchedulesPane
from freightdesk.ui.panes.stop_locations.pane import StopLocationsPane
from freightdesk.ui.panes.webhooks.pane import WebhooksPane
from tests.support import TenantHandle, wait_until
from tests.ui.test_bookings_pane import _bookings_pane
from tests.ui.test_panes_support import PANE_SIZE, connected, shown_pane

__all__ = ["connected"]

# Each pane, and the words its empty state must hold.
EMPTY: dict[str, tuple[Callable[[AppSession], QWidget], str]] = {
    "account groups": (AccountGroupsPane, "add one"),
    "bookings": (_bookings_pane, "New booking"),
    "packages": (PackagesPane, "New package"),
    "push": (PushPane, "then Send"),
    "rail": (RailPane, "Track leg"),
    "schedules": (SchedulesPane, "then Search"),
    "stop locations": (StopLocationsPane, "New location"),
    "webhooks": (WebhooksPane, "New configuration"),
}


@pytest.mark.parametrize("kind", list(EMPTY))
async def test_an_empty_list_says_how_to_fill_it(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], kind: str
) -> None:
    make, words = EMPTY[kind]
    session, _tenant = connected
    pane: Any = await shown_pane(qtbot, session, make)
    await wait_until(lambda: pane.empty.isVisible() and words in pane.empty.text(), 30)
    pane.shutdown()


# The panes whose list fills itself, and what they say until it has.
LOADING: dict[str, tuple[Callable[[AppSession], QWidget], str, str]] = {
    "account groups": (AccountGroupsPane, "Loading account groups", "add one"),
    "bookings": (_bookings_pane, "Loading bookings", "New booking"),
    "carriers": (CarrierProfilesPane, "Loading carrier profiles", "Look up"),
    "packages": (PackagesPane, "Loading packages", "New package"),
    "stop locations": (StopLocationsPane, "Loading stop locations", "New location"),
    "webhooks": (WebhooksPane, "Loading push configurations", "New configuration"),
}


@pytest.mark.parametrize("kind", list(LOADING))
async def test_a_list_not_yet_fetched_says_it_is_loading_not_that_it_is_empty(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], kind: str
) -> None:
    make, loading, words = LOADING[kind]
    session, _tenant = connected
    pane: Any = make(session)
    # Made, the pane has started reading its cache; nothing has run yet to finish the read.
    reads = [t for t in asyncio.all_tasks() if t.get_name().startswith("load-cached-")]
    assert reads, "the pane reads its cache"
    qtbot.addWidget(pane)
    pane.resize(*PANE_SIZE)
    pane.show()  # a fresh profile: nothing cached, and the service not yet asked
    # Read (nothing there) and shown: the read's own callback has run before this wakes.
    await asyncio.wait(reads)
    assert pane.empty.isVisible() and loading in pane.empty.text()
    assert words not in pane.empty.text()
    await session.connect()
    await wait_until(lambda: words in pane.empty.text(), 30)
    # The words are up only if the list came back empty (a fresh tenant has carriers).
    assert pane.empty.isVisible() == (pane.table.model().rowCount() == 0)
    pane.shutdown()
