"""A new stop location with several mistakes shows every one at the first Save, each beside
its own field in the form's words. It used to take three Saves: the model's refusal of the
longitude "abc" hid the latitude 95, and both hid the blank name (the rules ran only on a
whole body); the words were the model's ("Input should be less than or equal to 90", "must
not be blank"), and the longitude's problem was shown under the latitude box."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.stop_locations.form import StopLocationFormDialog
from freightdesk.ui.widgets.forms import ErrorLabel
from freightdesk.ui.widgets.tabbed_form import NOT_CONNECTED
from tests.ui.conftest import activated
from tests.ui.forms_keys import click, keys, ok_button
from tests.ui.test_export_panes import _from_loop


def _span(widget: QWidget, form: QWidget) -> tuple[int, int]:
    left = widget.mapTo(form, QPoint(0, 0)).x()
    return left, left + widget.width()


async def _opened(qtbot: QtBot, session: AppSession) -> StopLocationFormDialog:
    form = StopLocationFormDialog(session, None)
    qtbot.addWidget(form)
    await activated(form)
    return form


async def test_every_mistake_is_shown_at_once_beside_its_field(
    qtbot: QtBot, session: AppSession
) -> None:
    form = await _opened(qtbot, session)
    await keys(qtbot, form.latitude, "95")
    await keys(qtbot, form.longitude, "abc")
    await click(qtbot, ok_button(form.buttons))

    said = {
        path: form.errors.message_for(path)
        for path in ("name", "coordinates.latitude", "coordinates.longitude")
    }
    assert said == {
        "name": "Enter a name",
        "coordinates.latitude": "Latitude is between -90 and 90",
        "coordinates.longitude": "Longitude is between -180 and 180",
    }
    # Each under its own box.
    for box, error in (
        (form.latitude, form.latitude_error),
        (form.longitude, form.longitude_error),
    ):
        assert error.isVisible()
        assert _span(error, form)[0] == _span(box, form)[0], (error.text(), box.objectName())
        assert error.mapTo(form, QPoint(0, 0)).y() > box.mapTo(form, QPoint(0, 0)).y()
    assert not form.coordinates_error.isVisible()
    assert form.focusWidget() is form.name  # the first problem, top to bottom

    # One box given without the other; the rest right: the form says what is missing, and
    # once both are right it goes on to send (here: not connected).
    await keys(qtbot, form.name, "Yard 3")
    await keys(qtbot, form.latitude, "")
    await keys(qtbot, form.longitude, "-97.7431")
    await click(qtbot, ok_button(form.buttons))
    assert form.errors.message_for("coordinates.latitude") == (
        "Enter the latitude too, or clear the longitude"
    )
    assert not form.errors.message_for("name")
    assert not form.errors.message_for("coordinates.longitude")
    await keys(qtbot, form.latitude, "30.2672")
    await click(qtbot, ok_button(form.buttons))
    assert form.general_error.text() == NOT_CONNECTED
    assert not form.errors.message_for("coordinates.latitude")
    form.mark_clean()
    form.close()


async def test_a_street_address_half_given_says_what_is_missing(
    qtbot: QtBot, session: AppSession
) -> None:
    form = await _opened(qtbot, session)
    await keys(qtbot, form.name, "Yard 3")
    await keys(qtbot, form.state, "TX")
    await click(qtbot, ok_button(form.buttons))
    assert form.errors.message_for("address.addressLines") == (
        "Enter the street and number, or give coordinates"
    )
    assert form.errors.message_for("address.city") == "Enter a city, or give coordinates"
    form.mark_clean()
    form.close()


async def test_fields_stay_put_as_a_problem_goes(qtbot: QtBot, session: AppSession) -> None:
    """A problem under a field goes as the user edits the field, and the fields below stay
    where they were: they moved up by the problem's line, so the next click (aimed at the
    supplied id, at the longitude) landed on the field below or on nothing."""
    form = await _opened(qtbot, session)
    await keys(qtbot, form.latitude, "95")
    await click(qtbot, ok_button(form.buttons))
    assert form.errors.message_for("name") == "Enter a name"
    assert form.errors.message_for("coordinates.latitude")
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    aimed = {
        field: field.mapTo(form, field.rect().center())
        for field in (form.supplied_id, form.latitude, form.longitude)
    }

    await keys(qtbot, form.name, "Yard 3")
    await keys(qtbot, form.latitude, "30.2672")
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    assert not form.errors.message_for("name")
    assert not form.errors.message_for("coordinates.latitude")
    for field, point in aimed.items():
        assert form.childAt(point) is field, (field.objectName(), form.childAt(point))
    await _from_loop(
        lambda: qtbot.mouseClick(form.childAt(aimed[form.supplied_id]), Qt.MouseButton.LeftButton)
    )
    assert form.focusWidget() is form.supplied_id

    # Sent again, what is shown is the form's problems now: none, and no room kept for any.
    await keys(qtbot, form.longitude, "-97.7431")
    await click(qtbot, ok_button(form.buttons))
    assert form.general_error.text() == NOT_CONNECTED
    for label in form.findChildren(ErrorLabel):
        assert label is form.general_error or label.isHidden(), label.text()
        assert label.minimumHeight() == 0, label.minimumHeight()
