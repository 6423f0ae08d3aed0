"""The Packages pane's filters at laptop sizes: each hint reads whole."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.packages.pane import PackagesPane
from tests.support import TenantHandle
from tests.ui.placeholders import placeholder_whole
from tests.ui.test_capacity_support import settle
from tests.ui.test_columns_fit import AT_1366, AT_1440
from tests.ui.test_panes_support import connected, shown_pane

__all__ = ["connected"]


@pytest.mark.parametrize("room", [AT_1366, AT_1440], ids=["1366", "1440"])
async def test_the_filters_hints_read_whole(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], room: tuple[int, int]
) -> None:
    """Each filter's hint reads whole in the pane at 1366x768 and 1440x900 (the shipper
    key's was cut), the longer word in its tooltip."""
    session, _tenant = connected
    pane = await shown_pane(qtbot, session, PackagesPane, room)
    cut = [e.placeholderText() for e in pane.filters.values() if not placeholder_whole(e)]
    assert not cut
    assert "shipper's company id" in pane.filters["shipper_tenant_uuid"].toolTip()
    pane.shutdown()
    await settle(session)
