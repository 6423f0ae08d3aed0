"""Combo boxes that show a code of the interface in plain words and keep the code itself as
the item's data: the user picks "Purchase order", the wire gets PURCHASE_ORDER."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtWidgets import QComboBox

from freightdesk.models.code_words import code_text


def add_codes(
    combo: QComboBox, codes: Iterable[str], label: Callable[[str], str] = code_text
) -> None:
    for code in codes:
        combo.addItem(label(code), code)


def code_of(combo: QComboBox) -> str:
    """The code shown: the data of the item whose words are in the box, or, in an editable box,
    what was typed (a code typed as it is, or one the list does not have)."""
    text = combo.currentText().strip()
    index = combo.findText(text)
    data = combo.itemData(index) if index >= 0 else None
    return data if isinstance(data, str) else text


def choose_code(combo: QComboBox, code: str, label: Callable[[str], str] = code_text) -> None:
    """Show `code`, added when the list does not have it (what the data has is kept; the
    check says what is wrong)."""
    index = combo.findData(code)
    if index < 0:
        index = combo.findText(code)
    if index < 0:
        combo.addItem(label(code), code)
        index = combo.count() - 1
    combo.setCurrentIndex(index)
