"""The pieces every list pane is made of: the item table (one row selected, kept across
refreshes, the keys that open and delete), the paging row, and the list page that fetches a
page for the search as typed, fills the search from the cached list and says failures."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest
from pydantic import BaseModel
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QLineEdit, QMessageBox, QPushButton, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.cache import Cache
from freightdesk.service.listing import Listing, ListService, Params, params_text
from freightdesk.service.session import AppSession
from freightdesk.ui.widgets.item_table import ItemTable
from freightdesk.ui.widgets.list_page import ListPage, ListSearch
from freightdesk.ui.widgets.listing import Column, ListingModel
from freightdesk.ui.widgets.notice import Notice
from freightdesk.ui.widgets.paging import PageBar, Paging
from tests.support import wait_until
from tests.ui.test_capacity_support import press, settle
from tests.ui.test_panes_support import answer, message_box


class Crate(BaseModel):
    id: str
    city: str


COLUMNS = [Column[Crate]("Id", lambda c: c.id, 80), Column[Crate]("City", lambda c: c.city, 140)]


def _crates(*ids: str) -> list[Crate]:
    return [Crate(id=i, city="Austin") for i in ids]


def _table(qtbot: QtBot) -> ItemTable[Crate]:
    table = ItemTable(ListingModel(COLUMNS), lambda c: c.id, name="crates")
    qtbot.addWidget(table)
    return table


# --- the item table ----------------------------------------------------------------------


def test_the_selected_item_stays_selected_across_refreshes(qtbot: QtBot) -> None:
    table = _table(qtbot)
    heard: list[Crate | None] = []
    table.selectedChanged.connect(lambda: heard.append(table.selected()))
    table.set_items(_crates("a", "b", "c"))
    assert table.selected() is None and heard == [None]
    assert table.columnWidth(0) == 80  # the last column takes the room left
    table.selectRow(1)
    assert heard[-1] is not None and heard[-1].id == "b"
    # Refreshed with a new item on top: the same item is selected, on its new row.
    table.set_items(_crates("new", "a", "b", "c"))
    selected = table.selected()
    assert selected is not None and selected.id == "b" and table.currentIndex().row() == 2
    assert heard[-1] is selected
    # Gone from the list (deleted elsewhere): nothing is selected, and the pane hears of it.
    table.set_items(_crates("new", "a", "c"))
    assert table.selected() is None and heard[-1] is None


def test_an_item_made_elsewhere_is_selected_once_the_list_has_it(qtbot: QtBot) -> None:
    table = _table(qtbot)
    table.set_items(_crates("a", "b"))
    table.selectRow(0)
    table.select_when_listed("z")
    assert table.selected() is not None  # not listed yet: the selection stays as it was
    table.set_items(_crates("z", "a", "b"))
    selected = table.selected()
    assert selected is not None and selected.id == "z"
    # Once selected it is no longer wanted: the user's next pick is kept.
    table.selectRow(2)
    table.set_items(_crates("z", "a", "b"))
    selected = table.selected()
    assert selected is not None and selected.id == "b"
    # Listed already: selected at once.
    table.select_when_listed("a")
    selected = table.selected()
    assert selected is not None and selected.id == "a"


def test_the_keys_and_buttons_open_and_delete_the_selected_item(qtbot: QtBot) -> None:
    table = _table(qtbot)
    edit, delete = QPushButton("&Edit…"), QPushButton("&Delete…")
    done: list[str] = []
    table.on_open(lambda: done.append("open"), "Open it", button=edit)
    table.on_delete(lambda: done.append("delete"), "Delete it", button=delete)
    # Nothing selected: nothing to act on.
    assert not edit.isEnabled() and not delete.isEnabled()
    table.set_items(_crates("a", "b"))
    table.selectRow(0)
    assert edit.isEnabled() and delete.isEnabled()
    for key in (Qt.Key.Key_Return, Qt.Key.Key_F2):
        press(table, key)
    press(table, QKeySequence(QKeySequence.StandardKey.Delete))
    table.doubleClicked.emit(table.model().index(0, 0))
    edit.click()
    delete.click()
    assert done == ["open", "open", "delete", "open", "open", "delete"]
    # The keys act on the table only (typing Return in a search field does not open).
    contexts = {action.shortcutContext() for action in table.actions()}
    assert contexts == {Qt.ShortcutContext.WidgetShortcut}
    # The item gone in a refresh: the buttons follow.
    table.set_items(_crates("b"))
    assert not edit.isEnabled() and not delete.isEnabled()


# --- paging ------------------------------------------------------------------------------


def test_pages_by_number_and_by_offset() -> None:
    numbered, offset = Paging(25), Paging(50, by_offset=True)
    assert numbered.params(2) == {"pageNumber": 2, "pageSize": 25}
    assert offset.params(3) == {"offset": 100, "pageSize": 50}
    assert offset.params(0) == offset.params(1) == {"offset": 0, "pageSize": 50}
    assert numbered.position({"pageNumber": 3, "pageSize": 10}) == (20, 10)
    assert offset.page({"offset": 100, "pageSize": 50}) == 3
    assert numbered.page({}) == 1
    # Searched: a criterion besides the page is set (blank ones do not count).
    assert not offset.searched({"q": "", "offset": 50, "pageSize": 50})
    assert not numbered.searched({"statuses": [], "pageNumber": 2})
    assert numbered.searched({"statuses": ["BOOKED"], "pageNumber": 1})


def _listing(count: int, total: int, params: Params) -> Listing[Crate]:
    return Listing(tuple(_crates(*(str(n) for n in range(count)))), total, params_text(params))


def test_the_paging_row_says_which_items_are_shown(qtbot: QtBot) -> None:
    bar = PageBar(Paging(25), "crates")
    qtbot.addWidget(bar)
    assert not bar.previous_button.isEnabled() and not bar.next_button.isEnabled()
    bar.show_listing(_listing(25, 31, {"pageNumber": 1, "pageSize": 25}))
    assert bar.label.text() == "1\u201325 of 31 crates"
    assert bar.next_button.isEnabled() and not bar.previous_button.isEnabled()
    bar.show_listing(_listing(6, 31, {"pageNumber": 2, "pageSize": 25}))
    assert bar.label.text() == "26\u201331 of 31 crates"
    assert bar.previous_button.isEnabled() and not bar.next_button.isEnabled()
    bar.show_listing(_listing(0, 0, {"pageNumber": 1, "pageSize": 25}))
    assert bar.label.text() == "No crates yet"
    bar.show_listing(_listing(0, 0, {"city": "Reno", "pageNumber": 1, "pageSize": 25}))
    assert bar.label.text() == "No crates match"
    bar.show_listing(_listing(1, 1_200, {"pageNumber": 1, "pageSize": 25}))
    assert bar.label.text() == "1\u20131 of 1,200 crates"
    steps: list[int] = []
    bar.stepped.connect(steps.append)
    bar.previous_button.setEnabled(True)
    bar.next_button.setEnabled(True)
    bar.next_button.click()
    bar.previous_button.click()
    assert steps == [1, -1]


# --- the list page -----------------------------------------------------------------------


class ListingService(ListService[Crate]):
    """A list served from memory: crates found by city, a page at a time."""

    kind = "crates"

    def __init__(self, cache: Cache, crates: Sequence[Crate]) -> None:
        super().__init__(cache, Crate, lambda c: c.id, params={"pageNumber": 1, "pageSize": 2})
        self.crates = list(crates)
        self.asked: list[Params] = []
        self.failure: Exception | None = None

    async def fetch_items(self, params: Params) -> tuple[Sequence[Crate], int]:
        self.asked.append(params)
        if self.failure is not None:
            raise self.failure
        city = str(params.get("city") or "")
        found = [c for c in self.crates if not city or c.city == city]
        first = (int(params["pageNumber"]) - 1) * int(params["pageSize"])
        return found[first : first + int(params["pageSize"])], len(found)


class CratesPane(QWidget):
    """A list pane as small as one can be: a city to search for, the table, the pages."""

    def __init__(self, session: AppSession, service: ListingService) -> None:
        super().__init__()
        self.city = QLineEdit(self)
        self.notice = Notice(self)
        self.table = ItemTable(ListingModel(COLUMNS, self), lambda c: c.id, self, name="crates")
        self.page_bar = PageBar(Paging(2), "crates", self)
        layout = QVBoxLayout(self)
        for widget in (self.city, self.notice, self.table, self.page_bar):
            layout.addWidget(widget)
        self.refused = False
        self.page = ListPage(
            self,
            session,
            lambda _s: service,
            self.table,
            self.notice,
            name="crates",
            pages=self.page_bar,
            search=ListSearch(read=self._criteria, fill=self._fill),
        )
        self.city.textEdited.connect(self.page.search_soon)
        self.city.returnPressed.connect(self.page.search_now)

    def _criteria(self) -> Params | None:
        if self.city.text() == "?":
            self.refused = True
            self.notice.show_error("Type a city.")
            return None
        return {"city": self.city.text()}

    def _fill(self, params: Params) -> None:
        self.city.setText(str(params.get("city") or ""))


class Connected:
    """Stands for the session's client: the page only asks whether there is one."""

    async def aclose(self) -> None:
        pass


