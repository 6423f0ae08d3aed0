"""A list pane with nothing in it yet says how to fill it, against the real local service (a
fresh tenant): its empty state names the pane's own way to add or find what it lists."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.account_groups.pane import AccountGroupsPane
from freightdesk.ui.panes.packages.pane import PackagesPane
from freightdesk.ui.panes.push.pane import PushPane
from freightdesk.ui.panes.rail.pane import RailPane
from freightdesk.ui.panes.schedules.pane import SchedulesPane
from freightdesk.ui.panes.stop_locations.pane import StopLocationsPane
from freightdesk.ui.panes.webhooks.pane import WebhooksPane
from tests.support import TenantHandle, wait_until
from tests.ui.test_bookings_pane import _bookings_pane
from tests.ui.test_panes_support import connected, shown_pane

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
    await wait_until(lambda: pane.empty.isVisible(), 30)
    assert words in pane.empty.text()
    pane.shutdown()
