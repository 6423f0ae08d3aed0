"""The Shipments list's triage (service/triage.py) on screen: the Attention column's words
and colours, the row of filter buttons with their counts, and the settings dialog.

Colour is never alone: every cell says its kind in words, and a symbol before them tells the
kinds apart for readers who do not see the colours. The colours have a light and a dark form,
chosen by the palette's base colour, so both themes keep them readable.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.code_words import mode_text
from freightdesk.models.durations import DAYS_FROM
from freightdesk.service.summary_rows import SummaryRow
from freightdesk.service.triage import (
    DEFAULT_MARGIN,
    DEFAULT_SILENCE,
    KIND_NAMES,
    KINDS,
    MAX_MARGIN_MINUTES,
    MAX_SILENCE_HOURS,
    Attention,
    Facts,
    TriageFacts,
    TriageSettings,
    Verdict,
    assess,
    check_settings,
    due_of,
    flags_of,
    late_seconds,
    settings_of,
)
from freightdesk.ui.bridge import answering_again
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX, COLUMNS, Column, SortValue

if TYPE_CHECKING:
    from freightdesk.service.cache import Cache
    from freightdesk.service.session import AppSession
    from freightdesk.ui.panes.shipments.model import ShipmentTableModel

# Time moves shipments into (and out of) attention: the list is triaged again this often.
RETRIAGE_MS = 60_000

# (light theme, dark theme): each at least 4.5:1 against its theme's base colour.
_COLORS = {
    Attention.LATE: ("#b3261e", "#ff8a80"),
    Attention.EXCEPTION: ("#a4462a", "#ffab91"),
    Attention.NO_SIGNAL: ("#5b45a8", "#c5b3ff"),
    Attention.AT_RISK: ("#8a5a00", "#ffd180"),
}
# Shapes that differ without colour: a filled, a hollow, a crossed and an exclamation mark.
SYMBOLS = {
    Attention.LATE: "●",
    Attention.EXCEPTION: "!",
    Attention.NO_SIGNAL: "⊘",
    Attention.AT_RISK: "○",
}

# From this delay on the cell leaves out the minutes; from `DAYS_FROM` on the verdict counts
# in days and hours itself (models/durations.duration_text).
LONG_DELAY = timedelta(hours=10)

_DISPLAY = Qt.ItemDataRole.DisplayRole.value
_TOOLTIP = Qt.ItemDataRole.ToolTipRole.value
_FOREGROUND = Qt.ItemDataRole.ForegroundRole.value
_FONT = Qt.ItemDataRole.FontRole.value


def _dark() -> bool:
    base = QGuiApplication.palette().color(QPalette.ColorRole.Base)
    return base.lightness() < 128


def attention_color(kind: Attention) -> QColor | None:
    pair = _COLORS.get(kind)
    return QColor(pair[1] if _dark() else pair[0]) if pair else None


def attention_text(verdict: Verdict) -> str:
    """The cell's words: the verdict's, but a delay of ten hours or more in whole hours
    ("Late 21 h", not "Late 21 h 17 m"), so that the narrow column at 1366 px shows it whole;
    the minutes are in the tooltip."""
    if not verdict.worst:
        return ""
    late = verdict.late_by
    if verdict.worst is Attention.LATE and late is not None and LONG_DELAY <= late < DAYS_FROM:
        return f"{SYMBOLS[verdict.worst]} Late {late // timedelta(hours=1)} h"
    return f"{SYMBOLS[verdict.worst]} {verdict.text}"


def attention_data(verdict: Verdict, role: int) -> Any:
    """What the Attention cell shows for `role` (not the background)."""
    if not verdict.worst:
        return None
    if role == _DISPLAY:
        return attention_text(verdict)
    if role == _TOOLTIP:
        return verdict.explanation
    if role == _FOREGROUND:
        color = attention_color(verdict.worst)
        return QBrush(color) if color is not None else None
    if role == _FONT and verdict.worst is Attention.LATE:
        font = QFont()
        font.setBold(True)
        return font
    return None


def never_late(_row: SummaryRow) -> float:
    return 0.0


def column_value(
    column: int, row: SummaryRow, flags: int, late: Callable[[SummaryRow], float] = never_late
) -> SortValue | None:
    """The model's sort value of a row in `column`; for the Attention column one plain
    number: the worst kind first (descending), then within Late the latest (`late`, seconds
    late: what a dispatcher deals with first), within the other kinds the most recently
    updated."""
    if column != COLUMN_INDEX["attention"]:
        return COLUMNS[column].sort_value(row)
    group = flags.bit_length() * 1e10
    # Late is known from the facts that made the row late; a model told of no lateness
    # (`never_late`) orders the late as the others.
    late_by = late(row) if flags >> Attention.LATE & 1 else 0.0
    return group + (late_by or row.last_modified.timestamp())


def column_values(
    column: int,
    rows: Sequence[SummaryRow],
    flags: bytearray,
    late: Callable[[SummaryRow], float] = never_late,
) -> list[SortValue | None]:
    if column != COLUMN_INDEX["attention"]:
        value = COLUMNS[column].sort_value
        return [value(row) for row in rows]
    return [column_value(column, row, f, late) for row, f in zip(rows, flags, strict=True)]


def marks_of(flags: bytearray, kinds: Iterable[Attention]) -> bytearray:
    """A byte per row (of the model's attention `flags`), 1 where the row has any of `kinds`:
    one C-level pass."""
    wanted = sum(1 << kind for kind in kinds)
    return flags.translate(bytes(1 if value & wanted else 0 for value in range(256)))


def place_attention(header: QHeaderView) -> None:
    """Show the Attention column after State (its place among the key columns)."""
    attention = header.visualIndex(COLUMN_INDEX["attention"])
    after_state = header.visualIndex(COLUMN_INDEX["state"]) + 1
    header.moveSection(attention, after_state if attention > after_state else after_state - 1)


class AttentionBar(QWidget):
    """A toggle button per kind of attention with its count: "Late (4)". Checked buttons
    narrow the list to rows with any of their kinds."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.buttons: dict[Attention, QPushButton] = {}
        for kind in KINDS:
            button = QPushButton(self)
            button.setObjectName(f"attention{KIND_NAMES[kind].title().replace(' ', '')}")
            button.setCheckable(True)
            button.setToolTip(f"Show only shipments marked {KIND_NAMES[kind]}")
            button.toggled.connect(self.changed)
            layout.addWidget(button)
            self.buttons[kind] = button
        self.show_counts(None)

    def show_counts(self, counts: Counter[Attention] | None) -> None:
        """Each kind with its count; without one while the list is not known (None): "(0)"
        would say nothing is late before the service has answered."""
        for kind, button in self.buttons.items():
            count = "" if counts is None else f" ({counts.get(kind, 0):,})"
            button.setText(f"{SYMBOLS[kind]} {KIND_NAMES[kind]}{count}")

    def chosen(self) -> frozenset[Attention]:
        return frozenset(kind for kind, button in self.buttons.items() if button.isChecked())

    def choose(self, kinds: frozenset[Attention]) -> None:
        for kind, button in self.buttons.items():
            button.blockSignals(True)
            button.setChecked(kind in kinds)
            button.blockSignals(False)


def kinds_named(names: object) -> frozenset[Attention]:
    """The kinds a saved view names (a list of `Attention` names; others are ignored)."""
    if not isinstance(names, list):
        return frozenset()
    return frozenset(Attention[n] for n in names if n in Attention.__members__ and n != "NONE")


# --- settings ------------------------------------------------------------------------------

_MARGIN_KEY = "triage/marginMinutes"
_HOURS_KEY = "triage/silenceHours/"


def _minutes(span: timedelta) -> int:
    return int(span.total_seconds() // 60)


def stored_numbers(settings: QSettings) -> tuple[int, dict[str, int]]:
    """The margin (minutes) and silence hours per mode kept in `settings`, else defaults."""

    def number(key: str, default: int) -> int:
        try:
            return int(str(settings.value(key, default)))
        except ValueError:
            return default

    margin = number(_MARGIN_KEY, _minutes(DEFAULT_MARGIN))
    hours = {
        mode: number(_HOURS_KEY + mode, _minutes(span) // 60)
        for mode, span in DEFAULT_SILENCE.items()
    }
    if check_settings(margin, hours):  # edited by hand into nonsense: the defaults
        return _minutes(DEFAULT_MARGIN), {m: _minutes(s) // 60 for m, s in DEFAULT_SILENCE.items()}
    return margin, hours


def stored_settings(settings: QSettings) -> TriageSettings:
    return settings_of(*stored_numbers(settings))


class TriageSettingsDialog(QDialog):
    """The at-risk margin and, per mode, how long a shipment in transit may stay silent."""

    def __init__(self, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Attention settings")
        self._settings = settings
        margin, hours = stored_numbers(settings)
        form = QFormLayout()
        self.margin = QSpinBox(self)
        self.margin.setObjectName("triageMargin")
        self.margin.setRange(0, MAX_MARGIN_MINUTES)
        self.margin.setSuffix(" min")
        self.margin.setValue(margin)
        self.margin.setToolTip("An ETA this close to the end of the appointment is At risk")
        form.addRow("At risk within", self.margin)
        # One heading over a row per mode in its words: "No signal, PARCEL, after" on each
        # row said the wire's code eight times.
        silence = QGroupBox("No signal after", self)
        per_mode = QFormLayout(silence)
        self.hours: dict[str, QSpinBox] = {}
        for mode, value in hours.items():
            box = QSpinBox(silence)
            box.setObjectName(f"triageSilence{mode}")
            box.setAccessibleName(_field_text(mode))
            box.setRange(1, MAX_SILENCE_HOURS)
            box.setSuffix(" h")
            box.setValue(value)
            per_mode.addRow(mode_text(mode), box)
            self.hours[mode] = box
        self.error = QLabel(self)
        self.error.setObjectName("triageSettingsError")
        self.error.setStyleSheet("color: #d0453a;")
        self.error.setVisible(False)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(silence)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def numbers(self) -> tuple[int, dict[str, int]]:
        return self.margin.value(), {mode: box.value() for mode, box in self.hours.items()}

    def _save(self) -> None:
        margin, hours = self.numbers()
        errors = check_settings(margin, hours)
        if errors:  # the boxes' ranges keep this from happening; said anyway, never lost
            self.error.setText("; ".join(f"{_field_text(k)}: {v}" for k, v in errors.items()))
            self.error.setVisible(True)
            return
        store_numbers(self._settings, margin, hours)
        self.accept()


def _field_text(field: str) -> str:
    """A field `check_settings` names, as the dialog labels it."""
    return "At risk within" if field == "margin" else f"No signal, {mode_text(field)}, after"


def store_numbers(settings: QSettings, margin: int, hours: Mapping[str, int]) -> None:
    settings.setValue(_MARGIN_KEY, margin)
    for mode, value in hours.items():
        settings.setValue(_HOURS_KEY + mode, value)


class TriageLink(QObject):
    """Triages the list's rows for its model (`model.triage`, `model.verdict`) at one moment,
    taken again every minute, with the facts `TriageFacts` reads for the shipments under
    way; new facts, settings or a new minute triage the list again, held still when `hold`
    says the user works in it. Facts that could not be read are asked again each minute and
    when the service answers again (`TriageFacts.retry`)."""

    # The user's settings, once changed (TriageSettings): the detail's Overview follows them.
    settingsChanged = Signal(object)
    # A new minute (`minute`): the ids of the rows whose flags time alone changed since the
    # last one (a frozenset), or None when any row's may have (`retriage_due`). The Alerts
    # judge those again: one set of moments for both.
    timePassed = Signal(object)

    def __init__(
        self,
        model: ShipmentTableModel,
        settings: QSettings,
        hold: Callable[[], bool],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._model = model
        self._qsettings = settings
        self._hold = hold
        self.settings = stored_settings(settings)
        # Where the moment comes from: a test or benchmark moves it on to see time pass.
        self.clock: Callable[[], datetime] = lambda: datetime.now(UTC)
        self.now = self.clock()
        self.facts: TriageFacts | None = None
        self._facts: Mapping[str, Facts] = {}
        # Facts read before the session (`know`), handed on to the first `attach`'s.
        self._early: Mapping[str, Facts] = {}
        # Per shipment, the row (object) judged and its verdict: a changed row is judged again.
        self._verdicts: dict[str, tuple[SummaryRow, Verdict]] = {}
        self._unlisten: Callable[[], None] | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(RETRIAGE_MS)
        self._timer.timeout.connect(self.minute)
        self._timer.start()
        answering_again().connect(self._retry)
        model.triage = self._flags
        model.due = self._due
        model.verdict = self.verdict
        model.late = self._late

    def attach(self, session: AppSession, cache: Cache) -> None:
        """Read facts with the session's client, kept in `cache` (those of another connection
        dropped)."""
        self._close_facts()
        early, self._early = self._early, {}
        self.facts = TriageFacts(session.require_client, cache, known=early)
        self._facts = self.facts.facts
        self._unlisten = self.facts.listen(self.again)
        self._verdicts.clear()

    def know(self, facts: Mapping[str, Facts]) -> None:
        """Facts read with the cached rows before the session exists (the first screen's,
        `first_screen.read_first_screen`): the list is triaged with them from its first
        paint, as it is once the session has read every kept fact (else its rows would
        reorder under the pointer then). Call before the rows are shown."""
        if self.facts is None:
            self._early = {**self._early, **facts}
            self._facts = self._early
        else:
            self.facts.facts.update(facts)
        for key in facts:
            self._verdicts.pop(key, None)

    def judging(
        self, facts: Mapping[str, Facts]
    ) -> tuple[Callable[[SummaryRow], int], Callable[[SummaryRow], float]]:
        """The model's `triage` and `late` (its flags, seconds late) as they are once
        `facts` are known too (`know`): what sorts a first screen read with them."""
        known = {**self._facts, **facts} if facts else self._facts
        now, settings = self.now, self.settings

        def flags(row: SummaryRow) -> int:
            return flags_of(row, known.get(row.id), now, settings)

        def late(row: SummaryRow) -> float:
            return late_seconds(row, known.get(row.id))

        return flags, late

    def want(self, rows: Iterable[SummaryRow]) -> None:
        if self.facts is not None:
            self.facts.want(rows)

    def verdict(self, row: SummaryRow) -> Verdict:
        judged = self._verdicts.get(row.id)
        if judged is not None and judged[0] is row:
            return judged[1]
        verdict = assess(row, self._facts.get(row.id), self.now, self.settings)
        self._verdicts[row.id] = (row, verdict)
        return verdict

    def _flags(self, row: SummaryRow) -> int:
        # Also called from a worker thread (the model's `load`): no shared state written.
        return flags_of(row, self._facts.get(row.id), self.now, self.settings)

    def _late(self, row: SummaryRow) -> float:
        # As `_flags`, also from a worker thread.
        return late_seconds(row, self._facts.get(row.id))

    def _due(self, row: SummaryRow) -> float | None:
        # As `_flags`, also from a worker thread.
        due = due_of(row, self._facts.get(row.id), self.now, self.settings)
        return due.timestamp() if due is not None else None

    def again(self, ids: Iterable[str] | None = None) -> None:
        """Triage again: the rows of `ids` (their facts changed), or all at a new moment."""
        if ids is None:
            self.now = self.clock()
            self._verdicts.clear()
        else:
            ids = list(ids)
            for key in ids:
                self._verdicts.pop(key, None)
        self._model.retriage(ids, hold=self._hold)

    def exported(self, columns: Sequence[Column]) -> list[Column]:
        """`columns` with the Attention column's words (the model shows them otherwise), as
        the list judges them now: its facts and its moment are taken here, and each row is
        judged as the file's writer reads it, in its thread (judged at once on the GUI
        thread, 20,000 rows stalled the window 0.1 to 0.5 s)."""
        facts, now, settings = dict(self._facts), self.now, self.settings

        def words(row: SummaryRow) -> str:
            return assess(row, facts.get(row.id), now, settings).text

        return [replace(c, text=words) if c.key == "attention" else c for c in columns]

    def minute(self) -> None:
        """A new minute (the timer's): the rows that time alone can change triaged again."""
        # Time changes only whether a shipment in transit is silent (an ETA is late or not
        # whenever it is): only those whose silence ran out since are triaged again.
        self.now = self.clock()
        self._verdicts.clear()
        came = self._model.retriage_due(self.now.timestamp(), hold=self._hold)
        self.timePassed.emit(came)
        self._retry()

    def _retry(self) -> None:
        if self.facts is not None:
            self.facts.retry()

    def reload_settings(self) -> None:
        self.settings = stored_settings(self._qsettings)
        self.again()
        self.settingsChanged.emit(self.settings)

    def close(self) -> None:
        self._timer.stop()
        self._model.stop_retriage()
        self._close_facts()

    def _close_facts(self) -> None:
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        if self.facts is not None:
            self.facts.close()
            self.facts = None
