"""Asking for a name (a saved view's, say) without a nested event loop: a small dialog opened
with `open()` whose answer arrives through a callback, unlike `QInputDialog.getText`, whose
`exec()` runs a loop of its own inside the app's (see docs/developing.md, "Tests").

The name offered is selected, so typing replaces it; Return saves. A name the caller's rule
refuses is said under the field and the dialog stays; a name already taken is saved only once
the user agrees to replace it."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from freightdesk.ui.widgets.form_dialog import ask
from freightdesk.ui.widgets.forms import ErrorLabel


class NameDialog(QDialog):
    """Asks for a name; `on_name(name)` runs with the stripped name once it is accepted.

    `problem(name)` words why a name cannot be used (None: it can); `taken(name)` says whether
    saving it would replace something, which the user is asked about first (`what` names the
    kind of thing in that question: "view")."""

    def __init__(
        self,
        parent: QWidget,
        *,
        title: str,
        label: str,
        offered: str,
        problem: Callable[[str], str | None],
        taken: Callable[[str], bool],
        on_name: Callable[[str], None],
        what: str,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("nameDialog")
        self.setWindowTitle(title)
        self._problem_of = problem
        self._taken = taken
        self._on_name = on_name
        self._what = what
        self.question: QMessageBox | None = None
        self.name = QLineEdit(offered, self)
        self.name.setObjectName("name")
        self.name.selectAll()
        self.problem = ErrorLabel(self)
        self.problem.setObjectName("nameProblem")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Save)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(label, self))
        layout.addWidget(self.name)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        # A message about the name goes once the user changes it.
        self.name.textEdited.connect(lambda _text: self.problem.show_message(None))

    def accept(self) -> None:
        """Return or Save: the name is checked, asked about when taken, then handed over."""
        name = self.name.text().strip()
        problem = self._problem_of(name)
        if problem:
            self.problem.show_message(problem)
            self.name.setFocus()
            return
        if self._taken(name):
            self.question = ask(
                self,
                self.windowTitle(),
                f"There is already a {self._what} named “{name}”. Replace it?",
                lambda: self._done(name),
                yes=QMessageBox.StandardButton.Save,
                name="replaceName",
                answers=("&Replace", "&Keep it"),
            )
            return
        self._done(name)

    def _done(self, name: str) -> None:
        super().accept()
        self._on_name(name)
