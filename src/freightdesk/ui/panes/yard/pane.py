"""The Yard slots pane: pick one of the tenant's sites and a window, and optionally a
shipment reference and stop; the site's slots show on a day timeline (green with the count
of free doors), searched as the pane opens and again, after a pause, when the site or the
window changes. The interface books no slot (docs/spec-gaps.md): Copy slot puts a picked slot
on the clipboard as one plain line, for the dispatcher to book it with the site. Beside it
the tenant's sites: listed, added (code, name, zone, doors, slot length, opening hours typed as
`MON-FRI 06:00-22:00; SAT 07:00-15:00`) and removed.

Slot times are the site's own (the service answers them with the site's offset), their zone
named by the site's IANA zone as every time at a place is (`EST`); the window is picked in this
computer's time. The sites and the last answer come from the cache at first
(see `service/yard.py`) and stay, with their age, when the service is away.
"""

from __future__ import annotations

from datetime import timedelta
from zoneinfo import available_timezones

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.weekdays import Weekday
from freightdesk.models.yard import (
    MAX_DOCK_DOORS,
    MAX_SLOT_MINUTES,
    MIN_SLOT_MINUTES,
    OpeningHours,
    SlotAnswer,
    SlotQuery,
    SlotResult,
    YardSite,
)
from freightdesk.service.clock import offset_span, user_now
from freightdesk.service.messages import explain, refusal
from freightdesk.service.session import AppSession
from freightdesk.service.yard import (
    REFERENCE,
    SITE_CODE,
    STOP,
    WINDOW,
    LastSearch,
    SiteInput,
    SlotSearchInput,
    check_search,
    check_site,
    free_count,
    slot_days,
    slot_text,
)
from freightdesk.ui.formatting import DASH, weekdays_text
from freightdesk.ui.panes.yard.timeline import SlotTimeline
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.completion import ClickThrough
from freightdesk.ui.widgets.elided import tip_elided
from freightdesk.ui.widgets.export import Rows, export_rows
from freightdesk.ui.widgets.form_dialog import ask
from freightdesk.ui.widgets.forms import ErrorLabel, FieldErrors
from freightdesk.ui.widgets.item_table import ROW_HEIGHT, ItemTable
from freightdesk.ui.widgets.listing import Column, ListingModel
from freightdesk.ui.widgets.notice import Notice
from freightdesk.ui.widgets.search_form import age_text
from freightdesk.ui.widgets.shortcuts import add_key
from freightdesk.ui.widgets.tabbed_form import NOT_CONNECTED
from freightdesk.ui.widgets.time_edit import UserTimeEdit


def hours_text(hours: list[OpeningHours]) -> str:
    """One rule a line, as Stop locations say hours: "Mon-Fri 07:00-19:00" with en dashes (the
    form reads them back as shown, or typed as `MON-FRI 07:00-19:00`); a range may wrap the
    week, "Fri-Mon", as the user typed it."""
    return "\n".join(
        f"{weekdays_text(rule.days)} {rule.opens}{DASH}{rule.closes}" for rule in hours
    )


# A new site's hours as the form starts them, said as the sites' list says hours.
WORKDAYS = OpeningHours(days=list(Weekday)[:5], opens="06:00", closes="22:00")

SITE_COLUMNS: list[Column[YardSite]] = [
    Column("Code", lambda s: s.code, 75),
    Column("Name", lambda s: s.name, 185, tooltip=lambda s: s.name),
    Column("Doors", lambda s: str(len(s.dock_doors)), 50),
    Column("Slot", lambda s: f"{s.slot_minutes} min", 60),
    Column("Time zone", lambda s: s.time_zone, 145),
    # One rule a line: a site's hours as narrow as its longest rule.
    Column("Opening hours", lambda s: hours_text(s.opening_hours), 150),
]
SITE_NAME = 1  # the column that takes the room left, cut in the middle where it is short
# The pause after the site or the window changed before its slots are asked for: a window
# typed digit by digit is asked for once.
SEARCH_PAUSE_MS = 400
EMPTY_TEXT = "Free slots show here for the site and window chosen above."
SITE_FIELDS = ("code", "name", "timeZone", "dockDoorCount", "slotMinutes", "openingHours")
LEGEND = (
    "Green: doors free, with their number; grey: fully booked or started; blue outline: this "
    "shipment already holds a door there. The app cannot book a slot: Copy slot (Ctrl+C) and "
    "book it with the site."
)


