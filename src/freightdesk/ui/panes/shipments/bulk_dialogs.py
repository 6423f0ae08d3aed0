"""The bulk actions' dialogs: the attribute to set or remove, and what was not done. Imported
when first opened (`bulk.py`), not before the list's first paint."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from freightdesk.ui.panes.shipments.bulk import shipment_count
from freightdesk.ui.widgets.form_dialog import FormDialog
from freightdesk.ui.widgets.screen_fit import resize_to_fit

# The result's width: a shipment's number and a reason on one or two lines, on a 1366 px
# laptop as on wider screens. Its height: what the rows take, up to the tallest it gets.
RESULT_WIDTH = 760
RESULT_TALLEST = 560
RESULT_FRAME = 150  # the summary, the table's header and frame, the Close button
RESULT_ROW = 44  # a reason on two lines


class AttributeDialog(FormDialog):
    """The attribute to set (name and value) or to remove (name only) on the selection."""

    def __init__(self, count: int, *, remove: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.remove = remove
        verb = "Remove" if remove else "Set"
        self.setObjectName("bulkRemoveAttribute" if remove else "bulkSetAttribute")
        self.setWindowTitle(f"{verb} an attribute")
        note = QLabel(
            f"Takes the attribute off {shipment_count(count)} (those without it stay as they are)."
            if remove
            else f"Gives {shipment_count(count)} this attribute; one of the same name is replaced.",
            self,
        )
        note.setWordWrap(True)
        self.name = QLineEdit(self)
        self.name.setObjectName("attributeName")
        self.name.setPlaceholderText("e.g. Priority")
        self.value = QLineEdit(self)
        self.value.setObjectName("attributeValue")
        self.value.setPlaceholderText("e.g. High")
        form = QFormLayout()
        self.errors.add_row(form, "&Name", "name", self.name)
        if not remove:
            self.errors.add_row(form, "&Value", "value", self.value)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText(f"&{verb} on {shipment_count(count)}")
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addLayout(form)
        layout.addWidget(self.general_error)
        layout.addWidget(buttons)
        self.setMinimumWidth(440)
        buttons.accepted.connect(self.confirm)
        buttons.rejected.connect(self.reject)
        self.name.textEdited.connect(self.mark_dirty)
        self.value.textEdited.connect(self.mark_dirty)

    def confirm(self) -> None:
        from freightdesk.service.bulk import attribute_problems

        problems = attribute_problems(self.name.text(), "" if self.remove else self.value.text())
        if problems:
            self.errors.show(problems)
            return
        self.mark_clean()
        self.accept()


class BulkResultDialog(QDialog):
    """What did not get done, by shipment, with the reason."""

    def __init__(self, summary: str, problems: list[tuple[str, str]], parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("bulkResult")
        self.setWindowTitle("Bulk action: not all done")
        self.summary = QLabel(summary, self)
        self.summary.setObjectName("bulkSummary")
        self.summary.setWordWrap(True)
        self.failures = QTableWidget(len(problems), 2, self)
        self.failures.setObjectName("bulkFailures")
        self.failures.setHorizontalHeaderLabels(["Shipment", "Reason"])
        self.failures.verticalHeader().setVisible(False)
        self.failures.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.failures.setWordWrap(True)
        self.failures.setVerticalScrollMode(QTableWidget.ScrollMode.ScrollPerPixel)
        for row, (shipment, reason) in enumerate(problems):
            self.failures.setItem(row, 0, QTableWidgetItem(shipment))
            self.failures.setItem(row, 1, QTableWidgetItem(reason))
        header = self.failures.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        # Each row as tall as its reason at the column's width as shown, and again when the
        # dialog is resized: sized once before the dialog was shown, rows kept the height of
        # a narrow column (a two-line reason in a row of nine lines) or cut a longer one.
        rows = self.failures.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.failures, 1)
        layout.addWidget(buttons)
        resize_to_fit(
            self,
            RESULT_WIDTH,
            min(RESULT_TALLEST, RESULT_FRAME + RESULT_ROW * max(2, len(problems))),
        )
