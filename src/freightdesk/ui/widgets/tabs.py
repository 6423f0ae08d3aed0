"""Tabs whose pages do not size them.

A QTabWidget is at least as wide as its widest page's minimum, shown or not (its stacked
layout takes the largest of all): one wide page (a form, a preview) then narrows everything
beside the tabs, whichever page is open. Pages not shown ask for no room here; the one shown
asks for its width. No page asks for height: the tabs' height is what the window gives them,
so that the tab bar stays where it is whichever page is shown (a tall page moved it up, under
the user's pointer, in a splitter that gave way to it). A page taller than its room scrolls.
"""

from __future__ import annotations

from PySide6.QtWidgets import QSizePolicy, QTabWidget


def size_to_current_tab(tabs: QTabWidget) -> None:
    """From now on `tabs` needs only the width of the page it shows, and no page's height."""

    def follow(current: int) -> None:
        for index in range(tabs.count()):
            page = tabs.widget(index)
            if page is None:
                continue
            across = (
                QSizePolicy.Policy.Preferred if index == current else QSizePolicy.Policy.Ignored
            )
            page.setSizePolicy(across, QSizePolicy.Policy.Ignored)
            page.updateGeometry()

    tabs.currentChanged.connect(follow)
    follow(tabs.currentIndex())
