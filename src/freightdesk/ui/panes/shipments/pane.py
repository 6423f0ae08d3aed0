"""The Shipments pane: find any shipment by any reference, filter, sort, export, open it.

The pane is made, and shows the cached list (`show_cached`), before the session exists:
that first paint is the app's start. It imports no pydantic, asyncio or API client at
module level; what needs them (the detail view, background work, searches on the service)
is imported when the pane is attached to the session (`attach`) or first used.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.enums import ShipmentStateType, TransportationMode
from freightdesk.service.summary_rows import SummaryRow
from freightdesk.ui import garbage
from freightdesk.ui.formatting import state_text
from freightdesk.ui.panes.shipments.attention import (
    AttentionBar,
    TriageLink,
    TriageSettingsDialog,
)
from freightdesk.ui.panes.shipments.bulk import BulkActions
from freightdesk.ui.panes.shipments.columns import Column
from freightdesk.ui.panes.shipments.list_layout import ListLayout
from freightdesk.ui.panes.shipments.model import (
    FilterResult,
    ShipmentFilter,
    ShipmentTableModel,
    parse_pasted,
)
from freightdesk.ui.panes.shipments.saved_views import SavedViews
from freightdesk.ui.widgets.selection import select_only

if TYPE_CHECKING:
    import asyncio

    from freightdesk.service.session import AppSession
    from freightdesk.service.shipments import ShipmentList, ShipmentsChange, ShipmentsService
    from freightdesk.ui.panes.shipments.detail import ShipmentDetailView

FILTER_DEBOUNCE_MS = 150
# Rows kept for the next start's first paint: more than the tallest screen shows.
FIRST_SCREEN_ROWS = 120
_RECENT = {"Any time": None, "Last hour": 1, "Last 24 hours": 24, "Last 7 days": 24 * 7}


class ShipmentsPane(ListLayout, SavedViews):
    exceptionsRaised = Signal(int)  # how many new open exceptions arrived in the background

    def __init__(
        self, session: AppSession | None, settings: QSettings, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._session: AppSession | None = None
        self.settings = settings
        self.model = ShipmentTableModel(self)
        self._service: ShipmentsService | None = None
        self._unlisten: list[object] = []
        self._attribute_ids: frozenset[str] | None = None
        self._cache_shown: asyncio.Event | None = None
        self._preloaded: list[SummaryRow] | None = None  # shown before the session existed
        # Keeps the list's top for the next start (the app's first_paint.FirstScreenKeeper).
        self.keep_first_screen: Callable[[], None] | None = None
        # Called before the detail view makes its first map (see ShipmentDetailView).
        self.before_first_map: Callable[[], None] | None = None
        self._showing: ShipmentList | None = None  # a whole list being put in the table
        self._reload = False  # a whole new list arrived meanwhile

        self.search = QLineEdit(self)
        self.search.setObjectName("shipmentSearch")
        self.search.setPlaceholderText(
            "Find by BOL, PRO, container, tracking number, PO, city… or paste a list"
        )
        self.search.setClearButtonEnabled(True)
        self.mode = QComboBox(self)
        self.mode.setObjectName("modeFilter")
        self.mode.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.state = QComboBox(self)
        self.state.setObjectName("stateFilter")
        self.state.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.exceptions_only = QCheckBox("Open exceptions", self)
        self.attention = AttentionBar(self)
        self.attention_settings = QPushButton("Attention settings…", self)
        self.attention_settings.setObjectName("attentionSettings")
        self.triage = TriageLink(self.model, settings, self._holding, self)
        self.more_button = QPushButton("More filters", self)
        self.more_button.setCheckable(True)
        self.views = QComboBox(self)
        self.views.setObjectName("savedViews")
        self.views.setMinimumWidth(140)
        self.save_view_button = QPushButton("Save view…", self)
        self.refresh_button = QPushButton("Refresh", self)
        self.export_button = QPushButton("Export…", self)
        self.new_button = QPushButton("New shipment", self)

        # Two rows: finding (the box dispatchers use all day) above, narrowing below.
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.new_button)
        top.addWidget(self.refresh_button)
        top.addWidget(self.export_button)
        filters = QHBoxLayout()
        filters.addWidget(self.mode)
        filters.addWidget(self.state)
        filters.addWidget(self.exceptions_only)
        filters.addWidget(self.more_button)
        filters.addStretch(1)
        filters.addWidget(self.views)
        filters.addWidget(self.save_view_button)
        needs = QHBoxLayout()  # what needs attention: a row of its own, to fit at 1366 px
        needs.addWidget(self.attention)
        needs.addWidget(self.attention_settings)
        needs.addStretch(1)

        self.more = QWidget(self)
        self.attribute_name = QLineEdit(self.more)
        self.attribute_name.setPlaceholderText("Attribute name")
        self.attribute_value = QLineEdit(self.more)
        self.attribute_value.setPlaceholderText("Attribute value")
        self.updated_within = QComboBox(self.more)
        self.created_within = QComboBox(self.more)
        for combo in (self.updated_within, self.created_within):
            for text in _RECENT:
                combo.addItem(text)
        more_layout = QHBoxLayout(self.more)
        more_layout.setContentsMargins(0, 0, 0, 0)
        more_layout.addWidget(QLabel("Attribute", self.more))
        more_layout.addWidget(self.attribute_name)
        more_layout.addWidget(self.attribute_value)
        more_layout.addSpacing(12)
        more_layout.addWidget(QLabel("Updated", self.more))
        more_layout.addWidget(self.updated_within)
        more_layout.addWidget(QLabel("Created", self.more))
        more_layout.addWidget(self.created_within)
        more_layout.addStretch(1)
        self.more.setVisible(False)

        # Updates held in place (the list holds still): what is new, and a way to sort.
        self.news = QWidget(self)
        self.news.setObjectName("listNews")
        self.news_label = QLabel(self.news)
        self.news_label.setObjectName("listNewsText")
        self.sort_now_button = QPushButton("Sort now", self.news)
        self.sort_now_button.setObjectName("sortNow")
        self.sort_now_button.setToolTip(
            "Put the list in the chosen order again, new and changed shipments included"
        )
        news_layout = QHBoxLayout(self.news)
        news_layout.setContentsMargins(0, 0, 0, 0)
        news_layout.addWidget(self.news_label, 1)
        news_layout.addWidget(self.sort_now_button)
        self.news.setVisible(False)

        self.notice = QLabel(self)
        self.notice.setObjectName("searchNotice")
        self.notice.setWordWrap(True)
        self.notice.setVisible(False)

        self.table = QTableView(self)
        self.table.setObjectName("shipmentsTable")
        self.table.setModel(self.model)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(26)
        header = self.table.horizontalHeader()
        header.setSectionsMovable(True)
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._column_menu)
        # Long references and places are cut in the middle: their ends tell them apart.
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.count_label = QLabel(self)
        self.count_label.setObjectName("shipmentCount")

        self._detail: ShipmentDetailView | None = None
        self._detail_slot = QWidget(self)  # where the detail view goes once attached
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addLayout(top)
        left_layout.addLayout(filters)
        left_layout.addLayout(needs)
        left_layout.addWidget(self.more)
        left_layout.addWidget(self.notice)
        left_layout.addWidget(self.news)
        left_layout.addWidget(self.table, 1)
        left_layout.addWidget(self.count_label)
        self.bulk = BulkActions(self, top, left_layout)  # its button and notice, its menus
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self._detail_slot)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addWidget(self.splitter)
        self._set_up_columns()

        self._filter_timer = QTimer(self)
        self._filter_timer.setSingleShot(True)
        self._filter_timer.setInterval(FILTER_DEBOUNCE_MS)
        self._filter_timer.timeout.connect(self.apply_filter)
        self._attribute_timer = QTimer(self)
        self._attribute_timer.setSingleShot(True)
        self._attribute_timer.setInterval(400)
        self._attribute_timer.timeout.connect(self._query_attribute)
        # The columns' widths, order, visibility and the sort, kept as the user changes them.
        self._layout_timer = QTimer(self)
        self._layout_timer.setSingleShot(True)
        self._layout_timer.setInterval(500)
        self._layout_timer.timeout.connect(self._save_layout)

        self.search.textChanged.connect(self._filter_timer.start)
        self.search.returnPressed.connect(self._search_entered)
        for combo in (self.mode, self.state, self.updated_within, self.created_within):
            combo.currentIndexChanged.connect(self._filter_timer.start)
        self.exceptions_only.toggled.connect(self._filter_timer.start)
        self.attention.changed.connect(self.apply_filter)
        self.attention_settings.clicked.connect(self.edit_attention_settings)
        self.attribute_name.textChanged.connect(self._attribute_timer.start)
        self.attribute_value.textChanged.connect(self._attribute_timer.start)
        self.more_button.toggled.connect(self.more.setVisible)
        self.refresh_button.clicked.connect(self.refresh)
        self.export_button.clicked.connect(self.export_view)
        self.new_button.clicked.connect(self.new_item)
        self.save_view_button.clicked.connect(self.save_view)
        self.sort_now_button.clicked.connect(self.sort_now)
        self.views.activated.connect(self._view_chosen)
        self.model.filterApplied.connect(self._show_result)
        self.table.selectionModel().currentRowChanged.connect(self._row_changed)
        # A whole new list (the whole list after its first screen, say) keeps the row chosen.
        self._chosen_before_reset: str | None = None
        self.model.modelAboutToBeReset.connect(self._remember_chosen)
        self.model.modelReset.connect(self._choose_again)

        self._fill_filter_combos(FilterResult([]))
        self._load_views()
        self.apply_default_view()
        self._restore_layout()
        for changed in (header.sectionResized, header.sectionMoved, header.sortIndicatorChanged):
            changed.connect(self._layout_timer.start)
        if session is not None:
            self.attach(session)

    @property
    def session(self) -> AppSession:
        if self._session is None:
            raise RuntimeError("the Shipments pane is not attached to a session yet")
        return self._session

    def is_attached(self) -> bool:
        return self._session is not None

    @property
    def detail(self) -> ShipmentDetailView:
        if self._detail is None:
            raise RuntimeError("the Shipments pane is not attached to a session yet")
        return self._detail

    def show_cached(self, rows: list[SummaryRow], total: int | None = None) -> None:
        """Show the cached list read before the session exists (the app's first paint):
        the whole list, which the session takes over when attached instead of reading it
        again, or only its first screen of a list of `total` (`summary_rows.first_screen`),
        which the whole list replaces once the session has read it."""
        garbage.made_long_lived(len(rows))  # left out of collections (ui/garbage.py)
        if total is not None and total > len(rows):
            self.model.show_first_screen(rows, total)
            return
        self._preloaded = rows
        # Its top now; the whole of it indexed in a worker thread once attached.
        self.model.show_top_of(rows, FIRST_SCREEN_ROWS)

    def attach(self, session: AppSession) -> None:
        """Follow `session`: the detail view, the cached list, background updates."""
        import asyncio

        from freightdesk.ui.panes.shipments.detail import ShipmentDetailView

        self._session = session
        self._cache_shown = asyncio.Event()
        detail = ShipmentDetailView(session, self)
        detail.before_first_map = self.before_first_map
        self.splitter.replaceWidget(1, detail)
        self._detail_slot.deleteLater()
        self.default_split()  # the detail's minimum is known now
        self._detail = detail
        self.follow_detail_tabs(detail)
        detail.shipmentRequested.connect(self.open_shipment)
        detail.overview.follow_triage(self.triage.settings, self.triage.settingsChanged)
        self._unlisten.append(session.listen_connected(self._connected))
        self.attach_cache()
        self._row_changed(None, None)  # a row chosen before the detail view existed

    # --- data ------------------------------------------------------------------------------

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
                    shown.set()  # the table holds these very rows already
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
        if new_exceptions:
            self.exceptionsRaised.emit(new_exceptions)
        self.detail.shipment_list_changed(change)

    def _holding(self) -> bool:
        table = self.table
        hold = table.selectionModel().hasSelection() or table.verticalScrollBar().value() > 0
        return hold or self.model.order_held

    def edit_attention_settings(self) -> None:
        dialog = TriageSettingsDialog(self.settings, self)
        dialog.accepted.connect(self.triage.reload_settings)
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()

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

    def times_changed(self) -> None:
        """The user's zone changed: the list's cells are made as they paint; the detail is
        written again from what it shows."""
        self.table.viewport().update()
        self.detail.rewrite_times()

    def refresh(self) -> None:
        from freightdesk.ui.tasks import spawn

        if self._session is None:
            return  # not connected yet: connecting fetches the list anyway
        service = self.session.shipments
        if service is not None and self.session.client is not None:
            spawn(service.coordinator.refresh(), name="refresh-shipments", owner=self)
        self.detail.refresh()

    # --- filtering -------------------------------------------------------------------------

    def current_filter(self) -> ShipmentFilter:
        text = self.search.text()
        pasted = parse_pasted(text)
        now = datetime.now(UTC)
        updated_hours = _RECENT[self.updated_within.currentText()]
        created_hours = _RECENT[self.created_within.currentText()]
        mode = self.mode.currentData()
        state = self.state.currentData()
        return ShipmentFilter(
            text="" if pasted else text,
            pasted=pasted,
            modes=frozenset([mode]) if mode else frozenset(),
            states=frozenset([state]) if state else frozenset(),
            exceptions_only=self.exceptions_only.isChecked(),
            only_ids=self._attribute_ids,
            modified_from=now - timedelta(hours=updated_hours) if updated_hours else None,
            created_from=now - timedelta(hours=created_hours) if created_hours else None,
            attention=self.attention.chosen(),
        )

    def apply_filter(self) -> FilterResult:
        self._filter_timer.stop()
        return self.model.set_filter(self.current_filter())

    def _query_attribute(self) -> None:
        name = self.attribute_name.text().strip()
        if not name:
            self._attribute_ids = None
            self.apply_filter()
            return
        from freightdesk.models.shipment_search import ShipmentSearchRequest
        from freightdesk.ui.tasks import spawn

        service = self._session.shipments if self._session is not None else None
        if service is None:
            self.notice.setText("Filtering by attribute needs a connection to the service.")
            self.notice.setVisible(True)
            return
        request = ShipmentSearchRequest(
            attribute_name=name, attribute_value=self.attribute_value.text().strip() or None
        )

        async def collect() -> frozenset[str]:
            return await service.matching_ids(request)

        def done(ids: frozenset[str]) -> None:
            self._attribute_ids = ids
            self.apply_filter()

        spawn(
            collect(), on_done=done, on_error=self._show_error, name="attribute-filter", owner=self
        )

    def _show_result(self, result: FilterResult) -> None:
        self._show_news()
        shown, total = self.model.rowCount(), self.model.total
        self.count_label.setText(
            f"{total:,} shipments" if shown == total else f"{shown:,} of {total:,} shipments"
        )
        if result.not_found:
            listed = ", ".join(result.not_found[:20])
            more = f" and {len(result.not_found) - 20} more" if len(result.not_found) > 20 else ""
            self.notice.setText(f"Not found: {listed}{more}")
            self.notice.setStyleSheet("color: #d0453a;")
            self.notice.setVisible(True)
        else:
            self.notice.setVisible(False)
        self._fill_filter_combos(result)
        self.attention.show_counts(result.attention_counts)

    def _fill_filter_combos(self, result: FilterResult) -> None:
        for combo, values, counts, everything, label in (
            (
                self.mode,
                [m.value for m in TransportationMode],
                result.mode_counts,
                "All modes",
                lambda v: v,
            ),
            (
                self.state,
                [s.value for s in ShipmentStateType],
                result.state_counts,
                "All states",
                lambda v: state_text(ShipmentStateType(v)),
            ),
        ):
            selected = combo.currentData()
            combo.blockSignals(True)
            combo.clear()
            combo.addItem(everything, None)
            for value in values:
                count = counts.get(value, 0)
                combo.addItem(f"{label(value)} ({count:,})", value)
            index = combo.findData(selected)
            combo.setCurrentIndex(max(0, index))
            combo.blockSignals(False)

    # --- selection and detail --------------------------------------------------------------

    def _row_changed(self, current: object, _previous: object) -> None:
        row = self.table.currentIndex().row()
        summary = self.model.summary_at(row)
        if summary is not None and self._detail is not None:
            self._detail.show_shipment(str(summary.id))

    def _remember_chosen(self) -> None:
        chosen = self.model.summary_at(self.table.currentIndex().row())
        self._chosen_before_reset = chosen.id if chosen is not None else None

    def _choose_again(self) -> None:
        chosen, self._chosen_before_reset = self._chosen_before_reset, None
        row = self.model.row_of(chosen) if chosen is not None else None
        if row is not None:
            select_only(self.table, row, scroll=False)

    def open_shipment(self, shipment_id: str) -> None:
        """Select a shipment in the table (clearing filters that hide it) and show it."""
        row = self.model.row_of(shipment_id)
        if row is None and self.model.order_held:
            self.model.settle()  # held out of the filter's rows, maybe: in them again
            row = self.model.row_of(shipment_id)
        if row is None:
            self.search.clear()
            self.mode.setCurrentIndex(0)
            self.state.setCurrentIndex(0)
            self.exceptions_only.setChecked(False)
            self.attention.choose(frozenset())
            self.apply_filter()
            row = self.model.row_of(shipment_id)
        if row is not None:
            select_only(self.table, row)
        self.detail.show_shipment(shipment_id)

    def _search_entered(self) -> None:
        """Return in the search filters at once, and opens the one shipment it finds."""
        self.apply_filter()
        only = self.model.summary_at(0) if self.model.rowCount() == 1 else None
        if only is not None:
            self.open_shipment(only.id)

    def selected_ids(self) -> list[str]:
        return self.bulk.selected_ids()

    # --- pane actions ------------------------------------------------------------------------

    def focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def new_item(self) -> None:
        if self._detail is not None:  # else the app is still starting: a moment later
            self._detail.new_shipment()

    def export_view(self) -> QFileDialog:
        """File → Export view… (Ctrl+E): the list as shown, its columns and its order."""
        # Imported when asked for: the export brings asyncio, which the first paint must not.
        from freightdesk.ui.panes.shipments.export import export_shipments

        rows = self.model.visible_summaries
        return export_shipments(
            self, self.exported_columns, rows, self.bulk.notice, noun="shipments"
        )

    def exported_columns(self) -> list[Column]:
        """The columns shown, in their order, with the attention in words."""
        return self.triage.exported(self.visible_columns())

    # --- layout memory and errors ------------------------------------------------------------

    def _show_error(self, error: BaseException) -> None:
        from freightdesk.service.messages import explain

        self.notice.setText(explain(error))
        self.notice.setStyleSheet("color: #d0453a;")
        self.notice.setVisible(True)

    def shutdown(self) -> None:
        if self.keep_first_screen is not None:
            self.keep_first_screen()
        self._save_layout()
        self._filter_timer.stop()
        self._attribute_timer.stop()
        self.triage.close()
        for unlisten in self._unlisten:
            if callable(unlisten):
                unlisten()
        self._unlisten.clear()
        if self._detail is not None:
            self._detail.shutdown()