def slot_line(slot: SlotResult, site: YardSite | None, query: SlotQuery | None) -> str:
    """A slot as one plain line to book it with the site by phone or e-mail: `DOCK-1 Joliet
    Dock, Mon Dec 7 09:00-10:00 CST (America/Chicago), 3 of 3 doors free (D01, D02, D03),
    shipment SHP-1 stop 2` (the site's own time, its zone named as every time at a place)."""
    zone = site.time_zone if site is not None else None
    when = offset_span(slot.start_date_time, slot.end_date_time, zone, weekday=True)
    if site is not None:
        when += f" ({site.time_zone})"
    if slot.available:
        free = ", ".join(slot.dock_doors)
        doors = f"{slot.remaining_capacity} of {slot.capacity} doors free ({free})"
    else:
        doors = "started" if slot.remaining_capacity else "fully booked"
    parts = [f"{slot.site_code} {slot.site_name}", when, doors]
    ids = query.identifiers if query is not None else None
    if ids is not None and ids.shipment_reference:
        stop = f" stop {ids.stop_sequence_number}" if ids.stop_sequence_number else ""
        held = " (already holds a door here)" if slot.already_booked else ""
        parts.append(f"shipment {ids.shipment_reference}{stop}{held}")
    return ", ".join(parts)


class YardPane(QWidget):
    def __init__(self, session: AppSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.service = session.yard
        self.sites: list[YardSite] = []
        self.answer: SlotAnswer | None = None
        self.query: SlotQuery | None = None  # the search the answer shown is for
        self.answered_at: float | None = None
        self._wanted_site: str | None = None  # the cached search's, until the sites are listed
        self.searching = False
        self._again = False  # the site or window changed while a search ran
        self._shown = False

        # --- the slot search ---
        search_box = QGroupBox("Find free slots", self)
        form = QFormLayout(search_box)
        self.site = QComboBox(search_box)
        self.site.setObjectName("siteCode")
        self.reference = QLineEdit(search_box)
        self.reference.setObjectName("shipmentReference")
        self.reference.setPlaceholderText("optional reference, e.g. SHP-10472")
        self.reference.setToolTip("Marks the slots where this shipment already holds a door")
        self.stop = QSpinBox(search_box)
        self.stop.setObjectName("stopSequenceNumber")
        self.stop.setRange(0, 100)
        self.stop.setSpecialValueText("Any stop")
        tomorrow = user_now().replace(hour=0, minute=0, second=0, microsecond=0)
        tomorrow += timedelta(days=1)
        self.start = UserTimeEdit(search_box, tomorrow)
        self.end = UserTimeEdit(search_box, tomorrow + timedelta(days=2))
        for edit, name in ((self.start, "windowStart"), (self.end, "windowEnd")):
            edit.setObjectName(name)
        window = QWidget(search_box)
        row = QHBoxLayout(window)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.start, 1)
        row.addWidget(QLabel("to", window))
        row.addWidget(self.end, 1)
        self.search_button = QPushButton("&Search", search_box)
        self.search_button.setDefault(True)
        self.errors = FieldErrors(ErrorLabel(search_box))
        self.errors.add_row(form, "S&ite", SITE_CODE, self.site)
        # "Shipment", not "Shipment reference": the longest label set the form's least width,
        # which held the sites' names to a cut at 1366 px.
        self.errors.add_row(form, "Shi&pment", REFERENCE, self.reference)
        self.errors.add_row(form, "S&top", STOP, self.stop)
        window_error = self.errors.add_row(form, "&Window", WINDOW, window, focus=self.start)
        self.errors.register(f"{WINDOW}.end_date_time", self.end, window_error)
        form.addRow(self.errors.general)
        form.addRow("", self.search_button)

        self.notice = Notice(self)
        self.summary = QLabel(self)
        self.summary.setObjectName("slotSummary")
        self.summary.setWordWrap(True)  # a long one must not take the sites' room
        self.timeline = SlotTimeline(self)
        self.timeline.empty_text = EMPTY_TEXT
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.timeline)
        legend = QLabel(LEGEND, self)
        legend.setObjectName("slotLegend")
        legend.setWordWrap(True)
        legend.setStyleSheet("color: #6b7280;")
        self.detail = QLabel(self)
        self.detail.setObjectName("slotDetail")
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # A picked slot's words wrap in the room the slots have, two lines kept for them from
        # the start: on one line a slot with many free doors widened the slots' side, which
        # took the sites' room and cut their names, and the layout moved under the pointer.
        self.detail.setWordWrap(True)
        self.detail.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.detail.setMinimumHeight(2 * self.detail.fontMetrics().lineSpacing())
        self.copy_button = QPushButton("&Copy slot", self)
        self.copy_button.setObjectName("copySlot")
        self.copy_button.setToolTip(
            "Copy the picked slot as one line (site, day, time, zone, free doors, shipment) to "
            "book it with the site (Ctrl+C on the timeline)"
        )
        self.copy_button.setEnabled(False)
        # Ctrl+C where the slot was picked: the timeline takes the focus on a click.
        add_key(self.timeline, QKeySequence.StandardKey.Copy, self.copy_slot, "Copy slot")

        # --- the sites ---
        sites_box = QGroupBox("Sites", self)
        self.site_model: ListingModel[YardSite] = ListingModel(SITE_COLUMNS, self)
        self.site_table = ItemTable(
            self.site_model, lambda s: s.code, sites_box, name="sitesTable", stretch=SITE_NAME
        )
        # Every column beside the slots at 1366x768: each as wide as its text, the name taking
        # the rest on one line (wrapped, it made the row two lines tall), cut in the middle
        # when short (its start and its end both tell the site), whole in the tooltip; rows
        # as tall as the opening hours' rules.
        self.site_table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        tip_elided(self.site_table)
        site_header = self.site_table.horizontalHeader()
        for column in range(len(SITE_COLUMNS)):
            if column != SITE_NAME:
                site_header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        rows = self.site_table.verticalHeader()
        rows.setMinimumSectionSize(ROW_HEIGHT)
        rows.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.remove_button = QPushButton("Re&move site…", sites_box)
        self.code = QLineEdit(sites_box)
        self.code.setObjectName("code")
        self.code.setPlaceholderText("e.g. DEN-XD")
        self.name = QLineEdit(sites_box)
        self.name.setObjectName("name")
        self.time_zone = QLineEdit(sites_box)
        self.time_zone.setObjectName("timeZone")
        self.time_zone.setPlaceholderText("e.g. America/Denver")
        zones = QCompleter(sorted(available_timezones()), self.time_zone)
        zones.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        zones.setFilterMode(Qt.MatchFlag.MatchContains)
        self.time_zone.setCompleter(zones)
        ClickThrough(zones)  # a click on Add site while it is open adds the site
        self.doors = QSpinBox(sites_box)
        self.doors.setObjectName("dockDoorCount")
        self.doors.setRange(1, MAX_DOCK_DOORS)
        self.doors.setValue(4)
        self.slot_minutes = QSpinBox(sites_box)
        self.slot_minutes.setObjectName("slotMinutes")
        self.slot_minutes.setRange(MIN_SLOT_MINUTES, MAX_SLOT_MINUTES)
        self.slot_minutes.setSingleStep(15)
        self.slot_minutes.setValue(60)
        self.slot_minutes.setSuffix(" min")
        self.hours = QLineEdit(sites_box)
        self.hours.setObjectName("openingHours")
        self.hours.setText(hours_text([WORKDAYS]))
        self.hours.setToolTip(
            "Days and local hours; several separated by ';'. Round the clock: 00:00-24:00"
        )
        self.add_button = QPushButton("&Add site", sites_box)
        self.site_errors = FieldErrors(ErrorLabel(sites_box))
        add_form = QFormLayout()
        self.site_errors.add_row(add_form, "C&ode", "code", self.code)
        self.site_errors.add_row(add_form, "&Name", "name", self.name)
        self.site_errors.add_row(add_form, "Time &zone", "timeZone", self.time_zone)
        self.site_errors.add_row(add_form, "&Dock doors", "dockDoorCount", self.doors)
        self.site_errors.add_row(add_form, "Slot &length", "slotMinutes", self.slot_minutes)
        self.site_errors.add_row(add_form, "Opening ho&urs", "openingHours", self.hours)
        add_form.addRow(self.site_errors.general)
        add_form.addRow("", self.add_button)
        sites_layout = QVBoxLayout(sites_box)
        sites_layout.addWidget(self.site_table, 1)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.remove_button)
        sites_layout.addLayout(buttons)
        sites_layout.addLayout(add_form)

        left = QVBoxLayout()
        left.addWidget(search_box)
        left.addWidget(self.notice)
        left.addWidget(self.summary)
        left.addWidget(scroll, 1)
        left.addWidget(legend)
        picked = QHBoxLayout()
        picked.addWidget(self.detail, 1)
        picked.addWidget(self.copy_button)
        left.addLayout(picked)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        # The sites half again as wide as the slots: at 1366x768 a site's usual names
        # ("Brampton Distribution Centre", "Joliet Distribution Center") whole on one line
        # beside its zone and hours (at 4 to 5 they lacked 15 px there and were cut).
        layout.addLayout(left, 2)
        layout.addWidget(sites_box, 3)

        self.search_button.clicked.connect(self.search)
        self.reference.returnPressed.connect(self.search)
        self.add_button.clicked.connect(self.add_site)
        for line in (self.code, self.name, self.time_zone, self.hours):
            line.returnPressed.connect(self.add_site)
        self.site_table.on_delete(self.confirm_remove, "Remove site", button=self.remove_button)
        self.timeline.picked.connect(self._picked)
        self.copy_button.clicked.connect(self.copy_slot)
        self._pause = QTimer(self)
        self._pause.setSingleShot(True)
        self._pause.setInterval(SEARCH_PAUSE_MS)
        self._pause.timeout.connect(self._search_chosen)
        self.site.currentIndexChanged.connect(self._search_soon)
        for edit in (self.start, self.end):
            edit.dateTimeChanged.connect(self._search_soon)
        self._unconnected = session.listen_connected(self.load_sites)
        spawn(self._restore(), name="yard-cached", owner=self)
        if session.client is not None:
            self.load_sites()

    async def _restore(self) -> None:
        """What the cache holds, shown until the service answers."""
        sites = await self.service.cached_sites()
        if sites and not self.sites:
            self._show_sites(sites)
        last = await self.service.last_search()
        if last is not None and self.answer is None:
            self.fill(last)
            self.query = last.query
            self.show_answer(last.answer, last.at)

    def fill(self, last: LastSearch) -> None:
        """Put a search back into the form (the cached one, at start)."""
        ids, window = last.query.identifiers, last.query.appointment_window
        self._wanted_site = ids.site_code.strip().upper()
        self.site.setCurrentIndex(max(0, self.site.findData(self._wanted_site)))
        self.reference.setText(ids.shipment_reference or "")
        self.stop.setValue(ids.stop_sequence_number or 0)
        self.start.set_value(window.start_date_time)
        self.end.set_value(window.end_date_time)

    # --- sites -----------------------------------------------------------------------------

    def load_sites(self) -> None:
        spawn(
            self.service.sites(),
            on_done=self._show_sites,
            on_error=lambda error: self.notice.show_error(explain(error)),
            name="yard-sites",
            owner=self,
        )

    def _show_sites(self, sites: list[YardSite]) -> None:
        self.sites = sites
        self.timeline.zones = {site.code: site.time_zone for site in sites}
        self.site_table.set_items(sites)
        chosen = self.site.currentData() or self._wanted_site
        self.site.clear()
        for site in sites:
            self.site.addItem(f"{site.code} \u2013 {site.name}", site.code)
        self.site.setCurrentIndex(max(0, self.site.findData(chosen)))

    def add_site(self) -> None:
        if not self.notice.is_error:  # the last "Added site …" is not about this one
            self.notice.clear_message()
        typed = SiteInput(
            code=self.code.text(),
            name=self.name.text(),
            time_zone=self.time_zone.text(),
            doors=self.doors.value(),
            slot_minutes=self.slot_minutes.value(),
            hours=self.hours.text(),
        )
        site, problems = check_site(typed)
        if site is None:
            self.site_errors.show(problems)
            return
        if self.session.client is None:
            self.site_errors.show({}, general=NOT_CONNECTED)
            return
        self.site_errors.clear()
        self.add_button.setEnabled(False)

        def done(added: YardSite) -> None:
            self.add_button.setEnabled(True)
            self.code.clear()
            self.name.clear()
            self.notice.show_info(f"Added site {added.code} ({added.name}).")
            self.site_table.select_when_listed(added.code)
            self.load_sites()

        def failed(error: BaseException) -> None:
            self.add_button.setEnabled(True)
            self.site_errors.show(*refusal(error))

        spawn(
            self.service.add_site(site),
            on_done=done,
            on_error=failed,
            name="yard-add-site",
            owner=self,
        )

    def confirm_remove(self) -> None:
        site = self.site_table.selected()
        if site is None:
            return
        self.question = ask(
            self,
            "Remove site",
            f"Remove the site {site.code} ({site.name})?",
            lambda: self.remove(site),
            name="confirmDelete",
            informative="Its booked appointments are removed with it.",
            answers=("&Remove", "Cancel"),
        )

    def remove(self, site: YardSite) -> None:
        def done(_none: None) -> None:
            self.notice.show_info(f"Removed site {site.code}.")
            self.load_sites()

        spawn(
            self.service.remove_site(site.code),
            on_done=done,
            on_error=lambda error: self.notice.show_error(explain(error)),
            name="yard-remove-site",
            owner=self,
        )

    # --- slots -----------------------------------------------------------------------------

    def typed(self) -> SlotSearchInput:
        return SlotSearchInput(
            site_code=str(self.site.currentData() or ""),
            shipment_reference=self.reference.text(),
            stop=self.stop.value(),
            start=self.start.value(),
            end=self.end.value(),
        )

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if not self._shown:  # later visits keep what is shown; Search or F5 asks again
            self._shown = True
            self._search_soon()

    def _search_soon(self) -> None:
        """Ask for the chosen site's slots after a pause (only while the pane is seen)."""
        if self.isVisible():
            self._pause.start()

    @property
    def search_pending(self) -> bool:
        """A search runs, or one waits for its pause to end."""
        return self.searching or self._pause.isActive()

    def _search_chosen(self) -> None:
        """The search the pane makes itself: once a site is listed and the service is there."""
        if self.searching:
            self._again = True
        elif self.site.count() and self.session.client is not None:
            self.search()

    def search(self) -> None:
        self._pause.stop()
        query, problems = check_search(self.typed())
        if query is None:
            self.errors.show(problems)
            return
        if self.session.client is None:
            self.errors.show({}, general=NOT_CONNECTED)
            return
        self.errors.clear()
        self.searching = True
        self.search_button.setEnabled(False)
        # Said over the timeline: the notice keeps what it says of the sites ("Added site").
        self.summary.setText("Finding slots…")
        if not self.timeline.days:
            self.timeline.empty_text = "Finding free slots…"
            self.timeline.update()

        def finished() -> None:
            self.searching = False
            self.search_button.setEnabled(True)
            if self._again:  # the site or window changed meanwhile: its slots next
                self._again = False
                self._search_soon()

        def done(last: LastSearch) -> None:
            finished()
            self.query = last.query
            self.show_answer(last.answer, last.at)

        def failed(error: BaseException) -> None:
            finished()
            self.summary.clear()
            self.errors.show(*refusal(error))
            if self.answer is not None:  # the last answer stays, said to be older
                self.show_answer(self.answer, self.answered_at)
            else:
                self.timeline.empty_text = "No slots: the search failed, as said above."
                self.timeline.update()

        spawn(
            self.service.slots(query), on_done=done, on_error=failed, name="yard-slots", owner=self
        )

    def show_answer(self, answer: SlotAnswer, at: float | None) -> None:
        self.answer, self.answered_at = answer, at
        days = slot_days(answer)
        self.timeline.set_days(days)
        self.detail.clear()
        self.copy_button.setEnabled(False)
        free = free_count(days)
        age = f" Slots as of {age_text(at)}." if at is not None else ""
        if not answer.results:
            self.timeline.empty_text = (
                "No slots in this window: the site is closed then. Try a wider window or "
                "another site."
            )
            self.timeline.update()
            self.summary.setText(f"The site is closed throughout this window.{age}")
        else:
            day_count = sum(1 for _day, slots in days if any(s.available for s in slots))
            self.summary.setText(
                f"{free} free slot{'s' if free != 1 else ''} on {day_count} "
                f"day{'s' if day_count != 1 else ''} ({len(answer.results)} in the window; "
                f"site's local time).{age} Click a slot for its doors."
            )

    def _picked(self, slot: SlotResult) -> None:
        self.detail.setText(slot_text(slot, self.timeline.zones.get(slot.site_code)))
        self.copy_button.setEnabled(True)

    def copy_slot(self) -> None:
        """The picked slot on the clipboard, to book it with the site by other means."""
        slot = self.timeline.chosen
        if slot is None:
            return
        site = next((s for s in self.sites if s.code == slot.site_code), None)
        QGuiApplication.clipboard().setText(slot_line(slot, site, self.query))
        # Said under the slot's words, below the timeline: the notice above it moved the
        # slots down under the pointer.
        said = slot_text(slot, self.timeline.zones.get(slot.site_code))
        self.detail.setText(f"{said}\nCopied: book it with the site by phone or email.")

    # --- pane actions ----------------------------------------------------------------------

    def unsaved_changes(self) -> str | None:
        code = self.code.text().strip()
        return f"the new site {code!r}, not added yet" if code else None

    def export_view(self) -> None:
        export_rows(self, self._slot_rows, self.notice, noun="slots")

    def _slot_rows(self) -> Rows:
        """The slots on the timeline, one row each (times with the site's offset)."""
        header = ["Site", "Start", "End", "Free", "Doors", "Booked", "Available", "Free doors"]
        slots = (
            [s for _day, day_slots in slot_days(self.answer) for s in day_slots]
            if self.answer
            else []
        )
        return Rows(
            header,
            [
                [
                    s.site_code,
                    s.start_date_time,
                    s.end_date_time,
                    s.remaining_capacity,
                    s.capacity,
                    s.booked_count,
                    "Yes" if s.available else "No",
                    ", ".join(s.dock_doors),
                ]
                for s in slots
            ],
        )

    def focus_search(self) -> None:
        self.reference.setFocus()
        self.reference.selectAll()

    def new_item(self) -> None:
        self.code.setFocus()

    def refresh(self) -> None:
        self.load_sites()

    def shutdown(self) -> None:
        self._pause.stop()
        self._unconnected()
