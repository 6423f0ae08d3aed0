"""Forms that name account groups by code (the rate request form, a carrier's profile) follow
the tenant's groups while they are on screen: a group renamed meanwhile (in the Account groups
pane, or by anyone, seen at the list's next poll) is named by its new code in the open form,
which would otherwise send the old one.

The account groups' list service announces each change of the list; `GroupFollower` listens
while its form is shown and tells it the list as it now is, with the codes renamed since the
form last heard (by group id, so a group renamed twice, or while the form was hidden, maps
from the code the form shows)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QObject, Signal
from PySide6.QtWidgets import QWidget

from freightdesk.models.account_groups import AccountGroup, code_key
from freightdesk.service.account_groups import AccountGroupsService
from freightdesk.service.listing import ListChange
from freightdesk.service.session import AppSession


def renamed_codes(before: Sequence[AccountGroup], after: Sequence[AccountGroup]) -> dict[str, str]:
    """{old code's key (`code_key`): new code} of the groups in both whose code changed."""
    old = {group.id: group.code for group in before}
    return {
        code_key(old[group.id]): group.code
        for group in after
        if group.id in old and old[group.id] != group.code
    }


def renamed(code: str, renames: dict[str, str]) -> str:
    """`code` as it is named now (its stored spelling after a rename, else as it is)."""
    return renames.get(code_key(code), code)


class GroupFollower(QObject):
    """Listens to the account groups while `host` is shown (and the session connected)."""

    # (the groups as now listed, {old code's key: new code} since the last emission)
    changed = Signal(object, object)

    def __init__(self, session: AppSession, host: QWidget) -> None:
        super().__init__(host)
        self.session = session
        self._service: AccountGroupsService | None = None  # listened to now
        self._known: tuple[AccountGroup, ...] = ()  # what the host was last told
        self._known_from: AccountGroupsService | None = None  # by which service
        self._unlisten: Callable[[], None] | None = None
        self._unconnected: Callable[[], None] | None = None
        host.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Show and self._unconnected is None:
            self._unconnected = self.session.listen_connected(self._start)
            self._start()
        elif event.type() == QEvent.Type.Hide:
            self.stop()
        return False

    def _start(self) -> None:
        """Listen to the session's groups; after a connect to another profile, to its own
        (another tenant's groups: none of them is a rename of what the form was told)."""
        service = self.session.account_groups
        if service is None or self.session.client is None or service is self._service:
            return
        self._stop_listening()
        if service is not self._known_from:
            self._known = ()
        self._service = service
        self._unlisten = service.coordinator.listen(self._heard)
        if service.coordinator.data is not None:
            self._heard(None)  # renamed while the form was hidden, or first heard of here

    def _heard(self, _change: ListChange | None) -> None:
        service = self._service
        listing = service.coordinator.data if service is not None else None
        if listing is None:
            return
        before, self._known, self._known_from = self._known, listing.items, service
        if before != listing.items:
            self.changed.emit(listing.items, renamed_codes(before, listing.items))

    def _stop_listening(self) -> None:
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        self._service = None

    def stop(self) -> None:
        """Stop listening (the form is hidden or goes). What it was told is kept: a rename
        made meanwhile is told when it is shown again."""
        self._stop_listening()
        if self._unconnected is not None:
            self._unconnected()
            self._unconnected = None
