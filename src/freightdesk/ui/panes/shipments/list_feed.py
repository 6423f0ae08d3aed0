"""The Shipments list's rows: the cached list shown at once, whole lists put in the table (in a
worker thread), and the service's changes merged in while the list holds still under the
user's eyes. Nothing here imports asyncio or the API client at module level: the pane is made
before them (see pane.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QAbstractItemView, QLabel, QTableView, QWidget

from freightdesk.ui import garbage
from freightdesk.ui.panes.shipments.attention import TriageLink
from freightdesk.ui.panes.shipments.model import ShipmentTableModel
from freightdesk.ui.widgets.empty_state import EmptyState

if TYPE_CHECKING:
    import asyncio

    from freightdesk.service.session import AppSession
    from freightdesk.service.shipments import ShipmentList, ShipmentsChange, ShipmentsService
    from freightdesk.service.summary_rows import SummaryRow
    from freightdesk.ui.panes.shipments.detail import ShipmentDetailView


# What the empty list says: none to show; the first list not answered yet; the Local
# sandbox's demo being written (its first list answers empty: "No shipments" then told a
# first-run user there were none while the status bar counted them in, session 18).
EMPTY_TEXT = (
    "No shipments to show: New shipment tracks one, or clear the search and the filters above."
)
LOADING_TEXT = "Loading shipments…"
PREPARING_TEXT = "Preparing demo shipments… they appear here as they are written."


class ListFeed(QWidget):
    """Keeping the list's rows current (mixed into `ShipmentsPane`, which makes the table)."""

    exceptionsRaised: SignalInstance
    model: ShipmentTableModel
    table: QTableView
    empty: EmptyState
    triage: TriageLink
    news: QWidget
    news_label: QLabel
    _session: AppSession | None
    _service: ShipmentsService | None
    _unlisten: list[object]
    _cache_shown: asyncio.Event | None
    _preloaded: list[SummaryRow] | None
    _showing: ShipmentList | None
    _reload: bool
    _show_error: Callable[[BaseException], None]
    show_count: Callable[[], None]

    if TYPE_CHECKING:

        @property
        def session(self) -> AppSession: ...

        @property
        def detail(self) -> ShipmentDetailView: ...

    def attach_cache(self) -> None:
        """Show the cached list at once, before (or without) any network."""
        from freightdesk.ui.tasks import spawn  # asyncio, imported after the first paint

        self.session.open_cache(self.session.profiles.active)
        service = self.session.shipments
        if service is None or service is self._service:
            return
        self._service, service.bulk_build = service, garbage.bulk_load  # see ui/garbage.py
        self.triage.attach(self.session, service.cache)
        shown = self._cache_shown
        assert shown is not None
        preloaded, self._preloaded = self._preloaded, None
        load = garbage.bulk_load()  # collections wait while the rows are read; then frozen

        def loaded(cached: ShipmentList) -> None:
            load.done(len(cached.summaries) if preloaded is None else 0)
            data = service.coordinator.data
            if data is not None and self._service is service:
                if preloaded is not None and data is cached and self.model.complete:
                    # The table holds these very rows already; their kept facts are read
                    # now, so what was late is counted late before the service answers.
                    self.triage.want(cached.summaries.values())
                    shown.set()
                else:
                    self._show_list(data, then=shown.set)
            else:
                shown.set()

        def failed(error: BaseException) -> None:
            shown.set()
            self._show_error(error)

        task = spawn(
            service.load_cached(preloaded),
            on_done=loaded,
            on_error=failed,
            name="load-cached-shipments",
            owner=self,
        )
        task.add_done_callback(lambda _task: load.done())  # failed, cancelled or pane gone

    async def cached_list_shown(self) -> None:
        """Returns once the list from the cache is in the table (or the cache was empty)."""
        assert self._cache_shown is not None, "attach the pane to a session first"
        await self._cache_shown.wait()

    def _connected(self) -> None:
        self.attach_cache()
        service = self.session.shipments
        if service is None:
            return
        self._unlisten.append(service.coordinator.listen(self._on_change))
        self._unlisten.append(service.coordinator.listen_status(lambda _s: self._say_if_known()))

    def _say_if_known(self) -> None:
        """Once the service has answered (now, or in an earlier run: the cached list's cursor)
        and its rows are in the table, an empty table means no shipments, not "loading"."""
        service = self._service
        data = service.coordinator.data if service is not None else None
        if self._session is not None and self.session.demo.preparation is not None:
            if self.model.total == 0:
                self.empty.setText(PREPARING_TEXT)  # being written, not none
                return
        elif not self.empty.known:
            self.empty.setText(LOADING_TEXT)  # a preparation said so, and is over
        if data is None:
            return
        answered = service is not None and service.coordinator.status.last_success is not None
        known = answered or data.cursor is not None or data.token is not None
        if known and (not data.summaries or self.model.total > 0):
            self.empty.filled()
            self.show_count()  # "0 shipments" from now on, not "Loading…"

    def _show_list(self, data: ShipmentList, then: Callable[[], None] | None = None) -> None:
        """Put the whole list in the table; the model indexes it in a worker thread. Changes
        that arrive meanwhile are merged once it is in."""
        from freightdesk.service.shipments import diff_lists
        from freightdesk.ui.tasks import spawn

        self._showing = data
        self._reload = False
        self.triage.want(data.summaries.values())
        load = garbage.bulk_load()  # collections wait while it is indexed; then frozen

        def shown(adopted: bool) -> None:
            load.done(len(data.summaries) if adopted else 0)
            if self._showing is not data:
                return  # another list is on its way
            self._showing = None
            self.triage.again()  # facts that came while it was indexed
            service = self._service
            current = service.coordinator.data if service else None
            if current is not None and current is not data:
                if self._reload:
                    self._show_list(current, then)
                    return
                change = diff_lists(data, current)
                if change is not None:
                    self._apply(change, current)
            self._say_if_known()
            if then is not None:
                then()

        def failed(error: BaseException) -> None:
            self._showing = None
            self._show_error(error)
            if then is not None:
                then()

        task = spawn(
            self.model.load(data.summaries.values()),
            on_done=shown,
            on_error=failed,
            name="show-shipments",
            owner=self,
        )
        task.add_done_callback(lambda _task: load.done())  # failed, cancelled or pane gone

    def _on_change(self, change: ShipmentsChange) -> None:
        service = self._service
        data = service.coordinator.data if service else None
        if data is None:
            return
        if self._showing is not None:
            # Merged (or loaded again, for a whole new list) once the list being put in is in.
            self._reload = self._reload or change.full
            return
        if change.full or self.model.total == 0:
            self._show_list(data)
            return
        self._apply(change, data)

    def _apply(self, change: ShipmentsChange, data: ShipmentList) -> None:
        changed = [data.summaries[key] for key in change.changed if key in data.summaries]
        self.triage.want(changed)
        new_exceptions = 0
        for summary in changed:
            before = self.model.summary_of(summary.id)
            previous = before.open_exception_count if before else 0
            new_exceptions += max(0, summary.open_exception_count - previous)
        # Held in place only when there is something to keep still: a chosen row, or a list
        # scrolled down. A list nobody works in yet (the first run's demo arriving) is kept
        # in its order instead of growing a pile of "new below".
        if self._holding():
            self._hold_still(lambda: self.model.apply_changes(changed, change.removed, hold=True))
        else:
            # Nothing to keep still: the list stays at its top. (Keeping the row that was on
            # top there would scroll down as rows sort in above it, and a scrolled list holds.)
            self.model.apply_changes(changed, change.removed)
        garbage.made_long_lived(len(changed))  # frozen once enough rows came this way
        self._say_if_known()
        if new_exceptions:
            self.exceptionsRaised.emit(new_exceptions)
        self.detail.shipment_list_changed(change)

    def _holding(self) -> bool:
        table = self.table
        hold = table.selectionModel().hasSelection() or table.verticalScrollBar().value() > 0
        return hold or self.model.order_held

    def _hold_still(self, update: Callable[[], None]) -> None:
        """Run `update` keeping the row at the top of the table's view at the top (rows that
        went above it would otherwise shift what the user looks at, the selection with it)."""
        table = self.table
        top = self.model.summary_at(table.rowAt(0))
        update()
        row = self.model.row_of(top.id) if top is not None else None
        if row is not None and table.rowAt(0) != row:
            table.scrollTo(self.model.index(row, 0), QAbstractItemView.ScrollHint.PositionAtTop)

    def sort_now(self) -> None:
        """Put a held list in order (new shipments in their places); the chosen row in view."""
        self.model.settle()
        current = self.table.currentIndex()
        if current.isValid():
            self.table.scrollTo(current)

    def _show_news(self) -> None:
        new, held = self.model.new_count, self.model.order_held
        if not new and not held:
            self.news.setVisible(False)
            return
        parts = []
        if new:
            parts.append(f"{new:,} new below" if new > 1 else "1 new below")
        if held:
            parts.append("updated rows kept their places")
        self.news_label.setText(" · ".join(parts).capitalize())
        self.news.setVisible(True)

    def refresh(self) -> None:
        from freightdesk.ui.tasks import spawn

        if self._session is None:
            return  # not connected yet: connecting fetches the list anyway
        service = self.session.shipments
        if service is not None and self.session.client is not None:
            spawn(service.coordinator.refresh(), name="refresh-shipments", owner=self)
        self.detail.refresh()
