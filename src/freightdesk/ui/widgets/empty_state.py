"""Words in an empty list or table: what would be there and how to get it.

`say_when_empty(view, text)` is the one way a view gets them: a label over the view's empty
area, shown while its model has no rows and hidden as soon as one arrives. A list that fills
itself (from the cache, then the service) says `loading` until its model is first filled: on a
first run, or while the service is still starting, "No bookings to show: book a quote…" would
tell a dispatcher there are none when nothing has been fetched yet.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractItemView, QLabel


class EmptyState(QLabel):
    """The words of one view; follows the view's model and the size of its viewport."""

    def __init__(
        self, view: QAbstractItemView, text: str, loading: str = "", *, filled_by_reset: bool = True
    ) -> None:
        super().__init__(loading or text, view.viewport())
        self.empty_text = text
        # Whether the list is known (an empty one empty): no `loading` words, or filled since.
        self.known = not loading
        self.setObjectName("emptyState")
        self.view = view
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWordWrap(True)
        self.setEnabled(False)  # drawn in the palette's disabled text: a hint, not content
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        view.viewport().installEventFilter(self)
        model = view.model()
        # A filter may hide or show rows as a layout change (the shipments' model does).
        for signal in (
            model.rowsInserted,
            model.rowsRemoved,
            model.modelReset,
            model.layoutChanged,
        ):
            signal.connect(self.update_shown)
        if loading and filled_by_reset:
            # The model is filled by a reset (`ListingModel.set_items`), even with no items.
            model.modelReset.connect(self.filled, Qt.ConnectionType.SingleShotConnection)
        self.update_shown()

    def filled(self) -> None:
        """The list is known now: an empty one is empty, not loading."""
        self.known = True
        self.setText(self.empty_text)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Resize:
            self.setGeometry(self.view.viewport().rect().adjusted(12, 12, -12, -12))
        return False

    def update_shown(self) -> None:
        self.setGeometry(self.view.viewport().rect().adjusted(12, 12, -12, -12))
        self.setVisible(self.view.model().rowCount() == 0)

    @property
    def shown(self) -> bool:
        """Whether the words are up (the view itself may be hidden)."""
        return not self.isHidden()


def say_when_empty(
    view: QAbstractItemView, text: str, *, loading: str = "", filled_by_reset: bool = True
) -> EmptyState:
    """Show `text` in `view` while it has no rows; `loading` (if given) instead until its model
    is first reset (a reset of an empty cache's rows says nothing: such a view passes
    `filled_by_reset=False` and calls `filled()` once the list is known)."""
    return EmptyState(view, text, loading, filled_by_reset=filled_by_reset)
