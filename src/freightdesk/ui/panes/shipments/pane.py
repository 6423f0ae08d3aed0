"""The Shipments pane: find any shipment by any reference, filter, sort, export, open it.

The pane is made, and shows the cached list (`show_cached`), before the session exists:
that first paint is the app's start. It imports no pydantic, asyncio or API client at
module level; what needs them (the detail view, background work, searches on the service)
is imported when the pane is attached to the session (`attach`) or first used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QItemSelectionModel, QSettings, Qt, QTimer, Signal
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

from freightdesk.service.carrier_names import CARRIER_NAMES
from freightdesk.service.summary_rows import SummaryRow
from freightdesk.ui import garbage
from freightdesk.ui.panes.shipments.attention import AttentionBar, TriageLink
from freightdesk.ui.panes.shipments.bulk import BulkActions
from freightdesk.ui.panes.shipments.columns import Column
from freightdesk.ui.panes.shipments.filter_bar import RECENT, FilterBar
from freightdesk.ui.panes.shipments.list_feed import EMPTY_TEXT, LOADING_TEXT, ListFeed
from freightdesk.ui.panes.shipments.list_layout import ListLayout
from freightdesk.ui.panes.shipments.model import ShipmentTableModel
from freightdesk.ui.panes.shipments.saved_views import SavedViews
from freightdesk.ui.widgets.empty_state import say_when_empty
from freightdesk.ui.widgets.selection import select_only

if TYPE_CHECKING:
    import asyncio

    from freightdesk.service.session import AppSession
    from freightdesk.service.shipments import ShipmentList, ShipmentsService
    from freightdesk.ui.panes.shipments.detail import ShipmentDetailView
    from freightdesk.ui.panes.shipments.model import FilterResult

FILTER_DEBOUNCE_MS = 150
# Rows kept for the next start's first paint: more than the tallest screen shows.
FIRST_SCREEN_ROWS = 120


# The filter bar comes before the saved views: its `apply_filter` is the one they call.
class ShipmentsPane(FilterBar, ListFeed, ListLayout, SavedViews):
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
            for text in RECENT:
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
        self.empty = say_when_empty(
            self.table,
            EMPTY_TEXT,
            loading=LOADING_TEXT,
            filled_by_reset=False,  # an empty cache is not an empty list: see ListFeed
        )
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
        left_layout.addWidget(self.table, 1)
        # The lines about the list that come and go as the user works in it go under it
        # (the bulk action's result joins them): above it, they moved its rows down a line
        # and up again, and a click meant for one shipment landed on the next. The news
        # shares the count's line, which is as tall as its Sort now button whether or not
        # it shows: on a line of its own it pushed the detail below (its tabs) down 28 px.
        count_line = QHBoxLayout()
        count_line.setSpacing(16)
        count_line.addWidget(self.count_label)
        count_line.addWidget(self.news, 1)
        self.count_label.setMinimumHeight(self.sort_now_button.sizeHint().height())
        left_layout.addLayout(count_line)
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
        # A whole new list (the whole list after its first screen, say) keeps the row chosen;
        # a filter or an update that takes the chosen row out of the list takes the detail.
        self._chosen_before: str | None = None
        self.model.modelAboutToBeReset.connect(self._remember_chosen)
        self.model.modelReset.connect(self._choose_again)
        self.model.layoutAboutToBeChanged.connect(self._remember_chosen)
        self.model.layoutChanged.connect(self._follow_chosen)
        self.model.sortApplied.connect(self._chosen_in_view)
        self._opening: str | None = None  # see `open_shipment`
        for arrived in (self.model.modelReset, self.model.layoutChanged, self.model.filterApplied):
            arrived.connect(self._choose_opened)

        self._fill_filter_combos(None)  # no counts until the list is known
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
        again, or only its first screen of a list of `total` (`service/first_screen.py`),
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
        detail.map_window.settings = self.settings  # the map window's place between openings
        self.splitter.replaceWidget(1, detail)
        self._detail_slot.deleteLater()
        self._detail = detail
        self.follow_detail_chosen(detail)
        self.list_split.place()  # the detail's minimum is known now, nothing chosen yet
        detail.shipmentRequested.connect(self.open_shipment)
        detail.overview.follow_triage(self.triage.settings, self.triage.settingsChanged)
        self._unlisten.append(session.listen_connected(self._connected))
        self._unlisten.append(session.demo.listen(lambda _message: self._say_if_known()))
        unnamed = CARRIER_NAMES.listen(self._carriers_renamed)
        self._unlisten.append(unnamed)
        self.destroyed.connect(lambda _gone: unnamed())  # however it ends, never told after
        self.attach_cache()
        self._row_changed(None, None)  # a row chosen before the detail view existed

    def _carriers_renamed(self, codes: frozenset[str]) -> None:
        """The service named carriers anew: the list finds, sorts and shows them by their
        names; the detail's overview says them again. An empty list shows no name (and
        lays nothing out again: it would say a list was put in)."""
        if self.model.total:
            self.model.carriers_renamed(codes)
        if self._detail is not None:
            self._detail.rewrite_times()

    def times_changed(self) -> None:
        """The user's zone changed: the list's cells are made as they paint; the detail is
        written again from what it shows."""
        self.table.viewport().update()
        self.detail.rewrite_times()

    # --- selection and detail --------------------------------------------------------------

    def _row_changed(self, current: object, _previous: object) -> None:
        row = self.table.currentIndex().row()
        summary = self.model.summary_at(row)
        if summary is not None and self._detail is not None:
            self._detail.show_shipment(str(summary.id))

    def _remember_chosen(self) -> None:
        chosen = self.model.summary_at(self.table.currentIndex().row())
        self._chosen_before = chosen.id if chosen is not None else None

    def _choose_again(self) -> None:
        chosen, self._chosen_before = self._chosen_before, None
        row = self.model.row_of(chosen) if chosen is not None else None
        if row is not None:
            select_only(self.table, row, scroll=False)
        elif chosen is not None:
            self._chosen_left(chosen)

    def _follow_chosen(self) -> None:
        chosen, self._chosen_before = self._chosen_before, None
        if chosen is not None and not self.table.currentIndex().isValid():
            self._chosen_left(chosen)

    def _chosen_in_view(self) -> None:
        """After a sort the chosen shipment, still chosen, is brought into view (centred, so
        that its new neighbours show), as a mail client does: left where it went, the detail
        showed a shipment no row in sight was highlighted for. The columns stay scrolled as
        they were: the user may have scrolled right to click the header."""
        current = self.table.currentIndex()
        if not current.isValid():
            return
        viewport = self.table.viewport().rect()
        cell = self.table.visualRect(current)
        if viewport.top() <= cell.top() and cell.bottom() <= viewport.bottom():
            return
        columns = self.table.horizontalScrollBar()
        across = columns.value()
        self.table.scrollTo(current, QAbstractItemView.ScrollHint.PositionAtCenter)
        columns.setValue(across)

    def _chosen_left(self, chosen: str) -> None:
        """The chosen shipment is no longer in the list (filtered out, or gone): the detail
        never shows a shipment the list does not. Another selected row takes its place;
        with none, the detail says to choose one, as a mail client's reading pane does, rather
        than open a shipment the user did not choose (the list would then hold still for
        it, and each letter typed in the search would load another)."""
        detail = self._detail
        if detail is None or detail.shipment_id != chosen:
            return  # the detail shows another shipment, opened from elsewhere
        selection = self.table.selectionModel()
        rows = sorted(index.row() for index in selection.selectedRows())
        if rows:
            selection.setCurrentIndex(
                self.model.index(rows[0], 0), QItemSelectionModel.SelectionFlag.NoUpdate
            )
        else:
            detail.show_nothing()

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
        # Opened from elsewhere (a booking, an alert), the row is chosen as a click would; a
        # shipment the list does not have yet (just booked) is chosen when its row comes, and
        # meanwhile no other row looks chosen (the last one stayed highlighted).
        self._opening = shipment_id if row is None else None
        if row is not None:
            select_only(self.table, row)
        else:
            self.table.selectionModel().clear()
        self.detail.show_shipment(shipment_id)

    def _choose_opened(self) -> None:
        """The shipment opened from elsewhere before the list had it: its row, once come."""
        opening = self._opening
        if opening is None or self._detail is None or self._detail.shipment_id != opening:
            self._opening = None  # the user chose another meanwhile
            return
        row = self.model.row_of(opening)
        if row is not None and not self.table.currentIndex().isValid():
            self._opening = None
            select_only(self.table, row)

    def _search_entered(self) -> None:
        """Return in the search filters at once, and opens the one shipment it finds."""
        self.apply_filter()
        only = self.model.summary_at(0) if self.model.rowCount() == 1 else None
        if only is not None:
            self.open_shipment(only.id)

    def selected_ids(self) -> list[str]:
        return self.bulk.selected_ids()

    # --- a new list --------------------------------------------------------------------------

    def apply_filter(self) -> FilterResult:
        """A search, filter or view the user chose: a new list, so the line about the last
        one (a bulk action's result, an export, a copy) goes with it."""
        self.bulk.notice.clear_message()
        return super().apply_filter()

    def refresh(self) -> None:
        """Refresh (its button, Ctrl+R): the list read again, the line about the last one
        gone with it, as `apply_filter`. A bulk action refreshes before it says how it went."""
        self.bulk.notice.clear_message()
        super().refresh()

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
        self.list_split.shutdown()
        self._filter_timer.stop()
        self._attribute_timer.stop()
        self.triage.close()
        for unlisten in self._unlisten:
            if callable(unlisten):
                unlisten()
        self._unlisten.clear()
        if self._detail is not None:
            self._detail.shutdown()