@pytest.fixture
async def crates(
    session: AppSession, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[ListingService]:
    cache = session.open_cache(session.profiles.active)
    service = ListingService(cache, [Crate(id=str(n), city="Reno" if n % 2 else "Austin")
                                     for n in range(5)])  # fmt: skip
    monkeypatch.setattr(session, "client", Connected())
    yield service
    await service.aclose()  # its polling ended (the session does not know of it)


@pytest.fixture
async def pane(
    qtbot: QtBot, session: AppSession, crates: ListingService
) -> AsyncIterator[CratesPane]:
    """The pane (not shown: its list does not poll, pages come as the test asks for them);
    afterwards nothing is under way."""
    made = CratesPane(session, crates)
    qtbot.addWidget(made)
    yield made
    made.page.shutdown()
    await settle(session)


async def test_a_page_is_fetched_for_the_search_as_typed(
    pane: CratesPane, crates: ListingService
) -> None:
    pane.page.show_page(1)
    await wait_until(lambda: pane.table.items_model.rowCount() == 2)
    assert crates.asked == [{"city": "", "pageNumber": 1, "pageSize": 2}]
    assert pane.page_bar.label.text() == "1\u20132 of 5 crates"
    pane.page_bar.next_button.click()
    await wait_until(lambda: pane.page_bar.label.text() == "3\u20134 of 5 crates")
    pane.page.step(1)
    await wait_until(lambda: pane.page_bar.label.text() == "5\u20135 of 5 crates")
    # Typing searches after a pause, from the first page.
    pane.city.setText("Reno")
    pane.city.textEdited.emit("Reno")
    await wait_until(lambda: pane.page_bar.label.text() == "1\u20132 of 2 crates")
    assert crates.asked[-1] == {"city": "Reno", "pageNumber": 1, "pageSize": 2}
    # A search the pane refuses is not sent; its message goes once a search succeeds.
    asked = len(crates.asked)
    pane.city.setText("?")
    pane.page.show_page(1)
    assert pane.refused and len(crates.asked) == asked
    assert pane.notice.text() == "Type a city." and pane.notice.is_error
    pane.city.setText("Austin")
    pane.city.returnPressed.emit()
    await wait_until(lambda: pane.page_bar.label.text() == "1\u20132 of 3 crates")
    assert pane.notice.isHidden() and not pane.notice.is_error
    # Cleared: every crate again, from the first page.
    pane.page_bar.next_button.click()
    await wait_until(lambda: pane.page_bar.label.text() == "3\u20133 of 3 crates")
    pane.page.clear_search()
    await wait_until(lambda: pane.page_bar.label.text() == "1\u20132 of 5 crates")
    assert pane.city.text() == ""
    assert crates.asked[-1] == {"city": "", "pageNumber": 1, "pageSize": 2}


async def test_a_failure_is_said_and_the_last_list_kept(
    pane: CratesPane, crates: ListingService
) -> None:
    pane.page.show_page(1)
    await wait_until(lambda: pane.table.items_model.rowCount() == 2)
    crates.failure = RuntimeError("The service had a problem.")
    pane.page.step(1)
    await wait_until(lambda: "had a problem" in pane.notice.text())
    assert pane.table.items_model.rowCount() == 2
    assert pane.page_bar.label.text() == "1\u20132 of 5 crates"
    # Other work of the pane fails the same way.
    failed: list[Any] = []

    async def boom() -> None:
        raise RuntimeError("Could not delete it.")

    pane.page.run(boom(), "boom", on_done=failed.append)
    await wait_until(lambda: pane.notice.text() == "Could not delete it.")
    assert failed == []


async def test_the_search_shows_what_the_cached_list_was_found_by(
    qtbot: QtBot, session: AppSession, crates: ListingService
) -> None:
    await crates.show({"city": "Reno", "pageNumber": 1, "pageSize": 2})  # the last session's
    pane = CratesPane(session, crates)  # not shown: the list as it was, without fetching
    qtbot.addWidget(pane)
    await wait_until(lambda: pane.city.text() == "Reno")
    assert pane.page_bar.label.text() == "1\u20132 of 2 crates"
    # Filled once: later refreshes leave what the user types alone.
    pane.city.setText("Aus")
    pane.page.show_data()
    assert pane.city.text() == "Aus"
    pane.page.shutdown()
    await settle(session)


async def test_deleting_asks_first_naming_the_item(
    pane: CratesPane, crates: ListingService
) -> None:
    deleted: list[str] = []
    pane.page.ask_delete("crate", "Crate 7", lambda: deleted.append("7"), informative="Gone.")
    box = message_box("confirmDelete")
    assert box is not None and box.windowTitle() == "Delete crate"
    assert box.text() == "Delete the crate Crate 7?" and box.informativeText() == "Gone."
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    delete = box.button(QMessageBox.StandardButton.Yes)
    assert delete is not None and delete.text() == "&Delete"
    answer("confirmDelete", QMessageBox.StandardButton.Cancel)
    assert deleted == []
    pane.page.ask_delete("crate", "Crate 7", lambda: deleted.append("7"))
    answer("confirmDelete", QMessageBox.StandardButton.Yes)
    assert deleted == ["7"]
