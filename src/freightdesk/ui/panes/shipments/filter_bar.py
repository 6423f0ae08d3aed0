"""The Shipments list's filters: the search box (any reference, or a pasted list), mode,
state, open exceptions, what needs attention, and the more filters (an attribute, how recent),
applied to the list in the model; the counts beside each choice."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel

from freightdesk.models.code_words import mode_text
from freightdesk.models.enums import ShipmentStateType, TransportationMode
from freightdesk.service.triage import Attention
from freightdesk.ui.formatting import state_text
from freightdesk.ui.panes.shipments.attention import TriageLink, TriageSettingsDialog
from freightdesk.ui.panes.shipments.filter_widgets import FilterWidgets
from freightdesk.ui.panes.shipments.model import (
    FilterResult,
    ShipmentFilter,
    ShipmentTableModel,
    parse_pasted,
)
from freightdesk.ui.widgets.empty_state import EmptyState

if TYPE_CHECKING:
    from freightdesk.service.session import AppSession

# The choices of Updated and Created, in hours back from now (None: any time).
RECENT = {"Any time": None, "Last hour": 1, "Last 24 hours": 24, "Last 7 days": 24 * 7}


class FilterBar(FilterWidgets):
    """Filtering the list (mixed into `ShipmentsPane`, which makes the filter bar's widgets).
    Its `apply_filter` is the one `SavedViews` applies views with."""

    model: ShipmentTableModel
    triage: TriageLink
    notice: QLabel
    count_label: QLabel
    empty: EmptyState
    _filter_timer: QTimer
    _attribute_ids: frozenset[str] | None
    _attention_counts: Counter[Attention] = Counter()  # the last filter's
    _last_result: FilterResult | None = None  # its counts of each mode and state
    _session: AppSession | None
    _show_news: Callable[[], None]
    _show_error: Callable[[BaseException], None]

    def edit_attention_settings(self) -> None:
        dialog = TriageSettingsDialog(self.settings, self)
        dialog.accepted.connect(self.triage.reload_settings)
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()

    def current_filter(self) -> ShipmentFilter:
        text = self.search.text()
        pasted = parse_pasted(text)
        now = datetime.now(UTC)
        updated_hours = RECENT[self.updated_within.currentText()]
        created_hours = RECENT[self.created_within.currentText()]
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
        self._attention_counts = result.attention_counts
        self._last_result = result
        self.show_count()
        if result.not_found:
            listed = ", ".join(result.not_found[:20])
            more = f" and {len(result.not_found) - 20} more" if len(result.not_found) > 20 else ""
            self.notice.setText(f"Not found: {listed}{more}")
            self.notice.setStyleSheet("color: #d0453a;")
            self.notice.setVisible(True)
        else:
            self.notice.setVisible(False)

    def show_count(self) -> None:
        """How many shipments the list holds and shows, and of each kind that needs
        attention, mode and state; "Loading…" and no counts while an empty list is not
        known yet (the service has not answered), not counts of 0, and no counts while only
        the list's first screen is in."""
        shown, total = self.model.rowCount(), self.model.total
        known = total > 0 or self.empty.known
        # A first screen (the top of the cached list, the rest unread) counts only its top,
        # triaged without facts: no counts until the whole list is in.
        counted = known and self.model.complete
        self.attention.show_counts(self._attention_counts if counted else None)
        self._fill_filter_combos((self._last_result or FilterResult([])) if counted else None)
        if not known:
            self.count_label.setText("Loading…")
        elif shown == total:
            self.count_label.setText(f"{total:,} shipment{'' if total == 1 else 's'}")
        else:
            self.count_label.setText(f"{shown:,} of {total:,} shipments")

    def _fill_filter_combos(self, result: FilterResult | None) -> None:
        """Each mode and state with the count it would show; `None`: the kinds alone (the
        list is not known yet)."""
        for combo, values, counts, everything, label in (
            (
                self.mode,
                [m.value for m in TransportationMode],
                result.mode_counts if result is not None else None,
                "All modes",
                mode_text,
            ),
            (
                self.state,
                [s.value for s in ShipmentStateType],
                result.state_counts if result is not None else None,
                "All states",
                lambda v: state_text(ShipmentStateType(v)),
            ),
        ):
            selected = combo.currentData()
            combo.blockSignals(True)
            combo.clear()
            combo.addItem(everything, None)
            for value in values:
                count = f" ({counts.get(value, 0):,})" if counts is not None else ""
                combo.addItem(f"{label(value)}{count}", value)
            index = combo.findData(selected)
            combo.setCurrentIndex(max(0, index))
            combo.blockSignals(False)
