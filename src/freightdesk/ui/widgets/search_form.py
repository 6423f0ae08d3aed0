"""A search form over a service-layer list (the planning panes: sailing schedules, carrier
capacity): the search runs in the background with a busy bar and its button disabled, what
the service refuses goes beside the field it names (else under the form), and a label says
how old the answer on screen is.

The pane keeps its inputs; they are left as typed whatever the answer, so a failed search is
corrected, not typed again.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QAbstractButton,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QVBoxLayout,
    QWidget,
)

from freightdesk.service.listing import Listing, Params
from freightdesk.service.messages import refusal
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.forms import FieldErrors
from freightdesk.ui.widgets.list_page import ListPage
from freightdesk.ui.widgets.tabbed_form import NOT_CONNECTED


def age_text(when: float | None, now: float | None = None) -> str:
    """ "just now", "12 min ago", "3 h ago", "2 days ago"."""
    if when is None:
        return ""
    minutes = int(((now or time.time()) - when) // 60)
    if minutes < 1:
        return "just now"
    if minutes < 120:
        return f"{minutes} min ago"
    if minutes < 48 * 60:
        return f"{minutes // 60} h ago"
    return f"{minutes // (24 * 60)} days ago"


class SearchRun(QObject):
    searched = Signal(object)  # Listing: the answer of a search the form sent

    def __init__(
        self,
        pane: QWidget,
        page: ListPage,
        errors: FieldErrors,
        button: QAbstractButton,
        *,
        noun: str,
    ) -> None:
        """`noun`: what the answer holds, in the plural ("sailings")."""
        super().__init__(pane)
        self.pane = pane
        self.page = page
        self.errors = errors
        self.button = button
        self.noun = noun
        self.busy = QProgressBar(pane)
        self.busy.setObjectName("searchBusy")
        self.busy.setRange(0, 0)
        self.busy.setMaximumHeight(10)
        self.busy.setTextVisible(False)
        self.busy.setVisible(False)
        self.age = QLabel(pane)
        self.age.setObjectName("answerAge")
        self.age.setStyleSheet("color: #6b7280;")
        page.shown.connect(lambda _data: self.show_age())
        page.binding.statusChanged.connect(lambda _text: self.show_age())

    @property
    def running(self) -> bool:
        return self.busy.isVisible()

    def send(self, params: Params) -> None:
        """Fetch the list for `params`; the answer replaces the one shown."""
        service = self.page.binding.service
        if service is None or self.page.session.client is None:
            self.errors.show({}, general=NOT_CONNECTED)
            return
        self.errors.clear()
        self.button.setEnabled(False)
        self.busy.setVisible(True)

        def done(listing: Listing[Any]) -> None:
            self._idle()
            self.page.notice.show_status("")  # a failure said before is no longer true
            self.page.show_data()
            self.searched.emit(listing)

        def failed(error: BaseException) -> None:
            self._idle()
            self.errors.show(*refusal(error))

        spawn(service.show(params), on_done=done, on_error=failed, name="search", owner=self.pane)

    def _idle(self) -> None:
        self.button.setEnabled(True)
        self.busy.setVisible(False)

    def show_age(self) -> None:
        """Say when the answer on screen was fetched (from the cache: when it was stored);
        nothing before a search has been asked."""
        service = self.page.binding.service
        data = self.page.binding.data
        if service is None or data is None or not (data.params_dict() or data.items):
            self.age.setText("")
            return
        status = service.coordinator.status
        when = status.last_success or service.saved_at()
        stale = status.last_success is None or status.last_error is not None
        text = f"{self.noun.capitalize()} as of {age_text(when)}" if when else ""
        if text and stale:
            text += " (not current: the service has not answered since)"
        self.age.setText(text)


def finish_form(form: QFormLayout, run: SearchRun, hint: str) -> None:
    """The rows that end a search form: its general error, the busy bar, the search button
    and a hint in grey."""
    form.addRow(run.errors.general)
    form.addRow(run.busy)
    buttons = QHBoxLayout()
    buttons.addStretch(1)
    buttons.addWidget(run.button)
    form.addRow(buttons)
    label = QLabel(hint, form.parentWidget())
    label.setWordWrap(True)
    label.setStyleSheet("color: #6b7280;")
    form.addRow(label)


def lay_out(
    pane: QWidget,
    form_box: QGroupBox,
    run: SearchRun,
    refresh: QAbstractButton,
    results: Sequence[QWidget],
    main: QWidget,
) -> None:
    """The form on the left; on the right the answer's age and Refresh above the `results`
    (`main`, the table, takes the room left)."""
    form_box.setMinimumWidth(300)
    form_box.setMaximumWidth(340)  # the answer's columns need the room more
    form = form_box.layout()
    if isinstance(form, QFormLayout):  # a field too wide beside its label goes below it
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
    top = QHBoxLayout()
    top.addWidget(run.age, 1)
    top.addWidget(refresh)
    right = QVBoxLayout()
    right.addLayout(top)
    for widget in results:
        right.addWidget(widget, 1 if widget is main else 0)
    left = QVBoxLayout()
    left.addWidget(form_box)
    left.addStretch(1)
    layout = QHBoxLayout(pane)
    layout.setContentsMargins(8, 8, 8, 4)
    layout.addLayout(left)
    layout.addLayout(right, 1)
