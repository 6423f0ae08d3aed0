"""The user's setting "Times without a place: Local / UTC" (View menu), kept in QSettings and
handed to the one clock (`service/clock.py`)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QWidget

from freightdesk.service.clock import UserZone, set_user_zone

SETTING = "clock/user_zone"


def saved_zone(settings: QSettings) -> UserZone:
    try:
        return UserZone(str(settings.value(SETTING, UserZone.LOCAL.value)))
    except ValueError:  # an older or hand-edited value: the default
        return UserZone.LOCAL


def zone_actions(
    settings: QSettings, parent: QWidget, changed: Callable[[], None]
) -> list[QAction]:
    """The two checkable choices, the saved one checked and in force; choosing one saves it,
    sets the clock and calls `changed` (which redraws what is open)."""
    current = saved_zone(settings)
    set_user_zone(current)
    group = QActionGroup(parent)
    actions = []
    for choice, label in (
        (UserZone.LOCAL, "&Local time (this computer's zone)"),
        (UserZone.UTC, "&UTC"),
    ):
        action = QAction(label, group, checkable=True)
        action.setObjectName(f"userZone-{choice.value}")
        action.setChecked(choice is current)

        def chosen(_checked: bool = False, c: UserZone = choice) -> None:
            settings.setValue(SETTING, c.value)
            set_user_zone(c)
            changed()

        action.triggered.connect(chosen)
        actions.append(action)
    return actions
