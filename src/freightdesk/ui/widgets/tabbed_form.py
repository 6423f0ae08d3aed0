"""A form of tabs over Save and Cancel whose Save sends it to the service layer.

The big forms (stop location, push configuration, package, booking) are laid out and sent the
same way: the tabs, the form's general error and the buttons under them; while the service
answers the buttons wait; a save closes the form and tells the pane (`saved`); a refusal puts
each problem beside its field (`show_problems`, which the forms extend to find the tab), and
whatever the answer, nothing the user typed is lost.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TypeGuard, TypeVar

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialogButtonBox, QScrollArea, QTabWidget, QVBoxLayout, QWidget

from freightdesk.service.messages import NOT_CONNECTED as NOT_CONNECTED
from freightdesk.service.messages import refusal
from freightdesk.service.session import AppSession
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.form_dialog import FormDialog
from freightdesk.ui.widgets.screen_fit import FieldsScroll

Button = QDialogButtonBox.StandardButton
S = TypeVar("S")


class TabbedFormDialog(FormDialog):
    saved = Signal(object)  # what was saved, as the service answered
    # Tab reaches the bar first, but typing starts in the first field, not on the bar.
    starts_in_first_field = True

    def __init__(self, session: AppSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session

    def build(
        self,
        tabs: Sequence[tuple[Callable[[], QWidget], str]],
        *,
        above: QWidget | None = None,
        save_text: str | None = None,
    ) -> None:
        """Lay the form out: `above` (a summary, say), then the tabs, each made by its
        function after the tab bar (so Tab reaches the bar before the fields), the general
        error and the buttons; `save_text` names the Save button by what it does."""
        self.tabs = QTabWidget(self)
        for make, title in tabs:
            # Each tab's fields scroll where the room is short: a tab does not grow the form
            # for the problems said under its fields (a word-wrapped line needs a height for
            # its width, which a tab widget does not pass on), and they were drawn over
            # each other (the booking's charges under their Add and Remove buttons).
            page = make()
            if not isinstance(page, QScrollArea):  # one that scrolls itself already
                page = FieldsScroll(page, self.tabs)
            self.tabs.addTab(page, title)
        if save_text is None:
            self.buttons = QDialogButtonBox(Button.Save | Button.Cancel, self)
        else:
            self.buttons = QDialogButtonBox(Button.Ok | Button.Cancel, self)
            ok = self.buttons.button(Button.Ok)
            ok.setText(save_text)
        layout = QVBoxLayout(self)
        if above is not None:
            layout.addWidget(above)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.general_error)
        layout.addWidget(self.buttons)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)

    def save(self) -> None:
        """Check the form and `send` it (each form says how)."""
        raise NotImplementedError

    def show_problems(self, problems: dict[str, str], general: str | None = None) -> None:
        self.errors.show(problems, general=general)

    # --- sending ---------------------------------------------------------------------------

    def can_send(self, service: S | None) -> TypeGuard[S]:
        """Whether the form can be sent to `service` (the area's service layer) now; when
        not, the form says so and stays as it is."""
        if service is None or self.session.client is None:
            self.show_problems({}, general=NOT_CONNECTED)
            return False
        return True

    def send(
        self,
        work: Coroutine[Any, Any, object],
        name: str,
        *,
        on_error: Callable[[BaseException], bool] | None = None,
    ) -> None:
        """Run `work` (the save); `on_error` may take a failure on itself (returns True), else
        the service's problems are shown beside their fields."""
        self.buttons.setEnabled(False)
        self.errors.clear()

        def failed(error: BaseException) -> None:
            self.buttons.setEnabled(True)
            if on_error is not None and on_error(error):
                return
            self.show_problems(*refusal(error))

        spawn(work, on_done=self._saved, on_error=failed, name=name, owner=self)

    def _saved(self, saved: object) -> None:  # not `done`: QDialog's, which accept() calls
        self.buttons.setEnabled(True)
        self.mark_clean()
        self.saved.emit(saved)
        self.accept()
