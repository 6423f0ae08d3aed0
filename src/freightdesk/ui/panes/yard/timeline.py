"""A day timeline of yard slots: one row per day of the site, each slot a bar across its
hours, green with the count of free doors, grey when full or started.

A click picks a slot (`picked`), the hover tells the slot in words; the widget keeps the
slots as given, so a test or the pane reads exactly what is drawn.
"""

from __future__ import annotations

from datetime import date

from PySide6.QtCore import QEvent, QPoint, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QHelpEvent, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from freightdesk.models.yard import SlotResult
from freightdesk.service.clock import day_text
from freightdesk.service.yard import slot_text

ROW = 30
HEADER = 20
LABEL = 96
MARGIN = 20  # room for the last hour's label
FREE = QColor("#2e9d5b")
FULL = QColor("#c9ccd1")
MINE = QColor("#2563eb")


def _minutes(slot: SlotResult, day: date) -> tuple[int, int]:
    """A slot's start and end in minutes after its day's midnight (an end at the next
    midnight is 1440)."""
    start, end = slot.start_date_time, slot.end_date_time
    first = start.hour * 60 + start.minute
    last = end.hour * 60 + end.minute
    if end.date() > day:
        last += 1440 * (end.date() - day).days
    return first, last


class SlotTimeline(QWidget):
    picked = Signal(object)  # the SlotResult clicked

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("slotTimeline")
        self.setMouseTracking(True)
        # A click gives it the focus: Ctrl+C then copies the slot picked (the pane's action).
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        self.days: list[tuple[date, list[SlotResult]]] = []
        self.chosen: SlotResult | None = None
        # The sites' IANA zones by code: a slot's tooltip names its site's zone (`EST`).
        self.zones: dict[str, str] = {}
        self._span = (0, 1440)
        # What the empty timeline says: how to get slots, or why an answer had none.
        self.empty_text = "No slots to show yet: choose a site and a window above, then Search."

    def set_days(self, days: list[tuple[date, list[SlotResult]]]) -> None:
        self.days = days
        self.chosen = None
        spans = [_minutes(s, day) for day, slots in days for s in slots]
        if spans:
            # Whole hours around the earliest opening and the latest closing.
            self._span = (
                min(a for a, _ in spans) // 60 * 60,
                -(-max(b for _, b in spans) // 60) * 60,
            )
        self.updateGeometry()
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return QSize(600, HEADER + ROW * max(1, len(self.days)) + MARGIN)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(300, self.sizeHint().height())

    # --- geometry --------------------------------------------------------------------------

    def _x(self, minutes: int) -> float:
        first, last = self._span
        width = max(1, self.width() - LABEL - MARGIN)
        return LABEL + (minutes - first) * width / max(1, last - first)

    def slot_rect(self, row: int, slot: SlotResult) -> QRectF:
        first, last = _minutes(slot, self.days[row][0])
        top = HEADER + row * ROW + 3
        return QRectF(
            self._x(first) + 1, top, max(2.0, self._x(last) - self._x(first) - 2), ROW - 6
        )

    def row_label(self, row: int) -> str:
        """The day a row shows, as the clock writes days: `Tue Dec 1`."""
        return day_text(self.days[row][0], weekday=True)

    def slot_at(self, point: QPoint) -> SlotResult | None:
        for row, (_day, slots) in enumerate(self.days):
            for slot in slots:
                if self.slot_rect(row, slot).contains(point.toPointF()):
                    return slot
        return None

    # --- events ----------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        text_color = self.palette().color(self.foregroundRole())
        if not self.days:
            painter.setPen(text_color)
            painter.drawText(
                self.rect().adjusted(12, 12, -12, -12),
                Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                self.empty_text,
            )
            return
        first, last = self._span
        painter.setPen(
            QPen(
                text_color.lighter(150) if text_color.lightness() < 128 else text_color.darker(150)
            )
        )
        step = 60 if last - first <= 12 * 60 else 180
        for minutes in range(first, last + 1, step):
            x = self._x(minutes)
            painter.drawLine(int(x), HEADER - 4, int(x), HEADER + ROW * len(self.days))
            painter.drawText(int(x) + 2, HEADER - 6, f"{minutes // 60 % 24:02d}")
        for row, (_day, slots) in enumerate(self.days):
            top = HEADER + row * ROW
            painter.setPen(text_color)
            painter.drawText(
                QRectF(0, top, LABEL - 4, ROW), Qt.AlignmentFlag.AlignVCenter, self.row_label(row)
            )
            for slot in slots:
                rect = self.slot_rect(row, slot)
                painter.setBrush(FREE if slot.available else FULL)
                pen = QPen(MINE, 2) if slot.already_booked else QPen(Qt.PenStyle.NoPen)
                if slot is self.chosen:
                    pen = QPen(text_color, 2)
                painter.setPen(pen)
                painter.drawRoundedRect(rect, 3, 3)
                if slot.available and rect.width() > 14:
                    painter.setPen(QColor("white"))
                    painter.drawText(
                        rect, Qt.AlignmentFlag.AlignCenter, str(slot.remaining_capacity)
                    )

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        slot = self.slot_at(event.position().toPoint())
        if slot is not None and event.button() == Qt.MouseButton.LeftButton:
            self.chosen = slot
            self.update()
            self.picked.emit(slot)
        super().mousePressEvent(event)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            assert isinstance(event, QHelpEvent)
            slot = self.slot_at(event.pos())
            if slot is None:
                QToolTip.hideText()
            else:
                said = slot_text(slot, self.zones.get(slot.site_code))
                QToolTip.showText(event.globalPos(), said, self)
            return True
        return super().event(event)
