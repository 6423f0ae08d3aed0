"""Tabs whose hidden pages do not widen them.

A QTabWidget is at least as wide as its widest page's minimum, shown or not (its stacked
layout takes the largest of all): one wide page (a form, a preview) then narrows everything
beside the tabs, whichever page is open. Pages not shown ask for no room here; the one shown
asks for its own.
"""

from __future__ import annotations

from PySide6.QtWidgets import QSizePolicy, QTabWidget


def size_to_current_tab(tabs: QTabWidget) -> None:
    """From now on `tabs` needs only the room of the page it shows."""

    def follow(current: int) -> None:
        for index in range(tabs.count()):
            page = tabs.widget(index)
            if page is None:
                continue
            policy = (
                QSizePolicy.Policy.Preferred if index == current else QSizePolicy.Policy.Ignored
            )
            page.setSizePolicy(policy, policy)
            page.updateGeometry()

    tabs.currentChanged.connect(follow)
    follow(tabs.currentIndex())
