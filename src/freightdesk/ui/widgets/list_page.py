"""A list pane's page of items: the list's binding, its table, its paging and its search.

`ListPage` is what the list panes (Stop locations, Webhooks, Bookings, Packages) have in
common: the service layer's list shown in an `ItemTable` (the selection kept across
refreshes), the list's status and failures said in the pane's `Notice`, a page fetched for the
criteria as typed (`ListSearch`) and the `PageBar` kept in step with it. The pane keeps its
own layout, inputs and actions.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from freightdesk.service.listing import ListChange, Listing, ListService, Params
from freightdesk.service.messages import explain
from freightdesk.service.session import AppSession
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.form_dialog import ask
from freightdesk.ui.widgets.forms import show_error
from freightdesk.ui.widgets.item_table import ItemTable
from freightdesk.ui.widgets.listing import ListBinding
from freightdesk.ui.widgets.notice import Notice
from freightdesk.ui.widgets.paging import PageBar

R = TypeVar("R")

SEARCH_DEBOUNCE_MS = 300  # search as the user types, once a pause says the word is typed


@dataclass(frozen=True)
class ListSearch:
    """The pane's search inputs, as criteria of the list's params."""

    read: Callable[[], Params | None]  # the criteria typed; None: refused (the pane said why)
    fill: Callable[[Params], None]  # put a listing's criteria back into the inputs


class ListPage(QObject):
    shown = Signal(object)  # Listing: on screen (the pane adds its own counts and details)

    def __init__(
        self,
        pane: QWidget,
        session: AppSession,
        service_of: Callable[[AppSession], ListService[Any] | None],
        table: ItemTable[Any],
        notice: Notice,
        *,
        name: str,
        pages: PageBar | None = None,
        search: ListSearch | None = None,
    ) -> None:
        """`name` names the pane's background tasks (`{name}-page`)."""
        super().__init__(pane)
        self.pane = pane
        self.session = session
        self.table = table
        self.notice = notice
        self.name = name
        self.pages = pages
        self.search = search
        # The cached list's criteria go into the search inputs once, unless the user searched
        # first: the inputs then say what the list shows.
        self._searched = search is None
        self.question: QMessageBox | None = None
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DEBOUNCE_MS)
        self._search_timer.timeout.connect(self.search_now)
        if pages is not None:
            pages.stepped.connect(self.step)
        self.binding: ListBinding[ListService[Any]] = ListBinding(pane, session, service_of)
        self.binding.changed.connect(self.show_data)
        self.binding.statusChanged.connect(notice.show_status)

    def show_data(self, _change: ListChange | None = None) -> None:
        data: Listing[Any] | None = self.binding.data
        if data is None:
            return
        if not self._searched and self.search is not None:
            self._searched = True
            self.search.fill(data.params_dict())
        self.table.set_items(data.items)
        if self.pages is not None:
            self.pages.show_listing(data)
        self.shown.emit(data)

    # --- fetching pages --------------------------------------------------------------------

    def show_page(self, page: int) -> None:
        """Fetch page `page` (from 1) of the items matching the search as typed."""
        service = self.binding.service
        if service is None or self.session.client is None:
            return
        self._search_timer.stop()
        criteria = self.search.read() if self.search is not None else {}
        if criteria is None:
            return
        self._searched = True
        params = {**criteria, **(self.pages.paging.params(page) if self.pages else {})}
        self.run(service.show(params), f"{self.name}-page", on_done=self._page_shown)

    def _page_shown(self, _listing: object) -> None:
        # A page the user asked for: a refused search's message (or an earlier action's) is
        # no longer the news. Not the list's good poll's to clear (Notice.show_status).
        if self.notice.is_error:
            self.notice.clear_message()
        self.show_data()  # even when the page fetched is the one held: it may not be on screen

    def search_now(self, *_args: object) -> None:
        """Search for what is typed, from the first page (connect Return, a Search button or
        a filter's box to it)."""
        self.show_page(1)

    def search_soon(self, *_args: object) -> None:
        """Search for what is typed after a pause (connect it to `textEdited`)."""
        self._search_timer.start()

    def clear_search(self) -> None:
        """Empty the search inputs and show the first page of every item."""
        if self.search is not None:
            self.search.fill({})
        self.show_page(1)

    def step(self, direction: int) -> None:
        data: Listing[Any] | None = self.binding.data
        page = self.pages.paging.page(data.params_dict()) if self.pages and data else 1
        self.show_page(page + direction)

    def refresh(self) -> None:
        self.binding.refresh()

    # --- the pane's work -------------------------------------------------------------------

    def run(
        self,
        work: Coroutine[Any, Any, R],
        name: str,
        *,
        on_done: Callable[[R], None] | None = None,
    ) -> None:
        """Do `work` in the background; its failure is said in the pane's notice (words that
        say only that the service could not be reached go once it answers again)."""
        spawn(
            work,
            on_done=on_done,
            on_error=lambda error: show_error(self.notice, explain(error)),
            name=name,
            owner=self.pane,
        )

    def ask_delete(
        self, noun: str, name: str, on_yes: Callable[[], None], *, informative: str = ""
    ) -> None:
        """Ask before deleting the item called `name` (a `noun`, "stop location"); Return
        keeps it."""
        self.question = ask(
            self.pane,
            f"Delete {noun}",
            f"Delete the {noun} {name}?",
            on_yes,
            name="confirmDelete",
            informative=informative,
            answers=("&Delete", "Cancel"),
        )

    def shutdown(self) -> None:
        self._search_timer.stop()
        self.binding.shutdown()
