"""The big forms' shared frame: tabs over Save and Cancel, the buttons waiting while the
service answers, a save closing the form, a refusal beside its field with the input kept."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.api.errors import BadRequest
from freightdesk.models.errors import ErrorBody, ErrorDetail
from freightdesk.service.session import AppSession
from freightdesk.ui.widgets.tabbed_form import NOT_CONNECTED, TabbedFormDialog
from tests.support import wait_until
from tests.ui.test_capacity_support import settle
from tests.ui.test_list_page import Connected


class Crates:
    """Stands for an area's service layer: a save answers when the test says."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.answers: list[asyncio.Future[object]] = []

    async def save(self, name: str) -> object:
        self.sent.append(name)
        self.answers.append(asyncio.get_running_loop().create_future())
        return await self.answers[-1]


class CrateForm(TabbedFormDialog):
    def __init__(
        self,
        session: AppSession,
        service: Crates | None,
        *,
        on_error: Callable[[BaseException], bool] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(session, parent)
        self.service = service
        self.on_error = on_error
        self.summary = QLabel("A crate", self)
        self.build(
            [(self._name_tab, "&Name"), (self._more_tab, "&More")],
            above=self.summary,
            save_text="&Ship it",
        )
        self.name.textEdited.connect(self.mark_dirty)

    def _name_tab(self) -> QWidget:
        tab = QWidget(self)
        self.name = QLineEdit(tab)
        self.errors.add_row(QFormLayout(tab), "&Name", "name", self.name)
        return tab

    def _more_tab(self) -> QWidget:
        tab = QWidget(self)
        self.note = QLineEdit(tab)
        self.errors.add_row(QFormLayout(tab), "N&ote", "note", self.note)
        return tab

    def save(self) -> None:
        if self.can_send(self.service):
            self.send(self.service.save(self.name.text()), "save-crate", on_error=self.on_error)


def _refused(**problems: str) -> BadRequest:
    details = [ErrorDetail(message=m, source=s) for s, m in problems.items()]
    body = ErrorBody(
        http_status_code=400, http_message="Bad Request", error_message="no", errors=details
    )
    return BadRequest(400, body)


@pytest.fixture
def connected_session(session: AppSession, monkeypatch: pytest.MonkeyPatch) -> AppSession:
    monkeypatch.setattr(session, "client", Connected())
    return session


def _typed(qtbot: QtBot, form: CrateForm, name: str) -> None:
    qtbot.addWidget(form)
    form.show()
    form.name.setText(name)
    form.name.textEdited.emit(name)


async def _sent(
    qtbot: QtBot,
    session: AppSession,
    on_error: Callable[[BaseException], bool] | None = None,
) -> tuple[CrateForm, Crates, QWidget]:
    """A form over its pane, "Crate 1" typed and sent; the service's answer is the test's
    to give. (The pane is kept: with no window left, closing the form would end the
    application's event loop, and the test's with it.)"""
    pane = QWidget()
    qtbot.addWidget(pane)
    pane.show()
    crates = Crates()
    form = CrateForm(session, crates, on_error=on_error, parent=pane)
    _typed(qtbot, form, "Crate 1")
    form.save()
    await wait_until(lambda: len(crates.answers) == 1)
    return form, crates, pane


def test_the_layout_and_the_order_of_the_keys(qtbot: QtBot, session: AppSession) -> None:
    form = CrateForm(session, None)
    qtbot.addWidget(form)
    layout = form.layout()
    assert layout is not None
    order = [layout.itemAt(i).widget() for i in range(layout.count())]  # type: ignore[union-attr]
    assert order == [form.summary, form.tabs, form.general_error, form.buttons]
    assert [form.tabs.tabText(i) for i in range(form.tabs.count())] == ["&Name", "&More"]
    ship = form.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert ship is not None and ship.text() == "&Ship it"
    # Tab reaches the tab bar before the first tab's fields.
    chain, widget = [], form.nextInFocusChain()
    while widget is not None and widget is not form:
        if widget.focusPolicy() & Qt.FocusPolicy.TabFocus:
            chain.append(widget)
        widget = widget.nextInFocusChain()
    assert chain.index(form.tabs.tabBar()) < chain.index(form.name) < chain.index(form.note)
    form.close()


def test_not_connected_says_so_and_keeps_the_input(qtbot: QtBot, session: AppSession) -> None:
    form = CrateForm(session, Crates())  # the service is there, the client not
    _typed(qtbot, form, "Crate 1")
    form.save()
    assert form.general_error.text() == NOT_CONNECTED
    assert form.isVisible() and form.name.text() == "Crate 1" and form.buttons.isEnabled()
    form.mark_clean()
    form.close()


async def test_saved_closes_the_form_and_says_what_was_saved(
    qtbot: QtBot, connected_session: AppSession
) -> None:
    form, crates, _pane = await _sent(qtbot, connected_session)
    saved: list[object] = []
    form.saved.connect(saved.append)
    assert crates.sent == ["Crate 1"]
    assert not form.buttons.isEnabled()  # sent once: the buttons wait for the answer
    crates.answers[-1].set_result({"name": "Crate 1", "version": 1})
    await wait_until(lambda: not form.isVisible())
    assert saved == [{"name": "Crate 1", "version": 1}] and not form.dirty
    await settle(connected_session)


async def test_a_refusal_is_shown_beside_its_field_and_nothing_is_lost(
    qtbot: QtBot, connected_session: AppSession
) -> None:
    form, crates, _pane = await _sent(qtbot, connected_session)
    crates.answers[-1].set_exception(_refused(name="is taken"))
    await wait_until(lambda: form.buttons.isEnabled())
    assert form.errors.message_for("name") == "Is taken"
    assert form.isVisible() and form.name.text() == "Crate 1" and form.dirty
    # A failure without fields is said in the form's general error.
    form.save()
    await wait_until(lambda: len(crates.answers) == 2)
    crates.answers[-1].set_exception(RuntimeError("The service had a problem."))
    await wait_until(lambda: form.general_error.text() == "The service had a problem.")
    assert form.errors.message_for("name") == ""  # the earlier problem is gone
    form.mark_clean()
    form.close()
    await settle(connected_session)


async def test_a_form_may_take_a_failure_on_itself(
    qtbot: QtBot, connected_session: AppSession
) -> None:
    taken: list[BaseException] = []

    def take(error: BaseException) -> bool:
        taken.append(error)
        return True

    form, crates, _pane = await _sent(qtbot, connected_session, on_error=take)
    crates.answers[-1].set_exception(RuntimeError("someone saved meanwhile"))
    await wait_until(lambda: bool(taken))
    assert form.buttons.isEnabled() and not form.general_error.isVisible()
    form.mark_clean()
    form.close()
    await settle(connected_session)
