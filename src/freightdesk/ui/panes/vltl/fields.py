"""Groups of fields the volume LTL forms share: an address, a contact (LTL style), a local
date window with its times as hh:mm. Each adds its rows to a form layout, registered in the
form's `FieldErrors` under the interface's paths, and reads back as wire fields."""

from __future__ import annotations

from datetime import date
from typing import Any

from PySide6.QtCore import QDate
from PySide6.QtWidgets import QFormLayout, QHBoxLayout, QLineEdit, QWidget

from freightdesk.models.vltl_rules import hhmm_time
from freightdesk.ui.widgets.forms import FieldErrors
from freightdesk.ui.widgets.time_edit import day_edit

ADDRESS_PARTS = (
    ("addressLines", "Street", "e.g. 1 Dock Rd"),
    ("city", "City", ""),
    ("state", "State", "e.g. IL"),
    ("postalCode", "Postal code", ""),
    ("country", "Country", "US unless given"),
)
CONTACT_PARTS = (
    ("companyName", "Company"),
    ("contactName", "Contact name"),
    ("phoneNumber", "Phone"),
    ("email", "Email"),
)


def _edit(parent: QWidget, name: str, hint: str = "") -> QLineEdit:
    edit = QLineEdit(parent)
    edit.setObjectName(name)
    edit.setPlaceholderText(hint)
    return edit


class AddressFields:
    def __init__(self, form: QFormLayout, errors: FieldErrors, path: str, parent: QWidget) -> None:
        self.edits: dict[str, QLineEdit] = {}
        for key, label, hint in ADDRESS_PARTS:
            edit = _edit(parent, f"{path}.{key}", hint)
            errors.add_row(form, label, f"{path}.{key}", edit)
            self.edits[key] = edit

    def wire(self) -> dict[str, Any]:
        typed = {key: edit.text().strip() for key, edit in self.edits.items()}
        wire: dict[str, Any] = {k: v for k, v in typed.items() if v and k != "addressLines"}
        wire["addressLines"] = [typed["addressLines"]] if typed["addressLines"] else []
        return wire

    def fill(self, wire: dict[str, Any]) -> None:
        for key, edit in self.edits.items():
            value = wire.get(key)
            if key == "addressLines":
                value = ", ".join(value or [])
            edit.setText(str(value or ""))


class ContactFields:
    def __init__(
        self,
        form: QFormLayout,
        errors: FieldErrors,
        path: str,
        parent: QWidget,
        *,
        parts: tuple[str, ...] = ("companyName", "contactName", "phoneNumber"),
    ) -> None:
        self.edits: dict[str, QLineEdit] = {}
        for key, label in CONTACT_PARTS:
            if key in parts:
                edit = _edit(parent, f"{path}.{key}")
                errors.add_row(form, label, f"{path}.{key}", edit)
                self.edits[key] = edit

    def wire(self) -> dict[str, str] | None:
        """The contact typed, or None when nothing is (the account's default applies)."""
        typed = {key: edit.text().strip() for key, edit in self.edits.items()}
        given = {k: v for k, v in typed.items() if v}
        return given or None

    def fill(self, wire: dict[str, Any] | None) -> None:
        for key, edit in self.edits.items():
            edit.setText(str((wire or {}).get(key) or ""))


class WindowFields(QWidget):
    """A day and its start and end times, typed as hh:mm."""

    def __init__(self, path: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self.day = day_edit(self)
        self.day.setObjectName(f"{path}.date")
        self.start = _edit(self, f"{path}.startTime", "hh:mm")
        self.end = _edit(self, f"{path}.endTime", "hh:mm")
        for edit in (self.start, self.end):  # a time of day at the place: no zone to convert
            edit.setToolTip("hh:mm, in the place's own local time")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.day, 2)
        row.addWidget(self.start, 1)
        row.addWidget(self.end, 1)

    def register(self, errors: FieldErrors, form: QFormLayout, label: str) -> None:
        error = errors.add_row(form, label, self.path, self, focus=self.day)
        errors.register(f"{self.path}.startTime", self.start, error)
        errors.register(f"{self.path}.endTime", self.end, error)

    def wire(self, problems: dict[str, str]) -> dict[str, Any]:
        """The window as wire fields; a time not written hh:mm goes to `problems`."""
        wire: dict[str, Any] = {"date": self.day.date().toString("yyyy-MM-dd")}
        for key, edit in (("startTime", self.start), ("endTime", self.end)):
            text = edit.text().strip()
            if not text:
                continue
            try:
                wire[key] = hhmm_time(text).strftime("%H:%M")
            except ValueError as exc:
                problems[f"{self.path}.{key}"] = str(exc)
        return wire

    def fill(self, wire: dict[str, Any] | None) -> None:
        if not wire:
            return
        day = date.fromisoformat(str(wire["date"]))
        self.day.setDate(QDate(day.year, day.month, day.day))
        self.start.setText(str(wire.get("startTime") or "")[:5])
        self.end.setText(str(wire.get("endTime") or "")[:5])

    def set_day(self, day: date) -> None:
        self.day.setDate(QDate(day.year, day.month, day.day))
