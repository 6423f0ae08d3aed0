"""The Carrier profiles pane: how the local service's simulated carriers answer the tenant's
rate requests and bookings. The carriers listed (built in, and those the tenant configured), a
carrier looked up by its SCAC, its profile changed and saved, or the tenant's settings deleted
(the carrier answers with its defaults again)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QCompleter,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.booking import CarrierProfile
from freightdesk.models.code_words import mode_text
from freightdesk.service.carrier_codes import carrier_code
from freightdesk.service.carrier_profiles import check_profile
from freightdesk.service.listing import Listing
from freightdesk.service.messages import explain, refusal
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.carriers.form import BEHAVIOUR_TEXT, CarrierProfileForm
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.completion import ClickThrough
from freightdesk.ui.widgets.empty_state import say_when_empty
from freightdesk.ui.widgets.export import ListExport
from freightdesk.ui.widgets.form_dialog import ask, ask_discard
from freightdesk.ui.widgets.forms import ErrorLabel, FieldErrors, show_error
from freightdesk.ui.widgets.group_follower import GroupFollower
from freightdesk.ui.widgets.item_table import ItemTable
from freightdesk.ui.widgets.list_page import ListPage
from freightdesk.ui.widgets.listing import Column, ListingModel
from freightdesk.ui.widgets.notice import Notice
from freightdesk.ui.widgets.tabbed_form import NOT_CONNECTED

START_TEXT = (
    "Look up a carrier by its name or SCAC above, or pick one in the list, to see how it "
    "answers your rate requests and bookings. Any SCAC has a profile to start from: change it and "
    "save, and the carrier answers that way from then on."
)
EMPTY_LIST_TEXT = (
    "No carriers listed yet. Type a carrier's SCAC above and press Look up: any SCAC has a "
    "profile to start from."
)
SCAC_ROLE = Qt.ItemDataRole.UserRole + 1  # what the completer matches and puts in the field


def _settings_text(profile: CarrierProfile) -> str:
    return "Yours" if profile.configured else "Defaults"


COLUMNS: list[Column[CarrierProfile]] = [
    Column("SCAC", lambda p: p.scac, 70),
    Column("Name", lambda p: p.name, 210),
    Column(
        "Behaviour",
        lambda p: p.behaviour.value.title(),
        90,
        tooltip=lambda p: BEHAVIOUR_TEXT[p.behaviour],
    ),
    Column("Modes", lambda p: ", ".join(m.value for m in p.modes), 110),
    Column(
        "Settings",
        _settings_text,
        80,
        tooltip=lambda p: (
            "Your company's settings"
            if p.configured
            else "Not configured by your company: the carrier's defaults"
        ),
    ),
]


def _state_text(profile: CarrierProfile) -> str:
    modes = ", ".join(mode_text(m) for m in profile.modes)
    whose = (
        "Your company's settings."
        if profile.configured
        else "Defaults: your company has not configured this carrier. Saving keeps what the "
        "form shows as your settings."
    )
    return f"{whose} Hauls {modes}."


class CarrierProfilesPane(ListExport, QWidget):
    export_noun = "carrier profiles"

    def __init__(self, session: AppSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.model: ListingModel[CarrierProfile] = ListingModel(COLUMNS, self)
        self.profile: CarrierProfile | None = None  # open in the form, as the service answered
        self.dirty = False
        self.question: QMessageBox | None = None
        self._busy = False

        intro = QLabel(
            "The local service simulates the carriers your rate requests and bookings go to. "
            "Set, per carrier, how it answers, how fast, and what it hauls.",
            self,
        )
        intro.setWordWrap(True)
        self.scac = QLineEdit(self)
        self.scac.setObjectName("scac")
        self.scac.setPlaceholderText("a name or SCAC, e.g. GLKT")
        self.scac.setMaximumWidth(160)
        self.completions = QStandardItemModel(self)
        completer = QCompleter(self.completions, self)
        completer.setCompletionRole(SCAC_ROLE)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        popup = completer.popup()
        if popup is not None:
            popup.setMinimumWidth(300)  # the carrier's name beside its SCAC
        self.scac.setCompleter(completer)
        ClickThrough(completer)  # a click on Look up while it is open looks up
        self.look_up_button = QPushButton("&Look up", self)
        look_up_row = QHBoxLayout()
        look_up_row.setContentsMargins(0, 0, 0, 0)
        look_up_row.addWidget(self.scac)
        look_up_row.addWidget(self.look_up_button)
        look_up_row.addStretch(1)
        look_up = QWidget(self)
        look_up.setLayout(look_up_row)
        self.look_up_errors = FieldErrors(ErrorLabel(self))
        look_up_form = QFormLayout()
        self.look_up_errors.add_row(
            look_up_form, "Carrier's &SCAC", "scac", look_up, focus=self.scac
        )

        self.notice = Notice(self)
        self.table = ItemTable(
            self.model, lambda p: p.scac, self, name="carrierProfilesTable", stretch=1
        )
        self.empty = say_when_empty(
            self.table, EMPTY_LIST_TEXT, loading="Loading carrier profiles…"
        )
        self.count_label = QLabel(self)
        self.refresh_button = QPushButton("&Refresh", self)
        list_buttons = QHBoxLayout()
        list_buttons.addWidget(self.count_label, 1)
        list_buttons.addWidget(self.refresh_button)
        left = QVBoxLayout()
        left.addWidget(intro)
        left.addLayout(look_up_form)
        left.addWidget(self.notice)
        left.addWidget(self.table, 1)
        left.addLayout(list_buttons)

        self.title = QLabel(self)
        self.title.setObjectName("profileTitle")
        self.title.setStyleSheet("font-size: 15px; font-weight: bold;")
        self.state = QLabel(self)
        self.state.setObjectName("profileState")
        self.state.setWordWrap(True)
        self.start = QLabel(START_TEXT, self)
        self.start.setObjectName("emptyState")
        self.start.setWordWrap(True)
        self.start.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.start.setContentsMargins(48, 0, 48, 0)
        self.start.setEnabled(False)  # a hint in the disabled text colour, as empty lists have
        self.form = CarrierProfileForm(self)
        # A group renamed while a profile is open: the form names it by its new code.
        self.group_follower = GroupFollower(session, self.form)
        self.group_follower.changed.connect(
            lambda _groups, renames: self.form.rename_groups(renames)
        )
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.start)
        self.stack.addWidget(self.form)
        self.save_button = QPushButton("Save se&ttings", self)
        self.save_button.setObjectName("saveButton")
        self.revert_button = QPushButton("Revert", self)
        self.revert_button.setToolTip("Read the carrier's profile again, dropping your changes")
        self.delete_button = QPushButton("&Delete settings…", self)
        self.delete_button.setObjectName("deleteButton")
        form_buttons = QHBoxLayout()
        form_buttons.addWidget(self.delete_button)
        form_buttons.addStretch(1)
        form_buttons.addWidget(self.revert_button)
        form_buttons.addWidget(self.save_button)
        right = QVBoxLayout()
        right.addWidget(self.title)
        right.addWidget(self.state)
        right.addWidget(self.stack, 1)
        right.addLayout(form_buttons)
        right_box = QWidget(self)
        right_box.setLayout(right)
        right_box.setMinimumWidth(520)
        right.setContentsMargins(0, 0, 0, 0)

        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(left, 5)
        layout.addWidget(right_box, 6)

        self.page = ListPage(
            self,
            session,
            lambda s: s.carrier_profiles,
            self.table,
            self.notice,
            name="carrier-profiles",
        )
        self.page.shown.connect(self._listed)
        self.scac.returnPressed.connect(self.look_up)
        self.look_up_button.clicked.connect(self.look_up)
        completer.activated.connect(lambda _text: self.look_up())
        self.refresh_button.clicked.connect(self.refresh)
        self.table.selectedChanged.connect(self._picked)
        self.form.changed.connect(self._edited)
        self.save_button.clicked.connect(self.save)
        # Return in a field saves, as in the app's other forms (a spin box's text included).
        for edit in self.form.findChildren(QLineEdit):
            edit.returnPressed.connect(self.save)
        self.revert_button.clicked.connect(self.revert)
        self.delete_button.clicked.connect(self.confirm_delete)
        self._show(None)

    # --- showing ---------------------------------------------------------------------------

    def _listed(self, data: Listing[CarrierProfile]) -> None:
        count = len(data.items)
        yours = sum(1 for p in data.items if p.configured)
        self.count_label.setText(f"{count} carriers, {yours} with your settings")
        self.completions.clear()
        for profile in data.items:
            item = QStandardItem(f"{profile.scac}   {profile.name}")
            item.setData(profile.scac, SCAC_ROLE)
            self.completions.appendRow(item)

    def _show(self, profile: CarrierProfile | None) -> None:
        """`profile` in the form as the service answered it (None: how to start)."""
        self.profile = profile
        self.dirty = False
        self.stack.setCurrentWidget(self.form if profile else self.start)
        self.title.setText(f"{profile.scac}: {profile.name}" if profile else "Carrier profile")
        self.state.setText(_state_text(profile) if profile else "")
        if profile is not None:
            self.form.load(profile)
            self.table.select_when_listed(profile.scac)
        self._enable()

    def _enable(self) -> None:
        open_ = self.profile is not None and not self._busy
        self.save_button.setEnabled(open_)
        self.revert_button.setEnabled(open_)
        self.delete_button.setEnabled(
            open_ and self.profile is not None and self.profile.configured
        )
        self.delete_button.setToolTip(
            "Your company has no settings for this carrier to delete."
            if self.profile is not None and not self.profile.configured
            else ""
        )
        self.look_up_button.setEnabled(not self._busy)

    def _edited(self) -> None:
        self.dirty = True

    def _run(
        self,
        work: Coroutine[Any, Any, CarrierProfile],
        name: str,
        done: Callable[[CarrierProfile], None],
        failed: Callable[[BaseException], None],
    ) -> None:
        self._busy = True
        self._enable()

        def finished(profile: CarrierProfile) -> None:
            self._busy = False
            done(profile)
            self._enable()

        def refused(error: BaseException) -> None:
            self._busy = False
            failed(error)
            self._enable()

        spawn(work, on_done=finished, on_error=refused, name=name, owner=self)

    # --- opening a carrier -----------------------------------------------------------------

    def _picked(self) -> None:
        picked = self.table.selected()
        if picked is not None and (self.profile is None or picked.scac != self.profile.scac):
            self.open_carrier(picked.scac)

    def look_up(self) -> None:
        scac, problem = carrier_code(self.scac.text())  # by its name too, as every field
        if scac is None:
            self.look_up_errors.show({"scac": problem or "Enter the carrier's name or SCAC"})
            return
        self.look_up_errors.clear()
        self.open_carrier(scac)

    def open_carrier(self, scac: str) -> None:
        """Read the carrier's profile from the service and show it; changes not saved to
        the carrier open now are asked about first."""
        if self.dirty and self.profile is not None and scac != self.profile.scac:
            kept = self.profile.scac
            text = f"Discard your changes to {kept}'s profile?"
            self.question = ask_discard(self, text, lambda: self._read(scac))
            # Until the user agrees, the list shows the carrier the form holds.
            self.table.select_when_listed(kept)
            return
        self._read(scac)

    def _read(self, scac: str) -> None:
        service = self.session.carrier_profiles
        if service is None or self.session.client is None:
            self.look_up_errors.show({"scac": NOT_CONNECTED})
            return

        def refused(error: BaseException) -> None:
            # Said beside the SCAC the user asked for; the form keeps the carrier it holds.
            self.look_up_errors.show({"scac": f"{scac}: {explain(error)}"})
            if self.profile is not None:
                self.table.select_when_listed(self.profile.scac)

        self._run(service.get(scac), "carrier-profile", self._opened, refused)

    def _opened(self, profile: CarrierProfile) -> None:
        self.look_up_errors.clear()
        if not self.notice.is_error:  # "Saved your settings for …" was about the last one
            self.notice.clear_message()
        self.scac.setText(profile.scac)
        self._show(profile)

    def revert(self) -> None:
        if self.profile is not None:
            self.dirty = False
            self._read(self.profile.scac)

    # --- saving and deleting ---------------------------------------------------------------

    def save(self) -> None:
        profile = self.profile
        if profile is None:
            return
        body, problems = check_profile(self.form.wire())
        if body is None:
            self.form.show_problems(problems)
            return
        service = self.session.carrier_profiles
        if service is None or self.session.client is None:
            self.form.show_problems({}, general=NOT_CONNECTED)
            return
        self.form.errors.clear()

        def saved(answer: CarrierProfile) -> None:
            self._show(answer)
            self.notice.show_info(
                f"Saved your settings for {answer.scac}: it answers this way from now on."
            )

        def refused(error: BaseException) -> None:
            # What was typed stays; each problem the service names goes beside its field.
            self.form.show_problems(*refusal(error))

        self._run(service.save(profile.scac, body), "save-carrier-profile", saved, refused)

    def confirm_delete(self) -> None:
        profile = self.profile
        if profile is None or not profile.configured:
            return
        self.question = ask(
            self,
            "Delete carrier settings",
            f"Delete your settings for {profile.scac} ({profile.name})?",
            lambda: self.delete(profile.scac),
            name="confirmDelete",
            informative="The carrier answers your rate requests and bookings with its "
            "defaults again. Bookings it has already answered keep their answer."
            + (" Your unsaved changes to the form are dropped too." if self.dirty else ""),
            answers=("&Delete", "Cancel"),
        )

    def delete(self, scac: str) -> None:
        service = self.session.carrier_profiles
        if service is None or self.session.client is None:
            show_error(self.notice, NOT_CONNECTED)
            return

        def deleted(profile: CarrierProfile) -> None:
            self._show(profile)
            self.notice.show_info(
                f"Deleted your settings for {scac}: it answers with its defaults again."
            )

        self._run(
            service.forget(scac),
            "delete-carrier-profile",
            deleted,
            lambda error: show_error(self.notice, explain(error)),
        )

    # --- pane actions ----------------------------------------------------------------------

    def unsaved_changes(self) -> str | None:
        """Changes to the open profile not saved (asked about when the window closes)."""
        if not self.dirty or self.profile is None:
            return None
        return f"your changes to {self.profile.scac}'s carrier profile, not saved"

    def focus_search(self) -> None:
        self.scac.setFocus()
        self.scac.selectAll()

    def refresh(self) -> None:
        self.page.refresh()

    def shutdown(self) -> None:
        self.page.shutdown()
        self.group_follower.stop()
